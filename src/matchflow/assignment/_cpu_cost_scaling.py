"""Sparse assignment by cost scaling on the CPU (Goldberg-Kennedy's CSA, double-push form).

Notation of Łupińska, Section 5 / Goldberg-Kennedy: costs are multiplied by ``n + 1`` so that an
``eps``-optimal perfect matching with ``eps = 1`` is optimal on the integer costs (Lemma: ``n eps <
n + 1``); ``eps`` starts at the largest scaled cost and is divided by ``alpha`` (10, as the paper)
each phase. ``refine`` (Algorithm 5.2) is run as Goldberg-Kennedy's *double push*: an active
(unassigned) row ``i`` pushes to its best column ``j1`` (smallest partial reduced cost
``c(i,j) - p(j)``), the old owner of ``j1`` becomes active, and ``j1`` is relabelled at once to
``p(j1) = c(i,j1) - a2 - eps`` where ``a2`` is the second-best value (the relabel of ``i`` folded into
the push). Prices only decrease (Lemma 5.1's monotonicity). The exact integer duals of the final
matching come from a label-correcting shortest-path pass started at ``floor(p / (n + 1))``
(:func:`exact_duals_kernel`): no negative cycle exists at an optimum, so it ends, and the duals it
returns are checked exactly by the caller.

Not here (yet): the global price update (Algorithm 5.3) and arc fixing; see docs/notes/cost_scaling.md.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["csa_kernel", "exact_duals_kernel", "cost_scaling_solve", "OK", "NO_PERFECT", "NOT_OPTIMAL", "BUDGET"]

OK, NO_PERFECT, NOT_OPTIMAL, BUDGET = 0, 1, 2, 3
BIG = np.int64(1) << np.int64(62)
FLOOR = np.int64(1) << np.int64(60)  # a feasible run keeps prices above -2**60 (the caller's bound on costs)


@numba.njit(cache=True)
def _refine_kernel(indptr, indices, cost, n, eps, gap, price, col4row, row4col, stack, max_pushes):
    """One refine phase: every row starts unassigned; returns (status, pushes)."""
    top = 0
    for i in range(n):
        col4row[i] = -1
        row4col[i] = -1
    for i in range(n - 1, -1, -1):
        stack[top] = i
        top += 1
    pushes = 0
    while top > 0:
        top -= 1
        i = stack[top]
        a1 = BIG
        a2 = BIG
        j1 = -1
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            t = cost[k] - price[j]
            if t < a1:
                a2 = a1
                a1 = t
                j1 = j
            elif t < a2:
                a2 = t
        if j1 < 0:
            return NO_PERFECT, pushes
        if a2 == BIG:
            a2 = a1 + gap  # a single arc: any relabel keeps eps-optimality; a large one ends the fight
        price[j1] = price[j1] - (a2 - a1) - eps
        if price[j1] < -FLOOR:
            return BUDGET, pushes  # only without a perfect matching (prices of a feasible run stay above)
        old = row4col[j1]
        row4col[j1] = i
        col4row[i] = j1
        if old >= 0:
            col4row[old] = -1
            stack[top] = old
            top += 1
        pushes += 1
        if pushes > max_pushes:
            return BUDGET, pushes
    return OK, pushes


@numba.njit(cache=True)
def csa_kernel(indptr, indices, cost, n, alpha, price, col4row, row4col, max_pushes):
    """The eps-scaling loop around :func:`_refine_kernel` on scaled costs ``cost`` (>= 0); BUDGET
    when more than ``max_pushes`` pushes were made in all (the caller then proves feasibility).
    Returns (status, phases, pushes)."""
    cmax = np.int64(1)
    for k in range(cost.shape[0]):
        if cost[k] > cmax:
            cmax = cost[k]
    stack = np.empty(n + 1, dtype=np.int64)
    eps = cmax
    phases = 0
    pushes = np.int64(0)
    while True:
        eps = max(eps // alpha, np.int64(1))
        st, p = _refine_kernel(indptr, indices, cost, n, eps, cmax + eps, price, col4row, row4col, stack,
                               max_pushes - pushes)
        pushes += p
        phases += 1
        if st != OK:
            return st, phases, pushes
        if eps == 1:
            return OK, phases, pushes


@numba.njit(cache=True)
def exact_duals_kernel(indptr, indices, cost, n, col4row, row4col, v, max_scans):
    """Exact integer duals (float costs: duals tight to rounding) of a perfect matching on ``cost``: the largest ``v <= v0`` with
    ``v[j] - v[col4row[i]] <= c(i,j) - c(i,col4row[i])`` (label correcting, a FIFO of rows). Then
    ``u[i] = c(i, col4row[i]) - v[col4row[i]]``. Returns (status, u, scans)."""
    cm = np.empty(n, dtype=cost.dtype)
    for i in range(n):
        j0 = col4row[i]
        cm[i] = BIG
        for k in range(indptr[i], indptr[i + 1]):
            if indices[k] == j0:
                cm[i] = cost[k]
                break
    queue = np.empty(n, dtype=np.int64)
    inq = np.ones(n, dtype=np.bool_)
    for i in range(n):
        queue[i] = i
    head = 0
    count = n
    scans = np.int64(0)
    while count > 0:
        i = queue[head]
        head = head + 1 if head + 1 < n else 0
        count -= 1
        inq[i] = False
        scans += 1
        if scans > max_scans:
            return NOT_OPTIMAL, cm, scans
        ui = cm[i] - v[col4row[i]]
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j == col4row[i]:
                continue  # its own arc is tight by the definition of ui (floats: skip the rounding)
            lim = cost[k] - ui
            if v[j] > lim:
                v[j] = lim
                r = row4col[j]
                if r == i:
                    return NOT_OPTIMAL, cm, scans  # a negative cycle through i: not optimal
                if not inq[r]:
                    inq[r] = True
                    queue[(head + count) % n] = r
                    count += 1
    u = np.empty(n, dtype=cost.dtype)
    for i in range(n):
        u[i] = cm[i] - v[col4row[i]]
    return OK, u, scans


def cost_scaling_solve(indptr: np.ndarray, indices: np.ndarray, cost: np.ndarray, n: int, alpha: int = 10,
                       max_pushes: int = 2**62):
    """Min-cost perfect matching of the square sparse problem (CSR, int64 costs >= 0,
    ``cost.max() * (n + 1) * 4 * (n + 1) < 2**59`` checked by the caller; a perfect matching must exist
    unless ``max_pushes`` bounds the work: status BUDGET then). Returns ``(status, col4row, u, v,
    stats)`` with exact integer duals on ``cost``."""
    scaled = cost * np.int64(n + 1)
    price = np.zeros(n, dtype=np.int64)
    col4row = np.full(n, -1, dtype=np.int64)
    row4col = np.full(n, -1, dtype=np.int64)
    st, phases, pushes = csa_kernel(indptr, indices, scaled, n, np.int64(alpha), price, col4row, row4col,
                                    np.int64(max_pushes))
    stats = {"phases": int(phases), "pushes": int(pushes)}
    if st != OK:
        return st, col4row, None, None, stats
    v = np.floor_divide(price, n + 1)
    st, u, scans = exact_duals_kernel(indptr, indices, cost, n, col4row, row4col, v, np.int64(64) * n * n + 1024)
    stats["dual_scans"] = int(scans)
    return st, col4row, u, v, stats
