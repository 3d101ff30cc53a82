"""The rigorous float gap bound that both assignment certificates form (the dense one, :mod:`._verify`, and the
sparse one, :mod:`._verify_sparse`): every reduced cost with its rounding bound, the row passes (on the host
the kernels of :mod:`matchflow._lsap.reduced`, shared with the batched certificate, run by :func:`host_rows`;
``_gpu_verify.device_rows`` on the device), the bound summed upward, and the entries' granularity. The guarantee
is stated in :mod:`._verify`'s docstring.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .._lsap.reduced import ERR_ABS as _ERR_ABS  # noqa: F401 - read here by _gpu_verify_kernels (a GPU file)
from .._lsap.reduced import ERR_REL as _ERR_REL  # noqa: F401 - read here by _gpu_verify_kernels (a GPU file)
from .._lsap.reduced import (
    float_bound_csr_parallel,
    float_bound_csr_serial,
    float_bound_dense_parallel,
    float_bound_dense_serial,
)
from ._prepare import granularity_exponent_kernel

__all__ = ["float_gap_bound", "granularity", "host_rows", "PARALLEL_ENTRIES"]

PARALLEL_ENTRIES = 1 << 20  # the certificate's row pass runs on the Numba threads from this many entries


def host_rows(a):
    """The bound's row pass over the host matrix ``a`` (dense float32/float64, or scipy.sparse: stored entries
    only), as ``rows(sign, col_of_row, u, v) -> (delta, slack_up, err_used, err_entries, row_lb, row_j)``
    (serial below :data:`PARALLEL_ENTRIES` entries, else on the Numba threads); ``_gpu_verify.device_rows`` is its
    device twin."""
    if sp.issparse(a):
        a = sp.csr_array(a)
        indptr, indices = a.indptr.astype(np.int64), a.indices.astype(np.int64)
        data = np.asarray(a.data, dtype=np.float64)
        size = data.size
    else:
        # float32 stays float32 (the kernel widens each entry exactly): no n^2 copy
        C = np.ascontiguousarray(a if a.dtype in (np.float32, np.float64) else a.astype(np.float64))
        size = C.size

    def rows(sign: float, col_of_row: np.ndarray, u: np.ndarray, v: np.ndarray) -> tuple:
        nr = col_of_row.size
        delta, slack_up, err_used, err_entries, row_lb = (np.zeros(nr) for _ in range(5))
        row_j = np.empty(nr, dtype=np.int64)
        par = size >= PARALLEL_ENTRIES
        out = (delta, slack_up, err_used, err_entries, row_lb, row_j)
        if sp.issparse(a):
            (float_bound_csr_parallel if par else float_bound_csr_serial)(indptr, indices, data, sign, col_of_row,
                                                                            u, v, *out)
        else:
            (float_bound_dense_parallel if par else float_bound_dense_serial)(C, sign, col_of_row, u, v, *out)
        return out

    return rows


def _least_row(row_lb: np.ndarray, row_j: np.ndarray) -> tuple:
    """(min lower bound, its i, its j) over the rows with an allowed entry; the first least row."""
    ok = np.flatnonzero(row_j >= 0)
    if not ok.size:
        return np.inf, -1, -1
    i = int(ok[np.argmin(row_lb[ok])])  # the first least one, as the serial scan
    return float(row_lb[i]), i, int(row_j[i])


def _up(t: float) -> float:
    return float(np.nextafter(t, np.inf)) if t > 0 else 0.0


def _ups(t: np.ndarray) -> list:
    """Each non-negative float rounded up by one ulp (covers the rounding that produced it)."""
    return np.where(t > 0, np.nextafter(t, np.inf), 0.0).tolist()


def _sum_up(terms: list) -> float:
    """An upper bound of a sum of non-negative floats (inf on overflow)."""
    try:
        return _up(math.fsum(terms))
    except OverflowError:
        return math.inf


def float_gap_bound(a: np.ndarray, sign: int, r: np.ndarray, c: np.ndarray, u: np.ndarray, v: np.ndarray,
                    rows=None):
    """Rigorous bound on ``cost - optimum`` from float duals (module docstring); ``a`` dense, or scipy.sparse
    (its stored entries are the allowed pairs). ``rows``: the row pass (default :func:`host_rows` of ``a``;
    ``_gpu_verify.device_rows`` over a device copy of the same values); the bound is formed here either way.

    Returns ``(gap_bound, tol, min_lower_reduced_cost, (i, j), max_assigned_slack_up, parts)``;
    ``parts`` names the contributions (dual infeasibility, assigned slack, sign terms).
    Sound whenever every sum below stays finite (an infinite bound simply fails)."""
    nr, nc = a.shape
    col_of_row = np.full(nr, -1, dtype=np.int64)
    col_of_row[r] = c
    rows = host_rows(a) if rows is None else rows
    with np.errstate(all="ignore"):
        delta, slack, err, err_c, row_lb, row_j = rows(float(sign), col_of_row, np.asarray(u, dtype=np.float64),
                                                       np.asarray(v, dtype=np.float64))
    mlb, mi, mj = _least_row(row_lb, row_j)
    row_used = col_of_row >= 0
    col_used = np.zeros(nc, dtype=bool)
    col_used[c] = True
    terms_slack = _ups(np.maximum(slack[row_used], 0.0))
    terms_delta = _ups(delta)
    terms_sign: list = []
    with np.errstate(all="ignore"):
        if nr > nc:  # rows are the "<= 1" side: u' = min(u - delta, 0) (delta counted here)
            terms_delta = []
            terms_sign = _ups(np.where(row_used, np.maximum(delta, u), np.maximum(delta - u, 0.0)))
        if nr < nc:  # columns are the "<= 1" side: v' = min(v, 0)
            terms_sign = _ups(np.where(col_used, np.maximum(v, 0.0), np.maximum(-v, 0.0)))
    parts = {"dual_infeasibility": _sum_up(terms_delta), "assigned_slack": _sum_up(terms_slack),
             "sign_conditions": _sum_up(terms_sign)}
    gap = _sum_up(list(parts.values()))
    # + a few subnormal ulps per term for the upward roundings of the sums above
    tol = _up((max(nr, nc) + 4) * _sum_up(err[row_used].tolist()) + (nr + nc + 8) * 2.0**-1068)
    max_slack = float(slack[row_used].max()) if row_used.any() else 0.0
    # the stricter tolerance of the assigned entries alone (no dual magnitudes): assignment() asks
    # a second solver when an answer only passes thanks to large duals
    parts["tol_entries"] = _up((max(nr, nc) + 4) * _sum_up(err_c[row_used].tolist()) + (nr + nc + 8) * 2.0**-1068)
    return gap, tol, (float(mlb) if mi >= 0 else None), (int(mi), int(mj)), max_slack, parts


def granularity(a: np.ndarray) -> float:
    """The largest power of two ``g`` dividing every finite entry (``inf`` when all are 0).

    Every assignment total is a multiple of ``g``, so two totals differ by 0 or by at least
    ``g``: a rigorous ``cost - optimum <= gap_bound < g`` proves ``cost == optimum`` exactly."""
    k = granularity_exponent_kernel(a.data if sp.issparse(a) else np.asarray(a))  # one pass over the bit patterns
    return math.inf if k == 1 << 30 else math.ldexp(1.0, k)
