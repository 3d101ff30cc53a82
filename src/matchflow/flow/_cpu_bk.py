"""Boykov-Kolmogorov max-flow (Boykov & Kolmogorov, TPAMI 2004) on the residual CSR network.

Two search trees S (root ``s``) and T (root ``t``) over non-saturated residual arcs. Each stage:
*growth* (active vertices claim free neighbours until the trees touch), *augmentation* (push the
bottleneck along the path s ~> p -> q ~> t; vertices whose tree arc saturates become orphans) and
*adoption* (an orphan takes a new parent of its tree whose chain reaches the root, else it becomes
free and its neighbours turn active). The trees are reused across augmentations. The paper's
timestamp / distance heuristic (``ts``, ``dist``) caches the root check during adoption and lets
growth re-parent a vertex to a closer one. Residual capacities ``<= tol`` count as zero (the grid path
passes 0: exact).

Flow representation: the kernel keeps the flow ``g`` of every arc pair (``g[rev[a]] == -g[a]`` exactly)
and reads the residual as ``c[a] - g[a]``, so its rounding is that of the flows, never of a large
untouched capacity (a hard seed). A push that reaches or passes the capacity, or that moves the
path's bottleneck, sets ``g = c``: a saturated arc's residual is exactly 0. The kernel returns the
sum of ``|g| + 2 d`` over every flow update (per item: :func:`_weigh_dev`): each update rounds by at most ``2**-53`` times that
(the flow's own rounding, or the clamp of a saturating push), the rounding budget a certificate may
allow (:func:`._verify_grid.grid_certify_kernel`).

``parent[v]`` is the arc in v's own adjacency list that leads to its parent (the residual arc
parent -> v is ``rev[parent[v]]`` in S, v -> parent is ``parent[v]`` in T); ``ROOT`` for ``s``/``t``,
``NONE`` for free vertices and orphans.

:func:`solve_bk` is the ``boykov-kolmogorov`` row's CPU solve on a general network (grids: :mod:`._cpu_grid_bk`).
"""

from __future__ import annotations

import numba
import numpy as np

from .._graph._flow import FlowNetwork, residual_start
from ._cpu_push_relabel import arc_flow_kernel

__all__ = ["bk_kernel", "bk_flow_kernel", "solve_bk"]

FREE, IN_S, IN_T = 0, 1, 2
NONE, ROOT = -1, -2


@numba.njit(cache=True, nogil=True)
def _origin_dev(q, parent, head, ts, dist, time):
    """Distance from q to its tree's root through valid parents, or -1 if its chain meets an orphan."""
    d = 0
    v = q
    while ts[v] != time:
        a = parent[v]
        if a == ROOT:
            ts[v] = time
            dist[v] = 0
            break
        if a == NONE:
            return -1
        d += 1
        v = head[a]
    d += dist[v]
    # cache the distances along the checked chain
    v = q
    dd = d
    while ts[v] != time:
        ts[v] = time
        dist[v] = dd
        dd -= 1
        v = head[parent[v]]
    return d


@numba.njit(cache=True, nogil=True, inline="always")
def _push_dev(b, d, c, g, rev, bottleneck):
    """Push ``d`` along arc ``b``; saturating (``bottleneck`` or reaching ``c[b]``): ``g[b] = c[b]`` exactly.
    Returns the update's rounding weight ``|g[b]| + 2 d``."""
    x = g[b] + d
    if bottleneck or x >= c[b]:
        x = c[b]
    g[b] = x
    g[rev[b]] = -x
    return abs(x) + 2 * d


@numba.njit(cache=True, nogil=True, inline="always")
def _weigh_dev(wsum, per, head, rev, b, w):
    """Add the rounding weight ``w`` of an update on arc ``b`` to its item: ``wsum[min(tail, head) // per]``."""
    u, v = head[b], head[rev[b]]
    wsum[(u if u < v else v) // per] += w


@numba.njit(cache=True, nogil=True)
def bk_kernel(n, s, t, indptr, head, rev, cap, tol, total):
    """Maximum flow on residual capacities ``cap`` (replaced by the final residuals); ``total[0]`` += flow
    value. Returns ``(augmentations, orphans, growth_scans)`` (work counters)."""
    c = cap.copy()
    g = np.zeros_like(cap)
    augs, orphans, scans = bk_flow_kernel(n, s, t, indptr, head, rev, c, g, tol, np.zeros(n, dtype=np.int8),
                                          np.zeros(1), n)
    for a in range(cap.shape[0]):
        cap[a] = c[a] - g[a]
    for a in range(indptr[s], indptr[s + 1]):
        total[0] += g[a]
    return augs, orphans, scans


@numba.njit(cache=True, nogil=True)
def bk_flow_kernel(n, s, t, indptr, head, rev, c, g, tol, tree, wsum, per):
    """Maximum flow on capacities ``c`` from the flow ``g`` (zeros, or any flow; updated in place), the
    trees left in ``tree`` (zeros on entry): at the end ``tree == IN_S`` is the set of vertices reachable
    from ``s`` in the residual graph (no active vertex is left, so every residual arc out of S ends in S),
    the minimum cut's source side. Returns ``(augmentations, orphans, growth_scans)``; the rounding weight of
    the flow updates is added to ``wsum[item]``, an arc's item its lower end // ``per`` (one item: ``per = n``)."""
    parent = np.full(n, NONE, dtype=head.dtype)
    ts = np.zeros(n, dtype=np.int64)
    dist = np.zeros(n, dtype=np.int32)
    inq = np.zeros(n, dtype=np.bool_)
    active = np.empty(n, dtype=np.int64)  # circular FIFO, each vertex at most once
    orphans = np.empty(n, dtype=np.int64)  # circular FIFO
    ah = 0
    acount = 0
    time = 1
    augmentations = 0
    norphans = 0
    scans = 0
    # terminal paths s -> v -> t first (what BK's t-link preprocessing does on grids)
    for a in range(indptr[s], indptr[s + 1]):
        v = head[a]
        if v == t or v == s:
            continue
        for b in range(indptr[v], indptr[v + 1]):
            ra, rb = c[a] - g[a], c[b] - g[b]
            if head[b] == t and ra > tol and rb > tol:
                d = ra if ra < rb else rb
                _weigh_dev(wsum, per, head, rev, a, _push_dev(a, d, c, g, rev, d == ra) + _push_dev(b, d, c, g, rev, d == rb))
                augmentations += 1
    tree[s], tree[t] = IN_S, IN_T
    parent[s] = parent[t] = ROOT
    ts[s] = ts[t] = time
    for r in (s, t):
        active[acount] = r
        acount += 1
        inq[r] = True
    while acount > 0:
        p = active[ah]
        ah = ah + 1 if ah + 1 < n else 0
        acount -= 1
        inq[p] = False
        a = indptr[p]
        end = indptr[p + 1]
        while a < end and tree[p] != FREE:
            q = head[a]
            side = tree[p]
            r = c[a] - g[a] if side == IN_S else c[rev[a]] - g[rev[a]]
            scans += 1
            if r <= tol or q == p:
                a += 1
                continue
            if tree[q] == FREE:
                tree[q] = side
                parent[q] = rev[a]
                ts[q] = ts[p]
                dist[q] = dist[p] + 1
                if not inq[q]:
                    inq[q] = True
                    at = ah + acount
                    active[at if at < n else at - n] = q
                    acount += 1
                a += 1
                continue
            if tree[q] == side:
                if parent[q] >= 0 and ts[q] <= ts[p] and dist[q] > dist[p]:
                    parent[q] = rev[a]  # growth heuristic: a shorter way to the root
                    ts[q] = ts[p]
                    dist[q] = dist[p] + 1
                a += 1
                continue
            # the trees touch: path s ~> x -> y ~> t through arc e
            if side == IN_S:
                x, y, e = p, q, a
            else:
                x, y, e = q, p, rev[a]
            d = c[e] - g[e]
            v = x
            while v != s:
                b = rev[parent[v]]
                if c[b] - g[b] < d:
                    d = c[b] - g[b]
                v = head[parent[v]]
            v = y
            while v != t:
                b = parent[v]
                if c[b] - g[b] < d:
                    d = c[b] - g[b]
                v = head[b]
            _weigh_dev(wsum, per, head, rev, e, _push_dev(e, d, c, g, rev, c[e] - g[e] == d))
            augmentations += 1
            oh = 0
            ocount = 0
            v = x
            while v != s:
                b = parent[v]
                w = head[b]
                _weigh_dev(wsum, per, head, rev, rev[b], _push_dev(rev[b], d, c, g, rev, c[rev[b]] - g[rev[b]] == d))
                if c[rev[b]] - g[rev[b]] <= tol:
                    parent[v] = NONE
                    orphans[ocount] = v  # oh == 0 while the path is walked
                    ocount += 1
                v = w
            v = y
            while v != t:
                b = parent[v]
                w = head[b]
                _weigh_dev(wsum, per, head, rev, b, _push_dev(b, d, c, g, rev, c[b] - g[b] == d))
                if c[b] - g[b] <= tol:
                    parent[v] = NONE
                    orphans[ocount] = v  # oh == 0 while the path is walked
                    ocount += 1
                v = w
            # adoption
            time += 1
            ts[s] = time
            ts[t] = time
            while ocount > 0:
                o = orphans[oh]
                oh = oh + 1 if oh + 1 < n else 0
                ocount -= 1
                norphans += 1
                side_o = tree[o]
                best = NONE
                dmin = n + 1
                for b in range(indptr[o], indptr[o + 1]):
                    w = head[b]
                    if tree[w] != side_o:
                        continue
                    rr = c[rev[b]] - g[rev[b]] if side_o == IN_S else c[b] - g[b]
                    if rr <= tol:
                        continue
                    dw = _origin_dev(w, parent, head, ts, dist, time)
                    if dw >= 0 and dw < dmin:
                        dmin = dw
                        best = b
                if best != NONE:
                    parent[o] = best
                    ts[o] = time
                    dist[o] = dmin + 1
                    continue
                for b in range(indptr[o], indptr[o + 1]):
                    w = head[b]
                    if tree[w] != side_o:
                        continue
                    rr = c[rev[b]] - g[rev[b]] if side_o == IN_S else c[b] - g[b]
                    if rr > tol and not inq[w]:
                        inq[w] = True
                        at = ah + acount
                        active[at if at < n else at - n] = w
                        acount += 1
                    pw = parent[w]
                    if pw >= 0 and head[pw] == o:
                        parent[w] = NONE
                        at = oh + ocount
                        orphans[at if at < n else at - n] = w
                        ocount += 1
                tree[o] = FREE
            # p may have left its tree (loop ends); else rescan arc a (it may still be residual)
    return augmentations, norphans, scans


def solve_bk(net: FlowNetwork) -> tuple:
    """CPU Boykov-Kolmogorov; returns (flow_value, per-arc flow, residual caps, tol, stats)."""
    cap, tol = residual_start(net)
    total = np.zeros(1, dtype=cap.dtype)
    augs, orphans, scans = bk_kernel(net.n, net.source, net.sink, net.indptr, net.head, net.rev, cap, tol, total)
    flow = arc_flow_kernel(net.arc, net.cap.astype(cap.dtype, copy=False), cap, net.m)
    stats = {"augmentations": int(augs), "orphans": int(orphans), "growth_scans": int(scans)}
    return total[0], flow, cap, tol, stats
