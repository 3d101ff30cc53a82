"""Min-cost flow inputs in the DIMACS families (re-exported by :mod:`matchflow.generators`).

* :func:`netgen` - NETGEN-like random networks (sources first, sinks last, transshipment nodes between);
* :func:`gridgen` - GRIDGEN-like grids (4-neighbour arcs both ways, random sources and sinks);
* :func:`goto` - GOTO-like grids on a torus (one source, one sink, long-range arcs, wide costs);
* :func:`transport_instance` - dense transportation problems (supplies, demands, an m x n cost matrix).

**Feasible by construction.** Each network carries a *skeleton*: a path through all nodes along which a
feasible flow is written down before any capacity is drawn. Along a node order ``v_0, ..., v_{n-1}`` the
flow that crosses from ``v_i`` to ``v_{i+1}`` is the prefix sum ``P_i`` of the supplies of ``v_0..v_i``
(it is what the first ``i + 1`` nodes must send to the rest); it goes on the arc ``v_i -> v_{i+1}`` when
``P_i >= 0`` and on ``v_{i+1} -> v_i`` otherwise. Conservation holds at every node (what enters minus
what leaves is ``P_{i-1} - P_i = -supply``), so raising those arcs' capacities to at least ``|P_i|`` makes
the problem feasible whatever the other arcs are. NETGEN adds the skeleton arcs (a random node order);
GRIDGEN and GOTO raise the capacities of grid arcs that already lie on a path (a snake through the grid;
on the torus a path of right and down arcs from the source to the sink). Every generator is NumPy
vectorised and deterministic for a given ``seed``; all arrays are int64; ``demand`` follows networkx
(``demand > 0`` receives: ``-supply``).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ._mcf_problem import MinCostFlowProblem
from ._validation import as_rng as _rng
from ._validation import check_int, type_name

__all__ = ["netgen", "gridgen", "goto", "transport_instance"]

_REFS = """
    References
    ----------
    .. [1] D. Klingman, A. Napier, J. Stutz, "NETGEN: A program for generating large scale capacitated
           assignment, transportation, and minimum cost flow network problems", Management Science 20
           (1974) 814-821.
    .. [2] A. V. Goldberg, "An efficient implementation of a scaling minimum-cost flow algorithm",
           J. Algorithms 22 (1997) 1-29 (the GRIDGEN and GOTO families).
    .. [3] Z. Kiraly, P. Kovacs, "Efficient implementations of minimum-cost flow algorithms", Acta Univ.
           Sapientiae, Informatica 4 (2012) 67-118 (the families as benchmarks).
"""


def _range(name: str, value: Any, low: int) -> tuple[int, int]:
    if not (isinstance(value, tuple) and len(value) == 2):
        raise TypeError(f"{name} must be a (low, high) tuple of integers, got {value!r} of type {type_name(value)}")
    a, b = (check_int(name, v, low=low) for v in value)
    if a > b:
        raise ValueError(f"{name} must be (low, high) with low <= high, got {value!r}")
    return a, b


def _split(total: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` non-negative integers summing to ``total`` (uniform cut points)."""
    cuts = np.sort(rng.integers(0, total, k - 1, endpoint=True))
    return np.diff(np.concatenate([[0], cuts, [total]])).astype(np.int64)


def _draw(rng: np.random.Generator, bounds: tuple[int, int], size: int) -> np.ndarray:
    return rng.integers(bounds[0], bounds[1], size, endpoint=True, dtype=np.int64)


def _path_flow(order: np.ndarray, supply: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The skeleton's feasible flow along ``order`` (see the module notes): (tail, head, flow) per step."""
    p = np.cumsum(supply[order])[:-1]
    fwd = p >= 0
    a, b = order[:-1], order[1:]
    return np.where(fwd, a, b), np.where(fwd, b, a), np.abs(p)


def _raise_capacity(n: int, tail: np.ndarray, head: np.ndarray, cap: np.ndarray, path: tuple) -> None:
    """``cap`` of the arcs on the skeleton ``path`` (which all exist) raised to the flow they carry."""
    keys = tail * n + head
    order = np.argsort(keys, kind="stable")
    pt, ph, flow = path
    at = order[np.searchsorted(keys[order], pt * n + ph)]
    assert np.array_equal(tail[at], pt) and np.array_equal(head[at], ph)
    np.maximum.at(cap, at, flow)


def _grid_nodes(rows: Any, cols: Any, what: str) -> tuple[int, int, int]:
    """``rows`` and ``cols`` checked (at least 1 each) and the node count ``rows * cols``: at least 2 (a source
    and a sink), else a ValueError naming ``what`` (the grid, the torus) and the shape."""
    rows, cols = check_int("rows", rows, low=1), check_int("cols", cols, low=1)
    if rows * cols < 2:
        raise ValueError(f"the {what} must have at least 2 nodes, got {rows} x {cols}")
    return rows, cols, rows * cols


def _supplies(n: int, sources: np.ndarray, sinks: np.ndarray, total: int, rng) -> np.ndarray:
    supply = np.zeros(n, dtype=np.int64)
    supply[sources] = _split(total, len(sources), rng)
    supply[sinks] -= _split(total, len(sinks), rng)
    return supply


def _ends(n: int, sources: Any, sinks: Any, supply: Any) -> tuple[int, int, int]:
    side = max(1, int(round(np.sqrt(n))))
    ns = min(side, n // 2) if sources is None else check_int("sources", sources, low=1)
    nt = min(side, n - ns) if sinks is None else check_int("sinks", sinks, low=1)
    if ns + nt > n:
        raise ValueError(f"sources + sinks must be <= n ({n}), got {ns} + {nt}")
    total = 1000 * ns if supply is None else check_int("supply", supply, low=0)
    return ns, nt, total


def netgen(n: int, m: int, *, sources: int | None = None, sinks: int | None = None, supply: int | None = None,
           cost: tuple[int, int] = (1, 100), capacity: tuple[int, int] = (1, 1000), seed: Any = 0
           ) -> MinCostFlowProblem:
    """A NETGEN-like random min-cost flow network: ``n`` nodes, ``m`` arcs (at least ``n - 1``).

    Sources are nodes ``0 .. sources-1`` and sinks the last ``sinks`` nodes (default ``round(sqrt(n))``
    each); ``supply`` (default ``1000 * sources``) is split at random among the sources and among the
    sinks. ``n - 1`` arcs form the skeleton along a random node order (capacity at least the flow it
    carries, module notes); the others join random distinct nodes. Costs and capacities are uniform in
    the inclusive ranges. Arcs come grouped by tail, as NETGEN writes them.

    Examples
    --------
    >>> import networkx as nx
    >>> from matchflow.generators import netgen
    >>> p = netgen(50, 200, seed=1)
    >>> p
    MinCostFlowProblem(n=50, m=200, supply=7000)
    >>> nx.min_cost_flow_cost(p.to_networkx()) > 0
    True
    """
    n = check_int("n", n, low=2)
    m = check_int("m", m, low=n - 1)
    ns, nt, total = _ends(n, sources, sinks, supply)
    cost, capacity = _range("cost", cost, -(2**40)), _range("capacity", capacity, 0)
    rng = _rng(seed)
    supply_ = _supplies(n, np.arange(ns), np.arange(n - nt, n), total, rng)
    st, sh, sf = _path_flow(rng.permutation(n).astype(np.int64), supply_)
    by_tail = np.argsort(st, kind="stable")
    st, sh, sf = st[by_tail], sh[by_tail], sf[by_tail]
    k = m - (n - 1)
    rt = np.repeat(np.arange(n, dtype=np.int64), np.bincount(rng.integers(0, n, k), minlength=n))  # sorted
    rh = (rt + rng.integers(1, n, k, dtype=np.int64)) % n
    # merge the two tail-sorted lists (skeleton first on ties): arcs come grouped by tail, as NETGEN writes them
    at_s = np.arange(n - 1) + np.searchsorted(rt, st, side="left")
    at_r = np.arange(k) + np.searchsorted(st, rt, side="right")
    tail, head, cap = (np.empty(m, dtype=np.int64) for _ in range(3))
    tail[at_s], tail[at_r], head[at_s], head[at_r] = st, rt, sh, rh
    cap[at_r] = _draw(rng, capacity, k)
    cap[at_s] = np.maximum(_draw(rng, capacity, n - 1), sf)
    return MinCostFlowProblem(n, tail, head, np.zeros(m, np.int64), cap, _draw(rng, cost, m), -supply_)


def gridgen(rows: int, cols: int, *,  # noqa: PLR0913 - the public generator names each GRIDGEN parameter
            degree: int = 4, sources: int | None = None, sinks: int | None = None,
            supply: int | None = None, cost: tuple[int, int] = (1, 100), capacity: tuple[int, int] = (1, 1000),
            seed: Any = 0) -> MinCostFlowProblem:
    """A GRIDGEN-like grid network: ``rows x cols`` nodes, arcs both ways between 4-neighbours, and random
    arcs up to an average out-degree ``degree``; ``sources`` and ``sinks`` (default ``round(sqrt(n))``)
    are random nodes, ``supply`` (default ``1000 * sources``) split among them. The skeleton is the snake
    through the rows (module notes): its arcs' capacities are raised to the flow they carry.

    Examples
    --------
    >>> import networkx as nx
    >>> from matchflow.generators import gridgen
    >>> p = gridgen(6, 8, seed=2)
    >>> p.n, p.m == 4 * 6 * 8
    (48, True)
    >>> nx.min_cost_flow_cost(p.to_networkx()) > 0
    True
    """
    rows, cols, n = _grid_nodes(rows, cols, "grid")
    degree = check_int("degree", degree, low=0)
    ns, nt, total = _ends(n, sources, sinks, supply)
    cost, capacity = _range("cost", cost, -(2**40)), _range("capacity", capacity, 0)
    rng = _rng(seed)
    ids = np.arange(n, dtype=np.int64).reshape(rows, cols)
    pairs = [(ids[:, :-1], ids[:, 1:]), (ids[:-1, :], ids[1:, :])]
    a = np.concatenate([x.ravel() for x, _ in pairs])
    b = np.concatenate([y.ravel() for _, y in pairs])
    k = max(degree * n - 2 * len(a), 0)
    rt = rng.integers(0, n, k, dtype=np.int64)
    rh = (rt + rng.integers(1, n, k, dtype=np.int64)) % n
    tail, head = np.concatenate([a, b, rt]), np.concatenate([b, a, rh])
    ends = rng.permutation(n)
    supply_ = _supplies(n, ends[:ns], ends[ns:ns + nt], total, rng)
    snake = ids.copy()
    snake[1::2] = snake[1::2, ::-1]
    cap = _draw(rng, capacity, len(tail))
    _raise_capacity(n, tail, head, cap, _path_flow(snake.ravel(), supply_))
    return MinCostFlowProblem(n, tail, head, np.zeros(len(tail), np.int64), cap, _draw(rng, cost, len(tail)),
                              -supply_)


def goto(rows: int, cols: int, *, degree: int = 8, supply: int | None = None, reach: int = 4,
         cost: tuple[int, int] = (1, 10**4), capacity: tuple[int, int] = (1, 1000), seed: Any = 0
         ) -> MinCostFlowProblem:
    """A GOTO-like ("grid on torus") network: ``rows x cols`` nodes on a torus, each with arcs to its right
    and lower neighbours (wrapping) and ``degree - 2`` arcs to random nodes within ``reach`` rows and
    columns; one source (node 0) and one sink (the end of the path of right and down arcs that visits
    every node from the source, module notes), ``supply`` (default ``capacity[1] * cols``) units between
    them; a wide cost range (default 1..10^4). Costs are not tied to arc length as in Goldberg's GOTO.

    Examples
    --------
    >>> import networkx as nx
    >>> from matchflow.generators import goto
    >>> p = goto(5, 6, degree=4, seed=3)
    >>> p.n, p.m, int(p.demand.min()), int((p.demand != 0).sum())
    (30, 120, -6000, 2)
    >>> nx.min_cost_flow_cost(p.to_networkx()) > 0
    True
    """
    rows, cols, n = _grid_nodes(rows, cols, "torus")
    degree = check_int("degree", degree, low=2)
    reach = check_int("reach", reach, low=1)
    cost, capacity = _range("cost", cost, -(2**40)), _range("capacity", capacity, 0)
    total = capacity[1] * cols if supply is None else check_int("supply", supply, low=0)
    rng = _rng(seed)
    r, c = np.divmod(np.arange(n, dtype=np.int64), cols)
    k = (degree - 2) * n
    src = rng.integers(0, n, k, dtype=np.int64)
    dr, dc = rng.integers(-reach, reach, (2, k), endpoint=True, dtype=np.int64)
    dc[(dr == 0) & (dc == 0)] = 1
    far = (r[src] + dr) % rows * cols + (c[src] + dc) % cols
    tail = np.concatenate([np.arange(n), np.arange(n), src])
    head = np.concatenate([r * cols + (c + 1) % cols, (r + 1) % rows * cols + c, far])
    # the path: row i from column (-i) mod cols on, by right arcs, then one down arc
    path = ((np.arange(rows)[:, None] * cols) + (np.arange(cols)[None, :] - np.arange(rows)[:, None]) % cols).ravel()
    supply_ = np.zeros(n, dtype=np.int64)
    supply_[path[0]], supply_[path[-1]] = total, -total
    cap = _draw(rng, capacity, len(tail))
    step = path[:-1]
    on_path = np.where(r[path[1:]] == r[step], step, n + step)  # right arc k is arc k, down arc k is arc n + k
    np.maximum.at(cap, on_path, total)  # the path's flow is ``total`` on every step
    return MinCostFlowProblem(n, tail, head, np.zeros(len(tail), np.int64), cap, _draw(rng, cost, len(tail)),
                              -supply_)


def transport_instance(m: int, n: int | None = None, *, total: int | None = None, cost: tuple[int, int] = (0, 1000),
                       metric: str = "uniform", seed: Any = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A dense transportation problem ``(supply, demand, C)``: ``m`` positive supplies and ``n`` positive
    demands (default ``n = m``), each side summing to ``total`` (default ``100 * max(m, n)``), and an
    ``m x n`` int64 cost matrix: uniform in ``cost`` (``metric="uniform"``) or the Euclidean distances
    of random points in the unit square scaled to ``cost[1]`` and rounded (``"euclidean"``, the optimal
    transport use). Balanced, with every pair an arc: always feasible.

    Examples
    --------
    >>> from matchflow.generators import transport_instance
    >>> s, d, C = transport_instance(3, 4, total=20, seed=0)
    >>> C.shape, int(s.sum()), int(d.sum()), bool((s > 0).all() and (d > 0).all())
    ((3, 4), 20, 20, True)
    """
    m = check_int("m", m, low=1)
    n = m if n is None else check_int("n", n, low=1)
    total = 100 * max(m, n) if total is None else check_int("total", total, low=max(m, n))
    cost = _range("cost", cost, -(2**40))
    if metric not in ("uniform", "euclidean"):
        raise ValueError(f"metric must be one of ('uniform', 'euclidean'), got {metric!r}")
    rng = _rng(seed)
    supply = 1 + _split(total - m, m, rng)
    demand = 1 + _split(total - n, n, rng)
    if metric == "uniform":
        return supply, demand, rng.integers(cost[0], cost[1], (m, n), endpoint=True, dtype=np.int64)
    from scipy.spatial.distance import cdist  # noqa: PLC0415 - scipy.spatial costs ~0.4 s at import; only metric="euclidean" needs it

    d = cdist(rng.random((m, 2)), rng.random((n, 2)))
    return supply, demand, np.rint(d * (cost[1] / np.sqrt(2.0))).astype(np.int64)


for _f in (netgen, gridgen, goto, transport_instance):  # cleaned first: Python 3.13 dedents docstrings at compile time
    _f.__doc__ = inspect.cleandoc(_f.__doc__) + "\n\n" + inspect.cleandoc(_REFS) + "\n"
