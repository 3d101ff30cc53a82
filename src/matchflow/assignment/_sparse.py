"""The sparse door of the assignment family (issue 12): scipy.sparse cost matrices, solved by cost
scaling (:mod:`._cpu_cost_scaling`) or, on the CPU for rectangular full mode and ``partial=True`` without a
full matching, by shortest augmenting paths (:mod:`._cpu_sparse_ssp`; the same certificate).

The modules: :mod:`._sparse_problem` (the canonical costs, a device input's host copy, the square extended
problem that rectangular and ``partial=True`` inputs are solved on), :mod:`._sparse_routes` (the cost-scaling
and shortest-path solves of it), :mod:`._sparse_certificate` (its duals, the float gap bound,
:func:`~._sparse_certificate.verify_sparse_assignment`); here: ``backend="auto"``, the solver options, the
route chosen, the result on the user's matrix and SciPy's drop-in :func:`min_weight_full_bipartite_matching`.
"""

from __future__ import annotations

import functools
import time
import warnings

import numpy as np
import scipy.sparse as sp

from .._methods import mark_gpu_warm
from .._results import AssignmentResult
from ._cpu_cost_scaling import cost_scaling_solve
from ._prepare import InfeasibleError
from ._sparse_bigint import ssp_exact
from ._sparse_certificate import _float_accepted
from ._sparse_problem import DEVICE_FALLBACK, _from_device, _max_matching, _on_host, as_sparse_cost, extended
from ._sparse_routes import _solve_square, _solve_ssp, _solve_ssp_partial, add_exact

__all__ = ["sparse_assignment", "min_weight_full_bipartite_matching"]


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
    :data:`AUTO_GPU_NNZ` arcs on a real GPU without options, else the CPU; ``stats["auto_rule"]``). A
    device-resident C (CuPy sparse, PyTorch sparse CUDA; :func:`._sparse_problem.is_device_sparse`) is copied to
    the host once (the certificate and the CPU tail read it there: ``stats["device_fallback"]``) and ``row_ind``,
    ``col_ind``, ``u``, ``v`` come back on the device in its library (``stats["input_library"]``; ``stats["U"],
    stats["V"]`` stay NumPy)."""
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

    try:
        found = paths() if ssp else None
        x, U, V, stats = found if found is not None else _solve_square(E, known_feasible=partial, solve=solve)
    except OverflowError:  # an integer range beyond the int64 solvers: exact shortest paths on Python integers
        if E.dtype.kind != "i":
            raise
        found = x, U, V, stats = ssp_exact(E)
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
    u, v = (V[:nr], U[:nc]) if tr else (add_exact(U[:nr], shift) if U.dtype.kind == "i" else U[:nr] + shift, V[:nc])
    stats.update(n=E.shape[0], extended=E.shape != A.shape, transposed=tr, dummy_cost=big, U=U, V=V, partial=partial)
    if rule is not None:
        stats["auto_rule"] = rule
    data = sp.csr_array(C).tocsr()[r, c] if r.size else np.zeros(0)
    data = np.asarray(data).ravel()
    total = int(data.astype(object).sum()) if A.dtype.kind == "i" else float(data.sum())
    ran_on = stats.pop("ran_on", "cpu")  # the GPU solve says "cpu" when its answer came from the CPU twin
    if lib is not None:  # a device-resident input: the answer on the device, in the caller's library
        from .._cuda import hand_back

        r, c, u, v = (hand_back(a, lib) for a in (r, c, u, v))
        stats.update(input_library=lib, device_fallback=DEVICE_FALLBACK, seconds_input_copy=t_copy)
    return AssignmentResult(row_ind=r, col_ind=c, cost=total, u=u, v=v, method="jv" if found else "cost-scaling",
                            backend=ran_on,
                            seconds=time.perf_counter() - t0, maximize=maximize, stats=stats)


def min_weight_full_bipartite_matching(biadjacency, maximize=False, *, backend: str = "cpu"
                                       ) -> tuple[np.ndarray, np.ndarray]:
    """Drop-in for ``scipy.sparse.csgraph.min_weight_full_bipartite_matching``: same arguments, same
    ``(row_ind, col_ind)`` (pairs in row order, SciPy's dtypes), same errors ("graph must be
    sparse", "no full matching exists") and SciPy's explicit-zero rule (removed, with its warning).
    Beyond SciPy: keyword-only ``backend`` ("cpu" or "gpu": the lock-free GPU refine), and a device-resident
    ``biadjacency`` (CuPy sparse, PyTorch sparse CUDA tensor): copied to the host once (:data:`DEVICE_FALLBACK`),
    the answer returned on the device in its library.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from matchflow import min_weight_full_bipartite_matching
    >>> C = sp.csr_array(np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]]))
    >>> row_ind, col_ind = min_weight_full_bipartite_matching(C)
    >>> col_ind.tolist(), int(C.toarray()[row_ind, col_ind].sum())
    ([1, 0, 2], 5)

    References
    ----------
    .. [1] Goldberg, A. V., and Kennedy, R., "An efficient cost scaling algorithm for the assignment problem",
           Mathematical Programming 71, 153-177, 1995. DOI:10.1007/BF01585996
    .. [2] Łupińska, A., "Parallel implementation of flow and matching algorithms", Jagiellonian University, Kraków
           (technical report).
    """
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
    # SciPy's order: a wide matrix's pairs by row (row_ind = arange), a tall one's by row too (row_ind int32, the
    # matched rows ascending; col_ind int64)
    out = (np.arange(nr), ci.astype(np.int32)) if nr <= nc else (ri.astype(np.int32), ci.astype(np.int64))
    if lib is None:
        return out
    from .._cuda import hand_back  # a device-resident input: the answer in its library

    return tuple(hand_back(a, lib) for a in out)
