"""Issue 21, general max-flow: sound certificates and exact answers over extreme magnitudes. Every CPU method
against an exact oracle (networkx on the capacities scaled to Python integers), the drop-in against SciPy,
and tampered certificates that verify_flow must reject (or certify only within the bound it proves)."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import maximum_flow as scipy_maximum_flow

from matchflow import FlowNetwork
from matchflow.flow import _cpu_exact, max_flow, maximum_flow, verify_flow
from matchflow.flow._cpu_exact import binary_scale
from matchflow.flow._result import FlowResult
from matchflow.flow._verify import flow_certificate
from tests.flow.test_flow import CPU_CONFIGS, run
from tests.naive import max_flow_exact as exact_value


def certified(net: FlowNetwork, r: FlowResult) -> float:
    """verify_flow passes; returns the proved bound on |flow_value - maximum|."""
    assert verify_flow(net, None, None, r)
    problems, bound = flow_certificate(net, r.flow, r.flow_value, r.source_side, r.cut_edges)
    assert not problems and math.isfinite(bound)
    return bound


def forged(value, flow, source_side, cut_edges) -> FlowResult:
    """A hand-made answer for verify_flow to judge."""
    return FlowResult(value, flow, source_side, cut_edges, method="x", backend="cpu", seconds=0.0)


def solve_quietly(config: str, net: FlowNetwork) -> FlowResult:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # every answer here is proved: no "not proved" warning
        return run(config, net)


# ------------------------------------------------------------------ the reproducers
@pytest.mark.parametrize("method", CPU_CONFIGS)
@pytest.mark.parametrize(("unit", "big"), [(1.0, 1e12), (1000.0, 1e16)])
def test_unit_arc_beside_an_unrelated_big_arc(method, unit, big):
    """Issue 21 #3: a unit s->t arc next to an unrelated 1e12 arc gave 0.0 (1000 next to 1e16 too)."""
    net = FlowNetwork(4, 0, 1, [0, 2], [1, 3], np.array([unit, big]))
    r = solve_quietly(method, net)
    assert r.flow_value == unit and r.flow.tolist() == [unit, 0.0]
    assert certified(net, r) == 0.0 or certified(net, r) < unit * 2.0**-40
    a = sp.csr_array(([unit, big], ([0, 2], [1, 3])), shape=(4, 4))
    assert maximum_flow(a, 0, 1).flow_value == unit
    bad = forged(0.0, np.zeros(2), np.array([True, False, False, False]), np.array([0]))
    with pytest.raises(AssertionError, match=r"the cut's capacity 1.*differs from flow_value 0.0"):
        verify_flow(net, None, None, bad)


@pytest.mark.parametrize("method", CPU_CONFIGS)
def test_unreachable_sink_pseudoflow_reproducer(method):
    """Issue 21 #4: pseudoflow gave flow_value -1.0 / -2.0 and flow out of a vertex with no inflow."""
    net = FlowNetwork(5, 0, 4, [2, 3, 1, 2, 3], [4, 2, 4, 1, 4], np.array([1e16, 1e12, 1.0, 2.0, 1e12]))
    r = solve_quietly(method, net)
    assert r.flow_value == 0.0 and not r.flow.any() and certified(net, r) < 2.0**-1000
    bad = forged(-1.0, np.zeros(5), r.source_side, r.cut_edges)
    with pytest.raises(AssertionError, match=r"flow_value -1.0 differs from the source's net outflow"):
        verify_flow(net, None, None, bad)
    leak = forged(0.0, np.array([0.0, 0.0, 0.0, 0.0, 0.5]), r.source_side, r.cut_edges)
    with pytest.raises(AssertionError, match=r"flow is not conserved at node 3"):
        verify_flow(net, None, None, leak)


def test_capacity_sums_beyond_float64_refused_and_never_certified():
    """Issue 21 #5: two parallel 1e308 arcs: max_flow returned inf and verify_flow accepted a forged 5."""
    net = FlowNetwork(2, 0, 1, [0, 0], [1, 1], np.array([1e308, 1e308]))
    with pytest.raises(OverflowError, match=r"capacities at node 1 sum to about 2 x 1e\+308, beyond 2\*\*1022"):
        max_flow(net)
    bad = forged(5.0, np.array([2.5, 2.5]), np.array([True, False]), np.array([0, 1]))
    with pytest.raises(AssertionError, match=r"the cut's capacity overflows float64: nothing is proved"):
        verify_flow(net, None, None, bad)
    huge = forged(2e308, np.array([1e308, 1e308]), np.array([True, False]), np.array([0, 1]))
    with pytest.raises(AssertionError, match=r"must be finite"):
        verify_flow(net, None, None, huge)
    # a single arc just below the limit is solved and certified
    one = FlowNetwork(2, 0, 1, [0], [1], np.array([2.0**1021]))
    assert max_flow(one).flow_value == 2.0**1021


@pytest.mark.parametrize("method", CPU_CONFIGS)
def test_float32_answers_certified_in_float32_terms(method):
    """Issue 21 #5: verify_flow rejected max_flow's own correct answers on float32 capacities (300 of 300)."""
    rng = np.random.default_rng(21)
    for _ in range(20):
        n, m = 8, 20
        net = FlowNetwork(n, 0, n - 1, rng.integers(0, n, m), rng.integers(0, n, m),
                          rng.uniform(0, 100, m).astype(np.float32))
        r = solve_quietly(method, net)
        assert r.flow.dtype == np.float32
        bound = certified(net, r)
        assert abs(Fraction(r.flow_value) - exact_value(net)) <= Fraction(bound)


def test_dropin_unsigned_capacities_give_a_signed_antisymmetric_flow():
    """Issue 21 #6a: uint8 capacities gave 251 for -5 (SciPy returns int32)."""
    a = sp.csr_array((np.array([5], np.uint8), ([0], [1])), shape=(2, 2))
    f = maximum_flow(a, 0, 1).flow
    assert f.dtype == np.int16 and f.toarray().tolist() == [[0, 5], [-5, 0]]
    assert f.toarray().tolist() == scipy_maximum_flow(a, 0, 1).flow.toarray().tolist()
    big = sp.csr_array((np.array([2**40], np.uint64), ([0], [1])), shape=(2, 2))
    f = maximum_flow(big, 0, 1).flow
    assert f.dtype == np.int64 and f.toarray().tolist() == [[0, 2**40], [-(2**40), 0]]


def test_int64_duplicates_that_overflow_when_summed_are_refused():
    """Issue 21 #6b: duplicates summed wrapped to a silent capacity 1 or a "must be non-negative" error."""
    dup = sp.coo_array((np.array([2**62, 2**62, 2**62, 2**62 + 1], np.int64), ([0, 0, 0, 0], [1, 1, 1, 1])),
                       shape=(2, 2))
    with pytest.raises(OverflowError, match=r"a's duplicate entries at \(0, 1\) sum to about 1.84e\+19, beyond 2\*\*62"):
        max_flow(dup, 0, 1)
    two = sp.csr_array((np.array([2**62, 2**62], np.int64), np.array([1, 1]), np.array([0, 2, 2])), shape=(2, 2))
    with pytest.raises(OverflowError, match=r"a's duplicate entries at \(0, 1\) sum to about 9.22e\+18"):
        maximum_flow(two, 0, 1)


def test_source_and_sink_must_be_integers():
    """Issue 21 #8b: a float or string source was accepted (0.9 -> 0, '1' -> 1)."""
    a = np.array([[0, 1], [0, 0]])
    with pytest.raises(TypeError, match=r"source must be an integer node id, got float 0.9"):
        max_flow(a, 0.9, 1)
    with pytest.raises(TypeError, match=r"sink must be an integer node id, got str '1'"):
        max_flow(a, 0, "1")
    with pytest.raises(TypeError, match=r"source must be an integer node id, got bool True"):
        max_flow(a, True, 1)
    assert max_flow(a, np.int32(0), np.int64(1)).flow_value == 1
    with pytest.raises(ValueError, match=r"sink 'z' is not a node of the graph"):
        max_flow(nx.DiGraph([(0, 1)]), 0, "z")


def test_undirected_networkx_graph_is_two_arcs_per_edge():
    """Issue 21 #8c: an undirected networkx Graph was read as one-way arcs."""
    g = nx.Graph()
    g.add_edge(1, 2, capacity=3)
    g.add_edge(0, 1, capacity=2)
    assert max_flow(g, 0, 2).flow_value == nx.maximum_flow_value(g, 0, 2) == 2
    g.add_edge(2, 3, capacity=5)
    g.add_edge(3, 0, capacity=4)
    assert max_flow(g, 0, 2).flow_value == nx.maximum_flow_value(g, 0, 2) == 6


# ------------------------------------------------------------------ property tests
MAGNITUDES = [0.0, 1.0, 0.5, 3.0, 1e-5, 1e6, 1e12, 1e15, 1e16, 1e300, 5e-324, 1e-310, 1.0000001, 7.3e-3]


@st.composite
def float_networks(draw, max_n=7):
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(0, 2 * n + 2))
    node = st.integers(0, n - 1)
    tails = draw(st.lists(node, min_size=m, max_size=m))
    heads = draw(st.lists(node, min_size=m, max_size=m))  # self-loops and parallel arcs included
    cap = st.sampled_from(MAGNITUDES) | st.floats(1e-5, 1e15)
    caps = draw(st.lists(cap, min_size=m, max_size=m))
    s, t = draw(st.sampled_from([(a, b) for a in range(n) for b in range(n) if a != b]))
    return FlowNetwork(n, s, t, tails, heads, np.array(caps, dtype=np.float64))


def tampered(r: FlowResult, net: FlowNetwork) -> list[FlowResult]:
    """A forged value, a forged flow on every arc, and every single-vertex flip of the cut."""
    def like(value=r.flow_value, flow=r.flow, side=r.source_side) -> FlowResult:
        cut = np.flatnonzero(side[net.tails] & ~side[net.heads])
        return FlowResult(value, flow, side, cut, method=r.method, backend=r.backend, seconds=0.0)

    step = (lambda x: x + 1) if net.capacities.dtype.kind in "iu" else (lambda x: x * 1.001 + 1e-300)
    out = [like(value=step(r.flow_value))]
    for k in range(net.m):
        f = r.flow.copy()
        f[k] = step(f[k]) if f[k] < net.capacities[k] else f[k] * 0.999 - (f[k] > 0) * 1e-300
        out.append(like(flow=f))
    for v in range(net.n):
        if v not in (net.source, net.sink):
            side = r.source_side.copy()
            side[v] = ~side[v]
            out.append(like(side=side))
    return out


def assert_sound_against(net: FlowNetwork, truth: Fraction, results: list[FlowResult]) -> None:
    """Whatever verify_flow accepts is within the bound it proves of the true maximum."""
    for x in results:
        problems, bound = flow_certificate(net, x.flow, x.flow_value, x.source_side, x.cut_edges)
        if not problems:
            assert abs(Fraction(x.flow_value) - truth) <= Fraction(bound)


@pytest.mark.parametrize("method", CPU_CONFIGS)
@given(net=float_networks())
def test_extreme_float_magnitudes_exact_and_certified(net, method):
    r = solve_quietly(method, net)
    truth = exact_value(net)
    bound = certified(net, r)
    assert abs(Fraction(r.flow_value) - truth) <= Fraction(bound)
    assert bound <= 2.0**-40 * (float(np.sum(r.flow)) + float(truth)) + 2.0**-1000  # rounding level
    assert_sound_against(net, truth, tampered(r, net))


INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@st.composite
def int_networks(draw, max_n=7):
    dt = draw(st.sampled_from(INT_DTYPES))
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(0, 2 * n + 2))
    node = st.integers(0, n - 1)
    tails = draw(st.lists(node, min_size=m, max_size=m))
    heads = draw(st.lists(node, min_size=m, max_size=m))
    hi = min(int(np.iinfo(dt).max), 2**62 // (2 * n + 3))  # sums at a vertex below 2**62
    caps = draw(st.lists(st.integers(0, 3) | st.integers(hi - 3, hi) | st.integers(0, hi), min_size=m, max_size=m))
    s, t = draw(st.sampled_from([(a, b) for a in range(n) for b in range(n) if a != b]))
    return FlowNetwork(n, s, t, tails, heads, np.array(caps, dtype=dt))


@pytest.mark.parametrize("method", CPU_CONFIGS)
@given(net=int_networks())
def test_every_integer_dtype_exact_against_networkx_and_scipy(net, method):
    r = run(method, net)
    truth = exact_value(net)
    assert isinstance(r.flow_value, int) and r.flow_value == truth and r.flow.dtype == net.capacities.dtype
    assert certified(net, r) == 0.0
    a = net.to_scipy()
    if truth < 2**31 and (a.nnz == 0 or int(a.data.max()) < 2**31):
        assert scipy_maximum_flow(sp.csr_array(a.astype(np.int32)), net.source, net.sink).flow_value == truth
    for x in tampered(r, net):
        problems, _ = flow_certificate(net, x.flow, x.flow_value, x.source_side, x.cut_edges)
        cut = sum(int(c) for c in net.capacities[x.cut_edges])
        assert problems or (x.flow_value == truth == cut)


def test_near_int64_limit_parallel_arcs_and_self_loops():
    big = 2**61 - 1
    net = FlowNetwork(3, 0, 2, [0, 0, 1, 1, 0], [1, 1, 2, 1, 0], np.array([big, 1, big, big, big], np.int64))
    for method in CPU_CONFIGS:
        r = run(method, net)
        assert r.flow_value == big and certified(net, r) == 0.0
    net_u = FlowNetwork(2, 0, 1, [0], [1], np.array([2**63], np.uint64))
    with pytest.raises(OverflowError, match=r"capacities at node 1 sum to about 9.22e\+18, beyond 2\*\*62"):
        max_flow(net_u)


@pytest.mark.parametrize("method", CPU_CONFIGS)
def test_unproved_float_answer_resolved_exactly_or_returned_with_its_bound(monkeypatch, method):
    """1e300 arcs beside unit and 1e-300 ones: every method's float answer breaks conservation by 1.0 (the
    unit was absorbed by 1e300 of excess), the exponents span ~2000 bits (no int64 scaling): the Python-int
    re-solve gives the exact answer; without it (disabled here) the answer comes with its rigorous bound."""
    net = FlowNetwork(4, 0, 3, [0, 0, 1, 2, 1], [1, 2, 3, 3, 2], np.array([1e300, 1.0, 1.0, 1e-300, 1e300]))
    truth = exact_value(net)  # 1 + 1e-300
    r = solve_quietly(method, net)
    assert r.stats["exact_resolve"] == "python-int" and r.flow_value == float(truth) == 1.0
    assert certified(net, r) < 2.0**-40
    monkeypatch.setattr(_cpu_exact, "EXACT_MAX_ARCS", 0)
    with pytest.warns(RuntimeWarning, match=r"not proved to rounding \(flow is not conserved at node 1"):
        r = run(method, net)
    assert "exact_resolve" not in r.stats and 0.5 < r.stats["float_bound"] < 2
    assert abs(Fraction(r.flow_value) - truth) <= Fraction(r.stats["float_bound"])


def test_to_scipy_sums_small_integer_parallel_arcs_without_wrapping():
    net = FlowNetwork(2, 0, 1, [0, 0], [1, 1], np.array([32767, 1], np.int16))
    a = net.to_scipy()
    assert a.dtype == np.int64 and a.toarray().tolist() == [[0, 32768], [0, 0]]
    assert FlowNetwork(2, 0, 1, [0, 0], [1, 1], np.array([3, 4], np.int16)).to_scipy().dtype == np.int16


def test_binary_scale_is_the_common_power_of_two_of_the_nonzero_values():
    """The exponent both exact re-solves (general networks and grids) scale by: every nonzero value is an integer
    times 2**e, the largest below 2**top; zeros ignored, signs too; all zero -> None."""
    assert binary_scale(np.array([0.0, 0.0])) is None
    assert binary_scale(np.array([3.0, 0.0, 0.75, 1e12])) == (-2, 40)
    assert binary_scale(np.array([5e-324, 1.0])) == (-1074, 1)
    assert binary_scale(np.array([-6.0, 4.0])) == (1, 3)
    v = np.array([0.1, 1e15, 2.0**-30])
    e, top = binary_scale(v)
    assert all(float(x) * 2.0**-e == int(float(x) * 2.0**-e) for x in v) and v.max() < 2.0**top
    assert any(int(np.ldexp(x, -e)) % 2 for x in v)  # the smallest such power: some value is odd at that scale
