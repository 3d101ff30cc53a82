"""Sparse assignment by cost scaling on the CPU (Goldberg-Kennedy's CSA, double-push form).

Notation of Łupińska, Section 5 / Goldberg-Kennedy: costs are multiplied by ``n + 1`` so that an
``eps``-optimal perfect matching with ``eps = 1`` is optimal on the integer costs (Lemma: ``n eps <
n + 1``); ``eps`` starts at the largest scaled cost and is divided by ``alpha`` (10, as the paper)
each phase. ``refine`` (Algorithm 5.2) is run as Goldberg-Kennedy's *double push*: an active
(unassigned) row ``i`` pushes to its best column ``j1`` (smallest partial reduced cost
``c(i,j) - p(j)``), the old owner of ``j1`` becomes active, and ``j1`` is relabelled at once to
``p(j1) = c(i,j1) - a2 - eps`` where ``a2`` is the second-best value (the relabel of ``i`` folded into
the push). Prices only decrease (Lemma 5.1's monotonicity). The exact integer duals of the final
matching come from a label-correcting shortest-path pass started at ``floor(p / (n + 1))``
(:func:`exact_duals_kernel`): no negative cycle exists at an optimum, so it ends, and the duals it
returns are checked exactly by the caller.

Heuristics (options, off by default: they measured slower on the benchmark's inputs, see
docs/notes/cost_scaling.md): the global price update (Algorithm 5.3, Dial buckets,
:func:`_price_update_kernel`) inside the refine every ~n pushes, and arc fixing (Section 5.2,
:func:`_fix_arcs_kernel`) after each phase.
"""

from __future__ import annotations

import warnings

import numba
import numpy as np
import scipy.sparse as sp

from .._lsap.problem import InfeasibleError
from . import _cpu_jv
from ._cpu_auction import take_column_dev
from ._cpu_sparse_bigint import ssp_exact
from ._cpu_sparse_ssp import ssp_paths
from ._prepare_sparse import _LIMIT, SparseProblem, _feasible, add_exact, shifted_integer_costs
from ._verify_sparse import BIG, NOT_OPTIMAL, OK, _float_accepted, _float_duals, exact_duals_kernel

__all__ = ["BUDGET", "NOT_OPTIMAL", "NO_PERFECT", "OK", "cost_scaling_solve", "csa_kernel", "exact_duals_kernel",
           "solve_cost_scaling", "solve_cost_scaling_dense", "solve_square"]

NO_PERFECT, BUDGET = 1, 3  # with OK = 0 and NOT_OPTIMAL = 2 (:mod:`._verify_sparse`'s label-correcting pass)
FLOOR = np.int64(1) << np.int64(60)  # a feasible run keeps prices above -2**60 (the caller's bound on costs)


@numba.njit(cache=True)
def _refine_kernel(indptr, indices, cost, n, eps, gap, price, col4row, row4col, pos4row, stack, max_pushes,
                   upd, every):
    """One refine phase: every row starts unassigned; returns (status, pushes, updates). ``every > 0``:
    the global price update (:func:`_price_update_kernel`, work arrays ``upd``) after each ``every``
    pushes while rows stay active."""
    top = np.int64(0)  # not a literal 0: typing would compile the calls below for it once more
    for i in range(n):
        col4row[i] = -1
        row4col[i] = -1
    for i in range(n - 1, -1, -1):
        stack[top] = i
        top += 1
    pushes = 0
    updates = 0
    since = 0
    while top > 0:
        if every > 0 and since >= every:
            since = 0
            updates += 1
            if not _price_update_kernel(indptr, indices, cost, n, eps, price, col4row, row4col, pos4row, stack,
                                        top, upd[0], upd[1], upd[2], upd[3], upd[4], upd[5], upd[6], upd[7],
                                        upd[8]):
                every = 0  # near the int64 floor: no more updates this phase
        top -= 1
        i = stack[top]
        a1 = BIG
        a2 = BIG
        j1 = np.int64(-1)  # (the same for take_column_dev)
        k1 = -1
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            t = cost[k] - price[j]
            if t < a1:
                a2 = a1
                a1 = t
                j1 = j
                k1 = k
            elif t < a2:
                a2 = t
        if j1 < 0:
            return NO_PERFECT, pushes, updates
        if a2 == BIG:
            a2 = a1 + gap  # a single arc: any relabel keeps eps-optimality; a large one ends the fight
        price[j1] = price[j1] - (a2 - a1) - eps
        if price[j1] < -FLOOR:
            return BUDGET, pushes, updates  # only without a perfect matching (feasible runs stay above)
        top = take_column_dev(i, j1, col4row, row4col, stack, top)
        pos4row[i] = k1
        pushes += 1
        since += 1
        if pushes > max_pushes:
            return BUDGET, pushes, updates
    return OK, pushes, updates


@numba.njit(cache=True)
def _transpose_kernel(indptr, indices, n):
    """Column-wise arc lists of the CSR graph: (tptr, trow, tpos), ``tpos`` the arc's CSR position."""
    tptr = np.zeros(n + 1, dtype=np.int64)
    for k in range(indices.shape[0]):
        tptr[indices[k] + 1] += 1
    for j in range(n):
        tptr[j + 1] += tptr[j]
    fill = tptr[:n].copy()
    trow = np.empty(indices.shape[0], dtype=np.int64)
    tpos = np.empty(indices.shape[0], dtype=np.int64)
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            trow[fill[j]] = i
            tpos[fill[j]] = k
            fill[j] += 1
    return tptr, trow, tpos


@numba.njit(cache=True)
def _price_update_kernel(indptr, indices, cost, n, eps, price, col4row, row4col, pos4row, stack, top,
                         tptr, trow, tcost, label, ref, bhead, enext, enode, rlab):
    """Algorithm 5.3 (global price update, Dial buckets) on the double-push state.

    Deficits (bucket 0) are the free columns; the residual path from column ``m`` goes through its row
    ``i = row4col[m]`` to any column ``k`` of ``i`` at length ``floor((c'(i,k) - c'(i,m)) / eps) + 1``
    (>= 0 by eps-optimality; ``c'(i,k) = c(i,k) - p(k)``). Columns are scanned backwards from the
    deficits, level by level, until every active row (``stack[:top]``, in the buckets too) is reached;
    then ``p(j) -= eps * l(j)``, unscanned columns by ``eps * (last level + 1)``. Every matched row's
    arc stays within ``eps`` of its best arc (the label differences are bounded by the lengths), so
    eps-optimality holds and prices only decrease (Lemma 5.2). Levels above ``n`` are not kept (a
    smaller label is still valid). Returns False, changing nothing, when a price could fall below
    ``-2**58`` (a quarter of the refine's int64 floor: the caller then stops updating in this phase)."""
    nb = n + 1
    pmin = BIG
    for j in range(n):
        label[j] = BIG
        pmin = min(pmin, price[j])
    if pmin - nb * eps < -(FLOOR >> 2):
        return False  # the caller stops updating this phase (keeps the refine's own int64 bound)
    for b in range(nb):
        bhead[b] = -1
    ne = 0
    for j in range(n):
        if row4col[j] < 0:
            label[j] = 0
            enode[ne] = j
            enext[ne] = bhead[0]
            bhead[0] = ne
            ne += 1
    for i in range(n):
        if col4row[i] >= 0:
            ref[i] = cost[pos4row[i]] - price[col4row[i]]
    for s in range(top):  # active rows: their best partial reduced cost
        i = stack[s]
        a1 = BIG
        for k in range(indptr[i], indptr[i + 1]):
            t = cost[k] - price[indices[k]]
            if t < a1:
                a1 = t
        ref[i] = a1
        rlab[i] = BIG
    reached = 0
    pending = ne
    d = 0
    while d < nb and pending > 0 and reached < top:
        e = -1
        while reached < top:
            if e < 0:  # this level's list, including entries added while scanning it (w = 0 arcs)
                e = bhead[d]
                bhead[d] = -1
                if e < 0:
                    break
            k = enode[e]
            e = enext[e]
            pending -= 1
            if k >= n:  # an active row: reached at its final level d
                if rlab[k - n] == d:
                    rlab[k - n] = -1
                    reached += 1
                continue
            if label[k] != d:
                continue  # a stale entry (k was lowered to an earlier bucket and scanned there)
            label[k] = -1 - d  # scanned at level d (negative marks scanned)
            pk = price[k]
            for t in range(tptr[k], tptr[k + 1]):
                i = trow[t]
                m = col4row[i]
                if m == k or (m >= 0 and label[m] < 0) or (m < 0 and rlab[i] < 0):
                    continue  # its own arc, or a node already scanned (before the division)
                cand = d + (tcost[t] - pk - ref[i]) // eps + 1
                if cand >= nb:
                    continue
                if m >= 0:
                    if cand >= label[m]:
                        continue
                    label[m] = cand
                    enode[ne] = m
                else:
                    if cand >= rlab[i]:
                        continue
                    rlab[i] = cand
                    enode[ne] = n + i
                enext[ne] = bhead[cand]
                bhead[cand] = ne
                ne += 1
                pending += 1
        if reached < top:
            d += 1
    # every column of true level < d is scanned (the last active row was reached at level d, or no
    # node of level < nb is left); the others get level d (<= their true level)
    for j in range(n):
        lj = -1 - label[j] if label[j] < 0 else d
        price[j] -= lj * eps
    return True


@numba.njit(cache=True)
def _fix_arcs_kernel(indptr, indices, cost, n, bound, price, col4row):
    """Arc fixing (Section 5.2) after a refine ended with an eps-optimal perfect matching: an unmatched
    arc whose reduced cost ``c'(i,k) - min_l c'(i,l)`` exceeds ``bound = 2 N eps`` (``N = 2n`` nodes)
    carries no flow in any optimal matching (Goldberg-Tarjan), so it is dropped for the later phases.
    Compacts the CSR arrays in place; returns the number of arcs dropped."""
    w = 0
    start = 0
    for i in range(n):
        a1 = BIG
        for k in range(start, indptr[i + 1]):
            t = cost[k] - price[indices[k]]
            if t < a1:
                a1 = t
        m = col4row[i]
        for k in range(start, indptr[i + 1]):
            j = indices[k]
            if j == m or cost[k] - price[j] - a1 <= bound:
                indices[w] = j
                cost[w] = cost[k]
                w += 1
        start = indptr[i + 1]
        indptr[i + 1] = w
    return start - w


@numba.njit(cache=True)
def _update_arrays(indptr, indices, cost, n, every):
    """Work arrays of :func:`_price_update_kernel` (the column-wise arc lists and the buckets)."""
    if every <= 0:
        z = np.zeros(1, np.int64)
        return (z, z, z, z, z, z, z, z, z)
    nnz = indices.shape[0]
    tptr, trow, tpos = _transpose_kernel(indptr, indices, n)
    return (tptr, trow, cost[tpos], np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n + 1, np.int64),
            np.empty(nnz + n, np.int64), np.empty(nnz + n, np.int64), np.empty(n, np.int64))


@numba.njit(cache=True)
def csa_kernel(indptr, indices, cost, n, alpha, price, col4row, row4col, max_pushes, every, fix):
    """The eps-scaling loop around :func:`_refine_kernel` on scaled costs ``cost`` (>= 0); BUDGET
    when more than ``max_pushes`` pushes were made in all (the caller then proves feasibility);
    ``every > 0``: a global price update after each ``every`` pushes of a phase; ``fix``: arc fixing
    after each phase (on a copy of the arrays). Returns (status, phases, pushes, updates, fixed)."""
    cmax = np.int64(1)
    for k in range(cost.shape[0]):
        if cost[k] > cmax:
            cmax = cost[k]
    stack = np.empty(n + 1, dtype=np.int64)
    pos4row = np.full(n, -1, dtype=np.int64)
    if fix:
        indptr, indices, cost = indptr.copy(), indices.copy(), cost.copy()
    upd = _update_arrays(indptr, indices, cost, n, every)
    eps = cmax
    phases = 0
    pushes = np.int64(0)
    updates = np.int64(0)
    fixed = np.int64(0)
    while True:
        eps = max(eps // alpha, np.int64(1))
        st, p, u = _refine_kernel(indptr, indices, cost, n, eps, cmax + eps, price, col4row, row4col, pos4row,
                                  stack, max_pushes - pushes, upd, every)
        pushes += p
        updates += u
        phases += 1
        if st != OK:
            return st, phases, pushes, updates, fixed
        if eps == 1:
            return OK, phases, pushes, updates, fixed
        if fix and 4 * n * eps < cmax:  # a larger bound exceeds most reduced costs: a pass would fix few
            f = _fix_arcs_kernel(indptr, indices, cost, n, 4 * n * eps, price, col4row)
            fixed += f
            if f > 0 and every > 0:
                upd = _update_arrays(indptr, indices[:indptr[n]], cost[:indptr[n]], n, every)


# Global price update policy (measured in docs/notes/cost_scaling.md): never at the start of a phase
# (every row is freed there, so every column is a deficit and all labels are 0), then after each
# ``UPDATE_EVERY * n`` pushes (double pushes: each is also a relabel) while rows stay active, as CSA
# updates every ~n relabels. Off by default: an update costs about one scan of the graph (~n double
# pushes) and saved only 10-30 % of the pushes on random / kNN inputs (1.5-3x slower); it wins on
# tie-heavy costs (random 0/1: 3.5x fewer pushes, 1.5x faster). Arc fixing: off, slower by 5-50 %.
UPDATE_EVERY = 1.0
PRICE_UPDATE = False
ARC_FIXING = False


def cost_scaling_solve(indptr: np.ndarray, indices: np.ndarray, cost: np.ndarray, n: int, alpha: int = 10,
                       max_pushes: int = 2**62, price_update: bool | None = None, update_every: float | None = None,
                       arc_fixing: bool | None = None):
    """Min-cost perfect matching of the square sparse problem (CSR, int64 costs >= 0,
    ``cost.max() * (n + 1) * 4 * (n + 1) < 2**59`` checked by the caller; a perfect matching must exist
    unless ``max_pushes`` bounds the work: status BUDGET then). ``price_update``: Algorithm 5.3 every
    ``update_every * n`` pushes (defaults :data:`PRICE_UPDATE`, :data:`UPDATE_EVERY`); ``arc_fixing``:
    Section 5.2 after each phase (default :data:`ARC_FIXING`). Returns
    ``(status, col4row, u, v, stats)`` with exact integer duals on ``cost``."""
    price_update = PRICE_UPDATE if price_update is None else bool(price_update)
    arc_fixing = ARC_FIXING if arc_fixing is None else bool(arc_fixing)
    every = max(int((UPDATE_EVERY if update_every is None else update_every) * n), 1) if price_update else 0
    scaled = cost * np.int64(n + 1)
    price = np.zeros(n, dtype=np.int64)
    col4row = np.full(n, -1, dtype=np.int64)
    row4col = np.full(n, -1, dtype=np.int64)
    st, phases, pushes, updates, fixed = csa_kernel(np.ascontiguousarray(indptr), np.ascontiguousarray(indices), scaled,
                                                    n, np.int64(alpha), price, col4row, row4col, np.int64(max_pushes),
                                                    np.int64(every), arc_fixing)
    stats = {"phases": int(phases), "pushes": int(pushes), "price_updates": int(updates), "fixed_arcs": int(fixed)}
    if st != OK:
        return st, col4row, None, None, stats
    v = np.floor_divide(price, n + 1)
    st, u, scans = exact_duals_kernel(indptr, indices, cost, n, col4row, row4col, v, np.int64(64) * n * n + 1024)
    stats["dual_scans"] = int(scans)
    return st, col4row, u, v, stats


OPTIONS = ("price_update", "update_every", "arc_fixing")


def check_cost_scaling_options(options: dict) -> dict:
    """The CPU options of :func:`cost_scaling_solve` (``price_update``: Alg. 5.3 every ``update_every * n`` pushes;
    ``arc_fixing``: Section 5.2; both off by default), names included (GPU options are refused naming them)."""
    bad = sorted(set(options) - set(OPTIONS))
    if bad:
        raise ValueError(f"sparse costs on the CPU take the options {list(OPTIONS)}, got {bad}")
    for k in ("price_update", "arc_fixing"):
        if k in options and not isinstance(options[k], (bool, np.bool_)):
            raise ValueError(f"{k} must be True or False, got {options[k]!r}")
    if "update_every" in options:
        u = options["update_every"]
        if isinstance(u, (bool, np.bool_)) or not isinstance(u, (int, float, np.integer, np.floating)) or not u > 0:
            raise ValueError(f"update_every must be a number > 0, got {u!r}")
    return options


def solve_square(E: sp.csr_array, known_feasible: bool = True, solve=cost_scaling_solve):
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


def solve_cost_scaling(p: SparseProblem, solve=cost_scaling_solve, paths_ran: bool = False):
    """Cost scaling (``solve``: the CPU twin or the GPU refine, :func:`solve_square`) on ``p``'s extended
    problem. An integer range beyond its int64 bound: exact shortest paths on Python integers
    (:func:`._cpu_sparse_bigint.ssp_exact`). A float answer the true costs do not prove (a coarse rounding: partial
    mode's big M sets the scale; Netlib GREENBEA |values|: 1e-4 above the optimum, bound 0.27): shortest augmenting
    paths on the float costs themselves (unless they ran already), kept when proved; else a warning, never
    silence. Returns ``(method, x, U, V, stats)``, ``method`` the algorithm whose answer it is."""
    try:
        x, U, V, stats = solve_square(p.E, known_feasible=p.partial, solve=solve)
    except OverflowError:
        if p.E.dtype.kind != "i":
            raise
        return ("jv", *ssp_exact(p.E))
    if p.E.dtype.kind == "f" and not _float_accepted(stats):
        alt = None if paths_ran else ssp_paths(p)
        if alt is not None:
            alt[3]["float_fallback"] = "jv"
            return ("jv", *alt)
        warnings.warn(f"the sparse float assignment could not be proved optimal (gap bound {stats['gap_bound']:.3g}"
                      f" > tolerance {stats['gap_tol']:.3g}): verify_sparse_assignment will reject it",
                      RuntimeWarning, stacklevel=5)  # the caller of assignment() / min_weight_full_bipartite_matching
    return ("cost-scaling", x, U, V, stats)


def solve_cost_scaling_dense(prep, solve=cost_scaling_solve):
    """Cost scaling on the prepared dense problem (``solve``: :func:`cost_scaling_solve` or the GPU refine), every
    finite entry an arc; a cost range beyond its int64 bound goes to JV's exact rules, said in the stats."""
    C = prep.C
    n = C.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, C.dtype), np.zeros(0, C.dtype), {"phases": 0, "pushes": 0,
                                                                                         "dual_scans": 0}
    if C.dtype.kind == "f" and not np.isfinite(C).all():  # +inf left by the preparation: a missing arc
        r, c = np.nonzero(np.isfinite(C))
        E = sp.csr_array((C[r, c], (r, c)), shape=(n, n))
    else:
        E = sp.csr_array((np.ravel(C), np.tile(np.arange(n), n), np.arange(0, n * n + 1, n)), shape=(n, n))
    try:
        x, u, v, st = solve_square(E, solve=solve)  # every finite entry is an arc (zeros too)
        st.pop("ran_on", None)
        return x, u, v, st
    except OverflowError:  # range * 4 (n+1)^2 >= 2^59: JV's exact int64/big-integer rules take it, said in stats
        x, u, v, st = _cpu_jv.solve_jv(prep.C)
        return x, u, v, {**st, "solved_by": "jv (the cost range overflows cost scaling's int64 bound)"}
