"""Public API: :func:`weighted_matching` (½-approximate maximum-weight matching of a general graph)
and :func:`max_weight_matching_approx` (a networkx-style adapter).

Validate once at the door -> resolve method/backend -> the prepared :class:`~matchflow.Graph` (:mod:`._prepare`)
-> place -> the row's twin on that device (:mod:`._methods`: the CPU solve through ``on_host``, the GPU stage
object of :mod:`._gpu_suitor` through ``on_gpu``) -> optional local search (:mod:`._cpu_improve`) -> result. A
canonical square scipy.sparse input is checked for symmetry where the solve runs (host or device).
Device-resident inputs: ``_gpu_suitor.weighted_matching_device``.
"""

from __future__ import annotations

import time
from typing import Any

import numba as nb
import numpy as np

from .._cuda import is_device_graph
from .._graph import Graph
from .._methods import check_method_options, place, resolve
from .._validation import check_bool
from ._cpu_improve import improve_kernel
from ._methods import TABLE
from ._prepare import SYMMETRY_PART_EDGES, as_weighted_graph, prepare
from ._prepare_weights import exact_sum, matched_weights_kernel, matched_weights_serial_kernel
from ._result import WeightedMatchingResult

__all__ = ["weighted_matching", "max_weight_matching_approx", "as_weighted_graph", "METHODS"]

METHODS = TABLE.names  # ("auto", "suitor", "ld", "greedy")
IMPROVE_PASSES = 50


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
        as a tuple ``(u, v)`` or ``(u, v, weights)`` (a nested list is a matrix, as ``np.asarray`` reads it). A device-resident square matrix (CuPy CSR/CSC/dense, PyTorch
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
    g, edges, pending = prepare(graph, weight, bipartite)
    t_prep = time.perf_counter()
    row, device = place(TABLE, row, backend, lambda: g, options)
    opts = check_method_options(TABLE, row, device, options)
    solve = row.gpu if device == "gpu" else row.cpu  # the row's twin on the placed device (_methods)
    g, mate, stats, done = solve(g, pending, improve, **opts)
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
    seconds = stats["seconds_solve"] + stats.get("seconds_certify", 0.0) + (t1 - t0)  # solve + improve
    return WeightedMatchingResult(mate=mate, weight=total, cardinality=len(pairs), edges=pairs, method=row.name,
                                  backend=device, seconds=seconds, edge_ids=ids, stats=stats)


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
    .. [1] Preis, R., "Linear time 1/2-approximation algorithm for maximum weighted matching in general graphs",
           STACS 99, Lecture Notes in Computer Science 1563, 259-269, 1999. DOI:10.1007/3-540-49116-3_24
    .. [2] networkx, ``max_weight_matching`` (the exact blossom algorithm whose signature this entry keeps):
           https://networkx.org/documentation/stable/reference/algorithms/generated/networkx.algorithms.matching.max_weight_matching.html
    """
    if maxcardinality is not False:
        raise ValueError("maxcardinality=True is not supported by the approximate matching; use networkx")
    res = weighted_matching(G, weight=weight)
    nodes = list(G.nodes)
    return {(nodes[a], nodes[b]) for a, b in res.edges.tolist()}
