"""Rectangular sparse assignment by successive shortest paths (the CPU path for ``rows < cols``; partial mode).

Jonker-Volgenant's augmentation on a sparse matrix (as LAPJVsp, SciPy's ``min_weight_full_bipartite_matching``):
each row in turn is matched by a shortest augmenting path (Dijkstra on the reduced costs ``c(i, j) - v(j)``, a
binary heap over the columns), then the potentials of the scanned columns fall by ``D - d(j)`` so the reduced
costs stay >= 0. Columns never scanned keep ``v = 0``: unmatched columns end at 0 and matched ones at <= 0,
the signs the rectangular dual asks for. Cost scaling would solve the square extension of size
``rows + cols`` (twice the work on very rectangular inputs); this touches only what the augmenting paths
reach. Integers are exact (int64); floats in float64, certified afterwards like every sparse answer.

Partial mode without a full matching splits first (the König cover's alternating BFS, ``konig_cover_kernel``):
the rows that some maximum
matching leaves free and their neighbours form the Dulmage-Mendelsohn horizontal part H, whose columns every
maximum matching matches into H's rows; every other row is matched in every maximum matching, to a column
outside H. So a maximum matching of least cost is two full-mode problems, H's columns matched in full and the
other rows matched in full, and no search ever fails. (Running the rows in turn and skipping the ones whose
search finds no free column gives a maximum matching but not the cheapest: one column at cost 10 for row a and
1 for row b, a first, keeps 10.)
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from .._graph._alternating import konig_cover_kernel
from .._lsap.problem import InfeasibleError
from ._cpu_sparse_bigint import ssp_exact
from ._prepare_sparse import _LIMIT, SparseProblem, _perfect_extension, add_exact, shifted_integer_costs
from ._verify_sparse import _float_duals, _int_duals

OK, NO_PATH = 0, 1


@numba.njit(cache=True, inline="always")
def _heap_push_dev(hk, hv, size, key, val):
    i = size
    hk[i] = key
    hv[i] = val
    while i > 0:
        p = (i - 1) // 2
        if hk[p] <= hk[i]:
            break
        hk[p], hk[i] = hk[i], hk[p]
        hv[p], hv[i] = hv[i], hv[p]
        i = p
    return size + 1


@numba.njit(cache=True, inline="always")
def _heap_pop_dev(hk, hv, size):
    """Removes the least key; returns (key, value, new size)."""
    key, val = hk[0], hv[0]
    size -= 1
    hk[0], hv[0] = hk[size], hv[size]
    i = 0
    while True:
        a = 2 * i + 1
        if a >= size:
            break
        if a + 1 < size and hk[a + 1] < hk[a]:
            a += 1
        if hk[i] <= hk[a]:
            break
        hk[a], hk[i] = hk[i], hk[a]
        hv[a], hv[i] = hv[i], hv[a]
        i = a
    return key, val, size


@numba.njit(cache=True, inline="always")
def _relax_dev(j, d, k, inf, dist, pred, touched, nt, hk, hv, size):
    """Column j reached at distance d by arc k: keep the shorter, queue it. Returns (touched count, heap size)."""
    if d < dist[j]:
        if dist[j] == inf:
            touched[nt] = j
            nt += 1
        dist[j] = d
        pred[j] = k
        size = _heap_push_dev(hk, hv, size, d, j)
    return nt, size


@numba.njit(cache=True)
def ssp_kernel(indptr, indices, cost, nc, inf, col4row, row4col, v):
    """Match every row (``col4row``/``row4col`` filled, ``v`` the column potentials, start 0). Returns
    (status, the row that found no augmenting path or -1, columns scanned)."""
    nr = indptr.size - 1
    dist = np.full(nc, inf, dtype=cost.dtype)
    pred = np.full(nc, -1, dtype=np.int64)  # arc that reached the column
    done = np.zeros(nc, dtype=np.bool_)
    mcost = np.zeros(nr, dtype=cost.dtype)  # cost of each row's matched arc
    touched = np.empty(nc, dtype=np.int64)
    scanned = np.empty(nc, dtype=np.int64)
    hk = np.empty(indices.size + 1, dtype=cost.dtype)
    hv = np.empty(indices.size + 1, dtype=np.int64)
    arc_row = np.empty(indices.size, dtype=np.int64)
    for i in range(nr):
        for k in range(indptr[i], indptr[i + 1]):
            arc_row[k] = i
    total = np.int64(0)
    for s in range(nr):
        nt = 0
        ns = 0
        size = 0
        for k in range(indptr[s], indptr[s + 1]):
            j = indices[k]
            nt, size = _relax_dev(j, cost[k] - v[j], k, inf, dist, pred, touched, nt, hk, hv, size)
        free = -1
        big_d = inf
        while size > 0:
            d, j, size = _heap_pop_dev(hk, hv, size)
            if done[j] or d > dist[j]:
                continue
            done[j] = True
            scanned[ns] = j
            ns += 1
            r = row4col[j]
            if r < 0:
                free = j
                big_d = d
                break
            base = d - (mcost[r] - v[j])  # reduced costs from row r relative to its matched arc (>= 0)
            for k in range(indptr[r], indptr[r + 1]):
                j2 = indices[k]
                if not done[j2]:
                    nt, size = _relax_dev(j2, base + cost[k] - v[j2], k, inf, dist, pred, touched, nt, hk, hv, size)
        total += ns
        if free < 0:
            return NO_PATH, s, total
        for t in range(ns):  # potentials: scanned columns fall by D - d(j) (0 for the free one)
            j = scanned[t]
            v[j] += dist[j] - big_d
        j = free
        while True:  # augment along the predecessor arcs
            k = pred[j]
            r = arc_row[k]
            prev = col4row[r]
            col4row[r] = j
            row4col[j] = r
            mcost[r] = cost[k]
            if r == s:
                break
            j = prev
        for t in range(nt):
            j = touched[t]
            dist[j] = inf
            done[j] = False
    return OK, -1, total


def ssp_solve(indptr: np.ndarray, indices: np.ndarray, cost: np.ndarray, nc: int
              ) -> tuple[int, np.ndarray, np.ndarray, dict]:
    """Every row of the CSR (``rows <= nc``) matched at least cost. Returns (status, col4row, the column
    potentials v, stats)."""
    nr = indptr.size - 1
    inf = np.iinfo(np.int64).max // 4 if cost.dtype.kind == "i" else np.inf
    col4row = np.full(nr, -1, dtype=np.int64)
    row4col = np.full(nc, -1, dtype=np.int64)
    v = np.zeros(nc, dtype=cost.dtype)
    st, row, scans = ssp_kernel(indptr.astype(np.int64), indices.astype(np.int64), cost, nc, cost.dtype.type(inf),
                                col4row, row4col, v)
    return int(st), col4row, v, {"ssp_scanned_columns": int(scans), "ssp_failed_row": int(row)}


def _solve_ssp(A: sp.csr_array, E: sp.csr_array, tr: bool):
    """The full-mode matching by shortest augmenting paths (:mod:`._cpu_sparse_ssp`) on the smaller side's rows,
    then the duals of the extended problem E (its certificate) by the label-correcting pass from the paths'
    column potentials. (x, U, V, stats) as :func:`._cpu_cost_scaling.solve_square`; InfeasibleError when a row finds no path;
    None when the pass does not prove the matching (then cost scaling solves it)."""
    R = A.T.tocsr() if tr else A
    R.sort_indices()
    lo = R.data.min() if R.nnz else 0
    if R.dtype.kind == "i" and R.nnz and (int(R.data.max()) - int(lo)) * (R.shape[0] + 1) >= _LIMIT:
        return None  # potentials could leave int64: cost scaling's own range check decides (OverflowError)
    cost = (R.data - lo).astype(np.int64 if R.dtype.kind == "i" else np.float64)
    st, c4r, v, stats = ssp_solve(R.indptr, R.indices, cost, R.shape[1])
    if st != OK:
        raise InfeasibleError()
    rr, cc = np.arange(R.shape[0]), c4r
    x = _perfect_extension(E, A, cc if tr else rr, rr if tr else cc, tr, False)
    n = E.shape[0]
    v0 = np.zeros(n, dtype=np.float64 if E.dtype.kind == "f" else np.int64)
    v0[:R.shape[1]] = v  # the real columns' potentials; the dummies start at 0 (lowered by the pass)
    stats["sparse_path"] = "ssp"
    if E.dtype.kind == "f":
        uf, vf, proved = _float_duals(E, x, [np.zeros(n), v0], None, stats)
        return (x, uf, vf, stats) if proved else None  # what the verifier accepts
    ic, loE = shifted_integer_costs(E)
    u = _int_duals(E, x, ic, v0)
    return None if u is None else (x, add_exact(u, loE), v0, stats)

def _solve_ssp_partial(A: sp.csr_array, E: sp.csr_array, big, col4row: np.ndarray):
    """``partial=True`` without a full matching (``col4row``: a maximum matching): two full-mode shortest-path
    problems (:mod:`._cpu_sparse_ssp`), the deficient part's columns (transposed) and the other rows, then E's
    duals by the label-correcting pass from V = (H's column duals - M, the other columns' potentials + M, 0 on
    the dummy columns), which are feasible up to the arcs between the parts. (x, U, V, stats) as
    :func:`._cpu_cost_scaling.solve_square`; None when the pass does not prove the matching or integer duals could leave int64."""
    n, nc = E.shape[0], A.shape[1]
    if E.dtype.kind == "i" and big * 4 * (n + 1) >= _LIMIT:  # |duals| <= M (n + 2): paths of <= n arcs <= M
        return None
    row4col = np.full(nc, -1, dtype=np.int64)
    row4col[col4row[col4row >= 0]] = np.flatnonzero(col4row >= 0)
    # the deficient part H: what the free rows reach by alternating paths (the König cover's BFS: Z's rows, its columns)
    cover_rows, ch = np.empty(A.shape[0], dtype=np.bool_), np.empty(nc, dtype=np.bool_)
    it = A.indices.dtype  # the CSR's own index type (no copy of its arrays): the matching family's specialisation
    konig_cover_kernel(A.indptr.astype(it, copy=False), A.indices, col4row.astype(it), row4col.astype(it), cover_rows, ch)
    rh = ~cover_rows
    lo = A.data.min() if A.nnz else 0
    C = sp.csr_array(((A.data - lo).astype(E.dtype), A.indices, A.indptr), shape=A.shape)  # E's real arcs
    v0 = np.zeros(n, dtype=E.dtype)
    r, c, scans = [], [], 0
    for mr, mc, tr in ((rh, ch, True), (~rh, ~ch, False)):
        rows, cols = np.flatnonzero(mr), np.flatnonzero(mc)
        R = C[rows][:, cols]
        R = R.T.tocsr() if tr else R.tocsr()
        R.sort_indices()
        st, c4r, v, info = ssp_solve(R.indptr, R.indices, R.data, R.shape[1])
        if st != OK:
            raise RuntimeError("shortest paths found no augmenting path (a bug: the part has a full matching)")
        scans += info["ssp_scanned_columns"]
        if tr:  # H's column duals: the matched arc's cost less its row's potential
            ri, ci = rows[c4r], cols
            v0[ci] = np.asarray(C[ri, ci]).ravel() - v[c4r] - big
        else:
            ri, ci = rows, cols[c4r]
            v0[cols] = v + big
        r.append(ri)
        c.append(ci)
    x = _perfect_extension(E, A, np.concatenate(r), np.concatenate(c), False, True)
    stats = {"sparse_path": "ssp", "ssp_scanned_columns": scans, "deficient_rows": int(rh.sum())}
    if E.dtype.kind == "f":
        uf, vf, proved = _float_duals(E, x, [np.zeros(n), v0], None, stats)
        return (x, uf, vf, stats) if proved else None
    u = _int_duals(E, x, E.data, v0)
    return None if u is None else (x, u, v0, stats)

def ssp_paths(p: SparseProblem):
    """Shortest augmenting paths on ``p``'s extended problem (full mode or the partial split); None when the
    label-correcting pass does not prove them."""
    return _solve_ssp_partial(p.A, p.E, p.big, p.col4row) if p.partial else _solve_ssp(p.A, p.E, p.tr)

def solve_sparse_ssp(p: SparseProblem, fallback):
    """Shortest augmenting paths (LAPJVsp's way, :mod:`._cpu_sparse_ssp`) on ``p``; an integer range beyond the
    int64 paths: exact ones on Python integers; when the label-correcting pass does not prove the matching, cost
    scaling (``fallback``: the CPU twin) solves the extension and says so. ``(method, x, U, V, stats)`` as
    :func:`._cpu_cost_scaling.solve_cost_scaling`."""
    try:
        found = ssp_paths(p)
    except OverflowError:
        if p.E.dtype.kind != "i":
            raise
        return ("jv", *ssp_exact(p.E))
    return ("jv", *found) if found is not None else fallback(p, paths_ran=True)
