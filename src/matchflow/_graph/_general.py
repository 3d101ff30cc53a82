"""The general undirected graph container (a symmetric CSR) with optional edge weights."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ._common import check_index_array, check_weights, index_dtype


class Graph:
    """An undirected graph as a symmetric CSR ``(indptr, indices[, weights])``.

    Self-loops are dropped and parallel edges merged (keeping the largest weight). Weights
    keep their dtype (integers stay integers, float32 stays float32; native byte order).
    """

    __slots__ = ("n", "indptr", "indices", "weights", "labels")

    def __init__(self, n: int, indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray | None = None,
                 *, labels: list | None = None) -> None:
        # Trusted constructor: a canonical symmetric CSR (use from_edges / as_graph to validate).
        it = index_dtype(n, len(indices))
        self.n = int(n)
        self.indptr = np.ascontiguousarray(indptr, dtype=it)
        self.indices = np.ascontiguousarray(indices, dtype=it)
        self.weights = None if weights is None else check_weights("weights", weights, len(self.indices))
        self.labels = labels

    @property
    def n_edges(self) -> int:
        """Number of undirected edges (each stored twice)."""
        return int(len(self.indices) // 2)

    def degrees(self) -> np.ndarray:
        return np.diff(self.indptr)

    def to_scipy(self) -> sp.csr_array:
        """The symmetric adjacency matrix: the weights, or 1.0 per stored edge."""
        data = self.weights if self.weights is not None else np.ones(len(self.indices))
        return sp.csr_array((data, self.indices, self.indptr), shape=(self.n, self.n))

    def __repr__(self) -> str:
        w = f"weighted {self.weights.dtype}" if self.weights is not None else "unweighted"
        return f"Graph(n={self.n}, n_edges={self.n_edges}, {w})"

    @classmethod
    def from_edges(cls, u: Any, v: Any, weights: Any = None, n: int | None = None) -> Graph:
        """Build from edge lists ``u[k] -- v[k]`` (``weights[k]``); ``n`` defaults to max id + 1.

        The lists are an edge *set*: repeated edges (either direction) keep their heaviest copy. Matrices and
        ``(u, v, w)`` arrays given to ``weighted_matching`` are read as SciPy reads a matrix instead (repeated
        entries summed, then the larger of ``A[i, j]`` and ``A[j, i]``); pass a ``Graph`` to keep the set meaning."""
        u = np.asarray(u)
        v = np.asarray(v)
        if u.shape != v.shape:
            raise ValueError(f"u and v must have the same shape, got {u.shape} and {v.shape}")
        if n is None:
            n = int(max(u.max(initial=-1), v.max(initial=-1))) + 1
        u = check_index_array("u", u, n, "n")
        v = check_index_array("v", v, n, "n")
        w = None
        if weights is not None:
            w = np.asarray(weights)
            if w.shape != u.shape:
                raise ValueError(f"weights must have the same shape as u, got {w.shape} and {u.shape}")
            w = check_weights("weights", w, u.size)
        return cls._symmetrize(u.astype(np.int64), v.astype(np.int64), w, n)

    @classmethod
    def _symmetrize(cls, u: np.ndarray, v: np.ndarray, w: np.ndarray | None, n: int) -> Graph:
        keep = u != v
        u, v = u[keep], v[keep]
        r = np.concatenate([u, v])
        c = np.concatenate([v, u])
        if w is None:
            a = sp.csr_array((np.ones(len(r), dtype=np.bool_), (r, c)), shape=(n, n))
            a.sum_duplicates()
            return cls(n, a.indptr, a.indices)
        w = w[keep]
        ww = np.concatenate([w, w])
        order = np.lexsort((c, r))
        r, c, ww = r[order], c[order], ww[order]
        first = np.ones(len(r), dtype=bool)
        first[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
        starts = np.flatnonzero(first)
        ww = np.maximum.reduceat(ww, starts) if len(starts) else ww[:0]
        r, c = r[starts], c[starts]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(r, minlength=n), out=indptr[1:])
        return cls(n, indptr, c, ww)
