"""Batched Jonker-Volgenant on the CPU: a Numba ``prange`` over the items, each solved by the JV kernels
both assignment families share (:mod:`matchflow._lsap.jv`: column reduction, augmenting row reduction, shortest
augmenting paths; none copied here).

Each item is loaded once into a C-contiguous work matrix ``W = sign * C`` (``sign = -1`` when maximising) with
at most as many rows as columns (a tall item is transposed). A square item without forbidden entries runs the
whole JV; a rectangular one starts from ``v = 0`` with every row free (augmenting row reduction, then the
shortest augmenting paths of JV's augmentation, which keep ``v <= 0`` and ``v = 0`` on unassigned columns:
the rectangular duals). An item with a ``+inf`` (forbidden) entry runs the augmentation alone, which reports an
item with no path avoiding them (status 1). NaN, or ``-inf`` when minimising (``+inf`` when maximising): status
2. Integers are solved exactly in int64 while ``max |C| * 32 * (max(n, m) + 2) <= 2**62`` (every value the
kernels form fits, see :mod:`matchflow.assignment._prepare`); wider integers and floats near the overflow
threshold are solved item by item by :func:`matchflow.assignment.assignment` (exact big integers, power-of-two
scaling).
"""

from __future__ import annotations

import numba
import numpy as np

from .._lsap.jv import arr_kernel, augment_kernel, reduction_kernel, row_duals_kernel
from .._lsap.problem import InfeasibleError
from ..assignment import assignment

__all__ = ["solve_jv", "OK", "INFEASIBLE", "INVALID"]

OK, INFEASIBLE, INVALID, _WIDE = 0, 1, 2, 3
_INT_SAFE = 2.0**62
_FLOAT_SAFE = 2.0**900


@numba.njit(cache=True)
def _load_kernel(vals, off, ld, n, m, sign, W):
    """``W = sign * item`` (transposed when ``n > m``). Returns (status, has forbidden entries, max |finite|)."""
    tall = n > m
    forbidden = False
    big = 0.0
    for i in range(n):
        base = off + i * ld
        for j in range(m):
            t = sign * vals[base + j]
            if t != t:
                return INVALID, forbidden, big
            if t - t != 0:
                if t < 0:
                    return INVALID, forbidden, big
                forbidden = True
            else:
                a = abs(np.float64(t))
                if a > big:
                    big = a
            if tall:
                W[j, i] = t
            else:
                W[i, j] = t
    return OK, forbidden, big


@numba.njit(cache=True)
def _jv_kernel(W, forbidden, arr_passes, x, u, v):
    """JV on ``W`` (rows <= columns): the shared kernels. Returns OK or INFEASIBLE."""
    r, c = W.shape
    y = np.full(c, -1, dtype=np.int64)
    x[:] = -1
    v[:] = 0
    free = np.empty(c, dtype=np.int64)
    if r == c and not forbidden:
        nfree = reduction_kernel(W, x, y, v, free)
    else:
        for i in range(r):
            free[i] = i
        nfree = r
    if not forbidden and c >= 2:
        for _ in range(arr_passes):
            if nfree == 0:
                break
            nfree = arr_kernel(W, x, y, v, free, nfree, 8 * c + 64)
    st = np.zeros(3, dtype=np.int64)
    if augment_kernel(W, x, y, v, free, nfree, st) != 0:
        return INFEASIBLE
    row_duals_kernel(W, x, v, u)
    return OK


@numba.njit(cache=True)
def _item_kernel(vals, off, ld, n, m, sign, limit, arr_passes, col4row, u, v):
    """One item into its slices of the answer (user orientation: ``u + v <= C``, ``>=`` when maximising)."""
    col4row[:] = -1
    u[:] = 0
    v[:] = 0
    if n == 0 or m == 0:
        return OK
    r, c = min(n, m), max(n, m)
    W = np.empty((r, c), dtype=vals.dtype)
    code, forbidden, big = _load_kernel(vals, off, ld, n, m, sign, W)
    if code != OK:
        return code
    if big > limit / (c + 2):
        return _WIDE
    x = np.empty(r, dtype=np.int64)
    uw = np.empty(r, dtype=vals.dtype)
    vw = np.empty(c, dtype=vals.dtype)
    code = _jv_kernel(W, forbidden, arr_passes, x, uw, vw)
    if code != OK:
        return code
    if n <= m:
        for i in range(n):
            col4row[i] = x[i]
            u[i] = sign * uw[i]
        for j in range(m):
            v[j] = sign * vw[j]
    else:
        for j in range(m):
            col4row[x[j]] = j
            v[j] = sign * uw[j]
        for i in range(n):
            u[i] = sign * vw[i]
    return OK


@numba.njit(cache=True, parallel=True)
def _batch_kernel(vals, offs, ld, rows, cols, sign, limit, arr_passes, out_rows, out_cols, col4row, u, v, status):
    """Every item on the Numba threads (the caller sets dynamic chunks: ragged sizes balance)."""
    for b in numba.prange(offs.size):
        r0, r1, c0, c1 = out_rows[b], out_rows[b + 1], out_cols[b], out_cols[b + 1]
        status[b] = _item_kernel(vals, offs[b], ld[b], rows[b], cols[b], sign, limit, arr_passes, col4row[r0:r1],
                                 u[r0:r1], v[c0:c1])


def solve_jv(problem, arr_passes: int = 2):
    """Solve every item of the host :class:`._prepare.BatchProblem`; returns ``(col4row, u, v, status)``."""
    p = problem
    vals = p.vals
    dt = vals.dtype
    B = p.batch
    col4row = np.empty(int(p.out_rows[-1]), dtype=np.int64)
    u = np.empty(int(p.out_rows[-1]), dtype=dt)
    v = np.empty(int(p.out_cols[-1]), dtype=dt)
    status = np.zeros(B, dtype=np.int8)
    if B:
        sign = dt.type(-1 if p.maximize else 1)
        chunk = max(1, B // (8 * numba.get_num_threads()))
        limit = _INT_SAFE / 32.0 if dt.kind == "i" else _FLOAT_SAFE / 64.0
        old = numba.set_parallel_chunksize(chunk)
        try:
            _batch_kernel(vals, p.offs, p.ld, p.rows, p.cols, sign, limit, int(arr_passes), p.out_rows, p.out_cols,
                          col4row, u, v, status)
        finally:
            numba.set_parallel_chunksize(old)
    wide = np.flatnonzero(status == _WIDE)
    if wide.size:
        u, v = resolve_items(p, wide, col4row, u, v, status)
    return col4row, u, v, status


def resolve_items(p, items, col4row, u, v, status):
    """Solve ``items`` one by one with :func:`matchflow.assignment.assignment` (exact big integers, power-of-two
    scaling, the exact float re-solve) into the answer arrays; returns ``(u, v)`` (object arrays when an integer
    dual does not fit int64)."""
    sign = -1 if p.maximize else 1
    for b in (int(t) for t in items):
        r0, r1, c0, c1 = (int(p.out_rows[b]), int(p.out_rows[b + 1]), int(p.out_cols[b]), int(p.out_cols[b + 1]))
        try:
            res = assignment(p.item(b), maximize=p.maximize, backend="cpu")
        except InfeasibleError:
            status[b] = INFEASIBLE
            continue
        except ValueError:
            status[b] = INVALID
            continue
        col4row[r0:r1] = -1
        col4row[r0 + res.row_ind] = res.col_ind
        uu, vv = [sign * t for t in res.u.tolist()], [sign * t for t in res.v.tolist()]
        if u.dtype.kind == "i" and any(abs(t) >= 2**63 for t in uu + vv):
            u, v = u.astype(object), v.astype(object)
        u[r0:r1], v[c0:c1] = uu, vv
        status[b] = OK
    return u, v
