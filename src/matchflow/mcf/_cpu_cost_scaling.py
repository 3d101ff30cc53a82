"""Min-cost flow by cost scaling on the CPU (Goldberg 1997, CS2; Goldberg & Tarjan 1990).

Sign convention (the result's ``potential``): the reduced cost of a residual arc ``v -> w`` of cost ``c`` is
``c + p(v) - p(w)``; a flow is optimal iff some ``p`` makes it non-negative on every residual arc.

Costs are multiplied by ``n + 1``: an ``eps``-optimal flow with ``eps = 1`` on the scaled costs is optimal on the
integer costs (a residual cycle has at most ``n`` arcs, so its scaled cost is > ``-(n + 1)``, i.e. its integer cost
is >= 0). ``eps`` starts at the largest scaled cost and is divided by ``alpha`` each phase. A phase (``refine``)
saturates every residual arc of negative reduced cost (the pseudoflow is then 0-optimal) and discharges the nodes
with excess in FIFO order: push on admissible arcs (reduced cost < 0) from the current arc on, and relabel when
none is left (``p(v) = max(p(w) - c(v, w)) - eps`` over residual arcs: prices only fall). The exact integer
potentials of the final flow come from a label-correcting shortest-path pass on the residual network started at
``floor(p / (n + 1))`` (:func:`exact_potentials_kernel`): at an optimum no negative cycle exists, so it ends.

Heuristics: Goldberg's global price update (:func:`price_update_kernel`, at the start of each phase and after
every ``price_updates * n`` relabels; ``price_updates=0`` turns it off); push look-ahead (``lookahead``); price
refinement (:func:`price_refine_kernel`, before each phase: the phase is skipped when the flow is already
``eps / alpha``-optimal for refined prices; ``price_refine`` rounds, 0 turns it off).
The caller guarantees a feasible problem (every phase then ends: Goldberg & Tarjan's bound) and the int64 ranges
(:mod:`._prepare`); a price that falls past ``-2**62`` stops the solve with ``OVERFLOW``.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from .._graph._ring import ring_pop, ring_push
from .._validation import check_int

__all__ = ["solve_cost_scaling", "check_cost_scaling_options", "residual", "finish_refine", "OK", "STUCK", "OVERFLOW"]

OK, STUCK, OVERFLOW = 0, 1, 2
FLOOR = np.int64(-(2**62))
REFINE_BUDGET = 1  # the label-correcting end of a price refinement: at most this many relaxations per node


@numba.njit(cache=True)
def residual_kernel(n, tail, head, cap, cost):
    """The residual CSR: slot ``s`` of node ``v`` (``indptr[v] <= s < indptr[v + 1]``) goes to ``to[s]`` with
    residual capacity ``res[s]``, cost ``c[s]`` and partner slot ``rev[s]``; ``slot[k]`` is arc ``k``'s forward
    slot (its reverse is ``rev[slot[k]]``)."""
    m = tail.size
    indptr = np.zeros(n + 1, np.int64)
    for k in range(m):
        indptr[tail[k] + 1] += 1
        indptr[head[k] + 1] += 1
    for v in range(n):
        indptr[v + 1] += indptr[v]
    fill = indptr[:n].copy()
    to = np.empty(2 * m, np.int64)
    rev = np.empty(2 * m, np.int64)
    res = np.empty(2 * m, np.int64)
    c = np.empty(2 * m, np.int64)
    slot = np.empty(m, np.int64)
    for k in range(m):
        a = fill[tail[k]]
        fill[tail[k]] += 1
        b = fill[head[k]]
        fill[head[k]] += 1
        to[a], to[b] = head[k], tail[k]
        rev[a], rev[b] = b, a
        res[a], res[b] = cap[k], 0
        c[a], c[b] = cost[k], -cost[k]
        slot[k] = a
    return indptr, to, rev, res, c, slot


@numba.njit(cache=True)
def price_update_kernel(indptr, to, rev, res, c, excess, price, eps, dist, done, bnext, bprev, bhead):
    """Goldberg's global price update: ``d(v)`` = the residual distance from ``v`` to a node with a deficit, an
    arc of reduced cost ``r`` counting ``0`` if ``r < 0`` else ``r // eps + 1`` (Dial's buckets, scanned until every
    node with excess is reached and capped there), then ``p(v) -= d(v) * eps``. ``eps``-optimality is kept: every
    residual arc has ``d(v) <= d(w) + length``, so its reduced cost falls by at most ``length * eps``. Returns False
    (prices untouched) where a price would pass the floor."""
    n = indptr.size - 1
    K = n + 1
    active = 0
    for L in range(K):
        bhead[L] = -1
    for v in range(n):
        done[v] = False
        dist[v] = K
        if excess[v] > 0:
            active += 1
        elif excess[v] < 0:
            dist[v] = 0
            bprev[v] = -1
            bnext[v] = bhead[0]
            if bhead[0] >= 0:
                bprev[bhead[0]] = v
            bhead[0] = v
    stop = K
    L = 0
    while L < K and active > 0:
        v = bhead[L]
        if v < 0:
            L += 1
            continue
        bhead[L] = bnext[v]
        if bnext[v] >= 0:
            bprev[bnext[v]] = -1
        done[v] = True
        if excess[v] > 0:
            active -= 1
            if active == 0:
                stop = L
                break
        pv = price[v]
        for a in range(indptr[v], indptr[v + 1]):
            u = to[a]
            if not done[u] and res[rev[a]] > 0:
                r = price[u] - c[a] - pv  # the reduced cost of u -> v (its cost is -c[a])
                nd = L if r < 0 else L + r // eps + 1
                if nd < dist[u] and nd < K:
                    if dist[u] < K:  # unlink from its bucket
                        if bprev[u] >= 0:
                            bnext[bprev[u]] = bnext[u]
                        else:
                            bhead[dist[u]] = bnext[u]
                        if bnext[u] >= 0:
                            bprev[bnext[u]] = bprev[u]
                    dist[u] = nd
                    bprev[u] = -1
                    bnext[u] = bhead[nd]
                    if bhead[nd] >= 0:
                        bprev[bhead[nd]] = u
                    bhead[nd] = u
    if stop == K:
        stop = L if L < K else K
    for v in range(n):
        d = dist[v] if done[v] else stop
        if d > stop:
            d = stop
        if price[v] - d * eps <= FLOOR:
            return False
    for v in range(n):
        d = dist[v] if done[v] else stop
        if d > stop:
            d = stop
        price[v] -= d * eps
    return True


@numba.njit(cache=True, inline="always")
def _relabel(v, indptr, to, res, c, price, eps, cur):
    """``p(v) = max(p(w) - c(v, w)) - eps`` over the residual arcs of ``v`` (the caller guarantees none is
    admissible). The current arc becomes the first admissible one (OR-Tools' rule): the arc of the maximum
    when the running maximum before it is not above the new price (the arcs before it stay non-admissible),
    else the first arc."""
    best = FLOOR
    prev = FLOOR
    arg = -1
    for b in range(indptr[v], indptr[v + 1]):
        if res[b] > 0:
            t = price[to[b]] - c[b]
            if arg < 0 or t > best:
                prev = best
                best = t
                arg = b
    if arg < 0:
        return STUCK
    if best - eps <= FLOOR:
        return OVERFLOW
    price[v] = best - eps
    cur[v] = arg if prev <= best - eps else indptr[v]
    return OK


@numba.njit(cache=True, inline="always")
def _admissible(w, indptr, to, res, c, price, cur):
    """``w`` has an admissible arc from its current arc on (moves the current arc to it)."""
    pw = price[w]
    for b in range(cur[w], indptr[w + 1]):
        if res[b] > 0 and c[b] + pw - price[to[b]] < 0:
            cur[w] = b
            return True
    cur[w] = indptr[w + 1]
    return False


@numba.njit(cache=True)
def saturate_kernel(indptr, to, rev, res, c, excess, price):
    """The start of a refine: every residual arc of negative reduced cost saturated (the pseudoflow becomes
    0-optimal)."""
    for v in range(indptr.size - 1):
        pv = price[v]
        for a in range(indptr[v], indptr[v + 1]):
            r = res[a]
            if r > 0 and c[a] + pv - price[to[a]] < 0:
                res[a] = 0
                res[rev[a]] += r
                excess[v] -= r
                excess[to[a]] += r


@numba.njit(cache=True)
def refine_kernel(indptr, to, rev, res, c, excess, price, eps, queue, inq, cur, every, work, lookahead):
    """One phase at ``eps``: returns ``(status, pushes, relabels, updates, scans)`` (``scans``: arcs the discharges
    passed over, at most); a global price update
    (:func:`price_update_kernel`, work arrays ``work``) at the start and after each ``every`` relabels
    (``every <= 0``: none). :func:`saturate_kernel`, then :func:`discharge_kernel`."""
    saturate_kernel(indptr, to, rev, res, c, excess, price)
    return discharge_kernel(indptr, to, rev, res, c, excess, price, eps, queue, inq, cur, every, work, lookahead)


@numba.njit(cache=True)
def discharge_kernel(indptr, to, rev, res, c, excess, price, eps, queue, inq, cur, every, work, lookahead):
    """The rest of a refine at ``eps`` from ANY ``eps``-optimal pseudoflow (``res``, ``excess``, ``price``: the
    state after the saturate pass, or after some rounds of another push-relabel, e.g. the GPU twin's; the current
    arcs start at each node's first slot): a global price update (``every > 0``), then FIFO discharges until no
    excess is left. Returns ``(status, pushes, relabels, updates, scans)`` as :func:`refine_kernel`."""
    n = indptr.size - 1
    pushes = 0
    relabels = 0
    updates = 0
    scans = 0
    since = 0
    if every > 0 and price_update_kernel(indptr, to, rev, res, c, excess, price, eps, work[0], inq, work[1],
                                         work[2], work[3]):
        updates += 1
    head_ = 0
    tail_ = 0
    for v in range(n):
        cur[v] = indptr[v]
        inq[v] = False
        if excess[v] > 0:
            queue[tail_] = v
            tail_ += 1
            inq[v] = True
    count = tail_
    if tail_ == n:
        tail_ = 0
    while count > 0:
        v, head_, count = ring_pop(queue, head_, count, n)
        inq[v] = False
        if every > 0 and since >= every:
            since = 0
            if price_update_kernel(indptr, to, rev, res, c, excess, price, eps, work[0], work[4], work[1], work[2],
                                   work[3]):
                updates += 1
                for u in range(n):
                    cur[u] = indptr[u]
        while excess[v] > 0:
            a = cur[v]
            end = indptr[v + 1]
            pv = price[v]
            scans += end - a
            while a < end:
                r = res[a]
                if r > 0:
                    w = to[a]
                    if c[a] + pv - price[w] < 0 and lookahead and excess[w] >= 0 and not _admissible(
                            w, indptr, to, res, c, price, cur):
                        st = _relabel(w, indptr, to, res, c, price, eps, cur)  # push look-ahead: w would stall
                        if st == OVERFLOW:
                            return st, pushes, relabels, updates, scans
                        if st == OK:  # STUCK: w has no residual arc yet (the push makes one back to v)
                            relabels += 1
                            since += 1
                    if c[a] + pv - price[w] < 0:
                        d = excess[v] if excess[v] < r else r
                        res[a] = r - d
                        res[rev[a]] += d
                        excess[v] -= d
                        excess[w] += d
                        pushes += 1
                        if excess[w] > 0 and not inq[w]:
                            tail_, count = ring_push(queue, tail_, count, n, w)
                            inq[w] = True
                        if excess[v] == 0:
                            break
                a += 1
            cur[v] = a
            if excess[v] > 0:
                st = _relabel(v, indptr, to, res, c, price, eps, cur)
                if st != OK:
                    return st, pushes, relabels, updates, scans
                relabels += 1
                since += 1
    return OK, pushes, relabels, updates, scans


@numba.njit(cache=True)
def exact_potentials_kernel(indptr, to, res, c, p, queue, inq, budget, extra=0):
    """Label-correcting shortest paths on the residual arcs (lengths ``c + extra``) from the start ``p``:
    afterwards ``c + p(v) - p(w) >= -extra`` on every residual arc. Returns the relaxations done, -1 past
    ``budget`` or where a price would pass the floor (``p`` is then partly changed)."""
    n = indptr.size - 1
    head_ = 0
    tail_ = 0
    for v in range(n):
        queue[v] = v
        inq[v] = True
    count = n
    relax = 0
    while count > 0:
        v, head_, count = ring_pop(queue, head_, count, n)
        inq[v] = False
        pv = p[v]
        for a in range(indptr[v], indptr[v + 1]):
            if res[a] > 0:
                w = to[a]
                q = pv + c[a] + extra
                if q < p[w]:
                    p[w] = q
                    relax += 1
                    if relax > budget or q <= FLOOR:
                        return -1
                    if not inq[w]:
                        tail_, count = ring_push(queue, tail_, count, n, w)
                        inq[w] = True
    return relax


@numba.njit(cache=True)
def _violated(indptr, to, res, c, price, eps):
    """Some residual arc has a reduced cost ``< -eps``."""
    for v in range(indptr.size - 1):
        pv = price[v]
        for a in range(indptr[v], indptr[v + 1]):
            if res[a] > 0 and c[a] + pv - price[to[a]] < -eps:
                return True
    return False


@numba.njit(cache=True)
def _admissible_postorder(indptr, to, res, c, price, order, state, stack, pos):
    """The nodes in DFS post-order of the admissible graph (residual arcs of reduced cost < 0) into ``order``;
    False where it has a cycle."""
    n = indptr.size - 1
    state[:] = 0
    k = 0
    for s in range(n):
        if state[s] != 0:
            continue
        top = 0
        stack[0] = s
        state[s] = 1
        pos[s] = indptr[s]
        while top >= 0:
            v = stack[top]
            pv = price[v]
            a = pos[v]
            end = indptr[v + 1]
            while a < end:
                w = to[a]
                if res[a] > 0 and c[a] + pv - price[w] < 0 and state[w] != 2:
                    if state[w] == 1:
                        return False
                    break
                a += 1
            pos[v] = a + 1
            if a < end:
                w = to[a]
                state[w] = 1
                pos[w] = indptr[w]
                top += 1
                stack[top] = w
            else:
                state[v] = 2
                order[k] = v
                k += 1
                top -= 1
    return True


@numba.njit(cache=True)
def price_refine_kernel(indptr, to, res, c, price, eps, rounds, d, order, state, stack, pos):
    """CS2's price refinement: whether the current flow is ``eps``-optimal for some prices, found by at most
    ``rounds`` rounds that lower the prices by shortest distances over the admissible graph in topological order
    (lengths ``reduced cost + eps``), then a label-correcting pass on every residual arc
    (:func:`exact_potentials_kernel`, at most ``REFINE_BUDGET * n`` relaxations). Sound either way: True only
    when every residual arc has a reduced cost ``>= -eps``. False (``price`` then partly changed: the caller
    restores it) where the admissible graph has a cycle (a quick reject), a price would pass the floor or the
    budget runs out."""
    n = indptr.size - 1
    for _ in range(rounds):
        if not _violated(indptr, to, res, c, price, eps):
            return True
        if not _admissible_postorder(indptr, to, res, c, price, order, state, stack, pos):
            return False
        d[:] = 0
        for i in range(n - 1, -1, -1):
            v = order[i]
            pv = price[v]
            for a in range(indptr[v], indptr[v + 1]):
                w = to[a]
                r = c[a] + pv - price[w]
                if res[a] > 0 and r < 0:
                    if r + eps <= FLOOR - d[v]:
                        return False
                    if d[v] + r + eps < d[w]:
                        d[w] = d[v] + r + eps
        for v in range(n):
            if price[v] + d[v] <= FLOOR:  # both > FLOOR: no int64 overflow
                return False
            price[v] += d[v]
    return not _violated(indptr, to, res, c, price, eps) or exact_potentials_kernel(
        indptr, to, res, c, price, order, state, np.int64(REFINE_BUDGET * (indptr.size - 1)), eps) >= 0


def _price_refine(indptr, to, res, cs, price, eps, alpha, rounds, work):
    """While the flow (a circulation meeting the demands) is ``eps / alpha``-optimal for refined prices
    (:func:`price_refine_kernel`), take them and skip that phase. Returns ``(eps, phases skipped)``."""
    skipped = 0
    while rounds > 0 and eps > 1:
        nxt = max(1, eps // alpha)
        keep = price.copy()
        if not price_refine_kernel(indptr, to, res, cs, price, np.int64(nxt), rounds, *work):
            price[:] = keep
            break
        eps = nxt
        skipped += 1
    return eps, skipped


def finish_refine(indptr, to, rev, res, cs, excess, price, eps, price_updates=3.0, lookahead=True):
    """Finish one refine at ``eps`` on the CPU from a given ``eps``-optimal pseudoflow (the residual CSR of
    :func:`residual` with scaled costs ``cs``; ``res``, ``excess``, ``price`` changed in place): the CPU half of a
    "CPU tail" for the GPU twin (docs/notes/mcf.md, "Where the GPU rounds go"). No saturate pass: the state is
    taken as it is. Returns ``(status, pushes, relabels, updates, scans)`` as :func:`refine_kernel`; afterwards
    (status OK) no excess is left and the flow is ``eps``-optimal for ``price``."""
    n = indptr.size - 1
    every = np.int64(max(1, int(price_updates * n))) if price_updates > 0 else np.int64(0)
    work = (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n + 1, np.int64),
            np.zeros(n, np.bool_))
    return discharge_kernel(indptr, to, rev, res, cs, excess, price, np.int64(eps), np.empty(max(n, 1), np.int64),
                            np.zeros(n, np.bool_), np.empty(n, np.int64), every, work, bool(lookahead))


def residual(problem):
    """The residual CSR of a prepared problem at zero flow (self-loops included: they never carry excess); ``to``
    and ``rev`` as int32 where ``2m < 2**31`` (less memory traffic in the scans: 16% faster on a NETGEN-like
    network of 10^6 arcs)."""
    indptr, to, rev, res, c, slot = residual_kernel(problem.n, problem.tail, problem.head, problem.cap,
                                                    problem.icost)
    if to.size < 2**31:
        to, rev = to.astype(np.int32), rev.astype(np.int32)
    return indptr, to, rev, res, c, slot


def check_cost_scaling_options(options: dict) -> dict:
    out = {"alpha": check_int("alpha", options.get("alpha", 8), low=2)}
    u = options.get("price_updates", 3.0)
    if isinstance(u, bool) or not isinstance(u, int | float) or not (u == 0 or 0 < u < np.inf):
        raise ValueError(f"price_updates must be a number >= 0 (0: off), got {u!r}")
    out["price_updates"] = float(u)
    la = options.get("lookahead", True)
    if not isinstance(la, bool | np.bool_):
        raise ValueError(f"lookahead must be True or False, got {la!r}")
    out["lookahead"] = bool(la)
    out["price_refine"] = check_int("price_refine", options.get("price_refine", 4), low=0)
    return out


def solve_cost_scaling(problem, alpha: int = 8, price_updates: float = 3.0,
                       lookahead: bool = True, price_refine: int = 4) -> tuple[np.ndarray, np.ndarray, dict]:
    """``(flow, potential, stats)`` on the integer costs ``problem.icost``: ``flow`` int64 per input arc,
    ``potential`` int64 exact duals (reduced costs >= 0 on every residual arc, bounded arcs at ``problem.cap``).
    Raises OverflowError where the prices leave int64 and RuntimeError if a phase is stuck (an infeasible
    problem: the caller checks feasibility first)."""
    t0 = time.perf_counter()
    n, m = problem.n, problem.m
    indptr, to, rev, res, c, slot = residual(problem)
    t1 = time.perf_counter()
    k = np.int64(n + 1)
    cs = c * k
    excess = -problem.demand.astype(np.int64)
    price = np.zeros(n, np.int64)
    queue = np.empty(max(n, 1), np.int64)
    inq = np.zeros(n, np.bool_)
    cur = np.empty(n, np.int64)
    eps = int(np.abs(cs).max()) if cs.size else 0
    phases = pushes = relabels = updates = scans = skipped = 0
    every = np.int64(max(1, int(price_updates * n))) if price_updates > 0 else np.int64(0)
    work = (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n + 1, np.int64),
            np.zeros(n, np.bool_))
    while True:
        eps = max(1, eps // alpha)
        status, p_, r_, u_, s_ = refine_kernel(indptr, to, rev, res, cs, excess, price, np.int64(eps), queue, inq, cur,
                                           every, work, lookahead)
        phases += 1
        pushes += p_
        relabels += r_
        updates += u_
        scans += s_
        if status == OVERFLOW:
            raise OverflowError(f"prices passed -2**62 at eps={eps} (costs too large for this network's size)")
        if status == STUCK:
            raise RuntimeError("a node with excess has no residual arc (the problem is infeasible)")
        if eps == 1:
            break
        eps, k_ = _price_refine(indptr, to, res, cs, price, eps, alpha, price_refine, work[:4] + (cur,))
        skipped += k_
        if eps == 1:
            break
    t2 = time.perf_counter()
    pot = np.floor_divide(price, k)
    # work[2] (int64, free now) as the in-queue flags and extra given: price_refine_kernel's specialisation
    relax = exact_potentials_kernel(indptr, to, res, c, pot, queue, work[2], np.int64(max(n, 1)) * max(2 * m, 1),
                                    np.int64(0))
    if relax < 0:
        raise RuntimeError("the exact potentials did not converge (a negative residual cycle: not optimal)")
    flow = (problem.cap - res[slot]) if m else np.zeros(0, np.int64)
    t3 = time.perf_counter()
    stats = {"phases": phases, "pushes": int(pushes), "relabels": int(relabels), "price_updates": int(updates),
             "phases_skipped": int(skipped),
             "arc_scans": int(scans),
             "potential_relaxations": int(relax),
             "alpha": alpha, "seconds_build": t1 - t0, "seconds_refine": t2 - t1, "seconds_potentials": t3 - t2}
    return flow.astype(np.int64), pot, stats
