"""Max-flow / min-cut: the public entry points against SciPy (Dinic), networkx and brute force,
every result certified by verify_flow."""

from __future__ import annotations

import re

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import maximum_flow as scipy_maximum_flow

from matchflow import FlowNetwork, _methods
from matchflow._methods import Method
from matchflow.assignment._methods import GPU_COLD_N, Problem
from matchflow.assignment._methods import TABLE as ATABLE
from matchflow.flow import _api, max_flow, maximum_flow, verify_flow
from matchflow.flow._methods import GPU_GRID_COLD, TABLE, GridProblem
from matchflow.io import read
from matchflow.matching._methods import GPU_COLD_NNZ as MATCH_COLD
from matchflow.matching._methods import TABLE as MTABLE
from matchflow.wmatching._methods import GPU_COLD_NNZ as WM_COLD
from matchflow.wmatching._methods import TABLE as WTABLE
from tests.flow.augmenting_paths import check_augmenting_paths_options, solve_augmenting_paths
from tests.naive import min_cut_bruteforce

LISTED = {"ak-4102": 8207, "gl1": 156545, "gw1": 1202018, "wlm3": 11875108, "netgen-2": 459137}
CPU_METHODS = TABLE.cpu_names
# the counter a method bumps where the test knows its name; any other row must report some positive integer counter
WORK = {"push-relabel": "global_relabels", "boykov-kolmogorov": "augmentations", "pseudoflow": "mergers"}
PR_VARIANTS = ("fifo", "highest")
VARIANTS = {"push-relabel": PR_VARIANTS, "pseudoflow": ("highest", "lowest")}
# every CPU configuration: "method" or "method:variant" (push-relabel's vertex selection, pseudoflow's root selection)
CPU_CONFIGS = [f"{m}:{v}" if v else m for m in CPU_METHODS for v in VARIANTS.get(m, ("",))]


def run(config, graph, *args):
    """max_flow with the method (and push-relabel variant) of a CPU configuration."""
    name, _, variant = config.partition(":")
    r = max_flow(graph, *args, method=name, **({"variant": variant} if variant else {}))
    assert r.method == name and r.backend == "cpu" and r.stats.get("variant", variant) == variant
    return r


@pytest.fixture(params=CPU_CONFIGS)
def method(request):
    return request.param


@pytest.mark.parametrize("name", sorted(LISTED))
def test_shared_instances_listed_value(shared_data, name, method):
    net = read(shared_data / "flow" / f"{name}.max")
    r = run(method, net)
    assert r.flow_value == LISTED[name]
    assert work(r) >= 1
    assert verify_flow(net, None, None, r)


def work(r) -> int:
    """The method's work counter: its named one, else the largest integer in its stats."""
    if r.method in WORK:
        return r.stats[WORK[r.method]]
    return max((v for v in r.stats.values() if isinstance(v, int) and not isinstance(v, bool)), default=0)


@pytest.mark.parametrize("name", CPU_METHODS)
def test_every_cpu_method_has_a_work_counter(name):
    rng = np.random.default_rng(3)
    net = FlowNetwork(30, 0, 29, rng.integers(0, 30, 150), rng.integers(0, 30, 150), rng.integers(1, 20, 150))
    assert work(max_flow(net, method=name, backend="cpu")) >= 1


@st.composite
def networks(draw, max_n=9, dtype=np.int64):
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(0, 3 * n))
    node = st.integers(0, n - 1)
    tails = draw(st.lists(node, min_size=m, max_size=m))
    heads = draw(st.lists(node, min_size=m, max_size=m))  # self-loops and parallel arcs included
    if dtype == np.float64:
        caps = draw(st.lists(st.floats(0, 100, allow_nan=False), min_size=m, max_size=m))
    else:
        caps = draw(st.lists(st.integers(0, 50), min_size=m, max_size=m))
    s, t = draw(st.sampled_from([(a, b) for a in range(n) for b in range(n) if a != b]))
    return FlowNetwork(n, s, t, tails, heads, np.array(caps, dtype=dtype))


@pytest.mark.parametrize("method", CPU_CONFIGS)
@given(net=networks())
def test_random_networks_match_bruteforce_and_scipy(net, method):
    r = run(method, net)
    assert verify_flow(net, None, None, r)
    assert r.flow_value == min_cut_bruteforce(net.n, net.source, net.sink, net.tails, net.heads, net.capacities)
    a = net.to_scipy().astype(np.int64)
    assert r.flow_value == scipy_maximum_flow(sp.csr_array(a), net.source, net.sink).flow_value


@pytest.mark.parametrize("method", CPU_CONFIGS)
@given(net=networks(dtype=np.float64))
def test_float_capacities_certified_within_tolerance(net, method):
    r = run(method, net)
    assert isinstance(r.flow_value, float) and r.flow.dtype == np.float64
    assert verify_flow(net, None, None, r)
    best = min_cut_bruteforce(net.n, net.source, net.sink, net.tails, net.heads, net.capacities)
    assert r.flow_value == pytest.approx(best, rel=1e-9, abs=1e-9)


def test_layered_random_graph_matches_networkx(method):
    rng = np.random.default_rng(11)
    n, m = 300, 2400
    t, h = rng.integers(0, n, m), rng.integers(0, n, m)
    c = rng.integers(1, 1000, m)
    net = FlowNetwork(n, 0, n - 1, t, h, c)
    r = run(method, net)
    g = nx.DiGraph()
    for u, v, w in zip(t, h, c, strict=True):
        if u != v:
            g.add_edge(int(u), int(v), capacity=g.get_edge_data(int(u), int(v), {"capacity": 0})["capacity"] + int(w))
    assert r.flow_value == nx.maximum_flow_value(g, 0, n - 1)
    assert verify_flow(net, None, None, r)


def test_adversarial_ak_chain_and_wide_layers(method):
    # a long path of unit arcs beside a wide bipartite layer: many relabels, global relabel needed
    k = 200
    t = list(range(k)) + [0] * k + list(range(k + 1, 2 * k + 1))
    h = list(range(1, k + 1)) + list(range(k + 1, 2 * k + 1)) + [k] * k
    net = FlowNetwork(2 * k + 1, 0, k, t, h, [1] * len(t))
    r = run(method, net)
    assert r.flow_value == k + 1
    assert verify_flow(net, None, None, r)


def ak_chain(k):
    """An AK-type network (Cherkassky & Goldberg's hard family, as ``ak-4102.max``): a path
    s -> 2 -> ... -> k+1 with capacities k..1, each path vertex sending a unit arc to k+2, then a
    chain of k unit-width-(k+1) arcs from k+2 to t = 1. Maximum flow k."""
    tl, hd, cp = [0], [2], [k + 1]
    for i in range(k):
        u = 2 + i
        if i < k - 1:
            tl.append(u), hd.append(u + 1), cp.append(k - i)
        tl.append(u), hd.append(k + 2), cp.append(1)
    for j in range(k):
        tl.append(k + 2 + j), hd.append(k + 3 + j), cp.append(k + 1)
    tl.append(2 * k + 2), hd.append(1), cp.append(k + 1)
    return FlowNetwork(2 * k + 3, 0, 1, tl, hd, cp)


def test_highest_label_does_less_work_than_fifo_on_ak_type_networks():
    # work counters, not times: HIPR's highest-label order sends each unit down the chain once;
    # FIFO re-pushes it level by level (measured: 1,200 vs 91,199 pushes at k = 300)
    net = ak_chain(300)
    fifo, high = run("push-relabel:fifo", net), run("push-relabel:highest", net)
    assert fifo.flow_value == high.flow_value == 300
    assert verify_flow(net, None, None, fifo) and verify_flow(net, None, None, high)
    assert high.stats["pushes"] * 20 < fifo.stats["pushes"]
    assert high.stats["relabels"] <= fifo.stats["relabels"] and high.stats["gaps"] >= 1
    assert fifo.stats["gaps"] == 0  # the FIFO variant has no gap heuristic (its 2n labels subsume it)


def test_highest_label_halves_the_pushes_on_ak_4102(shared_data):
    net = read(shared_data / "flow" / "ak-4102.max")
    fifo, high = run("push-relabel:fifo", net), run("push-relabel:highest", net)
    assert fifo.flow_value == high.flow_value == LISTED["ak-4102"]
    assert high.stats["pushes"] * 3 < fifo.stats["pushes"] * 2  # measured 8.44M vs 16.86M
    assert verify_flow(net, None, None, high)


@st.composite
def larger_networks(draw):
    n = draw(st.integers(2, 60))
    m = draw(st.integers(0, 6 * n))
    node = st.integers(0, n - 1)
    tails = draw(st.lists(node, min_size=m, max_size=m))
    heads = draw(st.lists(node, min_size=m, max_size=m))
    caps = draw(st.lists(st.integers(0, 1000), min_size=m, max_size=m))
    s, t = draw(st.sampled_from([(0, n - 1), (n - 1, 0), (0, 1), (1, 0)]))
    return FlowNetwork(n, s, t, tails, heads, caps)


@pytest.mark.parametrize("variant", PR_VARIANTS)
@given(net=larger_networks(), freq=st.sampled_from([0.01, 0.3, 1.0, 50.0]))
def test_push_relabel_variants_match_scipy_on_random_networks(net, freq, variant):
    # small relabel_freq: many global relabels mid-discharge; large: the gap heuristic and relabels alone
    r = max_flow(net, method="push-relabel", variant=variant, relabel_freq=freq)
    assert verify_flow(net, None, None, r)
    a = net.to_scipy().astype(np.int64)
    assert r.flow_value == scipy_maximum_flow(sp.csr_array(a), net.source, net.sink).flow_value


def test_push_relabel_variant_option_errors():
    with pytest.raises(ValueError, match=r"variant must be one of \('fifo', 'highest'\), got 'lifo'"):
        max_flow(np.ones((2, 2)), 0, 1, method="push-relabel", variant="lifo")
    with pytest.raises(TypeError, match=r"max_flow\(method='boykov-kolmogorov'\) got unexpected option\(s\) "
                                        r"'variant'; accepted: none"):
        max_flow(np.ones((2, 2)), 0, 1, method="boykov-kolmogorov", variant="fifo")


def test_unreachable_sink_zero_capacities_and_empty(method):
    net = FlowNetwork(4, 0, 3, [0, 1], [1, 2], [5, 7])
    r = run(method, net)
    assert r.flow_value == 0 and r.source_side.tolist() == [True, True, True, False]
    assert len(r.cut_edges) == 0 and verify_flow(net, None, None, r)
    z = FlowNetwork(3, 0, 2, [0, 1], [1, 2], [0, 0])
    assert run(method, z).flow_value == 0
    e = FlowNetwork(2, 0, 1, [], [], [])
    assert run(method, e).flow_value == 0


def test_int32_dtype_kept_and_cut_edges_saturated(method):
    net = FlowNetwork(4, 0, 3, [0, 0, 1, 2, 1], [1, 2, 3, 3, 2], np.array([3, 2, 2, 3, 1], np.int32))
    r = run(method, net)
    assert r.flow.dtype == np.int32 and r.flow_value == 5
    assert np.array_equal(r.flow[r.cut_edges], net.capacities[r.cut_edges])


def test_integer_exactness_near_the_overflow_limit(method):
    # capacities whose float64 sums round: the int64 answer must be exact to the unit
    big = 2**60 + 1
    net = FlowNetwork(4, 0, 3, [0, 0, 1, 2, 1], [1, 2, 3, 3, 2], np.array([big, big - 2, big - 1, 3, 1], np.int64))
    r = run(method, net)
    assert r.flow_value == (big - 1) + 3 and r.flow.dtype == np.int64
    assert verify_flow(net, None, None, r)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint64, np.float32])
def test_small_and_unsigned_dtypes(method, dtype):
    net = FlowNetwork(4, 0, 3, [0, 0, 1, 2, 1], [1, 2, 3, 3, 2], np.array([3, 2, 2, 3, 1], dtype))
    r = run(method, net)
    assert r.flow.dtype == dtype and r.flow_value == 5
    assert verify_flow(net, None, None, r)


def test_other_inputs_dense_sparse_networkx(method):
    a = np.array([[0, 4, 2], [0, 0, 3], [0, 0, 0]])
    assert run(method, a, 0, 2).flow_value == 5
    assert run(method, sp.csr_array(a), 0, 2).flow_value == 5
    g = nx.DiGraph()
    g.add_edge("s", "a", capacity=4)
    g.add_edge("a", "t", capacity=3)
    g.add_edge("s", "t", capacity=2)
    assert run(method, g, "s", "t").flow_value == 5


def test_bad_input_errors():
    with pytest.raises(ValueError, match=r"source and sink must differ, both are 1"):
        max_flow(np.ones((3, 3)), 1, 1)
    with pytest.raises(ValueError, match=r"capacities must be non-negative"):
        max_flow(np.array([[0, -1], [0, 0]]), 0, 1)
    with pytest.raises(OverflowError, match=r"capacities at node 1 sum to about 9.22e\+18, beyond 2\*\*62"):
        max_flow(FlowNetwork(2, 0, 1, [0, 0], [1, 1], [2**62, 2**62]))
    with pytest.raises(ValueError, match=r"method must be one of"):
        max_flow(np.ones((2, 2)), 0, 1, method="bk")
    with pytest.raises(ValueError, match=r"relabel_freq must be > 0.0, got 0.0"):
        max_flow(np.ones((2, 2)), 0, 1, method="push-relabel", relabel_freq=0)
    with pytest.raises(TypeError, match=r"max_flow\(method='boykov-kolmogorov'\) got unexpected option\(s\) "
                                        r"'relabel_freq'; accepted: none"):
        max_flow(np.ones((2, 2)), 0, 1, method="boykov-kolmogorov", relabel_freq=2)
    with pytest.raises(ValueError, match=r"source and sink are required unless graph is a FlowNetwork"):
        max_flow(np.ones((2, 2)))


def test_verify_flow_rejects_wrong_results():
    net = FlowNetwork(3, 0, 2, [0, 1], [1, 2], [4, 3])
    r = max_flow(net)
    r.flow = r.flow.copy()
    r.flow[0] = 5
    with pytest.raises(AssertionError, match=r"arc 0 carries flow 5 outside \[0, 4\]"):
        verify_flow(net, None, None, r)
    r = max_flow(net)
    r.source_side = np.array([True, False, False])
    with pytest.raises(AssertionError, match=r"the cut's capacity 4 differs from flow_value 3"):
        verify_flow(net, None, None, r)


# ------------------------------------------------------------------ SciPy drop-in
def test_dropin_matches_scipy_value_and_flow_shape():
    rng = np.random.default_rng(3)
    a = sp.random_array((60, 60), density=0.1, rng=rng, format="csr")
    a = sp.csr_array((rng.integers(1, 20, a.nnz).astype(np.int32), a.indices, a.indptr), shape=a.shape)
    for method in ("dinic", "edmonds_karp", *CPU_METHODS):
        ours = maximum_flow(a, 0, 59, method=method)
        ref = scipy_maximum_flow(a, 0, 59)
        assert ours.flow_value == ref.flow_value
        f = ours.flow
        assert f.dtype == np.int32 and f.shape == (60, 60)
        assert (f + f.T).count_nonzero() == 0  # antisymmetric, like SciPy's
        assert np.all(f.toarray() <= a.toarray())


def test_dropin_errors_are_scipys():
    a = sp.csr_array(np.array([[0, 5, 3], [0, 0, 2], [0, 0, 0]], dtype=np.int32))
    with pytest.raises(ValueError, match=r"source and sink vertices must differ"):
        maximum_flow(a, 0, 0)
    with pytest.raises(ValueError, match=r"sink value \(3\) must be between 0 and 2"):
        maximum_flow(a, 0, 3)
    with pytest.raises(ValueError, match=r"source value \(-1\) must be between 0 and 2"):
        maximum_flow(a, -1, 2)
    with pytest.raises(TypeError, match=r"graph must be in CSR format"):
        maximum_flow(a.toarray(), 0, 2)
    with pytest.raises(ValueError, match=r"graph must be specified as a square matrix."):
        maximum_flow(sp.csr_array(np.ones((2, 3), dtype=np.int32)), 0, 1)
    with pytest.raises(ValueError, match=r"foo method is not supported yet."):
        maximum_flow(a, 0, 2, method="foo")
    # beyond SciPy: float capacities are solved
    assert maximum_flow(a.astype(np.float64), 0, 2).flow_value == pytest.approx(5.0)


def test_auto_backend_keeps_cpu_options_on_the_cpu(monkeypatch, warm_gpu_process):
    """backend="auto" on a (pretended) GPU machine: a network the size rule sends to the GPU runs there
    without options, but a CPU-only option (``variant="highest"``) keeps the call on the CPU instead of reaching the
    GPU solver, which would refuse it; the GPU stand-in records where each call went."""
    from matchflow.flow import _api, _gpu_push_relabel

    calls = []
    pr = TABLE.row("push-relabel")

    def gpu_stand_in(net, **options):
        calls.append(options)
        return pr.cpu(net)

    table = TABLE.with_method(Method(pr.name, cpu=pr.cpu, gpu=gpu_stand_in, options=pr.options, check=pr.check,
                                     auto_gpu=pr.auto_gpu))
    monkeypatch.setattr(_methods, "_auto_may_use_gpu", lambda: True)
    monkeypatch.setattr(_api, "TABLE", table)
    monkeypatch.setattr(_gpu_push_relabel, "GPU_NETWORK_MIN_ARCS", 500)
    rng = np.random.default_rng(7)
    net = FlowNetwork(200, 0, 199, rng.integers(0, 200, 600), rng.integers(0, 200, 600), rng.integers(1, 9, 600))
    want = scipy_maximum_flow(sp.csr_array((net.capacities, (net.tails, net.heads)), shape=(200, 200)).astype(np.int32),
                              0, 199).flow_value
    for method in ("auto", "push-relabel"):
        r = max_flow(net, method=method)
        assert (r.backend, r.method, r.flow_value) == ("gpu", "push-relabel", want)
        r = max_flow(net, method=method, variant="highest")
        assert r.backend == "cpu" and r.flow_value == want and verify_flow(net, None, None, r)
    assert calls == [{}, {}]


def test_a_new_method_is_one_table_row(monkeypatch):
    """Adding a max-flow method touches no dispatcher: augmenting paths (one file, tests/flow/augmenting_paths.py:
    its solve and option check) registered by one row in a copy of the table runs through the public max_flow
    and the SciPy drop-in, its options checked, its name reported, its answers certified by verify_flow."""
    row = Method("augmenting-paths", cpu=solve_augmenting_paths, options=("order",), check=check_augmenting_paths_options)
    monkeypatch.setattr(_api, "TABLE", TABLE.with_method(row))
    rng = np.random.default_rng(3)
    n, m = 30, 150
    net = FlowNetwork(n, 0, n - 1, rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 20, m))
    csr = sp.csr_array((net.capacities, (net.tails, net.heads)), shape=(n, n)).astype(np.int32)
    want = scipy_maximum_flow(csr, 0, n - 1).flow_value
    for order in ("bfs", "dfs"):
        r = max_flow(net, method="augmenting-paths", order=order)
        assert (r.method, r.backend, r.stats["order"]) == ("augmenting-paths", "cpu", order)
        assert r.flow_value == want and r.stats["augmenting_paths"] > 0 and verify_flow(net, None, None, r)
    fnet = FlowNetwork(n, 0, n - 1, net.tails, net.heads, rng.random(m))  # floats: the door's certificate
    r = max_flow(fnet, method="augmenting-paths", backend="cpu")
    assert r.method == "augmenting-paths" and r.stats["float_bound"] < 1e-12 and verify_flow(fnet, None, None, r)
    assert maximum_flow(csr, 0, n - 1, method="augmenting-paths").flow_value == want
    with pytest.raises(ValueError, match=r"^order must be one of \('bfs', 'dfs'\), got 'x'$"):
        max_flow(net, method="augmenting-paths", order="x")
    with pytest.raises(TypeError, match=r"max_flow\(method='augmenting-paths'\) got unexpected option\(s\) "
                                        r"'variant'; accepted: order"):
        max_flow(net, method="augmenting-paths", variant="fifo")
    with pytest.raises(ValueError, match=r"^backend='gpu' is not available for max_flow\(method='augmenting-paths'\); "
                                         r"use backend='cpu'$"):
        max_flow(net, method="augmenting-paths", backend="gpu")
    names = re.escape(str(TABLE.with_method(row).names))
    with pytest.raises(ValueError, match=rf"method must be one of {names}, got 'nope'"):
        max_flow(net, method="nope")


def test_first_use_rules_of_the_gpu_families():
    """The ``cold_gpu_rule`` of each table (``backend="auto"`` before a process has used the GPU): grid cuts
    from 4 M points and never a general network; dense assignment: floats by their own (already first-use)
    rule, integers from n = 16384; matchings from 64 M stored entries."""
    cold = TABLE.cold_gpu_rule
    assert GPU_GRID_COLD == 4_000_000 and cold(GridProblem((2000, 2000), 4)) and not cold(GridProblem((1000, 1000), 4))
    assert not cold(FlowNetwork(3, 0, 2, [0, 1], [1, 2], [1, 1]))
    assert ATABLE.cold_gpu_rule(Problem((8192, 8192), np.dtype(np.float64)))
    assert not ATABLE.cold_gpu_rule(Problem((4096, 4096), np.dtype(np.float64)))  # warm only (GPU_MIN_N_FLOAT)
    assert GPU_COLD_N == 16384 and ATABLE.cold_gpu_rule(Problem((GPU_COLD_N, GPU_COLD_N), np.dtype(np.int32)))
    assert not ATABLE.cold_gpu_rule(Problem((GPU_COLD_N - 1, GPU_COLD_N - 1), np.dtype(np.int64)))

    class Nnz:  # what the matching rules read
        def __init__(self, k):
            self.nnz, self.indices = k, np.empty(k, np.int8)

    assert MATCH_COLD == WM_COLD == 64_000_000
    assert MTABLE.cold_gpu_rule(Nnz(MATCH_COLD)) and not MTABLE.cold_gpu_rule(Nnz(MATCH_COLD - 1))
    assert WTABLE.cold_gpu_rule(Nnz(WM_COLD)) and not WTABLE.cold_gpu_rule(Nnz(WM_COLD - 1))
