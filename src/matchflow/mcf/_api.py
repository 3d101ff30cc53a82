"""Public API of the min-cost flow family: the doors.

* :func:`min_cost_flow` — a minimum-cost flow meeting node demands (edge list, scipy.sparse or networkx input);
* :func:`max_flow_min_cost` — a maximum s-t flow of least cost (networkx's ``max_flow_min_cost``);
* :func:`transport` — dense transportation / exact optimal transport.

Each door validates once (:func:`._prepare.prepare`), places the method (:mod:`matchflow._methods`, the table in
:mod:`._methods`), checks feasibility (a max-flow from a super source, :func:`matchflow.max_flow`), runs the row's
solve, decides unboundedness by the exact potentials, certifies the answer (:func:`._verify.certificate`) and builds
the result. No per-method code lives here.
"""

from __future__ import annotations

import dataclasses
import inspect
import time
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._graph import FlowNetwork
from .._methods import check_method_options, place, resolve
from ..flow import max_flow
from ._methods import TABLE
from ._prepare import Prepared, prepare, with_demand
from ._result import MinCostFlowResult, TransportResult
from ._verify import FLOAT_RTOL, certificate, exact_dot

__all__ = ["min_cost_flow", "max_flow_min_cost", "transport", "METHODS", "FLOAT_RTOL"]

METHODS = TABLE.names

_REFS = """
    References
    ----------
    .. [1] Goldberg, A. V., "An efficient implementation of a scaling minimum-cost flow algorithm", Journal of
           Algorithms 22(1), 1-29, 1997. DOI:10.1006/jagm.1995.0805
    .. [2] Goldberg, A. V., and Tarjan, R. E., "Finding minimum-cost circulations by successive approximation",
           Mathematics of Operations Research 15(3), 430-466, 1990. DOI:10.1287/moor.15.3.430
    .. [3] Ahuja, R. K., Magnanti, T. L., and Orlin, J. B., "Network Flows: Theory, Algorithms, and
           Applications", Prentice Hall, 1993.
"""


def min_cost_flow(G: Any, demand: Any = None, *, capacity: Any = None, cost: Any = None, method: str = "auto",
                  backend: str = "auto", **options: Any) -> MinCostFlowResult:
    """A minimum-cost flow meeting the node demands.

    Parameters
    ----------
    G : (a) a tuple ``(tail, head)`` of 1-D integer arrays (arc ``k`` is ``tail[k] -> head[k]``; n =
        ``len(demand)``; parallel arcs and self-loops allowed); (b) a square scipy.sparse matrix: the arcs are its
        stored entries in canonical CSR order (duplicates summed as SciPy does; stored zeros are arcs);
        (c) a networkx DiGraph / MultiDiGraph with node attribute ``demand`` and edge attributes ``capacity``
        (absent: unbounded) and ``weight`` (absent: 0), as ``networkx.min_cost_flow`` reads them.
    demand : length n, networkx's sign: ``demand[v] > 0`` receives, ``< 0`` sends; sums to 0 (None for (c)).
    capacity : (a) one entry per arc (None: every arc unbounded; ``np.inf``: that arc unbounded); (b) a sparse
        matrix of G's pattern (None: G's values). Integral, non-negative.
    cost : (a) one entry per arc (None: 0); (b) a sparse matrix of G's pattern. Integers are exact
        (``max|cost| * (n + 1) < 2**60``, else OverflowError); floats are scaled by a power of two and rounded to
        integers (exact when they are multiples of it), and the answer's gap is bounded by the certificate
        (``stats["gap_bound"]``, proven; a RuntimeWarning above ``FLOAT_RTOL`` of the cost).
    method : ``"auto"``, ``"network-simplex"`` (primal network simplex, block search pricing; option
        ``block_size``) or ``"cost-scaling"`` (Goldberg's CS2 refine: FIFO push/relabel; options ``alpha``, the
        scaling factor, default 8, ``price_updates``, ``lookahead`` and ``price_refine``, the rounds of CS2's price
        refinement that may skip a phase, default 4, 0: off). ``"auto"``: network simplex up to 5000 nodes (and up
        to 10^4 where arcs >= 16 nodes), cost scaling beyond (measured, docs/notes/mcf.md).
    backend : ``"auto"``, ``"cpu"`` or ``"gpu"`` (``"cost-scaling"`` only: a parallel push-relabel refine with
        GPU options ``block_size``, ``cycle``, ``check_every``, ``max_rounds``, ``alpha``; not measured yet, so
        ``"auto"`` runs the CPU).

    Returns
    -------
    MinCostFlowResult: ``flow`` per input arc, ``cost`` (an exact int for integer costs), ``potential``
    (``cost(v, w) + potential[v] - potential[w] >= 0`` on every residual arc), ``flow_dict`` (networkx input),
    ``method``, ``backend``, ``stats`` (``phases``, ``pushes``, ``relabels``, ``seconds_<stage>``).

    Raises ValueError when the demands do not sum to 0 (naming the sum), cannot be met (naming the unmet amount),
    or a negative-cost cycle of unbounded arcs makes the cost unbounded; and for malformed arguments.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import min_cost_flow
    >>> tail, head = np.array([0, 0, 1, 2]), np.array([1, 2, 3, 3])
    >>> res = min_cost_flow((tail, head), [-4, 0, 0, 4], capacity=[3, 3, 3, 3], cost=[1, 2, 1, 1])
    >>> res.cost, res.flow.tolist()
    (9, [3, 1, 3, 1])

    A networkx user changes one line (``nx.min_cost_flow(G)`` -> ``min_cost_flow(G).flow_dict``):

    >>> import networkx as nx
    >>> G = nx.DiGraph()
    >>> G.add_node("a", demand=-5); G.add_node("d", demand=5)
    >>> G.add_edge("a", "b", weight=3, capacity=4); G.add_edge("a", "c", weight=6, capacity=10)
    >>> G.add_edge("b", "d", weight=1, capacity=9); G.add_edge("c", "d", weight=2, capacity=5)
    >>> min_cost_flow(G).flow_dict == nx.min_cost_flow(G)
    True
    >>> min_cost_flow(G).cost == nx.min_cost_flow_cost(G)
    True
    """
    row, backend = resolve(TABLE, method, backend)
    P = prepare(G, demand, capacity, cost)
    return _run(P, row, backend, options)


def _with_refs(f, refs: str = _REFS) -> None:
    """Append the References section; both parts cleaned (Python 3.13 dedents docstrings when it compiles them, so an
    indented section appended as it is would not line up with the body)."""
    f.__doc__ = inspect.cleandoc(f.__doc__) + "\n\n" + inspect.cleandoc(refs) + "\n"


_with_refs(min_cost_flow)


def max_flow_min_cost(G: Any, s: Any, t: Any, *, capacity: Any = None, cost: Any = None, n: int | None = None,
                      method: str = "auto", backend: str = "auto", **options: Any) -> MinCostFlowResult:
    """A maximum ``s``-``t`` flow of least cost (``networkx.max_flow_min_cost``'s meaning).

    ``G``, ``capacity``, ``cost`` as in :func:`min_cost_flow` (node demands of a networkx graph are ignored, as
    networkx does); the edge-list form takes the node count ``n`` (default: the largest node id + 1).
    ``result.flow_value`` is the maximum flow value (a max-flow first, :func:`matchflow.max_flow`), then the
    cheapest flow of that value; ValueError ("unbounded") when an s-t path of unbounded arcs exists.

    Examples
    --------
    >>> import networkx as nx
    >>> from matchflow import max_flow_min_cost
    >>> G = nx.DiGraph()
    >>> G.add_edge("s", "a", capacity=3, weight=1); G.add_edge("s", "b", capacity=2, weight=5)
    >>> G.add_edge("a", "t", capacity=2, weight=1); G.add_edge("b", "t", capacity=3, weight=1)
    >>> G.add_edge("a", "b", capacity=1, weight=1)
    >>> res = max_flow_min_cost(G, "s", "t")
    >>> res.flow_value, res.cost, nx.cost_of_flow(G, nx.max_flow_min_cost(G, "s", "t"))
    (5, 19, 19)
    """
    row, backend = resolve(TABLE, method, backend)
    if isinstance(G, tuple | list) and len(G) == 2:
        ids = [np.asarray(a).max() for a in G if np.asarray(a).size]
        nn = n if n is not None else int(max([*ids, s, t])) + 1
        P = prepare(G, np.zeros(nn, np.int64), capacity, cost)
    elif sp.issparse(G):
        P = prepare(G, np.zeros(G.shape[0], np.int64), capacity, cost)
    else:
        P = prepare(G, None, capacity, cost, ignore_demand=True)
    si, ti = _node(P, "s", s), _node(P, "t", t)
    if si == ti:
        raise ValueError(f"s and t must differ, both are {s!r}")
    net = FlowNetwork(P.n, si, ti, P.tail, P.head, P.cap)
    value = max_flow(net, backend="cpu").flow_value
    if value >= P.bound:
        raise ValueError(f"unbounded: a path of unbounded arcs joins s={s!r} to t={t!r}, the maximum flow is infinite")
    d = np.zeros(P.n, np.int64)
    d[si] -= value
    d[ti] += value
    res = _run(with_demand(P, d), row, backend, options, feasible=True)
    res.flow_value = int(value)
    return res


_with_refs(max_flow_min_cost)


def transport(supply: Any, demand: Any, C: Any, *, method: str = "auto", backend: str = "auto",
              **options: Any) -> TransportResult:
    """An optimal transportation plan for the dense cost matrix ``C`` (m x n): exact optimal transport.

    ``supply`` (m) and ``demand`` (n): non-negative with equal sums. Integral masses are exact; float masses
    (probability vectors) are multiplied by ``2**k`` (the largest with the total below 2**40) and rounded to
    integers keeping the sums equal: the plan's marginals then match the inputs within ``2**-k`` per entry
    (``stats["mass_scale"]``, ``stats["marginal_error"]``). Costs as in :func:`min_cost_flow`.

    Returns a :class:`~matchflow.mcf.TransportResult`: ``plan`` (m x n), ``cost``, duals ``u``, ``v``
    (``u[i] + v[j] <= C[i, j]``, equal where the plan is positive).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import transport
    >>> res = transport([2, 3], [1, 4], np.array([[1, 5], [3, 1]]))
    >>> res.plan.tolist(), res.cost
    ([[1, 1], [0, 3]], 9)
    >>> bool(res.u @ [2, 3] + res.v @ [1, 4] == res.cost)
    True
    """
    row, backend = resolve(TABLE, method, backend)
    C = np.asarray(C)
    if C.ndim != 2:
        raise ValueError(f"C must be a 2-D cost matrix, got shape {C.shape}")
    m, n = C.shape
    a, b, scale = _masses(supply, demand, m, n)
    tail = np.repeat(np.arange(m, dtype=np.int64), n)
    head = np.tile(np.arange(m, m + n, dtype=np.int64), m)
    cap = np.full(m * n, np.inf)
    P = prepare((tail, head), np.concatenate([-a, b]), cap, C.reshape(-1))
    res = _run(P, row, backend, options, feasible=True)
    plan = res.flow.reshape(m, n)
    if scale != 1:
        plan = plan / scale
    stats = dict(res.stats, mass_scale=scale)
    if scale != 1:
        stats["marginal_error"] = float(max(np.abs(plan.sum(1) - np.asarray(supply, float)).max(initial=0),
                                            np.abs(plan.sum(0) - np.asarray(demand, float)).max(initial=0)))
    cost = res.cost if scale == 1 else float((plan * C).sum())
    u, v = -res.potential[:m], res.potential[m:]
    return TransportResult(plan=plan, cost=cost, u=u, v=v, method=res.method, backend=res.backend,
                           seconds=res.seconds, stats=stats)


_with_refs(transport, _REFS.replace("Applications\", Prentice Hall, 1993.", "Applications\", Prentice Hall, 1993.\n"
    "    .. [4] Flamary, R., et al., \"POT: Python Optimal Transport\", Journal of Machine Learning Research 22(78),\n"
    "           1-8, 2021 (``ot.emd``, the network-simplex peer)."))


def _masses(supply: Any, demand: Any, m: int, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    a, b = np.asarray(supply), np.asarray(demand)
    for name, x, k in (("supply", a, m), ("demand", b, n)):
        if x.shape != (k,):
            raise ValueError(f"{name} must have one entry per {'row' if name == 'supply' else 'column'} of C "
                             f"({k}), got shape {x.shape}")
        if x.dtype.kind not in "iuf" or (x.dtype.kind == "f" and not np.isfinite(x).all()) or (x < 0).any():
            raise ValueError(f"{name} must be finite and non-negative, got {x!r}")
    if a.dtype.kind != "f" and b.dtype.kind != "f" or ((a == np.round(a)).all() and (b == np.round(b)).all()):
        a, b = a.astype(np.int64), b.astype(np.int64)
        if a.sum() != b.sum():
            raise ValueError(f"supply and demand must have equal sums, got {a.sum()} and {b.sum()}")
        return a, b, 1
    sa, sb = float(a.sum()), float(b.sum())
    if abs(sa - sb) > 1e-9 * max(sa, sb):
        raise ValueError(f"supply and demand must have equal sums, got {sa!r} and {sb!r}")
    scale = 2.0 ** int(np.floor(np.log2(2.0**40 / max(sa, sb, 1e-300))))
    ai, bi = _round_to(a * scale, round(sa * scale)), _round_to(b * scale, round(sa * scale))
    return ai, bi, scale


def _round_to(x: np.ndarray, total: int) -> np.ndarray:
    """Integers near ``x`` summing to ``total`` (largest remainders)."""
    r = np.floor(x).astype(np.int64)
    short = total - int(r.sum())
    order = np.argsort(-(x - r), kind="stable")
    if short > 0:
        r[order[:short]] += 1
    elif short < 0:
        r[order[::-1][:-short]] -= 1
    return np.maximum(r, 0)


def _node(P: Prepared, name: str, v: Any) -> int:
    if P.nodes is not None:
        try:
            return P.nodes.index(v)
        except ValueError:
            raise ValueError(f"{name} {v!r} is not a node of the graph") from None
    if isinstance(v, bool) or not isinstance(v, int | np.integer) or not 0 <= int(v) < P.n:
        raise ValueError(f"{name} must be a node id in 0..{P.n - 1}, got {v!r}")
    return int(v)


def _run(P: Prepared, row: Any, backend: str, options: dict, feasible: bool = False) -> MinCostFlowResult:
    row, device = place(TABLE, row, backend, lambda: P, options)
    opts = check_method_options(TABLE, row, device, options)
    t0 = time.perf_counter()
    stats: dict[str, Any] = {}
    if not feasible:
        _check_feasible(P)
    t1 = time.perf_counter()
    flow, pot, solve_stats = (row.gpu if device == "gpu" else row.cpu)(P, **opts)
    stats.update(solve_stats)
    t2 = time.perf_counter()
    r = P.icost[P.unbounded] + pot[P.tail[P.unbounded]] - pot[P.head[P.unbounded]]
    if (r < 0).any():
        k = int(np.flatnonzero(P.unbounded)[int(np.flatnonzero(r < 0)[0])])
        raise ValueError(f"unbounded: a negative-cost cycle of unbounded arcs exists (arc {k}: "
                         f"{int(P.tail[k])} -> {int(P.head[k])} lies on one); the cost has no minimum")
    potential = pot if not P.is_float else pot / P.scale
    if P.is_float and P.exact:  # dyadic float costs: the exact integer certificate on cost * scale
        problems, bound = certificate(dataclasses.replace(P, cost=P.icost), flow, pot)
    else:
        problems, bound = certificate(P, flow, potential)
    t3 = time.perf_counter()
    if problems and not P.is_float:
        raise RuntimeError(f"min_cost_flow: the answer failed its certificate: {problems[0]}")
    if P.is_float:
        stats["gap_bound"] = bound
        stats["exact_costs"] = P.exact
        if problems:
            warnings.warn(f"min_cost_flow: float costs rounded at scale {P.scale}: {problems[0]}", RuntimeWarning,
                          stacklevel=3)
    stats.update(seconds_feasibility=t1 - t0, seconds_solve=t2 - t1, seconds_certify=t3 - t2)
    value = exact_dot(flow, P.cost) if not P.is_float else float(np.dot(flow.astype(np.float64), P.cost))
    res = MinCostFlowResult(flow=flow, cost=value, potential=potential, method=row.name, backend=device,
                            seconds=time.perf_counter() - t0, stats=stats)
    if P.nodes is not None:
        res.flow_dict = _flow_dict(P, flow)
    return res


def _check_feasible(P: Prepared) -> None:
    """ValueError naming the unmet amount when no flow meets the demands (a max-flow from a super source)."""
    supply = int(P.demand[P.demand > 0].sum()) if P.n else 0
    if supply == 0:
        return
    send, recv = np.flatnonzero(P.demand < 0), np.flatnonzero(P.demand > 0)
    S, T = P.n, P.n + 1
    tail = np.concatenate([P.tail, np.full(send.size, S), recv])
    head = np.concatenate([P.head, send, np.full(recv.size, T)])
    cap = np.concatenate([P.cap, -P.demand[send], P.demand[recv]])
    value = int(max_flow(FlowNetwork(P.n + 2, S, T, tail, head, cap), backend="cpu").flow_value)
    if value < supply:
        raise ValueError(f"infeasible: the demands cannot be met, {supply - value} of {supply} units cannot be sent "
                         "within the capacities")


def _flow_dict(P: Prepared, flow: np.ndarray) -> dict:
    """networkx's flow dict: ``{u: {v: flow}}`` (MultiDiGraph: ``{u: {v: {key: flow}}}``), every node and arc."""
    out: dict = {v: {} for v in P.nodes}
    for key, f in zip(P.edges, flow.tolist(), strict=True):
        if P.multigraph:
            out[key[0]].setdefault(key[1], {})[key[2]] = f
        else:
            out[key[0]][key[1]] = f
    return out

