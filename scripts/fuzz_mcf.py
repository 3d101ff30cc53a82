"""Random cross-check of ``matchflow.min_cost_flow`` against OR-Tools ``SimpleMinCostFlow``:

    PYTHONPATH=src python3 scripts/fuzz_mcf.py [count] [seed]

Small random networks (2..14 nodes) with cost ties, zero-cost and negative-cost cycles (bounded arcs), parallel
arcs, self-loops, zero capacities and infeasible demands. Every answer: the same optimal cost as OR-Tools, or
ValueError exactly when OR-Tools reports infeasible (the solver's certificate runs inside the call). Exit 1 on
a mismatch.
"""

import sys

import numpy as np
from ortools.graph.python import min_cost_flow as omcf

from matchflow import min_cost_flow


def instance(rng):
    n = int(rng.integers(2, 15))
    m = int(rng.integers(1, 5 * n))
    tail, head = rng.integers(0, n, m), rng.integers(0, n, m)
    lo, hi = [(0, 0), (0, 2), (-3, 3), (1, 10), (-50, 100)][int(rng.integers(5))]
    cost = rng.integers(lo, hi, m, endpoint=True)
    cap = rng.integers(0, [1, 5, 100][int(rng.integers(3))], m, endpoint=True)
    supply = np.zeros(n, np.int64)
    for _ in range(int(rng.integers(0, 4))):
        a, b, k = int(rng.integers(n)), int(rng.integers(n)), int(rng.integers(1, 20))
        supply[a] += k
        supply[b] -= k
    return n, tail, head, cap, cost, supply


def ortools(n, tail, head, cap, cost, supply):
    f = omcf.SimpleMinCostFlow()
    f.add_arcs_with_capacity_and_unit_cost(tail, head, cap, cost)
    f.set_nodes_supplies(np.arange(n), supply)
    status = f.solve()
    if status == f.OPTIMAL:
        return int(f.optimal_cost())
    if status == f.INFEASIBLE:
        return None
    raise RuntimeError(f"OR-Tools status {status}")


def main(count: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    bad = infeasible = 0
    for i in range(count):
        n, tail, head, cap, cost, supply = instance(rng)
        ref = ortools(n, tail, head, cap, cost, supply)
        try:
            got = min_cost_flow((tail, head), -supply, capacity=cap, cost=cost).cost
        except ValueError as e:
            got = None if "infeasible" in str(e) else e
        infeasible += ref is None
        if got != ref:
            bad += 1
            print(f"case {i}: ours {got!r}, OR-Tools {ref!r}: n={n} tail={tail.tolist()} head={head.tolist()} "
                  f"cap={cap.tolist()} cost={cost.tolist()} supply={supply.tolist()}")
    print(f"{count} networks ({infeasible} infeasible), {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 500, int(sys.argv[2]) if len(sys.argv) > 2 else 0))
