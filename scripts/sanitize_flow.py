"""Small inputs of every GPU flow kernel, for compute-sanitizer (memcheck, racecheck):

    compute-sanitizer --tool memcheck python3 scripts/sanitize_flow.py
    compute-sanitizer --tool racecheck python3 scripts/sanitize_flow.py
    compute-sanitizer --tool racecheck python3 scripts/sanitize_flow.py --csr-only    # general networks alone (both loops)
    compute-sanitizer --tool racecheck python3 scripts/sanitize_flow.py --grid-only   # grid cuts alone

Grid cuts in both layouts (``layout="linear"`` and ``"tiled"`` with 32-thread tiles). Public API only;
every answer checked against the CPU twin (exit 1 on a mismatch).
"""

import sys

import numpy as np

from matchflow import FlowNetwork
from matchflow.flow import grid_cut, grid_energy, max_flow, offsets, verify_flow

rng = np.random.default_rng(1)
bad = 0
GRID_ONLY = "--grid-only" in sys.argv[1:]
for dt in () if GRID_ONLY else ("int", "float"):
    n, m = 120, 600
    caps = rng.integers(0, 20, m) if dt == "int" else rng.random(m) * 20
    net = FlowNetwork(n, 0, n - 1, rng.integers(0, n, m), rng.integers(0, n, m), caps)
    for bs, loop in ((32, "persistent"), (64, "persistent"), (32, "host")):  # persistent: the whole solve, one launch
        r = max_flow(net, method="push-relabel", backend="gpu", block_size=bs, cycle=2, check_every=2, loop=loop,
                     relabel_freq=0.25)
        verify_flow(net, None, None, r)
        c = max_flow(net, backend="cpu")
        ok = abs(r.flow_value - c.flow_value) <= 1e-9 * max(1.0, abs(c.flow_value)) and r.stats["loop"] == loop
        bad += not ok
        print("network", dt, bs, loop, r.flow_value, c.flow_value, "rounds", r.stats["rounds"],
              "global relabels", r.stats["global_relabels"], "ok" if ok else "MISMATCH")
if "--csr-only" in sys.argv:
    print("mismatches:", bad)
    raise SystemExit(1 if bad else 0)
for conn, shape in ((4, (12, 14)), (8, (9, 10)), (6, (4, 5, 6)), (26, (3, 4, 4))):
    k = len(offsets(len(shape), conn))
    for dt in ("int", "float"):
        mk = (lambda s, hi: rng.integers(0, hi, s)) if dt == "int" else (lambda s, hi: rng.random(s) * hi)
        src, snk, edg = mk(shape, 30), mk(shape, 30), mk((k,) + shape, 12)
        tile = (2, 4, 4) if len(shape) == 3 else (4, 8)
        for loop, lay in (("persistent", {"layout": "linear", "block_size": 32}), ("host", {"layout": "linear",
                          "block_size": 32}), ("persistent", {"layout": "tiled", "tile": tile, "tile_passes": 2}),
                          ("host", {"layout": "tiled", "tile": tile, "tile_passes": 2})):
            r = grid_cut(src, snk, edg, connectivity=conn, backend="gpu", cycle=2, check_every=2, loop=loop, **lay)
            c = grid_cut(src, snk, edg, connectivity=conn, backend="cpu")
            e = grid_energy(r.labels, src, snk, edg, connectivity=conn)
            ok = abs(r.flow_value - c.flow_value) <= 1e-9 * max(1.0, c.flow_value) and abs(e - r.flow_value) <= 1e-6
            bad += not ok
            print("grid", conn, shape, dt, loop, lay["layout"], r.flow_value, c.flow_value, "rounds", r.stats["rounds"],
                  r.stats.get("certified"), "ok" if ok else "MISMATCH")
    # a batch of 3 grids: one solve, the items an outer axis with no neighbours across it
    b_src, b_snk, b_edg = rng.integers(0, 30, (3,) + shape), rng.integers(0, 30, (3,) + shape), \
        rng.integers(0, 12, (3, k) + shape)
    for loop, layout in (("persistent", "linear"), ("host", "linear"), ("persistent", "tiled"), ("host", "tiled")):
        r = grid_cut(b_src, b_snk, b_edg, connectivity=conn, backend="gpu", block_size=64, cycle=2, loop=loop,
                     layout=layout)
        c = grid_cut(b_src, b_snk, b_edg, connectivity=conn, backend="cpu")
        ok = np.array_equal(r.flow_value, c.flow_value)
        bad += not ok
        print("batch", conn, shape, loop, layout, r.flow_value.tolist(), "ok" if ok else "MISMATCH")
try:
    import cupy

    s = cupy.asarray(rng.integers(0, 30, (10, 11)))
    r = grid_cut(s, s[::-1].copy(), cupy.asarray(rng.integers(0, 9, (4, 10, 11))), connectivity=4, backend="gpu",
                 block_size=32)
    print("cupy input", r.flow_value, type(r.labels).__module__)
except ImportError:
    print("cupy: not installed")
print("mismatches:", bad)
raise SystemExit(1 if bad else 0)
