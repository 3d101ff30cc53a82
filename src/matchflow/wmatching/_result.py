"""The result of :func:`matchflow.weighted_matching`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["WeightedMatchingResult"]


@dataclass(repr=False)
class WeightedMatchingResult:
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
    method: str
    backend: str
    seconds: float
    edge_ids: np.ndarray | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        st = ", ".join(f"{k}={v}" for k, v in self.stats.items())
        return (f"WeightedMatchingResult(weight={self.weight!r}, cardinality={self.cardinality}, n={len(self.mate)}, "
                f"method={self.method!r}, backend={self.backend!r}, seconds={self.seconds:.4g}"
                + (f", {st}" if st else "") + ")")
