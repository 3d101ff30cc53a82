"""The certificate of a sparse assignment: the extended problem's duals (:mod:`._prepare_sparse`) for a perfect
matching, by the label-correcting pass (``exact_duals_kernel``: exact for integers; for floats the pass's duals,
or the columns' largest feasible ones, with the dense path's rigorous gap bound), and the checker
:func:`verify_sparse_assignment` (re-exported by :mod:`matchflow.verify`).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import scipy.sparse as sp

from .._lsap.reduced import ERR_REL as _REL
from .._results import AssignmentResult
from ._prepare_sparse import _from_device, _on_host, _perfect_extension, as_sparse_cost, extended
from ._verify_float_bound import float_gap_bound, granularity

__all__ = ["BIG", "NOT_OPTIMAL", "OK", "exact_duals_kernel", "verify_sparse_assignment"]

OK, NOT_OPTIMAL = 0, 2  # cost scaling's status codes (:mod:`._cpu_cost_scaling`), which the label-correcting pass returns
BIG = np.int64(1) << np.int64(62)


@numba.njit(cache=True)
def exact_duals_kernel(indptr, indices, cost, n, col4row, row4col, v, max_scans):
    """Exact integer duals (float costs: duals tight to rounding) of a perfect matching on ``cost``: the largest ``v <= v0`` with
    ``v[j] - v[col4row[i]] <= c(i,j) - c(i,col4row[i])`` (label correcting, a FIFO of rows). Then
    ``u[i] = c(i, col4row[i]) - v[col4row[i]]``. Returns (status, u, scans)."""
    cm = np.empty(n, dtype=cost.dtype)
    for i in range(n):
        j0 = col4row[i]
        cm[i] = BIG
        for k in range(indptr[i], indptr[i + 1]):
            if indices[k] == j0:
                cm[i] = cost[k]
                break
    queue = np.empty(n, dtype=np.int64)
    inq = np.ones(n, dtype=np.bool_)
    for i in range(n):
        queue[i] = i
    head = 0
    count = n
    scans = np.int64(0)
    while count > 0:
        i = queue[head]
        head = head + 1 if head + 1 < n else 0
        count -= 1
        inq[i] = False
        scans += 1
        if scans > max_scans:
            return NOT_OPTIMAL, cm, scans
        ui = cm[i] - v[col4row[i]]
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j == col4row[i]:
                continue  # its own arc is tight by the definition of ui (floats: skip the rounding)
            lim = cost[k] - ui
            if v[j] > lim:
                v[j] = lim
                r = row4col[j]
                if r == i:
                    return NOT_OPTIMAL, cm, scans  # a negative cycle through i: not optimal
                if not inq[r]:
                    inq[r] = True
                    queue[(head + count) % n] = r
                    count += 1
    u = np.empty(n, dtype=cost.dtype)
    for i in range(n):
        u[i] = cm[i] - v[col4row[i]]
    return OK, u, scans


def _label_correcting(E: sp.csr_array, x: np.ndarray, cost: np.ndarray, v0: np.ndarray, per_arc: int
                      ) -> tuple[int, np.ndarray]:
    """``exact_duals_kernel`` on E for its perfect matching ``x`` from ``v0`` (lowered in place), at most
    ``per_arc * (nnz + n) + 1024`` row scans. Returns (status, u)."""
    n = E.shape[0]
    row4col = np.empty(n, dtype=np.int64)
    row4col[x] = np.arange(n)
    st, u, _ = exact_duals_kernel(E.indptr.astype(np.int64), E.indices.astype(np.int64), cost, n, x, row4col, v0,
                                  np.int64(per_arc) * (E.nnz + n) + 1024)
    return st, u


def _int_duals(E: sp.csr_array, x: np.ndarray, cost: np.ndarray, v0: np.ndarray) -> np.ndarray | None:
    """Exact integer row duals of E's perfect matching ``x`` on ``cost`` by the label-correcting pass from ``v0``
    (lowered in place: the column duals); None when the pass does not prove ``x`` (a negative cycle, or its
    scan budget ran out)."""
    st, u = _label_correcting(E, x, cost, v0, 64)
    return u if st == OK else None


def _float_duals(E: sp.csr_array, x: np.ndarray, starts: list, u0: np.ndarray | None, stats: dict
                 ) -> tuple[np.ndarray, np.ndarray, bool]:
    """Float duals of the perfect matching ``x`` of E on its TRUE costs (never shifted: a shift by the least entry
    would put its magnitude into every dual): the label-correcting pass from each column start in ``starts`` in
    turn (the first without a negative cycle gives tight duals, ``float_proved``; a start of zeros gives the
    largest duals <= 0, bounded by the assigned entries), else ``u0`` (or the pass's) with the columns' largest
    feasible ``v``; ``gap_bound`` / ``gap_tol`` / ``exact`` in ``stats`` (:func:`_gap_stats`) and, returned,
    whether the verifier accepts it."""
    n = E.shape[0]
    for v0 in starts:
        vf = np.array(v0, dtype=np.float64)
        st, uf = _label_correcting(E, x, E.data, vf, 16)
        if st == OK:
            break
    stats["float_proved"] = st == OK
    if st != OK:
        uf = u0 if u0 is not None else uf
        vf = np.full(n, np.inf)
        rows = np.repeat(np.arange(n), np.diff(E.indptr))
        np.minimum.at(vf, E.indices, E.data - uf[rows])
    return uf, vf, _gap_stats(E, x, uf, vf, stats)


def _gap_stats(E: sp.csr_array, x: np.ndarray, U: np.ndarray, V: np.ndarray, stats: dict) -> bool:
    """:func:`float_certificate` of duals U, V for E's perfect matching ``x`` into ``stats`` (``gap_bound``,
    ``gap_tol``, ``exact``); True when :func:`verify_sparse_assignment` accepts them."""
    gap, tol, exact = float_certificate(E, x, U, V)
    stats.update(gap_bound=gap, gap_tol=tol, exact=exact)
    return _float_accepted(stats)


def _float_accepted(stats: dict) -> bool:
    """Whether the float gap bound in ``stats`` is one :func:`verify_sparse_assignment` accepts."""
    return stats["exact"] or (stats["gap_bound"] <= stats["gap_tol"] and math.isfinite(stats["gap_tol"]))


def float_certificate(E: sp.csr_array, x: np.ndarray, U, V) -> tuple[float, float, bool]:
    """``(gap_bound, tol, exact)`` of float duals U, V for the perfect matching ``x`` of the square E (the sound
    float rule): the dense path's rigorous bound (:func:`float_gap_bound` over the stored entries) on E times
    ``2**k``, an exact scaling that lifts entries below 1/2 (subnormal ones included) so that the bound's absolute
    rounding terms cannot hide them; the duals are scaled too (any duals give a rigorous bound; not centred:
    the tolerance does not grow with them, and a shift only adds rounding).
    ``tol`` (:func:`_tolerance`) comes from the assigned entries, the rows' least entries and the duals on the
    assigned pairs CAPPED at what optimal duals need: inflated duals cannot cover a wrong answer. ``exact``: the bound is below the entries'
    granularity (the cost is the optimum). Bound and tolerance are reported on the caller's scale (times
    ``2**-k``); non-finite duals give an infinite bound."""
    n = E.shape[0]
    m = float(np.abs(E.data).max(initial=0.0))
    k = -math.frexp(m)[1] if 0.0 < m < 0.5 else 0  # max |entry| * 2**k in [1/2, 1): exact, never overflows
    with np.errstate(all="ignore"):
        Es = sp.csr_array((np.ldexp(E.data, k), E.indices, E.indptr), shape=E.shape)
        Us = np.ldexp(np.asarray(U, dtype=np.float64), k)
        Vs = np.ldexp(np.asarray(V, dtype=np.float64), k)
    if not (np.isfinite(Us).all() and np.isfinite(Vs).all()):
        return math.inf, 0.0, False
    gap, _, _, _, _, parts = float_gap_bound(Es, 1, np.arange(n), x, Us, Vs)
    tol = _tolerance(Es, x, Us, Vs, parts["tol_entries"])
    exact = bool(gap < granularity(Es))
    return math.ldexp(gap, -k) if math.isfinite(gap) else math.inf, math.ldexp(tol, -k), exact


def verify_sparse_assignment(C, res: AssignmentResult, raise_on_error: bool = True) -> list[str]:
    """Check a sparse :class:`AssignmentResult` on C: a valid matching on stored entries and the
    extended duals ``stats['U'], stats['V']`` feasible and tight (exactly for integers; floats within
    ``stats['gap_bound']``). Returns the list of problems (empty: proved optimal).

    Examples
    --------
    Stored entries are the allowed pairs (here row 0 may take column 1 only):

    >>> from scipy.sparse import csr_array
    >>> import matchflow
    >>> C = csr_array(([7, 1, 2, 3], ([0, 1, 1, 2], [1, 0, 2, 2])), shape=(3, 3))
    >>> res = matchflow.assignment(C, backend="cpu")
    >>> res.col_ind.tolist(), res.cost, matchflow.verify.verify_sparse_assignment(C, res)  # [] : proved optimal
    ([1, 0, 2], 11, [])
    """
    A = as_sparse_cost(_from_device(C)[0], res.maximize)
    partial = bool(res.stats.get("partial", False))
    E, tr, _, _ = extended(A, partial)
    problems: list[str] = []
    r, c = _on_host(res.row_ind).astype(np.int64), _on_host(res.col_ind).astype(np.int64)
    if len(set(r.tolist())) != r.size or len(set(c.tolist())) != c.size:
        problems.append("a row or column is assigned twice")
    nr, nc = A.shape
    if not problems and r.size and (r.min() < 0 or r.max() >= nr or c.min() < 0 or c.max() >= nc):
        problems.append("an index is out of range")
    if not problems and r.size and (A[r, c] == 0).any() and not _stored(A, r, c).all():
        problems.append("an assigned pair is not a stored entry")
    if not partial and not problems and r.size != min(nr, nc):
        problems.append(f"{r.size} pairs assigned, a full matching has {min(nr, nc)}")
    U, V = res.stats.get("U"), res.stats.get("V")
    if U is None or V is None or len(U) != E.shape[0] or len(V) != E.shape[0]:
        problems.append("no extended duals of the right size in stats")
    if not problems:
        U, V = np.asarray(U), np.asarray(V)
        is_int = E.dtype.kind == "i" and _integral(U) and _integral(V)
        x = _perfect_extension(E, A, r, c, tr, partial)
        pos = _matched_positions(E, x)
        if (pos >= E.nnz).any() or not (E.indices[np.minimum(pos, E.nnz - 1)] == x).all():
            problems.append("the matching does not extend to a perfect matching of the extended problem")
        elif is_int:
            red = exact_reduced_costs(E, U, V)
            if red.min(initial=0) < 0:
                problems.append(f"a reduced cost is negative: {red.min()}")
            if (red[pos] != 0).any():
                problems.append("an assigned pair is not tight")
        else:
            # the sound float rule (:func:`float_certificate`): the rigorous bound on cost - optimum within the
            # rounding tolerance of the assigned entries, or below the entries' granularity (exactly optimal)
            gap, tol, exact = float_certificate(E, x, U, V)
            if not (gap <= tol and math.isfinite(tol)) and not exact:
                problems.append(f"the duals leave a gap bound of {gap} (rounding tolerance {tol} of the assigned "
                                "entries)")
    if problems and raise_on_error:
        raise ValueError("assignment certificate failed: " + "; ".join(problems))
    return problems


def _tolerance(E: sp.csr_array, x: np.ndarray, U: np.ndarray, V: np.ndarray, tol_entries: float) -> float:
    """The float certificate's tolerance: ``tol_entries`` (the rounding of the assigned entries, dense path) plus
    ``(n + 4) * REL * sum_i (|min_j c(i,j)| + 2 min(|u_i| + |v_x(i)|, cap))``, where ``cap = max |c(i,x(i))| + 2R``,
    ``R = sum_i (c(i,x(i)) - min_j c(i,j))``: an optimal x has duals with ``-R <= v <= 0`` (the largest ones
    <= 0 are shortest alternating paths, each row's step >= its least entry minus its assigned one), so
    ``|u_i| + |v_j| <= cap``; larger duals add no tolerance. Infinite when a sum overflows (then nothing passes)."""
    n = E.shape[0]
    if not n:
        return tol_entries
    ca = E.data[_matched_positions(E, x)]
    rowmin = np.minimum.reduceat(E.data, E.indptr[:-1])  # every row of E holds an entry (x is perfect)
    with np.errstate(all="ignore"):
        try:
            cap = float(np.abs(ca).max()) + 2.0 * math.fsum(np.maximum(ca - rowmin, 0.0).tolist()) * (1 + 2.0**-40)
            duals = np.minimum(np.abs(U) + np.abs(V[x]), cap)
            allow = (n + 4) * _REL * math.fsum((np.abs(rowmin) + 2.0 * duals).tolist()) * (1 + 2.0**-40)
        except OverflowError:
            return math.inf
    return tol_entries + allow if math.isfinite(allow) else math.inf


def _integral(a: np.ndarray) -> bool:
    return a.dtype.kind in "iu" or (a.dtype == object and all(isinstance(t, (int, np.integer)) for t in a.tolist()))


def exact_reduced_costs(E: sp.csr_array, U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """The reduced costs ``E - U - V`` of integer duals over E's stored entries, exactly: int64 where no term can
    wrap (every magnitude below 2**61), else Python integers (an object array)."""
    rows = np.repeat(np.arange(E.shape[0]), np.diff(E.indptr))
    small = all(a.dtype.kind == "i" and (not a.size or max(-int(a.min()), int(a.max())) < 2**61) for a in (E.data, U, V))
    if small:
        return E.data - U[rows] - V[E.indices]
    obj = [np.array([int(t) for t in a.tolist()], dtype=object) for a in (E.data, U, V)]
    return obj[0] - obj[1][rows] - obj[2][E.indices]


def _stored(A, r, c) -> np.ndarray:
    out = np.zeros(r.size, dtype=bool)
    for t, (i, j) in enumerate(zip(r.tolist(), c.tolist(), strict=True)):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        out[t] = j in A.indices[lo:hi]
    return out


def _matched_positions(E: sp.csr_array, col4row: np.ndarray) -> np.ndarray:
    rows = np.repeat(np.arange(E.shape[0]), np.diff(E.indptr))
    key = rows * E.shape[1] + E.indices
    return np.searchsorted(key, np.arange(E.shape[0]) * E.shape[1] + col4row)
