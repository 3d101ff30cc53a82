"""Dense linear assignment on the CPU: every method against SciPy, brute force and its own duals."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from naive import assignment_bruteforce
from scipy.optimize import linear_sum_assignment as scipy_lsa

import matchflow
from matchflow import AssignmentResult
from matchflow.assignment._prepare import prepare
from matchflow.verify import verify_assignment

METHODS = ["jv", "hungarian", "auction", "munkres"]
I64 = np.iinfo(np.int64)


def exact_bruteforce(cost, maximize=False):
    """Exact optimum of a tiny integer matrix with Python integers (naive.py works in float)."""
    c = [[int(t) for t in row] for row in np.asarray(cost).tolist()]
    nr = len(c)
    nc = len(c[0]) if nr else 0
    if nr > nc:
        c = [list(col) for col in zip(*c)]
        nr, nc = nc, nr
    if nr == 0:
        return 0
    sums = (sum(c[i][j] for i, j in enumerate(p)) for p in itertools.permutations(range(nc), nr))
    return max(sums) if maximize else min(sums)


def scipy_cost(c, maximize=False):
    r, k = scipy_lsa(c, maximize=maximize)
    return c[r, k].sum()


def random_instance(rng, kind, nr, nc):
    if kind == "int":
        return rng.integers(-20, 21, size=(nr, nc))
    if kind == "ties":
        return rng.integers(0, 3, size=(nr, nc)).astype(np.float64)
    if kind == "float":
        return rng.normal(size=(nr, nc)) * 100
    if kind == "inf":
        c = rng.random((nr, nc))
        c[rng.random((nr, nc)) < 0.35] = np.inf
        return c
    raise AssertionError(kind)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", ["int", "ties", "float", "inf"])
def test_same_optimum_as_scipy_with_verified_duals(method, kind):
    # deterministic per case (hash() of a str changes per process): a failure replays
    rng = np.random.default_rng([zlib.crc32(method.encode()), zlib.crc32(kind.encode())])
    checked = 0
    for trial in range(40):
        nr, nc = (int(x) for x in rng.integers(1, 13, size=2))
        if trial % 4 == 0:
            nc = nr  # square
        maximize = trial % 3 == 0
        c = random_instance(rng, kind, nr, nc)
        if maximize and kind == "inf":
            c = -c
        try:
            ref = scipy_cost(c, maximize)
        except ValueError as exc:
            assert str(exc) == "cost matrix is infeasible"
            with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
                matchflow.assignment(c, maximize=maximize, method=method, backend="cpu")
            continue
        res = matchflow.assignment(c, maximize=maximize, method=method, backend="cpu")
        assert isinstance(res, AssignmentResult) and res.method == method and res.backend == "cpu"
        assert res.cost == pytest.approx(ref, rel=1e-12, abs=1e-9)
        assert res.cost == pytest.approx(c[res.row_ind, res.col_ind].sum(), rel=1e-12, abs=1e-12)
        assert np.all(np.diff(res.row_ind) > 0) and len(res.row_ind) == min(nr, nc)
        cert = verify_assignment(c, res)
        assert cert.valid and cert.optimal
        if kind == "int":
            assert isinstance(res.cost, int) and res.cost == ref and cert.tol == 0
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("method", ["jv", "hungarian", "auction"])
def test_medium_instances_match_scipy(method):
    rng = np.random.default_rng(7)
    for shape, hi in [((150, 150), 150), ((90, 160), 1000), ((160, 70), 5)]:
        c = rng.integers(0, hi + 1, size=shape)
        res = matchflow.assignment(c, method=method, backend="cpu")
        assert res.cost == scipy_cost(c)
        assert verify_assignment(c, res).optimal
        cf = rng.random(shape)
        res = matchflow.assignment(cf, method=method, backend="cpu", maximize=True)
        assert res.cost == pytest.approx(scipy_cost(cf, True), rel=1e-12)
        assert verify_assignment(cf, res).optimal


def test_methods_agree_and_report_stats():
    rng = np.random.default_rng(11)
    c = rng.integers(0, 30, size=(25, 25))
    costs = set()
    for m in METHODS:
        res = matchflow.assignment(c, method=m, backend="cpu")
        costs.add(res.cost)
        assert {"augmentations", "iterations", "dual_updates"} <= set(res.stats)
        assert res.seconds > 0 and res.u.dtype == np.int64 and res.v.dtype == np.int64
    assert costs == {scipy_cost(c)}


def test_auto_runs_jv_on_cpu():
    c = np.arange(12).reshape(3, 4) % 5
    res = matchflow.assignment(c, backend="cpu")
    assert res.method == "jv" and res.backend == "cpu" and res.cost == scipy_cost(c)


# ---------------------------------------------------------------- brute force (hypothesis)

small_int = st.integers(-50, 50)
huge_int = st.integers(I64.min // 2, I64.max // 2)


@st.composite
def matrices(draw, elements, max_side=5):
    nr = draw(st.integers(0, max_side))
    nc = draw(st.integers(0, max_side))
    vals = draw(st.lists(elements, min_size=nr * nc, max_size=nr * nc))
    return nr, nc, vals


@given(m=matrices(st.one_of(small_int, huge_int)), maximize=st.booleans(), method=st.sampled_from(METHODS))
def test_integers_exact_against_bruteforce(m, maximize, method):
    nr, nc, vals = m
    c = np.array(vals, dtype=np.int64).reshape(nr, nc)
    res = matchflow.assignment(c, maximize=maximize, method=method, backend="cpu")
    assert res.cost == exact_bruteforce(c, maximize)
    assert len(res.row_ind) == min(nr, nc)
    cert = verify_assignment(c, res)
    assert cert.valid and cert.optimal and cert.tol == 0


finite_or_inf = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.just(np.inf), st.sampled_from([0.0, 1.0, 1.0]))


@given(m=matrices(finite_or_inf), maximize=st.booleans(), method=st.sampled_from(METHODS))
def test_floats_with_forbidden_against_bruteforce(m, maximize, method):
    nr, nc, vals = m
    c = np.array(vals, dtype=np.float64).reshape(nr, nc)
    if maximize:
        c = -c  # -inf is the forbidden value when maximising
    best = assignment_bruteforce(-c if maximize else c)  # +inf entries are forbidden there
    if best is None:
        with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
            matchflow.assignment(c, maximize=maximize, method=method, backend="cpu")
        with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
            scipy_lsa(c, maximize=maximize)
        return
    res = matchflow.assignment(c, maximize=maximize, method=method, backend="cpu")
    expected = -best if maximize else best
    assert res.cost == pytest.approx(expected, rel=1e-9, abs=1e-6)
    assert verify_assignment(c, res).optimal


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "c",
    [
        np.zeros((0, 4)), np.zeros((4, 0)), np.zeros((0, 0)), np.array([[7]]), np.array([[3, 1, 2]]),
        np.array([[3], [1], [2]]), np.full((4, 4), 5), np.full((3, 5), -2.5), -np.arange(20).reshape(4, 5),
        np.array([[I64.max // 2, I64.min // 2], [I64.min // 2, I64.max // 2]]),
        np.array([[I64.max, I64.min, 0], [0, I64.max, I64.min]]),  # range > 2**63: big-integer path
        np.array([[2**64 - 1, 0], [1, 2**63]], dtype=np.uint64),
        np.array([[-128, 127], [127, -128]], dtype=np.int8),
        np.array([[True, False], [False, True], [True, True]]),
        np.array([[1e300, -1e300], [-1e300, 1e300], [1.0, 2.0]]),
        np.array([[1e-300, 0.0], [5e-324, 1e-300]]),
    ],
    ids=lambda c: f"{c.dtype}{c.shape}",
)
def test_odd_inputs_against_exact_bruteforce(method, c):
    for maximize in (False, True):
        res = matchflow.assignment(c, maximize=maximize, method=method, backend="cpu")
        if c.dtype.kind in "biu":
            assert res.cost == exact_bruteforce(c, maximize)
        else:
            assert res.cost == pytest.approx(assignment_bruteforce(c, maximize) if c.size else 0.0, rel=1e-12)
        assert res.row_ind.dtype == np.int64 and res.col_ind.dtype == np.int64
        assert len(res.row_ind) == min(c.shape)
        assert verify_assignment(c, res).optimal is not False


def test_huge_integers_beat_float64_rounding():
    # SciPy rounds to float64 and cannot tell these apart; matchflow solves exactly
    big = 2**62
    c = np.array([[big + 1, big], [big, big + 1]], dtype=np.int64)
    res = matchflow.assignment(c)
    assert res.cost == 2 * big and list(res.col_ind) == [1, 0]
    assert verify_assignment(c, res).tol == 0


def test_wide_integer_range_uses_exact_fallback():
    c = np.array([[I64.max, I64.min], [I64.min, I64.max], [0, 0]], dtype=np.int64)
    res = matchflow.assignment(c, method="jv", backend="cpu")
    assert res.method == "hungarian-bigint" and res.cost == 2 * I64.min
    res = matchflow.assignment(c, maximize=True, method="jv", backend="cpu")
    assert res.cost == 2 * I64.max
    assert verify_assignment(c, res).optimal


def test_gcd_reduction_keeps_int64_path():
    rng = np.random.default_rng(5)
    g = 2**50
    c = rng.integers(0, 1000, size=(30, 30)) * g
    res = matchflow.assignment(c, method="jv", backend="cpu")
    assert res.method == "jv" and res.cost == scipy_cost(c // g) * g
    assert verify_assignment(c, res).optimal


# ---------------------------------------------------------------- errors

def test_bad_method_backend_options_name_the_value():
    c = np.eye(3)
    with pytest.raises(ValueError, match=r"method must be one of .* got 'fast'"):
        matchflow.assignment(c, method="fast")
    with pytest.raises(ValueError, match=r"backend must be one of .* got 'tpu'"):
        matchflow.assignment(c, backend="tpu")
    with pytest.raises(ValueError, match=r"backend='gpu' is not available for method='jv'"):
        matchflow.assignment(c, method="jv", backend="gpu")
    with pytest.raises(ValueError, match=r"method='lopes' runs on the GPU only; got backend='cpu'"):
        matchflow.assignment(c, method="lopes", backend="cpu")
    with pytest.raises(TypeError, match=r"unexpected option\(s\) 'theta'; accepted: arr_passes"):
        matchflow.assignment(c, method="jv", theta=3)
    with pytest.raises(ValueError, match=r"theta must be > 1.0, got 0.5"):
        matchflow.assignment(c, method="auction", theta=0.5)
    with pytest.raises(TypeError, match=r"arr_passes must be an integer, got 'x'"):
        matchflow.assignment(c, method="jv", arr_passes="x")
    with pytest.raises(TypeError, match=r"maximize must be True or False, got 'yes'"):
        matchflow.assignment(c, maximize="yes")


def test_options_change_the_run_not_the_optimum():
    rng = np.random.default_rng(2)
    c = rng.integers(0, 100, size=(40, 40))
    ref = scipy_cost(c)
    assert matchflow.assignment(c, method="jv", arr_passes=0).cost == ref
    r = matchflow.assignment(c, method="auction", theta=2.5)
    assert r.cost == ref and r.stats["cost_factor"] == 41
    cf = rng.random((40, 40))
    r = matchflow.assignment(cf, method="auction", eps_final=1e-2)
    assert r.cost == pytest.approx(scipy_cost(cf), rel=1e-12) and verify_assignment(cf, r).optimal


# ---------------------------------------------------------------- preparation (shared with the GPU)

@pytest.mark.parametrize("maximize", [False, True])
def test_prepared_problem_is_the_gpu_contract(maximize):
    rng = np.random.default_rng(3)
    c = rng.normal(size=(6, 9))
    c[rng.random(c.shape) < 0.3] = -np.inf if maximize else np.inf
    # the GPU Hungarian's contract (C >= 0) needs the minimum shift even when it rounds
    p = prepare(c, maximize, force_shift=True)
    assert p.C.shape == (9, 9) and p.C.flags.c_contiguous and p.C.dtype == np.float64
    assert np.isfinite(p.C).all() and p.C.min() >= 0 and (p.C[6:] == 0).all()
    assert p.big_m is not None and (p.C[:6][~np.isfinite(c)] == p.big_m).all()
    # every full assignment over allowed entries is cheaper than one forbidden entry
    assert p.big_m > p.C[:6][np.isfinite(c)].max() * 6
    # without force_shift a shift that would round an entry is not made: the caller's costs
    e = prepare(c, maximize)
    fin = np.isfinite(c)
    assert e.stats["shift_exact"] is False and e.shift == 0.0
    assert np.array_equal(e.C[:6][fin], -c[fin] if maximize else c[fin])
    ci = rng.integers(-5, 5, size=(7, 4))
    q = prepare(ci, maximize)
    assert q.C.dtype == np.int64 and q.C.shape == (7, 7) and q.C.min() == 0 and (q.C[:, 4:] == 0).all()


def test_prepare_does_not_copy_ready_matrices_nor_modify_input():
    c = np.random.default_rng(0).integers(0, 9, size=(5, 5))
    c[0, 0] = 0
    assert prepare(c).C is c
    before = c.copy()
    matchflow.assignment(c, maximize=True)
    matchflow.assignment(c, method="auction")
    assert np.array_equal(c, before)


def test_auto_rule_picks_gpu_hungarian_only_where_it_measured_faster():
    import numpy as np

    from matchflow.assignment._api import _choose_method

    i64 = np.dtype(np.int64)
    assert _choose_method((8192, 8192), 8192, i64, "gpu") == "lopes"
    assert _choose_method((1024, 1024), 10 * 1024, i64, "gpu") == "lopes"
    assert _choose_method((512, 512), 51, i64, "gpu") == "jv"            # small: CPU JV wins end to end
    assert _choose_method((2048, 2048), 100 * 2048, i64, "gpu") == "jv"  # wide cost range: Hungarian slows down
    assert _choose_method((2048, 2048), 2048.0, np.dtype(np.float64), "gpu") == "jv"  # floats: unmeasured
    assert _choose_method((8192, 8192), 8192, i64, "cpu") == "jv"
