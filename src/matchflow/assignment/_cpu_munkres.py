"""The O(n^4) six-step Munkres formulation of Lopes et al. (JPDC 2019, Section 2.1), Numba CPU.

This is the *reference* the GPU Hungarian (its twin, ``_gpu_munkres.py``) is checked against: the same
steps, run serially on an explicit slack matrix (only for small n).

* STEP 1: subtract the row minimum from each row, then the column minimum from each column;
* STEP 2: star a zero when its row and column hold no star;
* STEP 3: cover each column holding a starred zero; all covered -> done;
* STEP 4: prime an uncovered zero; if its row has no star go to STEP 5, else cover the row
  and uncover the star's column; with no uncovered zero left go to STEP 6;
* STEP 5: flip the alternating series prime-star-prime... from the last prime, erase primes,
  uncover everything, back to STEP 3;
* STEP 6: add the minimum uncovered value to the covered rows and subtract it from the
  uncovered columns, back to STEP 4.

The duals are tracked alongside the slack (``slack = c - u - v``): STEP 6 does
``u[covered rows] -= delta`` and ``v[uncovered cols] += delta``.
"""

from __future__ import annotations

import numba
import numpy as np

from ._prepare import counters, square_answer

__all__ = ["solve_munkres"]


@numba.njit(cache=True)
def _munkres_kernel(C, u, v, col4row, stats):
    n = C.shape[0]
    S = np.empty((n, n), dtype=C.dtype)
    # STEP 1
    for i in range(n):
        m = C[i, 0]
        for j in range(1, n):
            if C[i, j] < m:
                m = C[i, j]
        u[i] = m
    for j in range(n):
        m = C[0, j] - u[0]
        for i in range(1, n):
            h = C[i, j] - u[i]
            if h < m:
                m = h
        v[j] = m
    for i in range(n):
        for j in range(n):
            S[i, j] = C[i, j] - u[i] - v[j]
    star_col = np.full(n, -1, dtype=np.int64)  # starred zero of row i
    star_row = np.full(n, -1, dtype=np.int64)  # starred zero of column j
    prime_col = np.full(n, -1, dtype=np.int64)  # primed zero of row i
    row_cov = np.zeros(n, dtype=np.bool_)
    col_cov = np.zeros(n, dtype=np.bool_)
    path_r = np.empty(2 * n + 1, dtype=np.int64)
    path_c = np.empty(2 * n + 1, dtype=np.int64)
    # STEP 2
    for i in range(n):
        for j in range(n):
            if S[i, j] == 0 and star_col[i] < 0 and star_row[j] < 0:
                star_col[i] = j
                star_row[j] = i
    while True:
        # STEP 3
        covered = 0
        for j in range(n):
            col_cov[j] = star_row[j] >= 0
            if col_cov[j]:
                covered += 1
        if covered == n:
            break
        # STEP 4 (inner loop with STEP 6)
        zr = -1
        zc = -1
        while True:
            zr = -1
            for i in range(n):
                if row_cov[i]:
                    continue
                for j in range(n):
                    if not col_cov[j] and S[i, j] == 0:
                        zr = i
                        zc = j
                        break
                if zr >= 0:
                    break
            stats[1] += 1
            if zr < 0:
                # STEP 6: minimum uncovered value
                first = True
                delta = S[0, 0]
                for i in range(n):
                    if row_cov[i]:
                        continue
                    for j in range(n):
                        if not col_cov[j] and (first or S[i, j] < delta):
                            delta = S[i, j]
                            first = False
                if first:
                    return -1
                for i in range(n):
                    if row_cov[i]:
                        u[i] -= delta
                        for j in range(n):
                            S[i, j] += delta
                for j in range(n):
                    if not col_cov[j]:
                        v[j] += delta
                        for i in range(n):
                            S[i, j] -= delta
                stats[2] += 1
                continue
            prime_col[zr] = zc
            if star_col[zr] < 0:
                break  # to STEP 5
            row_cov[zr] = True
            col_cov[star_col[zr]] = False
        # STEP 5: alternating series Z0 (prime), Z1 (star in Z0's column), Z2 (prime in Z1's row) ...
        cnt = 0
        path_r[0] = zr
        path_c[0] = zc
        while True:
            r = star_row[path_c[cnt]]
            if r < 0:
                break
            cnt += 1
            path_r[cnt] = r
            path_c[cnt] = path_c[cnt - 1]
            cnt += 1
            path_r[cnt] = r
            path_c[cnt] = prime_col[r]
        for k in range(cnt + 1):
            r = path_r[k]
            c = path_c[k]
            if k % 2 == 1:  # starred zero: unstar (its row gets the next prime)
                if star_row[c] == r:
                    star_row[c] = -1
        for k in range(0, cnt + 1, 2):  # primed zeros become stars
            r = path_r[k]
            c = path_c[k]
            star_col[r] = c
            star_row[c] = r
        for i in range(n):
            prime_col[i] = -1
            row_cov[i] = False
        stats[0] += 1
    for i in range(n):
        col4row[i] = star_col[i]
    return 0


def solve_munkres(C: np.ndarray):
    """Solve the square LAP on ``C`` (int64 or float64). Returns (col4row, u, v, stats)."""
    col4row, u, v, st = square_answer(C)
    if C.shape[0]:
        if _munkres_kernel(C, u, v, col4row, st) != 0:
            raise RuntimeError("Munkres STEP 6 found no uncovered entry (internal error)")
    return col4row, u, v, counters(st)
