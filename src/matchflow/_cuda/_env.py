"""Where the GPU code runs (real device or numba's CUDA simulator) and numba-cuda's warnings."""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator

__all__ = ["is_simulator", "kernel_cache", "performance_warnings", "quiet"]


def is_simulator() -> bool:
    """True under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``): no warp intrinsics, no grid sync."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "") not in ("", "0")


def kernel_cache() -> bool:
    """Whether the GPU kernels are compiled with numba-cuda's on-disk cache (``cache=True``): on by default
    (H100, 2026-11-23: the first ``bipartite_matching(..., backend="gpu")`` of a fresh process 18.3 s ->
    0.95 s with a warm cache, ``assignment`` 3.6 s -> 0.07 s); ``MATCHFLOW_CUDA_CACHE=0`` turns it off. Never
    in the simulator. Read once, when the kernel modules are imported. Like the CPU kernels' cache, it is
    keyed on each kernel's own source file: after editing a shared device helper, clear ``__pycache__``."""
    return os.environ.get("MATCHFLOW_CUDA_CACHE", "1") not in ("", "0") and not is_simulator()


def performance_warnings() -> tuple[type[Warning], ...]:
    """numba's NumbaPerformanceWarning classes: numba-cuda (>= 0.2x) raises its own class
    (``numba.cuda.core.errors``), distinct from ``numba.core.errors``; both are returned."""
    from numba.core.errors import NumbaPerformanceWarning  # noqa: PLC0415 - numba is a hard dependency

    out: list[type[Warning]] = [NumbaPerformanceWarning]
    try:
        from numba.cuda.core.errors import NumbaPerformanceWarning as CudaPerformanceWarning  # noqa: PLC0415
    except ImportError:  # an older numba-cuda, or the CUDA target bundled with numba
        pass
    else:
        if CudaPerformanceWarning is not NumbaPerformanceWarning:
            out.append(CudaPerformanceWarning)
    return tuple(out)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence numba's performance warnings (low occupancy, host arrays in a launch) inside a GPU solve.

    A small input on a large GPU is a deliberate low-occupancy launch, not a user's mistake. The filter
    is scoped to the ``with`` block (``warnings.catch_warnings``): the user's own filters are untouched.
    Only called inside GPU solves (it imports numba.cuda's error classes).
    """
    cats = performance_warnings()
    with warnings.catch_warnings():
        for cat in cats:
            warnings.simplefilter("ignore", cat)
        yield
