"""The weighted-matching case table (``WMATCHING_CASES`` in tests/cases.py) through the public
``weighted_matching`` on every method of the family's table (``wmatching_runs``: a new row is tested here
without touching this file), on the CPU and (marked ``gpu``) the GPU: the documented greedy matching of
tests/naive.py, its exactly rounded weight, the public ½ certificate, and on tiny cases the brute-force optimum
under the certified bound."""

from __future__ import annotations

import dataclasses
import functools
import math
from fractions import Fraction

import numpy as np
import pytest
from cases import WMATCHING_CASES, wmatching_runs
from conftest import gpu
from naive import exact_number, exact_weighted_matching_weight, greedy_weighted_mate, matrix_edges

import matchflow as mf
from matchflow.verify import verify_weighted_matching
from matchflow.wmatching import _methods

TINY = 10  # vertices: the brute-force optimum is computed up to this size


def _id(device: str, method: str, options: dict) -> str:
    return "-".join([device, method, *(k for k in options if k != "block_size")])


RUNS = [pytest.param(d, m, o, id=_id(d, m, o), marks=(gpu,) if d == "gpu" else ())
        for d in ("cpu", "gpu") for m, o in wmatching_runs(d)]


@functools.cache
def _oracle(name: str):
    """(case, greedy mate, its exact weight, the exact optimum on tiny cases or None)."""
    case = next(c for c in WMATCHING_CASES if c.name == name)
    n, r, c, w = case.entries()
    edges = [(a, b, exact_number(x)) for a, b, x in matrix_edges(zip(r.tolist(), c.tolist(), w.tolist()))]
    mate = greedy_weighted_mate(n, edges)
    weight = sum((x for a, b, x in edges if mate[a] == b), 0)
    return case, mate, weight, exact_weighted_matching_weight(n, edges) if n <= TINY else None


@pytest.mark.parametrize("device,method,options", RUNS)
@pytest.mark.parametrize("name", [c.name for c in WMATCHING_CASES])
def test_every_case_on_every_method(name, device, method, options):
    case, want, weight, opt = _oracle(name)
    g = case.graph()
    res = mf.weighted_matching(g, method=method, backend=device, **options)
    assert (res.method, res.backend) == (method, device)
    np.testing.assert_array_equal(np.asarray(res.mate), want)
    assert res.cardinality == np.count_nonzero(want >= 0) // 2 == len(res.edges)
    assert res.weight == float(weight)
    rep = verify_weighted_matching(g, res)
    assert rep.valid and rep.half_approximate, rep.problems
    assert rep.weight == res.weight
    bound = math.inf if rep.upper_bound == math.inf else Fraction(rep.upper_bound)
    assert weight <= bound and (opt is None or (weight <= opt <= bound and 2 * weight >= opt))


def test_runs_are_read_off_the_table(monkeypatch):
    """Every CPU row runs on the CPU (suitor also with its ``parallel`` switch), every GPU twin on the GPU; a row
    added to the table joins the runs."""
    table = _methods.TABLE
    cpu, gpu_runs = wmatching_runs("cpu"), wmatching_runs("gpu")
    assert {m for m, _ in cpu} == set(table.cpu_names) and ("suitor", {"parallel": True}) in cpu
    assert {m for m, _ in gpu_runs} == {m.name for m in table.methods if m.gpu is not None}
    row = dataclasses.replace(table.row("greedy"), name="greedy-copy")
    monkeypatch.setattr(_methods, "TABLE", table.with_method(row))
    assert ("greedy-copy", {}) in wmatching_runs("cpu")
