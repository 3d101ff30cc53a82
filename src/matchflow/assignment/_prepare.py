"""One preparation layer for every assignment solver (CPU and GPU see the same problem).

:func:`as_cost_matrix` validates the user's input exactly like
``scipy.optimize.linear_sum_assignment`` (same messages, same accepted dtypes), and
:func:`prepare` turns it into a *square, C-contiguous, finite, non-negative* matrix ``C``
of dtype ``int64`` (integer and bool input) or ``float64`` (float input):

1. ``maximize=True`` negates the matrix (the solvers always minimise);
2. the global minimum of the allowed entries is subtracted (``C >= 0``; no row/column
   reduction, so every method starts from the same matrix) -- for floats only when the
   subtraction is exact for every entry (checked with TwoSum), and for a float64 matrix usable
   as it is only when the shift removes magnitude (``|min| > max - min``; otherwise no copy is
   made); otherwise floats keep the caller's costs (``shift = 0``, negative entries allowed),
   since ``1e12 + 2e-5 == 1e12`` would turn distinct costs into ties (``stats["shifted"]``);
3. float matrices whose magnitudes would overflow are scaled by an exact power of two;
4. forbidden entries (``+inf`` when minimising, ``-inf`` when maximising) become a big-M
   value with ``M > n * b - (n - 1) * a`` for allowed entries in ``[a, b]`` (floats:
   ``M = 2 (|b| + (n + 1)(b - a)) + 1`` with ``a <= 0 <= b``). Any assignment through a forbidden entry
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
import scipy.sparse as sp

from .._lsap.problem import InfeasibleError
from .._validation import native_array, to_host_array
from ..matching import maximum_bipartite_matching

__all__ = ["as_cost_matrix", "prepare", "Prepared", "INT_SAFE", "granularity_exponent_kernel"]

INT_SAFE = 2**62
_FLOAT_SAFE = 2.0**900  # keeps (n + 2) * M far below the float64 overflow threshold


def _scan_float_rows(a, bad, invalid, forbidden, lo, hi):
    """Per row: has NaN or ``bad`` infinity, has forbidden infinity, min and max of the finite entries (rows
    independent: compiled serial and parallel)."""
    for i in numba.prange(a.shape[0]):
        inv = False
        forb = False
        rlo = np.inf
        rhi = -np.inf
        for j in range(a.shape[1]):
            t = a[i, j]
            if t != t or t == bad:
                inv = True
            elif t - t != 0:
                forb = True
            else:
                if t < rlo:
                    rlo = t
                if t > rhi:
                    rhi = t
        invalid[i], forbidden[i], lo[i], hi[i] = inv, forb, rlo, rhi


_scan_float_serial = numba.njit(cache=True)(_scan_float_rows)
_scan_float_parallel = numba.njit(cache=True, parallel=True)(_scan_float_rows)
PARALLEL_ENTRIES = 1 << 20  # the float scan runs on the Numba threads from this many entries


def _scan_float_kernel(a, bad):
    """One pass: (has NaN or ``bad`` infinity, has forbidden infinity, min, max of finite). First NumPy's SIMD
    min and max over blocks of rows that fit the cache (NaN propagates through both): when every entry is
    finite that is the answer; any NaN or infinity takes the row kernel below for the exact verdict. The row
    kernel's branches do not vectorise (~2 ns an entry per thread; on the GPU machine's host its threads did
    not scale at all: 136 ms for 8192^2 on 1 to 16 threads, the blocks ~2x faster)."""
    fast = _finite_min_max(a)
    if fast is not None:
        return False, False, fast[0], fast[1]
    nr = a.shape[0]
    invalid, forbidden = np.empty(nr, dtype=np.bool_), np.empty(nr, dtype=np.bool_)
    lo, hi = np.empty(nr, dtype=a.dtype), np.empty(nr, dtype=a.dtype)
    (_scan_float_parallel if a.size >= PARALLEL_ENTRIES else _scan_float_serial)(a, bad, invalid, forbidden, lo, hi)
    return (bool(invalid.any()), bool(forbidden.any()), lo.min(initial=np.inf), hi.max(initial=-np.inf))


def _finite_min_max(a):
    """``(min, max)`` when every entry of the 2-D float ``a`` is finite, else None (a NaN or an infinity)."""
    rows = max(1, (1 << 17) // max(1, a.shape[1]))  # ~1 MB of float64 a block: both reductions from the cache
    lo, hi = np.inf, -np.inf
    for s in range(0, a.shape[0], rows):
        b = a[s:s + rows]
        bl, bh = b.min(), b.max()
        if not (np.isfinite(bl) and np.isfinite(bh)):
            return None
        lo, hi = min(lo, bl), max(hi, bh)
    return lo, hi


def _shift_int_rows(a, C, base, negate):
    """C[:nr, :nc] = a - base (or base - a), exact modulo 2**64; zero padding elsewhere (rows independent)."""
    n = C.shape[0]
    nr, nc = a.shape
    b = np.uint64(base)
    for i in numba.prange(n):
        for j in range(n):
            if i < nr and j < nc:
                t = np.uint64(a[i, j])
                C[i, j] = np.int64(b - t) if negate else np.int64(t - b)
            else:
                C[i, j] = 0


def _shift_float_rows(a, C, lo, scale, negate, exact_rows):
    """C[:nr, :nc] = (sign * a) * scale - lo * scale; forbidden -> 0 (set to M later); zero padding elsewhere.
    ``exact_rows[i]``: every allowed entry of row i transformed exactly (Knuth's TwoSum error of the subtraction
    is zero and the power-of-two scaling lost no bit). Rows independent."""
    n = C.shape[0]
    nr, nc = a.shape
    sg = -1.0 if negate else 1.0
    los = lo * scale
    for i in numba.prange(n):
        exact = True
        for j in range(n):
            if i < nr and j < nc:
                t = a[i, j]
                if t - t != 0:
                    C[i, j] = 0.0
                    continue
                p = (sg * t) * scale
                if scale != 1.0 and p / scale != sg * t:
                    exact = False
                q = -los
                s = p + q
                bp = s - p
                err = (p - (s - bp)) + (q - bp)
                if err != 0.0:
                    exact = False
                C[i, j] = s
            else:
                C[i, j] = 0.0
        exact_rows[i] = exact


@numba.njit(cache=True)
def _shift_exact_kernel(a, lo, negate):
    """Whether ``t - lo`` (``-t - lo`` with ``negate``) is exact (TwoSum error 0) for every finite entry t of
    ``a`` (read only; stops at the first inexact one). Run on a sample of rows only."""
    q = -lo
    sg = -1.0 if negate else 1.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            t = sg * a[i, j]
            if t - t != 0:
                continue
            s = t + q
            bp = s - t
            if (t - (s - bp)) + (q - bp) != 0.0:
                return False
    return True


_shift_int_serial = numba.njit(cache=True)(_shift_int_rows)
_shift_int_parallel = numba.njit(cache=True, parallel=True)(_shift_int_rows)
_shift_float_serial = numba.njit(cache=True)(_shift_float_rows)
_shift_float_parallel = numba.njit(cache=True, parallel=True)(_shift_float_rows)


def _shift_int_kernel(a, C, base, negate) -> None:
    """:func:`_shift_int_rows`, on the Numba threads from :data:`PARALLEL_ENTRIES` entries."""
    (_shift_int_parallel if C.size >= PARALLEL_ENTRIES else _shift_int_serial)(a, C, base, negate)


def _shift_float_kernel(a, C, lo, scale, negate) -> bool:
    """:func:`_shift_float_rows` (on the Numba threads from :data:`PARALLEL_ENTRIES` entries); True when every
    allowed entry was transformed exactly."""
    exact_rows = np.empty(C.shape[0], dtype=np.bool_)
    (_shift_float_parallel if C.size >= PARALLEL_ENTRIES else _shift_float_serial)(a, C, lo, scale, negate, exact_rows)
    return bool(exact_rows.all())


@numba.njit(cache=True)
def _least_reduced(B, r, sign, w):
    """``min_c sign * B[r, c] - w[c]`` (+inf: none finite); :func:`_polish_duals` passes ``A`` or ``A.T``."""
    best = np.inf
    for c in range(B.shape[1]):
        h = sign * B[r, c] - w[c]
        if h < best:
            best = h
    return best


def _polish_duals(A, sign, col_of_row, u, v, rows_equal):
    """Recompute the duals of the "= 1" side from the other side's, on the caller's
    minimisation matrix ``sign * A`` (+inf forbidden; ``A`` float32 or float64, each entry widened exactly):
    one rounding per dual instead of the
    solver's chain of updates. ``rows_equal`` (n_rows <= n_cols): the column duals are
    clipped to ``<= 0`` (0 on unassigned columns when rectangular) and
    ``u[i] = min_j A[i, j] - v[j]``; otherwise the same with rows and columns swapped.
    Each recomputed dual is independent: compiled serial and parallel."""
    nr, nc = A.shape
    if rows_equal:
        used = np.zeros(nc, dtype=np.bool_)
        for i in range(nr):
            if col_of_row[i] >= 0:
                used[col_of_row[i]] = True
        if nr < nc:
            for j in range(nc):
                if not used[j] or v[j] > 0:
                    v[j] = 0.0
        for i in numba.prange(nr):
            best = _least_reduced(A, i, sign, v)
            if best < np.inf:
                u[i] = best
    else:
        for i in range(nr):
            if col_of_row[i] < 0 or u[i] > 0:
                u[i] = 0.0
        for j in numba.prange(nc):
            best = _least_reduced(A.T, j, sign, u)
            if best < np.inf:
                v[j] = best


_polish_serial = numba.njit(cache=True)(_polish_duals)
_polish_parallel = numba.njit(cache=True, parallel=True)(_polish_duals)


def polish_duals_kernel(A, sign, col_of_row, u, v, rows_equal) -> None:
    """:func:`_polish_duals` (on the Numba threads from :data:`PARALLEL_ENTRIES` entries)."""
    (_polish_parallel if A.size >= PARALLEL_ENTRIES else _polish_serial)(A, float(sign), col_of_row, u, v, rows_equal)


@numba.njit(cache=True)
def _granularity_bits_kernel(bits, mbits, emask, ebias):
    """Over IEEE bit patterns (``uint64`` of float64 or ``uint32`` of float32, flat): the smallest ``k`` such
    that ``2**k`` is the lowest set bit of some finite non-zero entry's value; ``2**30`` when there is none.
    One branch-free pass ORs the integer mantissas per biased exponent; the lowest set bit of each OR is the
    lowest over its entries (zeros add nothing; infinities and NaNs sit in exponent ``emask``, skipped)."""
    orv = np.zeros(emask + 1, dtype=np.int64)
    mmask = (np.int64(1) << mbits) - 1
    for t in range(bits.size):
        b = np.int64(bits[t])
        e = (b >> mbits) & emask
        orv[e] |= (b & mmask) | (np.int64(e != 0) << mbits)  # the implicit leading bit of normal numbers
    best = 1 << 30
    for e in range(emask):
        m = orv[e]
        if m == 0:
            continue
        k = max(e, 1) - ebias - mbits  # subnormals (e = 0) share the scale of e = 1
        while (m & 1) == 0:
            m >>= 1
            k += 1
        if k < best:
            best = k
    return best


def granularity_exponent_kernel(a: np.ndarray) -> int:
    """``log2`` of :func:`._verify.granularity` (the largest power of two dividing every finite entry) in one
    pass over the bit patterns, no temporaries (the NumPy version allocates ~5 n^2 words: 0.5 s of the
    public float call at n = 4096 on the H100 host); ``2**30`` when no entry is finite and non-zero."""
    a = np.ascontiguousarray(a)
    if a.dtype == np.float32:
        return int(_granularity_bits_kernel(a.reshape(-1).view(np.uint32), 23, 0xFF, 127))
    a = np.ascontiguousarray(a, dtype=np.float64)
    return int(_granularity_bits_kernel(a.reshape(-1).view(np.uint64), 52, 0x7FF, 1023))


def as_cost_matrix(cost, maximize: bool = False) -> np.ndarray:
    """Validate a cost matrix exactly as SciPy does; return a 2-D NumPy array (not copied).

    bool, signed/unsigned integers and float16/32/64 are accepted; anything that cannot
    be cast safely to float64 (complex, strings, objects, longdouble) raises SciPy's
    TypeError. NaN, and ``-inf`` when minimising / ``+inf`` when maximising, raise
    ``ValueError("matrix contains invalid numeric entries")``.
    """
    return as_cost_matrix_scanned(cost, maximize)[0]


def as_cost_matrix_scanned(cost, maximize: bool = False) -> tuple[np.ndarray, tuple | None]:
    """:func:`as_cost_matrix` and its float scan ``(forbidden, lo, hi)`` (None for other dtypes or no entry),
    for :func:`prepare` to reuse instead of reading the matrix again."""
    a = native_array(to_host_array(cost, "cost"), "cost")
    if a.ndim != 2:
        raise ValueError(f"expected a matrix (2-D array), got a {a.ndim} array")
    if not np.can_cast(a.dtype, np.float64, casting="safe"):
        raise TypeError(
            f"Cannot cast array data from {a.dtype!r} to dtype('float64') according to the rule 'safe'"
        )
    scan = scan_float(a, maximize) if a.dtype.kind == "f" and a.size else None
    return a, scan


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
    # the float certificate's row passes over a device copy of C (``_gpu_verify.device_rows``), set by a GPU
    # solver that holds C there when C + shift is the caller's minimisation matrix (no scale, big M, padding)
    device_rows: tuple | None = None
    # the caller's own device matrix when C is its host copy (a device input used as it is): GPU solvers read it
    # there instead of uploading C
    device_C: object | None = None

    @property
    def n(self) -> int:
        return max(self.n_rows, self.n_cols)

    def recover(self, col4row: np.ndarray, u: np.ndarray | None, v: np.ndarray | None, scaled: bool = False):
        """Map the square solution to (row_ind, col_ind, u, v) on the user's matrix.

        ``u``/``v`` are returned as duals of the minimisation problem on
        ``C_min = cost`` (or ``-cost`` when maximising) with the rectangular conditions of
        :func:`matchflow.verify.verify_assignment`: for ``n_rows <= n_cols`` the column
        duals are ``<= 0`` and ``0`` on unassigned columns; for ``n_rows > n_cols`` the
        row duals are ``<= 0`` and ``0`` on unassigned rows. ``scaled=True`` (floats): the
        duals of ``cost * scale`` instead (finite where ``cost``'s own may overflow).
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
            sc = 1.0 if scaled else self.scale
            uu = uu / sc
            vv = vv / sc
            if nr <= nc:
                uu = uu + self.shift * (self.scale / sc)
            else:
                vv = vv + self.shift * (self.scale / sc)
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
    """True when a matching of the allowed pattern saturates the smaller side.

    Runs matchflow's own CPU matcher (greedy + Hopcroft-Karp with the PF+ finish): SciPy's
    ``maximum_bipartite_matching`` is exponential on the Hopcroft-Karp ladder pattern.
    """
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


def prepare(a: np.ndarray, maximize: bool = False, scan: tuple | None = None) -> Prepared:
    """Build the square problem for a validated matrix ``a`` (see the module docstring).

    A square C-contiguous int64 / float64 matrix whose minimum is 0 (minimising, no
    forbidden entry) is used as is, without a copy: the solvers never write to ``C``.
    """
    nr, nc = a.shape
    n = max(nr, nc)
    if a.dtype.kind in "biu":
        return _prepare_int(a, maximize, n)
    return _prepare_float(a, maximize, n, scan)


def _prepare_float(a: np.ndarray, maximize: bool, n: int, scan: tuple | None = None) -> Prepared:
    nr, nc = a.shape
    if a.dtype not in (np.float64, np.float32):
        a = a.astype(np.float64)
    if scan is not None:
        forbidden, ulo, uhi = scan  # as_cost_matrix_scanned's pass over the same matrix
    elif a.size:
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
    # exact power-of-two scaling when the magnitudes (times n) could overflow float64
    scale = 1.0
    big = max(abs(lo), abs(hi))
    if big > 0 and big * 16.0 * (n + 2) * 4 > _FLOAT_SAFE:
        k = math.ceil(math.log2(big) + math.log2(64.0 * (n + 2)) - math.log2(_FLOAT_SAFE)) + 2
        scale = 2.0**-k
    # the global-minimum shift (C >= 0) only when it is exact for every allowed entry: 1e12 + 2e-5 == 1e12
    # would turn distinct costs into ties. A matrix usable as it is (square float64, minimising, nothing to scale or
    # forbid) is shifted only when that removes magnitude (|min| > max - min: then every entry has the minimum's
    # sign and lies within a factor 2 of it, so the subtraction is exact, Sterbenz); otherwise it is used as it is,
    # not copied (the solvers' rounding is of the same order either way, e.g. uniform [0, 1)): a copy of a large
    # matrix is not free (~0.4 s at n = 8192 on the GPU host: the page faults of a fresh 512 MB). Other matrices are
    # copied anyway: a sample of rows, then the shifting pass check every entry (a rounding entry found late costs a
    # second pass without the shift)
    shifted = True
    ready = (nr == nc and not maximize and not forbidden and scale == 1.0 and a.dtype == np.float64
             and a.flags.c_contiguous)
    if ready and abs(lo) <= hi - lo:
        C, shifted = a, lo == 0.0
    else:
        sample_exact = lo == 0.0 or _shift_exact_kernel(np.asarray(a[:8], dtype=np.float64), lo, maximize)
        C = np.empty((n, n), dtype=np.float64)
        if n and (not sample_exact or not _shift_float_kernel(a, C, lo, scale, maximize)):
            shifted = False
            _shift_float_kernel(a, C, 0.0, scale, maximize)
    shift = lo if shifted else 0.0
    big_m = None
    if allowed is not None:
        sub = C[:nr, :nc]
        fin = sub[allowed]
        b = max(float(fin.max()), 0.0) if fin.size else 0.0
        w = b - min(float(fin.min()), 0.0) if fin.size else 0.0
        # any assignment through M costs more than n * b >= every allowed-only assignment
        big_m = 2.0 * (abs(b) + (n + 1) * w) + 1.0
        sub[~allowed] = big_m
    return Prepared(C=C, n_rows=nr, n_cols=nc, is_int=False, maximize=maximize, shift=shift, scale=scale, gcd=1,
                    big_m=big_m, allowed=allowed, int64_ok=True,
                    stats={"shifted": shifted})


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


def square_answer(C: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The empty answer every square CPU solve on ``C`` fills: ``col4row`` (-1), the duals ``u``, ``v`` (C's
    dtype, 0) and the three work counters of ``counters``."""
    n = C.shape[0]
    return (np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=C.dtype), np.zeros(n, dtype=C.dtype),
            np.zeros(3, dtype=np.int64))


def counters(st: np.ndarray) -> dict:
    """A square solve's work counters as its stats."""
    return {"augmentations": int(st[0]), "iterations": int(st[1]), "dual_updates": int(st[2])}
