"""The min-cost flow generators: shapes, determinism, feasibility by construction (networkx solves them),
the skeleton's flow, and argument errors."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from matchflow.generators import goto, gridgen, netgen, transport_instance
from matchflow.io import MinCostFlowProblem

MAKERS = {
    "netgen": lambda seed, **kw: netgen(40, 160, seed=seed, **kw),
    "gridgen": lambda seed, **kw: gridgen(5, 9, seed=seed, **kw),
    "goto": lambda seed, **kw: goto(6, 7, degree=4, seed=seed, **kw),
}


def _arrays(p: MinCostFlowProblem) -> list[np.ndarray]:
    return [p.tail, p.head, p.low, p.cap, p.cost, p.demand]


@pytest.mark.parametrize("name", MAKERS)
def test_determinism_and_shape(name):
    a, b, c = MAKERS[name](5), MAKERS[name](5), MAKERS[name](6)
    for x, y in zip(_arrays(a), _arrays(b), strict=True):
        np.testing.assert_array_equal(x, y)
    assert any(not np.array_equal(x, y) for x, y in zip(_arrays(a), _arrays(c), strict=True))
    assert all(x.dtype == np.int64 for x in _arrays(a))
    assert a.demand.sum() == 0 and not a.low.any() and (a.cap >= 0).all()
    assert (a.tail != a.head).all()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("name", MAKERS)
def test_feasible_networkx_solves_and_tight_capacities_still_feasible(name, seed):
    """Feasible by construction, even with capacity ranges far too small for the supply (only the
    skeleton can carry it)."""
    for kw in ({}, {"capacity": (0, 1), "supply": 500}):
        p = MAKERS[name](seed, **kw)
        flow_cost, flow = nx.network_simplex(p.to_networkx())
        sent = sum(f for u in flow for v in flow[u] for f in flow[u][v].values() if u == int(np.argmin(p.demand)))
        assert isinstance(flow_cost, int) and sent >= -int(p.demand.min()) > 0
        if "supply" in kw:
            assert int(p.demand[p.demand > 0].sum()) == 500


def test_netgen_sources_first_sinks_last_and_grouped_by_tail():
    p = netgen(100, 400, sources=5, sinks=7, supply=999, seed=3)
    assert (p.demand[:5] <= 0).all() and (p.demand[-7:] >= 0).all() and not p.demand[5:-7].any()
    assert -p.demand[:5].sum() == p.demand[-7:].sum() == 999
    assert (np.diff(p.tail) >= 0).all()
    assert ((p.cost >= 1) & (p.cost <= 100)).all()


def test_gridgen_arcs_are_grid_neighbours_plus_random_ones():
    p = gridgen(4, 6, degree=6, seed=1)
    assert p.m == 6 * 24
    grid = 2 * (4 * 5 + 3 * 6)
    r, c = np.divmod(p.tail[:grid], 6)
    r2, c2 = np.divmod(p.head[:grid], 6)
    assert (np.abs(r - r2) + np.abs(c - c2) == 1).all()


def test_goto_one_source_one_sink_and_torus_arcs():
    p = goto(5, 6, degree=5, supply=77, reach=2, seed=4)
    assert p.m == 5 * 30 and sorted(p.demand[p.demand != 0].tolist()) == [-77, 77]
    assert p.demand[0] == -77
    r, c = np.divmod(p.tail, 6)
    r2, c2 = np.divmod(p.head, 6)
    dr, dc = (r2 - r) % 5, (c2 - c) % 6
    assert (np.minimum(dr, 5 - dr) <= 2).all() and (np.minimum(dc, 6 - dc) <= 2).all()


def test_transport_instance():
    s, d, C = transport_instance(7, 5, total=100, cost=(3, 9), seed=2)
    assert C.shape == (7, 5) and C.dtype == np.int64 and ((C >= 3) & (C <= 9)).all()
    assert s.sum() == d.sum() == 100 and (s > 0).all() and (d > 0).all()
    s2, d2, C2 = transport_instance(7, 5, total=100, cost=(3, 9), seed=2)
    assert np.array_equal(C, C2) and np.array_equal(s, s2) and np.array_equal(d, d2)
    s, d, E = transport_instance(6, metric="euclidean", cost=(0, 1000), seed=1)
    assert E.shape == (6, 6) and ((E >= 0) & (E <= 1000)).all() and s.sum() == d.sum() == 600
    g = nx.DiGraph()
    g.add_nodes_from((("s", i), {"demand": -int(v)}) for i, v in enumerate(s))
    g.add_nodes_from((("t", j), {"demand": int(v)}) for j, v in enumerate(d))
    g.add_edges_from((("s", i), ("t", j), {"weight": int(E[i, j])}) for i in range(6) for j in range(6))
    assert nx.min_cost_flow_cost(g) >= 0


@pytest.mark.parametrize("call, exc, pattern", [
    (lambda: netgen(10, 5), ValueError, r"m must be >= 9, got 5"),
    (lambda: netgen(10, 20, sources=6, sinks=5), ValueError, r"sources \+ sinks must be <= n \(10\), got 6 \+ 5"),
    (lambda: netgen(10, 20, cost=(5, 1)), ValueError, r"cost must be \(low, high\) with low <= high"),
    (lambda: netgen(10, 20, capacity=[1, 2]), TypeError, r"capacity must be a \(low, high\) tuple"),
    (lambda: netgen(10, 20, capacity=(-1, 2)), ValueError, r"capacity must be >= 0, got -1"),
    (lambda: gridgen(1, 1), ValueError, r"at least 2 nodes, got 1 x 1"),
    (lambda: goto(3, 3, degree=1), ValueError, r"degree must be >= 2, got 1"),
    (lambda: transport_instance(5, total=3), ValueError, r"total must be >= 5, got 3"),
    (lambda: transport_instance(5, metric="l1"), ValueError, r"metric must be one of"),
    (lambda: netgen(10, 20, seed=-1), ValueError, r"seed must be >= 0"),
])
def test_errors_name_the_argument(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()
