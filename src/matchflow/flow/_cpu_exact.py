"""Float answers made sound: :func:`certify_float` runs the certificate on a solve's answer, carries the
round-off left at inner vertices to the terminals, and re-solves exactly where the answer is still not proved.

Exact re-solves: every float is an integer times a power of two, so the capacities times ``2**-e`` (``e`` the
lowest set bit's exponent) are integers. :func:`scaled_int64` gives them as int64 where they fit (the
solvers' own kernels then run exactly); :func:`python_int_max_flow` solves with Python integers (Dinic: BFS
levels, then augmenting paths in the level graph) where they do not, on small networks."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import numpy as np

from .._graph import FlowNetwork
from .._graph._flow import check_overflow
from ._cpu_push_relabel import residual_reach_kernel, return_roundoff_kernel
from ._verify import flow_certificate, vertex_balance

__all__ = ["binary_scale", "scaled_int64", "python_int_max_flow", "to_float", "solve_and_cut", "certify_float",
           "solve_network"]

EXACT_MAX_ARCS = 4096  # Python-integer re-solves only up to this many arcs (pure Python: ~10 us per arc scan)


def solve_network(net: FlowNetwork, solve: Any, opts: dict, exact: Any, exact_opts: dict) -> tuple:
    """``(value, per-arc flow, source side, cut arcs, tol, stats)`` of ``solve(net, **opts)``, the integer sums
    checked first; a float answer certified, or re-solved exactly by ``exact(net, **exact_opts)``
    (:func:`certify_float`). ``value`` a Python int or float, ``flow`` of the capacities' dtype."""
    check_overflow(net)
    value, flow, side, cut, tol, stats = solve_and_cut(net, solve, opts)
    dt = net.capacities.dtype
    if dt.kind == "f":
        value, flow, side, cut, stats = certify_float(net, exact, exact_opts, value, flow, side, cut, stats)
    value = value.item() if dt.kind == "f" else int(value)
    return value, flow.astype(dt, copy=False), side, cut, tol, stats


def solve_and_cut(net: FlowNetwork, solve: Any, opts: dict) -> tuple:
    """``(value, per-arc flow, source side, cut arcs, tol, stats)`` of one solve."""
    value, flow, cap, tol, stats = solve(net, **opts)
    side = residual_reach_kernel(net.n, net.source, net.indptr, net.head, cap, tol)
    loop = net.tails == net.heads
    cut = np.flatnonzero(side[net.tails] & ~side[net.heads] & ~loop)
    if flow.dtype.kind == "f":
        value = _sink_inflow(net, flow)
    return value, flow, side, cut, tol, stats


def _sink_inflow(net: FlowNetwork, flow: np.ndarray) -> np.float64:
    """The sink's net inflow, correctly rounded (floats: not the solver's running sum)."""
    loop = net.tails == net.heads
    return np.float64(math.fsum(flow[(net.heads == net.sink) & ~loop]) -
                      math.fsum(flow[(net.tails == net.sink) & ~loop]))


def _return_roundoff(net: FlowNetwork, flow: np.ndarray) -> np.ndarray | None:
    """Floats: the flow with the round-off left at inner vertices carried to the terminals
    (``return_roundoff_kernel``); None where the walk was cut short."""
    f = flow.astype(np.float64)  # a copy (the solvers' float flows are float64)
    out, _, tol = vertex_balance(net, f, 2.0**-53)
    inner = np.ones(net.n, dtype=bool)
    inner[[net.source, net.sink]] = False
    bad = np.flatnonzero(inner & (np.abs(out) > tol / 4))
    slack = np.where(inner, np.maximum(tol / 4 - np.abs(out), 0.0), 0.0)
    ok = return_roundoff_kernel(net.source, net.sink, net.tails, net.heads, f, net.indptr, net.rev, net.arc, bad,
                                -out[bad], slack, 8 * (net.n + len(net.head)) + 64)
    return f if ok else None


def certify_float(net: FlowNetwork, cpu_solve: Any, opts: dict, value: Any, flow: np.ndarray, side: np.ndarray,
                  cut: np.ndarray, stats: dict) -> tuple:
    """Float answers pass the sound certificate (``stats["float_bound"]``: a proved bound on the distance of
    ``flow_value`` from the maximum) or are re-solved exactly (``stats["exact_resolve"]``): in scaled int64
    where the capacities' binary exponents span at most 62 bits (and the sums fit), else in Python integers
    up to ``EXACT_MAX_ARCS`` arcs; beyond, the answer comes with its bound and a RuntimeWarning (pointing at
    the caller of the entry point that calls this)."""
    dt = net.capacities.dtype
    problems, bound = flow_certificate(net, flow.astype(dt), value, side, cut)
    repaired = _return_roundoff(net, flow) if problems else None
    if repaired is not None:
        fixed = flow_certificate(net, repaired.astype(dt), _sink_inflow(net, repaired), side, cut)
        if not fixed[0]:
            flow, value, (problems, bound) = repaired, _sink_inflow(net, repaired), fixed
            stats["roundoff_returned"] = True
    scale = binary_scale(net.capacities) if problems else None
    if scale is not None:
        e, top = scale
        inet = scaled_int64(net, e) if top - e <= 62 else None
        try:
            check_overflow(inet) if inet is not None else None
        except OverflowError:
            inet = None
        if inet is not None:
            ivalue, iflow, side, cut, _, _ = solve_and_cut(inet, cpu_solve, opts)
            value, flow = np.float64(to_float(int(ivalue), e)), np.ldexp(iflow.astype(np.float64), e)
            stats["exact_resolve"] = "int64"
        elif net.m <= EXACT_MAX_ARCS:
            value, flow, side = python_int_max_flow(net, e)
            value = np.float64(value)
            cut = np.flatnonzero(side[net.tails] & ~side[net.heads] & (net.tails != net.heads))
            stats["exact_resolve"] = "python-int"
        if "exact_resolve" in stats:
            problems, bound = flow_certificate(net, flow.astype(dt), value, side, cut)
    stats["float_bound"] = bound
    if problems:
        warnings.warn(f"max_flow: the float answer is not proved to rounding ({problems[0]}); flow_value is "
                      f"within {bound:.3g} of the maximum (stats['float_bound'])", RuntimeWarning, stacklevel=4)
    return value, flow, side, cut, stats


def binary_scale(values: np.ndarray) -> tuple[int, int] | None:
    """``(e, top)``: every nonzero of the finite ``values`` (capacities) is an integer times ``2**e`` and below
    ``2**top`` in magnitude; None if all are 0."""
    c = np.abs(np.asarray(values, dtype=np.float64))
    nz = c[c != 0]
    if nz.size == 0:
        return None
    mant, ex = np.frexp(nz)
    low = np.ldexp(mant, 53).astype(np.int64)
    low &= -low
    return int((ex - 53 + np.round(np.log2(low)).astype(np.int64)).min()), int(ex.max())


def scaled_int64(net: FlowNetwork, e: int) -> FlowNetwork:
    """The network with capacities times ``2**-e`` as exact int64 (the caller checked they fit)."""
    c = np.ldexp(net.capacities.astype(np.float64), -e).astype(np.int64)
    return FlowNetwork(net.n, net.source, net.sink, net.tails, net.heads, c)


def to_float(x: int, e: int) -> float:
    """``x * 2**e`` correctly rounded to float64 (subnormals included)."""
    return float(Fraction(x) * Fraction(2) ** e)


def python_int_max_flow(net: FlowNetwork, e: int) -> tuple[float, np.ndarray, np.ndarray]:
    """``(flow_value, per-arc flow, source side)`` of the float network, solved in exact integers (the
    capacities times ``2**-e``), each number then correctly rounded to float64."""
    caps = [int(Fraction(float(x)) * Fraction(2) ** -e) for x in net.capacities.astype(np.float64)]
    indptr, head, rev, arc = (a.tolist() for a in (net.indptr, net.head, net.rev, net.arc))
    cap = [caps[a] if a >= 0 else 0 for a in arc]
    n, s, t = net.n, net.source, net.sink
    value = 0
    while True:
        level = _levels(n, s, indptr, head, cap)
        if level[t] < 0:
            break
        value += _blocking_flow(s, t, indptr, head, rev, cap, level)
    side = np.array([x >= 0 for x in level], dtype=bool)
    flow = np.zeros(net.m, dtype=np.float64)
    for p, a in enumerate(arc):
        if a >= 0:
            flow[a] = to_float(caps[a] - cap[p], e)
    return to_float(value, e), flow, side


def _levels(n: int, s: int, indptr: list, head: list, cap: list) -> list:
    level = [-1] * n
    level[s] = 0
    queue = [s]
    for u in queue:
        for a in range(indptr[u], indptr[u + 1]):
            v = head[a]
            if cap[a] and level[v] < 0:
                level[v] = level[u] + 1
                queue.append(v)
    return level


def _blocking_flow(s: int, t: int, indptr: list, head: list, rev: list, cap: list, level: list) -> int:
    """Augmenting paths along the level graph until none is left (each dead end is pruned once)."""
    cur = indptr[:-1]
    total = 0
    path: list[int] = []
    u = s
    while True:
        if u == t:
            d = min(cap[a] for a in path)
            for a in path:
                cap[a] -= d
                cap[rev[a]] += d
            total += d
            path.clear()
            u = s
            continue
        a = cur[u]
        while a < indptr[u + 1] and not (cap[a] and level[head[a]] == level[u] + 1):
            a += 1
        cur[u] = a
        if a < indptr[u + 1]:
            path.append(a)
            u = head[a]
            continue
        if u == s:
            return total
        level[u] = -2  # a dead end: no path to t through u in this phase
        b = path.pop()
        u = head[rev[b]]
        cur[u] += 1
