"""What every linear-assignment solver shares about the problem (the dense family, :mod:`matchflow.assignment`,
and the batched one, :mod:`matchflow.batch`): the error of an infeasible matrix and lap's ``cost_limit``
extension.
"""

from __future__ import annotations

import numpy as np

__all__ = ["InfeasibleError", "limit_extended"]


class InfeasibleError(ValueError):
    """No assignment of the smaller side avoids the forbidden entries (SciPy's message)."""

    def __init__(self) -> None:
        super().__init__("cost matrix is infeasible")


def limit_extended(a: np.ndarray, cost_limit: float, maximize: bool = False) -> np.ndarray:
    """lap's ``cost_limit`` construction: the ``(n_rows + n_cols)``-square matrix
    ``[[a, L/2], [L/2, 0]]``: leaving row ``i`` and column ``j`` both unassigned costs
    ``L``, so no pair costing more than ``L`` is used. Integer ``a`` with an even integer
    ``L`` stays integer (exact); otherwise float64. ``maximize``: the same with ``-a``."""
    nr, nc = a.shape
    half = cost_limit / 2.0
    as_int = a.dtype.kind in "biu" and float(cost_limit).is_integer() and int(cost_limit) % 2 == 0
    if as_int:
        half_v = int(cost_limit) // 2
        dt = np.result_type(a.dtype if a.dtype.kind != "b" else np.int64, np.int64)
        if dt == np.uint64 or abs(half_v) >= 2**62:
            as_int = False
    dt = dt if as_int else np.float64
    ext = np.zeros((nr + nc, nr + nc), dtype=dt)
    ext[:nr, :nc] = a
    ext[:nr, nc:] = half_v if as_int else half
    ext[nr:, :nc] = half_v if as_int else half
    return ext
