"""Small result objects returned by the solvers (in the spirit of SciPy's OptimizeResult)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["MatchingResult", "AssignmentResult"]


@dataclass(repr=False)
class MatchingResult:
    """Maximum-cardinality bipartite matching with its König certificate.

    row_match[i] is the column matched to row i, col_match[j] the row matched to
    column j, -1 where unmatched. ``cover_rows``/``cover_cols`` are boolean masks of a
    minimum vertex cover (König): its size equals ``cardinality`` and every edge has
    an endpoint in it, which proves the matching is maximum.
    """

    row_match: np.ndarray
    col_match: np.ndarray
    cardinality: int
    cover_rows: np.ndarray | None
    cover_cols: np.ndarray | None
    method: str
    backend: str
    seconds: float
    init: str | None = None
    init_cardinality: int | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.row_match), len(self.col_match))

    @property
    def deficiency(self) -> int:
        """min(n_rows, n_cols) - cardinality: 0 for a perfect (or row/col-complete) matching."""
        return min(self.shape) - self.cardinality

    @property
    def matched_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cols) of the matched edges, sorted by row."""
        rows = np.flatnonzero(self.row_match >= 0)
        return rows, self.row_match[rows]

    def __repr__(self) -> str:
        n_r, n_c = self.shape
        st = ", ".join(f"{k}={v}" for k, v in self.stats.items())
        return (
            f"MatchingResult(cardinality={self.cardinality} of min({n_r}, {n_c}), method={self.method!r}, "
            f"backend={self.backend!r}, init={self.init!r}, seconds={self.seconds:.4g}" + (f", {st}" if st else "") + ")"
        )


@dataclass(repr=False)
class AssignmentResult:
    """Optimal linear assignment with dual potentials (the optimality certificate).

    For a minimisation on cost C (after ``maximize`` has been applied as C -> -C),
    ``u[i] + v[j] <= C[i, j]`` for every allowed pair, with equality on assigned pairs,
    and ``cost == sum(u) + sum(v)`` over the assigned rows/columns.
    """

    row_ind: np.ndarray
    col_ind: np.ndarray
    cost: float
    u: np.ndarray | None
    v: np.ndarray | None
    method: str
    backend: str
    seconds: float
    maximize: bool = False
    stats: dict[str, Any] = field(default_factory=dict)

    def __iter__(self):  # row_ind, col_ind = result  (like SciPy)
        return iter((self.row_ind, self.col_ind))

    def __repr__(self) -> str:
        st = ", ".join(f"{k}={v}" for k, v in self.stats.items())
        return (
            f"AssignmentResult(n_assigned={len(self.row_ind)}, cost={self.cost!r}, method={self.method!r}, "
            f"backend={self.backend!r}, seconds={self.seconds:.4g}" + (f", {st}" if st else "") + ")"
        )
