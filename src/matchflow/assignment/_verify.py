"""Certificate checker for linear assignments (LP duality).

For the minimisation matrix ``Cm = cost`` (or ``-cost`` when ``maximize``), with forbidden
entries (``+inf`` in Cm) excluded, an assignment is *optimal* when duals ``u`` (rows) and
``v`` (columns) satisfy

* feasibility: ``Cm[i, j] - u[i] - v[j] >= -tol`` for every allowed pair;
* tightness: ``|Cm[i, j] - u[i] - v[j]| <= tol`` on every assigned pair;
* rectangular sign conditions (the LP of the larger side has ``<= 1`` constraints):
  for ``n_rows < n_cols``: ``v[j] <= tol`` for all columns and ``|v[j]| <= tol`` on
  unassigned columns; for ``n_rows > n_cols``: the same for ``u`` on rows;
* no gap: ``|primal - (sum(u) + sum(v))| <= n * tol`` (implied by the above; reported).

``tol = 0`` (exact integer arithmetic, Python integers when int64 could overflow) for
integer matrices with integer duals; for floats ``tol = rtol * max(|Cm|, |u|, |v|)`` over
allowed entries, ``rtol = 1e-9`` by default.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from .._results import AssignmentResult

__all__ = ["verify_assignment", "AssignmentCertificate", "min_reduced_cost"]


@dataclass
class AssignmentCertificate:
    """Outcome of :func:`verify_assignment`; ``valid and optimal`` proves optimality."""

    valid: bool
    optimal: bool | None  # None when no duals were given
    cost: float | int | None
    dual_value: float | int | None = None
    gap: float | int | None = None
    min_reduced_cost: float | int | None = None
    max_assigned_slack: float | int | None = None
    tol: float = 0.0
    problems: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.valid and self.optimal is not False)


@numba.njit(cache=True)
def _min_reduced_kernel(C, sign, u, v):
    """min over finite entries of sign*C[i, j] - u[i] - v[j]; returns (value, i, j, found)."""
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
            val, i, j = _min_reduced_kernel(np.ascontiguousarray(Cm_src, dtype=np.int64), np.int64(sign), u, v)
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
    val, i, j = _min_reduced_kernel(np.ascontiguousarray(Cm_src, dtype=np.float64), np.float64(sign),
                                    np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64))
    if i < 0:
        return None, -1, -1
    return float(val), int(i), int(j)


def _as_index(name: str, a) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {a.shape}")
    if a.size and a.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {a.dtype}")
    return a.astype(np.int64, copy=False)


def _is_integral(a: np.ndarray) -> bool:
    if a.dtype.kind in "biu":
        return True
    if a.dtype == object:
        return all(isinstance(t, (int, np.integer)) for t in a.tolist())
    return False


def verify_assignment(
    cost,
    row_ind,
    col_ind=None,
    u=None,
    v=None,
    *,
    maximize: bool | None = None,
    raise_on_error: bool = True,
    rtol: float = 1e-9,
) -> AssignmentCertificate:
    """Check that an assignment is valid and, given duals, optimal (see the module docstring).

    ``row_ind`` may be an :class:`~matchflow.AssignmentResult` (then ``col_ind``, ``u``,
    ``v`` and ``maximize`` come from it unless given). ``maximize=None`` means "as in the
    result", else False. Raises ``ValueError`` listing the problems when
    ``raise_on_error`` is true; otherwise returns the certificate with ``problems`` filled.
    """
    from ._prepare import as_cost_matrix

    if isinstance(row_ind, AssignmentResult):
        res = row_ind
        row_ind, col_ind = res.row_ind, res.col_ind if col_ind is None else col_ind
        u = res.u if u is None else u
        v = res.v if v is None else v
        if maximize is None:
            maximize = res.maximize
    if col_ind is None:
        raise TypeError("verify_assignment needs col_ind (or an AssignmentResult as second argument)")
    maximize = bool(maximize)
    a = as_cost_matrix(cost, maximize)
    nr, nc = a.shape
    r = _as_index("row_ind", row_ind)
    c = _as_index("col_ind", col_ind)
    problems: list[str] = []
    if r.shape != c.shape:
        raise ValueError(f"row_ind and col_ind must have the same length, got {r.size} and {c.size}")
    if r.size and (r.min() < 0 or r.max() >= nr):
        problems.append(f"row_ind holds an index out of range for {nr} rows")
    if c.size and (c.min() < 0 or c.max() >= nc):
        problems.append(f"col_ind holds an index out of range for {nc} columns")
    if problems:
        return _finish(AssignmentCertificate(False, None, None, problems=problems), raise_on_error)
    if np.unique(r).size != r.size:
        problems.append("a row is assigned twice")
    if np.unique(c).size != c.size:
        problems.append("a column is assigned twice")
    if r.size != min(nr, nc):
        problems.append(f"{r.size} pairs assigned, expected min(n_rows, n_cols) = {min(nr, nc)}")
    is_int = a.dtype.kind in "biu"
    vals = a[r, c]
    if not is_int and vals.size and not np.isfinite(vals).all():
        problems.append("a forbidden (infinite) entry is assigned")
    if is_int:
        total = sum(int(t) for t in vals.tolist()) if vals.size else 0
    else:
        total = float(vals.sum()) if vals.size else 0.0
    cert = AssignmentCertificate(valid=not problems, optimal=None, cost=total, problems=problems)
    if u is None or v is None or problems:
        return _finish(cert, raise_on_error)
    # ---- optimality from the duals
    u = np.asarray(u)
    v = np.asarray(v)
    if u.shape != (nr,) or v.shape != (nc,):
        raise ValueError(f"u and v must have shapes ({nr},) and ({nc},), got {u.shape} and {v.shape}")
    sign = -1 if maximize else 1
    exact = is_int and _is_integral(u) and _is_integral(v)
    primal = sign * total
    if exact:
        uu = [int(t) for t in u.tolist()]
        vv = [int(t) for t in v.tolist()]
        lim = 2**62
        ok64 = all(-lim < t < lim for t in uu + vv)
        u_arr = np.array(uu, dtype=np.int64) if ok64 else np.array(uu, dtype=object)
        v_arr = np.array(vv, dtype=np.int64) if ok64 else np.array(vv, dtype=object)
        tol = 0
        dual = sum(uu) + sum(vv)
        slacks = [sign * int(a[i, j]) - uu[i] - vv[j] for i, j in zip(r.tolist(), c.tolist())]
    else:
        u_arr = u.astype(np.float64)
        v_arr = v.astype(np.float64)
        fin = a[np.isfinite(a)] if not is_int else a
        scale = max(float(np.abs(fin).max()) if fin.size else 0.0,
                    float(np.abs(u_arr).max()) if u_arr.size else 0.0,
                    float(np.abs(v_arr).max()) if v_arr.size else 0.0)
        tol = float(rtol) * scale
        dual = float(u_arr.sum() + v_arr.sum())
        slacks = (sign * a[r, c].astype(np.float64) - u_arr[r] - v_arr[c]).tolist()
    cert.tol = tol
    cert.dual_value = dual
    cert.gap = primal - dual
    mrc, mi, mj = min_reduced_cost(a, sign, u_arr, v_arr)
    cert.min_reduced_cost = mrc
    cert.max_assigned_slack = max((abs(s) for s in slacks), default=0)
    opt: list[str] = []
    if mrc is not None and mrc < -tol:
        opt.append(f"dual infeasible: reduced cost {mrc} < 0 at ({mi}, {mj})")
    if cert.max_assigned_slack > tol:
        k = int(np.argmax([abs(s) for s in slacks]))
        opt.append(f"not complementary: assigned pair ({r[k]}, {c[k]}) has reduced cost {slacks[k]}")
    if nr != nc:
        side, d, used, n_side = ("column", v_arr, c, nc) if nr < nc else ("row", u_arr, r, nr)
        mask = np.ones(n_side, dtype=bool)
        mask[used] = False
        dl = d.tolist()
        worst = max(dl, default=0)
        if worst > tol:
            opt.append(f"{side} dual {worst} > 0 (must be <= 0 for a rectangular problem)")
        free_vals = [abs(dl[k]) for k in np.flatnonzero(mask)]
        if free_vals and max(free_vals) > tol:
            opt.append(f"unassigned {side} has a nonzero dual {max(free_vals)}")
    if abs(cert.gap) > tol * max(1, len(r)):
        opt.append(f"duality gap {cert.gap} (primal {primal}, dual {dual})")
    cert.optimal = not opt
    cert.problems = problems + opt
    return _finish(cert, raise_on_error)


def _finish(cert: AssignmentCertificate, raise_on_error: bool) -> AssignmentCertificate:
    if raise_on_error and cert.problems:
        raise ValueError("assignment certificate failed: " + "; ".join(cert.problems))
    return cert
