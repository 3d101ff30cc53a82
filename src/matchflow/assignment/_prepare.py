"""One preparation layer for every assignment solver (CPU and GPU see the same problem).

:func:`as_cost_matrix` validates the user's input exactly like
``scipy.optimize.linear_sum_assignment`` (same messages, same accepted dtypes), and
:func:`prepare` turns it into a *square, C-contiguous, finite, non-negative* matrix ``C``
of dtype ``int64`` (integer and bool input) or ``float64`` (float input):

1. ``maximize=True`` negates the matrix (the solvers always minimise);
2. the global minimum of the allowed entries is subtracted (``C >= 0``; no row/column
   reduction, so every method starts from the same matrix);
3. float matrices whose range would overflow are scaled by an exact power of two;
4. forbidden entries (``+inf`` when minimising, ``-inf`` when maximising) become a big-M
   value ``M = S + 1`` (integers) or ``M = 2 S + 1`` (floats), where ``S`` is an upper
   bound on the cost of any full assignment over allowed entries (the smaller of the
   sums of row maxima and of column maxima). Any assignment through a forbidden entry
   then costs more than every assignment through allowed entries, so once feasibility
   has been proved (a maximum bipartite matching on the allowed pattern, run first) the
   optimum never uses M. The solution is checked again afterwards;
5. a rectangular matrix is padded to square with zero rows (``n_rows < n_cols``) or zero
   columns (``n_rows > n_cols``); the matrix is never transposed.

Integer rule: integers are solved exactly in int64 when ``B * 8 * (n + 2) <= 2**62``
(``B`` the largest prepared entry, including M); otherwise the matrix is first divided by
the gcd of its entries, and if it is still too wide, a pure-Python big-integer Hungarian
(exact, slow: O(n^3) Python steps) solves it. Every int64 solution is also certified with
exact integer duals before it is returned; a failed certificate (which would mean an
overflow) falls back to the big-integer solver.

:meth:`Prepared.recover` maps the square solution and its duals back to the user's matrix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numba
import numpy as np

from .._validation import to_host_array

__all__ = ["as_cost_matrix", "prepare", "Prepared", "InfeasibleError", "INT_SAFE"]

INT_SAFE = 2**62
_FLOAT_SAFE = 2.0**900  # keeps (n + 2) * M far below the float64 overflow threshold


@numba.njit(cache=True)
def _scan_float_kernel(a, bad):
    """One pass: (has NaN or ``bad`` infinity, has forbidden infinity, min, max of finite)."""
    invalid = False
    forbidden = False
    lo = np.inf
    hi = -np.inf
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            t = a[i, j]
            if t != t or t == bad:
                invalid = True
            elif t - t != 0:
                forbidden = True
            else:
                if t < lo:
                    lo = t
                if t > hi:
                    hi = t
    return invalid, forbidden, lo, hi


@numba.njit(cache=True)
def _shift_int_kernel(a, C, base, negate):
    """C[:nr, :nc] = a - base (or base - a), exact modulo 2**64; zero padding elsewhere."""
    n = C.shape[0]
    nr, nc = a.shape
    b = np.uint64(base)
    for i in range(n):
        for j in range(n):
            if i < nr and j < nc:
                t = np.uint64(a[i, j])
                C[i, j] = np.int64(b - t) if negate else np.int64(t - b)
            else:
                C[i, j] = 0


@numba.njit(cache=True)
def _shift_float_kernel(a, C, lo, scale, negate):
    """C[:nr, :nc] = (sign * a) * scale - lo * scale; forbidden -> 0 (set to M later)."""
    n = C.shape[0]
    nr, nc = a.shape
    sg = -1.0 if negate else 1.0
    los = lo * scale
    for i in range(n):
        for j in range(n):
            if i < nr and j < nc:
                t = a[i, j]
                if t - t != 0:
                    C[i, j] = 0.0
                elif scale == 1.0:
                    C[i, j] = sg * t - lo
                else:
                    C[i, j] = (sg * t) * scale - los
            else:
                C[i, j] = 0.0


class InfeasibleError(ValueError):
    """No assignment of the smaller side avoids the forbidden entries (SciPy's message)."""

    def __init__(self) -> None:
        super().__init__("cost matrix is infeasible")


def as_cost_matrix(cost, maximize: bool = False) -> np.ndarray:
    """Validate a cost matrix exactly as SciPy does; return a 2-D NumPy array (not copied).

    bool, signed/unsigned integers and float16/32/64 are accepted; anything that cannot
    be cast safely to float64 (complex, strings, objects, longdouble) raises SciPy's
    TypeError. NaN, and ``-inf`` when minimising / ``+inf`` when maximising, raise
    ``ValueError("matrix contains invalid numeric entries")``.
    """
    a = to_host_array(cost, "cost")
    if a.ndim != 2:
        raise ValueError(f"expected a matrix (2-D array), got a {a.ndim} array")
    if not np.can_cast(a.dtype, np.float64, casting="safe"):
        raise TypeError(
            f"Cannot cast array data from {a.dtype!r} to dtype('float64') according to the rule 'safe'"
        )
    if a.dtype.kind == "f" and a.size:
        scan_float(a, maximize)
    return a


def scan_float(a: np.ndarray, maximize: bool):
    """(has forbidden entries, min, max of finite entries of the *user's* matrix); raises
    SciPy's ValueError on NaN / wrong-signed infinity."""
    x = a if a.dtype in (np.float64, np.float32) else a.astype(np.float64)
    invalid, forbidden, lo, hi = _scan_float_kernel(x, -np.inf if not maximize else np.inf)
    if invalid:
        raise ValueError("matrix contains invalid numeric entries")
    return bool(forbidden), float(lo), float(hi)


@dataclass
class Prepared:
    """The square problem every solver sees, and how to map its solution back."""

    C: np.ndarray  # (n, n) C-contiguous int64 / float64, finite, >= 0
    n_rows: int
    n_cols: int
    is_int: bool
    maximize: bool
    shift: object  # Python int (integers) or float: min of the minimisation matrix
    scale: float  # C = (C_min - shift) * scale   (1.0 for integers)
    gcd: int  # integers: C = (C_min - shift) // gcd
    big_m: object | None  # value of forbidden entries in C, None without forbidden entries
    allowed: np.ndarray | None  # bool mask of allowed entries (user shape), None when all allowed
    int64_ok: bool  # integers: the int64 kernels cannot overflow on C
    bigint: list | None = None  # integers too wide for int64: C as nested Python int lists
    stats: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return max(self.n_rows, self.n_cols)

    def recover(self, col4row: np.ndarray, u: np.ndarray | None, v: np.ndarray | None):
        """Map the square solution to (row_ind, col_ind, u, v) on the user's matrix.

        ``u``/``v`` are returned as duals of the minimisation problem on
        ``C_min = cost`` (or ``-cost`` when maximising) with the rectangular conditions of
        :func:`matchflow.verify.verify_assignment`: for ``n_rows <= n_cols`` the column
        duals are ``<= 0`` and ``0`` on unassigned columns; for ``n_rows > n_cols`` the
        row duals are ``<= 0`` and ``0`` on unassigned rows.
        """
        nr, nc = self.n_rows, self.n_cols
        col4row = np.asarray(col4row, dtype=np.int64)
        if nr <= nc:
            row_ind = np.arange(nr, dtype=np.int64)
            col_ind = col4row[:nr].copy()
        else:
            row_ind = np.flatnonzero(col4row < nc).astype(np.int64)
            col_ind = col4row[row_ind].copy()
        if self.allowed is not None and row_ind.size and not self.allowed[row_ind, col_ind].all():
            raise InfeasibleError()  # cannot happen after the feasibility check; kept as a guard
        if u is None or v is None:
            return row_ind, col_ind, None, None
        if self.is_int:
            uu = [int(x) for x in u]
            vv = [int(x) for x in v]
        else:
            uu = np.asarray(u, dtype=np.float64).copy()
            vv = np.asarray(v, dtype=np.float64).copy()
        # padding: all dummy rows (columns) share one dual value t at the optimum; move it
        if nr < nc:
            t = max(uu[nr:])
            uu = [x - t for x in uu[:nr]] if self.is_int else uu[:nr] - t
            vv = [x + t for x in vv] if self.is_int else vv + t
        elif nr > nc:
            t = max(vv[nc:])
            vv = [x - t for x in vv[:nc]] if self.is_int else vv[:nc] - t
            uu = [x + t for x in uu] if self.is_int else uu + t
        # undo gcd / scale and the shift (added to the fully assigned side)
        if self.is_int:
            g, s = self.gcd, self.shift
            uu = [x * g for x in uu]
            vv = [x * g for x in vv]
            if nr <= nc:
                uu = [x + s for x in uu]
            else:
                vv = [x + s for x in vv]
            return row_ind, col_ind, _int_array(uu), _int_array(vv)
        with np.errstate(over="ignore"):  # duals of entries near +-1e308 may not fit float64
            uu = uu / self.scale
            vv = vv / self.scale
            if nr <= nc:
                uu = uu + self.shift
            else:
                vv = vv + self.shift
        return row_ind, col_ind, uu, vv


def _int_array(xs: list) -> np.ndarray:
    """int64 array when every value fits, else an object array of Python ints (exact)."""
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    if all(lo <= x <= hi for x in xs):
        return np.array(xs, dtype=np.int64)
    out = np.empty(len(xs), dtype=object)
    out[:] = xs
    return out


def _feasible(allowed: np.ndarray) -> bool:
    """True when a matching of the allowed pattern saturates the smaller side."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import maximum_bipartite_matching

    nr, nc = allowed.shape
    if nr == 0 or nc == 0:
        return True
    if nr > nc:
        allowed = allowed.T
        nr, nc = nc, nr
    if not allowed.any(axis=1).all():
        return False
    m = maximum_bipartite_matching(sp.csr_array(allowed.astype(np.int8)), perm_type="column")
    return int((m >= 0).sum()) == nr


def prepare(a: np.ndarray, maximize: bool = False) -> Prepared:
    """Build the square problem for a validated matrix ``a`` (see the module docstring).

    A square C-contiguous int64 / float64 matrix whose minimum is 0 (minimising, no
    forbidden entry) is used as is, without a copy: the solvers never write to ``C``.
    """
    nr, nc = a.shape
    n = max(nr, nc)
    if a.dtype.kind in "biu":
        return _prepare_int(a, maximize, n)
    return _prepare_float(a, maximize, n)


def _assignment_bound(rows_max: np.ndarray, cols_max: np.ndarray):
    return min(rows_max.sum(), cols_max.sum())


def _prepare_float(a: np.ndarray, maximize: bool, n: int) -> Prepared:
    nr, nc = a.shape
    if a.dtype not in (np.float64, np.float32):
        a = a.astype(np.float64)
    if a.size:
        forbidden, ulo, uhi = scan_float(a, maximize)
    else:
        forbidden, ulo, uhi = False, 0.0, 0.0
    if ulo > uhi:  # every entry forbidden
        ulo = uhi = 0.0
    lo, hi = (-uhi, -ulo) if maximize else (ulo, uhi)
    allowed = None
    if forbidden:
        allowed = np.isfinite(a)
        if not _feasible(allowed):
            raise InfeasibleError()
    # exact power-of-two scaling when the range (times n) could overflow float64
    scale = 1.0
    span = hi * 0.5 - lo * 0.5  # no overflow
    if span > 0 and span * 2.0 * (n + 2) * 4 > _FLOAT_SAFE:
        k = math.ceil(math.log2(span) + math.log2(8.0 * (n + 2)) - math.log2(_FLOAT_SAFE)) + 2
        scale = 2.0**-k
    if (nr == nc and not maximize and not forbidden and lo == 0.0 and a.dtype == np.float64
            and a.flags.c_contiguous):
        C = a
    else:
        C = np.empty((n, n), dtype=np.float64)
        if n:
            _shift_float_kernel(a, C, lo, scale, maximize)
    big_m = None
    if allowed is not None:
        sub = C[:nr, :nc]
        bound = _assignment_bound(sub.max(axis=1), sub.max(axis=0)) if sub.size else 0.0
        big_m = 2.0 * float(bound) + 1.0
        sub[~allowed] = big_m
    return Prepared(C=C, n_rows=nr, n_cols=nc, is_int=False, maximize=maximize, shift=lo, scale=scale, gcd=1,
                    big_m=big_m, allowed=allowed, int64_ok=True)


def _prepare_int(a: np.ndarray, maximize: bool, n: int) -> Prepared:
    nr, nc = a.shape
    if a.dtype.kind == "b":
        a = a.view(np.uint8)
    if a.size:
        amin, amax = int(a.min()), int(a.max())
    else:
        amin = amax = 0
    # minimisation matrix C_min = a (or -a); shift = its minimum; C = C_min - shift in [0, R]
    if maximize:
        shift, R = -amax, amax - amin
    else:
        shift, R = amin, amax - amin
    bigint = None
    C = None
    if R < 2**63:
        if nr == nc and not maximize and amin == 0 and a.dtype == np.int64 and a.flags.c_contiguous:
            C = a
        else:
            C = np.empty((n, n), dtype=np.int64)
            if n:
                base = (amax if maximize else amin) % 2**64
                _shift_int_kernel(a, C, np.uint64(base), maximize)
    else:
        C = np.zeros((n, n), dtype=np.int64)
        bigint = [[(amax - int(t)) if maximize else (int(t) - amin) for t in row] for row in a.tolist()]
    g = 1
    B = R
    int64_ok = bigint is None and B * 8 * (n + 2) <= INT_SAFE
    if bigint is None and not int64_ok and R > 0:
        g = int(np.gcd.reduce(C[:nr, :nc], axis=None))
        if g > 1:
            C = C // g  # never in place: C may be the user's array
            B = R // g
            int64_ok = B * 8 * (n + 2) <= INT_SAFE
    if not int64_ok and bigint is None:
        bigint = [[int(t) for t in row] for row in C[:nr, :nc].tolist()]
    if bigint is not None:
        # pad the nested lists to square with zeros
        bigint = [row + [0] * (n - nc) for row in bigint] + [[0] * n for _ in range(n - nr)]
    return Prepared(C=C, n_rows=nr, n_cols=nc, is_int=True, maximize=maximize, shift=shift, scale=1.0, gcd=g,
                    big_m=None, allowed=None, int64_ok=int64_ok, bigint=bigint)
