"""Public API: :func:`weighted_matching` (½-approximate maximum-weight matching of a general graph)
and :func:`max_weight_matching_approx` (a networkx-style adapter).

Validate once at the door -> resolve method/backend -> the prepared :class:`~matchflow.Graph` -> the
solve -> optional local search -> result. A canonical square scipy.sparse input is taken as its own arrays
and checked for symmetry where the solve runs: on the host by one parallel cursor pass
(:func:`_symmetric_kernel`), on the GPU after the upload it needs anyway (``_gpu_graph``); it takes the
general path (symmetrised) only when that check fails. Device-resident inputs: ``_gpu_suitor``.
"""

from __future__ import annotations

import time
from typing import Any

import numba as nb
import numpy as np
import scipy.sparse as sp

from .._cuda import is_device_graph
from .._graph import Graph, as_graph, index_dtype
from .._graph._common import check_index_array, check_weights
from .._methods import check_method_options, place, resolve
from .._validation import check_bool, to_host_array, type_name
from ._cpu_suitor import improve_kernel, matched_weights_kernel, matched_weights_serial_kernel
from ._methods import TABLE
from ._result import WeightedMatchingResult
from ._weights import exact_sum, int64_ranks, sum_duplicates

__all__ = ["weighted_matching", "max_weight_matching_approx", "as_weighted_graph", "METHODS"]

METHODS = TABLE.names  # ("auto", "suitor", "ld", "greedy")
IMPROVE_PASSES = 50

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
    g, edges, pending = _prepare(graph, weight, bipartite)
    if pending is not None and not _symmetric_on_host(g):
        g = _general(pending)
    return _widen(g), edges


def _general(graph: Any) -> Graph:
    """The general path of a square matrix: symmetrised (the larger of A[i, j] and A[j, i]), checked."""
    return _normalise(as_graph(graph, "graph"))


def _prepare(graph: Any, weight: str, bipartite: bool) -> tuple[Graph, tuple | None, Any]:
    """``(graph, edge arrays, pending)``: ``pending`` is the scipy.sparse input when ``graph`` is its
    canonical CSR not yet checked for symmetry (the caller checks it where the solve runs)."""
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

def _matched_edge_ids(edges: tuple, pairs: np.ndarray, n: int) -> np.ndarray:
    """The index of the first input edge joining each matched pair (either orientation)."""
    u, v, _ = edges
    key = np.minimum(u, v) * n + np.maximum(u, v)
    order = np.argsort(key, kind="stable")
    ks = key[order]
    want = pairs[:, 0].astype(np.int64) * n + pairs[:, 1]
    return order[np.searchsorted(ks, want)]


def _total(g: Graph, mate: np.ndarray) -> tuple[float, np.ndarray]:
    """(exact weight, matched pairs u < v)."""
    u = np.flatnonzero(mate > np.arange(len(mate)))
    pairs = np.stack([u, mate[u]], axis=1).astype(g.indices.dtype) if len(u) else np.zeros((0, 2), g.indices.dtype)
    per = np.zeros(g.n, dtype=g.weights.dtype)
    big = len(g.indices) >= 2 * SYMMETRY_PART_EDGES and nb.get_num_threads() > 1
    (matched_weights_kernel if big else matched_weights_serial_kernel)(g.indptr, g.indices, g.weights, mate, per)
    return exact_sum(per[u]), pairs


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
    improve a matching). Self-loops are dropped. Every input is read as a matrix ``A`` the way SciPy
    canonicalises it: duplicate entries (COO, a CSR with duplicates, edge arrays = ``coo_array((w, (u, v)))``)
    are SUMMED, exactly (integers without overflow, else a ValueError; floats rounded once); the edge
    ``{i, j}`` then weighs the larger of ``A[i, j]`` and ``A[j, i]``. Integer weights (uint64 and int64
    near 2^63 included) are compared exactly in their own dtype, never through float64.

    Parameters
    ----------
    graph : a square scipy.sparse matrix or dense array (entries are weights; symmetrised, the
        larger of ``A[i, j]`` and ``A[j, i]``), a rectangular matrix or ``bipartite=True`` (rows are
        vertices ``0..m-1``, columns ``m..m+n-1``), a :class:`~matchflow.Graph` (unweighted: all
        weights 1), a networkx graph (edge attribute ``weight``, missing = 1), edge arrays
        ``(u, v)`` or ``(u, v, weights)``. A device-resident square matrix (CuPy CSR/CSC/dense, PyTorch
        sparse CSR / coalesced COO / dense CUDA tensor, numba device array) with ``backend="gpu"`` or
        ``"auto"`` is converted, checked and solved on the GPU without a host copy; ``mate`` and
        ``edges`` come back as arrays of its library on the device (an input that is not canonical and
        symmetric takes the host path, one copy, and says why in ``stats["device_fallback"]``).
    method : ``"auto"`` (= ``"suitor"``), ``"suitor"`` (Manne-Halappanavar; ``parallel=True``: the
        round-parallel variant), ``"ld"`` (Locally-Dominant), ``"greedy"`` (sort, then scan).
    backend : ``"cpu"``, ``"gpu"`` (GPU-Suitor, GPU-LD; greedy has no GPU twin) or ``"auto"``.
    **options : ``improve`` (bool, default False): then length-3 augmentations (x - a = b - y with
        x, y free) while any is strictly heavier; the result is no longer the greedy matching but
        never lighter. suitor: ``parallel`` (bool, default False). GPU (suitor, ld): ``variant``
        (nosync, synclb, syncnolb, hybrid), ``vertices_per_warp``, ``block_size`` (threads per
        block), ``lb_iters``, ``hub_degree`` (vertices of larger degree scanned by a whole block; 0:
        off), ``loop``, ``certify``, ``max_rounds``, ``grid_size``, ``check_every``.

    Returns
    -------
    WeightedMatchingResult with ``mate``, ``weight``, ``cardinality``, ``edges``, ``edge_ids``
    (edge-array input), ``method``, ``backend``, ``seconds`` (solve + improve), ``stats`` (the stages'
    ``seconds_convert`` / ``check`` (host symmetry check) / ``h2d`` / ``keys`` (keys and check on the
    device) / ``solve`` / ``improve`` / ``weight`` and ``seconds_call``, the whole call).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import weighted_matching
    >>> from matchflow.verify import verify_weighted_matching
    >>> W = np.array([[0, 3, 1, 0], [3, 0, 4, 0], [1, 4, 0, 2], [0, 0, 2, 0]])
    >>> res = weighted_matching(W, backend="cpu")
    >>> res.mate.tolist(), float(res.weight)  # the optimum is 5 (edges 0-1 and 2-3)
    ([-1, 2, 1, -1], 4.0)
    >>> verify_weighted_matching(W, res).half_approximate
    True
    >>> weighted_matching(W, backend="cpu", improve=True).mate.tolist()  # a length-3 augmentation
    [1, 0, 3, 2]

    GPU-Suitor returns the same matching (this line needs a GPU):

    >>> weighted_matching(W, backend="gpu").mate.tolist()  # doctest: +SKIP
    [-1, 2, 1, -1]

    References
    ----------
    .. [1] Manne, F., and Halappanavar, M., "New effective multithreaded matching algorithms", IEEE 28th
           International Parallel and Distributed Processing Symposium (IPDPS), 519-528, 2014.
    .. [2] Preis, R., "Linear time 1/2-approximation algorithm for maximum weighted matching in general graphs",
           STACS 99, Lecture Notes in Computer Science 1563, 259-269, 1999. DOI:10.1007/3-540-49116-3_24
    .. [3] Naim, Md., Manne, F., Halappanavar, M., Tumeo, A., and Langguth, J., "Optimizing approximate weighted
           matching on Nvidia Kepler K40", IEEE 22nd International Conference on High Performance Computing (HiPC),
           105-114, 2015. DOI:10.1109/HiPC.2015.15
    """
    t_all = time.perf_counter()
    lib = None
    row, backend = resolve(TABLE, method, backend)
    bipartite = check_bool("bipartite", bipartite)
    if not isinstance(weight, str):
        raise TypeError(f"weight must be a str (the networkx edge attribute), got {weight!r}")
    improve = check_bool("improve", options.pop("improve", False))
    if backend != "cpu" and (row is None or row.gpu is not None) and not bipartite and is_device_graph(graph):
        from ._gpu_suitor import weighted_matching_device  # noqa: PLC0415 - loads numba.cuda on use only

        res = weighted_matching_device(graph, "suitor" if row is None else row.name, improve, options)
        if not isinstance(res, str):
            return res
        from .._cuda import device_library, host_copy  # noqa: PLC0415

        # not a canonical symmetric device matrix: the host path (one copy), solved on the GPU (the data's
        # device, also for backend="auto"), results back on the device
        lib, graph, backend, fallback = device_library(graph), host_copy(graph), "gpu", res
    g, edges, pending = _prepare(graph, weight, bipartite)
    t_prep = time.perf_counter()
    row, device = place(TABLE, row, backend, lambda: g, options)
    opts = check_method_options(TABLE, row, device, options)
    done = None
    if device == "gpu":
        g, mate, stats, done = _solve_gpu(row, g, pending, opts, improve)
    else:
        if pending is not None and not _symmetric_on_host(g):
            g = _general(pending)
        g = _widen(g)
        t0 = time.perf_counter()
        mate, stats = row.cpu(g, **opts)
        stats["seconds_check"], stats["seconds_solve"] = t0 - t_prep, time.perf_counter() - t0
    t0 = time.perf_counter()
    if improve:
        stats["greedy_weight"] = _total(g, mate)[0]
        stats["augmentations"] = int(improve_kernel(g.indptr, g.indices, g.weights, mate, IMPROVE_PASSES))
    t1 = time.perf_counter()
    total, pairs = done or _total(g, mate)
    ids = _matched_edge_ids(edges, pairs, g.n) if edges is not None else None
    t2 = time.perf_counter()
    stats.update(seconds_convert=t_prep - t_all, seconds_improve=t1 - t0, seconds_weight=t2 - t1,
                 seconds_call=t2 - t_all)
    if lib is not None:
        from .._cuda import hand_back  # noqa: PLC0415

        mate, pairs = hand_back(mate, lib), hand_back(pairs, lib)
        stats.update(input_library=lib, device_fallback=fallback)
    return WeightedMatchingResult(mate=mate, weight=total, cardinality=len(pairs), edges=pairs, method=row.name,
                                  backend=device, seconds=stats["seconds_solve"] + (t1 - t0), edge_ids=ids,
                                  stats=stats)


def _solve_gpu(row: Any, g: Graph, pending: Any, opts: dict, improve: bool
               ) -> tuple[Graph, np.ndarray, dict, tuple | None]:
    """Upload once (raw weights; keys and, for an unchecked scipy.sparse input, the symmetry check on the
    device), the GPU twin's device solve, then (without ``improve``) the matched pairs and their exact
    weight from the device: ``(graph, mate, stats, (weight, pairs) or None)``. An input that fails the
    device check takes the host's general path."""
    from .._backend import require_gpu  # noqa: PLC0415
    from .._cuda import quiet  # noqa: PLC0415
    from ._gpu_graph import NotOnDevice, device_pairs, to_device  # noqa: PLC0415 - loads numba.cuda on use only
    from ._gpu_suitor import solve_device  # noqa: PLC0415

    require_gpu(f"weighted_matching(method={row.name!r})")
    ranks = g.weights is not None and g.weights.dtype == np.uint64  # the device keys read int64: uint64 weights
    g_dev = _trusted(g.n, g.indptr, g.indices, int64_ranks(g.weights)) if ranks else g  # go as ranks, summed here
    with quiet():
        try:
            dg = to_device(g_dev if ranks else g, check=pending is not None)
        except NotOnDevice:
            if pending is None:
                raise
            g = _general(pending)
            dg = to_device(g)
        mate_d, stats = solve_device(dg, row.name, opts)
        t0 = time.perf_counter()
        mate = mate_d.copy_to_host()[:g.n].astype(g.indices.dtype, copy=False)
        done = None
        if not (improve or ranks):
            pairs_d, per_d = device_pairs(dg, mate_d[:g.n])
            pairs = pairs_d.copy_to_host().astype(g.indices.dtype, copy=False).reshape(-1, 2)
            done = (exact_sum(per_d.copy_to_host()), pairs)
    stats.update(seconds_h2d=dg.seconds_h2d, seconds_keys=dg.seconds_keys, seconds_check=0.0,
                 seconds_solve=stats["seconds_solve"] + time.perf_counter() - t0)
    if dg.ranked:
        stats["ranked"] = dg.ranked
    return (_widen(g) if done is None else g), mate, stats, done  # the host weights only for improve


def max_weight_matching_approx(G: Any, maxcardinality: bool = False, weight: str = "weight") -> set:
    """APPROXIMATE stand-in for ``networkx.max_weight_matching``: a set of edge tuples ``(u, v)``.

    **Not the maximum**: the greedy matching, at least HALF the optimum weight (typically 0.8-0.98
    of it). Use it only where an approximation is acceptable; ``maxcardinality=True`` is refused.

    Examples
    --------
    >>> import networkx as nx
    >>> from matchflow.wmatching import max_weight_matching_approx
    >>> G = nx.Graph([(0, 1, {"weight": 3}), (1, 2, {"weight": 4}), (2, 3, {"weight": 2})])
    >>> sorted(tuple(sorted(e)) for e in max_weight_matching_approx(G))
    [(1, 2)]

    References
    ----------
    .. [1] Manne, F., and Halappanavar, M., "New effective multithreaded matching algorithms", IEEE 28th
           International Parallel and Distributed Processing Symposium (IPDPS), 519-528, 2014.
    .. [2] Preis, R., "Linear time 1/2-approximation algorithm for maximum weighted matching in general graphs",
           STACS 99, Lecture Notes in Computer Science 1563, 259-269, 1999. DOI:10.1007/3-540-49116-3_24
    """
    if maxcardinality is not False:
        raise ValueError("maxcardinality=True is not supported by the approximate matching; use networkx")
    res = weighted_matching(G, weight=weight)
    nodes = list(G.nodes)
    return {(nodes[a], nodes[b]) for a, b in res.edges.tolist()}
