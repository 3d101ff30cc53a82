"""The CPU twin's heuristics: the global price update (Łupińska Algorithm 5.3, Dial buckets) and arc
fixing (Section 5.2), each on/off-equivalent in cost and certified either way; the update does less push
work on an adversarial instance and arc fixing drops arcs (work counters, no timing)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import matchflow
from matchflow.assignment import _cpu_cost_scaling as csa
from matchflow.assignment._cpu_cost_scaling import OK, cost_scaling_solve
from matchflow.verify import verify_sparse_assignment


def _solve(A, partial, update, every=0.02, fixing=False):
    """The public sparse call with the update forced on (every ``every * n`` pushes) or off, and arc
    fixing on or off."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(csa, "PRICE_UPDATE", update)
        mp.setattr(csa, "UPDATE_EVERY", every)
        mp.setattr(csa, "ARC_FIXING", fixing)
        try:
            return matchflow.assignment(A, partial=partial, method="cost-scaling")
        except ValueError as e:
            return str(e)


@st.composite
def problems(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    nr, nc = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    density = draw(st.sampled_from([0.15, 0.3, 0.6, 1.0]))
    hi = draw(st.sampled_from([0, 1, 3, 100, 10**6]))
    mask = rng.random((nr, nc)) < density
    r, c = np.nonzero(mask)
    vals = rng.integers(0, hi + 1, r.size) if draw(st.booleans()) else rng.uniform(-hi, hi, r.size)
    return sp.csr_array((vals, (r, c)), shape=(nr, nc))


@settings(max_examples=200, deadline=None)
@given(problems(), st.booleans(), st.sampled_from([(True, False), (False, True), (True, True)]))
def test_heuristics_on_off_same_cost_and_certified(A, partial, which):
    off = _solve(A, partial, False)
    on = _solve(A, partial, which[0], fixing=which[1])
    if isinstance(off, str):  # no full matching: the same error either way
        assert on == off
        return
    assert not isinstance(on, str), on
    for res in (off, on):
        assert verify_sparse_assignment(A, res) == []
    assert on.row_ind.size == off.row_ind.size
    if A.dtype.kind == "i":
        assert on.cost == off.cost
    else:
        assert abs(on.cost - off.cost) <= 1e-9 * (1 + abs(off.cost))


def _zero_one(n, seed):
    """Random sparse 0/1 costs (10 arcs a row plus a hidden perfect matching): many ties, long fights."""
    rng = np.random.default_rng(seed)
    rows = np.concatenate([np.repeat(np.arange(n), 10), np.arange(n)])
    cols = np.concatenate([rng.integers(0, n, 10 * n), rng.permutation(n)])
    A = sp.csr_array((rng.integers(0, 2, rows.size), (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    A.sort_indices()
    return A


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_price_update_does_less_push_work_on_zero_one_costs(seed):
    A = _zero_one(2000, seed)
    n = A.shape[0]
    ip, ix, c = A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.astype(np.int64)
    out = {}
    for update in (False, True):
        st_, x, u, v, stats = cost_scaling_solve(ip, ix, c, n, price_update=update, update_every=1.0)
        assert st_ == OK
        assert (stats["price_updates"] > 0) == update
        out[update] = (int(A[np.arange(n), x].sum()), stats["pushes"])
    assert out[True][0] == out[False][0]
    assert out[True][1] * 2 < out[False][1], out  # measured: about 3x fewer pushes (n = 1e4)
    for update in (False, True):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(csa, "PRICE_UPDATE", update)
            res = matchflow.assignment(A)
        assert verify_sparse_assignment(A, res) == [] and res.cost == out[False][0]
        assert (res.stats["price_updates"] > 0) == update


def test_price_update_keeps_exact_integer_duals_on_wide_costs():
    """Costs up to 1e9 (prices near the int64 guard) and a rectangular, partial instance."""
    rng = np.random.default_rng(5)
    r = rng.integers(0, 300, 3000)
    c = rng.integers(0, 200, 3000)
    A = sp.csr_array((rng.integers(-(10**9), 10**9, 3000), (r, c)), shape=(300, 200))
    A.sum_duplicates()
    off = _solve(A, True, False)
    on = _solve(A, True, True, every=0.01)
    assert on.stats["price_updates"] > 0
    assert verify_sparse_assignment(A, on) == [] and verify_sparse_assignment(A, off) == []
    assert on.cost == off.cost and on.row_ind.size == off.row_ind.size


@pytest.mark.parametrize("update", [False, True])
def test_arc_fixing_drops_arcs_and_keeps_the_optimum(update):
    rng = np.random.default_rng(9)
    n = 3000
    rows = np.concatenate([np.repeat(np.arange(n), 12), np.arange(n)])
    cols = np.concatenate([rng.integers(0, n, 12 * n), rng.permutation(n)])
    A = sp.csr_array((rng.integers(1, 10**6, rows.size), (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    A.sort_indices()
    ip, ix, c = A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.astype(np.int64)
    keep = (ip.copy(), ix.copy(), c.copy())
    base = cost_scaling_solve(ip, ix, c, n, price_update=False, arc_fixing=False)
    fixed = cost_scaling_solve(ip, ix, c, n, price_update=update, arc_fixing=True)
    assert all((a == b).all() for a, b in zip(keep, (ip, ix, c), strict=True))  # the caller's arrays untouched
    assert base[0] == fixed[0] == OK
    assert fixed[4]["fixed_arcs"] > A.nnz // 2 and base[4]["fixed_arcs"] == 0  # measured: ~90% of the arcs
    assert int(A[np.arange(n), fixed[1]].sum()) == int(A[np.arange(n), base[1]].sum())
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(csa, "ARC_FIXING", True)
        mp.setattr(csa, "PRICE_UPDATE", update)
        res = matchflow.assignment(A)
    assert verify_sparse_assignment(A, res) == [] and res.stats["fixed_arcs"] > 0
    assert res.cost == int(A[np.arange(n), base[1]].sum())


def test_heuristics_through_the_public_entry_point():
    """The CPU heuristics are options of ``assignment(sparse)`` (validated, same optimum, certified)."""
    rng = np.random.default_rng(11)
    A = sp.random(60, 60, density=0.2, random_state=3, format="csr")
    A.data = rng.integers(0, 2, A.nnz).astype(np.float64) + 1.0
    A = (A + sp.eye(60, format="csr")).tocsr()
    base = matchflow.assignment(A)
    for opts in ({"price_update": True, "update_every": 0.01}, {"arc_fixing": True}):
        res = matchflow.assignment(A, **opts)
        assert res.cost == base.cost and verify_sparse_assignment(A, res, raise_on_error=False) == []
    with pytest.raises(ValueError, match=r"^price_update must be True or False, got 1$"):
        matchflow.assignment(A, price_update=1)
    with pytest.raises(ValueError, match=r"^update_every must be a number > 0, got 0$"):
        matchflow.assignment(A, update_every=0)
