"""The float certificate's row passes on the device, for a matrix the GPU float route already holds there.

:func:`device_rows` returns the two row passes of ``_api._float_certificate`` as ``(polish, bound)``:
``polish(sign, u, v)`` recomputes the row duals (``_prepare._polish_duals``, square, rows "= 1") and
``bound(sign, col_of_row, u, v)`` returns the per-row arrays of ``_verify_float_bound._float_bound_dense_rows``; only
``O(n)`` numbers cross the bus. The host then forms the bound exactly as for a host matrix (``_verify``)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["device_rows"]


def device_rows(dC: Any, n: int, shift: float = 0.0) -> tuple:
    """``(polish, bound)`` over the flat ``n * n`` device matrix ``dC``: the minimisation matrix ``sign * a`` of
    the caller's square ``a`` less an exact ``shift`` (the preparation's: ``dC + shift`` gives ``sign * a`` to the
    bit; no scale or big M). The ``sign`` the closures receive is the caller's; the device holds ``sign * a``."""
    from numba import cuda  # noqa: PLC0415

    from .._cuda import quiet  # noqa: PLC0415
    from ._gpu_verify_kernels import float_bound_rows_kernel, polish_rows_kernel  # noqa: PLC0415

    grid = (min(n, 4096), 256)

    def polish(sign: float, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        with quiet():
            du = cuda.to_device(np.ascontiguousarray(u, dtype=np.float64))
            polish_rows_kernel[grid](dC, np.int64(n), np.float64(shift), cuda.to_device(v), du)
            return du.copy_to_host()

    def bound(sign: float, col_of_row: np.ndarray, u: np.ndarray, v: np.ndarray) -> tuple:
        with quiet():
            outs = [cuda.to_device(np.zeros(n)) for _ in range(5)]
            drj = cuda.device_array(n, dtype=np.int64)
            float_bound_rows_kernel[grid](dC, np.int64(n), np.float64(shift), cuda.to_device(col_of_row),
                                          cuda.to_device(np.ascontiguousarray(u, dtype=np.float64)),
                                          cuda.to_device(np.ascontiguousarray(v, dtype=np.float64)), *outs, drj)
            return tuple(o.copy_to_host() for o in outs) + (drj.copy_to_host(),)

    return polish, bound
