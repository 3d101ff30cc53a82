"""Result objects of the min-cost flow family."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._results import Solved

__all__ = ["MinCostFlowResult", "TransportResult"]


@dataclass(repr=False)
class MinCostFlowResult(Solved):
    """A minimum-cost flow with its certificate.

    ``flow[k]``: the flow on input arc ``k`` (the input's arc order); ``cost``: its total cost (an exact Python int
    for integer costs); ``potential``: node duals with ``cost(v, w) + potential[v] - potential[w] >= 0`` on every
    residual arc (``<= 0`` on arcs that carry flow, ``= 0`` strictly inside the bounds). ``flow_dict``: networkx's
    ``{u: {v: flow}}`` (MultiDiGraph: ``{u: {v: {key: flow}}}``) for a networkx input, else None; ``flow_value``:
    the s-t flow value of :func:`~matchflow.max_flow_min_cost`, else None.
    """

    flow: np.ndarray
    cost: Any
    potential: np.ndarray
    flow_dict: dict | None = None
    flow_value: Any = None

    def __repr__(self) -> str:
        extra = "" if self.flow_value is None else f", flow_value={self.flow_value}"
        return self._repr(f"cost={self.cost}{extra}, arcs={self.flow.size}")


@dataclass(repr=False)
class TransportResult(Solved):
    """An optimal transportation plan: ``plan[i, j]`` units from source ``i`` to target ``j``, ``cost`` =
    ``(plan * C).sum()``, duals ``u``/``v`` with ``u[i] + v[j] <= C[i, j]`` (equality where ``plan > 0``) and
    ``cost == u @ supply + v @ demand`` at an optimum."""

    plan: np.ndarray
    cost: Any
    u: np.ndarray
    v: np.ndarray

    def __repr__(self) -> str:
        return self._repr(f"shape={self.plan.shape}, cost={self.cost}")
