"""method="network-simplex" (the primal network simplex row): its option, its stats, degenerate and tied inputs.
The named cases (MCF_CASES) run on it from test_mcf.py through the method table, with no edit there."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import matchflow as mf
from matchflow.generators import netgen, transport_instance
from matchflow.mcf._api import METHODS
from matchflow.mcf._methods import TABLE

NS = "network-simplex"


def test_row_in_the_table():
    assert NS in TABLE.cpu_names and NS in METHODS



@pytest.mark.parametrize(("n", "m", "want"), [
    (2, 1, NS), (5000, 40_000, NS), (4000, 4_000_000, NS), (10_000, 160_000, NS), (10_000, 159_999, "cost-scaling"),
    (5001, 40_008, "cost-scaling"), (10_001, 10**7, "cost-scaling"), (10**5, 8 * 10**5, "cost-scaling")])
def test_auto_rule(n, m, want):
    """The measured rule (``_methods.cpu_rule``): network simplex up to 5000 nodes, and up to 10^4 where m >= 16 n."""
    assert TABLE.cpu_rule(SimpleNamespace(n=n, m=m)) == want


def test_auto_runs_it_on_small_and_cost_scaling_on_large():
    s, d, C = transport_instance(30, seed=1)
    assert mf.transport(s, d, C).method == NS
    p = netgen(6000, 6000 * 8, seed=1)
    assert mf.min_cost_flow((p.tail, p.head), p.demand, capacity=p.cap, cost=p.cost).method == "cost-scaling"


def test_block_size_checked():
    args = ((np.array([0]), np.array([1])), np.array([-1, 1]))
    with pytest.raises(ValueError, match="block_size must be >= 1, got 0"):
        mf.min_cost_flow(*args, method=NS, block_size=0)
    with pytest.raises(TypeError, match="block_size must be an integer"):
        mf.min_cost_flow(*args, method=NS, block_size=2.5)
    with pytest.raises(TypeError, match="unexpected option.*alpha.*accepted: block_size"):
        mf.min_cost_flow(*args, method=NS, alpha=4)
    assert mf.min_cost_flow(*args, method=NS, block_size=None).stats["block_size"] == 1  # the default, at most m


def test_transport_ties_and_degenerate():
    """All-equal costs (every basis optimal, many zero pivots), unit masses (an assignment: n - 1 degenerate
    basic arcs) and a single row: the plan meets the marginals and the duals certify it."""
    for s, d, C in ((np.full(7, 3), np.full(7, 3), np.full((7, 7), 5)),
                    (np.ones(9, np.int64), np.ones(9, np.int64), np.random.default_rng(3).integers(0, 3, (9, 9))),
                    (np.array([10]), np.array([1, 2, 3, 4]), np.array([[4, 3, 2, 1]]))):
        ns = mf.transport(s, d, C, method=NS)
        cs = mf.transport(s, d, C, method="cost-scaling")
        assert ns.cost == cs.cost
        assert (ns.plan.sum(1) == s).all() and (ns.plan.sum(0) == d).all()
        assert (ns.u[:, None] + ns.v[None, :] <= C).all()
        assert ((ns.plan == 0) | (ns.u[:, None] + ns.v[None, :] == C)).all()


def test_transport_against_pot():
    ot = pytest.importorskip("ot")
    rng = np.random.default_rng(11)
    for n in (5, 40):
        a, b = rng.integers(1, 30, n), rng.integers(1, 30, n + 3)
        b[np.argmax(b)] += a.sum() - b.sum()
        if b.min() < 0:
            continue
        C = rng.integers(0, 100, (n, n + 3))
        res = mf.transport(a, b, C, method=NS)
        G = ot.emd(a.astype(np.float64), b.astype(np.float64), C.astype(np.float64))
        assert res.cost == round(float((G * C).sum()))


def test_negative_cycle_of_unbounded_arcs_found_by_the_door():
    tail, head = np.array([0, 1, 2]), np.array([1, 2, 0])
    with pytest.raises(ValueError, match="unbounded: a negative-cost cycle of unbounded arcs"):
        mf.min_cost_flow((tail, head), np.zeros(3, np.int64), capacity=np.full(3, np.inf),
                         cost=np.array([1, 1, -3]), method=NS)
    res = mf.min_cost_flow((tail, head), np.zeros(3, np.int64), capacity=np.array([np.inf, 4, np.inf]),
                           cost=np.array([1, 1, -3]), method=NS)
    assert res.cost == -4 and res.flow.tolist() == [4, 4, 4]
