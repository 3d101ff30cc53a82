"""``matchflow assign FILE``: optimal linear assignment of a dense cost matrix, or with ``--sparse`` of a Matrix
Market coordinate file (stored entries are the allowed pairs), certified; the demo's assignment sections."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from rich.table import Table
from scipy.optimize import linear_sum_assignment as scipy_lsa
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm

import matchflow

from .. import generators, io, verify
from ..assignment._api import CPU_METHODS, METHODS
from ..verify import verify_sparse_assignment
from . import _common as common

__all__ = ["add_parser", "demo_section"]


def add_parser(sub) -> None:
    """Register ``assign`` on the CLI's subparsers."""
    s = common.add_command(sub, "assign", "optimal linear assignment of a dense cost matrix file",
                    ".npy, .csv/.txt, or Matrix Market (array, or coordinate: missing = forbidden)", METHODS)
    s.add_argument("--maximize", action="store_true")
    common.add_pairs_out(s)
    s.add_argument("--sparse", action="store_true",
                   help="read a Matrix Market coordinate file as sparse costs (stored entries = allowed pairs, "
                        "explicit zeros = zero-cost arcs): --method auto (shortest augmenting paths for rectangular and "
                        "partial problems, cost scaling for square ones), cost-scaling or jv")
    s.add_argument("--partial", action="store_true",
                   help="with --sparse: a maximum-cardinality matching of least cost when no full one exists")
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.sparse or args.partial:
        return _run_sparse(args)
    t_start = time.perf_counter()
    prog = common.Progress(args.quiet)
    with prog.phase(f"reading {args.file}"):
        cost, t_read = common.timed(io.read_cost_matrix, args.file)
    kw = dict(maximize=args.maximize, method=args.method, backend=args.backend)
    with prog.phase(common.COMPILING):  # the same kernels on a tiny matrix of the same dtype, untimed
        tiny = np.array([[1, 2], [2, 1]]).astype(cost.dtype)
        _, t_warm = common.timed(matchflow.assignment, tiny, **kw)
    with prog.phase(f"solving ({args.method}, backend {args.backend})"):
        res = matchflow.assignment(cost, **kw)
    with prog.phase("verifying optimality from the duals"):
        report, t_verify = common.timed(matchflow.verify.verify_assignment, cost, res, maximize=args.maximize)
    if args.out:
        with prog.phase(f"writing {args.out}"):
            io.write_matching(args.out, res, n_rows=cost.shape[0], n_cols=cost.shape[1],
                              index_base=args.out_index_base,
                              comment=f"optimal assignment of {args.file}: total cost {res.cost}"
                                      f"{' (maximised)' if args.maximize else ''}")
    out = {
        "file": str(args.file), "shape": list(np.shape(cost)), "cost": res.cost, "n_assigned": len(res.row_ind),
        "maximize": args.maximize, "method": res.method, "backend": res.backend,
        **common.times(res.seconds, t_read, t_warm, t_verify),
        "certificate": common.report_dict(report), "stats": res.stats,
    }
    return common.finish(args, out, t_start, f"{args.file}: {np.shape(cost)[0]} x {np.shape(cost)[1]}", [
        ("total cost", f"{res.cost}  ({'maximised' if args.maximize else 'minimised'})"),
        ("assigned", f"{len(res.row_ind)} pairs"),
        ("method", f"{res.method} on {res.backend}"),
    ], report)


def _read_sparse_costs(path: Path):
    """A Matrix Market file as CSR costs through ``matchflow.io`` (a FormatError naming the file and line, never
    an allocation from the size line); a pattern file's entries cost 1.0, as SciPy reads them."""
    C = sp.csr_array(io.read_mtx(path))
    return C.astype(np.float64) if C.dtype == np.bool_ else C


def _run_sparse(args: argparse.Namespace) -> int:
    C, t_read = common.timed(_read_sparse_costs, args.file)
    res = matchflow.assignment(C, maximize=args.maximize, partial=args.partial, method=args.method,
                               backend="cpu" if args.backend == "auto" else args.backend)
    problems, t_verify = common.timed(verify_sparse_assignment, C, res, raise_on_error=False)
    out = {"file": str(args.file), "shape": list(C.shape), "nnz": int(C.nnz), "cost": res.cost,
           "n_assigned": int(res.row_ind.size), "maximize": args.maximize, "partial": args.partial,
           "method": res.method, "backend": res.backend, "seconds": res.seconds, "seconds_read": t_read,
           "seconds_verify": t_verify, "certificate": "optimal" if not problems else problems,
           "stats": {k: v for k, v in res.stats.items() if k not in ("U", "V")}}
    if args.out:
        io.write_matching(args.out, res, n_rows=C.shape[0], n_cols=C.shape[1], index_base=args.out_index_base,
                          comment=f"optimal assignment of {args.file}: total cost {res.cost}")
    common.emit(out, args.json, f"{args.file}: {C.shape[0]} x {C.shape[1]}, {C.nnz} allowed pairs", [
        ("total cost", f"{res.cost}  ({'maximised' if args.maximize else 'minimised'})"),
        ("assigned", f"{res.row_ind.size} pairs{' (partial)' if args.partial else ''}"),
        ("method", f"{res.method} on {res.backend}"),
        ("time", f"{res.seconds:.4f} s solve, {t_read:.3f} s read, {t_verify:.3f} s verify"),
        ("certificate", out["certificate"]),
    ])
    return 0 if not problems else 1


def demo_section(con, *, quick: bool = False, backend: str = "auto") -> int:
    """The dense table next to SciPy, then ``partial=True`` on a bundled real matrix; returns the failures."""
    return _dense_demo(con, quick, backend) + _partial_demo(con)


def _dense_demo(con, quick: bool, backend: str) -> int:
    """Uniform random integer costs (the Lopes et al. Table 1 inputs; no real dense cost matrix is bundled)."""
    sizes = (200, 500) if quick else (500, 1000, 2000)
    amethods = common.demo_methods(CPU_METHODS, "lopes", backend, skip=("munkres",) if max(sizes) > 300 else ())
    with con.status("compiling the assignment kernels (first run only) ..."):
        warm = generators.uniform_costs(20, 20, seed=1)
        matchflow.linear_sum_assignment(warm)
        for m, b in common.demo_methods(CPU_METHODS, "lopes", backend):
            matchflow.assignment(warm, method=m, backend=b)
    t = Table(title="Dense linear assignment, uniform random integer costs in [0, n] "
                    "(Lopes et al. Table 1 inputs; times in ms)")
    cols = ["n", "optimal cost", "SciPy", "drop-in", "speed-up"] + [f"{m} ({b})" for m, b in amethods]
    for col in cols + ["dual certificate"]:
        t.add_column(col, justify="left" if col == "dual certificate" else "right")
    failures = 0
    for n in sizes:
        c = generators.uniform_costs(n, n, seed=n)
        (ri, ci), t_ref = common.timed(scipy_lsa, c)
        (ri2, ci2), t_ours = common.timed(matchflow.linear_sum_assignment, c)
        ref_cost = int(c[ri, ci].sum())
        ok = int(c[ri2, ci2].sum()) == ref_cost
        row = [str(n), str(ref_cost), f"{1e3 * t_ref:.1f}", f"{1e3 * t_ours:.1f}", f"{t_ref / max(t_ours, 1e-9):.1f}x"]
        for m, b in amethods:
            res = matchflow.assignment(c, method=m, backend=b)
            rep = verify.verify_assignment(c, res, raise_on_error=False)
            ok &= bool(common.report_get(rep, "valid") and common.report_get(rep, "optimal")) and int(res.cost) == ref_cost
            row.append(f"{1e3 * res.seconds:.1f}")
        failures += not ok
        t.add_row(*row, "[green]verified[/]" if ok else "[red]FAILED[/]")
    con.print(t)
    con.print("drop-in = matchflow.linear_sum_assignment; method columns = matchflow.assignment "
              "(solve + dual potentials).")
    return failures


def _partial_demo(con) -> int:
    """Netlib CYCLE (1903 x 2857, |values| x 100 rounded as costs): SciPy's sparse solver has no full
    matching to find; ``partial=True`` returns a maximum-cardinality matching of least cost, certified."""
    A = sp.csr_array(io.read(str(common.data_path("CYCLE"))).tocsr())
    A.data = np.rint(np.abs(A.data) * 100).astype(np.int64) + 1
    try:
        scipy_mwfbm(A)
        scipy_says = "solved"
    except ValueError as e:
        scipy_says = str(e)
    matchflow.assignment(sp.csr_array(np.array([[1, 2], [3, 1]])), partial=True)  # compile / load first
    res, seconds = common.timed(matchflow.assignment, A, partial=True)
    ok = verify_sparse_assignment(A, res, raise_on_error=False) == []
    con.print(f"Sparse assignment ({res.method}) on Netlib CYCLE {A.shape[0]}x{A.shape[1]} ({A.nnz} arcs): "
              f"SciPy min_weight_full_bipartite_matching: '{scipy_says}'; matchflow.assignment(partial=True): "
              f"{res.row_ind.size} pairs, cost {res.cost}, {1e3 * seconds:.1f} ms, "
              + ("[green]certificate verified[/]" if ok else "[red]certificate FAILED[/]"))
    return int(not ok)
