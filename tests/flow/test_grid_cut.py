"""Grid cuts against brute force, against the general solver on the same network, and PyMaxflow's BK."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse import csr_array
from scipy.sparse.csgraph import maximum_flow as scipy_maximum_flow

from matchflow._methods import Method
from matchflow.flow import _api, grid_cut, grid_energy, max_flow, potts_weights, unary_from_intensity, verify_flow
from matchflow.flow._methods import GRID_TABLE, on_network
from matchflow.flow._prepare_grid import grid_network
from matchflow.flow._prepare_grid_layout import offsets
from matchflow.generators import blobs
from tests.flow.augmenting_paths import check_augmenting_paths_options, solve_augmenting_paths
from tests.naive import grid_energy_bruteforce

CPU_METHODS = list(GRID_TABLE.cpu_names)

SHAPES = {4: [(2, 3), (1, 7), (3, 4)], 8: [(2, 3), (3, 3)], 6: [(2, 2, 2), (1, 2, 5)], 26: [(2, 2, 2)]}


@st.composite
def grids(draw):
    conn = draw(st.sampled_from(sorted(SHAPES)))
    shape = draw(st.sampled_from(SHAPES[conn]))
    k = len(offsets(len(shape), conn))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    hi = draw(st.sampled_from([1, 5, 40]))
    return conn, rng.integers(0, hi, shape), rng.integers(0, hi, shape), rng.integers(0, hi, (k,) + shape)


@pytest.mark.parametrize("method", CPU_METHODS)
@given(g=grids())
def test_grid_cut_matches_bruteforce_energy(g, method):
    conn, src, snk, edg = g
    r = grid_cut(src, snk, edg, connectivity=conn, method=method)
    assert r.method == method
    assert r.labels.shape == src.shape and r.labels.dtype == bool
    assert r.flow_value == grid_energy(r.labels, src, snk, edg, connectivity=conn)
    assert r.flow_value == grid_energy_bruteforce(src, snk, edg, conn)


@pytest.mark.parametrize("method", CPU_METHODS)
def test_grid_cut_certificate_on_its_network(method):
    rng = np.random.default_rng(5)
    src, snk = rng.integers(0, 30, (20, 25)), rng.integers(0, 30, (20, 25))
    edg = rng.integers(0, 10, (8, 20, 25))
    net = grid_network(src, snk, edg, connectivity=8)

    r = max_flow(net, method=method)
    assert verify_flow(net, None, None, r)
    assert grid_cut(src, snk, edg, connectivity=8, method=method).flow_value == r.flow_value


@pytest.mark.parametrize("method", CPU_METHODS)
def test_grid_cut_agrees_with_pymaxflow(method):
    maxflow = pytest.importorskip("maxflow")
    rng = np.random.default_rng(7)
    src, snk = rng.integers(0, 50, (40, 50)), rng.integers(0, 50, (40, 50))
    w = rng.integers(0, 20, (40, 50))
    g = maxflow.Graph[int]()
    ids = g.add_grid_nodes(src.shape)
    g.add_grid_edges(ids, weights=w, symmetric=True)  # 4-connected, arcs both ways with weight w[p]
    g.add_grid_tedges(ids, src, snk)
    bk = g.maxflow()
    # PyMaxflow's default structure links p to p+(0,1) and p+(1,0) with weight w[p], both directions
    off = offsets(2, 4)
    edg = np.zeros((4, 40, 50), dtype=np.int64)
    for k, (di, dj) in enumerate(off):
        if (di, dj) in ((0, 1), (1, 0)):
            edg[k] = w
        else:  # q -> p = q + (di, dj) carries w[p] (PyMaxflow symmetric=True)
            edg[k] = np.roll(w, (-di, -dj), axis=(0, 1))
    r = grid_cut(src, snk, edg, connectivity=4, method=method)
    assert r.flow_value == bk
    labels_bk = ~g.get_grid_segments(ids)  # BK: True on the sink side
    assert grid_energy(labels_bk, src, snk, edg, connectivity=4) == r.flow_value


@pytest.mark.parametrize("method", CPU_METHODS)
def test_segmentation_helpers_a_few_lines(method):
    img = np.zeros((30, 30))
    img[8:22, 10:25] = 1.0
    img += np.random.default_rng(2).normal(0, 0.3, img.shape)
    src, snk = unary_from_intensity(img, fg_mean=1.0, bg_mean=0.0, sigma=0.3)
    r = grid_cut(src, snk, potts_weights(img, connectivity=8, lam=2.0), connectivity=8, method=method)
    truth = np.zeros((30, 30), dtype=bool)
    truth[8:22, 10:25] = True
    assert np.mean(r.labels == truth) > 0.97
    assert grid_cut(src, snk, 1.0, connectivity=8).method == "boykov-kolmogorov"  # auto on a vision energy
    assert r.flow_value == pytest.approx(grid_energy(r.labels, src, snk, potts_weights(img, connectivity=8, lam=2.0),
                                                     connectivity=8), rel=1e-9)


def test_grid_bad_input_errors():
    z = np.zeros((3, 3))
    with pytest.raises(ValueError, match=r"connectivity must be one of \(4, 8\) for a 2-D grid, got 6"):
        grid_cut(z, z, 1.0, connectivity=6)
    with pytest.raises(ValueError, match=r"source_caps must be a 2-D or 3-D grid \(or a batch of them\), got shape \(3,\)"):
        grid_cut(np.zeros(3), np.zeros(3), 1.0)
    with pytest.raises(ValueError, match=r"sink_caps must be non-negative, got -1.0"):
        grid_cut(z, -np.ones((3, 3)), 1.0)
    with pytest.raises(ValueError, match=r"edge_caps must have shape \(4, 3, 3\) \(or broadcast to it\), got \(2, 3, 3\)"):
        grid_cut(z, z, np.ones((2, 3, 3)))


@st.composite
def sparse_grids(draw):
    """Grids with many zero capacities (dropped arcs, free pixels), integer or float."""
    conn, src, snk, edg = draw(grids())
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    zero = rng.random(edg.shape) < draw(st.sampled_from([0.0, 0.5, 0.9]))
    edg = np.where(zero, 0, edg)
    if draw(st.booleans()):
        return conn, src * 0.25, snk * 0.25, edg * 0.25
    return conn, src, snk, edg


@given(g=sparse_grids())
def test_grid_bk_labels_are_the_minimal_source_side(g):
    # the grid path (residual CSR from the arrays, one arc pair per neighbour pair, labels = BK's source
    # tree) returns the vertices reachable from s, the same set for every maximum flow: push-relabel's
    # residual search on the general network of the same grid is the oracle

    conn, src, snk, edg = g
    r = grid_cut(src, snk, edg, connectivity=conn, method="boykov-kolmogorov")
    ref = max_flow(grid_network(src, snk, edg, connectivity=conn), method="push-relabel")
    assert r.flow_value == pytest.approx(ref.flow_value, rel=1e-12, abs=1e-12)
    assert np.array_equal(r.labels.ravel(), ref.source_side[: src.size])


def test_grid_bk_one_arc_pair_per_neighbour_pair():
    # 3x4 grid, all capacities 1, 4-connected: 3*3 + 2*4 = 17 neighbour pairs and 12 + 12 terminal arcs,
    # each one residual pair: 2 * (17 + 24) = 82 residual arcs (the general network has 2 * (34 + 24))
    r = grid_cut(np.ones((3, 4), np.int64), np.ones((3, 4), np.int64), 1, connectivity=4)
    assert r.method == "boykov-kolmogorov"
    assert r.stats["residual_arcs"] == 82
    assert grid_network(np.ones((3, 4)), np.ones((3, 4)), 1, connectivity=4).m == 58
    assert r.flow_value == 12 and not r.labels.any()


def test_grid_bk_refuses_overflowing_integer_capacities():
    big = np.full((2, 2), 2**61, dtype=np.int64)
    with pytest.raises(OverflowError, match=r"capacities at node 4 sum to about 9.22e\+18, beyond 2\*\*62"):
        grid_cut(big, np.zeros((2, 2), np.int64), 0, connectivity=4)
    edg = np.zeros((4, 2, 2), dtype=np.int64)
    edg[:, 0, 0] = 2**61  # into (0, 1) from (0, 0) and from the source: 2 * 2**61
    src = np.zeros((2, 2), np.int64)
    src[0, 1] = 2**61
    # hard seeds near 2**62 beside small sinks: clamped to what can flow through them, solved exactly
    snk = np.ones((2, 2), np.int64)
    r = grid_cut(src, snk, edg, connectivity=4)
    assert r.flow_value == grid_energy_bruteforce(src, snk, edg, 4) == grid_energy(r.labels, src, snk, edg,
                                                                                   connectivity=4)


# ----------------------------------------------------------------------------- batches of grids


def _scipy_grid_value(src, snk, edg, conn):
    """SciPy's Dinic on the item's general network (integers): an oracle independent of our solvers."""
    net = grid_network(src, snk, edg, connectivity=conn)
    a = csr_array((net.capacities.astype(np.int32), (net.tails, net.heads)), shape=(net.n, net.n))
    a.sum_duplicates()
    return scipy_maximum_flow(a, net.source, net.sink).flow_value


@st.composite
def batches(draw, floats=False):
    conn = draw(st.sampled_from(sorted(SHAPES)))
    shape = draw(st.sampled_from(SHAPES[conn]))
    b = draw(st.integers(1, 4))
    k = len(offsets(len(shape), conn))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    hi = draw(st.sampled_from([1, 5, 40]))
    src, snk, edg = rng.integers(0, hi, (b,) + shape), rng.integers(0, hi, (b,) + shape), \
        rng.integers(0, hi, (b, k) + shape)
    if draw(st.booleans()):  # many zero arcs
        edg = np.where(rng.random(edg.shape) < 0.5, 0, edg)
    if floats:
        return conn, src * 0.25, snk * 0.5, edg * 0.75
    return conn, src, snk, edg


@pytest.mark.parametrize("method", CPU_METHODS)
@given(g=batches())
def test_batch_matches_scipy_per_item(g, method):
    conn, src, snk, edg = g
    r = grid_cut(src, snk, edg, connectivity=conn, method=method)
    assert r.labels.shape == src.shape and r.labels.dtype == bool and r.backend == "cpu"
    assert isinstance(r.flow_value, np.ndarray) and r.flow_value.dtype == np.int64
    want = [_scipy_grid_value(src[b], snk[b], edg[b], conn) for b in range(len(src))]
    assert r.flow_value.tolist() == want
    # the certificate, item by item: each item's labels cut exactly its flow value
    assert grid_energy(r.labels, src, snk, edg, connectivity=conn).tolist() == want


@given(g=batches(floats=True))
def test_batch_equals_item_by_item_solves(g):
    conn, src, snk, edg = g
    r = grid_cut(src, snk, edg, connectivity=conn)
    for b in range(len(src)):
        one = grid_cut(src[b], snk[b], edg[b], connectivity=conn)
        assert r.flow_value[b] == pytest.approx(one.flow_value, rel=1e-12, abs=1e-12)
        assert np.array_equal(r.labels[b], one.labels)  # BK's labels: the minimal source side, unique
    assert grid_energy(r.labels, src, snk, edg, connectivity=conn) == pytest.approx(r.flow_value, rel=1e-9, abs=1e-9)


def test_batch_of_3d_grids_has_no_arc_across_items():
    # two 2x2x2 items stacked: item 0 all source, item 1 all sink, heavy edges everywhere; an arc across the
    # item border would carry flow from item 0 into item 1's sink links
    src = np.stack([np.full((2, 2, 2), 9), np.zeros((2, 2, 2), np.int64)])
    snk = np.stack([np.zeros((2, 2, 2), np.int64), np.full((2, 2, 2), 9)])
    r = grid_cut(src, snk, 100, connectivity=6)
    assert r.flow_value.tolist() == [0, 0]
    assert r.labels[0].all() and not r.labels[1].any()
    edg = np.full((2, 6, 2, 2, 2), 100)
    grid_cut(src, snk, edg, connectivity=6)
    assert (edg == 100).all()  # the caller's array is never written


def test_batch_shapes_broadcast_and_layout():
    rng = np.random.default_rng(3)
    src, snk = rng.integers(0, 9, (3, 4, 5)), rng.integers(0, 9, (3, 4, 5))
    shared = rng.integers(0, 5, (4, 4, 5))  # one edge array for every item
    r = grid_cut(src, snk, shared, connectivity=4)
    assert r.flow_value.tolist() == [grid_cut(src[b], snk[b], shared, connectivity=4).flow_value for b in range(3)]
    assert r.stats["batch"] == 3
    # a 3-D array is a 3-D grid by default (6-connected), a batch of 2-D grids with connectivity 4 or 8
    assert np.isscalar(grid_cut(src, snk, 1).flow_value) and grid_cut(src, snk, 1).connectivity == 6
    empty = grid_cut(np.zeros((0, 4, 5)), np.zeros((0, 4, 5)), 1.0, connectivity=8)
    assert empty.labels.shape == (0, 4, 5) and empty.flow_value.shape == (0,)


def test_batch_bad_input_errors():
    z3, z4 = np.zeros((2, 3, 4)), np.zeros((2, 3, 4, 5))
    with pytest.raises(ValueError, match=r"connectivity must be one of \(6, 26\) for a batch of 3-D grids, got 4"):
        grid_cut(z4, z4, 1.0, connectivity=4)
    with pytest.raises(ValueError, match=r"connectivity must be one of \(6, 26\) for a 3-D grid, got 7"):
        grid_cut(z3, z3, 1.0, connectivity=7)
    with pytest.raises(ValueError, match=r"sink_caps must have shape \(2, 3, 4\) \(or broadcast to it\), got \(3, 3, 4\)"):
        grid_cut(z3, np.zeros((3, 3, 4)), 1.0, connectivity=4)
    with pytest.raises(ValueError, match=r"edge_caps must have shape \(2, 8, 3, 4\) \(or broadcast to it\), got \(4, 3, 4\)"):
        grid_cut(z3, z3, np.ones((4, 3, 4)), connectivity=8)
    with pytest.raises(ValueError, match=r"labels must have shape \(2, 3, 4\), got \(3, 4\)"):
        grid_energy(np.zeros((3, 4), bool), z3, z3, 1.0, connectivity=4)
    with pytest.raises(ValueError, match=r"grid_network takes one grid, got a batch of 2"):
        grid_network(z3, z3, 1.0, connectivity=4)


def test_blobs_generator_segments_into_its_blobs():
    clean = blobs((40, 50), n_blobs=3, noise=0.0, seed=4)
    assert clean.shape == (40, 50) and set(np.unique(clean)) <= {0.0, 1.0} and 0 < clean.mean() < 0.5
    assert np.array_equal(blobs((40, 50), seed=4), blobs((40, 50), seed=4))  # deterministic per seed
    vol = blobs((12, 14, 16), n_blobs=2, noise=0.2, seed=1)
    src, snk = unary_from_intensity(vol, 1.0, 0.0, sigma=0.3)
    r = grid_cut(src, snk, potts_weights(vol, connectivity=6, lam=0.5), connectivity=6)
    assert np.mean(r.labels == (blobs((12, 14, 16), n_blobs=2, noise=0.0, seed=1) > 0.5)) > 0.95
    with pytest.raises(ValueError, match=r"shape must have 2 or 3 dimensions, got \(3,\)"):
        blobs((3,))


def test_a_new_grid_method_is_one_table_row(monkeypatch):
    """Adding a grid_cut method touches no dispatcher: augmenting paths (one file, tests/flow/augmenting_paths.py:
    its solve and option check) registered by one row in a copy of GRID_TABLE (on the grid's network through
    on_network) runs through the public grid_cut, a batch too, its options checked, its name reported, its answers
    certified by the door's grid certificate; a wrong grid method never reaches the caller."""
    row = Method("augmenting-paths", cpu=on_network(solve_augmenting_paths), options=("order",),
                 check=check_augmenting_paths_options)
    monkeypatch.setattr(_api, "GRID_TABLE", GRID_TABLE.with_method(row))
    rng = np.random.default_rng(8)
    src, snk, edg = rng.integers(0, 20, (3, 4)), rng.integers(0, 20, (3, 4)), rng.integers(0, 9, (8, 3, 4))
    want = grid_energy_bruteforce(src, snk, edg, 8)
    for order in ("bfs", "dfs"):
        r = grid_cut(src, snk, edg, connectivity=8, method="augmenting-paths", order=order)
        assert (r.method, r.backend, r.stats["order"], r.stats["certified"]) == ("augmenting-paths", "cpu", order, True)
        assert r.flow_value == want == grid_energy(r.labels, src, snk, edg, connectivity=8)
    batch = grid_cut(np.stack([src, snk]), np.stack([snk, src]), edg, connectivity=8, method="augmenting-paths")
    assert batch.flow_value.tolist() == [want, grid_energy_bruteforce(snk, src, edg, 8)] and batch.stats["batch"] == 2
    r = grid_cut(src * 0.25, snk * 0.5, edg * 0.75, connectivity=8, method="augmenting-paths")  # floats
    assert r.method == "augmenting-paths" and r.stats["certified"] and "fallback" not in r.stats
    assert r.flow_value == grid_energy_bruteforce(src * 0.25, snk * 0.5, edg * 0.75, 8)
    with pytest.raises(ValueError, match=r"^order must be one of \('bfs', 'dfs'\), got 'x'$"):
        grid_cut(src, snk, edg, connectivity=8, method="augmenting-paths", order="x")
    with pytest.raises(TypeError, match=r"grid_cut\(method='augmenting-paths'\) got unexpected option\(s\) "
                                        r"'variant'; accepted: order"):
        grid_cut(src, snk, edg, connectivity=8, method="augmenting-paths", variant="fifo")
    with pytest.raises(ValueError, match=r"^backend='gpu' is not available for grid_cut\(method='augmenting-paths'\); "
                                         r"use backend='cpu'$"):
        grid_cut(src, snk, edg, connectivity=8, method="augmenting-paths", backend="gpu")
    with pytest.raises(ValueError, match=r"method must be one of \('auto', 'push-relabel', 'boykov-kolmogorov', "
                                         r"'pseudoflow', 'augmenting-paths'\), got 'nope'"):
        grid_cut(src, snk, edg, connectivity=8, method="nope")

    def flipped(problem, **options):  # a wrong method: its labels inverted
        labels, value, stats, flows = on_network(solve_augmenting_paths)(problem)
        return ~labels, value, stats, flows

    monkeypatch.setattr(_api, "GRID_TABLE", GRID_TABLE.with_method(Method("flipped", cpu=flipped)))
    with pytest.raises(RuntimeError, match=r"grid_cut: the integer certificate of flipped failed"):
        grid_cut(src, snk, edg, connectivity=8, method="flipped")
    r = grid_cut(src * 0.25, snk * 0.5, edg * 0.75, connectivity=8, method="flipped")
    assert (r.method, r.backend) == ("boykov-kolmogorov", "cpu") and r.stats["certified"]
    assert r.stats["fallback"].startswith("flipped's float answer was not certified")
    assert r.flow_value == grid_energy_bruteforce(src * 0.25, snk * 0.5, edg * 0.75, 8)
