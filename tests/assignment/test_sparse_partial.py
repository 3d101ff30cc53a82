"""Sparse ``partial=True`` without a full matching by shortest augmenting paths (issue 12): the deficient part
split off (Dulmage-Mendelsohn), two full-mode problems, the extended problem's duals as the certificate; against
brute force, SciPy on an extended matrix built here, cost scaling, and on Netlib GREENBEA."""

from __future__ import annotations

import gzip
import importlib

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import maximum_bipartite_matching
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm

import matchflow
from matchflow.assignment._cpu_cost_scaling import NOT_OPTIMAL
from matchflow.verify import verify_sparse_assignment
from tests.naive import partial_assignment_bruteforce


def _max_card(A) -> int:
    S = sp.csr_array((np.ones(A.nnz, dtype=np.int8), A.indices, A.indptr), shape=A.shape)
    return int((maximum_bipartite_matching(S, perm_type="column") >= 0).sum())


@st.composite
def deficient(draw, max_n=5):
    """A sparse matrix with no matching of its smaller side: ``s`` rows of the shorter side see only ``s - 1``
    columns (Hall's condition fails); integer or float, negative costs and ties included; either orientation."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    nr = draw(st.integers(1, max_n))
    nc = draw(st.integers(nr, max_n + 1))
    s = draw(st.integers(1, nr))
    mask = rng.random((nr, nc)) < draw(st.sampled_from([0.3, 0.6, 1.0]))
    rows = rng.choice(nr, s, replace=False)
    mask[np.ix_(rows, rng.permutation(nc)[s - 1:])] = False
    lo, hi = draw(st.sampled_from([(0, 0), (-5, 5), (1, 3), (-(10**9), 10**9)]))
    vals = rng.uniform(lo, hi, mask.shape) if draw(st.booleans()) else rng.integers(lo, hi + 1, mask.shape)
    r, c = np.nonzero(mask)
    A = sp.csr_array((vals[r, c], (r, c)), shape=mask.shape)
    return A.T.tocsr() if draw(st.booleans()) else A


def _dense_inf(A):
    d = np.full(A.shape, np.inf)
    co = A.tocoo()
    d[co.row, co.col] = co.data
    return d


def _close(a, b, floats):
    return a == b if not floats else abs(a - b) <= 1e-9 * (1 + abs(b))


@settings(max_examples=200, deadline=None)
@given(deficient(), st.booleans())
def test_matches_bruteforce_and_certifies(A, maximize):
    assert _max_card(A) < min(A.shape)
    res = matchflow.assignment(A, partial=True, maximize=maximize)
    assert res.method == "jv" and res.stats["sparse_path"] == "ssp" and res.stats["partial"]
    assert verify_sparse_assignment(A, res) == []
    k, best = partial_assignment_bruteforce(_dense_inf(-A if maximize else A))
    assert res.row_ind.size == k
    assert _close(-res.cost if maximize else res.cost, best, A.dtype.kind == "f")
    assert matchflow.assignment(A, partial=True, maximize=maximize, method="jv").cost == res.cost


def _scipy_extended_oracle(A) -> tuple[int, float]:
    """(cardinality, least cost) by SciPy's LAPJVsp on the big-M extension built here: real arcs ``c - lo + 1``,
    each row's and column's own dummy at ``M + 1``, dummy-dummy arcs ``1`` (every perfect matching has
    ``nr + nc`` arcs, so the ``+ 1`` is a constant and no explicit zero reaches SciPy)."""
    nr, nc = A.shape
    co = A.tocoo()
    lo = co.data.min()
    big = (co.data.max() - lo) * min(nr, nc) + 1
    rows = np.r_[co.row, np.arange(nr), nr + np.arange(nc), nr + co.col]
    cols = np.r_[co.col, nc + np.arange(nr), np.arange(nc), nc + co.row]
    vals = np.r_[co.data - lo + 1, np.full(nr + nc, big + 1), np.ones(co.nnz)]
    E = sp.csr_array((vals, (rows, cols)), shape=(nr + nc, nr + nc))
    r, c = scipy_mwfbm(E)
    real = (r < nr) & (c < nc)
    return int(real.sum()), float(A.toarray()[r[real], c[real]].sum())


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(5, 40), st.integers(0, 30), st.booleans(), st.booleans())
def test_medium_against_scipy_on_the_extension_and_cost_scaling(seed, nr, extra, floats, tall):
    rng = np.random.default_rng(seed)
    nc = nr + extra
    mask = rng.random((nr, nc)) < rng.uniform(0.03, 0.3)
    mask[rng.choice(nr, 3, replace=False)] = False  # empty rows: no full matching
    mask[:, rng.choice(nc, min(nc, 2), replace=False)] = False  # empty columns
    vals = rng.uniform(-50, 50, mask.shape) if floats else rng.integers(-50, 51, mask.shape)
    r, c = np.nonzero(mask)
    A = sp.csr_array((vals[r, c], (r, c)), shape=mask.shape)
    A = A.T.tocsr() if tall else A
    res = matchflow.assignment(A, partial=True)
    assert res.method == "jv" and verify_sparse_assignment(A, res) == []
    cs = matchflow.assignment(A, partial=True, method="cost-scaling")
    assert cs.method == "cost-scaling" and res.row_ind.size == cs.row_ind.size == _max_card(A)
    assert _close(res.cost, cs.cost, floats)
    k, best = _scipy_extended_oracle(A) if A.nnz else (0, 0.0)
    assert res.row_ind.size == k and _close(float(res.cost), best, True)


@pytest.mark.parametrize("variant", ["wide", "tall", "float", "maximize"])
def test_a_row_found_later_can_displace_a_matched_one(variant):
    """One column, row 0 at cost 10, row 1 at cost 1: running the rows in turn and skipping the row whose search
    finds no free column would keep row 0 (10); the least cost among maximum matchings is row 1 (1)."""
    A = sp.csr_array((np.array([10, 1]), (np.array([0, 1]), np.array([0, 0]))), shape=(2, 3))
    kw = {}
    if variant == "tall":
        A = A.T.tocsr()
    elif variant == "float":
        A = A.astype(np.float64)
    elif variant == "maximize":
        A.data = -A.data
        kw["maximize"] = True
    res = matchflow.assignment(A, partial=True, **kw)
    assert res.method == "jv" and verify_sparse_assignment(A, res) == []
    pair = (res.row_ind.tolist(), res.col_ind.tolist())
    assert pair == (([0], [1]) if variant == "tall" else ([1], [0]))
    assert res.cost == (-1 if variant == "maximize" else 1)


def test_empty_rows_and_columns_and_all_ties():
    A = sp.csr_array(np.array([[0, 0, 0, 0], [2, 2, 0, 0], [2, 2, 0, 0], [2, 2, 0, 0], [0, 0, 0, 0]]))
    for B in (A, A.T.tocsr()):
        res = matchflow.assignment(B, partial=True)
        assert res.method == "jv" and res.row_ind.size == 2 and res.cost == 4
        assert verify_sparse_assignment(B, res) == []
    Z = sp.csr_array((5, 3), dtype=np.int64)  # no arcs at all
    res = matchflow.assignment(Z, partial=True)
    assert res.row_ind.size == 0 and res.cost == 0 and verify_sparse_assignment(Z, res) == []


def test_integer_range_beyond_cost_scaling_is_solved_exactly():
    """partial=True's big M times the extended size squared overflows cost scaling's int64 prices (it refuses);
    shortest paths only need M times the size, so the answer is exact and certified; larger still, Python integers
    (issue 21); a dummy cost beyond int64 is refused."""
    A = sp.csr_array(np.array([[10**15, 0, 0, 0, 0], [3, 0, 0, 0, 0], [7, 5, -(10**14), 9, 0]], dtype=np.int64))
    A.eliminate_zeros()
    res = matchflow.assignment(A, partial=True)
    assert res.method == "jv" and verify_sparse_assignment(A, res) == []
    assert (res.row_ind.size, res.cost) == partial_assignment_bruteforce(_dense_inf(A)) == (2, 3 - 10**14)
    res = matchflow.assignment(A, partial=True, method="cost-scaling")  # beyond its int64 prices: exact paths
    assert res.stats["sparse_path"] == "ssp-bigint" and res.cost == 3 - 10**14 and verify_sparse_assignment(A, res) == []
    B = A.copy()
    B.data[0] = 10**16  # M * 4 (n + 1) reaches 2^59: the int64 paths' duals could leave int64 (issue 21: exact)
    res = matchflow.assignment(B, partial=True)
    assert res.stats["sparse_path"] == "ssp-bigint" and res.cost == 3 - 10**14 and verify_sparse_assignment(B, res) == []
    B.data[0] = 2**61  # M = range * 3 + 1 >= 2^62: the extended problem's costs leave int64, refused naming it
    with pytest.raises(OverflowError, match=r"^integer cost range \d+ times 3 \(partial=True's dummy cost\)"):
        matchflow.assignment(B, partial=True)


def _netlib(shared_data, name, floats):
    with gzip.open(shared_data / "matrices" / f"{name}.mtx.gz") as f:
        M = sp.csr_array(scipy.io.mmread(f))
    if floats:
        M.data = np.abs(M.data)
    else:  # as benchmarks/bench_cost_scaling.py: |values| as integer costs (x100), > 0
        M.data = np.rint(np.abs(M.data) * 100).astype(np.int64) + 1
    return M


@pytest.mark.parametrize("floats", [False, True])
def test_greenbea_same_as_cost_scaling_and_scipy(shared_data, floats):
    """Netlib GREENBEA (2392 x 5405, no full matching: 2389, the MANIFEST's maximum), both orientations: the
    cardinality and cost of SciPy on the extension and (integers) of cost scaling, certified."""
    A = _netlib(shared_data, "GREENBEA", floats)
    k, best = _scipy_extended_oracle(A)
    assert k == 2389
    cs = matchflow.assignment(A, partial=True, method="cost-scaling")
    assert cs.row_ind.size == k and cs.cost == pytest.approx(best, rel=1e-12) and verify_sparse_assignment(A, cs) == []
    # float costs: cost scaling's matching of the rounded costs is 1e-4 above the optimum (big M sets the scale);
    # it is not proved on the true costs, so shortest augmenting paths answer (and say so)
    assert (cs.method, cs.stats.get("float_fallback")) == (("jv", "jv") if floats else ("cost-scaling", None))
    for B in (A, A.T.tocsr()):
        res = matchflow.assignment(B, partial=True)
        assert res.method == "jv" and res.stats["partial"] and verify_sparse_assignment(B, res) == []
        assert res.row_ind.size == k and res.cost == pytest.approx(best, rel=1e-12)


@pytest.mark.parametrize("floats", [False, True])
def test_unproved_paths_fall_back_to_cost_scaling(monkeypatch, floats):
    """When the label-correcting pass does not prove the paths' matching (stubbed here: a negative cycle), cost
    scaling solves the extension as before and says so in ``result.method``: never an unproved answer."""
    C = importlib.import_module("matchflow.assignment._verify_sparse")  # the routes' duals
    A = sp.csr_array(np.array([[4, 1, 0], [2, 0, 0], [3, 0, 0]]))
    A.eliminate_zeros()
    A = A.astype(np.float64) if floats else A
    assert matchflow.assignment(A, partial=True).method == "jv"
    real = C._label_correcting
    monkeypatch.setattr(C, "_label_correcting", lambda *a: (NOT_OPTIMAL, real(*a)[1]))
    if floats:  # the float route also recomputes the columns' duals: make its gap bound fail instead
        gap = C._gap_stats  # the bound still recorded (cost scaling's answer is judged from it)
        monkeypatch.setattr(C, "_gap_stats", lambda E, x, U, V, stats: gap(E, x, U, V, stats) and False)
    res = matchflow.assignment(A, partial=True, method="jv")
    assert res.method == "cost-scaling" and verify_sparse_assignment(A, res) == []
    assert (res.row_ind.size, res.cost) == (2, 3)


def test_unproved_float_cost_scaling_answer_is_never_silent(monkeypatch):
    """A float cost-scaling answer that the true costs do not prove goes to shortest augmenting paths; when those
    are not proved either (stubbed), the caller is warned with the bound (verify_sparse_assignment rejects it)."""
    S = importlib.import_module("matchflow.assignment._cpu_cost_scaling")
    A = sp.csr_array(np.array([[4.5, 1.25, 0], [2.0, 0, 7.0], [3.0, 0, 1.5]]))
    A.eliminate_zeros()
    real = S.solve_square

    def unproved(*a, **k):  # cost scaling's answer with a bound the verifier rejects
        x, U, V, stats = real(*a, **k)
        stats.update(exact=False, gap_bound=1.0, gap_tol=1e-12)
        return x, U, V, stats

    monkeypatch.setattr(S, "solve_square", unproved)
    res = matchflow.assignment(A, method="cost-scaling")
    assert verify_sparse_assignment(A, res) == []
    assert (res.method, res.stats["float_fallback"]) == ("jv", "jv")  # the fallback's own proof is _gap_stats'
    monkeypatch.setattr(S, "ssp_paths", lambda *a: None)  # the paths not proved either
    with pytest.warns(RuntimeWarning, match=r"could not be proved optimal \(gap bound .* > tolerance"):
        matchflow.assignment(A, method="cost-scaling")
