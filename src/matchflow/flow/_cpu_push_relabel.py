"""Sequential FIFO push-relabel with global relabelling (Goldberg & Tarjan 1988; Cherkassky &
Goldberg 1997, HIPR's heuristics; Łupińska Section 4, Algorithms 4.1-4.4 are its sequential form).

One phase, labels up to 2n: the global relabel (Algorithm 4.6's backward BFS) sets ``d(v)`` to the
residual distance to the sink ``t``; vertices that cannot reach ``t`` get ``n +`` their residual
distance to the source ``s`` (so their excess returns to ``s``), which also subsumes the gap
heuristic (every vertex above a gap is lifted to the source side at the next global relabel).
The global relabel runs at the start and whenever the relabel work since the last one exceeds
``relabel_freq * (n + m)`` arc scans (HIPR: ALPHA * n + m). The kernel works on int64 or float64
residual capacities; callers check integer sums for overflow first.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["arc_flow_kernel", "push_relabel_kernel", "residual_reach_kernel"]


@numba.njit(cache=True, nogil=True)
def _global_relabel_dev(n, s, t, indptr, head, rev, cap, label, queue, tol):
    """Backward BFS from t in the residual graph, then from s (labels n + distance); 2n: neither."""
    for v in range(n):
        label[v] = 2 * n
    for root, base in ((t, 0), (s, n)):
        if label[root] < 2 * n:
            continue
        label[root] = base
        qh = 0
        qt = 0
        queue[qt] = root
        qt += 1
        while qh < qt:
            u = queue[qh]
            qh += 1
            du = label[u] + 1
            for a in range(indptr[u], indptr[u + 1]):
                v = head[a]
                # residual arc v -> u is rev[a]
                if label[v] == 2 * n and v != s and cap[rev[a]] > tol:
                    label[v] = du
                    queue[qt] = v
                    qt += 1


@numba.njit(cache=True, nogil=True)
def push_relabel_kernel(n, s, t, indptr, head, rev, cap, excess, relabel_freq, tol):
    """Push-relabel on residual capacities ``cap`` (modified in place) from the saturating preflow.

    Returns ``(status, pushes, relabels, global_relabels)``; status 0: ``excess`` is a maximum
    flow's (only ``s`` and ``t`` hold nonzero excess), 1: a label passed 2n (a bug guard).
    """
    m = len(head)
    label = np.empty(n, dtype=np.int64)
    cur = np.empty(n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    active = np.zeros(n, dtype=np.bool_)
    pushes = 0
    relabels = 0
    globals_ = 0
    # saturate the source's arcs
    for a in range(indptr[s], indptr[s + 1]):
        c = cap[a]
        if c > 0:
            v = head[a]
            cap[a] = 0
            cap[rev[a]] += c
            excess[v] += c
            excess[s] -= c
    limit = relabel_freq * (n + m)
    work = limit + 1.0  # a global relabel first
    # FIFO of active vertices (circular; each vertex at most once)
    fifo = np.empty(n, dtype=np.int64)
    fh = 0
    fcount = 0
    for v in range(n):
        if v != s and v != t and excess[v] > tol:
            fifo[(fh + fcount) % n] = v
            fcount += 1
            active[v] = True
    while fcount > 0:
        if work > limit:
            _global_relabel_dev(n, s, t, indptr, head, rev, cap, label, queue, tol)
            globals_ += 1
            work = 0.0
            for v in range(n):
                cur[v] = indptr[v]
        u = fifo[fh]
        fh = (fh + 1) % n
        fcount -= 1
        active[u] = False
        if label[u] >= 2 * n:
            continue  # cannot reach s or t: its excess is below tol (floats) — drop it
        # discharge u
        end = indptr[u + 1]
        while excess[u] > tol:
            a = cur[u]
            if a == end:
                # relabel
                dmin = 4 * n
                for b in range(indptr[u], end):
                    if cap[b] > tol and label[head[b]] < dmin:
                        dmin = label[head[b]]
                work += 12 + (end - indptr[u])
                relabels += 1
                if dmin >= 2 * n:
                    return 1, pushes, relabels, globals_
                label[u] = dmin + 1
                cur[u] = indptr[u]
                if work > limit:
                    break  # requeue u after the global relabel
                continue
            v = head[a]
            r = cap[a]
            if r > tol and label[u] == label[v] + 1:
                d = excess[u] if excess[u] < r else r
                cap[a] = r - d
                cap[rev[a]] += d
                excess[u] -= d
                excess[v] += d
                pushes += 1
                if not active[v] and v != s and v != t:
                    active[v] = True
                    fifo[(fh + fcount) % n] = v
                    fcount += 1
                if excess[u] <= tol:
                    break
            else:
                cur[u] = a + 1
        if excess[u] > tol and not active[u]:
            active[u] = True
            fifo[(fh + fcount) % n] = u
            fcount += 1
    return 0, pushes, relabels, globals_


@numba.njit(cache=True, nogil=True)
def residual_reach_kernel(n, s, indptr, head, cap, tol):
    """Vertices reachable from ``s`` along residual arcs with capacity > tol (the min cut's S side)."""
    seen = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int64)
    seen[s] = True
    queue[0] = s
    qh = 0
    qt = 1
    while qh < qt:
        u = queue[qh]
        qh += 1
        for a in range(indptr[u], indptr[u + 1]):
            v = head[a]
            if not seen[v] and cap[a] > tol:
                seen[v] = True
                queue[qt] = v
                qt += 1
    return seen


@numba.njit(cache=True, nogil=True)
def arc_flow_kernel(arc, cap0, cap, m):
    """Flow on each of the ``m`` input arcs: original minus residual capacity of its forward slot."""
    flow = np.zeros(m, dtype=cap.dtype)
    for i in range(len(arc)):
        if arc[i] >= 0:
            flow[arc[i]] = cap0[i] - cap[i]
    return flow
