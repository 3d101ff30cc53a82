"""The demo's sparse-assignment section (issue 12): partial=True on a bundled real matrix (no full matching)."""

from __future__ import annotations

import time
from importlib import resources

__all__ = ["demo_cost_scaling"]


def demo_cost_scaling(con, quick: bool = False) -> int:
    """Netlib CYCLE (1903 x 2857, |values| x 100 rounded as costs): SciPy's sparse solver has no full
    matching to find; ``partial=True`` returns a maximum-cardinality matching of least cost, certified.
    Returns the number of failures (0 or 1)."""
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm

    import matchflow
    from matchflow import io
    from matchflow.verify import verify_sparse_assignment

    A = sp.csr_array(io.read(str(resources.files("matchflow") / "data" / "CYCLE.mtx.gz")).tocsr())
    A.data = np.rint(np.abs(A.data) * 100).astype(np.int64) + 1
    try:
        scipy_mwfbm(A)
        scipy_says = "solved"
    except ValueError as e:
        scipy_says = str(e)
    matchflow.assignment(sp.csr_array(np.array([[1, 2], [3, 1]])), partial=True)  # compile / load first
    t = time.perf_counter()
    res = matchflow.assignment(A, partial=True)
    ms = 1e3 * (time.perf_counter() - t)
    ok = verify_sparse_assignment(A, res, raise_on_error=False) == []
    con.print(f"Sparse assignment ({res.method}) on Netlib CYCLE {A.shape[0]}x{A.shape[1]} ({A.nnz} arcs): "
              f"SciPy min_weight_full_bipartite_matching: '{scipy_says}'; matchflow.assignment(partial=True): "
              f"{res.row_ind.size} pairs, cost {res.cost}, {ms:.1f} ms, "
              + ("[green]certificate verified[/]" if ok else "[red]certificate FAILED[/]"))
    return int(not ok)
