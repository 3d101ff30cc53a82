"""Sparse assignment by cost scaling (issue 12): the sparse door, partial=True, the SciPy drop-in
min_weight_full_bipartite_matching and the sparse certificate, against SciPy and brute force."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm

import matchflow
from matchflow.verify import verify_sparse_assignment
from tests.naive import assignment_bruteforce, partial_assignment_bruteforce


def _sparse(rng, nr, nc, density, lo, hi, floats=False):
    mask = rng.random((nr, nc)) < density
    vals = rng.uniform(lo, hi, (nr, nc)) if floats else rng.integers(lo, hi + 1, (nr, nc))
    r, c = np.nonzero(mask)
    return sp.csr_array((vals[r, c], (r, c)), shape=(nr, nc))


def _dense_inf(A):
    d = np.full(A.shape, np.inf)
    co = A.tocoo()
    d[co.row, co.col] = co.data
    return d


@st.composite
def sparse_problems(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    nr, nc = draw(st.integers(0, 6)), draw(st.integers(0, 6))
    density = draw(st.sampled_from([0.2, 0.5, 0.9, 1.0]))
    lo, hi = draw(st.sampled_from([(0, 0), (-5, 5), (0, 3), (1, 10**6), (-(10**9), 10**9)]))
    floats = draw(st.booleans())
    return _sparse(np.random.default_rng(seed), nr, nc, density, lo, hi, floats)


@settings(max_examples=150, deadline=None)
@given(sparse_problems(), st.booleans())
def test_partial_matches_bruteforce_and_certifies(A, maximize):
    res = matchflow.assignment(A, partial=True, maximize=maximize)
    # shortest augmenting paths (with dummy columns when no full matching exists) unless a square full matching
    # exists (cost scaling) or the paths' duals are not proved (cost scaling too: the method says which ran)
    assert res.method == ("jv" if res.stats.get("sparse_path") == "ssp" else "cost-scaling")
    assert res.method == "jv" or not res.stats["partial"] and A.shape[0] == A.shape[1]
    assert verify_sparse_assignment(A, res) == []
    d = _dense_inf(A if not maximize else -A)
    k, best = partial_assignment_bruteforce(d)
    assert res.row_ind.size == k
    total = -res.cost if maximize else res.cost
    if A.dtype.kind == "i":
        assert total == best
    else:
        assert abs(total - best) <= 1e-9 * (1 + abs(best))


@settings(max_examples=150, deadline=None)
@given(sparse_problems(), st.booleans())
def test_full_matches_scipy_and_bruteforce(A, maximize):
    B = A.copy()
    B.data[B.data == 0] = 1  # SciPy drops explicit zeros: compare on instances without them
    try:
        r0, c0 = scipy_mwfbm(B, maximize=maximize)
        feasible = True
    except ValueError as e:
        assert "no full matching exists" in str(e)
        feasible = False
    if not feasible:
        with pytest.raises(ValueError, match="^no full matching exists$"):
            matchflow.min_weight_full_bipartite_matching(B, maximize=maximize)
        return
    r, c = matchflow.min_weight_full_bipartite_matching(B, maximize=maximize)
    Bd = B.toarray()
    assert len(set(r.tolist())) == r.size == min(B.shape) == len(set(c.tolist()))
    assert (_dense_inf(B)[r, c] < np.inf).all()
    if B.dtype.kind == "i":
        assert int(Bd[r, c].sum()) == int(Bd[r0, c0].sum())
        res = matchflow.assignment(B, maximize=maximize)
        assert verify_sparse_assignment(B, res) == []
        opt = assignment_bruteforce(_dense_inf(B) if not maximize else -_dense_inf(B), maximize=False)
        assert (-res.cost if maximize else res.cost) == opt
    else:
        assert abs(Bd[r, c].sum() - Bd[r0, c0].sum()) <= 1e-9 * (1 + abs(Bd[r0, c0].sum()))


def test_dropin_return_shape_and_dtypes_like_scipy():
    A = sp.csr_array(np.array([[1, 5, 3], [4, 1, 2]]))
    for M in (A, A.T.tocsr(), sp.csr_matrix(A), sp.coo_array(A)):
        r0, c0 = scipy_mwfbm(M)
        r, c = matchflow.min_weight_full_bipartite_matching(M)
        assert r.tolist() == r0.tolist() and c.tolist() == c0.tolist()
        assert r.dtype == r0.dtype and c.dtype == c0.dtype


def test_dropin_explicit_zeros_removed_with_scipys_warning():
    A = sp.csr_array((np.array([0.0, 2.0, 3.0, 1.0]), (np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]))),
                     shape=(2, 2))
    with pytest.warns(UserWarning, match="^explicit zero weights are removed before matching$"):
        r, c = matchflow.min_weight_full_bipartite_matching(A)
    assert c.tolist() == [1, 0]  # (0,0) is gone: SciPy's answer
    with pytest.warns(UserWarning):
        assert c.tolist() == scipy_mwfbm(A)[1].tolist()


def test_assignment_explicit_zero_is_a_zero_cost_arc():
    A = sp.csr_array((np.array([0, 2, 3, 1]), (np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]))), shape=(2, 2))
    res = matchflow.assignment(A)
    assert res.col_ind.tolist() == [0, 1] and res.cost == 1
    assert verify_sparse_assignment(A, res) == []


def test_dropin_errors():
    with pytest.raises(TypeError, match="^graph must be sparse$"):
        matchflow.min_weight_full_bipartite_matching(np.eye(2))
    with pytest.raises(ValueError, match="^no full matching exists$"):
        matchflow.min_weight_full_bipartite_matching(sp.csr_array(np.array([[1, 0], [2, 0]])))


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0)])
def test_empty(shape):
    A = sp.csr_array(shape, dtype=np.int64)
    res = matchflow.assignment(A)
    assert res.row_ind.size == 0 and res.cost == 0
    assert matchflow.min_weight_full_bipartite_matching(A)[0].size == 0


def test_single_arc_all_equal_negative_and_rectangular():
    one = sp.csr_array((np.array([-7]), (np.array([2]), np.array([1]))), shape=(3, 4))
    res = matchflow.assignment(one, partial=True)
    assert res.row_ind.tolist() == [2] and res.col_ind.tolist() == [1] and res.cost == -7
    with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
        matchflow.assignment(one)
    eq = sp.csr_array(np.full((5, 8), 3))
    res = matchflow.assignment(eq)
    assert res.cost == 15 and verify_sparse_assignment(eq, res) == []
    res = matchflow.assignment(eq.T.tocsr())
    assert res.cost == 15 and verify_sparse_assignment(eq.T.tocsr(), res) == []


def test_bad_input_messages():
    A = sp.csr_array(np.array([[1.0, np.nan], [2.0, 3.0]]))
    with pytest.raises(ValueError, match="^matrix contains invalid numeric entries: NaN$"):
        matchflow.assignment(A)
    with pytest.raises(ValueError, match="^matrix contains invalid numeric entries: -inf$"):
        matchflow.assignment(sp.csr_array(np.array([[1.0, -np.inf], [2.0, 3.0]])))
    with pytest.raises(ValueError, match=r"^partial=True needs a scipy.sparse cost matrix"):
        matchflow.assignment(np.eye(2), partial=True)
    with pytest.raises(ValueError, match=r"^method='auction' takes dense costs"):
        matchflow.assignment(sp.csr_array(np.eye(2)), method="auction")
    with pytest.raises(TypeError, match="^partial must be True or False, got 'yes'$"):
        matchflow.assignment(sp.csr_array(np.eye(2)), partial="yes")
    with pytest.raises(TypeError, match="^C must have a real dtype"):
        matchflow.assignment(sp.csr_array(np.eye(2, dtype=complex)))


def test_plus_inf_entries_are_missing_arcs():
    A = sp.csr_array(np.array([[1.0, np.inf], [np.inf, 2.0]]))
    res = matchflow.assignment(A)
    assert res.col_ind.tolist() == [0, 1] and res.cost == 3.0


def test_huge_integer_costs_are_solved_exactly_not_wrapped():
    """Issue 21 item 6c, reproducer: a 2 x 2 with 2**62 was refused with OverflowError where SciPy solves; now
    exact (Python integers beyond the int64 solvers' ranges) and certified exactly."""
    A = sp.csr_array(np.array([[2**62, 0], [0, 2**61]], dtype=np.int64))
    res = matchflow.assignment(A)
    assert res.cost == 2**62 + 2**61 and res.col_ind.tolist() == [0, 1] and res.stats["sparse_path"] == "ssp-bigint"
    assert verify_sparse_assignment(A, res) == []


def test_dense_method_cost_scaling_equals_jv():
    rng = np.random.default_rng(5)
    for n, floats in ((1, False), (7, False), (40, False), (40, True)):
        a = rng.uniform(-50, 50, (n, n)) if floats else rng.integers(-50, 50, (n, n))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r1 = matchflow.assignment(a, method="cost-scaling")
        r2 = matchflow.assignment(a, method="jv")
        assert abs(r1.cost - r2.cost) <= 1e-9 * (1 + abs(r2.cost))
        assert matchflow.verify.verify_assignment(a, r1).optimal


def test_certificate_rejects_wrong_answers():
    A = _sparse(np.random.default_rng(3), 8, 8, 0.6, 0, 20)
    A = (A + sp.eye_array(8, dtype=np.int64) * 25).tocsr()
    res = matchflow.assignment(A)
    assert verify_sparse_assignment(A, res) == []
    res.stats["U"] = res.stats["U"] + 1
    assert verify_sparse_assignment(A, res, raise_on_error=False)
    with pytest.raises(ValueError, match="^assignment certificate failed: "):
        verify_sparse_assignment(A, res)


def test_larger_random_against_scipy():
    rng = np.random.default_rng(11)
    for n, hi in ((2000, 100), (3000, 10**6)):
        A = _sparse(rng, n, n, 10 / n, 1, hi)
        A = (A + sp.diags_array(rng.integers(1, hi, n), dtype=np.int64)).tocsr()
        r0, c0 = scipy_mwfbm(A)
        res = matchflow.assignment(A)
        assert verify_sparse_assignment(A, res) == []
        assert res.cost == int(A.toarray()[r0, c0].sum())


def test_float_certificate_is_computed_by_the_verifier():
    A = _sparse(np.random.default_rng(8), 9, 12, 0.5, -3, 3, floats=True)
    res = matchflow.assignment(A, partial=True)
    assert verify_sparse_assignment(A, res) == [] and res.stats["float_proved"]
    res.stats["gap_bound"] = 1e9  # a claimed bound is not trusted
    res.stats["V"] = res.stats["V"].copy()
    res.stats["V"][0] += 1e-3  # one column's dual raised: infeasible by 1e-3 (a uniform shift would not matter)
    with pytest.raises(ValueError, match="^assignment certificate failed: the duals leave a gap bound of"):
        verify_sparse_assignment(A, res)


def test_float_certificate_is_rigorous_not_relative():
    """The sparse float certificate is the dense one's directed-rounding bound over the stored entries: a dual
    infeasible by 1e-11 (far above the rounding of entries ~3, far below the old 1e-9 relative acceptance) is
    caught; the solver's own ``gap_bound`` is that bound, within its tolerance ``gap_tol``."""
    A = _sparse(np.random.default_rng(9), 10, 10, 0.6, -3, 3, floats=True)
    res = matchflow.assignment(A)
    assert verify_sparse_assignment(A, res) == [] and res.stats["gap_bound"] <= res.stats["gap_tol"] < 1e-12
    res.stats["V"] = res.stats["V"].copy()
    res.stats["V"][0] += 1e-11
    assert verify_sparse_assignment(A, res, raise_on_error=False)[0].startswith("the duals leave a gap bound of")


def test_verify_assignment_accepts_sparse_costs():
    """verify_assignment checks a sparse result through its extended duals; tampering is caught."""
    rng = np.random.default_rng(21)
    S = sp.random(60, 60, density=0.08, format="csr", random_state=rng) + sp.eye(60, format="csr")
    S = sp.csr_array((np.round(S.data * 50).astype(np.int64), S.indices, S.indptr), shape=S.shape)
    res = matchflow.assignment(S)
    cert = matchflow.verify.verify_assignment(S, res)
    assert cert.valid and cert.optimal and cert.cost == res.cost
    res.stats["V"] = np.array(res.stats["V"]).copy()
    res.stats["V"][0] += 1
    cert = matchflow.verify.verify_assignment(S, res, raise_on_error=False)
    assert cert.valid and not cert.optimal and cert.problems
    with pytest.raises(ValueError, match="^assignment certificate failed: "):
        matchflow.verify.verify_assignment(S, res)
    with pytest.raises(TypeError, match="needs the AssignmentResult of assignment"):
        matchflow.verify.verify_assignment(S, res.row_ind, res.col_ind)


def test_auto_backend_rule_for_sparse_costs(monkeypatch):
    """``backend="auto"``: the CPU below ``AUTO_GPU_NNZ`` arcs, with options, or without a real GPU (the rule
    in ``stats["auto_rule"]``; the GPU side is tested in test_cost_scaling_gpu.py)."""
    S = importlib.import_module("matchflow.assignment._methods")
    M = importlib.import_module("matchflow._methods")
    A = sp.csr_array(np.array([[1, 2], [3, 1]]))
    res = matchflow.assignment(A)
    assert res.backend == "cpu" and res.stats["auto_rule"] == "nnz 4 < 20000000: the CPU twin is faster"
    monkeypatch.setattr(S, "AUTO_GPU_NNZ", 4)
    monkeypatch.setattr(M, "_auto_may_use_gpu", lambda: False)
    res = matchflow.assignment(A)
    assert res.backend == "cpu" and res.stats["auto_rule"] == "no GPU" and res.cost == 2
    res = matchflow.assignment(A, price_update=True)
    assert res.stats["auto_rule"] == "options given: the CPU (give backend='gpu' for GPU options)"
    assert "auto_rule" not in matchflow.assignment(A, backend="cpu").stats


@pytest.mark.parametrize("floats", [False, True])
@pytest.mark.parametrize("wide", [True, False])
def test_rectangular_full_mode_by_shortest_augmenting_paths(floats, wide):
    """method="auto" on a rectangular sparse matrix in full mode runs shortest augmenting paths (LAPJVsp's way)
    instead of cost scaling on the square extension: ``method == "jv"``, certified through the extended duals,
    the same optimum as cost scaling and SciPy; a row without an augmenting path is SciPy's infeasibility."""
    rng = np.random.default_rng(31 + floats + 2 * wide)
    for _ in range(25):
        nr = int(rng.integers(1, 25))
        A = _sparse(rng, nr, nr + int(rng.integers(1, 25)), rng.uniform(0.15, 0.9), -40, 40, floats=floats)
        A.data[A.data == 0] = 41  # SciPy drops explicit zeros (its warning); ours keeps them as zero-cost arcs
        A = A if wide else A.T.tocsr()
        try:
            want = scipy_mwfbm(A)
        except ValueError:
            with pytest.raises(ValueError, match="cost matrix is infeasible"):
                matchflow.assignment(A)
            continue
        res = matchflow.assignment(A)
        assert res.method == "jv" and res.stats["sparse_path"] == "ssp" and verify_sparse_assignment(A, res) == []
        cs = matchflow.assignment(A, method="cost-scaling")
        assert cs.method == "cost-scaling" and res.cost == pytest.approx(cs.cost, rel=1e-12, abs=1e-12)
        assert res.cost == pytest.approx(float(A[want].sum()), rel=1e-12, abs=1e-12)


def test_sparse_jv_method_square_and_its_errors():
    """method="jv" on sparse costs: shortest augmenting paths on square inputs too (same optimum as cost
    scaling, certified), partial=True included; the cost-scaling options are refused with one message."""
    rng = np.random.default_rng(41)
    A = _sparse(rng, 30, 30, 0.3, 0, 100)
    A = (A + sp.eye(30, format="csr", dtype=A.dtype)).tocsr()
    res = matchflow.assignment(A, method="jv")
    assert res.method == "jv" and verify_sparse_assignment(A, res) == []
    assert res.cost == matchflow.assignment(A, method="cost-scaling").cost
    part = matchflow.assignment(A, method="jv", partial=True)  # a full matching exists: full mode
    assert part.method == "jv" and part.cost == res.cost and not part.stats["partial"]
    msg = (r"^method='jv' on sparse costs \(shortest augmenting paths\) takes no options; the cost-scaling options "
           r"need method='cost-scaling'$")
    with pytest.raises(ValueError, match=msg):
        matchflow.assignment(A, method="jv", price_update=True)
    with pytest.raises(ValueError, match="^method='hungarian' takes dense costs; a scipy.sparse matrix needs "
                                         "method='cost-scaling', 'jv' or 'auto'$"):
        matchflow.assignment(A, method="hungarian")


def test_integer_ranges_beyond_int64_are_exact_and_wide_partial_dummies_refused():
    """A range of 2^63 + 5 (int64 entries at both ends) is solved exactly, never wrapped into a small range or a
    false "infeasible"; partial=True's dummy cost (range times rows) must fit int64, else it is refused naming
    it; maximize=True cannot negate int64's least value (refused naming it)."""
    A = sp.csr_array(np.array([[2**62, -(2**62), 5], [1, 2, 3]], dtype=np.int64))
    for kw in ({}, {"partial": True}, {"method": "jv"}, {"method": "cost-scaling"}):
        res = matchflow.assignment(A, **kw)
        assert res.cost == 1 - 2**62 and verify_sparse_assignment(A, res) == []
    B = sp.csr_array(np.array([[2**61, 0, 0], [5, 0, 0]], dtype=np.int64))  # no full matching: big-M dummies
    res = matchflow.assignment(B, partial=True)
    assert res.cost == 5 and res.row_ind.tolist() == [1] and verify_sparse_assignment(B, res) == []
    B = sp.csr_array(np.array([[2**62, 0, 0], [5, 0, 0]], dtype=np.int64))
    with pytest.raises(OverflowError, match=r"^integer cost range 4611686018427387899 times 2 \(partial=True's dummy "):
        matchflow.assignment(B, partial=True)
    C = sp.csr_array(np.array([[-(2**63), 0], [0, 5]], dtype=np.int64))
    with pytest.raises(ValueError, match="^cost entry -9223372036854775808 cannot be negated in int64 for maximize"):
        matchflow.assignment(C, maximize=True)
