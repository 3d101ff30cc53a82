"""Certificate checker for linear assignments (LP duality).

Guarantee (floats): for any finite duals, ``gap_bound`` is a rigorous upper bound of
``cost - optimum`` in exact real arithmetic on the matrix passed in: every reduced cost
enters with its rounding bound ``e`` (which includes an absolute ``2**-1073``, so no
underflow turns a positive defect into zero), the assigned pairs' tightness defects
``h + e`` and the dual infeasibilities are summed rounding upward, and any overflow makes
the bound infinite. ``optimal`` means ``gap_bound <= tol`` with a finite ``tol`` (the answer
is within the rounding of the arithmetic of the optimum); ``exact`` means ``gap_bound`` is
below the entries' granularity (:func:`granularity`), which proves ``cost == optimum``.
``assignment()`` certifies on the caller's matrix (or on an exactly scaled copy, bound
divided back), and re-solves in exact rationals whatever is not proved.

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
integer matrices with integer duals.

Floats (or non-integral duals): non-finite duals fail. Every reduced cost is computed as
``h = fl(fl(Cm - u) - v)`` with the rigorous rounding bound
``e = 2.0000001 * 2**-53 * (|Cm| + |u| + |v|) + 2**-1073``, so the exact reduced cost lies
in ``[h - e, h + e]``. Lowering each row dual by ``delta_i = max(0, -min_j (h - e))`` and
clipping the sign-constrained side to ``<= 0`` gives exactly feasible duals, whence the
rigorous bound ``cost - optimum <= gap_bound = sum(assigned h + e) + sum(delta) +
(sign-condition terms)``. The certificate is *optimal* when ``gap_bound <= tol``, with
``tol = (n + 4) * sum_i (e[i, col(i)] + e[i, j_i]) + (n_rows + n_cols + 8) * 2**-1068`` (``j_i``: the row's minimising column): the
rounding of the arithmetic a solver does on the entries the assignment and the duals use
(``n`` additions per dual),
never the largest entry of the matrix (rounding errors flow between rows through shared
duals, so the test is on the whole assignment, not row by row). Square duals are first
centred along their one free direction ``(u + t, v - t)``, so a common offset (a solver's
prices near a big-M) cannot widen the tolerance. Duals far larger than the entries they
price still widen it to their own rounding (``gap_bound`` stays rigorous);
``tol_entries`` reports the tolerance of the assigned entries alone, and ``assignment()`` re-solves
with JV whenever an answer passes only thanks to large duals. A tampered assignment or dual that moves the cost by
more than that rounding is rejected.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._lsap.reduced import exact_optimality, min_reduced_cost
from .._results import AssignmentResult
from ._prepare import as_cost_matrix
from ._verify_float_bound import float_gap_bound, granularity
from ._verify_sparse import verify_sparse_assignment

__all__ = ["verify_assignment", "AssignmentCertificate", "min_reduced_cost", "float_gap_bound", "square_certificate",
           "total_cost", "exact_difference", "centre_duals", "certify", "granularity", "LimitCertificate"]


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
    gap_bound: float | int | None = None  # rigorous bound on cost - optimum (floats: see module doc)
    tol_entries: float | int | None = None  # floats: the tolerance of the entries alone (no dual magnitudes)
    exact: bool | None = None  # proved exactly optimal: gap_bound < granularity (floats), or exact integer duals
    problems: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.valid and self.optimal is not False)


def _assigned(a, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The assigned entries ``a[r, c]`` (dense or scipy.sparse), as a float array."""
    vals = a[r, c] if not sp.issparse(a) else sp.csr_array(a)[r, c]
    return np.asarray(vals, dtype=np.float64).ravel()


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
    rtol: float | None = None,
) -> AssignmentCertificate:
    """Check that an assignment is valid and, given duals, optimal (see the module docstring).

    ``row_ind`` may be an :class:`~matchflow.AssignmentResult` (then ``col_ind``, ``u``,
    ``v`` and ``maximize`` come from it unless given). ``maximize=None`` means "as in the
    result", else False. Raises ``ValueError`` listing the problems when
    ``raise_on_error`` is true; otherwise returns the certificate with ``problems`` filled.
    ``rtol`` is deprecated and ignored (the float tolerance is derived, module docstring).

    Examples
    --------
    >>> import matchflow
    >>> C = [[4, 1, 3], [2, 0, 5], [3, 2, 2]]
    >>> cert = matchflow.verify.verify_assignment(C, matchflow.assignment(C, backend="cpu"))
    >>> cert.optimal, cert.cost, cert.gap_bound  # the duals prove the cost exactly (integers)
    (True, 5, 0)
    >>> cert = matchflow.verify.verify_assignment(C, [0, 1, 2], [0, 1, 2])  # no duals: valid, optimality unknown
    >>> cert.valid, cert.optimal, cert.cost
    (True, None, 6)
    """
    if rtol is not None:
        warnings.warn("verify_assignment(rtol=...) has no effect: the float tolerance follows from the "
                      "arithmetic of the entries used (see matchflow.assignment._verify)", DeprecationWarning,
                      stacklevel=2)
    if sp.issparse(cost):
        return _verify_sparse(cost, row_ind, raise_on_error)
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
    return certify(as_cost_matrix(cost, maximize), row_ind, col_ind, u, v, maximize, raise_on_error)


def _verify_sparse(cost, res, raise_on_error: bool) -> AssignmentCertificate:
    """A sparse cost matrix (cost scaling): the result's extended duals, checked by
    :func:`._verify_sparse.verify_sparse_assignment`, as an :class:`AssignmentCertificate`."""
    if not isinstance(res, AssignmentResult):
        raise TypeError("verify_assignment on a sparse cost matrix needs the AssignmentResult of "
                        "assignment(C_sparse) (its extended duals are in stats['U'], stats['V'])")
    problems = verify_sparse_assignment(cost, res, raise_on_error)
    valid = not any(p.startswith(("a row or column", "an index", "an assigned pair is not a stored")) for p in problems)
    return AssignmentCertificate(valid=valid, optimal=not problems, cost=res.cost, problems=list(problems),
                                 gap_bound=res.stats.get("gap_bound"))


class LimitCertificate:
    """The extended problem of a ``cost_limit`` solve: its matrix, solution and duals."""

    def __init__(self, cost, row_ind, col_ind, u, v, maximize):
        self.cost, self.row_ind, self.col_ind, self.u, self.v = cost, row_ind, col_ind, u, v
        self.maximize = maximize

    def verify(self, **kw):
        """:func:`matchflow.verify.verify_assignment` on the extended problem."""
        return verify_assignment(self.cost, self.row_ind, self.col_ind, self.u, self.v, maximize=self.maximize, **kw)

    def __repr__(self) -> str:
        return f"LimitCertificate(n={self.cost.shape[0]})"


def certify(a: np.ndarray, row_ind, col_ind, u, v, maximize: bool, raise_on_error: bool,
            rows=None) -> AssignmentCertificate:
    """:func:`verify_assignment` on a matrix already validated by ``as_cost_matrix`` (the
    check ``assignment()`` runs on every answer); ``rows``: see :func:`float_gap_bound`."""
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
    if not exact:
        try:
            u_f = u.astype(np.float64)
            v_f = v.astype(np.float64)
        except (TypeError, ValueError, OverflowError):
            u_f = v_f = np.array([np.nan])
        if not (np.isfinite(u_f).all() and np.isfinite(v_f).all()):
            cert.optimal = False
            cert.problems = ["non-finite dual (NaN or inf) in u or v"]
            return _finish(cert, raise_on_error)
        u_f, v_f = centre_duals(u_f, v_f)
        return _finish(_float_optimality(cert, a, sign, r, c, u_f, v_f, rows), raise_on_error)
    check = exact_optimality(a, sign, r, c, u, v)
    opt = check.problems
    cert.tol = 0
    cert.dual_value, cert.gap = check.dual_value, check.gap
    cert.min_reduced_cost, cert.max_assigned_slack = check.min_reduced_cost, check.max_assigned_slack
    cert.gap_bound = cert.gap if not opt else None
    cert.optimal = not opt
    cert.exact = not opt
    cert.problems = problems + opt
    return _finish(cert, raise_on_error)


def centre_duals(u: np.ndarray, v: np.ndarray):
    """Square duals have one free direction ``(u - t, v + t)``: centre it, so that duals
    inflated by a common offset cannot widen the tolerance (their rounding stays visible).
    Rectangular duals are pinned by the sign conditions and returned unchanged."""
    if u.size != v.size or not u.size:
        return u, v
    t = 0.5 * (0.5 * (float(u.max()) + float(u.min())) - 0.5 * (float(v.max()) + float(v.min())))
    with np.errstate(all="ignore"):
        u_t, v_t = u - t, v + t
    if np.isfinite(u_t).all() and np.isfinite(v_t).all():
        return u_t, v_t
    return u, v


def _float_optimality(cert: AssignmentCertificate, a: np.ndarray, sign: int, r: np.ndarray, c: np.ndarray,
                      u: np.ndarray, v: np.ndarray, rows=None) -> AssignmentCertificate:
    """Float duals: the rigorous gap bound of :func:`float_gap_bound` against its tolerance."""
    gap_bound, tol, mlb, (mi, mj), max_slack, parts = float_gap_bound(a, sign, r, c, u, v, rows)
    with np.errstate(all="ignore"):
        try:
            dual = float(math.fsum(u.tolist()) + math.fsum(v.tolist()))
        except OverflowError:
            dual = math.inf
    primal = sign * float(cert.cost)
    cert.tol = tol
    cert.dual_value = dual
    cert.gap = primal - dual
    cert.gap_bound = gap_bound
    cert.min_reduced_cost = mlb
    cert.max_assigned_slack = max_slack
    cert.tol_entries = parts["tol_entries"]
    opt: list[str] = []
    # exact: the totals of assignments differ by multiples of the granularity
    # (the granularity of the assigned entries bounds the whole matrix's: its pass runs only when that bound allows)
    cert.exact = bool(gap_bound < granularity(_assigned(a, r, c)) and gap_bound < granularity(a))
    if not (gap_bound <= tol and math.isfinite(tol)) and not cert.exact:  # an infinite tolerance proves nothing
        if parts["dual_infeasibility"] > tol / 2 and mlb is not None and mlb < 0:
            opt.append(f"dual infeasible: reduced cost {mlb} < 0 at ({mi}, {mj})")
        if parts["assigned_slack"] > tol / 2:
            opt.append(f"not complementary: an assigned pair has reduced cost up to {max_slack}")
        if parts["sign_conditions"] > tol / 2:
            side = "column" if a.shape[0] < a.shape[1] else "row"
            opt.append(f"{side} duals violate the rectangular sign conditions (<= 0, 0 when unassigned)")
        opt.append(f"duality gap bound {gap_bound} > tolerance {tol} (primal {primal}, dual {dual})")
    cert.optimal = not opt
    cert.problems = cert.problems + opt
    return cert


def square_certificate(C: np.ndarray, x: np.ndarray, u: np.ndarray, v: np.ndarray) -> bool:
    """Exact certificate of an int64 square solution (feasible and tight duals); floats are
    certified on the caller's matrix by :func:`verify_assignment` instead (always True here)."""
    n = C.shape[0]
    if n == 0 or C.dtype.kind != "i":
        return True
    if x.shape != (n,) or np.unique(x).size != n or x.min() < 0 or x.max() >= n:
        return False
    lim = 2**61
    if max(abs(int(u.min())), abs(int(u.max())), abs(int(v.min())), abs(int(v.max()))) >= lim:
        return False
    u64, v64 = u.astype(np.int64), v.astype(np.int64)
    if not np.array_equal(C[np.arange(n), x], u64 + v64[x]):
        return False
    return min_reduced_cost(C, 1, u64, v64)[0] >= 0


def exact_difference(a: np.ndarray, maximize: bool, first, second) -> int:
    """Sign of ``total(first) - total(second)`` of the minimisation problem, exactly
    (``math.fsum`` rounds the exact sum of the float entries once: the sign is exact)."""
    ra, ca = first
    rb, cb = second
    sg = -1.0 if maximize else 1.0
    try:
        d = math.fsum([sg * float(t) for t in a[ra, ca].tolist()] + [-sg * float(t) for t in a[rb, cb].tolist()])
    except (OverflowError, ValueError):
        return 0
    return (d > 0) - (d < 0)


def total_cost(a: np.ndarray, r: np.ndarray, c: np.ndarray):
    """Total of the user's entries: exact Python int for integers, float otherwise."""
    vals = a[r, c]
    if a.dtype.kind in "biu":
        if vals.size and (abs(int(vals.min())) + abs(int(vals.max()))) * max(1, vals.size) >= 2**63:
            return sum(int(t) for t in vals.tolist())
        return int(vals.astype(np.int64).sum()) if vals.size else 0
    with np.errstate(over="ignore"):
        return float(vals.sum()) if vals.size else 0.0


def _finish(cert: AssignmentCertificate, raise_on_error: bool) -> AssignmentCertificate:
    if raise_on_error and cert.problems:
        raise ValueError("assignment certificate failed: " + "; ".join(cert.problems))
    return cert
