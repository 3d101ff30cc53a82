"""Exact arithmetic on weights for weighted matching: duplicates summed exactly, sums rounded once (or
rounded up, for a bound), an order-preserving int64 twin of uint64 weights (for the GPU keys)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["sum_duplicates", "exact_sum", "sum_up", "int64_ranks", "matched_weights_kernel",
           "matched_weights_serial_kernel"]

_LO = np.int64(0xFFFFFFFF)


def _int_group_sums(data: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sums, fits)``: the exact sum of each group ``data[starts[g]:starts[g + 1]]`` (fewer than 2^31
    entries each) in ``data``'s dtype (int64 or uint64) and whether it fits there. Each value is split into
    32-bit halves summed in int64 (no overflow), then carried."""
    signed = data.dtype.kind == "i"
    x = data.view(np.int64)
    hi = (x >> 32) if signed else (data >> np.uint64(32)).astype(np.int64)
    lo = x & _LO
    hs, ls = np.add.reduceat(hi, starts), np.add.reduceat(lo, starts)
    hs = hs + (ls >> 32)
    fits = (hs >= -(1 << 31)) & (hs < (1 << 31)) if signed else (hs >= 0) & (hs < (1 << 32))
    sums = ((hs << 32) | (ls & _LO)).view(np.int64)  # wraps only where ``fits`` is False
    return (sums if signed else sums.view(np.uint64)), fits


def _float_group_sums(data: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The exact sum of each group rounded once (inf where it overflows): one addition is already that; groups
    of 3 or more copies by ``math.fsum``."""
    with np.errstate(over="ignore"):
        sums = np.add.reduceat(data, starts)
    size = np.diff(np.append(starts, len(data)))
    for g in np.flatnonzero(size > 2).tolist():
        try:
            sums[g] = math.fsum(data[starts[g]:starts[g] + size[g]].tolist())
        except OverflowError:
            sums[g] = math.inf
    return sums


def sum_duplicates(r: np.ndarray, c: np.ndarray, data: np.ndarray, n_cols: int, name: str
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries ``(r, c, data)`` sorted by (row, column), duplicates summed as SciPy does when it
    canonicalises, but exactly: integers (widened to int64, or uint64 kept) without overflow (a sum beyond
    the dtype raises), floats (widened to float64) rounded once (a sum beyond float64 raises)."""
    key = r.astype(np.int64) * int(n_cols) + c
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, np.int64)
    r, c, data = r[order][starts], c[order][starts], data[order]
    if len(starts) == len(key):
        return r, c, data
    if data.dtype.kind == "f":
        sums = _float_group_sums(data.astype(np.float64), starts)
        bad = np.flatnonzero(np.isinf(sums) & ~np.isinf(data[starts]))
        kind = "float64"
    else:
        data = data if data.dtype in (np.int64, np.uint64) else data.astype(np.int64)
        sums, fits = _int_group_sums(data, starts)
        bad, kind = np.flatnonzero(~fits), str(data.dtype)
    if bad.size:
        g = bad[0]
        raise ValueError(f"{name}'s duplicate entries at ({r[g]}, {c[g]}) sum beyond {kind}: summed as SciPy does, "
                         "their total is not representable")
    return r, c, sums


def exact_sum(w: np.ndarray) -> float:
    """The exact sum of the (matched) weights rounded once to float64 (inf beyond its range): integers in
    int64 where no overflow is possible, else as Python ints; floats by ``math.fsum``."""
    if w.dtype.kind in "iub":
        if len(w) == 0 or int(np.abs(w).max()) < (2**62) // len(w):
            return float(int(w.sum(dtype=np.int64)))
        return float(sum(w.tolist()))  # Python ints: exact, then one rounding (int64 sums stay far below 2^1024)
    try:
        return math.fsum(w.tolist())
    except OverflowError:  # positive terms only (matched weights): the exact sum is beyond float64
        return math.inf


def sum_up(values: np.ndarray) -> float:
    """The least float64 >= the exact sum of ``values`` (+inf beyond the range): a sound upper bound."""
    if values.dtype.kind in "iub":
        exact = sum(values.tolist())
        s = float(exact)
        return s if s >= exact else math.nextafter(s, math.inf)
    try:
        s = math.fsum(values.tolist())
        return s if math.fsum([*values.tolist(), -s]) <= 0 else math.nextafter(s, math.inf)
    except OverflowError:
        return math.inf


def int64_ranks(w: np.ndarray) -> np.ndarray:
    """int64 weights in the order of ``w`` (equal weights equal, 0 for weights <= 0, dense ranks 1, 2, ... of
    the positive ones): the same greedy matching, for a solver whose keys cannot hold uint64."""
    out = np.zeros(len(w), dtype=np.int64)
    pos = w > 0
    out[pos] = np.searchsorted(np.unique(w[pos]), w[pos]) + 1
    return out


@nb.njit(cache=True, inline="always")
def _matched_weight_dev(ptr, ind, w, mate, out, u):
    """out[u] = the weight of the matched edge {u, mate[u]} when u < mate[u] (else out[u] is left alone)."""
    m = mate[u]
    if m > u:
        for k in range(ptr[u], ptr[u + 1]):
            if ind[k] == m:
                out[u] = w[k]
                return

@nb.njit(parallel=True, cache=True)
def matched_weights_kernel(ptr, ind, w, mate, out):
    """out[u] = weight of the matched edge {u, mate[u]} for u < mate[u], else 0 (``out`` zeroed by the
    caller). No scalar reduction in the ``prange``: numba 0.68 on Python 3.12+ fails to compile one."""
    for u in nb.prange(len(ptr) - 1):
        _matched_weight_dev(ptr, ind, w, mate, out, u)

@nb.njit(cache=True)
def matched_weights_serial_kernel(ptr, ind, w, mate, out):
    """:func:`matched_weights_kernel` on the calling thread (small graphs: no parallel region to start)."""
    for u in range(len(ptr) - 1):
        _matched_weight_dev(ptr, ind, w, mate, out, u)
