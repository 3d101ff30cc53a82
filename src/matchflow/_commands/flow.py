"""``matchflow flow FILE.max``: maximum flow and minimum cut of a DIMACS network, certified; the demo's flow
table (the DIMACS instances bundled with networkx's tests are not in the wheel, so the demo cuts a small
synthetic segmentation and a random network next to SciPy's Dinic, each certified)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from rich.table import Table
from scipy.sparse.csgraph import maximum_flow as scipy_maximum_flow

from .. import FlowNetwork, io
from ..flow import (
    METHODS,
    grid_cut,
    grid_energy,
    max_flow,
    maximum_flow,
    potts_weights,
    unary_from_intensity,
    verify_flow,
)
from ._common import add_command

__all__ = ["add_parser", "demo_section"]


def add_parser(sub) -> None:
    """Register ``flow`` on the CLI's subparsers."""
    s = add_command(sub, "flow", "maximum s-t flow and minimum cut of a DIMACS .max network",
                    "DIMACS max-flow file (.max, optionally .gz)", METHODS, backends=("auto", "cpu"))
    s.add_argument("--out", "-o", type=Path, help="write the flow in the DIMACS solution format "
                                                  "('s VALUE', then 'f u v flow' per arc with nonzero flow, 1-based)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    net = io.read(args.file)
    t1 = time.perf_counter()
    try:
        r = max_flow(net, method=args.method, backend=args.backend)
    except OverflowError as exc:
        raise ValueError(str(exc)) from None
    t2 = time.perf_counter()
    verify_flow(net, None, None, r)
    t3 = time.perf_counter()
    if args.out is not None:
        nz = r.flow != 0
        lines = [f"s {r.flow_value}"] + [f"f {u + 1} {v + 1} {f}" for u, v, f in
                                         zip(net.tails[nz], net.heads[nz], r.flow[nz], strict=True)]
        args.out.write_text("\n".join(lines) + "\n")
    out = {"file": str(args.file), "nodes": net.n, "arcs": net.m, "flow_value": r.flow_value,
           "source_side": int(r.source_side.sum()), "cut_edges": len(r.cut_edges), "method": r.method,
           "backend": r.backend, "certificate": "verified (max-flow = min-cut)", "stats": r.stats,
           "seconds": {"read": t1 - t0, "solve": r.seconds, "verify": t3 - t2}}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{args.file.name}: {net.n} nodes, {net.m} arcs; max flow {r.flow_value} ({r.method}, {r.backend}); "
              f"min cut: {len(r.cut_edges)} arcs, {out['source_side']} nodes on the source side; "
              f"certificate verified; solve {r.seconds:.4f} s, read {t1 - t0:.4f} s")
    return 0


def demo_section(con, *, quick: bool = False, backend: str = "auto") -> int:
    """Print the flow table on a rich console (CPU only); returns the number of failed certificates."""
    with con.status("compiling the flow kernels (first run only) ..."):
        max_flow(FlowNetwork(3, 0, 2, [0, 1], [1, 2], [1, 1]))
    t = Table(title="Maximum flow / minimum cut (times in ms)")
    for col in ("input", "nodes", "arcs", "max flow", "SciPy Dinic", "matchflow", "speed-up", "certificate"):
        t.add_column(col, justify="left" if col in ("input", "certificate") else "right")
    failures = 0
    rng = np.random.default_rng(1)
    for n in ((500,) if quick else (500, 2000)):
        m = 8 * n
        net = FlowNetwork(n, 0, n - 1, rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 100, m))
        a = sp.csr_array(net.to_scipy().astype(np.int32))
        t0 = time.perf_counter()
        ref = scipy_maximum_flow(a, 0, n - 1).flow_value
        t1 = time.perf_counter()
        ours = maximum_flow(a, 0, n - 1).flow_value
        t2 = time.perf_counter()
        r = max_flow(net)
        ok = ref == ours == r.flow_value and verify_flow(net, None, None, r)
        failures += not ok
        t.add_row(f"random n={n}", str(n), str(m), str(ref), f"{1e3 * (t1 - t0):.2f}", f"{1e3 * (t2 - t1):.2f}",
                  f"{(t1 - t0) / max(t2 - t1, 1e-9):.1f}x", "[green]verified[/]" if ok else "[red]FAILED[/]")
    side = 64 if quick else 128
    img = np.zeros((side, side))
    img[side // 4: 3 * side // 4, side // 5: 4 * side // 5] = 1.0
    img += rng.normal(0, 0.4, img.shape)
    src, snk = unary_from_intensity(img, fg_mean=1.0, bg_mean=0.0, sigma=0.4)
    w = potts_weights(img, connectivity=8, lam=1.5)
    g = grid_cut(src, snk, w, connectivity=8)
    ok = abs(grid_energy(g.labels, src, snk, w, connectivity=8) - g.flow_value) <= 1e-9 * max(1.0, g.flow_value)
    failures += not ok
    t.add_row(f"segmentation {side}x{side}, 8-conn.", str(side * side + 2), "-", f"{g.flow_value:.2f}", "-",
              f"{1e3 * g.seconds:.2f}", "-", "[green]energy = cut[/]" if ok else "[red]FAILED[/]")
    con.print(t)
    con.print("matchflow = the SciPy drop-in matchflow.maximum_flow (push-relabel, CPU); the segmentation row is "
              "matchflow.grid_cut (Boykov-Kolmogorov, build + solve; SciPy has no float max-flow).")
    return failures
