"""Min-cost flow benchmark (issue 25): peers on the same inputs in one run, every cost compared.

A program, not a test: ``PYTHONPATH=src python3 benchmarks/bench_mcf.py [--quick] [--cases netgen,goto]
[--peers ortools,networkx,pot,ours]``. Inputs from ``matchflow.generators``: NETGEN-like (``m = 8n``),
GRIDGEN-like (square grids, average out-degree 8) and GOTO-like (square tori, degree 8) networks at 10^3 ..
10^6 nodes, and dense transportation problems n x n (n = 100 .. 5000, integer costs 0..1000). Peers: OR-Tools
``SimpleMinCostFlow`` (the first exact peer: every ``ok`` compares with its cost), networkx
``min_cost_flow_cost`` (network simplex, pure Python; only up to :data:`NX_MAX_ARCS` arcs, ~30 s), POT
``ot.emd`` (transportation only), and ours, ``matchflow.min_cost_flow`` / ``matchflow.transport`` when this
build has them (a column skipped otherwise; compiled on a tiny input first). Times are the whole call from
host arrays (building the peer's graph included), best of ``--repeat``; beside them the solve alone:
``ours-solve`` is our solver's own stage, ``result.stats["seconds_solve"]`` of the same public call (the method's
build and its pivots / refine; not the input checks, the feasibility max-flow or the certificate), and
``ortools-solve`` is OR-Tools' ``solve()`` with the arcs and supplies added before the timer. And the first call
as a user meets it: ``import matchflow`` + one ``min_cost_flow`` on the NETGEN-like n=1000 network in a fresh
process with a warm Numba cache (:func:`first_call`: run twice, the second reported; ``meta["first_call_s"]``,
in the markdown header; ``--no-first-call`` skips it). Writes ``results/mcf/<host>-<date>[-quick].json`` and
``.md`` after every case.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks._runner import best_of, has
from matchflow.generators import goto, gridgen, netgen, transport_instance

NX_MAX_ARCS = 60_000  # networkx's network simplex takes ~30 s around here (measured on the dev box)
POT_ITER = 10**9


@dataclass
class Case:
    name: str
    family: str
    make: object  # () -> MinCostFlowProblem, or (supply, demand, C) for "transport"
    nodes: int
    arcs: int
    data: object = field(default=None, repr=False)


def cases(quick: bool) -> list[Case]:
    sizes = (10**3, 10**4) if quick else (10**3, 10**4, 10**5, 10**6)
    out = []
    for n in sizes:
        side = int(round(np.sqrt(n)))
        out.append(Case(f"netgen n={n}", "netgen", lambda n=n: netgen(n, 8 * n, seed=n), n, 8 * n))
        out.append(Case(f"gridgen {side}x{side}", "gridgen", lambda s=side: gridgen(s, s, degree=8, seed=s),
                        side * side, 8 * side * side))
        out.append(Case(f"goto {side}x{side}", "goto", lambda s=side: goto(s, s, degree=8, seed=s), side * side,
                        8 * side * side))
    for n in (100, 300) if quick else (100, 300, 1000, 2000, 5000):
        out.append(Case(f"transport {n}x{n}", "transport", lambda n=n: transport_instance(n, seed=n), 2 * n, n * n))
    return out


# --------------------------------------------------------------------------- peers: run(case) -> cost
def _network(case: Case):
    """(tail, head, capacity, cost, demand) of a case; a transportation problem as its bipartite network."""
    if case.family != "transport":
        p = case.data
        return p.tail, p.head, p.cap, p.cost, p.demand
    s, d, C = case.data
    m, n = C.shape
    tail = np.repeat(np.arange(m), n)
    head = np.tile(np.arange(m, m + n), m)
    cap = np.minimum(s[:, None], d[None, :]).ravel()
    return tail, head, cap, C.ravel(), np.concatenate([-s, d])


def _ortools_flow(case: Case):
    """OR-Tools' ``SimpleMinCostFlow`` of a case, its arcs and supplies added (not solved)."""
    from ortools.graph.python import min_cost_flow

    tail, head, cap, cost, demand = _network(case)
    f = min_cost_flow.SimpleMinCostFlow()
    f.add_arcs_with_capacity_and_unit_cost(tail, head, cap, cost)
    f.set_nodes_supplies(np.arange(len(demand)), -demand)
    return f


def _ortools_solve(f) -> int:
    status = f.solve()
    if status != f.OPTIMAL:
        raise RuntimeError(f"OR-Tools status {status}")
    return int(f.optimal_cost())


def run_ortools(case: Case):
    return _ortools_solve(_ortools_flow(case))


def run_ortools_solve(case: Case):
    """``(seconds, cost)``: OR-Tools' ``solve()`` alone (its graph built before the timer)."""
    f = _ortools_flow(case)
    t = time.perf_counter()
    cost = _ortools_solve(f)
    return time.perf_counter() - t, cost


def run_networkx(case: Case):
    import networkx as nx

    if case.arcs > NX_MAX_ARCS:
        return None
    tail, head, cap, cost, demand = _network(case)
    g = nx.MultiDiGraph()
    g.add_nodes_from((v, {"demand": int(d)}) for v, d in enumerate(demand.tolist()))
    g.add_edges_from((u, v, {"capacity": c, "weight": w}) for u, v, c, w in
                     zip(tail.tolist(), head.tolist(), cap.tolist(), cost.tolist()))
    return int(nx.min_cost_flow_cost(g))


def run_pot(case: Case):
    import ot

    if case.family != "transport":
        return None
    s, d, C = case.data
    plan = ot.emd(s.astype(np.float64), d.astype(np.float64), C.astype(np.float64), numItermax=POT_ITER)
    return int(round(float((plan * C).sum())))


def run_ours(case: Case):
    import matchflow

    if case.family == "transport":
        s, d, C = case.data
        return int(matchflow.transport(s, d, C).cost)
    tail, head, cap, cost, demand = _network(case)
    return int(matchflow.min_cost_flow((tail, head), demand, capacity=cap, cost=cost).cost)


def run_ours_solve(case: Case):
    """``(seconds, cost)``: the solve stage of our public call, ``stats["seconds_solve"]`` (the method's build and
    its pivots / refine; the input checks, the feasibility max-flow and the certificate are the whole call's)."""
    import matchflow

    if case.family == "transport":
        s, d, C = case.data
        r = matchflow.transport(s, d, C)
    else:
        tail, head, cap, cost, demand = _network(case)
        r = matchflow.min_cost_flow((tail, head), demand, capacity=cap, cost=cost)
    return float(r.stats["seconds_solve"]), int(r.cost)


GPU_MAX_ARCS = 2_000_000  # larger inputs not timed on the GPU yet (docs/notes/mcf.md)


def run_ours_gpu(case: Case, **options):
    """Cost scaling on the GPU (``method="cost-scaling", backend="gpu"``), the whole call from host arrays."""
    import matchflow

    if case.arcs > GPU_MAX_ARCS:
        return None
    if case.family == "transport":
        s, d, C = case.data
        return int(matchflow.transport(s, d, C, method="cost-scaling", backend="gpu", **options).cost)
    tail, head, cap, cost, demand = _network(case)
    r = matchflow.min_cost_flow((tail, head), demand, capacity=cap, cost=cost, method="cost-scaling", backend="gpu",
                                **options)
    if r.stats.get("gpu_fallback"):
        raise RuntimeError(f"the GPU twin fell back to the CPU: {r.stats['gpu_fallback']}")
    return int(r.cost)


def _gpu_available() -> bool:
    from matchflow.gpu import gpu_available

    return gpu_available()


def _ours_available() -> bool:
    import matchflow

    return hasattr(matchflow, "min_cost_flow") and hasattr(matchflow, "transport")


# column -> (available, run); the first column is the exact reference of the ok column. run(case) returns the cost
# (the column is the whole call, timed by measure) or (seconds, cost) (a "-solve" column: the runner times its part)
PEERS = {
    "ortools": (has("ortools"), run_ortools),
    "ortools-solve": (has("ortools"), run_ortools_solve),
    "networkx": (has("networkx"), run_networkx),
    "pot": (has("ot"), run_pot),
    "ours": (_ours_available, run_ours),
    "ours-solve": (_ours_available, run_ours_solve),
    "ours-gpu": (_gpu_available, run_ours_gpu),
}


def warm_up(peers) -> None:
    """Every column once on tiny inputs (imports, our kernels' compilation: first use only), so the columns
    time solves."""
    tiny = (Case("warm", "netgen", None, 20, 80, netgen(20, 80, seed=0)),
            Case("warm", "transport", None, 8, 16, transport_instance(4, seed=0)))
    for p in peers:
        for case in tiny:
            PEERS[p][1](case)


def measure(run, case: Case, repeat: int):
    """Best seconds of ``run(case)`` over ``repeat`` runs, and its cost: the whole call, or the runner's own part
    where it returns ``(seconds, cost)`` (the ``-solve`` columns); ``(None, None)`` where it returns None (not run)."""
    return best_of(lambda: run(case), repeat)


FIRST_N = 1000  # the first call's network: netgen(FIRST_N, 8 FIRST_N, seed=FIRST_N), the smallest NETGEN case

_FIRST = f"""
import json, sys, time
t0 = time.perf_counter()
import matchflow
t1 = time.perf_counter()
from matchflow.generators import netgen
p = netgen({FIRST_N}, {8 * FIRST_N}, seed={FIRST_N})
t2 = time.perf_counter()
r = matchflow.min_cost_flow((p.tail, p.head), p.demand, capacity=p.cap, cost=p.cost)
t3 = time.perf_counter()
r2 = matchflow.min_cost_flow((p.tail, p.head), p.demand, capacity=p.cap, cost=p.cost)
t4 = time.perf_counter()
print(json.dumps({{"seconds": (t1 - t0) + (t3 - t2), "import_s": t1 - t0, "call_s": t3 - t2,
                  "second_call_s": t4 - t3, "method": r.method, "cost": int(r.cost)}}))
"""


def first_call() -> dict:
    """``import matchflow`` + the first ``min_cost_flow`` (NETGEN-like, n = FIRST_N, m = 8n; the input's generation
    not timed) in a fresh process, run twice: the first fills the Numba cache, the second is reported. A dict
    (``seconds``: import + first call; ``import_s``, ``call_s``, ``second_call_s``, ``method``, ``cost``), or
    ``{"failed": <its stderr's end>}`` when the subprocess failed. It imports the same matchflow as this process."""
    import matchflow

    env = dict(os.environ)
    src = str(Path(matchflow.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    out: dict = {}
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", _FIRST], capture_output=True, text=True, check=False, env=env)
        lines = [ln for ln in r.stdout.splitlines() if ln.strip()] if r.returncode == 0 else []
        out = json.loads(lines[-1]) if lines else {"failed": r.stderr.strip()[-2000:]}
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    ap.add_argument("--peers", default=None, help="comma-separated columns (default: all available)")
    ap.add_argument("--cases", default="", help="comma-separated substrings of the case names (default: all)")
    ap.add_argument("--name", default="", help="the result files' stem (default: <host>-<date>[-quick])")
    ap.add_argument("--max-arcs", type=float, default=0, help="skip the cases with more arcs (0: none skipped)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--machine", default="", help="a label for the machine (e.g. 'dev box, 2 cores')")
    ap.add_argument("--out", default="results/mcf")
    ap.add_argument("--no-first-call", action="store_true", help="skip the first call in a fresh process")
    args = ap.parse_args(argv)
    names = args.peers.split(",") if args.peers else list(PEERS)
    peers = [p for p in names if p in PEERS and PEERS[p][0]()]
    warm_up(peers)
    meta = {"host": socket.gethostname(), "machine": args.machine, "cores": os.cpu_count(),
            "cpu": platform.processor() or platform.machine(), "date": datetime.date.today().isoformat(),
            "python": platform.python_version(), "quick": args.quick, "repeat": args.repeat, "peers": peers,
            "missing": [p for p in names if p not in peers], "versions": _versions(peers),
            "first_call_s": None, "first_call": None, "name": args.name}
    if ("ours" in peers or "ours-solve" in peers) and not args.no_first_call:  # after warm_up: the Numba cache is warm
        meta["first_call"] = first_call()
        meta["first_call_s"] = meta["first_call"].get("seconds")
        print("first call, fresh process:", json.dumps(meta["first_call"]), flush=True)
    rows = []
    for case in cases(args.quick):
        if args.max_arcs and case.arcs > args.max_arcs:
            continue
        if args.cases and not any(c in case.name for c in args.cases.split(",")):
            continue
        case.data = case.make()
        row = {"case": case.name, "nodes": case.nodes, "arcs": case.arcs}
        ref = None
        for p in peers:
            sec, cost = measure(PEERS[p][1], case, args.repeat)
            ok = None if cost is None or ref is None else cost == ref
            if cost is not None and ref is None:
                ref, ok = cost, True
            row[p] = {"ms": None if sec is None else 1e3 * sec, "cost": cost, "ok": ok}
        case.data = None
        rows.append(row)
        print(json.dumps(row), flush=True)
        _write(args.out, meta, rows, peers)  # after every case: a run cut short keeps what it measured
    print(_write(args.out, meta, rows, peers))


def _versions(peers) -> dict:
    out = {"numpy": np.__version__}
    for mod, name in (("ortools", "ortools"), ("networkx", "networkx"), ("ot", "pot"), ("matchflow", "matchflow")):
        try:
            out[name] = __import__(mod).__version__
        except Exception:
            pass
    return out


def _write(folder: str, meta: dict, rows: list, peers: list) -> str:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    stem = meta.get("name") or f"{meta['host']}-{meta['date']}{'-quick' if meta['quick'] else ''}"
    md = markdown(meta, rows, peers)
    (out / f"{stem}.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    (out / f"{stem}.md").write_text(md)
    return md


def _first_line(meta) -> str:
    fc = meta.get("first_call")
    head = (f"First call in a fresh process (`import matchflow` + one `min_cost_flow`, NETGEN-like n={FIRST_N}, "
            f"m={8 * FIRST_N}, warm Numba cache, the second of two runs): ")
    if not fc:
        return head + "not measured in this run."
    if "failed" in fc:
        return head + "failed (the JSON's `meta.first_call` has the error)."
    return head + (f"**{fc['seconds']:.2f} s** (import {fc['import_s']:.2f} s, first call {fc['call_s']:.2f} s; "
                   f"the second call in that process {1e3 * fc['second_call_s']:.1f} ms, {fc['method']}).")


def markdown(meta, rows, peers) -> str:
    lines = [f"# Min-cost flow, {meta['machine'] or meta['host']} ({meta['cores']} cores), {meta['date']}", "",
             f"Best of {meta['repeat']} run(s), ms, the whole call from host arrays; `-solve` columns: the solve "
             "alone (ours: `stats[\"seconds_solve\"]` of the public call, the method's build and pivots / refine, "
             "without the input checks, feasibility max-flow and certificate; OR-Tools: `solve()`, its arcs added "
             f"before the timer). `ok`: the cost equals {peers[0] if peers else '-'}'s (the first exact peer). "
             f"n/a: not run (networkx above {NX_MAX_ARCS} arcs, POT on networks)." +
             (f" Not in this run: {', '.join(meta['missing'])}." if meta["missing"] else ""), "",
             _first_line(meta), "",
             "| case | nodes | arcs | cost | " + " | ".join(peers) + " |", "|---" * (len(peers) + 4) + "|"]
    for r in rows:
        cost = next((r[p]["cost"] for p in peers if r[p]["cost"] is not None), None)
        cells = []
        for p in peers:
            c = r[p]
            cells.append("n/a" if c["ms"] is None else f"{c['ms']:.1f}" + ("" if c["ok"] else " (WRONG)"))
        lines.append(f"| {r['case']} | {r['nodes']} | {r['arcs']} | {cost} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
