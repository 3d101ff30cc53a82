"""The sparse door of the assignment family (issue 12): scipy.sparse cost matrices, solved by cost
scaling (:mod:`._cpu_cost_scaling`) or, on the CPU for rectangular full mode and ``partial=True`` without a
full matching, by shortest augmenting paths (:mod:`._cpu_sparse_ssp`; the same certificate).

Stored entries are the allowed pairs (explicit zeros are zero-cost arcs; ``+inf`` entries are
dropped, ``-inf`` with ``maximize``); NaN raises. Rectangular and ``partial=True`` problems are
solved on the square *extended* problem of size ``n_rows + n_cols`` (row ``i`` -> its dummy column
with cost ``D_row``, dummy row of column ``j`` -> ``j`` with cost ``D_col``, dummy row ``j`` -> dummy
column ``i`` at cost 0 for every arc ``(i, j)``): full mode with ``n_rows <= n_cols`` has no row
dummies and ``D_col = 0`` (transposed otherwise); ``partial=True`` has ``D_row = D_col = M =
range * min(shape) + 1``, so a perfect extended matching of least cost is a maximum-cardinality
matching of least cost among those. The extended duals are the certificate
(:func:`verify_sparse_assignment` rebuilds the extended problem and checks them; exact for integers).
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._methods import mark_gpu_warm
from .._results import AssignmentResult
from ..matching._cover import konig_cover_kernel
from ._cpu_cost_scaling import BUDGET, NO_PERFECT, OK, cost_scaling_solve, exact_duals_kernel
from ._cpu_sparse_ssp import OK as SSP_OK
from ._cpu_sparse_ssp import ssp_solve
from ._prepare import InfeasibleError
from ._verify import float_gap_bound, granularity

__all__ = ["as_sparse_cost", "sparse_assignment", "verify_sparse_assignment", "min_weight_full_bipartite_matching",
           "is_device_sparse"]

_LIMIT = 2**59  # scaled cost * 4(n+1) bounds the price drop of all phases (prices > -2**60)
# Why a device-resident sparse input is copied to the host once (stats["device_fallback"]): the solve's
# exact certificate (label-correcting duals) and the CPU tail of each phase read the matrix on the host.
DEVICE_FALLBACK = ("host copy: the exact-dual certificate and the CPU tail of each phase read the matrix on the "
                   "host (the extended problem, feasibility and scaling too)")


def is_device_sparse(C: Any) -> bool:
    """A sparse matrix in GPU memory: a CuPy sparse matrix (``cupyx.scipy.sparse``) or a PyTorch sparse CUDA
    tensor (CSR, CSC or COO). Imports nothing."""
    mod = type(C).__module__
    if mod.startswith("cupyx") and hasattr(C, "format"):
        return True
    return mod.startswith("torch") and bool(getattr(C, "is_cuda", False)) and \
        str(getattr(C, "layout", "torch.strided")) != "torch.strided"


def _from_device(C: Any) -> tuple[sp.csr_array, str | None, float]:
    """``(host CSR, the input's library or None, seconds of the copy)``: a device-resident sparse C is copied to
    the host once (duplicates of a COO are summed there, as SciPy does); a host one is returned as it is."""
    if not is_device_sparse(C):
        return C, None, 0.0
    from .._cuda._graph import _library
    from ..wmatching._gpu_graph import host_copy

    t = time.perf_counter()
    H = sp.csr_array(host_copy(C))
    return H, _library(C), time.perf_counter() - t


def _on_host(a: Any) -> np.ndarray:
    """A result array (NumPy, or CuPy / PyTorch / numba on the device) as a NumPy array."""
    from .._cuda import is_device_array

    if isinstance(a, np.ndarray) or not (is_device_array(a) or type(a).__module__.startswith(("cupy", "torch"))):
        return np.asarray(a)
    from ..wmatching._gpu_graph import host_copy

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
            if big >= _LIMIT:
                raise OverflowError(f"integer cost range {big // max(min(nr, nc), 1)} times {min(nr, nc)} (partial=True's "
                                    "dummy cost) overflows int64; the cost-scaling solver refuses it")
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
    from scipy.sparse.csgraph import maximum_bipartite_matching

    if E.shape[0] == 0:
        return True
    S = sp.csr_array((np.ones(E.nnz, dtype=np.int8), E.indices, E.indptr), shape=E.shape)
    return bool((maximum_bipartite_matching(S, perm_type="column") >= 0).all())


def _max_matching(A: sp.csr_array) -> np.ndarray:
    """A maximum matching (Hopcroft-Karp, SciPy): each row's column or -1."""
    from scipy.sparse.csgraph import maximum_bipartite_matching

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
        return x, u + lo, v, stats
    # floats: the matching solves the rounded costs exactly; prove it on the true costs
    stats["scale"] = float(scale)
    uf, vf, _ = _float_duals(E, x, shifted, lo, v.astype(np.float64) / scale, u.astype(np.float64) / scale, stats)
    return x, uf, vf, stats


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
        loE = E.data.min() if E.nnz else 0.0
        uf, vf, proved = _float_duals(E, x, E.data - loE, loE, v0, None, stats)
        return (x, uf, vf, stats) if proved else None  # what the verifier accepts
    ic, loE = shifted_integer_costs(E)
    st, u = _label_correcting(E, x, ic, v0, 64)
    return (x, u + loE, v0, stats) if st == OK else None


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
        loE = E.data.min()
        uf, vf, proved = _float_duals(E, x, E.data - loE, loE, v0, None, stats)
        return (x, uf, vf, stats) if proved else None
    st, u = _label_correcting(E, x, E.data, v0, 64)
    return (x, u, v0, stats) if st == OK else None


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


def _matched_positions(E: sp.csr_array, col4row: np.ndarray) -> np.ndarray:
    rows = np.repeat(np.arange(E.shape[0]), np.diff(E.indptr))
    key = rows * E.shape[1] + E.indices
    return np.searchsorted(key, np.arange(E.shape[0]) * E.shape[1] + col4row)


# backend="auto" for sparse costs (H100 host, results/cost_scaling/gpu-h100-2026-11-23e.md, public call from host
# arrays vs the CPU twin on the same host): the GPU is faster end to end from 2M arcs (random n = 1e5, 2.1M arcs:
# 0.53 vs 0.61 s and 0.90 vs 0.95 s; kNN n = 1e6, 10M arcs: 1.83 vs 2.42 s; random n = 1e6, 21M arcs: 11.5 vs
# 16.2 s) and slower below (n = 1e4, 0.2M arcs: 0.071 vs 0.048 s). But a GPU call in a fresh process first pays
# the CUDA context and the kernel-cache load (~1 s, results/gpu_e2e/first-call-h100-2026-11-23b.md), and auto must
# not cost more than the CPU including that: the savings exceed it only on the 21M-arc input (4.7 s; 0.08 s at
# 2.1M arcs, 0.6 s at 10M), so the GPU from 20M arcs. Only without options (CPU and GPU options differ) and on a
# real GPU.
AUTO_GPU_NNZ = 20_000_000


def _auto_backend(A: sp.csr_array, options: dict) -> tuple[str, str]:
    """``(backend, the rule's words)`` for ``backend="auto"``: see :data:`AUTO_GPU_NNZ`."""
    from .._methods import _auto_may_use_gpu

    if options:
        return "cpu", "options given: the CPU (give backend='gpu' for GPU options)"
    if A.nnz < AUTO_GPU_NNZ:
        return "cpu", f"nnz {A.nnz} < {AUTO_GPU_NNZ}: the CPU twin is faster"
    if not _auto_may_use_gpu():
        return "cpu", "no GPU"
    return "gpu", f"nnz {A.nnz} >= {AUTO_GPU_NNZ} and a GPU: the GPU is faster end to end"


CPU_OPTIONS = ("price_update", "update_every", "arc_fixing")


def cpu_solver(options: dict):
    """:func:`cost_scaling_solve` with the caller's CPU heuristics (``price_update``: Alg. 5.3 every
    ``update_every * n`` pushes; ``arc_fixing``: Section 5.2; both off by default, see the module)."""
    bad = sorted(set(options) - set(CPU_OPTIONS))
    if bad:
        raise ValueError(f"sparse costs on the CPU take the options {list(CPU_OPTIONS)}, got {bad}")
    for k in ("price_update", "arc_fixing"):
        if k in options and not isinstance(options[k], (bool, np.bool_)):
            raise ValueError(f"{k} must be True or False, got {options[k]!r}")
    if "update_every" in options:
        u = options["update_every"]
        if isinstance(u, (bool, np.bool_)) or not isinstance(u, (int, float, np.integer, np.floating)) or not u > 0:
            raise ValueError(f"update_every must be a number > 0, got {u!r}")
    return functools.partial(cost_scaling_solve, **options) if options else cost_scaling_solve


def gpu_solver(options: dict):
    """The GPU twin of :func:`cost_scaling_solve` with the caller's GPU options (validated here, before
    any work; needs no GPU)."""
    from ._gpu_cost_scaling import cost_scaling_gpu_solve, validate_cost_scaling_gpu_options

    validate_cost_scaling_gpu_options(**options)
    return functools.partial(cost_scaling_gpu_solve, **options)


def sparse_assignment(C, *, maximize: bool = False, partial: bool = False, t0: float | None = None,
                      backend: str = "cpu", options: dict | None = None, method: str = "auto") -> AssignmentResult:
    """Optimal assignment of sparse C by cost scaling or shortest augmenting paths (``method="jv"``; what
    ``"auto"`` runs on the CPU for rectangular inputs and for ``partial`` without a full matching; see
    :func:`matchflow.assignment`); ``backend``
    "cpu" (the Numba twin), "gpu" (Łupińska's lock-free refine, GPU ``options``) or "auto" (the GPU from
    :data:`AUTO_GPU_NNZ` arcs on a real GPU without options, else the CPU; ``stats["auto_rule"]``). A device-resident C (CuPy
    sparse, PyTorch sparse CUDA; :func:`is_device_sparse`) is copied to the host once (the certificate and the
    CPU tail read it there: ``stats["device_fallback"]``) and ``row_ind``, ``col_ind``, ``u``, ``v`` come back
    on the device in its library (``stats["input_library"]``; ``stats["U"], stats["V"]`` stay NumPy)."""
    t0 = time.perf_counter() if t0 is None else t0
    C, lib, t_copy = _from_device(C)
    A = as_sparse_cost(C, maximize)
    rule = None
    if method == "jv":
        backend = "cpu"  # shortest augmenting paths have no GPU twin
    if backend == "auto":
        backend, rule = _auto_backend(A, options or {})
    if backend == "gpu":
        mark_gpu_warm()
    solve = gpu_solver(options or {}) if backend == "gpu" else cpu_solver(options or {})
    nr, nc = A.shape
    col4row = _max_matching(A) if partial else None
    if partial and int((col4row >= 0).sum()) == min(nr, nc):
        partial = False  # the smaller side can be matched in full: no big-M costs needed (stats say so)
    E, tr, big, shift = extended(A, partial)
    # shortest augmenting paths (LAPJVsp's way) where they beat cost scaling on the square extension: method="jv",
    # and method="auto" on the CPU for rectangular inputs in full mode (Netlib FIT2P, 3000 x 13525, 50k arcs:
    # cost scaling 0.23-0.28 s, SciPy 0.026 s, shortest paths 0.0095 s on the 2-core machine)
    # and for partial=True without a full matching, square or not (the deficient part split off; public call warm,
    # 2-core machine: Netlib GREENBEA 2392 x 5405, 31k arcs: cost scaling 144-197 ms, shortest paths 16 ms; SNAP
    # as-caida, 26k square, 107k arcs, costs 1..1000: 2.4 s vs 0.067 s; dense square ones tie: ego-Facebook 0.50 vs
    # 0.49 s, astro-ph 2.2 vs 2.1 s; email-Enron's big M overflows cost scaling's prices, shortest paths 0.5 s)
    ssp = method == "jv" or (method == "auto" and backend == "cpu" and (partial or E.shape != A.shape)
                             and not options)
    def paths():
        return _solve_ssp_partial(A, E, big, col4row) if partial else _solve_ssp(A, E, tr)

    found = paths() if ssp else None
    x, U, V, stats = found if found is not None else _solve_square(E, known_feasible=partial, solve=solve)
    if found is None and E.dtype.kind == "f" and not _float_accepted(stats):
        # cost scaling solved the rounded costs, and the true costs do not prove its matching (a coarse rounding:
        # partial mode's big M sets the scale; Netlib GREENBEA |values|: 1e-4 above the optimum, bound 0.27):
        # shortest augmenting paths on the float costs themselves (unless they ran and were not proved already),
        # kept when proved; else a warning, never silence
        alt = None if ssp else paths()
        if alt is not None:
            found, (x, U, V, stats) = alt, alt
            stats["float_fallback"] = "jv"
        else:
            warnings.warn(f"the sparse float assignment could not be proved optimal (gap bound {stats['gap_bound']:.3g}"
                          f" > tolerance {stats['gap_tol']:.3g}): verify_sparse_assignment will reject it",
                          RuntimeWarning, stacklevel=3)
    m, k = (nc, nr) if tr else (nr, nc)
    rows = np.arange(m)
    cols = x[:m]
    keep = cols < k
    r, c = rows[keep], cols[keep]
    if tr:
        r, c = c, r
    order = np.argsort(r)
    r, c = r[order].astype(np.int64), c[order].astype(np.int64)
    u, v = (V[:nr], U[:nc]) if tr else (U[:nr] + shift, V[:nc])
    stats.update(n=E.shape[0], extended=E.shape != A.shape, transposed=tr, dummy_cost=big, U=U, V=V, partial=partial)
    if rule is not None:
        stats["auto_rule"] = rule
    data = sp.csr_array(C).tocsr()[r, c] if r.size else np.zeros(0)
    data = np.asarray(data).ravel()
    total = int(data.astype(object).sum()) if A.dtype.kind == "i" else float(data.sum())
    ran_on = stats.pop("ran_on", "cpu")  # the GPU solve says "cpu" when its answer came from the CPU twin
    if lib is not None:  # a device-resident input: the answer on the device, in the caller's library
        from ..wmatching._gpu_graph import to_library

        r, c, u, v = (to_library(lib, np.ascontiguousarray(a)) for a in (r, c, u, v))
        stats.update(input_library=lib, device_fallback=DEVICE_FALLBACK, seconds_input_copy=t_copy)
    return AssignmentResult(row_ind=r, col_ind=c, cost=total, u=u, v=v, method="jv" if found else "cost-scaling",
                            backend=ran_on,
                            seconds=time.perf_counter() - t0, maximize=maximize, stats=stats)


def verify_sparse_assignment(C, res: AssignmentResult, raise_on_error: bool = True) -> list[str]:
    """Check a sparse :class:`AssignmentResult` on C: a valid matching on stored entries and the
    extended duals ``stats['U'], stats['V']`` feasible and tight (exactly for integers; floats within
    ``stats['gap_bound']``). Returns the list of problems (empty: proved optimal)."""
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


def min_weight_full_bipartite_matching(biadjacency, maximize=False, *, backend: str = "cpu"
                                       ) -> tuple[np.ndarray, np.ndarray]:
    """Drop-in for ``scipy.sparse.csgraph.min_weight_full_bipartite_matching``: same arguments, same
    ``(row_ind, col_ind)`` (the smaller side's indices in order), same errors ("graph must be
    sparse", "no full matching exists") and SciPy's explicit-zero rule (removed, with its warning).
    Beyond SciPy: keyword-only ``backend`` ("cpu" or "gpu": the lock-free GPU refine), and a device-resident
    ``biadjacency`` (CuPy sparse, PyTorch sparse CUDA tensor): copied to the host once (:data:`DEVICE_FALLBACK`),
    the answer returned on the device in its library."""
    if backend not in ("cpu", "gpu"):
        raise ValueError(f"backend must be 'cpu' or 'gpu', got {backend!r}")
    if backend == "gpu":
        from .._backend import require_gpu

        require_gpu("min_weight_full_bipartite_matching(backend='gpu')")
    biadjacency, lib, _ = _from_device(biadjacency)
    if not sp.issparse(biadjacency):
        raise TypeError("graph must be sparse")
    A = sp.csr_array(biadjacency, copy=True)
    A.sum_duplicates()
    if A.nnz and (A.data == 0).any():
        warnings.warn("explicit zero weights are removed before matching", UserWarning, stacklevel=2)
        A.eliminate_zeros()
    try:
        res = sparse_assignment(A, maximize=bool(maximize), backend=backend)
    except InfeasibleError:
        raise ValueError("no full matching exists") from None
    nr, nc = A.shape
    ri, ci = _on_host(res.row_ind), _on_host(res.col_ind)
    if nr <= nc:
        out = np.arange(nr), ci.astype(np.int32)
    else:
        o = np.argsort(ci)
        out = ri[o].astype(np.int32), np.arange(nc)
    if lib is None:
        return out
    from ..wmatching._gpu_graph import to_library  # a device-resident input: the answer in its library

    return tuple(to_library(lib, np.ascontiguousarray(a)) for a in out)
