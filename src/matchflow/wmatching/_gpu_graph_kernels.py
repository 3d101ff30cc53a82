"""Device kernels that make a weighted graph ready for GPU-Suitor without a host pass over its entries.

* ``int_keys_kernel`` / ``float_keys_kernel``: the int32 edge-order key of every entry (see
  :mod:`._gpu_suitor_kernels`): the weight itself for integers in [1, 2^31), the bit pattern of the float32
  for floats that float32 holds exactly (stored as float32 through a float32 view of the key array:
  positive float32 patterns are ordered like the values), 0 for weights <= 0; a weight out of those ranges sets ``flag[F_RANK]`` (the caller ranks the
  values), a NaN/inf sets ``flag[F_NONFINITE]``.
* ``check_kernel``: one thread per entry finds its row (binary search in ``ptr``) and its mirror entry
  (binary search in the neighbour's row): rows strictly increasing, no diagonal, and ``key`` equal on both
  sides, else ``flag[F_ASYM]``. Equal keys are equal positive weights (the keys are injective there); two
  non-positive mirror entries both have key 0 and never take part in a matching, as after the
  symmetrisation (the larger of the two) of the host path.
* ``pairs_flag_kernel`` / ``pairs_fill_kernel``: the matched pairs ``u < mate[u]`` and their weights.

Flags are plain stores of 1 (every writer writes the same value).
"""

from __future__ import annotations

import math

from numba import cuda, float32, float64, int32, int64

from .._cuda._device import lower_bound_dev, row_of_dev
from .._cuda._env import kernel_cache

CACHE = kernel_cache()

__all__ = ["F_NONFINITE", "F_RANK", "F_ASYM", "F_N", "int_keys_kernel", "float_keys_kernel", "check_kernel",
           "pairs_flag_kernel", "pairs_fill_kernel"]

F_NONFINITE, F_RANK, F_ASYM, F_N = 0, 1, 2, 3
KEY_MAX = (1 << 31) - 1


@cuda.jit(cache=CACHE)
def int_keys_kernel(w, key, nnz, flag):
    """key[k] = w[k] for 1 <= w[k] < 2^31, 0 for w[k] <= 0; larger weights set ``flag[F_RANK]``."""
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for k in range(start, nnz, stride):
        x = int64(w[k])
        if x > KEY_MAX:
            flag[F_RANK] = 1
            x = 0
        key[k] = int32(x) if x > 0 else int32(0)


@cuda.jit(cache=CACHE)
def float_keys_kernel(w, key32, nnz, flag):
    """key32[k] = float32(w[k]) for w[k] > 0 that float32 holds exactly, 0.0 for w[k] <= 0. ``key32`` is
    the float32 view of the int32 keys: the stored bit pattern IS the key (positive float32 patterns are
    ordered like the values; 0.0 is the pattern 0)."""
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for k in range(start, nnz, stride):
        x = float64(w[k])
        f = float32(0.0)
        if not math.isfinite(x):
            flag[F_NONFINITE] = 1
        elif x > 0:
            f = float32(x)
            if float64(f) != x:
                flag[F_RANK] = 1
                f = float32(0.0)
        key32[k] = f


@cuda.jit(cache=CACHE)
def check_kernel(ptr, ind, key, n, nnz, flag):
    """``flag[F_ASYM] = 1`` unless the CSR is canonical (rows strictly increasing, ids in range), has no
    diagonal entry and every entry (i, j) has its mirror (j, i) with the same key."""
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, nnz, stride):
        i = row_of_dev(ptr, n, e)
        j = int64(ind[e])
        if j < 0 or j >= n or j == i or (e > ptr[i] and ind[e - 1] >= j):
            flag[F_ASYM] = 1
            continue
        a = lower_bound_dev(ind, ptr[j], ptr[j + 1], i)
        if a == ptr[j + 1] or ind[a] != i or key[a] != key[e]:
            flag[F_ASYM] = 1


@cuda.jit(cache=CACHE)
def pairs_flag_kernel(mate, pos):
    """pos[u] = 1 when u is the smaller end of a matched pair (``pos[n] = 0``); scanned by the caller."""
    u = cuda.grid(1)
    n = mate.shape[0]
    if u < n:
        pos[u] = 1 if mate[u] > u else 0
    if u == 0:
        pos[n] = 0


@cuda.jit(cache=CACHE)
def pairs_fill_kernel(mate, pos, ptr, ind, w, pairs, per):
    """pairs[pos[u]] = (u, mate[u]) and per[pos[u]] = its weight (binary search of mate[u] in row u, a
    scan where the row is not sorted)."""
    u = cuda.grid(1)
    if u < mate.shape[0] and mate[u] > u:
        v = mate[u]
        p = pos[u]
        pairs[p, 0] = u
        pairs[p, 1] = v
        a = lower_bound_dev(ind, ptr[u], ptr[u + 1], v)
        if a == ptr[u + 1] or ind[a] != v:  # a row not sorted (a trusted Graph): scan it
            a = ptr[u]
            while ind[a] != v:
                a += 1
        per[p] = w[a]
