"""The alternating search of a bipartite matching on a CSR (CPU, Numba), shared by the matching family's König
cover (:func:`matchflow.verify.konig_cover`) and the sparse assignment's ``partial=True`` split (the deficient
part: what the free rows reach by alternating paths).

``Z``: the vertices reachable from the unmatched rows by alternating paths (row -> column along any edge,
column -> row along its matching edge). König's theorem, constructive form: ``(V_R \\ Z) ∪ (V_C ∩ Z)`` is a
vertex cover of size |M| exactly when ``M`` is maximum.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["konig_cover_kernel"]


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
