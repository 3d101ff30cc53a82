"""Slow, obviously-correct oracles for tiny inputs (independent of matchflow's code)."""

from __future__ import annotations

import itertools

import numpy as np


def max_matching_bruteforce(adj: np.ndarray) -> int:
    """Maximum matching size of a tiny bipartite graph (dense 0/1 matrix) by exhaustive search."""
    adj = np.asarray(adj) != 0
    n_rows, n_cols = adj.shape

    def best(i: int, used: frozenset) -> int:
        if i == n_rows:
            return 0
        res = best(i + 1, used)  # leave row i unmatched
        for j in range(n_cols):
            if adj[i, j] and j not in used:
                res = max(res, 1 + best(i + 1, used | {j}))
        return res

    return best(0, frozenset())


def assignment_bruteforce(cost: np.ndarray, maximize: bool = False) -> float | None:
    """Optimal total of a tiny (rectangular) assignment, +inf entries forbidden; None if infeasible."""
    c = np.asarray(cost, dtype=float)
    transposed = c.shape[0] > c.shape[1]
    if transposed:
        c = c.T
    n_r, n_c = c.shape
    best = None
    for cols in itertools.permutations(range(n_c), n_r):
        vals = [c[i, j] for i, j in enumerate(cols)]
        if any(not np.isfinite(x) for x in vals):
            continue
        s = float(sum(vals))
        if best is None or (s > best if maximize else s < best):
            best = s
    if n_r == 0:
        return 0.0
    return best
