"""Sparse assignment through its method table (issue 22): every sparse method, derived from ``SPARSE_TABLE`` (a new
row gets these tests without touching this file), runs the sparse case table and the dense ``ASSIGNMENT_CASES``
(transposed too, as SciPy's LSAP tests do) through the public ``assignment``, certified by the public
``verify_sparse_assignment`` and compared with SciPy; a new sparse method is one table row."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp
from cases import ASSIGNMENT_CASES, SPARSE_ASSIGNMENT_CASES
from scipy.optimize import linear_sum_assignment as scipy_lsa
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

import matchflow
from matchflow._methods import Method
from matchflow.assignment import _api
from matchflow.assignment._cpu_sparse_bigint import ssp_exact
from matchflow.assignment._methods import SPARSE_TABLE
from matchflow.verify import verify_sparse_assignment

METHODS = ("auto",) + SPARSE_TABLE.cpu_names


def _minimisation(A: sp.csr_array, maximize: bool, forbidden: float = np.inf) -> np.ndarray:
    """The stored entries (duplicates summed) as a dense float matrix in the minimisation sense."""
    coo = sp.csr_array(A, copy=True).tocoo()
    coo.sum_duplicates()
    D = np.full(A.shape, forbidden)
    data = coo.data.astype(np.float64)
    D[coo.row, coo.col] = -data if maximize else data
    return D


def _scipy_optimum(A: sp.csr_array, maximize: bool, partial: bool) -> tuple[int, float]:
    """(pairs, total of the user's entries) of SciPy's LSAP on the stored entries; ``partial``: a big M on the
    missing ones (larger than any difference of totals), so the most pairs come first, then the least cost."""
    D = _minimisation(A, maximize)
    if partial:
        fin = np.isfinite(D)
        D[~fin] = 1.0 + 4.0 * np.abs(D[fin]).sum()
    r, c = scipy_lsa(D)
    keep = _minimisation(A, maximize)[r, c] < np.inf
    total = D[r[keep], c[keep]].sum()
    return int(keep.sum()), -total if maximize else total


def _check(A: sp.csr_array, res, maximize: bool, partial: bool = False, methods=SPARSE_TABLE.cpu_names) -> None:
    assert verify_sparse_assignment(A, res) == []
    assert res.method in methods and res.backend == "cpu"
    pairs, want = _scipy_optimum(A, maximize, partial)
    if partial:
        csr = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
        assert pairs == int((scipy_mbm(csr, perm_type="column") >= 0).sum())
    assert res.row_ind.size == pairs
    assert float(res.cost) == pytest.approx(want, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", SPARSE_ASSIGNMENT_CASES, ids=lambda c: c.name)
def test_sparse_cases_every_sparse_method(case, method):
    A = case.cost()
    for maximize in (False, True):
        if not case.feasible:
            with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
                matchflow.assignment(A, maximize=maximize, method=method, backend="cpu")
        res = matchflow.assignment(A, maximize=maximize, method=method, backend="cpu", partial=not case.feasible)
        _check(A, res, maximize, partial=not case.feasible)


def _stored_finite(c: np.ndarray) -> sp.csr_array:
    r, k = np.nonzero(np.isfinite(c)) if c.dtype.kind == "f" else np.nonzero(np.ones(c.shape, bool))
    return sp.csr_array((c[r, k], (r, k)), shape=c.shape)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", ASSIGNMENT_CASES, ids=lambda c: c.name)
def test_dense_cases_on_the_sparse_solvers(case, method):
    """The dense case table with its finite entries stored (``+inf``: a missing pair), and its transpose."""
    for c in (case.cost(), case.cost().T):
        A = _stored_finite(c)
        for maximize in (False, True):
            if not case.feasible:
                with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
                    matchflow.assignment(A, maximize=maximize, method=method, backend="cpu")
                continue
            _check(A, matchflow.assignment(A, maximize=maximize, method=method, backend="cpu"), maximize)


def test_a_new_sparse_method_is_one_table_row(monkeypatch):
    """Adding a sparse method touches no dispatcher: a toy algorithm registered in a copy of the sparse table runs
    through the public entry point, with its options checked and its name reported."""
    def toy_solve(p, rounds=1):  # exact shortest augmenting paths on Python integers, on the extended problem
        x, U, V, stats = ssp_exact(p.E)
        return "toy", x, U, V, {**stats, "toy_rounds": rounds}

    monkeypatch.setattr(_api, "SPARSE_TABLE", SPARSE_TABLE.with_method(Method("toy", cpu=toy_solve,
                                                                              options=("rounds",))))
    for name in ("square_int", "wide_int"):
        A = next(c for c in SPARSE_ASSIGNMENT_CASES if c.name == name).cost()
        res = matchflow.assignment(A, method="toy", backend="cpu", rounds=3)
        assert res.method == "toy" and res.stats["toy_rounds"] == 3
        _check(A, res, False, methods=("toy",))
    assert matchflow.assignment(A, method="toy").backend == "cpu"  # no GPU twin: auto stays on the CPU
    with pytest.raises(TypeError, match=r"^assignment\(method='toy'\) got unexpected option\(s\) 'theta'; "
                                        r"accepted: rounds$"):
        matchflow.assignment(A, method="toy", theta=2)
    with pytest.raises(ValueError, match=r"^backend='gpu' is not available for assignment\(method='toy'\); "
                                         r"use backend='cpu'$"):
        matchflow.assignment(A, method="toy", backend="gpu")
    names = ", ".join(repr(m.name) for m in SPARSE_TABLE.with_method(Method("toy", cpu=toy_solve)).methods)
    with pytest.raises(ValueError, match=rf"^method='auction' takes dense costs; a scipy.sparse matrix needs "
                                         rf"method={re.escape(names)} or 'auto'$"):
        matchflow.assignment(A, method="auction")

