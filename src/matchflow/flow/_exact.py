"""Exact re-solves of float networks: every float is an integer times a power of two, so the capacities
times ``2**-e`` (``e`` the lowest set bit's exponent) are integers. :func:`scaled_int64` gives them as int64
where they fit (the solvers' own kernels then run exactly); :func:`python_int_max_flow` solves with Python
integers (Dinic: BFS levels, then augmenting paths in the level graph) where they do not, on small networks."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .._graph import FlowNetwork

__all__ = ["binary_scale", "scaled_int64", "python_int_max_flow", "to_float"]

EXACT_MAX_ARCS = 4096  # Python-integer re-solves only up to this many arcs (pure Python: ~10 us per arc scan)


def binary_scale(net: FlowNetwork) -> tuple[int, int] | None:
    """``(e, top)``: every nonzero capacity is an integer times ``2**e`` and below ``2**top``; None if all are 0."""
    c = net.capacities.astype(np.float64)
    nz = c[c > 0]
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
