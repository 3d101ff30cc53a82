"""½-approximate weighted matching on the CPU: every method equals the greedy oracle, certificates,
quality against exact optima, inputs, errors."""

from __future__ import annotations

import networkx as nx
import numba
import numpy as np
import pytest
import scipy.sparse as sp
from cases import wmatching_runs
from hypothesis import given
from hypothesis import strategies as st
from naive import exact_weighted_matching_weight, greedy_weighted_mate

import matchflow as mf
from matchflow import generators
from matchflow.verify import verify_weighted_matching
from matchflow.wmatching import max_weight_matching_approx
from matchflow.wmatching._prepare import SYMMETRY_PART_EDGES, _symmetric_kernel, _symmetric_serial_kernel

VARIANTS = wmatching_runs("cpu")  # every CPU method of the table, suitor also with parallel=True


def edges_of(u, v, w):
    return list(zip(np.asarray(u).tolist(), np.asarray(v).tolist(), np.asarray(w).tolist()))


def check_all(graph, n, edges, **kw):
    """Every method equals the greedy oracle exactly; the certificate holds; returns the weight."""
    mate_want = greedy_weighted_mate(n, edges)
    weights = set()
    for method, opts in VARIANTS:
        res = mf.weighted_matching(graph, method=method, backend="cpu", **opts, **kw)
        np.testing.assert_array_equal(res.mate, mate_want, err_msg=f"{method} {opts}")
        assert res.method == method and res.backend == "cpu"
        assert res.cardinality == np.count_nonzero(mate_want >= 0) // 2 == len(res.edges)
        rep = verify_weighted_matching(graph, res, **kw)
        assert rep.valid and rep.half_approximate, rep.problems
        assert rep.weight == res.weight
        assert res.weight - 1e-9 * abs(res.weight) <= rep.upper_bound <= 2 * res.weight + 1e-9 * abs(res.weight)
        weights.add(res.weight)
    assert len(weights) == 1
    return weights.pop()


weights_st = st.one_of(
    st.integers(-5, 5),  # ties, zeros and negatives everywhere
    st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
    st.integers(-(2**40), 2**40),  # huge integers
)


@st.composite
def edge_lists(draw, max_n=12):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 3 * n))
    u = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    v = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))  # self-loops and duplicates included
    kind = draw(st.sampled_from(["int", "float", "equal"]))
    if kind == "equal":
        w = [draw(st.sampled_from([1, 7]))] * m
    elif kind == "int":
        w = draw(st.lists(st.integers(-5, 2**40), min_size=m, max_size=m))
    else:
        w = draw(st.lists(st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False), min_size=m, max_size=m))
    return n, np.array(u, dtype=np.int64), np.array(v, dtype=np.int64), np.array(w)


@given(edge_lists())
def test_every_method_is_the_greedy_matching_on_random_edge_lists(case):
    n, u, v, w = case
    g = mf.Graph.from_edges(u, v, w, n=n)
    check_all(g, n, edges_of(u, v, w))


@given(edge_lists(max_n=8))
def test_weight_at_least_half_of_the_exact_optimum(case):
    n, u, v, w = case
    opt = exact_weighted_matching_weight(n, edges_of(u, v, w))
    res = mf.weighted_matching(mf.Graph.from_edges(u, v, w, n=n))
    assert res.weight >= 0.5 * opt - 1e-9 * abs(opt)
    better = mf.weighted_matching(mf.Graph.from_edges(u, v, w, n=n), improve=True)
    assert res.weight <= better.weight <= opt + 1e-9 * abs(opt)
    assert verify_weighted_matching(mf.Graph.from_edges(u, v, w, n=n), better).valid


@pytest.mark.parametrize("name,G", [
    ("empty", nx.empty_graph(5)),
    ("star", nx.star_graph(9)),
    ("path", nx.path_graph(11)),
    ("complete", nx.complete_graph(9)),
    ("cycle", nx.cycle_graph(8)),
])
@pytest.mark.parametrize("wkind", ["equal", "random", "negative"])
def test_families_match_networkx_bound_and_oracle(name, G, wkind):
    rng = np.random.default_rng(10)
    G = G.copy()
    for a, b in G.edges:
        G[a][b]["w"] = {"equal": 1.0, "random": float(rng.integers(1, 20)), "negative": float(rng.integers(-3, 4))}[wkind]
    nodes = list(G.nodes)
    edges = [(nodes.index(a), nodes.index(b), d["w"]) for a, b, d in G.edges(data=True)]
    got = check_all(G, len(nodes), edges, weight="w")
    opt = sum(G[a][b]["w"] for a, b in nx.max_weight_matching(G, weight="w"))
    assert 0.5 * opt <= got <= opt
    pairs = max_weight_matching_approx(G, weight="w")
    assert sum(G[a][b]["w"] for a, b in pairs) == got and nx.is_matching(G, pairs)


def test_one_edge_and_isolated_vertices():
    res = mf.weighted_matching((np.array([3]), np.array([1]), np.array([2.5])))
    assert res.mate.tolist() == [-1, 3, -1, 1] and res.weight == 2.5 and res.edges.tolist() == [[1, 3]]
    assert res.edge_ids.tolist() == [0]


def test_ties_use_the_documented_order():
    # path 0-1-2-3, all weights equal: the heaviest edge in the order is {2, 3} (largest endpoint), then {0, 1}
    res = mf.weighted_matching((np.array([0, 1, 2]), np.array([1, 2, 3]), np.ones(3)))
    assert res.edges.tolist() == [[0, 1], [2, 3]]
    # triangle 0,1,2 with equal weights: {1, 2} wins
    res = mf.weighted_matching((np.array([0, 1, 0]), np.array([1, 2, 2]), np.ones(3)))
    assert res.edges.tolist() == [[1, 2]]


def test_duplicates_are_summed_like_scipy_and_edge_ids_point_at_the_first_copy():
    # (u, v, w) is coo_array((w, (u, v))): A[0, 1] = 1 + 3 = 4, A[1, 0] = 5, the edge weighs max = 5; (2, 2) dropped
    u, v, w = np.array([0, 1, 0, 2]), np.array([1, 0, 1, 2]), np.array([1, 5, 3, 100])
    res = mf.weighted_matching((u, v, w))
    assert res.weight == 5.0 and res.edge_ids.tolist() == [0] and res.mate.tolist() == [1, 0, -1]
    u, v, w = np.array([0, 0, 1]), np.array([1, 1, 2]), np.array([3, 3, 5])  # A[0, 1] = 6 beats {1, 2} = 5
    assert mf.weighted_matching((u, v, w)).edges.tolist() == [[0, 1]]


def test_a_nested_list_is_a_matrix_and_a_tuple_is_edge_arrays():
    """A 3 x 3 nested list once read as edge arrays (u, v, w) = its rows (a different graph, silently); it is the
    matrix np.asarray makes of it, as in every other entry point, and edge arrays are the documented tuple."""
    W = [[0, 3, 0], [3, 0, 4], [0, 4, 0]]
    as_list, as_array = mf.weighted_matching(W, backend="cpu"), mf.weighted_matching(np.array(W), backend="cpu")
    assert as_list.mate.tolist() == as_array.mate.tolist() == [-1, 2, 1] and as_list.weight == 4.0
    assert mf.verify.verify_weighted_matching(W, as_list).valid
    edges = mf.weighted_matching(tuple(np.array(r) for r in W), backend="cpu")  # u = [0, 3, 0], v = [3, 0, 4], ...
    assert edges.mate.size == 5


def test_integer_weights_summed_exactly():
    big = 2**53 + 1
    res = mf.weighted_matching((np.array([0, 2]), np.array([1, 3]), np.array([big, 2], dtype=np.int64)))
    assert res.weight == float(big + 2) and res.cardinality == 2


def test_inputs_scipy_dense_rectangular_and_bipartite():
    a = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]], dtype=float)
    for g in (a, sp.csr_array(a), sp.coo_matrix(a)):
        res = mf.weighted_matching(g)
        assert res.edges.tolist() == [[0, 1]] and res.weight == 3.0
    r = np.array([[5.0, 1.0, 0.0], [4.0, 0.0, 2.0]])  # rows 0,1; columns 2,3,4
    res = mf.weighted_matching(sp.csr_array(r))
    assert res.edges.tolist() == [[0, 2], [1, 4]] and res.weight == 7.0
    sq = mf.weighted_matching(np.array([[0, 1.0], [2.0, 0]]), bipartite=True)
    assert sq.edges.tolist() == [[0, 3], [1, 2]] and sq.weight == 3.0 and len(sq.mate) == 4
    check_all(sp.csr_array(r), 5, [(0, 2, 5.0), (0, 3, 1.0), (1, 2, 4.0), (1, 4, 2.0)])


def test_improve_never_lowers_and_finds_the_length3_augmentation():
    # path 0-1-2-3 with weights 2, 3, 2: greedy takes {1, 2} (3); the augmentation gives 4
    g = (np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([2, 3, 2]))
    assert mf.weighted_matching(g).weight == 3.0
    res = mf.weighted_matching(g, improve=True)
    assert res.weight == 4.0 and res.stats["augmentations"] == 1 and res.stats["greedy_weight"] == 3.0


@pytest.mark.parametrize("graph,exc,msg", [
    ((np.array([0]), np.array([1]), np.array([np.nan])), ValueError, r"weights must be finite, got nan"),
    ((np.array([0]), np.array([1]), np.array([np.inf])), ValueError, r"weights must be finite, got inf"),
    (sp.csr_array(np.array([[0, np.nan], [np.nan, 0]])), ValueError, r"graph holds non-finite weights"),
    ((np.array([0]), np.array([-1]), np.array([1.0])), ValueError, r"v holds a negative index -1"),
    ("file.mtx", TypeError, r"graph must be a scipy.sparse matrix, .* got str"),
    ((np.array([0, 1]), np.array([1]), np.ones(1)), ValueError, r"u and v must have the same shape"),
])
def test_bad_input_errors(graph, exc, msg):
    with pytest.raises(exc, match=msg):
        mf.weighted_matching(graph)


def test_bad_arguments():
    g = (np.array([0]), np.array([1]), np.ones(1))
    with pytest.raises(ValueError, match=r"method must be one of \('auto', 'suitor', 'ld', 'greedy'\), got 'x'"):
        mf.weighted_matching(g, method="x")
    with pytest.raises(TypeError, match=r"improve must be True or False, got 1"):
        mf.weighted_matching(g, improve=1)
    with pytest.raises(TypeError, match=r"parallel must be True or False, got 'yes'"):
        mf.weighted_matching(g, method="suitor", parallel="yes")
    with pytest.raises(TypeError, match=r"weighted_matching\(method='ld'\) got unexpected option\(s\) 'parallel'"):
        mf.weighted_matching(g, method="ld", parallel=True)
    with pytest.raises(ValueError, match=r"backend='gpu' is not available for weighted_matching"):
        mf.weighted_matching(g, method="greedy", backend="gpu")
    with pytest.raises(ValueError, match=r"maxcardinality=True is not supported"):
        max_weight_matching_approx(nx.path_graph(3), maxcardinality=True)


def test_verify_rejects_bad_matchings():
    g = mf.Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([1.0, 5.0, 1.0]))
    bad = verify_weighted_matching(g, np.array([1, 0, 3, 2]))  # valid, but {1, 2} beats both endpoints
    assert bad.valid and not bad.half_approximate and "no 1/2 certificate" in bad.problems[0]
    assert not verify_weighted_matching(g, np.array([2, -1, 0, -1])).valid  # {0, 2} is no edge
    assert not verify_weighted_matching(g, np.array([1, 2, -1, -1])).valid  # not symmetric
    assert not verify_weighted_matching(g, np.array([1, 0])).valid  # wrong length
    ok = verify_weighted_matching(g, mf.weighted_matching(g))
    assert ok and ok.weight == 5.0 and ok.upper_bound <= 10.0 and ok.ratio >= 0.5


@given(edge_lists(max_n=10), st.booleans())
def test_scipy_fast_path_and_general_path_agree_with_the_oracle(case, asymmetric):
    n, u, v, w = case
    w = w.astype(np.float64)
    a = sp.coo_array((w, (u, v)), shape=(n, n)).tocsr()
    a.sum_duplicates()  # scipy sums duplicates: the graph's edge {i, j} weighs max(A[i, j], A[j, i])
    sym = a if asymmetric else (a + a.T).tocsr()
    c = sp.coo_array(sym)
    edges = [(i, j, x) for i, j, x in zip(c.coords[0].tolist(), c.coords[1].tolist(), c.data.tolist()) if x != 0]
    for g in (sym, sym.tocsc(), sp.csr_matrix(sym)):
        check_all(g, n, edges)


@given(edge_lists(max_n=14), st.sampled_from(["sym", "asym", "diag", "value"]), st.integers(1, 6))
def test_host_symmetry_check_is_exact_for_any_number_of_parts(case, kind, parts):
    """The one-pass cursor check (parallel over parts of the rows, or one part on the calling thread)
    answers exactly "A == A.T with no diagonal", for every number of parts; the scipy input's answer is
    the oracle's either way."""
    n, u, v, w = case
    a = sp.coo_array((np.abs(w.astype(np.float64)) + 1, (u, v)), shape=(n, n)).tocsr()
    a.sum_duplicates()
    up = sp.triu(a, 1)
    s = sp.csr_array(up + up.T)
    if kind == "asym":
        s = sp.csr_array(s + up)  # the upper copies doubled: values differ (or the lower entry is missing)
    elif kind == "diag":
        s = sp.csr_array(s + sp.eye_array(n))
    elif kind == "value" and s.nnz:
        s.data[0] += 1.0
    s.sort_indices()
    want = bool(s.nnz == 0 or ((s != s.T).nnz == 0 and not s.diagonal().any())) if kind != "sym" else True
    got = bool(_symmetric_kernel(s.indptr, s.indices, s.data.astype(np.float64), parts))
    assert got == want
    assert bool(_symmetric_serial_kernel(s.indptr, s.indices, s.data.astype(np.float64))) == want


def test_rmat_weighted_is_a_canonical_symmetric_weighted_graph_independent_of_threads():
    """generators.rmat_weighted: canonical, symmetric values, no diagonal, weights in 1..max_weight, the same
    graph for a seed on any number of threads; the fast path takes it as it is."""
    a = generators.rmat_weighted(10, 8, seed=4, max_weight=50)
    assert a.has_canonical_format and a.shape == (1024, 1024) and a.dtype == np.int32
    assert (a != a.T).nnz == 0 and not a.diagonal().any()
    assert a.data.min() >= 1 and a.data.max() <= 50 and a.nnz > 8 * 1024
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        b = generators.rmat_weighted(10, 8, seed=4, max_weight=50)
    finally:
        numba.set_num_threads(before)
    assert (a != b).nnz == 0 and (a != generators.rmat_weighted(10, 8, seed=5, max_weight=50)).nnz > 0
    with pytest.raises(ValueError, match=r"max_weight must be"):
        generators.rmat_weighted(4, max_weight=0)
    res = mf.weighted_matching(a, backend="cpu")
    assert "seconds_check" in res.stats and verify_weighted_matching(a, res)


def _circulant(n, offsets):
    """A canonical symmetric CSR: vertex i joined to i +- d (mod n) for d in ``offsets``, symmetric int32 weights."""
    d = np.concatenate([-np.asarray(offsets)[::-1], np.asarray(offsets)])
    ind = np.sort((np.arange(n)[:, None] + d[None, :]) % n, axis=1)
    row = np.repeat(np.arange(n), len(d))
    lo, hi = np.minimum(row, ind.ravel()), np.maximum(row, ind.ravel())
    w = (1 + (lo * 7 + hi * 13) % 1000).astype(np.int32)
    return sp.csr_array((w, ind.ravel().astype(np.int32), np.arange(0, n * len(d) + 1, len(d), dtype=np.int32)),
                        shape=(n, n))


def test_parallel_host_passes_at_the_real_threshold():
    """Issue 21 (9): on Python 3.12 a canonical CSR of >= 4,194,304 entries raised numba's "unexpected cycle in
    lookup()" (a scalar += reduction in the prange symmetry check). The public call at exactly 2 x
    SYMMETRY_PART_EDGES entries takes the parallel check and the parallel matched-weight pass."""
    a = _circulant(1 << 19, [1, 2, 3, 4])
    assert a.nnz == 4_194_304 == 2 * SYMMETRY_PART_EDGES and a.has_canonical_format
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))  # 2 parts where 2 threads exist
        res = mf.weighted_matching(a, backend="cpu")
        ref = mf.weighted_matching(a, backend="cpu", method="greedy")
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(res.mate, ref.mate)
    assert verify_weighted_matching(a, res)
    b = a.copy()
    b.data[b.indptr[1000] + 2] += 1  # one value that differs from its mirror: the check must see it
    assert bool(_symmetric_kernel(a.indptr, a.indices, a.data.astype(np.int64), 2))
    assert not bool(_symmetric_kernel(b.indptr, b.indices, b.data.astype(np.int64), 2))
