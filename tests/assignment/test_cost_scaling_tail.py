"""The CPU tail of the GPU cost-scaling refine and its global price update (Algorithm 5.3 on the two-price
pseudoflow, ``_cpu_cost_scaling_tail``), on the CPU: no GPU needed. The GPU's default schedule is emulated
(``emulate_schedule``: init, pushes until at most ``tail`` units are left, then the CPU tail with or without
the update); the update itself is checked against its contract on mid-phase states: eps-optimality kept,
prices never raised, flow and excesses unchanged, the labels of the nodes with excess = their residual
distances to the deficits (Bellman-Ford here, in units of eps).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import matchflow
from matchflow.assignment._cpu_cost_scaling import BUDGET, OK, exact_duals_kernel
from matchflow.assignment._cpu_cost_scaling_tail import (
    _phase_init,
    emulate_schedule,
    finish_phase,
    tail_kernel,
    tail_price_update_kernel,
    update_arrays,
)

FLOOR = 1 << 61


def _problem(seed, n, deg, hi):
    """A feasible square sparse problem (a hidden perfect matching), costs in [0, hi]; the host graph of
    ``_gpu_cost_scaling.upload`` (costs times 2(n+1), CSR and CSC) and the phases' eps."""
    rng = np.random.default_rng(seed)
    r = np.r_[np.repeat(np.arange(n), deg), np.arange(n)]
    c = np.r_[rng.integers(0, n, n * deg), rng.permutation(n)]
    A = sp.csr_array((rng.integers(0, hi + 1, r.size), (r, c)), shape=(n, n))
    A.sum_duplicates()
    A.sort_indices()
    scale = 2 * (n + 1)
    cost = A.data.astype(np.int64)
    P = sp.csr_array((np.arange(A.nnz, dtype=np.int64), A.indices, A.indptr), shape=(n, n)).tocsc()
    sc = cost * scale
    h = {"indptr": A.indptr.astype(np.int64), "indices": A.indices.astype(np.int64), "cost": sc,
         "cptr": P.indptr.astype(np.int64), "crow": P.indices.astype(np.int64), "ccost": np.ascontiguousarray(sc[P.data])}
    cmax, seq, eps = max(int(sc.max()), 1), [], max(int(sc.max()), 1)
    while eps > 1:
        eps = max(eps // 10, 1)
        seq.append(eps)
    return A, h, cmax, seq or [1]


def _graph(h, n):
    return (h["indptr"], h["indices"], h["cost"], h["cptr"], h["crow"], h["ccost"], n)


def _certified_cost(A, h, out):
    """The emulated solve's matching, proved optimal by the exact dual pass (as the GPU's certify stage)."""
    n = A.shape[0]
    assert out["status"] == OK
    x = out["col4row"].astype(np.int64)
    r4c = np.full(n, -1, np.int64)
    r4c[x] = np.arange(n)
    assert (r4c >= 0).all()
    v = np.floor_divide(out["price"][n:], 2 * (n + 1))
    st, _, _ = exact_duals_kernel(h["indptr"], h["indices"], A.data.astype(np.int64), n, x, r4c, v,
                                  np.int64(64) * n * n + 1024)
    assert st == OK
    return int(A[np.arange(n), x].sum())


def _residual_arcs(h, n, price, col4row):
    """(tail, head, reduced cost) of every residual arc of the two-price pseudoflow."""
    out = []
    for x in range(n):
        for k in range(h["indptr"][x], h["indptr"][x + 1]):
            y, c = int(h["indices"][k]), int(h["cost"][k])
            if col4row[x] == y:
                out.append((n + y, x, -c + int(price[n + y]) - int(price[x])))
            else:
                out.append((x, n + y, c + int(price[x]) - int(price[n + y])))
    return out


def _mid_phase(seed, n, deg, hi, phase, left):
    """The state of phase ``phase`` when at most ``left`` units are left (the GPU's stopping point)."""
    A, h, cmax, seq = _problem(seed, n, deg, hi)
    price, exc, col4row = np.zeros(2 * n, np.int64), np.zeros(2 * n, np.int32), np.full(n, -1, np.int32)
    owner = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.full(n, -1, np.int64))
    g = _graph(h, n)
    for ph, eps in enumerate(seq[:phase + 1]):
        assert _phase_init(h["indptr"], h["indices"], h["cost"], n, np.int64(eps), price, exc, col4row)
        st, _ = tail_kernel(*g, np.int64(eps), price, exc, col4row, True, np.int64(cmax + eps), np.int64(FLOOR),
                            np.int64(2**62), *owner, np.int64(ph), np.int64(left if ph == phase else 0),
                            np.int64(2**62))
        assert st == OK
    return h, g, int(seq[min(phase, len(seq) - 1)]), price, exc, col4row


@pytest.mark.parametrize("seed,hi,phase,left", [(0, 10**4, 2, 5), (1, 10**6, 4, 3), (2, 9, 1, 8), (3, 1, 0, 6),
                                                (4, 10**5, 3, 1)])
def test_price_update_keeps_eps_optimality_and_gives_distances(seed, hi, phase, left):
    n = 40
    h, g, eps, price, exc, col4row = _mid_phase(seed, n, 4, hi, phase, left)
    arcs = _residual_arcs(h, n, price, col4row)
    assert min(c for _, _, c in arcs) >= -eps  # the state the update is given is eps-optimal
    # residual distances to the deficits in units of eps (Bellman-Ford, lengths floor(c_p / eps) + 1)
    dist = np.full(2 * n, np.inf)
    dist[n:][exc[n:] < 0] = 0
    for _ in range(2 * n):
        for v, w, c in arcs:
            dist[v] = min(dist[v], dist[w] + c // eps + 1)
    p0, x0, e0 = price.copy(), col4row.copy(), exc.copy()
    done, levels, scanned = tail_price_update_kernel(*g, np.int64(eps), price, exc, col4row, np.int64(FLOOR),
                                                     *update_arrays(n, h["indices"].shape[0]))
    assert done and scanned >= int((e0 > 0).sum())
    assert (col4row == x0).all() and (exc == e0).all()
    drop = p0 - price
    assert (drop >= 0).all() and (drop % eps == 0).all()  # prices only fall, by whole levels
    assert drop.max() == levels * eps  # the unscanned nodes get the last level
    active = np.flatnonzero(e0 > 0)
    assert active.size > 0
    assert (drop[active] // eps == dist[active]).all()  # each node with excess: its distance to a deficit
    assert min(c for _, _, c in _residual_arcs(h, n, price, col4row)) >= -eps  # still eps-optimal


def test_price_update_refuses_near_the_int64_floor():
    n = 30
    h, g, eps, price, exc, col4row = _mid_phase(5, n, 4, 10**4, 1, 4)
    p0 = price.copy()
    floor = int(-price.min())  # any level would take a price below -floor
    done, _, _ = tail_price_update_kernel(*g, np.int64(eps), price, exc, col4row, np.int64(floor),
                                          *update_arrays(n, h["indices"].shape[0]))
    assert not done and (price == p0).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 60), deg=st.integers(1, 6),
       hi=st.sampled_from([0, 1, 9, 10**3, 10**6]), tail=st.integers(0, 40),
       every=st.sampled_from([None, 0, 1, 7, 100]))
def test_emulated_schedule_with_updates_is_optimal(seed, n, deg, hi, tail, every):
    """The default GPU schedule emulated on the CPU, with the price update off, once per tail or every
    ``every`` tail pushes: always the optimum (certified by the exact duals), the CPU twin's cost."""
    A, h, cmax, seq = _problem(seed, n, deg, hi)
    out = emulate_schedule(h, n, seq, cmax, FLOOR, tail, every)
    assert _certified_cost(A, h, out) == matchflow.assignment(A).cost
    assert out["tail_pushes"] <= out["pushes"]
    if every is None:
        assert out["updates"] == 0


def test_price_update_shortens_the_tail():
    """Work counters (no timing): on random sparse costs the update cuts the CPU tail's pushes (n = 2000,
    10 arcs a row, tail = 64: 32308 -> 17756 with one update per phase, -> 9940 with one every n/2 pushes)."""
    n = 2000
    A, h, cmax, seq = _problem(11, n, 10, 10**6)
    plain = emulate_schedule(h, n, seq, cmax, FLOOR, 64, None)
    once = emulate_schedule(h, n, seq, cmax, FLOOR, 64, 0)
    half = emulate_schedule(h, n, seq, cmax, FLOOR, 64, n // 2)
    cost = _certified_cost(A, h, plain)
    assert _certified_cost(A, h, once) == cost == _certified_cost(A, h, half)
    assert once["updates"] >= 1 and 1.5 * once["tail_pushes"] < plain["tail_pushes"]
    assert half["updates"] >= 1 and 3 * half["tail_pushes"] < plain["tail_pushes"]


@pytest.mark.parametrize("every", [None, 0, 1, 5])
def test_tail_budget_bounds_the_whole_phase(every):
    """No perfect matching (three rows share two columns): the tail would push forever; its push budget
    bounds the whole phase, with updates or not (each resumed call gets what is left): BUDGET."""
    n = 3
    indptr, indices = np.array([0, 2, 4, 6]), np.array([0, 1, 0, 1, 0, 1])
    sc = np.array([1, 2, 3, 1, 2, 5], np.int64) * 2 * (n + 1)
    P = sp.csr_array((np.arange(6, dtype=np.int64), indices, indptr), shape=(n, n)).tocsc()
    h = {"indptr": indptr.astype(np.int64), "indices": indices.astype(np.int64), "cost": sc,
         "cptr": P.indptr.astype(np.int64), "crow": P.indices.astype(np.int64), "ccost": np.ascontiguousarray(sc[P.data])}
    price, exc, col4row = np.zeros(2 * n, np.int64), np.zeros(2 * n, np.int32), np.full(n, -1, np.int32)
    assert _phase_init(h["indptr"], h["indices"], h["cost"], n, np.int64(4), price, exc, col4row)
    owner = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.full(n, -1, np.int64))
    st, pushes, updates, _ = finish_phase(_graph(h, n), 4, price, exc, col4row, True, int(sc.max()) + 4, FLOOR, 500,
                                          owner, 0, 0 if every is None else every,
                                          None if every is None else update_arrays(n, 6))
    assert st == BUDGET and 500 < pushes <= 502
    assert (updates > 0) == (every is not None)
