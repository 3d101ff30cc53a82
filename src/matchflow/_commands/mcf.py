"""``matchflow mcf FILE.min``: minimum-cost flow of a DIMACS min-cost flow network, checked; the demo's
min-cost flow table (a bundled NETGEN-like file with lower bounds, generated networks and a transportation
problem, next to networkx's network simplex).

Lower bounds are removed by the standard shift (``MinCostFlowProblem.shifted``: ``flow' = flow - low``, the
demands adjusted, ``sum(low * cost)`` added back); the answer printed and written is the flow of the file's
problem. The check is exact on integers: bounds, conservation, the cost recomputed, and reduced-cost
optimality from the solver's potentials (either sign convention: any potentials that satisfy complementary
slackness prove optimality).
"""

from __future__ import annotations

import argparse
import time
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from rich.table import Table

from .. import io
from ..generators import gridgen, netgen
from ..mcf import min_cost_flow
from ._common import emit

__all__ = ["add_parser", "demo_section"]

DEMO_FILE = "netgen-200.min.gz"


def add_parser(sub) -> None:
    """Register ``mcf`` on the CLI's subparsers."""
    s = sub.add_parser("mcf", help="minimum-cost flow of a DIMACS .min network (lower bounds allowed)")
    s.add_argument("file", type=Path, help="DIMACS min-cost flow file ('p min', optionally .gz)")
    s.add_argument("--method", default="auto", help="a method of matchflow.min_cost_flow (default: auto)")
    s.add_argument("--backend", default="auto", choices=("auto", "cpu", "gpu"))
    s.add_argument("--output", "-o", type=Path, help="write the flow in the DIMACS solution format "
                                                     "('s COST', then 'f u v flow' per arc with nonzero flow, 1-based)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.set_defaults(func=run)


def solve(problem, *, method: str = "auto", backend: str = "auto") -> tuple[np.ndarray, int, Any]:
    """Solve a :class:`MinCostFlowProblem` with its lower bounds: (flow per arc, exact cost, result)."""
    shifted, constant = problem.shifted()
    r = min_cost_flow((shifted.tail, shifted.head), shifted.demand, capacity=shifted.cap, cost=shifted.cost,
                 method=method, backend=backend)
    return np.asarray(r.flow).astype(np.int64) + problem.low, int(r.cost) + constant, r


def check(problem, flow: np.ndarray, cost: int, potential: Any = None) -> dict:
    """Exact checks of an integer flow of ``problem``: ``feasible`` (bounds, conservation), ``cost_ok``
    (``cost`` recomputed) and ``optimal`` (True / False; None without integer potentials)."""
    flow = np.asarray(flow, dtype=np.int64)
    net = np.zeros(problem.n, dtype=np.int64)
    np.add.at(net, problem.head, flow)
    np.subtract.at(net, problem.tail, flow)
    feasible = bool(((problem.low <= flow) & (flow <= problem.cap)).all() and np.array_equal(net, problem.demand))
    nz = np.flatnonzero(flow)
    big = int(np.abs(problem.cost[nz]).max(initial=0)) * int(np.abs(flow[nz]).sum()) >= 2**62
    total = (sum(int(a) * int(b) for a, b in zip(flow[nz].tolist(), problem.cost[nz].tolist())) if big
             else int(np.dot(flow[nz], problem.cost[nz])))
    return {"feasible": feasible, "cost_ok": total == int(cost), "optimal": _optimal(problem, flow, potential)}


def _optimal(problem, flow: np.ndarray, potential: Any) -> bool | None:
    if potential is None:
        return None
    p = np.asarray(potential)
    if p.shape != (problem.n,) or not (p.dtype.kind in "iu" or (p.dtype.kind == "f" and np.all(p == np.round(p))
                                                                 and np.abs(p).max(initial=0) < 2.0**52)):
        return None
    p = p.astype(np.int64)
    for sign in (1, -1):
        rc = problem.cost + sign * (p[problem.tail] - p[problem.head])
        if not (((flow < problem.cap) & (rc < 0)).any() or ((flow > problem.low) & (rc > 0)).any()):
            return True
    return False


def _verdict(c: dict) -> str:
    if not (c["feasible"] and c["cost_ok"]):
        return "FAILED: " + ("infeasible flow" if not c["feasible"] else "cost does not match the flow")
    return {True: "verified (feasible, optimal by reduced costs)", False: "FAILED: reduced costs not optimal",
            None: "feasible (no integer potentials to prove optimality)"}[c["optimal"]]


def run(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    problem = io.read(args.file, format="dimacs_min")
    t1 = time.perf_counter()
    flow, cost, r = solve(problem, method=args.method, backend=args.backend)
    t2 = time.perf_counter()
    c = check(problem, flow, cost, getattr(r, "potential", None))
    t3 = time.perf_counter()
    if args.output is not None:
        nz = np.flatnonzero(flow)
        lines = [f"s {cost}"] + [f"f {u + 1} {v + 1} {f}" for u, v, f in
                                 zip(problem.tail[nz].tolist(), problem.head[nz].tolist(), flow[nz].tolist())]
        args.output.write_text("\n".join(lines) + "\n")
    out = {"file": str(args.file), "nodes": problem.n, "arcs": problem.m, "cost": cost,
           "supply": int(problem.demand[problem.demand > 0].sum()), "method": r.method, "backend": r.backend,
           "certificate": _verdict(c), **c, "stats": getattr(r, "stats", {}),
           "seconds": {"read": t1 - t0, "solve": t2 - t1, "verify": t3 - t2}}
    emit(out, args.json, f"{args.file}: {problem.n} nodes, {problem.m} arcs", [
        ("cost", f"{cost}  (supply {out['supply']})"),
        ("method", f"{r.method} on {r.backend}, solve {t2 - t1:.4f} s (read {t1 - t0:.3f} s)"),
        ("certificate", out["certificate"]),
        ("written to", str(args.output)) if args.output else None,
    ])
    return 0 if c["feasible"] and c["cost_ok"] and c["optimal"] is not False else 1


def _demo_inputs(quick: bool) -> list[tuple[str, Any]]:
    with resources.as_file(resources.files("matchflow") / "data" / DEMO_FILE) as f:
        bundled = io.read(f, format="dimacs_min")
    out = [(f"{DEMO_FILE} (lower bounds)", bundled), ("NETGEN-like n=500", netgen(500, 2500, seed=1)),
           ("GRIDGEN-like 20x25", gridgen(20, 25, seed=2))]
    if not quick:
        out += [("NETGEN-like n=2000", netgen(2000, 10000, seed=3)), ("GRIDGEN-like 40x50", gridgen(40, 50, seed=4))]
    return out


def demo_section(con, *, quick: bool = False, backend: str = "auto") -> int:
    """Print the min-cost flow table (next to networkx); returns the number of failed checks."""
    try:  # networkx is optional (the test extra): without it the exact certificate alone speaks
        import networkx as nx  # noqa: PLC0415
    except ImportError:
        nx = None
    inputs = _demo_inputs(quick)
    with con.status("compiling the min-cost flow kernels (first run only) ..."):
        solve(inputs[0][1], backend=backend)
    t = Table(title="Minimum-cost flow (times in ms)")
    for col in ("input", "nodes", "arcs", "cost", "networkx", "matchflow", "speed-up", "certificate"):
        t.add_column(col, justify="left" if col in ("input", "certificate") else "right")
    failures = 0
    for name, p in inputs:
        q, constant = p.shifted()
        t0 = time.perf_counter()
        ref = None if nx is None else nx.min_cost_flow_cost(q.to_networkx()) + constant
        t1 = time.perf_counter()
        flow, cost, r = solve(p, backend=backend)
        t2 = time.perf_counter()
        c = check(p, flow, cost, getattr(r, "potential", None))
        ok = (ref is None or cost == ref) and c["feasible"] and c["cost_ok"] and c["optimal"] is not False
        failures += not ok
        t.add_row(name, str(p.n), str(p.m), str(cost), "n/a" if nx is None else f"{1e3 * (t1 - t0):.1f}",
                  f"{1e3 * (t2 - t1):.1f}", "n/a" if nx is None else f"{(t1 - t0) / max(t2 - t1, 1e-9):.1f}x",
                  f"[green]{_verdict(c)}[/]" if ok else f"[red]{_verdict(c)}; networkx {ref}[/]")
    con.print(t)
    con.print("matchflow = matchflow.min_cost_flow (lower bounds shifted away, the constant added back); networkx = "
              "min_cost_flow_cost (network simplex, pure Python); each cost equals networkx's and is checked.")
    return failures
