"""Graph containers shared by all solvers.

* :class:`BipartiteGraph` — rows ``V_R`` and columns ``V_C`` of a sparse matrix, stored
  both as CSR (row -> columns) and CSC (column -> rows), sorted, without duplicates.
* :class:`Graph` — an undirected general graph as a symmetric CSR with optional weights.

Index arrays are ``int32`` when every index and offset fits, ``int64`` otherwise.
:func:`as_bipartite` and :func:`as_graph` turn user input (scipy.sparse in any format,
dense NumPy / CuPy / PyTorch arrays, networkx graphs) into these containers; they are
the single entry point of the validation layer for graphs.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._validation import is_cupy_array, is_torch_tensor, to_host_array, type_name

__all__ = ["BipartiteGraph", "Graph", "as_bipartite", "as_graph", "index_dtype"]

_I32_MAX = np.iinfo(np.int32).max

_ACCEPTED = (
    "a scipy.sparse matrix or array, a 2-D array (NumPy, CuPy or PyTorch), "
    "a networkx graph or a matchflow.BipartiteGraph"
)


def index_dtype(*sizes: int) -> np.dtype:
    """int32 when every size (vertex counts, edge count) fits in int32, else int64."""
    return np.dtype(np.int32) if max((int(s) for s in sizes), default=0) <= _I32_MAX else np.dtype(np.int64)


def _check_index_array(name: str, a: Any, bound: int, bound_name: str) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        if np.issubdtype(a.dtype, np.floating) and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
            a = a.astype(np.int64)
        else:
            raise TypeError(f"{name} must hold integers, got dtype {a.dtype}")
    if a.size:
        lo, hi = int(a.min()), int(a.max())
        if lo < 0:
            raise ValueError(f"{name} holds a negative index {lo}")
        if hi >= bound:
            raise ValueError(f"{name} holds index {hi}, out of range for {bound_name}={bound}")
    return a


class BipartiteGraph:
    """A bipartite graph between ``n_rows`` row vertices and ``n_cols`` column vertices.

    Attributes
    ----------
    row_ptr, col_ind : CSR adjacency, rows -> columns (sorted, no duplicates)
    col_ptr, row_ind : CSC adjacency, columns -> rows
    row_labels, col_labels : optional original vertex names (networkx input)
    """

    __slots__ = ("n_rows", "n_cols", "row_ptr", "col_ind", "_col_ptr", "_row_ind", "row_labels", "col_labels")

    def __init__(
        self,
        n_rows: int,
        n_cols: int,
        row_ptr: np.ndarray,
        col_ind: np.ndarray,
        col_ptr: np.ndarray | None = None,
        row_ind: np.ndarray | None = None,
        *,
        row_labels: list | None = None,
        col_labels: list | None = None,
    ) -> None:
        # Trusted constructor: arrays must already be canonical (use from_* to validate).
        it = index_dtype(n_rows, n_cols, len(col_ind))
        self.n_rows = int(n_rows)
        self.n_cols = int(n_cols)
        self.row_ptr = np.ascontiguousarray(row_ptr, dtype=it)
        self.col_ind = np.ascontiguousarray(col_ind, dtype=it)
        # the CSC is built lazily, on first use (solvers that search from the rows never need it)
        self._col_ptr = None if col_ptr is None or row_ind is None else np.ascontiguousarray(col_ptr, dtype=it)
        self._row_ind = None if self._col_ptr is None else np.ascontiguousarray(row_ind, dtype=it)
        self.row_labels = row_labels
        self.col_labels = col_labels

    # ------------------------------------------------------------------ basics
    def _build_csc(self) -> None:
        t = sp.csr_array(
            (np.ones(len(self.col_ind), dtype=np.bool_), self.col_ind, self.row_ptr),
            shape=(self.n_rows, self.n_cols),
        ).tocsc()
        t.sort_indices()
        it = self.col_ind.dtype
        self._col_ptr = np.ascontiguousarray(t.indptr, dtype=it)
        self._row_ind = np.ascontiguousarray(t.indices, dtype=it)

    @property
    def col_ptr(self) -> np.ndarray:
        """CSC column pointers (built on first access)."""
        if self._col_ptr is None:
            self._build_csc()
        return self._col_ptr

    @property
    def row_ind(self) -> np.ndarray:
        """CSC row indices, sorted per column (built on first access)."""
        if self._row_ind is None:
            self._build_csc()
        return self._row_ind

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
        """Swap the roles of rows and columns (no copy)."""
        return BipartiteGraph(
            self.n_cols,
            self.n_rows,
            self.col_ptr,
            self.row_ind,
            self.row_ptr,
            self.col_ind,
            row_labels=self.col_labels,
            col_labels=self.row_labels,
        )

    T = property(transpose)

    def to_scipy(self, fmt: str = "csr") -> sp.sparray:
        """The pattern as a boolean ``scipy.sparse`` array (``csr`` or ``csc``)."""
        if fmt == "csc":
            return sp.csc_array(
                (np.ones(self.nnz, dtype=np.bool_), self.row_ind, self.col_ptr), shape=self.shape
            )
        return sp.csr_array((np.ones(self.nnz, dtype=np.bool_), self.col_ind, self.row_ptr), shape=self.shape)

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cols) of every edge, in CSR order."""
        rows = np.repeat(np.arange(self.n_rows, dtype=self.itype), np.diff(self.row_ptr))
        return rows, self.col_ind.copy()

    def __repr__(self) -> str:
        return f"BipartiteGraph(n_rows={self.n_rows}, n_cols={self.n_cols}, nnz={self.nnz}, itype={self.itype})"

    # ------------------------------------------------------------ constructors
    @classmethod
    def from_edges(
        cls, rows: Any, cols: Any, shape: tuple[int, int] | None = None
    ) -> BipartiteGraph:
        """Build from edge lists; duplicates are merged. ``shape`` defaults to max index + 1."""
        r = np.asarray(rows)
        c = np.asarray(cols)
        if r.shape != c.shape:
            raise ValueError(f"rows and cols must have the same shape, got {r.shape} and {c.shape}")
        if shape is None:
            shape = (int(r.max()) + 1 if r.size else 0, int(c.max()) + 1 if c.size else 0)
        n_rows, n_cols = _check_shape(shape)
        r = _check_index_array("rows", r, n_rows, "n_rows")
        c = _check_index_array("cols", c, n_cols, "n_cols")
        return cls._from_coo(r, c, n_rows, n_cols)

    @classmethod
    def from_csr(cls, indptr: Any, indices: Any, shape: tuple[int, int]) -> BipartiteGraph:
        """Build from CSR arrays (validated; unsorted or duplicate indices are fixed)."""
        n_rows, n_cols = _check_shape(shape)
        indptr = np.asarray(indptr)
        if indptr.ndim != 1 or len(indptr) != n_rows + 1:
            raise ValueError(f"indptr must have length n_rows + 1 = {n_rows + 1}, got shape {indptr.shape}")
        if not np.issubdtype(indptr.dtype, np.integer):
            raise TypeError(f"indptr must hold integers, got dtype {indptr.dtype}")
        if len(indptr) and (indptr[0] != 0 or np.any(np.diff(indptr) < 0)):
            raise ValueError("indptr must start at 0 and be non-decreasing")
        indices = _check_index_array("indices", indices, n_cols, "n_cols")
        if len(indptr) and int(indptr[-1]) != len(indices):
            raise ValueError(f"indptr[-1] = {int(indptr[-1])} must equal len(indices) = {len(indices)}")
        rows = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(indptr))
        return cls._from_coo(rows, indices, n_rows, n_cols)

    @classmethod
    def from_networkx(
        cls, G: Any, row_nodes: Iterable[Hashable], col_nodes: Iterable[Hashable] | None = None
    ) -> BipartiteGraph:
        """Build from a networkx graph with explicit node sets.

        Rows are ``row_nodes`` in the given order; columns are ``col_nodes`` (default:
        every other node, in ``G``'s order). Labels are kept in ``row_labels``/``col_labels``.
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
        rs, cs = [], []
        for u, v in G.edges():
            if u in row_idx and v in col_idx:
                rs.append(row_idx[u]); cs.append(col_idx[v])
            elif v in row_idx and u in col_idx:
                rs.append(row_idx[v]); cs.append(col_idx[u])
            else:
                raise ValueError(
                    f"edge ({u!r}, {v!r}) does not join a row node to a column node; "
                    "the graph is not bipartite with these node sets"
                )
        g = cls._from_coo(np.asarray(rs, dtype=np.int64), np.asarray(cs, dtype=np.int64), len(row_list), len(col_list))
        g.row_labels, g.col_labels = row_list, col_list
        return g

    @classmethod
    def _from_coo(cls, r: np.ndarray, c: np.ndarray, n_rows: int, n_cols: int) -> BipartiteGraph:
        # scipy's C++ coo->csr and sum_duplicates give sorted, duplicate-free CSR fast.
        a = sp.csr_array((np.ones(len(r), dtype=np.bool_), (r, c)), shape=(n_rows, n_cols))
        a.sum_duplicates()
        return cls._from_csr_trusted(a)

    @classmethod
    def _from_csr_trusted(cls, a: sp.sparray) -> BipartiteGraph:
        if not a.has_canonical_format:
            a = a.copy()
            a.sum_duplicates()
        n_rows, n_cols = a.shape
        return cls(n_rows, n_cols, a.indptr, a.indices)


def _check_shape(shape: Any) -> tuple[int, int]:
    try:
        n_rows, n_cols = (int(s) for s in shape)
    except Exception as exc:
        raise ValueError(f"shape must be a pair of non-negative integers, got {shape!r}") from exc
    if n_rows < 0 or n_cols < 0:
        raise ValueError(f"shape must be a pair of non-negative integers, got {shape!r}")
    return n_rows, n_cols


def _sparse_to_bipartite(a: Any, explicit_zeros: bool) -> BipartiteGraph:
    if a.ndim != 2:
        raise ValueError(f"graph must be 2-D, got a sparse array of shape {a.shape}")
    if a.format in ("csr", "csc") and a.has_canonical_format and (
        explicit_zeros or a.dtype == np.bool_ or not np.any(a.data == 0)
    ):
        csr = a if a.format == "csr" else a.tocsr()
        if csr is not a and not csr.has_canonical_format:
            csr.sum_duplicates()
        return BipartiteGraph._from_csr_trusted(sp.csr_array(csr))
    coo = a.tocoo()
    r, c = coo.row if hasattr(coo, "row") else coo.coords[0], coo.col if hasattr(coo, "col") else coo.coords[1]
    if not explicit_zeros:
        keep = coo.data != 0
        r, c = r[keep], c[keep]
    return BipartiteGraph._from_coo(r, c, a.shape[0], a.shape[1])


def as_bipartite(graph: Any, name: str = "graph", *, explicit_zeros: bool = False) -> BipartiteGraph:
    """Convert any accepted input into a :class:`BipartiteGraph`.

    Nonzero entries are edges; stored zeros of a sparse matrix are edges only with
    ``explicit_zeros=True`` (SciPy's csgraph convention). NaN counts as nonzero.
    """
    if isinstance(graph, BipartiteGraph):
        return graph
    if sp.issparse(graph):  # before the dict test: dok matrices are dicts
        return _sparse_to_bipartite(graph, explicit_zeros)
    if graph is None or isinstance(graph, (str, bytes, dict, set)):
        raise TypeError(f"{name} must be {_ACCEPTED}, got {type_name(graph)}")
    mod = type(graph).__module__
    if mod.startswith("cupyx") and hasattr(graph, "get"):  # cupyx.scipy.sparse matrix
        return _sparse_to_bipartite(graph.get(), explicit_zeros)
    if is_torch_tensor(graph) and str(graph.layout) != "torch.strided":
        coo = graph.to_sparse_coo().coalesce()
        idx = coo.indices().cpu().numpy()
        vals = coo.values().cpu().numpy()
        if not explicit_zeros:
            idx = idx[:, vals != 0]
        return BipartiteGraph._from_coo(idx[0], idx[1], int(graph.shape[0]), int(graph.shape[1]))
    if mod.startswith("networkx"):
        return _networkx_to_bipartite(graph, name)
    if not (isinstance(graph, (np.ndarray, list, tuple)) or is_cupy_array(graph) or is_torch_tensor(graph)
            or hasattr(graph, "__array__")):
        raise TypeError(f"{name} must be {_ACCEPTED}, got {type_name(graph)}")
    a = to_host_array(graph, name)
    if a.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got an array of shape {a.shape}")
    if a.dtype == object or not (np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_):
        raise TypeError(f"{name} must hold numbers or booleans, got dtype {a.dtype}")
    r, c = np.nonzero(a)
    return BipartiteGraph._from_coo(r, c, a.shape[0], a.shape[1])


def _networkx_to_bipartite(G: Any, name: str) -> BipartiteGraph:
    attrs = dict(G.nodes(data="bipartite"))
    if attrs and all(v in (0, 1) for v in attrs.values()):
        rows = [v for v, s in attrs.items() if s == 0]
        cols = [v for v, s in attrs.items() if s == 1]
        return BipartiteGraph.from_networkx(G, rows, cols)
    raise ValueError(
        f"{name} is a networkx graph without a 'bipartite' node attribute (0 for rows, 1 for columns) "
        "on every node; set it, or call matchflow.BipartiteGraph.from_networkx(G, row_nodes)"
    )


class Graph:
    """An undirected graph as a symmetric CSR ``(indptr, indices[, weights])``.

    Self-loops are dropped and parallel edges merged (keeping the largest weight).
    """

    __slots__ = ("n", "indptr", "indices", "weights", "labels")

    def __init__(self, n: int, indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray | None = None,
                 *, labels: list | None = None) -> None:
        it = index_dtype(n, len(indices))
        self.n = int(n)
        self.indptr = np.ascontiguousarray(indptr, dtype=it)
        self.indices = np.ascontiguousarray(indices, dtype=it)
        self.weights = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        self.labels = labels

    @property
    def n_edges(self) -> int:
        """Number of undirected edges (each stored twice)."""
        return int(len(self.indices) // 2)

    def degrees(self) -> np.ndarray:
        return np.diff(self.indptr)

    def to_scipy(self) -> sp.csr_array:
        data = self.weights if self.weights is not None else np.ones(len(self.indices))
        return sp.csr_array((data, self.indices, self.indptr), shape=(self.n, self.n))

    def __repr__(self) -> str:
        w = "weighted" if self.weights is not None else "unweighted"
        return f"Graph(n={self.n}, n_edges={self.n_edges}, {w})"

    @classmethod
    def from_edges(cls, u: Any, v: Any, weights: Any = None, n: int | None = None) -> Graph:
        u = np.asarray(u)
        v = np.asarray(v)
        if u.shape != v.shape:
            raise ValueError(f"u and v must have the same shape, got {u.shape} and {v.shape}")
        if n is None:
            n = int(max(u.max(initial=-1), v.max(initial=-1))) + 1
        u = _check_index_array("u", u, n, "n")
        v = _check_index_array("v", v, n, "n")
        w = None
        if weights is not None:
            w = np.asarray(weights, dtype=np.float64)
            if w.shape != u.shape:
                raise ValueError(f"weights must have the same shape as u, got {w.shape} and {u.shape}")
            if not np.all(np.isfinite(w)):
                raise ValueError("weights must be finite")
        return cls._symmetrize(u, v, w, n)

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
        order = np.lexsort((-ww, c, r))
        r, c, ww = r[order], c[order], ww[order]
        first = np.ones(len(r), dtype=bool)
        first[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
        r, c, ww = r[first], c[first], ww[first]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(r, minlength=n), out=indptr[1:])
        return cls(n, indptr, c, ww)


def as_graph(graph: Any, name: str = "graph", *, weighted: bool = True) -> Graph:
    """Convert a square scipy.sparse / dense matrix or a networkx graph into a :class:`Graph`.

    The matrix is symmetrised (an edge where ``A[i, j]`` or ``A[j, i]`` is nonzero);
    the weight is the entry's value (the larger of the two when both exist).
    """
    if isinstance(graph, Graph):
        return graph
    if type(graph).__module__.startswith("networkx"):
        nodes = list(graph.nodes)
        idx = {v: i for i, v in enumerate(nodes)}
        us, vs, ws = [], [], []
        for a, b, d in graph.edges(data=True):
            us.append(idx[a]); vs.append(idx[b]); ws.append(d.get("weight", 1.0))
        g = Graph.from_edges(np.asarray(us, dtype=np.int64), np.asarray(vs, dtype=np.int64),
                             np.asarray(ws, dtype=np.float64) if weighted else None, n=len(nodes))
        g.labels = nodes
        return g
    if sp.issparse(graph):
        coo = sp.coo_array(graph)
    else:
        if isinstance(graph, BipartiteGraph) or graph is None or isinstance(graph, (str, bytes, dict, set)):
            raise TypeError(f"{name} must be a square scipy.sparse matrix, a 2-D array or a networkx graph, "
                            f"got {type_name(graph)}")
        a = to_host_array(graph, name)
        if a.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got an array of shape {a.shape}")
        coo = sp.coo_array(a)
    if coo.shape[0] != coo.shape[1]:
        raise ValueError(f"{name} must be square, got shape {coo.shape}")
    keep = coo.data != 0
    r, c = coo.coords[0][keep], coo.coords[1][keep]
    w = None
    if weighted:
        w = np.asarray(coo.data[keep], dtype=np.float64)
        if not np.all(np.isfinite(w)):
            raise ValueError(f"{name} holds non-finite weights")
    return Graph._symmetrize(r.astype(np.int64), c.astype(np.int64), w, coo.shape[0])
