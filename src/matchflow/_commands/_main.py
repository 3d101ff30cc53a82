"""Command-line interface: ``matchflow info | match | assign | flow | wmatch | mcf | demo | precompile``.

Run ``matchflow COMMAND --help`` (or ``python -m matchflow COMMAND --help``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import matchflow

from .._progress import FAMILIES as KERNEL_FAMILIES
from .._progress import precompile
from .._version import __version__
from . import _families
from ._common import fail
from ._demo import run_demo

__all__ = ["main"]

_EPILOG = """\
conventions:
  --out of 'match' and 'assign' writes one format: a matching file with 1-based pairs
  (--out-index-base 0 for 0-based; the banner says which), read back by matchflow.io.read.
  Times: 'seconds' is the solve alone; 'startup' the one-time kernel compilation or cache
  loading (done on a tiny input first); 'total' the whole command.
"""


def _cmd_info(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps(matchflow.info(as_dict=True), indent=1, default=str))
    else:
        print(matchflow.info())
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    return run_demo(quick=args.quick, backend=args.backend, quiet=args.quiet)


def _cmd_precompile(args: argparse.Namespace) -> int:
    precompile(families=tuple(args.families), progress=not args.quiet, gpu=args.gpu)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="matchflow", description=__doc__.splitlines()[0], epilog=_EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"matchflow {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    s = sub.add_parser("info", help="version, backends, GPU model and memory")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=_cmd_info)

    for family in _families.FAMILIES:
        family.add_parser(sub)

    s = sub.add_parser("demo", help="run the solvers on bundled real data next to SciPy")
    s.add_argument("--quick", action="store_true", help="smaller inputs")
    s.add_argument("--backend", default="auto", choices=("auto", "cpu", "gpu"))
    s.add_argument("--quiet", "-q", action="store_true", help="no compile notices on stderr")
    s.set_defaults(func=_cmd_demo)

    s = sub.add_parser("precompile", help="compile every CPU kernel once (first use only; cached afterwards)")
    s.add_argument("--families", nargs="+", default=list(KERNEL_FAMILIES), choices=KERNEL_FAMILIES,
                   help="which families (default: all)")
    s.add_argument("--gpu", action="store_true",
                   help="also every GPU kernel variant the families' GPU solvers reach (needs a GPU)")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    s.set_defaults(func=_cmd_precompile)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, TypeError, FileNotFoundError, OSError, MemoryError, matchflow.GPUUnavailableError) as exc:
        return fail(f"{type(exc).__name__}: {exc}")
    except KeyboardInterrupt:  # pragma: no cover
        return fail("interrupted")
