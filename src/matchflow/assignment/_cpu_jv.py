"""Jonker-Volgenant (1987) shortest augmenting path for dense square LAPs (Numba CPU).

The method's policy: column reduction with reduction transfer, two augmenting row reduction passes, then the
shortest augmenting paths, and the row duals ``u[i] = c[i, x[i]] - v[x[i]]``. The kernels (the paper's phases,
described there) live in :mod:`matchflow._lsap.jv`, shared with the batched JV.

Jonker & Volgenant, "A shortest augmenting path algorithm for dense and sparse linear
assignment problems", Computing 38 (1987).
"""

from __future__ import annotations

import numpy as np

from .._lsap.jv import arr_kernel, augment_kernel, reduction_kernel, row_duals_kernel
from ._prepare import counters, square_answer

__all__ = ["solve_jv"]

_arr_kernel = arr_kernel  # the name the GPU Hungarian's float repair (_gpu_munkres, a GPU driver) imports, with
# augment_kernel, from here


def solve_jv(C: np.ndarray, arr_passes: int = 2):
    """Solve the square LAP on ``C`` (int64 or float64). Returns (x, u, v, stats)."""
    n = C.shape[0]
    x, u, v, st = square_answer(C)
    y = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return x, u, v, counters(st)
    free = np.empty(n, dtype=np.int64)
    nfree = reduction_kernel(C, x, y, v, free)
    after_reduction = int(nfree)
    for _ in range(arr_passes):
        if nfree == 0 or n < 2:
            break
        nfree = arr_kernel(C, x, y, v, free, nfree, 8 * n + 64)
    after_arr = int(nfree)
    status = augment_kernel(C, x, y, v, free, nfree, st)
    if status != 0:
        raise RuntimeError("JV augmentation found no augmenting path (internal error)")
    row_duals_kernel(C, x, v, u)
    return x, u, v, {"free_after_reduction": after_reduction, "free_after_arr": after_arr, **counters(st)}
