"""Device-resident graphs for G-PR at the solve's cost: the caller's CSR or CSC used as it is.

A CuPy CSR (or a PyTorch sparse CSR tensor in canonical form) is used as G-PR's CSR and a CuPy CSC as its
CSC, without a copy; the other side is built on the device by :func:`matchflow._cuda._csc.build_csc`
only where the pattern is not symmetric (a symmetric CSR is its own CSC), into cached work buffers.
The same launches give G-PR's start rule its inputs (symmetry, largest degree), so the solve computes
neither again. Other inputs (COO, dense, numba arrays, non-canonical tensors) take the general
conversion of :func:`matchflow._cuda._graph.from_device_input` (the one reader,
:func:`matchflow._cuda._graph.read_device`).
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["device_graph"]


def device_graph(x: Any, explicit_zeros: bool) -> tuple[Any, str]:
    """``(DeviceBipartite, library)`` of a device-resident graph; ``seconds_csc`` on it: the whole conversion."""
    from .._cuda import as_numba, device_library  # noqa: PLC0415
    from .._cuda._csc import is_sorted_csr  # noqa: PLC0415
    from .._cuda._graph import from_device_input  # noqa: PLC0415

    t0 = time.perf_counter()
    lib = device_library(x)
    mod = type(x).__module__
    side = None  # (ptr, ind, is_csr, n_rows, n_cols, nnz) of a canonical CSR / CSC used as it is
    if mod.startswith("cupyx") and getattr(x, "format", None) in ("csr", "csc"):
        a = x
        n_rows, n_cols = (int(s) for s in a.shape)
        n_ptr = n_rows if a.format == "csr" else n_cols
        # CuPy's flag is often False for a canonical matrix (e.g. built from a dense array): check on the device
        if not a.has_canonical_format and not is_sorted_csr(as_numba(a.indptr),
                                                            as_numba(a.indices), n_ptr, int(a.nnz)):
            a = a.copy()
            a.sum_duplicates()
        if not explicit_zeros and a.nnz and bool((a.data == 0).any()):
            a = a.copy()
            a.eliminate_zeros()
        side = (as_numba(a.indptr), as_numba(a.indices), a.format == "csr", n_rows, n_cols,
                int(a.nnz))
    elif lib == "torch" and str(getattr(x, "layout", "")) == "torch.sparse_csr" and x.dim() == 2:
        crow, col, vals = x.crow_indices(), x.col_indices(), x.values()
        n_rows, n_cols, nnz = int(x.shape[0]), int(x.shape[1]), int(col.shape[0])
        if nnz and (explicit_zeros or not bool((vals == 0).any())):
            ptr, ind = as_numba(crow.contiguous()), as_numba(col.contiguous())
            if is_sorted_csr(ptr, ind, n_rows, nnz):
                side = (ptr, ind, True, n_rows, n_cols, nnz)
    if side is None:
        return from_device_input(x, explicit_zeros)
    dg = _from_side(*side)
    dg.seconds_csc = time.perf_counter() - t0
    return dg, lib


def _from_side(ptr: Any, ind: Any, is_csr: bool, n_rows: int, n_cols: int, nnz: int) -> Any:
    """A ``DeviceBipartite`` around one canonical side (CSR or CSC); the other is built in work buffers
    unless the pattern is symmetric. ``symmetric`` and ``max_degree`` are set on it."""
    from numba import cuda  # noqa: PLC0415

    from .._cuda._csc import build_csc  # noqa: PLC0415
    from .._cuda._graph import DeviceBipartite  # noqa: PLC0415

    feats: dict[str, Any] = {}
    if is_csr:
        col_ptr, row_ind = build_csc(ptr, ind, n_rows, n_cols, nnz, work=True, features=feats)
        dg = DeviceBipartite(n_rows, n_cols, ptr, ind, col_ptr, row_ind)
    else:  # a CSC of A is the CSR of A^T: its transpose is A's CSR
        row_ptr, col_ind = build_csc(ptr, ind, n_cols, n_rows, nnz, work=True, features=feats)
        dg = DeviceBipartite(n_rows, n_cols, row_ptr, col_ind, ptr, ind)
    cuda.synchronize()
    dg.nnz = nnz
    dg.symmetric = bool(feats["symmetric"]) and n_rows == n_cols
    dg.max_degree = int(feats["max_degree"])
    return dg
