"""``matchflow match FILE``: maximum-cardinality bipartite matching, certified; the demo's matching table."""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp
from rich.table import Table
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

import matchflow

from .. import io, verify
from .._graph import as_bipartite
from ..matching._api import CPU_METHODS, INIT_CHOICES, METHODS
from ._common import (
    COMPILING,
    Progress,
    add_command,
    add_pairs_out,
    data_path,
    demo_methods,
    fail,
    finish,
    report_dict,
    report_get,
    timed,
    times,
)

__all__ = ["add_parser", "demo_section"]

DEMO_GRAPHS = ("power", "airfoil1", "hep-th", "fe_4elt2", "80BAU3B", "CYCLE")
# maximum matchings listed in data/README.md (computed with SciPy)
KNOWN_MAX = {"power": 4366, "airfoil1": 4253, "hep-th": 7136, "fe_4elt2": 11143, "80BAU3B": 2237, "CYCLE": 1828}


def add_parser(sub) -> None:
    """Register ``match`` on the CLI's subparsers."""
    s = add_command(sub, "match", "maximum-cardinality bipartite matching of a matrix or graph file",
                    ".mtx[.gz], .graph (METIS), edge list (.el/.edges/.txt)", METHODS)
    s.add_argument("--init", default="auto", help="initial matching, one of: " + ", ".join(INIT_CHOICES))
    s.add_argument("--explicit-zeros", action="store_true", help="stored zeros are edges (SciPy csgraph convention)")
    s.add_argument("--index-base", default="auto", type=_index_base, metavar="{auto,0,1}",
                   help="index base of an edge-list input (default auto: the file's header, else 1 when the "
                        "smallest id is 1); other formats fix their own")
    s.add_argument("--option", "-O", action="append", metavar="KEY=VALUE", help="solver option, repeatable")
    add_pairs_out(s)
    s.set_defaults(func=run)


def _index_base(v: str):
    if v in ("auto", "0", "1"):
        return v if v == "auto" else int(v)
    raise argparse.ArgumentTypeError(f"must be auto, 0 or 1, got {v!r}")


def _options(pairs: list[str] | None) -> dict:
    options = {}
    for kv in pairs or []:
        if "=" not in kv:
            raise ValueError(f"--option must be KEY=VALUE, got {kv!r}")
        k, v = kv.split("=", 1)
        options[k] = _parse_value(v)
    return options


def _parse_value(v: str):
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    if v.lower() in ("true", "false"):
        return v.lower() == "true"
    return v


def _tiny_pattern():
    """A tiny 3 x 3 bipartite pattern (int32 indices): the warm-up input."""
    return sp.csr_array(np.array([[1, 1, 0], [0, 1, 1], [1, 0, 0]], dtype=np.int8))


def run(args: argparse.Namespace) -> int:
    t_start = time.perf_counter()
    prog = Progress(args.quiet)
    try:
        options = _options(args.option)
    except ValueError as exc:
        return fail(str(exc))
    with prog.phase(f"reading {args.file}"):
        t0 = time.perf_counter()
        data = io.read(args.file, index_base=args.index_base)
        if not (hasattr(data, "shape") or isinstance(data, matchflow.Graph)):
            return fail(f"{args.file} holds a {type(data).__name__}, not a matrix or graph; "
                        "'match' needs a matrix (.mtx), a METIS graph or an edge list")
        graph = as_bipartite(data, "the input", explicit_zeros=args.explicit_zeros)  # once, for solve and verify
        t_read = time.perf_counter() - t0
    kw = dict(method=args.method, backend=args.backend, init=args.init, **options)
    with prog.phase(COMPILING):  # the same kernels on a tiny input: compile or load them once, untimed
        _, t_warm = timed(matchflow.bipartite_matching, _tiny_pattern(), **kw)
    with prog.phase(f"matching ({args.method}, backend {args.backend})"):
        res = matchflow.bipartite_matching(graph, **kw)
    with prog.phase("verifying the König certificate"):
        report, t_verify = timed(matchflow.verify.verify_matching, graph, res)
    n_rows, n_cols = res.shape
    out = {
        "file": str(args.file),
        "shape": [n_rows, n_cols],
        "cardinality": int(res.cardinality),
        "deficiency": int(res.deficiency),
        "structural_rank_full": bool(res.deficiency == 0),
        "method": res.method,
        "backend": res.backend,
        "init": res.init,
        "init_cardinality": None if res.init_cardinality is None else int(res.init_cardinality),
        **times(res.seconds, t_read, t_warm, t_verify),
        "certificate": report_dict(report),
        "stats": res.stats,
    }
    if args.out:
        with prog.phase(f"writing {args.out}"):
            io.write_matching(args.out, res, index_base=args.out_index_base,
                              comment=f"maximum matching of {args.file} by matchflow {matchflow.__version__}")
    initial = None if res.init_cardinality is None else ("initial", f"{res.init_cardinality} ({res.init})")
    return finish(args, out, t_start, f"{args.file}: {n_rows} x {n_cols}", [
        ("cardinality", res.cardinality),
        ("deficiency", f"{res.deficiency}  (min(n_rows, n_cols) - cardinality)"),
        initial,
        ("method", f"{res.method} on {res.backend}"),
    ], report)


def demo_section(con, *, quick: bool = False, backend: str = "auto") -> int:
    """Every matching method on the bundled real graphs next to SciPy; returns the number of failures."""
    methods = demo_methods(CPU_METHODS, "gpr", backend)
    with con.status("compiling the matching kernels (first run only) ..."):
        warm = sp.random(30, 40, density=0.1, random_state=0, format="csr")
        matchflow.maximum_bipartite_matching(warm)
        for m, b in methods:
            matchflow.bipartite_matching(warm, method=m, backend=b)
    t = Table(title="Maximum-cardinality bipartite matching on bundled real inputs (times in ms)")
    cols = ["input", "shape", "nnz", "max matching", "SciPy", "drop-in", "speed-up"]
    cols += [f"{m} ({b})" for m, b in methods] + ["König certificate"]
    for col in cols:
        t.add_column(col, justify="left" if col in ("input", "König certificate") else "right")
    failures = 0
    for name in DEMO_GRAPHS[:3] if quick else DEMO_GRAPHS:
        a = sp.csr_array(io.read(str(data_path(name))).tocsr())
        ref, t_ref = timed(scipy_mbm, a, perm_type="column")
        ours, t_ours = timed(matchflow.maximum_bipartite_matching, a, perm_type="column")
        card = int((ref >= 0).sum())
        ok = card == KNOWN_MAX[name] == int((ours >= 0).sum())
        row = [name, f"{a.shape[0]}x{a.shape[1]}", str(a.nnz), str(card), f"{1e3 * t_ref:.2f}",
               f"{1e3 * t_ours:.2f}", f"{t_ref / max(t_ours, 1e-9):.1f}x"]
        for m, b in methods:
            res = matchflow.bipartite_matching(a, method=m, backend=b)
            rep = verify.verify_matching(a, res, raise_on_error=False)
            ok &= bool(report_get(rep, "valid") and report_get(rep, "maximum")) and res.cardinality == card
            row.append(f"{1e3 * res.seconds:.2f}")
        failures += not ok
        row.append("[green]verified[/]" if ok else "[red]FAILED[/]")
        t.add_row(*row)
    con.print(t)
    con.print("drop-in = matchflow.maximum_bipartite_matching (same call as SciPy); method columns = "
              "matchflow.bipartite_matching (default start + solver + König cover).")
    return failures
