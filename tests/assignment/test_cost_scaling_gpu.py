"""GPU cost scaling (Łupińska's lock-free refine, Algorithm 5.4) through the public API: the sparse door
``matchflow.assignment(sparse, backend="gpu")``, the drop-in ``min_weight_full_bipartite_matching(...,
backend="gpu")`` and the dense ``method="cost-scaling"``, against the CPU twin and SciPy; every answer
certified by ``matchflow.verify.verify_sparse_assignment`` (exact integer duals). The answer must come from
the GPU (``res.backend == "gpu"``, no ``gpu_fallback``: a failed lock-free certificate is re-solved on the
CPU, which would hide a GPU bug). Tiny block sizes make small inputs span many blocks. Option checks need no
GPU. Under ``NUMBA_ENABLE_CUDASIM=1`` the kernels run (slowly) on tiny inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import SIM, device_only, gpu
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm

import matchflow
from matchflow.assignment._gpu_cost_scaling import validate_cost_scaling_gpu_options
from matchflow.verify import verify_sparse_assignment
from tests.assignment.test_cost_scaling_tail import FLOOR, _mid_phase  # at import: its @given tests are not nested
from tests.naive import partial_assignment_bruteforce


def _random(rng, nr, nc, density, lo, hi, perfect=True, floats=False):
    """Random sparse costs; ``perfect``: a random full matching of the smaller side is stored too."""
    mask = rng.random((nr, nc)) < density
    if perfect and min(nr, nc):
        k = min(nr, nc)
        mask[rng.permutation(nr)[:k], rng.permutation(nc)[:k]] = True
    vals = rng.uniform(lo, hi, (nr, nc)) if floats else rng.integers(lo, hi + 1, (nr, nc))
    r, c = np.nonzero(mask)
    return sp.csr_array((vals[r, c], (r, c)), shape=(nr, nc))


def _gpu(A, **kw):
    """The public GPU call; from the GPU, certified, and equal in cost to the CPU twin. ``tail=0`` unless
    given: the small test inputs would otherwise be finished by the CPU tail (at most 64 units left)."""
    kw.setdefault("tail", 0)
    res = matchflow.assignment(A, backend="gpu", **kw)
    assert res.backend == "gpu" and res.method == "cost-scaling", (res.backend, res.stats.get("gpu_fallback"))
    assert "gpu_fallback" not in res.stats
    assert verify_sparse_assignment(A, res) == []
    kw = {k: v for k, v in kw.items() if k in ("maximize", "partial")}
    cpu = matchflow.assignment(A, backend="cpu", **kw)
    assert res.cost == pytest.approx(cpu.cost, rel=1e-12, abs=1e-9)
    assert len(res.row_ind) == len(cpu.row_ind)
    return res


# ----------------------------------------------------------------------------- options (no GPU)


def test_options_are_checked_without_a_gpu():
    o = validate_cost_scaling_gpu_options(block_size=8, loop="host", max_ops=3)
    assert (o["block_size"], o["loop"], o["max_ops"], o["variant"], o["follow"]) == (8, "host", 3, "double-push", True)
    with pytest.raises(TypeError, match=r"follow"):
        validate_cost_scaling_gpu_options(follow="yes")
    with pytest.raises(ValueError, match=r"^variant must be one of \('double-push', 'paper'\), got 'x'$"):
        validate_cost_scaling_gpu_options(variant="x")
    assert validate_cost_scaling_gpu_options(loop="persistent")["schedule"] == "async"
    with pytest.raises(ValueError, match=r"^cost_scaling_gpu: schedule='sweeps' runs host rounds; use loop='host'"):
        validate_cost_scaling_gpu_options(loop="persistent", schedule="sweeps")
    with pytest.raises(ValueError, match=r"^schedule must be one of \('async', 'sweeps'\), got 'x'$"):
        validate_cost_scaling_gpu_options(schedule="x")
    assert [validate_cost_scaling_gpu_options(**kw)["tail"] for kw in ({}, {"loop": "persistent"},
                                                                         {"schedule": "sweeps"}, {"tail": 5})] == [
        64, 0, 0, 5]
    with pytest.raises(ValueError, match=r"^cost_scaling_gpu: tail=5 needs loop='host' \(the CPU finishes each "
                       r"phase\); loop='persistent' runs tail=0$"):
        validate_cost_scaling_gpu_options(loop="persistent", tail=5)
    with pytest.raises(ValueError, match=r"tail"):
        validate_cost_scaling_gpu_options(tail=-1)
    o = validate_cost_scaling_gpu_options()
    assert (o["price_update"], o["update_every"]) == (True, 0.0)
    assert validate_cost_scaling_gpu_options(price_update=True, update_every=2)["update_every"] == 2.0
    with pytest.raises(TypeError, match=r"price_update"):
        validate_cost_scaling_gpu_options(price_update="yes")
    for bad in (-1, True, "x"):
        with pytest.raises(ValueError, match=rf"^update_every must be a number >= 0, got {bad!r}$"):
            validate_cost_scaling_gpu_options(update_every=bad)
    assert validate_cost_scaling_gpu_options()["device_update"] is False
    assert validate_cost_scaling_gpu_options(device_update=True, loop="host")["tail"] == 64
    assert validate_cost_scaling_gpu_options(update_delta=3)["update_delta"] == 3
    with pytest.raises(ValueError, match=r"update_delta"):
        validate_cost_scaling_gpu_options(update_delta=0)
    assert validate_cost_scaling_gpu_options(update_rounds=2)["update_rounds"] == 2
    with pytest.raises(ValueError, match=r"update_rounds"):
        validate_cost_scaling_gpu_options(update_rounds=0)
    with pytest.raises(TypeError, match=r"device_update"):
        validate_cost_scaling_gpu_options(device_update=1)
    for kw in ({"loop": "persistent"}, {"schedule": "sweeps"}):
        with pytest.raises(ValueError, match=r"^cost_scaling_gpu: device_update=True runs the async schedule with "
                           r"loop='host' \(got schedule="):
            validate_cost_scaling_gpu_options(device_update=True, **kw)
    with pytest.raises(ValueError, match=r"^cost_scaling_gpu: certify=False is not available"):
        validate_cost_scaling_gpu_options(certify=False)
    with pytest.raises(ValueError, match=r"max_ops"):
        validate_cost_scaling_gpu_options(max_ops=0)
    with pytest.raises(ValueError, match=r"block_size must be a power of two in \[1, 1024\], got 3"):
        validate_cost_scaling_gpu_options(block_size=3)
    with pytest.raises(TypeError, match=r"cost_scaling_gpu.*bogus"):
        validate_cost_scaling_gpu_options(bogus=1)


def test_cpu_sparse_rejects_gpu_options():
    A = sp.csr_array(np.eye(3))
    with pytest.raises(ValueError, match=r"^sparse costs on the CPU take the options \['price_update', 'update_every', "
                       r"'arc_fixing'\], got \['block_size'\]$"):
        matchflow.assignment(A, backend="cpu", block_size=8)
    with pytest.raises(ValueError, match=r"^sparse costs take no cost_limit$"):
        matchflow.assignment(A, cost_limit=3.0)
    with pytest.raises(ValueError, match=r"^backend must be 'cpu' or 'gpu', got 'tpu'$"):
        matchflow.min_weight_full_bipartite_matching(A, backend="tpu")


# ----------------------------------------------------------------------------- GPU answers


SCHEDULES = [("async", "persistent", 0), ("async", "host", 0), ("async", "host", 5), ("sweeps", "host", 0)]


@gpu
@pytest.mark.parametrize("schedule,loop,tail", SCHEDULES)
@pytest.mark.parametrize("follow", [True, False])
@pytest.mark.parametrize("variant", ["double-push", "paper"])
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("hi", [1, 9, 10**6])
def test_random_square_matches_cpu_and_scipy(seed, hi, variant, follow, schedule, loop, tail):
    rng = np.random.default_rng(seed)
    n = 12 if SIM else 300
    A = _random(rng, n, n, 0.3 if SIM else 0.03, 1, hi)
    res = _gpu(A, block_size=4 if SIM else 32, variant=variant, follow=follow, schedule=schedule, loop=loop,
               tail=tail)
    assert (res.stats["variant"], res.stats["follow"]) == (variant, follow)
    assert (res.stats["schedule"], res.stats["loop"], res.stats["tail"]) == (schedule, loop, tail)
    r, c = scipy_mwfbm(A)
    assert res.cost == int(A[r, c].sum())
    assert res.stats["pushes"] >= n and res.stats["phases"] >= 1  # the work was done on the device


@gpu
@pytest.mark.parametrize("shape", [(5, 9), (9, 5), (1, 7), (7, 1)])
def test_rectangular(shape):
    rng = np.random.default_rng(sum(shape))
    A = _random(rng, *shape, 0.5, -20, 40)
    res = _gpu(A, block_size=2)
    A2 = A.copy()
    A2.data = A2.data - A2.data.min() + 1  # SciPy drops explicit zeros: shift to > 0 (same argmin)
    r, c = scipy_mwfbm(A2)
    assert res.cost == int(A[r, c].sum())
    assert res.stats["extended"] is True


@gpu
def test_infeasible_raises_like_the_cpu():
    A = sp.csr_array(np.array([[1, 0, 0], [2, 0, 0], [3, 4, 5]]))  # rows 0 and 1 share their only column
    for be in ("cpu", "gpu"):
        with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
            matchflow.assignment(A, backend=be, block_size=2) if be == "gpu" else matchflow.assignment(A)
        with pytest.raises(ValueError, match="^no full matching exists$"):
            matchflow.min_weight_full_bipartite_matching(A, backend=be)


@gpu
@pytest.mark.parametrize("value", [0, 7, -3])
def test_ties_all_equal(value):
    n = 9
    r, c = np.nonzero(np.ones((n, n)))
    A = sp.csr_array((np.full(r.size, value), (r, c)), shape=(n, n))  # explicit zeros are zero-cost arcs
    res = _gpu(A, block_size=4)
    assert res.cost == n * value


@gpu
def test_partial_matches_bruteforce():
    rng = np.random.default_rng(5)
    for _ in range(3 if SIM else 10):
        A = _random(rng, 5, 6, 0.35, -9, 30, perfect=False)
        res = _gpu(A, partial=True, block_size=2)
        d = np.full(A.shape, np.inf)
        co = A.tocoo()
        d[co.row, co.col] = co.data
        card, best = partial_assignment_bruteforce(d)
        assert (len(res.row_ind), res.cost) == (card, best)


@gpu
def test_floats_and_maximize():
    rng = np.random.default_rng(11)
    A = _random(rng, 10, 10, 0.5, -1.5, 3.5, floats=True)
    res = _gpu(A, block_size=4)
    r, c = scipy_mwfbm(A)
    assert res.cost == pytest.approx(float(A[r, c].sum()), rel=1e-12)
    res = _gpu(A, maximize=True, block_size=4)
    r, c = scipy_mwfbm(A, maximize=True)
    assert res.cost == pytest.approx(float(A[r, c].sum()), rel=1e-12)


@gpu
def test_dropin_gpu_equals_scipy():
    rng = np.random.default_rng(2)
    A = _random(rng, 8, 13, 0.4, 1, 99)
    r, c = matchflow.min_weight_full_bipartite_matching(A, backend="gpu")
    r0, c0 = scipy_mwfbm(A)
    assert np.array_equal(r, r0) and int(A[r, c].sum()) == int(A[r0, c0].sum())


@gpu
def test_dense_cost_scaling_on_the_gpu():
    rng = np.random.default_rng(4)
    C = rng.integers(0, 50, (11, 11))
    res = matchflow.assignment(C, method="cost-scaling", backend="gpu", block_size=8)
    assert res.backend == "gpu" and "gpu_fallback" not in res.stats
    assert res.cost == matchflow.assignment(C, backend="cpu").cost
    matchflow.verify.verify_assignment(C, res)


@gpu
@settings(max_examples=10 if SIM else 30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 7), st.integers(1, 7), st.sampled_from([1, 2, 32]),
       st.sampled_from(["double-push", "paper"]), st.booleans())
def test_property_partial_random(seed, nr, nc, bs, variant, follow):
    rng = np.random.default_rng(seed)
    A = _random(rng, nr, nc, 0.5, -(10**6), 10**6, perfect=False)
    _gpu(A, partial=True, block_size=bs, variant=variant, follow=follow)


@gpu
def test_double_push_and_path_following_do_less_work():
    """Work counters, not timings: the double-push prices need fewer pushes (3-4x in the simulator) and
    following the path of a unit needs fewer sweeps (host rounds) than one step per sweep (7-50x)."""
    rng = np.random.default_rng(3)
    n = 30 if SIM else 500
    A = _random(rng, n, n, 10 / n, 1, 10**6)
    kw = {"block_size": 32, "schedule": "sweeps"}
    paper = _gpu(A, variant="paper", follow=False, **kw).stats
    double = _gpu(A, variant="double-push", follow=False, **kw).stats
    path = _gpu(A, variant="double-push", follow=True, **kw).stats
    assert double["pushes"] < paper["pushes"]
    assert path["sweeps"] < double["sweeps"]


@gpu
@pytest.mark.parametrize("loop", ["persistent", "host"])
def test_async_schedule_reads_the_device_once(loop):
    """The async schedule detects the end of each phase on the device: one cooperative launch for the whole
    eps loop (persistent) or two launches per phase (host), and one read of the control words in all."""
    rng = np.random.default_rng(13)
    n = 20 if SIM else 2000
    A = _random(rng, n, n, 0.25 if SIM else 10 / n, 0, 10**5)
    st = _gpu(A, block_size=4 if SIM else 64, loop=loop, tail=0).stats
    assert st["syncs"] == 1 and "sweeps" not in st
    assert st["launches"] == (1 if loop == "persistent" else 2 * st["phases"])
    eps, phases = int(A.data.max() - A.data.min()) * 2 * (n + 1), 0  # shifted costs times 2(n+1), eps / 10 to 1
    while eps > 1 or phases == 0:
        eps, phases = max(eps // 10, 1), phases + 1
    assert st["phases"] == phases and st["pushes"] >= n


@gpu
@pytest.mark.parametrize("tail", [3, 10**9])
def test_cpu_tail_finishes_the_phases(tail):
    """With ``tail`` the GPU refine stops when at most ``tail`` units are left in a phase and the CPU finishes
    it (one state copy per phase); ``tail`` above n: the GPU only initialises, the CPU does every push."""
    rng = np.random.default_rng(19)
    n = 24 if SIM else 3000
    A = _random(rng, n, n, 0.25 if SIM else 10 / n, 1, 10**5)
    st = _gpu(A, block_size=4 if SIM else 64, tail=tail).stats
    assert (st["loop"], st["tail"]) == ("host", tail) and st["syncs"] == 1 + st["phases"]
    assert 0 <= st["tail_phases"] <= st["phases"] and st["tail_pushes"] <= st["pushes"]
    if tail > n:  # (with tail=3 the GPU may absorb the last units before a poll sees them: no tail then)
        assert st["tail_phases"] == st["phases"] and st["pushes"] == st["tail_pushes"] > n


@gpu
@pytest.mark.parametrize("tail", [7, 10**9])
@pytest.mark.parametrize("every", [0.0, 0.01, 5.0])
def test_cpu_tail_with_the_global_price_update(tail, every):
    """``price_update=True``: Algorithm 5.3 (Dial buckets on the two-price pseudoflow) in the CPU tail, once
    at its start (``update_every=0``) or after every ``update_every * n`` tail pushes; the answer is the
    optimum, certified; with ``tail`` above n every phase is the CPU's, so every phase has an update
    (``update_every=0``)."""
    rng = np.random.default_rng(29)
    n = 24 if SIM else 2000
    A = _random(rng, n, n, 0.25 if SIM else 12 / n, 1, 10**5)
    st = _gpu(A, block_size=4 if SIM else 64, tail=tail, price_update=True, update_every=every).stats
    assert st["price_updates"] >= 0 and st["seconds_update"] >= 0
    if tail > n:
        assert st["tail_phases"] == st["phases"] and st["pushes"] == st["tail_pushes"]
        if every == 0:
            assert st["price_updates"] == st["phases"]
    plain = _gpu(A, block_size=4 if SIM else 64, tail=tail, price_update=False).stats
    assert plain["price_updates"] == 0


@gpu
@pytest.mark.parametrize("loop", ["persistent", "host"])
def test_scan_bound_stops_and_the_cpu_answers(loop):
    """``max_rounds`` bounds each thread's scans of a phase on the async schedule: past it the solve stops
    (never a hang) and the CPU twin answers, said in the stats; the answer is still certified."""
    rng = np.random.default_rng(17)
    A = _random(rng, 30, 30, 0.3, 1, 10**4)
    res = matchflow.assignment(A, backend="gpu", block_size=4, loop=loop, max_rounds=1, tail=0)
    assert res.backend == "cpu" and res.stats["gpu_fallback"] == "work budget (int64 prices or max_rounds)"
    assert verify_sparse_assignment(A, res) == []
    assert res.cost == matchflow.assignment(A, backend="cpu").cost


@gpu
@device_only
def test_repeated_runs_are_certified():
    """The lock-free refine is not deterministic: repeated solves of one input, every one certified."""
    rng = np.random.default_rng(8)
    A = _random(rng, 3000, 3000, 20 / 3000, 1, 10**4)
    costs = {_gpu(A, block_size=bs, loop=loop, tail=t).cost for bs in (32, 128, 256)
             for loop, t in (("persistent", 0), ("host", 0), ("host", 64)) for _ in range(2)}
    costs |= {_gpu(A, block_size=64, tail=t, price_update=True, update_every=e).cost for t in (64, 1024)
              for e in (0.0, 0.5)}
    assert len(costs) == 1


@gpu
def test_public_device_entry_solves_and_refuses_overflow():
    """``matchflow.gpu.cost_scaling_to_device`` shares the sparse solve's shift and overflow guard."""
    rng = np.random.default_rng(21)
    A = _random(rng, 40, 40, 0.2, -50, 50)
    dev = matchflow.gpu.cost_scaling_to_device(A)
    st, x, u, v, stats = matchflow.gpu.cost_scaling_assignment(dev, block_size=32)
    assert st == 0 and int(A[np.arange(40), x].sum()) == matchflow.assignment(A, backend="cpu").cost
    big = sp.csr_array((np.array([0, 2**58, 2**58, 0], dtype=np.int64), ([0, 0, 1, 1], [0, 1, 0, 1])), shape=(2, 2))
    with pytest.raises(OverflowError, match=r"^integer cost range 288230376151711744 times \(n\+1\)\^2 with n=2 "):
        matchflow.gpu.cost_scaling_to_device(big)


def _device_sparse(form, A):
    """``A`` as a device-resident sparse matrix: CuPy CSR / CSC / COO (float64: CuPy's sparse dtypes) or a
    PyTorch sparse CUDA tensor (int64; COO left uncoalesced, its duplicates summed as SciPy does)."""
    lib, fmt = form.split("-")
    if lib == "cupy":
        cupy = pytest.importorskip("cupy")
        import cupyx.scipy.sparse as csp

        del cupy
        B = getattr(sp, f"{fmt}_matrix")(A.astype(np.float64))
        return getattr(csp, f"{fmt}_matrix")(B)
    torch = pytest.importorskip("torch")
    if fmt == "csr":
        return torch.sparse_csr_tensor(torch.as_tensor(A.indptr), torch.as_tensor(A.indices),
                                       torch.as_tensor(A.data.astype(np.int64)), A.shape, device="cuda")
    C = A.tocoo()
    r, c, d = np.r_[C.row, C.row[:3]], np.r_[C.col, C.col[:3]], np.r_[C.data, np.ones(3, C.data.dtype)]
    d[:3] -= 1  # the first 3 entries stored as two copies (data - 1, 1)
    return torch.sparse_coo_tensor(torch.as_tensor(np.vstack([r, c])), torch.as_tensor(d.astype(np.int64)), A.shape,
                                   device="cuda")


def _lib_of(a):
    return type(a).__module__.split(".")[0]


@gpu
@device_only
@pytest.mark.parametrize("form", ["cupy-csr", "cupy-csc", "cupy-coo", "torch-csr", "torch-coo"])
@pytest.mark.parametrize("shape", [(60, 60), (40, 70)])
def test_device_sparse_inputs(form, shape):
    """CuPy sparse and PyTorch sparse CUDA costs: accepted by ``assignment`` and the drop-in, copied to the host
    once (``stats["device_fallback"]``), the answer on the device in the caller's library, certified, the
    optimum of the host twin."""
    rng = np.random.default_rng(31)
    A = _random(rng, *shape, 0.1, 1, 100)
    D = _device_sparse(form, A)
    lib = form.split("-")[0]
    res = matchflow.assignment(D, backend="gpu", block_size=32, tail=0)
    assert res.backend == "gpu" and "gpu_fallback" not in res.stats
    assert res.stats["input_library"] == lib and res.stats["device_fallback"].startswith("host copy:")
    assert {_lib_of(a) for a in (res.row_ind, res.col_ind, res.u, res.v)} == {lib}
    assert verify_sparse_assignment(D, res) == [] and verify_sparse_assignment(A, res) == []
    assert res.cost == pytest.approx(matchflow.assignment(A).cost)
    r, c = matchflow.min_weight_full_bipartite_matching(D, backend="gpu")
    assert _lib_of(r) == _lib_of(c) == lib
    r0, c0 = scipy_mwfbm(A)
    hr, hc = (np.array(a.get() if lib == "cupy" else a.cpu().numpy()) for a in (r, c))  # a writeable copy
    assert int(A[hr, hc].sum()) == int(A[r0, c0].sum())
    cpu = matchflow.assignment(D, backend="cpu")  # the CPU twin takes it too (same copy, same library rule)
    assert cpu.cost == pytest.approx(res.cost) and _lib_of(cpu.row_ind) == lib


@gpu
@device_only
def test_device_sparse_bad_input_is_named():
    torch = pytest.importorskip("torch")
    bad = torch.sparse_coo_tensor(torch.tensor([[0, 1], [0, 1]]), torch.tensor([1.0, float("nan")]), (2, 2),
                                  device="cuda")
    with pytest.raises(ValueError, match=r"^matrix contains invalid numeric entries: NaN$"):
        matchflow.assignment(bad, backend="gpu")
    with pytest.raises(ValueError, match=r"^partial=True needs a scipy.sparse cost matrix"):
        matchflow.assignment(torch.ones((2, 2), device="cuda"), partial=True)


@gpu
@device_only
def test_auto_picks_the_gpu_from_the_measured_size(monkeypatch, warm_gpu_process):
    """``backend="auto"`` on sparse costs: the GPU from ``AUTO_GPU_NNZ`` arcs (measured faster end to end),
    the CPU below it or with options; said in ``stats["auto_rule"]``."""
    import importlib

    S = importlib.import_module("matchflow.assignment._methods")
    rng = np.random.default_rng(37)
    A = _random(rng, 300, 300, 0.05, 1, 1000)
    res = matchflow.assignment(A)
    assert res.backend == "cpu" and res.stats["auto_rule"] == f"nnz {A.nnz} < 20000000: the CPU twin is faster"
    monkeypatch.setattr(S, "AUTO_GPU_NNZ", A.nnz)
    res = matchflow.assignment(A)
    assert res.backend == "gpu" and res.stats["auto_rule"].endswith("and a GPU: the GPU is faster end to end")
    assert verify_sparse_assignment(A, res) == [] and res.cost == matchflow.assignment(A, backend="cpu").cost
    assert matchflow.assignment(A, update_every=2.0).backend == "cpu"


# ----------------------------------------------------------------------------- the price update on the device


@gpu
@pytest.mark.parametrize("tail", [3, 24, 10**3])
def test_device_update_finishes_the_phases_on_the_device(tail):
    """``device_update=True``: the refine stops at ``tail`` units left, Alg. 5.3 runs on the device, the refine
    goes on (to ``tail / 4`` units, another update, ...): no CPU tail, one read of the control words per solve
    on a device (the simulator reads between the update's sweeps); the answer is the optimum, certified.
    ``tail`` >= n: the first update of each phase runs right after the init."""
    rng = np.random.default_rng(37)
    n = 24 if SIM else 3000
    A = _random(rng, n, n, 0.25 if SIM else 10 / n, 1, 10**5)
    st = _gpu(A, block_size=4 if SIM else 64, loop="host", tail=tail, device_update=True,
              update_delta=1 if tail == 3 else 16, update_rounds=1 if tail == 3 else 3).stats
    assert st["device_update"] and "tail_pushes" not in st and st["updates_skipped"] == 0
    if not SIM:
        assert st["syncs"] == 2 and st["update_grid"] >= 1
    else:  # the update's host form: reads between its sweeps
        assert st["syncs"] > 2
    if tail >= n:
        assert st["device_updates"] >= st["phases"] and st["update_sweeps"] >= st["device_updates"]


@gpu
@device_only
@pytest.mark.parametrize("hi", [100, 10**6])
def test_device_update_larger_and_knn_like(hi):
    """Larger random inputs (several eps phases, many blocks) and a banded (kNN-like) one, default trigger."""
    rng = np.random.default_rng(hi % 101)
    n = 20_000
    A = _random(rng, n, n, 8 / n, 0, hi)
    st = _gpu(A, block_size=128, loop="host", tail=64, device_update=True).stats
    assert st["device_updates"] >= 1
    r = np.repeat(np.arange(n), 9)
    c = (r + np.tile(np.arange(-4, 5), n)) % n
    B = sp.csr_array((rng.integers(0, hi + 1, r.size), (r, c)), shape=(n, n))
    assert _gpu(B, block_size=256, loop="host", tail=256, device_update=True).stats["device_updates"] >= 1


def _device_update(h, n, eps, price, exc, col4row, floor, form, bs, delta):
    """Alg. 5.3 on the device on a host state (the graph of ``test_cost_scaling_tail._problem``)."""
    from numba import cuda

    from matchflow.assignment import _gpu_cost_scaling_update as U

    d = {k: cuda.to_device(h[k].astype(np.int32 if k in ("indptr", "indices", "cptr", "crow") else np.int64))
         for k in h}
    b = {"price": cuda.to_device(price), "exc": cuda.to_device(exc), "col4row": cuda.to_device(col4row),
         "label": cuda.device_array(2 * n, np.int64), "slab": cuda.device_array(2 * n, np.int64),
         "W": cuda.to_device(np.zeros(U.W_SIZE, np.int64))}
    ctl, live = cuda.to_device(np.zeros(5, np.int64)), cuda.to_device(np.array([n], np.int64))
    U.device_price_update(d, n, eps, b, floor, ctl, live, 0, 0, bs, form, delta)
    w = b["W"].copy_to_host()
    return b["price"].copy_to_host(), int(w[U.W_UPDATES]), int(w[U.W_SKIPPED])


def _update_equals_cpu(seed, n, deg, hi, phase, left, form, bs, delta, floor=None):
    """The device update and the CPU tail's (``tail_price_update_kernel``, Dial buckets) on one mid-phase state
    (``test_cost_scaling_tail._mid_phase``): the same prices, to the unit (both give ``min(distance, D)``)."""
    from matchflow.assignment._cpu_cost_scaling_tail import tail_price_update_kernel, update_arrays

    h, g, eps, price, exc, col4row = _mid_phase(seed, n, deg, hi, phase, left)
    floor = FLOOR if floor is None else floor(price)
    p = price.copy()
    done, _, _ = tail_price_update_kernel(*g, np.int64(eps), p, exc.copy(), col4row.copy(), np.int64(floor),
                                          *update_arrays(n, h["indices"].shape[0]))
    pd, upd, skipped = _device_update(h, n, eps, price.copy(), exc.copy(), col4row.copy(), floor, form, bs, delta)
    assert (pd == p).all()
    assert (upd, skipped) == ((1, 0) if done else (0, 1))
    return done, price, p


@gpu
@pytest.mark.parametrize("seed,hi,phase,left", [(0, 10**4, 2, 5), (1, 10**6, 4, 3), (2, 9, 1, 8), (3, 1, 0, 6),
                                                (4, 10**5, 3, 1), (5, 0, 0, 30)])
def test_device_update_equals_the_cpu_dial_update(seed, hi, phase, left):
    """The device update (delta-stepping: buckets of ``delta`` levels, label-correcting inside) gives the CPU
    Dial update's prices exactly, for any bucket width."""
    forms = ("host",) if SIM else ("host", "coop")
    for form in forms:
        for delta in (1, 5, 10**6):
            done, p0, p = _update_equals_cpu(seed, 30 if SIM else 300, 4, hi, phase, left, form, 8 if SIM else 32,
                                             delta)
            assert done and (p <= p0).all()


@gpu
def test_device_update_refuses_near_the_int64_floor():
    for form in ("host",) if SIM else ("host", "coop"):
        done, p0, p = _update_equals_cpu(5, 30, 4, 10**4, 1, 4, form, 8, 3, floor=lambda price: int(-price.min()))
        assert not done and (p == p0).all()


@gpu
@device_only
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 400), deg=st.integers(1, 6),
       hi=st.sampled_from([0, 1, 9, 10**3, 10**6]), phase=st.integers(0, 6), left=st.integers(0, 60),
       bs=st.sampled_from([32, 64, 256]), delta=st.sampled_from([1, 2, 16, 256, 10**9]))
def test_property_device_update_equals_the_cpu(seed, n, deg, hi, phase, left, bs, delta):
    for form in ("host", "coop"):
        _update_equals_cpu(seed, n, deg, hi, phase, left, form, bs, delta)
