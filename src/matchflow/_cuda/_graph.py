"""Device twins of the containers: :class:`DeviceBipartite` (CSR and CSC of a bipartite graph on the GPU).

A host graph whose CSC is not built yet is uploaded as its CSR only (index dtype kept) and its CSC is
built on the device by counting sort (:mod:`._csc`), never by SciPy on the host. Device-resident
inputs (CuPy sparse/dense, PyTorch CUDA tensors, numba device arrays) become a ``DeviceBipartite``
without a host copy (:func:`from_device_input`); :func:`wrap_like` returns results in the caller's
library, on the same device.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numba import cuda

from .._graph import BipartiteGraph
from .._validation import type_name
from ._env import device_library

__all__ = ["DeviceBipartite", "to_device", "from_device_csr", "from_device_input", "wrap_like"]


class DeviceBipartite:
    """A :class:`BipartiteGraph` whose CSR and CSC arrays are on the GPU (numba device arrays)."""

    __slots__ = ("n_rows", "n_cols", "row_ptr", "col_ind", "col_ptr", "row_ind", "nnz", "seconds_h2d", "max_degree",
                 "symmetric", "seconds_csc")

    def __init__(self, n_rows: int, n_cols: int, row_ptr: Any, col_ind: Any, col_ptr: Any, row_ind: Any,
                 seconds_h2d: float = 0.0) -> None:
        self.n_rows, self.n_cols = int(n_rows), int(n_cols)
        self.row_ptr, self.col_ind, self.col_ptr, self.row_ind = row_ptr, col_ind, col_ptr, row_ind
        self.nnz = int(col_ind.shape[0])
        self.seconds_h2d = seconds_h2d
        self.seconds_csc = 0.0  # the CSC built on the device (counting sort)
        self.max_degree: int | None = None  # largest row or column degree, computed on first use
        self.symmetric: bool | None = None  # A == A^T (init="symmetric"), computed on first use

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_rows, self.n_cols)

    @property
    def itype(self) -> np.dtype:
        return np.dtype(self.col_ind.dtype)

    def __repr__(self) -> str:
        return f"DeviceBipartite(n_rows={self.n_rows}, n_cols={self.n_cols}, nnz={self.nnz})"


def to_device(graph: BipartiteGraph | DeviceBipartite) -> DeviceBipartite:
    """Copy (or wrap, for arrays already on the GPU) a graph's CSR and CSC arrays to the device."""
    if isinstance(graph, DeviceBipartite):
        return graph
    if not isinstance(graph, BipartiteGraph):
        raise TypeError(f"graph must be a matchflow.BipartiteGraph, got {type_name(graph)}")
    t0 = time.perf_counter()
    if not graph.has_csc:  # upload the CSR as is, build the CSC on the device
        rp, ci = (_upload(getattr(graph, name)) for name in ("row_ptr", "col_ind"))
        cuda.synchronize()
        d = from_device_csr(rp, ci, graph.n_rows, graph.n_cols, graph.nnz)
        d.seconds_h2d = time.perf_counter() - t0 - d.seconds_csc
        return d
    arrs = []
    for name in ("row_ptr", "col_ind", "col_ptr", "row_ind"):
        a = getattr(graph, name)
        if hasattr(a, "__cuda_array_interface__"):
            arrs.append(cuda.as_cuda_array(a))
        else:
            a = np.ascontiguousarray(a)
            if a.size == 0:  # numba cannot transfer 0-length arrays everywhere; keep one pad element
                a = np.zeros(1, dtype=a.dtype)
            arrs.append(cuda.to_device(a))
    cuda.synchronize()
    d = DeviceBipartite(graph.n_rows, graph.n_cols, *arrs, seconds_h2d=time.perf_counter() - t0)
    d.nnz = graph.nnz
    return d


def _upload(a: Any) -> Any:
    if hasattr(a, "__cuda_array_interface__"):
        return cuda.as_cuda_array(a)
    a = np.ascontiguousarray(a)
    return cuda.to_device(a if a.size else np.zeros(1, dtype=a.dtype))


def from_device_csr(row_ptr: Any, col_ind: Any, n_rows: int, n_cols: int, nnz: int) -> DeviceBipartite:
    """A ``DeviceBipartite`` from a canonical CSR already on the device; the CSC is built there."""
    from ._csc import build_csc  # noqa: PLC0415

    t0 = time.perf_counter()
    col_ptr, row_ind = build_csc(row_ptr, col_ind, n_rows, n_cols, nnz)
    cuda.synchronize()
    d = DeviceBipartite(n_rows, n_cols, row_ptr, col_ind, col_ptr, row_ind)
    d.nnz = int(nnz)
    d.seconds_csc = time.perf_counter() - t0
    return d


def _coo_to_csr(rows: Any, cols: Any, n_rows: int, nnz: int) -> tuple[Any, Any]:
    """Row pointers of a device COO sorted by (row, column): a degree count and a scan."""
    from ._csc import _grid, degree_count_kernel, exclusive_scan, zero_kernel  # noqa: PLC0415

    ptr = cuda.device_array(n_rows + 1, dtype=cols.dtype)
    zero_kernel[_grid(n_rows + 1, 256), 256](ptr)
    if nnz:
        degree_count_kernel[_grid(nnz, 256), 256](rows, np.int64(nnz), ptr)
    exclusive_scan(ptr, n_rows + 1)
    return ptr, cols


def from_device_input(x: Any, explicit_zeros: bool = False) -> tuple[DeviceBipartite, str]:
    """``(DeviceBipartite, library)`` of a device-resident graph, without a host copy.

    CuPy sparse (CSR / CSC / COO; duplicates merged and stored zeros dropped by CuPy on the device
    unless ``explicit_zeros``), PyTorch CUDA tensors (sparse: coalesced by PyTorch on the device),
    dense device arrays (nonzero entries are edges). Stats: ``seconds_h2d`` is 0, ``seconds_csc``
    the device conversion."""
    from ._csc import dense_to_csr  # noqa: PLC0415

    t0 = time.perf_counter()
    lib = device_library(x)
    mod = type(x).__module__
    if mod.startswith("cupyx") and hasattr(x, "format"):
        a = x.tocsr() if x.format != "csr" else x
        if not a.has_canonical_format:
            a = a.copy()
            a.sum_duplicates()
        if not explicit_zeros and a.nnz and bool((a.data == 0).any()):
            a = a.copy()
            a.eliminate_zeros()
        n_rows, n_cols = (int(s) for s in a.shape)
        d = from_device_csr(cuda.as_cuda_array(a.indptr), cuda.as_cuda_array(a.indices), n_rows, n_cols, int(a.nnz))
    elif lib == "torch" and str(x.layout) != "torch.strided":
        if x.dim() != 2:
            raise ValueError(f"graph must be 2-D, got a sparse tensor of shape {tuple(x.shape)}")
        coo = x.to_sparse_coo().coalesce()
        idx, vals = coo.indices(), coo.values()
        if not explicit_zeros:
            keep = vals != 0
            idx = idx[:, keep]
        rows, cols = idx[0].contiguous(), idx[1].contiguous()
        n_rows, n_cols, nnz = int(x.shape[0]), int(x.shape[1]), int(rows.shape[0])
        if nnz == 0:
            rows = cols = idx.new_zeros(1)  # a dense index tensor (x may be sparse CSR)
        ptr, ind = _coo_to_csr(cuda.as_cuda_array(rows), cuda.as_cuda_array(cols), n_rows, nnz)
        d = from_device_csr(ptr, ind, n_rows, n_cols, nnz)
    else:
        if lib == "torch":
            x = x.detach()
        a = cuda.as_cuda_array(x) if hasattr(x, "__cuda_array_interface__") else x
        if len(a.shape) != 2:
            raise ValueError(f"graph must be 2-D, got an array of shape {tuple(a.shape)}")
        n_rows, n_cols = (int(s) for s in a.shape)
        it = np.dtype(np.int32) if max(n_rows, n_cols) < 2**31 - 1 and n_rows * n_cols < 2**31 - 1 else \
            np.dtype(np.int64)
        ptr, ind, nnz = dense_to_csr(a, it)
        d = from_device_csr(ptr, ind, n_rows, n_cols, nnz)
    d.seconds_csc = time.perf_counter() - t0
    return d, lib


def wrap_like(lib: str, a: Any) -> Any:
    """A numba device array as an array of ``lib`` ("cupy", "torch", "numba") on the same device, no copy."""
    if lib == "cupy":
        import cupy  # noqa: PLC0415

        return cupy.asarray(a)
    if lib == "torch":
        import torch  # noqa: PLC0415

        return torch.as_tensor(a, device=f"cuda:{cuda.get_current_device().id}")
    return a
