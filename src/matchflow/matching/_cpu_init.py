"""Cheap initial matchings for the exact solvers (CPU, Numba).

* ``greedy``      — every column takes its first free neighbour row (Duff et al.'s
  "simple greedy"); one pass over the CSC arrays.
* ``karp-sipser`` — Karp and Sipser's heuristic: while a vertex (row or column) of
  degree 1 exists (degree = number of *unmatched* neighbours) match it to its only
  free neighbour, which is always optimal; otherwise match the next free column to
  its free neighbour row of minimum current degree. O(|V| + |E|).
* ``none``        — the empty matching.

The exact algorithms (push-relabel, Pothen-Fan) start from these; a good start
shortens their run a lot. ``row_match[i]`` is the column of row ``i`` and
``col_match[j]`` the row of column ``j``, ``-1`` where unmatched.
"""

from __future__ import annotations

import numba
import numpy as np

from .._graph import BipartiteGraph, as_bipartite
from .._validation import check_choice

__all__ = ["INITS", "initial_matching", "greedy_init_kernel", "karp_sipser_kernel", "karp_sipser_from_degrees_kernel",
           "free_degrees_kernel"]

INITS = ("karp-sipser", "greedy", "none")


@numba.njit(cache=True, inline="always")
def free_columns_dev(col_ptr, col_match, free):
    """Write the unmatched columns that have an edge into ``free``; return (their count, cardinality)."""
    n_free = 0
    card = 0
    for j in range(len(col_ptr) - 1):
        if col_match[j] >= 0:
            card += 1
        elif col_ptr[j + 1] > col_ptr[j]:
            free[n_free] = j
            n_free += 1
    return n_free, card


@numba.njit(cache=True, inline="always")
def flip_path_dev(stack, top, r, row_match, col_match):
    """Augment along the DFS path ``stack[0..top]`` (columns) ending at the free row ``r``: every column takes
    the row after it on the path, and the first column's old row is given up by nobody (it was free)."""
    for t in range(top, -1, -1):
        c = stack[t]
        prev = col_match[c]
        row_match[r] = c
        col_match[c] = r
        r = prev


@numba.njit(cache=True)
def greedy_init_kernel(col_ptr, row_ind, row_match, col_match):
    """Simple greedy: column ``j`` takes its first unmatched row. Returns the cardinality."""
    n_cols = len(col_ptr) - 1
    card = 0
    for j in range(n_cols):
        if col_match[j] >= 0:
            continue
        for k in range(col_ptr[j], col_ptr[j + 1]):
            i = row_ind[k]
            if row_match[i] < 0:
                row_match[i] = j
                col_match[j] = i
                card += 1
                break
    return card


@numba.njit(cache=True, inline="always")
def _ks_drop_dev(v, ptr, ind, other_match, info, queue, tail, rows):
    """v (a row, or a column) is matched: each free neighbour w (a column, or with ``rows`` a row) has one
    free neighbour less (``info[2w]``, v's id leaves the XOR ``info[2w + 1]``); those left with one join
    the queue (a row w as ``-(w + 1)``). Returns the new queue tail."""
    for k in range(ptr[v], ptr[v + 1]):
        w = ind[k]
        if other_match[w] < 0:
            d = info[2 * w] - 1
            info[2 * w] = d
            info[2 * w + 1] ^= v
            if d == 1:
                queue[tail] = -(w + 1) if rows else w
                tail += 1
    return tail


@numba.njit(cache=True, inline="always")
def _ks_match_dev(i, j, row_ptr, col_ind, col_ptr, row_ind, row_match, col_match, rinfo, cinfo, queue, tail):
    """Match row i with column j and update the free-neighbour degrees and id XORs.

    ``rinfo[2r]`` is the number of free columns of row r and ``rinfo[2r + 1]`` the XOR of
    their ids (same for ``cinfo``; interleaved so both share a cache line).
    Returns the new queue tail. Queue entries: ``j >= 0`` is column j, ``-(i + 1)`` is row i.
    """
    row_match[i] = j
    col_match[j] = i
    tail = _ks_drop_dev(i, row_ptr, col_ind, col_match, cinfo, queue, tail, False)
    return _ks_drop_dev(j, col_ptr, row_ind, row_match, rinfo, queue, tail, True)


#: edges per block of the parallel Karp-Sipser degree count (smaller graphs: one thread; see CSC_BLOCK_EDGES)
KS_BLOCK_EDGES = 1 << 21


@numba.njit(cache=True)
def _free_degrees_dev(ptr, ind, own_match, other_match, info, lo, hi):
    """For each unmatched v in lo..hi-1: ``info[2v]`` = its free neighbours, ``info[2v + 1]`` = the XOR of their ids."""
    for v in range(lo, hi):
        if own_match[v] >= 0:
            continue
        d = 0
        x = 0
        for k in range(ptr[v], ptr[v + 1]):
            u = ind[k]
            if other_match[u] < 0:
                d += 1
                x ^= u
        info[2 * v] = d
        info[2 * v + 1] = x


@numba.njit(cache=True, parallel=True)
def free_degrees_kernel(ptr, ind, own_match, other_match, info, n_blocks):
    """:func:`_free_degrees_dev` over all vertices in ``n_blocks`` blocks of about equal edge counts
    (each vertex writes only its own entries: the same ``info`` on any thread count)."""
    n = len(ptr) - 1
    m = ptr[n] if n > 0 else 0
    for b in numba.prange(n_blocks):
        lo = np.searchsorted(ptr[:n], (m * b) // n_blocks) if b > 0 else 0
        hi = np.searchsorted(ptr[:n], (m * (b + 1)) // n_blocks) if b + 1 < n_blocks else n
        _free_degrees_dev(ptr, ind, own_match, other_match, info, lo, hi)


@numba.njit(cache=True)
def karp_sipser_kernel(row_ptr, col_ind, col_ptr, row_ind, row_match, col_match):
    """Karp-Sipser with degree-1 reductions on both sides. Returns the cardinality.

    Starts from the (possibly non-empty) matching in ``row_match``/``col_match``. Every
    vertex keeps its number of free neighbours (degree) and the XOR of their ids, so the
    only free neighbour of a degree-1 vertex is read in O(1).
    """
    n_rows = len(row_ptr) - 1
    n_cols = len(col_ptr) - 1
    rinfo = np.zeros(2 * n_rows, dtype=row_match.dtype)
    cinfo = np.zeros(2 * n_cols, dtype=col_match.dtype)
    _free_degrees_dev(col_ptr, row_ind, col_match, row_match, cinfo, 0, n_cols)
    _free_degrees_dev(row_ptr, col_ind, row_match, col_match, rinfo, 0, n_rows)
    return karp_sipser_from_degrees_kernel(row_ptr, col_ind, col_ptr, row_ind, row_match, col_match, rinfo, cinfo)


@numba.njit(cache=True)
def karp_sipser_from_degrees_kernel(row_ptr, col_ind, col_ptr, row_ind, row_match, col_match, rinfo, cinfo):
    """:func:`karp_sipser_kernel` after its degree count (``rinfo``/``cinfo`` from :func:`_free_degrees_dev`;
    the sequential part: its result depends only on those arrays and the input order)."""
    n_rows = len(row_ptr) - 1
    n_cols = len(col_ptr) - 1
    card = 0
    for j in range(n_cols):
        if col_match[j] >= 0:
            card += 1
    # every vertex enters the queue at most once (initially with degree 1, or when its degree drops to 1)
    queue = np.empty(n_rows + n_cols, dtype=np.int64)
    head = 0
    tail = 0
    for j in range(n_cols):
        if cinfo[2 * j] == 1:
            queue[tail] = j
            tail += 1
    for i in range(n_rows):
        if rinfo[2 * i] == 1:
            queue[tail] = -(i + 1)
            tail += 1
    nxt = 0
    while True:
        while head < tail:
            x = queue[head]
            head += 1
            if x >= 0:
                j = x
                if col_match[j] >= 0 or cinfo[2 * j] != 1:
                    continue
                i = cinfo[2 * j + 1]
            else:
                i = -x - 1
                if row_match[i] >= 0 or rinfo[2 * i] != 1:
                    continue
                j = rinfo[2 * i + 1]
            tail = _ks_match_dev(i, j, row_ptr, col_ind, col_ptr, row_ind, row_match, col_match,
                                 rinfo, cinfo, queue, tail)
            card += 1
        # no degree-1 vertex left: match the next free column to its free row of minimum degree
        while nxt < n_cols and (col_match[nxt] >= 0 or cinfo[2 * nxt] == 0):
            nxt += 1
        if nxt == n_cols:
            break
        j = nxt
        i = -1
        best = n_cols + 1
        for k in range(col_ptr[j], col_ptr[j + 1]):
            r = row_ind[k]
            if row_match[r] < 0 and rinfo[2 * r] < best:
                best = rinfo[2 * r]
                i = r
        if i < 0:  # cannot happen: cinfo counts free neighbours
            return -1
        tail = _ks_match_dev(i, j, row_ptr, col_ind, col_ptr, row_ind, row_match, col_match,
                             rinfo, cinfo, queue, tail)
        card += 1
    return card


def _karp_sipser(graph, row_match: np.ndarray, col_match: np.ndarray) -> int:
    """Karp-Sipser on a BipartiteGraph; the degree count runs on the Numba threads from 2 KS_BLOCK_EDGES
    edges (4 M) on (the matching is the same on any thread count)."""
    n_blocks = min(numba.get_num_threads(), graph.nnz // KS_BLOCK_EDGES)
    if n_blocks <= 1:
        return karp_sipser_kernel(graph.row_ptr, graph.col_ind, graph.col_ptr, graph.row_ind, row_match, col_match)
    rinfo = np.zeros(2 * graph.n_rows, dtype=row_match.dtype)
    cinfo = np.zeros(2 * graph.n_cols, dtype=col_match.dtype)
    free_degrees_kernel(graph.col_ptr, graph.row_ind, col_match, row_match, cinfo, n_blocks)
    free_degrees_kernel(graph.row_ptr, graph.col_ind, row_match, col_match, rinfo, n_blocks)
    return karp_sipser_from_degrees_kernel(graph.row_ptr, graph.col_ind, graph.col_ptr, graph.row_ind,
                                           row_match, col_match, rinfo, cinfo)


def initial_matching(graph, init: str = "karp-sipser") -> tuple[np.ndarray, np.ndarray, int]:
    """``(row_match, col_match, cardinality)`` of the initial matching ``init`` on a BipartiteGraph.

    Arrays have the graph's index dtype, -1 where unmatched. ``graph`` is anything
    :func:`matchflow.as_bipartite` accepts; ``init`` is "karp-sipser", "greedy" or "none".
    Public (``matchflow.matching.initial_matching``): the GPU solver and benchmarks reuse it.
    """
    check_choice("init", init, ("karp-sipser", "greedy", "none"))
    if not isinstance(graph, BipartiteGraph):
        graph = as_bipartite(graph, "graph")
    it = graph.itype
    row_match = np.full(graph.n_rows, -1, dtype=it)
    col_match = np.full(graph.n_cols, -1, dtype=it)
    if init == "none" or graph.nnz == 0:
        return row_match, col_match, 0
    if init == "greedy":
        card = greedy_init_kernel(graph.col_ptr, graph.row_ind, row_match, col_match)
    elif init == "karp-sipser":
        card = _karp_sipser(graph, row_match, col_match)
        if card < 0:  # pragma: no cover - internal invariant
            raise RuntimeError("karp-sipser: degree bookkeeping failed (internal error)")
    else:  # pragma: no cover - validated by the API layer
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    return row_match, col_match, int(card)
