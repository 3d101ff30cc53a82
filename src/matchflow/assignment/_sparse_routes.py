"""The solves of the sparse rows (:data:`._methods.SPARSE_TABLE`) on the extended problem (:mod:`._sparse_problem`):
:func:`solve_cost_scaling` (cost scaling on the square problem, :func:`_solve_square`: the CPU twin or the GPU
refine; floats rounded to integers, proved on the true costs) and :func:`solve_shortest_paths` (LAPJVsp's shortest
augmenting paths, :mod:`._cpu_sparse_ssp`, for full mode, :func:`_solve_ssp`, and for ``partial=True`` without a
full matching, :func:`_solve_ssp_partial`: the deficient part split off by the König cover's search). The routes
return ``(x, U, V, stats)``: E's perfect matching and its duals (:mod:`._sparse_certificate`); the rows add the
name of the algorithm whose answer it is (a row hands over what it cannot prove).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from .._graph._alternating import konig_cover_kernel
from .._lsap.problem import InfeasibleError
from ._cpu_cost_scaling import BUDGET, NO_PERFECT, OK, cost_scaling_solve
from ._cpu_sparse_ssp import OK as SSP_OK
from ._cpu_sparse_ssp import ssp_solve
from ._sparse_bigint import ssp_exact
from ._sparse_certificate import _float_accepted, _float_duals, _int_duals
from ._sparse_problem import _LIMIT, SparseProblem, _feasible, _perfect_extension, shifted_integer_costs


def add_exact(u: np.ndarray, lo) -> np.ndarray:
    """``u + lo`` for integer duals without wrapping: int64 where it fits, else Python integers (an object array)."""
    if u.dtype.kind != "i" or not u.size or max(-int(u.min()), int(u.max())) + abs(int(lo)) < 2**62:
        return u + lo
    return np.array([int(t) + int(lo) for t in u.tolist()], dtype=object)


def _solve_square(E: sp.csr_array, known_feasible: bool = True, solve=cost_scaling_solve):
    """Solve the square problem E (a perfect matching exists, or ``known_feasible=False``: proved by
    Hopcroft-Karp only when the pushes exceed 16 (nnz + n), else InfeasibleError); returns (col4row, u, v, stats), u and v exact on E (ints) or
    dual-feasible on E with ``stats['gap_bound']`` (floats). ``solve``: the integer solver (the CPU twin
    :func:`cost_scaling_solve` or the GPU's :func:`._gpu_cost_scaling.cost_scaling_gpu_solve`, same signature)."""
    n = E.shape[0]
    data = E.data
    if data.dtype.kind == "i":
        ic, lo = shifted_integer_costs(E)
    else:
        lo = data.min() if E.nnz else 0
        shifted = data - lo
        top = float(shifted.max(initial=0.0))
        budget = min(_LIMIT / (4.0 * (n + 1) ** 2), 2.0**50)
        scale = 2.0 ** min(np.floor(np.log2(budget / top)), 1000.0) if top > 0 else 1.0  # no overflow to inf
        ic = np.rint(shifted * scale).astype(np.int64)
    indptr = E.indptr.astype(np.int64)
    indices = E.indices.astype(np.int64)
    st, x, u, v, stats = solve(indptr, indices, ic, n, max_pushes=2**62 if known_feasible else 16 * (E.nnz + n) + 64)
    if st in (BUDGET, NO_PERFECT) and not known_feasible:
        if not _feasible(E):
            raise InfeasibleError()
        st, x, u, v, stats = solve(indptr, indices, ic, n)
    if st != OK:
        raise RuntimeError(f"cost scaling failed with status {st} (a bug: the instance was checked feasible)")
    if data.dtype.kind == "i":
        return x, add_exact(u, lo), v, stats
    # floats: the matching solves the rounded costs exactly; prove it on the true costs
    stats["scale"] = float(scale)
    # duals from zero first (bounded by the assigned entries), then from the scaled prices (a warm start)
    uf, vf, _ = _float_duals(E, x, [np.zeros(n), v.astype(np.float64) / scale], u.astype(np.float64) / scale + lo,
                             stats)
    return x, uf, vf, stats


def _solve_ssp(A: sp.csr_array, E: sp.csr_array, tr: bool):
    """The full-mode matching by shortest augmenting paths (:mod:`._cpu_sparse_ssp`) on the smaller side's rows,
    then the duals of the extended problem E (its certificate) by the label-correcting pass from the paths'
    column potentials. (x, U, V, stats) as :func:`_solve_square`; InfeasibleError when a row finds no path;
    None when the pass does not prove the matching (then cost scaling solves it)."""
    R = A.T.tocsr() if tr else A
    R.sort_indices()
    lo = R.data.min() if R.nnz else 0
    if R.dtype.kind == "i" and R.nnz and (int(R.data.max()) - int(lo)) * (R.shape[0] + 1) >= _LIMIT:
        return None  # potentials could leave int64: cost scaling's own range check decides (OverflowError)
    cost = (R.data - lo).astype(np.int64 if R.dtype.kind == "i" else np.float64)
    st, c4r, v, stats = ssp_solve(R.indptr, R.indices, cost, R.shape[1])
    if st != SSP_OK:
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
    :func:`_solve_square`; None when the pass does not prove the matching or integer duals could leave int64."""
    n, nc = E.shape[0], A.shape[1]
    if E.dtype.kind == "i" and big * 4 * (n + 1) >= _LIMIT:  # |duals| <= M (n + 2): paths of <= n arcs <= M
        return None
    row4col = np.full(nc, -1, dtype=np.int64)
    row4col[col4row[col4row >= 0]] = np.flatnonzero(col4row >= 0)
    # the deficient part H: what the free rows reach by alternating paths (the König cover's BFS: Z's rows, its columns)
    cover_rows, ch = np.empty(A.shape[0], dtype=np.bool_), np.empty(nc, dtype=np.bool_)
    konig_cover_kernel(A.indptr.astype(np.int64), A.indices.astype(np.int64), col4row, row4col, cover_rows, ch)
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
        if st != SSP_OK:
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


def _paths(p: SparseProblem):
    """Shortest augmenting paths on ``p``'s extended problem (full mode or the partial split); None when the
    label-correcting pass does not prove them."""
    return _solve_ssp_partial(p.A, p.E, p.big, p.col4row) if p.partial else _solve_ssp(p.A, p.E, p.tr)


def solve_cost_scaling(p: SparseProblem, solve=cost_scaling_solve, paths_ran: bool = False):
    """Cost scaling (``solve``: the CPU twin or the GPU refine, :func:`_solve_square`) on ``p``'s extended
    problem. An integer range beyond its int64 bound: exact shortest paths on Python integers
    (:func:`._sparse_bigint.ssp_exact`). A float answer the true costs do not prove (a coarse rounding: partial
    mode's big M sets the scale; Netlib GREENBEA |values|: 1e-4 above the optimum, bound 0.27): shortest augmenting
    paths on the float costs themselves (unless they ran already), kept when proved; else a warning, never
    silence. Returns ``(method, x, U, V, stats)``, ``method`` the algorithm whose answer it is."""
    try:
        x, U, V, stats = _solve_square(p.E, known_feasible=p.partial, solve=solve)
    except OverflowError:
        if p.E.dtype.kind != "i":
            raise
        return ("jv", *ssp_exact(p.E))
    if p.E.dtype.kind == "f" and not _float_accepted(stats):
        alt = None if paths_ran else _paths(p)
        if alt is not None:
            alt[3]["float_fallback"] = "jv"
            return ("jv", *alt)
        warnings.warn(f"the sparse float assignment could not be proved optimal (gap bound {stats['gap_bound']:.3g}"
                      f" > tolerance {stats['gap_tol']:.3g}): verify_sparse_assignment will reject it",
                      RuntimeWarning, stacklevel=5)  # the caller of assignment() / min_weight_full_bipartite_matching
    return ("cost-scaling", x, U, V, stats)


def solve_shortest_paths(p: SparseProblem):
    """Shortest augmenting paths (LAPJVsp's way, :mod:`._cpu_sparse_ssp`) on ``p``; an integer range beyond the
    int64 paths: exact ones on Python integers; when the label-correcting pass does not prove the matching, cost
    scaling (the CPU twin) solves the extension and says so. ``(method, x, U, V, stats)`` as
    :func:`solve_cost_scaling`."""
    try:
        found = _paths(p)
    except OverflowError:
        if p.E.dtype.kind != "i":
            raise
        return ("jv", *ssp_exact(p.E))
    return ("jv", *found) if found is not None else solve_cost_scaling(p, paths_ran=True)
