"""O(n^3) Hungarian method with potentials (Kuhn-Munkres, shortest-path form), Numba CPU.

Rows are added one at a time; for row ``i`` a Dijkstra-like search over the reduced costs
``c[i, j] - u[i] - v[j]`` grows the alternating tree column by column (``minv``: best
slack seen per column, ``way``: the tree edge), shifting the potentials of the tree by
``delta`` at each step until a free column is reached, then augments along ``way``.
Potentials stay dual feasible (``u[i] + v[j] <= c[i, j]``) throughout, and are tight on
the matching. Also provides :func:`hungarian_bigint`, the same algorithm on Python
integers, the exact fallback for integer matrices too wide for int64.
"""

from __future__ import annotations

from fractions import Fraction

import numba
import numpy as np

from ._prepare import counters, square_answer

__all__ = ["solve_hungarian", "hungarian_bigint", "hungarian_exact_float"]


def _augment(p, way, j0):
    """Augment along the tree edges ``way`` from the free column ``j0`` back to the root (column 0):
    each column on the path takes the row of the column before it (``p``: the row of each column)."""
    while True:
        j1 = way[j0]
        p[j0] = p[j1]
        j0 = j1
        if j0 == 0:
            break


_augment_dev = numba.njit(cache=True, inline="always")(_augment)  # the kernel's copy; hungarian_bigint runs _augment


@numba.njit(cache=True)
def _hungarian_kernel(C, big, u, v, col4row, stats):
    """e-maxx formulation, 1-based internally: p[j] = row of column j, p[0] = current row."""
    n = C.shape[0]
    uu = np.zeros(n + 1, dtype=C.dtype)
    vv = np.zeros(n + 1, dtype=C.dtype)
    p = np.zeros(n + 1, dtype=np.int64)
    way = np.zeros(n + 1, dtype=np.int64)
    minv = np.empty(n + 1, dtype=C.dtype)
    used = np.zeros(n + 1, dtype=np.bool_)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        for j in range(n + 1):
            minv[j] = big
            used[j] = False
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = big
            j1 = -1
            for j in range(1, n + 1):
                if not used[j]:
                    cur = C[i0 - 1, j - 1] - uu[i0] - vv[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if j1 < 0 or minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            if j1 < 0:
                return -1
            for j in range(n + 1):
                if used[j]:
                    uu[p[j]] += delta
                    vv[j] -= delta
                else:
                    minv[j] -= delta
            stats[1] += 1
            stats[2] += 1
            j0 = j1
            if p[j0] == 0:
                break
        _augment_dev(p, way, j0)
        stats[0] += 1
    for j in range(1, n + 1):
        col4row[p[j] - 1] = j - 1
    for i in range(n):
        u[i] = uu[i + 1]
        v[i] = vv[i + 1]
    return 0


def solve_hungarian(C: np.ndarray):
    """Solve the square LAP on ``C`` (int64 or float64). Returns (col4row, u, v, stats)."""
    col4row, u, v, st = square_answer(C)
    if C.shape[0]:
        big = np.int64(2**62) if C.dtype.kind == "i" else np.float64(np.inf)
        if _hungarian_kernel(C, big, u, v, col4row, st) != 0:
            raise RuntimeError("Hungarian search found no free column (internal error)")
    return col4row, u, v, counters(st)


def hungarian_bigint(C: list[list[int]]):
    """The same algorithm on Python integers (exact for any magnitude; O(n^3) Python steps)."""
    n = len(C)
    uu = [0] * (n + 1)
    vv = [0] * (n + 1)
    p = [0] * (n + 1)
    way = [0] * (n + 1)
    steps = 0
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [None] * (n + 1)
        used = [False] * (n + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            row = C[i0 - 1]
            ui0 = uu[i0]
            delta = None
            j1 = -1
            for j in range(1, n + 1):
                if not used[j]:
                    cur = row[j - 1] - ui0 - vv[j]
                    if minv[j] is None or cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if delta is None or minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(n + 1):
                if used[j]:
                    uu[p[j]] += delta
                    vv[j] -= delta
                elif minv[j] is not None:
                    minv[j] -= delta
            steps += 1
            j0 = j1
            if p[j0] == 0:
                break
        _augment(p, way, j0)
    col4row = np.full(n, -1, dtype=np.int64)
    for j in range(1, n + 1):
        col4row[p[j] - 1] = j - 1
    return col4row, uu[1:], vv[1:], {"augmentations": n, "iterations": steps, "dual_updates": steps}


def hungarian_exact_float(a: np.ndarray, maximize: bool):
    """Exact solve of a float matrix (``+inf`` forbidden; ``-inf`` when ``maximize``).

    Every finite float64 is an integer multiple of ``2**-1074``: the minimisation matrix
    times ``2**k`` (``k`` from the smallest lowest set bit) is an exact Python-integer
    matrix, forbidden entries get the big-M ``(n + 1) * (hi - lo) + |hi| + 1`` (more than
    any allowed assignment), rectangular matrices are padded with zeros, and
    :func:`hungarian_bigint` solves it exactly (O(n^3) Python steps). The caller has
    checked feasibility. Returns ``(col4row, u, v, scale_exponent, stats)`` on the padded
    square integer problem; the duals are exact integers of ``C * 2**k``."""
    nr, nc = a.shape
    n = max(nr, nc)
    sg = -1 if maximize else 1
    fr = [[None if not np.isfinite(t) else Fraction(sg * float(t)) for t in row] for row in a.tolist()]
    den = 1
    for row in fr:
        for t in row:
            if t is not None and t.denominator > den:
                den = t.denominator  # powers of two: the largest is a multiple of all
    ints = [[None if t is None else int(t * den) for t in row] for row in fr]
    fin = [t for row in ints for t in row if t is not None]
    lo, hi = (min(fin), max(fin)) if fin else (0, 0)
    big_m = (n + 1) * (hi - lo) + abs(hi) + 1
    C = [[big_m if t is None else t for t in row] + [0] * (n - nc) for row in ints] + [[0] * n for _ in range(n - nr)]
    x, u, v, st = hungarian_bigint(C)
    return x, u, v, den, st
