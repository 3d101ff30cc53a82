"""Issue 21 (6d and the sound ½ certificate): exact integer weights in their own dtype (uint64, int64 near
2^63), duplicates summed as SciPy does in every input form, extreme float magnitudes, and a verifier that
never certifies a wrong answer (checked against exact Python arithmetic)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from cases import wmatching_runs
from hypothesis import given
from hypothesis import strategies as st
from naive import exact_number, greedy_weighted_mate, matrix_edges

import matchflow as mf
from matchflow.verify import verify_weighted_matching

METHODS = wmatching_runs("cpu")  # every CPU method of the table, suitor also with parallel=True
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def test_issue_6d_uint64_weights_are_compared_exactly():
    """Verbatim kind of 6d: uint64 weights above 2^63 were rounded to float64, where 2^64 - 1 and 2^64 - 2 tie
    and the tie-break picked the lighter edge {1, 2}; the documented greedy takes {0, 1}."""
    u, v = np.array([0, 1]), np.array([1, 2])
    w = np.array([2**64 - 1, 2**64 - 2], dtype=np.uint64)
    for method, opts in METHODS:
        res = mf.weighted_matching((u, v, w), method=method, backend="cpu", **opts)
        assert res.edges.tolist() == [[0, 1]] and res.weight == float(2**64 - 1), method
    res = mf.weighted_matching((u, v, w), improve=True)
    assert res.edges.tolist() == [[0, 1]]
    a = sp.coo_array((w, (u, v)), shape=(3, 3))
    assert mf.weighted_matching(a + a.T).edges.tolist() == [[0, 1]]
    assert verify_weighted_matching((u, v, w), res)


def test_issue_6d_int64_near_2_63_and_improve_without_overflow():
    big = 2**63 - 1
    u, v, w = np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([big - 2, big, big - 1], dtype=np.int64)
    for method, opts in METHODS:
        res = mf.weighted_matching((u, v, w), method=method, backend="cpu", **opts)
        assert res.edges.tolist() == [[1, 2]] and res.weight == float(big)
    # x - a = b - y gains exactly (big - 2) + (big - 1) - big > 0: found although the sum overflows int64
    res = mf.weighted_matching((u, v, w), improve=True)
    assert res.edges.tolist() == [[0, 1], [2, 3]] and res.weight == float(2 * big - 3)
    assert res.stats["augmentations"] == 1 and verify_weighted_matching((u, v, w), res).valid


def test_issue_6d_coo_duplicates_are_summed_like_the_same_matrix_as_csr():
    """6d verbatim kind: a COO with duplicates was read as its heaviest copy while ``coo.tocsr()`` sums them."""
    r, c = np.array([0, 0, 1, 1, 1, 2]), np.array([1, 1, 0, 0, 2, 1])
    d = np.array([3.0, 3.0, 3.0, 3.0, 5.0, 5.0])
    coo = sp.coo_array((d, (r, c)), shape=(3, 3))
    dup_csr = sp.csr_array((d, c, np.array([0, 2, 5, 6])), shape=(3, 3))  # rows 0 and 1 hold duplicates
    for g in (coo, coo.tocsr(), dup_csr, sp.coo_matrix(coo), (r, c, d)):
        res = mf.weighted_matching(g, backend="cpu")
        assert res.edges.tolist() == [[0, 1]] and res.weight == 6.0, type(g)
        assert verify_weighted_matching(g, res)


def test_duplicates_that_overflow_their_dtype_are_refused():
    u, v = np.array([0, 0]), np.array([1, 1])
    with pytest.raises(ValueError, match=r"weights's duplicate entries at \(0, 1\) sum beyond int64"):
        mf.weighted_matching((u, v, np.array([2**62, 2**62], dtype=np.int64)))
    with pytest.raises(ValueError, match=r"graph's duplicate entries at \(0, 1\) sum beyond uint64"):
        mf.weighted_matching(sp.coo_array((np.array([2**63, 2**63], dtype=np.uint64), (u, v)), shape=(2, 2)))
    with pytest.raises(ValueError, match=r"graph's duplicate entries at \(0, 1\) sum beyond float64"):
        mf.weighted_matching(sp.coo_array((np.array([1e308, 1e308]), (u, v)), shape=(2, 2)))
    # in range they are summed exactly: 2^62 + 2^62 - 1 fits int64, 3 small int8 copies widen
    res = mf.weighted_matching((u, v, np.array([2**62, 2**62 - 1], dtype=np.int64)))
    assert res.weight == float(2**63 - 1)
    assert mf.weighted_matching((np.zeros(3, int), np.ones(3, int), np.array([100] * 3, np.int8))).weight == 300.0


@pytest.mark.parametrize("w,msg", [
    (np.array([np.nan]), r"weights must be finite, got nan"),
    (np.array([-np.inf]), r"weights must be finite, got -inf"),
])
def test_non_finite_weights_are_refused(w, msg):
    with pytest.raises(ValueError, match=msg):
        mf.weighted_matching((np.array([0]), np.array([1]), w))
    with pytest.raises(ValueError, match=msg):
        mf.weighted_matching(sp.coo_array((w, (np.array([0]), np.array([1]))), shape=(2, 2)))


def test_huge_floats_give_an_inf_weight_and_a_sound_certificate():
    """1e308 weights: the exact weight (2e308) is beyond float64, so it is +inf; the ½ certificate is exact
    comparisons and still holds; the bound is +inf (never a finite number below the optimum)."""
    g = (np.array([0, 2, 1]), np.array([1, 3, 2]), np.array([1.7e308, 1.7e308, 1e300]))
    res = mf.weighted_matching(g)
    assert res.weight == math.inf and res.cardinality == 2
    rep = verify_weighted_matching(g, res)
    assert rep and rep.upper_bound == math.inf and rep.ratio == 0.5


def test_subnormal_weights_areexact_number():
    tiny = 5e-324
    g = (np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([tiny, 2 * tiny, tiny]))
    res = mf.weighted_matching(g)
    assert res.edges.tolist() == [[1, 2]] and res.weight == 2 * tiny
    rep = verify_weighted_matching(g, res)
    assert rep and rep.upper_bound >= 2 * tiny and rep.upper_bound <= 4 * tiny


# --- property tests against the exact oracles --------------------------------------------------------------

def _weights(draw, dtype, m):
    if dtype == "float":
        pool = st.sampled_from([1e-5, 3e-5, 1e15, 1e15 + 0.125, 5e-324, 1e-310, 1e300, -1e300, 0.0, 1.0, -2.5])
        return np.array(draw(st.lists(pool | st.floats(-1e15, 1e15), min_size=m, max_size=m)), dtype=np.float64)
    info = np.iinfo(dtype)
    top = int(info.max)
    pool = st.sampled_from([0, 1, 2, top, top - 1, top - 2, top // 2, int(info.min), int(info.min) + 1])
    vals = draw(st.lists(pool | st.integers(int(info.min), top), min_size=m, max_size=m))
    return np.array(vals, dtype=dtype)


@st.composite
def matrices(draw, max_n=7):
    """Stored entries (i, j, x) of a square matrix: duplicates, mirrors, the diagonal, ties, extreme values."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 3 * n))
    r = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    c = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    dtype = draw(st.sampled_from(["float", *INT_DTYPES]))
    w = _weights(draw, dtype, m)
    if dtype != "float" and m:  # keep duplicate sums in range (overflow is refused: its own test)
        sums = {}
        for a, b, x in zip(r.tolist(), c.tolist(), w.tolist()):
            sums[a, b] = sums.get((a, b), 0) + x
        info = np.iinfo(np.int64 if np.dtype(dtype).itemsize < 8 else dtype)
        if any(not info.min <= s <= info.max for s in sums.values()):
            w = np.zeros(m, dtype)
    if dtype == "float" and m:
        sums = {}
        for a, b, x in zip(r.tolist(), c.tolist(), w.tolist()):
            sums[a, b] = sums.get((a, b), Fraction(0)) + Fraction(x)
        if any(abs(s) > Fraction(1.7e308) for s in sums.values()):
            w = np.ones(m)
    return n, r, c, w


def _forms(n, r, c, w):
    """The same matrix as edge arrays, COO, and a CSR and a CSC holding the duplicates (built by hand: scipy's
    own conversions sum small-int and uint64 duplicates modulo the dtype before we see them)."""
    def compressed(major, minor, cls):
        order = np.argsort(major, kind="stable")
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(major, minlength=n), out=ptr[1:])
        return cls((w[order], minor[order], ptr), shape=(n, n))

    return [("edges", (r, c, w)), ("coo", sp.coo_array((w, (r, c)), shape=(n, n))),
            ("csr-dup", compressed(r, c, sp.csr_array)), ("csc-dup", compressed(c, r, sp.csc_array))]


def _oracle(n, r, c, w):
    edges = matrix_edges(zip(r.tolist(), c.tolist(), w.tolist()))
    return edges, greedy_weighted_mate(n, edges)


def _opt(n, edges):
    """The exact optimum weight (networkx's blossom on exact numbers: Python ints or Fractions)."""
    G = nx.Graph()
    G.add_nodes_from(range(n))
    for a, b, x in edges:
        if x > 0:
            G.add_edge(a, b, weight=exact_number(x))
    return sum((G[a][b]["weight"] for a, b in nx.max_weight_matching(G)), 0)


@given(matrices())
def test_every_method_and_form_is_the_documented_greedy_and_certified(case):
    n, r, c, w = case
    edges, want = _oracle(n, r, c, w)
    exact_weight = sum((exact_number(x) for a, b, x in edges if want[a] == b), 0)
    opt = _opt(n, edges)
    for form, g in _forms(n, r, c, w):
        for method, opts in METHODS:
            res = mf.weighted_matching(g, method=method, backend="cpu", **opts)
            k = len(res.mate)  # edge arrays: n = the largest id + 1
            assert k == n or (form == "edges" and np.all(want[k:] == -1))
            np.testing.assert_array_equal(res.mate, want[:k], err_msg=f"{form} {method} {opts} {w.dtype}")
        assert res.weight == float(exact_weight)
        rep = verify_weighted_matching(g, res)
        assert rep, rep.problems
        assert Fraction(rep.upper_bound) >= opt and 2 * opt >= exact_weight  # sound bound; the ½ guarantee
        better = mf.weighted_matching(g, improve=True)
        b_weight = sum((exact_number(x) for a, b, x in edges if a < len(better.mate) and better.mate[a] == b), 0)
        assert exact_weight <= b_weight <= opt and better.weight == float(b_weight)


def _check_half_exactly(n, edges, mate):
    """(valid, half): the certificate's conditions checked in exact Python arithmetic."""
    wt = {(min(a, b), max(a, b)): exact_number(x) for a, b, x in edges}
    valid = all(mate[mate[v]] == v for v in range(n) if mate[v] >= 0) and all(
        wt.get((min(v, mate[v]), max(v, mate[v])), 0) > 0 for v in range(n) if mate[v] >= 0)
    if not valid:
        return False, False
    at = [wt[min(v, mate[v]), max(v, mate[v])] if mate[v] >= 0 else 0 for v in range(n)]
    return True, all(x <= 0 or mate[a] == b or x <= at[a] or x <= at[b] for (a, b), x in wt.items())


@given(matrices(max_n=6), st.randoms(use_true_random=False))
def test_verifier_never_certifies_a_wrong_or_tampered_matching(case, rnd):
    """Random (tampered) mates: the verifier says valid / ½-certified exactly when exact arithmetic does, and
    a certified bound is >= the exact optimum; a result whose weight is off by one ulp is rejected."""
    n, r, c, w = case
    edges, want = _oracle(n, r, c, w)
    g = sp.coo_array((w, (r, c)), shape=(n, n))  # the shape carries n (an edge triple's n is its largest id + 1)
    opt = _opt(n, edges)
    for _ in range(4):
        mate = want.copy()
        for _ in range(rnd.randint(1, 2)):  # a random swap, re-pairing or freeing
            a, b = rnd.randrange(n), rnd.randrange(n)
            kind = rnd.randrange(3)
            if kind == 0 and a != b:
                for x in (a, b):
                    if mate[x] >= 0:
                        mate[mate[x]] = -1
                mate[a], mate[b] = b, a
            elif kind == 1:
                mate[a] = -1
            else:
                mate[a] = b
        rep = verify_weighted_matching(g, mate)
        valid, half = _check_half_exactly(n, edges, mate)
        assert (rep.valid, rep.half_approximate) == (valid, half), (mate, rep.problems)
        if half:
            assert Fraction(rep.upper_bound) >= opt
    res = mf.weighted_matching(g)
    if res.cardinality and math.isfinite(res.weight):
        res.weight = math.nextafter(res.weight, math.inf)
        assert not verify_weighted_matching(g, res).valid


def test_every_integer_dtype_on_a_triangle_with_ties():
    for dt in INT_DTYPES:
        top = int(np.iinfo(dt).max)
        g = (np.array([0, 1, 0, 3]), np.array([1, 2, 2, 3]), np.array([top, top, top, top], dtype=dt))
        want = greedy_weighted_mate(4, matrix_edges(zip([0, 1, 0, 3], [1, 2, 2, 3], [top] * 4)))
        for method, opts in METHODS:
            res = mf.weighted_matching(g, method=method, backend="cpu", **opts)
            assert res.edges.tolist() == [[1, 2]] and res.weight == float(top)
            np.testing.assert_array_equal(res.mate, want)


def test_small_cases_agree_with_brute_force_over_all_matchings():
    """Tiny exhaustive check of the bound on mixed magnitudes: every matching weighs <= upper_bound."""
    r, c = np.array([0, 1, 2, 0, 1]), np.array([1, 2, 3, 3, 3])
    w = np.array([1e-5, 1e15, 1e-5, 1e15 + 0.125, 3e-5])
    res = mf.weighted_matching((r, c, w))
    rep = verify_weighted_matching((r, c, w), res)
    best = Fraction(0)
    pairs = list(zip(r.tolist(), c.tolist(), w.tolist()))
    for k in range(1, 3):
        for sub in itertools.combinations(pairs, k):
            ends = [x for a, b, _ in sub for x in (a, b)]
            if len(set(ends)) == len(ends):
                best = max(best, sum((Fraction(x) for *_, x in sub), Fraction(0)))
    assert rep and Fraction(rep.upper_bound) >= best and 2 * Fraction(res.weight) >= best
