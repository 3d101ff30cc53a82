"""min_cost_flow / max_flow_min_cost / transport on the CPU: named cases, oracles (networkx, OR-Tools, SciPy, POT),
a property test, the certificate (answers certified, tampered answers rejected) and the errors."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from cases import ASSIGNMENT_CASES, MCF_CASES
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment, linprog

import matchflow as mf
from matchflow.mcf._methods import TABLE
from matchflow.verify import verify_min_cost_flow

METHODS = TABLE.cpu_names


def _nx_graph(tail, head, demand, cap, cost) -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    for v, d in enumerate(demand.tolist()):
        G.add_node(v, demand=d)
    for t, h, c, w in zip(tail.tolist(), head.tolist(), cap.tolist(), cost.tolist(), strict=True):
        attrs = {"weight": w} if np.isinf(c) else {"weight": w, "capacity": int(c)}
        G.add_edge(t, h, **attrs)
    return G


def _nx_cost(tail, head, demand, cap, cost):
    return nx.min_cost_flow_cost(_nx_graph(tail, head, demand, cap, cost))


def _lp_cost(tail, head, demand, cap, cost):
    """The float oracle: SciPy's HiGHS LP (networkx's network simplex may not end on float weights)."""
    n, m = demand.size, tail.size
    A = sp.csr_array((np.r_[np.ones(m), -np.ones(m)], (np.r_[head, tail], np.r_[np.arange(m), np.arange(m)])),
                     shape=(n, m))
    res = linprog(cost, A_eq=A, b_eq=demand, bounds=list(zip([0] * m, [None if np.isinf(c) else c for c in cap],
                                                             strict=True)), method="highs")
    assert res.status == 0
    return res.fun


def _ortools_cost(tail, head, demand, cap, cost):
    mcf = pytest.importorskip("ortools.graph.python.min_cost_flow")
    s = mcf.SimpleMinCostFlow()
    big = int(np.abs(demand).sum()) + int(cap[np.isfinite(cap)].sum()) + 1
    for t, h, c, w in zip(tail.tolist(), head.tolist(), cap.tolist(), cost.tolist(), strict=True):
        s.add_arc_with_capacity_and_unit_cost(t, h, big if np.isinf(c) else int(c), int(w))
    for v, d in enumerate(demand.tolist()):
        s.set_node_supply(v, -int(d))
    assert s.solve() == s.OPTIMAL
    return s.optimal_cost()


def _solve(case, method="auto"):
    tail, head, demand, cap, cost = case.make()
    return (tail, head, demand, cap, cost), mf.min_cost_flow((tail, head), demand, capacity=cap, cost=cost,
                                                             method=method, backend="cpu")


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", [c for c in MCF_CASES if c.error is None], ids=lambda c: c.name)
def test_cases_certified_and_equal_to_networkx(case, method):
    (tail, head, demand, cap, cost), res = _solve(case, method)
    assert verify_min_cost_flow((tail, head), demand, res, capacity=cap, cost=cost) == []
    assert res.method == method and res.backend == "cpu"
    if cost.dtype.kind == "f":
        want = _lp_cost(tail, head, demand, cap, cost)
        assert res.cost == pytest.approx(want, rel=1e-9, abs=1e-9)
        assert res.stats["gap_bound"] <= 1e-9 * max(1.0, abs(res.cost)) * 10
    else:
        want = _nx_cost(tail, head, demand, cap, cost) if demand.size else 0
        assert type(res.cost) is int and res.cost == want


@pytest.mark.parametrize("case", [c for c in MCF_CASES if c.error is None and c.make()[4].dtype.kind == "i"
                                  and c.make()[2].size], ids=lambda c: c.name)
def test_cases_equal_to_ortools(case):
    (tail, head, demand, cap, cost), res = _solve(case)
    if case.name == "int64_near_overflow":
        pytest.skip("OR-Tools' cost sums overflow int64 here")
    assert res.cost == _ortools_cost(tail, head, demand, cap, cost)


@pytest.mark.parametrize("case", [c for c in MCF_CASES if c.error is not None], ids=lambda c: c.name)
def test_error_cases(case):
    tail, head, demand, cap, cost = case.make()
    with pytest.raises(ValueError, match=case.error):
        mf.min_cost_flow((tail, head), demand, capacity=cap, cost=cost, backend="cpu")


def test_networkx_agrees_on_error_cases():
    tail, head, demand, cap, cost = next(c for c in MCF_CASES if c.name == "infeasible").make()
    with pytest.raises(nx.NetworkXUnfeasible):
        _nx_cost(tail, head, demand, cap, cost)
    tail, head, demand, cap, cost = next(c for c in MCF_CASES if c.name == "unbounded_negative_cycle").make()
    with pytest.raises(nx.NetworkXUnbounded):
        _nx_cost(tail, head, demand, cap, cost)


@st.composite
def _networks(draw):
    n = draw(st.integers(2, 30))
    m = draw(st.integers(0, 4 * n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    t, h = rng.integers(0, n, m), rng.integers(0, n, m)
    cap = rng.integers(0, draw(st.sampled_from([2, 5, 100])), m)
    cost = rng.integers(draw(st.sampled_from([0, -3, -50])), draw(st.sampled_from([1, 3, 1000])), m)
    if draw(st.booleans()):  # demands from a flow: feasible
        f = rng.integers(0, cap + 1)
        d = np.zeros(n, np.int64)
        np.add.at(d, h, f)
        np.subtract.at(d, t, f)
    else:  # random balanced demands: often infeasible
        d = rng.integers(-3, 4, n)
        d[-1] -= d.sum()
    return t.astype(np.int64), h.astype(np.int64), d.astype(np.int64), cap.astype(np.int64), cost.astype(np.int64)


# (method, options): every row of the table with its default options, and each method's option corners
RUNS = [(m, {}) for m in TABLE.cpu_names] + [
    ("cost-scaling", {"price_updates": 0, "lookahead": False}), ("cost-scaling", {"price_updates": 0.01, "alpha": 2}),
    ("cost-scaling", {"price_refine": 0}), ("cost-scaling", {"price_refine": 1, "alpha": 3}),
    ("network-simplex", {"block_size": 1}), ("network-simplex", {"block_size": 3}),
    ("network-simplex", {"block_size": 1000})]


@given(_networks(), st.sampled_from(RUNS))
def test_random_networks_against_networkx(net, run):
    method, opts = run
    tail, head, demand, cap, cost = net
    try:
        want = _nx_cost(tail, head, demand, cap.astype(np.float64), cost)
    except nx.NetworkXUnfeasible:
        with pytest.raises(ValueError, match="infeasible"):
            mf.min_cost_flow((tail, head), demand, capacity=cap, cost=cost, backend="cpu")
        return
    res = mf.min_cost_flow((tail, head), demand, capacity=cap, cost=cost, backend="cpu", method=method, **opts)
    assert res.cost == want and res.method == method
    assert verify_min_cost_flow((tail, head), demand, res, capacity=cap, cost=cost) == []
    if opts.get("price_updates") == 0:
        assert res.stats["price_updates"] == 0
    if opts.get("price_refine") == 0:
        assert res.stats["phases_skipped"] == 0
    if "block_size" in opts:
        assert res.stats["block_size"] == min(opts["block_size"], max(len(tail), 1))


def test_tampered_answers_rejected():
    case = next(c for c in MCF_CASES if c.name == "random_int")
    (tail, head, demand, cap, cost), res = _solve(case)
    args = dict(capacity=cap, cost=cost)
    assert verify_min_cost_flow((tail, head), demand, res, **args) == []
    x = res.flow.copy()
    k = int(np.flatnonzero(x > 0)[0])
    x[k] -= 1  # conservation broken
    assert "demand" in verify_min_cost_flow((tail, head), demand, (x, res.potential), **args)[0]
    x = res.flow.copy()
    x[k] = cap[k] + 1  # above capacity
    assert "above its capacity" in verify_min_cost_flow((tail, head), demand, (x, res.potential), **args)[0]
    p = res.potential.copy()
    p[tail[k]] += 1000  # duals no longer tight
    assert "reduced cost" in verify_min_cost_flow((tail, head), demand, (res.flow, p), **args)[0]
    bad = mf.mcf.MinCostFlowResult(flow=res.flow, cost=res.cost + 1, potential=res.potential, method="x",
                                   backend="cpu", seconds=0.0)
    assert "claimed cost" in verify_min_cost_flow((tail, head), demand, bad, **args)[0]
    # a feasible but non-optimal flow: push one unit around a cycle of positive cost is refused by any potential
    tail2, head2, demand2 = np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([-1, 0, 1])
    cap2, cost2 = np.array([1, 1, 1]), np.array([1, 5, 1])
    worse = (np.array([0, 1, 0]), np.array([0, 0, 0]))
    assert verify_min_cost_flow((tail2, head2), demand2, worse, capacity=cap2, cost=cost2) != []


def test_float_certificate_rejects_a_worse_flow():
    case = next(c for c in MCF_CASES if c.name == "random_float")
    (tail, head, demand, cap, cost), res = _solve(case)
    assert res.stats["gap_bound"] >= 0
    p = res.potential + np.linspace(0, 7.5, res.potential.size)
    assert verify_min_cost_flow((tail, head), demand, (res.flow, p), capacity=cap, cost=cost) != []


SQUARE = [c for c in ASSIGNMENT_CASES if c.feasible and c.cost().ndim == 2 and c.cost().shape[0] == c.cost().shape[1]
          and c.cost().size > 0 and c.cost().dtype != bool]


@pytest.mark.parametrize("case", SQUARE, ids=lambda c: c.name)
def test_assignment_cases_as_min_cost_flow(case):
    C = case.cost()
    n = C.shape[0]
    r, c = np.nonzero(np.isfinite(C))
    tail, head = r.astype(np.int64), (n + c).astype(np.int64)
    demand = np.concatenate([-np.ones(n, np.int64), np.ones(n, np.int64)])
    res = mf.min_cost_flow((tail, head), demand, capacity=np.ones(r.size, np.int64), cost=C[r, c])
    i, j = linear_sum_assignment(C)
    assert res.cost == pytest.approx(C[i, j].sum(), rel=1e-12)
    if C.dtype.kind in "iu":
        assert res.cost == int(C[i, j].astype(np.int64).sum())


def test_sparse_form_and_patterns():
    case = next(c for c in MCF_CASES if c.name == "random_int")
    tail, head, demand, cap, cost = case.make()
    keep = tail != head
    A = sp.csr_array((cap[keep], (tail[keep], head[keep])), shape=(demand.size,) * 2)
    W = sp.csr_array((cost[keep], (tail[keep], head[keep])), shape=A.shape)
    W.sum_duplicates()
    A.sum_duplicates()
    res = mf.min_cost_flow(A, demand, cost=W)
    assert res.flow.size == A.nnz
    assert verify_min_cost_flow(A, demand, res, cost=W) == []
    with pytest.raises(ValueError, match="cost must have G's sparsity pattern"):
        mf.min_cost_flow(A, demand, cost=sp.csr_array(np.ones(A.shape)))


def test_networkx_entry_one_line_change():
    tail, head, demand, cap, cost = next(c for c in MCF_CASES if c.name == "random_unbounded").make()
    G = _nx_graph(tail, head, demand, cap, cost)
    res = mf.min_cost_flow(G)
    assert res.cost == nx.min_cost_flow_cost(G)
    assert sum(res.flow_dict[u][v][k] * d["weight"] for u, v, k, d in G.edges(keys=True, data=True)) == res.cost
    D = nx.DiGraph()
    D.add_node("a", demand=-3)
    D.add_node("c", demand=3)
    D.add_edge("a", "b", weight=1)
    D.add_edge("b", "c", weight=1, capacity=2)
    D.add_edge("a", "c", weight=5)
    assert mf.min_cost_flow(D).flow_dict == nx.min_cost_flow(D)


@given(_networks())
def test_max_flow_min_cost_against_networkx(net):
    tail, head, _, cap, cost = net
    n = int(max(tail.max(initial=1), head.max(initial=1))) + 1
    D = nx.DiGraph()  # networkx's max-flow takes no multigraph: parallel capacities summed
    D.add_nodes_from(range(n))
    for t, h, c in zip(tail.tolist(), head.tolist(), cap.tolist(), strict=True):
        if t != h:
            D.add_edge(t, h, capacity=D.edges[t, h]["capacity"] + c if D.has_edge(t, h) else c)
    value = nx.maximum_flow_value(D, 0, n - 1)
    demand = np.zeros(n, np.int64)
    demand[0], demand[n - 1] = -value, value
    res = mf.max_flow_min_cost((tail, head), 0, n - 1, capacity=cap, cost=cost, n=n)
    assert res.flow_value == value
    assert res.cost == _nx_cost(tail, head, demand, cap.astype(np.float64), cost)
    assert verify_min_cost_flow((tail, head), demand, res, capacity=cap, cost=cost) == []


def test_max_flow_min_cost_unbounded():
    with pytest.raises(ValueError, match="unbounded: a path of unbounded arcs"):
        mf.max_flow_min_cost((np.array([0, 1]), np.array([1, 2])), 0, 2, capacity=np.array([np.inf, np.inf]))


def test_transport_permutations_against_linear_sum_assignment():
    rng = np.random.default_rng(7)
    C = rng.integers(0, 100, (12, 12))
    res = mf.transport(np.ones(12, np.int64), np.ones(12, np.int64), C)
    i, j = linear_sum_assignment(C)
    assert res.cost == int(C[i, j].sum())
    assert sorted(res.plan.sum(0).tolist()) == [1] * 12
    assert int(res.u.sum() + res.v.sum()) == res.cost
    assert (res.u[:, None] + res.v[None, :] <= C).all()


def test_transport_against_pot():
    ot = pytest.importorskip("ot")
    rng = np.random.default_rng(8)
    a, b = rng.integers(1, 20, 9), rng.integers(1, 20, 11)
    b[-1] += a.sum() - b.sum()
    if b[-1] < 0:
        a[-1] -= b[-1]
        b[-1] = 0
    C = rng.integers(0, 50, (9, 11)).astype(np.float64)
    res = mf.transport(a, b, C)
    G = ot.emd(a.astype(np.float64), b.astype(np.float64), C)
    assert res.cost == pytest.approx(float((G * C).sum()), rel=1e-12)
    assert (res.plan.sum(1) == a).all() and (res.plan.sum(0) == b).all()
    a2, b2 = np.full(6, 1 / 6), np.full(5, 1 / 5)  # probability vectors: scaled masses, marginals within 2**-k
    C2 = rng.random((6, 5))
    r2 = mf.transport(a2, b2, C2)
    assert r2.cost == pytest.approx(float((ot.emd(a2, b2, C2) * C2).sum()), rel=1e-9)
    assert r2.stats["marginal_error"] <= 2 / r2.stats["mass_scale"]


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(capacity=np.array([-1, 2])), "capacity must be non-negative, got -1 at arc 0"),
    (dict(capacity=np.array([np.nan, 2])), "capacity holds NaN at 0"),
    (dict(cost=np.array([np.nan, 2.0])), "cost must be finite, got nan at arc 0"),
    (dict(cost=np.array([1, 2, 3])), r"cost must be a 1-D array with one entry per arc \(2\), got shape \(3,\)"),
    (dict(capacity=np.array([1.5, 2])), "capacity must be integral"),
    (dict(demand=np.array([-1, 0, 2])), "demand must sum to 0 .*, got sum 1"),
])
def test_argument_errors(kwargs, match):
    args = dict(demand=np.array([-1, 0, 1]), capacity=np.array([1, 1]), cost=np.array([1, 1]))
    args.update(kwargs)
    d = args.pop("demand")
    with pytest.raises(ValueError, match=match):
        mf.min_cost_flow((np.array([0, 1]), np.array([1, 2])), d, **args)


def test_options_checked():
    args = ((np.array([0]), np.array([1])), np.array([-1, 1]))
    with pytest.raises(ValueError, match="price_updates must be a number >= 0"):
        mf.min_cost_flow(*args, method="cost-scaling", price_updates=-1)
    with pytest.raises(ValueError, match="alpha must be >= 2"):
        mf.min_cost_flow(*args, method="cost-scaling", alpha=1)
    with pytest.raises(ValueError, match="price_refine must be >= 0"):
        mf.min_cost_flow(*args, method="cost-scaling", price_refine=-1)
    with pytest.raises(TypeError, match="unexpected option.*block_size.*accepted: alpha, lookahead, price_refine"):
        mf.min_cost_flow(*args, method="cost-scaling", block_size=32)
    with pytest.raises(TypeError, match=r"min_cost_flow\(method='network-simplex'\) got unexpected option.*alpha"):
        mf.min_cost_flow(*args, alpha=4)  # auto runs network simplex on 2 nodes: its options, not cost scaling's


def test_node_ids_and_overflow_refused():
    with pytest.raises(ValueError, match=r"head holds node id 5, out of range 0..2"):
        mf.min_cost_flow((np.array([0]), np.array([5])), np.array([0, 0, 0]))
    with pytest.raises(OverflowError, match=r"2\*\*60"):
        mf.min_cost_flow((np.array([0]), np.array([1])), np.array([-1, 1]), capacity=np.array([1]),
                         cost=np.array([2**60]))
    with pytest.raises(ValueError, match=r"demand must be a 1-D array of length n = 3, got shape \(2,\)"):
        mf.min_cost_flow(sp.csr_array(np.eye(3)), np.array([-1, 1]))
    with pytest.raises(ValueError, match="method must be one of"):
        mf.min_cost_flow((np.array([0]), np.array([1])), np.array([-1, 1]), method="simplex")


def test_all_arcs_unbounded_by_default_and_float_networkx():
    tail, head = np.array([0, 1, 0]), np.array([1, 2, 2])
    res = mf.min_cost_flow((tail, head), np.array([-4, 0, 4]), cost=np.array([1, 1, 3]))
    assert res.flow.tolist() == [4, 4, 0] and res.cost == 8
    G = nx.DiGraph()
    G.add_node(0, demand=-2)
    G.add_node(2, demand=2)
    G.add_edge(0, 1, weight=0.25, capacity=1)
    G.add_edge(1, 2, weight=0.5)
    G.add_edge(0, 2, weight=1.0)
    r = mf.min_cost_flow(G)
    assert r.cost == 1.75 and r.stats["exact_costs"] and r.stats["gap_bound"] == 0.0
    assert r.flow_dict == {0: {1: 1, 2: 1}, 1: {2: 1}, 2: {}}


def test_max_flow_min_cost_ignores_networkx_demands_and_takes_sparse():
    G = nx.DiGraph()
    G.add_node("s", demand=7)  # ignored, as networkx.max_flow_min_cost does
    G.add_edge("s", "t", capacity=2, weight=3)
    G.add_edge("s", "a", capacity=5, weight=1)
    G.add_edge("a", "t", capacity=1, weight=1)
    res = mf.max_flow_min_cost(G, "s", "t")
    assert (res.flow_value, res.cost) == (3, 8) == (3, nx.cost_of_flow(G, nx.max_flow_min_cost(G, "s", "t")))
    A = sp.csr_array(np.array([[0, 2, 5], [0, 0, 0], [0, 1, 0]]))
    W = sp.csr_array(np.array([[0, 3, 1], [0, 0, 0], [0, 1, 0]]))
    r = mf.max_flow_min_cost(A, 0, 1, cost=W)
    assert (r.flow_value, r.cost) == (3, 8)
    with pytest.raises(ValueError, match="t 'x' is not a node of the graph"):
        mf.max_flow_min_cost(G, "s", "x")


def test_transport_errors():
    with pytest.raises(ValueError, match="supply and demand must have equal sums, got 3 and 4"):
        mf.transport([1, 2], [4], np.ones((2, 1)))
    with pytest.raises(ValueError, match=r"demand must have one entry per column of C \(3\), got shape \(2,\)"):
        mf.transport([1, 1], [1, 1], np.ones((2, 3)))
