"""The weighted-matching section of ``matchflow demo``."""

from __future__ import annotations

__all__ = ["demo_section"]

DEMO_GRAPHS = ("power", "airfoil1", "hep-th", "fe_4elt2")


def demo_section(con, quick: bool) -> int:
    """Suitor / LD / greedy on bundled graphs with seeded integer weights 1..1000; returns the failures.
    (No weighted real graph is bundled: the road graphs with real weights live in the shared data.)"""
    import numpy as np
    import scipy.sparse as sp
    from rich.table import Table

    from .. import io
    from ..demo import _data_path
    from ._api import weighted_matching
    from ._verify import verify_weighted_matching

    methods = ("suitor", "ld", "greedy")
    warm = sp.csr_array(np.array([[0, 2.0], [2.0, 0]]))
    for m in methods:
        weighted_matching(warm, method=m, backend="cpu")
    t = Table(title="1/2-approximate maximum-weight matching (seeded integer weights 1..1000; times in ms)")
    for col in ("input", "edges", "weight", *methods, "optimum <=", "certificate"):
        t.add_column(col, justify="left" if col in ("input", "certificate") else "right")
    failures = 0
    for name in DEMO_GRAPHS[:2] if quick else DEMO_GRAPHS:
        a = sp.coo_array(io.read(str(_data_path(name))))
        r, c = a.coords
        keep = r < c
        r, c = r[keep], c[keep]
        w = np.random.default_rng(7).integers(1, 1001, size=len(r))
        g = sp.csr_array((np.concatenate([w, w]), (np.concatenate([r, c]), np.concatenate([c, r]))), shape=a.shape)
        res = [weighted_matching(g, method=m, backend="cpu") for m in methods]
        rep = verify_weighted_matching(g, res[0])
        ok = bool(rep) and all(np.array_equal(x.mate, res[0].mate) for x in res)
        failures += not ok
        t.add_row(name, str(len(r)), f"{res[0].weight:.0f}", *(f"{1e3 * x.seconds:.2f}" for x in res),
                  f"{rep.upper_bound:.0f} ({rep.ratio:.3f})", "[green]verified[/]" if ok else "[red]FAILED[/]")
    con.print(t)
    con.print("matchflow.weighted_matching: every method returns the same (greedy) matching; the certificate "
              "bounds the optimum (ratio = weight / bound >= 1/2).")
    return failures
