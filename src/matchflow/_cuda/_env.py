"""Where the GPU code runs (real device or numba's CUDA simulator) and numba-cuda's warnings."""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = ["is_simulator", "is_device_array", "quiet"]


def is_simulator() -> bool:
    """True under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``): no warp intrinsics, no grid sync."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "") not in ("", "0")


def is_device_array(x: Any) -> bool:
    """An array in GPU memory: one exposing ``__cuda_array_interface__`` (numba, CuPy, PyTorch), or a
    device array of numba's CUDA simulator (which has no such interface)."""
    return hasattr(x, "__cuda_array_interface__") or type(x).__name__ == "FakeCUDAArray"


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence numba's performance warnings (low occupancy, host arrays in a launch) inside a GPU solve.

    A small input on a large GPU is a deliberate low-occupancy launch, not a user's mistake. The filter
    is scoped to the ``with`` block (``warnings.catch_warnings``): the user's own filters are untouched.
    """
    from numba.core.errors import NumbaPerformanceWarning  # noqa: PLC0415 - numba is a hard dependency

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaPerformanceWarning)
        yield
