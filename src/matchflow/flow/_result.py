"""Result objects of the flow family."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._results import Solved

__all__ = ["FlowResult", "GridCutResult"]


@dataclass(repr=False)
class FlowResult(Solved):
    """Maximum s-t flow with its minimum cut (the certificate: the cut's capacity equals ``flow_value``).

    ``flow[k]`` is the flow on input arc ``k`` (the network's capacity dtype; 0 on self-loops);
    ``source_side`` the boolean mask of vertices reachable from the source in the residual graph;
    ``cut_edges`` the input arcs from the source side to the sink side (all saturated).
    """

    flow_value: Any
    flow: np.ndarray
    source_side: np.ndarray
    cut_edges: np.ndarray
    tol: float = 0.0

    def __repr__(self) -> str:
        untimed = ((k, v) for k, v in self.stats.items() if not k.startswith("seconds"))
        return self._repr(f"flow_value={self.flow_value}, cut_edges={len(self.cut_edges)}", untimed)


@dataclass(repr=False)
class GridCutResult(Solved):
    """Minimum s-t cut of a grid: ``labels`` True on the source side (shape of the grid),
    ``flow_value`` the cut's capacity (= minimum energy up to the unary constant)."""

    labels: np.ndarray
    flow_value: Any
    connectivity: int

    def __repr__(self) -> str:
        return self._repr(f"shape={self.labels.shape}, flow_value={self.flow_value}, connectivity={self.connectivity}")
