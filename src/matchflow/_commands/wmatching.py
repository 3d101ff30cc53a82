"""``matchflow wmatch FILE``: ½-approximate maximum-weight matching of a graph or matrix file; the demo's
weighted-matching table."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from rich.table import Table

from .. import io
from ..verify import verify_weighted_matching
from ..wmatching import weighted_matching
from ..wmatching._api import METHODS, as_weighted_graph
from ..wmatching._methods import TABLE
from ._common import add_command, data_path, emit

__all__ = ["add_parser", "demo_section"]

DEMO_GRAPHS = ("power", "airfoil1", "hep-th", "fe_4elt2")


def add_parser(sub) -> None:
    """Register ``wmatch`` on the CLI's subparsers."""
    s = add_command(sub, "wmatch", "1/2-approximate maximum-weight matching (Suitor / LD) of a graph file",
                    ".mtx[.gz] (entries are weights), .graph (METIS), edge list", METHODS)
    s.add_argument("--improve", action="store_true", help="local search by length-3 augmentations")
    s.add_argument("--out", "-o", type=Path, help="write the matched pairs 'u v weight' (1-based)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    data = io.read(args.file)
    t_read = time.perf_counter() - t0
    res = weighted_matching(data, method=args.method, backend=args.backend, improve=args.improve)
    rep = verify_weighted_matching(data, res)
    out = {"file": str(args.file), "n": len(res.mate), "weight": res.weight, "cardinality": res.cardinality,
           "method": res.method, "backend": res.backend, "seconds": res.seconds, "seconds_read": t_read,
           "valid": rep.valid, "half_approximate": rep.half_approximate, "upper_bound": rep.upper_bound,
           "stats": res.stats}
    if args.out:
        _write_pairs(args.out, data, res)
        out["written"] = str(args.out)
    cert = "1/2 certificate holds" if rep.half_approximate else "; ".join(rep.problems) or "valid"
    emit(out, args.json, f"{args.file}: n = {out['n']}", [
        ("weight", f"{res.weight!r}  (cardinality {res.cardinality})"),
        ("method", f"{res.method} on {res.backend}, {res.seconds:.4g} s"),
        ("certificate", f"valid={rep.valid}, {cert}; optimum <= {rep.upper_bound!r} (ratio >= {rep.ratio:.4f})"),
    ])
    return 0 if rep.valid else 1


def _write_pairs(path: Path, data, res) -> None:
    """The matched pairs ``u v weight`` (1-based) under a comment line with the total."""
    g, _ = as_weighted_graph(data)
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    wmap = {(int(a), int(b)): g.weights[k] for k, (a, b) in enumerate(zip(rows, g.indices)) if a < b
            and res.mate[a] == b}
    with open(path, "w") as f:
        f.write(f"% matched pairs (1-based) and weights, total {res.weight}\n")
        for a, b in res.edges.tolist():
            f.write(f"{a + 1} {b + 1} {wmap[(a, b)]}\n")


def demo_section(con, *, quick: bool = False, backend: str = "auto") -> int:
    """Every CPU row of the table (suitor, LD, greedy) on bundled graphs with seeded integer weights 1..1000; returns the failures.
    (No weighted real graph is bundled: the road graphs with real weights live in the shared data.)"""
    methods = TABLE.cpu_names
    warm = sp.csr_array(np.array([[0, 2.0], [2.0, 0]]))
    for m in methods:
        weighted_matching(warm, method=m, backend="cpu")
    t = Table(title="1/2-approximate maximum-weight matching (seeded integer weights 1..1000; times in ms)")
    for col in ("input", "edges", "weight", *methods, "optimum <=", "certificate"):
        t.add_column(col, justify="left" if col in ("input", "certificate") else "right")
    failures = 0
    for name in DEMO_GRAPHS[:2] if quick else DEMO_GRAPHS:
        a = sp.coo_array(io.read(str(data_path(name))))
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
