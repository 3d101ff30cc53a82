"""Graph and cost-matrix generators for tests and benchmarks.

Every generator is vectorised NumPy/SciPy plus a few parallel ``numba.njit`` kernels (Hilbert
index, CSR build, RGG cell list) sized for the paper inputs (2^24 vertices, 10^8+ entries),
deterministic for a given ``seed`` (``numpy.random.default_rng(seed)``; never dependent on the
number of threads or ``workers``) and mirrors a family used in the literature:

* :func:`delaunay` - DIMACS10 ``delaunay_nXX`` (Delaunay triangulations of random points);
* :func:`random_geometric` - DIMACS10 ``rgg_n_2_XX_s0`` (random geometric graphs);
* :func:`rmat` - Graph500 R-MAT / Kronecker graphs (SuiteSparse ``kron_g500-lognXX``);
* :func:`grid2d`, :func:`grid3d` - lattices; ``holes`` imitates ``hugetrace``/``hugebubbles``
  meshes with holes;
* :func:`road_like` - planar road networks (``roadNet-*``, ``italy_osm``): sparse, degree ~2.3;
* :func:`random_bipartite` - Erdős-Rényi bipartite graphs (SciPy's matching benchmark);
* :func:`hk_ladder` - layered "ladder" matrices on which SciPy's Hopcroft-Karp takes time
  exponential in the depth (scipy issue 26147);
* :func:`uniform_costs` - uniform integer cost matrices (Lopes et al. 2019, Table 1);
* :func:`netgen`, :func:`gridgen`, :func:`goto`, :func:`transport_instance` - min-cost flow inputs in
  the DIMACS families (NETGEN, GRIDGEN, GOTO; dense transportation), feasible by construction
  (``matchflow._generators_mcf``).

Graph generators return a ``scipy.sparse.csr_array`` of dtype ``bool`` in canonical form
(sorted indices, no duplicates, no explicit zeros); undirected graphs are symmetric
without self loops. Index arrays are ``int32`` when they fit.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp

from ._generators_mcf import goto, gridgen, netgen, transport_instance
from ._validation import as_rng as _rng
from ._validation import check_bool, check_choice, check_int, check_real

__all__ = [
    "delaunay",
    "random_geometric",
    "rmat",
    "grid2d",
    "grid3d",
    "road_like",
    "random_bipartite",
    "hk_ladder",
    "uniform_costs",
]

_MAX_N = 2**31 - 2  # vertex ids must fit in int32 for the CPU/GPU kernels' fast path


def _pattern(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int], *, symmetric: bool) -> sp.csr_array:
    """Canonical boolean CSR of the edges (rows, cols); symmetrised without self loops if asked.

    The same matrix as SciPy's COO -> CSR + ``sum_duplicates``, built by :func:`_csr_from_cycles`.
    """
    it = _index_dtype(shape)
    ends = np.empty((len(rows), 2), dtype=it)
    ends[:, 0] = rows
    ends[:, 1] = cols
    return _csr_from_cycles(ends, shape, symmetric)


def _triangles_pattern(tri: np.ndarray, n: int) -> sp.csr_array:
    """Canonical symmetric CSR of the edges of the triangles ``tri`` (m, 3) on n vertices."""
    return _csr_from_cycles(np.ascontiguousarray(tri, dtype=_index_dtype((n, n))), (n, n), True)


def _index_dtype(shape: tuple[int, int]) -> type:
    return np.int32 if max(shape) < 2**31 else np.int64


def _csr_from_cycles(ends: np.ndarray, shape: tuple[int, int], symmetric: bool) -> sp.csr_array:
    """Canonical boolean CSR of the edges of ``ends`` (m, w): one edge (ends[t, 0], ends[t, 1]) per row
    for w = 2, the w edges of the cycle ends[t, 0] -> ... -> ends[t, w-1] -> ends[t, 0] for w >= 3;
    ``symmetric`` adds the reversed edges and drops self loops.

    Counting sort (:func:`_csr_count_kernel`, :func:`_csr_fill_kernel`), then a parallel per-row
    sort and de-duplication - several times faster than SciPy's COO -> CSR + ``sum_duplicates``
    for the 10^8-entry paper inputs, and with less memory (no int64 COO copies).
    """
    n_r = shape[0]
    counts = _csr_count_kernel(ends, n_r, symmetric)
    indptr = np.zeros(n_r + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=_index_dtype(shape))
    parts = numba.get_num_threads()
    bounds = np.searchsorted(indptr, np.arange(parts + 1) * (len(indices) // parts))
    bounds[0], bounds[parts] = 0, n_r  # thread p fills rows bounds[p]:bounds[p+1] (~equal entries)
    _csr_fill_kernel(ends, indptr, indices, symmetric, bounds)
    return _csr_canonical(indptr, indices, shape)


def _csr_canonical(indptr: np.ndarray, indices: np.ndarray, shape: tuple[int, int]) -> sp.csr_array:
    """Sort and de-duplicate every row of (indptr, indices) in parallel; boolean canonical CSR."""
    kept = _csr_sort_unique_kernel(indptr, indices)
    new_ptr = np.zeros(shape[0] + 1, dtype=np.int64)
    np.cumsum(kept, out=new_ptr[1:])
    nnz = int(new_ptr[-1])
    if nnz != len(indices):
        out = np.empty(nnz, dtype=indices.dtype)
        _csr_compact_kernel(indptr, indices, new_ptr, out)
        indices = out
    it = np.int32 if max(*shape, nnz) < 2**31 else np.int64
    a = sp.csr_array((np.ones(nnz, dtype=np.bool_), indices.astype(it, copy=False),
                      new_ptr.astype(it, copy=False)), shape=shape)
    a.has_sorted_indices = True
    a.has_canonical_format = True
    return a


@numba.njit(cache=True)
def _csr_count_kernel(ends, n_rows, symmetric):  # pragma: no cover - numba
    """Row lengths, duplicates included, of the edges of ``ends`` (see :func:`_csr_from_cycles`)."""
    counts = np.zeros(n_rows, dtype=np.int64)
    w = ends.shape[1]
    n_edges = w if w > 2 else 1
    for t in range(ends.shape[0]):
        for j in range(n_edges):
            r = ends[t, j]
            c = ends[t, (j + 1) % w]
            if not symmetric:
                counts[r] += 1
            elif r != c:
                counts[r] += 1
                counts[c] += 1
    return counts


@numba.njit(cache=True, parallel=True)
def _csr_fill_kernel(ends, indptr, indices, symmetric, bounds):  # pragma: no cover - numba
    """Counting-sort fill; thread p owns rows bounds[p]:bounds[p+1] and scans all edges for them."""
    pos = indptr[:-1].copy()
    w = ends.shape[1]
    n_edges = w if w > 2 else 1
    for p in numba.prange(len(bounds) - 1):
        lo = bounds[p]
        hi = bounds[p + 1]
        for t in range(ends.shape[0]):
            for j in range(n_edges):
                r = ends[t, j]
                c = ends[t, (j + 1) % w]
                if symmetric and r == c:
                    continue
                if lo <= r < hi:
                    indices[pos[r]] = c
                    pos[r] += 1
                if symmetric and lo <= c < hi:
                    indices[pos[c]] = r
                    pos[c] += 1


@numba.njit(cache=True, inline="always")
def _sort_row_dev(a, lo, hi):  # pragma: no cover - numba
    """Sort a[lo:hi] in place: Shell sort (gaps 3h+1), plain insertion sort for short rows."""
    h = 1
    while 3 * h + 1 < (hi - lo) // 3:
        h = 3 * h + 1
    while h >= 1:
        for i in range(lo + h, hi):
            v = a[i]
            j = i - h
            while j >= lo and a[j] > v:
                a[j + h] = a[j]
                j -= h
            a[j + h] = v
        h //= 3


@numba.njit(cache=True, parallel=True)
def _csr_sort_unique_kernel(indptr, indices):  # pragma: no cover - numba
    """Sort every row and move its distinct columns to the row's front; returns the distinct counts."""
    n = len(indptr) - 1
    kept = np.zeros(n, dtype=np.int64)
    for i in numba.prange(n):
        lo = indptr[i]
        hi = indptr[i + 1]
        if hi == lo:
            continue
        _sort_row_dev(indices, lo, hi)
        w = lo + 1
        for k in range(lo + 1, hi):
            if indices[k] != indices[w - 1]:
                indices[w] = indices[k]
                w += 1
        kept[i] = w - lo
    return kept


@numba.njit(cache=True, parallel=True)
def _csr_compact_kernel(indptr, indices, new_ptr, out):  # pragma: no cover - numba
    for i in numba.prange(len(indptr) - 1):
        src = indptr[i]
        for k in range(new_ptr[i + 1] - new_ptr[i]):
            out[new_ptr[i] + k] = indices[src + k]


def _empty(n_rows: int, n_cols: int | None = None) -> sp.csr_array:
    n_cols = n_rows if n_cols is None else n_cols
    return sp.csr_array((np.zeros(0, dtype=np.bool_), np.zeros(0, dtype=np.int32),
                         np.zeros(n_rows + 1, dtype=np.int32)), shape=(n_rows, n_cols))


# --------------------------------------------------------------------------- meshes
_ORDERS = ("hilbert", "random")


def _hilbert_order(pts: np.ndarray, bits: int = 16) -> np.ndarray:
    """Permutation sorting points of the unit square along a Hilbert curve (2^bits cells a side).

    Stable in the curve index d (ties keep the input order): the sort key is ``d * 2^31 + i``.
    """
    n = len(pts)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    d = _hilbert_index_kernel(np.ascontiguousarray(pts, dtype=np.float64), bits)
    if bits > 16 or n >= 2**31:  # the packed key would overflow int64
        return np.argsort(d, kind="stable")
    key = d << np.int64(31)
    key |= np.arange(n, dtype=np.int64)
    key.sort()  # distinct keys: any sort gives the stable order of d
    key &= np.int64(2**31 - 1)
    return key


@numba.njit(cache=True, parallel=True)
def _hilbert_index_kernel(pts, bits):  # pragma: no cover - numba
    """The classic xy -> d map of the Hilbert curve, one quadrant level per step, per point."""
    side = np.int64(1) << bits
    n = pts.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in numba.prange(n):
        x = min(np.int64(pts[i, 0] * side), side - 1)
        y = min(np.int64(pts[i, 1] * side), side - 1)
        d = np.int64(0)
        s = side >> 1
        while s > 0:  # branch-free: side - 1 - x == (side - 1) ^ x for 0 <= x < side
            rx = (x & s) != 0
            ry = (y & s) != 0
            d += s * s * ((3 * np.int64(rx)) ^ np.int64(ry))
            flip = -np.int64(rx and not ry) & (side - 1)
            x ^= flip
            y ^= flip
            t = (x ^ y) & -np.int64(not ry)
            x ^= t
            y ^= t
            s >>= 1
        out[i] = d
    return out


def _points(n: int, rng: np.random.Generator, order: str) -> np.ndarray:
    """n uniform points of the unit square, labelled along a Hilbert curve or at random."""
    pts = rng.random((n, 2))
    if order == "hilbert":
        pts = pts[_hilbert_order(pts)]
    return pts


_PARALLEL_MIN_N = 1 << 18  # below this one Qhull call is fast enough
_MIN_STRIP_POINTS = 1 << 16  # fewer strips than workers rather than tiny strips
_HALO = 3.5  # strip halo, in units of the mean point spacing 1 / sqrt(n)
_BAND = 3.0  # height of the top / bottom bands, in halos


def delaunay(n: int, seed: Any = 0, *, order: str = "hilbert", workers: int | None = None,
             _strips: int | None = None, _halo: float | None = None) -> sp.csr_array:
    """Delaunay triangulation of ``n`` uniform random points in the unit square.

    This is how the DIMACS10 ``delaunay_nXX`` graphs were made (n = 2^XX points,
    ``scipy.spatial.Delaunay`` here); the result has about ``6 n`` stored entries
    (3n undirected edges). ``n`` = 0, 1, 2 give the empty graph, one vertex, one edge.
    ``order="hilbert"`` labels the points along a Hilbert curve, so that, as in the DIMACS10
    files, neighbours have nearby labels (good cache locality); ``order="random"`` keeps
    the random labels (a harder, cache-hostile variant).

    ``workers`` processes (default ``os.cpu_count()``) triangulate vertical strips with a halo
    in parallel when ``n >= 2**18``; ``workers=1`` is one Qhull call. The parallel result is the
    same graph: a strip keeps a triangle only when its circumcentre lies in the strip's core and
    its circumcircle (within the square) lies inside the strip plus halo - then every point
    inside the circle was triangulated with it, so the triangle is Delaunay for all points.
    Triangles near the top / bottom sides (thin, with huge circles) are certified the same way
    by two horizontal bands. The union of the certified edges must have exactly ``3n - 3 - h``
    edges (h hull vertices); otherwise the halo is widened and, failing that, the single call
    is made, so a wrong triangulation is never returned. Random float points are in general
    position with probability 1; with exactly cocircular points the triangulation is not
    unique, both diagonals get certified, the count check fails and the single Qhull call
    decides. ``_strips`` / ``_halo`` force the strip count / halo (tests only).

    Examples
    --------
    >>> from matchflow.generators import delaunay
    >>> A = delaunay(10, seed=0)
    >>> A.shape, bool((A != A.T).nnz == 0)  # symmetric, about 6 n stored entries
    ((10, 10), True)
    """
    n = check_int("n", n, low=0, high=_MAX_N)
    check_choice("order", order, _ORDERS)
    workers = (os.cpu_count() or 1) if workers is None else check_int("workers", workers, low=1)
    rng = _rng(seed)
    if n < 3:
        if n == 2:
            return _pattern(np.array([0]), np.array([1]), (2, 2), symmetric=True)
        return _empty(n)
    pts = _points(n, rng, order)
    # Qhull inserts points incrementally: feeding them in Hilbert order (then mapping back
    # to the labels) is faster and does not change the triangulation.
    perm = np.arange(n, dtype=np.int32) if order == "hilbert" else _hilbert_order(pts).astype(np.int32)
    strips = _strips if _strips is not None else (
        min(workers, n // _MIN_STRIP_POINTS) if n >= _PARALLEL_MIN_N else 1)
    fed = pts if order == "hilbert" else pts[perm]
    if strips >= 2:
        halo = _halo if _halo is not None else _HALO / math.sqrt(n)
        for grow in (1.0, 4.0):
            a = _delaunay_strips(fed, perm, strips, halo * grow, workers)
            if a is not None:
                return a
    from scipy.spatial import Delaunay  # noqa: PLC0415 - scipy.spatial costs ~0.4 s at import; only Delaunay needs it

    tri = perm[Delaunay(fed).simplices]  # (n_triangles, 3), labels of pts
    return _triangles_pattern(tri, n)


_DT_SHARED: tuple[np.ndarray, np.ndarray] | None = None  # (points, labels), inherited by forked workers


def _delaunay_strips(pts: np.ndarray, labels: np.ndarray, k: int, halo: float,
                     workers: int) -> sp.csr_array | None:
    """Delaunay edges of ``pts`` from k strips and 2 bands; None when the edge count is wrong."""
    global _DT_SHARED

    from scipy.spatial import ConvexHull  # noqa: PLC0415 - scipy.spatial costs ~0.4 s at import; only Delaunay needs it

    n = len(pts)
    band = min(_BAND * halo, 0.5)
    cuts = np.linspace(0.0, 1.0, k + 1)
    # the two small bands first, so that they do not trail the strips
    jobs: list[tuple] = [("bottom", band), ("top", band)]
    jobs += [("strip", cuts[j], cuts[j + 1], j == 0, j == k - 1, halo) for j in range(k)]
    results = None
    if workers > 1:
        # the strips run in processes (Qhull holds the GIL); forked workers inherit the points
        fork = "fork" in mp.get_all_start_methods()
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
                if fork:
                    _DT_SHARED = (pts, labels)
                    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=mp.get_context("fork")) as ex:
                        results = list(ex.map(_delaunay_job, jobs))
                else:  # pragma: no cover - spawn platforms: each job gets the points
                    with ProcessPoolExecutor(min(workers, len(jobs))) as ex:
                        results = list(ex.map(_delaunay_job, jobs, [(pts, labels)] * len(jobs)))
        except (OSError, BrokenProcessPool):  # pragma: no cover - no processes here: run the jobs in turn
            results = None
        finally:
            _DT_SHARED = None
    if results is None:
        results = [_delaunay_job(job, (pts, labels)) for job in jobs]
    if any(r is None for r in results):
        return None
    tri = np.concatenate([r[0] for r in results])
    hull_candidates = np.unique(np.concatenate([r[1] for r in results]))
    h = len(ConvexHull(pts[_inverse(labels)[hull_candidates]]).vertices)
    a = _triangles_pattern(tri, n)
    return a if a.nnz == 2 * (3 * n - 3 - h) else None


def _inverse(perm: np.ndarray) -> np.ndarray:
    inv = np.empty(len(perm), dtype=np.int64)
    inv[perm] = np.arange(len(perm), dtype=np.int64)
    return inv


def _delaunay_job(job: tuple, data: tuple[np.ndarray, np.ndarray] | None = None
                  ) -> tuple[np.ndarray, np.ndarray] | None:
    """Triangulate one strip / band; return its certified triangles and hull vertices (labels).

    None when Qhull fails on the job's points (the caller then falls back to the single call).

    A strip (core [lo, hi), halo ``halo``) takes the points with lo - halo <= x < hi + halo
    (unbounded at the square's left / right sides); a band the points with y < band (bottom)
    or y >= 1 - band (top). Triangles are certified by :func:`_circles`' disk extents.
    """
    from scipy.spatial import Delaunay, QhullError  # noqa: PLC0415 - scipy.spatial costs ~0.4 s at import; only Delaunay needs it

    pts, labels = data if data is not None else _DT_SHARED
    margin = 1e-9  # far above the circumcircle rounding error of non-degenerate triangles
    if job[0] == "strip":
        _, lo, hi, first, last, halo = job
        in_lo = -np.inf if first else lo - halo
        in_hi = np.inf if last else hi + halo
        x = pts[:, 0]
        idx = np.flatnonzero((x >= in_lo) & (x < in_hi))
    else:
        kind, band = job
        y = pts[:, 1]
        idx = np.flatnonzero(y < band if kind == "bottom" else y >= 1.0 - band)
    empty = np.zeros((0, 3), dtype=labels.dtype)
    if len(idx) < 3:
        return empty, labels[idx]
    p = pts[idx]
    lab = labels[idx]
    try:
        tri = Delaunay(p)
    except QhullError:  # e.g. a band of collinear points
        return None
    hull = lab[np.unique(tri.convex_hull)]
    s = tri.simplices
    t_lab = lab[s]
    o = np.argsort(t_lab, axis=1)  # vertices by label: every job computes the same circle bits
    s = np.take_along_axis(s, o, axis=1)
    t_lab = np.take_along_axis(t_lab, o, axis=1)
    ox, oy, w, top, bottom = _circles(p[s[:, 0]], p[s[:, 1]], p[s[:, 2]])
    with np.errstate(invalid="ignore"):
        if job[0] == "strip":
            own = np.isfinite(ox) & np.isfinite(w)
            if not first:
                own &= (ox >= lo) & (ox - w >= in_lo + margin)
            if not last:
                own &= (ox < hi) & (ox + w <= in_hi - margin)
        elif job[0] == "bottom":
            own = top <= band - margin
        else:
            own = bottom >= 1.0 - band + margin
    return t_lab[own], hull


def _circles(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, ...]:
    """Circumcircles of triangles (a, b, c) and their extent inside the slab 0 <= y <= 1.

    Returns the centre (ox, oy), the half-width w of disk-and-slab in x (all points of the
    square inside the circle have |x - ox| <= w), and the circle's top / bottom y. The
    formulas avoid cancellation for the huge circles of thin triangles on the square's sides:
    R^2 - (yc - oy)^2 = ux^2 + (ay - yc)(ay + yc - 2 oy) with u = centre - a.
    Degenerate (flat) triangles give NaN or inf, which no test accepts.
    """
    ax, ay = a[:, 0], a[:, 1]
    bx, by = b[:, 0] - ax, b[:, 1] - ay
    cx, cy = c[:, 0] - ax, c[:, 1] - ay
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        d = 2.0 * (bx * cy - by * cx)
        b2 = bx * bx + by * by
        c2 = cx * cx + cy * cy
        ux = (cy * b2 - by * c2) / d
        uy = (bx * c2 - cx * b2) / d
        ox, oy = ax + ux, ay + uy
        r = np.sqrt(ux * ux + uy * uy)
        yc = np.clip(oy, 0.0, 1.0)
        w = np.sqrt(np.maximum(ux * ux + (ay - yc) * (ay + yc - 2.0 * oy), 0.0))
        # top = oy + r; below the square (oy < 0): (r^2 - oy^2) / (r - oy) without cancellation
        top = np.where(oy >= 0, oy + r, (ux * ux + ay * (ay - 2.0 * oy)) / (r - oy))
        # bottom = oy - r; above the square (oy > 1): mirror y -> 1 - y
        my, moy = 1.0 - ay, 1.0 - oy
        bottom = np.where(oy <= 1.0, oy - r, 1.0 - (ux * ux + my * (my - 2.0 * moy)) / (r - moy))
    return ox, oy, w, top, bottom


def _rgg_radius(n: int, avg_degree: float) -> float:
    """Radius r with expected degree (n - 1) * P(|p - q| <= r) = avg_degree in the unit square.

    P(|p - q| <= r) = pi r^2 - 8/3 r^3 + r^4 / 2 for r <= 1 (boundary effects included).
    """
    target = avg_degree / max(n - 1, 1)
    r = math.sqrt(target / math.pi)
    for _ in range(50):  # Newton; the area function is increasing on [0, 1]
        f = math.pi * r * r - 8.0 / 3.0 * r**3 + 0.5 * r**4 - target
        df = 2 * math.pi * r - 8 * r * r + 2 * r**3
        if df <= 0:
            break
        step = f / df
        r = min(max(r - step, 1e-12), 1.0)
        if abs(step) < 1e-15:
            break
    return r


def random_geometric(n: int, avg_degree: float = 10.0, seed: Any = 0, *, radius: float | None = None,
                     order: str = "hilbert") -> sp.csr_array:
    """Random geometric graph: ``n`` uniform points in the unit square, an edge when closer than r.

    Mirrors DIMACS10 ``rgg_n_2_XX_s0`` (which uses r = 0.55 sqrt(ln n / n), average degree
    about 10 at n = 2^15). The radius is chosen so that the expected average degree is
    ``avg_degree`` (boundary effects included), unless ``radius`` is given. Pairs at distance
    <= r are found by a parallel cell list (:func:`_rgg_cells`), the same edge set as
    ``scipy.spatial.cKDTree.query_pairs`` (2^24 vertices, degree 13: seconds on 16 cores).
    ``order`` labels the points along a Hilbert curve (nearby labels for nearby points, as in
    the DIMACS10 files) or at random.

    Examples
    --------
    >>> from matchflow.generators import random_geometric
    >>> A = random_geometric(20, avg_degree=4, seed=0)
    >>> A.shape, bool((A != A.T).nnz == 0)
    ((20, 20), True)
    """
    n = check_int("n", n, low=0, high=_MAX_N)
    check_choice("order", order, _ORDERS)
    if radius is None:
        avg_degree = check_real("avg_degree", avg_degree, low=0.0)
        if n > 1 and avg_degree > n - 1:
            raise ValueError(f"avg_degree must be <= n - 1 = {n - 1}, got {avg_degree!r}")
    else:
        radius = check_real("radius", radius, low=0.0)
    rng = _rng(seed)
    if n < 2:
        return _empty(n)
    pts = _points(n, rng, order)
    r = radius if radius is not None else (_rgg_radius(n, avg_degree) if avg_degree > 0 else 0.0)
    if r <= 0:
        return _empty(n)
    return _rgg_cells(pts, r)


def _rgg_cells(pts: np.ndarray, r: float) -> sp.csr_array:
    """Canonical CSR of the pairs at distance <= r, by a cell list (cells of side >= r).

    The same test as ``cKDTree.query_pairs`` (``dx*dx + dy*dy <= r*r`` in float64), so the same
    edge set; both directions are found per row, so the CSR is built directly (count pass,
    prefix sum, fill pass with a per-row sort), in parallel over the points in label order.
    """
    n = len(pts)
    # cells of side 1/g >= r (1 + 1e-9), so rounding never hides a neighbour two cells away;
    # at most ~n cells (coarser cells stay correct)
    g = max(1, int(min(1.0 / (r * (1.0 + 1e-9)), float(math.isqrt(n)))))
    xs = np.ascontiguousarray(pts[:, 0])
    ys = np.ascontiguousarray(pts[:, 1])
    cell = np.minimum((xs * g).astype(np.int64), g - 1) * g + np.minimum((ys * g).astype(np.int64), g - 1)
    order = np.argsort(cell, kind="stable")
    start = np.zeros(g * g + 1, dtype=np.int64)
    np.cumsum(np.bincount(cell, minlength=g * g), out=start[1:])
    sx, sy = xs[order], ys[order]
    it = np.int32 if n < 2**31 else np.int64
    label = order.astype(it)
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n, dtype=np.int64)
    r2 = r * r
    indptr = np.zeros(n + 1, dtype=np.int64)
    none = np.zeros(0, dtype=it)
    _rgg_rows_kernel(sx, sy, label, pos, cell, start, g, r2, indptr, none, False)  # degrees in indptr[1:]
    np.cumsum(indptr, out=indptr)
    indices = np.empty(int(indptr[-1]), dtype=it)
    _rgg_rows_kernel(sx, sy, label, pos, cell, start, g, r2, indptr, indices, True)
    it = np.int32 if max(n, len(indices)) < 2**31 else np.int64
    a = sp.csr_array((np.ones(len(indices), dtype=np.bool_), indices.astype(it, copy=False), indptr.astype(it)),
                     shape=(n, n))
    a.has_sorted_indices = True
    a.has_canonical_format = True
    return a


@numba.njit(cache=True, parallel=True)
def _rgg_rows_kernel(sx, sy, label, pos, cell, start, g, r2, indptr, indices, write):  # pragma: no cover
    """Row i of the RGG: the points of the 3 x 3 cells around point i within r, in label order.

    ``write=False`` stores the degrees in indptr[1:]; ``write=True`` writes the neighbour labels
    into indices[indptr[i]:indptr[i+1]] and sorts them. Points are visited in label order
    (sequential writes; Hilbert labels make the reads local).
    """
    for i in numba.prange(len(pos)):
        k = pos[i]
        c = cell[i]
        cx = c // g
        cy = c - cx * g
        x = sx[k]
        y = sy[k]
        w = indptr[i] if write else 0
        for ax in range(max(cx - 1, 0), min(cx + 2, g)):
            for ay in range(max(cy - 1, 0), min(cy + 2, g)):
                b = ax * g + ay
                for q in range(start[b], start[b + 1]):
                    dx = x - sx[q]
                    dy = y - sy[q]
                    if dx * dx + dy * dy <= r2 and q != k:
                        if write:
                            indices[w] = label[q]
                        w += 1
        if write:
            _sort_row_dev(indices, indptr[i], w)
        else:
            indptr[i + 1] = w


# --------------------------------------------------------------------------- R-MAT
def rmat(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19, c: float = 0.19,
         seed: Any = 0, symmetric: bool = True, *, permute: bool = True) -> sp.csr_array:
    """Graph500 R-MAT / Kronecker graph with ``2**scale`` vertices and ``edge_factor * 2**scale`` draws.

    Each edge picks one quadrant per bit of its (row, column) label with probabilities
    ``a, b, c, d = 1 - a - b - c`` (Chakrabarti et al.; Graph500 uses 0.57, 0.19, 0.19, 0.05),
    vectorised over all edges bit by bit. Vertex labels are then randomly permuted as in the
    Graph500 generator (``permute=False`` keeps the skewed labels). Self loops and duplicates
    are removed; with ``symmetric=True`` the result is the undirected graph, like the
    SuiteSparse ``kron_g500-lognXX`` matrices, otherwise the directed adjacency matrix.

    Examples
    --------
    >>> from matchflow.generators import rmat
    >>> A = rmat(4, edge_factor=4, seed=0)  # 16 vertices, 64 draws
    >>> A.shape, bool((A != A.T).nnz == 0), int(A.diagonal().sum())
    ((16, 16), True, 0)

    References
    ----------
    .. [1] Chakrabarti, D., Zhan, Y., and Faloutsos, C., "R-MAT: a recursive model for graph mining", SIAM
           International Conference on Data Mining (SDM), 442-446, 2004. DOI:10.1137/1.9781611972740.43
    """
    scale = check_int("scale", scale, low=0, high=30)
    edge_factor = check_int("edge_factor", edge_factor, low=0)
    a = check_real("a", a, low=0.0, high=1.0)
    b = check_real("b", b, low=0.0, high=1.0)
    c = check_real("c", c, low=0.0, high=1.0)
    if a + b + c > 1.0 + 1e-12:
        raise ValueError(f"a + b + c must be <= 1 (d = 1 - a - b - c), got a + b + c = {a + b + c!r}")
    symmetric = check_bool("symmetric", symmetric)
    permute = check_bool("permute", permute)
    rng = _rng(seed)
    n = 1 << scale
    m = edge_factor * n
    it = np.int32 if n < 2**31 else np.int64
    rows = np.zeros(m, dtype=it)
    cols = np.zeros(m, dtype=it)
    ab, abc = a + b, a + b + c
    for bit in range(scale):
        u = rng.random(m, dtype=np.float32)
        row_bit = u >= ab                              # quadrants c, d: lower half
        col_bit = ((u >= a) & (u < ab)) | (u >= abc)   # quadrants b, d: right half
        rows |= row_bit.astype(it) << bit
        cols |= col_bit.astype(it) << bit
        del u, row_bit, col_bit
    if permute and n > 1:
        perm = rng.permutation(n).astype(it)
        rows, cols = perm[rows], perm[cols]
    if not symmetric:
        keep = rows != cols
        return _pattern(rows[keep], cols[keep], (n, n), symmetric=False)
    return _pattern(rows, cols, (n, n), symmetric=True)


# --------------------------------------------------------------------------- lattices
def _grid_edges(dims: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    ids = np.arange(math.prod(dims), dtype=np.int64).reshape(dims)
    us, vs = [], []
    for axis in range(len(dims)):
        lo = [slice(None)] * len(dims)
        hi = [slice(None)] * len(dims)
        lo[axis] = slice(0, -1)
        hi[axis] = slice(1, None)
        us.append(ids[tuple(lo)].ravel())
        vs.append(ids[tuple(hi)].ravel())
    return np.concatenate(us), np.concatenate(vs)


def grid2d(nx: int, ny: int, holes: float = 0.0, seed: Any = 0) -> sp.csr_array:
    """``nx`` by ``ny`` 4-neighbour lattice (vertex ``i * ny + j``).

    ``holes`` (0 <= holes <= 0.9) removes about that fraction of the vertices as random
    disks (radius 2..8 % of the smaller side), then renumbers the survivors in order - an
    imitation of the DIMACS10 ``hugetrace``/``hugebubbles`` meshes, which have many holes
    and long boundaries where matching heuristics leave hard augmenting paths.

    Examples
    --------
    >>> from matchflow.generators import grid2d
    >>> A = grid2d(3, 4)  # 3 x 4 vertices, 17 edges
    >>> A.shape, A.nnz
    ((12, 12), 34)
    """
    nx = check_int("nx", nx, low=0)
    ny = check_int("ny", ny, low=0)
    holes = check_real("holes", holes, low=0.0, high=0.9)
    if nx * ny > _MAX_N:
        raise ValueError(f"nx * ny must be <= {_MAX_N}, got {nx * ny}")
    rng = _rng(seed)
    n = nx * ny
    if n == 0:
        return _empty(0)
    u, v = _grid_edges((nx, ny))
    if holes <= 0:
        return _pattern(u, v, (n, n), symmetric=True)
    removed = np.zeros((nx, ny), dtype=bool)
    side = min(nx, ny)
    target = holes * n
    n_removed = 0
    for _ in range(100000):  # each disk removes >= 1 vertex, so this ends well before
        if n_removed >= target:
            break
        rad = max(0.5, rng.uniform(0.02, 0.08) * side)
        cx, cy = rng.uniform(0, nx), rng.uniform(0, ny)
        x0, x1 = max(0, int(cx - rad)), min(nx, int(cx + rad) + 2)
        y0, y1 = max(0, int(cy - rad)), min(ny, int(cy + rad) + 2)
        xs = np.arange(x0, x1)[:, None]
        ys = np.arange(y0, y1)[None, :]
        disk = (xs + 0.5 - cx) ** 2 + (ys + 0.5 - cy) ** 2 <= rad * rad
        block = removed[x0:x1, y0:y1]
        n_removed += int(np.count_nonzero(disk & ~block))
        block |= disk
    keep = ~removed.ravel()
    new_id = np.cumsum(keep) - 1
    ok = keep[u] & keep[v]
    m = int(keep.sum())
    return _pattern(new_id[u[ok]], new_id[v[ok]], (m, m), symmetric=True)


def grid3d(nx: int, ny: int, nz: int) -> sp.csr_array:
    """``nx`` by ``ny`` by ``nz`` 6-neighbour lattice (vertex ``(i * ny + j) * nz + k``): 3-D FE/FD stencils.

    Examples
    --------
    >>> from matchflow.generators import grid3d
    >>> A = grid3d(2, 2, 2)  # a cube: 8 vertices, 12 edges
    >>> A.shape, A.nnz
    ((8, 8), 24)
    """
    nx = check_int("nx", nx, low=0)
    ny = check_int("ny", ny, low=0)
    nz = check_int("nz", nz, low=0)
    n = nx * ny * nz
    if n > _MAX_N:
        raise ValueError(f"nx * ny * nz must be <= {_MAX_N}, got {n}")
    if n == 0:
        return _empty(0)
    u, v = _grid_edges((nx, ny, nz))
    return _pattern(u, v, (n, n), symmetric=True)


def road_like(n: int, seed: Any = 0, *, p_delete: float = 0.3) -> sp.csr_array:
    """A road-network-like planar graph with exactly ``n`` vertices (average degree about 2.3).

    A k by k grid of intersections (k ~ sqrt(n / 2.4)) loses each street with probability
    ``p_delete`` (dead ends, irregular blocks), then every remaining street is subdivided
    into a chain of degree-2 vertices (the ``n - k^2`` extra vertices are spread at random),
    like OSM road graphs (``roadNet-*``, ``italy_osm``, the ``*-roads`` inputs in
    ../shared/data). Vertices are numbered along the streets, so ids keep spatial locality.

    Examples
    --------
    >>> from matchflow.generators import road_like
    >>> road_like(50, seed=0).shape
    (50, 50)
    """
    n = check_int("n", n, low=0, high=_MAX_N)
    p_delete = check_real("p_delete", p_delete, low=0.0, high=0.9)
    rng = _rng(seed)
    if n < 4:  # too small for a grid: a path
        return _pattern(np.arange(n - 1), np.arange(1, n), (n, n), symmetric=True) if n > 1 else _empty(n)
    k = max(2, int(math.sqrt(n / 2.4)))
    while k * k > n:
        k -= 1
    u, v = _grid_edges((k, k))
    keep = rng.random(len(u)) >= p_delete
    if not keep.any():
        keep[rng.integers(len(u))] = True
    u, v = u[keep], v[keep]
    n_chain = n - k * k
    lengths = rng.multinomial(n_chain, np.full(len(u), 1.0 / len(u))) if n_chain else np.zeros(len(u), np.int64)
    # chain vertex t (0-based) of street e gets id k*k + offset[e] + t
    offset = np.zeros(len(u) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offset[1:])
    street = np.repeat(np.arange(len(u)), lengths)
    t = np.arange(n_chain, dtype=np.int64) - offset[street]
    chain_id = k * k + np.arange(n_chain, dtype=np.int64)
    # edges: u -> first, consecutive chain vertices, last -> v; or u -> v when the chain is empty
    has = lengths > 0
    first = k * k + offset[:-1]
    last = first + lengths - 1
    eu = [u[~has], u[has], last[has]]
    ev = [v[~has], first[has], v[has]]
    inner = t[1:] > 0 if n_chain else np.zeros(0, dtype=bool)
    eu.append(chain_id[:-1][inner])
    ev.append(chain_id[1:][inner])
    eu, ev = np.concatenate(eu), np.concatenate(ev)
    # renumber along the streets: intersection i -> key i, chain vertex t of street (u, v) -> u + (t+1)/(len+1)
    key = np.empty(n, dtype=np.float64)
    key[: k * k] = np.arange(k * k)
    if n_chain:
        key[k * k:] = u[street] + (t + 1) / (lengths[street] + 1.0)
    order = np.argsort(key, kind="stable")
    new_id = np.empty(n, dtype=np.int64)
    new_id[order] = np.arange(n)
    return _pattern(new_id[eu], new_id[ev], (n, n), symmetric=True)


# --------------------------------------------------------------------------- bipartite
def _sorted_unique(x: np.ndarray) -> np.ndarray:
    # np.unique's hash path (NumPy >= 2.3) is much slower than a sort here
    x = np.sort(x)
    if len(x) < 2:
        return x
    return x[np.concatenate(([True], x[1:] != x[:-1]))]


def random_bipartite(n_rows: int, n_cols: int, avg_degree: float, seed: Any = 0) -> sp.csr_array:
    """Erdős-Rényi bipartite graph with ``round(n_rows * avg_degree)`` distinct edges drawn uniformly.

    ``avg_degree`` is the average row degree (at most ``n_cols``); this is the random input
    of SciPy's ``sparse_csgraph_matching`` benchmark. Returns an ``n_rows`` by ``n_cols``
    boolean CSR (not symmetric).

    Examples
    --------
    >>> from matchflow.generators import random_bipartite
    >>> A = random_bipartite(5, 6, avg_degree=2, seed=0)
    >>> A.shape, A.nnz
    ((5, 6), 10)
    """
    n_rows = check_int("n_rows", n_rows, low=0)
    n_cols = check_int("n_cols", n_cols, low=0)
    avg_degree = check_real("avg_degree", avg_degree, low=0.0)
    if avg_degree > n_cols:
        raise ValueError(f"avg_degree must be <= n_cols = {n_cols}, got {avg_degree!r}")
    rng = _rng(seed)
    total = n_rows * n_cols
    m = min(int(round(n_rows * avg_degree)), total)
    if m == 0:
        return _empty(n_rows, n_cols)
    if 4 * m >= total:
        lin = rng.choice(total, size=m, replace=False)
    else:
        lin = _sorted_unique(rng.integers(0, total, size=m, dtype=np.int64))
        while len(lin) < m:  # top up the few duplicates
            extra = rng.integers(0, total, size=2 * (m - len(lin)) + 16, dtype=np.int64)
            lin = _sorted_unique(np.concatenate([lin, extra]))
        if len(lin) > m:
            lin = rng.choice(lin, size=m, replace=False)
    return _pattern(lin // n_cols, lin % n_cols, (n_rows, n_cols), symmetric=False)


def hk_ladder(depth: int, copies: int = 1) -> sp.csr_array:
    """Square matrices with a perfect matching on which SciPy's Hopcroft-Karp is exponential in ``depth``.

    One block (3 depth + 1 rows/columns, 8 depth - 1 entries): a free row ``a0`` whose only
    augmenting path is a chain of ``depth`` rows (the last one reaching the free column),
    and a "ladder" of ``depth`` levels of two rows both adjacent to the two columns matched
    into the next level. Once the first phase leaves ``a0`` free, a depth-first search that
    never marks dead ends (scipy issue 26147, chain-like Jacobian patterns) walks all 2^depth
    ladder paths before it tries the chain. The row order puts ``a0`` last and the chain
    columns first, which is what triggers SciPy 1.17. ``copies`` blocks form a block diagonal.

    Examples
    --------
    >>> from matchflow import maximum_bipartite_matching
    >>> from matchflow.generators import hk_ladder
    >>> A = hk_ladder(2)  # 3 * 2 + 1 rows, 8 * 2 - 1 entries
    >>> A.shape, A.nnz
    ((7, 7), 15)
    >>> int((maximum_bipartite_matching(A) >= 0).sum())  # perfect
    7
    """
    depth = check_int("depth", depth, low=1, high=10**6)
    copies = check_int("copies", copies, low=0)
    L = depth
    nb = 3 * L + 1
    # columns: z_0..z_{L-1} = 0..L-1, free column f = L, ladder x_d = L+1+2d, y_d = L+2+2d
    # rows (before reordering): a0 = 0, chain p_k = k (1..L), ladder a_d = L-1+2d, b_d = L+2d (d = 1..L)
    r, c = [0, 0, 0], [0, L + 1, L + 2]
    k = np.arange(1, L + 1)
    r += list(k) + list(k)
    c += list(k - 1) + list(np.where(k < L, k, L))
    d = np.arange(1, L + 1)
    ra, rb = L - 1 + 2 * d, L + 2 * d
    r += list(ra) + list(rb)
    c += list(L + 1 + 2 * (d - 1)) + list(L + 2 + 2 * (d - 1))
    dd = np.arange(1, L)
    for rr in (L - 1 + 2 * dd, L + 2 * dd):
        r += list(rr) + list(rr)
        c += list(L + 1 + 2 * dd) + list(L + 2 + 2 * dd)
    r = np.asarray(r, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    # reorder rows: ladder rows first, then the chain, then a0 last
    new_row = np.empty(nb, dtype=np.int64)
    new_row[L + 1:] = np.arange(2 * L)
    new_row[1:L + 1] = 2 * L + np.arange(L)
    new_row[0] = nb - 1
    r = new_row[r]
    off = np.repeat(np.arange(copies, dtype=np.int64) * nb, len(r))
    rows = np.tile(r, copies) + off
    cols = np.tile(c, copies) + off
    return _pattern(rows, cols, (nb * copies, nb * copies), symmetric=False)


# --------------------------------------------------------------------------- costs
def uniform_costs(n: int, high: float, *, n_cols: int | None = None, seed: Any = 0,
                  dtype: Any = np.int64) -> np.ndarray:
    """Dense ``n`` by ``n_cols`` cost matrix with entries uniform in [0, high].

    Integer dtypes draw integers in [0, high] inclusive - the inputs of Lopes et al. 2019
    (Table 1: ranges 0..0.1n, 0..n and 0..10n); floating dtypes draw reals in [0, high).
    ``n_cols`` defaults to ``n`` (square).

    Examples
    --------
    >>> from matchflow.generators import uniform_costs
    >>> C = uniform_costs(3, 9, seed=0)
    >>> C.shape, C.dtype, bool(((C >= 0) & (C <= 9)).all())
    ((3, 3), dtype('int64'), True)
    """
    n = check_int("n", n, low=0)
    n_cols = n if n_cols is None else check_int("n_cols", n_cols, low=0)
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"dtype must be a NumPy integer or floating dtype, got {dtype!r}") from exc
    rng = _rng(seed)
    if np.issubdtype(dt, np.integer):
        high = check_int("high", high, low=0)
        if high > np.iinfo(dt).max:
            raise ValueError(f"high must be <= {np.iinfo(dt).max} for dtype {dt}, got {high}")
        return rng.integers(0, high, size=(n, n_cols), endpoint=True, dtype=dt)
    if np.issubdtype(dt, np.floating):
        high = check_real("high", high, low=0.0)
        return (rng.random((n, n_cols)) * high).astype(dt, copy=False)
    raise TypeError(f"dtype must be a NumPy integer or floating dtype, got {dt}")


# --------------------------------------------------------------------------- images and volumes (graph cuts)
__all__ += ["blobs", "rmat_weighted"]


def blobs(shape: tuple[int, ...], *, n_blobs: int = 6, noise: float = 0.3, seed: Any = 0) -> np.ndarray:
    """A synthetic 2-D image or 3-D volume for graph-cut segmentation benchmarks (no scikit-image): ``n_blobs``
    discs / balls of intensity 1 on a background of 0 (centres uniform in the middle 80 %, radii 6-18 % of
    the shortest side), plus Gaussian noise of standard deviation ``noise``; float64 of ``shape``.

    Examples
    --------
    >>> from matchflow.generators import blobs
    >>> img = blobs((16, 16), n_blobs=2, seed=0)
    >>> img.shape, img.dtype
    ((16, 16), dtype('float64'))
    """
    shape = tuple(check_int("shape", d, low=1) for d in shape)
    if len(shape) not in (2, 3):
        raise ValueError(f"shape must have 2 or 3 dimensions, got {shape}")
    n_blobs = check_int("n_blobs", n_blobs, low=0)
    noise = check_real("noise", noise, low=0.0)
    rng = _rng(seed)
    img = np.zeros(shape)
    axes = np.ogrid[tuple(slice(0, d) for d in shape)]
    for _ in range(n_blobs):
        c = rng.uniform(0.1, 0.9, len(shape)) * np.array(shape)
        r = rng.uniform(0.06, 0.18) * min(shape)
        d2 = sum((a - ci) ** 2 for a, ci in zip(axes, c, strict=True))
        img[d2 < r * r] = 1.0
    if noise:
        img += noise * rng.standard_normal(shape)
    return img


# --------------------------------------------------------------------------- large weighted R-MAT
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, inline="always")
def _mix64_dev(x):  # pragma: no cover - numba
    """splitmix64's finaliser: a counter-based hash (uint64 -> uint64)."""
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True, parallel=True)
def _rmat_draw_kernel(key, scale, m, a, ab, abc, perm, ends):  # pragma: no cover - numba
    """Edge e's quadrant at bit b from the hash of (key, e, b): independent of the thread count."""
    chunk = 1 << 16
    for c in numba.prange((m + chunk - 1) // chunk):
        for e in range(c * chunk, min(m, (c + 1) * chunk)):
            r = 0
            q = 0
            base = key + np.uint64(e) * np.uint64(scale)
            for bit in range(scale):
                h = _mix64_dev(base + np.uint64(bit))
                u = float(h >> np.uint64(11)) * (1.0 / 9007199254740992.0)
                if u >= ab:
                    r |= 1 << bit
                if (u >= a and u < ab) or u >= abc:
                    q |= 1 << bit
            ends[e, 0] = perm[r]
            ends[e, 1] = perm[q]


@numba.njit(cache=True, parallel=True)
def _pair_weights_kernel(indptr, indices, key, high, out):  # pragma: no cover - numba
    """out[k] = 1 + hash(key, min(i, j), max(i, j)) % high for the entry k = (i, j): symmetric."""
    for i in numba.prange(len(indptr) - 1):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            lo = min(i, j)
            hi = max(i, j)
            h = _mix64_dev(_mix64_dev(key ^ np.uint64(lo)) + np.uint64(hi))
            out[k] = 1 + h % np.uint64(high)


def rmat_weighted(scale: int, edge_factor: int = 16, seed: Any = 0, *, max_weight: int = 2**20,
                  a: float = 0.57, b: float = 0.19, c: float = 0.19) -> sp.csr_array:
    """A large undirected Graph500 R-MAT graph with random integer edge weights, fast (parallel numba).

    Like :func:`rmat` (``2**scale`` vertices, ``edge_factor * 2**scale`` draws, Graph500's a, b, c,
    labels permuted, self loops and duplicates removed) but every draw comes from a counter-based hash
    of (seed, edge, bit), in parallel, and the CSR is built by the parallel counting sort of this
    module: scale 23-24 (10^8+ edges) in seconds on 16 cores. Weights: integers ``1..max_weight`` from a
    hash of the vertex pair (the same in both directions), int32. Deterministic for a seed, independent
    of the thread count; NOT the same graph as :func:`rmat` for that seed.

    Examples
    --------
    >>> from matchflow.generators import rmat_weighted
    >>> A = rmat_weighted(4, edge_factor=4, seed=0, max_weight=100)
    >>> A.shape, A.dtype, bool((A != A.T).nnz == 0), bool(A.data.min() >= 1)
    ((16, 16), dtype('int32'), True, True)
    """
    scale = check_int("scale", scale, low=1, high=30)
    edge_factor = check_int("edge_factor", edge_factor, low=0)
    max_weight = check_int("max_weight", max_weight, low=1, high=2**31 - 1)
    a, b, c = (check_real(x, v, low=0.0, high=1.0) for x, v in (("a", a), ("b", b), ("c", c)))
    if a + b + c > 1.0 + 1e-12:
        raise ValueError(f"a + b + c must be <= 1 (d = 1 - a - b - c), got a + b + c = {a + b + c!r}")
    rng = _rng(seed)
    key = np.uint64(rng.integers(0, 2**63))
    n = 1 << scale
    m = edge_factor * n
    it = np.int32 if n < 2**31 else np.int64
    perm = rng.permutation(n).astype(it)
    ends = np.empty((m, 2), dtype=it)
    _rmat_draw_kernel(key, scale, m, a, a + b, a + b + c, perm, ends)
    g = _csr_from_cycles(ends, (n, n), True)
    del ends
    w = np.empty(len(g.indices), dtype=np.int32)
    _pair_weights_kernel(g.indptr, g.indices, _mix64_dev(key), max_weight, w)
    out = sp.csr_array((w, g.indices, g.indptr), shape=(n, n))
    out.has_sorted_indices = True
    out.has_canonical_format = True
    return out


# --------------------------------------------------------------------------- min-cost flow (DIMACS families)

__all__ += ["netgen", "gridgen", "goto", "transport_instance"]
