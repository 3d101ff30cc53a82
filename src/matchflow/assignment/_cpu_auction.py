"""Bertsekas' auction algorithm with epsilon-scaling (Gauss-Seidel, forward), Numba CPU.

D. P. Bertsekas, "The auction algorithm: a distributed relaxation method for the
assignment problem", Annals of OR 14 (1988). In cost form every free row ``i`` bids for
its best column ``j1 = argmin_j c[i, j] + p[j]``, raising ``p[j1]`` by the bidding
increment ``w2 - w1 + eps`` (``w1``/``w2``: best and second-best values); the previous
owner becomes free. A phase ends when every row is assigned, which then satisfies
eps-complementary slackness; ``eps`` is divided by ``theta`` between phases (prices kept).

Exactness:

* integers: costs are multiplied by ``n + 1`` (when int64 allows) and the last phase
  runs at ``eps = 1``, so ``n * eps < 1`` in the original units and the assignment is
  optimal (Bertsekas' theorem);
* floats: the last phase runs at ``eps = range * 1e-9 / n`` (``eps_final=`` option), never
  below ``2**-40 * n * (max |c| + range)`` (an epsilon under the prices' ulp cannot separate
  bids: subnormal costs or ``eps_final=1e-30`` would bid forever), which leaves an
  eps-optimal assignment.

Termination: every bid raises a price by at least one ulp, the bids of all phases are
bounded (``max_bids``; when exhausted the cleanup below finishes from the current
prices), and each kernel call makes at most ``2**20`` bids, so Ctrl-C is seen between
calls.

In both cases a *cleanup* turns the prices into exact duals: ``v = -p`` (in original
units), each assigned column's price is raised until its row sits on a minimum reduced
cost, rows still off their minimum are freed, and JV shortest augmenting paths
(:func:`matchflow._lsap.jv.augment_kernel`) re-insert them. The result is exactly optimal and
comes with duals (``stats['cleanup_rows']`` counts the re-inserted rows).
"""

from __future__ import annotations

import numba
import numpy as np

from .._lsap.jv import augment_kernel, least_other_dev, two_least
from ._prepare import INT_SAFE, counters, square_answer

__all__ = ["solve_auction"]


@numba.njit(cache=True)
def _auction_start_kernel(x, y, free):
    """Empty assignment, every row free (the start of an epsilon phase); returns n."""
    n = x.shape[0]
    for i in range(n):
        x[i] = -1
        y[i] = -1
        free[i] = n - 1 - i
    return n


@numba.njit(cache=True)
def take_column_dev(i, j, x, y, free, nfree):
    """Row ``i`` takes column ``j`` (``x``: column of a row, ``y``: row of a column, -1 none); the column's
    previous row, if any, becomes free on ``free[nfree]``. Returns the new ``nfree``. (Also cost scaling's.)"""
    k = y[j]
    y[j] = i
    x[i] = j
    if k >= 0:
        x[k] = -1
        free[nfree] = k
        nfree += 1
    return nfree


@numba.njit(cache=True)
def _auction_bids_kernel(C, p, x, y, eps, free, nfree, max_bids, stats):
    """At most ``max_bids`` bids of the current phase; returns the free rows left (0: phase done).

    Every bid raises its column's price by at least one ulp (``eps`` below a price's ulp
    would otherwise leave ties unbroken forever), so each call ends."""
    bids = 0
    while nfree > 0 and bids < max_bids:
        nfree -= 1
        i = free[nfree]
        w1, j1, w2, _ = two_least(C, i, p, False)
        old = p[j1]
        p[j1] = old + ((w2 - w1) + eps)
        if p[j1] <= old:
            p[j1] = np.nextafter(np.float64(old), np.inf)  # floats only: integer eps >= 1
        nfree = take_column_dev(i, j1, x, y, free, nfree)
        bids += 1
    stats[1] += bids
    return nfree


@numba.njit(cache=True)
def _tighten_kernel(C, x, y, v, free):
    """Raise each assigned column's dual to its row's second-best reduced cost, then free
    the rows not on a minimum reduced cost column (and the rows the auction left free).
    Returns the number of free rows."""
    n = C.shape[0]
    for i in range(n):
        j0 = x[i]
        if j0 < 0:
            continue
        s2 = least_other_dev(C, i, v, j0)
        r = C[i, j0] - v[j0]
        if n > 1 and r > s2:
            v[j0] += r - s2
    nfree = 0
    for i in range(n):
        j0 = x[i]
        if j0 < 0:
            free[nfree] = i
            nfree += 1
            continue
        r = C[i, j0] - v[j0]
        for j in range(n):
            if C[i, j] - v[j] < r:
                free[nfree] = i
                nfree += 1
                y[j0] = -1
                x[i] = -1
                break
    return nfree


_CHUNK = 1 << 20  # bids per kernel call: Python checks signals (Ctrl-C) between calls


def solve_auction(C: np.ndarray, theta: float = 5.0, eps_final: float | None = None, max_bids: int | None = None):
    """Solve the square LAP on ``C`` (int64 or float64). Returns (col4row, u, v, stats).

    ``max_bids`` (default ``max(10**7, 50 n**2)``) bounds the bidding over all phases; when it
    runs out the exact cleanup finishes from the current prices (``stats['bid_limit_hit']``).
    """
    n = C.shape[0]
    x, u, v, st = square_answer(C)
    y = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return x, u, v, {**counters(st), "cleanup_rows": 0}
    is_int = C.dtype.kind == "i"
    B = C.max()
    if is_int:
        factor = n + 1 if int(B) * (n + 1) * 8 * (n + 2) <= INT_SAFE else 1
        Cs = C * factor if factor > 1 else C
        eps_end = 1
        eps = max(1, int(B) * factor // int(max(theta, 2)))
    else:
        factor = 1
        Cs = C
        mag = float(np.abs(C).max())
        scale = float(C.max() - C.min()) or mag or 1.0
        # epsilon below the prices' ulp cannot separate bids: floor it at 2**-40 of the magnitudes
        floor = max(2.0**-40 * (mag + scale) * n, 2.0**-1060)
        eps_end = max(float(eps_final) if eps_final is not None else scale * 1e-9 / n, floor)
        eps = max(eps_end, scale / max(theta, 2.0))
    budget = max(10**7, 50 * n * n) if max_bids is None else int(max_bids)
    p = np.zeros(n, dtype=C.dtype)
    free = np.empty(n, dtype=np.int64)
    phases = 0
    limit_hit = False
    while not limit_hit:
        nfree = _auction_start_kernel(x, y, free)
        while nfree > 0:
            if int(st[1]) >= budget:
                limit_hit = True
                break
            nfree = _auction_bids_kernel(Cs, p, x, y, C.dtype.type(eps), free, nfree,
                                         min(_CHUNK, budget - int(st[1])), st)
        phases += 1
        if eps <= eps_end:
            break
        eps = max(eps_end, int(eps // theta) if is_int else eps / theta)
    bids = int(st[1])
    # prices -> duals of the original matrix (floor keeps integers exact), then cleanup
    if is_int:
        v = -(p // factor) if factor > 1 else -p
        v = np.ascontiguousarray(v, dtype=np.int64)
    else:
        v = -p
    free = np.empty(n, dtype=np.int64)
    nfree = _tighten_kernel(C, x, y, v, free)
    st2 = np.zeros(3, dtype=np.int64)
    if augment_kernel(C, x, y, v, free, nfree, st2) != 0:
        raise RuntimeError("auction cleanup found no augmenting path (internal error)")
    u = C[np.arange(n), x] - v[x]
    stats = {"augmentations": int(st2[0]), "iterations": bids, "dual_updates": phases,
             "cleanup_rows": int(nfree), "cost_factor": int(factor), "bid_limit_hit": limit_hit}
    return x, u, v, stats
