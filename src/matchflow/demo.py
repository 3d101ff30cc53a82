"""``matchflow demo``: every available solver on small bundled real inputs, next to SciPy.

Matching runs on the bundled real graphs and rectangular LP matrices (``matchflow/data``);
assignment on uniform random integer cost matrices (the Lopes et al. Table 1 inputs),
because no real dense cost matrix is bundled. Each result's certificate is verified.
Numba compiles each kernel on first use (cached on disk afterwards; a notice says so on
stderr); the demo warms up every solver on a tiny input first, so the times shown are solve times.
"""

from __future__ import annotations

import time
from importlib import resources

DEMO_GRAPHS = ("power", "airfoil1", "hep-th", "fe_4elt2", "80BAU3B", "CYCLE")
# maximum matchings listed in data/README.md (computed with SciPy)
KNOWN_MAX = {"power": 4366, "airfoil1": 4253, "hep-th": 7136, "fe_4elt2": 11143, "80BAU3B": 2237, "CYCLE": 1828}


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _data_path(name: str):
    return resources.files("matchflow") / "data" / f"{name}.mtx.gz"


def _matching_methods(backend: str) -> list[tuple[str, str]]:
    from ._backend import gpu_available
    from .matching._api import CPU_METHODS

    methods = [(m, "cpu") for m in CPU_METHODS]
    if backend in ("auto", "gpu") and gpu_available():
        methods.append(("gpr", "gpu"))
    if backend == "cpu":
        methods = [m for m in methods if m[1] == "cpu"]
    return methods


def _assignment_methods(backend: str, n: int) -> list[tuple[str, str]]:
    from ._backend import gpu_available
    from .assignment._api import CPU_METHODS

    methods = [(m, "cpu") for m in CPU_METHODS if not (m == "munkres" and n > 300)]
    if backend in ("auto", "gpu") and gpu_available():
        methods.append(("lopes", "gpu"))
    if backend == "cpu":
        methods = [m for m in methods if m[1] == "cpu"]
    return methods


def run_demo(*, quick: bool = False, backend: str = "auto", quiet: bool = False) -> int:
    """Print the demo's tables on stdout; 0 when every certificate verifies, else 1.

    The first run compiles every kernel (12-30 s on 2 cores): a notice, a line per
    kernel and a summary go to stderr (``quiet`` silences them); later runs load the kernels
    from the on-disk cache.
    """
    from ._progress import compile_progress

    with compile_progress(quiet=quiet, verbose=True):
        return _run_demo(quick, backend)


def _run_demo(quick: bool, backend: str) -> int:
    import scipy.sparse as sp
    from rich.console import Console
    from rich.table import Table
    from scipy.optimize import linear_sum_assignment as scipy_lsa
    from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

    import matchflow
    from matchflow import generators, io, verify
    from matchflow.assignment._demo import demo_cost_scaling
    from matchflow.flow._demo import flow_demo
    from matchflow.wmatching._demo import demo_section as wmatching_demo

    con = Console(width=None if Console().is_terminal else 140)
    con.print(matchflow.info(), markup=False, highlight=False)  # keep "matchflow[gpu]" as written
    failures = 0

    # ------------------------------------------------------------------ matching
    methods = _matching_methods(backend)
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
    graphs = DEMO_GRAPHS[:3] if quick else DEMO_GRAPHS
    for name in graphs:
        a = sp.csr_array(io.read(str(_data_path(name))).tocsr())
        ref, t_ref = _timed(lambda a=a: scipy_mbm(a, perm_type="column"))
        ours, t_ours = _timed(lambda a=a: matchflow.maximum_bipartite_matching(a, perm_type="column"))
        card = int((ref >= 0).sum())
        ok = card == KNOWN_MAX[name] == int((ours >= 0).sum())
        row = [name, f"{a.shape[0]}x{a.shape[1]}", str(a.nnz), str(card), f"{1e3 * t_ref:.2f}",
               f"{1e3 * t_ours:.2f}", f"{t_ref / max(t_ours, 1e-9):.1f}x"]
        for m, b in methods:
            res = matchflow.bipartite_matching(a, method=m, backend=b)
            rep = verify.verify_matching(a, res, raise_on_error=False)
            ok &= bool(_get(rep, "valid") and _get(rep, "maximum")) and res.cardinality == card
            row.append(f"{1e3 * res.seconds:.2f}")
        failures += not ok
        row.append("[green]verified[/]" if ok else "[red]FAILED[/]")
        t.add_row(*row)
    con.print(t)
    con.print("drop-in = matchflow.maximum_bipartite_matching (same call as SciPy); method columns = "
              "matchflow.bipartite_matching (default start + solver + König cover).")

    # ---------------------------------------------------------------- assignment
    sizes = (200, 500) if quick else (500, 1000, 2000)
    amethods = _assignment_methods(backend, max(sizes))
    with con.status("compiling the assignment kernels (first run only) ..."):
        warm = generators.uniform_costs(20, 20, seed=1)
        matchflow.linear_sum_assignment(warm)
        for m, b in _assignment_methods(backend, 20):
            matchflow.assignment(warm, method=m, backend=b)
    t = Table(title="Dense linear assignment, uniform random integer costs in [0, n] "
                    "(Lopes et al. Table 1 inputs; times in ms)")
    cols = ["n", "optimal cost", "SciPy", "drop-in", "speed-up"] + [f"{m} ({b})" for m, b in amethods]
    for col in cols + ["dual certificate"]:
        t.add_column(col, justify="left" if col == "dual certificate" else "right")
    for n in sizes:
        c = generators.uniform_costs(n, n, seed=n)
        (ri, ci), t_ref = _timed(lambda c=c: scipy_lsa(c))
        (ri2, ci2), t_ours = _timed(lambda c=c: matchflow.linear_sum_assignment(c))
        ref_cost = int(c[ri, ci].sum())
        ok = int(c[ri2, ci2].sum()) == ref_cost
        row = [str(n), str(ref_cost), f"{1e3 * t_ref:.1f}", f"{1e3 * t_ours:.1f}", f"{t_ref / max(t_ours, 1e-9):.1f}x"]
        for m, b in amethods:
            res = matchflow.assignment(c, method=m, backend=b)
            rep = verify.verify_assignment(c, res, raise_on_error=False)
            ok &= bool(_get(rep, "valid") and _get(rep, "optimal")) and int(res.cost) == ref_cost
            row.append(f"{1e3 * res.seconds:.1f}")
        failures += not ok
        t.add_row(*row, "[green]verified[/]" if ok else "[red]FAILED[/]")
    con.print(t)
    con.print("drop-in = matchflow.linear_sum_assignment; method columns = matchflow.assignment "
              "(solve + dual potentials).")
    failures += flow_demo(con, quick)
    failures += demo_cost_scaling(con, quick)
    failures += wmatching_demo(con, quick)
    if failures:
        con.print(f"[red]{failures} input(s) failed verification[/]")
        return 1
    con.print("[green]All results verified by their certificates.[/]")
    return 0


def _get(report, key):
    return report.get(key) if isinstance(report, dict) else getattr(report, key, None)
