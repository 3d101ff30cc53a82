"""The max-flow certificate: a feasible flow whose value equals the capacity of an s-t cut
(max-flow min-cut theorem: both are then optimal).

Soundness (floats). For capacity-feasible arc flows ``0 <= f <= c`` (checked exactly) with imbalances
``delta_v`` at the inner vertices, every s-t cut ``S`` gives ``net_out(s) - sum |delta_v| <= F* <= cap(S)``
(flow decomposition; weak duality), ``F*`` the maximum flow value. The checker bounds each term by the
magnitudes the answer uses: a vertex's imbalance by ``(deg + 1) * u`` times its own throughput (the sum of
the flows on its arcs; ``u`` the unit roundoff of the answer's precision: float32 answers are judged in
float32 terms) plus the rounding of the float64 sums that compute it (``(2 deg + 2) * 2**-53``) and an
absolute ``2**-1074`` per arc (subnormals); ``flow_value`` against the source's net outflow and the sink's
net inflow the same way; ``cap(S)`` (``math.fsum``: correctly rounded) against ``flow_value`` within
``(|cut| + 1) * u * cap(S)``. Then ``|flow_value - F*| <= bound`` (reported by :func:`flow_certificate`),
a rounding-level quantity of the answer's own flows and cut, never of the largest capacity elsewhere. A
non-finite flow, value, sum or tolerance fails. Integer capacities with integer flows are checked exactly.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._graph._flow import as_flow_network

__all__ = ["verify_flow", "flow_certificate", "vertex_balance"]

TINY = 2.0**-1074  # the smallest subnormal: the granularity of every float64
U64 = 2.0**-53


def verify_flow(graph: Any, source: int | None, sink: int | None, result: Any) -> bool:
    """Raise AssertionError unless ``result`` (a FlowResult) is a maximum flow of ``graph``.

    Checks 0 <= flow <= capacity on every input arc, conservation at every vertex but the source and sink,
    net outflow of the source == ``flow_value`` == inflow of the sink, the source side holds the source and
    not the sink, ``cut_edges`` are the arcs leaving it, and their capacity equals ``flow_value``: exactly
    for integers; for floats within the rounding of the answer's own flows and cut (module docstring).
    Returns True.

    Examples
    --------
    >>> from scipy.sparse import csr_array
    >>> import matchflow
    >>> cap = csr_array([[0, 4, 1], [0, 0, 2], [0, 0, 0]])  # s = 0 -> 1 -> t = 2, and s -> t
    >>> res = matchflow.max_flow(cap, 0, 2, backend="cpu")
    >>> matchflow.verify.verify_flow(cap, 0, 2, res), res.flow_value
    (True, 3)
    >>> res.flow_value = 4  # a claim the cut does not back is refused
    >>> matchflow.verify.verify_flow(cap, 0, 2, res)
    Traceback (most recent call last):
    ...
    AssertionError: flow_value 4 differs from the source's net outflow 3 or the sink's net inflow 3 (tolerances 0, 0)
    """
    net = as_flow_network(graph, source, sink)
    problems, _ = flow_certificate(net, result.flow, result.flow_value, result.source_side, result.cut_edges)
    if problems:
        raise AssertionError(problems[0])
    return True


def flow_certificate(net: Any, flow: Any, value: Any, source_side: Any, cut_edges: Any = None
                     ) -> tuple[list[str], float]:
    """``(problems, bound)``: the certificate's failures (empty: proved) and a rigorous bound on
    ``|value - max flow value|`` (0 for proved integers; floats: whenever the flow is capacity-feasible and
    its sums finite, proved or not; ``inf`` where no bound could be formed)."""
    f = np.asarray(flow)
    c = net.capacities
    if f.shape != c.shape:
        return [f"flow has shape {f.shape}, the network has {net.m} arcs"], math.inf
    side = np.asarray(source_side)
    if side.shape != (net.n,) or side.dtype != np.bool_ or not side[net.source] or side[net.sink]:
        return ["source_side must be a boolean mask of n vertices holding the source and not the sink"], math.inf
    crossing = side[net.tails] & ~side[net.heads]
    exact = _as_exact(net, f, value)
    if exact is not None:
        problems = _exact_problems(net, *exact, crossing)
        bound = math.inf if problems else 0.0
    else:
        problems, bound = _float_problems(net, f, value, side, crossing)
    if cut_edges is not None and not np.array_equal(np.sort(np.asarray(cut_edges)), np.flatnonzero(crossing)):
        problems.append("cut_edges are not the arcs leaving source_side")
    return problems, bound


def _as_exact(net: Any, f: np.ndarray, value: Any) -> tuple | None:
    """Integer capacities with integral flows and value: ``(flows, capacities, value)`` as int64 (object
    arrays where a vertex's sums could pass int64); None for the float check."""
    c = net.capacities
    if c.dtype.kind not in "iu":
        return None
    if f.dtype.kind == "f":
        if not (np.all(np.isfinite(f)) and np.all(f == np.round(f)) and np.all(np.abs(f) < 2.0**53)):
            return None
        f = f.astype(np.int64)
    elif f.dtype.kind not in "iu":
        return None
    if isinstance(value, float | np.floating):
        if not (math.isfinite(value) and value == int(value)):
            return None
    elif not isinstance(value, int | np.integer):
        return None
    big = c.size and (float(np.bincount(net.tails, c.astype(np.float64), net.n).max()) >= 2.0**62
                      or float(np.bincount(net.heads, c.astype(np.float64), net.n).max()) >= 2.0**62
                      or float(np.abs(f.astype(np.float64)).max()) >= 2.0**62)
    work = object if big else np.int64
    return f.astype(work), c.astype(work), int(value)


def _exact_problems(net: Any, f: np.ndarray, c: np.ndarray, value: int, crossing: np.ndarray) -> list[str]:
    bad = np.flatnonzero((f < 0) | (f > c))
    if len(bad):
        k = int(bad[0])
        return [f"arc {k} carries flow {f[k]} outside [0, {c[k]}]"]
    fl = np.where(net.tails == net.heads, 0, f).astype(f.dtype)
    out = np.zeros(net.n, dtype=f.dtype)
    np.add.at(out, net.tails, fl)
    np.subtract.at(out, net.heads, fl)
    problems = _balance_problems(net, out, value, np.zeros(net.n))
    cut = sum(int(x) for x in c[crossing]) if f.dtype == object else int(c[crossing].sum())
    if cut != value:
        problems.append(f"the cut's capacity {cut} differs from flow_value {value}: not a maximum flow")
    return problems


def _balance_problems(net: Any, out: np.ndarray, value: Any, tol: np.ndarray) -> list[str]:
    inner = np.ones(net.n, dtype=bool)
    inner[[net.source, net.sink]] = False
    bad = np.flatnonzero(inner & ~(np.abs(out) <= tol))
    if len(bad):
        v = int(bad[0])
        return [f"flow is not conserved at node {v} (net outflow {out[v]}, tolerance {tol[v]:.3g})"]
    s, t = net.source, net.sink  # the source's check carries the inner imbalances on their way to the sink
    if not (abs(out[s] - value) <= tol[s] + math.fsum(tol[inner]) and abs(out[t] + value) <= tol[t]):
        return [f"flow_value {value} differs from the source's net outflow {out[s]} or the sink's net inflow "
                f"{-out[t]} (tolerances {tol[s]:.3g}, {tol[t]:.3g})"]
    return []


def _float_problems(net: Any, f: np.ndarray, value: Any, side: np.ndarray, crossing: np.ndarray
                    ) -> tuple[list[str], float]:
    """The float certificate (module docstring): ``(problems, bound)``."""
    c = net.capacities
    try:
        value = float(value)
    except (TypeError, ValueError, OverflowError):
        return [f"flow_value {value!r} is not a number"], math.inf
    if f.dtype.kind not in "iuf" or not (np.all(np.isfinite(f)) and math.isfinite(value)):
        return ["flow and flow_value must be finite numbers"], math.inf
    u = max(_unit(f.dtype), _unit(c.dtype), U64)  # the answer's own precision
    f64, c64 = f.astype(np.float64), c.astype(np.float64)
    if f64.size and np.any((f64 < 0) | (f64 > c64) | (f64 != f)):
        k = int(np.flatnonzero((f64 < 0) | (f64 > c64) | (f64 != f))[0])
        return [f"arc {k} carries flow {f[k]} outside [0, {c[k]}]"], math.inf
    out, through, tol = vertex_balance(net, f64, u)
    with np.errstate(over="ignore"):
        tol[[net.source, net.sink]] += u * abs(value) * (1 + 2.0**-40)
    if not (np.all(np.isfinite(through)) and np.all(np.isfinite(out)) and np.all(np.isfinite(tol))):
        return ["the flows at a vertex sum beyond float64: nothing is proved"], math.inf
    problems = _balance_problems(net, out, value, tol)
    try:
        cut = math.fsum(c64[crossing])
    except OverflowError:
        cut = math.inf
    k = int(crossing.sum())  # the flow across the cut reaches the sink less the sink side's imbalances
    cut_tol = ((k + 1) * u * cut + math.fsum(tol[~side])) * (1 + 2.0**-40) + TINY
    if not (math.isfinite(cut) and math.isfinite(cut_tol)):
        problems.append("the cut's capacity overflows float64: nothing is proved")
    elif not abs(cut - value) <= cut_tol:
        problems.append(f"the cut's capacity {cut} differs from flow_value {value} by more than the rounding "
                        f"of its {k} arcs ({cut_tol:.3g}): not a maximum flow")
    if not (math.isfinite(cut) and math.isfinite(cut_tol)):
        return problems, math.inf
    # F* <= cap(S); F* >= net_in(t) - sum of the inner imbalances, each within |computed| + its sums' rounding
    gap = np.abs(out) + tol
    gap[net.sink] = abs(out[net.sink] + value) + tol[net.sink]
    gap[net.source] = 0.0
    bound = max(abs(cut - value) * (1 + U64) + cut * U64, math.fsum(gap) * (1 + U64)) * (1 + 2.0**-40)
    return problems, bound


def vertex_balance(net: Any, f64: np.ndarray, u: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per vertex: net outflow, throughput (the sum of the flows on its arcs; self-loops skipped) and the
    certificate's imbalance tolerance (module docstring), all from float64 flows ``f64``."""
    loop = net.tails == net.heads
    fl = np.where(loop, 0.0, f64)
    fo, fi = np.bincount(net.tails, fl, net.n), np.bincount(net.heads, fl, net.n)
    deg = np.bincount(net.tails[~loop], minlength=net.n) + np.bincount(net.heads[~loop], minlength=net.n)
    with np.errstate(over="ignore", invalid="ignore"):
        through = fo + fi
        tol = ((deg + 1) * u + (2 * deg + 2) * U64) * through * (1 + 2.0**-40) + (deg + 1) * TINY
        return fo - fi, through, tol


def _unit(dt: np.dtype) -> float:
    return float(np.finfo(dt).eps) / 2 if dt.kind == "f" else 0.0
