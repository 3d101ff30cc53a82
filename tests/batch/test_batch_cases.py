"""The batched family's named cases (``BATCH_CASES`` in tests/cases.py) through the public
``batch_linear_sum_assignment`` on every method of the family's table (a new row is tested here with no edit; the
GPU twin through the ``backend`` fixture), minimising and maximising: each item's cost equals SciPy's optimum, the
duals pass ``verify_batch_assignment``, and an infeasible item is named. A toy method registered in a copy of the
table runs through the public door (adding a method touches no dispatcher)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from matchflow import batch_linear_sum_assignment
from matchflow._methods import Method
from matchflow.batch import _api
from matchflow.batch._methods import TABLE
from matchflow.verify import verify_batch_assignment
from tests.cases import BATCH_CASES


def _items(costs, shapes) -> list[np.ndarray]:
    if shapes is None:
        return [np.asarray(a) for a in costs]
    return [np.asarray(costs[b])[:n, :m] for b, (n, m) in enumerate(np.asarray(shapes).tolist())]


def _scipy_cost(a: np.ndarray, maximize: bool) -> float:
    r, c = linear_sum_assignment(a, maximize=maximize)
    return float(a[r, c].astype(np.float64).sum())


def _methods(backend: str) -> list[str]:
    return ["auto"] + [m.name for m in TABLE.methods if (m.cpu if backend == "cpu" else m.gpu) is not None]


def _runs() -> list:
    """(case, maximize) pairs: a case with ``+inf`` entries only minimising (``+inf`` forbids a pair when
    minimising; SciPy refuses it when maximising, which tests/batch/test_batch.py pins)."""
    out = []
    for case in BATCH_CASES:
        has_inf = any(np.isinf(np.asarray(a, dtype=np.float64)).any() for a in _items(*case.make()))
        out += [pytest.param(case, mx, id=f"{case.name}-{'max' if mx else 'min'}") for mx in (False, True)
                if not (mx and has_inf)]
    return out


@pytest.mark.parametrize(("case", "maximize"), _runs())
def test_batch_cases_every_method(case, maximize, backend):
    costs, shapes = case.make()
    for method in _methods(backend):
        if case.error:
            with pytest.raises(ValueError, match=case.error):
                batch_linear_sum_assignment(costs, shapes=shapes, maximize=maximize, method=method, backend=backend)
            continue
        x, cost, u, v = batch_linear_sum_assignment(costs, shapes=shapes, maximize=maximize, method=method,
                                                    backend=backend, return_cost=True, return_duals=True)
        items = _items(costs, shapes)
        assert len(cost) == len(items), method
        for b, a in enumerate(items):
            want = _scipy_cost(a, maximize)
            assert float(cost[b]) == pytest.approx(want, rel=1e-6, abs=1e-9), (method, b)
        assert verify_batch_assignment(costs, x, u, v, shapes=shapes, maximize=maximize), method


def test_a_new_batch_method_is_one_table_row(monkeypatch):
    """A toy batched method (the JV row's CPU solve under a new name, with its own option) registered in a copy of
    the table runs through the public door with its options checked; no GPU twin keeps ``auto`` and ``gpu`` off
    it."""
    jv = TABLE.row("jv")

    def toy_solve(problem, scale=1):
        return jv.cpu(problem)

    def toy_check(options):
        if options.get("scale", 1) != 1:
            raise ValueError(f"scale must be 1, got {options['scale']!r}")
        return options

    monkeypatch.setattr(_api, "TABLE", TABLE.with_method(Method("toy", cpu=toy_solve, options=("scale",),
                                                                check=toy_check)))
    costs = np.random.default_rng(2).integers(0, 9, (6, 4, 5))
    x, cost = batch_linear_sum_assignment(costs, method="toy", return_cost=True, scale=1)
    assert [float(c) for c in cost] == [_scipy_cost(a, False) for a in costs]
    assert x.shape == (6, 4)
    with pytest.raises(ValueError, match=r"^scale must be 1, got 2$"):
        batch_linear_sum_assignment(costs, method="toy", scale=2)
    with pytest.raises(TypeError, match=r"unexpected option\(s\) 'bogus'"):
        batch_linear_sum_assignment(costs, method="toy", bogus=1)
    with pytest.raises(ValueError, match=r"backend='gpu' is not available for batch_linear_sum_assignment"
                                         r"\(method='toy'\); use backend='cpu'"):
        batch_linear_sum_assignment(costs, method="toy", backend="gpu")
