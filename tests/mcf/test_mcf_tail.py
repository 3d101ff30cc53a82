"""The CPU half of a "CPU tail" for the GPU cost-scaling twin (docs/notes/mcf.md, "Where the GPU rounds go"):
:func:`matchflow.mcf._cpu_cost_scaling.finish_refine` finishes an eps-phase from the state after some GPU rounds.
The GPU rounds are the CPU emulation of ``scripts/emulate_mcf_rounds.py`` (push passes in node order, relabels on
a price snapshot: the kernels' round structure); no GPU needed."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_script

from matchflow.generators import gridgen, netgen
from matchflow.mcf._cpu_cost_scaling import (
    FLOOR,
    exact_potentials_kernel,
    finish_refine,
    refine_kernel,
    residual,
    solve_cost_scaling,
)
from matchflow.mcf._prepare import prepare
from matchflow.verify import verify_min_cost_flow

EMU = load_script("emulate_mcf_rounds")
NETWORKS = {
    "netgen-60": lambda: netgen(60, 400, seed=5),
    "netgen-200": lambda: netgen(200, 1600, seed=6),
    "gridgen-8x8": lambda: gridgen(8, 8, degree=6, seed=7),
    "netgen-neg": lambda: netgen(80, 500, cost=(-50, 50), seed=8),
}


def _prepared(g):
    return prepare((g.tail, g.head), g.demand, capacity=g.cap, cost=g.cost)


def _min_reduced(indptr, to, res, cs, price):
    """The smallest reduced cost over the residual slots."""
    low = 0
    for v in range(indptr.size - 1):
        for a in range(indptr[v], indptr[v + 1]):
            if res[a] > 0:
                low = min(low, int(cs[a] + price[v] - price[to[a]]))
    return low


def _solve_with_tail(P, k, price_updates=3.0):
    """The GPU twin's eps loop (emulated rounds) where every phase runs at most ``k`` GPU rounds, then finishes on
    the CPU from that state; after each phase: no excess, eps-optimal. Returns (flow, potential, gpu rounds,
    phases finished on the CPU)."""
    n = P.n
    indptr, to, rev, res, c, slot, cs, excess, price, eps = EMU.start(P)
    rec = np.zeros((4, max(k, 1)), np.int64)
    work = (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n + 1, np.int64),
            np.empty(n, np.int64), np.zeros(n, np.bool_))
    rounds = tails = 0
    while True:
        eps = max(1, eps // 8)
        r, st, *_ = EMU.phase(indptr, to, rev, res, cs, excess, price, np.int64(eps), 4, k, 0, 0, work, rec)
        rounds += r
        assert st in (EMU.OK, EMU.BUDGET)
        assert _min_reduced(indptr, to, res, cs, price) >= -eps  # the GPU rounds keep eps-optimality
        if st == EMU.BUDGET:
            tails += 1
            st2, *_ = finish_refine(indptr, to, rev, res, cs, excess, price, eps, price_updates=price_updates)
            assert st2 == 0
        assert not excess.any()
        assert _min_reduced(indptr, to, res, cs, price) >= -eps
        if eps == 1:
            break
    pot = np.floor_divide(price, np.int64(n + 1))
    relax = exact_potentials_kernel(indptr, to, res, c, pot, np.empty(n, np.int64), np.zeros(n, np.bool_),
                                    np.int64(n) * 2 * P.m)
    assert relax >= 0
    return (P.cap - res[slot]).astype(np.int64), pot, rounds, tails


@pytest.mark.parametrize("name", sorted(NETWORKS))
@pytest.mark.parametrize("k", [1, 3, 12])
def test_gpu_rounds_then_cpu_finish_is_optimal(name, k):
    g = NETWORKS[name]()
    P = _prepared(g)
    flow, pot, rounds, tails = _solve_with_tail(P, k)
    assert rounds > 0 and tails > 0  # some phase really was cut and finished on the CPU
    assert verify_min_cost_flow((g.tail, g.head), g.demand, (flow, pot), capacity=g.cap, cost=g.cost) == []
    ref, _, _ = solve_cost_scaling(P)
    assert int((flow * P.icost).sum()) == int((ref * P.icost).sum())


@pytest.mark.parametrize("updates", [0.0, 0.5])
def test_finish_without_or_with_frequent_price_updates(updates):
    g = NETWORKS["netgen-200"]()
    P = _prepared(g)
    flow, pot, _, tails = _solve_with_tail(P, 5, price_updates=updates)
    assert tails > 0
    assert verify_min_cost_flow((g.tail, g.head), g.demand, (flow, pot), capacity=g.cap, cost=g.cost) == []


def test_finish_from_the_saturated_state_is_the_refine():
    """From the saturate pass's state (zero GPU rounds) finish_refine is refine_kernel: the same state after."""
    P = _prepared(NETWORKS["netgen-200"]())
    n = P.n
    indptr, to, rev, res, c, _ = residual(P)
    cs = c * np.int64(n + 1)
    eps = max(1, int(np.abs(cs).max()) // 8)
    a = [res.copy(), -P.demand.astype(np.int64), np.zeros(n, np.int64)]
    b = [x.copy() for x in a]
    work = (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n + 1, np.int64),
            np.zeros(n, np.bool_))
    out = refine_kernel(indptr, to, rev, a[0], cs, a[1], a[2], np.int64(eps), np.empty(n, np.int64),
                        np.zeros(n, np.bool_), np.empty(n, np.int64), np.int64(3 * n), work, True)
    EMU.saturate(indptr, to, rev, b[0], cs, b[1], b[2])
    out2 = finish_refine(indptr, to, rev, b[0], cs, b[1], b[2], eps)
    assert out == out2 and out[0] == 0
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert int(a[2].min()) > FLOOR
