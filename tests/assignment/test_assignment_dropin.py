"""matchflow.linear_sum_assignment is a drop-in for scipy.optimize.linear_sum_assignment."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment as scipy_lsa

import matchflow

inf = np.inf

ODD_INPUTS = [
    ([[1, 2], [3, 4]], {}),
    ([[1, 2, 3], [3, 4, 1]], {}),
    ([[1.5], [0.5], [2.5]], {}),
    ([[True, False], [False, True]], {}),
    ([[True, False], [False, True]], {"maximize": True}),
    (np.zeros((0, 3)), {}),
    (np.zeros((3, 0)), {}),
    (np.zeros((0, 0)), {}),
    (np.zeros((0, 3), dtype=np.int32), {"maximize": True}),
    (np.array([[5]], dtype=np.uint8), {}),
    (np.array([[1, 2], [3, 4]], dtype=np.float16), {}),
    (np.array([[1, 2], [3, 4]], dtype=np.float32), {"maximize": True}),
    (np.array([[1, 2], [3, 4]], dtype=np.uint64), {}),
    (np.array([[4, 1], [2, 3]])[:, ::-1], {}),  # non-contiguous view
    (np.asfortranarray(np.arange(12).reshape(3, 4) % 5), {}),
    ([[inf, 1], [1, inf]], {}),
    ([[inf, 1], [inf, inf], [2, inf]], {}),
    ([[-inf, 1], [1, 2]], {"maximize": True}),
    ([[1, 2], [3, 4]], {"maximize": 1}),
    ([[1, 2], [3, 4]], {"maximize": "yes"}),
    ([[1, 2], [3, 4]], {"maximize": None}),
    ([[1e308, 1e308], [1e308, -1e308]], {}),
    ([[1e308, -1e308, 0], [-1e308, 1e308, 0]], {"maximize": True}),
    ((np.arange(6).reshape(2, 3) % 2).tolist(), {}),
]

ERROR_INPUTS = [
    ([1, 2, 3], {}),
    (np.zeros((2, 2, 2)), {}),
    (5, {}),
    ([[np.nan, 1], [1, 2]], {}),
    ([[-inf, 1], [1, 2]], {}),
    ([[inf, 1], [1, 2]], {"maximize": True}),
    ([[inf, 1], [inf, 2]], {}),
    ([[inf, inf], [1, 2]], {}),
    ([[-inf, 1], [-inf, 2]], {"maximize": True}),
    ([[inf, inf], [inf, inf]], {}),
    ([[1, 2, inf], [inf, inf, inf]], {}),
    ([[1, 2, 3], [inf, inf, inf]], {}),
    (np.array([[1, 2], [3, 4]], dtype=np.complex128), {}),
    (np.array([["a", "b"], ["c", "d"]]), {}),
    (np.array([[1, 2], [3, 4]], dtype=object), {}),
    (np.array([[1, 2], [3, 4]], dtype=np.longdouble), {}),
]


def _cost(c, r, k):
    c = np.asarray(c)
    with np.errstate(over="ignore"):
        return c[r, k].sum() if len(r) else 0


@pytest.mark.parametrize("cost,kw", ODD_INPUTS, ids=[f"odd{i}" for i in range(len(ODD_INPUTS))])
def test_same_return_types_and_optimum(cost, kw):
    r0, k0 = scipy_lsa(cost, **kw)
    r1, k1 = matchflow.linear_sum_assignment(cost, **kw)
    assert type(r1) is np.ndarray and type(k1) is np.ndarray
    assert r1.dtype == r0.dtype == np.int64 and k1.dtype == k0.dtype == np.int64
    assert r1.shape == r0.shape and k1.shape == k0.shape
    assert np.array_equal(r1, r0)  # same rows, sorted
    assert np.all(np.diff(r1) > 0)
    assert _cost(cost, r1, k1) == _cost(cost, r0, k0)


@pytest.mark.parametrize("cost,kw", ERROR_INPUTS, ids=[f"err{i}" for i in range(len(ERROR_INPUTS))])
def test_same_errors(cost, kw):
    with pytest.raises(Exception) as ref:
        scipy_lsa(cost, **kw)
    with pytest.raises(type(ref.value)) as got:
        matchflow.linear_sum_assignment(cost, **kw)
    assert str(got.value) == str(ref.value)


def test_pinned_messages():
    with pytest.raises(ValueError, match=r"^expected a matrix \(2-D array\), got a 1 array$"):
        matchflow.linear_sum_assignment([1, 2])
    with pytest.raises(ValueError, match="^matrix contains invalid numeric entries$"):
        matchflow.linear_sum_assignment([[np.nan]])
    with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
        matchflow.linear_sum_assignment([[inf]])
    with pytest.raises(TypeError, match="Cannot cast array data from dtype"):
        matchflow.linear_sum_assignment([[1j]])


@given(
    nr=st.integers(0, 7),
    nc=st.integers(0, 7),
    seed=st.integers(0, 2**32 - 1),
    p_inf=st.sampled_from([0.0, 0.3, 0.7]),
    ties=st.booleans(),
    maximize=st.booleans(),
)
def test_random_matrices_like_scipy(nr, nc, seed, p_inf, ties, maximize):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 3, size=(nr, nc)).astype(float) if ties else rng.normal(size=(nr, nc))
    c[rng.random((nr, nc)) < p_inf] = -inf if maximize else inf
    try:
        r0, k0 = scipy_lsa(c, maximize=maximize)
    except ValueError as exc:
        with pytest.raises(ValueError, match=f"^{exc}$"):
            matchflow.linear_sum_assignment(c, maximize=maximize)
        return
    r1, k1 = matchflow.linear_sum_assignment(c, maximize=maximize)
    assert r1.shape == r0.shape and np.all(np.diff(r1) > 0)
    if nr <= nc:
        assert np.array_equal(r0, r1)  # for tall matrices ties may pick other rows
    assert _cost(c, r1, k1) == pytest.approx(_cost(c, r0, k0), rel=1e-12, abs=1e-12)


def test_result_unpacks_like_scipy():
    c = np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
    row_ind, col_ind = matchflow.assignment(c)
    assert c[row_ind, col_ind].sum() == 5


def test_scipy_keyword_names_and_positional_use():
    """Issue 8: SciPy's parameter is ``cost_matrix``; positional use keeps working."""
    c = np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
    for args, kw in (((c,), {}), ((), {"cost_matrix": c}), ((c, True), {}), ((), {"cost_matrix": c, "maximize": True})):
        r, k = matchflow.linear_sum_assignment(*args, **kw)
        r0, k0 = scipy_lsa(*args, **kw)
        assert r.dtype == r0.dtype and c[r, k].sum() == c[r0, k0].sum()
    with pytest.raises(TypeError, match="unexpected keyword argument 'cost'"):
        matchflow.linear_sum_assignment(cost=c)


@pytest.mark.parametrize("dt", [">i8", ">i4", ">i2", ">u2", ">f8", ">f4"])
def test_big_endian_like_scipy(dt):
    c = np.array([[1, 2], [3, 4], [0, 9]]).astype(dt)
    r, k = matchflow.linear_sum_assignment(c)
    r0, k0 = scipy_lsa(c)
    assert r.dtype == r0.dtype and c[r, k].sum() == c[r0, k0].sum()
