"""Sequential push-relabel for maximum bipartite matching (CPU, Numba).

Deveci, Kaya, Uçar and Çatalyürek (ICPP 2013), Section II, Algorithm 1 (PR) with
Algorithm 2 (GR, global relabeling), following Kaya et al.'s PR-FIFO variant:

* labels ``psi`` for rows (V_R, size m) and columns (V_C, size n); ``psi(v)`` is a lower
  bound on the alternating-path distance from ``v`` to an unmatched row;
* active (unmatched) columns are kept in a FIFO queue;
* an active column ``v`` pushes to the row ``u`` of minimum ``psi`` in Γ(v) (the scan stops
  early at ``psi(u) == psi(v) - 1``, the neighbourhood invariant): single push when ``u``
  is free, double push when ``u`` was matched to ``w`` (``w`` becomes active); then
  ``psi(v) = psi(u) + 1`` and ``psi(u) = psi(u) + 2``;
* a global relabeling (BFS from every unmatched row) runs first and then every
  ``k * (m + n)`` pushes (``relabel_freq = k``, 0.5 by default);
* a column whose minimum neighbour label reaches ``m + n`` (infinity) cannot be on an
  augmenting path: it is dropped (unmatchable).
"""

from __future__ import annotations

import time

import numba
import numpy as np

from .._graph._ring import ring_pop, ring_push
from .._validation import check_real
from ._cpu_init import initial_matching

__all__ = ["push_relabel_kernel", "global_relabel_kernel", "solve_push_relabel", "check_push_relabel_options"]

# Policy: a global relabeling every RELABEL_FREQ * (m + n) pushes (Kaya et al.'s k = 0.5).
RELABEL_FREQ = 0.5


def min_label_scan(target, e0, e1, step, row_ind, psi_r, inf):
    """The row of least label among ``row_ind[e0:e1:step]`` (the first of equal ones), stopping at the first label
    ``<= target`` (``psi(v) - 1``: the least the neighbourhood invariant allows). Returns ``(row, label)``; row -1
    when every label is ``>= inf``. A plain function: compiled here for the CPU loop (:func:`min_label_scan_cpu`)
    and by the GPU kernels (``_gpu_push_relabel_kernels.min_label_scan_dev``: a thread's or a warp lane's scan)."""
    pmin = inf
    best = -1
    for e in range(e0, e1, step):
        u = row_ind[e]
        p = psi_r[u]
        if p < pmin:
            pmin = p
            best = u
            if p <= target:
                break
    return best, pmin


min_label_scan_cpu = numba.njit(cache=True, inline="always")(min_label_scan)


@numba.njit(cache=True)
def global_relabel_kernel(row_ptr, col_ind, row_match, col_match, psi_r, psi_c, queue, inf):
    """Algorithm 2 (GR): exact distances to the nearest unmatched row by BFS; unreached = ``inf``.

    Returns the largest finite column label (0 when no column is reached).
    """
    n_rows = len(row_ptr) - 1
    head = 0
    tail = 0
    for i in range(n_rows):
        if row_match[i] < 0:
            psi_r[i] = 0
            queue[tail] = i
            tail += 1
        else:
            psi_r[i] = inf
    psi_c[:] = inf
    max_level = 0
    while head < tail:
        u = queue[head]
        head += 1
        lu = psi_r[u] + 1
        for k in range(row_ptr[u], row_ptr[u + 1]):
            v = col_ind[k]
            if psi_c[v] == inf:
                psi_c[v] = lu
                if lu > max_level:
                    max_level = lu
                w = col_match[v]
                if w >= 0:
                    psi_r[w] = lu + 1
                    queue[tail] = w
                    tail += 1
    return max_level


@numba.njit(cache=True)
def push_relabel_kernel(row_ptr, col_ind, col_ptr, row_ind, row_match, col_match, relabel_freq, stats):
    """Algorithm 1 (PR) with FIFO active columns and periodic GR, from the given matching.

    ``stats`` (int64[4]) receives pushes, relabels, global_relabels, double_pushes.
    Returns the cardinality of the maximum matching.
    """
    n_rows = len(row_ptr) - 1
    n_cols = len(col_ptr) - 1
    inf = n_rows + n_cols
    psi_r = np.empty(n_rows, dtype=np.int64)
    psi_c = np.empty(n_cols, dtype=np.int64)
    bfs = np.empty(max(n_rows, 1), dtype=np.int64)
    # FIFO of active columns as a ring buffer: a column is queued only while unmatched,
    # so at most n_cols entries are live at once.
    cap = n_cols + 1
    fifo = np.empty(cap, dtype=np.int64)
    head = 0
    tail = 0
    size = 0
    card = 0
    for j in range(n_cols):
        if col_match[j] >= 0:
            card += 1
    gr_limit = max(np.int64(1), np.int64(relabel_freq * (n_rows + n_cols)))
    pushes = 0
    relabels = 0
    n_gr = 1
    doubles = 0
    global_relabel_kernel(row_ptr, col_ind, row_match, col_match, psi_r, psi_c, bfs, inf)
    for j in range(n_cols):
        if col_match[j] < 0 and psi_c[j] < inf:
            fifo[tail] = j
            tail += 1
            size += 1
    if tail == cap:
        tail = 0
    since_gr = 0
    while size > 0:
        v, head, size = ring_pop(fifo, head, size, cap)
        if since_gr >= gr_limit:
            global_relabel_kernel(row_ptr, col_ind, row_match, col_match, psi_r, psi_c, bfs, inf)
            n_gr += 1
            since_gr = 0
        pv = psi_c[v]
        if pv >= inf:
            continue  # unmatchable
        # row of minimum label in Γ(v); psi(u) >= psi(v) - 1 always holds
        u, best = min_label_scan_cpu(pv - 1, col_ptr[v], col_ptr[v + 1], 1, row_ind, psi_r, inf)
        if best >= inf:
            psi_c[v] = inf  # no augmenting path from v
            continue
        w = row_match[u]
        row_match[u] = v
        col_match[v] = u
        if w >= 0:  # double push: w loses u and becomes active
            col_match[w] = -1
            tail, size = ring_push(fifo, tail, size, cap, w)
            doubles += 1
        else:
            card += 1
        if best + 1 > pv:
            relabels += 1
        psi_c[v] = best + 1
        psi_r[u] = best + 2
        pushes += 1
        since_gr += 1
    stats[0] = pushes
    stats[1] = relabels
    stats[2] = n_gr
    stats[3] = doubles
    return card


def check_push_relabel_options(options: dict) -> dict:
    """``relabel_freq`` (k > 0, default RELABEL_FREQ)."""
    k = check_real("relabel_freq", options.get("relabel_freq", RELABEL_FREQ), low=0.0, low_inclusive=False)
    return {"relabel_freq": k}


def solve_push_relabel(graph, init: str, relabel_freq: float = RELABEL_FREQ) -> tuple:
    """``method="push-relabel"`` on a BipartiteGraph (``init="auto"``: greedy), from the smaller side.
    Returns ``(row_match, col_match, cardinality, init_cardinality, stats)``."""
    t0 = time.perf_counter()
    transposed = graph.n_rows < graph.n_cols
    h = graph.T if transposed else graph
    used = "greedy" if init == "auto" else init
    row_match, col_match, init_card = initial_matching(h, used)
    t1 = time.perf_counter()
    st = np.zeros(4, dtype=np.int64)
    card = push_relabel_kernel(h.row_ptr, h.col_ind, h.col_ptr, h.row_ind, row_match, col_match, relabel_freq, st)
    stats = {"pushes": int(st[0]), "relabels": int(st[1]), "global_relabels": int(st[2]),
             "double_pushes": int(st[3]), "init_used": used, "seconds_init": t1 - t0,
             "seconds_solve": time.perf_counter() - t1}
    if transposed:
        row_match, col_match = col_match, row_match
    return row_match, col_match, int(card), int(init_card), stats
