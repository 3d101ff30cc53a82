"""The CPU tail of the GPU cost-scaling refine (``_gpu_cost_scaling.py``, ``tail > 0``): the last units of a
phase finished on the host, with the GPU kernels' operations (``_gpu_cost_scaling_kernels.py``) in sequence.

The GPU refine stops when at most ``tail`` units are left; its state is a quiescent eps-optimal pseudoflow in
the two-price form (prices of rows and columns, ``col4row`` the flow, ``exc`` the excesses). These units move
one at a time along long paths, serial work that a GPU thread does at memory latency and a CPU core at cache
latency. Numba on the CPU (no CUDA needed).
"""

from __future__ import annotations

import numba
import numpy as np

from ._cpu_cost_scaling import BUDGET, NO_PERFECT, NOT_OPTIMAL, OK

__all__ = ["tail_kernel"]


BIG = np.int64(1) << np.int64(62)


@numba.njit(cache=True)
def _col_op(v, n, cptr, crow, ccost, price, col4row, eps, double, owner, ocost, stamp, ph):
    """The column operation of ``tail_kernel`` when the column's senders are not known: a scan of its
    in-arcs (``col_op_dev``). Records the sender that stays (when one does) as the column's owner.
    Returns (row the unit goes back to or -1, the new price, relabelled)."""
    y = v - n
    m1 = BIG
    m2 = BIG
    best = -1
    second = -1
    c1 = 0
    c2 = 0
    cnt = 0
    for k in range(cptr[y], cptr[y + 1]):
        x = crow[k]
        if col4row[x] == y:
            cnt += 1
            t = -ccost[k] - price[x]
            if t < m1:
                m2, second, c2 = m1, best, c1
                m1, best, c1 = t, x, ccost[k]
            elif t < m2:
                m2, second, c2 = t, x, ccost[k]
    if best < 0:
        return -1, price[v], 0
    q = price[v]
    r = 0
    if m1 >= -q:
        q = -(m1 + eps)
        r = 1
    if double and cnt == 2:
        q = min(q, -(m2 + eps))
    stamp[y] = ph if cnt == 2 else -1
    owner[y] = second
    ocost[y] = c2
    return best, min(price[v], q), r


@numba.njit(cache=True)
def tail_kernel(indptr, indices, cost, cptr, crow, ccost, n, eps, price, exc, col4row, double, gap, floor, budget,
                owner, ocost, stamp, ph):
    """The end of a refine phase on the CPU, from the state the GPU left (a quiescent eps-optimal pseudoflow,
    a few units left): the kernels' row and column operations (``row_op_dev`` / ``col_op_dev``: lines 6-18 of
    Algorithm 5.4, with the double-push price) in sequence, the node a push activates next (a stack: the
    path of the unit, as ``follow``). A column's one sender (``owner``, its arc cost ``ocost``; valid where
    ``stamp == ph``) is kept as the tail goes, so a push into a matched column is answered at once from its
    two senders (Goldberg-Kennedy's double push in the two-price form) instead of a scan of its in-arcs.
    Returns (status, pushes)."""
    stack = np.empty(2 * n, np.int64)
    on = np.zeros(2 * n, np.bool_)
    top = 0
    for v in range(2 * n):
        if exc[v] > 0:
            stack[top] = v
            on[v] = True
            top += 1
    pushes = 0
    while top > 0:
        top -= 1
        v = stack[top]
        on[v] = False
        if exc[v] <= 0:
            continue
        if v < n:  # a row: every arc residual (it sends nothing)
            m1 = BIG
            m2 = BIG
            y = -1
            bc = 0
            for k in range(indptr[v], indptr[v + 1]):
                t = cost[k] - price[n + indices[k]]
                if t < m1:
                    m2, m1, y, bc = m1, t, indices[k], cost[k]
                elif t < m2:
                    m2 = t
            if y < 0:
                return NO_PERFECT, pushes
            q = price[v]
            if m1 >= -q:
                q = -(m1 + eps)
            if double:
                q = min(q, -((m1 + gap if m2 == BIG else m2) + eps))
            price[v] = q
            if q < -floor:
                return BUDGET, pushes
            col4row[v] = y
            exc[v] -= 1
            w = n + y
            o = exc[w]
            exc[w] = o + 1
            pushes += 1
            if o < 0:  # absorbed by a deficit: v is the column's one sender
                owner[y], ocost[y], stamp[y] = v, bc, ph
                continue
            if o > 0 or stamp[y] != ph:
                if not on[w]:
                    stack[top] = w
                    on[w] = True
                    top += 1
                continue
            # two senders, the owner r and v: the column's operation at once
            r = owner[y]
            tr = -ocost[y] - price[r]
            tv = -bc - price[v]
            if tr < tv:
                back, m1, keep, m2, kc = r, tr, v, tv, bc
            else:
                back, m1, keep, m2, kc = v, tv, r, tr, ocost[y]
            q = price[w]
            if m1 >= -q:
                q = -(m1 + eps)
            if double:
                q = min(q, -(m2 + eps))
            price[w] = min(price[w], q)
            owner[y], ocost[y] = keep, kc
        else:  # a column: its senders by a scan
            back, q, _ = _col_op(v, n, cptr, crow, ccost, price, col4row, eps, double, owner, ocost, stamp, ph)
            if back < 0:
                return NOT_OPTIMAL, pushes  # a column holding a unit has a sender: only a bug gets here
            price[v] = q
            w = v
            if exc[v] > 1 and not on[v]:
                stack[top] = v
                on[v] = True
                top += 1
        if q < -floor:
            return BUDGET, pushes
        col4row[back] = -1
        exc[w] -= 1
        exc[back] += 1
        pushes += 1
        if pushes > budget:
            return BUDGET, pushes
        if not on[back]:
            stack[top] = back
            on[back] = True
            top += 1
    return OK, pushes
