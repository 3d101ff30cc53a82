"""Goldberg's global price update on the device, a step of the persistent refine (:mod:`._gpu_cost_scaling_kernels`).

The contract of the CPU twin's :func:`._cpu_cost_scaling.price_update_kernel`: ``d(v)`` = the residual distance
from ``v`` to a node with a deficit, an arc ``u -> v`` of reduced cost ``r`` counting ``0`` if ``r < 0`` else
``r // eps + 1``; ``D`` = the largest ``d`` of a node with excess; then ``p(v) -= eps * min(d(v), D)`` (unreached
nodes: ``D``), or no change where a price would pass ``floor``. Every residual arc keeps ``d(u) <= d(v) +
length``, so its reduced cost falls by at most ``length * eps``: eps-optimality holds, the flow is unchanged.

Dial's buckets become label-correcting sweeps (Bellman-Ford): labels start at 0 on the deficits and ``n + 1``
(unreached) elsewhere, every residual slot's length is computed once, and a sweep runs a thread per slot ``u -> v``
offering ``u`` the label ``label[v] + length`` by ``atomic.min``; a sweep that lowers no label leaves a fixed point
(every slot was read with its head's final label), so the labels are the distances (capped at ``n + 1``). A
sweep is one grid sync and a grid sum (the H200 ran 40-66 sweeps per update, docs/notes/mcf.md). A thread per
slot, not per node: a node's thread walking its slots was 32 us per sweep on the H200 at 10^4 nodes, the latency
of its chain of dependent loads. Residuals and prices do not change during the sweeps, only the labels; the
prices change in the last pass, published by the grid sync after it. Counts into ``ctl``: updates, sweeps,
skipped updates.
"""

from __future__ import annotations

from numba import cuda, int64

from .._cuda._device import grid_total_dev

__all__ = ["U_SUM", "U_DMAX", "U_UPDATES", "U_SWEEPS", "U_SKIPPED", "U_SIZE", "price_update_dev"]

U_SUM = 0  # ctl[base + U_SUM + 0..2]: the rotating grid sums of the update
U_DMAX, U_UPDATES, U_SWEEPS, U_SKIPPED = 3, 4, 5, 6
U_SIZE = 7  # words of the update in ``ctl`` from ``base``


@cuda.jit(device=True, inline=True)
def _lengths_dev(i0, stride, big, eps, slots, owner, to, res, c, price, ulen):
    """The update's length of every residual slot ``b`` (``u -> v``): ``0`` if its reduced cost ``r < 0`` else
    ``r // eps + 1``; ``-1`` where it is not residual or its length reaches ``big`` (it can lower no label)."""
    b = i0
    while b < slots:
        ln = int64(-1)
        if res[b] > 0:
            r = c[b] + price[owner[b]] - price[to[b]]
            ln = int64(0) if r < 0 else r // eps + 1
            if ln >= big:
                ln = -1
        ulen[b] = ln
        b += stride


@cuda.jit(device=True, inline=True)
def _sweeps_dev(g, sh, ph, i0, stride, tid, bdim, big, slots, owner, to, ulen, label, ctl, base):
    """Sweeps over the slots (a thread per slot: short dependent chains) until one lowers no label; each residual
    slot ``u -> v`` offers ``u`` the label ``label[v] + length``. Returns ``(sweeps, ph)``."""
    sweeps = 0
    while True:
        lowered = 0
        b = i0
        while b < slots:
            ln = ulen[b]
            if ln >= 0:
                lv = label[to[b]]
                if lv < big - ln:
                    u = owner[b]
                    cand = lv + ln
                    if cand < label[u] and cuda.atomic.min(label, u, cand) > cand:
                        lowered += 1
            b += stride
        tot = grid_total_dev(g, sh, lowered, ctl, base + U_SUM, ph, i0, tid, bdim)
        ph += 1
        sweeps += 1
        if tot == 0:
            return sweeps, ph


@cuda.jit(device=True, inline=True)
def price_update_dev(g, sh, ph, i0, stride, tid, bdim, n, eps, floor, owner, to, res, c, excess, price, label, ulen,
                     ctl, base):
    """One global price update by the whole grid (module docstring); every thread calls it. ``owner[b]``: the node
    of residual slot ``b``; scratch ``label`` (a node each) and ``ulen`` (a slot each). ``ph``: the grid sums done
    so far on ``ctl[base + U_SUM + 0..2]``; returns the new count."""
    big = int64(n + 1)
    slots = to.size
    if i0 == 0:
        ctl[base + U_DMAX] = 0
    v = i0
    while v < n:
        label[v] = 0 if excess[v] < 0 else big
        v += stride
    _lengths_dev(i0, stride, big, eps, slots, owner, to, res, c, price, ulen)
    g.sync()
    sweeps, ph = _sweeps_dev(g, sh, ph, i0, stride, tid, bdim, big, slots, owner, to, ulen, label, ctl, base)
    dmax = int64(0)
    v = i0
    while v < n:
        if excess[v] > 0 and label[v] > dmax:
            dmax = label[v]
        v += stride
    if dmax > 0:
        cuda.atomic.max(ctl, base + U_DMAX, dmax)
    g.sync()
    cap = cuda.atomic.add(ctl, base + U_DMAX, 0)
    low = 0
    v = i0
    while v < n:
        d = label[v] if label[v] < cap else cap
        if d > 0 and eps >= (price[v] - floor + d - 1) // d:  # price - d * eps <= floor, without the product
            low += 1
        v += stride
    tot = grid_total_dev(g, sh, low, ctl, base + U_SUM, ph, i0, tid, bdim)
    ph += 1
    if tot == 0:
        v = i0
        while v < n:
            d = label[v] if label[v] < cap else cap
            price[v] -= d * eps
            v += stride
    g.sync()
    if i0 == 0:
        ctl[base + U_UPDATES] += 1
        ctl[base + U_SWEEPS] += sweeps
        if tot != 0:
            ctl[base + U_SKIPPED] += 1
    return ph
