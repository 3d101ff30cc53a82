"""Command-line interface: ``matchflow info | match | assign | demo``.

Run ``matchflow COMMAND --help`` (or ``python -m matchflow COMMAND --help``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = ["main"]


# --------------------------------------------------------------------------- progress
class _Progress:
    """Phase-by-phase progress on stderr: a live spinner with elapsed time (rich) when
    stderr is a terminal, plain timestamped lines otherwise, nothing with --quiet."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet
        self.console = None
        if not quiet:
            try:
                from rich.console import Console

                self.console = Console(stderr=True)
            except Exception:  # pragma: no cover - rich is a dependency
                self.console = None

    @contextlib.contextmanager
    def phase(self, text: str) -> Iterator[None]:
        t0 = time.perf_counter()
        if self.quiet:
            yield
            return
        if self.console is not None and self.console.is_terminal:
            with self.console.status(f"{text} ...", spinner="dots"):
                yield
            self.console.print(f"[green]done[/] {text} ({time.perf_counter() - t0:.2f} s)")
        else:
            print(f"[matchflow] {text} ...", file=sys.stderr, flush=True)
            yield
            print(f"[matchflow] {text}: {time.perf_counter() - t0:.2f} s", file=sys.stderr, flush=True)


def _fail(msg: str) -> int:
    print(f"matchflow: error: {msg}", file=sys.stderr)
    return 2


# --------------------------------------------------------------------------- commands
def _cmd_info(args: argparse.Namespace) -> int:
    import matchflow

    if args.json:
        print(json.dumps(matchflow.info(as_dict=True), indent=1, default=str))
    else:
        print(matchflow.info())
    return 0


def _cmd_match(args: argparse.Namespace) -> int:
    import matchflow
    from matchflow import io

    prog = _Progress(args.quiet)
    with prog.phase(f"reading {args.file}"):
        data = io.read(args.file)
    if isinstance(data, matchflow.Graph):
        data = data.to_scipy()
    elif not hasattr(data, "shape"):
        return _fail(f"{args.file} holds a {type(data).__name__}, not a matrix or graph; "
                     "'match' needs a matrix (.mtx), a METIS graph or an edge list")
    options = {}
    for kv in args.option or []:
        if "=" not in kv:
            return _fail(f"--option must be KEY=VALUE, got {kv!r}")
        k, v = kv.split("=", 1)
        options[k] = _parse_value(v)
    with prog.phase(f"matching ({args.method}, backend {args.backend})"):
        res = matchflow.bipartite_matching(
            data, method=args.method, backend=args.backend, init=args.init,
            explicit_zeros=args.explicit_zeros, **options,
        )
    with prog.phase("verifying the König certificate"):
        report = matchflow.verify.verify_matching(data if not args.explicit_zeros else
                                                  matchflow._graph.as_bipartite(data, explicit_zeros=True), res)
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
        "seconds": res.seconds,
        "certificate": _report_dict(report),
        "stats": res.stats,
    }
    if args.out:
        with prog.phase(f"writing {args.out}"):
            io.write_matching(args.out, res)
        out["written"] = str(args.out)
    if args.json:
        print(json.dumps(out, indent=1, default=str))
    else:
        print(f"{args.file}: {n_rows} x {n_cols}")
        print(f"  cardinality   {res.cardinality}")
        print(f"  deficiency    {res.deficiency}  (min(n_rows, n_cols) - cardinality)")
        if res.init_cardinality is not None:
            print(f"  initial       {res.init_cardinality} ({res.init})")
        print(f"  method        {res.method} on {res.backend}")
        print(f"  time          {res.seconds:.4f} s")
        print(f"  certificate   {_report_text(report)}")
        if args.out:
            print(f"  written to    {args.out}")
    return 0


def _cmd_assign(args: argparse.Namespace) -> int:
    import numpy as np

    import matchflow
    from matchflow.assignment._api import read_cost_matrix

    prog = _Progress(args.quiet)
    with prog.phase(f"reading {args.file}"):
        cost = read_cost_matrix(args.file)
    with prog.phase(f"solving ({args.method}, backend {args.backend})"):
        res = matchflow.assignment(cost, maximize=args.maximize, method=args.method, backend=args.backend)
    with prog.phase("verifying optimality from the duals"):
        report = matchflow.verify.verify_assignment(cost, res, maximize=args.maximize)
    if args.out:
        with prog.phase(f"writing {args.out}"):
            np.savetxt(args.out, np.column_stack([res.row_ind, res.col_ind]), fmt="%d",
                       header=f"matchflow assignment of {args.file}: row col (0-based); total cost {res.cost}")
    out = {
        "file": str(args.file), "shape": list(np.shape(cost)), "cost": res.cost, "n_assigned": len(res.row_ind),
        "maximize": args.maximize, "method": res.method, "backend": res.backend, "seconds": res.seconds,
        "certificate": _report_dict(report), "stats": res.stats,
    }
    if args.json:
        print(json.dumps(out, indent=1, default=str))
    else:
        print(f"{args.file}: {np.shape(cost)[0]} x {np.shape(cost)[1]}")
        print(f"  total cost    {res.cost}  ({'maximised' if args.maximize else 'minimised'})")
        print(f"  assigned      {len(res.row_ind)} pairs")
        print(f"  method        {res.method} on {res.backend}")
        print(f"  time          {res.seconds:.4f} s")
        print(f"  certificate   {_report_text(report)}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(quick=args.quick, backend=args.backend)


# --------------------------------------------------------------------------- helpers
def _parse_value(v: str):
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    if v.lower() in ("true", "false"):
        return v.lower() == "true"
    return v


def _report_dict(report) -> dict:
    if isinstance(report, dict):
        return report
    if hasattr(report, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(report)
    return {"report": str(report)}


def _report_text(report) -> str:
    d = _report_dict(report)
    ok = d.get("valid", d.get("ok"))
    opt = d.get("maximum", d.get("optimal"))
    if ok and opt:
        return "verified (valid and optimal)"
    if ok:
        return "valid (optimality not checked)"
    return f"FAILED: {d.get('problems') or d}"


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="matchflow", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    s = sub.add_parser("info", help="version, backends, GPU model and memory")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=_cmd_info)

    s = sub.add_parser("match", help="maximum-cardinality bipartite matching of a matrix or graph file")
    s.add_argument("file", type=Path, help=".mtx[.gz], .graph (METIS), edge list (.el/.edges/.txt)")
    s.add_argument("--method", default="auto", help="auto (default), hopcroft-karp, push-relabel, pothen-fan, gpr (GPU)")
    s.add_argument("--backend", default="auto", choices=("auto", "cpu", "gpu"))
    s.add_argument("--init", default="auto", help="initial matching: auto (default, measured rule; on the GPU also picks the symmetric start), karp-sipser, greedy, none")
    s.add_argument("--explicit-zeros", action="store_true", help="stored zeros are edges (SciPy csgraph convention)")
    s.add_argument("--option", "-O", action="append", metavar="KEY=VALUE", help="solver option, repeatable")
    s.add_argument("--out", "-o", type=Path, help="write the matching (row col pairs, 1-based, Matrix Market style)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    s.set_defaults(func=_cmd_match)

    s = sub.add_parser("assign", help="optimal linear assignment of a dense cost matrix file")
    s.add_argument("file", type=Path, help=".npy, .csv/.txt, or Matrix Market (array, or coordinate: missing = forbidden)")
    s.add_argument("--maximize", action="store_true")
    s.add_argument("--method", default="auto", help="auto (default), jv, hungarian, auction, munkres, lopes")
    s.add_argument("--backend", default="auto", choices=("auto", "cpu", "gpu"))
    s.add_argument("--out", "-o", type=Path, help="write the assignment as 'row col' lines (0-based)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--quiet", "-q", action="store_true")
    s.set_defaults(func=_cmd_assign)

    s = sub.add_parser("demo", help="run the solvers on bundled real data next to SciPy")
    s.add_argument("--quick", action="store_true", help="smaller inputs")
    s.add_argument("--backend", default="auto", choices=("auto", "cpu", "gpu"))
    s.set_defaults(func=_cmd_demo)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, TypeError, FileNotFoundError, OSError) as exc:
        return _fail(f"{type(exc).__name__}: {exc}")
    except KeyboardInterrupt:  # pragma: no cover
        return _fail("interrupted")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
