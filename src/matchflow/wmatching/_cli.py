"""``matchflow wmatch FILE``: ½-approximate maximum-weight matching of a graph or matrix file."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from .._cli_out import emit

__all__ = ["add_parser"]


def add_parser(sub) -> None:
    from ._api import METHODS

    s = sub.add_parser("wmatch", help="1/2-approximate maximum-weight matching (Suitor / LD) of a graph file")
    s.add_argument("file", type=Path, help=".mtx[.gz] (entries are weights), .graph (METIS), edge list")
    s.add_argument("--method", default="auto", help="one of: " + ", ".join(METHODS))
    s.add_argument("--backend", default="auto", choices=("auto", "cpu", "gpu"))
    s.add_argument("--improve", action="store_true", help="local search by length-3 augmentations")
    s.add_argument("--out", "-o", type=Path, help="write the matched pairs 'u v weight' (1-based)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import io
    from ._api import weighted_matching
    from ._verify import verify_weighted_matching

    t0 = time.perf_counter()
    data = io.read(args.file)
    t_read = time.perf_counter() - t0
    res = weighted_matching(data, method=args.method, backend=args.backend, improve=args.improve)
    rep = verify_weighted_matching(data, res)
    out = {"file": str(args.file), "n": len(res.mate), "weight": res.weight, "cardinality": res.cardinality,
           "method": res.method, "backend": res.backend, "seconds": res.seconds, "read_seconds": t_read,
           "valid": rep.valid, "half_approximate": rep.half_approximate, "upper_bound": rep.upper_bound,
           "stats": res.stats}
    if args.out:
        from ._api import as_weighted_graph

        g, _ = as_weighted_graph(data)
        rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
        wmap = {(int(a), int(b)): g.weights[k] for k, (a, b) in enumerate(zip(rows, g.indices)) if a < b
                and res.mate[a] == b}
        with open(args.out, "w") as f:
            f.write(f"% matched pairs (1-based) and weights, total {res.weight}\n")
            for a, b in res.edges.tolist():
                f.write(f"{a + 1} {b + 1} {wmap[(a, b)]}\n")
        out["written"] = str(args.out)
    cert = "1/2 certificate holds" if rep.half_approximate else "; ".join(rep.problems) or "valid"
    emit(out, args.json, f"{args.file}: n = {out['n']}", [
        ("weight", f"{res.weight!r}  (cardinality {res.cardinality})"),
        ("method", f"{res.method} on {res.backend}, {res.seconds:.4g} s"),
        ("certificate", f"valid={rep.valid}, {cert}; optimum <= {rep.upper_bound!r} (ratio >= {rep.ratio:.4f})"),
    ])
    return 0 if rep.valid else 1
