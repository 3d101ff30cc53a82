"""Graph and cost-matrix generators for tests and benchmarks.

Every generator is vectorised NumPy/SciPy, deterministic for a given ``seed``
(``numpy.random.default_rng(seed)``) and mirrors a family used in the literature:

* :func:`delaunay` - DIMACS10 ``delaunay_nXX`` (Delaunay triangulations of random points);
* :func:`random_geometric` - DIMACS10 ``rgg_n_2_XX_s0`` (random geometric graphs);
* :func:`rmat` - Graph500 R-MAT / Kronecker graphs (SuiteSparse ``kron_g500-lognXX``);
* :func:`grid2d`, :func:`grid3d` - lattices; ``holes`` imitates ``hugetrace``/``hugebubbles``
  meshes with holes;
* :func:`road_like` - planar road networks (``roadNet-*``, ``italy_osm``): sparse, degree ~2.3;
* :func:`random_bipartite` - Erdős-Rényi bipartite graphs (SciPy's matching benchmark);
* :func:`hk_ladder` - layered "ladder" matrices on which SciPy's Hopcroft-Karp takes time
  exponential in the depth (scipy issue 26147);
* :func:`uniform_costs` - uniform integer cost matrices (Lopes et al. 2019, Table 1).

Graph generators return a ``scipy.sparse.csr_array`` of dtype ``bool`` in canonical form
(sorted indices, no duplicates, no explicit zeros); undirected graphs are symmetric
without self loops. Index arrays are ``int32`` when they fit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._validation import check_bool, check_choice, check_int, check_real, type_name

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


def _rng(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise TypeError(f"seed must be an integer, None or a numpy.random.Generator, got {seed!r} "
                        f"of type {type_name(seed)}")
    if seed is not None and int(seed) < 0:
        raise ValueError(f"seed must be >= 0, got {int(seed)}")
    return np.random.default_rng(seed)


def _pattern(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int], *, symmetric: bool) -> sp.csr_array:
    """Canonical boolean CSR of the edges (rows, cols); symmetrised without self loops if asked."""
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    if symmetric:
        keep = rows != cols
        rows, cols = rows[keep], cols[keep]
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
    n_r, n_c = shape
    it = np.int32 if max(n_r, n_c, 2 * len(rows)) < 2**31 else np.int64
    a = sp.csr_array((np.ones(len(rows), dtype=np.bool_), (rows.astype(it), cols.astype(it))), shape=shape)
    a.sum_duplicates()  # sorts indices and merges duplicates (logical or for bool)
    return _fix_index_dtype(a)


def _fix_index_dtype(a: sp.csr_array) -> sp.csr_array:
    it = np.int32 if max(*a.shape, a.nnz) < 2**31 else np.int64
    if a.indices.dtype != it or a.indptr.dtype != it:
        a = sp.csr_array((a.data, a.indices.astype(it), a.indptr.astype(it)), shape=a.shape)
        a.has_sorted_indices = True
        a.has_canonical_format = True
    return a


def _empty(n_rows: int, n_cols: int | None = None) -> sp.csr_array:
    n_cols = n_rows if n_cols is None else n_cols
    return sp.csr_array((np.zeros(0, dtype=np.bool_), np.zeros(0, dtype=np.int32),
                         np.zeros(n_rows + 1, dtype=np.int32)), shape=(n_rows, n_cols))


# --------------------------------------------------------------------------- meshes
_ORDERS = ("hilbert", "random")


def _hilbert_order(pts: np.ndarray, bits: int = 16) -> np.ndarray:
    """Permutation sorting points of the unit square along a Hilbert curve (2^bits cells a side)."""
    side = 1 << bits
    x = np.minimum((pts[:, 0] * side).astype(np.int64), side - 1)
    y = np.minimum((pts[:, 1] * side).astype(np.int64), side - 1)
    d = np.zeros(len(pts), dtype=np.int64)
    s = side >> 1
    while s > 0:  # the classic xy -> d map, one quadrant level per step, vectorised
        rx = (x & s) > 0
        ry = (y & s) > 0
        d += s * s * ((3 * rx.astype(np.int64)) ^ ry.astype(np.int64))
        flip = ~ry & rx
        x = np.where(flip, side - 1 - x, x)
        y = np.where(flip, side - 1 - y, y)
        swap = ~ry
        x, y = np.where(swap, y, x), np.where(swap, x, y)
        s >>= 1
    return np.argsort(d, kind="stable")


def _points(n: int, rng: np.random.Generator, order: str) -> np.ndarray:
    """n uniform points of the unit square, labelled along a Hilbert curve or at random."""
    pts = rng.random((n, 2))
    if order == "hilbert":
        pts = pts[_hilbert_order(pts)]
    return pts


def delaunay(n: int, seed: Any = 0, *, order: str = "hilbert") -> sp.csr_array:
    """Delaunay triangulation of ``n`` uniform random points in the unit square.

    This is how the DIMACS10 ``delaunay_nXX`` graphs were made (n = 2^XX points,
    ``scipy.spatial.Delaunay`` here); the result has about ``6 n`` stored entries
    (3n undirected edges). ``n`` = 0, 1, 2 give the empty graph, one vertex, one edge.
    ``order="hilbert"`` labels the points along a Hilbert curve, so that, as in the DIMACS10
    files, neighbours have nearby labels (good cache locality); ``order="random"`` keeps
    the random labels (a harder, cache-hostile variant).
    """
    n = check_int("n", n, low=0, high=_MAX_N)
    check_choice("order", order, _ORDERS)
    rng = _rng(seed)
    if n < 3:
        if n == 2:
            return _pattern(np.array([0]), np.array([1]), (2, 2), symmetric=True)
        return _empty(n)
    from scipy.spatial import Delaunay

    pts = _points(n, rng, order)
    # Qhull inserts points incrementally: feeding them in Hilbert order (then mapping back
    # to the labels) is faster and does not change the triangulation.
    perm = np.arange(n) if order == "hilbert" else _hilbert_order(pts)
    tri = perm[Delaunay(pts[perm]).simplices]  # (n_triangles, 3), labels of pts
    u = np.concatenate([tri[:, 0], tri[:, 1], tri[:, 2]])
    v = np.concatenate([tri[:, 1], tri[:, 2], tri[:, 0]])
    return _pattern(u, v, (n, n), symmetric=True)


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
    ``avg_degree`` (boundary effects included), unless ``radius`` is given. Pairs come from
    ``scipy.spatial.cKDTree.query_pairs``. ``order`` labels the points along a Hilbert curve
    (nearby labels for nearby points, as in the DIMACS10 files) or at random.
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
    from scipy.spatial import cKDTree

    pts = _points(n, rng, order)
    r = radius if radius is not None else (_rgg_radius(n, avg_degree) if avg_degree > 0 else 0.0)
    if r <= 0:
        return _empty(n)
    pairs = cKDTree(pts).query_pairs(r, output_type="ndarray")
    return _pattern(pairs[:, 0], pairs[:, 1], (n, n), symmetric=True)


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
    """``nx`` by ``ny`` by ``nz`` 6-neighbour lattice (vertex ``(i * ny + j) * nz + k``): 3-D FE/FD stencils."""
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
