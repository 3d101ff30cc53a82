"""A/B of the GPU kernel folds of 2026-11-29 (issue 22): the same public GPU calls on two source trees, alternating
processes, best of 5 each (warm). ``python3 scripts/ab_gpu_folds.py OLD_SRC NEW_SRC [PROCESSES]`` (default 2 per
tree); prints each call's best and the median of the per-process bests. The min-cost flow call runs without the
device price update (``update_every=0``) where the tree has it, so both trees run the same algorithm."""

import json
import os
import statistics
import subprocess
import sys

CODE = r"""
import json, time
import numpy as np
import matchflow
from matchflow import generators
def best(f, k=5):
    f(); ts = []
    for _ in range(k):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return min(ts)
out = {}
A = generators.delaunay(1 << 18, seed=1)
out["matching gpr persistent (delaunay 2^18)"] = best(lambda: matchflow.bipartite_matching(A, method="push-relabel", backend="gpu"))
p = generators.netgen(1000, 8000, seed=1)
from matchflow.mcf import _gpu_cost_scaling as G
kw = {"update_every": 0} if hasattr(G, "UPDATE_EVERY") else {}
out["mcf persistent (netgen 10^3)"] = best(lambda: matchflow.min_cost_flow((p.tail, p.head), p.demand, capacity=p.cap, cost=p.cost, method="cost-scaling", backend="gpu", **kw), 3)
rng = np.random.default_rng(0)
src = rng.integers(0, 50, size=(512, 512)); snk = rng.integers(0, 50, size=(512, 512))
out["grid_cut gpu 512^2"] = best(lambda: matchflow.grid_cut(src, snk, 10, backend="gpu"))
print(json.dumps(out))
"""


def run(src: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and not p.endswith("src")]))
    r = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env)
    if r.returncode:
        raise SystemExit(r.stderr[-3000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    old, new = sys.argv[1], sys.argv[2]
    res = {"old": [], "new": []}
    for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 2):
        res["old"].append(run(old))
        res["new"].append(run(new))
    for k in res["old"][0]:
        o = min(r[k] for r in res["old"]) * 1e3
        n = min(r[k] for r in res["new"]) * 1e3
        mo = statistics.median(r[k] for r in res["old"]) * 1e3
        mn = statistics.median(r[k] for r in res["new"]) * 1e3
        print(f"{k:42s} best: old {o:9.2f} ms  new {n:9.2f} ms  new/old {n / o:5.2f}; median of processes: old "
              f"{mo:9.2f} new {mn:9.2f} new/old {mn / mo:5.2f}", flush=True)
