"""Device twins of the containers: :class:`DeviceBipartite` (CSR and CSC of a bipartite graph on the GPU)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numba import cuda

from .._graph import BipartiteGraph
from .._validation import type_name

__all__ = ["DeviceBipartite", "to_device"]


class DeviceBipartite:
    """A :class:`BipartiteGraph` whose CSR and CSC arrays are on the GPU (numba device arrays)."""

    __slots__ = ("n_rows", "n_cols", "row_ptr", "col_ind", "col_ptr", "row_ind", "nnz", "seconds_h2d", "max_degree",
                 "symmetric")

    def __init__(self, n_rows: int, n_cols: int, row_ptr: Any, col_ind: Any, col_ptr: Any, row_ind: Any,
                 seconds_h2d: float = 0.0) -> None:
        self.n_rows, self.n_cols = int(n_rows), int(n_cols)
        self.row_ptr, self.col_ind, self.col_ptr, self.row_ind = row_ptr, col_ind, col_ptr, row_ind
        self.nnz = int(col_ind.shape[0])
        self.seconds_h2d = seconds_h2d
        self.max_degree: int | None = None  # largest row or column degree, computed on first use
        self.symmetric: bool | None = None  # A == A^T (init="symmetric"), computed on first use

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_rows, self.n_cols)

    def __repr__(self) -> str:
        return f"DeviceBipartite(n_rows={self.n_rows}, n_cols={self.n_cols}, nnz={self.nnz})"


def to_device(graph: BipartiteGraph | DeviceBipartite) -> DeviceBipartite:
    """Copy (or wrap, for arrays already on the GPU) a graph's CSR and CSC arrays to the device."""
    if isinstance(graph, DeviceBipartite):
        return graph
    if not isinstance(graph, BipartiteGraph):
        raise TypeError(f"graph must be a matchflow.BipartiteGraph, got {type_name(graph)}")
    t0 = time.perf_counter()
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
