"""Sequential push-relabel, FIFO or highest-label, with global and gap relabelling (Goldberg & Tarjan
1988; Cherkassky & Goldberg 1997, HIPR; Łupińska Section 4, Algorithms 4.1-4.4 are its sequential form).

``variant=0`` (FIFO, one phase, labels up to 2n): the global relabel (Algorithm 4.6's backward BFS)
sets ``d(v)`` to the residual distance to the sink ``t``; vertices that cannot reach ``t`` get ``n +``
their residual distance to the source ``s`` (so their excess returns to ``s``).

``variant=1`` (HIPR's two phases): phase 1 computes a maximum *preflow* (hence the minimum cut and the
flow value) with highest-label selection from bucket lists (an active stack and a doubly linked
inactive list per label), the gap heuristic (when a relabel empties bucket ``d``, every vertex above
``d`` is cut off from ``t``: label ``n``) and global relabels; vertices with ``d(v) >= n`` leave the
phase. Phase 2 returns the leftover excess to ``s`` with the FIFO loop above (HIPR does it by flow
decomposition; both give a flow of the same value).

The global relabel runs at the start and whenever the relabel work since the last one exceeds
``relabel_freq * (n + m)`` arc scans (HIPR: ALPHA * n + m). The kernels work on int64 or float64
residual capacities; callers check integer sums for overflow first. :func:`solve_push_relabel` is the
``push-relabel`` row's CPU solve (options checked by :func:`check_push_relabel_options`).
"""

from __future__ import annotations

import numba
import numpy as np

from .._graph._flow import FlowNetwork, residual_start
from .._validation import check_choice, check_real

__all__ = ["arc_flow_kernel", "push_relabel_kernel", "residual_reach_kernel", "FIFO", "HIGHEST", "solve_push_relabel",
           "check_push_relabel_options"]

FIFO, HIGHEST = 0, 1  # push_relabel_kernel's variant codes
PR_VARIANTS = {"fifo": FIFO, "highest": HIGHEST}  # the vertex selection (``variant=``)
PR_DEFAULT_VARIANT = "highest"  # measured faster on the general graphs (docs/notes/flow.md)


def check_push_relabel_options(opts: dict) -> dict:
    """``relabel_freq`` (> 0, default 1) and ``variant`` (``PR_VARIANTS``, default ``PR_DEFAULT_VARIANT``)."""
    opts["relabel_freq"] = check_real("relabel_freq", opts.get("relabel_freq", 1.0), low=0.0, low_inclusive=False)
    opts["variant"] = check_choice("variant", opts.get("variant", PR_DEFAULT_VARIANT), PR_VARIANTS)
    return opts


def solve_push_relabel(net: FlowNetwork, relabel_freq: float = 1.0, variant: str = PR_DEFAULT_VARIANT) -> tuple:
    """CPU push-relabel; returns (flow_value, per-arc flow, residual caps, tol, stats)."""
    cap, tol = residual_start(net)
    excess = np.zeros(net.n, dtype=cap.dtype)
    status, pushes, relabels, globals_, gaps = push_relabel_kernel(
        net.n, net.source, net.sink, net.indptr, net.head, net.rev, cap, excess, relabel_freq, tol,
        PR_VARIANTS[variant], cap.dtype.kind == "i")
    if status != 0:
        raise RuntimeError(f"push-relabel kernel status {status} (a label passed 2n): please report this input")
    flow = arc_flow_kernel(net.arc, net.cap.astype(cap.dtype, copy=False), cap, net.m)
    stats = {"pushes": int(pushes), "relabels": int(relabels), "global_relabels": int(globals_), "gaps": int(gaps),
             "variant": variant}
    return excess[net.sink], flow, cap, tol, stats


@numba.njit(cache=True, nogil=True, inline="always")
def residual_bfs_dev(qt, unset, skip1, skip2, indptr, head, rev, cap, label, queue, tol):
    """Backward BFS in the residual graph from the labelled vertices ``queue[:qt]``: a vertex still at
    ``unset`` (other than ``skip1``/``skip2``) with a residual arc into a reached vertex u gets label[u] + 1.
    Returns how many vertices were reached (``queue[:count]``)."""
    qh = 0
    while qh < qt:
        u = queue[qh]
        qh += 1
        du = label[u] + 1
        for a in range(indptr[u], indptr[u + 1]):
            v = head[a]
            # residual arc v -> u is rev[a]
            if label[v] == unset and v != skip1 and v != skip2 and cap[rev[a]] > tol:
                label[v] = du
                queue[qt] = v
                qt += 1
    return qt


@numba.njit(cache=True, nogil=True)
def _bfs_dev(root, base, n, s, indptr, head, rev, cap, label, queue, tol):
    """Backward BFS from ``root`` (label ``base``) over residual arcs into unlabelled (2n) vertices."""
    label[root] = base
    queue[0] = root
    return residual_bfs_dev(1, 2 * n, s, s, indptr, head, rev, cap, label, queue, tol)


@numba.njit(cache=True, nogil=True)
def _global_relabel_dev(n, s, t, indptr, head, rev, cap, label, queue, tol, from_t, from_s):
    """Backward BFS from t (``from_t``) in the residual graph, then (``from_s``) from s (labels n +
    distance); 2n: neither. Returns how many vertices the BFS from t reached (``queue[:count]``, t first).
    Callers pass the flags as ``np.bool_(...)``: a literal True/False would compile a specialisation per value."""
    for v in range(n):
        label[v] = 2 * n
    reached_t = 0
    if from_t:
        reached_t = _bfs_dev(t, np.int64(0), n, s, indptr, head, rev, cap, label, queue, tol)  # not a literal 0
    if from_s:
        _bfs_dev(s, n, n, s, indptr, head, rev, cap, label, queue, tol)
    return reached_t


@numba.njit(cache=True, nogil=True)
def _push_dev(a, u, v, cap, rev, excess):
    """Push min(e(u), r(a)) along arc a = (u, v)."""
    r = cap[a]
    d = excess[u] if excess[u] < r else r
    cap[a] = r - d
    cap[rev[a]] += d
    excess[u] -= d
    excess[v] += d


@numba.njit(cache=True, nogil=True, inline="always")
def saturate_source_dev(s, indptr, head, rev, cap, excess):
    """The initial preflow: every arc out of ``s`` saturated, its capacity moved to the head's excess."""
    for a in range(indptr[s], indptr[s + 1]):
        c = cap[a]
        if c > 0:
            cap[a] = 0
            cap[rev[a]] += c
            excess[head[a]] += c
            excess[s] -= c


@numba.njit(cache=True, nogil=True)
def _fifo_dev(n, s, t, indptr, head, rev, cap, excess, relabel_freq, tol, counters, from_t, exact):
    """FIFO push-relabel from the current preflow until only s and t hold excess (labels up to 2n).
    ``from_t`` False: no vertex with excess can reach t (after phase 1), the global relabel searches
    from s only. ``counters``: pushes, relabels, global relabels, gaps (added to). ``exact`` (integers): a
    vertex with excess and no residual arc is a bug (status 1); floats: its excess is the round-off of the
    sums into it and is left there (the certificate bounds it). Returns the status."""
    m = len(head)
    label = np.empty(n, dtype=np.int64)
    cur = np.empty(n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    active = np.zeros(n, dtype=np.bool_)
    limit = relabel_freq * (n + m)
    work = limit + 1.0  # a global relabel first
    fifo = np.empty(n, dtype=np.int64)  # circular; each vertex at most once
    fh = 0
    fcount = 0
    for v in range(n):
        if v != s and v != t and excess[v] > tol:
            fifo[(fh + fcount) % n] = v
            fcount += 1
            active[v] = True
    while fcount > 0:
        if work > limit:
            _global_relabel_dev(n, s, t, indptr, head, rev, cap, label, queue, tol, from_t, np.bool_(True))
            counters[2] += 1
            work = 0.0
            for v in range(n):
                cur[v] = indptr[v]
        u = fifo[fh]
        fh = (fh + 1) % n
        fcount -= 1
        active[u] = False
        if label[u] >= 2 * n:
            continue  # cannot reach s or t: its excess is round-off (floats) — left there
        end = indptr[u + 1]
        while excess[u] > tol:  # discharge u
            a = cur[u]
            if a == end:  # relabel
                dmin = 4 * n
                for b in range(indptr[u], end):
                    if cap[b] > tol and label[head[b]] < dmin:
                        dmin = label[head[b]]
                work += 12 + (end - indptr[u])
                counters[1] += 1
                if dmin >= 2 * n:
                    if exact:
                        return 1
                    label[u] = 2 * n  # floats: no residual arc left; the excess is round-off
                    break
                label[u] = dmin + 1
                cur[u] = indptr[u]
                if work > limit:
                    break  # requeue u after the global relabel
                continue
            v = head[a]
            if cap[a] > tol and label[u] == label[v] + 1:
                _push_dev(a, u, v, cap, rev, excess)
                counters[0] += 1
                if not active[v] and v != s and v != t:
                    active[v] = True
                    fifo[(fh + fcount) % n] = v
                    fcount += 1
                if excess[u] <= tol:
                    break
            else:
                cur[u] = a + 1
        if excess[u] > tol and not active[u] and label[u] < 2 * n:
            active[u] = True
            fifo[(fh + fcount) % n] = u
            fcount += 1
    return 0


@numba.njit(cache=True, nogil=True)
def _highest_label_dev(n, s, t, indptr, head, rev, cap, excess, relabel_freq, tol, counters):
    """HIPR's phase 1: highest-label push-relabel with gap and global relabelling, labels below n.
    Ends with a maximum preflow: no vertex with excess can reach t; those vertices hold labels >= n."""
    m = len(head)
    label = np.empty(n, dtype=np.int64)
    cur = np.empty(n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    isact = np.zeros(n, dtype=np.bool_)
    afirst = np.full(n, -1, dtype=np.int64)  # bucket d's active stack
    anext = np.empty(n, dtype=np.int64)
    ifirst = np.full(n, -1, dtype=np.int64)  # bucket d's inactive list (doubly linked)
    inext = np.empty(n, dtype=np.int64)
    iprev = np.empty(n, dtype=np.int64)
    limit = relabel_freq * (n + m)
    work = limit + 1.0  # a global relabel first
    a_max = -1
    a_min = n
    d_max = n - 1
    while True:
        if work > limit:  # global relabel: rebuild the buckets from the BFS order
            reached = _global_relabel_dev(n, s, t, indptr, head, rev, cap, label, queue, tol, np.bool_(True),
                                          np.bool_(False))
            counters[2] += 1
            work = 0.0
            for d in range(d_max + 1):
                afirst[d] = -1
                ifirst[d] = -1
            isact[:] = False
            a_max = -1
            a_min = n
            d_max = 0
            for i in range(1, reached):  # queue[0] is t
                v = queue[i]
                d = label[v]
                cur[v] = indptr[v]
                d_max = max(d_max, d)
                if excess[v] > tol:
                    isact[v] = True
                    anext[v] = afirst[d]
                    afirst[d] = v
                    a_max = max(a_max, d)
                    a_min = min(a_min, d)
                else:
                    inext[v] = ifirst[d]
                    iprev[v] = -1
                    if ifirst[d] >= 0:
                        iprev[ifirst[d]] = v
                    ifirst[d] = v
        while a_max >= a_min and afirst[a_max] < 0:
            a_max -= 1
        if a_max < a_min:
            return
        u = afirst[a_max]
        afirst[a_max] = anext[u]
        isact[u] = False
        d = label[u]
        end = indptr[u + 1]
        while True:  # discharge u
            a = cur[u]
            while a < end:
                v = head[a]
                if cap[a] > tol and label[v] == d - 1:
                    _push_dev(a, u, v, cap, rev, excess)
                    counters[0] += 1
                    if v != t and not isact[v]:  # inactive -> active, same bucket d - 1
                        p, q = iprev[v], inext[v]
                        if p >= 0:
                            inext[p] = q
                        else:
                            ifirst[d - 1] = q
                        if q >= 0:
                            iprev[q] = p
                        isact[v] = True
                        anext[v] = afirst[d - 1]
                        afirst[d - 1] = v
                        a_min = min(a_min, d - 1)
                        a_max = max(a_max, d - 1)  # u may have been relabelled above a_max
                    if excess[u] <= tol:
                        break
                a += 1
            if excess[u] <= tol:
                cur[u] = a
                inext[u] = ifirst[d]
                iprev[u] = -1
                if ifirst[d] >= 0:
                    iprev[ifirst[d]] = u
                ifirst[d] = u
                break
            # relabel u (every arc scanned)
            counters[1] += 1
            work += 12 + (end - indptr[u])
            dmin = 2 * n
            amin = end
            for b in range(indptr[u], end):
                if cap[b] > tol and label[head[b]] < dmin:
                    dmin = label[head[b]]
                    amin = b
            if afirst[d] < 0 and ifirst[d] < 0:  # gap at d: u and everything above it are cut off from t
                counters[3] += 1
                for dd in range(d + 1, d_max + 1):
                    v = ifirst[dd]
                    while v >= 0:
                        label[v] = n
                        v = inext[v]
                    v = afirst[dd]  # empty under highest-label selection; cleared all the same
                    while v >= 0:
                        label[v] = n
                        isact[v] = False
                        v = anext[v]
                    ifirst[dd] = -1
                    afirst[dd] = -1
                label[u] = n
                d_max = d - 1
                a_max = d - 1
                break
            if dmin + 1 >= n:
                label[u] = n
                break
            d = dmin + 1
            label[u] = d
            cur[u] = amin
            d_max = max(d_max, d)
            if work > limit:  # back on the stack; the global relabel comes first
                isact[u] = True
                anext[u] = afirst[d]
                afirst[d] = u
                a_max = max(a_max, d)
                break


@numba.njit(cache=True, nogil=True)
def push_relabel_kernel(n, s, t, indptr, head, rev, cap, excess, relabel_freq, tol, variant, exact):
    """Push-relabel on residual capacities ``cap`` (modified in place) from the saturating preflow;
    ``variant``: FIFO (0) or HIGHEST (1, HIPR's two phases); ``exact``: integer capacities (see ``_fifo_dev``).

    Returns ``(status, pushes, relabels, global_relabels, gaps)``; status 0: ``excess`` is a maximum
    flow's (only ``s`` and ``t`` hold nonzero excess), 1: a label passed 2n (a bug guard).
    """
    counters = np.zeros(4, dtype=np.int64)
    saturate_source_dev(s, indptr, head, rev, cap, excess)
    if variant == 1:
        _highest_label_dev(n, s, t, indptr, head, rev, cap, excess, relabel_freq, tol, counters)
    status = _fifo_dev(n, s, t, indptr, head, rev, cap, excess, relabel_freq, tol, counters, variant != 1, exact)
    return status, counters[0], counters[1], counters[2], counters[3]


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
    """Flow on each of the ``m`` input arcs: original minus residual capacity of its forward slot, clipped
    to ``[0, capacity]`` (floats: a residual that drifted by round-off past either end). ``cap0`` must have
    ``cap``'s dtype (uint64 with int64 would compute in float64)."""
    flow = np.zeros(m, dtype=cap.dtype)
    for i in range(len(arc)):
        if arc[i] >= 0:
            f = cap0[i] - cap[i]
            flow[arc[i]] = min(max(f, 0), cap0[i])
    return flow


@numba.njit(cache=True, nogil=True)
def return_roundoff_kernel(s, t, tails, heads, flow, indptr, rev, arc, start, amount, slack, max_steps):
    """Floats: move each imbalance ``amount[i]`` (inflow - outflow) of vertex ``start[i]`` to a terminal
    along the flow: an excess lowers the flow of arcs into the vertex (it moves to their tails), a deficit
    the flow of arcs out of it (it moves to their heads), until ``s`` or ``t`` takes it or a vertex whose
    ``slack`` (a share of its own rounding tolerance, used up as it absorbs) covers it. Each step leaves
    at most the rounding of the arc it changes. ``flow`` (float64, per input arc) is modified in place; the
    residual CSR (``indptr``, ``rev``, ``arc``) lists each vertex's input arcs: out (forward slots) and in
    (reverse slots).
    Returns False once ``max_steps`` vertex visits did not suffice."""
    stack_v = np.empty(max_steps, dtype=np.int64)
    stack_e = np.empty(max_steps, dtype=np.float64)
    steps = 0
    for i in range(len(start)):
        stack_v[0] = start[i]
        stack_e[0] = amount[i]
        top = 1
        while top > 0:
            top -= 1
            x = stack_v[top]
            e = stack_e[top]
            if x == s or x == t or e == 0:
                continue
            if top > 0 or x != start[i]:
                if abs(e) <= slack[x]:
                    slack[x] -= abs(e)
                    continue
            steps += 1
            if steps > max_steps:
                return False
            back = e > 0
            need = abs(e)
            for p in range(indptr[x], indptr[x + 1]):
                if (arc[p] < 0) != back:
                    continue
                a = arc[rev[p]] if back else arc[p]
                fa = flow[a]
                if fa <= 0:
                    continue
                new = fa - need if need < fa else 0.0
                moved = fa - new
                if moved == 0:
                    continue
                flow[a] = new
                need -= moved
                if top == max_steps:
                    return False
                stack_v[top] = tails[a] if back else heads[a]
                stack_e[top] = moved if back else -moved
                top += 1
                if need <= 0:
                    break
    return True
