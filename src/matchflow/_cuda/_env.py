"""Where the GPU code runs (real device or numba's CUDA simulator) and numba-cuda's warnings."""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = ["c_contiguous_device", "device_library", "is_simulator", "is_device_array", "is_device_graph", "kernel_cache",
           "on_device_like",
           "performance_warnings", "quiet"]


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


def is_device_array(x: Any) -> bool:
    """An array in GPU memory: one exposing ``__cuda_array_interface__`` (numba, CuPy, PyTorch), or a
    device array of numba's CUDA simulator (which has no such interface)."""
    return hasattr(x, "__cuda_array_interface__") or type(x).__name__ == "FakeCUDAArray"


def c_contiguous_device(x: Any) -> Any:
    """A C-contiguous numba view of a device array (:func:`is_device_array`): the caller's memory when it is
    C-contiguous (no copy); otherwise one copy on the same device, made by the array's own library (PyTorch
    ``contiguous()``, CuPy ``ascontiguousarray``; a strided numba array through the host). The simulator's
    arrays are returned as they are."""
    if not hasattr(x, "__cuda_array_interface__"):
        return x
    from numba import cuda  # noqa: PLC0415

    a = cuda.as_cuda_array(x)
    if a.is_c_contiguous():
        return a
    mod = type(x).__module__
    if mod.startswith("torch"):
        return cuda.as_cuda_array(x.contiguous())
    if mod.startswith("cupy"):
        import cupy  # noqa: PLC0415

        return cuda.as_cuda_array(cupy.ascontiguousarray(x))
    import numpy as np  # noqa: PLC0415

    return cuda.to_device(np.ascontiguousarray(a.copy_to_host()))


def device_library(x: Any) -> str:
    """The library of a device array or matrix: "cupy", "torch", else "numba" (imports nothing)."""
    mod = type(x).__module__
    return "cupy" if mod.startswith("cupy") else "torch" if mod.startswith("torch") else "numba"


def on_device_like(x: Any, a: Any) -> Any:
    """The host array ``a`` copied to the device of the device array ``x``, in ``x``'s library (CuPy, PyTorch;
    a numba device array otherwise): the answer to a device input is handed back where the input lives."""
    lib = device_library(x)
    if lib == "cupy":
        import cupy  # noqa: PLC0415

        with cupy.cuda.Device(x.device.id):
            return cupy.asarray(a)
    if lib == "torch":
        import torch  # noqa: PLC0415

        return torch.as_tensor(a, device=x.device)
    from numba import cuda  # noqa: PLC0415

    return cuda.to_device(a)


def is_device_graph(x: Any) -> bool:
    """A graph in GPU memory: a CuPy sparse matrix, a PyTorch CUDA tensor (dense or sparse), or a dense
    device array (:func:`is_device_array`). Imports nothing."""
    mod = type(x).__module__
    if mod.startswith("cupyx") and hasattr(x, "format"):
        return True
    if mod.startswith("torch") and bool(getattr(x, "is_cuda", False)):
        return True
    return is_device_array(x)


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
