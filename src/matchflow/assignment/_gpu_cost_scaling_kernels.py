"""numba.cuda kernels of Łupińska's lock-free parallel refine (Algorithm 5.4) for cost-scaling assignment.

Notation of the paper (Section 5): the bipartite network has the rows X (nodes ``0..n-1``) and the
columns Y (nodes ``n..2n-1``); arc ``(x, y)`` has capacity 1 and cost ``c(x, y)`` (scaled integers),
its reverse ``(y, x)`` cost ``-c(x, y)``. Prices ``p`` (one int64 array over both sides), reduced cost
``c_p(x, y) = c(x, y) + p(x) - p(y)``, partial reduced cost ``c'_p(x, y) = c(x, y) - p(y)`` (seen from
``x``) and ``c'_p(y, x) = -c(x, y) - p(x)`` (seen from ``y``). Excess ``e`` (int32): a refine starts
with ``e(x) = 1``, ``e(y) = -1`` and no flow (Algorithm 5.2). A row sends at most one unit at a time, so
the flow is ``col4row[x]`` (the column ``x`` sends its unit to, or -1): ``(x, y)`` is residual when
``col4row[x] != y``, ``(y, x)`` when ``col4row[x] == y``.

One thread operates one node (the paper's "one node by at most one thread"); a launch is one sweep over
the nodes (grid-stride), the host relaunches until a sweep finds no active node. Each operation is the
paper's: lines 6-10 (preparation: the residual arc of least ``c'_p``), line 11 (admissible when
``min c'_p < -p(x)``), lines 13-16 (push one unit; the excess updates are atomics) or line 18 (relabel
``p(x) = -(min c'_p + eps)``). A relabel is followed at once by the push on the same arc (the arc just
became admissible: ``c_p = -eps``; the same preparation serves both, a stage-clean trace). Only the
owner of a node writes its price; ``col4row[x]`` is set only by ``x`` (from -1) and cleared only by the
column it points to, so no two threads ever write it from the same state (Lemma 5.5, case 8). The flow
word is written before a fence and the receiver's excess increment, and read by the columns with an
atomic (coherent at L2), so a column that sees its excess also sees the arcs that brought it.
Kernels return status codes in ``ctl[1]``; Python raises.
"""

from __future__ import annotations

from numba import cuda, int32, int64

__all__ = ["OK", "NO_PERFECT", "BUDGET", "CTL_STAMP", "CTL_STATUS", "CTL_PUSHES", "CTL_RELABELS", "CTL_SIZE",
           "phase_init_kernel", "refine_sweep_kernel"]

OK, NO_PERFECT, BUDGET = 0, 1, 3  # the CPU twin's codes (matchflow.assignment._cpu_cost_scaling)
CTL_STAMP, CTL_STATUS, CTL_PUSHES, CTL_RELABELS, CTL_SIZE = 0, 1, 2, 3, 4
BIG = int64(1) << int64(62)


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
    second least)."""
    m1 = BIG
    m2 = BIG
    xb = -1
    for k in range(cptr[y], cptr[y + 1]):
        x = crow[k]
        if cuda.atomic.add(col4row, x, 0) == y:
            t = -ccost[k] - price[x]
            if t < m1:
                m2 = m1
                m1 = t
                xb = x
            elif t < m2:
                m2 = t
    return xb, m1, m2


@cuda.jit(device=True, inline=True)
def relabel_dev(v, m1, eps, price, floor):
    """Line 18 when line 11 fails (``m1 >= -p(v)``): ``p(v) = -(m1 + eps)``, strictly lower (Lemma 5.2).
    Returns (relabelled, below the floor: no perfect matching / out of the int64 budget)."""
    if m1 >= -price[v]:
        q = -(m1 + eps)
        price[v] = q
        return 1, q < -floor
    return 0, False


@cuda.jit(device=True, inline=True)
def push_dev(v, w, flow_at, flow_val, col4row, exc):
    """Lines 13-16: one unit from node ``v`` to node ``w``: the flow word ``col4row[flow_at] = flow_val``,
    a fence, ``e(v) - 1``, a fence, ``e(w) + 1`` (atomics). Returns the sender's new excess."""
    cuda.atomic.exch(col4row, flow_at, flow_val)
    cuda.threadfence()
    e = cuda.atomic.add(exc, v, -1) - 1
    cuda.threadfence()
    cuda.atomic.add(exc, w, 1)
    return e


@cuda.jit
def phase_init_kernel(indptr, indices, cost, n, eps, price, exc, col4row, ctl, floor):
    """Algorithm 5.2 lines 3-6: no flow, ``e(x) = 1``, ``e(y) = -1``, ``p(x) = -min_y (c'_p(x, y) + eps)``
    (the pseudoflow is eps-optimal). A row without arcs: NO_PERFECT."""
    v = cuda.grid(1)
    if v >= 2 * n:
        return
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


@cuda.jit
def refine_sweep_kernel(indptr, indices, cost, cptr, crow, ccost, n, eps, price, exc, col4row, ctl, stamp,
                        max_ops, floor, double, gap):
    """One sweep of Algorithm 5.4: every active node does up to ``max_ops`` push (and relabel) operations
    (line 2's loop); a thread that found work stamps ``ctl[CTL_STAMP] = stamp``. ``double`` (variant
    "double-push"): after its push a node lowers its price to the least eps-optimal value for the residual
    arcs it now has (Algorithm 5.0's relabel formula, from the same preparation: a row to ``-(second least
    c'_p + eps)``, ``gap`` below its only arc's value if it has one; a column left with one sender to
    ``-(that sender's c'_p + eps)``): Goldberg-Kennedy's double-push prices, which the paper's version
    reaches only through many eps-steps."""
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    pushes = int64(0)
    relabels = int64(0)
    bad = 0
    for v in range(start, 2 * n, stride):
        e = exc[v]
        if e <= 0:
            continue
        ctl[CTL_STAMP] = stamp
        ops = 0
        while e > 0 and ops < max_ops:
            if v < n:
                w, m1, m2 = row_best_dev(v, n, indptr, indices, cost, price)
                if w < 0:
                    bad = NO_PERFECT
                    break
                if m2 == BIG:
                    m2 = m1 + gap  # a single arc: any price keeps eps-optimality; a large drop ends the fight
            else:
                w, m1, m2 = col_best_dev(v - n, cptr, crow, ccost, price, col4row)
                if w < 0:
                    break  # its inflow is not visible yet: the next sweep
            r, low = relabel_dev(v, m1, eps, price, floor)
            relabels += r
            if low:
                bad = BUDGET
                break
            if v < n:
                e = push_dev(v, w + n, v, int32(w), col4row, exc)  # row v sends its unit to column w
            else:
                e = push_dev(v, w, w, int32(-1), col4row, exc)  # column v - n returns row w's unit
            if double != 0 and (v < n or e == 0) and m2 < BIG:
                q = -(m2 + eps)
                if q < price[v]:
                    price[v] = q
                    if q < -floor:
                        bad = BUDGET
                        break
            pushes += 1
            ops += 1
    if pushes > 0:
        cuda.atomic.add(ctl, CTL_PUSHES, pushes)
        cuda.atomic.add(ctl, CTL_RELABELS, relabels)
    if bad != 0:
        cuda.atomic.max(ctl, CTL_STATUS, bad)
