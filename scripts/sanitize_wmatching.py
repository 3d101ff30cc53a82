"""compute-sanitizer target for the weighted-matching GPU kernels (GPU-Suitor, every variant and loop; GPU-LD)
on small inputs, through the public entry point; each result is checked against the CPU twin.

    compute-sanitizer --tool memcheck python3 scripts/sanitize_wmatching.py
    compute-sanitizer --tool racecheck python3 scripts/sanitize_wmatching.py
"""

import numpy as np

import matchflow as mf

rng = np.random.default_rng(5)
n, m = 300, 1500
u, v = rng.integers(0, n, m), rng.integers(0, n, m)
graphs = {"random": mf.Graph.from_edges(u, v, rng.integers(1, 6, m), n=n),  # many ties
          "star": mf.Graph.from_edges(np.zeros(200, np.int64), np.arange(1, 201), np.ones(200), n=201)}
bad = 0
for name, g in graphs.items():
    want = mf.weighted_matching(g, method="suitor", backend="cpu").mate
    for variant in ("nosync", "synclb", "syncnolb", "hybrid"):
        for loop in ("persistent", "host"):
            res = mf.weighted_matching(g, method="suitor", backend="gpu", variant=variant, loop=loop, block_size=64,
                                       vertices_per_warp=4, lb_iters=1)
            ok = np.array_equal(res.mate, want)
            bad += not ok
            print(name, variant, loop, "rounds", res.stats["rounds"], "equal" if ok else "DIFFERENT")
    res = mf.weighted_matching(g, method="ld", backend="gpu", block_size=32)
    bad += not np.array_equal(res.mate, want)
    print(name, "ld rounds", res.stats["rounds"], "equal" if np.array_equal(res.mate, want) else "DIFFERENT")
print("mismatches", bad)
raise SystemExit(1 if bad else 0)
