"""Small result objects returned by the solvers (in the spirit of SciPy's OptimizeResult)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["MatchingResult", "AssignmentResult"]


@dataclass(kw_only=True, repr=False)
class Solved:
    """What every result carries besides its answer: ``method``, the method that ran; ``backend``, where it ran
    (``"cpu"``, ``"gpu"``; ``"none"`` for a matching read from a file); ``seconds``, the call's wall seconds (the
    whole call unless the door's docstring says which stages); ``stats``, the method's counters and stage timings.

    Keyword-only, so each result keeps its own fields positional (``FlowResult(value, flow, side, cut, method=...)``).
    """

    method: str
    backend: str
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)

    def _repr(self, head: str, stats: Iterable[tuple[str, Any]] = (), between: str = "") -> str:
        """``Name(<head>, method=..., backend=...<between>, seconds=...)``, then ``, key=value`` for each of ``stats``
        (the items the class shows: all of ``self.stats``, some, or none)."""
        shown = "".join(f", {k}={v}" for k, v in stats)
        return (f"{type(self).__name__}({head}, method={self.method!r}, backend={self.backend!r}{between}, "
                f"seconds={self.seconds:.4g}{shown})")


@dataclass(repr=False)
class MatchingResult(Solved):
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
    init: str | None = None
    init_cardinality: int | None = None

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
        return self._repr(f"cardinality={self.cardinality} of min({n_r}, {n_c})", self.stats.items(),
                          between=f", init={self.init!r}")


@dataclass(repr=False)
class AssignmentResult(Solved):
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
    maximize: bool = False

    def __iter__(self):  # row_ind, col_ind = result  (like SciPy)
        return iter((self.row_ind, self.col_ind))

    def __repr__(self) -> str:
        return self._repr(f"n_assigned={len(self.row_ind)}, cost={self.cost!r}", self.stats.items())
