"""Small inputs of the GPU min-cost flow kernels (cost scaling, :mod:`matchflow.mcf._gpu_cost_scaling_kernels`), for
compute-sanitizer (memcheck, racecheck, synccheck):

    compute-sanitizer --tool memcheck python3 scripts/sanitize_mcf.py
    compute-sanitizer --tool racecheck python3 scripts/sanitize_mcf.py
    NUMBA_ENABLE_CUDASIM=1 python3 scripts/sanitize_mcf.py --quick       # the simulator: fewer inputs

Public API only (``min_cost_flow``, ``max_flow_min_cost``, ``transport`` with ``backend="gpu"``); both loops
(host rounds, the persistent cooperative kernel), tiny and default block sizes, one push pass per round and a host
read each round as well as the defaults; every answer
certified (``verify_min_cost_flow``), from the GPU (no ``gpu_fallback``) and equal in cost to the CPU twin (exit 1
on a mismatch).
"""

import sys

import numpy as np

from matchflow import max_flow_min_cost, min_cost_flow, transport
from matchflow.generators import netgen
from matchflow.verify import verify_min_cost_flow

QUICK = "--quick" in sys.argv[1:]
rng = np.random.default_rng(5)
bad = 0


def check(name, tail, head, demand, cap, cost, **kw):
    global bad
    r = min_cost_flow((tail, head), demand, capacity=cap, cost=cost, backend="gpu", **kw)
    c = min_cost_flow((tail, head), demand, capacity=cap, cost=cost, method="cost-scaling", backend="cpu")
    problems = verify_min_cost_flow((tail, head), demand, r, capacity=cap, cost=cost)
    ok = r.cost == c.cost and not problems and r.backend == "gpu" and "gpu_fallback" not in r.stats
    bad += not ok
    print(name, kw, r.cost, c.cost, "rounds", r.stats.get("rounds"), "pushes", r.stats.get("pushes"),
          r.stats.get("gpu_fallback", ""), problems[:1], "ok" if ok else "MISMATCH")


for n, m in ((6, 20), (12, 50)) if QUICK else ((6, 20), (12, 50), (40, 200), (120, 700)):
    t, h = rng.integers(0, n, m), rng.integers(0, n, m)
    cap = rng.integers(0, 20, m)
    f = rng.integers(0, cap + 1)
    d = np.zeros(n, np.int64)
    np.add.at(d, h, f)
    np.subtract.at(d, t, f)
    cost = rng.integers(-20, 50, m)
    for kw in ({"block_size": 1, "cycle": 1, "check_every": 1}, {"block_size": 32}, {},
               {"loop": "persistent", "block_size": 32, "cycle": 1}, {"loop": "persistent"},
               {"loop": "persistent", "block_size": 32, "update_every": 1}):
        check(f"random n={n} m={m}", t, h, d, cap, cost, **kw)
if not QUICK:
    p = netgen(300, 2400, seed=7)
    for kw in ({"block_size": 32, "cycle": 1}, {}, {"loop": "persistent", "block_size": 64}):
        check("netgen 300", p.tail, p.head, p.demand, p.cap, p.cost, **kw)
tail, head = np.array([0, 0, 1, 2, 1]), np.array([1, 2, 3, 3, 2])
r = max_flow_min_cost((tail, head), 0, 3, capacity=[3, 2, 2, 3, 1], cost=[1, 5, 1, 1, 1], backend="gpu", block_size=2)
ok = (r.flow_value, r.cost) == (5, 19) and r.backend == "gpu"
bad += not ok
print("max_flow_min_cost", r.flow_value, r.cost, "ok" if ok else "MISMATCH")
C = rng.integers(0, 100, (5, 6))
a, b = np.array([4, 2, 6, 3, 3]), np.array([3, 3, 3, 3, 3, 3])
g, c = transport(a, b, C, backend="gpu", block_size=4), transport(a, b, C, backend="cpu")
ok = g.cost == c.cost and g.backend == "gpu"
bad += not ok
print("transport 5x6", g.cost, c.cost, "ok" if ok else "MISMATCH")
print("mismatches:", bad)
raise SystemExit(1 if bad else 0)
