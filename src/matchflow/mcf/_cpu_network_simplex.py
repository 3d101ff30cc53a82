"""Min-cost flow by the primal network simplex on the CPU (Ahuja, Magnanti & Orlin 1993, ch. 11; the data
structure and block search of LEMON's ``NetworkSimplex``, Kovacs 2015, which POT's ``ot.emd`` also uses).

Sign convention (the result's ``potential``): the reduced cost of a residual arc ``v -> w`` of cost ``c`` is
``c + p(v) - p(w)``; at the end every arc at its lower bound (flow 0) has it ``>= 0``, every arc at its upper bound
``<= 0`` and every tree arc ``= 0``, in exact int64 arithmetic: the potentials certify optimality as they are.

Start: an artificial root ``r = n`` and one artificial arc per node, ``v -> r`` of cost 0 carrying the supply of
``v`` where ``v`` sends or is balanced, ``r -> v`` of cost ``M`` carrying its demand where it receives, with
``M = n (max|c| + 1)``: every real arc at flow 0. That tree is strongly feasible (an arc of zero flow points away
from the root). ``M`` exceeds the cost of any simple path of real arcs (at most ``n - 1`` arcs of cost
``<= max|c|``), so an optimum that kept flow on an artificial arc would have a negative cycle through the root
(``u -> r`` against an ``r -> u`` arc: ``-M``, back to ``u`` over real arcs): on a feasible problem (the door checks)
every artificial arc ends at 0, and the solve checks it. Artificial arcs are never priced (they cannot re-enter).

Pivots: block search (the arcs in blocks of ``block_size``, default ``max(10, sqrt(m))``, scanned cyclically from
where the last search stopped; the most negative ``state * reduced cost`` of the first block holding one enters);
the join node by walking up from both ends (the end with fewer successors first); the leaving arc by the strongly
feasible rule (the last blocking arc met going around the cycle in its orientation from the join node, AMO
Section 11.5: no cycling, and at most ``O(nmCU)`` pivots); the tree kept as parent / pred arc / pred direction /
thread / reverse thread / successor count / last successor arrays, and after a pivot only the moved subtree's
potentials change (by one constant). Unbounded arcs carry their finite bound ``problem.cap`` (:mod:`._prepare`);
a negative cycle of them is left for the door to find in the final potentials, as for cost scaling.

Magnitudes: ``max|c| (n + 1) < 2**60`` (:mod:`._prepare`) keeps ``M`` and every potential (``|p| <= M + n max|c|``)
and reduced cost within int64.

Where it wins (docs/notes/mcf.md, "Network simplex"): dense transportation problems (6-14x faster than cost
scaling, 2-3.4x than OR-Tools; its pivots take about POT's ``ot.emd`` time) and networks up to a few thousand nodes
(1.4-2.2x cost scaling); past ~10^4 nodes on sparse networks cost scaling wins (3x at 10^5), as Kovacs found for LEMON.

References
----------
.. [1] Ahuja, R. K., Magnanti, T. L., and Orlin, J. B., "Network Flows: Theory, Algorithms, and Applications",
       Prentice Hall, 1993 (ch. 11: the network simplex; Section 11.5: strongly feasible spanning trees).
.. [2] Kovacs, P., "Minimum-cost flow algorithms: an experimental evaluation", Optimization Methods and Software
       30(1), 94-127, 2015. DOI:10.1080/10556788.2014.895828 (LEMON's network simplex: block search, the thread
       and successor arrays).
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np

from .._validation import check_int

__all__ = ["solve_network_simplex", "check_network_simplex_options"]

LOWER, TREE, UPPER = 1, 0, -1  # arc states: the sign that makes a violating reduced cost negative
UP, DOWN = 1, -1  # pred direction: the tree arc of v goes v -> parent (UP) or parent -> v (DOWN)
INF = np.int64(2**62)  # the artificial arcs' capacity
MIN_BLOCK = 10


@numba.njit(cache=True)
def find_entering_dev(src, dst, cost, state, pi, m, block, start):
    """Block search: ``(arc, next_start, arcs priced)``, arc -1 when no arc of ``0..m-1`` violates its optimality
    condition (``state * reduced cost < 0``)."""
    best = np.int64(0)
    enter = -1
    cnt = block
    for k in range(m):  # arcs start, start + 1, ..., m - 1, 0, ..., start - 1
        e = start + k
        if e >= m:
            e -= m
        c = state[e] * (cost[e] + pi[src[e]] - pi[dst[e]])
        if c < best:
            best = c
            enter = e
        cnt -= 1
        if cnt == 0:
            if enter >= 0:
                return enter, e + 1, k + 1
            cnt = block
    return enter, start, m


@numba.njit(cache=True)
def find_join_dev(u, v, parent, succ):
    """The join node of ``u`` and ``v`` and the cycle's tree arcs."""
    k = 0
    while u != v:
        if succ[u] < succ[v]:
            u = parent[u]
        else:
            v = parent[v]
        k += 1
    return u, k


@numba.njit(cache=True)
def find_leaving_dev(enter, join, src, dst, cap, flow, state, parent, pred, pdir):
    """The strongly feasible leaving arc: ``(delta, side, u_out, u_in, v_in)``; side 0: the entering arc itself
    blocks (it moves to its other bound), 1 / 2: the leaving arc is on the path from the cycle's first / second
    node up to ``join``; ``u_out``: the node whose pred arc leaves; ``u_in - v_in``: the entering arc's ends, u_in
    on the side of the leaving arc (its subtree is re-hung from v_in)."""
    if state[enter] == LOWER:
        first, second = src[enter], dst[enter]
    else:
        first, second = dst[enter], src[enter]
    delta = cap[enter]
    side = 0
    u_out = -1
    u = first
    while u != join:  # flow runs down this side: parent -> u
        e = pred[u]
        d = cap[e] - flow[e] if pdir[u] == DOWN else flow[e]
        if d < delta:
            delta = d
            u_out = u
            side = 1
        u = parent[u]
    u = second
    while u != join:  # flow runs up this side: u -> parent
        e = pred[u]
        d = cap[e] - flow[e] if pdir[u] == UP else flow[e]
        if d <= delta:  # ties: the last blocking arc in the cycle's orientation from the join node
            delta = d
            u_out = u
            side = 2
        u = parent[u]
    if side == 1:
        return delta, side, u_out, first, second
    return delta, side, u_out, second, first


@numba.njit(cache=True)
def change_flow_dev(enter, join, delta, side, u_out, src, dst, flow, state, parent, pred, pdir):
    if delta > 0:
        val = state[enter] * delta
        flow[enter] += val
        u = src[enter]
        while u != join:
            flow[pred[u]] -= pdir[u] * val
            u = parent[u]
        u = dst[enter]
        while u != join:
            flow[pred[u]] += pdir[u] * val
            u = parent[u]
    if side != 0:
        state[enter] = TREE
        out = pred[u_out]
        state[out] = LOWER if flow[out] == 0 else UPPER
    else:
        state[enter] = -state[enter]


@numba.njit(cache=True)
def update_tree_dev(enter, join, u_in, v_in, u_out, src, parent, pred, pdir, thread, rev, succ, last, dirty):
    """Re-hang the subtree of ``u_in`` (after dropping ``u_out``'s pred arc and reversing the stem
    ``u_in .. u_out``) below ``v_in`` through the entering arc; the thread order, successor counts and last
    successors follow (LEMON's update, O(size of the moved subtree + depth))."""
    old_rev = rev[u_out]
    old_succ = succ[u_out]
    old_last = last[u_out]
    v_out = parent[u_out]
    if u_in == u_out:
        parent[u_in] = v_in
        pred[u_in] = enter
        pdir[u_in] = UP if u_in == src[enter] else DOWN
        if thread[v_in] != u_out:  # move the subtree's thread segment right after v_in
            after = thread[old_last]
            thread[old_rev] = after
            rev[after] = old_rev
            after = thread[v_in]
            thread[v_in] = u_out
            rev[u_out] = v_in
            thread[old_last] = after
            rev[after] = old_last
    else:
        cont = thread[old_last] if old_rev == v_in else thread[v_in]
        stem = u_in
        par_stem = v_in
        lst = last[u_in]
        after = thread[lst]
        thread[v_in] = u_in
        nd = 0
        dirty[nd] = v_in
        nd += 1
        while stem != u_out:
            nxt = parent[stem]
            thread[lst] = nxt
            dirty[nd] = lst
            nd += 1
            before = rev[stem]  # cut the stem node's subtree out of the thread
            thread[before] = after
            rev[after] = before
            parent[stem] = par_stem
            par_stem = stem
            stem = nxt
            lst = rev[par_stem] if last[stem] == last[par_stem] else last[stem]
            after = thread[lst]
        parent[u_out] = par_stem
        thread[lst] = cont
        rev[cont] = lst
        last[u_out] = lst
        if old_rev != v_in:
            thread[old_rev] = after
            rev[after] = old_rev
        for i in range(nd):
            u = dirty[i]
            rev[thread[u]] = u
        sc = 0
        ls = last[u_out]
        u = u_out
        while u != u_in:  # the stem, u_out up to u_in: pred arcs shift down one, counts re-summed
            p = parent[u]
            pred[u] = pred[p]
            pdir[u] = -pdir[p]
            sc += succ[u] - succ[p]
            succ[u] = sc
            last[p] = ls
            u = p
        pred[u_in] = enter
        pdir[u_in] = UP if u_in == src[enter] else DOWN
        succ[u_in] = old_succ
    up_limit = join if last[join] == v_in else -1
    last_out = last[u_out]
    u = v_in
    while u != -1 and last[u] == v_in:
        last[u] = last_out
        u = parent[u]
    if join != old_rev and v_in != old_rev:
        u = v_out
        while u != up_limit and last[u] == old_last:
            last[u] = old_rev
            u = parent[u]
    elif last_out != old_last:
        u = v_out
        while u != up_limit and last[u] == old_last:
            last[u] = last_out
            u = parent[u]
    u = v_in
    while u != join:
        succ[u] += old_succ
        u = parent[u]
    u = v_out
    while u != join:
        succ[u] -= old_succ
        u = parent[u]


@numba.njit(cache=True)
def update_potential_dev(enter, u_in, v_in, cost, pi, pdir, thread, last):
    """Shift the moved subtree's potentials so the entering arc's reduced cost is 0; returns the nodes moved."""
    sigma = pi[v_in] - pi[u_in] - pdir[u_in] * cost[enter]
    end = thread[last[u_in]]
    u = u_in
    k = 0
    while u != end:
        pi[u] += sigma
        u = thread[u]
        k += 1
    return k


@numba.njit(cache=True)
def pivot_dev(enter, src, dst, cap, cost, flow, state, pi, parent, pred, pdir, thread, rev, succ, last, dirty, counts):
    """One pivot on the entering arc ``enter`` (``counts``: see :func:`network_simplex_kernel`)."""
    counts[0] += 1
    join, k = find_join_dev(src[enter], dst[enter], parent, succ)
    counts[5] += k
    delta, side, u_out, u_in, v_in = find_leaving_dev(enter, join, src, dst, cap, flow, state, parent, pred, pdir)
    if delta == 0:
        counts[1] += 1
    change_flow_dev(enter, join, delta, side, u_out, src, dst, flow, state, parent, pred, pdir)
    if side == 0:
        counts[2] += 1
    else:
        update_tree_dev(enter, join, u_in, v_in, u_out, src, parent, pred, pdir, thread, rev, succ, last, dirty)
        counts[3] += update_potential_dev(enter, u_in, v_in, cost, pi, pdir, thread, last)


@numba.njit(cache=True)
def network_simplex_kernel(n, tail, head, cap_, cost_, supply, block, max_pivots):
    """The whole solve: ``(status, flow (m + n, the artificial arcs last), pi (n + 1, the root last), counts)``
    (counts: pivots, degenerate pivots, bound flips, potential moves, arcs priced, cycle tree arcs); status 0 optimal, 1 an
    artificial arc kept flow (infeasible), 2 ``max_pivots`` reached."""
    m = tail.size
    M = m + n
    root = n
    src = np.empty(M, tail.dtype)  # int32 ids where they fit: the pricing sweep streams src, dst, cost, state
    dst = np.empty(M, tail.dtype)
    cap = np.empty(M, np.int64)
    cost = np.empty(M, np.int64)
    flow = np.zeros(M, np.int64)
    state = np.empty(M, np.int8)
    big = np.int64(0)
    for e in range(m):
        src[e] = tail[e]
        dst[e] = head[e]
        cap[e] = cap_[e]
        cost[e] = cost_[e]
        state[e] = LOWER
        a = cost_[e] if cost_[e] >= 0 else -cost_[e]
        if a > big:
            big = a
    art = (big + 1) * max(n, 1)
    parent = np.empty(n + 1, np.int64)
    pred = np.empty(n + 1, np.int64)
    pdir = np.empty(n + 1, np.int64)
    thread = np.empty(n + 1, np.int64)
    rev = np.empty(n + 1, np.int64)
    succ = np.empty(n + 1, np.int64)
    last = np.empty(n + 1, np.int64)
    pi = np.zeros(n + 1, np.int64)
    dirty = np.empty(n + 1, np.int64)
    parent[root] = -1
    pred[root] = -1
    pdir[root] = 0
    thread[root] = 0
    rev[0] = root
    succ[root] = n + 1
    last[root] = root - 1
    for u in range(n):
        e = m + u
        parent[u] = root
        pred[u] = e
        thread[u] = u + 1
        rev[u + 1] = u
        succ[u] = 1
        last[u] = u
        cap[e] = INF
        state[e] = TREE
        if supply[u] >= 0:
            pdir[u] = UP
            src[e] = u
            dst[e] = root
            flow[e] = supply[u]
            cost[e] = 0
            pi[u] = 0
        else:
            pdir[u] = DOWN
            src[e] = root
            dst[e] = u
            flow[e] = -supply[u]
            cost[e] = art
            pi[u] = art
    counts = np.zeros(6, np.int64)  # pivots, degenerate, bound flips, potential moves, arcs priced, cycle arcs
    status = 0
    start = np.int64(0)  # not a literal 0: typing's first pass would compile find_entering_dev for it too
    if m > 0:
        while True:
            enter, start, k = find_entering_dev(src, dst, cost, state, pi, m, block, start)
            counts[4] += k
            if enter < 0:
                break
            if counts[0] >= max_pivots:
                status = 2
                break
            pivot_dev(enter, src, dst, cap, cost, flow, state, pi, parent, pred, pdir, thread, rev, succ, last, dirty,
                      counts)
    if status == 0:
        for e in range(m, M):
            if flow[e] != 0:
                status = 1
                break
    return status, flow, pi, counts


def check_network_simplex_options(options: dict) -> dict:
    b = options.get("block_size", None)
    return {"block_size": None if b is None else check_int("block_size", b, low=1)}


def solve_network_simplex(problem, block_size: int | None = None) -> tuple[np.ndarray, np.ndarray, dict]:
    """``(flow, potential, stats)`` on the integer costs ``problem.icost``: ``flow`` int64 per input arc (bounded
    arcs within ``problem.cap``), ``potential`` int64 exact duals (reduced costs >= 0 on every residual arc).
    ``block_size``: arcs priced per block (None: ``max(10, sqrt(m))``). Raises RuntimeError if an artificial
    arc keeps flow (an infeasible problem: the caller checks feasibility first)."""
    t0 = time.perf_counter()
    n, m = problem.n, problem.m
    block = block_size if block_size is not None else max(MIN_BLOCK, math.isqrt(m))
    block = max(1, min(block, max(m, 1)))
    supply = -problem.demand.astype(np.int64)
    ids = np.int32 if n < 2**31 - 1 else np.int64  # node ids, the root n included
    tail = np.ascontiguousarray(problem.tail, ids)
    head = np.ascontiguousarray(problem.head, ids)
    cap = np.ascontiguousarray(problem.cap, np.int64)
    cost = np.ascontiguousarray(problem.icost, np.int64)
    t1 = time.perf_counter()
    limit = np.int64(2**62)
    status, flow, pi, counts = network_simplex_kernel(np.int64(n), tail, head, cap, cost, supply, np.int64(block),
                                                      limit)
    t2 = time.perf_counter()
    if status == 1:
        raise RuntimeError("an artificial arc kept flow at the optimum (the problem is infeasible)")
    if status == 2:
        raise RuntimeError("the pivot limit was reached")
    pivots, degenerate, flips, moved, priced, cycles = (int(c) for c in counts)
    stats = {"pivots": pivots, "degenerate_pivots": degenerate, "bound_flips": flips, "potential_moves": moved,
             "arcs_priced": priced, "cycle_arcs": cycles, "block_size": int(block),
             "seconds_build": t1 - t0, "seconds_pivots": t2 - t1}
    return flow[:m].copy(), pi[:n].copy(), stats
