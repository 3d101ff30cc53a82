"""Certificates of batched assignments: every item checked by LP duality, on the Numba threads.

Per item (the dense family's certificate, :mod:`matchflow.assignment._verify`, item by item, through the
kernels both share, :mod:`matchflow._lsap.reduced`): the answer is a
valid assignment of the smaller side through allowed (finite) entries, and the duals ``u``, ``v`` of the
minimisation problem on ``Cm = C`` (``-C`` when maximising) prove it optimal:

* integers: exactly, in int64 while every entry and dual is below ``2**61`` in magnitude (no sum can overflow);
  wider items (or object duals) in Python integers (:func:`matchflow._lsap.reduced.exact_optimality`), and
  integer items with non-integral duals by the float bound below;
* floats: the dense family's rigorous gap bound, its row pass (``float_bound_dense_serial``) run on each item:
  ``cost - optimum <= gap_bound`` in exact real arithmetic, proved optimal when ``gap_bound <= tol`` (the
  rounding of the entries and duals the answer uses, never the largest entry of the batch). Sums of the
  bound's non-negative terms are rounded up by the proven factor ``1 + (2k + 2) 2**-53`` of a k-term float sum;
  an infinite or NaN bound or tolerance proves nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numba
import numpy as np

from .._lsap.reduced import exact_optimality, float_bound_dense_serial, min_reduced_kernel
from ._prepare import prepare

__all__ = ["verify_batch_assignment", "BatchCertificate", "certify_batch", "flat_answer"]

PROVED, FAILED, UNKNOWN = 0, 1, 2
_LIM = 2**61
_U = 2.0**-53


@numba.njit(cache=True)
def _valid_kernel(C, x, used):
    """``x`` (the item's col4row) is a valid assignment of the smaller side through finite entries."""
    n, m = C.shape
    used[:] = False
    k = 0
    for i in range(n):
        j = x[i]
        if j == -1:
            continue
        if j < 0 or j >= m or used[j]:
            return False
        c = C[i, j]
        if c - c != 0:
            return False
        used[j] = True
        k += 1
    return k == min(n, m)


@numba.njit(cache=True)
def _item_view(vals, off, ld, n, m):
    return vals[off:off + n * ld].reshape((n, ld))[:, :m]


@numba.njit(cache=True)
def _int_item(C, sign, x, u, v, used):
    """Exact check of one integer item (int64; every magnitude < 2**61). PROVED, FAILED or UNKNOWN."""
    n, m = C.shape
    for i in range(n):
        if abs(u[i]) >= _LIM:
            return UNKNOWN
        for j in range(m):
            if abs(C[i, j]) >= _LIM:
                return UNKNOWN
    for j in range(m):
        if abs(v[j]) >= _LIM:
            return UNKNOWN
    if not _valid_kernel(C, x, used):
        return FAILED
    if n and m and min_reduced_kernel(C, sign, u, v)[0] < 0:
        return FAILED
    for i in range(n):
        if x[i] >= 0 and sign * C[i, x[i]] - u[i] - v[x[i]] != 0:
            return FAILED
    if n < m:
        for j in range(m):
            if v[j] > 0 or (not used[j] and v[j] != 0):
                return FAILED
    elif n > m:
        for i in range(n):
            if u[i] > 0 or (x[i] < 0 and u[i] != 0):
                return FAILED
    return PROVED


@numba.njit(cache=True)
def _up_sum(s, k):
    """An upper bound of a k-term float sum ``s`` of non-negative terms (its proven factor)."""
    return s * (1.0 + (2 * k + 2) * _U)


@numba.njit(cache=True)
def _float_item(C, sign, x, u, v, used, delta, slack, err, err_c, row_lb, row_j):
    """(verdict, gap_bound, tol) of one float item: the dense family's bound (module docstring). The row
    arrays are the item's slices of the batch's work arrays (``err_c`` zeroed by the caller): nothing is
    allocated here beyond the row pass's ``|v|``."""
    n, m = C.shape
    if not _valid_kernel(C, x, used):
        return FAILED, np.inf, 0.0
    for i in range(n):
        if u[i] - u[i] != 0:
            return FAILED, np.inf, 0.0
    for j in range(m):
        if v[j] - v[j] != 0:
            return FAILED, np.inf, 0.0
    float_bound_dense_serial(C, sign, x, u, v, delta, slack, err, err_c, row_lb, row_j)
    s_slack, k_slack, s_err, s_rows = 0.0, np.int64(0), 0.0, 0.0  # int64, not a literal 0: one _up_sum
    for i in range(n):
        if x[i] >= 0:
            s_slack += max(slack[i], 0.0)
            s_err += err[i]
            k_slack += 1
        if n > m:  # rows are the "<= 1" side: u' = min(u - delta, 0)
            s_rows += max(delta[i], u[i]) if x[i] >= 0 else max(delta[i] - u[i], 0.0)
        else:
            s_rows += delta[i]
    gap = _up_sum(s_slack, k_slack) + _up_sum(s_rows, n)
    if n < m:  # columns are the "<= 1" side: v' = min(v, 0)
        s_cols = 0.0
        for j in range(m):
            s_cols += max(v[j], 0.0) if used[j] else max(-v[j], 0.0)
        gap += _up_sum(s_cols, m)
    gap *= 1.0 + 4 * _U
    tol = (max(n, m) + 4) * _up_sum(s_err, k_slack) + (n + m + 8) * 2.0**-1068
    ok = gap <= tol and gap - gap == 0 and tol - tol == 0
    return (PROVED if ok else FAILED), gap, tol


@numba.njit(cache=True, parallel=True)
def _certify_int_kernel(vals, offs, ld, rows, cols, sign, out_rows, out_cols, col4row, u, v, used, verdict):
    """Every integer item's exact certificate on the Numba threads (``u``, ``v``: minimisation duals; ``used``:
    one flag per column of the batch, the items' slices)."""
    for b in numba.prange(offs.size):
        r0, r1, c0, c1 = out_rows[b], out_rows[b + 1], out_cols[b], out_cols[b + 1]
        C = _item_view(vals, offs[b], ld[b], rows[b], cols[b])
        verdict[b] = _int_item(C, sign, col4row[r0:r1], u[r0:r1], v[c0:c1], used[c0:c1])


@numba.njit(cache=True, parallel=True)
def _certify_float_kernel(vals, offs, ld, rows, cols, sign, out_rows, out_cols, col4row, u, v, used, work, row_j,
                          verdict, gap, tol):
    """Every float item's gap bound on the Numba threads (``u``, ``v``: minimisation duals; ``used``, the five
    rows of ``work`` and ``row_j``: the batch's work arrays, sliced per item)."""
    for b in numba.prange(offs.size):
        r0, r1, c0, c1 = out_rows[b], out_rows[b + 1], out_cols[b], out_cols[b + 1]
        C = _item_view(vals, offs[b], ld[b], rows[b], cols[b])
        verdict[b], gap[b], tol[b] = _float_item(C, sign, col4row[r0:r1], u[r0:r1], v[c0:c1], used[c0:c1],
                                                 work[0, r0:r1], work[1, r0:r1], work[2, r0:r1], work[3, r0:r1],
                                                 work[4, r0:r1], row_j[r0:r1])


def certify_batch(p, col4row: np.ndarray, u: np.ndarray, v: np.ndarray):
    """``(verdict, gap_bound, tol)`` per item of the host problem ``p`` (verdict PROVED or FAILED; ``u``, ``v``
    the minimisation duals, flat as the solvers return them). Integer items the int64 check cannot take are
    certified exactly in Python integers."""
    B = p.batch
    verdict = np.zeros(B, dtype=np.int8)
    gap, tol = np.zeros(B), np.zeros(B)
    x = np.ascontiguousarray(col4row, dtype=np.int64)
    if B == 0:
        return verdict, gap, tol
    args = (p.vals, p.offs, p.ld, p.rows, p.cols)
    R, used = int(p.out_rows[-1]), np.zeros(int(p.out_cols[-1]), dtype=np.bool_)
    if p.is_int and u.dtype.kind == "i" and v.dtype.kind == "i":
        _certify_int_kernel(*args, np.int64(-1 if p.maximize else 1), p.out_rows, p.out_cols, x, u, v, used, verdict)
    elif p.is_int:
        verdict[:] = UNKNOWN
    else:
        with np.errstate(all="ignore"):
            uf, vf = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
        _certify_float_kernel(*args, -1.0 if p.maximize else 1.0, p.out_rows, p.out_cols, x, uf, vf, used,
                              np.zeros((5, R)), np.empty(R, dtype=np.int64), verdict, gap, tol)
    for b in np.flatnonzero(verdict == UNKNOWN).tolist():
        r0, r1, c0, c1 = p.out_rows[b], p.out_rows[b + 1], p.out_cols[b], p.out_cols[b + 1]
        verdict[b], gap[b], tol[b] = _wide_item(p.item(b), -1 if p.maximize else 1, x[r0:r1], u[r0:r1], v[c0:c1])
    return verdict, gap, tol


def _integral(a: np.ndarray) -> bool:
    return a.dtype.kind in "iu" or (a.dtype == object and all(isinstance(t, (int, np.integer)) for t in a.tolist()))


def _wide_item(C: np.ndarray, sign: int, x: np.ndarray, u: np.ndarray, v: np.ndarray) -> tuple:
    """(verdict, gap_bound, tol) of an integer item the int64 check cannot take: exact in Python integers for
    integral duals, else the float bound on the item as float64."""
    n, m = C.shape
    used = np.zeros(m, dtype=np.bool_)
    if not _valid_kernel(C, x, used):
        return FAILED, np.inf, 0.0
    if _integral(u) and _integral(v):
        r = np.flatnonzero(x >= 0)
        return (FAILED if exact_optimality(C, sign, r, x[r], u, v).problems else PROVED), 0.0, 0.0
    try:
        uf, vf = u.astype(np.float64), v.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        return FAILED, np.inf, 0.0
    work = np.zeros((5, n))
    return _float_item(np.asarray(C, dtype=np.float64), float(sign), x, uf, vf, used, *work,
                       np.empty(n, dtype=np.int64))


@dataclass
class BatchCertificate:
    """Outcome of :func:`verify_batch_assignment`: per item, ``optimal`` (proved), ``gap_bound`` (floats:
    ``cost - optimum <= gap_bound``; 0 for proved integers) and ``tol``; ``problems`` names the failed items."""

    optimal: np.ndarray
    gap_bound: np.ndarray
    tol: np.ndarray
    problems: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.optimal.all())


def flat_answer(p, x, what: str) -> np.ndarray:
    """The door's per-item answer (``(B, N)`` rows / ``(B, M)`` columns, or a list) as the flat contract array."""
    sizes = p.rows if what != "v" else p.cols
    if isinstance(x, (list, tuple)):
        if len(x) != p.batch:
            raise ValueError(f"{what} must hold {p.batch} items, got {len(x)}")
        parts = [np.asarray(t).reshape(-1) for t in x]
    else:
        a = np.asarray(x.get() if hasattr(x, "get") else x.cpu() if hasattr(x, "cpu") else x)
        if a.ndim != 2 or a.shape[0] != p.batch:
            raise ValueError(f"{what} must have shape ({p.batch}, k), got {a.shape}")
        parts = [a[b] for b in range(p.batch)]
    for b, (t, s) in enumerate(zip(parts, sizes.tolist())):
        if t.shape[0] < s:
            raise ValueError(f"{what}[{b}] holds {t.shape[0]} entries, item {b} needs {s}")
    out = [t[:s] for t, s in zip(parts, sizes.tolist())]
    return np.concatenate(out) if out else np.zeros(0)


def verify_batch_assignment(costs, col4row, u, v, *, shapes=None, maximize: bool = False,
                            raise_on_error: bool = True) -> BatchCertificate:
    """Check every item of a batched assignment by LP duality (module docstring: exact for integers, the dense
    family's rigorous float bound).

    ``costs`` and ``shapes`` as given to :func:`matchflow.batch_linear_sum_assignment`; ``col4row``, ``u``,
    ``v`` as it returns them (``return_duals=True``: the duals of the minimisation problem on each item, on
    ``-C`` when ``maximize``). Raises ``ValueError`` naming the first failed item when ``raise_on_error``.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import batch_linear_sum_assignment
    >>> from matchflow.verify import verify_batch_assignment
    >>> C = np.array([[[4, 1], [2, 0]], [[1, 2], [3, 5]]])
    >>> x, u, v = batch_linear_sum_assignment(C, return_duals=True)
    >>> bool(verify_batch_assignment(C, x, u, v))
    True
    >>> y = x.copy(); y[1] = y[1][::-1]  # item 1 tampered
    >>> cert = verify_batch_assignment(C, y, u, v, raise_on_error=False)
    >>> cert.optimal.tolist(), cert.problems
    ([True, False], ['item 1: the assignment is not proved optimal by the duals'])

    References
    ----------
    .. [1] R. E. Burkard, M. Dell'Amico, S. Martello, "Assignment Problems", SIAM (2009), Section 4.1 (the
       dual of the linear assignment problem).
    """
    p = prepare(costs, shapes, bool(maximize)).on_host()
    x = flat_answer(p, col4row, "col4row").astype(np.int64)
    uf, vf = flat_answer(p, u, "u"), flat_answer(p, v, "v")
    if p.is_int and (uf.dtype.kind not in "iu" or vf.dtype.kind not in "iu") and uf.dtype != object:
        uf, vf = uf.astype(np.float64), vf.astype(np.float64)
        p = replace(p, vals=p.vals.astype(np.float64))
    verdict, gap, tol = certify_batch(p, x, uf, vf)
    bad = np.flatnonzero(verdict != PROVED).tolist()
    problems = [f"item {b}: the assignment is not proved optimal by the duals" for b in bad]
    if raise_on_error and problems:
        raise ValueError("batched assignment certificate failed: " + problems[0])
    return BatchCertificate(optimal=verdict == PROVED, gap_bound=gap, tol=tol, problems=problems)
