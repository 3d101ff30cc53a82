"""The result of :func:`matchflow.weighted_matching`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._results import Solved

__all__ = ["WeightedMatchingResult"]


@dataclass(repr=False)
class WeightedMatchingResult(Solved):
    """A ½-approximate maximum-weight matching (the greedy matching of the fixed edge order).

    ``mate[v]``: the vertex matched to ``v`` (-1 unmatched); ``weight``: the exact sum of the matched
    edge weights rounded once to float64 (inf where it is beyond float64's range); ``edges``: the matched
    pairs ``(u, v)`` with ``u < v``, shape ``(cardinality, 2)``, sorted by ``u``; ``edge_ids``: for an
    edge-array input, the index of the first input edge joining each matched pair (duplicates are summed
    into one edge), else None.
    """

    mate: np.ndarray
    weight: float
    cardinality: int
    edges: np.ndarray
    edge_ids: np.ndarray | None = None

    def __repr__(self) -> str:
        return self._repr(f"weight={self.weight!r}, cardinality={self.cardinality}, n={len(self.mate)}",
                          self.stats.items())
