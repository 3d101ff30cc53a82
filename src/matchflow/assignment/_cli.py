"""``matchflow assign --sparse``: a sparse Matrix Market cost file (stored entries are the allowed
pairs) solved by cost scaling, with the sparse certificate (issue 12)."""

from __future__ import annotations

import argparse
import time

from .._cli_out import emit

__all__ = ["add_sparse_arguments", "run_sparse"]


def add_sparse_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--sparse", action="store_true",
                   help="read a Matrix Market coordinate file as sparse costs (stored entries = allowed pairs, "
                        "explicit zeros = zero-cost arcs): --method auto (shortest augmenting paths for rectangular and "
                        "partial problems, cost scaling for square ones), cost-scaling or jv")
    s.add_argument("--partial", action="store_true",
                   help="with --sparse: a maximum-cardinality matching of least cost when no full one exists")


def run_sparse(args: argparse.Namespace) -> int:
    import scipy.io
    import scipy.sparse as sp

    import matchflow
    from matchflow.verify import verify_sparse_assignment

    t0 = time.perf_counter()
    C = sp.csr_array(scipy.io.mmread(args.file))
    t_read = time.perf_counter() - t0
    res = matchflow.assignment(C, maximize=args.maximize, partial=args.partial, method=args.method,
                               backend="cpu" if args.backend == "auto" else args.backend)
    t1 = time.perf_counter()
    problems = verify_sparse_assignment(C, res, raise_on_error=False)
    t_verify = time.perf_counter() - t1
    out = {"file": str(args.file), "shape": list(C.shape), "nnz": int(C.nnz), "cost": res.cost,
           "n_assigned": int(res.row_ind.size), "maximize": args.maximize, "partial": args.partial,
           "method": res.method, "backend": res.backend, "seconds": res.seconds, "seconds_read": t_read,
           "seconds_verify": t_verify, "certificate": "optimal" if not problems else problems,
           "stats": {k: v for k, v in res.stats.items() if k not in ("U", "V")}}
    if args.out:
        from matchflow import io

        io.write_matching(args.out, res, n_rows=C.shape[0], n_cols=C.shape[1], index_base=args.out_index_base,
                          comment=f"optimal assignment of {args.file}: total cost {res.cost}")
    emit(out, args.json, f"{args.file}: {C.shape[0]} x {C.shape[1]}, {C.nnz} allowed pairs", [
        ("total cost", f"{res.cost}  ({'maximised' if args.maximize else 'minimised'})"),
        ("assigned", f"{res.row_ind.size} pairs{' (partial)' if args.partial else ''}"),
        ("method", f"{res.method} on {res.backend}"),
        ("time", f"{res.seconds:.4f} s solve, {t_read:.3f} s read, {t_verify:.3f} s verify"),
        ("certificate", out["certificate"]),
    ])
    return 0 if not problems else 1
