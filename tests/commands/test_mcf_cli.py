"""``matchflow mcf FILE.min`` and the demo's min-cost flow section.

The command's own work (lower-bound shift, exact check, solution file) is tested through a stand-in solver
(networkx's network simplex behind ``matchflow.min_cost_flow``'s contract, without potentials) and through the
real solver."""

from __future__ import annotations

import json
import sys
from importlib import resources
from types import SimpleNamespace

import networkx as nx
import numpy as np
import pytest

from matchflow import io as mio
from matchflow._commands import mcf
from matchflow.cli import main
from matchflow.generators import gridgen, netgen

BUNDLED = resources.files("matchflow") / "data" / mcf.DEMO_FILE


def _arc_flows(p, flow_dict) -> np.ndarray:
    """networkx's flow dict of ``p.to_networkx()`` as one value per arc, in input order."""
    seen: dict = {}
    out = np.zeros(p.m, dtype=np.int64)
    for k, (u, v) in enumerate(zip(p.tail.tolist(), p.head.tolist(), strict=True)):
        j = seen.get((u, v), 0)
        seen[(u, v)] = j + 1
        out[k] = flow_dict[u][v][j]
    return out


def _stand_in(arcs, demand, *, capacity, cost, method="auto", backend="auto"):
    tail, head = arcs
    p = mio.MinCostFlowProblem(len(demand), tail, head, np.zeros(len(tail)), capacity, cost, demand)
    value, flows = nx.network_simplex(p.to_networkx())
    return SimpleNamespace(flow=_arc_flows(p, flows), cost=value, potential=None, method="networkx",
                           backend="cpu", stats={})


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(mcf, "min_cost_flow", _stand_in)


def _potentials(p, flow) -> np.ndarray:
    """Shortest distances in the residual network of ``flow`` (zero-lower-bound ``p``): optimal duals."""
    g = nx.DiGraph()
    g.add_nodes_from(range(p.n))
    for u, v, f, c, w in zip(p.tail.tolist(), p.head.tolist(), flow.tolist(), p.cap.tolist(), p.cost.tolist(),
                             strict=True):
        for a, b, wt, room in ((u, v, w, f < c), (v, u, -w, f > 0)):
            if room and (not g.has_edge(a, b) or g[a][b]["weight"] > wt):
                g.add_edge(a, b, weight=wt)
    g.add_edges_from(("root", v, {"weight": 0}) for v in range(p.n))
    d = nx.single_source_bellman_ford_path_length(g, "root")
    return np.array([d[v] for v in range(p.n)], dtype=np.int64)


def test_check_is_exact_and_reads_either_potential_sign():
    p = gridgen(4, 5, seed=3)
    value, flows = nx.network_simplex(p.to_networkx())
    x = _arc_flows(p, flows)
    pi = _potentials(p, x)
    assert mcf.check(p, x, value, pi) == {"feasible": True, "cost_ok": True, "optimal": True}
    assert mcf.check(p, x, value, -pi)["optimal"] is True
    assert mcf.check(p, x, value, pi.astype(np.float64))["optimal"] is True
    assert mcf.check(p, x, value)["optimal"] is None
    assert mcf.check(p, x, value, pi + 0.5)["optimal"] is None  # non-integer potentials prove nothing here
    assert mcf.check(p, x, value + 1, pi)["cost_ok"] is False
    bad = pi.copy()
    bad[int(np.argmax(p.demand))] += 10**6
    assert mcf.check(p, x, value, bad)["optimal"] is False
    y = x.copy()
    y[0] += 1
    assert mcf.check(p, y, value, pi)["feasible"] is False


def test_cli_shifts_lower_bounds_and_writes_the_solution(stand_in, tmp_path, capsys):
    out = tmp_path / "flow.sol"
    with resources.as_file(BUNDLED) as f:
        assert main(["mcf", str(f), "--json", "--output", str(out)]) == 0
        p = mio.read(f)
    d = json.loads(capsys.readouterr().out)
    q, constant = p.shifted()
    assert constant > 0 and d["cost"] == nx.min_cost_flow_cost(q.to_networkx()) + constant
    assert d["feasible"] and d["cost_ok"] and d["optimal"] is None and d["arcs"] == p.m == 1000
    lines = out.read_text().splitlines()
    assert lines[0] == f"s {d['cost']}"
    net = np.zeros(p.n, dtype=np.int64)  # parallel arcs make 'f u v x' ambiguous per arc: check conservation
    for line in lines[1:]:
        _, u, v, f = line.split()
        assert int(f) != 0
        net[int(v) - 1] += int(f)
        net[int(u) - 1] -= int(f)
    assert np.array_equal(net, p.demand)


def test_cli_text_output_and_errors(stand_in, tmp_path, capsys):
    f = tmp_path / "g.min"
    mio.write(f, netgen(30, 120, seed=2))
    assert main(["mcf", str(f)]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"{f}: 30 nodes, 120 arcs") and "feasible" in text
    bad = tmp_path / "b.min"
    bad.write_text("p max 3 1\n")
    assert main(["mcf", str(bad)]) == 2
    assert "line 1: bad problem line" in capsys.readouterr().err
    infeasible = tmp_path / "i.min"
    infeasible.write_text("p min 2 1\nn 1 5\nn 2 -5\na 1 2 6 5 1\n")
    assert main(["mcf", str(infeasible)]) == 2
    assert "lower bound 6 is above the capacity 5" in capsys.readouterr().err


def test_demo_section_without_networkx(monkeypatch):
    """networkx is optional: the demo's table then shows n/a beside each certified answer."""
    from rich.console import Console

    monkeypatch.setitem(sys.modules, "networkx", None)
    con = Console(record=True, width=200)
    assert mcf.demo_section(con, quick=True, backend="cpu") == 0
    text = con.export_text()
    assert "n/a" in text and text.count("feasible") >= 3


def test_demo_section_with_stand_in(stand_in):
    from rich.console import Console

    con = Console(record=True, width=200)
    assert mcf.demo_section(con, quick=True, backend="cpu") == 0
    text = con.export_text()
    assert "Minimum-cost flow" in text and text.count("feasible") >= 3


@pytest.mark.parametrize("seed", range(3))
def test_cli_real_solver_matches_networkx_and_is_certified(tmp_path, capsys, seed):
    f = tmp_path / "n.min.gz"
    p = netgen(60, 300, seed=seed)
    mio.write(f, p)
    assert main(["mcf", str(f), "--json", "--backend", "cpu"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["cost"] == nx.min_cost_flow_cost(p.to_networkx()) and d["feasible"] and d["optimal"] is not False


def test_demo_section_real_solver():
    from rich.console import Console

    con = Console(record=True, width=200)
    assert mcf.demo_section(con, quick=True, backend="cpu") == 0
