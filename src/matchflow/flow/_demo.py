"""The flow section of ``matchflow demo``: the shared-style DIMACS instances bundled with networkx's
tests are not in the wheel, so the demo cuts a small synthetic segmentation and a random network
next to SciPy's Dinic, each certified."""

from __future__ import annotations

import time

import numpy as np

__all__ = ["flow_demo"]


def flow_demo(con, quick: bool = False) -> int:
    """Print the flow table on a rich console; returns the number of failed certificates."""
    import scipy.sparse as sp
    from rich.table import Table
    from scipy.sparse.csgraph import maximum_flow as scipy_maximum_flow

    from .. import FlowNetwork
    from ._api import max_flow, maximum_flow
    from ._grid import grid_cut, grid_energy, potts_weights, unary_from_intensity
    from ._verify import verify_flow

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
