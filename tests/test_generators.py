"""Tests of matchflow.generators: structure, oracles (networkx, brute force, SciPy), seeds, errors."""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, getcontext
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import maximum_bipartite_matching
from scipy.spatial import ConvexHull

from matchflow import generators as gen


def assert_canonical(a: sp.csr_array, shape: tuple[int, int]) -> None:
    assert isinstance(a, sp.csr_array)
    assert a.shape == shape
    assert a.dtype == np.bool_
    assert a.indices.dtype == np.int32 and a.indptr.dtype == np.int32
    assert len(a.indptr) == shape[0] + 1 and a.indptr[0] == 0 and a.indptr[-1] == a.nnz
    assert np.all(a.data)  # no explicit zeros
    for i in range(shape[0]):  # sorted, no duplicates
        row = a.indices[a.indptr[i]:a.indptr[i + 1]]
        assert np.all(np.diff(row) > 0)


def assert_undirected(a: sp.csr_array) -> None:
    assert a.shape[0] == a.shape[1]
    assert (a != a.T).nnz == 0, "not symmetric"
    assert not a.diagonal().any(), "self loop"


def edge_set(a: sp.csr_array) -> set[tuple[int, int]]:
    c = a.tocoo()
    return {(int(i), int(j)) for i, j in zip(c.row, c.col) if i < j}


def same(a: sp.csr_array, b: sp.csr_array) -> bool:
    return a.shape == b.shape and (a != b).nnz == 0


# ------------------------------------------------------------------ Delaunay
@pytest.mark.parametrize("n", [3, 10, 500, 4000])
def test_delaunay_euler_formula(n):
    a = gen.delaunay(n, seed=7)
    assert_canonical(a, (n, n))
    assert_undirected(a)
    # a triangulation of n points in general position with h hull points has 3n - 3 - h edges
    pts = np.random.default_rng(7).random((n, 2))
    h = len(ConvexHull(pts).vertices)
    assert a.nnz // 2 == 3 * n - 3 - h
    assert np.diff(a.indptr).min() >= 2  # every vertex is in a triangle


def test_delaunay_edges_are_delaunay_and_contain_mst():
    # the Euclidean minimum spanning tree is a subgraph of the Delaunay triangulation
    n = 300
    a = gen.delaunay(n, seed=3, order="random")
    pts = np.random.default_rng(3).random((n, 2))
    g = nx.Graph()
    for i, j in itertools.combinations(range(n), 2):
        g.add_edge(i, j, weight=float(np.hypot(*(pts[i] - pts[j]))))
    mst = {(min(u, v), max(u, v)) for u, v in nx.minimum_spanning_edges(g, data=False)}
    assert mst <= edge_set(a)
    assert nx.is_connected(nx.from_scipy_sparse_array(a))


@pytest.mark.parametrize("fn", [lambda o: gen.delaunay(700, seed=4, order=o),
                                lambda o: gen.random_geometric(700, 9, seed=4, order=o)])
def test_hilbert_order_is_a_relabelling_with_locality(fn):
    a, b = fn("hilbert"), fn("random")
    pts = np.random.default_rng(4).random((700, 2))
    # hilbert label i is the point of random label p[i]: same graph, relabelled
    p = gen._hilbert_order(pts)
    assert same(a, sp.csr_array(b[p][:, p]))
    r, c = a.nonzero()
    r2, c2 = b.nonzero()
    assert np.median(np.abs(r - c)) * 5 < np.median(np.abs(r2 - c2))


def test_hilbert_curve_visits_cells_in_order():
    # on a 4 x 4 grid of cell centres the curve moves one cell at a time
    g = (np.arange(4) + 0.5) / 4
    pts = np.array([(x, y) for x in g for y in g])
    path = pts[gen._hilbert_order(pts, bits=2)]
    steps = np.abs(np.diff(path, axis=0)).sum(axis=1)
    assert np.allclose(steps, 0.25)


@pytest.mark.parametrize("n,nnz", [(0, 0), (1, 0), (2, 2), (3, 6)])
def test_delaunay_tiny(n, nnz):
    a = gen.delaunay(n)
    assert a.shape == (n, n) and a.nnz == nnz and a.dtype == np.bool_


def test_delaunay_degree_statistics():
    a = gen.delaunay(20000, seed=1)
    assert 5.9 < a.nnz / 20000 <= 6.0  # average degree 6 - O(sqrt(n)/n)


# ------------------------------------------------------------------ parallel Delaunay (strips + halo)
def same_csr(a: sp.csr_array, b: sp.csr_array) -> bool:
    """Exact CSR equality: shape, dtypes, indptr and indices."""
    return (a.shape == b.shape and a.indptr.dtype == b.indptr.dtype and a.indices.dtype == b.indices.dtype
            and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices))


def _fed_points(n: int, seed: int, order: str) -> tuple[np.ndarray, np.ndarray]:
    pts = gen._points(n, np.random.default_rng(seed), order)
    perm = np.arange(n, dtype=np.int32) if order == "hilbert" else gen._hilbert_order(pts).astype(np.int32)
    return pts[perm], perm


@pytest.mark.parametrize("n,strips,order,seed,pool", [
    (20000, 2, "hilbert", 0, True), (30000, 3, "random", 1, False), (50000, 7, "hilbert", 2, False),
    (25000, 7, "random", 3, True), (100000, 3, "hilbert", 5, False),
])
def test_delaunay_strips_equal_single_call(n, strips, order, seed, pool):
    single = gen.delaunay(n, seed, order=order, workers=1)
    # the strip certificate holds on its first try (no fallback to the single call) ...
    fed, perm = _fed_points(n, seed, order)
    direct = gen._delaunay_strips(fed, perm, strips, gen._HALO / math.sqrt(n), 1)
    assert direct is not None
    assert same_csr(direct, single)
    assert_canonical(direct, (n, n))
    if pool:  # ... and the public path (worker processes) gives the identical CSR
        assert same_csr(gen.delaunay(n, seed, order=order, workers=2, _strips=strips), single)


def test_delaunay_strips_default_path_runs_in_parallel(monkeypatch):
    calls = []
    real = gen._delaunay_strips

    def spy(*args):
        out = real(*args)
        calls.append((args[2], out is not None))
        return out

    monkeypatch.setattr(gen, "_PARALLEL_MIN_N", 1000)
    monkeypatch.setattr(gen, "_MIN_STRIP_POINTS", 10000)
    monkeypatch.setattr(gen, "_delaunay_strips", spy)
    n = 25000  # n // 10000 = 2 strips for 3 workers
    assert same_csr(gen.delaunay(n, seed=9, workers=3), gen.delaunay(n, seed=9, workers=1))
    assert calls == [(2, True)]
    assert same_csr(gen.delaunay(999, seed=9, workers=3), gen.delaunay(999, seed=9, workers=1))
    assert len(calls) == 1  # below _PARALLEL_MIN_N: one Qhull call


def test_delaunay_strips_too_small_halo_is_detected():
    # a halo of 1e-7 misses most triangles across the cuts: the edge count certificate fails
    # (never a wrong graph), the 4x halo fails too, and the single Qhull call decides
    n = 5000
    fed, perm = _fed_points(n, 6, "hilbert")
    assert gen._delaunay_strips(fed, perm, 5, 1e-7, 1) is None
    assert same_csr(gen.delaunay(n, 6, workers=2, _strips=5, _halo=1e-7), gen.delaunay(n, 6, workers=1))
    # the halo that misses a few edges is also caught
    assert gen._delaunay_strips(fed, perm, 5, 0.3 / math.sqrt(n), 1) is None


def test_delaunay_job_qhull_failure_is_reported():
    line = np.column_stack([np.linspace(0.1, 0.9, 6), np.full(6, 0.01)])  # collinear: Qhull refuses
    labels = np.arange(6, dtype=np.int32)
    assert gen._delaunay_job(("bottom", 0.5), (line, labels)) is None
    assert gen._delaunay_strips(line, labels, 2, 0.1, 1) is None  # -> delaunay() makes the single call
    tri, hull = gen._delaunay_job(("bottom", 0.5), (line[:2], labels[:2]))  # < 3 points: nothing to certify
    assert tri.shape == (0, 3) and sorted(hull) == [0, 1]


def test_delaunay_workers_errors():
    with pytest.raises(ValueError, match=r"workers must be >= 1, got 0"):
        gen.delaunay(10, workers=0)
    with pytest.raises(TypeError, match=r"workers must be an integer, got 2.5"):
        gen.delaunay(10, workers=2.5)


def _exact_circle(a, b, c):
    """Circumcentre and top / bottom y of the circle through three float points, in 60-digit decimals."""
    getcontext().prec = 60
    (ax, ay), (bx, by), (cx, cy) = [(Fraction(float(p[0])), Fraction(float(p[1]))) for p in (a, b, c)]
    d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
    a2, b2, c2 = ax * ax + ay * ay, bx * bx + by * by, cx * cx + cy * cy
    ox = (a2 * (by - cy) + b2 * (cy - ay) + c2 * (ay - by)) / d
    oy = (a2 * (cx - bx) + b2 * (ax - cx) + c2 * (bx - ax)) / d
    r2 = (ax - ox) ** 2 + (ay - oy) ** 2

    def dec(f):
        return Decimal(f.numerator) / Decimal(f.denominator)

    r = dec(r2).sqrt()
    yc = min(max(oy, Fraction(0)), Fraction(1))
    w = dec(max(r2 - (yc - oy) ** 2, Fraction(0))).sqrt()
    return dec(ox), dec(oy), w, dec(oy) + r, dec(oy) - r


def test_circles_thin_triangles_on_the_sides():
    # flat triangles along the bottom / top side (huge circles far outside the square) and ordinary ones:
    # the extents inside the square are accurate to ~1e-12 although the centres are ~1e4 away
    tris = [((0.3, 1e-7), (0.7, 2e-7), (0.5, 1.6e-7)),
            ((0.1, 3e-9), (0.45, 1e-9), (0.9, 2.5e-9)),
            ((0.3, 1 - 1e-7), (0.7, 1 - 2e-7), (0.5, 1 - 1.6e-7)),
            ((0.2, 0.3), (0.25, 0.31), (0.22, 0.35)),
            ((0.5, 0.001), (0.52, 0.0005), (0.51, 0.004))]
    rng = np.random.default_rng(0)
    tris += [tuple(map(tuple, rng.random((3, 2)))) for _ in range(20)]
    a, b, c = (np.array([t[k] for t in tris]) for k in range(3))
    got = gen._circles(a, b, c)
    for i, t in enumerate(tris):
        exact = _exact_circle(*t)
        ox, oy = exact[0], exact[1]
        assert abs(Decimal(float(got[0][i])) - ox) <= Decimal("1e-9") * (1 + abs(ox))
        for k in (2, 3, 4):  # w, top, bottom: used near the square only
            if k == 3 and oy > 1 or k == 4 and oy < 0:
                continue  # the far side of a huge circle is never used
            assert abs(Decimal(float(got[k][i])) - exact[k]) <= Decimal("1e-12") * (1 + abs(exact[k])), (i, k)
    # a flat (collinear) triangle gives non-finite values, which no certificate accepts
    flat = gen._circles(np.array([[0.1, 0.1]]), np.array([[0.2, 0.2]]), np.array([[0.3, 0.3]]))
    assert not np.isfinite(flat[0][0]) and not np.isfinite(flat[2][0])


# ------------------------------------------------------------------ CSR building
def _scipy_pattern(rows, cols, shape, symmetric):
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    if symmetric:
        keep = rows != cols
        rows, cols = np.concatenate([rows[keep], cols[keep]]), np.concatenate([cols[keep], rows[keep]])
    a = sp.csr_array((np.ones(len(rows), dtype=np.bool_), (rows, cols)), shape=shape)
    a.sum_duplicates()
    return a


@given(n_r=st.integers(1, 40), n_c=st.integers(1, 40), m=st.integers(0, 300), seed=st.integers(0, 10**6),
       sym=st.booleans(), dtype=st.sampled_from([np.int32, np.int64]))
def test_pattern_matches_scipy(n_r, n_c, m, seed, sym, dtype):
    if sym:
        n_c = n_r
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, n_r, m).astype(dtype)
    cols = rng.integers(0, n_c, m).astype(dtype)  # duplicates and self loops included
    a = gen._pattern(rows, cols, (n_r, n_c), symmetric=sym)
    assert_canonical(a, (n_r, n_c))
    ref = _scipy_pattern(rows, cols, (n_r, n_c), sym)
    assert np.array_equal(a.indptr, ref.indptr) and np.array_equal(a.indices, ref.indices)


def test_pattern_long_rows_and_triangles():
    rng = np.random.default_rng(1)
    rows = np.concatenate([np.zeros(3000, np.int64), rng.integers(0, 500, 2000)])  # a hub row
    cols = rng.integers(0, 2000, 5000)
    a = gen._pattern(rows, cols, (500, 2000), symmetric=False)
    ref = _scipy_pattern(rows, cols, (500, 2000), False)
    assert np.array_equal(a.indptr, ref.indptr) and np.array_equal(a.indices, ref.indices)
    tri = rng.integers(0, 300, (4000, 3)).astype(np.int32)
    t = gen._triangles_pattern(tri, 300)
    e = gen._pattern(tri[:, [0, 1, 2]].ravel(), tri[:, [1, 2, 0]].ravel(), (300, 300), symmetric=True)
    assert same_csr(t, e)
    assert gen._triangles_pattern(np.zeros((0, 3), np.int32), 4).nnz == 0


def _hilbert_reference(pts, bits=16):
    """The vectorised NumPy map of the first version (stable argsort of the curve index)."""
    side = 1 << bits
    x = np.minimum((pts[:, 0] * side).astype(np.int64), side - 1)
    y = np.minimum((pts[:, 1] * side).astype(np.int64), side - 1)
    d = np.zeros(len(pts), dtype=np.int64)
    s = side >> 1
    while s > 0:
        rx, ry = (x & s) > 0, (y & s) > 0
        d += s * s * ((3 * rx.astype(np.int64)) ^ ry.astype(np.int64))
        flip = ~ry & rx
        x, y = np.where(flip, side - 1 - x, x), np.where(flip, side - 1 - y, y)
        x, y = np.where(~ry, y, x), np.where(~ry, x, y)
        s >>= 1
    return np.argsort(d, kind="stable")


@pytest.mark.parametrize("n,bits", [(0, 16), (1, 16), (7, 2), (5000, 16), (5000, 3), (20000, 16)])
def test_hilbert_order_matches_reference(n, bits):
    pts = np.random.default_rng(n).random((n, 2))
    if n > 40:
        pts[:20] = pts[20:40]  # exact ties keep their input order
        pts[40:45] = [[0.0, 0.0], [1 - 1e-17, 0.5], [0.5, 0.9999999999], [0.0, 0.99], [0.25, 0.25]]
    assert np.array_equal(gen._hilbert_order(pts, bits=bits), _hilbert_reference(pts, bits))


# ------------------------------------------------------------------ random geometric
def test_random_geometric_matches_brute_force():
    n, r = 400, 0.08
    a = gen.random_geometric(n, seed=5, radius=r, order="random")
    assert_canonical(a, (n, n))
    assert_undirected(a)
    pts = np.random.default_rng(5).random((n, 2))
    d = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
    expect = {(i, j) for i, j in zip(*np.nonzero(d <= r)) if i < j}
    assert edge_set(a) == expect


@pytest.mark.parametrize("deg", [2.0, 10.0, 30.0])
def test_random_geometric_average_degree(deg):
    n = 30000
    a = gen.random_geometric(n, avg_degree=deg, seed=2)
    assert abs(a.nnz / n - deg) < 0.05 * deg + 0.1  # boundary effects are compensated


def test_random_geometric_edge_cases():
    assert gen.random_geometric(0).shape == (0, 0)
    assert gen.random_geometric(1).nnz == 0
    assert gen.random_geometric(50, avg_degree=0).nnz == 0
    full = gen.random_geometric(20, avg_degree=19, seed=0, radius=2.0)
    assert full.nnz == 20 * 19
    with pytest.raises(ValueError, match=r"avg_degree must be <= n - 1 = 9, got 12"):
        gen.random_geometric(10, avg_degree=12)
    with pytest.raises(ValueError, match=r"radius must be >= 0"):
        gen.random_geometric(10, radius=-1.0)


def _ckdtree_graph(pts, r):
    from scipy.spatial import cKDTree

    p = cKDTree(pts).query_pairs(r, output_type="ndarray")
    return _scipy_pattern(p[:, 0], p[:, 1], (len(pts), len(pts)), True)


@pytest.mark.parametrize("n,r", [(n, r) for n in (2, 3, 50, 500) for r in (5e-324, 1e-3, 0.02, 0.2, 0.7, 1.0, 2.0)]
                         + [(5000, 1e-3), (5000, 0.01), (5000, 0.03)])
def test_rgg_cells_match_ckdtree(n, r):
    pts = np.random.default_rng(n).random((n, 2))
    a = gen._rgg_cells(pts, r)
    assert_canonical(a, (n, n))
    b = _ckdtree_graph(pts, r)
    assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)


@given(k=st.integers(1, 9), r_num=st.integers(1, 12), shuffle=st.integers(0, 1000))
def test_rgg_cells_exact_distances(k, r_num, shuffle):
    # lattice points with exactly representable spacing 1/8: distances equal to r are kept, as in cKDTree
    g = np.arange(k) / 8
    pts = np.array([(x, y) for x in g for y in g])
    pts = pts[np.random.default_rng(shuffle).permutation(len(pts))]
    for r in (r_num / 8, math.sqrt(2) * r_num / 8, np.nextafter(r_num / 8, 0)):
        a = gen._rgg_cells(pts, r)
        b = _ckdtree_graph(pts, r)
        assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)


def test_random_geometric_matches_ckdtree_labels():
    for order in ("hilbert", "random"):
        n = 20000
        a = gen.random_geometric(n, 13.0, seed=3, order=order)
        assert_canonical(a, (n, n))
        pts = gen._points(n, np.random.default_rng(3), order)
        b = _ckdtree_graph(pts, gen._rgg_radius(n, 13.0))
        assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)


# ------------------------------------------------------------------ R-MAT
@pytest.mark.parametrize("scale", [0, 1, 4, 10])
def test_rmat_structure(scale):
    n = 1 << scale
    a = gen.rmat(scale, edge_factor=8, seed=4)
    assert_canonical(a, (n, n))
    assert_undirected(a)
    assert a.nnz <= 2 * 8 * n


def test_rmat_degree_skew_and_directed():
    a = gen.rmat(14, seed=0)
    deg = np.diff(a.indptr)
    assert deg.max() > 20 * deg.mean()  # power-law-like hubs
    assert (deg == 0).sum() > 0.1 * len(deg)  # many isolated vertices, as in kron_g500
    d = gen.rmat(12, seed=0, symmetric=False)
    assert_canonical(d, (4096, 4096))
    assert not d.diagonal().any()
    assert (d != d.T).nnz > 0


def test_rmat_quadrant_probabilities_exact():
    # a = 1: every draw is (0, 0), a self loop, so nothing is left
    assert gen.rmat(5, a=1.0, b=0.0, c=0.0, permute=False).nnz == 0
    # b = 1: row bits 0, column bits 1 -> the single edge (0, n - 1)
    e = gen.rmat(5, a=0.0, b=1.0, c=0.0, permute=False, symmetric=False)
    assert edge_set(e) == {(0, 31)} and e.nnz == 1
    # d = 1 - a - b - c = 1: all draws are (n-1, n-1)
    assert gen.rmat(6, a=0.0, b=0.0, c=0.0, permute=False).nnz == 0


def test_rmat_quadrant_frequencies():
    # the top-level split of the stored entries follows (a, b, c, d) = (0.57, 0.19, 0.19, 0.05),
    # skewed further by duplicate removal (the dense corner loses most)
    a = gen.rmat(12, edge_factor=16, seed=9, permute=False, symmetric=False)
    r, c = a.nonzero()
    top_left = np.mean((r < 2048) & (c < 2048))
    bottom_right = np.mean((r >= 2048) & (c >= 2048))
    assert 0.4 < top_left < 0.6 and bottom_right < 0.1


def test_rmat_errors():
    with pytest.raises(ValueError, match=r"a \+ b \+ c must be <= 1"):
        gen.rmat(4, a=0.6, b=0.3, c=0.3)
    with pytest.raises(ValueError, match=r"scale must be >= 0, got -1"):
        gen.rmat(-1)
    with pytest.raises(TypeError, match=r"scale must be an integer, got 2.5"):
        gen.rmat(2.5)
    with pytest.raises(ValueError, match=r"a must be <= 1.0, got 1.5"):
        gen.rmat(3, a=1.5)
    with pytest.raises(TypeError, match=r"symmetric must be True or False, got 'yes'"):
        gen.rmat(3, symmetric="yes")


# ------------------------------------------------------------------ lattices
@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (5, 3), (12, 9)])
def test_grid2d_matches_networkx(shape):
    a = gen.grid2d(*shape)
    assert_canonical(a, (shape[0] * shape[1],) * 2)
    g = nx.grid_2d_graph(*shape)
    ref = nx.to_scipy_sparse_array(g, nodelist=sorted(g.nodes), dtype=bool, format="csr")
    assert same(a, ref)


def test_grid2d_holes():
    a = gen.grid2d(120, 100, holes=0.25, seed=3)
    n = a.shape[0]
    assert_undirected(a)
    assert 0.70 * 12000 <= n <= 0.75 * 12000 + 1  # at least 25 % removed, a disk at most beyond
    assert np.diff(a.indptr).max() <= 4
    assert gen.grid2d(120, 100, holes=0.25, seed=4).shape != a.shape or not same(
        gen.grid2d(120, 100, holes=0.25, seed=4), a)
    # holes are disks: the removed set is far from random noise, so most survivors keep degree 4
    assert np.mean(np.diff(a.indptr) == 4) > 0.8
    assert same(gen.grid2d(30, 20, holes=0.0, seed=1), gen.grid2d(30, 20))


def test_grid3d_matches_brute_force():
    dims = (3, 4, 5)
    a = gen.grid3d(*dims)
    assert_canonical(a, (60, 60))
    assert_undirected(a)
    expect = set()
    for i, j, k in itertools.product(*(range(d) for d in dims)):
        v = (i * dims[1] + j) * dims[2] + k
        for di, dj, dk in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
            p, q, r = i + di, j + dj, k + dk
            if p < dims[0] and q < dims[1] and r < dims[2]:
                expect.add((v, (p * dims[1] + q) * dims[2] + r))
    assert edge_set(a) == expect
    assert gen.grid3d(0, 4, 4).shape == (0, 0)
    assert gen.grid3d(1, 1, 1).nnz == 0


def test_grid_errors():
    with pytest.raises(ValueError, match=r"holes must be <= 0.9, got 0.95"):
        gen.grid2d(10, 10, holes=0.95)
    with pytest.raises(ValueError, match=r"nx must be >= 0, got -3"):
        gen.grid2d(-3, 4)
    with pytest.raises(TypeError, match=r"nz must be an integer, got '4'"):
        gen.grid3d(2, 2, "4")


# ------------------------------------------------------------------ road-like
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 17, 1000, 50000])
def test_road_like_structure(n):
    a = gen.road_like(n, seed=11)
    assert_canonical(a, (n, n))
    assert_undirected(a)
    if n >= 1000:
        assert 2.0 < a.nnz / n < 2.7
        assert np.diff(a.indptr).max() <= 4
        assert np.mean(np.diff(a.indptr) == 2) > 0.5  # mostly degree-2 chains


def test_road_like_planar_and_local():
    a = gen.road_like(3000, seed=2)
    assert nx.check_planarity(nx.from_scipy_sparse_array(a))[0]
    r, c = a.nonzero()
    assert np.median(np.abs(r - c)) < 100  # ids follow the streets


# ------------------------------------------------------------------ bipartite
@pytest.mark.parametrize("shape,deg", [((100, 80), 3.0), ((1, 10), 10), ((50, 5), 4.5), ((1000, 3000), 7.3)])
def test_random_bipartite(shape, deg):
    a = gen.random_bipartite(*shape, deg, seed=1)
    assert_canonical(a, shape)
    assert a.nnz == round(shape[0] * deg)


def test_random_bipartite_uniformity():
    a = gen.random_bipartite(2000, 2000, 20, seed=0)
    cd = np.diff(a.tocsc().indptr)
    assert abs(cd.mean() - 20) < 1e-9 and cd.std() < 2 * math.sqrt(20)  # binomial spread


def test_random_bipartite_edge_cases():
    assert gen.random_bipartite(0, 5, 2).shape == (0, 5)
    assert gen.random_bipartite(5, 0, 0).shape == (5, 0)
    assert gen.random_bipartite(7, 4, 4).nnz == 28  # complete
    with pytest.raises(ValueError, match=r"avg_degree must be <= n_cols = 4, got 5.0"):
        gen.random_bipartite(3, 4, 5)
    with pytest.raises(ValueError, match=r"avg_degree must be >= 0.0, got -1.0"):
        gen.random_bipartite(3, 4, -1.0)


# ------------------------------------------------------------------ HK ladder
@pytest.mark.parametrize("depth,copies", [(1, 1), (2, 3), (6, 1), (12, 2), (5, 0)])
def test_hk_ladder_has_perfect_matching(depth, copies):
    a = gen.hk_ladder(depth, copies)
    n = (3 * depth + 1) * copies
    assert_canonical(a, (n, n))
    assert a.nnz == (8 * depth - 1) * copies
    m = maximum_bipartite_matching(a, perm_type="column")
    assert np.all(m >= 0)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_nodes_from(range(n, 2 * n))
    r, c = a.nonzero()
    g.add_edges_from(zip(r.tolist(), (c + n).tolist()))
    assert len(nx.bipartite.hopcroft_karp_matching(g, top_nodes=range(n))) // 2 == n


# ------------------------------------------------------------------ costs
def test_uniform_costs_int():
    c = gen.uniform_costs(300, 5, seed=0)
    assert c.shape == (300, 300) and c.dtype == np.int64
    assert c.min() == 0 and c.max() == 5  # inclusive range
    assert abs(c.mean() - 2.5) < 0.05
    r = gen.uniform_costs(4, 100, n_cols=9, seed=1, dtype=np.int32)
    assert r.shape == (4, 9) and r.dtype == np.int32
    assert gen.uniform_costs(0, 3).shape == (0, 0)
    assert np.all(gen.uniform_costs(5, 0) == 0)


def test_uniform_costs_float():
    c = gen.uniform_costs(200, 10.0, n_cols=100, seed=3, dtype=np.float32)
    assert c.shape == (200, 100) and c.dtype == np.float32
    assert c.min() >= 0 and c.max() < 10.0 and abs(c.mean() - 5) < 0.2


def test_uniform_costs_errors():
    with pytest.raises(TypeError, match=r"dtype must be a NumPy integer or floating dtype, got bool"):
        gen.uniform_costs(3, 1, dtype=bool)
    with pytest.raises(TypeError, match=r"dtype must be a NumPy integer or floating dtype"):
        gen.uniform_costs(3, 1, dtype="nonsense")
    with pytest.raises(TypeError, match=r"high must be an integer, got 2.5"):
        gen.uniform_costs(3, 2.5)
    with pytest.raises(ValueError, match=r"high must be <= 127 for dtype int8, got 300"):
        gen.uniform_costs(3, 300, dtype=np.int8)
    with pytest.raises(ValueError, match=r"high must be finite"):
        gen.uniform_costs(3, float("inf"), dtype=np.float64)
    with pytest.raises(ValueError, match=r"n_cols must be >= 0, got -2"):
        gen.uniform_costs(3, 4, n_cols=-2)


# ------------------------------------------------------------------ seeds, shared invariants
GRAPHS = {
    "delaunay": lambda s: gen.delaunay(300, seed=s),
    "random_geometric": lambda s: gen.random_geometric(300, 8, seed=s),
    "rmat": lambda s: gen.rmat(8, seed=s),
    "grid2d": lambda s: gen.grid2d(30, 30, holes=0.2, seed=s),
    "road_like": lambda s: gen.road_like(500, seed=s),
    "random_bipartite": lambda s: gen.random_bipartite(50, 60, 3, seed=s),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_determinism_by_seed(name):
    f = GRAPHS[name]
    a, b, c = f(1), f(1), f(2)
    assert same(a, b)
    assert not same(a, c)
    assert np.array_equal(gen.uniform_costs(5, 9, seed=4), gen.uniform_costs(5, 9, seed=4))
    assert not np.array_equal(gen.uniform_costs(5, 9, seed=4), gen.uniform_costs(5, 9, seed=5))


def test_generator_as_seed():
    assert same(gen.delaunay(300, seed=np.random.default_rng(1)), gen.delaunay(300, seed=1))
    assert same(gen.rmat(6, seed=np.random.default_rng(5)), gen.rmat(6, seed=5))


@pytest.mark.parametrize("bad,exc,msg", [
    ("x", TypeError, r"seed must be an integer, None or a numpy.random.Generator, got 'x'"),
    (-1, ValueError, r"seed must be >= 0, got -1"),
    (1.5, TypeError, r"seed must be an integer"),
    (True, TypeError, r"seed must be an integer"),
])
def test_seed_errors(bad, exc, msg):
    with pytest.raises(exc, match=msg):
        gen.delaunay(10, seed=bad)


def test_order_errors():
    with pytest.raises(ValueError, match=r"order must be one of \('hilbert', 'random'\), got 'xy'"):
        gen.delaunay(10, order="xy")
    with pytest.raises(ValueError, match=r"order must be one of"):
        gen.random_geometric(10, order=None)


def test_size_errors():
    with pytest.raises(ValueError, match=r"n must be >= 0, got -5"):
        gen.delaunay(-5)
    with pytest.raises(TypeError, match=r"n must be an integer, got 3.0"):
        gen.road_like(3.0)
    with pytest.raises(ValueError, match=r"depth must be >= 1, got 0"):
        gen.hk_ladder(0)


@given(n=st.integers(0, 60), seed=st.integers(0, 2**32))
def test_undirected_invariants_small(n, seed):
    for a in (gen.delaunay(n, seed=seed), gen.random_geometric(n, avg_degree=min(4, max(n - 1, 0)), seed=seed),
              gen.road_like(n, seed=seed), gen.grid2d(n // 7, 7, holes=0.3, seed=seed)):
        assert_undirected(a)
        assert a.dtype == np.bool_ and a.has_canonical_format


@given(scale=st.integers(0, 7), ef=st.integers(0, 5), seed=st.integers(0, 1000),
       sym=st.booleans(), ab=st.floats(0, 1), cc=st.floats(0, 1))
def test_rmat_invariants(scale, ef, seed, sym, ab, cc):
    a_, b_ = ab * 0.7, ab * 0.3
    c_ = (1 - a_ - b_) * cc
    a = gen.rmat(scale, edge_factor=ef, a=a_, b=b_, c=c_, seed=seed, symmetric=sym)
    assert_canonical(a, (1 << scale, 1 << scale))
    assert not a.diagonal().any()
    if sym:
        assert_undirected(a)
    assert a.nnz <= (2 if sym else 1) * ef * (1 << scale)
