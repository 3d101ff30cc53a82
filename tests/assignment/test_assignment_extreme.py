"""Dense assignment under extreme numbers (issue 13, issue 8): never a wrong answer certified optimal.

Reproducers of the issues verbatim, then a property test of every CPU method over extreme
magnitudes against SciPy and an exact brute force (``tests/naive.py``), certificates checked.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse.csgraph
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from naive import assignment_bruteforce_exact, assignment_limit_bruteforce, exact_total
from scipy.optimize import linear_sum_assignment as scipy_lsa

import matchflow
from matchflow import generators
from matchflow._validation import native_array
from matchflow.assignment import _cpu_auction
from matchflow.assignment._cpu_auction import solve_auction
from matchflow.assignment._methods import TABLE
from matchflow.assignment._verify import granularity
from matchflow.verify import verify_assignment

inf = np.inf
CPU = TABLE.cpu_names  # every dense CPU row


# ---------------------------------------------------------------- issue 13 item 1 / issue 8

@pytest.mark.parametrize("method", CPU)
def test_issue13_global_min_shift_does_not_destroy_small_costs(method):
    C = np.array([[5, inf, inf], [-1e12, 1e-5, 2e-5], [inf, 4e-5, 3e-5]])
    r, k = scipy_lsa(C)
    assert k.tolist() == [0, 1, 2]
    res = matchflow.assignment(C, method=method, backend="cpu")
    assert res.col_ind.tolist() == [0, 1, 2] and res.cost == C[r, k].sum()
    cert = verify_assignment(C, res)
    assert cert.optimal and cert.tol < 1.0  # was 4000 (1e-9 x the largest entry)
    assert matchflow.linear_sum_assignment(C)[1].tolist() == [0, 1, 2]


def test_issue8_auction_wrong_answer_is_not_certified():
    c = np.array([[2, 1, 5, inf, 2, 1], [1, 1e16, 7, 0, inf, 7]])
    res = matchflow.assignment(c, method="auction", backend="cpu")
    assert res.cost == 1.0 and verify_assignment(c, res).optimal
    for m in CPU:
        assert matchflow.assignment(c, method=m, backend="cpu").cost == 1.0
    # the answer the auction used to return (cost 2.0) is rejected with the optimal duals
    cert = verify_assignment(c, [0, 1], [1, 0], res.u, res.v, raise_on_error=False)
    assert cert.valid and cert.cost == 2.0 and not cert.optimal
    # and with duals scaled like the auction's (1e16): still rejected, the tolerance is not 1e7
    big = verify_assignment(c, [0, 1], [1, 0], res.u + 1e16, res.v - 1e16, raise_on_error=False)
    assert not big.optimal


# ---------------------------------------------------------------- issue 13 item 4: the auction ends

def test_auction_terminates_on_subnormal_costs():
    res = matchflow.assignment([[0, 5e-324, 1e-323]], method="auction", backend="cpu")
    assert res.cost == 0.0 and res.col_ind.tolist() == [0]
    rng = np.random.default_rng(13)
    for _ in range(100):
        nr, nc = (int(t) for t in rng.integers(1, 5, size=2))
        c = rng.integers(0, 4, size=(nr, nc)) * 5e-324
        res = matchflow.assignment(c, method="auction", backend="cpu")
        assert exact_total(c, res.row_ind, res.col_ind) == assignment_bruteforce_exact(c)
        assert res.stats["gap_bound"] is not None and not res.stats.get("certificate_warning")


def test_auction_terminates_with_tiny_eps_final():
    res = matchflow.assignment(np.ones((3, 3)), method="auction", backend="cpu", eps_final=1e-30)
    assert res.cost == 3.0 and res.stats["iterations"] < 10**4  # bids: a work counter, not a clock


def test_auction_bid_limit_ends_with_the_exact_cleanup():
    rng = np.random.default_rng(5)
    C = rng.random((30, 30))
    x, u, v, stats = solve_auction(C, max_bids=10)
    assert stats["bid_limit_hit"] and stats["iterations"] <= 10
    r, k = scipy_lsa(C)
    assert C[np.arange(30), x].sum() == pytest.approx(C[r, k].sum(), rel=1e-12)
    assert sorted(x.tolist()) == list(range(30))


def test_auction_returns_to_python_between_bid_chunks(monkeypatch):
    calls = []
    kernel = _cpu_auction._auction_bids_kernel

    def counting(*args):
        calls.append(args[7])  # max_bids of this call
        return kernel(*args)

    monkeypatch.setattr(_cpu_auction, "_CHUNK", 7)
    monkeypatch.setattr(_cpu_auction, "_auction_bids_kernel", counting)
    C = np.random.default_rng(2).random((40, 40))
    solve_auction(C)
    assert len(calls) > 10 and max(calls) <= 7  # Ctrl-C is seen between these calls


# ---------------------------------------------------------------- issue 13 item 3: feasibility check

def test_feasibility_check_is_ours_not_scipys_on_the_hk_ladder(monkeypatch):
    A = generators.hk_ladder(32)  # 97 x 97: SciPy's matcher takes ~40 s on this pattern
    assert A.shape == (97, 97)
    C = np.where(A.toarray() != 0, 1.0, np.inf)

    def forbidden(*args, **kwargs):
        raise AssertionError("SciPy's maximum_bipartite_matching must not be called")

    monkeypatch.setattr(scipy.sparse.csgraph, "maximum_bipartite_matching", forbidden)
    for m in CPU:
        res = matchflow.assignment(C, method=m, backend="cpu")
        assert res.cost == 97.0 and verify_assignment(C, res).optimal
    r, k = matchflow.linear_sum_assignment(C)
    assert C[r, k].sum() == 97.0
    C[np.nonzero(A.toarray()[:, 0])[0], 0] = np.inf  # column 0 loses every edge
    with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
        matchflow.linear_sum_assignment(C)


# ---------------------------------------------------------------- issue 8: door of the drop-in

def test_dropin_accepts_scipys_keywords():
    C = np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
    for kw in ({"cost_matrix": C}, {"cost_matrix": C, "maximize": True}):
        r, k = matchflow.linear_sum_assignment(**kw)
        r0, k0 = scipy_lsa(**kw)
        assert C[r, k].sum() == C[r0, k0].sum()
    r, k = matchflow.linear_sum_assignment(C, True)  # positional still works
    assert C[r, k].sum() == 11


@pytest.mark.parametrize("dt", [">i8", ">i4", ">i2", ">u2", ">u8", ">f8", ">f4", "<i8", "=i4", "<f8"])
def test_non_native_byte_order_at_the_door(dt):
    base = np.array([[1, 2, 9], [3, 4, 1], [7, 0, 5]])
    c = base.astype(dt)
    r0, k0 = scipy_lsa(base)
    want = int(base[r0, k0].sum())
    r, k = matchflow.linear_sum_assignment(c)
    assert base[r, k].sum() == want and r.dtype == np.int64
    for m in CPU:
        res = matchflow.assignment(c, method=m, backend="cpu")
        assert res.cost == want and verify_assignment(c, res).optimal
        assert matchflow.assignment(c, maximize=True, method=m, backend="cpu").cost == int(
            base[scipy_lsa(base, maximize=True)].sum())


def test_native_array_helper():
    a = np.arange(4, dtype="<i8" if np.little_endian else ">i8").reshape(2, 2)
    assert native_array(a, "x") is a
    b = np.arange(4, dtype=">i2" if np.little_endian else "<i2").reshape(2, 2)
    nb = native_array(b, "x")
    assert nb.dtype.isnative and nb.dtype.itemsize == 2 and nb.dtype.kind == "i" and np.array_equal(nb, b)
    s = np.array(["a"])
    assert native_array(s, "x") is s  # non-numeric dtypes are left to the caller's type check


# ---------------------------------------------------------------- lap/lapx cost_limit and extend_cost

def test_cost_limit_lap_semantics():
    res = matchflow.assignment([[1, 10], [10, 1]], cost_limit=5)
    assert res.row_ind.tolist() == [0, 1] and res.col_ind.tolist() == [0, 1] and res.cost == 2
    res = matchflow.assignment([[10, 10], [10, 1]], cost_limit=5)
    assert res.row_ind.tolist() == [1] and res.col_ind.tolist() == [1] and res.cost == 1
    assert res.stats["unassigned_rows"] == 1 and res.stats["limit_certificate"].verify().optimal


@pytest.mark.parametrize("maximize", [False, True])
def test_cost_limit_against_brute_force(maximize):
    rng = np.random.default_rng(8)
    for trial in range(60):
        nr, nc = (int(t) for t in rng.integers(1, 5, size=2))
        c = rng.integers(0, 20, size=(nr, nc)).astype(float if trial % 2 else np.int64)
        if trial % 3 == 0 and c.dtype.kind == "f":
            c[rng.random(c.shape) < 0.3] = -inf if maximize else inf
        lim = float(rng.integers(0, 30)) + (0.5 if trial % 5 == 0 else 0.0)
        res = matchflow.assignment(c, cost_limit=lim, maximize=maximize)
        cert = res.stats["limit_certificate"].verify()
        assert cert.optimal
        unmatched = (nr - res.row_ind.size) + (nc - res.col_ind.size)
        got = float(res.cost) + lim / 2 * unmatched
        assert got == pytest.approx(assignment_limit_bruteforce(c, lim, maximize), abs=1e-9)
        assert np.isfinite(c[res.row_ind, res.col_ind]).all()


def test_extend_cost_maps_to_rectangular_support():
    c = np.array([[1, 2, 3], [3, 4, 1]])
    a = matchflow.assignment(c, extend_cost=True)
    b = matchflow.assignment(c)
    assert a.cost == b.cost == 2 and a.col_ind.tolist() == b.col_ind.tolist()
    with pytest.raises(ValueError, match=r"Square cost array expected, got shape \(2, 3\); pass extend_cost=True"):
        matchflow.assignment(c, extend_cost=False)
    assert matchflow.assignment(np.eye(2), extend_cost=False).cost == 0.0
    with pytest.raises(TypeError, match="extend_cost must be True or False, got 'yes'"):
        matchflow.assignment(c, extend_cost="yes")
    with pytest.raises(ValueError, match="cost_limit must be finite, got nan"):
        matchflow.assignment(c, cost_limit=np.nan)


# ---------------------------------------------------------------- property test: extreme magnitudes

FAMILIES = ["subnormal", "huge", "mixed", "forbidden", "ties", "negative_huge"]


def _instance(family: str, rng: np.random.Generator, nr: int, nc: int) -> np.ndarray:
    if family == "subnormal":
        return rng.integers(0, 6, size=(nr, nc)) * 5e-324
    if family == "huge":
        return rng.choice([-1e300, 1e300, 0.0, 2e300, -3e299], size=(nr, nc))
    if family == "mixed":
        return rng.choice([1e-5, 2e-5, 3e-5, 1e15, -1e12, 1.0, 7e14], size=(nr, nc))
    if family == "forbidden":
        c = rng.choice([1e-5, 4e-5, 1e16, 2.0, 0.0], size=(nr, nc))
        c[rng.random((nr, nc)) < 0.35] = inf
        return c
    if family == "ties":
        return rng.integers(0, 3, size=(nr, nc)).astype(float)
    return rng.choice([-1e308, 1e308, 1e-300, 0.0], size=(nr, nc))


def _outcome(c: np.ndarray, method: str, maximize: bool, opt) -> str:
    """'infeasible' / 'ok' / 'wrong' (total != the exact optimum) / 'unsound' (total - optimum >
    gap_bound, or a certificate warning) for one solve, everything compared in exact rationals."""
    if opt is None:
        with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
            matchflow.assignment(c, method=method, backend="cpu", maximize=maximize)
        return "infeasible"
    cm = -c if maximize else c
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a certificate warning fails the test
        res = matchflow.assignment(c, method=method, backend="cpu", maximize=maximize)
    assert res.row_ind.size == min(c.shape) and np.isfinite(c[res.row_ind, res.col_ind]).all()
    got = exact_total(cm, res.row_ind, res.col_ind)
    gap = res.stats["gap_bound"]
    if gap is None or not got - opt <= Fraction(gap):
        return "unsound"
    return "ok" if got == opt else "wrong"


def _check(c: np.ndarray, method: str, maximize: bool) -> str:
    """Asserts the answer against the exact brute force and SciPy; returns 'infeasible' or 'ok'."""
    opt = assignment_bruteforce_exact(-c if maximize else c)
    out = _outcome(c, method, maximize, opt)
    assert out in ("ok", "infeasible"), out
    if out == "ok":
        r, k = scipy_lsa(c, maximize=maximize)
        assert exact_total(-c if maximize else c, r, k) >= opt  # SciPy never beats the exact optimum
    return out


@example(family="negative_huge", method="jv", seed=0, nr=1, nc=4, maximize=False)
@example(family="negative_huge", method="jv", seed=0, nr=1, nc=4, maximize=True)
@example(family="mixed", method="auction", seed=1, nr=5, nc=3, maximize=False)
@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(FAMILIES), method=st.sampled_from(CPU), seed=st.integers(0, 2**32 - 1),
       nr=st.integers(1, 5), nc=st.integers(1, 5), maximize=st.booleans())
def test_property_extreme_magnitudes(family, method, seed, nr, nc, maximize):
    c = _instance(family, np.random.default_rng(seed), nr, nc)
    if maximize:
        c = np.where(np.isinf(c), -inf, c)
    _check(c, method, maximize)


def test_reproducer_tiny_cost_beside_1e308():
    c = np.array([[0.0, 1e-300, 1e-300, 1e308]])
    for method in CPU:
        res = matchflow.assignment(c, method=method, backend="cpu")
        assert res.col_ind.tolist() == [0] and res.cost == 0.0
        assert Fraction(1e-300) > Fraction(res.stats["gap_bound"]) >= 0
    # the wrong column is rejected by the certificate, whatever the duals' scale
    cert = verify_assignment(c, [0], [2], [0.0], [0.0, 0.0, 0.0, 0.0], raise_on_error=False)
    assert not cert.optimal and not cert.exact and cert.gap_bound >= 1e-300


def sweep(seeds: int = 20) -> dict:
    """Every family x every CPU method x shapes 1..5 x maximize x ``seeds`` seeds, exactly checked."""
    counts = {"tried": 0, "infeasible": 0, "ok": 0, "wrong": 0, "unsound": 0}
    for fi, family in enumerate(FAMILIES):
        for nr in range(1, 6):
            for nc in range(1, 6):
                for maximize in (False, True):
                    for seed in range(seeds):
                        c = _instance(family, np.random.default_rng([fi, nr, nc, seed]), nr, nc)
                        if maximize:
                            c = np.where(np.isinf(c), -inf, c)
                        opt = assignment_bruteforce_exact(-c if maximize else c)
                        for method in CPU:
                            counts["tried"] += 1
                            counts[_outcome(c, method, maximize, opt)] += 1
    return counts


def test_extreme_sweep_is_exact():
    counts = sweep()
    assert counts["tried"] == len(FAMILIES) * len(CPU) * 25 * 2 * 20
    assert counts["wrong"] == 0 and counts["unsound"] == 0, counts
    assert counts["ok"] > counts["tried"] // 2  # most instances are feasible: the sweep checks answers


@pytest.mark.parametrize("method", CPU)
def test_tiny_costs_lost_to_the_power_of_two_scaling_are_not_certified(method):
    n = 20  # above EXACT_FLOAT_N: only a failed certificate sends it to the exact solve
    c = np.full((n, n), 1e308)
    c[np.arange(n), np.arange(n)] = 1e-300  # scaled by 2**-134 these underflow to 0 ...
    c[np.arange(n), (np.arange(n) + 1) % n] = 0.0  # ... and tie with the optimum's zeros
    res = matchflow.assignment(c, method=method, backend="cpu")
    assert res.cost == 0.0 and exact_total(c, res.row_ind, res.col_ind) == 0
    assert Fraction(res.stats["gap_bound"]) < Fraction(1e-300)
    wrong = verify_assignment(c, np.arange(n), np.arange(n), np.zeros(n), np.zeros(n), raise_on_error=False)
    assert not wrong.optimal and wrong.gap_bound >= n * 1e-300


def test_granularity_proves_exact_optimality():
    assert granularity(np.array([[1.0, 3.0], [inf, 6.0]])) == 1.0
    assert granularity(np.array([[0.5, 0.0], [5e-324, 2.0]])) == 5e-324
    assert granularity(np.array([[0.0, inf]])) == inf
    assert granularity(np.array([[-0.75, 1e300]])) == 0.25
    cert = verify_assignment([[1.0, 2.0], [2.0, 1.0]], [0, 1], [0, 1], [1.0, 1.0], [0.0, 0.0])
    assert cert.optimal and cert.exact
