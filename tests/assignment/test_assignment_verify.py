"""verify_assignment catches every kind of wrong certificate; read_cost_matrix reads files."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment as scipy_lsa

import matchflow
from matchflow.assignment._api import read_cost_matrix
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
