"""Device twins of the containers: :class:`DeviceCSR` (one CSR on the GPU, optional per-entry values: the
residual network of max-flow, the weighted graph of weighted matching, the cost matrix of cost scaling) and
:class:`DeviceBipartite` (CSR and CSC of a bipartite graph on the GPU).

A host graph whose CSC is not built yet is uploaded as its CSR only (index dtype kept) and its CSC is
built on the device by counting sort (:mod:`._csc`), never by SciPy on the host. Device-resident
inputs (CuPy sparse/dense, PyTorch CUDA tensors, numba device arrays) are read into a ``DeviceCSR``
without a host copy by the one reader :func:`read_device` (a ``DeviceBipartite``: :func:`from_device_input`);
answers go back in the caller's library by :func:`matchflow._cuda._arrays.hand_back`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._graph import BipartiteGraph
from .._validation import type_name
from ._arrays import NotOnDevice, as_numba, device_library

__all__ = ["DeviceCSR", "upload_array", "upload_csr", "read_device", "DeviceBipartite", "to_device", "from_device_csr",
           "from_device_input"]


@dataclass
class DeviceCSR:
    """A CSR on the GPU (numba device arrays): ``ptr`` (``n + 1`` row offsets), ``ind`` (the column of each of
    the ``nnz`` entries) and optional per-entry values ``w``; an array of 0 entries holds one pad element.
    ``seconds_h2d``: the upload (0 for device inputs)."""

    n: int
    nnz: int
    ptr: Any
    ind: Any
    w: Any = None
    seconds_h2d: float = 0.0

    @property
    def arrays(self) -> tuple:
        """The kernel arguments ``(ptr, ind)``, or ``(ptr, ind, w)`` with values."""
        return (self.ptr, self.ind) if self.w is None else (self.ptr, self.ind, self.w)


def upload_csr(indptr: Any, indices: Any, values: Any = None) -> DeviceCSR:
    """A host CSR (and its values) copied to the GPU as they are (dtypes kept; device arrays wrapped)."""
    from numba import cuda  # noqa: PLC0415

    t0 = time.perf_counter()
    arrs = [upload_array(a) for a in (indptr, indices, values) if a is not None]
    cuda.synchronize()
    return DeviceCSR(len(indptr) - 1, len(indices), *arrs, seconds_h2d=time.perf_counter() - t0)


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
    from numba import cuda  # noqa: PLC0415

    t0 = time.perf_counter()
    if not graph.has_csc:  # upload the CSR as is, build the CSC on the device
        rp, ci = (upload_array(getattr(graph, name)) for name in ("row_ptr", "col_ind"))
        cuda.synchronize()
        d = from_device_csr(rp, ci, graph.n_rows, graph.n_cols, graph.nnz)
        d.seconds_h2d = time.perf_counter() - t0 - d.seconds_csc
        return d
    arrs = [upload_array(getattr(graph, name)) for name in ("row_ptr", "col_ind", "col_ptr", "row_ind")]
    cuda.synchronize()
    d = DeviceBipartite(graph.n_rows, graph.n_cols, *arrs, seconds_h2d=time.perf_counter() - t0)
    d.nnz = graph.nnz
    return d


def upload_array(a: Any) -> Any:
    """A host array on the device (one pad element for 0-length arrays, which numba cannot transfer
    everywhere); a device array wrapped."""
    from numba import cuda  # noqa: PLC0415

    if hasattr(a, "__cuda_array_interface__"):
        return cuda.as_cuda_array(a)
    a = np.ascontiguousarray(a)
    return cuda.to_device(a if a.size else np.zeros(1, dtype=a.dtype))


def from_device_csr(row_ptr: Any, col_ind: Any, n_rows: int, n_cols: int, nnz: int) -> DeviceBipartite:
    """A ``DeviceBipartite`` from a canonical CSR already on the device; the CSC is built there."""
    from numba import cuda  # noqa: PLC0415

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
    from numba import cuda  # noqa: PLC0415

    from ._csc import degree_count_kernel, exclusive_scan, zero_kernel  # noqa: PLC0415
    from ._launch import grid  # noqa: PLC0415

    ptr = cuda.device_array(n_rows + 1, dtype=cols.dtype)
    zero_kernel[grid(n_rows + 1, 256), 256](ptr)
    if nnz:
        degree_count_kernel[grid(nnz, 256), 256](rows, np.int64(nnz), ptr)
    exclusive_scan(ptr, n_rows + 1)
    return ptr, cols


def read_device(x: Any, *, merge: bool = True, explicit_zeros: bool = False, values: bool = False
                ) -> tuple[DeviceCSR, str]:
    """``(DeviceCSR, library)`` of a device-resident 2-D matrix, without a host copy: the one reader of
    device graphs. CuPy sparse, PyTorch sparse CUDA tensors, dense device arrays (nonzero entries are
    entries); ``values``: keep the entries' values as ``w``.

    ``merge=True``: any CuPy format or PyTorch layout, duplicates summed by the library on the device.
    ``merge=False``: a CuPy CSR / CSC (rows sorted on the device, duplicates kept; a CSC read as its
    transpose's CSR) or a PyTorch CSR / coalesced COO, as stored; others raise :class:`NotOnDevice`.
    Stored zeros are dropped unless ``explicit_zeros``."""
    lib = device_library(x)
    if type(x).__module__.startswith("cupyx") and hasattr(x, "format"):
        ptr, ind, w, nnz = _cupy_parts(x, merge, explicit_zeros, values)
    elif lib == "torch" and str(x.layout) != "torch.strided":
        ptr, ind, w, nnz = _torch_parts(x, merge, explicit_zeros, values)
    else:
        from ._csc import dense_to_csr, dense_values  # noqa: PLC0415

        a = as_numba(x)
        if len(a.shape) != 2:
            raise ValueError(f"graph must be 2-D, got an array of shape {tuple(a.shape)}")
        n_rows, n_cols = (int(s) for s in a.shape)
        it = np.dtype(np.int32) if max(n_rows, n_cols) < 2**31 - 1 and n_rows * n_cols < 2**31 - 1 else \
            np.dtype(np.int64)
        ptr, ind, nnz = dense_to_csr(a, it)
        w = dense_values(a, ptr, ind, nnz) if values else None
    return DeviceCSR(int(x.shape[0]), nnz, ptr, ind, w), lib


def _cupy_parts(x: Any, merge: bool, explicit_zeros: bool, values: bool) -> tuple[Any, Any, Any, int]:
    if merge:
        a = x.tocsr() if x.format != "csr" else x
        if not a.has_canonical_format:
            a = a.copy()
            a.sum_duplicates()
    elif x.format not in ("csr", "csc"):
        raise NotOnDevice("CuPy COO: duplicates would be summed on the device")
    else:  # CuPy's dense -> CSR leaves rows unsorted: sort a device copy (duplicates stay)
        a = x if x.has_sorted_indices else x.sorted_indices()
    if not explicit_zeros and a.nnz and bool((a.data == 0).any()):
        a = a.copy()
        a.eliminate_zeros()
    w = as_numba(a.data) if values else None
    return as_numba(a.indptr), as_numba(a.indices), w, int(a.nnz)


def _torch_parts(x: Any, merge: bool, explicit_zeros: bool, values: bool) -> tuple[Any, Any, Any, int]:
    if merge:
        if x.dim() != 2:
            raise ValueError(f"graph must be 2-D, got a sparse tensor of shape {tuple(x.shape)}")
        coo = x.to_sparse_coo().coalesce()
        idx, vals = coo.indices(), coo.values()
        if not explicit_zeros:
            keep = vals != 0
            idx, vals = idx[:, keep], vals[keep]
    elif str(x.layout) == "torch.sparse_csr":
        ptr, ind, w = (as_numba(a.contiguous()) for a in (x.crow_indices(), x.col_indices(), x.values()))
        return ptr, ind, (w if values else None), int(x.values().shape[0])
    elif str(x.layout) == "torch.sparse_coo" and x.is_coalesced():
        idx, vals = x.indices(), x.values()
    else:
        raise NotOnDevice(f"a {x.layout} tensor (uncoalesced COO: duplicates would be summed)")
    nnz = int(idx.shape[1])
    rows, cols = (idx[0].contiguous(), idx[1].contiguous()) if nnz else (idx.new_zeros(1), idx.new_zeros(1))
    ptr, ind = _coo_to_csr(as_numba(rows), as_numba(cols), int(x.shape[0]), nnz)
    w = as_numba(vals.contiguous() if nnz else vals.new_zeros(1)) if values else None
    return ptr, ind, w, nnz


def from_device_input(x: Any, explicit_zeros: bool = False) -> tuple[DeviceBipartite, str]:
    """``(DeviceBipartite, library)`` of a device-resident graph (:func:`read_device`, duplicates merged and
    stored zeros dropped on the device unless ``explicit_zeros``), without a host copy. Stats: ``seconds_h2d``
    is 0, ``seconds_csc`` the device conversion."""
    t0 = time.perf_counter()
    csr, lib = read_device(x, explicit_zeros=explicit_zeros)
    n_rows, n_cols = (int(s) for s in x.shape)
    d = from_device_csr(csr.ptr, csr.ind, n_rows, n_cols, csr.nnz)
    d.seconds_csc = time.perf_counter() - t0
    return d, lib
