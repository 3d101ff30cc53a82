"""Pseudoflow (HPF): every variant through the public entry points against brute force, SciPy (Dinic) and
networkx, every result certified by verify_flow; the cases of test_flow.py, the adversarial corners and
the work counters (phase 1 alone reaches the maximum: phase 2 only returns excess to the source)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import maximum_flow as scipy_maximum_flow

from matchflow import FlowNetwork
from matchflow.flow import grid_network, max_flow, maximum_flow, verify_flow
from matchflow.io import read
from tests.flow.test_flow import LISTED, ak_chain, larger_networks, networks
from tests.naive import min_cut_bruteforce

CONFIGS = [(v, b) for v in ("highest", "lowest") for b in ("lifo", "fifo")]  # root selection x bucket order


def hpf(graph, *args, variant="highest", buckets="lifo", init="auto"):
    """max_flow(method="pseudoflow"), certified; phase 1's flow into the sink is already the maximum."""
    r = max_flow(graph, *args, method="pseudoflow", variant=variant, buckets=buckets, init=init)
    assert r.method == "pseudoflow" and r.backend == "cpu"
    assert r.stats["variant"] == variant and r.stats["buckets"] == buckets and r.stats["init"] == init
    assert verify_flow(graph, *(args or (None, None)), r)
    assert r.stats["phase1_value"] == r.flow_value
    return r


@pytest.mark.parametrize(("variant", "buckets"), CONFIGS)
@pytest.mark.parametrize("name", sorted(LISTED))
def test_shared_instances_listed_value(shared_data, name, variant, buckets):
    net = read(shared_data / "flow" / f"{name}.max")
    r = hpf(net, variant=variant, buckets=buckets)
    assert r.flow_value == LISTED[name]
    assert r.stats["mergers"] >= 1 and r.stats["pushes"] >= r.stats["mergers"]


@pytest.mark.parametrize(("variant", "buckets"), CONFIGS)
@given(net=networks())
def test_random_networks_match_bruteforce_and_scipy(net, variant, buckets):
    r = hpf(net, variant=variant, buckets=buckets)
    assert r.flow_value == min_cut_bruteforce(net.n, net.source, net.sink, net.tails, net.heads, net.capacities)
    a = net.to_scipy().astype(np.int64)
    assert r.flow_value == scipy_maximum_flow(sp.csr_array(a), net.source, net.sink).flow_value


@pytest.mark.parametrize("init", ["auto", "bfs", "simple"])
@pytest.mark.parametrize(("variant", "buckets"), CONFIGS)
@given(net=larger_networks())
def test_larger_random_networks_match_scipy(net, variant, buckets, init):
    r = hpf(net, variant=variant, buckets=buckets, init=init)
    a = net.to_scipy().astype(np.int64)
    assert r.flow_value == scipy_maximum_flow(sp.csr_array(a), net.source, net.sink).flow_value


@pytest.mark.parametrize("variant", ["highest", "lowest"])
@given(net=networks(dtype=np.float64))
def test_float_capacities_certified_within_tolerance(net, variant):
    r = max_flow(net, method="pseudoflow", variant=variant)
    assert isinstance(r.flow_value, float) and r.flow.dtype == np.float64
    assert verify_flow(net, None, None, r)
    best = min_cut_bruteforce(net.n, net.source, net.sink, net.tails, net.heads, net.capacities)
    assert r.flow_value == pytest.approx(best, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(("variant", "buckets"), CONFIGS)
def test_layered_random_graph_matches_networkx(variant, buckets):
    rng = np.random.default_rng(12)
    n, layers = 302, 10  # s = 0, t = 301, ten layers of 30 nodes, arcs between consecutive layers and back
    t, h = [], []
    for i in range(layers - 1):
        a = 1 + 30 * i + rng.integers(0, 30, 120)
        b = 1 + 30 * (i + 1) + rng.integers(0, 30, 120)
        t += list(a) + list(b[:20])
        h += list(b) + list(a[:20])
    t += [0] * 30 + list(range(1 + 30 * (layers - 1), 301))
    h += list(range(1, 31)) + [301] * 30
    c = rng.integers(1, 100, len(t))
    net = FlowNetwork(n, 0, 301, t, h, c)
    r = hpf(net, variant=variant, buckets=buckets)
    g = nx.DiGraph()
    for u, v, w in zip(t, h, c, strict=True):
        g.add_edge(int(u), int(v), capacity=g.get_edge_data(int(u), int(v), {"capacity": 0})["capacity"] + int(w))
    assert r.flow_value == nx.maximum_flow_value(g, 0, 301)


@pytest.mark.parametrize("variant", ["highest", "lowest"])
def test_bfs_labels_traded_for_simple_ones_on_ak_and_kept_on_random_graphs(shared_data, variant):
    # work counters: exact distances make AK's units climb the path (k^2 relabels); init="auto" gives them
    # up early and restarts phase 1 with the simple labels; on a random graph the BFS labels stay and save
    # most of the pushes
    ak = read(shared_data / "flow" / "ak-4102.max")
    bfs, simple, auto = (hpf(ak, variant=variant, init=i) for i in ("bfs", "simple", "auto"))
    assert bfs.flow_value == simple.flow_value == auto.flow_value == LISTED["ak-4102"]
    assert auto.stats["restarts"] == 1 and bfs.stats["restarts"] == simple.stats["restarts"] == 0
    assert bfs.stats["relabels"] > 100 * simple.stats["relabels"]  # measured 16.8M vs 20.5k (highest)
    assert auto.stats["relabels"] < 10 * simple.stats["relabels"]  # the given-up work counted: 89.5k
    rng = np.random.default_rng(42)
    n, m = 20000, 160000
    net = FlowNetwork(n, 0, n - 1, rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 1000, m))
    simple, auto = hpf(net, variant=variant, init="simple"), hpf(net, variant=variant)
    assert auto.stats["restarts"] == 0 and auto.flow_value == simple.flow_value
    assert auto.stats["pushes"] * 10 < simple.stats["pushes"]  # measured 355 vs 66,608 (highest)


def test_highest_label_halves_the_pushes_on_ak_type_networks():
    # the AK path's unit arcs reach a long chain: every unit walks the chain from its root (HPF's pushes
    # along the tree path); the highest-label order grows the chain tree from its far end
    net = ak_chain(300)
    high, low = hpf(net, init="simple"), hpf(net, variant="lowest", buckets="fifo", init="simple")
    assert high.flow_value == low.flow_value == 300
    assert high.stats["pushes"] * 3 < low.stats["pushes"] * 2
    assert high.stats["mergers"] == low.stats["mergers"]  # measured 1,198 each; pushes 46,048 vs 91,197
    assert high.stats["phase2_pushes"] <= 1 and low.stats["phase2_pushes"] <= 1  # one unit left on the path


# ------------------------------------------------------------------ adversarial corners
@pytest.mark.parametrize(("variant", "buckets"), CONFIGS)
def test_corners_unreachable_zero_parallel_self_loops_empty(variant, buckets):
    kw = {"variant": variant, "buckets": buckets}
    r = hpf(FlowNetwork(4, 0, 3, [0, 1], [1, 2], [5, 7]), **kw)  # unreachable sink
    assert r.flow_value == 0 and r.source_side.tolist() == [True, True, True, False] and len(r.cut_edges) == 0
    assert hpf(FlowNetwork(3, 0, 2, [0, 1], [1, 2], [0, 0]), **kw).flow_value == 0  # zero capacities
    assert hpf(FlowNetwork(2, 0, 1, [], [], []), **kw).flow_value == 0  # empty
    assert hpf(FlowNetwork(2, 0, 1, [0, 0, 0], [1, 1, 1], [2, 3, 4]), **kw).flow_value == 9  # parallel s -> t
    loops = FlowNetwork(3, 0, 2, [0, 1, 1, 0, 2], [1, 1, 2, 0, 2], [4, 9, 3, 7, 5])  # self-loops carry nothing
    r = hpf(loops, **kw)
    assert r.flow_value == 3 and r.flow[1] == r.flow[3] == r.flow[4] == 0
    # arcs into s and out of t, antiparallel pairs, an isolated node
    back = FlowNetwork(5, 0, 3, [1, 3, 3, 1, 2, 0, 2, 1], [0, 1, 0, 2, 1, 1, 3, 3], [6, 4, 8, 5, 5, 7, 2, 1])
    assert hpf(back, **kw).flow_value == 3


def test_source_equals_sink_and_bad_options_refused():
    with pytest.raises(ValueError, match=r"source and sink must differ, both are 1"):
        max_flow(np.ones((3, 3)), 1, 1, method="pseudoflow")
    with pytest.raises(ValueError, match=r"variant must be one of \('highest', 'lowest'\), got 'fifo'"):
        max_flow(np.ones((2, 2)), 0, 1, method="pseudoflow", variant="fifo")
    with pytest.raises(ValueError, match=r"buckets must be one of \('lifo', 'fifo'\), got 'stack'"):
        max_flow(np.ones((2, 2)), 0, 1, method="pseudoflow", buckets="stack")
    with pytest.raises(ValueError, match=r"init must be one of \('auto', 'bfs', 'simple'\), got 'zero'"):
        max_flow(np.ones((2, 2)), 0, 1, method="pseudoflow", init="zero")
    with pytest.raises(TypeError, match=r"max_flow\(method='pseudoflow'\) got unexpected option\(s\) "
                                        r"'relabel_freq'; accepted: buckets, init, variant"):
        max_flow(np.ones((2, 2)), 0, 1, method="pseudoflow", relabel_freq=2)
    with pytest.raises(OverflowError, match=r"capacities at node 1 sum to about 9.22e\+18, beyond 2\*\*62"):
        max_flow(FlowNetwork(2, 0, 1, [0, 0], [1, 1], [2**62, 2**62]), method="pseudoflow")


@pytest.mark.parametrize("variant", ["highest", "lowest"])
def test_excess_returns_to_the_source_and_deficits_to_the_sink_arcs(variant):
    # s -> a (10) -> b (3) -> t (10): phase 1 leaves 7 on a (returned to s in phase 2) and a deficit of 7
    # on b (given back on its sink arc); the flow is exactly 3 on every arc
    net = FlowNetwork(4, 0, 3, [0, 1, 2], [1, 2, 3], [10, 3, 10])
    r = hpf(net, variant=variant)
    assert r.flow_value == 3 and r.flow.tolist() == [3, 3, 3]
    assert r.stats["phase2_pushes"] >= 1
    assert r.source_side.tolist() == [True, True, False, False] and r.cut_edges.tolist() == [1]
    # t -> b beside b -> t (antiparallel with the sink): the give-back never sends flow out of t
    net = FlowNetwork(4, 0, 3, [0, 1, 2, 3], [1, 2, 3, 2], [10, 3, 10, 6])
    r = hpf(net, variant=variant)
    assert r.flow_value == 3 and r.flow.tolist() == [3, 3, 3, 0]


@pytest.mark.parametrize("variant", ["highest", "lowest"])
def test_long_paths_and_wide_stars(variant):
    k = 2000  # a path: one tree of depth k (the merger re-hangs it, pushes walk it)
    path = FlowNetwork(k + 1, 0, k, np.arange(k), np.arange(1, k + 1), np.arange(k, 0, -1) + 5)
    assert hpf(path, variant=variant).flow_value == 6
    # a star: k children on one parent (O(1) sibling unlinks), each with its own capacity
    hub, leaves = 1, np.arange(2, k + 2)
    t = np.concatenate([[0] * k, leaves, [hub]])
    h = np.concatenate([leaves, [hub] * k, [k + 2]])
    c = np.concatenate([np.arange(1, k + 1), np.full(k, 3), [10**6]])
    assert hpf(FlowNetwork(k + 3, 0, k + 2, t, h, c), variant=variant).flow_value == 3 * (k - 2) + 1 + 2


def test_integer_exactness_near_the_overflow_limit():
    big = 2**60 + 1
    net = FlowNetwork(4, 0, 3, [0, 0, 1, 2, 1], [1, 2, 3, 3, 2], np.array([big, big - 2, big - 1, 3, 1], np.int64))
    r = hpf(net)
    assert r.flow_value == (big - 1) + 3 and r.flow.dtype == np.int64


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.uint64, np.float32])
def test_small_and_unsigned_dtypes_kept(dtype):
    net = FlowNetwork(4, 0, 3, [0, 0, 1, 2, 1], [1, 2, 3, 3, 2], np.array([3, 2, 2, 3, 1], dtype))
    r = hpf(net)
    assert r.flow.dtype == dtype and r.flow_value == 5
    assert np.array_equal(r.flow[r.cut_edges], net.capacities[r.cut_edges])


def test_dropin_maximum_flow_with_pseudoflow():
    rng = np.random.default_rng(3)
    a = sp.random_array((60, 60), density=0.1, rng=rng, format="csr")
    a = sp.csr_array((rng.integers(1, 20, a.nnz).astype(np.int32), a.indices, a.indptr), shape=a.shape)
    ours = maximum_flow(a, 0, 59, method="pseudoflow")
    assert ours.flow_value == scipy_maximum_flow(a, 0, 59).flow_value
    f = ours.flow
    assert f.dtype == np.int32 and (f + f.T).count_nonzero() == 0 and np.all(f.toarray() <= a.toarray())


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 40))
def test_dense_random_capacities_all_variants_agree(seed, n):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, (n, n)) * (rng.random((n, n)) < 0.3)
    values = {hpf(a, 0, n - 1, variant=v, buckets=b).flow_value for v, b in CONFIGS}
    assert values == {scipy_maximum_flow(sp.csr_array(a.astype(np.int32)), 0, n - 1).flow_value}


def test_auto_picks_pseudoflow_on_general_graphs_and_bk_on_grid_cuts(shared_data):
    r = max_flow(read(shared_data / "flow" / "ak-4102.max"))
    assert r.method == "pseudoflow" and r.stats["variant"] == "highest" and r.stats["init"] == "auto"
    rng = np.random.default_rng(1)
    grid = grid_network(rng.integers(0, 9, (10, 10)), rng.integers(0, 9, (10, 10)), 3, connectivity=4)
    assert max_flow(grid).method == "boykov-kolmogorov"
    assert hpf(grid).flow_value == max_flow(grid).flow_value  # pseudoflow on a grid network when asked
