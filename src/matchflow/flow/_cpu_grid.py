"""CPU grid cut: the residual CSR of a 2-D/3-D grid built straight from the capacity arrays in one
Numba pass (no arc lists, no sort), then Boykov-Kolmogorov (:func:`._cpu_bk.bk_flow_kernel`) on it; the labels are BK's
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
from typing import NamedTuple

import numba
import numpy as np

from .._graph._common import index_dtype
from ._cpu_bk import IN_S, bk_flow_kernel
from ._exact import binary_scale

__all__ = ["Grid", "certified", "certify_grid", "clamp_grid", "grid_arrays", "grid_bk", "grid_cut_energy", "grid_flows",
           "grid_residual"]


@numba.njit(cache=True, nogil=True, inline="always")
def _pair_dev(u, v, cuv, cvu, deg, incap, outcap, fill, head, rev, cap):
    """One residual arc pair ``u -> v`` (capacity ``cuv``) and ``v -> u`` (``cvu``): counted into ``deg`` and
    the float64 capacity sums into and out of every node when ``fill`` is None, else placed at ``fill``."""
    if fill is None:
        deg[u] += 1
        deg[v] += 1
        outcap[u] += cuv
        incap[v] += cuv
        outcap[v] += cvu
        incap[u] += cvu
    else:
        a = fill[u]
        fill[u] += 1
        b = fill[v]
        fill[v] += 1
        head[a], cap[a], rev[a] = v, cuv, b
        head[b], cap[b], rev[b] = u, cvu, a


@numba.njit(cache=True, nogil=True)
def grid_arcs_kernel(src, snk, edg, off, dims, deg, incap, outcap, fill, head, rev, cap):
    """One pass over the grid's arc pairs (pixels 0..N-1, s = N, t = N + 1): ``s -> p``, ``p -> t`` where
    non-zero and one pair per neighbour pair. With ``fill`` None (first pass): the residual degrees into
    ``deg`` and the capacity sums into ``incap``/``outcap``. Else (second pass): the arcs placed at ``fill``
    (the CSR's row starts, advanced)."""
    nz, ny, nx = dims[0], dims[1], dims[2]
    npix = nz * ny * nx
    s, t = npix, npix + 1
    for p in range(npix):
        if src[p] != 0:
            _pair_dev(s, p, src[p], 0, deg, incap, outcap, fill, head, rev, cap)
        if snk[p] != 0:
            _pair_dev(p, t, snk[p], 0, deg, incap, outcap, fill, head, rev, cap)
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
                        _pair_dev(p, q, a, b, deg, incap, outcap, fill, head, rev, cap)


U = 2.0**-53  # unit roundoff of float64
TINY = 2.0**-1074  # the least subnormal: one absolute rounding step per operation, so underflow proves nothing


class Grid(NamedTuple):
    """A grid's capacities, flat in one work dtype (int64 or float64): ``dims`` (3,) (2-D: depth 1), ``off``
    (k, 3) offsets, ``src``/``snk`` (N,), ``edg`` (k, N)."""

    dims: np.ndarray
    off: np.ndarray
    src: np.ndarray
    snk: np.ndarray
    edg: np.ndarray


def grid_arrays(src: np.ndarray, snk: np.ndarray, edg: np.ndarray, off: np.ndarray) -> Grid:
    """:class:`Grid` of ``src``/``snk`` (the grid's shape), ``edg`` (k, *shape) and the (k, ndim) ``off``."""
    shape = src.shape
    npix = int(np.prod(shape))
    off3 = np.zeros((len(off), 3), dtype=np.int64)
    off3[:, 3 - len(shape):] = off
    work = np.int64 if src.dtype.kind in "iu" else np.float64
    return Grid(np.array((1,) * (3 - len(shape)) + shape, dtype=np.int64), off3,
                src.reshape(-1).astype(work, copy=False), snk.reshape(-1).astype(work, copy=False),
                np.ascontiguousarray(edg, dtype=work).reshape(len(off), npix))


@numba.njit(cache=True, nogil=True, inline="always")
def _add_dev(hi, lo, k, x):
    """TwoSum accumulation of ``x`` into ``hi[k] + lo[k]`` (exact error terms; integers: plain sums)."""
    h = hi[k] + x
    z = h - hi[k]
    lo[k] += (hi[k] - (h - z)) + (x - z)
    hi[k] = h


@numba.njit(cache=True, nogil=True)
def grid_certify_kernel(dims, off, per, src, snk, edg, fs, ft, fe, flows, ins, e_hi, e_lo, f_hi, f_lo, mag, err):
    """The grid cut's certificate data, per item (pixels ``b * per ..``): the labels' (``ins``) energy
    ``e_hi + e_lo``; with ``flows``, the flow's lower bound on the minimum cut ``f_hi + f_lo`` (its inflow into
    ``t`` less every pixel's deficit), ``mag`` the sum of the magnitudes added, ``err`` the pixels' own summation
    rounding. The flow: ``fs``/``ft`` on the terminal arcs, ``fe[k, p]`` the net flow ``p -> p + off[k]`` for the
    positive offsets (``k >= K/2``; the pair's reverse carries its negation). False when it is no flow within
    the capacities (NaN fails too)."""
    nz, ny, nx = dims[0], dims[1], dims[2]
    kk = off.shape[0]
    for p in range(nz * ny * nx):
        z, y, x = p // (ny * nx), (p // nx) % ny, p % nx
        b = p // per
        if ins[p]:
            if snk[p] != 0:
                _add_dev(e_hi, e_lo, b, snk[p])
                mag[b] += snk[p]
        elif src[p] != 0:
            _add_dev(e_hi, e_lo, b, src[p])
            mag[b] += src[p]
        if flows and not (0 <= fs[p] <= src[p] and 0 <= ft[p] <= snk[p]):
            return False
        net = ft[p] - fs[p]
        m = abs(ft[p]) + abs(fs[p])
        deg = 2
        for k in range(kk):
            z2, y2, x2 = z + off[k, 0], y + off[k, 1], x + off[k, 2]
            if not (0 <= z2 < nz and 0 <= y2 < ny and 0 <= x2 < nx):
                continue
            q = (z2 * ny + y2) * nx + x2
            if ins[p] and not ins[q] and edg[k, p] != 0:
                _add_dev(e_hi, e_lo, b, edg[k, p])
                mag[b] += edg[k, p]
            if not flows:
                continue
            if 2 * k >= kk:  # p's own pair: its flow fe[k, p] within both directions' capacities
                f = fe[k, p]
                if not (f <= edg[k, p] and -f <= edg[kk - 1 - k, q]):
                    return False
            else:  # q's pair: the flow q -> p leaves p negated
                f = -fe[kk - 1 - k, q]
            net += f
            m += abs(f)
            deg += 1
        if flows:
            err[b] += (deg + 1) * U * m
            if net > 0:  # more flow leaves than enters: a deficit
                _add_dev(f_hi, f_lo, b, -net)
                mag[b] += net
            if ft[p] > 0:
                _add_dev(f_hi, f_lo, b, ft[p])
                mag[b] += ft[p]
    return True


def _sums(grid: Grid, labels: np.ndarray, flows: tuple | None, items: int) -> tuple | None:
    """The certificate kernel's per-item sums ``(e_hi, e_lo, f_hi, f_lo, mag, err)``, None when ``flows`` is no
    flow within the capacities."""
    npix = grid.src.size
    ins = np.asarray(labels, dtype=bool).reshape(-1)
    out = [np.zeros(items, dtype=grid.src.dtype) for _ in range(4)] + [np.zeros(items), np.zeros(items)]
    fs, ft, fe = flows if flows is not None else (grid.src, grid.snk, grid.edg)
    ok = grid_certify_kernel(grid.dims, grid.off, max(npix // max(items, 1), 1), grid.src, grid.snk, grid.edg, fs, ft,
                             fe, flows is not None, ins, *out)
    return tuple(out) if ok else None


def grid_cut_energy(grid: Grid, labels: np.ndarray, items: int = 1) -> np.ndarray:
    """The labels' cut capacity per item (TwoSum: rounded once more at most; integers exact)."""
    e_hi, e_lo = _sums(grid, labels, None, items)[:2]
    return e_hi + e_lo if grid.src.dtype.kind == "f" else e_hi


def certify_grid(grid: Grid, flows: tuple, labels: np.ndarray, values: np.ndarray, wsum: np.ndarray | None,
                 items: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(gap_bound, tol)`` per item of the labels (True: source side) and claimed ``values`` (the cut's
    capacity) against the flow ``flows = (fs, ft, fe)`` (:func:`grid_certify_kernel`) on the input's ``grid``.

    ``gap_bound`` is a rigorous bound on ``energy(labels) - minimum``; the answer is certified where
    ``gap_bound <= tol`` and ``values`` lies within the energy's own rounding (``inf``: the check failed,
    an overflow or a value off its energy). Integers: exact (``tol`` 0). Floats: ``tol`` is ``2**-53 * wsum``
    per item (the solver's own flow updates, :func:`._cpu_bk.bk_flow_kernel`; None for a solver that
    reports none: then ``(deg + 1) 2**-53`` times each pixel's flows, the rounding of its balance) plus the
    rounding of the certificate's own sums: the cut arcs' and the flows' magnitudes, never the largest
    capacity."""
    inf = np.full(items, np.inf)
    sums = _sums(grid, labels, flows, items)
    if sums is None:
        return inf, inf
    e_hi, e_lo, f_hi, f_lo, mag, err = sums
    values = np.asarray(values).reshape(items)
    if grid.src.dtype.kind in "iu":
        exact = (e_lo == 0) & (f_lo == 0) & (mag < 2.0**62)  # no int64 sum wrapped
        ok = exact & (values == e_hi)
        return np.where(ok, (e_hi - f_hi).astype(np.float64), np.inf), np.zeros(items)
    k = float(grid.edg.size + 2 * grid.src.size)
    with np.errstate(over="ignore", invalid="ignore"):
        budget = err if wsum is None else U * np.asarray(wsum, dtype=np.float64)
        sum_err = (2 * U * (np.abs(e_hi) + np.abs(f_hi)) + 2 * (k * U) ** 2 * mag + 4 * TINY * k) * (1 + 4 * U)
        energy = e_hi + e_lo
        gap = ((energy - (f_hi + f_lo)) + sum_err + err) * (1 + 4 * U)
        tol = (budget + sum_err + err + TINY * k) * (1 + 4 * U)
        off_value = np.abs(values - energy) > 2 * U * np.abs(energy) + TINY
    bad = ~np.isfinite(gap) | ~np.isfinite(tol) | ~np.isfinite(values) | off_value
    return np.where(bad, np.inf, gap), tol


def certified(grid: Grid, flows: tuple, labels: np.ndarray, items: int | None, wsum: np.ndarray | None = None
              ) -> tuple[np.ndarray, dict]:
    """``(value per item: the labels' energy, stats with gap_bound, tol, certified)`` of a solver's answer."""
    b = 1 if items is None else items
    value = grid_cut_energy(grid, labels, b)
    gap, tol = certify_grid(grid, flows, labels, value, wsum, b)
    return value, {"gap_bound": float(gap.max(initial=0.0)), "tol": float(tol.max(initial=0.0)),
                   "certified": bool(np.all(gap <= tol))}


def _lower(cap: np.ndarray, lim: np.ndarray) -> np.ndarray:
    """``cap`` lowered to ``lim`` where ``0 < lim < cap`` (integers: just above ``lim``, never above ``cap``)."""
    hit = (lim > 0) & (lim < cap)
    if cap.dtype.kind == "f":
        return np.where(hit, lim, cap)
    return np.where(hit, np.minimum(cap, np.floor(np.where(hit, lim, 0)).astype(np.int64) + 1), cap)


def clamp_grid(grid: Grid, incap: np.ndarray | None = None, outcap: np.ndarray | None = None) -> Grid:
    """The capacities lowered to just above twice what can flow through each arc (the float64 sums into its
    tail and out of its head, :func:`grid_arcs_kernel`'s first pass): a clamped arc can never saturate, so the
    feasible flows, the maximum flow, its minimum cuts and the residual reachability (the labels) are the
    input's, while a hard seed (1e300) no longer sits beside the flows it would round. Arcs leaving the grid: 0."""
    dims, off, src, snk, edg = grid
    npix = src.size
    if incap is None:
        incap, outcap = np.zeros(npix + 2), np.zeros(npix + 2)
        grid_arcs_kernel(src, snk, edg, off, dims, np.zeros(npix + 2, np.int64), incap, outcap, None, None, None, None)
    e2 = np.zeros_like(edg)
    shape = tuple(int(d) for d in dims)
    for k, o in enumerate(off):
        s = tuple(slice(max(0, -d), shape[i] - max(0, d)) for i, d in enumerate(o))
        d_ = tuple(slice(max(0, d), shape[i] - max(0, -d)) for i, d in enumerate(o))
        lim = 2.0 * np.minimum(incap[:npix].reshape(shape)[s], outcap[:npix].reshape(shape)[d_])
        e2[k].reshape(shape)[s] = _lower(edg[k].reshape(shape)[s], lim)
    return Grid(dims, off, _lower(src, 2.0 * outcap[:npix]), _lower(snk, 2.0 * incap[:npix]), e2)


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
    grid_arcs_kernel(src, snk, edg, off, dims, deg[1:], incap, outcap, None, None, None, None)
    incap[npix] = outcap[npix + 1] = np.inf  # s and t: no bound
    cg = clamp_grid(grid, incap, outcap)  # the same non-zero pattern: the same arcs
    indptr = np.cumsum(deg).astype(index_dtype(n, int(deg.sum())))
    m2 = int(indptr[-1])
    head = np.empty(m2, dtype=indptr.dtype)
    rev = np.empty(m2, dtype=indptr.dtype)
    c = np.empty(m2, dtype=src.dtype)
    grid_arcs_kernel(cg.src, cg.snk, cg.edg, off, dims, deg, incap, outcap, indptr[:-1].copy(), head, rev, c)
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

