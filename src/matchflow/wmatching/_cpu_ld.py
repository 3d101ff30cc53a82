"""Locally-Dominant matching on the CPU (Preis 1999; Manne & Bisseling's pointer form): every vertex points at
its heaviest free neighbour (:func:`_candidate_dev`, the edge order of :mod:`._cpu_suitor`), mutual pointers
match, and the neighbours of newly matched vertices re-point. Returns the greedy matching.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._graph import Graph
from ._cpu_suitor import _beats_dev

__all__ = ["solve_ld", "ld_kernel"]


@nb.njit(inline="always", cache=True)
def _candidate_dev(ptr, ind, w, mate, u):
    """Heaviest unmatched neighbour of u over positive edges (-1: none)."""
    best = -1
    if ptr[u] == ptr[u + 1]:
        return best
    bw = w[ptr[u]]  # w's dtype (read only once best >= 0): a literal 0 would make uint64 float64
    for k in range(ptr[u], ptr[u + 1]):
        v = ind[k]
        if mate[v] < 0 and w[k] > 0 and (best < 0 or _beats_dev(w[k], v, bw, best)):
            best = v
            bw = w[k]
    return best

@nb.njit(cache=True)
def ld_kernel(ptr, ind, w, mate, cand):
    """Locally-Dominant: match mutual candidates, then recompute the candidates that pointed at a
    newly matched vertex (Preis; Manne-Bisseling). Returns the number of rounds."""
    n = len(ptr) - 1
    check = np.empty(n, dtype=ptr.dtype)
    for u in range(n):
        cand[u] = _candidate_dev(ptr, ind, w, mate, u)
        check[u] = u
    n_check = n
    newly = np.empty(n, dtype=ptr.dtype)
    nxt = np.empty(n, dtype=ptr.dtype)
    seen = np.full(n, -1, dtype=np.int64)
    rounds = 0
    while n_check > 0:
        rounds += 1
        n_new = 0
        for i in range(n_check):
            u = check[i]
            v = cand[u]
            if v >= 0 and mate[u] < 0 and mate[v] < 0 and cand[v] == u:
                mate[u] = v
                mate[v] = u
                newly[n_new] = u
                newly[n_new + 1] = v
                n_new += 2
        m = 0
        for i in range(n_new):
            x = newly[i]
            for k in range(ptr[x], ptr[x + 1]):
                y = ind[k]
                if mate[y] < 0 and cand[y] >= 0 and mate[cand[y]] >= 0 and seen[y] != rounds:
                    seen[y] = rounds
                    cand[y] = _candidate_dev(ptr, ind, w, mate, y)
                    nxt[m] = y
                    m += 1
        check, nxt = nxt, check
        n_check = m
    return rounds


def solve_ld(g: Graph) -> tuple[np.ndarray, dict]:
    """The Locally-Dominant matching of ``g``: ``(mate, stats)`` with the pointer rounds."""
    mate = np.full(g.n, -1, dtype=g.indices.dtype)
    cand = np.full(g.n, -1, dtype=g.indices.dtype)
    rounds = ld_kernel(g.indptr, g.indices, g.weights, mate, cand)
    return mate, {"rounds": int(rounds)}
