"""One stats vocabulary (issue 22, move 6): every family's public entry point, on every CPU method of each of its
method tables (read off the tables), reports its stage timings as ``stats["seconds_<stage>"]`` (non-negative
numbers) and no key in the old ``<stage>_seconds`` spelling. A new table fails here until it has an input."""

from __future__ import annotations

import importlib
import math
import re
from numbers import Real
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import matchflow
from matchflow._methods import MethodTable

SRC = Path(matchflow.__file__).resolve().parent
TIMING = re.compile(r"^seconds_[a-z_]+$")
NO_STATS = {"batch.TABLE"}  # batch_linear_sum_assignment returns arrays, no stats


def _tables() -> dict[str, MethodTable]:
    """Every family's method tables, ``"<family>.<name>"`` -> table (families: packages with a ``_methods.py``)."""
    out = {}
    for family in sorted(p.parent.name for p in SRC.glob("*/_methods.py")):
        mod = importlib.import_module(f"matchflow.{family}._methods")
        out.update({f"{family}.{k}": v for k, v in vars(mod).items() if isinstance(v, MethodTable)})
    return out


def _bipartite():
    return sp.random_array((30, 40), density=0.1, rng=np.random.default_rng(1), format="csr")


def _dense(dtype):
    rng = np.random.default_rng(2)
    return [rng.integers(0, 40, (6, 6)).astype(dtype), rng.integers(0, 40, (5, 7)).astype(dtype) / 4]


def _sparse_costs():
    rng = np.random.default_rng(3)
    a = sp.random_array((12, 12), density=0.4, rng=rng, format="csr") + sp.eye_array(12, format="csr")
    ints = sp.csr_array((rng.integers(1, 30, a.nnz), a.indices, a.indptr), shape=a.shape)
    return [ints, sp.csr_array(ints / 8.0)]


def _network():
    rng = np.random.default_rng(4)
    a = sp.random_array((16, 16), density=0.3, rng=rng, format="csr")
    ints = sp.csr_array((rng.integers(1, 9, a.nnz), a.indices, a.indptr), shape=a.shape)
    return [ints, sp.csr_array(ints * 0.3)]


def _grid():
    rng = np.random.default_rng(5)
    s, t = rng.integers(0, 9, (6, 7)), rng.integers(0, 9, (6, 7))
    return [(s, t, 2), (s * 0.5, t * 0.25, 0.7)]


def _mcf():
    rng = np.random.default_rng(7)
    tail, head = rng.integers(0, 10, 40), rng.integers(0, 10, 40)
    demand = np.zeros(10, dtype=np.int64)
    demand[0], demand[9] = -3, 3
    arcs = (np.r_[tail, 0, 5], np.r_[head, 5, 9])  # a path 0 -> 5 -> 9 keeps it feasible
    cap = np.r_[rng.integers(1, 6, 40), 3, 3]
    cost = np.r_[rng.integers(0, 9, 40), 20, 20]
    return [(arcs, demand, cap, cost), (arcs, demand, cap, cost * 0.5)]


def _graph():
    w = sp.random_array((20, 20), density=0.3, rng=np.random.default_rng(6), format="csr")
    return [sp.csr_array(w + w.T)]


RUNS = {  # table -> the public entry point on each small input, with the method's name
    "matching.TABLE": lambda m: [matchflow.bipartite_matching(_bipartite(), method=m, backend="cpu")],
    "assignment.TABLE": lambda m: [matchflow.assignment(c, method=m, backend="cpu") for c in _dense(np.int64)],
    "assignment.SPARSE_TABLE": lambda m: [matchflow.assignment(c, method=m, backend="cpu") for c in _sparse_costs()],
    "flow.TABLE": lambda m: [matchflow.max_flow(g, 0, 15, method=m, backend="cpu") for g in _network()],
    "flow.GRID_TABLE": lambda m: [matchflow.grid_cut(s, t, e, method=m, backend="cpu") for s, t, e in _grid()],
    "wmatching.TABLE": lambda m: [matchflow.weighted_matching(g, method=m, backend="cpu") for g in _graph()],
    "mcf.TABLE": lambda m: [matchflow.min_cost_flow(g, d, capacity=c, cost=w, method=m, backend="cpu")
                            for g, d, c, w in _mcf()],
}


def test_every_table_is_walked():
    assert set(_tables()) == set(RUNS) | NO_STATS


def _cases():
    return [(name, m) for name, table in _tables().items() if name not in NO_STATS for m in table.cpu_names]


@pytest.mark.parametrize(("table", "method"), _cases(), ids=lambda x: x)
def test_stats_timing_keys_are_seconds_stage(table, method):
    for res in RUNS[table](method):
        assert res.stats, (table, method)
        timing = {k: v for k, v in res.stats.items() if "second" in k or k.endswith("_time")}
        for k, v in timing.items():
            assert TIMING.match(k), (table, method, k)
            assert isinstance(v, Real) and not isinstance(v, bool) and math.isfinite(v) and v >= 0, (k, v)
        assert not [k for k in res.stats if k.endswith("_seconds")], (table, method, sorted(res.stats))


@pytest.mark.parametrize("table", ["matching.TABLE", "assignment.TABLE", "flow.GRID_TABLE", "wmatching.TABLE",
                                   "mcf.TABLE"])
def test_the_walk_sees_stage_timings(table):
    """The check above is not vacuous: these entry points time their stages (first CPU method of the table)."""
    res = RUNS[table](_tables()[table].cpu_names[0])[0]
    assert any(TIMING.match(k) for k in res.stats), sorted(res.stats)
