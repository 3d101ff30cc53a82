"""Network simplex vs cost scaling vs POT ``ot.emd`` vs OR-Tools (issue 25: a second min-cost flow method only if
it wins somewhere measured).

A program, not a test: ``PYTHONPATH=src python3 -m benchmarks.bench_network_simplex [--transport 100,300,1000]
[--netgen 1000,10000] [--cases netgen:3000:32,gridgen:100,goto:100] [--repeat 5] [--peers ns,cs,pot,ortools]``. Every peer runs on the same input in the same
process, the order rotated each round, ``--repeat`` rounds; the table gives the median (and min) ms of the whole
call from host arrays, and every cost is compared with the first peer's. Inputs, and the POT and OR-Tools
columns, as in ``bench_mcf.py`` (its ``Case``, ``run_pot``, ``run_ortools``):
``transport_instance(n, seed=n)`` (dense n x n, costs 0..1000) and ``netgen(n, 8n, seed=n)``; ``--cases`` adds
``netgen:n:k`` (``netgen(n, k n, seed=n)``), ``gridgen:s`` and ``goto:s`` (s x s, degree 8, ``seed=s``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import matchflow
from benchmarks.bench_mcf import Case, run_ortools, run_pot
from matchflow.generators import goto, gridgen, netgen, transport_instance


def ours(method):
    def run(case):
        if case.family == "transport":
            r = matchflow.transport(*case.data, method=method)
        else:
            p = case.data
            r = matchflow.min_cost_flow((p.tail, p.head), p.demand, capacity=p.cap, cost=p.cost, method=method)
        return int(r.cost), r.stats
    return run


def _no_stats(run):
    return lambda case: (run(case), {})


PEERS = {"ns": ours("network-simplex"), "cs": ours("cost-scaling"), "pot": _no_stats(run_pot),
         "ortools": _no_stats(run_ortools)}


def _case(family, name, data):
    nodes, arcs = (data[2].shape[0] + data[2].shape[1], data[2].size) if family == "transport" else (data.n, data.m)
    return Case(name, family, None, nodes, arcs, data)


def bench(case, peers, repeat):
    times = {p: [] for p in peers}
    costs, extra = {}, {}
    for r in range(repeat):
        order = peers[r % len(peers):] + peers[:r % len(peers)]
        for p in order:
            t = time.perf_counter()
            cost, stats = PEERS[p](case)
            times[p].append(time.perf_counter() - t)
            costs[p] = cost
            if stats:
                extra[p] = {k: v for k, v in stats.items() if k in ("pivots", "degenerate_pivots", "phases",
                                                                    "seconds_solve", "seconds_feasibility")}
    ref = next(costs[p] for p in peers if costs[p] is not None)
    row = {"case": case.name, "cost": ref}
    for p in peers:
        ok = costs[p] is None or costs[p] == ref
        row[p] = None if costs[p] is None else {"median_ms": 1e3 * statistics.median(times[p]),
                                                 "min_ms": 1e3 * min(times[p]), "ok": ok, **extra.get(p, {})}
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transport", default="100,300,1000")
    ap.add_argument("--netgen", default="1000,10000")
    ap.add_argument("--cases", default="")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--peers", default="ns,cs,pot,ortools")
    a = ap.parse_args(argv)
    peers = a.peers.split(",")
    for p in peers:  # imports and our kernels' compilation
        PEERS[p](_case("transport", "warm", transport_instance(4, seed=0)))
        PEERS[p](_case("netgen", "warm", netgen(20, 80, seed=0)))
    for n in [int(x) for x in a.transport.split(",") if x]:
        case = _case("transport", f"transport {n}x{n}", transport_instance(n, seed=n))
        print(json.dumps(bench(case, peers, a.repeat)), flush=True)
    for n in [int(x) for x in a.netgen.split(",") if x]:
        print(json.dumps(bench(_case("netgen", f"netgen n={n} m={8 * n}", netgen(n, 8 * n, seed=n)), peers,
                               a.repeat)), flush=True)
    for spec in [x for x in a.cases.split(",") if x]:
        fam, *args = spec.split(":")
        s = int(args[0])
        if fam == "netgen":
            k = int(args[1]) if len(args) > 1 else 8
            name, data = f"netgen n={s} m={k * s}", netgen(s, k * s, seed=s)
        else:
            name, data = f"{fam} {s}x{s}", {"gridgen": gridgen, "goto": goto}[fam](s, s, degree=8, seed=s)
        print(json.dumps(bench(_case(fam, name, data), peers, a.repeat)), flush=True)


if __name__ == "__main__":
    main()
