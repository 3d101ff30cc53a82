"""The sparse half of the assignment door (issue 12): a scipy.sparse (or device-resident sparse) ``cost`` is
solved by a row of :data:`._methods.SPARSE_TABLE` (cost scaling, CPU and GPU twins; shortest augmenting paths,
``"jv"``), placed by :func:`matchflow._methods.place`; and SciPy's drop-in :func:`min_weight_full_bipartite_matching`.

The modules: :mod:`._prepare_sparse` (:class:`~._prepare_sparse.SparseProblem`: the canonical costs, a device
input's host copy, the square extended problem that rectangular and ``partial=True`` inputs are solved on),
:mod:`._cpu_cost_scaling` and :mod:`._cpu_sparse_ssp` (the rows' solves of it), :mod:`._verify_sparse` (its duals, the float gap bound,
:func:`~._verify_sparse.verify_sparse_assignment`); here: the stages (problem, placement, options, the row's
solve) and the result on the user's matrix.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.sparse as sp

from .._backend import require_gpu
from .._cuda import hand_back
from .._lsap.problem import InfeasibleError
from .._methods import Method, MethodTable, place
from .._results import AssignmentResult
from ._methods import SPARSE_TABLE, check_sparse_options, sparse_auto_rule
from ._prepare_sparse import DEVICE_FALLBACK, SparseProblem, _from_device, _on_host, add_exact

__all__ = ["sparse_assignment", "min_weight_full_bipartite_matching"]


def sparse_assignment(C, table: MethodTable = SPARSE_TABLE, row: Method | None = None, backend: str = "cpu", *,
                      maximize: bool = False, partial: bool = False, options: dict | None = None,
                      t0: float | None = None) -> AssignmentResult:
    """Optimal assignment of sparse C by a row of ``table`` (:data:`._methods.SPARSE_TABLE`: cost scaling, or
    shortest augmenting paths ``"jv"``; ``row=None``: ``method="auto"``), placed by ``backend`` through
    :func:`matchflow._methods.place` (``"auto"``: the GPU from :data:`._methods.AUTO_GPU_NNZ` arcs on a real GPU,
    ``stats["auto_rule"]``). A device-resident C (CuPy sparse, PyTorch sparse CUDA;
    :func:`._prepare_sparse.is_device_sparse`) is copied to the host once (the certificate and the CPU tail read it
    there: ``stats["device_fallback"]``) and ``row_ind``, ``col_ind``, ``u``, ``v`` come back on the device in its
    library (``stats["input_library"]``; ``stats["U"], stats["V"]`` stay NumPy)."""
    t0 = time.perf_counter() if t0 is None else t0
    options = options or {}
    p = SparseProblem.of(C, maximize, partial, options)
    placed, device = place(table, row, backend, lambda: p, options)
    opts = check_sparse_options(table, placed, device, options)
    method, x, U, V, stats = (placed.gpu if device == "gpu" else placed.cpu)(p, **opts)
    if backend == "auto" and (row is None or row.gpu is not None):
        stats["auto_rule"] = sparse_auto_rule(p, device)
    return _result(p, method, x, U, V, stats, maximize, t0)


def _result(p: SparseProblem, method: str, x, U, V, stats: dict, maximize: bool, t0: float) -> AssignmentResult:
    """The extended problem's matching on the user's matrix (its duals ``u``, ``v``; ``stats["U"], stats["V"]``:
    the extended certificate)."""
    (nr, nc), tr = p.A.shape, p.tr
    m, k = (nc, nr) if tr else (nr, nc)
    rows = np.arange(m)
    cols = x[:m]
    keep = cols < k
    r, c = rows[keep], cols[keep]
    if tr:
        r, c = c, r
    order = np.argsort(r)
    r, c = r[order].astype(np.int64), c[order].astype(np.int64)
    u, v = (V[:nr], U[:nc]) if tr else (add_exact(U[:nr], p.shift) if U.dtype.kind == "i" else U[:nr] + p.shift,
                                        V[:nc])
    stats.update(n=p.E.shape[0], extended=p.is_extended, transposed=tr, dummy_cost=p.big, U=U, V=V,
                 partial=p.partial)
    data = sp.csr_array(p.C).tocsr()[r, c] if r.size else np.zeros(0)
    data = np.asarray(data).ravel()
    total = int(data.astype(object).sum()) if p.A.dtype.kind == "i" else float(data.sum())
    ran_on = stats.pop("ran_on", "cpu")  # the GPU solve says "cpu" when its answer came from the CPU twin
    if p.lib is not None:  # a device-resident input: the answer on the device, in the caller's library
        r, c, u, v = (hand_back(a, p.lib) for a in (r, c, u, v))
        stats.update(input_library=p.lib, device_fallback=DEVICE_FALLBACK, seconds_input_copy=p.t_copy)
    return AssignmentResult(row_ind=r, col_ind=c, cost=total, u=u, v=v, method=method, backend=ran_on,
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
    >>> from scipy.sparse import csr_array
    >>> from matchflow import min_weight_full_bipartite_matching
    >>> C = csr_array([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
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
        res = sparse_assignment(A, backend=backend, maximize=bool(maximize))
    except InfeasibleError:
        raise ValueError("no full matching exists") from None
    nr, nc = A.shape
    ri, ci = _on_host(res.row_ind), _on_host(res.col_ind)
    # SciPy's order: a wide matrix's pairs by row (row_ind = arange), a tall one's by row too (row_ind int32, the
    # matched rows ascending; col_ind int64)
    out = (np.arange(nr), ci.astype(np.int32)) if nr <= nc else (ri.astype(np.int32), ci.astype(np.int64))
    if lib is None:
        return out
    return tuple(hand_back(a, lib) for a in out)  # a device-resident input: the answer in its library
