"""Public API for maximum-cardinality bipartite matching.

* :func:`bipartite_matching` — full interface: method / backend / initial matching
  choice, returns a :class:`~matchflow.MatchingResult` with a König cover certificate.
* :func:`maximum_bipartite_matching` — drop-in replacement for
  ``scipy.sparse.csgraph.maximum_bipartite_matching`` (same arguments, return value,
  dtype and errors).

``method`` names the algorithm, ``backend`` the device. The methods, their CPU and GPU twins,
options and the ``method="auto"`` rule are the table in :mod:`._methods`; each method's policy
(starts, budgets, switches) lives beside its kernel (``_cpu_<algo>.py``). This module holds no
per-method code: it validates once, places the method (:mod:`matchflow._methods`), runs it and
adds the König cover.

The square CSR input is searched from its rows, so no CSC is built (``BipartiteGraph``
builds it lazily); the drop-in works on the input's own index arrays.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._cuda import is_device_graph
from .._graph import BipartiteGraph, as_bipartite
from .._methods import Method, check_method_options, place, resolve
from .._results import MatchingResult
from .._validation import check_bool, check_choice
from ._cpu_hopcroft_karp import HK_PF_SWITCH, hopcroft_karp_arrays
from ._cpu_init import greedy_init_kernel
from ._methods import TABLE, auto_cpu_method
from ._verify_cover import konig_cover

__all__ = ["bipartite_matching", "maximum_bipartite_matching", "METHODS"]

METHODS = TABLE.names  # ("auto", "hopcroft-karp", "push-relabel", "pothen-fan", "gpr")
CPU_METHODS = TABLE.cpu_names
INIT_CHOICES = ("karp-sipser", "greedy", "none", "auto")


def _run(g: BipartiteGraph, row: Method, device: str, init: str, want_cover: bool, options: dict) -> MatchingResult:
    """Run the placed method on a validated graph and add the König cover."""
    opts = check_method_options(TABLE, row, device, options)
    solve = row.gpu if device == "gpu" else row.cpu
    if device == "gpu" and want_cover:
        opts = dict(opts, device_cover=True)  # G-PR: the cover from its certificate BFS, on the device
    t0 = time.perf_counter()
    row_match, col_match, card, init_card, stats = solve(g, init, **opts)
    if init != "auto":
        stats.pop("init_used", None)
    cover_rows = cover_cols = None
    if want_cover and "cover_rows" in stats:
        cover_rows, cover_cols = stats.pop("cover_rows"), stats.pop("cover_cols")
        stats.setdefault("seconds_cover", 0.0)  # G-PR timed its device cover
    elif want_cover:
        t2 = time.perf_counter()
        cover_rows, cover_cols = konig_cover(g, row_match, col_match)
        stats["seconds_cover"] = time.perf_counter() - t2
    return MatchingResult(row_match=row_match, col_match=col_match, cardinality=int(card), cover_rows=cover_rows,
                          cover_cols=cover_cols, method=row.name, backend=device,
                          seconds=time.perf_counter() - t0, init=init, init_cardinality=int(init_card), stats=stats)


def bipartite_matching(
    graph: Any,
    *,
    method: str = "auto",
    backend: str = "auto",
    init: str = "auto",
    explicit_zeros: bool = False,
    **options: Any,
) -> MatchingResult:
    """Maximum-cardinality matching between the rows and the columns of ``graph``.

    Parameters
    ----------
    graph : scipy.sparse matrix/array (any format), dense NumPy/CuPy/PyTorch 2-D array,
        networkx graph with a ``bipartite`` node attribute, or :class:`~matchflow.BipartiteGraph`.
        Nonzero entries are edges. A device-resident graph (CuPy sparse or dense, a PyTorch CUDA
        tensor, dense or sparse, a numba device array) with ``backend="gpu"`` or ``"auto"`` and
        ``method="auto"``/``"push-relabel"``/``"gpr"`` never visits the host: G-PR runs on it, the
        König cover is computed on the device, and ``row_match``, ``col_match``, ``cover_rows``,
        ``cover_cols`` are arrays of the input's library on the same device.
    method : the algorithm: ``"auto"``, ``"hopcroft-karp"`` (CPU), ``"push-relabel"`` (CPU:
        Deveci et al. Algorithms 1-2; GPU: G-PR) or ``"pothen-fan"`` (CPU, PF+). ``"gpr"`` is
        kept as an alias of push-relabel on the GPU (not with ``backend="cpu"``). ``auto`` on
        the CPU: push-relabel when row degrees are skewed (max > 64 x mean), pothen-fan when the
        mean degree is below 3, else hopcroft-karp (rule in :mod:`._methods`); on the GPU: G-PR.
    backend : the device: ``"cpu"``, ``"gpu"`` or ``"auto"``. ``auto`` with ``method="auto"``
        runs G-PR when a (real) GPU is present, else the CPU rule; with an explicit method it
        runs on the CPU (no per-input measurement says where G-PR wins end to end).
    init : initial matching, ``"karp-sipser"``, ``"greedy"``, ``"none"`` or ``"auto"`` (default;
        hopcroft-karp and push-relabel: greedy; pothen-fan: Karp-Sipser from 200 000 vertices or
        1 000 000 edges, else greedy and a PF+ bounded to 3 adjacency scans per edge (plus one
        per vertex), restarted from Karp-Sipser when the budget runs out; G-PR: its own rule).
    explicit_zeros : treat stored zeros of a sparse matrix as edges (SciPy's csgraph convention).
    **options :
        ``cover`` (bool, default True) — compute the König vertex cover certificate;
        hopcroft-karp: ``duff_wiberg`` (bool, default False: HKDW's extra DFS per phase),
        ``pf_switch`` (finish with PF+ once a phase scans more than this many entries per
        augmenting path and more than nnz/8 entries, default 1000; None: pure Hopcroft-Karp);
        push-relabel on the CPU: ``relabel_freq`` (k > 0, global relabel every k*(m+n) pushes,
        default 0.5); pothen-fan: ``fairness`` (bool, default True); on the GPU: passed to
        G-PR, which validates them.

    Returns
    -------
    MatchingResult with ``row_match``, ``col_match`` (-1 unmatched, the graph's index dtype),
    ``cardinality``, ``cover_rows``/``cover_cols`` (None with ``cover=False``), ``method`` (the
    algorithm's name, also for ``"gpr"``: ``"push-relabel"``), ``backend`` (the device that ran),
    ``seconds`` (initial matching + solver + cover), ``init``, ``init_cardinality`` and ``stats``.

    Examples
    --------
    >>> from scipy.sparse import csr_array
    >>> from matchflow import bipartite_matching
    >>> from matchflow.verify import verify_matching
    >>> A = csr_array([[1, 1, 0], [1, 0, 0], [0, 1, 1]])  # row i may take column j where A[i, j] != 0
    >>> res = bipartite_matching(A, backend="cpu")
    >>> res.cardinality
    3
    >>> res.row_match.tolist()
    [1, 0, 2]
    >>> int(res.cover_rows.sum() + res.cover_cols.sum())  # the König cover: as large as the matching
    3
    >>> verify_matching(A, res).maximum
    True
    >>> bipartite_matching(A, method="hopcroft-karp", backend="cpu").cardinality
    3

    G-PR on a GPU (this line needs one):

    >>> bipartite_matching(A, backend="gpu").cardinality  # doctest: +SKIP
    3

    References
    ----------
    .. [1] Hopcroft, J. E., and Karp, R. M., "An n^{5/2} algorithm for maximum matchings in bipartite graphs", SIAM
           Journal on Computing 2(4), 225-231, 1973. DOI:10.1137/0202019
    .. [2] Pothen, A., and Fan, C.-J., "Computing the block triangular form of a sparse matrix", ACM Transactions on
           Mathematical Software 16(4), 303-324, 1990. DOI:10.1145/98267.98287
    .. [3] Duff, I. S., Kaya, K., and Uçar, B., "Design, implementation, and analysis of maximum transversal
           algorithms", ACM Transactions on Mathematical Software 38(2), article 13, 2011.
           DOI:10.1145/2049673.2049677
    .. [4] Deveci, M., Kaya, K., Uçar, B., and Çatalyürek, Ü. V., "A push-relabel-based maximum cardinality
           bipartite matching algorithm on GPUs", 42nd International Conference on Parallel Processing (ICPP),
           21-29, 2013. DOI:10.1109/ICPP.2013.11
    .. [5] Karp, R. M., and Sipser, M., "Maximum matchings in sparse random graphs", 22nd Annual Symposium on
           Foundations of Computer Science (FOCS), 364-375, 1981. DOI:10.1109/SFCS.1981.21
    """
    row, backend = resolve(TABLE, method, backend)
    check_choice("init", init, INIT_CHOICES)
    explicit_zeros = check_bool("explicit_zeros", explicit_zeros)
    want_cover = check_bool("cover", options.pop("cover", True))
    if backend != "cpu" and (row is None or row.gpu is not None) and is_device_graph(graph):
        # a device-resident graph stays there: built, solved and certified on the GPU (G-PR)
        from ._gpu_push_relabel import bipartite_matching_device  # noqa: PLC0415 - loads numba.cuda on use only

        return bipartite_matching_device(graph, init, explicit_zeros, want_cover, options)
    g = as_bipartite(graph, "graph", explicit_zeros=explicit_zeros)
    row, device = place(TABLE, row, backend, lambda: g, options)
    return _run(g, row, device, init, want_cover, options)


def _one_side(graph: Any) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """Adjacency ``(indptr, indices, search_rows)`` of the smaller side of a CSR/CSC/COO matrix.

    Unsorted or duplicate indices are fine for greedy + PF+, so no canonicalisation is
    needed. Returns None when the indices are out of range (left to the full validator).
    """
    a = graph
    n_rows, n_cols = a.shape
    search_rows = n_rows <= n_cols if (a.format == "coo" or n_rows != n_cols) else a.format == "csr"
    want = "csr" if search_rows else "csc"
    if a.format != want:
        a = a.tocsr() if want == "csr" else a.tocsc()
    ptr, ind = a.indptr, a.indices
    n_other = n_cols if search_rows else n_rows
    it = np.int32 if max(n_rows, n_cols, len(ind)) <= np.iinfo(np.int32).max else np.int64
    ptr = np.ascontiguousarray(ptr, dtype=it)
    ind = np.ascontiguousarray(ind, dtype=it)
    n_search = n_rows if search_rows else n_cols
    if len(ptr) != n_search + 1 or int(ptr[-1]) > len(ind) or (len(ind) and (int(ind.min()) < 0 or int(ind.max()) >= n_other)):
        return None
    return ptr, ind[: int(ptr[-1])], search_rows


def maximum_bipartite_matching(graph: Any, perm_type: str = "row") -> np.ndarray:
    """Drop-in replacement for ``scipy.sparse.csgraph.maximum_bipartite_matching``.

    Parameters
    ----------
    graph : sparse matrix or array in CSR, CSC or COO format. Every *stored* entry is an
        edge, explicit zeros included (SciPy's semantics); duplicates are merged.
    perm_type : ``"row"`` returns, for each column, the row matched to it (length
        ``n_cols``); ``"column"`` returns, for each row, its column (length ``n_rows``).

    Returns
    -------
    ndarray of int32 (int64 only when an index does not fit in int32), -1 where unmatched.

    Always runs on the CPU, whatever GPU is present (results and timings do not depend
    on the machine; use :func:`bipartite_matching` for the GPU): the same configuration as
    ``method="auto"`` (greedy + Hopcroft-Karp with the PF+ finish) on the input's own index
    arrays (no copy or conversion for CSR/CSC; unsorted and duplicate indices are harmless),
    from the smaller vertex side.

    Examples
    --------
    >>> from scipy.sparse import csr_array
    >>> from matchflow import maximum_bipartite_matching
    >>> A = csr_array([[1, 1, 0], [1, 0, 0], [0, 1, 1]])
    >>> maximum_bipartite_matching(A, perm_type="column").tolist()  # the column of each row
    [1, 0, 2]
    >>> maximum_bipartite_matching(A).tolist()  # the row of each column
    [1, 0, 2]

    References
    ----------
    .. [1] Hopcroft, J. E., and Karp, R. M., "An n^{5/2} algorithm for maximum matchings in bipartite graphs", SIAM
           Journal on Computing 2(4), 225-231, 1973. DOI:10.1137/0202019
    .. [2] Duff, I. S., Kaya, K., and Uçar, B., "Design, implementation, and analysis of maximum transversal
           algorithms", ACM Transactions on Mathematical Software 38(2), article 13, 2011.
           DOI:10.1145/2049673.2049677
    """
    if not sp.issparse(graph):
        raise TypeError("graph must be sparse")
    if graph.format not in ("csr", "csc", "coo"):
        raise TypeError("graph must be in CSC, CSR, or COO format.")
    check_choice("perm_type", perm_type, ("row", "column"))
    n_rows, n_cols = graph.shape
    dt = np.int32 if max(n_rows, n_cols) <= np.iinfo(np.int32).max else np.int64
    side = _one_side(graph)
    if side is not None and auto_cpu_method(side[0], n_rows, n_cols) != "hopcroft-karp":
        side = None
    if side is not None:
        ptr, ind, search_rows = side
        n_other = n_cols if search_rows else n_rows
        search_match = np.full(len(ptr) - 1, -1, dtype=ind.dtype)
        other_match = np.full(n_other, -1, dtype=ind.dtype)
        if len(ind):
            greedy_init_kernel(ptr, ind, other_match, search_match)
            hopcroft_karp_arrays(ptr, ind, other_match, search_match, False, HK_PF_SWITCH)
        row_match, col_match = (search_match, other_match) if search_rows else (other_match, search_match)
    else:
        g = as_bipartite(graph, "graph", explicit_zeros=True)
        row, device = place(TABLE, None, "cpu", lambda: g)
        res = _run(g, row, device, "auto", False, {})
        row_match, col_match = res.row_match, res.col_match
    out = col_match if perm_type == "row" else row_match
    return np.asarray(out, dtype=dt)
