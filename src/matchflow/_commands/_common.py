"""What every command shares: progress lines, the printed answer (JSON or labelled lines), times, reports."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from importlib import resources
from pathlib import Path

from rich.console import Console

from .._backend import gpu_available

COMPILING = "compiling kernels (first use only, cached afterwards)"
OUT_HELP = ("write the pairs as a matching file ('%%%%MatchFlow matching' banner, 'row col' lines) that "
            "matchflow.io.read reads back")
BASE_HELP = "index base of the written pairs: 1 (default, like Matrix Market) or 0; the banner records it"


def add_command(sub, name: str, text: str, file_help: str, methods: Iterable[str], backends=("auto", "cpu", "gpu")):
    """Register command ``name`` with what every solving command takes: the input file, ``--method`` (one of
    ``methods``) and ``--backend``. Returns its parser."""
    s = sub.add_parser(name, help=text)
    s.add_argument("file", type=Path, help=file_help)
    s.add_argument("--method", default="auto", help="one of: " + ", ".join(methods))
    s.add_argument("--backend", default="auto", choices=backends)
    return s


def add_pairs_out(s) -> None:
    """The options of a command that prints matched pairs: ``--out`` (a matching file), ``--out-index-base``,
    ``--json`` and ``--quiet``."""
    s.add_argument("--out", "-o", type=Path, help=OUT_HELP)
    s.add_argument("--out-index-base", type=int, default=1, choices=(1, 0), help=BASE_HELP)
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress output")


class Progress:
    """Phase-by-phase progress on stderr: a live spinner with elapsed time (rich) when
    stderr is a terminal, plain timestamped lines otherwise, nothing with --quiet."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet
        self.console = None
        if not quiet:
            try:
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


def emit(out: dict, as_json: bool, title: str, lines: Iterable[tuple[str, object] | None]) -> None:
    """Print ``out`` as indented JSON, or ``title`` then one ``  label  value`` line per pair (``None`` skipped)."""
    if as_json:
        print(json.dumps(out, indent=1, default=str))
        return
    print(title)
    for line in lines:
        if line is not None:
            print(f"  {line[0]:<14}{line[1]}")


def fail(msg: str) -> int:
    print(f"matchflow: error: {msg}", file=sys.stderr)
    return 2


def timed(fn, *a, **kw):
    t0 = time.perf_counter()
    out = fn(*a, **kw)
    return out, time.perf_counter() - t0


def times(solve: float, read: float, warm: float, verify: float) -> dict:
    """``seconds`` is the solve alone (kernels compiled beforehand); ``startup`` the kernel
    compilation or cache loading, measured on a tiny input first; the command adds ``total``."""
    return {"seconds": solve, "seconds_read": read, "seconds_verify": verify, "startup": warm}


def time_text(out: dict) -> str:
    return (f"{out['seconds']:.4f} s solve  (start-up {out['startup']:.2f} s: kernels compiled or loaded, "
            f"first use only; read {out['seconds_read']:.2f} s, verify {out['seconds_verify']:.2f} s, "
            f"total {out['total']:.2f} s)")


def written_line(args) -> tuple[str, str] | None:
    """The ``written to`` line of a command with ``--out`` / ``--out-index-base``."""
    return (args.out and ("written to", f"{args.out}  ({args.out_index_base}-based pairs)")) or None


def finish(args, out: dict, t_start: float, title: str, lines: Iterable[tuple[str, object] | None], report) -> int:
    """The end of a certified command with ``--out`` / ``--out-index-base`` (``assign``, ``match``): the written
    file's keys and ``total`` in ``out``, then the answer printed: ``lines``, the time, the certificate, the file."""
    if args.out:
        out["written"] = str(args.out)
        out["written_index_base"] = args.out_index_base
    out["total"] = time.perf_counter() - t_start
    emit(out, args.json, title, [
        *lines,
        ("time", time_text(out)),
        ("certificate", report_text(report)),
        written_line(args),
    ])
    return 0


def report_dict(report) -> dict:
    if isinstance(report, dict):
        return report
    if hasattr(report, "__dataclass_fields__"):
        return asdict(report)
    return {"report": str(report)}


def report_text(report) -> str:
    d = report_dict(report)
    ok = d.get("valid", d.get("ok"))
    opt = d.get("maximum", d.get("optimal"))
    if ok and opt:
        return "verified (valid and optimal)"
    if ok:
        return "valid (optimality not checked)"
    return f"FAILED: {d.get('problems') or d}"


def report_get(report, key):
    return report.get(key) if isinstance(report, dict) else getattr(report, key, None)


def data_path(name: str):
    """A bundled demo input (``matchflow/data/<name>.mtx.gz``)."""
    return resources.files("matchflow") / "data" / f"{name}.mtx.gz"


def demo_methods(cpu_methods, gpu_name: str, backend: str, skip=()) -> list[tuple[str, str]]:
    """(method, backend) columns of a demo table: the CPU methods, then the GPU one where a GPU is usable."""
    methods = [(m, "cpu") for m in cpu_methods if m not in skip]
    if backend in ("auto", "gpu") and gpu_available():
        methods.append((gpu_name, "gpu"))
    return methods
