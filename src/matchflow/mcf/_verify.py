"""The min-cost flow certificate: feasibility and reduced-cost optimality.

A flow ``x`` is feasible when ``0 <= x <= capacity`` on every arc and ``inflow - outflow = demand`` at every node;
it is optimal when potentials ``p`` make every residual arc's reduced cost ``c(v, w) + p(v) - p(w)`` non-negative:
``>= 0`` where ``x < capacity`` (always on unbounded arcs) and ``<= 0`` where ``x > 0``. Integer data is checked
exactly (Python ints where int64 could wrap). Float costs: for any feasible ``y`` (unbounded arcs bounded by
``Prepared.bound``, which holds an optimum when one exists),
``cost(x) - cost(y) <= sum_e x_e max(0, r_e) + (u_e - x_e) max(0, -r_e)`` (the duality gap of ``p``; Ahuja,
Magnanti & Orlin, Section 9.3); :func:`gap_bound` evaluates it with every reduced cost widened by its rounding error
(``|fl(c + p(v) - p(w)) - r| <= gamma_2 (|c| + |p(v)| + |p(w)|)``) and the products and sum rounded up, so the bound
is proven. A float answer passes when the bound is at most ``FLOAT_RTOL * max(1, sum |c_e| x_e)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._prepare import Prepared, prepare

__all__ = ["verify_min_cost_flow", "certificate", "gap_bound", "exact_dot", "FLOAT_RTOL"]

FLOAT_RTOL = 1e-9
_U = 2.0**-53
_G2 = 2.0000001 * _U  # gamma_2 > 2u / (1 - 2u)


def verify_min_cost_flow(G: Any, demand: Any = None, result: Any = None, *, capacity: Any = None,
                         cost: Any = None) -> list[str]:
    """Check a min-cost flow answer on the problem ``(G, demand, capacity, cost)`` (the arguments of
    :func:`~matchflow.min_cost_flow`). ``result``: a :class:`~matchflow.MinCostFlowResult` or a pair
    ``(flow, potential)``. Returns the list of problems found (empty: proved optimal; for float costs, within
    ``FLOAT_RTOL`` by the proven gap bound of the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import min_cost_flow
    >>> from matchflow.verify import verify_min_cost_flow
    >>> tail, head = np.array([0, 0, 1, 2]), np.array([1, 2, 3, 3])
    >>> demand, cap, cost = np.array([-4, 0, 0, 4]), np.array([3, 3, 3, 3]), np.array([1, 2, 1, 1])
    >>> res = min_cost_flow((tail, head), demand, capacity=cap, cost=cost)
    >>> verify_min_cost_flow((tail, head), demand, res, capacity=cap, cost=cost)
    []
    >>> verify_min_cost_flow((tail, head), demand, (np.array([4, 0, 4, 0]), res.potential), capacity=cap,
    ...                      cost=cost)
    ['arc 0 carries 4, above its capacity 3']

    References
    ----------
    .. [1] Ahuja, R. K., Magnanti, T. L., and Orlin, J. B., "Network Flows: Theory, Algorithms, and
           Applications", Prentice Hall, 1993 (Section 9.3: reduced-cost optimality conditions).
    """
    P = prepare(G, demand, capacity, cost)
    flow, pot = (result.flow, result.potential) if hasattr(result, "flow") else result
    claim = getattr(result, "cost", None)
    problems, _ = certificate(P, flow, pot, claim)
    return problems


def certificate(P: Prepared, flow: Any, potential: Any, claimed_cost: Any = None) -> tuple[list[str], float]:
    """``(problems, gap_bound)`` of ``flow``/``potential`` on the prepared problem (module docstring)."""
    x = np.asarray(flow)
    p = np.asarray(potential)
    if x.shape != (P.m,) or p.shape != (P.n,):
        return [f"flow must have one entry per arc ({P.m}) and potential one per node ({P.n}), got shapes "
                f"{x.shape} and {p.shape}"], math.inf
    if x.dtype.kind == "f" and not (np.isfinite(x).all() and (x == np.round(x)).all()):
        return ["the flow holds a non-integral or non-finite value"], math.inf
    if p.dtype.kind not in "iuf" or (p.dtype.kind == "f" and not np.isfinite(p).all()):
        return ["the potential holds a non-finite value"], math.inf
    xi = [int(v) for v in x.tolist()] if x.dtype.kind == "f" or x.size and np.abs(x).max() >= 2**62 else x
    xi = np.asarray(xi, dtype=object if isinstance(xi, list) else np.int64)
    problems = _feasibility(P, xi)
    if problems:
        return problems, math.inf
    if P.is_float or p.dtype.kind == "f":
        bound = gap_bound(P, x.astype(np.float64), p.astype(np.float64))
        value = float(np.dot(x.astype(np.float64), P.cost.astype(np.float64))) if P.m else 0.0
        scale = float(np.dot(np.abs(x.astype(np.float64)), np.abs(P.cost.astype(np.float64)))) if P.m else 0.0
        if not bound <= FLOAT_RTOL * max(1.0, scale):
            problems.append(f"the optimality gap is only bounded by {bound:.3g} (tolerance "
                            f"{FLOAT_RTOL * max(1.0, scale):.3g})")
        if claimed_cost is not None and not abs(float(claimed_cost) - value) <= 4 * _U * (P.m + 2) * scale + 1e-300:
            problems.append(f"the claimed cost {claimed_cost!r} differs from the flow's cost {value!r}")
        return problems, bound
    problems += _reduced_costs(P, xi, p)
    if claimed_cost is not None:
        value = exact_dot(xi, P.cost)
        if claimed_cost != value:
            problems.append(f"the claimed cost {claimed_cost!r} differs from the flow's cost {value}")
    return problems, 0.0


def exact_dot(x: np.ndarray, c: np.ndarray) -> int:
    """``sum(x * c)`` as an exact Python int (int64 when no product or partial sum can wrap)."""
    if not x.size:
        return 0
    if x.dtype != object and int(np.abs(x).max()) * int(np.abs(c).max()) * x.size < 2**63:
        return int(np.dot(x, c))
    return sum(int(a) * int(b) for a, b in zip(x.tolist(), c.tolist(), strict=True) if a)


def _feasibility(P: Prepared, x: np.ndarray) -> list[str]:
    if P.m:
        lo = np.flatnonzero(x < 0)
        if lo.size:
            return [f"arc {int(lo[0])} carries {x[lo[0]]}, below 0"]
        hi = np.flatnonzero((x > P.cap) & ~P.unbounded)
        if hi.size:
            return [f"arc {int(hi[0])} carries {x[hi[0]]}, above its capacity {P.cap[hi[0]]}"]
    net = np.zeros(P.n, dtype=x.dtype)
    np.add.at(net, P.head, x)
    np.subtract.at(net, P.tail, x)
    bad = np.flatnonzero(net != P.demand)
    if bad.size:
        v = int(bad[0])
        return [f"node {v} receives {net[v]} net, its demand is {P.demand[v]}"]
    return []


def _reduced_costs(P: Prepared, x: np.ndarray, p: np.ndarray) -> list[str]:
    """Exact integer reduced costs: residual arcs must be >= 0."""
    wide = (p.size and np.abs(p).max() >= 2**61) or p.dtype.kind == "f"
    c, pt, ph = (P.cost, p[P.tail], p[P.head]) if not wide else (
        P.cost.astype(object), p.astype(object)[P.tail], p.astype(object)[P.head])
    r = c + pt - ph
    fwd = (x < P.cap) | P.unbounded
    bad = np.flatnonzero((fwd & (r < 0)) | ((x > 0) & (r > 0)))
    if bad.size:
        k = int(bad[0])
        if P.unbounded[k] and r[k] < 0:
            return [f"arc {k} is unbounded with reduced cost {r[k]} < 0 (a negative cycle of unbounded arcs?)"]
        return [f"arc {k} ({int(P.tail[k])} -> {int(P.head[k])}, flow {x[k]}) has reduced cost {r[k]}: the "
                "potentials do not prove optimality"]
    return []


def gap_bound(P: Prepared, x: np.ndarray, p: np.ndarray) -> float:
    """A proven upper bound on ``cost(x) - optimum`` for float costs (module docstring)."""
    if not P.m:
        return 0.0
    c = P.cost.astype(np.float64)
    pt, ph = p[P.tail], p[P.head]
    r = (c + pt) - ph
    err = _G2 * (np.abs(c) + np.abs(pt) + np.abs(ph))
    cap = np.where(P.unbounded, float(P.bound), P.cap.astype(np.float64))
    terms = x * np.maximum(0.0, r + err) + (cap - x) * np.maximum(0.0, err - r)
    total = math.fsum(terms.tolist())  # each product rounded by at most u, fsum correctly rounded
    return total * (1 + 4 * _U) if math.isfinite(total) else math.inf
