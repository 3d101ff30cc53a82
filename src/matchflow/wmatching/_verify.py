"""The ½-approximation certificate of a weighted matching (independent of the solvers).

*Valid*: ``mate`` is symmetric, in range, and every matched pair is an edge of positive weight (and a
result's ``weight`` is the matching's). *Certified ½*: every positive edge not in the matching weighs no
more than the matched edge at one of its endpoints (compared exactly, in the weights' own dtype). Then
``y[v]`` = weight of the matched edge at ``v`` (0 if free) is a fractional vertex cover (``y[u] + y[v] >=
w(u, v)`` on every edge), so every matching, fractional ones too, weighs at most ``sum(y) = 2 w(M)``. The
cover is then tightened vertex by vertex (each ``y[v]`` lowered to the least value that still covers its
edges: exact for integers; for floats each difference is rounded UP, so ``y`` stays a cover), and
``upper_bound`` is ``sum(y)`` rounded up (exact sums, one rounding): a float >= the optimum, +inf only
where the optimum may exceed float64's range. No tolerance enters: nothing depends on the largest weight.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numba as nb
import numpy as np

from ._prepare import as_weighted_graph
from ._prepare_weights import exact_sum, sum_up

__all__ = ["WeightedMatchingReport", "verify_weighted_matching"]


@dataclass
class WeightedMatchingReport:
    """Outcome of :func:`verify_weighted_matching`: ``weight`` (recomputed exactly, rounded once),
    ``upper_bound`` (on the optimum, from the tightened cover, rounded up) and ``ratio`` = weight /
    upper_bound (1.0 for an empty bound; 0.5, the proven guarantee, where the bound overflowed)."""

    valid: bool
    half_approximate: bool
    weight: float
    upper_bound: float
    problems: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        if self.upper_bound <= 0:
            return 1.0
        if math.isinf(self.upper_bound):
            return 0.5 if self.half_approximate else 0.0
        return self.weight / self.upper_bound

    def __bool__(self) -> bool:
        return self.valid and self.half_approximate


@nb.njit(cache=True)
def _tighten_int_kernel(ptr, ind, w, y):
    """Lower each y[v] to max(0, max_e (w(e) - y[x])) over the positive edges e = {v, x}, in the integers'
    own dtype (the difference is taken only where w(e) > y[x] >= 0: exact, no overflow, uint64 too)."""
    for v in range(len(ptr) - 1):
        need = y[v] - y[v]
        for k in range(ptr[v], ptr[v + 1]):
            if w[k] > 0 and w[k] > y[ind[k]]:
                r = w[k] - y[ind[k]]
                if r > need:
                    need = r
        if need < y[v]:
            y[v] = need


@nb.njit(cache=True)
def _tighten_float_kernel(ptr, ind, w, y):
    """:func:`_tighten_int_kernel` for float64: each difference w(e) - y[x] rounded UP (Fast2Sum: w(e) > y[x]
    >= 0, so ``-y[x] - (s - w(e))`` is the exact error of ``s``), so every edge stays covered."""
    for v in range(len(ptr) - 1):
        need = 0.0
        for k in range(ptr[v], ptr[v + 1]):
            wk = w[k]
            yx = y[ind[k]]
            if wk > 0 and wk > yx:
                r = wk - yx
                if -yx - (r - wk) > 0:
                    r = np.nextafter(r, np.inf)
                if r > need:
                    need = r
        if need < y[v]:
            y[v] = need


def verify_weighted_matching(graph: Any, result: Any, *, weight: str = "weight",
                             bipartite: bool = False) -> WeightedMatchingReport:
    """Check ``result`` (a :class:`WeightedMatchingResult` or a ``mate`` array) on ``graph``
    (the same input, and the same ``weight``/``bipartite``, as given to ``weighted_matching``).

    Examples
    --------
    >>> import numpy as np
    >>> import matchflow
    >>> W = np.array([[0, 3, 1, 0], [3, 0, 4, 0], [1, 4, 0, 2], [0, 0, 2, 0]])
    >>> rep = matchflow.verify.verify_weighted_matching(W, matchflow.weighted_matching(W, backend="cpu"))
    >>> rep.valid, rep.half_approximate, float(rep.weight), float(rep.upper_bound)
    (True, True, 4.0, 5.0)
    """
    g, _ = as_weighted_graph(graph, weight=weight, bipartite=bipartite)
    mate = np.asarray(getattr(result, "mate", result))
    problems: list[str] = []
    if mate.ndim != 1 or len(mate) != g.n or (mate.size and mate.dtype.kind not in "iu"):
        problems.append(f"mate must be a 1-D integer array of length {g.n}, got shape {mate.shape}, dtype {mate.dtype}")
        return WeightedMatchingReport(False, False, 0.0, math.inf, problems)
    mate = mate.astype(np.int64)
    bad = np.flatnonzero((mate < -1) | (mate >= g.n))
    if bad.size:
        problems.append(f"mate[{bad[0]}] = {mate[bad[0]]} is out of range")
        return WeightedMatchingReport(False, False, 0.0, math.inf, problems)
    m = np.flatnonzero(mate >= 0)
    asym = m[mate[mate[m]] != m]
    if asym.size:
        problems.append(f"mate is not symmetric at vertex {asym[0]}: mate[{asym[0]}] = {mate[asym[0]]}")
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    w = g.weights  # int64, uint64 or float64: every comparison below is exact
    on = g.indices == mate[rows]
    wm = np.zeros(g.n, dtype=w.dtype)
    wm[rows[on]] = w[on]
    has = np.zeros(g.n, dtype=bool)
    has[rows[on]] = True
    missing = m[~has[m] | (wm[m] <= 0)]
    if missing.size:
        v = missing[0]
        problems.append(f"matched pair ({v}, {mate[v]}) is not an edge of positive weight")
    sel = on & (rows < g.indices)
    total = exact_sum(w[sel])
    claimed = getattr(result, "weight", None)
    if claimed is not None and not problems and float(claimed) != total:
        problems.append(f"result.weight = {claimed!r} is not the matching's weight {total!r}")
    valid = not problems
    viol = np.flatnonzero((w > 0) & ~on & (w > wm[rows]) & (w > wm[g.indices]))
    half = valid and viol.size == 0
    if viol.size:
        k = viol[0]
        problems.append(f"edge ({rows[k]}, {g.indices[k]}) of weight {w[k]} is heavier than the matched edges at both "
                        f"endpoints ({wm[rows[k]]}, {wm[g.indices[k]]}): no 1/2 certificate")
    bound = math.inf
    if half:
        y = wm.copy()
        (_tighten_float_kernel if w.dtype.kind == "f" else _tighten_int_kernel)(g.indptr, g.indices, w, y)
        bound = min(sum_up(y), sum_up(np.concatenate([w[sel], w[sel]])))
    return WeightedMatchingReport(valid, half, total, bound, problems)
