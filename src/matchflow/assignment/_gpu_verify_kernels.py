"""Kernels of the float certificate on the device (``_gpu_verify``): the twins of the host row passes of
:func:`._prepare._polish_duals` (square, rows "= 1") and :func:`._verify_float_bound._float_bound_dense_rows`, one block per row
over a matrix already on the device. Same floats as the host, except that the rounding bound ``e`` may be formed by
one fused multiply-add (one rounding instead of two: still a bound, the margin of ``_ERR_REL`` covers either)."""

from __future__ import annotations

import numpy as np
from numba import cuda, types

from .._cuda._device import dense_row_min_dev
from .._cuda._env import kernel_cache
from .._lsap import reduced as _reduced
from ._verify_float_bound import _ERR_ABS, _ERR_REL

CACHE = kernel_cache()  # numba-cuda on-disk cache of the kernels (off with MATCHFLOW_CUDA_CACHE=0)

__all__ = ["polish_rows_kernel", "float_bound_rows_kernel"]


@cuda.jit(cache=CACHE)
def polish_rows_kernel(C, n, off, v, u):
    """``u[i] = min_j (C[i, j] + off) - v[j]`` where some entry is finite (else ``u[i]`` is kept)."""
    sh = cuda.shared.array(1024, dtype=types.float64)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    for r in range(cuda.blockIdx.x, n, cuda.gridDim.x):
        m = dense_row_min_dev(C, r * n, n, off, v, True, sh, tid, bdim)
        if tid == 0 and m < np.inf:
            u[r] = m


# the host row pass's own pieces (plain functions of ``_lsap.reduced``, compiled there for the CPU), compiled again
# here for the device: one copy of the reduced cost with its rounding bound, and of a row's result
bound_pair_dev = cuda.jit(device=True, inline=True)(_reduced.bound_pair_dev.py_func)
bound_row_result_dev = cuda.jit(device=True, inline=True)(_reduced.bound_row_result.py_func)


@cuda.jit(cache=CACHE)
def float_bound_rows_kernel(C, n, off, col_of_row, u, v, delta, slack_up, err_used, err_entries, row_lb, row_j):
    """Per row (one block), over the entries ``C[i, j] + off`` (``off``: the preparation's exact shift added back,
    the caller's minimisation values to the bit): the least lower bound ``h - e`` over the finite entries and its
    first column, then the assigned pair's upper bound and roundings; the outputs of
    ``_verify_float_bound._float_bound_dense_rows`` (finite magnitudes: the preparation's scaling keeps ``h`` and ``e``
    finite, so no NaN bound arises)."""
    s_lb = cuda.shared.array(1024, dtype=types.float64)
    s_e = cuda.shared.array(1024, dtype=types.float64)
    s_j = cuda.shared.array(1024, dtype=types.int64)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    for r in range(cuda.blockIdx.x, n, cuda.gridDim.x):
        base = r * n
        ui = u[r]
        best = np.inf
        ebest = 0.0
        jbest = -1
        for c in range(tid, n, bdim):  # ascending: a strictly smaller bound only, as the host's serial scan
            x = np.float64(C[base + c]) + off
            if x - x != 0:
                continue
            h, e = bound_pair_dev(x, ui, v[c], abs(ui), abs(v[c]))
            lb = h - e
            if jbest < 0 or lb < best:
                best, ebest, jbest = lb, e, c
        s_lb[tid], s_e[tid], s_j[tid] = best, ebest, jbest
        cuda.syncthreads()
        w = bdim // 2
        while w > 0:  # the least bound, the first column among equal ones
            if tid < w:
                jo = s_j[tid + w]
                if jo >= 0 and (s_j[tid] < 0 or s_lb[tid + w] < s_lb[tid]
                                or (s_lb[tid + w] == s_lb[tid] and jo < s_j[tid])):
                    s_lb[tid], s_e[tid], s_j[tid] = s_lb[tid + w], s_e[tid + w], jo
            cuda.syncthreads()
            w //= 2
        if tid == 0:
            best, ebest, jbest = s_lb[0], s_e[0], s_j[0]
            ja = col_of_row[r]
            slack_up[r] = 0.0
            err_used[r] = 0.0
            if ja >= 0:
                x = np.float64(C[base + ja]) + off
                if x - x == 0:
                    h, e = bound_pair_dev(x, ui, v[ja], abs(ui), abs(v[ja]))
                    slack_up[r] = h + e
                    err_used[r] += e
                    err_entries[r] += _ERR_REL * abs(x) + _ERR_ABS
            bound_row_result_dev(r, best, ebest, jbest, delta, err_used, row_lb, row_j)
        cuda.syncthreads()
