"""Weighted matching's input side: every accepted form -> a :class:`~matchflow.Graph` with int64, uint64 or float64
weights (:func:`prepare`, :func:`as_weighted_graph`). Duplicates are summed exactly (SciPy's rule), the matrix is
symmetrised (the larger of ``A[i, j]`` and ``A[j, i]``); a canonical square scipy.sparse input is taken as its own
arrays and checked for symmetry where the solve runs: on the host by one parallel cursor pass
(:func:`_symmetric_kernel`), on the GPU after the upload (``_gpu_graph``).
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import scipy.sparse as sp

from .._graph import Graph, as_graph, index_dtype
from .._graph._common import check_index_array, check_weights
from .._validation import to_host_array, type_name
from ._prepare_weights import sum_duplicates

__all__ = ["prepare", "as_weighted_graph", "host_graph", "SYMMETRY_PART_EDGES"]


def _edge_arrays(graph: tuple | list) -> tuple[Graph, tuple]:
    """Edge arrays read as the matrix ``coo_array((w, (u, v)))``: duplicates summed (:func:`_from_coo`)."""
    if len(graph) not in (2, 3):
        raise ValueError(f"graph as edge arrays must be (u, v) or (u, v, weights), got {len(graph)} arrays")
    u = np.asarray(to_host_array(graph[0], "u"))
    v = np.asarray(to_host_array(graph[1], "v"))
    if u.shape != v.shape:
        raise ValueError(f"u and v must have the same shape, got {u.shape} and {v.shape}")
    w = to_host_array(graph[2], "weights") if len(graph) == 3 else np.ones(u.shape)
    n = int(max(u.max(initial=-1), v.max(initial=-1))) + 1 if u.size else 0
    u, v = (check_index_array(x, a, n, "n").astype(np.int64) for x, a in (("u", u), ("v", v)))
    w = np.asarray(w)
    if w.shape != u.shape:
        raise ValueError(f"weights must have the same shape as u, got {w.shape} and {u.shape}")
    g = _from_coo(u, v, check_weights("weights", w, u.size), n, n, "weights")
    return g, (u, v, w)

def _from_coo(r: np.ndarray, c: np.ndarray, w: np.ndarray, m: int, n: int, name: str, offset: int = 0) -> Graph:
    """The graph of the m x n matrix with entries ``(r, c, w)``: duplicates summed exactly (SciPy's rule),
    zeros dropped, then symmetrised (the larger of A[i, j] and A[j, i]); columns shifted by ``offset``."""
    r, c, w = sum_duplicates(r, c, w, n, name)
    keep = w != 0
    return Graph.from_edges(r[keep], c[keep] + offset, w[keep], n=max(m, n + offset))

def _networkx(G: Any, weight: str) -> Graph:
    nodes = list(G.nodes)
    idx = {x: i for i, x in enumerate(nodes)}
    us, vs, ws = [], [], []
    for a, b, d in G.edges(data=True):
        us.append(idx[a])
        vs.append(idx[b])
        ws.append(d.get(weight, 1))
    w = np.asarray(ws) if ws else np.zeros(0)
    if w.dtype == object or w.dtype.kind not in "iuf":
        raise TypeError(f"graph's edge attribute {weight!r} must hold numbers, got dtype {w.dtype}")
    g = Graph.from_edges(np.asarray(us, dtype=np.int64), np.asarray(vs, dtype=np.int64), w, n=len(nodes))
    g.labels = nodes
    return g

@nb.njit(cache=True, inline="always")
def _symmetric_part_dev(ptr, ind, data, cur, p, parts):
    """Part ``p`` of ``parts`` of :func:`_symmetric_kernel`'s pass: the number of defects it finds."""
    n = len(ptr) - 1
    nnz = ptr[n]
    jlo = min(np.searchsorted(ptr[:n], nnz * p // parts), n) if p > 0 else 0
    jhi = min(np.searchsorted(ptr[:n], nnz * (p + 1) // parts), n) if p + 1 < parts else n
    bad = 0
    if jlo >= jhi:
        return bad
    for i in range(jlo, n):
        k = ptr[i]
        end = ptr[i + 1]
        while k < end:
            j = ind[k]
            if j >= i or j >= jhi:
                break
            if j >= jlo:
                c = cur[j]
                if c == ptr[j + 1] or ind[c] != i or data[c] != data[k]:
                    bad += 1
                else:
                    cur[j] = c + 1
            k += 1
        if i < jhi:  # row i is this part's: its cursor starts right of the diagonal
            while k < end and ind[k] < i:
                k += 1
            if k < end and ind[k] == i:
                bad += 1
            cur[i] = k
    for j in range(jlo, jhi):
        if cur[j] != ptr[j + 1]:
            bad += 1
    return bad

@nb.njit(parallel=True, cache=True)
def _symmetric_kernel(ptr, ind, data, parts):
    """True when the CSR (rows sorted, no duplicates) is symmetric with equal values and has no diagonal
    entry: one pass with a cursor per row. Visiting rows i in increasing order, row i's lower entry
    (i, j < i) must be the next unread upper entry of row j (``cur[j]``, set when row j was visited: its
    first entry right of the diagonal); at the end every cursor is at its row's end. Part p of ``parts``
    (in parallel) owns the cursors of the rows j of its slice of the entries and reads, in every row
    i >= its first row, only the lower entries that point into its slice: O(nnz) random reads in all,
    plus a streaming read of the lower entries per part. The answer does not depend on ``parts``."""
    cur = np.empty(len(ptr) - 1, dtype=ptr.dtype)
    bad = np.zeros(parts, dtype=np.int64)  # one count per part, summed after the loop: no scalar reduction in
    for p in nb.prange(parts):              # prange (numba 0.68 on Python 3.12+ fails to compile one)
        bad[p] = _symmetric_part_dev(ptr, ind, data, cur, p, parts)
    return bad.sum() == 0

@nb.njit(cache=True)
def _symmetric_serial_kernel(ptr, ind, data):
    """:func:`_symmetric_kernel` in one part on the calling thread (no parallel region to start)."""
    return _symmetric_part_dev(ptr, ind, data, np.empty(len(ptr) - 1, dtype=ptr.dtype), 0, 1) == 0

#: edges per part of the parallel host symmetry check: below 2 parts' worth it runs on the calling thread (a
#: parallel region costs ~8 ms at p90 on a shared 2-core machine, as the matching's CSC build measured)
SYMMETRY_PART_EDGES = 1 << 21

def _trusted(n: int, ptr: np.ndarray, ind: np.ndarray, w: np.ndarray) -> Graph:
    """A :class:`Graph` of arrays already in its dtypes, without the constructor's O(nnz) passes (the
    finite-weight test runs with the symmetry check: on the host, or on the device for the GPU)."""
    g = Graph.__new__(Graph)
    g.n, g.indptr, g.indices, g.weights, g.labels = int(n), ptr, ind, w, None
    return g

def _canonical_square(a: Any) -> Graph | None:
    """A canonical square CSR/CSC with int/float values as a Graph of its own arrays (no copy of the
    indices), NOT yet checked for symmetry (:func:`_symmetric_on_host`, or on the device); None sends
    anything else to the general path."""
    if a.format not in ("csr", "csc") or a.shape[0] != a.shape[1] or not a.has_canonical_format:
        return None
    if a.dtype.kind not in "iuf" or (a.dtype.kind == "u" and a.dtype.itemsize == 8):
        return None
    data = np.asarray(a.data)
    it = index_dtype(a.shape[0], len(a.indices))
    ptr, ind = (np.ascontiguousarray(x, dtype=it) for x in (a.indptr, a.indices))
    raw = data.dtype.isnative and data.dtype in (np.int32, np.int64, np.float32, np.float64)
    w = np.ascontiguousarray(data, dtype=data.dtype if raw else np.float64 if data.dtype.kind == "f" else np.int64)
    return _trusted(a.shape[0], ptr, ind, w)  # int32/float32 kept: the GPU uploads them as they are (_widen)

def _widen(g: Graph) -> Graph:
    """int64 / float64 / uint64 weights (one copy of int32 / float32 ones), as every host kernel and result take."""
    if g.weights.dtype in (np.int64, np.float64, np.uint64):
        return g
    w = g.weights.astype(np.float64 if g.weights.dtype.kind == "f" else np.int64)
    return _trusted(g.n, g.indptr, g.indices, w)

def _symmetric_on_host(g: Graph) -> bool:
    """The host check of an unchecked :func:`_canonical_square` graph (finite weights, symmetric, no diagonal)."""
    if g.weights.dtype.kind == "f" and not np.all(np.isfinite(g.weights)):
        return False
    parts = min(nb.get_num_threads(), len(g.indices) // SYMMETRY_PART_EDGES)
    if parts < 2:
        return bool(_symmetric_serial_kernel(g.indptr, g.indices, g.weights))
    return bool(_symmetric_kernel(g.indptr, g.indices, g.weights, parts))

def _bipartite(a: Any) -> Graph:
    """Rows 0..m-1 and columns m..m+n-1 of a (rectangular) matrix as one general graph."""
    coo = sp.coo_array(a) if sp.issparse(a) else sp.coo_array(np.asarray(to_host_array(a, "graph")))
    m, n = coo.shape
    return _from_coo(coo.coords[0].astype(np.int64), coo.coords[1].astype(np.int64),
                     check_weights("graph's weights", np.asarray(coo.data), coo.nnz), m, n, "graph", offset=m)

def _summed(a: Any) -> Graph:
    """A square scipy.sparse matrix that is not a canonical CSR/CSC (COO, duplicates, unsorted): its
    duplicates summed exactly, then symmetrised like any matrix."""
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        return as_graph(a, "graph")  # its error message
    coo = sp.coo_array(a)
    if coo.dtype == np.bool_:
        return as_graph(coo, "graph")
    return _from_coo(coo.coords[0].astype(np.int64), coo.coords[1].astype(np.int64),
                     check_weights("graph's weights", np.asarray(coo.data), coo.nnz), a.shape[0], a.shape[1], "graph")

def as_weighted_graph(graph: Any, *, weight: str = "weight", bipartite: bool = False) -> tuple[Graph, tuple | None]:
    """User input -> a :class:`Graph` with int64 or float64 weights (and the edge arrays, if given)."""
    g, edges, pending = prepare(graph, weight, bipartite)
    return host_graph(g, pending), edges

def host_graph(g: Graph, pending: Any) -> Graph:
    """The graph every CPU solve takes: a canonical input ``pending`` checked for symmetry on the host (the general
    path when it fails), weights widened to int64 / uint64 / float64."""
    if pending is not None and not _symmetric_on_host(g):
        g = _general(pending)
    return _widen(g)


def _general(graph: Any) -> Graph:
    """The general path of a square matrix: symmetrised (the larger of A[i, j] and A[j, i]), checked."""
    return _normalise(as_graph(graph, "graph"))

def prepare(graph: Any, weight: str, bipartite: bool) -> tuple[Graph, tuple | None, Any]:
    """``(graph, edge arrays, pending)``: ``pending`` is the scipy.sparse input when ``graph`` is its
    canonical CSR not yet checked for symmetry (the caller checks it where the solve runs)."""
    edges = None
    if isinstance(graph, Graph):
        g = graph
    elif isinstance(graph, tuple) and len(graph) in (2, 3) and all(  # a list is a matrix, as everywhere else
            hasattr(x, "__len__") or hasattr(x, "__array__") for x in graph):
        g, edges = _edge_arrays(graph)
    elif type(graph).__module__.startswith("networkx"):
        g = _networkx(graph, weight)
    else:
        if type(graph).__module__.startswith("cupyx") and hasattr(graph, "get"):
            graph = graph.get()
        shape = getattr(graph, "shape", None)
        if shape is not None and len(shape) == 2 and (bipartite or shape[0] != shape[1]):
            g = _bipartite(graph)
        else:
            if graph is None or isinstance(graph, (str, bytes, dict, set)):
                raise TypeError("graph must be a scipy.sparse matrix, a 2-D array, a networkx graph, edge arrays "
                                f"(u, v, weights) or a matchflow.Graph, got {type_name(graph)}")
            g = _canonical_square(graph) if sp.issparse(graph) else None
            if g is not None:
                return g, None, graph
            g = _summed(graph) if sp.issparse(graph) else as_graph(graph, "graph")
    return _normalise(g), edges, None

def _normalise(g: Graph) -> Graph:
    """int64, uint64 (beyond int64) or float64 weights (all 1 for an unweighted graph); non-finite weights raise."""
    w = np.ones(len(g.indices)) if g.weights is None else g.weights
    if w.dtype.kind == "f":
        w = w.astype(np.float64, copy=False)
        if not np.all(np.isfinite(w)):
            raise ValueError(f"graph's weights must be finite, got {w[~np.isfinite(w)][0]}")
    elif w.dtype.kind == "u" and w.dtype.itemsize == 8 and w.size and int(w.max()) > np.iinfo(np.int64).max:
        w = w.astype(np.uint64, copy=False)  # kept exactly: every kernel compares in the weights' own dtype
    else:
        w = w.astype(np.int64, copy=False)
    if w is not g.weights:
        g = Graph(g.n, g.indptr, g.indices, w, labels=g.labels)
    return g
