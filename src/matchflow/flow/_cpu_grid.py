"""CPU grid cut: the residual CSR of a 2-D/3-D grid built straight from the capacity arrays in one
Numba pass (no arc lists, no sort), then Boykov-Kolmogorov (:func:`._cpu_bk.bk_tree_kernel`) on it; the labels are BK's
final source tree (the vertices reachable from ``s`` in the residual graph: no residual search needed).

Layout (as in Boykov & Kolmogorov's own code): each neighbour pair ``p``, ``q = p + o_k`` is ONE
residual arc pair, ``p -> q`` with capacity ``edge_caps[k][p]`` and ``q -> p`` with
``edge_caps[k~][q]`` (``k~`` the opposite offset), kept when either is non-zero; the source and sink
arcs are kept where non-zero. Same max flow and the same minimum cut (the vertices reachable from
``s`` in the residual graph are the same for every maximum flow) as the general network of
``grid_network``, with half the neighbour arcs.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from .._graph._common import index_dtype
from ._cpu_bk import IN_S, bk_tree_kernel

__all__ = ["grid_bk"]


@numba.njit(cache=True, nogil=True, inline="always")
def _pair_dev(u, v, cuv, cvu, deg, into, check, fill, head, rev, cap):
    """One residual arc pair ``u -> v`` (capacity ``cuv``) and ``v -> u`` (``cvu``): counted into ``deg``
    (and, with ``check``, the capacity sums into ``into``) when ``fill`` is None, else placed at ``fill``."""
    if fill is None:
        deg[u] += 1
        deg[v] += 1
        if check:
            into[v] += cuv
            into[u] += cvu
    else:
        a = fill[u]
        fill[u] += 1
        b = fill[v]
        fill[v] += 1
        head[a], cap[a], rev[a] = v, cuv, b
        head[b], cap[b], rev[b] = u, cvu, a


@numba.njit(cache=True, nogil=True)
def grid_arcs_kernel(src, snk, edg, off, dims, deg, into, check, fill, head, rev, cap):
    """One pass over the grid's arc pairs (pixels 0..N-1, s = N, t = N + 1): ``s -> p``, ``p -> t`` where
    non-zero and one pair per neighbour pair. With ``fill`` None (first pass): the residual degrees into
    ``deg`` and, with ``check``, the capacity sums into every node (``into``, float64); returns the sum out
    of the source. Else (second pass): the arcs placed at ``fill`` (the CSR's row starts, advanced)."""
    nz, ny, nx = dims[0], dims[1], dims[2]
    npix = nz * ny * nx
    s, t = npix, npix + 1
    out_s = 0.0
    for p in range(npix):
        if src[p] != 0:
            _pair_dev(s, p, src[p], 0, deg, into, check, fill, head, rev, cap)
            out_s += src[p]
        if snk[p] != 0:
            _pair_dev(p, t, snk[p], 0, deg, into, check, fill, head, rev, cap)
    kk = off.shape[0]
    for k in range(kk // 2, kk):  # the "positive" offsets: q = p + o_k > p
        ki = kk - 1 - k
        dz, dy, dx = off[k, 0], off[k, 1], off[k, 2]
        for z in range(max(0, -dz), nz - max(0, dz)):
            for y in range(max(0, -dy), ny - max(0, dy)):
                p0 = (z * ny + y) * nx
                q0 = ((z + dz) * ny + y + dy) * nx + dx
                for x in range(max(0, -dx), nx - max(0, dx)):
                    p = p0 + x
                    q = q0 + x
                    a, b = edg[k, p], edg[ki, q]
                    if a != 0 or b != 0:
                        _pair_dev(p, q, a, b, deg, into, check, fill, head, rev, cap)
    return out_s


def grid_bk(src: np.ndarray, snk: np.ndarray, edg: np.ndarray, off: np.ndarray, tol_rtol: float,
            int_limit: int, items: int | None = None) -> tuple[np.ndarray, object, dict]:
    """Minimum cut of the grid: ``(labels (True: source side), flow value (int64 or float64), stats)``.
    ``items``: the grid is that many equal blocks of points with no arc between them (a batch): the
    flow value is then an array, the flow each block sends into the sink.

    ``src``/``snk`` of the grid's shape, ``edg`` of shape ``(k, *shape)``, one dtype (validated by the
    caller); ``off`` the ``(k, ndim)`` lexicographic offsets (``off[k~] = -off[k]`` with ``k~ = k-1-k``).
    Integer capacity sums into one node (or out of the source) reaching ``int_limit``: OverflowError.
    """
    t0 = time.perf_counter()
    shape = src.shape
    npix = int(np.prod(shape))
    dims = np.array((1,) * (3 - len(shape)) + shape, dtype=np.int64)
    off3 = np.zeros((len(off), 3), dtype=np.int64)
    off3[:, 3 - len(shape):] = off
    s_, t_ = src.reshape(-1), snk.reshape(-1)
    e_ = np.ascontiguousarray(edg).reshape(len(off), npix)
    is_int = src.dtype.kind in "iu"
    work = np.int64 if is_int else np.float64
    n = npix + 2
    deg = np.zeros(n + 1, dtype=np.int64)
    into = np.zeros(n if is_int else 1, dtype=np.float64)
    out_s = grid_arcs_kernel(s_, t_, e_, off3, dims, deg[1:], into, is_int, None, None, None, None)
    if is_int:
        worst_v = int(into.argmax())
        worst = max(float(into[worst_v]), out_s)
        if worst >= int_limit:
            v = worst_v if float(into[worst_v]) >= out_s else npix
            raise OverflowError(f"capacities at node {v} sum to about {worst:.3g}, beyond 2**62: the flow could "
                                "overflow int64 (scale the capacities down or pass floats)")
    indptr = np.cumsum(deg).astype(index_dtype(n, int(deg.sum())))
    m2 = int(indptr[-1])
    head = np.empty(m2, dtype=indptr.dtype)
    rev = np.empty(m2, dtype=indptr.dtype)
    cap = np.empty(m2, dtype=work)
    grid_arcs_kernel(s_, t_, e_, off3, dims, deg, into, False, indptr[:-1].copy(), head, rev, cap)
    tol = 0.0 if is_int else tol_rtol * float(cap.max(initial=0.0))
    build = time.perf_counter() - t0
    total = np.zeros(1, dtype=work)
    tree = np.zeros(n, dtype=np.int8)
    augs, orphans, scans = bk_tree_kernel(n, npix, npix + 1, indptr, head, rev, cap, tol, total, tree)
    side = tree == IN_S  # the vertices reachable from s in the residual graph
    if items is not None:  # t's arcs t -> p, p ascending: residual = the flow p -> t
        row = slice(int(indptr[npix + 1]), int(indptr[npix + 2]))
        per = npix // max(items, 1)
        if is_int:  # exact: differences of an int64 prefix sum at the block borders
            sums = np.concatenate([np.zeros(1, work), np.cumsum(cap[row], dtype=work)])
            bounds = np.searchsorted(head[row], np.arange(items + 1, dtype=np.int64) * per)
            total = sums[bounds[1:]] - sums[bounds[:-1]]
        else:  # one sum per block (no prefix-sum cancellation)
            total = np.bincount(head[row] // max(per, 1), weights=cap[row], minlength=items)[:items]
    else:
        total = total[0]
    stats = {"augmentations": int(augs), "orphans": int(orphans), "growth_scans": int(scans),
             "residual_arcs": m2, "build_seconds": build}
    return side[:npix].reshape(shape), total, stats
