"""The min-cost flow problem as arrays: what the DIMACS ``.min`` reader returns and the generators build.

Arcs ``tail[k] -> head[k]`` (0-based) with lower bound ``low``, capacity ``cap`` and cost ``cost`` (int64);
node ``demand`` in the networkx sign convention: ``demand[v] > 0`` receives, ``< 0`` sends (DIMACS's supply is
its negation). Solvers never import it: they take ``(tail, head)``, ``demand``, ``capacity=``, ``cost=``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["MinCostFlowProblem"]


class MinCostFlowProblem:
    """A directed network with lower bounds, capacities, costs and node demands (int64 arrays).

    ``shifted()`` removes nonzero lower bounds by the standard shift; ``to_networkx()`` builds a
    ``networkx.MultiDiGraph`` (lower bounds must be zero) for ``networkx.min_cost_flow_cost``.

    Examples
    --------
    >>> from matchflow.io import MinCostFlowProblem
    >>> p = MinCostFlowProblem(3, [0, 1], [1, 2], [1, 0], [4, 4], [2, 3], [-2, 0, 2])
    >>> p
    MinCostFlowProblem(n=3, m=2, supply=2)
    >>> q, constant = p.shifted()
    >>> q.demand.tolist(), q.cap.tolist(), constant
    ([-1, -1, 2], [3, 4], 2)
    """

    __slots__ = ("n", "tail", "head", "low", "cap", "cost", "demand")

    def __init__(self, n: int, tail: Any, head: Any, low: Any, cap: Any, cost: Any, demand: Any) -> None:
        self.n = int(n)
        self.tail, self.head, self.low, self.cap, self.cost = (
            np.ascontiguousarray(a, dtype=np.int64) for a in (tail, head, low, cap, cost))
        self.demand = np.ascontiguousarray(demand, dtype=np.int64)
        m = len(self.tail)
        for name in ("head", "low", "cap", "cost"):
            a = getattr(self, name)
            if a.shape != (m,):
                raise ValueError(f"{name} must have one entry per arc ({m}), got shape {a.shape}")
        if self.demand.shape != (self.n,):
            raise ValueError(f"demand must have one entry per node ({self.n}), got shape {self.demand.shape}")
        if m and (min(self.tail.min(), self.head.min()) < 0 or max(self.tail.max(), self.head.max()) >= self.n):
            raise ValueError(f"arc ends must lie in 0..{self.n - 1}")

    @property
    def m(self) -> int:
        """The number of arcs."""
        return len(self.tail)

    def __repr__(self) -> str:
        return f"MinCostFlowProblem(n={self.n}, m={self.m}, supply={int(self.demand[self.demand > 0].sum())})"

    def shifted(self) -> tuple[MinCostFlowProblem, int]:
        """The same problem with zero lower bounds and the cost it leaves out.

        ``flow' = flow - low``: each arc's capacity drops by ``low``, its tail sends ``low`` more (its demand
        grows) and its head receives ``low`` less; the constant ``sum(low * cost)`` (an exact Python int) is
        added back to the cost of any solution of the shifted problem. Refuses ``low > cap``.
        """
        bad = np.flatnonzero(self.low > self.cap)
        if bad.size:
            k = int(bad[0])
            raise ValueError(f"arc {k} ({int(self.tail[k])} -> {int(self.head[k])}) has lower bound "
                             f"{int(self.low[k])} above its capacity {int(self.cap[k])}: no feasible flow")
        if not self.low.any():
            return self, 0
        demand = self.demand.copy()
        np.add.at(demand, self.tail, self.low)
        np.subtract.at(demand, self.head, self.low)
        nz = np.flatnonzero(self.low)
        constant = sum(int(a) * int(b) for a, b in zip(self.low[nz].tolist(), self.cost[nz].tolist()))
        zero = np.zeros_like(self.low)
        return MinCostFlowProblem(self.n, self.tail, self.head, zero, self.cap - self.low, self.cost, demand), constant

    def to_networkx(self) -> Any:
        """A ``networkx.MultiDiGraph`` with node ``demand`` and arc ``capacity`` / ``weight`` attributes."""
        import networkx as nx  # noqa: PLC0415 - networkx is optional (the test and bench extras)

        if self.low.any():
            raise ValueError("networkx has no lower bounds: call shifted() first")
        g = nx.MultiDiGraph()
        g.add_nodes_from((v, {"demand": int(d)}) for v, d in enumerate(self.demand.tolist()))
        g.add_edges_from((u, v, {"capacity": c, "weight": w}) for u, v, c, w in
                         zip(self.tail.tolist(), self.head.tolist(), self.cap.tolist(), self.cost.tolist()))
        return g
