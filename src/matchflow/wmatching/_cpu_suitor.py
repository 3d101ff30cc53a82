"""CPU kernels: greedy, Suitor (Manne & Halappanavar; Naim et al. 2015 Algorithm 1), a round-parallel
Suitor (``prange`` scans) and Locally-Dominant (LD), on a symmetric CSR ``(ptr, ind, w)``.

The total order on edges (every method returns the same, greedy, matching): edge ``{u, v}`` is
heavier than ``{x, y}`` when its weight is larger, on equal weights when its larger endpoint id is
larger, then when its smaller endpoint id is larger. Seen from one vertex ``v`` this order is simply
``(weight, neighbour id)`` (larger wins), which is what :func:`_beats_dev` compares. Only edges of
positive weight are matched. ``s[v]`` is the suitor of ``v`` (-1: none), ``ws[v]`` its offer.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["matched_weights_kernel", "matched_weights_serial_kernel", "greedy_kernel", "suitor_kernel", "suitor_parallel_kernel", "ld_kernel", "improve_kernel"]


@nb.njit(inline="always", cache=True)
def _beats_dev(w, u, w_old, u_old):
    """(w, u) > (w_old, u_old) in the edge order seen from one vertex."""
    return w > w_old or (w == w_old and u > u_old)


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


@nb.njit(inline="always", cache=True)
def _pair_gt_dev(a1, b1, a2, b2):
    """a1 + b1 > a2 + b2 for weights >= 0 without forming a sum: exact for int64 and uint64 (no overflow);
    for floats it compares one rounded difference with a weight, and rounding is monotone, so a True is true
    of the exact values whenever b2 = 0 (the test that an augmentation gains)."""
    if a1 >= a2:
        return b1 > b2 or a1 - a2 > b2 - b1
    return b1 > b2 and b1 - b2 > a2 - a1


@nb.njit(cache=True)
def improve_kernel(ptr, ind, w, mate, max_passes):
    """Local search by length-3 augmentations x - a = b - y (x, y free): replace the matched edge
    {a, b} by {x, a} and {b, y} when that is strictly heavier (exactly: :func:`_pair_gt_dev`). Never lowers
    the weight.
    Returns the number of augmentations."""
    n = len(ptr) - 1
    count = 0
    for _ in range(max_passes):
        changed = 0
        for a in range(n):
            b = mate[a]
            if b < a:  # each matched edge once (also skips unmatched a)
                continue
            wab = w[0]
            for k in range(ptr[a], ptr[a + 1]):
                if ind[k] == b:
                    wab = w[k]
            # two best free neighbours of a and of b (positive edges)
            xa1 = -1
            xa2 = -1
            wa1 = wab - wab
            wa2 = wa1
            for k in range(ptr[a], ptr[a + 1]):
                x = ind[k]
                if mate[x] < 0 and w[k] > 0:
                    if xa1 < 0 or w[k] > wa1:
                        xa2, wa2 = xa1, wa1
                        xa1, wa1 = x, w[k]
                    elif xa2 < 0 or w[k] > wa2:
                        xa2, wa2 = x, w[k]
            if xa1 < 0:
                continue
            bx = -1
            zero = wa1 - wa1
            bwa = zero
            bwy = zero
            for k in range(ptr[b], ptr[b + 1]):
                y = ind[k]
                if mate[y] < 0 and w[k] > 0:
                    xa = xa1 if y != xa1 else xa2
                    wa = wa1 if y != xa1 else wa2
                    if xa >= 0 and _pair_gt_dev(wa, w[k], wab, zero) and (bx < 0 or _pair_gt_dev(wa, w[k], bwa, bwy)):
                        bx = y
                        bwa = wa
                        bwy = w[k]
            if bx >= 0:
                x = xa1 if bx != xa1 else xa2
                mate[x] = a
                mate[a] = x
                mate[b] = bx
                mate[bx] = b
                changed += 1
        count += changed
        if changed == 0:
            break
    return count


@nb.njit(cache=True, inline="always")
def _matched_weight_dev(ptr, ind, w, mate, out, u):
    """out[u] = the weight of the matched edge {u, mate[u]} when u < mate[u] (else out[u] is left alone)."""
    m = mate[u]
    if m > u:
        for k in range(ptr[u], ptr[u + 1]):
            if ind[k] == m:
                out[u] = w[k]
                return


@nb.njit(parallel=True, cache=True)
def matched_weights_kernel(ptr, ind, w, mate, out):
    """out[u] = weight of the matched edge {u, mate[u]} for u < mate[u], else 0 (``out`` zeroed by the
    caller). No scalar reduction in the ``prange``: numba 0.68 on Python 3.12+ fails to compile one."""
    for u in nb.prange(len(ptr) - 1):
        _matched_weight_dev(ptr, ind, w, mate, out, u)


@nb.njit(cache=True)
def matched_weights_serial_kernel(ptr, ind, w, mate, out):
    """:func:`matched_weights_kernel` on the calling thread (small graphs: no parallel region to start)."""
    for u in range(len(ptr) - 1):
        _matched_weight_dev(ptr, ind, w, mate, out, u)
