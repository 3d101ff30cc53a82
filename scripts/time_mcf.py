"""Ours against OR-Tools ``SimpleMinCostFlow`` in one process, alternating, medians of ``reps`` (the table in
docs/notes/mcf.md):

    PYTHONPATH=src python3 scripts/time_mcf.py [cases] [reps]

``cases``: letters of :data:`CASES` (default ``abc``). Every repeat checks that both costs are equal. Our
call is the whole public call (feasibility max-flow, solve, certificate); OR-Tools' builds its graph too.
"""

import statistics
import sys
import time

import numpy as np
from ortools.graph.python import min_cost_flow as omcf

import matchflow
from matchflow.generators import goto, gridgen, netgen

CASES = {
    "a": ("NETGEN-like n=1e4 m=1e5", lambda: netgen(10**4, 10**5, sources=100, sinks=100, supply=10**5,
                                                     cost=(1, 10**4), seed=1)),
    "b": ("NETGEN-like n=1e5 m=1e6", lambda: netgen(10**5, 10**6, sources=316, sinks=316, supply=10**6,
                                                     cost=(1, 10**4), seed=2)),
    "c": ("GRIDGEN-like 354x354 degree 8", lambda: gridgen(354, 354, degree=8, seed=3)),
    "d": ("GOTO-like 354x354 degree 8", lambda: goto(354, 354, degree=8, seed=4)),
}
KEYS = ("phases", "phases_skipped", "pushes", "relabels", "price_updates", "arc_scans")


def ortools(p):
    f = omcf.SimpleMinCostFlow()
    f.add_arcs_with_capacity_and_unit_cost(p.tail, p.head, p.cap, p.cost)
    f.set_nodes_supplies(np.arange(p.n), -p.demand)
    if f.solve() != f.OPTIMAL:
        raise RuntimeError("OR-Tools: not optimal")
    return int(f.optimal_cost())


def ours(p):
    r = matchflow.min_cost_flow((p.tail, p.head), p.demand, capacity=p.cap, cost=p.cost)
    return r.cost, r.stats


def main(which: str, reps: int) -> None:
    ours(netgen(30, 120, seed=0))  # compile / load the kernels
    for key in which:
        name, make = CASES[key]
        p = make()
        t_ours, t_ort = [], []
        for _ in range(reps):
            t = time.perf_counter()
            cost, stats = ours(p)
            t_ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            ref = ortools(p)
            t_ort.append(time.perf_counter() - t)
            if cost != ref:
                raise AssertionError(f"{name}: ours {cost}, OR-Tools {ref}")
        a, b = statistics.median(t_ours), statistics.median(t_ort)
        print(f"{name} (n={p.n}, m={p.m}): ours {a:.3f} s, OR-Tools {b:.3f} s, ratio {a / b:.2f}; "
              f"ours {[round(x, 2) for x in t_ours]}, OR-Tools {[round(x, 2) for x in t_ort]}")
        secs = {k: round(v, 3) for k, v in stats.items() if k.startswith("seconds")}
        print("   ", {k: stats.get(k) for k in KEYS}, secs, flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "abc", int(sys.argv[2]) if len(sys.argv) > 2 else 3)
