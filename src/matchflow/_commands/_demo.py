"""``matchflow demo``: every available solver on small bundled real inputs, next to SciPy.

Each family's ``demo_section`` prints its table (matching on the bundled real graphs and rectangular LP
matrices, ``matchflow/data``; dense assignment on uniform random integer costs, the Lopes et al. Table 1
inputs, because no real dense cost matrix is bundled; ...). Each result's certificate is verified.
Numba compiles each kernel on first use (cached on disk afterwards; a notice says so on stderr); every
section warms its solvers up on a tiny input first, so the times shown are solve times.
"""

from __future__ import annotations

from rich.console import Console

import matchflow

from .._progress import compile_progress
from . import _families

__all__ = ["run_demo"]


def run_demo(*, quick: bool = False, backend: str = "auto", quiet: bool = False) -> int:
    """Print the demo's tables on stdout; 0 when every certificate verifies, else 1.

    The first run compiles every kernel (12-30 s on 2 cores): a notice, a line per
    kernel and a summary go to stderr (``quiet`` silences them); later runs load the kernels
    from the on-disk cache.
    """
    with compile_progress(quiet=quiet, verbose=True):
        con = Console(width=None if Console().is_terminal else 140)
        con.print(matchflow.info(), markup=False, highlight=False)  # keep "matchflow[gpu]" as written
        failures = sum(family.demo_section(con, quick=quick, backend=backend) for family in _families.FAMILIES)
        if failures:
            con.print(f"[red]{failures} input(s) failed verification[/]")
            return 1
        con.print("[green]All results verified by their certificates.[/]")
        return 0
