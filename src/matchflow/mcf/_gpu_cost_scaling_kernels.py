"""numba.cuda kernels of the GPU cost-scaling min-cost flow (:mod:`._gpu_cost_scaling`): a parallel push-relabel
refine on the residual CSR of :func:`._cpu_cost_scaling.residual` (slot ``a`` of node ``v`` goes to ``to[a]``,
residual capacity ``res[a]``, scaled cost ``c[a]``, partner slot ``rev[a]``), prices ``p`` (reduced cost of a
residual slot ``c[a] + p(v) - p(to[a])``), excesses ``e`` (int64; ``e(v) > 0``: active).

One thread per node (grid-stride). A refine round is two launches, each preserving eps-optimality on its own:

* ``push_kernel`` (``cycle`` passes): an active node pushes ``min(e, res)`` along every admissible slot (reduced
  cost < 0) until its excess is gone. Prices do not change during the launch, so every push is on an arc
  admissible at the current prices and its partner gets a positive reduced cost. Only ``v``'s thread lowers
  ``e(v)`` and ``res`` of ``v``'s slots (an admissible slot's partner is never admissible); others only raise
  them, so every update is an atomic add and the amounts pushed are read atomically (at L2: a plain read may hit
  a stale L1 line written before this thread's own atomics, an over-estimate).
* ``relabel_kernel``: an active node without an admissible slot takes ``p(v) = max(p(w) - c(v, w)) - eps`` over
  its residual slots (Łupińska's line 18, Goldberg's relabel). No residual capacity changes during the launch, and
  prices only fall: a neighbour's price read while it is being lowered is an older, higher value, so the new
  price is at least the serial one and still at least ``eps`` below the old (every slot was non-admissible at
  values between the two): eps-optimality holds and the admissible graph stays acyclic. It also counts the
  active nodes (the phase ends at 0) into a rotating slot of ``ctl`` (``ctl[CTL_ACTIVE + r % 3]`` for round
  ``r``; thread 0 clears the next round's slot), so the host reads every ``check_every`` rounds.

Łupińska's Algorithm 5.4 pushes and relabels in one pass (lock-free, correctness by trace equivalence);
separating them costs a launch per round and gives a proof that needs no trace argument: the correctness
first, as issue 25 asked. ``saturate_kernel`` starts a phase (every residual slot of negative reduced cost
saturated: the pseudoflow becomes 0-optimal). Status codes in ``ctl[CTL_STATUS]`` (atomic max); Python raises.
No warp intrinsics and no grid sync: the kernels run in the CUDA simulator as they are.

``persistent_kernel`` (``loop="persistent"``, opt-in) is the whole eps loop in ONE cooperative launch: the same
device steps (:func:`saturate_node_dev`, :func:`push_node_dev`, :func:`relabel_node_dev`) separated by grid
syncs (a grid sync orders and publishes the global writes before it, as a launch boundary does: the two stages
keep their separation), the active count a grid-wide sum (:func:`grid_total_dev`, rotating slots
``ctl[CTL_ACTIVE + 0..2]``); BUDGET in ``ctl[CTL_STATUS]`` after ``max_rounds`` rounds of one phase. In the
simulator it runs on one block (the flow kernels' rule: its grid sync is only sound there).
"""

from __future__ import annotations

from numba import cuda, int64

from .._cuda._device import grid_stride_dev, grid_total_dev
from .._cuda._env import kernel_cache
from ._gpu_price_update_kernels import U_SIZE, price_update_dev

__all__ = ["OK", "STUCK", "OVERFLOW", "BUDGET", "CTL_STATUS", "CTL_PUSHES", "CTL_RELABELS", "CTL_ACTIVE",
           "CTL_ROUNDS", "CTL_PHASES", "CTL_UPDATE", "CTL_SIZE", "BLOCK_SUM", "saturate_kernel", "push_kernel",
           "relabel_kernel", "persistent_kernel", "saturate_node_dev", "push_node_dev", "push_passes_dev",
           "relabel_node_dev", "relabel_pass_dev"]

CACHE = kernel_cache()  # numba-cuda on-disk cache of the kernels (off with MATCHFLOW_CUDA_CACHE=0)
OK, STUCK, OVERFLOW = 0, 1, 2  # the CPU twin's codes (matchflow.mcf._cpu_cost_scaling)
BUDGET = 3  # persistent_kernel: a phase ran max_rounds rounds (the host falls back to the CPU twin)
CTL_STATUS, CTL_PUSHES, CTL_RELABELS, CTL_ACTIVE = 0, 1, 2, 3  # ctl[CTL_ACTIVE + 0..2]: the rotating counts
CTL_ROUNDS, CTL_PHASES = 6, 7  # persistent_kernel's rounds and phases
CTL_UPDATE = 8  # ctl[CTL_UPDATE:CTL_UPDATE + U_SIZE]: the price update's words (U_UPDATES, U_SWEEPS, U_SKIPPED)
CTL_SIZE = CTL_UPDATE + U_SIZE
BLOCK_SUM = 1024  # shared slots of the block sums (the largest block)


@cuda.jit(device=True, inline=True)
def saturate_node_dev(v, indptr, to, rev, res, c, excess, price):
    """Node ``v`` saturates its residual slots of negative reduced cost (their partners have a positive one, so no
    two threads write one pair's residuals; the adds are atomic all the same)."""
    pv = price[v]
    for a in range(indptr[v], indptr[v + 1]):
        r = res[a]
        w = to[a]
        if r > 0 and c[a] + pv - price[w] < 0:
            res[a] = 0
            cuda.atomic.add(res, rev[a], r)
            cuda.atomic.sub(excess, v, r)
            cuda.atomic.add(excess, w, r)


@cuda.jit(cache=CACHE)
def saturate_kernel(n, indptr, to, rev, res, c, excess, price):
    """The start of a phase: :func:`saturate_node_dev` at every node (the pseudoflow becomes 0-optimal)."""
    v = cuda.grid(1)
    stride = cuda.gridsize(1)
    while v < n:
        saturate_node_dev(v, indptr, to, rev, res, c, excess, price)
        v += stride


@cuda.jit(device=True, inline=True)
def push_node_dev(v, indptr, to, rev, res, c, excess, price):
    """Node ``v`` pushes along its admissible slots (prices fixed during the launch) until its excess is gone.
    Returns the pushes done."""
    zero = int64(0)
    e = excess[v]
    if e <= 0:
        return 0
    e = cuda.atomic.add(excess, v, zero)  # coherent (others only raise it: never an over-estimate)
    pushes = 0
    pv = price[v]
    a = indptr[v]
    end = indptr[v + 1]
    while e > 0 and a < end:
        w = to[a]
        if res[a] > 0 and c[a] + pv - price[w] < 0:
            r = cuda.atomic.add(res, a, zero)  # only v lowers it
            d = e if e < r else r
            if d > 0:
                cuda.atomic.sub(res, a, d)
                cuda.atomic.add(res, rev[a], d)
                cuda.atomic.sub(excess, v, d)
                cuda.atomic.add(excess, w, d)
                e -= d
                pushes += 1
        a += 1
    return pushes


@cuda.jit(device=True, inline=True)
def push_passes_dev(cycle, start, stride, n, indptr, to, rev, res, c, excess, price):
    """``cycle`` passes of :func:`push_node_dev` over this thread's nodes ``start, start + stride, ...``; returns
    the pushes."""
    pushes = 0
    for _ in range(cycle):
        v = start
        while v < n:
            pushes += push_node_dev(v, indptr, to, rev, res, c, excess, price)
            v += stride
    return pushes


@cuda.jit(cache=CACHE)
def push_kernel(n, cycle, indptr, to, rev, res, c, excess, price, ctl):
    """``cycle`` passes of :func:`push_node_dev` over this thread's nodes; the pushes into ``ctl[CTL_PUSHES]``."""
    pushes = push_passes_dev(cycle, cuda.grid(1), cuda.gridsize(1), n, indptr, to, rev, res, c, excess, price)
    if pushes:
        cuda.atomic.add(ctl, CTL_PUSHES, pushes)


@cuda.jit(device=True, inline=True)
def relabel_node_dev(v, eps, floor, indptr, to, res, c, price):
    """Relabel ``v`` when it has no admissible slot: ``(status, relabelled)``; STUCK where no slot is residual,
    OVERFLOW where the price would pass ``floor``."""
    pv = price[v]
    best = floor
    found = False
    for a in range(indptr[v], indptr[v + 1]):
        if res[a] > 0:
            t = price[to[a]] - c[a]
            if t > pv:  # admissible (c + p(v) - p(w) < 0): it pushes next round
                return OK, 0
            if not found or t > best:
                best = t
                found = True
    if not found:
        return STUCK, 0
    if best - eps <= floor:
        return OVERFLOW, 0
    price[v] = best - eps
    return OK, 1


@cuda.jit(device=True, inline=True)
def relabel_pass_dev(start, stride, n, eps, floor, indptr, to, res, c, excess, price):
    """One relabel pass over this thread's nodes ``start, start + stride, ...``: :func:`relabel_node_dev` at every
    active node (excess > 0). Returns (active nodes, relabels, the largest status)."""
    active = 0
    relabels = 0
    status = OK
    v = start
    while v < n:
        if excess[v] > 0:
            active += 1
            st, r = relabel_node_dev(v, eps, floor, indptr, to, res, c, price)
            relabels += r
            if st > status:
                status = st
        v += stride
    return active, relabels, status


@cuda.jit(cache=CACHE)
def relabel_kernel(n, rnd, eps, floor, indptr, to, res, c, excess, price, ctl):
    """Round ``rnd``'s relabels (:func:`relabel_node_dev` at every active node) and the count of active nodes
    into ``ctl[CTL_ACTIVE + rnd % 3]`` (thread 0 clears ``ctl[CTL_ACTIVE + (rnd + 1) % 3]``, next round's)."""
    i = cuda.grid(1)
    if i == 0:
        ctl[CTL_ACTIVE + (rnd + 1) % 3] = 0
    active, relabels, status = relabel_pass_dev(i, cuda.gridsize(1), n, eps, floor, indptr, to, res, c, excess, price)
    if active:
        cuda.atomic.add(ctl, CTL_ACTIVE + rnd % 3, active)
    if relabels:
        cuda.atomic.add(ctl, CTL_RELABELS, relabels)
    if status != OK:
        cuda.atomic.max(ctl, CTL_STATUS, status)


# ------------------------------------------------------------------ the whole eps loop in one cooperative launch


@cuda.jit(cache=CACHE)
def persistent_kernel(n, eps0, alpha, cycle, max_rounds, every, floor, indptr, to, rev, res, c, excess, price,
                      owner, label, ulen, ctl):
    """The eps loop of :mod:`._gpu_cost_scaling` in ONE cooperative launch (module docstring): per phase a saturate
    pass, then rounds (``cycle`` push passes, a grid sync, the relabel pass with the active count, a grid sum)
    until a round counts no active node; stops on a status (STUCK, OVERFLOW, BUDGET after ``max_rounds`` rounds
    of a phase). With ``every > 0`` a global price update (:func:`._gpu_price_update_kernels.price_update_dev`,
    ``owner[a]`` the node of slot ``a``, scratch ``label``, ``ulen``) after each saturate pass and before every
    ``every``-th round of a phase. ``ctl`` zeros on entry; rounds and phases in ``ctl[CTL_ROUNDS]``,
    ``ctl[CTL_PHASES]``, the update's counts from ``ctl[CTL_UPDATE]``."""
    g = cuda.cg.this_grid()
    sh = cuda.shared.array(BLOCK_SUM, dtype=int64)
    i0, stride, tid, bdim = grid_stride_dev()
    pushes = relabels = rounds = phases = ph = uph = 0
    eps = eps0
    while True:
        eps = eps // alpha
        if eps < 1:
            eps = int64(1)
        v = i0
        while v < n:
            saturate_node_dev(v, indptr, to, rev, res, c, excess, price)
            v += stride
        g.sync()
        rnd = 0
        status = OK
        while True:
            if every > 0 and rnd % every == 0:
                uph = price_update_dev(g, sh, uph, i0, stride, tid, bdim, n, eps, floor, owner, to, res, c, excess,
                                       price, label, ulen, ctl, CTL_UPDATE)
            pushes += push_passes_dev(cycle, i0, stride, n, indptr, to, rev, res, c, excess, price)
            g.sync()
            active, r, st_local = relabel_pass_dev(i0, stride, n, eps, floor, indptr, to, res, c, excess, price)
            relabels += r
            if st_local != OK:
                cuda.atomic.max(ctl, CTL_STATUS, st_local)
            tot = grid_total_dev(g, sh, active, ctl, CTL_ACTIVE, ph, i0, tid, bdim)  # its grid sync publishes the prices
            ph += 1
            rnd += 1
            status = cuda.atomic.add(ctl, CTL_STATUS, 0)
            if status != OK or tot == 0:
                break
            if rnd >= max_rounds:
                status = BUDGET
                break
        rounds += rnd
        phases += 1
        if status != OK or eps == 1:
            break
    if pushes:
        cuda.atomic.add(ctl, CTL_PUSHES, pushes)
    if relabels:
        cuda.atomic.add(ctl, CTL_RELABELS, relabels)
    if i0 == 0:
        ctl[CTL_ROUNDS] = rounds
        ctl[CTL_PHASES] = phases
        if status == BUDGET:
            cuda.atomic.max(ctl, CTL_STATUS, BUDGET)
