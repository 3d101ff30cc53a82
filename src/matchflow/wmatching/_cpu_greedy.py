"""Greedy weighted matching on the CPU: sort the edges by the fixed total order (:mod:`._cpu_suitor`'s), then take
each edge whose endpoints are both free. The reference the other methods equal (Preis 1999: the greedy matching is
½-approximate).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._graph import Graph

__all__ = ["solve_greedy", "edge_order", "greedy_kernel"]


def edge_order(g: Graph) -> tuple[np.ndarray, np.ndarray]:
    """The edges ``u < v`` of positive weight, heaviest first in the fixed total order
    (weight, then larger endpoint, then smaller endpoint; larger first)."""
    n = g.n
    u = np.repeat(np.arange(n, dtype=g.indices.dtype), np.diff(g.indptr))
    v = g.indices
    keep = (u < v) & (g.weights > 0)
    u, v, w = u[keep], v[keep], g.weights[keep]
    order = np.lexsort((u, v, w))[::-1]  # u < v: v is the larger endpoint
    return np.ascontiguousarray(u[order]), np.ascontiguousarray(v[order])


@nb.njit(cache=True)
def greedy_kernel(ptr, ind, w, order_u, order_v, mate):
    """Sequential greedy: take edges heaviest first (``order_*``: the edges u < v, sorted by the order)."""
    for k in range(len(order_u)):
        u = order_u[k]
        v = order_v[k]
        if mate[u] < 0 and mate[v] < 0:
            mate[u] = v
            mate[v] = u
    return 0


def solve_greedy(g: Graph) -> tuple[np.ndarray, dict]:
    """The greedy matching of ``g`` (int64 / float64 / uint64 weights): ``(mate, stats)``."""
    mate = np.full(g.n, -1, dtype=g.indices.dtype)
    ou, ov = edge_order(g)
    greedy_kernel(g.indptr, g.indices, g.weights, ou, ov, mate)
    return mate, {"edges_sorted": len(ou)}
