"""Exact sparse assignment on Python integers: the integer ranges the int64 solvers refuse (cost scaling needs
``range * 4 (n+1)^2 < 2**59``, the int64 shortest paths ``range * (n+1) < 2**59``), any int64 value SciPy accepts.

Why shortest augmenting paths on Python integers (not an int128 split of cost scaling): its potentials are
sums of at most n path lengths, which Python integers hold exactly whatever the range, the matching and its
duals come out of one pass (no scaling phases to carry in two words), and the answer keeps the certificate of
every sparse answer (the extended problem's duals, checked exactly by
:func:`._verify_sparse.verify_sparse_assignment`). It is a pure-Python fallback, O(n m log m): ranges that
wide are deliberate extremes, where exactness comes first.
"""

from __future__ import annotations

import heapq

import numpy as np
import scipy.sparse as sp

from .._lsap.problem import InfeasibleError


def ssp_exact(E: sp.csr_array) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """The least-cost perfect matching of the square integer E by shortest augmenting paths (Dijkstra on the
    reduced costs ``c(i, j) - v(j)``, as :func:`._cpu_sparse_ssp.ssp_kernel`) in Python integers. Returns
    ``(x, U, V, stats)``: E's perfect matching and exact duals (object arrays of Python ints, ``U[i] + V[j] <=
    c(i, j)``, tight on ``x``); InfeasibleError when a row finds no augmenting path."""
    n = E.shape[0]
    ptr, ind = E.indptr.tolist(), E.indices.tolist()
    cost = [int(t) for t in E.data.tolist()]
    v, col4row, row4col, mcost = [0] * n, [-1] * n, [-1] * n, [0] * n
    scanned_total = 0
    for s in range(n):
        dist: dict = {}
        pred: dict = {}
        done: list = []
        heap = []
        for k in range(ptr[s], ptr[s + 1]):
            j = ind[k]
            d = cost[k] - v[j]
            if j not in dist or d < dist[j]:
                dist[j], pred[j] = d, (s, k)
                heapq.heappush(heap, (d, j))
        seen, free = set(), -1
        while heap:
            d, j = heapq.heappop(heap)
            if j in seen or d > dist[j]:
                continue
            seen.add(j)
            done.append(j)
            r = row4col[j]
            if r < 0:
                free, big_d = j, d
                break
            base = d - (mcost[r] - v[j])
            for k in range(ptr[r], ptr[r + 1]):
                j2 = ind[k]
                if j2 in seen:
                    continue
                d2 = base + cost[k] - v[j2]
                if j2 not in dist or d2 < dist[j2]:
                    dist[j2], pred[j2] = d2, (r, k)
                    heapq.heappush(heap, (d2, j2))
        scanned_total += len(done)
        if free < 0:
            raise InfeasibleError()
        for j in done:
            v[j] += dist[j] - big_d
        j = free
        while True:
            r, k = pred[j]
            prev = col4row[r]
            col4row[r], row4col[j], mcost[r] = j, r, cost[k]
            if r == s:
                break
            j = prev
    U = np.array([mcost[i] - v[col4row[i]] for i in range(n)], dtype=object)
    return (np.array(col4row, dtype=np.int64), U, np.array(v, dtype=object),
            {"sparse_path": "ssp-bigint", "ssp_scanned_columns": scanned_total})
