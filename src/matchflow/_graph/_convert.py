"""User input -> containers: :func:`as_bipartite` and :func:`as_graph` (the validation layer for graphs)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import is_cupy_array, is_torch_tensor, native_array, to_host_array, type_name
from ._bipartite import BipartiteGraph
from ._common import check_weights
from ._general import Graph

_ACCEPTED = (
    "a scipy.sparse matrix or array, a 2-D array (NumPy, CuPy or PyTorch), "
    "a networkx graph, a matchflow.BipartiteGraph or a matchflow.Graph"
)


def _values(data: np.ndarray, weighted: bool, name: str) -> np.ndarray | None:
    if not weighted:
        return None
    if data.dtype == np.bool_:
        raise TypeError(f"{name} holds booleans: weighted=True needs integer or float entries")
    return check_weights(f"{name}'s weights", data, len(data))


def _sparse_to_bipartite(a: Any, explicit_zeros: bool, weighted: bool, name: str) -> BipartiteGraph:
    if a.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got a sparse array of shape {a.shape}")
    if a.format in ("csr", "csc") and a.has_canonical_format and (
        explicit_zeros or a.dtype == np.bool_ or not np.any(a.data == 0)
    ):
        csr = a if a.format == "csr" else a.tocsr()
        if csr is not a and not csr.has_canonical_format:
            csr.sum_duplicates()
        w = _values(np.asarray(csr.data), weighted, name)
        return BipartiteGraph(csr.shape[0], csr.shape[1], csr.indptr, csr.indices, weights=w)
    coo = a.tocoo()
    r, c, data = coo.coords[0], coo.coords[1], np.asarray(coo.data)
    if not explicit_zeros:
        keep = data != 0
        r, c, data = r[keep], c[keep], data[keep]
    return BipartiteGraph._from_coo(r, c, a.shape[0], a.shape[1], _values(data, weighted, name))


def as_bipartite(graph: Any, name: str = "graph", *, explicit_zeros: bool = False,
                 weighted: bool = False) -> BipartiteGraph:
    """Convert any accepted input into a :class:`BipartiteGraph`.

    Nonzero entries are edges; stored zeros of a sparse matrix are edges only with
    ``explicit_zeros=True`` (SciPy's csgraph convention). NaN counts as nonzero. With
    ``weighted=True`` the entries become the edge weights (dtype kept; duplicates summed).
    A :class:`Graph` (e.g. from a METIS file) gives the ``n x n`` bipartite graph of its
    adjacency: row ``i`` and column ``j`` are joined when ``i -- j`` is an edge.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import as_bipartite
    >>> as_bipartite(np.array([[1, 0, 2], [0, 3, 0]]))
    BipartiteGraph(n_rows=2, n_cols=3, nnz=3, itype=int32)
    """
    if isinstance(graph, BipartiteGraph):
        if weighted and graph.weights is None:
            raise ValueError(f"{name} is a BipartiteGraph without weights, but weighted=True")
        return graph
    if isinstance(graph, Graph):
        if weighted and graph.weights is None:
            raise ValueError(f"{name} is a Graph without weights, but weighted=True")
        a = sp.csr_array((graph.weights if weighted else np.ones(len(graph.indices), dtype=np.bool_),
                          graph.indices, graph.indptr), shape=(graph.n, graph.n))
        return BipartiteGraph._from_csr_trusted(a, weighted)
    if sp.issparse(graph):  # before the dict test: dok matrices are dicts
        return _sparse_to_bipartite(graph, explicit_zeros, weighted, name)
    if graph is None or isinstance(graph, (str, bytes, dict, set)):
        raise TypeError(f"{name} must be {_ACCEPTED}, got {type_name(graph)}")
    mod = type(graph).__module__
    if mod.startswith("cupyx") and hasattr(graph, "get"):  # cupyx.scipy.sparse matrix
        return _sparse_to_bipartite(graph.get(), explicit_zeros, weighted, name)
    if is_torch_tensor(graph) and str(graph.layout) != "torch.strided":
        coo = graph.to_sparse_coo().coalesce()
        idx = coo.indices().cpu().numpy()
        vals = coo.values().cpu().numpy()
        if not explicit_zeros:
            idx, vals = idx[:, vals != 0], vals[vals != 0]
        return BipartiteGraph._from_coo(idx[0], idx[1], int(graph.shape[0]), int(graph.shape[1]),
                                        _values(native_array(vals, name), weighted, name))
    if mod.startswith("networkx"):
        return _networkx_to_bipartite(graph, name, weighted)
    if not (isinstance(graph, (np.ndarray, list, tuple)) or is_cupy_array(graph) or is_torch_tensor(graph)
            or hasattr(graph, "__array__")):
        raise TypeError(f"{name} must be {_ACCEPTED}, got {type_name(graph)}")
    a = to_host_array(graph, name)
    if a.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got an array of shape {a.shape}")
    if a.dtype == object or not (np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_):
        raise TypeError(f"{name} must hold numbers or booleans, got dtype {a.dtype}")
    r, c = np.nonzero(a)
    return BipartiteGraph._from_coo(r, c, a.shape[0], a.shape[1], _values(native_array(a[r, c], name), weighted, name))


def _networkx_to_bipartite(G: Any, name: str, weighted: bool) -> BipartiteGraph:
    attrs = dict(G.nodes(data="bipartite"))
    if attrs and all(v in (0, 1) for v in attrs.values()):
        rows = [v for v, s in attrs.items() if s == 0]
        cols = [v for v, s in attrs.items() if s == 1]
        return BipartiteGraph.from_networkx(G, rows, cols, weight="weight" if weighted else None)
    raise ValueError(
        f"{name} is a networkx graph without a 'bipartite' node attribute (0 for rows, 1 for columns) "
        "on every node; set it, or call matchflow.BipartiteGraph.from_networkx(G, row_nodes)"
    )


def as_graph(graph: Any, name: str = "graph", *, weighted: bool = True) -> Graph:
    """Convert a square scipy.sparse / dense matrix or a networkx graph into a :class:`Graph`.

    The matrix is symmetrised (an edge where ``A[i, j]`` or ``A[j, i]`` is nonzero); the
    weight is the entry's value (the larger of the two when both exist), dtype kept; a
    boolean matrix gives an unweighted graph.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import as_graph
    >>> as_graph(np.array([[0, 5, 0], [5, 0, 2], [0, 2, 0]]))
    Graph(n=3, n_edges=2, weighted int64)
    """
    if isinstance(graph, Graph):
        return graph
    if type(graph).__module__.startswith("networkx"):
        nodes = list(graph.nodes)
        idx = {v: i for i, v in enumerate(nodes)}
        us, vs, ws = [], [], []
        for a, b, d in graph.edges(data=True):
            us.append(idx[a]); vs.append(idx[b]); ws.append(d.get("weight", 1.0))  # noqa: E702
        w = (np.asarray(ws) if ws else np.zeros(0)) if weighted else None
        g = Graph.from_edges(np.asarray(us, dtype=np.int64), np.asarray(vs, dtype=np.int64), w, n=len(nodes))
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
        coo = sp.coo_array(native_array(a, name))
    if coo.shape[0] != coo.shape[1]:
        raise ValueError(f"{name} must be square, got shape {coo.shape}")
    keep = coo.data != 0
    r, c = coo.coords[0][keep], coo.coords[1][keep]
    w = None
    if weighted and coo.dtype != np.bool_:
        w = np.asarray(coo.data[keep])
        if w.dtype.kind == "f" and not np.all(np.isfinite(w)):
            raise ValueError(f"{name} holds non-finite weights")
        w = check_weights(f"{name}'s weights", w, len(w))
    return Graph._symmetrize(r.astype(np.int64), c.astype(np.int64), w, coo.shape[0])
