"""Suitor on the CPU (Manne & Halappanavar 2014; Naim et al. 2015 Algorithm 1) and a round-parallel Suitor
(``prange`` scans), on a symmetric CSR ``(ptr, ind, w)``; the family's edge order, shared by every method.

The total order on edges (every method returns the same, greedy, matching): edge ``{u, v}`` is
heavier than ``{x, y}`` when its weight is larger, on equal weights when its larger endpoint id is
larger, then when its smaller endpoint id is larger. Seen from one vertex ``v`` this order is simply
``(weight, neighbour id)`` (larger wins), which is what :func:`_beats_dev` compares. Only edges of
positive weight are matched. ``s[v]`` is the suitor of ``v`` (-1: none), ``ws[v]`` its offer.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._graph import Graph
from .._validation import check_bool

__all__ = ["solve_suitor", "check_suitor_options", "suitor_kernel", "suitor_parallel_kernel"]


@nb.njit(inline="always", cache=True)
def _beats_dev(w, u, w_old, u_old):
    """(w, u) > (w_old, u_old) in the edge order seen from one vertex."""
    return w > w_old or (w == w_old and u > u_old)

@nb.njit(inline="always", cache=True)
def _best_eligible_dev(ptr, ind, w, s, ws, u):
    """Heaviest neighbour v of u (positive weight) whose current offer (ws[v], s[v]) u beats."""
    best = -1
    bw = ws[u]  # any value of w's dtype (read only once best >= 0): a literal 0 would make uint64 float64
    for k in range(ptr[u], ptr[u + 1]):
        v = ind[k]
        wk = w[k]
        # the register test first: the offer at v (a random access) is read only for a new best
        if wk > 0 and (best < 0 or _beats_dev(wk, v, bw, best)) and _beats_dev(wk, u, ws[v], s[v]):
            best = v
            bw = wk
    return best, bw

@nb.njit(cache=True)
def suitor_kernel(ptr, ind, w, s, ws):
    """Sequential Suitor (Algorithm 1). Returns the number of proposals."""
    n = len(ptr) - 1
    proposals = 0
    for u0 in range(n):
        cur = u0
        while cur >= 0:
            best, bw = _best_eligible_dev(ptr, ind, w, s, ws, cur)
            if best < 0:
                break
            proposals += 1
            displaced = s[best]
            s[best] = cur
            ws[best] = bw
            cur = displaced
    return proposals

@nb.njit(parallel=True, cache=True)
def _scan_all_dev(ptr, ind, w, s, ws, active, n_active, target, offer):
    for i in nb.prange(n_active):
        b, bw = _best_eligible_dev(ptr, ind, w, s, ws, active[i])
        target[i] = b
        offer[i] = bw

@nb.njit(cache=True)
def _apply_dev(s, ws, active, n_active, target, offer, nxt):
    """Apply the round's proposals in order; a proposal beaten meanwhile, or a displaced suitor,
    goes to the next round (the Suitor result does not depend on the order of proposals)."""
    m = 0
    for i in range(n_active):
        u = active[i]
        b = target[i]
        if b < 0:
            continue
        if _beats_dev(offer[i], u, ws[b], s[b]):
            d = s[b]
            s[b] = u
            ws[b] = offer[i]
            if d >= 0:
                nxt[m] = d
                m += 1
        else:
            nxt[m] = u
            m += 1
    return m

def suitor_parallel_kernel(ptr, ind, w, s, ws):
    """Round-parallel Suitor: every active vertex scans in parallel (``prange``) against the round's
    offers, then the proposals are applied in vertex order. Returns (proposals, rounds)."""
    n = len(ptr) - 1
    active = np.arange(n, dtype=ptr.dtype)
    nxt = np.empty(n, dtype=ptr.dtype)
    target = np.empty(n, dtype=ptr.dtype)
    offer = np.empty(n, dtype=w.dtype)
    n_active, proposals, rounds = n, 0, 0
    while n_active > 0:
        _scan_all_dev(ptr, ind, w, s, ws, active, n_active, target, offer)
        proposals += int(np.count_nonzero(target[:n_active] >= 0))
        n_active = _apply_dev(s, ws, active, n_active, target, offer, nxt)
        active, nxt = nxt, active
        rounds += 1
    return proposals, rounds


def solve_suitor(g: Graph, parallel: bool = False) -> tuple[np.ndarray, dict]:
    """Suitor on ``g`` (``parallel``: the round-parallel variant, same answer): ``(mate, stats)``."""
    s = np.full(g.n, -1, dtype=g.indices.dtype)
    ws = np.zeros(g.n, dtype=g.weights.dtype)
    if parallel:
        proposals, rounds = suitor_parallel_kernel(g.indptr, g.indices, g.weights, s, ws)
        return s, {"proposals": int(proposals), "rounds": int(rounds), "parallel": True}
    proposals = suitor_kernel(g.indptr, g.indices, g.weights, s, ws)
    return s, {"proposals": int(proposals)}


def check_suitor_options(options: dict) -> dict:
    if "parallel" in options:
        options["parallel"] = check_bool("parallel", options["parallel"])
    return options
