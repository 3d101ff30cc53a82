"""GPU-Suitor and GPU-LD through ``matchflow.weighted_matching(..., backend="gpu")``: every variant, block
size (the paper's threads-per-block), vertices-per-warp and loop returns EXACTLY the greedy matching of the
fixed edge order (the oracle of tests/naive.py, or the CPU twin on real graphs), certified by
``verify_weighted_matching``. Tiny blocks and vpw make small inputs span many warps and blocks; stars are
hubs, equal weights are ties everywhere. Tests marked ``gpu`` skip without a GPU.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from cases import wmatching_runs
from conftest import LOOPS, SIM, device_only
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import greedy_weighted_mate
from test_wmatching import edge_lists, edges_of
from test_wmatching_realdata import weighted_input

import matchflow as mf
import matchflow.gpu
from matchflow.verify import verify_weighted_matching
from matchflow.wmatching._gpu_suitor import HUB_DEGREE, SUITOR_VARIANTS, edge_keys, validate_suitor_gpu_options

SHAPES = ((32, 1), (32, 3)) if SIM else ((32, 1), (64, 8), (128, 32))  # (block_size, vertices_per_warp)
ROOT = Path(__file__).resolve().parents[2]


def gpu_configs(shapes=SHAPES, loops=LOOPS):
    """(method, options) of every GPU run: every suitor variant x shape x loop, each variant with hubs (degree > 3)
    scanned by a whole block (the loops alternating), then every other GPU row of the table (GPU-LD)."""
    out = [("suitor", {"variant": v, "block_size": bs, "vertices_per_warp": vpw, "loop": lp, "lb_iters": 1})
           for v in SUITOR_VARIANTS for bs, vpw in shapes for lp in loops]
    out += [("suitor", {"variant": v, "block_size": 32 if SIM else 64, "vertices_per_warp": 4,
                        "loop": loops[i % len(loops)], "hub_degree": 3}) for i, v in enumerate(SUITOR_VARIANTS)]
    return out + [(m, o) for m, o in wmatching_runs("gpu") if m != "suitor"]  # the other GPU rows


def check_gpu(graph, want, configs=None, **kw):
    """Every GPU run equals ``want`` (a mate array) and is certified; returns the weight."""
    weights = set()
    for method, opts in configs or gpu_configs():
        res = mf.weighted_matching(graph, method=method, backend="gpu", **opts, **kw)
        np.testing.assert_array_equal(res.mate, want, err_msg=f"{method} {opts}")
        assert res.backend == "gpu" and res.method == method
        rep = verify_weighted_matching(graph, res, **kw)
        assert rep.valid and rep.half_approximate, rep.problems
        if method == "suitor":
            assert res.stats["proposals"] >= res.cardinality  # each matched pair took at least one proposal
            assert res.stats["rounds"] >= (1 if len(want) else 0)
        weights.add(res.weight)
    assert len(weights) == 1
    return weights.pop()


# ----------------------------------------------------------------------------- no GPU needed


def test_options_are_checked_without_a_gpu():
    o = validate_suitor_gpu_options({})
    assert (o["variant"], o["vertices_per_warp"], o["block_size"], o["lb_iters"]) == ("nosync", 8, 128, 2)
    assert o["hub_degree"] == HUB_DEGREE
    with pytest.raises(ValueError, match=r"hub_degree must be .*got -1"):
        validate_suitor_gpu_options({"hub_degree": -1})
    with pytest.raises(ValueError, match=r"variant must be one of \('nosync', 'synclb', 'syncnolb', 'hybrid'\)"):
        validate_suitor_gpu_options({"variant": "sync"})
    with pytest.raises(ValueError, match=r"vertices_per_warp must be .*32.*got 33"):
        validate_suitor_gpu_options({"vertices_per_warp": 33})
    with pytest.raises(ValueError, match=r"block_size must be a power of two in \[32, 1024\], got 48"):
        validate_suitor_gpu_options({"block_size": 48})
    with pytest.raises(TypeError, match=r"got unexpected option\(s\) 'parallel'"):
        validate_suitor_gpu_options({"parallel": True})


@given(st.lists(st.one_of(st.integers(-5, 2**31 - 1), st.integers(2**31, 2**60),
                         st.floats(-10, 1e30, allow_nan=False)), max_size=40), st.booleans())
def test_edge_keys_preserve_the_weight_order(ws, as_float):
    as_float = as_float or any(isinstance(x, float) for x in ws)
    w = np.array(ws, dtype=np.float64 if as_float else np.int64)
    k = edge_keys(w)
    assert k.dtype == np.int32 and np.all((k > 0) == (w > 0))
    i, j = np.meshgrid(np.arange(len(w)), np.arange(len(w)))
    pos = (w[i] > 0) & (w[j] > 0)
    np.testing.assert_array_equal((k[i] < k[j])[pos], (w[i] < w[j])[pos])
    np.testing.assert_array_equal((k[i] == k[j])[pos], (w[i] == w[j])[pos])


def test_greedy_has_no_gpu_twin():
    with pytest.raises(ValueError, match=r"backend='gpu' is not available for weighted_matching\(method='greedy'\)"):
        mf.weighted_matching((np.array([0]), np.array([1])), method="greedy", backend="gpu")


def test_auto_moves_to_the_gpu_from_one_million_edges(warm_gpu_process):
    from types import SimpleNamespace

    from matchflow.wmatching._methods import GPU_MIN_NNZ, TABLE, _gpu_wins

    assert GPU_MIN_NNZ == 2_000_000
    assert not _gpu_wins(SimpleNamespace(indices=np.zeros(GPU_MIN_NNZ - 1)))
    assert _gpu_wins(SimpleNamespace(indices=np.zeros(GPU_MIN_NNZ)))
    assert TABLE.gpu_rule(SimpleNamespace(indices=np.zeros(GPU_MIN_NNZ))) == "suitor"
    assert TABLE.gpu_rule(SimpleNamespace(indices=np.zeros(10))) is None


def test_import_loads_no_cuda():
    code = ("import sys, matchflow, matchflow.wmatching._methods, matchflow.wmatching._gpu_suitor; "
            "sys.exit(1 if 'numba.cuda' in sys.modules else 0)")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    assert subprocess.run([sys.executable, "-c", code], env=env).returncode == 0


# ----------------------------------------------------------------------------- on the GPU


@pytest.mark.gpu
@settings(max_examples=8 if SIM else 25)
@given(edge_lists(max_n=40))
def test_gpu_is_the_greedy_matching_on_random_edge_lists(case):
    n, u, v, w = case
    g = mf.Graph.from_edges(u, v, w, n=n)
    configs = gpu_configs() if not SIM else gpu_configs(shapes=((32, 3),))
    check_gpu(g, greedy_weighted_mate(n, edges_of(u, v, w)), configs)


def _named():
    rng = np.random.default_rng(7)
    hub = 3000
    cases = {
        "empty": (0, [], [], []),
        "no-edges": (5, [], [], []),
        "one-edge": (4, [3], [1], [2.5]),
        "star-ties": (hub + 1, [0] * hub, list(range(1, hub + 1)), [1] * hub),
        "star-distinct": (hub + 1, [0] * hub, list(range(1, hub + 1)), rng.permutation(hub).tolist()),
        "two-hubs": (2 * hub, [0] * hub + [1] * hub, list(range(2, hub + 2)) + list(range(hub, 2 * hub)),
                     [5] * (2 * hub)),
        "path-ties": (500, list(range(499)), list(range(1, 500)), [1] * 499),
        "nonpositive": (6, [0, 1, 2, 3], [1, 2, 3, 4], [0, -1, -5, 0]),
        "huge-int": (6, [0, 1, 2, 3, 4], [1, 2, 3, 4, 5], [2**40, 2**40 + 1, 2**40, 3, 2**40 + 1]),
    }
    k = 40
    a, b = np.triu_indices(k, 1)
    cases["complete-ties"] = (k, a.tolist(), b.tolist(), [3] * len(a))
    cases["complete-floats"] = (k, a.tolist(), b.tolist(), rng.random(len(a)).tolist())
    return cases


NAMED = _named()


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(NAMED))
def test_gpu_named_cases(name):
    if SIM and name in ("star-ties", "star-distinct", "two-hubs", "path-ties", "complete-ties", "complete-floats"):
        pytest.skip("too slow for the CUDA simulator")
    n, u, v, w = NAMED[name]
    u, v = np.array(u, dtype=np.int64), np.array(v, dtype=np.int64)
    w = np.array(w) if len(w) else np.zeros(0)
    g = mf.Graph.from_edges(u, v, w, n=n)
    want = greedy_weighted_mate(n, edges_of(u, v, w))
    check_gpu(g, want)


def _real_files() -> list[Path]:
    dirs = [ROOT / ".devdata", Path(os.environ.get("MATCHFLOW_DATA", ROOT.parent / "shared" / "data")) / "graphs"]
    for d in dirs:
        fs = sorted(d.glob("*.mtx.gz"))
        if fs:
            return fs[:8]
    return []


REAL = _real_files()


@pytest.mark.gpu
@device_only
@pytest.mark.parametrize("path", REAL, ids=[p.name.split(".")[0] for p in REAL])
def test_gpu_real_graphs_equal_the_cpu_twin_repeatedly(path):
    a = weighted_input(str(path)).tocsr()
    want = mf.weighted_matching(a, method="suitor", backend="cpu")
    w = check_gpu(a, want.mate, gpu_configs(shapes=((64, 1), (128, 8))))
    assert w == want.weight
    for _ in range(3):  # a lock-free solve: repeated runs, every one identical
        res = mf.weighted_matching(a, method="suitor", backend="gpu")
        np.testing.assert_array_equal(res.mate, want.mate)


@pytest.mark.gpu
def test_gpu_on_a_device_graph_and_with_improve():
    from matchflow.wmatching._gpu_suitor import ld_gpu, suitor_gpu, to_device

    rng = np.random.default_rng(3)
    n, m = 300, 1200
    u, v, w = rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 50, m)
    g = mf.Graph.from_edges(u, v, w, n=n)
    want = greedy_weighted_mate(n, edges_of(u, v, w))
    dg = to_device(g)
    mate, _ = mf.gpu.suitor_matching(mf.gpu.weighted_to_device(g), block_size=32, vertices_per_warp=2)
    np.testing.assert_array_equal(mate, want)
    for solve in (suitor_gpu, ld_gpu):
        mate, stats = solve(dg, block_size=32, loop="host")
        np.testing.assert_array_equal(mate, want)
        assert stats["seconds_h2d"] == 0.0  # data already on the device
    cpu = mf.weighted_matching(g, backend="cpu", improve=True)
    gpu = mf.weighted_matching(g, method="suitor", backend="gpu", improve=True, parallel=True)  # parallel: ignored
    np.testing.assert_array_equal(gpu.mate, cpu.mate)
    with pytest.raises(TypeError, match=r"parallel must be True or False, got 'yes'"):
        mf.weighted_matching(g, method="suitor", backend="gpu", parallel="yes")
    assert gpu.weight >= gpu.stats["greedy_weight"]


@pytest.mark.gpu
def test_gpu_max_rounds_stops_with_a_clear_error():
    n = 200  # a path with increasing weights: every vertex is displaced along it, many rounds
    u = np.arange(n - 1)
    g = mf.Graph.from_edges(u, u + 1, np.arange(1, n), n=n)
    opts = {"loop": "host", "block_size": 32, "vertices_per_warp": 1, "check_every": 1}
    res = mf.weighted_matching(g, method="suitor", backend="gpu", **opts)
    np.testing.assert_array_equal(res.mate, greedy_weighted_mate(n, edges_of(u, u + 1, np.arange(1, n))))
    assert res.stats["rounds"] == 1 + (res.stats["beaten"] > 0) * (res.stats["rounds"] - 1)
    with pytest.raises(ValueError, match=r"max_rounds must be .*got 0"):
        mf.weighted_matching(g, method="suitor", backend="gpu", max_rounds=0)
    for _ in range(5):  # max_rounds=1: the greedy matching in one round, or the clear error (the GPU's order)
        try:
            one = mf.weighted_matching(g, method="suitor", backend="gpu", max_rounds=1, **opts)
        except RuntimeError as e:
            assert re.match(r"GPU-Suitor stopped after max_rounds=1 rounds with \d+ proposals left", str(e))
        else:
            assert one.stats["rounds"] == 1
            np.testing.assert_array_equal(one.mate, res.mate)


@pytest.mark.gpu
def test_gpu_hubs_scanned_by_a_block_count_their_deferrals():
    """A star's centre (and a second hub) are deferred to the block pass iff their degree exceeds
    hub_degree; the matching is the greedy one either way (work counter: ``hubs_deferred``)."""
    n, u, v, w = NAMED["two-hubs"] if not SIM else (60, [0] * 30 + [1] * 29, list(range(2, 32)) + list(range(31, 60)),
                                                     [5] * 59)
    u, v, w = np.array(u), np.array(v), np.array(w)
    g = mf.Graph.from_edges(u, v, w, n=n)
    want = greedy_weighted_mate(n, edges_of(u, v, w))
    for loop in LOOPS:
        on = mf.weighted_matching(g, method="suitor", backend="gpu", hub_degree=8, loop=loop, block_size=64)
        off = mf.weighted_matching(g, method="suitor", backend="gpu", hub_degree=0, loop=loop, block_size=64)
        np.testing.assert_array_equal(on.mate, want)
        np.testing.assert_array_equal(off.mate, want)
        assert on.stats["hubs_deferred"] >= 2 and off.stats["hubs_deferred"] == 0
        assert on.stats["hub_degree"] == 8 and on.stats["rounds"] >= 2


@pytest.mark.gpu
@settings(max_examples=8 if SIM else 15, deadline=None)
@given(edge_lists(max_n=12), st.sampled_from(["sym", "asym", "diag"]))
def test_gpu_scipy_input_is_checked_on_the_device(case, kind):
    """A canonical scipy.sparse input goes to the GPU unchecked and is checked there: symmetric ones are
    solved as they are, asymmetric ones or ones with a diagonal take the host's general path (symmetrised
    by the larger entry, self-loops dropped): the answer is the CPU twin's either way."""
    n, u, v, w = case
    a = sp.coo_array((w.astype(np.float64), (u, v)), shape=(n, n)).tocsr()
    a.sum_duplicates()
    if kind == "sym":
        a = sp.csr_array(sp.triu(a, 1) + sp.triu(a, 1).T)
    elif kind == "diag":
        a = sp.csr_array(a + a.T + sp.eye_array(n))
    want = mf.weighted_matching(a, method="suitor", backend="cpu")
    for method, opts in ((m, {**o, "loop": "host"}) for m, o in wmatching_runs("gpu")):
        res = mf.weighted_matching(a, method=method, backend="gpu", **opts)
        np.testing.assert_array_equal(res.mate, want.mate)
        assert res.weight == want.weight
        assert res.stats["seconds_check"] == 0.0 and res.stats["seconds_keys"] >= 0.0


@pytest.mark.gpu
@settings(max_examples=10 if SIM else 20, deadline=None)
@given(st.lists(st.one_of(st.integers(-5, 2**31 - 1), st.integers(2**31, 2**60),
                          st.floats(-10, 1e30, allow_nan=False), st.floats(0, None, width=32, allow_nan=False, allow_infinity=False)),
                min_size=1, max_size=30), st.booleans())
def test_gpu_device_keys_preserve_the_weight_order(ws, as_float):
    """The keys computed on the device (int, float32-exact via frexp, else a rank on the device) order the
    positive weights exactly like the weights; where no rank was needed they are the host's keys."""
    from matchflow.wmatching._gpu_graph import to_device

    as_float = as_float or any(isinstance(x, float) for x in ws)
    w = np.array(ws, dtype=np.float64 if as_float else np.int64)
    k = len(w)
    g = mf.Graph.from_edges(np.arange(k), np.arange(k) + k, w, n=2 * k)
    dg = to_device(g)
    key, w = dg.key.copy_to_host()[:dg.nnz], g.weights
    assert np.all((key > 0) == (w > 0))
    i, j = np.meshgrid(np.arange(len(w)), np.arange(len(w)))
    pos = (w[i] > 0) & (w[j] > 0)
    np.testing.assert_array_equal((key[i] < key[j])[pos], (w[i] < w[j])[pos])
    np.testing.assert_array_equal((key[i] == key[j])[pos], (w[i] == w[j])[pos])
    if not dg.ranked:
        np.testing.assert_array_equal(key, edge_keys(w))


def _wm_device_inputs() -> list:
    """(library, make(dense symmetric ndarray) -> device matrix, to_host(result array) -> ndarray)."""
    from numba import cuda

    out = [("numba", cuda.to_device, lambda x: x.copy_to_host())]
    if SIM:
        return out
    try:
        import cupy
        import cupyx.scipy.sparse as csp
    except Exception:  # noqa: BLE001 - cupy missing or without a usable GPU
        cupy = None
    if cupy is not None:
        # CuPy sparse holds no integers: float64 values (exact up to 2^53); its CSR from a dense array has
        # unsorted rows (the solver sorts a device copy)
        out += [("cupy", cupy.asarray, cupy.asnumpy),
                ("cupy", lambda d: csp.csr_matrix(cupy.asarray(d, dtype=np.float64)), cupy.asnumpy),
                ("cupy", lambda d: csp.csc_matrix(cupy.asarray(d, dtype=np.float64)), cupy.asnumpy)]
    try:
        import torch

        ok = torch.cuda.is_available()
    except Exception:  # noqa: BLE001
        ok = False
    if ok:
        out += [("torch", lambda d: torch.as_tensor(d, device="cuda"), lambda x: x.cpu().numpy()),
                ("torch", lambda d: torch.as_tensor(d, device="cuda").to_sparse_csr(), lambda x: x.cpu().numpy()),
                ("torch", lambda d: torch.as_tensor(d, device="cuda").to_sparse().coalesce(),
                 lambda x: x.cpu().numpy())]
    return out


@pytest.mark.gpu
def test_gpu_device_inputs_stay_on_the_device():
    """CuPy dense / CSR / CSC, PyTorch dense / sparse CSR / COO CUDA tensors and numba device arrays: solved
    on the device (no host copy: seconds_h2d 0), mate and edges of the input's library, equal to the CPU twin
    on the host matrix; asymmetric ones come back the same way after the host path."""
    rng = np.random.default_rng(11)
    n = 40
    mats = []
    for w in (rng.integers(1, 4, (n, n)).astype(np.float64), rng.random((n, n)), rng.integers(1, 2**40, (n, n))):
        m = np.triu(w * (rng.random((n, n)) < 0.15), 1)
        mats.append(m + m.T)
    mats.append(np.zeros((5, 5)))
    asym = np.triu(rng.integers(1, 9, (n, n)) * (rng.random((n, n)) < 0.15), 1).astype(np.float64)
    for lib, make, to_host in _wm_device_inputs():
        for d, symmetric in [(m, True) for m in mats] + [(asym, False)]:
            want = mf.weighted_matching(sp.csr_array(d), method="suitor", backend="cpu")
            for method, _ in wmatching_runs("gpu"):
                x = make(d)
                res = mf.weighted_matching(x, method=method, backend="gpu" if method == "ld" else "auto",
                                           block_size=32)
                assert res.backend == "gpu"
                assert res.stats["input_library"] == lib
                if symmetric:
                    assert res.stats["seconds_h2d"] == 0.0, (lib, method, res.stats.get("device_fallback"))
                assert type(res.mate).__module__.split(".")[0] == type(make(np.zeros((1, 1)))).__module__.split(
                    ".")[0].replace("cupyx", "cupy") or lib == "numba"
                np.testing.assert_array_equal(to_host(res.mate), want.mate, err_msg=f"{lib} {method}")
                np.testing.assert_array_equal(to_host(res.edges).reshape(-1, 2), want.edges)
                assert res.weight == want.weight and res.cardinality == want.cardinality


@pytest.mark.gpu
def test_gpu_device_input_errors_match_the_host():
    """A non-finite weight or improve=True on a device matrix: the host path's error / a clear refusal."""
    from numba import cuda

    d = np.zeros((3, 3))
    d[0, 1] = d[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"graph holds non-finite weights"):
        mf.weighted_matching(cuda.to_device(d), backend="gpu")
    with pytest.raises(ValueError, match=r"improve=True runs on the host"):
        mf.weighted_matching(cuda.to_device(np.eye(3)), backend="gpu", improve=True)
