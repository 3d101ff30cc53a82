"""GPU push-relabel (Hong's lock-free kernel, He & Hong's hybrid rounds): option checks on the CPU,
answers on the GPU through the public entry points against the CPU twin, every result certified
(``verify_flow`` for networks; ``grid_energy`` of the labels equal to the flow value and to the CPU's
for grid cuts). Tiny block sizes and few passes per round make small inputs span several blocks and
many rounds. Under ``NUMBA_ENABLE_CUDASIM=1`` only the small cases run (the simulator is slow).
"""

from __future__ import annotations

import numpy as np
import pytest
from cases import MATCHING_CASES, image_batch_segmentation
from conftest import LOOPS, SIM, device_only, gpu
from hypothesis import given, settings
from hypothesis import strategies as st

from matchflow import FlowNetwork
from matchflow.flow import grid_cut, grid_energy, max_flow, offsets, verify_flow
from matchflow.flow._gpu_push_relabel import validate_flow_gpu_options

LISTED = {"ak-4102": 8207, "gl1": 156545, "gw1": 1202018, "wlm3": 11875108, "netgen-2": 459137}
SMALL = {"block_size": 32, "cycle": 2, "check_every": 2}  # many blocks, many rounds on small inputs
# the two drivers: the whole solve in one cooperative launch, or host rounds (grids in the simulator: host only;
# networks: both, the persistent loop on one block)
NET_LOOPS = ("persistent", "host")


def gpu_flow(net, **opts):
    r = max_flow(net, method="push-relabel", backend="gpu", **{**SMALL, **opts})
    assert r.backend == "gpu" and r.method == "push-relabel"
    assert verify_flow(net, None, None, r)
    return r


def _with_loop(loop):
    return lambda net, **o: gpu_flow(net, loop=loop, **o)


def check_grid(src, snk, edg, conn, **opts):
    """GPU grid cut == CPU grid cut (flow value) == the energy of the GPU labels."""
    r = grid_cut(src, snk, edg, connectivity=conn, backend="gpu", **{**SMALL, **opts})
    c = grid_cut(src, snk, edg, connectivity=conn, backend="cpu")
    assert r.backend == "gpu" and r.method == "push-relabel"
    assert r.labels.shape == np.shape(src) and r.labels.dtype == bool
    e = grid_energy(r.labels, src, snk, edg, connectivity=conn)
    if np.asarray(src).dtype.kind == "f" or np.asarray(edg).dtype.kind == "f":
        assert np.allclose(r.flow_value, c.flow_value, rtol=1e-9, atol=1e-9)
        assert np.allclose(e, r.flow_value, rtol=1e-9, atol=1e-9)
    else:
        assert np.array_equal(r.flow_value, c.flow_value) and np.array_equal(e, r.flow_value)
    return r


# ----------------------------------------------------------------------------- options (no GPU needed)


def test_gpu_options_checked_without_a_gpu():
    o = validate_flow_gpu_options({"cycle": 5, "block_size": 64})
    assert o["cycle"] == 5 and o["block_size"] == 64 and o["check_every"] == 8
    assert o["loop"] == ("host" if SIM else "persistent")
    assert validate_flow_gpu_options({"loop": "host"})["loop"] == "host"
    with pytest.raises(ValueError, match=r"loop must be one of \('auto', 'persistent', 'host'\), got 'device'"):
        validate_flow_gpu_options({"loop": "device"})
    with pytest.raises(ValueError, match=r"cycle must be >= 1, got 0"):
        validate_flow_gpu_options({"cycle": 0})
    with pytest.raises(ValueError, match=r"block_size must be a power of two in \[32, 1024\], got 48"):
        validate_flow_gpu_options({"block_size": 48})
    with pytest.raises(TypeError, match=r"unexpected option"):
        validate_flow_gpu_options({"relabel_freq": 2.0})


def test_auto_rule_gpu_only_for_large_grids():
    from matchflow.flow._methods import GPU_GRID_MIN, GridProblem, _gpu_rule

    assert _gpu_rule(GridProblem((512, 512), 4)) == "push-relabel" and GPU_GRID_MIN == 512 * 512
    assert _gpu_rule(GridProblem((64, 64, 64), 6)) == "push-relabel"
    assert _gpu_rule(GridProblem((100, 100), 8)) is None
    assert _gpu_rule(FlowNetwork(3, 0, 2, [0, 1], [1, 2], [1, 1])) is None  # small networks: the CPU


def test_auto_rule_gpu_for_networks_of_1_5m_arcs_not_grid_shaped():
    from matchflow.flow._gpu_push_relabel import GPU_NETWORK_MIN_ARCS
    from matchflow.flow._methods import _gpu_rule

    assert GPU_NETWORK_MIN_ARCS == 1_500_000
    net = _random_network(200_000, GPU_NETWORK_MIN_ARCS)
    assert _gpu_rule(net) == "push-relabel"
    assert _gpu_rule(_random_network(200_000, GPU_NETWORK_MIN_ARCS - 1)) is None
    n = 1000  # s and t touch every vertex (a vision energy as arcs): grid-cut shaped, not measured: the CPU
    rng = np.random.default_rng(2)
    tl = np.concatenate([np.zeros(n, np.int64), np.arange(n), rng.integers(0, n, GPU_NETWORK_MIN_ARCS)])
    hd = np.concatenate([np.arange(n), np.full(n, n - 1), rng.integers(0, n, GPU_NETWORK_MIN_ARCS)])
    assert _gpu_rule(FlowNetwork(n, 0, n - 1, tl, hd, np.ones(len(tl), np.int64))) is None
    assert _gpu_rule(_layered_network(2000, 100, GPU_NETWORK_MIN_ARCS)) is None  # deep: the CPU


def test_sink_depth_is_the_backward_bfs_depth():
    from matchflow.flow._methods import GPU_NETWORK_MAX_DEPTH, sink_depth

    assert sink_depth(_layered_network(50, 4, 400)) == 50 and GPU_NETWORK_MAX_DEPTH == 64
    assert sink_depth(FlowNetwork(4, 0, 3, [0, 1, 2], [1, 2, 3], [1, 0, 1])) == 1  # a zero arc is no arc
    assert sink_depth(FlowNetwork(3, 0, 2, [0], [1], [5])) == 0  # nothing reaches the sink


def _layered_network(levels, width, m, seed=5):
    """s -> layer 0 -> ... -> layer levels-1 -> t, m random arcs between consecutive layers."""
    rng = np.random.default_rng(seed)
    n = levels * width + 2
    lay = rng.integers(0, levels - 1, m)
    tl = np.concatenate([np.zeros(width, np.int64), 1 + lay * width + rng.integers(0, width, m),
                         1 + (levels - 1) * width + np.arange(width)])
    hd = np.concatenate([1 + np.arange(width), 1 + (lay + 1) * width + rng.integers(0, width, m),
                         np.full(width, n - 1)])
    return FlowNetwork(n, 0, n - 1, tl, hd, np.ones(len(tl), np.int64))


def _random_network(n, m, seed=3):
    rng = np.random.default_rng(seed)
    return FlowNetwork(n, 0, n - 1, rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 1000, m))


@gpu
@device_only
def test_auto_backend_picks_the_gpu_on_a_large_random_network(warm_gpu_process):
    net = _random_network(200_000, 1_600_000)
    r = max_flow(net)
    assert r.backend == "gpu" and r.method == "push-relabel" and r.stats["loop"] == "persistent"
    assert verify_flow(net, None, None, r)
    assert r.flow_value == max_flow(net, backend="cpu").flow_value


@gpu
@device_only
def test_auto_backend_picks_the_gpu_on_a_large_grid(warm_gpu_process):
    rng = np.random.default_rng(4)
    src, snk, edg = rng.integers(0, 50, (512, 512)), rng.integers(0, 50, (512, 512)), rng.integers(0, 20, (4, 512, 512))
    r = grid_cut(src, snk, edg, connectivity=4)
    assert r.backend == "gpu" and r.method == "push-relabel"
    assert r.flow_value == grid_energy(r.labels, src, snk, edg, connectivity=4)
    assert r.flow_value == grid_cut(src, snk, edg, connectivity=4, backend="cpu").flow_value
    assert grid_cut(src[:8, :8], snk[:8, :8], edg[:, :8, :8], connectivity=4).backend == "cpu"


def test_boykov_kolmogorov_has_no_gpu_twin():
    net = FlowNetwork(3, 0, 2, [0, 1], [1, 2], [1, 1])
    with pytest.raises(ValueError, match=r"backend='gpu' is not available for max_flow\(method='boykov-kolmogorov'\)"):
        max_flow(net, method="boykov-kolmogorov", backend="gpu")


# ----------------------------------------------------------------------------- general networks


@gpu
@device_only
@pytest.mark.parametrize("name", sorted(LISTED))
def test_shared_instances_listed_value_repeated(shared_data, name):
    from matchflow.io import read

    net = read(shared_data / "flow" / f"{name}.max")
    for rep in range(4):  # lock-free: repeated runs, every one certified; the whole loop in one launch
        r = gpu_flow(net, block_size=(32, 64, 256, 1024)[rep], cycle=(2, 8, 32, 4)[rep],
                     relabel_freq=(0.5, 0.25, 2.0, 1.0)[rep], loop="persistent")
        assert r.flow_value == LISTED[name] and r.stats["loop"] == "persistent"
        assert r.stats["global_relabels"] >= 2 and r.stats["pushes"] >= 1
        assert r.stats["kernel_launches"] <= 2 and r.stats["host_syncs"] == 1  # preflow + the solve, one read
    if name != "ak-4102":  # host rounds: O(n) rounds of ~5000 BFS launches there (minutes)
        assert gpu_flow(net, loop="host", check_every=8, cycle=16).flow_value == LISTED[name]


@gpu
@device_only
def test_ak_network_finishes_in_few_global_relabels(shared_data):
    """ak-4102 (BFS ~5000 levels deep, ~16k passes): the relabels wait for as many passes as the BFS had
    levels, so the solve takes few of them (host rounds with CYCLE passes took > 60 s)."""
    from matchflow.io import read

    net = read(shared_data / "flow" / "ak-4102.max")
    r = gpu_flow(net, block_size=256, cycle=32)
    assert r.flow_value == LISTED["ak-4102"] and r.stats["loop"] == "persistent"
    assert r.stats["global_relabels"] <= 40 and r.stats["bfs_levels"] <= 40 * 2 * net.n


@st.composite
def networks(draw, max_n=10, floats=False):
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(0, 4 * n))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    s, t = rng.choice(n, 2, replace=False)
    caps = rng.random(m) * 10 if floats else rng.integers(0, draw(st.sampled_from([2, 10, 1000])), m)
    return FlowNetwork(n, s, t, rng.integers(0, n, m), rng.integers(0, n, m), caps)


@gpu
@pytest.mark.parametrize("loop", NET_LOOPS)
@settings(max_examples=10 if SIM else 20)
@given(net=networks())
def test_random_networks_match_the_cpu_twin(net, loop):
    assert gpu_flow(net, loop=loop).flow_value == max_flow(net, backend="cpu").flow_value


@gpu
@settings(max_examples=5 if SIM else 25)
@given(net=networks(floats=True))
def test_float_networks_certified_within_tolerance(net):
    r = gpu_flow(net)
    assert r.flow_value == pytest.approx(max_flow(net, backend="cpu").flow_value, rel=1e-9, abs=1e-12)


@gpu
@pytest.mark.parametrize("loop", NET_LOOPS)
def test_edge_cases_unreachable_zero_parallel_selfloops_empty_int32(loop):
    gpu_flow = _with_loop(loop)
    assert gpu_flow(FlowNetwork(4, 0, 3, [0, 1], [1, 2], [5, 5])).flow_value == 0  # unreachable sink
    assert gpu_flow(FlowNetwork(3, 0, 2, [0, 1], [1, 2], [0, 0])).flow_value == 0  # zero capacities
    assert gpu_flow(FlowNetwork(2, 0, 1, [], [], [])).flow_value == 0  # no arcs
    r = gpu_flow(FlowNetwork(3, 0, 2, [0, 0, 1, 1, 1], [1, 1, 1, 2, 2], [3, 4, 9, 2, 1]))  # parallel, self-loop
    assert r.flow_value == 3 and r.flow[2] == 0
    r = gpu_flow(FlowNetwork(3, 0, 2, [0, 1, 2], [1, 2, 0], np.array([7, 5, 1], np.int32)))
    assert r.flow_value == 5 and r.flow.dtype == np.int32
    assert gpu_flow(FlowNetwork(3, 2, 0, [2, 1], [1, 0], [2**40, 2**41])).flow_value == 2**40  # int64 exact


@gpu
@pytest.mark.parametrize("loop", NET_LOOPS)
def test_max_rounds_raises_a_clear_error_never_hangs(loop):
    # phase 1 takes the 3 units to t in one round at most; phase 2 must return the other 7 to s: round 2
    net = FlowNetwork(3, 0, 2, [0, 1], [1, 2], [10, 3])
    with pytest.raises(RuntimeError, match=r"push-relabel \(GPU\).*: 1 vertices still active after max_rounds=1 "
                                           r"rounds \(raise max_rounds\)"):
        max_flow(net, method="push-relabel", backend="gpu", loop=loop, max_rounds=1, block_size=32, cycle=1)
    r = gpu_flow(net, loop=loop, max_rounds=2)
    assert r.flow_value == 3 and r.stats["rounds"] == 2 and r.stats["rounds_phase1"] == 1


def test_relabel_freq_checked_without_a_gpu():
    from matchflow.flow._gpu_push_relabel import push_relabel_gpu

    net = FlowNetwork(3, 0, 2, [0, 1], [1, 2], [1, 1])
    with pytest.raises(ValueError, match=r"relabel_freq must be > 0.0, got 0.0"):
        push_relabel_gpu(net, relabel_freq=0)
    with pytest.raises(TypeError, match=r"relabel_freq must be a real number, got 'x'"):
        push_relabel_gpu(net, relabel_freq="x")


@gpu
def test_huge_capacities_refused_not_wrapped():
    net = FlowNetwork(3, 0, 2, [0, 0, 1], [1, 1, 2], [2**61, 2**61, 1])
    with pytest.raises(OverflowError, match=r"beyond 2\*\*62"):
        max_flow(net, backend="gpu")
    with pytest.raises(OverflowError, match=r"beyond 2\*\*62"):
        grid_cut(np.full((2, 2), 2**60), np.ones((2, 2), np.int64), 1, connectivity=4, backend="gpu")


def _matching_network(g):
    """The unit-capacity network of a bipartite graph: s -> rows -> columns -> t (max flow = max matching)."""
    g = g.tocoo()
    nr, nc = g.shape
    s, t = nr + nc, nr + nc + 1
    tl = np.concatenate([np.full(nr, s), g.row, nr + np.arange(nc)]).astype(np.int64)
    hd = np.concatenate([np.arange(nr), nr + g.col, np.full(nc, t)]).astype(np.int64)
    return FlowNetwork(nr + nc + 2, s, t, tl, hd, np.ones(len(tl), np.int64))


def _named_cases():
    for case in MATCHING_CASES:  # the simulator: the small ones only
        small = sum(case.graph().shape) <= 40
        yield pytest.param(case, id=case.name, marks=() if small else device_only)


@gpu
@pytest.mark.parametrize("loop", NET_LOOPS)
@pytest.mark.parametrize("case", list(_named_cases()))
def test_named_cases_as_unit_networks_match_scipy_matching(case, loop):
    from scipy.sparse.csgraph import maximum_bipartite_matching

    g = case.graph()
    want = 0
    if g.shape[0] and g.shape[1] and g.nnz:
        canon = g.copy()
        canon.sum_duplicates()
        want = int((maximum_bipartite_matching(canon, perm_type="column") >= 0).sum())
    net = _matching_network(g)
    r = gpu_flow(net, loop=loop)
    assert r.flow_value == want == max_flow(net, backend="cpu").flow_value


@gpu
@device_only
def test_layered_and_adversarial_networks_repeated():
    rng = np.random.default_rng(7)
    w, layers = 60, 12  # wide layers: many concurrent pushes
    n = w * layers + 2
    tl, hd = [], []
    for i in range(layers - 1):
        for _ in range(4 * w):
            tl.append(1 + i * w + rng.integers(w))
            hd.append(1 + (i + 1) * w + rng.integers(w))
    tl += [0] * w + list(range(1 + (layers - 1) * w, n - 1))
    hd += list(range(1, w + 1)) + [n - 1] * w
    net = FlowNetwork(n, 0, n - 1, tl, hd, rng.integers(1, 50, len(tl)))
    want = max_flow(net, backend="cpu").flow_value
    for bs in (32, 64, 256, 1024):
        for loop in NET_LOOPS:
            assert gpu_flow(net, block_size=bs, cycle=8, loop=loop).flow_value == want


# ----------------------------------------------------------------------------- grid cuts


@st.composite
def grids(draw):
    conn = draw(st.sampled_from([4, 8, 6, 26]))
    shape = draw(st.sampled_from({4: [(1, 1), (1, 9), (3, 4), (5, 6)], 8: [(2, 3), (4, 5)],
                                  6: [(2, 2, 2), (1, 3, 5), (3, 3, 3)], 26: [(2, 2, 2), (2, 3, 3)]}[conn]))
    k = len(offsets(len(shape), conn))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    hi = draw(st.sampled_from([1, 5, 40]))
    return conn, rng.integers(0, hi, shape), rng.integers(0, hi, shape), rng.integers(0, hi, (k,) + shape)


@gpu
@pytest.mark.parametrize("loop", LOOPS)
@settings(max_examples=8 if SIM else 20)
@given(g=grids())
def test_random_grids_match_the_cpu_twin(g, loop):
    check_grid(*g[1:], g[0], loop=loop)


@gpu
@pytest.mark.parametrize("shape", [(0, 4), (1, 1), (2, 0, 3)])
def test_empty_and_single_point_grids(shape):
    conn = 4 if len(shape) == 2 else 6
    r = grid_cut(np.ones(shape, np.int64), np.full(shape, 2, np.int64), 1, connectivity=conn, backend="gpu")
    assert r.labels.shape == shape and r.labels.dtype == bool and r.flow_value == int(np.prod(shape))
    assert not r.labels.any()


@gpu
@pytest.mark.parametrize("conn,shape", [(4, (1, 30)), (4, (30, 1)), (8, (1, 12)), (6, (1, 1, 20)), (26, (4, 1, 3))])
def test_thin_grids_1xN_and_float_grids(conn, shape):
    rng = np.random.default_rng(3)
    k = len(offsets(len(shape), conn))
    check_grid(rng.integers(0, 9, shape), rng.integers(0, 9, shape), rng.integers(0, 5, (k,) + shape), conn)
    check_grid(rng.random(shape), rng.random(shape), rng.random((k,) + shape), conn)
    check_grid(rng.integers(0, 9, shape).astype(np.int32), rng.integers(0, 9, shape).astype(np.uint8), 2, conn)


@gpu
@device_only
@pytest.mark.parametrize("conn,shape", [(4, (200, 300)), (8, (120, 150)), (6, (30, 40, 50)), (26, (16, 20, 24))])
def test_larger_grids_repeated_runs(conn, shape):
    rng = np.random.default_rng(11)
    k = len(offsets(len(shape), conn))
    src, snk, edg = rng.integers(0, 100, shape), rng.integers(0, 100, shape), rng.integers(0, 60, (k,) + shape)
    for bs, loop in ((64, "host"), (256, "persistent"), (1024, "persistent")):
        check_grid(src, snk, edg, conn, block_size=bs, cycle=16, check_every=8, loop=loop)


@gpu
@device_only
def test_segmentation_energy_on_an_image_like_grid():
    from matchflow.flow import potts_weights, unary_from_intensity

    rng = np.random.default_rng(5)
    yy, xx = np.mgrid[:160, :200]
    img = 0.2 + 0.6 * ((yy - 80) ** 2 + (xx - 90) ** 2 < 50**2) + 0.1 * rng.standard_normal((160, 200))
    for conn in (4, 8):
        src, snk = unary_from_intensity(img, 0.8, 0.2, sigma=0.3)
        r = check_grid(src, snk, potts_weights(img, connectivity=conn, lam=2.0), conn, cycle=16)
        assert 0.2 < r.labels.mean() < 0.5


@gpu
def test_grid_bad_input_errors():
    ok = np.ones((3, 4))
    with pytest.raises(ValueError, match=r"source_caps must be non-negative, got -1.0"):
        grid_cut(-ok, ok, 1.0, connectivity=4, backend="gpu")
    with pytest.raises(ValueError, match=r"edge_caps must be finite"):
        grid_cut(ok, ok, np.inf, connectivity=4, backend="gpu")
    with pytest.raises(ValueError, match=r"sink_caps must have shape \(3, 4\) \(or broadcast to it\), got \(2,\)"):
        grid_cut(ok, np.ones(2), 1.0, connectivity=4, backend="gpu")
    with pytest.raises(ValueError, match=r"connectivity must be one of \(4, 8\) for a 2-D grid, got 6"):
        grid_cut(ok, ok, 1.0, connectivity=6, backend="gpu")
    with pytest.raises(TypeError, match=r"source_caps must hold integers or floats, got dtype bool"):
        grid_cut(ok > 0, ok, 1.0, connectivity=4, backend="gpu")


@gpu
@device_only
@pytest.mark.parametrize("lib", ["cupy", "torch"])
def test_device_arrays_stay_on_the_device(lib):
    mod = pytest.importorskip(lib)
    rng = np.random.default_rng(2)
    shape = (40, 50)
    src, snk, edg = rng.integers(0, 30, shape), rng.integers(0, 30, shape), rng.integers(0, 20, (4,) + shape)
    if lib == "cupy":
        dev = [mod.asarray(a) for a in (src, snk, edg)]
    else:
        dev = [mod.as_tensor(a, device="cuda") for a in (src, snk, edg)]
    r = grid_cut(*dev, connectivity=4, backend="gpu")
    assert type(r.labels).__module__.split(".")[0] == lib and hasattr(r.labels, "__cuda_array_interface__")
    lab = mod.asnumpy(r.labels) if lib == "cupy" else r.labels.cpu().numpy()
    assert lab.dtype == bool
    assert r.flow_value == grid_energy(lab, src, snk, edg, connectivity=4)
    assert r.flow_value == grid_cut(src, snk, edg, connectivity=4, backend="cpu").flow_value


# ----------------------------------------------------------------------------- batches, the persistent solve


@st.composite
def grid_batches(draw):
    conn, src, snk, edg = draw(grids())
    b = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    hi = int(max(src.max(initial=0), 1)) + 1
    shape = src.shape
    return (conn, rng.integers(0, hi, (b,) + shape), rng.integers(0, hi, (b,) + shape),
            rng.integers(0, hi, (b,) + edg.shape))


@gpu
@pytest.mark.parametrize("loop", LOOPS)
@settings(max_examples=6 if SIM else 20)
@given(g=grid_batches())
def test_batches_match_the_cpu_item_by_item(g, loop):
    conn, src, snk, edg = g
    r = check_grid(src, snk, edg, conn, loop=loop)
    assert isinstance(r.flow_value, np.ndarray) and r.flow_value.shape == (len(src),)
    assert r.flow_value.tolist() == [grid_cut(src[b], snk[b], edg[b], connectivity=conn, backend="cpu").flow_value
                                     for b in range(len(src))]


@gpu
@pytest.mark.parametrize("conn,shape", [(4, (3, 5, 6)), (26, (2, 2, 3, 3))])
def test_persistent_whole_solve_one_launch(conn, shape):
    # loop="persistent": the whole He & Hong loop in one cooperative launch, one host read (the simulator
    # runs it on one block); a batch and a single grid, integers and floats
    rng = np.random.default_rng(8)
    k = len(offsets(len(shape) - 1, conn))
    src, snk, edg = rng.integers(0, 30, shape), rng.integers(0, 30, shape), rng.integers(0, 9, (shape[0], k) + shape[1:])
    r = check_grid(src, snk, edg, conn, loop="persistent")
    assert r.stats["loop"] == "persistent" and r.stats["kernel_launches"] == 4 and r.stats["host_syncs"] == 4
    assert r.stats["certified"] == "device"
    assert r.stats["global_relabels"] == r.stats["rounds"] + 1
    check_grid(src[0] * 0.5, snk[0] * 1.0, edg[0] * 0.25, conn, loop="persistent")
    with pytest.raises(RuntimeError, match=r"still active after max_rounds=1 rounds"):
        grid_cut(src, snk, edg * 100, connectivity=conn, backend="gpu", loop="persistent", max_rounds=1, cycle=1,
                 block_size=32)


@gpu
def test_batch_edges_broadcast_and_empty_batch():
    rng = np.random.default_rng(9)
    src, snk, shared = rng.integers(0, 9, (3, 4, 5)), rng.integers(0, 9, (3, 4, 5)), rng.integers(0, 5, (8, 4, 5))
    r = check_grid(src, snk, shared, 8)
    assert r.stats["batch"] == 3
    e = grid_cut(np.zeros((0, 4, 5), np.int64), np.zeros((0, 4, 5), np.int64), 1, connectivity=4, backend="gpu")
    assert e.labels.shape == (0, 4, 5) and e.flow_value.shape == (0,)


@gpu
@device_only
def test_many_small_image_grids_repeated():
    src, snk, edg = image_batch_segmentation(12, 48)
    want = grid_cut(src, snk, edg, connectivity=8, backend="cpu").flow_value
    for bs, loop in ((64, "host"), (256, "persistent"), (1024, "persistent")):
        r = grid_cut(src, snk, edg, connectivity=8, backend="gpu", block_size=bs, loop=loop)
        assert np.array_equal(r.flow_value, want)
        assert np.array_equal(grid_energy(r.labels, src, snk, edg, connectivity=8), want)


@gpu
@device_only
def test_batch_of_device_arrays():
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(13)
    src, snk, edg = rng.integers(0, 30, (5, 6, 7, 8)), rng.integers(0, 30, (5, 6, 7, 8)), rng.integers(0, 9, (5, 6, 6, 7, 8))
    r = grid_cut(*(cupy.asarray(a) for a in (src, snk, edg)), connectivity=6, backend="gpu")
    assert isinstance(r.labels, cupy.ndarray) and r.labels.shape == (5, 6, 7, 8)
    assert np.array_equal(r.flow_value, grid_cut(src, snk, edg, connectivity=6, backend="cpu").flow_value)
    assert np.array_equal(grid_energy(cupy.asnumpy(r.labels), src, snk, edg, connectivity=6), r.flow_value)


@gpu
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_device_certificate_catches_a_corrupted_solve(monkeypatch, dtype):
    # every GPU grid cut is certified on the device (preflow of the input + the labels' cut = flow value,
    # per item): a solve whose residuals are tampered with after the fact must be refused, not returned
    from matchflow.flow import _gpu_grid

    rng = np.random.default_rng(14)
    src, snk, edg = (rng.integers(1, 30, s).astype(dtype) for s in ((2, 4, 5), (2, 4, 5), (2, 4, 4, 5)))
    r = grid_cut(src, snk, edg, connectivity=4, backend="gpu", block_size=32)
    # integers: the device's exact certificate; floats: the device check, then the sound host certificate
    assert r.stats["certified"] == ("host" if dtype == np.float64 else "device")
    # certify=False skips the device check; a float answer is still certified on the host
    unchecked = grid_cut(src, snk, edg, connectivity=4, backend="gpu", certify=False).stats
    assert unchecked.get("certified") == ("host" if dtype == np.float64 else None)
    solve = _gpu_grid._GridRun.solve

    def corrupted(self):
        solve(self)
        rc = self.rc.copy_to_host()
        rc[self.N + 7] += 3  # one residual arc gains capacity from nowhere
        self.rc.copy_to_device(rc)

    monkeypatch.setattr(_gpu_grid._GridRun, "solve", corrupted)
    with pytest.raises(RuntimeError, match=r"grid_cut \(GPU\): the certificate failed"):
        grid_cut(src, snk, edg, connectivity=4, backend="gpu", block_size=32)
