"""The flow family's named cases (``FLOW_CASES``, ``GRID_CASES`` in tests/cases.py) through the public ``max_flow``
and ``grid_cut`` on every method of the family's tables (a new row is tested here with no edit; the GPU twins
through the ``backend`` fixture), each answer checked by the public certificate (``verify_flow``; the labels'
``grid_energy``) and against exact oracles (networkx on scaled integers, brute force over the labellings)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest

from matchflow.flow import grid_cut, grid_energy, max_flow, offsets, verify_flow
from matchflow.flow._methods import GRID_TABLE, TABLE
from tests.cases import FLOW_CASES, GRID_CASES
from tests.naive import grid_energy_exact, grid_min_exact, max_flow_exact, min_cut_bruteforce


def table_methods(table, backend: str) -> list[str]:
    """"auto" and every method of ``table`` with a twin on ``backend``."""
    return ["auto"] + [m.name for m in table.methods if (m.cpu if backend == "cpu" else m.gpu) is not None]


def gpu_options(backend: str) -> dict:
    return {} if backend == "cpu" else {"block_size": 32}  # small inputs span several blocks


@pytest.mark.parametrize("case", FLOW_CASES, ids=lambda c: c.name)
def test_flow_cases_every_method(case, backend):
    net = case.network()
    truth = max_flow_exact(net)
    if net.capacities.dtype.kind in "iu" and net.n <= 14:
        assert truth == min_cut_bruteforce(net.n, net.source, net.sink, net.tails, net.heads, net.capacities)
    for method in table_methods(TABLE, backend):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # every answer here is proved: no "not proved" warning
            r = max_flow(net, method=method, backend=backend, **gpu_options(backend))
        assert (r.backend, r.flow.dtype) == (backend, net.capacities.dtype), method
        assert r.method == method or (method == "auto" and r.method in TABLE.names)
        assert verify_flow(net, None, None, r)
        if net.capacities.dtype.kind in "iu":
            assert isinstance(r.flow_value, int) and r.flow_value == truth, method
        else:
            assert abs(Fraction(r.flow_value) - truth) <= Fraction(r.stats["float_bound"]), method


def _items(src, snk, edg, conn: int) -> tuple[bool, list[tuple]]:
    """(a batch?, the case's grids, each with its edge capacities at full shape ``(k, *grid)``)."""
    nd = 2 if conn in (4, 8) else 3
    k = len(offsets(nd, conn))
    if np.ndim(src) == nd:
        return False, [(src, snk, np.broadcast_to(edg, (k,) + np.shape(src)))]
    e = np.broadcast_to(edg, (len(src), k) + np.shape(src)[1:])
    return True, [(src[b], snk[b], e[b]) for b in range(len(src))]


@pytest.mark.parametrize("case", GRID_CASES, ids=lambda c: c.name)
def test_grid_cases_every_method(case, backend):
    src, snk, edg = case.make()
    conn = case.connectivity
    batch, items = _items(src, snk, edg, conn)
    best = [grid_min_exact(*it, conn) for it in items]
    floats = any(np.asarray(a).dtype.kind == "f" for a in (src, snk, edg))
    eps = max(float(np.finfo(np.asarray(a).dtype).eps) for a in (src, snk, edg) if np.asarray(a).dtype.kind == "f") \
        if floats else 0.0
    for method in table_methods(GRID_TABLE, backend):
        r = grid_cut(src, snk, edg, connectivity=conn, method=method, backend=backend, **gpu_options(backend))
        fell_back = "fallback" in r.stats
        assert (r.backend == backend or fell_back) and r.connectivity == conn, method
        assert r.method == method or method == "auto" or fell_back
        assert r.labels.shape == np.shape(src) and r.labels.dtype == bool and r.stats.get("certified", True)
        values = np.atleast_1d(r.flow_value)
        assert np.shape(r.flow_value) == ((len(items),) if batch else ())
        labels = list(r.labels) if batch else [r.labels]
        energy = np.atleast_1d(grid_energy(r.labels, src, snk, edg, connectivity=conn))
        for b, (lab, (s, t, e)) in enumerate(zip(labels, items, strict=True)):
            exact = grid_energy_exact(lab, s, t, e, conn)
            if floats:  # minimal up to the rounding of the energies' sums; the value is the labels' energy
                assert exact - best[b] <= 8 * 2.0**-53 * best[b] and abs(values[b] - exact) <= 2.0**-52 * exact
                assert energy[b] == pytest.approx(values[b], rel=8 * eps, abs=0)
            else:
                assert values[b] == exact == best[b] == energy[b], (method, b)
