"""Weighted containers and the flow network: what the weighted-matching, max-flow and sparse-assignment
families stand on. Oracles: SciPy's own COO->CSR/CSC conversions, dense matrices, networkx."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from matchflow import io as mio
from matchflow._graph import BipartiteGraph, FlowNetwork, Graph, as_bipartite, as_graph

WEIGHT_DTYPES = ("int8", "int32", "int64", "uint16", "uint64", "float32", "float64", ">i8", ">f4", "<u4")


def _dense(g: BipartiteGraph, csc: bool = False) -> np.ndarray:
    """The weight matrix from the CSR walk (or the CSC walk)."""
    d = np.zeros(g.shape, dtype=np.float64)
    if csc:
        cols = np.repeat(np.arange(g.n_cols), np.diff(g.col_ptr))
        d[g.row_ind, cols] = g.csc_weights
    else:
        rows, cols = g.edges()
        d[rows, cols] = g.weights
    return d


@given(m=st.integers(0, 9), n=st.integers(0, 9), k=st.integers(0, 40), seed=st.integers(0, 2**32 - 1),
       dtype=st.sampled_from(WEIGHT_DTYPES))
def test_weights_follow_csr_and_csc(m, n, k, seed, dtype):
    rng = np.random.default_rng(seed)
    r = rng.integers(0, max(m, 1), k) if m and n else np.zeros(0, dtype=np.int64)
    c = rng.integers(0, max(n, 1), len(r))
    w = rng.integers(1, 50, len(r)).astype(dtype)
    g = BipartiteGraph.from_edges(r, c, shape=(m, n), weights=w)
    want = sp.coo_array((w.astype(np.float64), (r, c)), shape=(m, n)).toarray()  # SciPy sums duplicates
    kept = np.dtype(dtype).newbyteorder("=")
    if kept.kind in "iu" and want.size and want.max() > np.iinfo(kept).max:
        kept = np.dtype(np.int64)  # integer sums of duplicates never wrap: widened
    assert g.weights.dtype == kept and g.weights.dtype.isnative
    assert np.array_equal(_dense(g), want) and np.array_equal(_dense(g, csc=True), want)
    assert np.array_equal(g.csc_weights, g.weights[g.csc_perm])
    t = g.T
    assert np.array_equal(_dense(t), want.T) and np.array_equal(_dense(t, csc=True), want.T)
    assert np.array_equal(g.to_scipy("csc").toarray(), want) and g.to_scipy().dtype == g.weights.dtype


def test_duplicate_integer_weights_never_wrap():
    g = BipartiteGraph.from_edges([0, 0, 0], [1, 1, 1], shape=(1, 2), weights=np.array([100, 100, 100], np.int8))
    assert g.weights.dtype == np.int64 and g.weights.tolist() == [300]
    g = BipartiteGraph.from_edges([0, 0], [1, 1], shape=(1, 2), weights=np.array([3, 4], np.int8))
    assert g.weights.dtype == np.int8 and g.weights.tolist() == [7]
    big = np.array([2**62, 2**62, 2**62], np.int64)
    with pytest.raises(ValueError, match="^weights: duplicate edges sum to 1.384e\\+19, beyond int64$"):
        BipartiteGraph.from_edges([0, 0, 0], [1, 1, 1], shape=(1, 2), weights=big)


def test_weighted_conversions_keep_dtype_and_explicit_zeros():
    a = sp.csr_array(np.array([[0, 3], [4, 0]], dtype=np.float32))
    g = as_bipartite(a, weighted=True)
    assert g.weights.dtype == np.float32 and g.weights.tolist() == [3.0, 4.0]
    assert as_bipartite(a).weights is None  # unweighted unless asked
    z = sp.coo_array((np.array([0, 5], dtype=np.int16), ([0, 1], [0, 1])), shape=(2, 2))
    assert as_bipartite(z, weighted=True).nnz == 1
    gz = as_bipartite(z, weighted=True, explicit_zeros=True)
    assert gz.nnz == 2 and gz.weights.dtype == np.int16 and gz.weights.tolist() == [0, 5]
    dense = np.array([[0, 7], [2, 0]], dtype=">i4")
    gd = as_bipartite(dense, weighted=True)
    assert gd.weights.dtype == np.dtype("int32") and gd.weights.tolist() == [7, 2]
    dup = sp.coo_array((np.array([1, 2], dtype=np.int64), ([0, 0], [1, 1])), shape=(1, 2))
    assert as_bipartite(dup, weighted=True).weights.tolist() == [3]  # duplicates summed, as SciPy


def test_weight_validation_messages():
    with pytest.raises(TypeError, match=r"graph holds booleans: weighted=True needs integer or float entries"):
        as_bipartite(np.eye(2, dtype=bool), weighted=True)
    with pytest.raises(ValueError, match=r"graph's weights must be finite, got nan"):
        as_bipartite(np.array([[np.nan, 1.0]]), weighted=True)
    with pytest.raises(ValueError, match=r"weights must be a 1-D array of 2 entries \(one per edge\), got shape \(3,\)"):
        BipartiteGraph.from_edges([0, 1], [0, 1], weights=[1, 2, 3])
    with pytest.raises(TypeError, match=r"weights must hold integers or floats, got dtype complex128"):
        BipartiteGraph.from_edges([0], [0], weights=np.array([1j]))
    with pytest.raises(ValueError, match=r"graph is a BipartiteGraph without weights, but weighted=True"):
        as_bipartite(BipartiteGraph.from_edges([0], [0]), weighted=True)


def test_graph_weights_keep_dtype_and_merge_by_max():
    g = Graph.from_edges([0, 1, 1, 2, 2], [1, 0, 1, 0, 0], weights=np.array([3, 9, 4, 2, 5], dtype=np.uint8), n=3)
    assert g.weights.dtype == np.uint8  # before: forced to float64
    d = g.to_scipy().toarray()
    assert d[0, 1] == d[1, 0] == 9 and d[0, 2] == 5 and d[1, 1] == 0  # max of parallel edges, self-loop dropped
    assert g.n_edges == 2
    assert as_graph(np.array([[0, 2], [2, 0]], dtype=np.int64)).weights.dtype == np.int64
    assert as_graph(np.array([[0, 1], [1, 0]], dtype=bool)).weights is None
    assert as_graph(sp.csr_array(np.array([[0, 1.5], [0, 0]], dtype=np.float32))).weights.dtype == np.float32


def test_graph_as_bipartite_adjacency():
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], weights=[1.5, 2.5, 3.5])
    b = as_bipartite(g)
    assert b.shape == (3, 3) and b.nnz == 6 and b.weights is None
    assert np.array_equal(b.to_scipy().toarray(), g.to_scipy().toarray() != 0)
    bw = as_bipartite(g, weighted=True)
    assert np.array_equal(bw.to_scipy().toarray(), g.to_scipy().toarray())
    with pytest.raises(ValueError, match=r"graph is a Graph without weights, but weighted=True"):
        as_bipartite(Graph.from_edges([0], [1]), weighted=True)


# ------------------------------------------------------------------- flow network
def _check_residual(net: FlowNetwork) -> None:
    ptr, head, rev, cap, arc = net.indptr, net.head, net.rev, net.cap, net.arc
    tail = np.repeat(np.arange(net.n), np.diff(ptr))
    k = np.arange(len(head))
    assert np.array_equal(rev[rev], k) and np.all(rev != k)  # pairs
    assert np.array_equal(head[rev], tail) and np.array_equal(tail[rev], head)  # reverse arc goes back
    fwd = arc >= 0
    assert np.array_equal(arc[rev[fwd]], np.full(fwd.sum(), -1))  # one forward slot per pair
    assert np.array_equal(cap[fwd], net.capacities[arc[fwd]]) and np.all(cap[~fwd] == 0)
    assert np.array_equal(tail[fwd], net.tails[arc[fwd]]) and np.array_equal(head[fwd], net.heads[arc[fwd]])
    assert cap.dtype == net.capacities.dtype


@given(n=st.integers(2, 8), k=st.integers(0, 30), seed=st.integers(0, 2**32 - 1),
       dtype=st.sampled_from(("int32", "int64", "uint8", "float32", "float64", ">i8")))
def test_flow_network_residual_arcs(n, k, seed, dtype):
    rng = np.random.default_rng(seed)
    t, h = rng.integers(0, n, k), rng.integers(0, n, k)
    c = rng.integers(0, 20, k).astype(dtype)
    net = FlowNetwork(n, 0, n - 1, t, h, c)
    assert net.capacities.dtype == np.dtype(dtype).newbyteorder("=")
    _check_residual(net)
    loops = int((t == h).sum())
    assert len(net.head) == 2 * (k - loops)  # self-loops dropped, parallel arcs kept
    want = np.zeros((n, n))
    np.add.at(want, (t[t != h], h[t != h]), c[t != h].astype(np.float64))
    assert np.array_equal(net.to_scipy().toarray(), want)


def test_flow_network_constructors_agree_and_round_trip(tmp_path):
    d = np.array([[0, 3, 2, 0], [0, 0, 5, 2], [0, 0, 0, 3], [0, 0, 0, 0]], dtype=np.int32)
    a = FlowNetwork.from_dense(d, 0, 3)
    b = FlowNetwork.from_scipy(sp.coo_array(d), 0, 3)
    r, c = np.nonzero(d)
    e = FlowNetwork.from_edges(4, 0, 3, r, c, d[r, c])
    for net in (a, b, e):
        assert net.capacities.dtype == np.int32 and net.m == 5
        assert np.array_equal(net.to_scipy().toarray(), d)
        _check_residual(net)
    res = sp.csgraph.maximum_flow(a.to_scipy(), 0, 3)
    assert res.flow_value == 5
    mio.write(tmp_path / "n.max", a)
    back = mio.read(tmp_path / "n.max")
    assert isinstance(back, FlowNetwork) and np.array_equal(back.to_scipy().toarray(), d)
    with pytest.raises(ValueError, match=r"DIMACS capacities must be integers; the network holds fractional"):
        mio.write(tmp_path / "f.max", FlowNetwork(2, 0, 1, [0], [1], [0.5]))


@pytest.mark.parametrize(
    "args, err, msg",
    [
        ((1, 0, 0, [], [], []), ValueError, r"n must be at least 2 \(a source and a sink\), got 1"),
        ((3, 0, 3, [], [], []), ValueError, r"sink must be a node id in 0\.\.2, got 3"),
        ((3, 1, 1, [], [], []), ValueError, r"source and sink must differ, both are 1"),
        ((3, 0, 2, [0], [3], [1]), ValueError, r"heads holds node id 3, out of range 0\.\.2"),
        ((3, 0, 2, [-1], [1], [1]), ValueError, r"tails holds node id -1, out of range 0\.\.2"),
        ((3, 0, 2, [0], [1], [-2]), ValueError, r"capacities must be non-negative, got -2"),
        ((3, 0, 2, [0], [1], [np.inf]), ValueError, r"capacities must be finite, got inf"),
        ((3, 0, 2, [0], [1], ["a"]), TypeError, r"capacities must hold integers or floats, got dtype <U1"),
        ((3, 0, 2, [0, 1], [1], [1]), ValueError, r"tails, heads and capacities must be 1-D arrays of one length"),
    ],
)
def test_flow_network_validation(args, err, msg):
    with pytest.raises(err, match=msg):
        FlowNetwork(*args)
    with pytest.raises(ValueError, match=r"a must be a square capacity matrix, got shape \(2, 3\)"):
        FlowNetwork.from_dense(np.ones((2, 3)), 0, 1)
    with pytest.raises(TypeError, match=r"a must be a scipy.sparse matrix or array, got list"):
        FlowNetwork.from_scipy([[0, 1], [0, 0]], 0, 1)


def test_round_trips_through_scipy_keep_arrays_and_dtypes():
    rng = np.random.default_rng(11)
    r, c = rng.integers(0, 6, 25), rng.integers(0, 4, 25)
    g = BipartiteGraph.from_edges(r, c, shape=(6, 4), weights=rng.integers(-9, 9, 25).astype(np.int16))
    for fmt in ("csr", "csc"):
        h = as_bipartite(g.to_scipy(fmt), weighted=True, explicit_zeros=True)
        assert np.array_equal(h.row_ptr, g.row_ptr) and np.array_equal(h.col_ind, g.col_ind)
        assert h.weights.dtype == np.int16 and np.array_equal(h.weights, g.weights)
    u, v = rng.integers(0, 7, 30), rng.integers(0, 7, 30)
    gg = Graph.from_edges(u, v, weights=rng.random(30).astype(np.float32), n=7)
    back = as_graph(gg.to_scipy())
    assert back.weights.dtype == np.float32 and np.array_equal(back.indptr, gg.indptr)
    assert np.array_equal(back.indices, gg.indices) and np.array_equal(back.weights, gg.weights)
    net = FlowNetwork(5, 0, 4, [0, 0, 1, 2, 3, 3], [1, 1, 2, 3, 4, 3], np.array([2, 3, 4, 5, 6, 7], np.uint32))
    again = FlowNetwork.from_scipy(net.to_scipy(), 0, 4)  # parallel arcs summed, the self-loop dropped
    assert again.m == 4 and again.capacities.dtype == np.uint32
    assert np.array_equal(again.to_scipy().toarray(), net.to_scipy().toarray())


def _residual_by_stable_argsort(net):
    """The residual CSR by a stable argsort of the forward-then-reverse arc list (the oracle)."""
    keep = np.flatnonzero(net.tails != net.heads)
    k = len(keep)
    tail = np.concatenate([net.tails[keep], net.heads[keep]])
    head = np.concatenate([net.heads[keep], net.tails[keep]])
    cap = np.concatenate([net.capacities[keep], np.zeros(k, dtype=net.capacities.dtype)])
    arc = np.concatenate([keep, np.full(k, -1, dtype=np.int64)])
    pair = np.concatenate([np.arange(k, 2 * k), np.arange(k)])
    order = np.argsort(tail, kind="stable")
    pos = np.empty(2 * k, dtype=np.int64)
    pos[order] = np.arange(2 * k)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(tail, minlength=net.n))])
    return indptr, head[order], pos[pair[order]], cap[order], arc[order]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float64])
def test_residual_counting_sort_equals_stable_argsort(dtype):
    rng = np.random.default_rng(77)
    for _ in range(60):
        n, m = int(rng.integers(2, 30)), int(rng.integers(0, 90))
        net = FlowNetwork(n, 0, n - 1, rng.integers(0, n, m), rng.integers(0, n, m),
                          rng.integers(0, 9, m).astype(dtype))
        got = (net.indptr, net.head, net.rev, net.cap, net.arc)
        assert got[3].dtype == np.dtype(dtype)
        for x, y in zip(got, _residual_by_stable_argsort(net), strict=True):
            assert np.array_equal(x, y)
