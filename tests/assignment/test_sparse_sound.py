"""Issue 21, sparse assignment: sound certificates (the float tolerance from the entries the answer uses,
subnormal and mixed magnitudes), exact integers at any int64 value, our own matcher for the structure (the
Hopcroft-Karp ladder), SciPy's drop-in order; property tests against SciPy on extreme magnitudes."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm

import matchflow
from matchflow import generators
from matchflow.verify import verify_sparse_assignment

# ---------------------------------------------------------------- defect 7: the structure by our own matcher

def test_hk_ladder_partial_and_infeasible_use_our_matcher(monkeypatch):
    """hk_ladder(32) (97 x 97): SciPy's maximum_bipartite_matching takes ~40 s on this pattern (12.5 s at 85 x 85,
    31.6 s at 91 x 91 in the issue); partial=True and an infeasible full-mode problem must not call it."""
    A = generators.hk_ladder(32).astype(np.float64)
    assert A.shape == (97, 97)

    def forbidden(*args, **kwargs):
        raise AssertionError("SciPy's maximum_bipartite_matching must not be called")

    monkeypatch.setattr(scipy.sparse.csgraph, "maximum_bipartite_matching", forbidden)
    res = matchflow.assignment(A, partial=True)
    assert res.cost == 97.0 and res.row_ind.size == 97 and verify_sparse_assignment(A, res) == []
    B = A.tolil()
    B[:, 0] = 0  # column 0 loses every edge: no full matching
    B = sp.csr_array(B)
    B.eliminate_zeros()
    for method in ("auto", "cost-scaling", "jv"):
        with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
            matchflow.assignment(B, method=method)
    res = matchflow.assignment(B, partial=True)
    assert res.row_ind.size == 96 and res.cost == 96.0 and verify_sparse_assignment(B, res) == []


# ---------------------------------------------------------------- defect 8d: the drop-in's order

def test_dropin_orders_a_tall_answer_by_row_like_scipy():
    """Reproducer: a 3 x 2 matrix whose rows 0 and 2 take columns 1 and 0: SciPy returns ([0, 2], [1, 0])."""
    A = sp.csr_array(np.array([[5, 1], [9, 9], [1, 5]]))
    r0, c0 = scipy_mwfbm(A)
    r, c = matchflow.min_weight_full_bipartite_matching(A)
    assert r.tolist() == r0.tolist() == [0, 2] and c.tolist() == c0.tolist() == [1, 0]
    assert r.dtype == r0.dtype and c.dtype == c0.dtype
