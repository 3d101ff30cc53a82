"""Command-line interface: ``matchflow info | match | assign | flow | wmatch | demo | precompile``.

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

from ._cli_out import emit
from .assignment._cli import add_sparse_arguments, run_sparse

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


def _options(pairs: list[str] | None) -> dict:
    options = {}
    for kv in pairs or []:
        if "=" not in kv:
            raise ValueError(f"--option must be KEY=VALUE, got {kv!r}")
        k, v = kv.split("=", 1)
        options[k] = _parse_value(v)
    return options


def _timed(fn, *a, **kw):
    t0 = time.perf_counter()
    out = fn(*a, **kw)
    return out, time.perf_counter() - t0


def _cmd_match(args: argparse.Namespace) -> int:

    import matchflow
    from matchflow import io
    from matchflow._graph import as_bipartite

    t_start = time.perf_counter()
    prog = _Progress(args.quiet)
    try:
        options = _options(args.option)
    except ValueError as exc:
        return _fail(str(exc))
    with prog.phase(f"reading {args.file}"):
        t0 = time.perf_counter()
        data = io.read(args.file, index_base=args.index_base)
        if not (hasattr(data, "shape") or isinstance(data, matchflow.Graph)):
            return _fail(f"{args.file} holds a {type(data).__name__}, not a matrix or graph; "
                         "'match' needs a matrix (.mtx), a METIS graph or an edge list")
        graph = as_bipartite(data, "the input", explicit_zeros=args.explicit_zeros)  # once, for solve and verify
        t_read = time.perf_counter() - t0
    kw = dict(method=args.method, backend=args.backend, init=args.init, **options)
    tiny = _tiny_pattern()
    with prog.phase(_COMPILING):  # the same kernels on a tiny input: compile or load them once, untimed
        _, t_warm = _timed(matchflow.bipartite_matching, tiny, **kw)
    with prog.phase(f"matching ({args.method}, backend {args.backend})"):
        res = matchflow.bipartite_matching(graph, **kw)
    with prog.phase("verifying the König certificate"):
        report, t_verify = _timed(matchflow.verify.verify_matching, graph, res)
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
        **_times(res.seconds, t_read, t_warm, t_verify),
        "certificate": _report_dict(report),
        "stats": res.stats,
    }
    if args.out:
        with prog.phase(f"writing {args.out}"):
            io.write_matching(args.out, res, index_base=args.out_index_base,
                              comment=f"maximum matching of {args.file} by matchflow {matchflow.__version__}")
        out["written"] = str(args.out)
        out["written_index_base"] = args.out_index_base
    out["total"] = time.perf_counter() - t_start
    written = (args.out and ("written to", f"{args.out}  ({args.out_index_base}-based pairs)")) or None
    initial = None if res.init_cardinality is None else ("initial", f"{res.init_cardinality} ({res.init})")
    emit(out, args.json, f"{args.file}: {n_rows} x {n_cols}", [
        ("cardinality", res.cardinality),
        ("deficiency", f"{res.deficiency}  (min(n_rows, n_cols) - cardinality)"),
        initial,
        ("method", f"{res.method} on {res.backend}"),
        ("time", _time_text(out)),
        ("certificate", _report_text(report)),
        written,
    ])
    return 0


def _tiny_pattern():
    """A tiny 3 x 3 bipartite pattern (int32 indices): the warm-up input."""
    import numpy as np
    import scipy.sparse as sp

    return sp.csr_array(np.array([[1, 1, 0], [0, 1, 1], [1, 0, 0]], dtype=np.int8))


def _cmd_assign(args: argparse.Namespace) -> int:
    import numpy as np

    import matchflow
    from matchflow import io

    if args.sparse or args.partial:
        return run_sparse(args)
    t_start = time.perf_counter()
    prog = _Progress(args.quiet)
    with prog.phase(f"reading {args.file}"):
        cost, t_read = _timed(io.read_cost_matrix, args.file)
    kw = dict(maximize=args.maximize, method=args.method, backend=args.backend)
    with prog.phase(_COMPILING):  # the same kernels on a tiny matrix of the same dtype, untimed
        tiny = np.array([[1, 2], [2, 1]]).astype(cost.dtype)
        _, t_warm = _timed(matchflow.assignment, tiny, **kw)
    with prog.phase(f"solving ({args.method}, backend {args.backend})"):
        res = matchflow.assignment(cost, **kw)
    with prog.phase("verifying optimality from the duals"):
        report, t_verify = _timed(matchflow.verify.verify_assignment, cost, res, maximize=args.maximize)
    if args.out:
        with prog.phase(f"writing {args.out}"):
            io.write_matching(args.out, res, n_rows=cost.shape[0], n_cols=cost.shape[1],
                              index_base=args.out_index_base,
                              comment=f"optimal assignment of {args.file}: total cost {res.cost}"
                                      f"{' (maximised)' if args.maximize else ''}")
    out = {
        "file": str(args.file), "shape": list(np.shape(cost)), "cost": res.cost, "n_assigned": len(res.row_ind),
        "maximize": args.maximize, "method": res.method, "backend": res.backend,
        **_times(res.seconds, t_read, t_warm, t_verify),
        "certificate": _report_dict(report), "stats": res.stats,
    }
    if args.out:
        out["written"] = str(args.out)
        out["written_index_base"] = args.out_index_base
    out["total"] = time.perf_counter() - t_start
    written = (args.out and ("written to", f"{args.out}  ({args.out_index_base}-based pairs)")) or None
    emit(out, args.json, f"{args.file}: {np.shape(cost)[0]} x {np.shape(cost)[1]}", [
        ("total cost", f"{res.cost}  ({'maximised' if args.maximize else 'minimised'})"),
        ("assigned", f"{len(res.row_ind)} pairs"),
        ("method", f"{res.method} on {res.backend}"),
        ("time", _time_text(out)),
        ("certificate", _report_text(report)),
        written,
    ])
    return 0


_COMPILING = "compiling kernels (first use only, cached afterwards)"


def _times(solve: float, read: float, warm: float, verify: float) -> dict:
    """``seconds`` is the solve alone (kernels compiled beforehand); ``startup`` the kernel
    compilation or cache loading, measured on a tiny input first; the command adds ``total``."""
    return {"seconds": solve, "seconds_read": read, "seconds_verify": verify, "startup": warm}


def _time_text(out: dict) -> str:
    return (f"{out['seconds']:.4f} s solve  (start-up {out['startup']:.2f} s: kernels compiled or loaded, "
            f"first use only; read {out['seconds_read']:.2f} s, verify {out['seconds_verify']:.2f} s, "
            f"total {out['total']:.2f} s)")


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(quick=args.quick, backend=args.backend, quiet=args.quiet)


def _cmd_precompile(args: argparse.Namespace) -> int:
    from ._progress import precompile

    precompile(families=tuple(args.families), progress=not args.quiet)
    return 0


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
    from ._progress import FAMILIES
    from ._version import __version__
    from .assignment._api import METHODS as ASSIGN_METHODS
    from .flow._cli import add_parser as add_flow_parser
    from .matching._api import INIT_CHOICES
    from .matching._api import METHODS as MATCH_METHODS
    from .wmatching._cli import add_parser as add_wmatch_parser

    p = argparse.ArgumentParser(prog="matchflow", description=__doc__.splitlines()[0], epilog=_EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"matchflow {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    s = sub.add_parser("info", help="version, backends, GPU model and memory")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=_cmd_info)

    out_help = ("write the pairs as a matching file ('%%%%MatchFlow matching' banner, 'row col' lines) that "
                "matchflow.io.read reads back")
    base_help = "index base of the written pairs: 1 (default, like Matrix Market) or 0; the banner records it"

    s = sub.add_parser("match", help="maximum-cardinality bipartite matching of a matrix or graph file")
    s.add_argument("file", type=Path, help=".mtx[.gz], .graph (METIS), edge list (.el/.edges/.txt)")
    s.add_argument("--method", default="auto", help="one of: " + ", ".join(MATCH_METHODS))
    s.add_argument("--backend", default="auto", choices=("auto", "cpu", "gpu"))
    s.add_argument("--init", default="auto", help="initial matching, one of: " + ", ".join(INIT_CHOICES))
    s.add_argument("--explicit-zeros", action="store_true", help="stored zeros are edges (SciPy csgraph convention)")
    s.add_argument("--index-base", default="auto", type=_index_base, metavar="{auto,0,1}",
                   help="index base of an edge-list input (default auto: the file's header, else 1 when the "
                        "smallest id is 1); other formats fix their own")
    s.add_argument("--option", "-O", action="append", metavar="KEY=VALUE", help="solver option, repeatable")
    s.add_argument("--out", "-o", type=Path, help=out_help)
    s.add_argument("--out-index-base", type=int, default=1, choices=(1, 0), help=base_help)
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    s.set_defaults(func=_cmd_match)

    s = sub.add_parser("assign", help="optimal linear assignment of a dense cost matrix file")
    s.add_argument("file", type=Path, help=".npy, .csv/.txt, or Matrix Market (array, or coordinate: missing = forbidden)")
    s.add_argument("--maximize", action="store_true")
    s.add_argument("--method", default="auto", help="one of: " + ", ".join(ASSIGN_METHODS))
    s.add_argument("--backend", default="auto", choices=("auto", "cpu", "gpu"))
    s.add_argument("--out", "-o", type=Path, help=out_help)
    s.add_argument("--out-index-base", type=int, default=1, choices=(1, 0), help=base_help)
    s.add_argument("--json", action="store_true")
    s.add_argument("--quiet", "-q", action="store_true")
    add_sparse_arguments(s)
    s.set_defaults(func=_cmd_assign)

    add_wmatch_parser(sub)

    s = sub.add_parser("demo", help="run the solvers on bundled real data next to SciPy")
    s.add_argument("--quick", action="store_true", help="smaller inputs")
    s.add_argument("--backend", default="auto", choices=("auto", "cpu", "gpu"))
    s.add_argument("--quiet", "-q", action="store_true", help="no compile notices on stderr")
    s.set_defaults(func=_cmd_demo)

    s = sub.add_parser("precompile", help="compile every CPU kernel once (first use only; cached afterwards)")
    s.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES,
                   help="which families (default: all)")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    s.set_defaults(func=_cmd_precompile)
    add_flow_parser(sub)
    return p


_EPILOG = """\
conventions:
  --out of 'match' and 'assign' writes one format: a matching file with 1-based pairs
  (--out-index-base 0 for 0-based; the banner says which), read back by matchflow.io.read.
  Times: 'seconds' is the solve alone; 'startup' the one-time kernel compilation or cache
  loading (done on a tiny input first); 'total' the whole command.
"""


def _index_base(v: str):
    if v in ("auto", "0", "1"):
        return v if v == "auto" else int(v)
    raise argparse.ArgumentTypeError(f"must be auto, 0 or 1, got {v!r}")


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
