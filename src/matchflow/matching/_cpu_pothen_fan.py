"""Pothen-Fan+ (PF+) maximum bipartite matching (CPU, Numba).

Pothen and Fan's multi-source DFS augmenting-path algorithm with the two
improvements of Duff, Kaya and Uçar ("Design, implementation, and analysis of
maximum transversal algorithms", ACM TOMS 2011):

* **lookahead** — before descending from a column, scan its rows for an unmatched one
  with a per-column pointer that only moves forward (matched rows stay matched), so
  the total lookahead work is O(|E|);
* **fairness** — the DFS scans adjacency lists forward in even phases and backward in
  odd phases.

A phase runs one DFS from every unmatched column; rows carry the phase number as
their visited mark, so one phase costs O(|E|). The search is iterative (explicit
stack, no recursion) and stops when a phase augments nothing; the matching is then
maximum (in that phase no augmentation changed the matching, so every failed search
proves that its column has no augmenting path). A column whose search fails before
any augmentation of the current phase is proven unmatchable and dropped for good
(visited rows then form a closed set without free rows; by Berge's lemma the column
stays unmatchable after later augmentations), so hopeless columns are searched once.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from .._graph._alternating import next_unvisited
from .._validation import check_bool
from ._cpu_init import flip_path_dev, free_columns_dev, initial_matching

__all__ = ["pothen_fan_kernel", "pothen_fan_arrays", "solve_pothen_fan", "check_pothen_fan_options"]

# Policy of init="auto" (measured on the shared real inputs and random graphs: on a random
# 1M x 1M graph greedy + PF+ took 19 s, from Karp-Sipser 0.7 s): large inputs start from
# Karp-Sipser; smaller ones try greedy + PF+ bounded to AUTO_BUDGET_PER_EDGE adjacency scans per
# edge and restart from Karp-Sipser when the budget runs out.
AUTO_BUDGET_PER_EDGE = 3
AUTO_KS_VERTICES = 200_000
AUTO_KS_EDGES = 1_000_000


@numba.njit(cache=True)
def pothen_fan_kernel(col_ptr, row_ind, row_match, col_match, fairness, max_scans, stats):
    """PF+ from the given matching. ``stats`` (int64[3]) receives phases (``stats["rounds"]``), augmentations, edges scanned.

    Returns the cardinality of the maximum matching, or -2 when more than ``max_scans``
    adjacency entries were scanned (``max_scans < 0``: no limit); the matching is then a
    valid, not necessarily maximum, one.
    """
    n_rows = len(row_match)
    n_cols = len(col_ptr) - 1
    visited = np.full(n_rows, -1, dtype=np.int64)
    lookahead = np.empty(n_cols, dtype=np.int64)
    for j in range(n_cols):
        lookahead[j] = col_ptr[j]
    stack = np.empty(max(n_cols, 1), dtype=np.int64)  # columns on the DFS path
    pos = np.empty(max(n_cols, 1), dtype=np.int64)  # next adjacency index to try, per stack level
    # unmatched columns that may still be matched
    free = np.empty(max(n_cols, 1), dtype=np.int64)
    fsize = np.empty(max(n_cols, 1), dtype=np.int64)  # work of each kept column's failed search
    n_free, card = free_columns_dev(col_ptr, col_match, free)
    phase = 0
    augs = 0
    scanned = 0
    while n_free > 0:
        forward = (not fairness) or (phase % 2 == 0)
        aug_phase = 0
        keep = 0
        for f in range(n_free):
            v = free[f]
            before = scanned
            top = 0
            stack[0] = v
            pos[0] = col_ptr[v] if forward else col_ptr[v + 1] - 1
            found = -1
            while top >= 0:
                c = stack[top]
                # lookahead for a free row
                la = lookahead[c]
                end = col_ptr[c + 1]
                while la < end and row_match[row_ind[la]] >= 0:
                    la += 1
                scanned += la - lookahead[c]
                lookahead[c] = la
                if la < end:
                    found = row_ind[la]
                    lookahead[c] = la + 1
                    break
                # descend through an unvisited (matched) row
                p = pos[top]
                nxt = -1
                if forward:
                    p, _, nxt = next_unvisited(row_ind, row_match, visited, phase, p, end)
                else:
                    beg = col_ptr[c]
                    while p >= beg:
                        r = row_ind[p]
                        p -= 1
                        if visited[r] != phase:
                            visited[r] = phase
                            nxt = row_match[r]
                            break
                scanned += abs(p - pos[top])
                pos[top] = p
                if nxt >= 0:
                    top += 1
                    stack[top] = nxt
                    pos[top] = col_ptr[nxt] if forward else col_ptr[nxt + 1] - 1
                else:
                    top -= 1
            if found >= 0:
                r = found
                flip_path_dev(stack, top, r, row_match, col_match)
                aug_phase += 1
            elif aug_phase > 0:
                free[keep] = v  # not proven: the matching changed during this phase
                fsize[keep] = scanned - before
                keep += 1
            if max_scans >= 0 and scanned > max_scans:
                stats[0] = phase + 1
                stats[1] = augs + aug_phase
                stats[2] = scanned
                return -2
        augs += aug_phase
        card += aug_phase
        n_free = keep
        if keep > 1:
            # stable partition: the big failed searches (likely hopeless columns) go first, so
            # they fail again before any augmentation of the next phase and are dropped
            big = max(np.int64(1024), fsize[:keep].max() // 4)
            nb = 0
            for t in range(keep):
                if fsize[t] >= big:
                    nb += 1
            if 0 < nb < keep:
                tmp = free[:keep].copy()
                a = 0
                b = nb
                for t in range(keep):
                    if fsize[t] >= big:
                        free[a] = tmp[t]
                        a += 1
                    else:
                        free[b] = tmp[t]
                        b += 1
        phase += 1
        if aug_phase == 0:
            break
    stats[0] = phase
    stats[1] = augs
    stats[2] = scanned
    return card


def pothen_fan_arrays(ptr: np.ndarray, ind: np.ndarray, other_match: np.ndarray, search_match: np.ndarray,
                      fairness: bool, budget: int) -> tuple[int, np.ndarray]:
    """PF+ in place; ``(cardinality or -2 past the scan budget, stats int64[3])``."""
    st = np.zeros(3, dtype=np.int64)
    card = pothen_fan_kernel(ptr, ind, other_match, search_match, fairness, budget, st)
    return int(card), st


def _auto_prefers_ks(n_rows: int, n_cols: int, nnz: int) -> bool:
    return n_rows + n_cols >= AUTO_KS_VERTICES or nnz >= AUTO_KS_EDGES


def check_pothen_fan_options(options: dict) -> dict:
    """``fairness`` (bool, default True)."""
    return {"fairness": check_bool("fairness", options.get("fairness", True))}


def solve_pothen_fan(graph, init: str, fairness: bool = True) -> tuple:
    """``method="pothen-fan"`` on a BipartiteGraph, searching from the smaller side. ``init="auto"``:
    Karp-Sipser on large inputs, else greedy + a PF+ bounded to AUTO_BUDGET_PER_EDGE scans per edge,
    restarted from Karp-Sipser when the budget runs out (hard inputs: long augmenting paths).
    Returns ``(row_match, col_match, cardinality, init_cardinality, stats)``."""
    t0 = time.perf_counter()
    transposed = graph.n_rows < graph.n_cols
    h = graph.T if transposed else graph
    stats: dict = {}
    used, solved = init, False
    if init == "auto" and _auto_prefers_ks(h.n_rows, h.n_cols, h.nnz):
        used = "karp-sipser"
    elif init == "auto":
        row_match, col_match, init_card = initial_matching(h, "greedy")
        budget = AUTO_BUDGET_PER_EDGE * h.nnz + h.n_rows + h.n_cols
        t1 = time.perf_counter()
        card, st = pothen_fan_arrays(h.col_ptr, h.row_ind, row_match, col_match, fairness, budget)
        used, solved = "greedy", card != -2
        if not solved:
            stats["budget_exceeded"] = True
            used = "karp-sipser"
    if not solved:
        row_match, col_match, init_card = initial_matching(h, used)
        t1 = time.perf_counter()
        card, st = pothen_fan_arrays(h.col_ptr, h.row_ind, row_match, col_match, fairness, -1)
    stats.update(rounds=int(st[0]), augmentations=int(st[1]), edges_scanned=int(st[2]), init_used=used,
                 seconds_init=t1 - t0, seconds_solve=time.perf_counter() - t1)
    if transposed:
        row_match, col_match = col_match, row_match
    return row_match, col_match, int(card), int(init_card), stats
