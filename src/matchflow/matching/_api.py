"""Public API for maximum-cardinality bipartite matching.

* :func:`bipartite_matching` — full interface: method / backend / initial matching
  choice, returns a :class:`~matchflow.MatchingResult` with a König cover certificate.
* :func:`maximum_bipartite_matching` — drop-in replacement for
  ``scipy.sparse.csgraph.maximum_bipartite_matching`` (same arguments, return value,
  dtype and errors).

CPU methods (Numba): ``hopcroft-karp`` (HK with dead-end pruning, optionally Duff-Wiberg,
finished by PF+ once its phases stop paying off), ``push-relabel`` (Deveci et al. 2013,
Algorithms 1-2) and ``pothen-fan`` (PF+: DFS with lookahead and fairness). GPU method:
``gpr`` (G-PR, in ``_gpu_gpr``). CPU searches start from the smaller vertex side.

``method="auto"`` on the CPU (rule measured on the 67 benchmark inputs of
results/matching/cpu.md, evidence in docs/notes/matching_cpu.md), from O(n) features:

* row degrees skewed (max degree > 64 x mean: R-MAT/kron, social graphs with hubs) ->
  ``push-relabel`` from a greedy start (e.g. ego-Twitter 0.10 s vs HK 1.6 s, SciPy 1.7 s);
* mean degree < 3 (road networks, power grids: deficient, many unmatchable columns) ->
  ``pothen-fan`` with its auto start (PF+ proves a column unmatchable once; HK searches it
  again in every phase: road_n22 1.6 s vs 3.2-3.9 s);
* otherwise ``hopcroft-karp`` from a greedy start (greedy is one cheap pass; Karp-Sipser
  costs more than SciPy's whole solve on Hilbert-ordered meshes: 139 ms on delaunay_n20
  vs SciPy's 91-106 ms, and HK from greedy needs 4-6 phases and 0.13 scans per edge
  there), switching to PF+ once a phase scans more than 1000 entries per augmenting path
  and more than nnz/8 entries (holes_1024: pure HK 0.72 s in 54 phases, with the switch
  0.18 s; the meshes never switch).

The square CSR input is searched from its rows, so no CSC is built (``BipartiteGraph``
builds it lazily); the drop-in works on the input's own index arrays.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._backend import require_gpu, resolve_backend
from .._graph import BipartiteGraph, as_bipartite
from .._results import MatchingResult
from .._validation import check_bool, check_choice, check_options, check_real
from ._cover import konig_cover
from ._cpu_hopcroft_karp import hopcroft_karp_kernel
from ._cpu_init import greedy_init_kernel, initial_matching
from ._cpu_pothen_fan import pothen_fan_kernel
from ._cpu_push_relabel import push_relabel_kernel

__all__ = ["bipartite_matching", "maximum_bipartite_matching", "METHODS"]

METHODS = ("auto", "hopcroft-karp", "push-relabel", "pothen-fan", "gpr")
CPU_METHODS = ("hopcroft-karp", "push-relabel", "pothen-fan")
INIT_CHOICES = ("karp-sipser", "greedy", "none", "auto")
_COMMON_OPTIONS = ("cover",)
_METHOD_OPTIONS = {
    "hopcroft-karp": ("duff_wiberg", "pf_switch"),
    "push-relabel": ("relabel_freq",),
    "pothen-fan": ("fairness",),
}
# pothen-fan with init="auto" (measured on the shared real inputs and random graphs: on a random
# 1M x 1M graph greedy + PF+ took 19 s, from Karp-Sipser 0.7 s): large inputs start from
# Karp-Sipser; smaller ones try greedy + PF+ bounded to this many adjacency scans per edge and
# restart from Karp-Sipser when the budget runs out. hopcroft-karp and push-relabel: greedy.
_AUTO_BUDGET_PER_EDGE = 3
_AUTO_KS_VERTICES = 200_000
_AUTO_KS_EDGES = 1_000_000


def _auto_prefers_ks(n_rows: int, n_cols: int, nnz: int) -> bool:
    return n_rows + n_cols >= _AUTO_KS_VERTICES or nnz >= _AUTO_KS_EDGES


# hopcroft-karp: finish with PF+ once a phase scans more than this many adjacency entries per
# augmenting path it finds (measured, docs/notes/matching_cpu.md: HK phases are cheap while
# many short paths exist; a tail of few long paths or hopeless columns is PF+'s strength).
_HK_PF_SWITCH = 1000
# ... and more than this fraction of all edges (cheap late phases are left to HK: on the
# perfect-matching meshes its last phases find few, long paths far cheaper than PF+ does).
_HK_SWITCH_FLOOR = 0.125


# method="auto" (measured, docs/notes/matching_cpu.md), from cheap O(n) features:
# * row degrees skewed, max degree > _AUTO_SKEW x mean (power-law graphs: R-MAT/kron,
#   ego-Twitter): push-relabel from greedy (HK's phases and the PF+ finish chase long paths
#   through hubs there: ego-Twitter HK 1.6 s, push-relabel 0.10 s);
# * mean degree 2 nnz / (n_rows + n_cols) below _AUTO_SPARSE (road networks, power grids):
#   pothen-fan with its auto start (deficient graphs with many unmatchable columns, which HK
#   searches again in every phase while PF+ drops them once proven: road_n22 PF+ 1.6 s,
#   HK 3.2-3.9 s);
# * otherwise (meshes, random geometric, FE, grids, ER): Hopcroft-Karp from greedy.
_AUTO_SKEW = 64.0
_AUTO_SPARSE = 3.0


def _degree_skewed(ptr: np.ndarray) -> bool:
    """Max degree > _AUTO_SKEW x mean degree of the vertices behind ``ptr`` (O(n), no conversion)."""
    n = len(ptr) - 1
    nnz = int(ptr[-1]) if n > 0 else 0
    if nnz == 0:
        return False
    return float(np.diff(ptr).max()) > _AUTO_SKEW * nnz / n


def _auto_method(ptr: np.ndarray, n_rows: int, n_cols: int) -> str:
    """The CPU method of ``method="auto"`` from the adjacency ``ptr`` of either side."""
    nnz = int(ptr[-1]) if len(ptr) > 1 else 0
    if _degree_skewed(ptr):
        return "push-relabel"
    if 2.0 * nnz < _AUTO_SPARSE * (n_rows + n_cols):
        return "pothen-fan"
    return "hopcroft-karp"


def _auto_cpu_method(graph: BipartiteGraph) -> str:
    """CPU method for ``method="auto"`` (see the rule above)."""
    return _auto_method(graph.row_ptr, graph.n_rows, graph.n_cols)


def _hk_solve(ptr: np.ndarray, ind: np.ndarray, other_match: np.ndarray, search_match: np.ndarray,
              duff_wiberg: bool, pf_switch: int) -> tuple[int, dict]:
    """Hopcroft-Karp phases on the adjacency ``ptr``/``ind`` of the search side, then PF+
    when a phase scans more than ``pf_switch`` entries per augmentation (< 0: never)."""
    st = np.zeros(3, dtype=np.int64)
    floor = int(_HK_SWITCH_FLOOR * len(ind))
    card = hopcroft_karp_kernel(ptr, ind, other_match, search_match, duff_wiberg, pf_switch, floor, st)
    stats = {"phases": int(st[0]), "augmentations": int(st[1]), "edges_scanned": int(st[2])}
    if card == -2:
        card, st2 = _pf_with_budget(ptr, ind, other_match, search_match, True, -1)
        stats.update(pf_phases=int(st2[0]), pf_augmentations=int(st2[1]), pf_edges_scanned=int(st2[2]))
    return int(card), stats


def _pf_with_budget(ptr: np.ndarray, ind: np.ndarray, other_match: np.ndarray, search_match: np.ndarray,
                    fairness: bool, budget: int) -> tuple[int, np.ndarray]:
    st = np.zeros(3, dtype=np.int64)
    card = pothen_fan_kernel(ptr, ind, other_match, search_match, fairness, budget, st)
    return int(card), st


def _solve_cpu(graph: BipartiteGraph, method: str, init: str, options: dict) -> tuple:
    """Run a CPU method; searches from the smaller vertex side (on the transpose when
    there are fewer rows than columns, which costs nothing)."""
    t0 = time.perf_counter()
    stats: dict[str, Any] = {}
    if method == "hopcroft-karp":
        dw = check_bool("duff_wiberg", options.get("duff_wiberg", False))
        sw = options.get("pf_switch", _HK_PF_SWITCH)
        sw = -1 if sw is None else int(min(check_real("pf_switch", sw, low=0.0), 2.0**62))
        used = "greedy" if init == "auto" else init
        # search from the rows (CSR, no conversion) unless there are more rows than columns
        search_rows = graph.n_rows <= graph.n_cols
        it = graph.itype
        row_match = np.full(graph.n_rows, -1, dtype=it)
        col_match = np.full(graph.n_cols, -1, dtype=it)
        init_card = 0
        if used == "karp-sipser" and graph.nnz:
            row_match, col_match, init_card = initial_matching(graph, "karp-sipser")
        if search_rows:
            ptr, ind, search_match, other_match = graph.row_ptr, graph.col_ind, row_match, col_match
        else:
            ptr, ind, search_match, other_match = graph.col_ptr, graph.row_ind, col_match, row_match
        if used == "greedy" and graph.nnz:
            init_card = int(greedy_init_kernel(ptr, ind, other_match, search_match))
        t1 = time.perf_counter()
        card, hs = _hk_solve(ptr, ind, other_match, search_match, dw, sw)
        stats.update(hs)
        t2 = time.perf_counter()
        if init == "auto":
            stats["init_used"] = used
        stats["init_seconds"] = t1 - t0
        stats["solve_seconds"] = t2 - t1
        return row_match, col_match, card, int(init_card), stats
    transposed = graph.n_rows < graph.n_cols
    h = graph.T if transposed else graph
    if method == "push-relabel":
        k = check_real("relabel_freq", options.get("relabel_freq", 0.5), low=0.0, low_inclusive=False)
        used = "greedy" if init == "auto" else init
        row_match, col_match, init_card = initial_matching(h, used)
        t1 = time.perf_counter()
        st = np.zeros(4, dtype=np.int64)
        card = push_relabel_kernel(h.row_ptr, h.col_ind, h.col_ptr, h.row_ind, row_match, col_match, k, st)
        stats.update(pushes=int(st[0]), relabels=int(st[1]), global_relabels=int(st[2]), double_pushes=int(st[3]))
    else:
        fair = check_bool("fairness", options.get("fairness", True))
        used = init
        solved = False
        if init == "auto" and _auto_prefers_ks(h.n_rows, h.n_cols, h.nnz):
            used = "karp-sipser"
        elif init == "auto":
            # cheap greedy start and a bounded PF+; hard inputs (long augmenting paths, e.g.
            # random sparse graphs) exceed the budget and restart from Karp-Sipser
            row_match, col_match, init_card = initial_matching(h, "greedy")
            budget = _AUTO_BUDGET_PER_EDGE * h.nnz + h.n_rows + h.n_cols
            t1 = time.perf_counter()
            card, st = _pf_with_budget(h.col_ptr, h.row_ind, row_match, col_match, fair, budget)
            used = "greedy"
            solved = card != -2
            if not solved:
                stats["budget_exceeded"] = True
                used = "karp-sipser"
        if not solved:
            row_match, col_match, init_card = initial_matching(h, used)
            t1 = time.perf_counter()
            card, st = _pf_with_budget(h.col_ptr, h.row_ind, row_match, col_match, fair, -1)
        stats.update(phases=int(st[0]), augmentations=int(st[1]), edges_scanned=int(st[2]))
    t2 = time.perf_counter()
    if init == "auto":
        stats["init_used"] = used
    stats["init_seconds"] = t1 - t0
    stats["solve_seconds"] = t2 - t1
    if transposed:
        row_match, col_match = col_match, row_match
    return row_match, col_match, int(card), int(init_card), stats


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
        Nonzero entries are edges.
    method : ``"auto"``, ``"hopcroft-karp"``, ``"push-relabel"``, ``"pothen-fan"`` (CPU) or
        ``"gpr"`` (GPU). ``auto`` runs ``gpr`` when the backend resolves to the GPU, else
        ``hopcroft-karp`` from a greedy start (``init="auto"``).
    backend : ``"auto"`` (GPU when present and the method supports it), ``"cpu"`` or ``"gpu"``.
    init : initial matching, ``"karp-sipser"``, ``"greedy"``, ``"none"`` or ``"auto"`` (default;
        hopcroft-karp: greedy; pothen-fan: greedy and a PF+ bounded to 5 adjacency scans per edge, restarted from
        Karp-Sipser when the budget runs out; push-relabel: greedy; gpr: karp-sipser).
    explicit_zeros : treat stored zeros of a sparse matrix as edges (SciPy's csgraph convention).
    **options :
        ``cover`` (bool, default True) — compute the König vertex cover certificate;
        hopcroft-karp: ``duff_wiberg`` (bool, default False: HKDW's extra DFS per phase),
        ``pf_switch`` (finish with PF+ once a phase scans more than this many entries per
        augmenting path, default 500; None: pure Hopcroft-Karp);
        push-relabel: ``relabel_freq`` (k > 0, global relabel every k*(m+n) pushes, default 0.5);
        pothen-fan: ``fairness`` (bool, default True);
        gpr: passed to the GPU solver, which validates them.

    Returns
    -------
    MatchingResult with ``row_match``, ``col_match`` (-1 unmatched, the graph's index dtype),
    ``cardinality``, ``cover_rows``/``cover_cols`` (None with ``cover=False``), ``method``,
    ``backend``, ``seconds`` (initial matching + solver + cover), ``init``,
    ``init_cardinality`` and ``stats``.
    """
    check_choice("method", method, METHODS)
    check_choice("init", init, INIT_CHOICES)
    explicit_zeros = check_bool("explicit_zeros", explicit_zeros)
    if method == "gpr" and backend == "cpu":
        raise ValueError("method='gpr' runs on the GPU only; it cannot be combined with backend='cpu' "
                         "(use method='hopcroft-karp', 'push-relabel' or 'pothen-fan' on the CPU)")
    resolved = resolve_backend(backend, gpu_supported=method in ("auto", "gpr"),
                               what=f"bipartite_matching(method={method!r})")
    if method == "gpr" and resolved != "gpu":
        require_gpu("bipartite_matching(method='gpr')")
    want_cover = check_bool("cover", options.pop("cover", True))
    g = as_bipartite(graph, "graph", explicit_zeros=explicit_zeros)

    if resolved == "gpu":
        method = "gpr"
        from ._gpu_gpr import gpr_match  # noqa: PLC0415 - the GPU module loads numba.cuda

        t0 = time.perf_counter()
        row_match, col_match, init_card, stats = gpr_match(g, init=init, **options)
        row_match = np.asarray(row_match, dtype=g.itype)
        col_match = np.asarray(col_match, dtype=g.itype)
        card = int(np.count_nonzero(row_match >= 0))
        stats = dict(stats)
        stats["solve_seconds"] = time.perf_counter() - t0
    else:
        if method == "auto":
            method = _auto_cpu_method(g)
        check_options(f"bipartite_matching(method={method!r})", options,
                      _METHOD_OPTIONS[method] + _COMMON_OPTIONS)
        t0 = time.perf_counter()
        row_match, col_match, card, init_card, stats = _solve_cpu(g, method, init, options)
    cover_rows = cover_cols = None
    if want_cover:
        t2 = time.perf_counter()
        cover_rows, cover_cols = konig_cover(g, row_match, col_match)
        stats["cover_seconds"] = time.perf_counter() - t2
    seconds = time.perf_counter() - t0
    return MatchingResult(
        row_match=row_match,
        col_match=col_match,
        cardinality=card,
        cover_rows=cover_rows,
        cover_cols=cover_cols,
        method=method,
        backend=resolved,
        seconds=seconds,
        init=init,
        init_cardinality=int(init_card),
        stats=stats,
    )


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
    """
    if not sp.issparse(graph):
        raise TypeError("graph must be sparse")
    if graph.format not in ("csr", "csc", "coo"):
        raise TypeError("graph must be in CSC, CSR, or COO format.")
    check_choice("perm_type", perm_type, ("row", "column"))
    n_rows, n_cols = graph.shape
    dt = np.int32 if max(n_rows, n_cols) <= np.iinfo(np.int32).max else np.int64
    side = _one_side(graph)
    if side is not None and _auto_method(side[0], n_rows, n_cols) != "hopcroft-karp":
        side = None
    if side is not None:
        ptr, ind, search_rows = side
        n_other = n_cols if search_rows else n_rows
        search_match = np.full(len(ptr) - 1, -1, dtype=ind.dtype)
        other_match = np.full(n_other, -1, dtype=ind.dtype)
        if len(ind):
            greedy_init_kernel(ptr, ind, other_match, search_match)
            _hk_solve(ptr, ind, other_match, search_match, False, _HK_PF_SWITCH)
        row_match, col_match = (search_match, other_match) if search_rows else (other_match, search_match)
    else:
        g = as_bipartite(graph, "graph", explicit_zeros=True)
        res = bipartite_matching(g, method="auto", backend="cpu", init="auto", cover=False)
        row_match, col_match = res.row_match, res.col_match
    out = col_match if perm_type == "row" else row_match
    return np.asarray(out, dtype=dt)
