"""numba.cuda kernels of Łupińska's lock-free parallel refine (Algorithm 5.4) for cost-scaling assignment.

Notation of the paper (Section 5): the bipartite network has the rows X (nodes ``0..n-1``) and the
columns Y (nodes ``n..2n-1``); arc ``(x, y)`` has capacity 1 and cost ``c(x, y)`` (scaled integers),
its reverse ``(y, x)`` cost ``-c(x, y)``. Prices ``p`` (one int64 array over both sides), reduced cost
``c_p(x, y) = c(x, y) + p(x) - p(y)``, partial reduced cost ``c'_p(x, y) = c(x, y) - p(y)`` (seen from
``x``) and ``c'_p(y, x) = -c(x, y) - p(x)`` (seen from ``y``). Excess ``e`` (int32): a refine starts
with ``e(x) = 1``, ``e(y) = -1`` and no flow (Algorithm 5.2). A row sends at most one unit at a time, so
the flow is ``col4row[x]`` (the column ``x`` sends its unit to, or -1): ``(x, y)`` is residual when
``col4row[x] != y``, ``(y, x)`` when ``col4row[x] == y``.

Two schedules. ``sweeps`` (the paper's): a launch is one sweep over the nodes (grid-stride); the host
relaunches until a sweep finds no active node. ``async`` (beyond the paper): the threads of one
co-resident grid keep scanning their nodes until the phase's ``live`` counter (units not yet absorbed by a
deficit column: ``n`` at the start, one less per push into a column of excess -1) reaches 0, which happens
exactly when the matching is perfect and no operation is in flight (an operation holds its claimed unit):
termination is detected on the device, no host read per sweep. ``refine_async_kernel`` runs one phase (the
host launches init + refine per phase and reads once at the end); ``persistent_kernel`` runs the whole
eps loop in one cooperative launch (a grid sync after each init and each refine). Each operation is the paper's: lines 6-10 (preparation: the residual arc of least ``c'_p``), line 11
(admissible when ``min c'_p < -p(x)``), lines 13-16 (push one unit; the excess updates are atomics) or
line 18 (relabel ``p(x) = -(min c'_p + eps)``). A relabel is followed at once by the push on the same arc
(the arc just became admissible: ``c_p = -eps``; the same preparation serves both, a stage-clean trace).

"One node is operated by at most one thread" (the paper's assumption) is kept by *claims*: a thread
takes one unit of a node's excess by compare-and-swap before operating it (a row has at most one unit,
so it has one operator; a column holding k > 1 units may have k, which relabel it with ``atomic.min``,
prices only fall, Lemma 5.2, and take the arc they push back on by a compare-and-swap of its flow word, so
no unit is returned twice). ``col4row[x]`` is set only by the operator of ``x`` (from -1) and cleared only
by a claimer of the column it points to, so no two threads write it from the same state (Lemma 5.5,
case 8). The flow word is written before a fence and the receiver's excess increment, and read by the
columns with an atomic (coherent at L2), so a column that sees its excess also sees the arcs that
brought it. With ``follow`` a thread that activates a node by its push claims it and goes on along the
path of the unit (the push-back chain), which the paper leaves to the next sweep of the node's own thread.
Kernels return status codes in ``ctl[1]``; Python raises.
"""

from __future__ import annotations

from numba import cuda, int32, int64, uint32

from .._cuda._env import is_simulator, kernel_cache

__all__ = ["OK", "NO_PERFECT", "BUDGET", "CTL_STAMP", "CTL_STATUS", "CTL_PUSHES", "CTL_RELABELS", "CTL_PHASES",
           "CTL_SIZE", "phase_init_kernel", "refine_sweep_kernel", "refine_async_kernel", "persistent_kernel"]

CACHE = kernel_cache()  # numba-cuda on-disk cache of the kernels (off with MATCHFLOW_CUDA_CACHE=0)
OK, NO_PERFECT, BUDGET = 0, 1, 3  # the CPU twin's codes (matchflow.assignment._cpu_cost_scaling)
CTL_STAMP, CTL_STATUS, CTL_PUSHES, CTL_RELABELS, CTL_PHASES, CTL_SIZE = 0, 1, 2, 3, 4, 5
BIG = int64(1) << int64(62)
NAP_MIN, NAP_MAX = 128, 16384  # ns an idle thread of the async schedule sleeps between scans (doubling)
FLUSH = 256  # pushes a thread counts before adding them to ctl (one hot word)


@cuda.jit(device=True, inline=True)
def row_best_dev(x, n, indptr, indices, cost, price):
    """Lines 6-10 for a row: the column of least ``c'_p(x, y) = c(x, y) - p(y)`` (every arc of an
    active row is residual: it sends nothing). Returns (column or -1, the minimum, the second least)."""
    m1 = BIG
    m2 = BIG
    yb = -1
    for k in range(indptr[x], indptr[x + 1]):
        y = indices[k]
        t = cost[k] - price[n + y]
        if t < m1:
            m2 = m1
            m1 = t
            yb = y
        elif t < m2:
            m2 = t
    return yb, m1, m2


@cuda.jit(device=True, inline=True)
def col_best_dev(y, cptr, crow, ccost, price, col4row):
    """Lines 6-10 for a column: the row ``x`` sending to ``y`` (residual ``(y, x)``) of least
    ``c'_p(y, x) = -c(x, y) - p(x)``; the flow words are read coherently. Returns (row or -1, min,
    second least, senders seen)."""
    m1 = BIG
    m2 = BIG
    xb = -1
    cnt = 0
    for k in range(cptr[y], cptr[y + 1]):
        x = crow[k]
        if cuda.atomic.add(col4row, x, 0) == y:
            cnt += 1
            t = -ccost[k] - price[x]
            if t < m1:
                m2 = m1
                m1 = t
                xb = x
            elif t < m2:
                m2 = t
    return xb, m1, m2, cnt


@cuda.jit(device=True, inline=True)
def claim_dev(exc, v):
    """Take one unit of ``e(v)`` (a compare-and-swap loop): the thread that takes it operates ``v`` for that
    unit, so a row (excess <= 1) is operated by one thread at a time, as the paper assumes."""
    e = cuda.atomic.add(exc, v, 0)
    while e > 0:
        old = cuda.atomic.cas(exc, v, e, e - 1)
        if old == e:
            return True
        e = old
    return False


@cuda.jit(device=True, inline=True)
def row_op_dev(x, n, indptr, indices, cost, price, col4row, exc, eps, double, gap, floor):
    """One operation of row ``x`` (its unit claimed): lines 6-10, relabel (line 18) when line 11 fails, push
    (lines 13-16). With ``double`` the price is the double-push one, ``-(second least c'_p + eps)``, written
    before the push (no thread reads a row's price while it sends nothing). Returns (column node the unit
    went to, became active there: 1/0, relabelled: 1/0, status)."""
    w, m1, m2 = row_best_dev(x, n, indptr, indices, cost, price)
    if w < 0:
        return -1, 0, 0, NO_PERFECT
    r = 0
    q = price[x]
    if m1 >= -q:
        q = -(m1 + eps)
        r = 1
    if double != 0:
        if m2 == BIG:
            m2 = m1 + gap  # a single arc: any price keeps eps-optimality; a large drop ends the fight
        q2 = -(m2 + eps)
        if q2 < q:
            q = q2
    price[x] = q
    if q < -floor:
        return -1, 0, r, BUDGET
    cuda.atomic.exch(col4row, x, int32(w))
    cuda.threadfence()
    o = cuda.atomic.add(exc, n + w, 1)
    return n + w, 1 if o >= 0 else 0, r, OK


@cuda.jit(device=True, inline=True)
def col_op_dev(v, n, cptr, crow, ccost, price, col4row, exc, eps, double, floor):
    """One operation of column node ``v`` (one unit claimed): the sender of least ``c'_p(y, x)``, relabel
    when line 11 fails (``atomic.min``: two claimers of one column may relabel it), and the push back, which
    takes the arc with a compare-and-swap of its flow word (a lost race rescans). With ``double`` and two
    senders seen, the price is the double-push one, ``-(c'_p of the sender that stays + eps)``. Returns
    (row the unit went back to or -1, that row became active: 1/0, relabelled, status)."""
    y = v - n
    for _ in range(8):
        xb, m1, m2, cnt = col_best_dev(y, cptr, crow, ccost, price, col4row)
        if xb < 0:
            break
        r = 0
        q = price[v]
        if m1 >= -q:
            q = -(m1 + eps)
            r = 1
        if double != 0 and cnt == 2:
            q2 = -(m2 + eps)
            if q2 < q:
                q = q2
        if q < price[v]:
            cuda.atomic.min(price, v, q)
        if q < -floor:
            return -1, 0, r, BUDGET
        if cuda.atomic.cas(col4row, xb, int32(y), int32(-1)) == y:
            cuda.threadfence()
            o = cuda.atomic.add(exc, xb, 1)
            return xb, 1 if o >= 0 else 0, r, OK
    cuda.atomic.add(exc, v, 1)  # no sender taken (every try lost a race): give the unit back
    return -1, 0, 0, OK


@cuda.jit(device=True, inline=True)
def phase_init_dev(v, indptr, indices, cost, n, eps, price, exc, col4row, ctl, floor):
    """Algorithm 5.2 lines 3-6 for node ``v``: no flow, ``e(x) = 1``, ``e(y) = -1``, ``p(x) = -min_y (c'_p(x, y)
    + eps)`` (the pseudoflow is eps-optimal). A row without arcs: NO_PERFECT."""
    if v >= n:
        exc[v] = -1
        return
    col4row[v] = -1
    exc[v] = 1
    yb, m1, _ = row_best_dev(v, n, indptr, indices, cost, price)
    if yb < 0:
        cuda.atomic.max(ctl, CTL_STATUS, NO_PERFECT)
        return
    q = -(m1 + eps)
    price[v] = q
    if q < -floor:
        cuda.atomic.max(ctl, CTL_STATUS, BUDGET)


@cuda.jit(device=True, inline=True)
def chain_dev(v, n, indptr, indices, cost, cptr, crow, ccost, eps, price, exc, col4row, max_ops, floor, double,
              gap, follow):
    """Operate active node ``v`` (claimed unit by unit) until it is inactive or ``max_ops`` operations were
    done. ``follow``: after a push that activates its target, claim the target and go on along the path (the
    push-back chain of one unit), instead of leaving it to the target's own thread. ``double`` (variant
    "double-push"): a pushing node takes the least eps-optimal price for the residual arcs it will have
    (Algorithm 5.0's relabel formula from the same preparation): Goldberg-Kennedy's double-push prices, which
    the paper's version reaches only through many eps-steps. Returns (pushes, relabels, units absorbed by a
    deficit column, status)."""
    node = v
    ops = 0
    pushes = 0
    relabels = 0
    absorbed = 0
    while ops < max_ops:
        if not claim_dev(exc, node):
            if node == v:
                break
            node = v  # the path's node was taken by another thread: back to this thread's own node
            continue
        if node < n:
            w, act, r, st = row_op_dev(node, n, indptr, indices, cost, price, col4row, exc, eps, double, gap, floor)
            if st == OK and act == 0:
                absorbed += 1
        else:
            w, act, r, st = col_op_dev(node, n, cptr, crow, ccost, price, col4row, exc, eps, double, floor)
            if w < 0 and st == OK:
                break  # its senders are not visible yet: later
        relabels += r
        if st != OK:
            return pushes, relabels, absorbed, st
        pushes += 1
        ops += 1
        if follow != 0 and act != 0:
            node = w
        else:
            node = v
    return pushes, relabels, absorbed, OK


if is_simulator():
    @cuda.jit(device=True, inline=True)
    def nap_dev(ns):
        """The simulator has no nanosleep: no pause."""
        return 0
else:
    @cuda.jit(device=True, inline=True)
    def nap_dev(ns):
        """An idle thread's pause (``nanosleep``): fewer polls of the shared words while others work."""
        cuda.nanosleep(uint32(ns))
        return 0


@cuda.jit(device=True, inline=True)
def flush_dev(ctl, pushes, relabels, budget):
    """Add a thread's counts to ``ctl``; True when the pushes of all threads passed ``budget``."""
    if pushes > 0:
        old = cuda.atomic.add(ctl, CTL_PUSHES, pushes)
        cuda.atomic.add(ctl, CTL_RELABELS, relabels)
        return old + pushes > budget
    return False


@cuda.jit(device=True, inline=True)
def stop_dev(live, ph, ctl, st):
    """An error status ends the phase for every thread: ``ctl`` holds it, ``live[ph]`` drops to 0."""
    cuda.atomic.max(ctl, CTL_STATUS, st)
    cuda.atomic.exch(live, ph, 0)


@cuda.jit(device=True, inline=True)
def refine_async_dev(start, stride, n, indptr, indices, cost, cptr, crow, ccost, eps, price, exc, col4row, ctl,
                     live, ph, sh, max_ops, floor, double, gap, follow, budget, max_scans, tail):
    """One refine phase, the async schedule: scan this thread's nodes (coherent reads of the excess), operate
    the active ones (:func:`chain_dev`), sleep a little when none was, until ``live[ph]`` is 0 (every unit
    absorbed: a perfect matching, no operation in flight; or an error status in ``ctl``), or at most ``tail``
    (> 0: the host finishes the phase on the CPU from the state the kernel leaves: every chain in flight
    completes before its thread reads the flag, so the state is a quiescent pseudoflow). Only thread 0 of a
    block polls the global word (one poller per block, not per thread: it is one hot address); it raises the
    block's shared flag ``sh[0]`` (reset by the caller before the phase), which the others read with a
    shared atomic. A thread that scanned ``max_scans`` times sets BUDGET (a safety bound: never a hang)."""
    tid = cuda.threadIdx.x
    pushes = int64(0)
    relabels = int64(0)
    nap = NAP_MIN
    scans = int64(0)
    while True:
        if tid == 0 and cuda.atomic.add(live, ph, 0) <= tail:
            cuda.atomic.exch(sh, 0, 1)
        if cuda.atomic.add(sh, 0, 0) != 0:
            break
        scans += 1
        if scans > max_scans:
            stop_dev(live, ph, ctl, BUDGET)
            continue
        found = 0
        for v in range(start, 2 * n, stride):
            if cuda.atomic.add(exc, v, 0) <= 0:
                continue
            found = 1
            p, r, a, st = chain_dev(v, n, indptr, indices, cost, cptr, crow, ccost, eps, price, exc, col4row,
                                    max_ops, floor, double, gap, follow)
            pushes += p
            relabels += r
            if a > 0:
                cuda.atomic.add(live, ph, -a)
            if st != OK:
                stop_dev(live, ph, ctl, st)
                break
        if pushes >= FLUSH or found == 0:
            if flush_dev(ctl, pushes, relabels, budget):
                stop_dev(live, ph, ctl, BUDGET)
            pushes = 0
            relabels = 0
        if found == 0:
            nap_dev(nap)
            nap = min(2 * nap, NAP_MAX)
        else:
            nap = NAP_MIN
    flush_dev(ctl, pushes, relabels, budget)


@cuda.jit(cache=CACHE)
def phase_init_kernel(indptr, indices, cost, n, eps, price, exc, col4row, ctl, floor):
    """Algorithm 5.2 lines 3-6 (:func:`phase_init_dev`), one thread per node; nothing after an error status."""
    v = cuda.grid(1)
    if v >= 2 * n or ctl[CTL_STATUS] != OK:
        return
    phase_init_dev(v, indptr, indices, cost, n, eps, price, exc, col4row, ctl, floor)


@cuda.jit(cache=CACHE)
def refine_sweep_kernel(indptr, indices, cost, cptr, crow, ccost, n, eps, price, exc, col4row, ctl, stamp,
                        max_ops, floor, double, gap, follow):
    """One sweep of Algorithm 5.4: a thread takes each active node of its stride and operates it
    (:func:`chain_dev`); a thread that found work stamps ``ctl[CTL_STAMP] = stamp``."""
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    pushes = int64(0)
    relabels = int64(0)
    bad = 0
    for v in range(start, 2 * n, stride):
        if exc[v] <= 0:
            continue
        ctl[CTL_STAMP] = stamp
        p, r, _, st = chain_dev(v, n, indptr, indices, cost, cptr, crow, ccost, eps, price, exc, col4row, max_ops,
                                floor, double, gap, follow)
        pushes += p
        relabels += r
        if st != OK:
            bad = st
            break
    if pushes > 0:
        cuda.atomic.add(ctl, CTL_PUSHES, pushes)
        cuda.atomic.add(ctl, CTL_RELABELS, relabels)
    if bad != 0:
        cuda.atomic.max(ctl, CTL_STATUS, bad)


@cuda.jit(cache=CACHE)
def refine_async_kernel(indptr, indices, cost, cptr, crow, ccost, n, eps, price, exc, col4row, ctl, live, ph,
                        max_ops, floor, double, gap, follow, budget, max_scans, tail):
    """One refine phase on the async schedule (:func:`refine_async_dev`); the grid must be co-resident (the
    host caps it at the occupancy bound: idle threads wait for work only other threads can make)."""
    sh = cuda.shared.array(1, int32)
    if cuda.threadIdx.x == 0:
        # an earlier launch failed (the host queues the phases unread) or the phase starts at the tail: the
        # block stops at once (one read per block: a uniform decision)
        sh[0] = 1 if ctl[CTL_STATUS] != OK or live[ph] <= tail else 0
    cuda.syncthreads()
    refine_async_dev(cuda.grid(1), cuda.gridsize(1), n, indptr, indices, cost, cptr, crow, ccost, eps, price, exc,
                     col4row, ctl, live, ph, sh, max_ops, floor, double, gap, follow, budget, max_scans, tail)
    if cuda.grid(1) == 0:
        cuda.atomic.max(ctl, CTL_PHASES, ph + 1)


@cuda.jit(cache=CACHE)
def persistent_kernel(indptr, indices, cost, cptr, crow, ccost, n, eps_seq, price, exc, col4row, ctl, live,
                      max_ops, floor, double, cmax, follow, budget, max_scans):
    """The whole eps-scaling loop in one cooperative launch: per phase ``eps_seq[ph]``, the init
    (:func:`phase_init_dev`, grid-stride), a grid sync, the status read (no thread writes it until the next
    grid sync, so every thread takes the same branch: a thread that left the loop alone would hang the
    others), a grid sync, the async refine, a grid sync. An error of a refine stops the next phase. ``cmax``:
    the largest scaled cost (a single arc's double-push gap is ``cmax + eps``, as the host schedules). ``ctl[CTL_PHASES]``: phases run."""
    g = cuda.cg.this_grid()
    sh = cuda.shared.array(1, int32)
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for ph in range(eps_seq.shape[0]):
        eps = eps_seq[ph]
        for v in range(start, 2 * n, stride):
            phase_init_dev(v, indptr, indices, cost, n, eps, price, exc, col4row, ctl, floor)
        g.sync()
        bad = cuda.atomic.add(ctl, CTL_STATUS, 0) != OK  # between two grid syncs no thread writes it: all agree
        if cuda.threadIdx.x == 0:
            sh[0] = 0  # every thread of the block read it last before the previous phase's final grid sync
        g.sync()
        if bad:
            break
        refine_async_dev(start, stride, n, indptr, indices, cost, cptr, crow, ccost, eps, price, exc, col4row, ctl,
                         live, ph, sh, max_ops, floor, double, cmax + eps, follow, budget, max_scans, 0)
        if start == 0:
            ctl[CTL_PHASES] = ph + 1
        g.sync()
