"""The certificate of a sparse assignment: the extended problem's duals (:mod:`._sparse_problem`) for a perfect
matching, by the label-correcting pass (``exact_duals_kernel``: exact for integers; for floats the pass's duals,
or the columns' largest feasible ones, with the dense path's rigorous gap bound), and the checker
:func:`verify_sparse_assignment` (re-exported by :mod:`matchflow.verify`).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .._results import AssignmentResult
from ._cpu_cost_scaling import OK, exact_duals_kernel
from ._sparse_problem import _from_device, _on_host, _perfect_extension, as_sparse_cost, extended
from ._verify import float_gap_bound, granularity

__all__ = ["verify_sparse_assignment"]


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


def _float_duals(E: sp.csr_array, x: np.ndarray, shifted: np.ndarray, lo: float, v0: np.ndarray,
                 u0: np.ndarray | None, stats: dict) -> tuple[np.ndarray, np.ndarray, bool]:
    """Float duals of the perfect matching ``x`` of E on the TRUE costs: the label-correcting pass from ``v0``
    (no negative cycle: tight duals, ``float_proved``; ``v0`` is lowered in place), else ``u0`` (or the pass's)
    with the columns' largest feasible ``v``; ``gap_bound`` / ``gap_tol`` / ``exact`` in ``stats`` (the rigorous
    bound of the dense path, :func:`_gap_stats`) and, returned, whether the verifier accepts it."""
    n = E.shape[0]
    st, uf = _label_correcting(E, x, shifted, v0, 16)
    stats["float_proved"] = st == OK
    vf = v0
    if st == OK:
        uf = uf + lo
    else:
        uf = (u0 if u0 is not None else uf) + lo
        vf = np.full(n, np.inf)
        rows = np.repeat(np.arange(n), np.diff(E.indptr))
        np.minimum.at(vf, E.indices, E.data - uf[rows])
    return uf, vf, _gap_stats(E, x, uf, vf, stats)


def _gap_stats(E: sp.csr_array, x: np.ndarray, U: np.ndarray, V: np.ndarray, stats: dict) -> bool:
    """The rigorous float gap bound (directed rounding, as dense) of duals U, V for E's perfect matching ``x``:
    ``gap_bound`` / ``gap_tol`` / ``exact`` in ``stats``; True when :func:`verify_sparse_assignment` accepts them."""
    gap, tol = float_gap_bound(E, 1, np.arange(E.shape[0]), x, U, V)[:2]
    stats.update(gap_bound=gap, gap_tol=tol, exact=bool(gap < granularity(E)))
    return _float_accepted(stats)


def _float_accepted(stats: dict) -> bool:
    """Whether the float gap bound in ``stats`` is one :func:`verify_sparse_assignment` accepts."""
    return stats["exact"] or (stats["gap_bound"] <= stats["gap_tol"] and math.isfinite(stats["gap_tol"]))


def verify_sparse_assignment(C, res: AssignmentResult, raise_on_error: bool = True) -> list[str]:
    """Check a sparse :class:`AssignmentResult` on C: a valid matching on stored entries and the
    extended duals ``stats['U'], stats['V']`` feasible and tight (exactly for integers; floats within
    ``stats['gap_bound']``). Returns the list of problems (empty: proved optimal).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from matchflow import assignment
    >>> from matchflow.verify import verify_sparse_assignment
    >>> C = sp.csr_array(np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]]))
    >>> verify_sparse_assignment(C, assignment(C, backend="cpu"))  # no problems: proved optimal
    []
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
        n = E.shape[0]
        rows = np.repeat(np.arange(n), np.diff(E.indptr))
        red = E.data - U[rows] - V[E.indices]
        is_int = E.dtype.kind == "i" and np.asarray(U).dtype.kind == "i"
        x = _perfect_extension(E, A, r, c, tr, partial)
        pos = _matched_positions(E, x)
        if (pos >= E.nnz).any() or not (E.indices[np.minimum(pos, E.nnz - 1)] == x).all():
            problems.append("the matching does not extend to a perfect matching of the extended problem")
        elif is_int:
            if red.min(initial=0) < 0:
                problems.append(f"a reduced cost is negative: {red.min()}")
            if (red[pos] != 0).any():
                problems.append("an assigned pair is not tight")
        else:
            # the dense certificate's rigorous bound on cost - optimum over the stored entries (directed
            # rounding): proved when it is within the rounding tolerance of the entries and duals used, or
            # below the entries' granularity (then the cost is exactly optimal)
            gap, tol = float_gap_bound(E, 1, np.arange(n), x, np.asarray(U, dtype=np.float64),
                                       np.asarray(V, dtype=np.float64))[:2]
            if not (gap <= tol and math.isfinite(tol)) and not gap < granularity(E):
                problems.append(f"the duals leave a gap bound of {gap} (rounding tolerance {tol})")
    if problems and raise_on_error:
        raise ValueError("assignment certificate failed: " + "; ".join(problems))
    return problems


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
