"""The sparse assignment problem (issue 12): the user's scipy.sparse costs as canonical CSR (a device-resident
matrix copied to the host once) and the square *extended* problem that :mod:`._cpu_cost_scaling` / :mod:`._cpu_sparse_ssp` solve and
:mod:`._verify_sparse` checks.

Stored entries are the allowed pairs (explicit zeros are zero-cost arcs; ``+inf`` entries are
dropped, ``-inf`` with ``maximize``); NaN raises. Rectangular and ``partial=True`` problems are
solved on the square *extended* problem of size ``n_rows + n_cols`` (row ``i`` -> its dummy column
with cost ``D_row``, dummy row of column ``j`` -> ``j`` with cost ``D_col``, dummy row ``j`` -> dummy
column ``i`` at cost 0 for every arc ``(i, j)``): full mode with ``n_rows <= n_cols`` has no row
dummies and ``D_col = 0`` (transposed otherwise); ``partial=True`` has ``D_row = D_col = M =
range * min(shape) + 1``, so a perfect extended matching of least cost is a maximum-cardinality
matching of least cost among those. The extended duals are the certificate
(:func:`._verify_sparse.verify_sparse_assignment` rebuilds the extended problem and checks them; exact
for integers).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._cuda import device_library, host_copy, is_device_array, is_device_sparse
from ..matching import maximum_bipartite_matching

__all__ = ["as_sparse_cost", "extended", "is_device_sparse", "shifted_integer_costs", "DEVICE_FALLBACK", "SparseProblem"]

_LIMIT = 2**59  # scaled cost * 4(n+1) bounds the price drop of all phases (prices > -2**60)
# Why a device-resident sparse input is copied to the host once (stats["device_fallback"]): the solve's
# exact certificate (label-correcting duals) and the CPU tail of each phase read the matrix on the host.
DEVICE_FALLBACK = ("host copy: the exact-dual certificate and the CPU tail of each phase read the matrix on the "
                   "host (the extended problem, feasibility and scaling too)")


def _from_device(C: Any) -> tuple[sp.csr_array, str | None, float]:
    """``(host CSR, the input's library or None, seconds of the copy)``: a device-resident sparse C is copied to
    the host once (duplicates of a COO are summed there, as SciPy does); a host one is returned as it is."""
    if not is_device_sparse(C):
        return C, None, 0.0
    t = time.perf_counter()
    H = sp.csr_array(host_copy(C))
    return H, device_library(C), time.perf_counter() - t


def _on_host(a: Any) -> np.ndarray:
    """A result array (NumPy, or CuPy / PyTorch / numba on the device) as a NumPy array."""
    if isinstance(a, np.ndarray) or not (is_device_array(a) or type(a).__module__.startswith(("cupy", "torch"))):
        return np.asarray(a)
    return np.asarray(host_copy(a))


def as_sparse_cost(C, maximize: bool = False) -> sp.csr_array:
    """Canonical CSR (duplicates summed, indices sorted) of the user's costs in the minimisation
    sense; ``+inf`` entries dropped; NaN (or ``-inf``) raises naming the value."""
    if not sp.issparse(C):
        raise TypeError(f"C must be a scipy.sparse matrix or array, got {type(C).__name__}")
    if C.ndim != 2:
        raise ValueError(f"expected a matrix (2-D array), got a {C.ndim} array")
    A = sp.csr_array(C, copy=True)
    A.sum_duplicates()
    A.sort_indices()
    kind = A.dtype.kind
    if kind == "b":
        A = A.astype(np.int64)
    elif kind in "iu":
        if kind == "u" and A.nnz and int(A.data.max()) > np.iinfo(np.int64).max:
            raise ValueError(f"cost entry {int(A.data.max())} does not fit in int64")
        A = A.astype(np.int64)
    elif kind == "f":
        A = A.astype(np.float64)
        if np.isnan(A.data).any():
            raise ValueError("matrix contains invalid numeric entries: NaN")
    else:
        raise TypeError(f"C must have a real dtype (bool, integer or float), got {A.dtype}")
    if maximize:
        if A.dtype.kind == "i" and A.nnz and int(A.data.min()) == np.iinfo(np.int64).min:
            raise ValueError(f"cost entry {np.iinfo(np.int64).min} cannot be negated in int64 for maximize=True")
        A.data = -A.data
    if kind == "f":
        if np.isneginf(A.data).any():
            raise ValueError("matrix contains invalid numeric entries: " + ("+inf with maximize=True" if maximize
                                                                            else "-inf"))
        keep = np.isfinite(A.data)
        if not keep.all():
            A = sp.csr_array((A.data[keep], A.indices[keep], np.r_[0, np.cumsum(keep)][A.indptr]), shape=A.shape)
    return A


def extended(A: sp.csr_array, partial: bool) -> tuple[sp.csr_array, bool, float, float]:
    """The square problem actually solved (module docstring). Returns (E, transposed, dummy cost, shift):
    with ``partial`` the original arcs of E cost ``C - shift``."""
    nr, nc = A.shape
    tr = False
    if not partial and nr > nc:
        A, tr = A.T.tocsr(), True
        A.sort_indices()
        nr, nc = nc, nr
    if not partial and nr == nc:
        return A, tr, 0, 0
    lo = A.data.min() if A.nnz else 0
    big = 0
    if partial:
        if A.dtype.kind == "i":  # exact Python integers: a wrapped big M would be a wrong answer, not an error
            lo = int(lo)
            big = ((int(A.data.max()) - lo) if A.nnz else 0) * min(nr, nc) + 1
            if big >= 2**62:  # E's costs must fit int64 (the exact solve beyond the int64 solvers needs it too)
                raise OverflowError(f"integer cost range {big // max(min(nr, nc), 1)} times {min(nr, nc)} (partial=True's "
                                    "dummy cost) overflows int64; sparse partial=True refuses it")
        else:
            big = ((A.data.max() - lo) if A.nnz else 0) * min(nr, nc) + 1
    if partial:
        A = A.copy()
        A.data = A.data - lo  # >= 0, so M outweighs any cost change of a fixed cardinality
    At = A.T.tocoo()
    ri = [A.tocoo().row, np.arange(nc) + nr, At.row + nr]
    ci = [A.tocoo().col, np.arange(nc), At.col + nc]
    dv = [A.tocoo().data, np.full(nc, big, dtype=A.dtype), np.zeros(A.nnz, dtype=A.dtype)]
    if partial:
        ri.append(np.arange(nr))
        ci.append(np.arange(nr) + nc)
        dv.append(np.full(nr, big, dtype=A.dtype))
    N = nr + nc
    E = sp.csr_array((np.concatenate(dv), (np.concatenate(ri), np.concatenate(ci))), shape=(N, N))
    E.sum_duplicates()
    E.sort_indices()
    return E, tr, big, lo if partial else 0


def _feasible(E: sp.csr_array) -> bool:
    """Whether the square E has a perfect matching (:func:`_max_matching`)."""
    return E.shape[0] == 0 or bool((_max_matching(E) >= 0).all())


def _max_matching(A: sp.csr_array) -> np.ndarray:
    """A maximum matching by the matching family (its Hopcroft-Karp with the PF+ finish; SciPy's matcher is
    exponential on the Hopcroft-Karp ladder, :func:`matchflow.generators.hk_ladder`): each row's column or -1."""
    if min(A.shape) == 0:
        return np.full(A.shape[0], -1, dtype=np.int64)
    S = sp.csr_array((np.ones(A.nnz, dtype=np.int8), A.indices, A.indptr), shape=A.shape)
    return maximum_bipartite_matching(S, perm_type="column").astype(np.int64)


def shifted_integer_costs(E: sp.csr_array) -> tuple[np.ndarray, Any]:
    """The square problem's integer costs shifted to >= 0 (int64) and the shift (the smallest cost);
    OverflowError when the range times 4 (n+1)^2 (the scaled prices of every phase) reaches int64's bound."""
    n = E.shape[0]
    lo = E.data.min() if E.nnz else 0
    rng = (int(E.data.max()) - int(lo)) if E.nnz else 0  # Python ints: the int64 difference could wrap
    if rng * (n + 1) * 4 * (n + 1) >= _LIMIT:
        raise OverflowError(f"integer cost range {rng} times (n+1)^2 with n={n} overflows int64; "
                            "the cost-scaling solver refuses it (dense costs: method='jv' is the exact big-integer path)")
    return (E.data - lo).astype(np.int64), lo


def _perfect_extension(E, A, r, c, tr, partial) -> np.ndarray:
    """The extended problem's perfect matching that the (original) matching r, c determines."""
    if tr:
        r, c = c, r
    nr, nc = (A.shape[1], A.shape[0]) if tr else A.shape
    if E.shape == (nr, nc):
        x = np.full(nr, -1, dtype=np.int64)
        x[r] = c
        return x
    x = np.full(nr + nc, -1, dtype=np.int64)
    x[r] = c
    free_r, free_c = np.ones(nr, dtype=bool), np.ones(nc, dtype=bool)
    free_r[r] = False
    free_c[c] = False
    free_r, free_c = np.flatnonzero(free_r), np.flatnonzero(free_c)
    x[free_r] = free_r + nc
    x[free_c + nr] = free_c
    x[c + nr] = r + nc
    return x


@dataclass
class SparseProblem:
    """What the sparse rows solve and their placement rules read (:data:`._methods.SPARSE_TABLE`): the caller's
    host matrix ``C`` (``lib``: the library of a device input copied once, ``t_copy`` seconds), its canonical CSR
    ``A``, and the square extended problem ``E`` (``tr``: transposed, ``big``: the dummy cost, ``shift``).
    ``partial`` holds only when no full matching exists (``col4row``: a maximum matching); ``options``: the names
    the caller gave (the rules read them)."""

    C: Any
    A: sp.csr_array
    E: sp.csr_array
    tr: bool
    big: Any
    shift: Any
    partial: bool
    col4row: np.ndarray | None
    options: tuple = ()
    lib: str | None = None
    t_copy: float = 0.0

    @classmethod
    def of(cls, C, maximize: bool, partial: bool, options=()) -> SparseProblem:
        C, lib, t_copy = _from_device(C)
        A = as_sparse_cost(C, maximize)
        col4row = _max_matching(A) if partial else None
        if partial and int((col4row >= 0).sum()) == min(A.shape):
            partial = False  # the smaller side can be matched in full: no big-M costs needed (stats say so)
        E, tr, big, shift = extended(A, partial)
        return cls(C, A, E, tr, big, shift, partial, col4row, tuple(options), lib, t_copy)

    @property
    def nnz(self) -> int:
        return self.A.nnz

    @property
    def is_extended(self) -> bool:
        return self.E.shape != self.A.shape


def add_exact(u: np.ndarray, lo) -> np.ndarray:
    """``u + lo`` for integer duals without wrapping: int64 where it fits, else Python integers (an object array)."""
    if u.dtype.kind != "i" or not u.size or max(-int(u.min()), int(u.max())) + abs(int(lo)) < 2**62:
        return u + lo
    return np.array([int(t) + int(lo) for t in u.tolist()], dtype=object)
