"""The global price update (Łupińska's Algorithm 5.3) on the device, for the GPU cost-scaling refine.

The contract of the CPU tail's :func:`._cpu_cost_scaling_tail.tail_price_update_kernel`, on the two-price
pseudoflow the async refine leaves (rows ``0..n-1``, columns ``n..2n-1``, residual ``(x, y)`` where
``col4row[x] != y`` and ``(y, x)`` where ``col4row[x] == y``, arc length ``floor(c_p / eps) + 1 >= 0``):
labels ``l`` = distances to the deficit columns, ``p(v) -= eps * min(l(v), D)``, where ``D`` is the
largest distance of a node with excess (``2n + 1`` when one is not reached below it); no change when a price could fall below ``-floor``. Prices only fall, eps-optimality
is kept, the flow and the excesses are unchanged.

Dial's buckets become delta-stepping on the device: buckets of ``delta`` levels ``[d, d + delta)``, swept
until a sweep lowers no label inside the bucket; a sweep scans every node whose label is inside the bucket
and lower than the label it was last scanned with (``slab``: label-correcting inside a bucket) and offers
its predecessors ``l + length`` by ``atomic.min``. A sweep that lowers no label inside the bucket leaves a
fixed point of Bellman-Ford below ``d + delta``: every label there is the exact distance. Then, when every
node with excess is inside, ``D`` = their largest label and ``p(v) -= eps * min(l(v), D)`` (unreached: ``D``):
``min(distance, D)``, exactly the CPU kernel's prices (Dial stops inside level ``D``; the nodes of that level
it leaves get ``D`` too); else the next bucket starts at the least label beyond (a thread's own labels and the
offers of the sweep, by ``atomic.min``). ``delta = 1`` is Dial's order, level by level; a wide bucket takes
fewer sweeps (a sweep is a grid sync: the cost on the device) for some repeated scans.

Control words ``W`` (int64): three rotating slots of ``SLOT`` words, one per sweep (bucket start, a label
lowered inside, least label beyond, nodes with excess inside and their largest label), the decision between
sweeps read from the previous sweep's slot by thread 0 of every block (the pattern of ``_cuda._device``: a
slot is cleared two sweeps after it was read), plus the counts of the update. Two forms: one cooperative kernel
with grid syncs (``price_update_kernel``: no host read) and one launch per sweep (``update_sweep_kernel``; the
simulator, which mis-runs grid syncs).
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int64

from .._cuda._env import kernel_cache

__all__ = ["W_SIZE", "W_UPDATES", "W_SWEEPS", "W_SKIPPED", "update_reset_kernel", "update_init_kernel",
           "update_sweep_kernel", "price_update_kernel", "device_price_update"]

CACHE = kernel_cache()
BIG = int64(1) << int64(62)
SLOT = 5  # words of one sweep's slot
S_LVL, S_MORE, S_NEXT, S_RCH, S_MAXA = 0, 1, 2, 3, 4
W_ACTIVE, W_PMIN, W_DONE, W_UPDATES, W_SWEEPS, W_SKIPPED = 15, 16, 17, 18, 19, 20
W_SIZE = 21
NODES = 8  # nodes per thread of the cooperative kernel (fewer blocks: a cheaper grid sync)
GRAPH_KEYS = ("indptr", "indices", "cost", "cptr", "crow", "ccost")  # the graph arguments of the kernels, in order
CTL_STATUS = 1  # ctl word of the refine (``_gpu_cost_scaling_kernels.CTL_STATUS``)


@cuda.jit(device=True, inline=True)
def relax_dev(u, lv, cp, eps, nb, end, label, W, slot):
    """Offer node ``u`` the label ``lv + floor(cp / eps) + 1`` (``cp >= -eps``: at least ``lv``); below ``nb``
    only. An offer inside the bucket (``< end``) raises the slot's flag, one beyond it lowers the slot's least
    offer."""
    cand = lv + max(cp // eps + 1, 0)
    if cand >= nb or cand >= label[u]:
        return
    old = cuda.atomic.min(label, u, cand)
    if old > cand:
        if cand < end:
            cuda.atomic.max(W, slot + S_MORE, 1)
        else:
            cuda.atomic.min(W, slot + S_NEXT, cand)


@cuda.jit(device=True, inline=True)
def sweep_dev(start, stride, s, end, n, nb, indptr, indices, cost, cptr, crow, ccost, eps, price, exc, col4row,
              label, slab, W):
    """One sweep of the bucket ``[d, end)`` (Alg. 5.3's scan, label-correcting inside the bucket): each node of
    this thread with a label below ``end`` lower than the one it was last scanned with (``slab``) is scanned:
    its predecessors over residual arcs are offered its label plus the arc's length. Adds to the sweep's slot
    the thread's least label beyond the bucket, its nodes with excess inside the bucket and their largest
    label (exact in a sweep that changes no label inside the bucket: the bucket is then final)."""
    slot = (s % 3) * SLOT
    nxt = BIG
    rch = 0
    mxa = int64(-1)
    for v in range(start, 2 * n, stride):
        lv = label[v]
        if lv >= end:
            nxt = min(nxt, lv)
            continue
        if exc[v] > 0:
            rch += 1
            mxa = max(mxa, lv)
        if lv >= slab[v]:
            continue
        slab[v] = lv
        if v >= n:  # a column: the rows with a residual arc into it (they do not send to it)
            y = v - n
            pv = price[v]
            for k in range(cptr[y], cptr[y + 1]):
                x = crow[k]
                if col4row[x] != y:
                    relax_dev(x, lv, ccost[k] + price[x] - pv, eps, nb, end, label, W, slot)
        else:  # a row: the reverse arc from the column it sends to
            y = col4row[v]
            if y >= 0:
                for k in range(indptr[v], indptr[v + 1]):
                    if indices[k] == y:
                        relax_dev(n + y, lv, price[n + y] - cost[k] - price[v], eps, nb, end, label, W, slot)
                        break
    if nxt < BIG:
        cuda.atomic.min(W, slot + S_NEXT, nxt)
    if rch > 0:
        cuda.atomic.add(W, slot + S_RCH, rch)
        cuda.atomic.max(W, slot + S_MAXA, mxa)


@cuda.jit(device=True, inline=True)
def decide_dev(W, s, nb, eps, floor, sh):
    """Between sweeps ``s - 1`` and ``s``: thread 0 of the block reads the previous slot and the totals
    coherently, the block shares them. Returns (bucket start of sweep ``s``, stop, ``D``, skipped): the same
    bucket again when the sweep changed a label inside it; else, the bucket final, stop when every node with
    excess is in it (``D`` = their largest label), or the next bucket at the least label beyond it."""
    if cuda.threadIdx.x == 0:
        p = ((s - 1) % 3) * SLOT
        for i in range(SLOT):
            sh[i] = cuda.atomic.add(W, p + i, 0)
        sh[SLOT] = cuda.atomic.add(W, W_ACTIVE, 0)
        sh[SLOT + 1] = cuda.atomic.add(W, W_PMIN, 0)
    cuda.syncthreads()
    lvl = sh[S_LVL]
    more = sh[S_MORE]
    nxt = sh[S_NEXT]
    rch = sh[S_RCH]
    mxa = sh[S_MAXA]
    active = sh[SLOT]
    pmin = sh[SLOT + 1]
    cuda.syncthreads()
    if pmin - nb * eps < -floor:
        return lvl, True, int64(0), True
    if active == 0:
        return lvl, True, int64(0), False
    if more != 0:
        return lvl, False, lvl, False
    if rch >= active:
        return lvl, True, mxa, False
    if nxt < nb:
        return nxt, False, nxt, False
    return nb, True, nb, False


@cuda.jit(device=True, inline=True)
def step_dev(start, stride, s, n, nb, delta, indptr, indices, cost, cptr, crow, ccost, eps, price, exc, col4row,
             label, slab, W, floor, sh):
    """Sweep ``s >= 1``: the decision, then either the last step (``p(v) -= eps * min(l(v), D)``, the counts)
    or a sweep of the bucket ``[d, d + delta)`` (thread 0 writes the slot's bucket start, clears the next
    slot). Returns True when the update is over."""
    d, stop, D, skipped = decide_dev(W, s, nb, eps, floor, sh)
    if stop:
        if not skipped:
            for v in range(start, 2 * n, stride):
                price[v] -= min(label[v], D) * eps
        if start == 0:
            W[W_DONE] = s
            W[W_UPDATES] += 1 - skipped
            W[W_SKIPPED] += skipped
            W[W_SWEEPS] += s - 1
        return True
    if start == 0:
        W[(s % 3) * SLOT + S_LVL] = d
        q = ((s + 1) % 3) * SLOT
        W[q + S_MORE] = 0
        W[q + S_NEXT] = BIG
        W[q + S_RCH] = 0
        W[q + S_MAXA] = -1
    sweep_dev(start, stride, s, d + delta, n, nb, indptr, indices, cost, cptr, crow, ccost, eps, price, exc,
              col4row, label, slab, W)
    return False


@cuda.jit(device=True, inline=True)
def skip_dev(ctl, live, ph, tail):
    """The update has nothing to do: an error status, or the phase already at ``tail`` units or fewer."""
    return ctl[CTL_STATUS] != 0 or live[ph] <= tail


@cuda.jit(cache=CACHE)
def update_reset_kernel(W, ctl, live, ph, tail):
    """Before an update (one thread): slot 0 as if a sweep at level 0 had offered level 0 (the deficits are
    labelled 0 by the init), slots 1 and 2 cleared, the totals reset (the counts kept)."""
    if cuda.grid(1) != 0 or skip_dev(ctl, live, ph, tail):
        return
    for k in range(3):
        W[k * SLOT + S_LVL] = 0
        W[k * SLOT + S_MORE] = 0
        W[k * SLOT + S_NEXT] = BIG
        W[k * SLOT + S_RCH] = 0
        W[k * SLOT + S_MAXA] = -1
    W[S_MORE] = 1
    W[W_ACTIVE] = 0
    W[W_PMIN] = BIG
    W[W_DONE] = 0


@cuda.jit(cache=CACHE)
def update_init_kernel(n, price, exc, label, slab, W, ctl, live, ph, tail):
    """Sweep 0, one thread per node: labels (0 at the deficit columns, else unreached), the nodes with excess
    and the least price (one atomic per block: a tree minimum in shared memory)."""
    sh = cuda.shared.array(1024, int64)
    v = cuda.grid(1)
    if skip_dev(ctl, live, ph, tail):
        return
    pv = BIG
    if v < 2 * n:
        label[v] = 0 if exc[v] < 0 else BIG
        slab[v] = BIG
        pv = price[v]
        if exc[v] > 0:
            cuda.atomic.add(W, W_ACTIVE, 1)
    tid = cuda.threadIdx.x
    sh[tid] = pv
    cuda.syncthreads()
    bdim = cuda.blockDim.x
    h = 1
    while h < bdim:
        h *= 2
    h //= 2
    while h > 0:
        if tid < h and tid + h < bdim and sh[tid + h] < sh[tid]:
            sh[tid] = sh[tid + h]
        cuda.syncthreads()
        h //= 2
    if tid == 0:
        cuda.atomic.min(W, W_PMIN, sh[0])


@cuda.jit(cache=CACHE)
def update_sweep_kernel(indptr, indices, cost, cptr, crow, ccost, n, eps, price, exc, col4row, label, slab, W, floor,
                        ctl, live, ph, tail, delta, s):
    """Sweep ``s`` of the update as one launch (the host form); a launch after the last step returns."""
    sh = cuda.shared.array(8, int64)
    if skip_dev(ctl, live, ph, tail):
        return
    done = W[W_DONE]
    if done != 0 and done < s:
        return
    step_dev(cuda.grid(1), cuda.gridsize(1), s, n, 2 * n + 1, delta, indptr, indices, cost, cptr, crow, ccost, eps,
             price, exc, col4row, label, slab, W, floor, sh)


@cuda.jit(cache=CACHE)
def price_update_kernel(indptr, indices, cost, cptr, crow, ccost, n, eps, price, exc, col4row, label, slab, W, floor,
                        ctl, live, ph, tail, delta):
    """Every sweep of Algorithm 5.3 in one cooperative launch (a grid sync after each: the decision is read
    from the slot the sweep filled); nothing when the phase is over (a uniform read: no refine runs)."""
    sh = cuda.shared.array(8, int64)
    if skip_dev(ctl, live, ph, tail):
        return
    g = cuda.cg.this_grid()
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    s = 1
    while not step_dev(start, stride, s, n, 2 * n + 1, delta, indptr, indices, cost, cptr, crow, ccost, eps, price,
                       exc, col4row, label, slab, W, floor, sh):
        g.sync()
        s += 1


def device_price_update(d: tuple | dict, n: int, eps: int, b: dict, floor: int, ctl, live, ph: int, tail: int,
                        block_size: int, form: str, delta: int = 1, coop: tuple | None = None) -> tuple[tuple | None, int]:
    """Queue one update (no host read in the ``"coop"`` form): reset, init, then the cooperative kernel
    (``coop``: the kernel and grid from ``cooperative_kernel``, or None to get them) or, ``"host"``, launches
    of sweeps in batches of 8 with one read of the done word per batch. ``b``: the device buffers (``price``,
    ``exc``, ``col4row``, ``label``, ``slab``, ``W``); ``delta``: levels per bucket; the update is skipped when
    ``live[ph] <= tail``; ``d``: the six graph arrays (:attr:`._gpu_cost_scaling.DeviceCost.d`, or a dict of them by the names
    :data:`GRAPH_KEYS`). Returns (``coop``, host reads)."""
    from .._cuda._launch import cooperative_kernel, grid

    args0 = (np.int64(ph), np.int64(tail))
    update_reset_kernel[1, 1](b["W"], ctl, live, *args0)
    update_init_kernel[grid(2 * n, block_size), block_size](np.int64(n), b["price"], b["exc"], b["label"], b["slab"],
                                                            b["W"], ctl, live, *args0)
    if isinstance(d, dict):  # the arrays by name (as the host twins ``DeviceCost.h``)
        d = tuple(d[k] for k in GRAPH_KEYS)
    args = (*d, np.int64(n), np.int64(eps),
            b["price"], b["exc"], b["col4row"], b["label"], b["slab"], b["W"], np.int64(floor), ctl, live, *args0,
            np.int64(delta))
    if form == "coop":
        if coop is None:
            kern, gmax = cooperative_kernel(price_update_kernel, args, block_size)
            coop = (kern, max(1, min(grid(2 * n, NODES * block_size), gmax)))
        coop[0][coop[1], block_size](*args)
        return coop, 0
    gs = grid(2 * n, block_size)
    s, reads = 1, 0
    while True:
        for _ in range(8):
            update_sweep_kernel[gs, block_size](*args, np.int64(s))
            s += 1
        w = b["W"].copy_to_host()
        reads += 2
        if w[W_DONE] != 0 or s > 4 * n + 16 or int(live.copy_to_host()[ph]) <= tail:
            return None, reads
