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

import numba
import numpy as np

from .._graph._common import index_dtype
from ._cpu_bk import IN_S, bk_flow_kernel

__all__ = ["certify_grid", "grid_bk", "grid_cut_energy", "grid_residual"]


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


@numba.njit(cache=True, nogil=True, inline="always")
def _add_dev(hi, lo, k, x):
    """TwoSum accumulation of ``x`` into ``hi[k] + lo[k]`` (exact error terms; integers: plain sums)."""
    h = hi[k] + x
    z = h - hi[k]
    lo[k] += (hi[k] - (h - z)) + (x - z)
    hi[k] = h


@numba.njit(cache=True, nogil=True)
def grid_certify_kernel(npix, per, indptr, head, rev, c, c0, g, ins, e_hi, e_lo, f_hi, f_lo, mag, err):
    """The grid cut's certificate data, per item (pixels ``b * per ..``): the labels' energy ``e_hi + e_lo``
    on the input's capacities ``c0`` (arcs from ``ins`` to the rest), the flow's lower bound on the minimum
    cut ``f_hi + f_lo`` (its inflow into ``t`` less every pixel's deficit), ``mag`` the sum of the magnitudes
    added, ``err`` the pixels' own summation rounding. False when ``g`` is no antisymmetric flow within ``c``."""
    t = npix + 1
    for a in range(c.shape[0]):
        if not (g[a] <= c[a] and g[rev[a]] == -g[a] and c[a] <= c0[a]):  # NaN fails too
            return False
    for v in range(npix + 2):
        if not ins[v] or v == t:
            continue
        for a in range(indptr[v], indptr[v + 1]):
            w = head[a]
            if not ins[w] and c0[a] != 0:
                k = (v if v < npix else w) // per
                _add_dev(e_hi, e_lo, k, c0[a])
                mag[k] += c0[a]
    for v in range(npix):
        net = g[0] * 0
        m = 0.0
        for a in range(indptr[v], indptr[v + 1]):
            net += g[a]
            m += abs(g[a])
        k = v // per
        err[k] += (indptr[v + 1] - indptr[v] + 1) * U * m
        if net > 0:  # more flow leaves than enters: a deficit
            _add_dev(f_hi, f_lo, k, -net)
            mag[k] += net
    for a in range(indptr[t], indptr[t + 1]):
        if g[a] < 0:
            k = head[a] // per
            _add_dev(f_hi, f_lo, k, -g[a])
            mag[k] -= g[a]
    return True


def _clamped(cap: np.ndarray, indptr: np.ndarray, head: np.ndarray, incap: np.ndarray, outcap: np.ndarray
             ) -> np.ndarray:
    """The capacities lowered to just above twice what can flow through each arc (the float64 sums into its
    tail and out of its head): a clamped arc can never saturate, so the feasible flows, the maximum flow
    and the residual reachability (the labels) are the input's, while a hard seed (1e300) no longer sits
    beside the flows it would round. Integers stay integers."""
    tails = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    lim = 2.0 * np.minimum(incap[tails], outcap[head])
    hit = (lim > 0) & (lim < cap)
    if not hit.any():
        return cap
    out = cap.copy()
    if cap.dtype.kind == "f":
        out[hit] = lim[hit]
    else:  # just above lim, never above the input (lim < cap <= 2**63 - 1)
        out[hit] = np.minimum(cap[hit], np.floor(lim[hit]).astype(np.int64) + 1)
    return out


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


def grid_residual(src: np.ndarray, snk: np.ndarray, edg: np.ndarray, off: np.ndarray) -> tuple:
    """The residual CSR of the grid: ``(indptr, head, rev, c (clamped: :func:`_clamped`), c0 (the input's))``,
    capacities int64 for integer input, else float64."""
    shape = src.shape
    npix = int(np.prod(shape))
    dims = np.array((1,) * (3 - len(shape)) + shape, dtype=np.int64)
    off3 = np.zeros((len(off), 3), dtype=np.int64)
    off3[:, 3 - len(shape):] = off
    work = np.int64 if src.dtype.kind in "iu" else np.float64
    s_, t_ = src.reshape(-1).astype(work, copy=False), snk.reshape(-1).astype(work, copy=False)
    e_ = np.ascontiguousarray(edg, dtype=work).reshape(len(off), npix)
    n = npix + 2
    deg = np.zeros(n + 1, dtype=np.int64)
    incap, outcap = np.zeros(n), np.zeros(n)
    grid_arcs_kernel(s_, t_, e_, off3, dims, deg[1:], incap, outcap, None, None, None, None)
    incap[npix] = outcap[npix + 1] = np.inf  # s and t: no bound
    indptr = np.cumsum(deg).astype(index_dtype(n, int(deg.sum())))
    m2 = int(indptr[-1])
    head = np.empty(m2, dtype=indptr.dtype)
    rev = np.empty(m2, dtype=indptr.dtype)
    c0 = np.empty(m2, dtype=work)
    grid_arcs_kernel(s_, t_, e_, off3, dims, deg, incap, outcap, indptr[:-1].copy(), head, rev, c0)
    return indptr, head, rev, _clamped(c0, indptr, head, incap, outcap), c0


def certify_grid(net: tuple, g: np.ndarray, labels: np.ndarray, values: np.ndarray, wsum: float, items: int = 1
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(gap_bound, tol)`` per item of the labels (True: source side) and claimed ``values`` (the cut's
    capacity) against the flow ``g`` on the residual CSR ``net`` (:func:`grid_residual`).

    ``gap_bound`` is a rigorous bound on ``energy(labels) - minimum``; the answer is certified where
    ``gap_bound <= tol`` and ``values`` lies within the energy's own rounding (``inf``: the check failed,
    an overflow or a value off its energy). Integers: exact (``tol`` 0). Floats: ``tol`` is
    ``2**-53 * wsum`` (the solver's flow updates, :func:`._cpu_bk.bk_flow_kernel`) plus the rounding of the
    certificate's own sums: the cut arcs' and the flows' magnitudes, never the largest capacity."""
    indptr, head, rev, c, c0 = net
    npix = len(indptr) - 3
    per = max(npix // max(items, 1), 1)
    ins = np.zeros(npix + 2, dtype=np.bool_)
    ins[:npix] = np.asarray(labels, dtype=bool).reshape(-1)
    ins[npix] = True
    work = c.dtype
    e_hi, e_lo, f_hi, f_lo = (np.zeros(items, dtype=work) for _ in range(4))
    mag, err = np.zeros(items), np.zeros(items)
    inf = np.full(items, np.inf)
    if not grid_certify_kernel(npix, per, indptr, head, rev, c, c0, g, ins, e_hi, e_lo, f_hi, f_lo, mag, err):
        return inf, inf
    values = np.asarray(values).reshape(items)
    if work.kind in "iu":
        exact = (e_lo == 0) & (f_lo == 0) & (mag < 2.0**62)  # no int64 sum wrapped
        ok = exact & (values == e_hi)
        gap = np.where(ok, (e_hi - f_hi).astype(np.float64), np.inf)
        return gap, np.zeros(items)
    k = float(len(c) + npix)
    with np.errstate(over="ignore", invalid="ignore"):
        sum_err = (2 * U * (np.abs(e_hi) + np.abs(f_hi)) + 2 * (k * U) ** 2 * mag + 4 * TINY * k) * (1 + 4 * U)
        energy = e_hi + e_lo
        gap = ((energy - (f_hi + f_lo)) + sum_err + err) * (1 + 4 * U)
        tol = (U * wsum + sum_err + err + TINY * k) * (1 + 4 * U)
        off_value = np.abs(values - energy) > 2 * U * np.abs(energy) + TINY
    bad = ~np.isfinite(gap) | ~np.isfinite(tol) | ~np.isfinite(values) | off_value
    return np.where(bad, np.inf, gap), tol


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
    net = grid_residual(src, snk, edg, off)
    if src.dtype.kind in "iu":
        _check_int_sums(net[3], net[0], net[1], src.size, int_limit)
    build = time.perf_counter() - t0
    labels, value, stats = _solve_certified(net, src.size, items)
    if not stats["certified"]:
        if src.dtype.kind in "iu":
            raise RuntimeError(f"grid_cut: the integer certificate failed (gap {stats['gap_bound']}): please report "
                               "this input")
        again = _resolve_scaled(net, src.size, items, int_limit, stats)
        if again is None:
            warnings.warn(f"grid_cut: the float answer is not certified (gap bound {stats['gap_bound']:.3g} above its "
                          f"rounding tolerance {stats['tol']:.3g}) and the capacities do not scale exactly to int64: "
                          "returned with its bound in stats['gap_bound']", RuntimeWarning, stacklevel=3)
        else:
            labels, value, stats = again
    stats["build_seconds"] = build
    labels = labels.reshape(src.shape)
    return labels, (value if items is not None else value[0]), stats


def _solve_certified(net: tuple, npix: int, items: int | None) -> tuple[np.ndarray, np.ndarray, dict]:
    """BK on ``net`` from zero flow, the labels' energy as the value, and the certificate."""
    indptr, head, rev, c, c0 = net
    n = npix + 2
    g = np.zeros_like(c)
    tree = np.zeros(n, dtype=np.int8)
    augs, orphans, scans, wsum = bk_flow_kernel(n, npix, npix + 1, indptr, head, rev, c, g, c.dtype.type(0), tree)
    labels = tree[:npix] == IN_S  # the vertices reachable from s in the residual graph
    b = 1 if items is None else items
    value = grid_cut_energy(net, labels, b)
    gap, tol = certify_grid(net, g, labels, value, wsum, b)
    stats = {"augmentations": int(augs), "orphans": int(orphans), "growth_scans": int(scans),
             "residual_arcs": int(indptr[-1]), "gap_bound": float(gap.max(initial=0.0)),
             "tol": float(tol.max(initial=0.0)), "certified": bool(np.all(gap <= tol))}
    return labels, value, stats


def grid_cut_energy(net: tuple, labels: np.ndarray, items: int = 1) -> np.ndarray:
    """The labels' cut capacity on the input's capacities per item (TwoSum: rounded once more at most)."""
    indptr, head, rev, c, c0 = net
    npix = len(indptr) - 3
    ins = np.zeros(npix + 2, dtype=np.bool_)
    ins[:npix] = np.asarray(labels, dtype=bool).reshape(-1)
    ins[npix] = True
    hi, lo = np.zeros(items, dtype=c.dtype), np.zeros(items, dtype=c.dtype)
    z = np.zeros(1, dtype=c.dtype)
    grid_certify_kernel(npix, max(npix // max(items, 1), 1), indptr, head, rev, c0, c0, np.zeros_like(c0), ins, hi, lo, z, z,
                        np.zeros(items), np.zeros(items))
    return hi + lo if c.dtype.kind == "f" else hi


def _resolve_scaled(net: tuple, npix: int, items: int | None, int_limit: int, stats: dict) -> tuple | None:
    """A float answer the certificate did not prove: BK again on the capacities scaled exactly to integers (a
    common power of two), certified exactly; None where their sums do not fit int64."""
    indptr, head, rev, c, c0 = net
    nz = c[c != 0]
    ok = c.dtype.kind == "f" and nz.size and np.all(np.isfinite(nz))
    if ok:
        mant, ex = np.frexp(nz)
        m = (mant * 2.0**53).astype(np.int64)
        low = int((ex - 53 + _ctz(m)).min())
        scaled = np.ldexp(c, -low)
        ok = float(scaled.max()) < 2.0**63
    if ok:
        ci = scaled.astype(np.int64)
        try:
            _check_int_sums(ci, indptr, head, npix, int_limit)
        except OverflowError:
            ok = False
    if not ok:
        return None
    labels, vi, st = _solve_certified((indptr, head, rev, ci, ci), npix, items)
    value = grid_cut_energy(net, labels, 1 if items is None else items)
    st.update(exact_resolve=True, float_gap_bound=stats["gap_bound"])
    return labels, value, st


def _ctz(m: np.ndarray) -> np.ndarray:
    """Trailing zero bits of positive int64 values."""
    return np.log2((m & -m).astype(np.float64)).astype(np.int64)
