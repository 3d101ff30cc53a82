"""CPU maximum-cardinality bipartite matching: oracles, certificates, drop-in, errors."""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest
import scipy.sparse as sp
from cases import MATCHING_CASES
from hypothesis import given
from hypothesis import strategies as st
from naive import max_matching_bruteforce, scipy_card
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

import matchflow as mf
from matchflow import BipartiteGraph, as_bipartite, bipartite_matching, maximum_bipartite_matching
from matchflow import _methods as M
from matchflow._methods import Method
from matchflow.matching import _api, _methods
from matchflow.matching import _cpu_hopcroft_karp as hk
from matchflow.matching import _cpu_pothen_fan as pf
from matchflow.matching import _cpu_push_relabel as pr
from matchflow.matching._api import CPU_METHODS as API_CPU_METHODS
from matchflow.matching._api import METHODS
from matchflow.matching._cpu_init import initial_matching
from matchflow.matching._cpu_pothen_fan import pothen_fan_arrays
from matchflow.matching._cpu_push_relabel import solve_push_relabel
from matchflow.matching._methods import TABLE
from matchflow.verify import verify_matching

CPU_METHODS = list(TABLE.cpu_names)  # the family's table: a new row is tested without touching this file
GPU_METHODS = [m.name for m in TABLE.methods if m.gpu is not None]
INITS = ["karp-sipser", "greedy", "none", "auto"]


def solve(a, method, init, **kw):
    res = bipartite_matching(a, method=method, init=init, backend="cpu", **kw)
    rep = verify_matching(a, res, explicit_zeros=kw.get("explicit_zeros", False))
    assert rep.valid and rep.maximum and rep.cardinality == res.cardinality
    return res


# ----------------------------------------------------------------- strategies
@st.composite
def sparse_graphs(draw, max_n=14):
    m = draw(st.integers(0, max_n))
    n = draw(st.integers(0, max_n))
    if m == 0 or n == 0:
        return sp.csr_array((m, n))
    k = draw(st.integers(0, m * n * 2))
    rows = draw(st.lists(st.integers(0, m - 1), min_size=k, max_size=k))
    cols = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k))
    # COO with repeated entries: duplicates are merged (summed) by scipy
    return sp.coo_array((np.ones(k), (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
                        shape=(m, n)).tocsr()


# -------------------------------------------------------------- random / tiny
@pytest.mark.parametrize("method", CPU_METHODS)
@pytest.mark.parametrize("init", INITS)
@given(a=sparse_graphs())
def test_matches_scipy_and_bruteforce(method, init, a):
    res = solve(a, method, init)
    assert res.cardinality == scipy_card(a)
    if min(a.shape) <= 7:
        assert res.cardinality == max_matching_bruteforce(a.toarray())
    assert res.row_match.dtype == res.col_match.dtype == np.int32
    assert res.init == init and res.backend == "cpu" and res.method == method
    assert res.init_cardinality <= res.cardinality


@pytest.mark.parametrize("seed", range(6))
def test_random_larger_vs_scipy(seed):
    rng = np.random.default_rng(seed)
    m, n = rng.integers(200, 3000, 2)
    a = sp.random_array((m, n), density=3.0 / max(m, n), rng=rng, format="csr")
    want = scipy_card(a)
    for method in CPU_METHODS:
        for init in INITS:
            assert solve(a, method, init).cardinality == want


# values tried for every CPU option of the table (a new option needs its values here)
OPTION_VALUES = {"relabel_freq": (0.01, 5.0), "fairness": (False, True), "duff_wiberg": (False, True),
                 "pf_switch": (None, 0, 1e30)}


@pytest.mark.parametrize("method", CPU_METHODS)
def test_relabel_freq_and_fairness_do_not_change_cardinality(method):
    rng = np.random.default_rng(7)
    a = sp.random_array((800, 900), density=0.004, rng=rng, format="csr")
    want = scipy_card(a)
    names = TABLE.row(method).options  # each option of the row alone, then all of them at their last value
    opts = [{o: x} for o in names for x in OPTION_VALUES[o]] + ([{o: OPTION_VALUES[o][-1] for o in names}]
                                                               if len(names) > 1 else [])
    for o in opts:
        for init in INITS:
            assert solve(a, method, init, **o).cardinality == want


def test_push_relabel_stats():
    rng = np.random.default_rng(3)
    a = sp.random_array((500, 500), density=0.006, rng=rng, format="csr")
    res = solve(a, "push-relabel", "none")
    assert res.stats["global_relabels"] >= 1
    assert res.stats["pushes"] >= res.cardinality  # every match needed a push from an empty start
    assert set(res.stats) >= {"pushes", "relabels", "global_relabels"}


# ------------------------------------------------------------------ edge cases
@pytest.mark.parametrize("shape", [(0, 0), (0, 5), (5, 0), (4, 6), (6, 4)])
@pytest.mark.parametrize("method", CPU_METHODS)
def test_empty_graphs(shape, method):
    a = sp.csr_array(shape)
    for init in INITS:
        res = solve(a, method, init)
        assert res.cardinality == 0
        assert res.row_match.shape == (shape[0],) and res.col_match.shape == (shape[1],)
        assert np.all(res.row_match == -1) and np.all(res.col_match == -1)
        # empty cover: no edge to cover
        assert not res.cover_rows.any() and not res.cover_cols.any()
    assert maximum_bipartite_matching(a).shape == (shape[1],)
    assert maximum_bipartite_matching(a, perm_type="column").shape == (shape[0],)


@pytest.mark.parametrize("method", CPU_METHODS)
@pytest.mark.parametrize("m,n", [(1, 1), (1, 50), (50, 1), (3, 200), (200, 3)])
def test_complete_bipartite(method, m, n):
    a = np.ones((m, n))
    for init in INITS:
        assert solve(a, method, init).cardinality == min(m, n)


@pytest.mark.parametrize("method", CPU_METHODS)
def test_isolated_vertices_and_deficient(method):
    # rows 0..2 all see only column 0; column 3 isolated; row 5 isolated
    rows = [0, 1, 2, 3, 4]
    cols = [0, 0, 0, 1, 2]
    g = BipartiteGraph.from_edges(rows, cols, shape=(6, 4))
    for init in INITS:
        res = solve(g, method, init)
        assert res.cardinality == 3
        assert res.row_match[5] == -1 and res.col_match[3] == -1
        assert res.deficiency == 1


@pytest.mark.parametrize("method", CPU_METHODS)
def test_perfect_matching_needs_long_augmenting_paths(method):
    # "staircase": row i sees columns i and i+1; the greedy start (row i -> column i+1) leaves
    # a single free pair joined only by an augmenting path through every vertex
    n = 300
    rows = np.r_[np.arange(n), np.arange(n - 1)]
    cols = np.r_[np.arange(n), np.arange(1, n)]
    g = BipartiteGraph.from_edges(rows, cols, shape=(n, n))
    for init in INITS:
        assert solve(g, method, init).cardinality == n


def test_explicit_zeros_both_settings():
    a = sp.csr_array((np.array([0.0, 0.0, 1.0]), np.array([0, 1, 1]), np.array([0, 2, 3])), shape=(2, 2))
    assert solve(a, "pothen-fan", "greedy").cardinality == 1
    res = solve(a, "pothen-fan", "greedy", explicit_zeros=True)
    assert res.cardinality == 2
    assert scipy_card(a) == 2  # SciPy counts stored zeros as edges
    assert np.count_nonzero(maximum_bipartite_matching(a) >= 0) == 2


def test_accepts_dense_networkx_and_graph_inputs():
    nx = pytest.importorskip("networkx")
    G = nx.Graph()
    G.add_nodes_from(["a", "b"], bipartite=0)
    G.add_nodes_from([1, 2, 3], bipartite=1)
    G.add_edges_from([("a", 1), ("a", 2), ("b", 1)])
    assert bipartite_matching(G, backend="cpu").cardinality == 2
    assert bipartite_matching(np.array([[1, 0], [1, 0]]), backend="cpu").cardinality == 1
    assert bipartite_matching([[True, True], [False, True]], backend="cpu").cardinality == 2


def test_cover_can_be_skipped_and_auto_method():
    a = sp.random_array((60, 80), density=0.05, rng=np.random.default_rng(1), format="csr")
    res = bipartite_matching(a, backend="cpu", cover=False)
    assert res.cover_rows is None and res.cover_cols is None
    assert res.method == "hopcroft-karp" and res.init == "auto" and res.stats["init_used"] == "greedy"
    assert verify_matching(a, res).maximum is None
    assert res.cardinality == scipy_card(a)


def test_int64_graphs():
    rng = np.random.default_rng(2)
    a = sp.random_array((300, 300), density=0.01, rng=rng, format="csr")
    g = BipartiteGraph(300, 300, a.indptr.astype(np.int64), a.indices.astype(np.int64))
    # the trusted constructor narrows to int32; force int64 arrays through the kernels anyway
    for attr, slot in (("row_ptr", "row_ptr"), ("col_ind", "col_ind"), ("col_ptr", "_col_ptr"), ("row_ind", "_row_ind")):
        object.__setattr__(g, slot, getattr(g, attr).astype(np.int64))
    for method in CPU_METHODS:
        res = solve(g, method, "karp-sipser")
        assert res.row_match.dtype == np.int64
        assert res.cardinality == scipy_card(a)


# ------------------------------------------------------------------- drop-in
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("perm_type", ["row", "column"])
@given(a=sparse_graphs(max_n=20))
def test_dropin_matches_scipy(fmt, perm_type, a):
    a = a.asformat(fmt)
    ours = maximum_bipartite_matching(a, perm_type=perm_type)
    ref = scipy_mbm(a, perm_type=perm_type)
    assert ours.dtype == ref.dtype == np.int32
    assert ours.shape == ref.shape
    assert np.count_nonzero(ours >= 0) == np.count_nonzero(ref >= 0)
    if perm_type == "row":
        assert ours.shape == (a.shape[1],)
        row_match = np.full(a.shape[0], -1)
        row_match[ours[ours >= 0]] = np.flatnonzero(ours >= 0)
    else:
        row_match = ours
    verify_matching(a, row_match, explicit_zeros=True)


def test_dropin_unsorted_duplicate_indices_and_matrix_classes():
    # non-canonical CSR (unsorted + duplicate column indices) and the old spmatrix classes
    a = sp.csr_matrix((np.ones(5), np.array([1, 0, 1, 2, 2]), np.array([0, 3, 5])), shape=(2, 3))
    assert not a.has_canonical_format
    assert np.count_nonzero(maximum_bipartite_matching(a) >= 0) == 2
    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array):
        b = cls(np.eye(4))
        np.testing.assert_array_equal(maximum_bipartite_matching(b, perm_type="column"), np.arange(4))


def test_dropin_large_random_uses_fallback_and_agrees():
    rng = np.random.default_rng(11)
    n = 20000
    r = rng.integers(0, n, 3 * n)
    c = rng.integers(0, n, 3 * n)
    a = sp.csr_array((np.ones(3 * n), (r, c)), shape=(n, n))
    ours = maximum_bipartite_matching(a)
    assert np.count_nonzero(ours >= 0) == scipy_card(a)


@pytest.mark.parametrize("bad, msg", [
    (np.eye(3), "graph must be sparse"),
    ([[1, 0], [0, 1]], "graph must be sparse"),
    (sp.lil_array(np.eye(3)), "graph must be in CSC, CSR, or COO format."),
    (sp.dok_array(np.eye(3)), "graph must be in CSC, CSR, or COO format."),
    (sp.bsr_array(np.eye(3)), "graph must be in CSC, CSR, or COO format."),
])
def test_dropin_type_errors_like_scipy(bad, msg):
    with pytest.raises(TypeError, match=re.escape(msg)):
        maximum_bipartite_matching(bad)
    with pytest.raises(TypeError, match=re.escape(msg)):
        scipy_mbm(bad)


def test_dropin_bad_perm_type():
    with pytest.raises(ValueError, match=r"perm_type must be one of \('row', 'column'\), got 'rows'"):
        maximum_bipartite_matching(sp.csr_array(np.eye(2)), perm_type="rows")


# -------------------------------------------------------------- input errors
@pytest.mark.parametrize("kw, exc, msg", [
    ({"method": "hungarian"}, ValueError, r"method must be one of \('auto', 'hopcroft-karp', 'push-relabel', 'pothen-fan', 'gpr'\), got 'hungarian'"),
    ({"backend": "tpu"}, ValueError, r"backend must be one of \('auto', 'cpu', 'gpu'\), got 'tpu'"),
    ({"init": "random"}, ValueError, r"init must be one of \('karp-sipser', 'greedy', 'none', 'auto'\), got 'random'"),
    ({"method": "gpr", "backend": "cpu"}, ValueError, r"method='gpr' runs on the GPU only; it cannot be combined with backend='cpu'"),
    ({"method": "push-relabel", "backend": "cpu", "relabel_freq": 0}, ValueError, r"relabel_freq must be > 0.0, got 0.0"),
    ({"method": "push-relabel", "backend": "cpu", "relabel_freq": -1.5}, ValueError, r"relabel_freq must be > 0.0, got -1.5"),
    ({"method": "push-relabel", "backend": "cpu", "relabel_freq": float("inf")}, ValueError, r"relabel_freq must be finite, got inf"),
    ({"method": "push-relabel", "backend": "cpu", "relabel_freq": "x"}, TypeError, r"relabel_freq must be a real number, got 'x'"),
    ({"method": "pothen-fan", "backend": "cpu", "fairness": 1}, TypeError, r"fairness must be True or False, got 1"),
    ({"method": "pothen-fan", "backend": "cpu", "relabel_freq": 1.0}, TypeError,
     r"bipartite_matching\(method='pothen-fan'\) got unexpected option\(s\) 'relabel_freq'; accepted: cover, fairness"),
    ({"method": "hopcroft-karp", "backend": "cpu", "duff_wiberg": "no"}, TypeError,
     r"duff_wiberg must be True or False, got 'no'"),
    ({"method": "hopcroft-karp", "backend": "cpu", "pf_switch": -3}, ValueError, r"pf_switch must be >= 0.0, got -3.0"),
    ({"method": "hopcroft-karp", "backend": "cpu", "pf_switch": float("nan")}, ValueError, r"pf_switch must be finite, got nan"),
    ({"method": "hopcroft-karp", "backend": "cpu", "fairness": True}, TypeError,
     r"bipartite_matching\(method='hopcroft-karp'\) got unexpected option\(s\) 'fairness'; accepted: cover, duff_wiberg, pf_switch"),
    ({"backend": "cpu", "tol": 1}, TypeError, r"got unexpected option\(s\) 'tol'"),
    ({"backend": "cpu", "cover": "yes"}, TypeError, r"cover must be True or False, got 'yes'"),
    ({"backend": "cpu", "explicit_zeros": None}, TypeError, r"explicit_zeros must be True or False, got None"),
])
def test_bad_arguments(kw, exc, msg):
    with pytest.raises(exc, match=msg):
        bipartite_matching(np.eye(3), **kw)


def test_gpu_backend_errors_without_gpu(monkeypatch):
    if mf.gpu_available():
        pytest.skip("a GPU is present")
    with pytest.raises(mf.GPUUnavailableError, match="backend='gpu' was requested"):
        bipartite_matching(np.eye(3), backend="gpu")
    with pytest.raises(mf.GPUUnavailableError, match="method='gpr'"):
        bipartite_matching(np.eye(3), method="gpr")
    with pytest.raises(ValueError, match=r"backend='gpu' is not available for bipartite_matching\(method='pothen-fan'\)"):
        bipartite_matching(np.eye(3), method="pothen-fan", backend="gpu")
    # backend="auto" without a GPU runs on the CPU
    assert bipartite_matching(np.eye(3)).backend == "cpu"


@pytest.mark.parametrize("bad, exc, msg", [
    (np.ones(3), ValueError, r"graph must be 2-D, got an array of shape \(3,\)"),
    (np.ones((2, 2, 2)), ValueError, r"graph must be 2-D, got an array of shape \(2, 2, 2\)"),
    ("abc", TypeError, r"graph must be .*got str"),
    (None, TypeError, r"graph must be .*got NoneType"),
    (np.array([["a", "b"]]), TypeError, r"graph must hold numbers or booleans, got dtype <U1"),
])
def test_bad_graph_inputs(bad, exc, msg):
    with pytest.raises(exc, match=msg):
        bipartite_matching(bad, backend="cpu")


@pytest.mark.parametrize("rows, cols, shape, exc, msg", [
    ([0, -1], [0, 1], (2, 2), ValueError, r"rows holds a negative index -1"),
    ([0, 1], [0, 5], (2, 2), ValueError, r"cols holds index 5, out of range for n_cols=2"),
    ([0, 1], [0], None, ValueError, r"rows and cols must have the same shape"),
    ([0.5], [0], (1, 1), TypeError, r"rows must hold integers, got dtype float64"),
])
def test_bad_edge_lists(rows, cols, shape, exc, msg):
    with pytest.raises(exc, match=msg):
        BipartiteGraph.from_edges(rows, cols, shape=shape)


# ----------------------------------------------------------- verify_matching
def test_verify_matching_reports_problems():
    g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0], shape=(2, 2))
    ok = verify_matching(g, np.array([1, 0]))
    assert ok.valid and ok.maximum is None and ok.cardinality == 2
    cases = [
        (np.array([0, 0]), None, r"column 0 is matched to more than one row \(rows 0 and 1\)"),
        (np.array([1, 1]), None, r"column 1 is matched to more than one row"),
        (np.array([-1, 1]), None, r"matched pair \(row 1, column 1\) is not an edge of the graph"),
        (np.array([2, -1]), None, r"row_match\[0\] = 2 is out of range"),
        (np.array([-2, -1]), None, r"row_match\[0\] = -2 is out of range"),
        (np.array([1, 0]), np.array([1, -1]), r"row_match and col_match disagree at column 1: col_match\[1\] = -1, but row_match gives 0"),
        (np.array([1]), None, r"row_match must be a 1-D array of length 2, got shape \(1,\)"),
        (np.array([1.0, 0.0]), None, r"row_match must hold integers, got dtype float64"),
    ]
    for rm, cm, msg in cases:
        with pytest.raises(ValueError, match="invalid matching: " + msg):
            verify_matching(g, rm, cm)
        rep = verify_matching(g, rm, cm, raise_on_error=False)
        assert not rep.valid and re.search(msg, rep.problems[0]) and not rep


def test_verify_matching_cover_checks():
    g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0], shape=(2, 2))
    # non-maximum matching with a too-big cover
    rep = verify_matching(g, np.array([0, -1]), cover_rows=np.array([True, True]),
                          cover_cols=np.array([False, False]), raise_on_error=False)
    assert rep.valid and rep.maximum is False
    assert "vertex cover size 2 differs from the matching cardinality 1" in rep.problems[0]
    # a set that misses an edge
    with pytest.raises(ValueError, match=r"edge \(row 0, column 1\) is not covered"):
        verify_matching(g, np.array([1, 0]), cover_rows=np.array([False, True]), cover_cols=np.array([True, False]))
    with pytest.raises(ValueError, match="cover_rows and cover_cols must be given together"):
        verify_matching(g, np.array([1, 0]), cover_rows=np.array([True, True]))
    rep = verify_matching(g, np.array([1, 0]), cover_rows=np.array([1, 1]), cover_cols=np.array([0, 0]))
    assert rep.valid and rep.maximum and bool(rep)


def test_verify_matching_on_result_detects_tampering():
    a = sp.random_array((40, 40), density=0.1, rng=np.random.default_rng(5), format="csr")
    res = bipartite_matching(a, backend="cpu")
    assert verify_matching(a, res).maximum
    i = int(np.flatnonzero(res.row_match >= 0)[0])
    res.row_match = res.row_match.copy()
    res.row_match[i] = -1  # drop one pair: the cover is now larger than the matching
    rep = verify_matching(a, res.row_match, cover_rows=res.cover_rows, cover_cols=res.cover_cols,
                          raise_on_error=False)
    assert rep.valid and rep.maximum is False


# ------------------------------------------- Hopcroft-Karp, auto rule, blow-up inputs
def test_hopcroft_karp_stats_and_pf_switch():
    rng = np.random.default_rng(5)
    a = sp.random_array((3000, 3000), density=2.5 / 3000, rng=rng, format="csr")
    want = scipy_card(a)
    pure = solve(a, "hopcroft-karp", "none", pf_switch=None)
    assert pure.cardinality == want
    assert pure.stats["rounds"] >= 2 and pure.stats["augmentations"] == want
    assert "pf_rounds" not in pure.stats
    # pf_switch=0: any phase after the first that scans an entry hands over to PF+
    hyb = solve(a, "hopcroft-karp", "none", pf_switch=0)
    assert hyb.cardinality == want
    assert hyb.stats["augmentations"] + hyb.stats["pf_augmentations"] == want
    dw = solve(a, "hopcroft-karp", "greedy", duff_wiberg=True, pf_switch=None)
    assert dw.cardinality == want and dw.stats["augmentations"] == want - dw.init_cardinality


def test_hopcroft_karp_searches_rows_without_building_the_csc():
    a = sp.random_array((400, 400), density=0.01, rng=np.random.default_rng(8), format="csr")
    g = mf.BipartiteGraph._from_csr_trusted(sp.csr_array(a))
    assert not g.has_csc
    res = bipartite_matching(g, method="hopcroft-karp", backend="cpu", cover=False)
    assert not g.has_csc  # square: searched from the rows on the CSR
    assert res.cardinality == scipy_card(a)
    tall = mf.BipartiteGraph._from_csr_trusted(sp.csr_array(a[:, :300]))
    assert bipartite_matching(tall, method="hopcroft-karp", backend="cpu", cover=False).cardinality == scipy_card(a[:, :300])
    assert tall.has_csc  # more rows than columns: searched from the columns


def test_auto_rule_degree_features():
    # a star-heavy (skewed) graph goes to push-relabel, a mesh-like one to Hopcroft-Karp
    n = 2000
    rng = np.random.default_rng(4)
    r = np.r_[np.zeros(n, dtype=np.int64), rng.integers(0, n, 2 * n)]
    c = np.r_[np.arange(n), rng.integers(0, n, 2 * n)]
    skew = sp.csr_array((np.ones(len(r)), (r, c)), shape=(n, n))
    res = solve(skew, "auto", "auto")
    assert res.method == "push-relabel" and res.cardinality == scipy_card(skew)
    assert np.count_nonzero(maximum_bipartite_matching(skew) >= 0) == res.cardinality
    mesh = mf.generators.grid2d(40, 40)
    res = solve(mesh, "auto", "auto")
    assert res.method == "hopcroft-karp" and res.cardinality == scipy_card(mesh)
    # mean degree < 3 (road-like): PF+
    path = sp.csr_array(sp.eye_array(n, format="csr") + sp.eye_array(n, k=1, format="csr"))
    res = solve(path, "auto", "auto")
    assert res.method == "pothen-fan" and res.cardinality == n == scipy_card(path)
    assert np.count_nonzero(maximum_bipartite_matching(path) >= 0) == n


def _scans(stats: dict) -> tuple[int, int]:
    """(phases, adjacency entries scanned) of a run, PF+ finish included."""
    phases = stats.get("rounds", 0) + stats.get("pf_rounds", 0)
    return phases, stats.get("edges_scanned", 0) + stats.get("pf_edges_scanned", 0)


@pytest.mark.parametrize("make", [
    lambda: mf.generators.hk_ladder(28),
    lambda: mf.generators.hk_ladder(20, copies=200),
    lambda: mf.generators.grid2d(128, 128, holes=0.2, seed=1),
], ids=["ladder_d28", "ladder_d20_x200", "holes_128"])
def test_blowup_inputs_stay_fast(make):
    """SciPy's Hopcroft-Karp (no dead-end marks, scipy issue 26147) scans exponentially many
    entries in the ladder depth on these; ours marks dead ends, so every phase scans each entry
    at most twice (BFS + DFS; PF+: DFS + lookahead), HK needs O(sqrt(V)) phases, and the whole
    run stays within a small multiple of nnz. Work counters, not wall time (speed: benchmarks/)."""
    a = sp.csr_array(make())
    nnz, n_vertices = a.nnz, sum(a.shape)
    want = None  # no SciPy oracle here (it blows up): the König cover proves each answer maximum
    for method, kw in (("hopcroft-karp", {}), ("hopcroft-karp", {"pf_switch": None}), ("auto", {}),
                       ("hopcroft-karp", {"init": "greedy"})):  # the last: the drop-in's configuration
        res = bipartite_matching(a, method=method, backend="cpu", **kw)
        rep = verify_matching(a, res)
        assert rep.valid and rep.maximum
        want = res.cardinality if want is None else want
        assert res.cardinality == want
        phases, scanned = _scans(res.stats)
        assert 1 <= phases and scanned <= 2 * nnz * phases, (method, kw, res.stats)
        assert scanned <= 20 * nnz, (method, kw, res.stats)
        if res.method == "hopcroft-karp":
            assert res.stats["rounds"] <= 2 * np.sqrt(n_vertices) + 2, res.stats
    out = maximum_bipartite_matching(a, perm_type="column")
    assert np.count_nonzero(out >= 0) == want
    verify_matching(a, out)


# ------------------------------------------- shared cases, method = algorithm / backend = device
@pytest.mark.parametrize("case", MATCHING_CASES, ids=lambda c: c.name)
def test_shared_cases_every_method(case, backend):
    """Every named case through the public entry point: each algorithm on the CPU, and on the
    GPU (``backend`` fixture) method="auto" and each GPU twin (G-PR), all certified."""
    a = case.graph()
    want = scipy_card(a)
    if min(a.shape) <= 7:
        assert want == max_matching_bruteforce(a.toarray())
    methods = CPU_METHODS + ["auto"] if backend == "cpu" else ["auto", *GPU_METHODS]
    for method in methods:
        res = bipartite_matching(a, method=method, backend=backend)
        rep = verify_matching(a, res)
        assert rep.valid and rep.maximum and res.cardinality == want, (method, res)
        assert res.backend == backend and res.method in CPU_METHODS
        if method != "auto":
            assert res.method == method
    assert np.count_nonzero(maximum_bipartite_matching(a, perm_type="column") >= 0) == want


def test_method_table_lists_algorithms_then_aliases():
    assert METHODS == ("auto", "hopcroft-karp", "push-relabel", "pothen-fan", "gpr")
    assert API_CPU_METHODS == tuple(CPU_METHODS)
    assert TABLE.row("gpr") is TABLE.row("push-relabel") and TABLE.row("gpr").gpu is not None
    assert TABLE.row("hopcroft-karp").gpu is None and TABLE.row("pothen-fan").gpu is None


def test_gpr_alias_cannot_run_on_the_cpu():
    msg = (r"^method='gpr' runs on the GPU only; it cannot be combined with backend='cpu' "
           r"\(method='push-relabel' with backend='cpu' runs its CPU twin\)$")
    with pytest.raises(ValueError, match=msg):
        bipartite_matching(np.eye(3), method="gpr", backend="cpu")


@pytest.mark.gpu
def test_gpr_alias_reports_the_algorithm_and_the_device():
    a = sp.random_array((300, 320), density=0.02, rng=np.random.default_rng(3), format="csr")
    for method, backend in (("gpr", "auto"), ("gpr", "gpu"), ("push-relabel", "gpu"), ("auto", "gpu")):
        res = bipartite_matching(a, method=method, backend=backend)
        assert res.method == "push-relabel" and res.backend == "gpu"
        assert verify_matching(a, res).maximum and res.cardinality == scipy_card(a)


def _fake_gpu(monkeypatch, table):
    """Pretend a real GPU is present: placement rules run as on a GPU machine, the GPU twin
    being ``table``'s (a CPU stand-in), so the rules are tested without a device."""
    monkeypatch.setattr(M, "_auto_may_use_gpu", lambda: True)
    monkeypatch.setattr(M, "require_gpu", lambda what: None)
    monkeypatch.setattr(_api, "TABLE", table)


def test_backend_auto_placement_rules(monkeypatch, warm_gpu_process):
    """backend="auto": method="auto" -> G-PR on a GPU from GPU_MIN_NNZ edges, the CPU rule below; an
    explicit method -> the CPU (no per-input measurement says where G-PR wins end to end); "gpr" -> the
    GPU; backend="cpu" -> the CPU rule."""
    calls = []

    def gpu_stand_in(graph, init, **options):
        calls.append(options)
        return solve_push_relabel(graph, init)

    pr = TABLE.row("push-relabel")
    table = TABLE.with_method(Method(pr.name, cpu=pr.cpu, gpu=gpu_stand_in, options=pr.options, check=pr.check,
                                     gpu_alias="gpr"))
    _fake_gpu(monkeypatch, table)
    a = mf.generators.grid2d(10, 10)
    monkeypatch.setattr(_methods, "GPU_MIN_NNZ", a.nnz)  # at the size rule's threshold: G-PR
    expected = {
        ("auto", "auto"): ("push-relabel", "gpu"), ("push-relabel", "auto"): ("push-relabel", "cpu"),
        ("gpr", "auto"): ("push-relabel", "gpu"), ("auto", "cpu"): ("hopcroft-karp", "cpu"),
        ("pothen-fan", "auto"): ("pothen-fan", "cpu"), ("auto", "gpu"): ("push-relabel", "gpu"),
    }
    for (method, backend), want in expected.items():
        opts = {"variant": "x"} if want[1] == "gpu" else {}  # a GPU-only option reaches the GPU solve
        res = bipartite_matching(a, method=method, backend=backend, **opts)
        assert verify_matching(a, res).maximum
        assert (res.method, res.backend) == want, (method, backend)
    assert calls == [{"variant": "x", "device_cover": True}] * 3
    monkeypatch.setattr(_methods, "GPU_MIN_NNZ", a.nnz + 1)  # below the size rule: the CPU rule's pick
    res = bipartite_matching(a, method="auto", backend="auto")
    assert (res.method, res.backend) == ("hopcroft-karp", "cpu")


def test_gpu_rule_reads_size_hubs_and_mean_degree(monkeypatch):
    """The warm GPU rule: nothing below GPU_MIN_NNZ; above it G-PR on graphs with hubs or of mean degree below
    AUTO_GPU_SPARSE, and on regular meshes only from GPU_MIN_NNZ_REGULAR (measured: the CPU wins there)."""
    mesh = as_bipartite(mf.generators.delaunay(3000, seed=2))  # mean degree ~6, no hubs
    road = as_bipartite(mf.generators.grid2d(60, 60, holes=0.3, seed=1))  # mean degree < 4
    hubs = as_bipartite(sp.csr_array(mf.generators.rmat(12, seed=3)))  # power law
    for g in (mesh, road, hubs):
        monkeypatch.setattr(_methods, "GPU_MIN_NNZ", g.nnz + 1)
        assert _methods._gpu_rule(g) is None
    monkeypatch.setattr(_methods, "GPU_MIN_NNZ", 1)
    assert _methods._gpu_rule(road) == "push-relabel" and _methods._gpu_rule(hubs) == "push-relabel"
    assert _methods._gpu_rule(mesh) is None
    monkeypatch.setattr(_methods, "GPU_MIN_NNZ_REGULAR", mesh.nnz)
    assert _methods._gpu_rule(mesh) == "push-relabel"


def test_backend_auto_first_use_rule(monkeypatch, cold_gpu_process):
    """backend="auto" in a process that has not used the GPU: a graph the warm rule sends to G-PR stays on the CPU
    unless it reaches the first-use size (GPU_COLD_NNZ: the saving must cover the first GPU call); a call placed
    on the GPU (auto above that size, or backend="gpu") makes the process warm, and then the warm rule alone
    decides. Without a GPU, ``gpu.warm_up`` raises and leaves the process cold."""
    pr = TABLE.row("push-relabel")
    table = TABLE.with_method(Method(pr.name, cpu=pr.cpu, gpu=lambda g, init, **o: solve_push_relabel(g, init),
                                     options=pr.options, check=pr.check, gpu_alias="gpr"))
    with pytest.raises(mf.GPUUnavailableError):
        mf.gpu.warm_up()
    assert not M.gpu_warm()
    _fake_gpu(monkeypatch, table)
    a = mf.generators.grid2d(10, 10)
    monkeypatch.setattr(_methods, "GPU_MIN_NNZ", a.nnz)  # the warm rule says G-PR
    assert bipartite_matching(a).backend == "cpu" and not M.gpu_warm()  # cold: below GPU_COLD_NNZ
    assert bipartite_matching(a, method="push-relabel", relabel_freq=1.0).backend == "cpu"  # a CPU option
    assert bipartite_matching(a, block_size=32).backend == "gpu"  # a GPU option asks for the GPU, cold or not
    monkeypatch.setattr(M, "_GPU_WARM", [False])  # (that call warmed the process: cold again)
    assert bipartite_matching(a, backend="gpu").backend == "gpu" and M.gpu_warm()  # explicit: warms
    assert bipartite_matching(a).backend == "gpu"  # warm: the warm rule alone
    monkeypatch.setattr(M, "_GPU_WARM", [False])
    monkeypatch.setattr(_methods, "GPU_COLD_NNZ", a.nnz)  # at the first-use size: the GPU at once
    assert bipartite_matching(a).backend == "gpu" and M.gpu_warm()


def test_each_method_is_solve_algo_of_its_cpu_module_and_its_gpu_twin_shares_the_name():
    """Issue 22's vocabulary: method ``x-y`` is ``solve_x_y`` in ``_cpu_x_y.py``; a GPU twin lives in ``_gpu_x_y.py``."""
    for row in TABLE.methods:
        algo = row.name.replace("-", "_")
        assert (row.cpu.__module__, row.cpu.__name__) == (f"matchflow.matching._cpu_{algo}", f"solve_{algo}")
        if row.gpu is not None:
            assert importlib.util.find_spec(f"matchflow.matching._gpu_{algo}") is not None, row.name


def test_a_new_method_is_one_table_row(monkeypatch):
    """Adding a method touches no dispatcher: a toy algorithm registered in a copy of the table
    runs through the public entry point, with its options checked and its name reported."""
    def toy_solve(graph, init, rounds=1):
        # Karp-Sipser, then PF+ (a correct, if naive, "new" algorithm)

        h = graph
        row_match, col_match, init_card = initial_matching(h, "karp-sipser")
        card, st = pothen_fan_arrays(h.col_ptr, h.row_ind, row_match, col_match, True, -1)
        return row_match, col_match, card, init_card, {"toy_rounds": rounds, "rounds": int(st[0])}

    def toy_check(options):
        if not isinstance(options.get("rounds", 1), int):
            raise TypeError(f"rounds must be an integer, got {options['rounds']!r}")
        return options

    monkeypatch.setattr(_api, "TABLE", TABLE.with_method(Method("toy", cpu=toy_solve, options=("rounds",),
                                                                check=toy_check)))
    a = sp.random_array((50, 60), density=0.05, rng=np.random.default_rng(0), format="csr")
    res = bipartite_matching(a, method="toy", backend="cpu", rounds=3)
    assert res.method == "toy" and res.backend == "cpu" and res.stats["toy_rounds"] == 3
    assert verify_matching(a, res).maximum and res.cardinality == scipy_card(a)
    assert bipartite_matching(a, method="toy").backend == "cpu"  # no GPU twin: auto stays on the CPU
    with pytest.raises(TypeError, match=r"^rounds must be an integer, got 'x'$"):
        bipartite_matching(a, method="toy", rounds="x")
    with pytest.raises(TypeError, match=r"bipartite_matching\(method='toy'\) got unexpected option\(s\) 'fairness'; "
                                        r"accepted: cover, rounds"):
        bipartite_matching(a, method="toy", fairness=True)
    with pytest.raises(ValueError, match=r"^backend='gpu' is not available for bipartite_matching\(method='toy'\); "
                                         r"use backend='cpu'$"):
        bipartite_matching(a, method="toy", backend="gpu")
    with pytest.raises(ValueError, match=r"method must be one of \('auto', 'hopcroft-karp', 'push-relabel', "
                                         r"'pothen-fan', 'toy', 'gpr'\), got 'nope'"):
        bipartite_matching(a, method="nope")


def test_validates_once(monkeypatch):
    """One call reads the input once: as_bipartite and the method check run once per call,
    the drop-in's fallback included."""
    counts = {"as_bipartite": 0, "resolve": 0}

    def counting(name, fn):
        def wrapper(*args, **kw):
            counts[name] += 1
            return fn(*args, **kw)
        return wrapper

    monkeypatch.setattr(_api, "as_bipartite", counting("as_bipartite", _api.as_bipartite))
    monkeypatch.setattr(_api, "resolve", counting("resolve", M.resolve))
    bipartite_matching(np.eye(4), backend="cpu")
    assert counts == {"as_bipartite": 1, "resolve": 1}
    path = sp.csr_array(sp.eye_array(50) + sp.eye_array(50, k=1))  # mean degree < 3: the drop-in's fallback
    assert np.count_nonzero(maximum_bipartite_matching(path) >= 0) == 50
    assert counts["as_bipartite"] == 2 and counts["resolve"] == 1


def test_docstring_states_the_constants():
    """The documented defaults are the ones the code uses (the docstring once said budget 5 and
    pf_switch 500 while the code used 3 and 1000)."""
    doc = " ".join(bipartite_matching.__doc__.split())
    assert f"bounded to {pf.AUTO_BUDGET_PER_EDGE} adjacency scans per edge" in doc
    assert f"Karp-Sipser from {pf.AUTO_KS_VERTICES:,} vertices or {pf.AUTO_KS_EDGES:,} edges".replace(",", " ") in doc
    assert f"default {hk.HK_PF_SWITCH};" in doc and f"nnz/{round(1 / hk.HK_SWITCH_FLOOR)}" in doc
    assert f"default {pr.RELABEL_FREQ})" in doc
    assert f"max > {_methods.AUTO_SKEW:g} x mean" in doc and f"below {_methods.AUTO_SPARSE:g}" in doc
    assert "on the GPU: G-PR" in doc
