"""Slow, obviously-correct oracles for tiny inputs (independent of matchflow's code)."""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

from matchflow.flow import grid_energy, offsets


def scipy_card(a) -> int:
    """Maximum matching cardinality by SciPy's matcher (the independent oracle): ``a`` dense, scipy.sparse or a
    matchflow ``BipartiteGraph`` (its CSR pattern)."""
    if hasattr(a, "row_ptr"):
        if a.n_rows == 0 or a.n_cols == 0:
            return 0
        a = sp.csr_array((np.ones(a.nnz, dtype=np.int8), a.col_ind, a.row_ptr), shape=a.shape)
    return int(np.count_nonzero(scipy_mbm(sp.csr_array(a), perm_type="column") >= 0))


def max_matching_bruteforce(adj: np.ndarray) -> int:
    """Maximum matching size of a tiny bipartite graph (dense 0/1 matrix) by exhaustive search
    (over the shorter side, memoised on (row, used columns): fast for tall and wide cases too)."""
    adj = np.asarray(adj) != 0
    if adj.shape[0] > adj.shape[1]:
        adj = adj.T
    n_rows, n_cols = adj.shape

    @functools.cache
    def best(i: int, used: frozenset) -> int:
        if i == n_rows:
            return 0
        res = best(i + 1, used)  # leave row i unmatched
        for j in range(n_cols):
            if adj[i, j] and j not in used:
                res = max(res, 1 + best(i + 1, used | {j}))
        return res

    return best(0, frozenset())


def assignment_bruteforce(cost: np.ndarray, maximize: bool = False) -> float | None:
    """Optimal total of a tiny (rectangular) assignment, +inf entries forbidden; None if infeasible."""
    c = np.asarray(cost, dtype=float)
    transposed = c.shape[0] > c.shape[1]
    if transposed:
        c = c.T
    n_r, n_c = c.shape
    best = None
    for cols in itertools.permutations(range(n_c), n_r):
        vals = [c[i, j] for i, j in enumerate(cols)]
        if any(not np.isfinite(x) for x in vals):
            continue
        s = float(sum(vals))
        if best is None or (s > best if maximize else s < best):
            best = s
    if n_r == 0:
        return 0.0
    return best


def assignment_bruteforce_exact(cost: np.ndarray, maximize: bool = False):
    """Exact optimum (a ``Fraction``; +inf entries forbidden) of a tiny (rectangular) assignment,
    summing the float entries without rounding; None if infeasible."""
    c = np.asarray(cost, dtype=float)
    if c.shape[0] > c.shape[1]:
        c = c.T
    n_r, n_c = c.shape
    if n_r == 0:
        return Fraction(0)
    best = None
    for cols in itertools.permutations(range(n_c), n_r):
        vals = [c[i, j] for i, j in enumerate(cols)]
        if any(not np.isfinite(x) for x in vals):
            continue
        s = sum((Fraction(float(x)) for x in vals), Fraction(0))
        if best is None or (s > best if maximize else s < best):
            best = s
    return best


def exact_total(cost: np.ndarray, rows, cols):
    """The exact (Fraction) total of the chosen entries."""
    c = np.asarray(cost, dtype=float)
    return sum((Fraction(float(c[i, j])) for i, j in zip(rows, cols)), Fraction(0))


def assignment_limit_bruteforce(cost: np.ndarray, limit: float, maximize: bool = False) -> float:
    """lap's ``cost_limit`` optimum of a tiny matrix: over all partial matchings, the sum of the
    matched entries plus ``limit / 2`` per unmatched row and per unmatched column."""
    c = np.asarray(cost, dtype=float)
    n_r, n_c = c.shape
    best = None

    def rec(i: int, used: frozenset, acc: float, matched: int) -> None:
        nonlocal best
        if i == n_r:
            total = acc + limit / 2 * ((n_r - matched) + (n_c - matched))
            if best is None or (total > best if maximize else total < best):
                best = total
            return
        rec(i + 1, used, acc, matched)
        for j in range(n_c):
            if j not in used and np.isfinite(c[i, j]):
                rec(i + 1, used | {j}, acc + c[i, j], matched + 1)

    rec(0, frozenset(), 0.0, 0)
    return best


# ---------------------------------------------------------------- flow (max-flow / min-cut oracles)
def min_cut_bruteforce(n: int, source: int, sink: int, tails, heads, caps):
    """Minimum s-t cut capacity of a tiny network (n <= 14) over all 2^(n-2) vertex partitions."""
    tails, heads, caps = np.asarray(tails), np.asarray(heads), np.asarray(caps)
    others = [v for v in range(n) if v not in (source, sink)]
    best = None
    for bits in range(1 << len(others)):
        side = np.zeros(n, dtype=bool)
        side[source] = True
        for i, v in enumerate(others):
            side[v] = bool(bits >> i & 1)
        cut = caps[side[tails] & ~side[heads]].sum()
        if best is None or cut < best:
            best = cut
    return best


def grid_energy_bruteforce(source_caps, sink_caps, edge_caps, connectivity: int):
    """Minimum grid-cut energy of a tiny grid (<= 14 points) over all labellings."""
    shape = np.shape(source_caps)
    size = int(np.prod(shape))
    best = None
    for bits in range(1 << size):
        lab = np.array([bool(bits >> i & 1) for i in range(size)]).reshape(shape)
        e = grid_energy(lab, source_caps, sink_caps, edge_caps, connectivity=connectivity)
        if best is None or e < best:
            best = e
    return best


def max_flow_exact(net) -> Fraction:
    """The maximum flow value of a FlowNetwork in exact arithmetic: networkx on the capacities times a common
    denominator (floats are dyadic rationals; parallel arcs summed, self-loops dropped)."""
    import networkx as nx

    fr = [Fraction(int(x)) if net.capacities.dtype.kind in "iu" else Fraction(float(x)) for x in net.capacities]
    den = max([x.denominator for x in fr] + [1])
    g = nx.DiGraph()
    g.add_nodes_from(range(net.n))
    for a, b, x in zip(net.tails.tolist(), net.heads.tolist(), fr, strict=True):
        if a != b:
            g.add_edge(a, b, capacity=g[a][b]["capacity"] + int(x * den) if g.has_edge(a, b) else int(x * den))
    return Fraction(nx.maximum_flow_value(g, net.source, net.sink), den)


def grid_energy_exact(labels, src, snk, edg, conn: int):
    """A labelling's grid-cut energy, exact for integers (Python ints) and correctly rounded for floats
    (``math.fsum`` over the cut terms); ``edg`` broadcast to ``(k, *grid)``."""
    lab = np.asarray(labels, bool)
    src, snk = np.asarray(src), np.asarray(snk)
    off = offsets(lab.ndim, conn)
    edg = np.broadcast_to(edg, (len(off),) + lab.shape)
    exact = src.dtype.kind in "iu" and snk.dtype.kind in "iu" and edg.dtype.kind in "iu"
    terms = list(snk[lab]) + list(src[~lab])
    for k, o in enumerate(off):
        s = tuple(slice(max(0, -d), lab.shape[i] - max(0, d)) for i, d in enumerate(o))
        d_ = tuple(slice(max(0, d), lab.shape[i] - max(0, -d)) for i, d in enumerate(o))
        terms += list(edg[k][s][lab[s] & ~lab[d_]])
    return sum(int(x) for x in terms) if exact else math.fsum(float(x) for x in terms)


def grid_min_exact(src, snk, edg, conn: int):
    """The minimum of :func:`grid_energy_exact` over all labellings of a tiny grid (<= 14 points)."""
    shape = np.shape(src)
    size = int(np.prod(shape))
    return min(grid_energy_exact(np.array([bool(b >> i & 1) for i in range(size)]).reshape(shape), src, snk, edg,
                                 conn) for b in range(1 << size))


# --- sparse assignment oracles (issue 12: cost scaling) -------------------------------------------------
def partial_assignment_bruteforce(cost: np.ndarray):
    """(k, min cost) over all matchings of maximum cardinality k; ``inf`` entries are missing arcs.
    Exhaustive over the shorter side's choices (small inputs only)."""
    a = np.asarray(cost, dtype=object)
    if a.shape[0] > a.shape[1]:
        a = a.T
    nr, nc = a.shape
    best = (0, 0)
    for cols in itertools.product(range(-1, nc), repeat=nr):
        used = [j for j in cols if j >= 0]
        if len(set(used)) != len(used) or any(j >= 0 and a[i, j] == np.inf for i, j in enumerate(cols)):
            continue
        k = len(used)
        tot = sum(a[i, j] for i, j in enumerate(cols) if j >= 0)
        if k > best[0] or (k == best[0] and tot < best[1]):
            best = (k, tot)
    return best


# --- weighted matching (issue 10): the greedy oracle --------------------------------------------


def greedy_weighted_matching(n: int, edges) -> dict:
    """The greedy matching of the documented edge order, slowly and obviously: drop self-loops, keep
    the heaviest copy of each pair, sort by (weight, larger endpoint, smaller endpoint) descending,
    take each positive edge whose endpoints are both free. ``edges``: (u, v, w) triples.
    Returns {vertex: mate} for the matched vertices."""
    best = {}
    for u, v, w in edges:
        u, v = int(u), int(v)
        if u == v:
            continue
        key = (min(u, v), max(u, v))
        if key not in best or w > best[key]:
            best[key] = w
    order = sorted(((w, b, a) for (a, b), w in best.items()), reverse=True)
    mate = {}
    for w, b, a in order:
        if w > 0 and a not in mate and b not in mate:
            mate[a] = b
            mate[b] = a
    return mate


def exact_number(x):
    """A weight as an exact Python number: an int for integers, a ``Fraction`` for floats."""
    return int(x) if isinstance(x, (int, np.integer)) else Fraction(float(x))


def greedy_weighted_mate(n: int, edges) -> np.ndarray:
    """:func:`greedy_weighted_matching` as a mate array of length ``n`` (-1: unmatched)."""
    mate = np.full(n, -1, dtype=np.int64)
    for a, b in greedy_weighted_matching(n, edges).items():
        mate[a] = b
    return mate


def matrix_edges(entries) -> list:
    """The undirected edges of a matrix given by its stored entries ``(i, j, x)``, read as SciPy reads a COO
    matrix, slowly and exactly: duplicates summed (Python ints, or ``Fraction`` for floats, rounded once),
    zeros and the diagonal dropped, edge {i, j} = the larger of A[i, j] and A[j, i]. Returns (i, j, w)."""
    a = {}
    for i, j, x in entries:
        x = int(x) if isinstance(x, (int, np.integer)) else Fraction(float(x))
        a[int(i), int(j)] = a.get((int(i), int(j)), 0) + x
    best = {}
    for (i, j), x in a.items():
        x = x if isinstance(x, int) else float(x)
        if i != j and x != 0:
            key = (min(i, j), max(i, j))
            best[key] = max(best[key], x) if key in best else x
    return [(i, j, x) for (i, j), x in best.items()]


def exact_weighted_matching_weight(n: int, edges) -> float:
    """Maximum matching weight by brute force over edge subsets (tiny graphs only); exact when the weights are
    (Python ints or ``Fraction``: the sums start from the integer 0)."""
    best = {}
    for u, v, w in edges:
        if u != v and w > 0:
            key = (min(u, v), max(u, v))
            best[key] = max(best.get(key, w), w)
    items = sorted(best.items())

    def rec(i: int, used: frozenset) -> float:
        if i == len(items):
            return 0
        (a, b), w = items[i]
        out = rec(i + 1, used)
        if a not in used and b not in used:
            out = max(out, w + rec(i + 1, used | {a, b}))
        return out

    return rec(0, frozenset())


def granularity_naive(a: np.ndarray) -> float:
    """The largest power of two dividing every finite non-zero entry (inf when there is none), from
    Python's exact float decomposition, entry by entry."""
    best = math.inf
    for x in np.asarray(a, dtype=np.float64).ravel().tolist():
        if math.isfinite(x) and x != 0:
            m, e = math.frexp(abs(x))
            mant = int(m * 2**53)
            best = min(best, math.ldexp(1.0, e - 53 + (mant & -mant).bit_length() - 1))
    return best
