"""CPU grid cut, the grid method ``"boykov-kolmogorov"`` (:func:`solve_grid_bk`): the residual CSR of a 2-D/3-D grid
built straight from the capacity arrays in one Numba pass (:func:`._prepare_grid.grid_arrays`: no arc lists, no sort), then Boykov-Kolmogorov (:func:`._cpu_bk.bk_flow_kernel`) on it; the labels are BK's
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
import warnings
from typing import Any

import numba
import numpy as np

from .._graph._common import index_dtype
from .._validation import readonly
from ._cpu_bk import IN_S, bk_flow_kernel
from ._cpu_exact import binary_scale
from ._prepare_grid import Grid, clamp_grid, fold, grid_arcs_kernel, grid_arrays
from ._prepare_grid_layout import INT_LIMIT
from ._verify_grid import certified, grid_cut_energy

__all__ = ["grid_bk", "grid_flows", "grid_residual", "bk_arrays", "solve_grid_bk"]


def _check_int_sums(cap: np.ndarray, indptr: np.ndarray, head: np.ndarray, s: int, int_limit: int) -> None:
    """Integer capacity sums into one node (or out of the source) reaching ``int_limit``: OverflowError."""
    cf = cap.astype(np.float64)
    into = np.bincount(head, weights=cf, minlength=len(indptr) - 1)
    out_s = float(cf[indptr[s]:indptr[s + 1]].sum())
    v = int(into.argmax())
    worst = max(float(into[v]), out_s)
    if worst >= int_limit:
        v = v if float(into[v]) >= out_s else s
        raise OverflowError(f"capacities at node {v} sum to about {worst:.3g}, beyond 2**62: the flow could "
                            "overflow int64 (scale source_caps, sink_caps, edge_caps down or pass floats)")


def grid_residual(grid: Grid) -> tuple[tuple, Grid]:
    """``(net, clamped grid)``: the residual CSR ``net = (indptr, head, rev, c)`` of the clamped capacities
    (:func:`clamp_grid`; int64 for integer input, else float64) and those capacities as a :class:`Grid`."""
    dims, off, src, snk, edg = grid
    npix = src.size
    n = npix + 2
    deg = np.zeros(n + 1, dtype=np.int64)
    incap, outcap = np.zeros(n), np.zeros(n)
    # the grid's arrays as read-only views (readonly): one kernel specialisation whatever the caller's flags
    grid_arcs_kernel(*readonly(src, snk, edg, off, dims), deg[1:], incap, outcap, None, None, None, None)
    incap[npix] = outcap[npix + 1] = np.inf  # s and t: no bound
    cg = clamp_grid(grid, incap, outcap)  # the same non-zero pattern: the same arcs
    indptr = np.cumsum(deg).astype(index_dtype(n, int(deg.sum())))
    m2 = int(indptr[-1])
    head = np.empty(m2, dtype=indptr.dtype)
    rev = np.empty(m2, dtype=indptr.dtype)
    c = np.empty(m2, dtype=src.dtype)
    grid_arcs_kernel(*readonly(cg.src, cg.snk, cg.edg, off, dims), deg, incap, outcap, indptr[:-1].copy(), head, rev,
                     c)
    return (indptr, head, rev, c), cg


@numba.njit(cache=True, nogil=True)
def grid_flows_kernel(indptr, head, dims, lut, g, fs, ft, fe):
    """A flow ``g`` on the residual CSR as the grid's ``(fs, ft, fe)`` (:func:`grid_certify_kernel`); ``lut``
    maps an offset ``(dz + 1) * 9 + (dy + 1) * 3 + dx + 1`` to its index ``k``."""
    nz, ny, nx = dims[0], dims[1], dims[2]
    npix = nz * ny * nx
    half = (fe.shape[0] + 1) // 2
    for v in range(npix):
        for a in range(indptr[v], indptr[v + 1]):
            w = head[a]
            if w == npix + 1:
                ft[v] = g[a]
            elif w == npix:
                fs[v] = -g[a]
            else:
                k = lut[(w // (ny * nx) - v // (ny * nx) + 1) * 9 + ((w // nx) % ny - (v // nx) % ny + 1) * 3
                        + w % nx - v % nx + 1]
                if k >= half:
                    fe[k, v] = g[a]


def grid_flows(grid: Grid, net: tuple, g: np.ndarray) -> tuple:
    """``(fs, ft, fe)`` of the flow ``g`` on ``net`` (:func:`grid_residual`)."""
    lut = np.full(27, -1, dtype=np.int64)
    lut[(grid.off[:, 0] + 1) * 9 + (grid.off[:, 1] + 1) * 3 + grid.off[:, 2] + 1] = np.arange(len(grid.off))
    fs, ft, fe = np.zeros_like(grid.src), np.zeros_like(grid.snk), np.zeros_like(grid.edg)
    grid_flows_kernel(net[0], net[1], grid.dims, lut, g, fs, ft, fe)
    return fs, ft, fe


def grid_bk(src: np.ndarray, snk: np.ndarray, edg: np.ndarray, off: np.ndarray, int_limit: int,
            items: int | None = None) -> tuple[np.ndarray, object, dict]:
    """Minimum cut of the grid: ``(labels (True: source side), flow value (int64 or float64), stats)``.
    ``items``: the grid is that many equal blocks of points with no arc between them (a batch): the
    flow value is then an array, one per block.

    ``src``/``snk`` of the grid's shape, ``edg`` of shape ``(k, *shape)``, one dtype (validated by the
    caller); ``off`` the ``(k, ndim)`` lexicographic offsets (``off[k~] = -off[k]`` with ``k~ = k-1-k``).
    Integer capacity sums into one node (or out of the source) reaching ``int_limit``: OverflowError.
    Exact BK (no residual threshold) on the clamped capacities; the answer is certified
    (:func:`certify_grid`: ``stats["gap_bound"]``, ``stats["certified"]``); a float answer that is not is
    solved again in exactly scaled integers where they fit, else returned with a RuntimeWarning.
    """
    t0 = time.perf_counter()
    grid = grid_arrays(src, snk, edg, off)
    net, cg = grid_residual(grid)
    if src.dtype.kind in "iu":
        _check_int_sums(net[3], net[0], net[1], src.size, int_limit)
    build = time.perf_counter() - t0
    labels, value, stats = _solve_certified(grid, cg, net, items)
    if not stats["certified"]:
        if src.dtype.kind in "iu":
            raise RuntimeError(f"grid_cut: the integer certificate failed (gap {stats['gap_bound']}): please report "
                               "this input")
        again = _resolve_scaled(grid, cg, items, int_limit, stats)
        if again is None:
            warnings.warn(f"grid_cut: the float answer is not certified (gap bound {stats['gap_bound']:.3g} above its "
                          f"rounding tolerance {stats['tol']:.3g}) and the capacities do not scale exactly to int64: "
                          "returned with its bound in stats['gap_bound']", RuntimeWarning, stacklevel=3)
        else:
            labels, value, stats = again
    stats["seconds_build"] = build
    labels = labels.reshape(src.shape)
    return labels, (value if items is not None else value[0]), stats


def _solve_certified(grid: Grid, cg: Grid, net: tuple, items: int | None) -> tuple[np.ndarray, np.ndarray, dict]:
    """BK on ``net`` (the clamped ``cg``) from zero flow, the labels' energy on ``grid`` as the value, and the
    certificate against ``grid`` with each item's own rounding budget."""
    indptr, head, rev, c = net
    npix = grid.src.size
    n = npix + 2
    b = 1 if items is None else items
    g = np.zeros_like(c)
    tree = np.zeros(n, dtype=np.int8)
    wsum = np.zeros(b)
    augs, orphans, scans = bk_flow_kernel(n, npix, npix + 1, indptr, head, rev, c, g, c.dtype.type(0), tree, wsum,
                                          max(npix // max(b, 1), 1))
    labels = tree[:npix] == IN_S  # the vertices reachable from s in the residual graph
    value, stats = certified(grid, grid_flows(grid, net, g), labels, items, wsum)
    stats.update(augmentations=int(augs), orphans=int(orphans), growth_scans=int(scans), residual_arcs=int(indptr[-1]))
    return labels, value, stats


def _resolve_scaled(grid: Grid, cg: Grid, items: int | None, int_limit: int, stats: dict) -> tuple | None:
    """A float answer the certificate did not prove: BK again on the clamped capacities scaled exactly to
    integers (a common power of two), certified exactly (a minimum cut of the clamped grid never cuts a
    clamped arc: it is one of the input's); None where their sums do not fit int64."""
    caps = np.concatenate([cg.src, cg.snk, cg.edg.reshape(-1)])
    scale = binary_scale(caps) if np.all(np.isfinite(caps)) else None
    if scale is None:
        return None
    low = scale[0]
    if float(np.ldexp(np.abs(caps).max(), -low)) >= 2.0**63:
        return None
    ig = Grid(cg.dims, cg.off, *(np.ldexp(a, -low).astype(np.int64) for a in (cg.src, cg.snk, cg.edg)))
    inet, icg = grid_residual(ig)
    try:
        _check_int_sums(inet[3], inet[0], inet[1], grid.src.size, int_limit)
    except OverflowError:
        return None
    labels, _, st = _solve_certified(ig, icg, inet, items)
    value = grid_cut_energy(grid, labels, 1 if items is None else items)
    st.update(exact_resolve=True, float_gap_bound=stats["gap_bound"])
    return labels, value, st


def bk_arrays(shape, batch, off, src, snk, edg) -> tuple[np.ndarray, Any, dict]:
    """The CPU grid path (:func:`grid_bk`), a batch folded into one grid."""
    if batch is None:
        labels, value, stats = grid_bk(src, snk, edg, off, INT_LIMIT)
        return labels, (value.item() if src.dtype.kind == "f" else int(value)), stats
    labels, value, stats = grid_bk(*fold(shape, batch, off, src, snk, edg), INT_LIMIT, items=batch)
    stats["batch"] = batch
    return labels.reshape(src.shape), value, stats


def solve_grid_bk(problem: Any) -> tuple:
    """The CPU grid path as a grid method: Boykov-Kolmogorov on the residual CSR built from the arrays, certified
    by its own certificate (and its exact re-solve); ``problem``: :class:`._prepare_grid.GridProblem`."""
    t0 = time.perf_counter()
    labels, value, stats = bk_arrays(*problem.arrays)
    stats["seconds_solve"] = time.perf_counter() - t0 - stats["seconds_build"]
    return labels, value, stats, None
