"""The caller's device arrays: which library they come from, read in place, answers handed back.

The one place that knows CuPy, PyTorch and numba device arrays: :func:`device_library` names the library,
:func:`as_numba` / :func:`c_contiguous_device` read a dense device array in place (a numba view),
:func:`host_copy` brings one to the host where a solve must, and :func:`hand_back` returns an answer in
the caller's library on the device. Sparse and dense graphs are read into a
:class:`~matchflow._cuda._graph.DeviceCSR` by :func:`matchflow._cuda._graph.read_device`. Imports nothing
at import time (numba.cuda, CuPy and PyTorch are loaded on use).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["NotOnDevice", "device_library", "is_device_array", "is_device_graph", "is_device_sparse", "as_numba",
           "c_contiguous_device", "host_copy", "hand_back"]


class NotOnDevice(Exception):
    """A device input that cannot be solved as it is on the device (a format or layout whose duplicates the
    library would sum, asymmetric, non-canonical, non-finite values, an unsupported dtype): the caller takes
    the host path (one copy), which handles it or raises the usual error."""


def device_library(x: Any) -> str:
    """The library of a device array or matrix: "cupy", "torch", else "numba" (imports nothing)."""
    mod = type(x).__module__
    return "cupy" if mod.startswith("cupy") else "torch" if mod.startswith("torch") else "numba"


def is_device_array(x: Any) -> bool:
    """An array in GPU memory: one exposing ``__cuda_array_interface__`` (numba, CuPy, PyTorch), or a
    device array of numba's CUDA simulator (which has no such interface)."""
    return hasattr(x, "__cuda_array_interface__") or type(x).__name__ == "FakeCUDAArray"


def is_device_sparse(x: Any) -> bool:
    """A sparse matrix in GPU memory: a CuPy sparse matrix (``cupyx.scipy.sparse``) or a PyTorch sparse CUDA
    tensor (CSR, CSC or COO). Imports nothing."""
    mod = type(x).__module__
    if mod.startswith("cupyx") and hasattr(x, "format"):
        return True
    return mod.startswith("torch") and bool(getattr(x, "is_cuda", False)) and \
        str(getattr(x, "layout", "torch.strided")) != "torch.strided"


def is_device_graph(x: Any) -> bool:
    """A graph in GPU memory: a CuPy sparse matrix, a PyTorch CUDA tensor (dense or sparse), or a dense
    device array (:func:`is_device_array`). Imports nothing."""
    mod = type(x).__module__
    if mod.startswith("cupyx") and hasattr(x, "format"):
        return True
    if mod.startswith("torch") and bool(getattr(x, "is_cuda", False)):
        return True
    return is_device_array(x)


def as_numba(x: Any) -> Any:
    """A numba view of a dense device array, no copy (a PyTorch tensor detached first); the simulator's
    arrays and numba's own are returned as they are."""
    if device_library(x) == "torch":
        x = x.detach()
    if not hasattr(x, "__cuda_array_interface__"):
        return x
    from numba import cuda  # noqa: PLC0415

    return cuda.as_cuda_array(x)


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
    lib = device_library(x)
    if lib == "torch":
        return cuda.as_cuda_array(x.contiguous())
    if lib == "cupy":
        import cupy  # noqa: PLC0415

        return cuda.as_cuda_array(cupy.ascontiguousarray(x))
    return cuda.to_device(np.ascontiguousarray(a.copy_to_host()))


def host_copy(x: Any) -> Any:
    """A device-resident matrix on the host, for a host path: a scipy.sparse matrix for sparse inputs
    (a torch COO keeps its duplicates: the host path sums them, as torch's coalesce does), else a NumPy array."""
    import scipy.sparse as sp  # noqa: PLC0415

    mod = type(x).__module__
    if mod.startswith("cupyx") and hasattr(x, "get"):
        return x.get()
    if mod.startswith("torch"):
        if str(x.layout) == "torch.strided":
            return x.detach().cpu().numpy()
        coo = x.detach().to_sparse_coo()
        idx, vals = coo._indices().cpu().numpy(), coo._values().cpu().numpy()
        return sp.coo_array((vals, (idx[0], idx[1])), shape=tuple(int(s) for s in x.shape))
    if mod.startswith("cupy"):
        return x.get()
    return x.copy_to_host() if hasattr(x, "copy_to_host") else np.asarray(x)


def hand_back(a: Any, lib: str, like: Any = None) -> Any:
    """An answer array in the caller's library ``lib`` ("cupy", "torch", "numba") on the device.

    A numba device array ``a`` is wrapped (no copy); a host array is copied once to the device of
    ``like`` (the caller's device input), or to the current device without one."""
    from numba import cuda  # noqa: PLC0415

    on_host = not is_device_array(a)
    if on_host:
        a = np.ascontiguousarray(a)
    if lib == "cupy":
        import cupy  # noqa: PLC0415

        with cupy.cuda.Device(like.device.id if like is not None else cuda.get_current_device().id):
            return cupy.asarray(a)
    if lib == "torch":
        import torch  # noqa: PLC0415

        return torch.as_tensor(a, device=like.device if like is not None else f"cuda:{cuda.get_current_device().id}")
    if on_host:  # numba cannot transfer 0-length arrays everywhere
        return cuda.device_array(a.shape, a.dtype) if a.size == 0 else cuda.to_device(a)
    return a
