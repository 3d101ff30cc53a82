"""Issue 21, grid cuts: sound certificates over extreme magnitudes (hard seeds, subnormals, mixed scales,
integer dtypes), against exact brute force and networkx's minimum cut."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from matchflow.flow import grid_cut, grid_energy, grid_network, offsets
from matchflow.flow._cpu_bk import IN_S, bk_flow_kernel
from matchflow.flow._cpu_grid_bk import grid_flows, grid_residual
from matchflow.flow._gpu_grid import gpu_cut
from matchflow.flow._methods import GRID_TABLE
from matchflow.flow._prepare_grid import _inputs, fold, grid_arrays
from matchflow.flow._verify_grid import certify_grid, grid_cut_energy
from tests.naive import grid_energy_exact as _exact_energy
from tests.naive import grid_min_exact as _exact_min

CPU_METHODS = list(GRID_TABLE.cpu_names)
# every method's extreme-float answer is certified (or solved again by the CPU grid path); since issue 21 every
# method certifies its OWN answers (no stats["fallback"])
EXTREME_METHODS = CPU_METHODS
SHAPES = {4: [(1, 4), (2, 3), (3, 3)], 8: [(2, 3), (3, 3)], 6: [(2, 2, 2), (1, 2, 5)], 26: [(2, 2, 2)]}


def _issue_1x4(seed):
    """The issue's 1 x 4 grid: a hard source seed at pixel 0, symmetric n-links 0.6, 0.4, 0.4; minimum 1.1
    (brute force: pixel 0 alone on the source side pays 0.6 + 0.6 ... ; labels (T, T, T, F) pay 0.6 + 0.1 + 0.4)."""
    src = np.array([[seed, 0, 0, 0]])
    snk = np.array([[0.6, 0.1, 0.4, 0.3]])
    edg = np.zeros((4, 1, 4))
    edg[2, 0, :3] = edg[1, 0, 1:] = [0.6, 0.4, 0.4]
    return src, snk, edg


@pytest.mark.parametrize("method", CPU_METHODS)
@pytest.mark.parametrize("seed", [1e6, 1e9, 1e11, 1e15, 1e100, 1e300])
def test_issue_1x4_hard_seed_gives_the_minimum(seed, method):
    src, snk, edg = _issue_1x4(seed)
    # before: 1e11 -> labels of energy 1.2 (BK; push-relabel and pseudoflow too), the minimum is 1.1
    r = grid_cut(src, snk, edg, connectivity=4, method=method)
    assert (method in EXTREME_METHODS) <= ("fallback" not in r.stats)
    assert _exact_energy(r.labels, src, snk, edg, 4) == _exact_min(src, snk, edg, 4) == pytest.approx(1.1)
    assert r.flow_value == _exact_energy(r.labels, src, snk, edg, 4)
    assert r.stats["certified"] and r.stats["gap_bound"] <= r.stats["tol"] < 1e-14


def test_issue_uint64_with_a_python_int_weight_is_exact():
    # before: uint64 arrays and a Python int went through float64 to an OverflowError
    src = np.array([[2**62, 0, 3], [0, 5, 0]], np.uint64)
    snk = np.array([[0, 4, 0], [7, 0, 2**62]], np.uint64)
    r = grid_cut(src, snk, 3, connectivity=4)
    assert isinstance(r.flow_value, int)
    edg = np.full((4, 2, 3), 3, np.uint64)
    assert r.flow_value == _exact_min(src, snk, edg, 4) == _exact_energy(r.labels, src, snk, edg, 4)


def test_integers_beyond_int64_are_refused_naming_the_argument():
    z = np.zeros((2, 2), np.uint64)
    with pytest.raises(OverflowError, match=r"sink_caps holds 18446744073709551615, beyond int64"):
        grid_cut(z, np.full((2, 2), 2**64 - 1, np.uint64), 1, connectivity=4)
    with pytest.raises(OverflowError, match=r"edge_caps = 1180591620717411303424 is beyond int64"):
        grid_cut(z, z, 2**70, connectivity=4)
    with pytest.raises(OverflowError, match=r"capacities at node 4 sum to about 9.22e\+18, beyond 2\*\*62"):
        grid_cut(np.full((2, 2), 2**61, np.int64), np.zeros((2, 2), np.int64), 0, connectivity=4)


@st.composite
def extreme_grids(draw, integers=False):
    conn = draw(st.sampled_from(sorted(SHAPES)))
    shape = draw(st.sampled_from(SHAPES[conn]))
    k = len(offsets(len(shape), conn))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    src, snk, edg = rng.random(shape), rng.random(shape), rng.random((k,) + shape)
    if integers:
        dt = draw(st.sampled_from([np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64]))
        hi = min(int(np.iinfo(dt).max), 2**58)
        scale = draw(st.sampled_from([3, 100, hi]))
        return conn, *((a * scale).astype(dt) for a in (src, snk, edg))
    kind = draw(st.sampled_from(["seeds", "subnormal", "mixed"]))
    if kind == "seeds":  # hard seeds 1e6 .. 1e300 on a few pixels, either terminal
        seed = 10.0 ** draw(st.integers(6, 300))
        for a in (src, snk):
            a[rng.random(shape) < 0.3] = seed
    elif kind == "subnormal":
        src, snk, edg = src * 2.0**-1060, snk * 2.0**-1060, edg * 2.0**-1060
    else:  # mixed 1e-5 and 1e15
        src, snk, edg = (np.where(rng.random(a.shape) < 0.5, a * 1e-5, a * 1e15) for a in (src, snk, edg))
    zero = rng.random(edg.shape) < 0.3
    return conn, src, snk, np.where(zero, 0.0, edg)


@pytest.mark.parametrize("method", CPU_METHODS)
@given(g=extreme_grids())
def test_extreme_floats_give_minimal_labellings(g, method):
    conn, src, snk, edg = g
    r = grid_cut(src, snk, edg, connectivity=conn, method=method)
    assert r.stats["certified"] and (method in EXTREME_METHODS) <= ("fallback" not in r.stats)
    e, best = _exact_energy(r.labels, src, snk, edg, conn), _exact_min(src, snk, edg, conn)
    assert e - best <= 8 * 2.0**-53 * best  # minimal up to the rounding of the energies' sums
    assert abs(r.flow_value - e) <= 2.0**-52 * e
    assert r.flow_value == pytest.approx(grid_energy(r.labels, src, snk, edg, connectivity=conn), rel=1e-14, abs=0)


@pytest.mark.parametrize("method", CPU_METHODS)
@given(g=extreme_grids(integers=True))
def test_integer_dtypes_are_exact_on_every_method(g, method):
    conn, src, snk, edg = g
    r = grid_cut(src, snk, edg, connectivity=conn, method=method)
    assert r.flow_value == _exact_energy(r.labels, src, snk, edg, conn)
    net = grid_network(*(a.astype(np.int64) for a in (src, snk, edg)), connectivity=conn)
    graph = nx.DiGraph()
    for u, v, c in zip(net.tails.tolist(), net.heads.tolist(), net.capacities.tolist(), strict=True):
        graph.add_edge(u, v, capacity=graph.get_edge_data(u, v, {"capacity": 0})["capacity"] + c)
    graph.add_nodes_from([net.source, net.sink])
    assert r.flow_value == nx.minimum_cut_value(graph, net.source, net.sink)


def _solved(src, snk, edg, conn):
    """BK on the grid's residual CSR: (the grid, its flow as (fs, ft, fe), the labels, the rounding budget)."""
    grid = grid_arrays(src, snk, edg, offsets(src.ndim, conn))
    net, _ = grid_residual(grid)
    indptr, head, rev, c = net
    g = np.zeros_like(c)
    tree = np.zeros(src.size + 2, np.int8)
    wsum = np.zeros(1)
    bk_flow_kernel(src.size + 2, src.size, src.size + 1, indptr, head, rev, c, g, c.dtype.type(0), tree, wsum, src.size)
    return grid, grid_flows(grid, net, g), tree[: src.size] == IN_S, wsum


@given(g=extreme_grids())
def test_tampered_labels_or_value_fail_the_certificate(g):
    conn, src, snk, edg = g
    grid, flow, labels, wsum = _solved(src, snk, edg, conn)
    value = grid_cut_energy(grid, labels)
    gap, tol = certify_grid(grid, flow, labels, value, wsum)
    assert gap[0] <= tol[0]
    for p in range(src.size):  # a flipped pixel that costs more than the rounding fails
        bad = labels.copy()
        bad[p] = ~bad[p]
        worse = _exact_energy(bad.reshape(src.shape), src, snk, edg, conn) - value[0]
        if worse > 4 * tol[0]:
            gap2, tol2 = certify_grid(grid, flow, bad, grid_cut_energy(grid, bad), wsum)
            assert gap2[0] > tol2[0]
    off = value + max(abs(value[0]) * 2.0**-40, 16 * 2.0**-1074)  # a value off its labels' energy
    assert certify_grid(grid, flow, labels, off, wsum)[0][0] == np.inf
    for i, at in ((0, 0), (1, 0), (2, (len(flow[2]) // 2, 0))):  # a non-finite flow: s -> 0, 0 -> t, 0 -> (0.., 1)
        tampered = [a.copy() for a in flow]
        tampered[i][at] = np.inf
        assert certify_grid(grid, tuple(tampered), labels, value, wsum)[0][0] == np.inf


# ----------------------------------------------------------------------------- the GPU's float answers (no GPU here)


def _fake_gpu(uploads, flip=False):
    """A stand-in for ``grid_cut_gpu`` (same signature): BK on the uploaded arrays, its flow handed back as the GPU's
    residuals ``(rc (K, N), rt (N,))`` (the negative offsets' half unused by the host certificate); ``flip``: the
    labels inverted, a wrong answer."""

    def run(src, snk, edg, *, connectivity, batch=None, flows=False, **options):
        uploads.append((src, snk, edg))
        shape = src.shape if batch is None else src.shape[1:]
        off = offsets(len(shape), connectivity)
        grid = grid_arrays(src, snk, edg, off) if batch is None else grid_arrays(*fold(shape, batch, off, src, snk,
                                                                                        edg))
        net, _ = grid_residual(grid)
        g, tree, n = np.zeros_like(net[3]), np.zeros(src.size + 2, np.int8), src.size
        bk_flow_kernel(n + 2, n, n + 1, *net, g, 0.0, tree, np.zeros(1), n + 2)
        fs, ft, fe = grid_flows(grid, net, g)
        labels = (tree[:n] == IN_S).reshape(src.shape)
        return labels ^ flip, None, {"certified": "device"}, (grid.edg - fe, grid.snk - ft)

    return run


def test_gpu_float_answers_are_clamped_and_certified_on_the_host(monkeypatch):
    from matchflow.flow import _gpu_grid

    items = [_issue_1x4(seed) for seed in (1e11, 1e300, 1.0)]
    best = [_exact_min(*it, 4) for it in items]
    for b, (src, snk, edg) in enumerate(items):
        ups = []
        monkeypatch.setattr(_gpu_grid, "grid_cut_gpu", _fake_gpu(ups))
        labels, value, stats, where = gpu_cut(src, snk, edg, lambda a=(src, snk, edg): _inputs(*a, 4), 4, None, {})
        assert where == "gpu" and stats["certified"] == "host" and stats["gap_bound"] <= stats["tol"]
        assert value == _exact_energy(labels, src, snk, edg, 4) == best[b]
        assert ups[0][0].max() <= 2 * 1.2  # the hard seed clamped to twice what can leave pixel 0 (0.6 + 0.6)
    src, snk, edg = (np.stack(a) for a in zip(*items, strict=True))  # a batch: each item certified on its own
    monkeypatch.setattr(_gpu_grid, "grid_cut_gpu", _fake_gpu([]))
    labels, value, stats, where = gpu_cut(src, snk, edg, lambda: _inputs(src, snk, edg, 4), 4, 3, {})
    assert where == "gpu" and stats["certified"] == "host" and value.tolist() == best
    # a wrong GPU answer (labels flipped) is never returned: the CPU grid path solves it again
    monkeypatch.setattr(_gpu_grid, "grid_cut_gpu", _fake_gpu([], flip=True))
    labels, value, stats, where = gpu_cut(src, snk, edg, lambda: _inputs(src, snk, edg, 4), 4, 3, {})
    assert where == "cpu" and stats["fallback"].startswith("the GPU push-relabel's float answer was not certified")
    assert value.tolist() == best and stats["certified"]
