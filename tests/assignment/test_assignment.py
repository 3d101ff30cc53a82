"""Dense linear assignment on the CPU: every method against SciPy, brute force and its own duals."""

from __future__ import annotations

import importlib
import itertools
import zlib

import numpy as np
import pytest
from cases import ASSIGNMENT_CASES
from hypothesis import given
from hypothesis import strategies as st
from naive import assignment_bruteforce
from scipy.optimize import linear_sum_assignment as scipy_lsa

import matchflow
from matchflow import AssignmentResult, _methods
from matchflow._methods import Method
from matchflow.assignment import _api, _prepare
from matchflow.assignment._api import CPU_METHODS
from matchflow.assignment._api import METHODS as API_METHODS
from matchflow.assignment._cpu_jv import solve_jv
from matchflow.assignment._methods import TABLE, Problem, gpu_measured_faster
from matchflow.assignment._prepare import _polish_parallel, _polish_serial, as_cost_matrix_scanned, prepare
from matchflow.verify import verify_assignment

METHODS = list(TABLE.cpu_names)  # every dense CPU row
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


@pytest.mark.parametrize("method", [m for m in METHODS if m != "munkres"])  # munkres: the O(n^4) textbook steps
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
        work = {"phases", "pushes", "dual_scans"} if m == "cost-scaling" else {"augmentations", "iterations",
                                                                                 "dual_updates"}
        assert work <= set(res.stats)
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
    with pytest.raises(ValueError, match=r"^backend='gpu' is not available for assignment\(method='jv'\); "
                                         r"use backend='cpu'$"):
        matchflow.assignment(c, method="jv", backend="gpu")
    with pytest.raises(ValueError, match=r"^method='lopes' runs on the GPU only; it cannot be combined with "
                                         r"backend='cpu' \(method='hungarian' with backend='cpu' runs its CPU twin\)$"):
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
def test_prepared_problem_is_square_padded_with_big_m(maximize):
    rng = np.random.default_rng(3)
    c = rng.normal(size=(6, 9))
    c[rng.random(c.shape) < 0.3] = -np.inf if maximize else np.inf
    p = prepare(c, maximize)
    assert p.C.shape == (9, 9) and p.C.flags.c_contiguous and p.C.dtype == np.float64
    assert np.isfinite(p.C).all() and (p.C[6:] == 0).all()
    assert p.big_m is not None and (p.C[:6][~np.isfinite(c)] == p.big_m).all()
    fin = np.isfinite(c)
    # every full assignment over allowed entries is cheaper than one forbidden entry
    assert p.big_m > np.abs(p.C[:6][fin]).max() * 6
    # a shift that would round an entry is not made: the caller's costs
    assert p.stats["shifted"] is False and p.shift == 0.0
    assert np.array_equal(p.C[:6][fin], -c[fin] if maximize else c[fin])
    ci = rng.integers(-5, 5, size=(7, 4))
    q = prepare(ci, maximize)
    assert q.C.dtype == np.int64 and q.C.shape == (7, 7) and q.C.min() == 0 and (q.C[:, 4:] == 0).all()


def test_float_shift_only_when_exact_and_no_copy_when_it_is_not():
    rng = np.random.default_rng(5)
    offset = 1000.0 + rng.integers(1, 1000, size=(64, 64)) / 64.0  # the shift removes magnitude, exactly
    p = prepare(offset)
    assert p.stats["shifted"] and p.shift == offset.min() and p.C.min() == 0.0
    assert np.array_equal(p.C + p.shift, offset)
    for a in (rng.random((64, 64)), rng.normal(size=(64, 64))):  # |min| <= range: used as it is, not copied
        q = prepare(a)
        assert q.C is a and q.shift == 0.0 and q.stats["shifted"] is False
    normal = rng.normal(size=(64, 64))
    m = rng.integers(1, 1000, size=(64, 64)) / 64.0
    m[:8] = 2.0**-10 + 2.0**-60  # the minimum: m - min is exact in the first rows (0), rounds in later ones
    r = prepare(-m, maximize=True)  # a negated copy anyway: the shift is tried, found to round, not made
    assert r.stats["shifted"] is False and r.shift == 0.0 and np.array_equal(r.C, m)
    late = -m
    for a in (offset, normal, late, -normal):  # the reused scan gives the same problem as a fresh one
        for mx in (False, True):
            b, scan = as_cost_matrix_scanned(a, mx)
            e, f = prepare(b, mx, scan), prepare(b, mx)
            assert np.array_equal(e.C, f.C) and e.shift == f.shift and e.stats == f.stats
    for a in (normal, m):  # solved on the unshifted costs: still the optimum, proved
        res = matchflow.assignment(a)
        assert res.cost == pytest.approx(scipy_cost(a), rel=1e-12) and res.stats["gap_bound"] < 1e-9
        assert res.stats["seconds_prepare"] >= 0 and res.stats["seconds_certificate"] >= 0


@pytest.mark.parametrize("shape", [(1024, 1030), (1030, 1024), (1024, 1024)])
def test_polished_duals_parallel_equal_serial(shape):
    rng = np.random.default_rng(11)
    A = rng.normal(size=shape)
    A[rng.random(shape) < 0.01] = np.inf
    nr, nc = shape
    col_of_row = np.full(nr, -1, dtype=np.int64)
    k = min(nr, nc)
    col_of_row[rng.permutation(nr)[:k]] = rng.permutation(nc)[:k]
    u, v = rng.normal(size=nr), rng.normal(size=nc)
    for sign, mat in ((1.0, A), (-1.0, -A), (1.0, A.astype(np.float32))):
        out = []
        for kern in (_polish_serial, _polish_parallel):
            uu, vv = u.copy(), v.copy()
            kern(mat, sign, col_of_row, uu, vv, nr <= nc)
            out.append((uu, vv))
        assert np.array_equal(out[0][0], out[1][0]) and np.array_equal(out[0][1], out[1][1])
        Am = sign * mat.astype(np.float64)
        if nr <= nc:
            assert np.array_equal(out[0][0], (Am - out[0][1][None, :]).min(axis=1))
        else:
            assert np.array_equal(out[0][1], (Am - out[0][0][:, None]).min(axis=0))


def test_prepare_does_not_copy_ready_matrices_nor_modify_input():
    c = np.random.default_rng(0).integers(0, 9, size=(5, 5))
    c[0, 0] = 0
    assert prepare(c).C is c
    before = c.copy()
    matchflow.assignment(c, maximize=True)
    matchflow.assignment(c, method="auction")
    assert np.array_equal(c, before)


@pytest.mark.parametrize("algo", [m for m in TABLE.cpu_names if "-" not in m])  # a module per algorithm name
def test_each_dense_cpu_method_runs_solve_algo_of_its_cpu_module(monkeypatch, algo):
    """Issue 22's vocabulary: ``method=algo`` on the CPU runs ``solve_<algo>`` of ``_cpu_<algo>.py``."""
    module = importlib.import_module(f"matchflow.assignment._cpu_{algo}")

    def marker(*args, **kwargs):
        raise LookupError(f"solve_{algo} ran")

    monkeypatch.setattr(module, f"solve_{algo}", marker)
    with pytest.raises(LookupError, match=f"solve_{algo} ran"):
        matchflow.assignment(np.array([[1, 2], [3, 1]]), method=algo, backend="cpu")


def test_auto_rule_picks_gpu_hungarian_only_where_it_measured_faster():
    i64 = np.dtype(np.int64)

    def faster(shape, rng, dtype=i64):
        return gpu_measured_faster(Problem(shape, dtype, range_=rng))

    assert faster((8192, 8192), 8192) and faster((1024, 1024), 10 * 1024)
    assert not faster((512, 512), 51)                      # small: CPU JV wins end to end
    assert not faster((2048, 2048), 100 * 2048)            # wide cost range: Hungarian slows down
    assert not faster((2048, 2048), 2048.0, np.dtype(np.float64))  # floats: unmeasured


# ---------------------------------------------------------------- method = algorithm, backend = device

@pytest.mark.parametrize("case", ASSIGNMENT_CASES, ids=lambda c: c.name)
def test_shared_cases_every_method(case, backend):
    """Every named case through the public entry point: each algorithm on the CPU, the
    Hungarian (and auto) on the GPU (``backend`` fixture); optimum and certificate."""
    c = case.cost()
    methods = METHODS + ["auto"] if backend == "cpu" else ["hungarian", "auto"]
    for method in methods:
        for maximize in (False, True):
            cm = np.where(np.isinf(c), -np.inf, c) if maximize and c.dtype.kind == "f" else c
            if not case.feasible:
                with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
                    matchflow.assignment(cm, maximize=maximize, method=method, backend=backend)
                continue
            res = matchflow.assignment(cm, maximize=maximize, method=method, backend=backend)
            assert res.backend == backend and res.method in METHODS
            if method != "auto":
                assert res.method == method
            if cm.dtype.kind in "biu":
                assert res.cost == exact_bruteforce(cm, maximize)
            else:
                want = assignment_bruteforce(-cm if maximize else cm) if cm.size else 0.0
                assert res.cost == pytest.approx(-want if maximize else want, rel=1e-12, abs=1e-9)
            assert verify_assignment(cm, res).optimal is not False
            r, k = matchflow.linear_sum_assignment(cm, maximize=maximize)  # ties may break otherwise
            assert len(r) == len(res.row_ind) and r.dtype == k.dtype == np.int64
            assert cm[r, k].sum() == pytest.approx(cm[res.row_ind, res.col_ind].sum(), rel=1e-12, abs=1e-9)


def test_method_table_lists_algorithms_then_aliases():
    assert API_METHODS == ("auto", "jv", "hungarian", "auction", "munkres", "cost-scaling", "lopes")
    assert CPU_METHODS == tuple(METHODS)
    assert TABLE.row("lopes") is TABLE.row("hungarian") and TABLE.row("hungarian").gpu is not None


def _fake_gpu(monkeypatch, gpu_solve):
    """Pretend a real GPU is present, with ``gpu_solve`` (a CPU stand-in) as the Hungarian's twin."""
    monkeypatch.setattr(_methods, "_auto_may_use_gpu", lambda: True)
    monkeypatch.setattr(_methods, "require_gpu", lambda what: None)
    h = TABLE.row("hungarian")
    monkeypatch.setattr(_api, "TABLE", TABLE.with_method(Method(h.name, cpu=h.cpu, gpu=gpu_solve, gpu_alias="lopes",
                                                                auto_gpu=h.auto_gpu)))


def test_backend_auto_placement_rules(monkeypatch, warm_gpu_process):
    """backend="auto" runs the GPU twin only where it was measured faster end to end: method="auto"
    and method="hungarian" on a large small-range integer matrix; never the CPU-only methods, nor
    floats, nor small matrices. result.method is the algorithm, result.backend the device."""
    calls = []

    def gpu_stand_in(prep, **options):
        calls.append(options)
        return TABLE.row("hungarian").cpu(prep)

    _fake_gpu(monkeypatch, gpu_stand_in)
    rng = np.random.default_rng(0)
    big = rng.integers(0, 100, size=(1024, 1024))   # n >= 1024, range <= 10 n, integers
    small = rng.integers(0, 100, size=(50, 50))
    expected = [
        (big, "auto", "auto", ("hungarian", "gpu")), (big, "hungarian", "auto", ("hungarian", "gpu")),
        (big, "lopes", "auto", ("hungarian", "gpu")), (big, "jv", "auto", ("jv", "cpu")),
        (big, "auto", "cpu", ("jv", "cpu")), (big.astype(float), "auto", "auto", ("jv", "cpu")),
        (small, "auto", "auto", ("jv", "cpu")), (small, "hungarian", "auto", ("hungarian", "cpu")),
        (small, "auto", "gpu", ("hungarian", "gpu")), (small, "hungarian", "gpu", ("hungarian", "gpu")),
    ]
    for c, method, backend, want in expected:
        opts = {"block_size": 64} if want[1] == "gpu" else {}  # a GPU option reaches the GPU solve
        res = matchflow.assignment(c, method=method, backend=backend, **opts)
        assert (res.method, res.backend) == want, (c.shape, c.dtype, method, backend)
        assert verify_assignment(c, res).optimal
    assert calls == [{"block_size": 64}] * 5
    # a GPU option under backend="auto" asks for the GPU twin (no CPU method accepts it), whatever the size rule
    res = matchflow.assignment(small, method="hungarian", block_size=64)
    assert (res.method, res.backend) == ("hungarian", "gpu") and calls[-1] == {"block_size": 64}
    assert matchflow.assignment(small, block_size=32).backend == "gpu"
    with pytest.raises(TypeError, match=r"^assignment\(method='jv'\) got unexpected option\(s\) 'block_size'; "
                                        r"accepted: arr_passes$"):
        matchflow.assignment(small, method="jv", block_size=64)  # a CPU-only method: the option is an error


@pytest.mark.gpu
def test_lopes_alias_reports_the_algorithm_and_the_device():
    c = np.random.default_rng(1).integers(0, 50, size=(40, 40))
    for method, backend in (("lopes", "auto"), ("lopes", "gpu"), ("hungarian", "gpu"), ("auto", "gpu")):
        res = matchflow.assignment(c, method=method, backend=backend)
        assert res.method == "hungarian" and res.backend == "gpu" and res.cost == scipy_cost(c)
        assert verify_assignment(c, res).optimal


def test_validates_once(monkeypatch):
    """One call reads and checks the matrix once and prepares it once (the drop-in included); a float matrix is
    scanned once (the preparation reuses the validation's scan)."""
    counts = {"as_cost_matrix_scanned": 0, "resolve": 0, "prepare": 0, "scan_float": 0}

    def counting(name, fn):
        def wrapper(*args, **kw):
            counts[name] += 1
            return fn(*args, **kw)
        return wrapper

    for name in counts:
        mod = _prepare if name == "scan_float" else _api
        monkeypatch.setattr(mod, name, counting(name, getattr(mod, name)))
    c = np.arange(12).reshape(3, 4) % 5
    matchflow.assignment(c)
    assert counts == {"as_cost_matrix_scanned": 1, "resolve": 1, "prepare": 1, "scan_float": 0}
    matchflow.linear_sum_assignment(c)
    assert counts == {"as_cost_matrix_scanned": 2, "resolve": 2, "prepare": 2, "scan_float": 0}
    matchflow.assignment(c / 3.0)
    assert counts == {"as_cost_matrix_scanned": 3, "resolve": 3, "prepare": 3, "scan_float": 1}


def test_a_new_dense_method_is_one_table_row(monkeypatch):
    """Adding a dense method touches no dispatcher: a toy solve (JV without its row reduction passes) registered in
    a copy of the table runs through the public door on ints, floats, rectangles and maximisation, with its options
    checked, its name reported and its answer certified by the door's certificate."""
    def toy_solve(prep, passes=0):
        x, u, v, st = solve_jv(prep.C, arr_passes=passes)
        return x, u, v, {**st, "toy_passes": passes}

    def toy_check(options):
        if "passes" in options and options["passes"] not in (0, 1):
            raise ValueError(f"passes must be 0 or 1, got {options['passes']!r}")
        return options

    monkeypatch.setattr(_api, "TABLE", TABLE.with_method(Method("toy", cpu=toy_solve, options=("passes",),
                                                                check=toy_check)))
    rng = np.random.default_rng(8)
    for a, maximize in ((rng.integers(0, 30, (7, 7)), False), (rng.random((5, 9)), True), (rng.normal(size=(8, 3)), False)):
        res = matchflow.assignment(a, method="toy", backend="cpu", maximize=maximize, passes=1)
        r, c = scipy_lsa(a, maximize=maximize)
        assert res.method == "toy" and res.stats["toy_passes"] == 1
        assert res.cost == pytest.approx(a[r, c].sum(), rel=1e-12)
        assert verify_assignment(a, res, maximize=maximize)
    with pytest.raises(ValueError, match=r"^passes must be 0 or 1, got 3$"):
        matchflow.assignment(np.eye(3), method="toy", passes=3)
    with pytest.raises(TypeError, match=r"unexpected option\(s\) 'theta'"):
        matchflow.assignment(np.eye(3), method="toy", theta=2.0)
    with pytest.raises(ValueError, match=r"^backend='gpu' is not available for assignment\(method='toy'\); "
                                         r"use backend='cpu'$"):
        matchflow.assignment(np.eye(3), method="toy", backend="gpu")
