"""The bipartite graph container (rows ``V_R``, columns ``V_C``) with optional edge weights."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp

from ._common import check_index_array, check_shape, check_weights, index_dtype


class BipartiteGraph:
    """A bipartite graph between ``n_rows`` row vertices and ``n_cols`` column vertices.

    Attributes
    ----------
    row_ptr, col_ind : CSR adjacency, rows -> columns (sorted, no duplicates)
    col_ptr, row_ind : CSC adjacency, columns -> rows (built on first use)
    weights : None, or one weight per edge in CSR order; integers stay integers, float32
        stays float32 (native byte order). ``csc_weights`` is the same array in CSC order
        (``weights[csc_perm]``), so a walk from the columns sees the weights of its edges.
    row_labels, col_labels : optional original vertex names (networkx input)
    """

    __slots__ = ("n_rows", "n_cols", "row_ptr", "col_ind", "_col_ptr", "_row_ind", "_csc_perm", "weights",
                 "row_labels", "col_labels")

    def __init__(  # noqa: PLR0913 - the public BipartiteGraph constructor keeps its signature
        self,
        n_rows: int,
        n_cols: int,
        row_ptr: np.ndarray,
        col_ind: np.ndarray,
        col_ptr: np.ndarray | None = None,
        row_ind: np.ndarray | None = None,
        *,
        weights: np.ndarray | None = None,
        row_labels: list | None = None,
        col_labels: list | None = None,
    ) -> None:
        # Trusted constructor: arrays must already be canonical (use from_* / as_bipartite to validate).
        it = index_dtype(n_rows, n_cols, len(col_ind))
        self.n_rows = int(n_rows)
        self.n_cols = int(n_cols)
        self.row_ptr = np.ascontiguousarray(row_ptr, dtype=it)
        self.col_ind = np.ascontiguousarray(col_ind, dtype=it)
        # the CSC is built lazily, on first use (solvers that search from the rows never need it)
        self._col_ptr = None if col_ptr is None or row_ind is None else np.ascontiguousarray(col_ptr, dtype=it)
        self._row_ind = None if self._col_ptr is None else np.ascontiguousarray(row_ind, dtype=it)
        self._csc_perm = None
        self.weights = None if weights is None else check_weights("weights", weights, len(self.col_ind))
        self.row_labels = row_labels
        self.col_labels = col_labels

    # ------------------------------------------------------------------ basics
    def _build_csc(self) -> None:
        # the CSR edge ids ride along: CSC slot k holds CSR edge csc_perm[k] (a stable counting sort,
        # so rows ascend within each column: the arrays SciPy's tocsc gives, on any thread count)
        it = self.col_ind.dtype
        m = len(self.col_ind)
        col_ptr = np.empty(self.n_cols + 1, dtype=it)
        row_ind = np.empty(m, dtype=it)
        perm = np.empty(m, dtype=it)
        n_chunks = csc_chunks(self.n_rows, self.n_cols, m, numba.get_num_threads())
        if n_chunks == 1:
            csr_to_csc_serial_kernel(self.row_ptr, self.col_ind, col_ptr, row_ind, perm)
        else:
            csr_to_csc_kernel(self.row_ptr, self.col_ind, n_chunks, col_ptr, row_ind, perm)
        self._col_ptr, self._row_ind, self._csc_perm = col_ptr, row_ind, perm

    def _csc(self, name: str) -> np.ndarray:
        """The CSC array ``name`` (``_col_ptr``, ``_row_ind``, ``_csc_perm``); the CSC is built when it is None
        (a graph given its CSC arrays has no ``_csc_perm`` yet)."""
        if getattr(self, name) is None:
            self._build_csc()
        return getattr(self, name)

    @property
    def col_ptr(self) -> np.ndarray:
        """CSC column pointers (built on first access)."""
        return self._csc("_col_ptr")

    @property
    def row_ind(self) -> np.ndarray:
        """CSC row indices, sorted per column (built on first access)."""
        return self._csc("_row_ind")

    @property
    def csc_perm(self) -> np.ndarray:
        """For each CSC slot, the CSR position of its edge (``row_ind == rows_of_csr[csc_perm]``)."""
        return self._csc("_csc_perm")

    @property
    def csc_weights(self) -> np.ndarray | None:
        """The weights in CSC order (None without weights)."""
        return None if self.weights is None else self.weights[self.csc_perm]

    @property
    def has_csc(self) -> bool:
        """Whether the CSC arrays are built already."""
        return self._col_ptr is not None

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_rows, self.n_cols)

    @property
    def nnz(self) -> int:
        """Number of edges."""
        return int(len(self.col_ind))

    n_edges = nnz

    @property
    def itype(self) -> np.dtype:
        return self.col_ind.dtype

    def row_degrees(self) -> np.ndarray:
        return np.diff(self.row_ptr)

    def col_degrees(self) -> np.ndarray:
        return np.diff(self.col_ptr)

    def transpose(self) -> BipartiteGraph:
        """Swap the roles of rows and columns (no copy of the index arrays)."""
        t = BipartiteGraph(self.n_cols, self.n_rows, self.col_ptr, self.row_ind, self.row_ptr, self.col_ind,
                           weights=self.csc_weights, row_labels=self.col_labels, col_labels=self.row_labels)
        if self._csc_perm is not None:  # the transpose's CSC is our CSR: invert the permutation
            inv = np.empty_like(self._csc_perm)
            inv[self._csc_perm] = np.arange(len(inv), dtype=inv.dtype)
            t._csc_perm = inv
        return t

    T = property(transpose)

    def to_scipy(self, fmt: str = "csr") -> sp.sparray:
        """The graph as a ``scipy.sparse`` array (``csr`` or ``csc``): the weights, or True per edge."""
        if fmt == "csc":
            data = np.ones(self.nnz, dtype=np.bool_) if self.weights is None else self.csc_weights
            return sp.csc_array((data, self.row_ind, self.col_ptr), shape=self.shape)
        data = np.ones(self.nnz, dtype=np.bool_) if self.weights is None else self.weights
        return sp.csr_array((data, self.col_ind, self.row_ptr), shape=self.shape)

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cols) of every edge, in CSR order (the order of ``weights``)."""
        rows = np.repeat(np.arange(self.n_rows, dtype=self.itype), np.diff(self.row_ptr))
        return rows, self.col_ind.copy()

    def __repr__(self) -> str:
        w = "" if self.weights is None else f", weights={self.weights.dtype}"
        return f"BipartiteGraph(n_rows={self.n_rows}, n_cols={self.n_cols}, nnz={self.nnz}, itype={self.itype}{w})"

    # ------------------------------------------------------------ constructors
    @classmethod
    def from_edges(cls, rows: Any, cols: Any, shape: tuple[int, int] | None = None,
                   weights: Any = None) -> BipartiteGraph:
        """Build from edge lists; duplicates are merged (their weights summed, as SciPy sums
        duplicate COO entries). ``shape`` defaults to max index + 1."""
        r = np.asarray(rows)
        c = np.asarray(cols)
        if r.shape != c.shape:
            raise ValueError(f"rows and cols must have the same shape, got {r.shape} and {c.shape}")
        if shape is None:
            shape = (int(r.max()) + 1 if r.size else 0, int(c.max()) + 1 if c.size else 0)
        n_rows, n_cols = check_shape(shape)
        r = check_index_array("rows", r, n_rows, "n_rows")
        c = check_index_array("cols", c, n_cols, "n_cols")
        w = None if weights is None else check_weights("weights", weights, r.size)
        return cls._from_coo(r, c, n_rows, n_cols, w)

    @classmethod
    def from_csr(cls, indptr: Any, indices: Any, shape: tuple[int, int], weights: Any = None) -> BipartiteGraph:
        """Build from CSR arrays (validated; unsorted or duplicate indices are fixed, duplicate weights summed)."""
        n_rows, n_cols = check_shape(shape)
        indptr = np.asarray(indptr)
        if indptr.ndim != 1 or len(indptr) != n_rows + 1:
            raise ValueError(f"indptr must have length n_rows + 1 = {n_rows + 1}, got shape {indptr.shape}")
        if not np.issubdtype(indptr.dtype, np.integer):
            raise TypeError(f"indptr must hold integers, got dtype {indptr.dtype}")
        if len(indptr) and (indptr[0] != 0 or np.any(np.diff(indptr) < 0)):
            raise ValueError("indptr must start at 0 and be non-decreasing")
        indices = check_index_array("indices", indices, n_cols, "n_cols")
        if len(indptr) and int(indptr[-1]) != len(indices):
            raise ValueError(f"indptr[-1] = {int(indptr[-1])} must equal len(indices) = {len(indices)}")
        w = None if weights is None else check_weights("weights", weights, len(indices))
        rows = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(indptr))
        return cls._from_coo(rows, indices, n_rows, n_cols, w)

    @classmethod
    def from_networkx(
        cls, G: Any, row_nodes: Iterable[Hashable], col_nodes: Iterable[Hashable] | None = None,
        weight: str | None = None,
    ) -> BipartiteGraph:
        """Build from a networkx graph with explicit node sets.

        Rows are ``row_nodes`` in the given order; columns are ``col_nodes`` (default:
        every other node, in ``G``'s order). Labels are kept in ``row_labels``/``col_labels``.
        ``weight``: the edge attribute holding the weights (missing on an edge: 1), or None.
        """
        row_list = list(row_nodes)
        row_idx = {v: i for i, v in enumerate(row_list)}
        if len(row_idx) != len(row_list):
            raise ValueError("row_nodes holds a node twice")
        for v in row_list:
            if v not in G:
                raise ValueError(f"row_nodes holds {v!r}, which is not a node of the graph")
        if col_nodes is None:
            col_list = [v for v in G.nodes if v not in row_idx]
        else:
            col_list = list(col_nodes)
            for v in col_list:
                if v in row_idx:
                    raise ValueError(f"node {v!r} is in both row_nodes and col_nodes")
                if v not in G:
                    raise ValueError(f"col_nodes holds {v!r}, which is not a node of the graph")
        col_idx = {v: j for j, v in enumerate(col_list)}
        rs, cs, ws = [], [], []
        for u, v, d in G.edges(data=True):
            if u in row_idx and v in col_idx:
                rs.append(row_idx[u]); cs.append(col_idx[v])  # noqa: E702
            elif v in row_idx and u in col_idx:
                rs.append(row_idx[v]); cs.append(col_idx[u])  # noqa: E702
            else:
                raise ValueError(
                    f"edge ({u!r}, {v!r}) does not join a row node to a column node; "
                    "the graph is not bipartite with these node sets"
                )
            if weight is not None:
                ws.append(d.get(weight, 1))
        w = None if weight is None else check_weights("weights", np.asarray(ws) if ws else np.zeros(0), len(rs))
        g = cls._from_coo(np.asarray(rs, dtype=np.int64), np.asarray(cs, dtype=np.int64), len(row_list),
                          len(col_list), w)
        g.row_labels, g.col_labels = row_list, col_list
        return g

    @classmethod
    def _from_coo(cls, r: np.ndarray, c: np.ndarray, n_rows: int, n_cols: int,
                  w: np.ndarray | None = None) -> BipartiteGraph:
        # scipy's C++ coo->csr and sum_duplicates give sorted, duplicate-free CSR fast.
        data = np.ones(len(r), dtype=np.bool_) if w is None else w
        a = sp.csr_array((data, (r, c)), shape=(n_rows, n_cols))
        a.sum_duplicates()
        if w is not None and w.dtype.kind in "iu" and a.nnz < len(r):
            a = _summed_integer_weights(r, c, w, (n_rows, n_cols))
        return cls._from_csr_trusted(a, w is not None)

    @classmethod
    def _from_csr_trusted(cls, a: sp.sparray, weighted: bool = False) -> BipartiteGraph:
        if not a.has_canonical_format:
            a = a.copy()
            a.sum_duplicates()
        n_rows, n_cols = a.shape
        return cls(n_rows, n_cols, a.indptr, a.indices, weights=a.data if weighted else None)


def _summed_integer_weights(r: np.ndarray, c: np.ndarray, w: np.ndarray, shape: tuple) -> sp.csr_array:
    """Duplicate edges with integer weights, summed without wrapping: in int64, kept in ``w``'s dtype
    when every sum fits it, else int64; sums beyond int64 raise."""
    a = sp.csr_array((w.astype(np.float64), (r, c)), shape=shape)
    a.sum_duplicates()
    if a.nnz and float(np.abs(a.data).max()) >= 2.0**63:
        raise ValueError(f"weights: duplicate edges sum to {float(np.abs(a.data).max()):.4g}, beyond int64")
    a = sp.csr_array((w.astype(np.int64), (r, c)), shape=shape)
    a.sum_duplicates()
    info = np.iinfo(w.dtype)
    if not a.nnz or (int(a.data.min()) >= info.min and int(a.data.max()) <= info.max):
        a.data = a.data.astype(w.dtype)
    return a



#: edges per row block of the parallel CSC build (smaller graphs are sorted by one thread): a block must
#: outweigh a parallel region's cost on a shared machine (one scheduler slice, ~8 ms, when a core is busy)
CSC_BLOCK_EDGES = 1 << 22


def csc_chunks(n_rows: int, n_cols: int, nnz: int, threads: int) -> int:
    """Row blocks of the parallel CSC build: one per thread, at most nnz / n_cols (the per-block column
    histograms then take at most nnz entries) and one per CSC_BLOCK_EDGES edges (below that a thread
    costs more than it saves). The result does not depend on it."""
    return int(max(1, min(threads, nnz // max(n_cols, 1), nnz // CSC_BLOCK_EDGES, max(n_rows, 1))))


@numba.njit(cache=True)
def csr_to_csc_serial_kernel(row_ptr, col_ind, col_ptr, row_ind, perm):
    """One-thread counting sort CSR -> CSC (the one-block case of :func:`csr_to_csc_kernel`)."""
    n_cols = len(col_ptr) - 1
    col_ptr[:] = 0
    for k in range(row_ptr[len(row_ptr) - 1]):
        col_ptr[col_ind[k] + 1] += 1
    for j in range(n_cols):
        col_ptr[j + 1] += col_ptr[j]
    nxt = col_ptr[:n_cols].copy()
    for r in range(len(row_ptr) - 1):
        for k in range(row_ptr[r], row_ptr[r + 1]):
            p = nxt[col_ind[k]]
            nxt[col_ind[k]] = p + 1
            row_ind[p] = r
            perm[p] = k


@numba.njit(cache=True)
def _count_block_dev(row_ptr, col_ind, lo, hi, cnt):
    """cnt[j] = number of edges of rows lo..hi-1 in column j."""
    for k in range(row_ptr[lo], row_ptr[hi]):
        cnt[col_ind[k]] += 1


@numba.njit(cache=True)
def _scatter_block_dev(row_ptr, col_ind, lo, hi, col_ptr, nxt, row_ind, perm):
    """Place the edges of rows lo..hi-1, in row order; ``col_ptr[j] + nxt[j]`` is column j's next slot."""
    for r in range(lo, hi):
        for k in range(row_ptr[r], row_ptr[r + 1]):
            j = col_ind[k]
            p = col_ptr[j] + nxt[j]
            nxt[j] += 1
            row_ind[p] = r
            perm[p] = k


@numba.njit(cache=True)
def _col_prefix_dev(cnt, col_ptr, lo, hi):
    """For columns lo..hi-1: cnt[b, j] <- edges of column j in the blocks before b; col_ptr[j + 1] <- degree."""
    for j in range(lo, hi):
        s = 0
        for b in range(cnt.shape[0]):
            t = cnt[b, j]
            cnt[b, j] = s
            s += t
        col_ptr[j + 1] = s


@numba.njit(cache=True, parallel=True)
def csr_to_csc_kernel(row_ptr, col_ind, n_chunks, col_ptr, row_ind, perm):
    """Stable parallel counting sort CSR -> CSC (``col_ptr``, ``row_ind``, ``perm``: CSC slot -> CSR slot).

    The rows are cut into ``n_chunks`` blocks of about equal edge counts; each block counts its
    columns (``cnt[b, j]``), a per-column prefix over the blocks and one over the columns give every
    block its first slot in every column, and each block scatters its edges in row order. Rows ascend
    within each column whatever ``n_chunks`` is (same output as SciPy's ``tocsc``).
    """
    n_rows = len(row_ptr) - 1
    n_cols = len(col_ptr) - 1
    m = row_ptr[n_rows] if n_rows > 0 else 0
    rb = np.empty(n_chunks + 1, dtype=np.int64)
    for b in range(n_chunks):
        rb[b] = np.searchsorted(row_ptr[:n_rows], (m * b) // n_chunks)
    rb[n_chunks] = n_rows
    cnt = np.zeros((n_chunks, n_cols), dtype=col_ptr.dtype)
    for b in numba.prange(n_chunks):
        _count_block_dev(row_ptr, col_ind, rb[b], rb[b + 1], cnt[b])
    for b in numba.prange(n_chunks):
        _col_prefix_dev(cnt, col_ptr, (n_cols * b) // n_chunks, (n_cols * (b + 1)) // n_chunks)
    col_ptr[0] = 0
    for j in range(n_cols):
        col_ptr[j + 1] += col_ptr[j]
    for b in numba.prange(n_chunks):
        _scatter_block_dev(row_ptr, col_ind, rb[b], rb[b + 1], col_ptr, cnt[b], row_ind, perm)
