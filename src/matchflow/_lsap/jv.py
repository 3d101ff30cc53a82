"""The Jonker-Volgenant (1987) kernels both linear-assignment families run (Numba CPU): the dense family's JV
(:mod:`matchflow.assignment._cpu_jv`), its auction's repair and the GPU Hungarian's float repair, and every item of
the batched JV (:mod:`matchflow.batch._cpu_jv`).

Jonker & Volgenant, "A shortest augmenting path algorithm for dense and sparse linear assignment problems",
Computing 38 (1987). Phases, with the paper's names:

* *column reduction*: ``v[j] = min_i c[i, j]``; each column is given to its minimising row
  unless that row already has one (scanned from the last column, as in the paper);
* *reduction transfer*: a row assigned once moves its slack to its column's price,
  ``v[j1] -= min_{j != j1} (c[i, j] - v[j])``;
* *augmenting row reduction* (two passes): a free row takes its cheapest column, lowering
  that column's price to the second-cheapest reduced cost and evicting the owner;
* *augmentation*: Dijkstra-like shortest augmenting path from each remaining free row over
  reduced costs ``c[i, j] - v[j]`` (the row duals are implicit), with the SCAN/TODO column
  lists of the paper, then a price update of the scanned columns.

Kernels run in int64 for integer matrices and float64 for floats (one compiled specialisation each). Row duals
are ``u[i] = c[i, x[i]] - v[x[i]]``.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["reduction_kernel", "arr_kernel", "augment_kernel", "row_duals_kernel"]


@numba.njit(cache=True, inline="always")
def least_other_dev(C, i, v, j0):
    """Row i's least reduced cost ``C[i, j] - v[j]`` over the columns ``j != j0`` (n > 1; with one column,
    ``C[i, 0] - v[0]``)."""
    n = C.shape[0]
    first = True
    best = C[i, 0] - v[0]
    for j in range(n):
        if j != j0:
            h = C[i, j] - v[j]
            if first or h < best:
                best = h
                first = False
    return best


@numba.njit(cache=True, inline="always")
def two_least(C, i, w, minus):
    """Row i's least and second-least ``C[i, j] - w[j]`` (``minus``) or ``C[i, j] + w[j]`` and their columns:
    ``(u1, j1, u2, j2)``, first column on ties; ``j2 = -1`` with one column."""
    u1 = C[i, 0] - w[0] if minus else C[i, 0] + w[0]
    j1 = np.int64(0)  # a literal 0 would be its type on typing's first pass: a callee compiled for it once more
    u2 = u1
    j2 = -1
    for j in range(1, C.shape[1]):
        h = C[i, j] - w[j] if minus else C[i, j] + w[j]
        if j2 < 0 or h < u2:
            if h >= u1:
                u2 = h
                j2 = j
            else:
                u2 = u1
                j2 = j1
                u1 = h
                j1 = j
    return u1, j1, u2, j2


@numba.njit(cache=True)
def reduction_kernel(C, x, y, v, free):
    """Column reduction and reduction transfer. Returns the number of free rows in ``free``."""
    n = C.shape[0]
    # column minima, scanning row by row (cache friendly); ties keep the first row
    for j in range(n):
        v[j] = C[0, j]
        y[j] = 0
    for i in range(1, n):
        for j in range(n):
            if C[i, j] < v[j]:
                v[j] = C[i, j]
                y[j] = i
    unique = np.ones(n, dtype=np.bool_)
    for i in range(n):
        x[i] = -1
    for j in range(n - 1, -1, -1):
        i = y[j]
        if x[i] < 0:
            x[i] = j
        else:
            unique[i] = False
            y[j] = -1
    nfree = 0
    for i in range(n):
        if x[i] < 0:
            free[nfree] = i
            nfree += 1
        elif unique[i] and n > 1:
            j1 = x[i]
            v[j1] -= least_other_dev(C, i, v, j1)
    return nfree


@numba.njit(cache=True)
def arr_kernel(C, x, y, v, free, nfree, max_steps):
    """One augmenting row reduction pass over ``free[:nfree]``; returns the new free count. Rectangular
    ``C`` (rows <= columns) too, started from ``v = 0``: a lowered column stays assigned, so unassigned columns
    keep ``v = 0`` (the batch solver's rectangular start)."""
    k = 0
    prv = nfree
    nfree = 0
    steps = 0
    while k < prv:
        steps += 1
        if steps > max_steps:
            # keep the unprocessed rows free (numfree <= k, so copying forward is safe)
            while k < prv:
                free[nfree] = free[k]
                nfree += 1
                k += 1
            break
        i = free[k]
        k += 1
        u1, j1, u2, j2 = two_least(C, i, v, True)
        i0 = y[j1]
        lowers = u1 < u2
        if lowers:
            v[j1] -= u2 - u1
        elif i0 >= 0:
            j1 = j2
            i0 = y[j2]
        x[i] = j1
        y[j1] = i
        if i0 >= 0:
            x[i0] = -1
            if lowers:
                k -= 1
                free[k] = i0
            else:
                free[nfree] = i0
                nfree += 1
    return nfree


@numba.njit(cache=True)
def augment_kernel(C, x, y, v, free, nfree, stats):
    """Shortest augmenting path from each row of ``free[:nfree]`` (JV augmentation phase).

    Precondition: every assigned row sits on a column of minimum reduced cost
    ``c[i, j] - v[j]``. ``stats`` (int64[3]) accumulates augmentations, scanned
    columns and minimum searches (dual updates). Returns 0, or -1 if a row had no
    path (impossible on a finite complete matrix). Rectangular ``C`` (rows <= columns, free rows only) and
    ``+inf`` entries (a forbidden pair: a row whose every path is forbidden returns -1) are solved as well.
    """
    n = C.shape[1]
    d = np.empty(n, dtype=C.dtype)
    pred = np.empty(n, dtype=np.int64)
    collist = np.empty(n, dtype=np.uint32)  # unsigned: no negative-index wraparound in the hot loops
    for f in range(nfree):
        fr = free[f]
        for j in range(n):
            d[j] = C[fr, j] - v[j]
            pred[j] = fr
            collist[j] = np.uint32(j)
        low = 0
        up = 0
        last = 0
        minv = d[0]
        endofpath = -1
        while endofpath < 0:
            if up == low:
                if low == n:
                    return -1
                # next set of columns at minimum distance: collist[low:up]
                last = low
                minv = d[collist[up]]
                for k in range(up, n):
                    j = collist[k]
                    h = d[j]
                    if h <= minv:
                        if h < minv:
                            up = low
                            minv = h
                        collist[k] = collist[up]
                        collist[up] = j
                        up += 1
                stats[2] += 1
                if minv - minv != 0:  # +inf: every remaining column is forbidden (never for integers)
                    return -1
                for k in range(low, up):
                    if y[collist[k]] < 0:
                        endofpath = np.int64(collist[k])
                        break
                if endofpath >= 0:
                    break
            j1 = collist[low]
            low += 1
            stats[1] += 1
            i = y[j1]
            u1 = C[i, j1] - v[j1] - minv
            for k in range(up, n):
                j = collist[k]
                h = C[i, j] - v[j] - u1
                if h < d[j]:
                    d[j] = h
                    pred[j] = i
                    if h == minv:
                        if y[j] < 0:
                            endofpath = np.int64(j)
                            break
                        collist[k] = collist[up]
                        collist[up] = j
                        up += 1
        # price update of the columns scanned before the last minimum search
        for k in range(last):
            j = collist[k]
            v[j] += d[j] - minv
        # augment along the predecessors
        j = endofpath
        while True:
            i = pred[j]
            y[j] = i
            k = j
            j = x[i]
            x[i] = k
            if i == fr:
                break
        stats[0] += 1
    return 0


@numba.njit(cache=True)
def row_duals_kernel(C, x, v, u):
    for i in range(C.shape[0]):
        u[i] = C[i, x[i]] - v[x[i]]
