"""Hopcroft-Karp maximum bipartite matching (CPU, Numba).

Hopcroft and Karp ("An n^{5/2} algorithm for maximum matchings in bipartite graphs",
SIAM J. Comput. 1973), in the form studied by Duff, Kaya and Uçar ("Design,
implementation, and analysis of maximum transversal algorithms", ACM TOMS 2011, HK and
HKDW). Each *phase*:

1. **BFS** from all free columns over alternating paths (column -> row by any edge,
   row -> column by the matching edge) builds the layer number ``dist`` of every reached
   column; it stops as soon as a column of layer ``L`` has a free row neighbour (every
   column of layers ``<= L`` is then queued, which is all the DFS needs), so a phase
   only touches the part of the graph near the free columns.
2. **DFS** from every free column along the layers (``dist`` + 1 each step, free rows
   only from layer ``L``) finds a maximal set of vertex-disjoint shortest augmenting
   paths. The search is iterative; every column keeps an adjacency *cursor* that only
   moves forward during a phase, and a column whose search fails is a *dead end*
   (``dist`` = INF), so each edge is scanned at most once per phase. (SciPy's
   Hopcroft-Karp lacks the dead-end marks and is exponential on layered inputs,
   scipy issue 26147.)
3. optionally (**Duff-Wiberg**, HKDW): a depth-first search from each still-free column
   over the whole graph (visited marks, one per phase) finds further, longer augmenting
   paths before the next BFS.

The algorithm stops when a BFS reaches no free row: no augmenting path exists, so the
matching is maximum (Berge). Only the reached columns are reset after a phase, so a
phase costs O(explored edges), not O(|V|). O(sqrt(|V|) |E|) overall.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from .._graph._alternating import next_unvisited
from .._validation import check_bool, check_real
from ._cpu_init import flip_path_dev, free_columns_dev, greedy_init_kernel, initial_matching
from ._cpu_pothen_fan import pothen_fan_arrays

__all__ = ["hopcroft_karp_kernel", "hopcroft_karp_arrays", "solve_hopcroft_karp", "check_hopcroft_karp_options",
           "HK_PF_SWITCH"]

# Policy (measured, docs/notes/matching_cpu.md). Finish with PF+ once a phase scans more than
# HK_PF_SWITCH adjacency entries per augmenting path it finds (HK phases are cheap while many short
# paths exist; a tail of few long paths or hopeless columns is PF+'s strength) ...
HK_PF_SWITCH = 1000
# ... and more than this fraction of all edges (cheap late phases are left to HK: on the
# perfect-matching meshes its last phases find few, long paths far cheaper than PF+ does).
HK_SWITCH_FLOOR = 0.125


@numba.njit(cache=True)
def hopcroft_karp_kernel(col_ptr, row_ind, row_match, col_match, duff_wiberg, max_scans_per_aug, min_phase_scans,
                         stats):
    """HK (``duff_wiberg`` False) or HKDW from the given matching, searching from the columns.

    ``col_ptr``/``row_ind``: adjacency column -> rows (any order, duplicates allowed).
    ``stats`` (int64[3]) receives phases (``stats["rounds"]``), augmentations and adjacency entries scanned.
    Returns the cardinality of the maximum matching, or -2 when a phase after the first
    scanned more than ``max_scans_per_aug`` entries per augmenting path it found and more
    than ``min_phase_scans`` entries in all (``max_scans_per_aug < 0``: never); the matching
    is then valid, not necessarily maximum (the caller finishes with another method).
    """
    n_rows = len(row_match)
    n_cols = len(col_ptr) - 1
    INF = np.int64(1) << 62
    nc1 = max(n_cols, 1)
    dist = np.full(nc1, INF, dtype=np.int64)
    cursor = np.empty(nc1, dtype=np.int64)
    queue = np.empty(nc1, dtype=np.int64)  # BFS queue = the columns reached in this phase
    stack = np.empty(nc1, dtype=np.int64)  # columns on the current DFS path
    free = np.empty(nc1, dtype=np.int64)  # free columns with at least one edge
    visited = np.full(max(n_rows, 1), -1, dtype=np.int64)  # Duff-Wiberg: phase mark per row
    n_free, card = free_columns_dev(col_ptr, col_match, free)
    phase = 0
    augs = 0
    scanned = 0
    while n_free > 0:
        before = scanned
        # ---------------------------------------------------------------- BFS
        for f in range(n_free):
            c = free[f]
            queue[f] = c
            dist[c] = 0
            cursor[c] = col_ptr[c]
        head = 0
        tail = n_free
        last = INF  # layer of the columns that reach a free row
        while head < tail:
            c = queue[head]
            head += 1
            d = dist[c]
            for k in range(col_ptr[c], col_ptr[c + 1]):
                r = row_ind[k]
                m = row_match[r]
                if m < 0:
                    last = d
                    break
                if dist[m] == INF:
                    dist[m] = d + 1
                    cursor[m] = col_ptr[m]
                    queue[tail] = m
                    tail += 1
            scanned += col_ptr[c + 1] - col_ptr[c]
            if last != INF:
                break
        if last == INF:
            for t in range(tail):
                dist[queue[t]] = INF
            break
        # ---------------------------------------------------------------- DFS
        aug_phase = 0
        for f in range(n_free):
            v = free[f]
            if dist[v] != 0:
                continue
            top = 0
            stack[0] = v
            found = -1
            while top >= 0:
                c = stack[top]
                d = dist[c]
                k = cursor[c]
                end = col_ptr[c + 1]
                nxt = -1
                if d == last:
                    while k < end:
                        r = row_ind[k]
                        k += 1
                        if row_match[r] < 0:
                            found = r
                            break
                else:
                    while k < end:
                        r = row_ind[k]
                        k += 1
                        m = row_match[r]
                        if m >= 0 and dist[m] == d + 1:
                            nxt = m
                            break
                scanned += k - cursor[c]
                cursor[c] = k
                if found >= 0:
                    break
                if nxt >= 0:
                    top += 1
                    stack[top] = nxt
                else:
                    dist[c] = INF  # dead end for the rest of this phase
                    top -= 1
            if found >= 0:
                r = found
                flip_path_dev(stack, top, r, row_match, col_match)
                for t in range(top + 1):
                    dist[stack[t]] = INF  # a column is used by one path per phase
                aug_phase += 1
        # ------------------------------------------- Duff-Wiberg extra searches
        if duff_wiberg:
            for f in range(n_free):
                v = free[f]
                if col_match[v] >= 0:
                    continue
                top = 0
                stack[0] = v
                cursor[v] = col_ptr[v]
                found = -1
                while top >= 0:
                    c = stack[top]
                    k = cursor[c]
                    end = col_ptr[c + 1]
                    k, found, nxt = next_unvisited(row_ind, row_match, visited, phase, k, end)
                    scanned += k - cursor[c]
                    cursor[c] = k
                    if found >= 0:
                        break
                    if nxt >= 0:
                        top += 1
                        stack[top] = nxt
                        cursor[nxt] = col_ptr[nxt]
                    else:
                        top -= 1
                if found >= 0:
                    r = found
                    flip_path_dev(stack, top, r, row_match, col_match)
                    aug_phase += 1
        # ------------------------------------------------------ next phase
        for t in range(tail):
            dist[queue[t]] = INF
        keep = 0
        for f in range(n_free):
            v = free[f]
            if col_match[v] < 0:
                free[keep] = v
                keep += 1
        n_free = keep
        augs += aug_phase
        card += aug_phase
        phase += 1
        work = scanned - before
        if max_scans_per_aug >= 0 and phase > 1 and n_free > 0 and work > max_scans_per_aug * aug_phase \
                and work > min_phase_scans:
            stats[0] = phase
            stats[1] = augs
            stats[2] = scanned
            return -2
    stats[0] = phase
    stats[1] = augs
    stats[2] = scanned
    return card


def hopcroft_karp_arrays(ptr: np.ndarray, ind: np.ndarray, other_match: np.ndarray, search_match: np.ndarray,
                         duff_wiberg: bool = False, pf_switch: int = HK_PF_SWITCH) -> tuple[int, dict]:
    """HK phases on the adjacency ``ptr``/``ind`` of the search side, then PF+ once a phase
    scans more than ``pf_switch`` entries per augmentation (< 0: pure HK). Matches in place."""
    st = np.zeros(3, dtype=np.int64)
    floor = int(HK_SWITCH_FLOOR * len(ind))
    card = hopcroft_karp_kernel(ptr, ind, other_match, search_match, duff_wiberg, pf_switch, floor, st)
    stats = {"rounds": int(st[0]), "augmentations": int(st[1]), "edges_scanned": int(st[2])}
    if card == -2:
        card, st2 = pothen_fan_arrays(ptr, ind, other_match, search_match, True, -1)
        stats.update(pf_rounds=int(st2[0]), pf_augmentations=int(st2[1]), pf_edges_scanned=int(st2[2]))
    return int(card), stats


def check_hopcroft_karp_options(options: dict) -> dict:
    """``duff_wiberg`` (bool, default False); ``pf_switch`` (>= 0, default HK_PF_SWITCH; None: pure HK)."""
    dw = check_bool("duff_wiberg", options.get("duff_wiberg", False))
    sw = options.get("pf_switch", HK_PF_SWITCH)
    sw = -1 if sw is None else int(min(check_real("pf_switch", sw, low=0.0), 2.0**62))
    return {"duff_wiberg": dw, "pf_switch": sw}


def solve_hopcroft_karp(graph, init: str, duff_wiberg: bool = False, pf_switch: int = HK_PF_SWITCH) -> tuple:
    """``method="hopcroft-karp"`` on a BipartiteGraph: ``init="auto"`` is greedy (one cheap pass);
    searches from the rows on the CSR (no CSC built) unless there are more rows than columns.
    Returns ``(row_match, col_match, cardinality, init_cardinality, stats)``."""
    t0 = time.perf_counter()
    used = "greedy" if init == "auto" else init
    row_match = np.full(graph.n_rows, -1, dtype=graph.itype)
    col_match = np.full(graph.n_cols, -1, dtype=graph.itype)
    init_card = 0
    if used == "karp-sipser" and graph.nnz:
        row_match, col_match, init_card = initial_matching(graph, "karp-sipser")
    if graph.n_rows <= graph.n_cols:
        ptr, ind, search_match, other_match = graph.row_ptr, graph.col_ind, row_match, col_match
    else:
        ptr, ind, search_match, other_match = graph.col_ptr, graph.row_ind, col_match, row_match
    if used == "greedy" and graph.nnz:
        init_card = int(greedy_init_kernel(ptr, ind, other_match, search_match))
    t1 = time.perf_counter()
    card, stats = hopcroft_karp_arrays(ptr, ind, other_match, search_match, duff_wiberg, pf_switch)
    stats.update(init_used=used, seconds_init=t1 - t0, seconds_solve=time.perf_counter() - t1)
    return row_match, col_match, card, int(init_card), stats
