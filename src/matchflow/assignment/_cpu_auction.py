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
* floats: the last phase runs at ``eps = max_cost * 1e-9 / n`` (``eps_final=`` option),
  which leaves an eps-optimal assignment.

In both cases a *cleanup* turns the prices into exact duals: ``v = -p`` (in original
units), each assigned column's price is raised until its row sits on a minimum reduced
cost, rows still off their minimum are freed, and JV shortest augmenting paths
(:func:`._cpu_jv.augment_kernel`) re-insert them. The result is exactly optimal and
comes with duals (``stats['cleanup_rows']`` counts the re-inserted rows).
"""

from __future__ import annotations

import numba
import numpy as np

from ._cpu_jv import augment_kernel
from ._prepare import INT_SAFE

__all__ = ["auction_solve"]


@numba.njit(cache=True)
def _auction_phase_kernel(C, p, x, y, eps, stats):
    """One epsilon phase from an empty assignment; returns the number of bids."""
    n = C.shape[0]
    free = np.empty(n, dtype=np.int64)
    for i in range(n):
        x[i] = -1
        y[i] = -1
        free[i] = n - 1 - i
    nfree = n
    bids = 0
    while nfree > 0:
        nfree -= 1
        i = free[nfree]
        w1 = C[i, 0] + p[0]
        j1 = 0
        w2 = w1
        j2 = -1
        for j in range(1, n):
            w = C[i, j] + p[j]
            if j2 < 0 or w < w2:
                if w >= w1:
                    w2 = w
                    j2 = j
                else:
                    w2 = w1
                    j2 = j1
                    w1 = w
                    j1 = j
        p[j1] += (w2 - w1) + eps
        k = y[j1]
        y[j1] = i
        x[i] = j1
        if k >= 0:
            x[k] = -1
            free[nfree] = k
            nfree += 1
        bids += 1
    stats[1] += bids
    stats[2] += 1
    return bids


@numba.njit(cache=True)
def _tighten_kernel(C, x, y, v, free):
    """Raise each assigned column's dual to its row's second-best reduced cost, then free
    the rows not on a minimum reduced cost column. Returns the number of freed rows."""
    n = C.shape[0]
    for i in range(n):
        j0 = x[i]
        first = True
        s2 = C[i, 0] - v[0]
        for j in range(n):
            if j != j0:
                h = C[i, j] - v[j]
                if first or h < s2:
                    s2 = h
                    first = False
        r = C[i, j0] - v[j0]
        if (not first) and r > s2:
            v[j0] += r - s2
    nfree = 0
    for i in range(n):
        j0 = x[i]
        r = C[i, j0] - v[j0]
        for j in range(n):
            if C[i, j] - v[j] < r:
                free[nfree] = i
                nfree += 1
                y[j0] = -1
                x[i] = -1
                break
    return nfree


def auction_solve(C: np.ndarray, theta: float = 5.0, eps_final: float | None = None):
    """Solve the square LAP on ``C`` (int64 or float64). Returns (col4row, u, v, stats)."""
    n = C.shape[0]
    x = np.full(n, -1, dtype=np.int64)
    y = np.full(n, -1, dtype=np.int64)
    u = np.zeros(n, dtype=C.dtype)
    v = np.zeros(n, dtype=C.dtype)
    st = np.zeros(3, dtype=np.int64)
    if n == 0:
        return x, u, v, {"augmentations": 0, "iterations": 0, "dual_updates": 0, "cleanup_rows": 0}
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
        scale = float(B) if B > 0 else 1.0
        eps_end = float(eps_final) if eps_final is not None else scale * 1e-9 / n
        eps = max(eps_end, scale / max(theta, 2.0))
    p = np.zeros(n, dtype=C.dtype)
    phases = 0
    while True:
        _auction_phase_kernel(Cs, p, x, y, C.dtype.type(eps), st)
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
             "cleanup_rows": int(nfree), "cost_factor": int(factor)}
    return x, u, v, stats
