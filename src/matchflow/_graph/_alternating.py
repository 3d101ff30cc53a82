"""The alternating search of a bipartite matching on a CSR (CPU, Numba), shared by the matching family's König
cover (:func:`matchflow.verify.konig_cover`) and the sparse assignment's ``partial=True`` split (the deficient
part: what the free rows reach by alternating paths); and :func:`next_unvisited`, the step of the matching family's
depth-first searches with visited marks (Pothen-Fan+, Hopcroft-Karp's Duff-Wiberg pass).

``Z``: the vertices reachable from the unmatched rows by alternating paths (row -> column along any edge,
column -> row along its matching edge). König's theorem, constructive form: ``(V_R \\ Z) ∪ (V_C ∩ Z)`` is a
vertex cover of size |M| exactly when ``M`` is maximum.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["konig_cover_kernel", "next_unvisited"]


@numba.njit(cache=True, inline="always")
def next_unvisited(row_ind, row_match, visited, mark, k, end):
    """The first row of ``row_ind[k:end]`` not marked ``mark`` (it gets the mark): ``(k past it, the row if it is
    free else -1, its column if matched else -1)``; ``(end, -1, -1)`` when there is none."""
    while k < end:
        r = row_ind[k]
        k += 1
        if visited[r] != mark:
            visited[r] = mark
            m = row_match[r]
            if m < 0:
                return k, r, -1
            return k, -1, m
    return k, -1, -1


@numba.njit(cache=True)
def konig_cover_kernel(row_ptr, col_ind, row_match, col_match, cover_rows, cover_cols):
    """Alternating BFS from unmatched rows; fills the boolean cover masks.

    Returns 0, or -1 when an unmatched column is reachable (an augmenting path exists,
    so the matching was not maximum).
    """
    n_rows = len(row_ptr) - 1
    n_cols = len(col_match)
    in_z = np.zeros(n_rows, dtype=np.bool_)
    queue = np.empty(max(n_rows, 1), dtype=np.int64)
    head = 0
    tail = 0
    for i in range(n_rows):
        if row_match[i] < 0:
            in_z[i] = True
            queue[tail] = i
            tail += 1
    for j in range(n_cols):
        cover_cols[j] = False
    status = 0
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(row_ptr[u], row_ptr[u + 1]):
            v = col_ind[k]
            if not cover_cols[v]:
                cover_cols[v] = True
                w = col_match[v]
                if w < 0:
                    status = -1
                elif not in_z[w]:
                    in_z[w] = True
                    queue[tail] = w
                    tail += 1
    for i in range(n_rows):
        cover_rows[i] = not in_z[i]
    return status
