"""compute-sanitizer target for the weighted-matching GPU kernels (GPU-Suitor, every variant and loop, with
and without the hub pass; GPU-LD; the device keys / symmetry check of a scipy.sparse input; a dense device
input with its pairs) on small inputs, through the public entry point; each result is checked against the
CPU twin.

    compute-sanitizer --tool memcheck python3 scripts/sanitize_wmatching.py
    compute-sanitizer --tool racecheck python3 scripts/sanitize_wmatching.py   (SANITIZE_SMALL=1: a subset)
"""

import os

import numpy as np
from numba import cuda

import matchflow as mf

rng = np.random.default_rng(5)
n, m = 300, 1500
u, v = rng.integers(0, n, m), rng.integers(0, n, m)
graphs = {"random": mf.Graph.from_edges(u, v, rng.integers(1, 6, m), n=n),  # many ties
          "star": mf.Graph.from_edges(np.zeros(200, np.int64), np.arange(1, 201), np.ones(200), n=201),
          "floats": mf.Graph.from_edges(u, v, rng.random(m), n=n)}  # keys by a rank
SMALL = os.environ.get("SANITIZE_SMALL", "") == "1"  # racecheck: one graph, the two variants with barriers
if SMALL:
    graphs = {"random": graphs["random"]}
bad = 0


def same(res, want, label):
    global bad
    ok = np.array_equal(res, want)
    bad += not ok
    print(label, "equal" if ok else "DIFFERENT")


for name, g in graphs.items():
    want = mf.weighted_matching(g, method="suitor", backend="cpu").mate
    for variant in ("synclb", "hybrid") if SMALL else ("nosync", "synclb", "syncnolb", "hybrid"):
        for loop in ("persistent", "host"):
            for hub in (0, 8):
                res = mf.weighted_matching(g, method="suitor", backend="gpu", variant=variant, loop=loop,
                                           block_size=64, vertices_per_warp=4, lb_iters=1, hub_degree=hub)
                same(res.mate, want, f"{name} {variant} {loop} hub={hub} rounds {res.stats['rounds']}")
    res = mf.weighted_matching(g, method="ld", backend="gpu", block_size=32)
    same(res.mate, want, f"{name} ld rounds {res.stats['rounds']}")
    a = g.to_scipy()  # a canonical scipy input: keys and the symmetry check on the device
    same(mf.weighted_matching(a, method="suitor", backend="gpu").mate, want, f"{name} scipy")
    d = a.toarray()
    res = mf.weighted_matching(cuda.to_device(d), method="suitor", backend="gpu")  # dense device input
    same(res.mate.copy_to_host(), want, f"{name} device dense")
d[0, 1] += 1.0  # asymmetric: the device check refuses it, the host path runs
same(mf.weighted_matching(cuda.to_device(d), method="suitor", backend="gpu").mate.copy_to_host(),
     mf.weighted_matching(d, method="suitor", backend="cpu").mate, "asymmetric device dense")
print("mismatches", bad)
raise SystemExit(1 if bad else 0)
