"""GPU cost scaling for min-cost flow (the ``gpu=`` twin of the ``"cost-scaling"`` row) through the public API:
``min_cost_flow(..., backend="gpu")``, ``max_flow_min_cost`` and ``transport``, against the CPU twin's cost on the
named cases (``MCF_CASES``) and random networks; every answer certified by ``verify_min_cost_flow`` (exact
integer potentials) and from the GPU (``res.backend == "gpu"``, no ``gpu_fallback``: a device answer the exact
pass does not prove is solved again on the CPU, which would hide a GPU bug); repeated runs give the same cost.
Tiny block sizes make small inputs span many blocks. Option checks and the auto rule need no GPU. Under
``NUMBA_ENABLE_CUDASIM=1`` the kernels run (slowly) on the small inputs; the larger ones are device-only.
"""

from __future__ import annotations

import numpy as np
import pytest
from cases import MCF_CASES, _mcf_random
from conftest import SIM, device_only, gpu

import matchflow as mf
from matchflow.generators import gridgen, netgen
from matchflow.mcf._gpu_cost_scaling import validate_mcf_gpu_options
from matchflow.mcf._methods import TABLE
from matchflow.mcf._prepare import prepare
from matchflow.verify import verify_min_cost_flow

# (loop, block_size): tiny blocks make a small input span many blocks; the simulator runs a Python thread per GPU
# thread (large blocks on tiny inputs are slow there) and the persistent loop on one block
RUNS = ((("host", 2), ("host", 8), ("persistent", 4)) if SIM else
        (("host", 1), ("host", 4), ("host", 256), ("persistent", 32), ("persistent", 256)))
SMALL = {"cycle": 1, "check_every": 1}  # many rounds, a host read after each


def _gpu(tail, head, demand, cap, cost, **kw):
    """The public GPU call: from the GPU, certified, and equal in cost to the CPU twin."""
    res = mf.min_cost_flow((tail, head), demand, capacity=cap, cost=cost, backend="gpu", **kw)
    assert res.backend == "gpu" and res.method == "cost-scaling"
    assert "gpu_fallback" not in res.stats, res.stats["gpu_fallback"]
    assert verify_min_cost_flow((tail, head), demand, res, capacity=cap, cost=cost) == []
    cpu = mf.min_cost_flow((tail, head), demand, capacity=cap, cost=cost, method="cost-scaling", backend="cpu")
    if np.asarray(cost).dtype.kind == "f":
        assert res.cost == pytest.approx(cpu.cost, rel=1e-9, abs=1e-9)
    else:
        assert type(res.cost) is int and res.cost == cpu.cost
    return res


# ----------------------------------------------------------------------------- options and placement (no GPU)


def test_options_are_checked_without_a_gpu():
    o = validate_mcf_gpu_options({"block_size": 8, "cycle": 3})
    assert (o["block_size"], o["cycle"], o["check_every"], o["alpha"], o["loop"]) == (8, 3, 4, 8, "persistent")
    assert validate_mcf_gpu_options({})["block_size"] == 256
    with pytest.raises(ValueError, match=r"cycle must be >= 1, got 0"):
        validate_mcf_gpu_options({"cycle": 0})
    with pytest.raises(ValueError, match=r"alpha must be >= 2, got 1"):
        validate_mcf_gpu_options({"alpha": 1})
    assert validate_mcf_gpu_options({})["update_every"] == 32
    assert validate_mcf_gpu_options({"update_every": 0})["update_every"] == 0
    with pytest.raises(ValueError, match=r"update_every must be >= 0, got -1"):
        validate_mcf_gpu_options({"update_every": -1})
    assert validate_mcf_gpu_options({"loop": "persistent"})["loop"] == "persistent"
    assert validate_mcf_gpu_options({"loop": "auto"})["loop"] == "persistent"  # measured 7-11x the host loop
    with pytest.raises(ValueError, match=r"certify=False is not available"):
        validate_mcf_gpu_options({"certify": False})
    with pytest.raises(ValueError, match=r"block_size must be a power of two"):
        validate_mcf_gpu_options({"block_size": 3})
    with pytest.raises(TypeError, match=r"unexpected option"):
        validate_mcf_gpu_options({"lookahead": True})


def test_auto_picks_the_gpu_twin_where_measured_faster(monkeypatch):
    """``backend="auto"`` runs the GPU twin on sparse networks of >= GPU_MIN_N nodes in a warm process (measured,
    :func:`matchflow.mcf._methods.gpu_rule`), for ``method="auto"`` and ``method="cost-scaling"``; smaller or denser
    networks, a cold process and CPU options stay on the CPU; GPU-only options send it to the GPU."""
    from matchflow import _methods
    from matchflow.mcf._methods import GPU_MAX_RATIO, GPU_MIN_N

    monkeypatch.setattr(_methods, "_auto_may_use_gpu", lambda: True)
    monkeypatch.setattr(_methods, "_GPU_WARM", [True])
    row = TABLE.row("cost-scaling")
    small = prepare((np.array([0]), np.array([1])), np.array([-1, 1]), np.array([5]), np.array([2]))
    n = GPU_MIN_N
    tail = np.arange(n - 1)
    big = prepare((tail, tail + 1), np.r_[-1, np.zeros(n - 2, int), 1], np.ones(n - 1, int), np.ones(n - 1, int))
    assert TABLE.gpu_rule(small) is None and TABLE.gpu_rule(big) == "cost-scaling"
    assert TABLE.gpu_rule(type("P", (), {"n": n, "m": GPU_MAX_RATIO * n + 1})()) is None  # dense: the CPU
    for r in (None, row):
        assert _methods.place(TABLE, r, "auto", lambda: small, {})[1] == "cpu"
        assert _methods.place(TABLE, r, "auto", lambda: big, {})[1] == "gpu"
        assert _methods.place(TABLE, r, "auto", lambda: big, {"alpha": 4})[1] == "cpu"  # a CPU option
    assert _methods.place(TABLE, row, "auto", lambda: small, {"block_size": 32})[1] == "gpu"
    assert _methods.place(TABLE, None, "gpu", lambda: small, {})[0].name == "cost-scaling"
    monkeypatch.setattr(_methods, "_GPU_WARM", [False])  # a fresh process: the first GPU call costs more
    assert _methods.place(TABLE, None, "auto", lambda: big, {})[1] == "cpu"


def test_network_simplex_has_no_gpu_twin():
    with pytest.raises(ValueError, match=r"backend='gpu' is not available"):
        mf.min_cost_flow((np.array([0]), np.array([1])), [-1, 1], capacity=[1], cost=[1], method="network-simplex",
                         backend="gpu")


# ----------------------------------------------------------------------------- answers (GPU or the simulator)


@gpu
@pytest.mark.parametrize(("loop", "block_size"), RUNS)
@pytest.mark.parametrize("case", [c for c in MCF_CASES if c.error is None], ids=lambda c: c.name)
def test_cases_certified_and_equal_to_the_cpu(case, loop, block_size):
    tail, head, demand, cap, cost = case.make()
    res = _gpu(tail, head, demand, cap, cost, block_size=block_size, loop=loop)
    assert res.stats["block_size"] == block_size and res.stats["loop"] == loop
    assert all(res.stats[f"seconds_gpu_{s}"] >= 0 for s in ("start", "solve", "certify", "finish"))
    if demand.size and tail.size:
        assert res.stats["phases"] >= 1 and res.stats["rounds"] >= 0 and res.stats["kernel_launches"] > 0


@gpu
@pytest.mark.parametrize("case", [c for c in MCF_CASES if c.error is not None], ids=lambda c: c.name)
def test_error_cases(case):
    tail, head, demand, cap, cost = case.make()
    with pytest.raises(ValueError, match=case.error):
        mf.min_cost_flow((tail, head), demand, capacity=cap, cost=cost, backend="gpu")


@gpu
@pytest.mark.parametrize("seed", range(4 if SIM else 40))
def test_random_networks(seed):
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(2, 12 if SIM else 60))
    m = int(rng.integers(0, 4 * n))
    lo, hi = [(0, 1), (-5, 30), (-1000, 1000), (0, 3)][seed % 4]  # zero costs (ties everywhere), mixed, wide, ties
    tail, head, demand, cap, cost = _mcf_random(n, m, seed, hi=[2, 20, 100][seed % 3], lo=lo, cost_hi=hi)
    loop = "persistent" if seed % 4 == 3 else "host"
    upd = {"update_every": [1, 16, 0, 3][seed // 4 % 4]} if loop == "persistent" else {}
    _gpu(tail, head, demand, cap, cost, block_size=[1, 2, 8][seed % 3] if SIM else [1, 2, 32, 256][seed % 4],
         loop=loop, **(SMALL if seed % 2 else {}), **upd)


@gpu
def test_repeated_runs_give_the_same_cost():
    tail, head, demand, cap, cost = _mcf_random(10, 36, 7)
    costs = {_gpu(tail, head, demand, cap, cost, block_size=2).cost for _ in range(2 if SIM else 5)}
    assert len(costs) == 1


@gpu
def test_options_reach_the_solve():
    tail, head, demand, cap, cost = next(c for c in MCF_CASES if c.name == "random_int").make()
    res = _gpu(tail, head, demand, cap, cost, block_size=4, alpha=2, cycle=2, check_every=3, grid_size=1,
               loop="host")
    st = res.stats
    assert (st["alpha"], st["cycle"], st["check_every"]) == (2, 2, 3) and st["rounds"] % 3 == 0
    assert st["pushes"] > 0 and st["relabels"] > 0


@gpu
@pytest.mark.parametrize("every", [0, 1, 5])
def test_price_update_in_the_persistent_loop(every):
    """The device global price update (``update_every`` rounds, and at each phase start) keeps the answer: the same
    cost as the CPU twin, certified; counted in the stats (none with ``update_every=0``), some of them applied."""
    tail, head, demand, cap, cost = _mcf_random(12 if SIM else 60, 48 if SIM else 400, 11, hi=20, lo=-5, cost_hi=30)
    res = _gpu(tail, head, demand, cap, cost, loop="persistent", block_size=4 if SIM else 32, cycle=1,
               update_every=every)
    st = res.stats
    assert st["update_every"] == every and st["loop"] == "persistent"
    if every == 0:
        assert st["price_updates"] == st["update_sweeps"] == st["updates_skipped"] == 0
    else:
        assert st["price_updates"] >= st["phases"] and st["update_sweeps"] >= st["price_updates"]
        assert st["updates_skipped"] < st["price_updates"]


@gpu
@pytest.mark.parametrize("loop", ["host", "persistent"])
def test_max_rounds_falls_back_to_the_cpu_twin(loop):
    """A phase stopped by ``max_rounds`` is solved again by the CPU twin: still optimal and certified, said in
    ``stats["gpu_fallback"]``."""
    tail, head, demand, cap, cost = next(c for c in MCF_CASES if c.name == "random_unbounded").make()
    res = mf.min_cost_flow((tail, head), demand, capacity=cap, cost=cost, backend="gpu", max_rounds=1,
                           check_every=1, cycle=1, block_size=4, loop=loop)
    assert res.backend == "gpu" and "max_rounds" in res.stats["gpu_fallback"]
    assert verify_min_cost_flow((tail, head), demand, res, capacity=cap, cost=cost) == []


@gpu
def test_networkx_max_flow_min_cost_and_transport_on_the_gpu():
    nx = pytest.importorskip("networkx")
    G = nx.DiGraph()
    G.add_edge("s", "a", capacity=3, weight=1)
    G.add_edge("s", "b", capacity=2, weight=5)
    G.add_edge("a", "t", capacity=2, weight=1)
    G.add_edge("b", "t", capacity=3, weight=1)
    G.add_edge("a", "b", capacity=1, weight=1)
    res = mf.max_flow_min_cost(G, "s", "t", backend="gpu", block_size=2)
    assert res.backend == "gpu" and (res.flow_value, res.cost) == (5, 19)
    rng = np.random.default_rng(3)
    C = rng.integers(0, 50, (4, 5))
    a, b = np.array([3, 1, 4, 2]), np.array([2, 2, 2, 2, 2])
    g, c = mf.transport(a, b, C, backend="gpu", block_size=4), mf.transport(a, b, C, backend="cpu")
    assert g.backend == "gpu" and g.cost == c.cost
    assert (g.plan.sum(1) == a).all() and (g.plan.sum(0) == b).all()


@gpu
@device_only
@pytest.mark.parametrize("make", [lambda: netgen(2000, 16000, seed=1), lambda: gridgen(40, 40, degree=8, seed=2),
                                  lambda: netgen(300, 3000, cost=(-100, 100), seed=3)],
                         ids=["netgen-2000", "gridgen-40x40", "netgen-neg-costs"])
def test_generated_networks(make):
    p = make()
    cap = p.cap.astype(np.int64)
    for loop, bs in (("host", 32), ("host", 256), ("persistent", 256)):
        _gpu(p.tail, p.head, p.demand, cap, p.cost, block_size=bs, loop=loop)
    plain = _gpu(p.tail, p.head, p.demand, cap, p.cost, loop="persistent", update_every=0)
    upd = _gpu(p.tail, p.head, p.demand, cap, p.cost, loop="persistent")
    assert upd.stats["price_updates"] > 0 and upd.stats["rounds"] < plain.stats["rounds"]
