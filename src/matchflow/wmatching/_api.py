"""Public API: :func:`weighted_matching` (½-approximate maximum-weight matching of a general graph)
and :func:`max_weight_matching_approx` (a networkx-style adapter).

Validate once at the door -> resolve method/backend -> the prepared :class:`~matchflow.Graph`
(int64 or float64 weights) -> the table's solve -> optional local search -> result.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numba as nb
import numpy as np
import scipy.sparse as sp

from .._graph import Graph, as_graph, index_dtype
from .._methods import check_method_options, place, resolve
from .._validation import check_bool, to_host_array, type_name
from ._cpu_suitor import improve_kernel, matched_weights_kernel
from ._methods import TABLE
from ._result import WeightedMatchingResult

__all__ = ["weighted_matching", "max_weight_matching_approx", "as_weighted_graph", "METHODS"]

METHODS = TABLE.names  # ("auto", "suitor", "ld", "greedy")
IMPROVE_PASSES = 50

def _edge_arrays(graph: tuple | list) -> tuple[Graph, tuple]:
    if len(graph) not in (2, 3):
        raise ValueError(f"graph as edge arrays must be (u, v) or (u, v, weights), got {len(graph)} arrays")
    u = to_host_array(graph[0], "u")
    v = to_host_array(graph[1], "v")
    w = to_host_array(graph[2], "weights") if len(graph) == 3 else np.ones(u.shape)
    g = Graph.from_edges(u, v, w)
    return g, (np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64), np.asarray(w))

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

@nb.njit(cache=True)
def _symmetric_kernel(ptr, ind, data):
    """True when the canonical CSR is symmetric with equal values and has no diagonal entry: row i's
    lower entries (i, j < i) consume row j's upper entries in order (one cursor per row, O(nnz))."""
    n = len(ptr) - 1
    cur = np.empty(n, dtype=ptr.dtype)
    for j in range(n):
        k = ptr[j]
        while k < ptr[j + 1] and ind[k] < j:
            k += 1
        if k < ptr[j + 1] and ind[k] == j:
            return False
        cur[j] = k
    for i in range(n):
        for k in range(ptr[i], ptr[i + 1]):
            j = ind[k]
            if j >= i:
                break
            c = cur[j]
            if c == ptr[j + 1] or ind[c] != i or data[c] != data[k]:
                return False
            cur[j] = c + 1
    for j in range(n):
        if cur[j] != ptr[j + 1]:
            return False
    return True


def _fast_symmetric(a: Any) -> Graph | None:
    """A canonical symmetric CSR/CSC without diagonal, as it is (no copy of the indices): the common
    input, checked in O(nnz log deg); None sends anything else to the general path."""
    if a.format not in ("csr", "csc") or a.shape[0] != a.shape[1] or not a.has_canonical_format:
        return None
    if a.dtype.kind not in "iuf" or (a.dtype.kind == "u" and a.dtype.itemsize == 8):
        return None
    data = np.asarray(a.data)
    if data.dtype.kind == "f" and not np.all(np.isfinite(data)):
        return None
    it = index_dtype(a.shape[0], len(a.indices))
    ptr, ind = a.indptr.astype(it, copy=False), a.indices.astype(it, copy=False)
    w = data.astype(np.float64 if data.dtype.kind == "f" else np.int64, copy=False)
    if not _symmetric_kernel(ptr, ind, w):
        return None
    return Graph(a.shape[0], ptr, ind, w)


def _bipartite(a: Any) -> Graph:
    """Rows 0..m-1 and columns m..m+n-1 of a (rectangular) matrix as one general graph."""
    coo = sp.coo_array(a) if sp.issparse(a) else sp.coo_array(np.asarray(to_host_array(a, "graph")))
    m, n = coo.shape
    keep = coo.data != 0
    return Graph.from_edges(coo.coords[0][keep].astype(np.int64), coo.coords[1][keep].astype(np.int64) + m,
                            np.asarray(coo.data[keep]), n=m + n)

def as_weighted_graph(graph: Any, *, weight: str = "weight", bipartite: bool = False) -> tuple[Graph, tuple | None]:
    """User input -> a :class:`Graph` with int64 or float64 weights (and the edge arrays, if given)."""
    edges = None
    if isinstance(graph, Graph):
        g = graph
    elif isinstance(graph, (tuple, list)) and len(graph) in (2, 3) and all(
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
            g = (_fast_symmetric(graph) if sp.issparse(graph) else None) or as_graph(graph, "graph")
    w = np.ones(len(g.indices)) if g.weights is None else g.weights
    if w.dtype.kind == "f":
        w = w.astype(np.float64, copy=False)
        if not np.all(np.isfinite(w)):
            raise ValueError(f"graph's weights must be finite, got {w[~np.isfinite(w)][0]}")
    elif w.dtype.kind == "u" and w.dtype.itemsize == 8 and w.size and int(w.max()) > np.iinfo(np.int64).max:
        w = w.astype(np.float64)
    else:
        w = w.astype(np.int64, copy=False)
    if w is not g.weights:
        g = Graph(g.n, g.indptr, g.indices, w, labels=g.labels)
    return g, edges

def _matched_edge_ids(edges: tuple, pairs: np.ndarray, n: int) -> np.ndarray:
    u, v, w = edges
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    key = lo * n + hi
    order = np.lexsort((np.arange(len(key)), -w.astype(np.float64), key))  # heaviest copy, then first
    ks = key[order]
    first = np.ones(len(ks), dtype=bool)
    first[1:] = ks[1:] != ks[:-1]
    ks, ids = ks[first], order[first]
    want = pairs[:, 0].astype(np.int64) * n + pairs[:, 1]
    return ids[np.searchsorted(ks, want)]

def _total(g: Graph, mate: np.ndarray) -> tuple[float, np.ndarray]:
    """(exact weight, matched pairs u < v)."""
    u = np.flatnonzero(mate > np.arange(len(mate)))
    pairs = np.stack([u, mate[u]], axis=1).astype(g.indices.dtype) if len(u) else np.zeros((0, 2), g.indices.dtype)
    per = np.zeros(g.n, dtype=g.weights.dtype)
    matched_weights_kernel(g.indptr, g.indices, g.weights, mate, per)
    w = per[u]
    if w.dtype.kind == "i":
        return float(sum(w.tolist())), pairs  # Python ints: exact, then one rounding
    return math.fsum(w.tolist()), pairs


def weighted_matching(
    graph: Any,
    *,
    method: str = "auto",
    backend: str = "auto",
    weight: str = "weight",
    bipartite: bool = False,
    **options: Any,
) -> WeightedMatchingResult:
    """½-approximate maximum-weight matching of an undirected graph (Suitor / Locally-Dominant).

    Every method returns the *greedy* matching of one fixed total order on edges: heavier first; on
    equal weights the edge with the larger larger-endpoint id, then the larger smaller-endpoint id.
    Its weight is at least half the optimum (:func:`matchflow.verify.verify_weighted_matching`
    proves a bound). Only edges of positive weight are matched (zero and negative edges never
    improve a matching). Self-loops are dropped; duplicate edges keep the heaviest copy.

    Parameters
    ----------
    graph : a square scipy.sparse matrix or dense array (entries are weights; symmetrised, the
        larger of ``A[i, j]`` and ``A[j, i]``), a rectangular matrix or ``bipartite=True`` (rows are
        vertices ``0..m-1``, columns ``m..m+n-1``), a :class:`~matchflow.Graph` (unweighted: all
        weights 1), a networkx graph (edge attribute ``weight``, missing = 1), edge arrays
        ``(u, v)`` or ``(u, v, weights)``, CuPy/PyTorch arrays (copied to the host).
    method : ``"auto"`` (= ``"suitor"``), ``"suitor"`` (Manne-Halappanavar; ``parallel=True``: the
        round-parallel variant), ``"ld"`` (Locally-Dominant), ``"greedy"`` (sort, then scan).
    backend : ``"cpu"``, ``"gpu"`` (GPU-Suitor, GPU-LD; greedy has no GPU twin) or ``"auto"``.
    **options : ``improve`` (bool, default False): then length-3 augmentations (x - a = b - y with
        x, y free) while any is strictly heavier; the result is no longer the greedy matching but
        never lighter. suitor: ``parallel`` (bool, default False). GPU (suitor, ld): ``variant``
        (nosync, synclb, syncnolb, hybrid), ``vertices_per_warp``, ``block_size`` (threads per
        block), ``lb_iters``, ``loop``, ``certify``, ``max_rounds``, ``grid_size``, ``check_every``.

    Returns
    -------
    WeightedMatchingResult with ``mate``, ``weight``, ``cardinality``, ``edges``, ``edge_ids``
    (edge-array input), ``method``, ``backend``, ``seconds`` (solve + improve), ``stats``.
    """
    row, backend = resolve(TABLE, method, backend)
    bipartite = check_bool("bipartite", bipartite)
    if not isinstance(weight, str):
        raise TypeError(f"weight must be a str (the networkx edge attribute), got {weight!r}")
    improve = check_bool("improve", options.pop("improve", False))
    g, edges = as_weighted_graph(graph, weight=weight, bipartite=bipartite)
    row, device = place(TABLE, row, backend, lambda: g)
    opts = check_method_options(TABLE, row, device, options)
    t0 = time.perf_counter()
    mate, stats = (row.gpu if device == "gpu" else row.cpu)(g, **opts)
    if improve:
        stats["greedy_weight"] = _total(g, mate)[0]
        stats["augmentations"] = int(improve_kernel(g.indptr, g.indices, g.weights, mate, IMPROVE_PASSES))
    seconds = time.perf_counter() - t0
    total, pairs = _total(g, mate)
    ids = _matched_edge_ids(edges, pairs, g.n) if edges is not None else None
    return WeightedMatchingResult(mate=mate, weight=total, cardinality=len(pairs), edges=pairs, method=row.name,
                                  backend=device, seconds=seconds, edge_ids=ids, stats=stats)

def max_weight_matching_approx(G: Any, maxcardinality: bool = False, weight: str = "weight") -> set:
    """APPROXIMATE stand-in for ``networkx.max_weight_matching``: a set of edge tuples ``(u, v)``.

    **Not the maximum**: the greedy matching, at least HALF the optimum weight (typically 0.8-0.98
    of it). Use it only where an approximation is acceptable; ``maxcardinality=True`` is refused.
    """
    if maxcardinality is not False:
        raise ValueError("maxcardinality=True is not supported by the approximate matching; use networkx")
    res = weighted_matching(G, weight=weight)
    nodes = list(G.nodes)
    return {(nodes[a], nodes[b]) for a, b in res.edges.tolist()}
