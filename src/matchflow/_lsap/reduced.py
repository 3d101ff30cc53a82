"""Reduced costs under duals, the kernels both linear-assignment certificates run (the dense family's,
:mod:`matchflow.assignment._verify` / :mod:`matchflow.assignment._verify_float_bound`, and the batched one, item by item,
:mod:`matchflow.batch._verify`):

* :func:`min_reduced_kernel` / :func:`min_reduced_cost`: the least reduced cost ``sign * C[i, j] - u[i] - v[j]``
  over the finite entries (exact in int64 or Python integers, or in floats);
* :func:`exact_optimality`: LP duality in Python integers for integer costs and integral duals (no overflow);
* the float bound's row pass (:func:`float_bound_dense_rows`, :func:`float_bound_csr_rows`, compiled serial and
  parallel): every reduced cost with its rigorous rounding bound ``e = ERR_REL (|c| + |u| + |v|) + ERR_ABS``,
  per row. The bound is formed from the rows by :func:`matchflow.assignment._verify_float_bound.float_gap_bound` (its
  guarantee: :mod:`matchflow.assignment._verify`).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

__all__ = ["ERR_REL", "ERR_ABS", "float_bound_dense_serial", "float_bound_dense_parallel", "float_bound_csr_serial",
           "float_bound_csr_parallel", "min_reduced_kernel", "min_reduced_cost", "exact_optimality", "ExactCheck"]

ERR_REL = 2.0000001 * 2.0**-53
ERR_ABS = 2.0**-1073


def bound_pair_dev(c, ui, vj, aui, avj):
    """One allowed entry's upper-rounded reduced cost pieces: ``(h, e)`` with ``h = (c - u_i) - v_j`` and ``e``
    its rounding bound ``REL (|c| + |u_i| + |v_j|) + ABS``; the true reduced cost lies in ``[h - e, h + e]``."""
    h = (c - ui) - vj
    e = ERR_REL * ((abs(c) + aui) + avj) + ERR_ABS
    return h, e


def bound_row_result(i, best, ebest, jbest, delta, err_used, row_lb, row_j):
    """Row i's least lower bound (``best`` at ``jbest``, its rounding bound ``ebest``; ``jbest`` < 0: no allowed
    entry) into the row arrays, after the assigned pair's terms."""
    row_lb[i] = best
    row_j[i] = jbest
    if jbest >= 0:
        err_used[i] += ebest
        delta[i] = -best if best < 0 else 0.0
    else:
        delta[i] = 0.0


def float_bound_dense_rows(C, sign, col_of_row, u, v, delta, slack_up, err_used, err_entries, row_lb, row_j):
    """Per row i of the dense ``C`` (float32 or float64; +-inf forbidden): ``delta[i]`` = max(0, -min_j lower
    bound of the reduced cost) over allowed entries, ``slack_up[i]`` = upper bound of the assigned pair's reduced
    cost (0 if unassigned), ``err_used[i]`` = e at the assigned pair + e at the row's minimising entry;
    ``err_entries[i]``: the rounding of the assigned entry alone (no dual magnitudes); ``row_lb[i]``, ``row_j[i]``:
    the row's least lower bound and its column (-1: no allowed entry). The assigned pair is handled after the
    scan, and ``|v|`` once per call: the scan is a tight loop (4-5x faster than one loop for both layouts, same
    floats). Rows are independent: compiled serial and parallel."""
    nr, nc = C.shape
    av = np.abs(v)
    for i in numba.prange(nr):
        ui = u[i]
        aui = abs(ui)
        best = np.inf
        ebest = 0.0
        jbest = -1
        for j in range(nc):  # written out: helpers inlined here kept the threads from scaling (measured)
            c = sign * C[i, j]
            if c - c != 0:
                continue
            h = (c - ui) - v[j]
            e = ERR_REL * ((abs(c) + aui) + av[j]) + ERR_ABS  # bound_pair_dev's bound
            lb = h - e
            if jbest < 0 or lb < best:
                best = lb
                ebest = e
                jbest = j
        ja = col_of_row[i]
        slack_up[i] = 0.0
        err_used[i] = 0.0
        c_a = sign * C[i, ja] if ja >= 0 else 0.0
        if ja >= 0 and c_a - c_a == 0:  # a non-finite assigned entry (forbidden) is counted nowhere
            h, e = bound_pair_dev(c_a, ui, v[ja], aui, av[ja])
            slack_up[i] = h + e
            err_used[i] += e
            err_entries[i] += ERR_REL * abs(c_a) + ERR_ABS
        bound_row_result(i, best, ebest, jbest, delta, err_used, row_lb, row_j)


def float_bound_csr_rows(indptr, indices, data, sign, col_of_row, u, v, delta, slack_up, err_used, err_entries,
                          row_lb, row_j):
    """:func:`float_bound_dense_rows` on the CSR ``(indptr, indices, data)``: stored entries only (a missing
    entry is forbidden; a stored duplicate of the assigned column counts as the assigned entry once per copy)."""
    nr = col_of_row.size
    for i in numba.prange(nr):
        ui = u[i]
        aui = abs(ui)
        best = np.inf
        ebest = 0.0
        jbest = -1
        ja = col_of_row[i]
        slack_up[i] = 0.0
        err_used[i] = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            c = sign * data[k]
            if c - c != 0:
                continue
            h = (c - ui) - v[j]
            e = ERR_REL * ((abs(c) + aui) + abs(v[j])) + ERR_ABS  # bound_pair_dev's bound, written out
            lb = h - e
            if jbest < 0 or lb < best:
                best = lb
                ebest = e
                jbest = j
            if j == ja:
                slack_up[i] = h + e
                err_used[i] += e
                err_entries[i] += ERR_REL * abs(c) + ERR_ABS
        bound_row_result(i, best, ebest, jbest, delta, err_used, row_lb, row_j)


bound_pair_dev = numba.njit(cache=True, inline="always")(bound_pair_dev)
bound_row_result = numba.njit(cache=True, inline="always")(bound_row_result)
float_bound_dense_serial = numba.njit(cache=True)(float_bound_dense_rows)
float_bound_dense_parallel = numba.njit(cache=True, parallel=True)(float_bound_dense_rows)
float_bound_csr_serial = numba.njit(cache=True)(float_bound_csr_rows)
float_bound_csr_parallel = numba.njit(cache=True, parallel=True)(float_bound_csr_rows)


@numba.njit(cache=True)
def min_reduced_kernel(C, sign, u, v):
    """min over finite entries of sign*C[i, j] - u[i] - v[j]; returns (value, i, j) (i = -1: no finite entry)."""
    nr, nc = C.shape
    best = u[0] * 0
    bi = -1
    bj = -1
    for i in range(nr):
        for j in range(nc):
            c = C[i, j]
            if c - c != 0:  # inf / nan: forbidden
                continue
            h = sign * c - u[i] - v[j]
            if bi < 0 or h < best:
                best = h
                bi = i
                bj = j
    return best, bi, bj


def min_reduced_cost(Cm_src: np.ndarray, sign: int, u: np.ndarray, v: np.ndarray):
    """Exact/float min reduced cost over allowed entries; (value, i, j) or (None, -1, -1)."""
    nr, nc = Cm_src.shape
    if nr == 0 or nc == 0:
        return None, -1, -1
    if Cm_src.dtype.kind in "biu":
        lim = 2**61
        if (u.dtype == np.int64 and v.dtype == np.int64 and Cm_src.dtype != np.uint64
                and (Cm_src.size == 0 or (abs(int(Cm_src.min())) < lim and abs(int(Cm_src.max())) < lim))
                and (not u.size or max(abs(int(u.min())), abs(int(u.max()))) < lim)
                and (not v.size or max(abs(int(v.min())), abs(int(v.max()))) < lim)):
            val, i, j = min_reduced_kernel(np.ascontiguousarray(Cm_src, dtype=np.int64), np.int64(sign), u, v)
            return int(val), int(i), int(j)
        # exact Python integers, one row at a time
        best, bi, bj = None, -1, -1
        vv = [int(t) for t in v]
        for i, row in enumerate(Cm_src.tolist()):
            ui = int(u[i])
            for j, c in enumerate(row):
                h = sign * int(c) - ui - vv[j]
                if best is None or h < best:
                    best, bi, bj = h, i, j
        return best, bi, bj
    val, i, j = min_reduced_kernel(np.ascontiguousarray(Cm_src, dtype=np.float64), np.float64(sign),
                                   np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64))
    if i < 0:
        return None, -1, -1
    return float(val), int(i), int(j)


class ExactCheck(NamedTuple):
    """What :func:`exact_optimality` found: the optimality problems (empty: proved) and the numbers behind them."""

    problems: list
    dual_value: int
    gap: int
    min_reduced_cost: int | None
    max_assigned_slack: int


def exact_optimality(a: np.ndarray, sign: int, r: np.ndarray, c: np.ndarray, u, v) -> ExactCheck:
    """LP duality of the valid assignment ``(r, c)`` of the integer matrix ``a`` (minimising ``sign * a``) with
    integral duals ``u``, ``v``, exactly (Python integers where int64 could overflow): feasible (every reduced
    cost >= 0), tight on the assigned pairs, the rectangular sign conditions (the larger side's duals <= 0, 0
    when unassigned) and no duality gap."""
    nr, nc = a.shape
    primal = sign * sum(int(t) for t in a[r, c].tolist())
    uu = [int(t) for t in u.tolist()]
    vv = [int(t) for t in v.tolist()]
    lim = 2**62
    ok64 = all(-lim < t < lim for t in uu + vv)
    u_arr = np.array(uu, dtype=np.int64) if ok64 else np.array(uu, dtype=object)
    v_arr = np.array(vv, dtype=np.int64) if ok64 else np.array(vv, dtype=object)
    dual = sum(uu) + sum(vv)
    slacks = [sign * int(a[i, j]) - uu[i] - vv[j] for i, j in zip(r.tolist(), c.tolist())]
    mrc, mi, mj = min_reduced_cost(a, sign, u_arr, v_arr)
    max_slack = max((abs(s) for s in slacks), default=0)
    opt: list[str] = []
    if mrc is not None and mrc < 0:
        opt.append(f"dual infeasible: reduced cost {mrc} < 0 at ({mi}, {mj})")
    if max_slack > 0:
        k = int(np.argmax([abs(s) for s in slacks]))
        opt.append(f"not complementary: assigned pair ({r[k]}, {c[k]}) has reduced cost {slacks[k]}")
    if nr != nc:
        side, d, used, n_side = ("column", v_arr, c, nc) if nr < nc else ("row", u_arr, r, nr)
        mask = np.ones(n_side, dtype=bool)
        mask[used] = False
        dl = d.tolist()
        worst = max(dl, default=0)
        if worst > 0:
            opt.append(f"{side} dual {worst} > 0 (must be <= 0 for a rectangular problem)")
        free_vals = [abs(dl[k]) for k in np.flatnonzero(mask)]
        if free_vals and max(free_vals) > 0:
            opt.append(f"unassigned {side} has a nonzero dual {max(free_vals)}")
    if primal != dual:
        opt.append(f"duality gap {primal - dual} (primal {primal}, dual {dual})")
    return ExactCheck(opt, dual, primal - dual, mrc, max_slack)
