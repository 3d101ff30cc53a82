"""verify_assignment catches every kind of wrong certificate; read_cost_matrix reads files."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment as scipy_lsa

import matchflow
from matchflow.assignment import _cpu_hungarian, _prepare
from matchflow.assignment import _verify_float_bound as _verify
from matchflow.io import read_cost_matrix
from matchflow.verify import verify_assignment

C = np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]])


def test_accepts_result_or_arrays():
    res = matchflow.assignment(C)
    a = verify_assignment(C, res)
    b = verify_assignment(C, res.row_ind, res.col_ind, res.u, res.v)
    assert a.valid and a.optimal and b.optimal and a.cost == b.cost == 5 and a.gap == 0
    nod = verify_assignment(C, res.row_ind, res.col_ind)
    assert nod.valid and nod.optimal is None and bool(nod)


def test_maximize_is_taken_from_the_result():
    res = matchflow.assignment(C, maximize=True)
    assert verify_assignment(C, res).optimal
    with pytest.raises(ValueError, match="assignment certificate failed"):
        verify_assignment(C, res, maximize=False)


def test_detects_invalid_assignments():
    r = np.array([0, 1, 2])
    cases = [
        (r, np.array([1, 1, 2]), "a column is assigned twice"),
        (np.array([0, 0, 2]), np.array([1, 0, 2]), "a row is assigned twice"),
        (r[:2], np.array([1, 0]), r"2 pairs assigned, expected min\(n_rows, n_cols\) = 3"),
        (r, np.array([1, 0, 3]), "col_ind holds an index out of range for 3 columns"),
        (np.array([0, 1, -1]), np.array([1, 0, 2]), "row_ind holds an index out of range for 3 rows"),
    ]
    for ri, ci, msg in cases:
        with pytest.raises(ValueError, match=msg):
            verify_assignment(C, ri, ci)
        cert = verify_assignment(C, ri, ci, raise_on_error=False)
        assert not cert.valid and cert.problems
    cf = C.astype(float)
    cf[0, 1] = np.inf
    with pytest.raises(ValueError, match="a forbidden \\(infinite\\) entry is assigned"):
        verify_assignment(cf, r, np.array([1, 0, 2]))
    with pytest.raises(ValueError, match="row_ind and col_ind must have the same length, got 3 and 2"):
        verify_assignment(C, r, np.array([0, 1]))
    with pytest.raises(TypeError, match="col_ind must hold integers, got dtype float64"):
        verify_assignment(C, r, np.array([0.0, 1.0, 2.0]))


def test_detects_wrong_duals():
    res = matchflow.assignment(C)
    u, v = res.u.copy(), res.v.copy()
    u2 = u.copy()
    u2[0] += 1  # infeasible somewhere and not tight
    cert = verify_assignment(C, res.row_ind, res.col_ind, u2, v, raise_on_error=False)
    assert cert.valid and not cert.optimal
    assert any("dual infeasible" in p or "not complementary" in p for p in cert.problems)
    # suboptimal assignment with the optimal duals: not complementary
    cert = verify_assignment(C, [0, 1, 2], [0, 1, 2], u, v, raise_on_error=False)
    assert cert.valid and not cert.optimal and cert.gap != 0
    with pytest.raises(ValueError, match=r"u and v must have shapes \(3,\) and \(3,\)"):
        verify_assignment(C, res.row_ind, res.col_ind, u[:2], v)


@pytest.mark.parametrize("shape", [(3, 6), (6, 3)])
def test_rectangular_dual_conditions(shape):
    rng = np.random.default_rng(4)
    c = rng.integers(0, 20, size=shape)
    res = matchflow.assignment(c)
    cert = verify_assignment(c, res)
    assert cert.optimal and cert.dual_value == cert.cost
    side = res.v if shape[0] < shape[1] else res.u
    used = res.col_ind if shape[0] < shape[1] else res.row_ind
    assert (side <= 0).all() and (np.delete(side, used) == 0).all()
    # shifting the dual of an unassigned line breaks the certificate
    bad = side.copy()
    bad[np.setdiff1d(np.arange(len(side)), used)[0]] = -1
    uu, vv = (res.u, bad) if shape[0] < shape[1] else (bad, res.v)
    cert = verify_assignment(c, res.row_ind, res.col_ind, uu, vv, raise_on_error=False)
    assert not cert.optimal


def test_float_tolerance_is_relative():
    c = np.random.default_rng(1).random((20, 20)) * 1e-6
    res = matchflow.assignment(c)
    cert = verify_assignment(c, res)
    assert cert.optimal and 0 < cert.tol < 1e-14
    v = res.v.copy()
    v[res.col_ind[0]] += 1e-12  # far above a 1e-9 relative tolerance at this scale
    assert not verify_assignment(c, res.row_ind, res.col_ind, res.u, v, raise_on_error=False).optimal


def test_scipy_solution_verifies_with_our_duals():
    rng = np.random.default_rng(9)
    c = rng.integers(0, 5, size=(15, 15))  # many optimal solutions
    r, k = scipy_lsa(c)
    res = matchflow.assignment(c)
    # any optimal assignment is complementary to any optimal dual solution
    assert verify_assignment(c, r, k, res.u, res.v).optimal


# ---------------------------------------------------------------- read_cost_matrix

def test_read_npy_csv_txt(tmp_path):
    c = np.arange(12).reshape(3, 4) % 5
    np.save(tmp_path / "c.npy", c)
    np.savetxt(tmp_path / "c.csv", c, delimiter=",", fmt="%d")
    np.savetxt(tmp_path / "c.txt", c + 0.5, header="costs")
    assert np.array_equal(read_cost_matrix(tmp_path / "c.npy"), c)
    got = read_cost_matrix(tmp_path / "c.csv")
    assert got.dtype == np.int64 and np.array_equal(got, c)
    got = read_cost_matrix(str(tmp_path / "c.txt"))
    assert got.dtype == np.float64 and np.array_equal(got, c + 0.5)
    (tmp_path / "row.csv").write_text("1,2,inf\n")
    assert read_cost_matrix(tmp_path / "row.csv").shape == (1, 3)


def test_read_matrix_market(tmp_path):
    c = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    scipy.io.mmwrite(str(tmp_path / "a.mtx"), c)
    assert np.array_equal(read_cost_matrix(tmp_path / "a.mtx"), c)
    s = sp.coo_array(([1.0, 0.0, 7.0], ([0, 1, 2], [1, 0, 1])), shape=(3, 2))
    scipy.io.mmwrite(str(tmp_path / "s.mtx"), s)
    got = read_cost_matrix(tmp_path / "s.mtx")
    assert np.array_equal(got, [[np.inf, 1.0], [0.0, np.inf], [np.inf, 7.0]])
    r, k = matchflow.linear_sum_assignment(got)
    assert got[r, k].sum() == 1.0


def test_read_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="cost matrix file not found: .*nope.npy"):
        read_cost_matrix(tmp_path / "nope.npy")
    (tmp_path / "c.xyz").write_text("1 2\n")
    with pytest.raises(ValueError, match=r"cannot read a cost matrix from .*c.xyz: unknown extension"):
        read_cost_matrix(tmp_path / "c.xyz")
    (tmp_path / "bad.csv").write_text("1,2\n3\n")
    with pytest.raises(ValueError, match=r"cannot read a cost matrix from .*bad.csv"):
        read_cost_matrix(tmp_path / "bad.csv")
    np.save(tmp_path / "v.npy", np.arange(3))
    with pytest.raises(ValueError, match=r"v.npy: expected a 2-D matrix, got 1-D"):
        read_cost_matrix(tmp_path / "v.npy")


# ---------------------------------------------------------------- soundness: tampered certificates

def test_non_finite_duals_fail():
    """Issue 13 item 2, verbatim: NaN duals certified a cost of 4 when the optimum is 2."""
    nan = np.nan
    cert = verify_assignment([[1, 2], [2, 1]], [0, 1], [1, 0], [nan, nan], [nan, nan], raise_on_error=False)
    assert cert.valid and not cert.optimal and "non-finite dual" in cert.problems[0]
    for bad in (np.inf, -np.inf, nan):
        with pytest.raises(ValueError, match=r"non-finite dual \(NaN or inf\) in u or v"):
            verify_assignment([[1.0, 2.0], [2.0, 1.0]], [0, 1], [0, 1], [1.0, bad], [0.0, 0.0])


def test_float_tolerance_does_not_follow_the_largest_entry():
    """Issue 8: a 1e16 entry used to give a tolerance of 1e7, hiding a gap of 1."""
    c = np.array([[2, 1, 5, np.inf, 2, 1], [1, 1e16, 7, 0, np.inf, 7]])
    res = matchflow.assignment(c)
    cert = verify_assignment(c, res)
    assert cert.optimal and cert.tol < 1e-12 and cert.gap_bound <= cert.tol
    assert not verify_assignment(c, [0, 1], [1, 0], res.u, res.v, raise_on_error=False).optimal


def _smallest_gap(c: np.ndarray) -> float:
    """The smallest positive gap between two costs (floats: of a row, the entries its dual meets)."""
    vals = np.unique(c[np.isfinite(c)])
    return float(np.diff(vals).min()) if vals.size > 1 else 1.0


def _tamper_cases():
    rng = np.random.default_rng(1313)
    for trial in range(80):
        nr, nc = (int(t) for t in rng.integers(2, 7, size=2))
        kind = trial % 4
        if kind == 0:
            c = rng.integers(0, 50, size=(nr, nc))
        elif kind == 1:
            c = rng.random((nr, nc))
        elif kind == 2:
            c = rng.random((nr, nc)) * 10.0 ** rng.integers(-8, 15, size=(nr, nc))
        else:
            c = rng.normal(size=(nr, nc)) * 1e6
            c[rng.random((nr, nc)) < 0.25] = np.inf
        yield trial, c, bool(trial % 3 == 0)


def test_every_tampered_certificate_is_rejected():
    """Swap two columns, nudge one dual by the smallest gap, NaN, inf: all rejected."""
    rejected = {"swap": 0, "nudge": 0, "nan": 0, "inf": 0}
    for trial, c, maximize in _tamper_cases():
        try:
            res = matchflow.assignment(c, maximize=maximize)
        except ValueError:
            continue
        assert verify_assignment(c, res).optimal
        r, k, u, v = res.row_ind, res.col_ind, np.asarray(res.u), np.asarray(res.v)
        g = _smallest_gap(c)
        # swap the columns of two assigned rows: rejected unless the swapped assignment is also optimal
        k2 = k.copy()
        k2[[0, 1]] = k2[[1, 0]]
        sw = c[r, k2].sum()
        worse = (sw < res.cost) if maximize else (sw > res.cost)
        cert = verify_assignment(c, r, k2, u, v, maximize=maximize, raise_on_error=False)
        if np.isfinite(c[r, k2]).all() and worse and abs(sw - res.cost) >= g / 2:
            assert not cert.optimal, (trial, sw, res.cost)
            rejected["swap"] += 1
        # nudge one dual up by the smallest gap: that line's tight pair turns infeasible. Rejected
        # whenever the gap exceeds the certificate's rounding tolerance (always for integers)
        side_u = c.shape[0] <= c.shape[1]
        d = (u if side_u else v).astype(c.dtype if c.dtype.kind == "i" else np.float64).copy()
        d[0 if side_u else k[0]] += g if c.dtype.kind == "i" else type(d[0])(g)
        uu, vv = (d, v) if side_u else (u, d)
        if g > verify_assignment(c, res).tol:
            assert not verify_assignment(c, r, k, uu, vv, maximize=maximize, raise_on_error=False).optimal, trial
            rejected["nudge"] += 1
        for bad, key in ((np.nan, "nan"), (np.inf, "inf")):
            d = u.astype(np.float64).copy()
            d[-1] = bad
            assert not verify_assignment(c, r, k, d, v, maximize=maximize, raise_on_error=False).optimal
            rejected[key] += 1
    assert min(rejected.values()) >= 20 and rejected["nudge"] >= 60, rejected


def test_internal_certificate_catches_a_wrong_solver(monkeypatch):
    """assignment() checks every answer with the same sound check: a solver returning a
    suboptimal assignment is re-solved (floats: JV; integers: the exact big-integer Hungarian)."""
    good = _cpu_hungarian.solve_hungarian

    def wrong(C):
        x, u, v, st = good(C)
        x = x.copy()
        x[[0, 1]] = x[[1, 0]]
        return x, u, v, st

    monkeypatch.setattr(_cpu_hungarian, "solve_hungarian", wrong)
    cf = np.array([[1.0, 5.0, 9.0], [4.0, 2.0, 8.0], [7.0, 6.0, 3.0]])
    res = matchflow.assignment(cf, method="hungarian", backend="cpu")
    assert res.cost == 6.0 and res.stats["resolved_by"] == "jv (after hungarian)" and verify_assignment(cf, res).optimal
    with pytest.warns(RuntimeWarning, match="no valid integer certificate"):
        res = matchflow.assignment(cf.astype(int), method="hungarian", backend="cpu")
    assert res.cost == 6 and verify_assignment(cf.astype(int), res).optimal


def test_float_certificate_parallel_row_pass_equals_the_serial_one(monkeypatch):
    """The certificate's row pass runs on the Numba threads for large matrices: the same bound, tolerance,
    least reduced cost and its position as the serial pass, dense and sparse (forbidden entries, ties)."""
    rng = np.random.default_rng(17)
    n = 120
    C = np.round(rng.random((n, n)) * 64) / 8
    C[rng.random((n, n)) < 0.1] = np.inf
    np.fill_diagonal(C, 1.0)
    r, c = np.arange(n), np.arange(n)
    u, v = rng.random(n) - 0.5, rng.random(n) - 0.5
    S = sp.csr_array(np.where(np.isinf(C), 0.0, C + 1.0))
    for a in (C, S):
        monkeypatch.setattr(_verify, "PARALLEL_ENTRIES", 1 << 62)
        serial = _verify.float_gap_bound(a, 1, r, c, u, v)
        monkeypatch.setattr(_verify, "PARALLEL_ENTRIES", 0)
        assert _verify.float_gap_bound(a, 1, r, c, u, v) == serial


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_scan_parallel_equals_serial(monkeypatch, dtype):
    """The validation scan of float costs (NaN / wrong infinity, forbidden entries, finite range) runs on the
    Numba threads for large matrices: the same answer as the serial scan."""
    rng = np.random.default_rng(5)
    a = (rng.random((70, 90)) * 200 - 100).astype(dtype)
    a[3, 4], a[60, 1] = np.inf, -7e3
    top = a[np.isfinite(a)].max()
    for bad, expect in ((-np.inf, (False, True)), (np.inf, (True, False))):  # +inf: forbidden, or invalid
        monkeypatch.setattr(_prepare, "PARALLEL_ENTRIES", 1 << 62)
        serial = _prepare._scan_float_kernel(a, bad)
        monkeypatch.setattr(_prepare, "PARALLEL_ENTRIES", 0)
        assert _prepare._scan_float_kernel(a, bad) == serial == expect + (dtype(-7e3), top)


@pytest.mark.parametrize("negate", [False, True])
def test_cost_shift_parallel_equals_serial(monkeypatch, negate):
    """The preparation's shift of the costs (floats: exactness by TwoSum, forbidden -> 0, padding; integers:
    modulo 2**64) runs on the Numba threads for large matrices: the same matrix and exactness flag as serially,
    on an exact case (dyadic costs) and an inexact one."""
    rng = np.random.default_rng(23)
    exact_a = np.round(rng.random((40, 30)) * 64) / 8
    exact_a[5, 7] = np.inf
    inexact_a = rng.random((40, 30)) * 1e3
    ints = rng.integers(-2**40, 2**40, size=(40, 30))
    for a, lo, scale, want in ((exact_a, 0.125, 1.0, True), (inexact_a, 0.1, 1.0, False), (exact_a, 0.0, 2.0**-3, True)):
        outs = []
        for limit in (1 << 62, 0):
            monkeypatch.setattr(_prepare, "PARALLEL_ENTRIES", limit)
            C = np.full((45, 45), np.nan)
            outs.append((_prepare._shift_float_kernel(a, C, lo, scale, negate), C))
        assert outs[0][0] == outs[1][0] == want and np.array_equal(outs[0][1], outs[1][1])
        assert np.all(outs[1][1][40:] == 0) and np.all(outs[1][1][:, 30:] == 0)
        assert outs[1][1][5, 7] == 0 or np.isfinite(a[5, 7])  # forbidden -> 0
    outs = []
    for limit in (1 << 62, 0):
        monkeypatch.setattr(_prepare, "PARALLEL_ENTRIES", limit)
        C = np.full((41, 41), -1, dtype=np.int64)
        _prepare._shift_int_kernel(ints, C, np.uint64(int(ints.min()) & (2**64 - 1)), negate)
        outs.append(C)
    assert np.array_equal(outs[0], outs[1]) and np.all(outs[1][40:] == 0)
    assert negate or np.array_equal(outs[1][:40, :30], ints - ints.min())
