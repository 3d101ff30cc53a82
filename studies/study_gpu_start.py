"""Which GPU initial matching should G-PR start from?  A CPU study by exact emulation.

Not part of the library. Every GPU start is emulated round by round with deterministic
parallel ("bulk-synchronous") semantics: a round reads the state left by the previous round
(a snapshot), and every race is resolved by a fixed rule stated at the kernel. Work is counted
in adjacency entries read ("edges scanned") and atomics.

For every start it reports cardinality, rounds and work, then how hard the rest is:

* CPU push-relabel (``_cpu_push_relabel.push_relabel_kernel``) and Hopcroft-Karp
  (``_cpu_hopcroft_karp.hopcroft_karp_kernel``, no PF+ switch) from that start: time, pushes / phases;
* an emulation of G-PR itself (variant "first", Alg. 6 of Deveci et al. 2013, adaptive global
  relabel k = 0.7, snapshot semantics, last writer = largest column id): loops, global relabels,
  BFS levels, pushes, edges scanned — the GPU's cost is ~ (loops + levels) x sync cost + work;
* the shortest-augmenting-path histogram: BFS from the free rows (G-PR's global relabel), the label
  of each free column = the length of its shortest augmenting path (unreachable = unmatchable),
  and the BFS from the free columns, the distance of each reached free row.

Usage::

    python -m benchmarks.study_gpu_start --graphs delaunay_n20,soc-Slashdot0902 --starts all
    python -m benchmarks.study_gpu_start --graphs kron_s18 --starts ks,greedy_cpu --no-hk
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numba
import numpy as np

from matchflow._graph import as_bipartite
from matchflow.matching._cpu_hopcroft_karp import hopcroft_karp_kernel
from matchflow.matching._cpu_init import greedy_init_kernel, karp_sipser_kernel
from matchflow.matching._cpu_push_relabel import push_relabel_kernel

MAXR = 1 << 20  # per-round stat buffers
KEYMAX = np.int64(0x7FFFFFFFFFFFFFFF)


# --------------------------------------------------------------------------- helpers


@numba.njit(cache=True, inline="always")
def hash_dev(x, salt):
    """A bijective 32-bit mix (murmur3 fmix32) of ``x`` xor a salt: deterministic 'random' priorities."""
    h = (np.int64(x) ^ (np.int64(salt) * np.int64(0x9E3779B9))) & 0xFFFFFFFF
    h ^= h >> 16
    h = (h * np.int64(0x85EBCA6B)) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * np.int64(0xC2B2AE35)) & 0xFFFFFFFF
    h ^= h >> 16
    return h


# --------------------------------------------------------------------------- greedy (today + hashed)


@numba.njit(cache=True)
def greedy_gpu_kernel(col_ptr, row_ind, mu_r, mu_c, hashed, stat):
    """init="greedy" of today (hashed=False): every open column claims its FIRST free row of the
    previous round's state; several claims on one row: the LAST writer (largest column id) wins.
    hashed=True (variant a): the column claims its free row of least hash(u, round) and the row
    keeps the claimant of least hash(v, round). Open columns: mu_c == -1 (dead: -3, cleared at the end).
    stat[r] = edges scanned in round r. Returns rounds."""
    m = len(mu_r)
    n = len(mu_c)
    prop = np.full(n, -1, np.int64)
    claim = np.full(m, -1, np.int64)
    ckey = np.full(m, KEYMAX, np.int64)
    rnd = 0
    while True:
        any_p = False
        sc = 0
        for v in range(n):
            if mu_c[v] != -1:
                continue
            bu = -1
            bh = KEYMAX
            for e in range(col_ptr[v], col_ptr[v + 1]):
                u = row_ind[e]
                sc += 1
                if mu_r[u] == -1:
                    if not hashed:
                        bu = u
                        break
                    h = hash_dev(u, 2 * rnd + 1)
                    if h < bh:
                        bh = h
                        bu = u
            if bu < 0:
                mu_c[v] = -3
                continue
            any_p = True
            prop[v] = bu
            if hashed:
                k = hash_dev(v, 2 * rnd + 2)
                if k < ckey[bu]:
                    ckey[bu] = k
                    claim[bu] = v
            else:
                claim[bu] = v  # ascending v: last writer = largest id
        stat[rnd] = sc
        if not any_p:
            break
        for v in range(n):
            u = prop[v]
            if u >= 0:
                if claim[u] == v:
                    mu_r[u] = v
                    mu_c[v] = u
                prop[v] = -1
        for u in range(m):
            claim[u] = -1
            ckey[u] = KEYMAX
        rnd += 1
    for v in range(n):
        if mu_c[v] < -1:
            mu_c[v] = -1
    return rnd + 1


# --------------------------------------------------------------------------- Karp-Sipser-style (today + variants)


@numba.njit(cache=True)
def ks_gpu_kernel(row_ptr, col_ind, col_ptr, row_ind, mu_r, mu_c, mode, stat):
    """init="karp-sipser" of today (mode 0) and variants, one loop iteration = one GPU round.

    mode 0: today. (1) deg_r[u] = #free (mu_c == -1) neighbour columns of every free row (recount
    over all edges of free rows); (2) every free column proposes to its free neighbour row of least
    deg_r, first in adjacency order on ties, key (live degree of v, v), atomic min at the row; no free
    neighbour: dead; (3) rows take the least key. Deterministic (no write-write race).
    mode 1 (variant a): ties among least-degree rows by least hash(u, round); key (d_v, hash(v, round)).
    mode 2 (variant d): degree-1 rule only: v proposes to a neighbour row of live degree 1 if it has one,
    else to its free row of least hash(u, round); key (0 if d_v == 1 or the row has degree 1 else 1,
    hash(v, round)). Degrees maintained incrementally.

    Work counters (stat rows): 0 edges read by the degree recount (today), 1 the same with dead rows
    (deg 0 in an earlier round: stays 0) skipped (variant b), 2 edges read by the proposals,
    3 atomics of an incremental degree update (variant c: one atomicSub per (newly matched column,
    still-free neighbour row)), 4 edges read by that update, 5 matches made in the round.
    Returns rounds (the last one makes no proposal)."""
    m = len(mu_r)
    n = len(mu_c)
    deg_r = np.zeros(m, np.int64)
    dead_r = np.zeros(m, np.bool_)
    best = np.full(m, KEYMAX, np.int64)
    bestv = np.full(m, -1, np.int64)
    newly = np.empty(n, np.int64)
    # incremental degrees (modes 2): initial count
    if mode == 2:
        for u in range(m):
            if mu_r[u] == -1:
                d = 0
                for e in range(row_ptr[u], row_ptr[u + 1]):
                    if mu_c[col_ind[e]] == -1:
                        d += 1
                deg_r[u] = d
    rnd = 0
    while True:
        # (1) live row degrees
        rc = 0
        rcd = 0
        for u in range(m):
            best[u] = KEYMAX
            bestv[u] = -1
            if mu_r[u] != -1:
                continue
            if mode == 2:
                continue
            d = 0
            for e in range(row_ptr[u], row_ptr[u + 1]):
                if mu_c[col_ind[e]] == -1:
                    d += 1
            rc += row_ptr[u + 1] - row_ptr[u]
            if not dead_r[u]:
                rcd += row_ptr[u + 1] - row_ptr[u]
            deg_r[u] = d
            if d == 0:
                dead_r[u] = True
        # (2) proposals
        any_p = False
        pc = 0
        for v in range(n):
            if mu_c[v] != -1:
                continue
            d = 0
            bu = -1
            bd = KEYMAX
            bh = KEYMAX
            one = -1
            for e in range(col_ptr[v], col_ptr[v + 1]):
                u = row_ind[e]
                pc += 1
                if mu_r[u] == -1:
                    d += 1
                    du = deg_r[u]
                    if mode == 0:
                        if du < bd:
                            bd = du
                            bu = u
                    elif mode == 1:
                        h = hash_dev(u, 2 * rnd + 1)
                        if du < bd or (du == bd and h < bh):
                            bd = du
                            bh = h
                            bu = u
                    else:
                        if du == 1 and one < 0:
                            one = u
                        h = hash_dev(u, 2 * rnd + 1)
                        if h < bh:
                            bh = h
                            bu = u
            if bu == -1:
                mu_c[v] = -3
                continue
            any_p = True
            if mode == 0:
                key = (d << 32) | v
            elif mode == 1:
                key = (d << 32) | hash_dev(v, 2 * rnd + 2)
            else:
                if one >= 0:
                    bu = one
                cls = 0 if (d == 1 or one >= 0) else 1
                key = (np.int64(cls) << 32) | hash_dev(v, 2 * rnd + 2)
            if key < best[bu]:
                best[bu] = key
                bestv[bu] = v
        stat[0, rnd] = rc
        stat[1, rnd] = rcd
        stat[2, rnd] = pc
        if not any_p:
            break
        # (3) accept
        nn = 0
        for u in range(m):
            v = bestv[u]
            if v >= 0 and mu_r[u] == -1:
                mu_r[u] = v
                mu_c[v] = u
                newly[nn] = v
                nn += 1
        # incremental update cost (and the update itself in mode 2)
        at = 0
        ae = 0
        for i in range(nn):
            v = newly[i]
            for e in range(col_ptr[v], col_ptr[v + 1]):
                u = row_ind[e]
                ae += 1
                if mu_r[u] == -1:
                    at += 1
                    deg_r[u] -= 1
        stat[3, rnd] = at
        stat[4, rnd] = ae
        stat[5, rnd] = nn
        rnd += 1
    for v in range(n):
        if mu_c[v] < -1:
            mu_c[v] = -1
    return rnd + 1


# --------------------------------------------------------------------------- two-sided handshake (variant e)


@numba.njit(cache=True)
def handshake_kernel(row_ptr, col_ind, col_ptr, row_ind, mu_r, mu_c, deg1, stat):
    """Two-sided handshake (Fagginger Auer & Bisseling's GPU matching, bipartite): every free column
    points to its free row of least hash(u, round), every free row to its free column of least
    hash(v, round); mutual pointers are matched (no conflict, no atomic). deg1: a vertex with a
    neighbour of live degree 1 points to it (Karp-Sipser's safe rule), degrees kept incrementally.
    At least one pair per round (the globally least-hash live column and its pointer). stat[0, r]
    edges read, stat[1, r] matches. Returns rounds."""
    m = len(mu_r)
    n = len(mu_c)
    pr = np.full(m, -1, np.int64)
    pc = np.full(n, -1, np.int64)
    deg_r = np.zeros(m, np.int64)
    deg_c = np.zeros(n, np.int64)
    for u in range(m):
        deg_r[u] = row_ptr[u + 1] - row_ptr[u]
    for v in range(n):
        deg_c[v] = col_ptr[v + 1] - col_ptr[v]
    rnd = 0
    while True:
        sc = 0
        any_p = False
        for v in range(n):
            pc[v] = -1
            if mu_c[v] != -1:
                continue
            bu = -1
            bh = KEYMAX
            for e in range(col_ptr[v], col_ptr[v + 1]):
                u = row_ind[e]
                sc += 1
                if mu_r[u] == -1:
                    h = hash_dev(u, 2 * rnd + 1)
                    if deg1 and deg_r[u] == 1:
                        h = -1
                    if h < bh:
                        bh = h
                        bu = u
            if bu < 0:
                mu_c[v] = -3
            else:
                pc[v] = bu
                any_p = True
        if not any_p:
            stat[0, rnd] = sc
            break
        for u in range(m):
            pr[u] = -1
            if mu_r[u] != -1:
                continue
            bv = -1
            bh = KEYMAX
            for e in range(row_ptr[u], row_ptr[u + 1]):
                v = col_ind[e]
                sc += 1
                if mu_c[v] == -1:
                    h = hash_dev(v, 2 * rnd + 2)
                    if deg1 and deg_c[v] == 1:
                        h = -1
                    if h < bh:
                        bh = h
                        bv = v
            pr[u] = bv
        nm = 0
        for v in range(n):
            u = pc[v]
            if u >= 0 and pr[u] == v:
                mu_r[u] = v
                mu_c[v] = u
                nm += 1
                if deg1:
                    for e in range(col_ptr[v], col_ptr[v + 1]):
                        deg_r[row_ind[e]] -= 1
                    for e in range(row_ptr[u], row_ptr[u + 1]):
                        deg_c[col_ind[e]] -= 1
        stat[0, rnd] = sc
        stat[1, rnd] = nm
        rnd += 1
    for v in range(n):
        if mu_c[v] < -1:
            mu_c[v] = -1
    return rnd + 1


# --------------------------------------------------------------------------- locally dominant (variant f, proposed)


@numba.njit(cache=True, inline="always")
def edge_key_dev(a, b, hashed):
    """Priority of edge (a, b), smaller first: lexicographic (a, b) or a hash of the pair (same on both ends)."""
    if hashed:
        return hash_dev(b ^ hash_dev(a, 7), 11)
    return (np.int64(a) << 32) | b


@numba.njit(cache=True)
def ld_bipartite_kernel(row_ptr, col_ind, col_ptr, row_ind, mu_r, mu_c, hashed, stat):
    """Locally dominant handshake (Preis; Manne-Bisseling) on the bipartite graph: every free column
    points to its free row of least edge key, every free row to its free column of least edge key;
    mutual pointers are matched. With the lexicographic key (column, row) this is EXACTLY the
    sequential greedy of _cpu_init.greedy_init_kernel (each column takes its first free row, columns
    in id order), computed in parallel; the best free neighbour is then the first free one in the
    sorted adjacency, so each vertex keeps a cursor that only moves forward (O(nnz) total work).
    Hashed keys: rescan the whole adjacency every round. stat[0, r] edges read, stat[1, r] matches."""
    m = len(mu_r)
    n = len(mu_c)
    ccur = col_ptr[:-1].astype(np.int64).copy()
    rcur = row_ptr[:-1].astype(np.int64).copy()
    pc = np.full(n, -1, np.int64)
    rnd = 0
    while rnd < stat.shape[1] - 1:
        sc = 0
        any_p = False
        for v in range(n):
            pc[v] = -1
            if mu_c[v] != -1:
                continue
            bu = -1
            if not hashed:
                while ccur[v] < col_ptr[v + 1]:
                    sc += 1
                    u = row_ind[ccur[v]]
                    if mu_r[u] == -1:
                        bu = u
                        break
                    ccur[v] += 1
            else:
                bk = KEYMAX
                for e in range(col_ptr[v], col_ptr[v + 1]):
                    u = row_ind[e]
                    sc += 1
                    if mu_r[u] == -1:
                        k = edge_key_dev(v, u, True)
                        if k < bk:
                            bk = k
                            bu = u
            if bu < 0:
                mu_c[v] = -3  # dead (no free row left)
            else:
                pc[v] = bu
                any_p = True
        if not any_p:
            stat[0, rnd] = sc
            break
        nm = 0
        for u in range(m):
            if mu_r[u] != -1:
                continue
            bv = -1
            if not hashed:
                while rcur[u] < row_ptr[u + 1]:
                    sc += 1
                    v = col_ind[rcur[u]]
                    if mu_c[v] == -1:
                        bv = v
                        break
                    rcur[u] += 1
            else:
                bk = KEYMAX
                for e in range(row_ptr[u], row_ptr[u + 1]):
                    v = col_ind[e]
                    sc += 1
                    if mu_c[v] == -1:
                        k = edge_key_dev(v, u, True)
                        if k < bk:
                            bk = k
                            bv = v
            if bv >= 0 and pc[bv] == u:
                mu_r[u] = bv
                nm += 1
        for v in range(n):
            u = pc[v]
            if u >= 0 and mu_r[u] == v:
                mu_c[v] = u
        stat[0, rnd] = sc
        stat[1, rnd] = nm
        rnd += 1
    for v in range(n):
        if mu_c[v] < -1:
            mu_c[v] = -1
    return rnd + 1


@numba.njit(cache=True)
def ld_symmetric_kernel(ptr, ind, mu_r, mu_c, hashed, stat):
    """For a structurally symmetric square pattern: a maximal matching M of the undirected graph
    (diagonal ignored) by the locally dominant handshake (every free vertex points to its free
    neighbour of least edge key min/max-symmetric; mutual pointers match), then DOUBLED: {a, b} in M gives
    (row a, col b) and (row b, col a). Every vertex unmatched in M is free as a row AND as a column,
    so free rows and free columns coincide (no imbalance). Last, a free vertex with a diagonal entry
    takes it. Lexicographic keys: the first free neighbour (cursor). stat as ld_bipartite_kernel."""
    n = len(ptr) - 1
    mate = np.full(n, -1, np.int64)  # -1 free, -3 dead
    cur = ptr[:-1].astype(np.int64).copy()
    pt = np.full(n, -1, np.int64)
    rnd = 0
    while rnd < stat.shape[1] - 1:
        sc = 0
        any_p = False
        for a in range(n):
            pt[a] = -1
            if mate[a] != -1:
                continue
            bb = -1
            if not hashed:
                while cur[a] < ptr[a + 1]:
                    sc += 1
                    b = ind[cur[a]]
                    if b != a and mate[b] == -1:
                        bb = b
                        break
                    cur[a] += 1
            else:
                bk = KEYMAX
                for e in range(ptr[a], ptr[a + 1]):
                    b = ind[e]
                    sc += 1
                    if b != a and mate[b] == -1:
                        k = edge_key_dev(min(a, b), max(a, b), True)
                        if k < bk:
                            bk = k
                            bb = b
            if bb < 0:
                mate[a] = -3
            else:
                pt[a] = bb
                any_p = True
        stat[0, rnd] = sc
        if not any_p:
            break
        nm = 0
        for a in range(n):
            b = pt[a]
            if b > a and pt[b] == a:
                mate[a] = b
                mate[b] = a
                nm += 1
        stat[1, rnd] = nm
        rnd += 1
    for a in range(n):
        b = mate[a]
        if b >= 0:
            mu_r[a] = b
            mu_c[b] = a
    for a in range(n):
        if mate[a] < 0:
            for e in range(ptr[a], ptr[a + 1]):
                if ind[e] == a:
                    mu_r[a] = a
                    mu_c[a] = a
    return rnd + 1


# --------------------------------------------------------------------------- TwoSidedMatch (variant f)


def two_sided_match(g, mu_r, mu_c, iters=5, seed=1):
    """Dufossé, Kaya & Uçar's TwoSidedMatch: Sinkhorn-Knopp scaling (``iters`` iterations) of the
    0/1 matrix, every row picks one column with probability proportional to the scaled entries and
    every column one row; a maximum matching of this choice graph (at most m + n edges; Karp-Sipser is
    exact on it, we use HK); then made maximal by today's greedy rounds. Returns (rounds, edges scanned)."""
    m, n = g.n_rows, g.n_cols
    rp, ci, cp, ri = g.row_ptr, g.col_ind, g.col_ptr, g.row_ind
    r = np.ones(m)
    c = np.ones(n)
    rows_of = np.repeat(np.arange(m), np.diff(rp))
    for _ in range(iters):
        s = np.bincount(rows_of, weights=c[ci], minlength=m)
        r = np.where(s > 0, 1.0 / np.maximum(s, 1e-300), 0.0)
        t = np.bincount(ci, weights=r[rows_of], minlength=n)
        c = np.where(t > 0, 1.0 / np.maximum(t, 1e-300), 0.0)
    rng = np.random.default_rng(seed)
    # row i picks column j with prob c_j / sum_{j in row} c_j (inverse CDF per row)
    w = c[ci]
    cs = np.cumsum(w)
    start = np.concatenate(([0.0], cs))[rp[:-1]]
    tot = cs[np.maximum(rp[1:] - 1, 0)] - start
    x = start + rng.random(m) * tot
    k = np.searchsorted(cs, x, side="right")
    deg = np.diff(rp)
    k = np.minimum(np.maximum(k, rp[:-1]), rp[1:] - 1)
    has = deg > 0
    e_r = np.stack([np.nonzero(has)[0], ci[k[has]]])
    w2 = r[ri]
    cs2 = np.cumsum(w2)
    start2 = np.concatenate(([0.0], cs2))[cp[:-1]]
    tot2 = cs2[np.maximum(cp[1:] - 1, 0)] - start2
    x2 = start2 + rng.random(n) * tot2
    k2 = np.searchsorted(cs2, x2, side="right")
    k2 = np.minimum(np.maximum(k2, cp[:-1]), cp[1:] - 1)
    has2 = np.diff(cp) > 0
    e_c = np.stack([ri[k2[has2]], np.nonzero(has2)[0]])
    rows = np.concatenate([e_r[0], e_c[0]])
    cols = np.concatenate([e_r[1], e_c[1]])
    import scipy.sparse as sp

    h = sp.csr_array((np.ones(len(rows), bool), (rows, cols)), shape=(m, n))
    h.sum_duplicates()
    hg = as_bipartite(h)
    cm = np.full(n, -1, np.int64)
    rm = np.full(m, -1, np.int64)
    karp_sipser_kernel(hg.row_ptr.astype(np.int64), hg.col_ind.astype(np.int64), hg.col_ptr.astype(np.int64),
                       hg.row_ind.astype(np.int64), rm, cm)
    st = np.zeros(3, np.int64)
    hopcroft_karp_kernel(hg.col_ptr.astype(np.int64), hg.row_ind.astype(np.int64), rm, cm, False, -1, 0, st)
    mu_r[:] = rm
    mu_c[:] = cm
    gst = np.zeros(MAXR, np.int64)
    rounds = greedy_gpu_kernel(cp, ri, mu_r, mu_c, False, gst)
    scanned = 2 * iters * len(ci) + len(ci) + int(gst[:rounds].sum())
    return iters * 2 + 1 + rounds, scanned


# --------------------------------------------------------------------------- length-3 augmentations (variant g)


@numba.njit(cache=True)
def aug3_kernel(row_ptr, col_ind, col_ptr, row_ind, mu_r, mu_c, max_rounds, stat):
    """Parallel rounds of length-3 augmentations v - u = w - u' (v free column, u matched to w, u' free
    row). Every free column takes the FIRST such path in adjacency order (for each u in Γ(v), each u' in
    Γ(w)) and claims w and u' with key hash(v, round) (atomic min); it augments when it won both
    claims. A column with no such path is dead for the rest of the rounds. stat[0, r] edges read,
    stat[1, r] augmentations. Returns rounds run."""
    m = len(mu_r)
    n = len(mu_c)
    cw = np.full(n, KEYMAX, np.int64)  # claim on column w
    cu = np.full(m, KEYMAX, np.int64)  # claim on free row u'
    pu = np.full(n, -1, np.int64)
    pu2 = np.full(n, -1, np.int64)
    dead = np.zeros(n, np.bool_)
    rnd = 0
    while rnd < max_rounds:
        sc = 0
        any_p = False
        for v in range(n):
            pu[v] = -1
            if mu_c[v] != -1 or dead[v]:
                continue
            found = False
            for e in range(col_ptr[v], col_ptr[v + 1]):
                u = row_ind[e]
                sc += 1
                w = mu_r[u]
                if w < 0:
                    continue  # (not after a maximal start)
                for f in range(col_ptr[w], col_ptr[w + 1]):
                    u2 = row_ind[f]
                    sc += 1
                    if mu_r[u2] == -1:
                        k = hash_dev(v, rnd)
                        pu[v] = u
                        pu2[v] = u2
                        if k < cw[w]:
                            cw[w] = k
                        if k < cu[u2]:
                            cu[u2] = k
                        found = True
                        break
                if found:
                    break
            if not found:
                dead[v] = True
            else:
                any_p = True
        stat[0, rnd] = sc
        if not any_p:
            break
        na = 0
        for v in range(n):
            u = pu[v]
            if u < 0:
                continue
            w = mu_r[u]
            u2 = pu2[v]
            k = hash_dev(v, rnd)
            if cw[w] == k and cu[u2] == k:
                mu_r[u] = v
                mu_c[v] = u
                mu_r[u2] = w
                mu_c[w] = u2
                na += 1
        for v in range(n):
            cw[v] = KEYMAX
        for u in range(m):
            cu[u] = KEYMAX
        stat[1, rnd] = na
        rnd += 1
    return rnd


# --------------------------------------------------------------------------- analysis


@numba.njit(cache=True)
def alt_bfs_kernel(a_ptr, a_ind, a_match, b_match, dist_b, dist_a):
    """BFS over alternating paths from every free vertex of side A (with an edge): A -> B by any
    edge, B -> A by the matching. dist_b[b] = length of the shortest alternating path from a free
    A vertex to b (-1 unreached). Returns edges scanned."""
    na = len(a_ptr) - 1
    q = np.empty(na, np.int64)
    h = 0
    t = 0
    for a in range(na):
        dist_a[a] = -1
        if a_match[a] < 0 and a_ptr[a + 1] > a_ptr[a]:
            dist_a[a] = 0
            q[t] = a
            t += 1
    for b in range(len(b_match)):
        dist_b[b] = -1
    sc = 0
    while h < t:
        a = q[h]
        h += 1
        for e in range(a_ptr[a], a_ptr[a + 1]):
            b = a_ind[e]
            sc += 1
            if dist_b[b] < 0:
                dist_b[b] = dist_a[a] + 1
                a2 = b_match[b]
                if a2 >= 0 and dist_a[a2] < 0:
                    dist_a[a2] = dist_b[b] + 1
                    q[t] = a2
                    t += 1
    return sc


@numba.njit(cache=True)
def gpr_first_emul_kernel(row_ptr, col_ind, col_ptr, row_ind, mu_r, mu_c, k_adapt, max_loops, stat):
    """G-PR variant "first" (Alg. 6) with adaptive global relabel (every ceil(k * maxLevel) loops),
    bulk-synchronous: in a loop every active column (free, or stale: lost its row) reads the labels
    of the loop's start, pushes to its row of least psi (scan stops at psi(v) - 1); several pushes
    to one row: the LAST writer (largest column id) wins mu_r[u] and psi_r[u]; losers stay active.
    psi >= inf: unmatchable (-2). After the loop: FixMatching, certify BFS, restart if needed.
    stat: 0 loops, 1 global relabels, 2 BFS levels (sum of maxLevel/2 + 1), 3 pushes, 4 edges scanned
    by pushes, 5 edges scanned by BFS, 6 restarts, 7 max active, 8/9/10 the loop at which the active
    columns first fall to <= 10% / <= 1% / <= 16 of the first loop's. Returns the cardinality."""
    m = len(mu_r)
    n = len(mu_c)
    inf = m + n
    psi_r = np.empty(m, np.int64)
    psi_c = np.empty(n, np.int64)
    q = np.empty(max(m, 1), np.int64)
    act = np.empty(n, np.int64)
    nxt = np.empty(n, np.int64)
    tu = np.empty(n, np.int64)
    tp = np.empty(n, np.int64)
    win = np.full(m, -1, np.int64)
    inact = np.zeros(n, np.bool_)
    loop = 0
    restarts = 0
    while True:
        na = 0
        for v in range(n):
            w = mu_c[v]
            if w == -2:
                mu_c[v] = -1
                w = -1
            if w >= 0 and mu_r[w] != v:
                mu_c[v] = -1
                w = -1
            if w == -1 and col_ptr[v + 1] > col_ptr[v]:
                act[na] = v
                na += 1
        iter_gr = loop
        while na > 0 and loop < max_loops:
            if loop == iter_gr:
                # global relabel = BFS from free rows (rows variant: one level per 2 labels)
                h = 0
                t = 0
                for u in range(m):
                    if mu_r[u] == -1:
                        psi_r[u] = 0
                        q[t] = u
                        t += 1
                    else:
                        psi_r[u] = inf
                for v in range(n):
                    psi_c[v] = inf
                maxl = 0
                while h < t:
                    u = q[h]
                    h += 1
                    lu = psi_r[u] + 1
                    for e in range(row_ptr[u], row_ptr[u + 1]):
                        stat[5] += 1
                        v = col_ind[e]
                        if psi_c[v] == inf:
                            psi_c[v] = lu
                            w = mu_c[v]
                            if w >= 0 and mu_r[w] == v:
                                psi_r[w] = lu + 1
                                if lu + 1 > maxl:
                                    maxl = lu + 1
                                q[t] = w
                                t += 1
                stat[1] += 1
                stat[2] += maxl // 2 + 1
                s = int(math.ceil(k_adapt * maxl))
                iter_gr = loop + max(s, 1)
            if na > stat[7]:
                stat[7] = na
            if restarts == 0:
                if stat[8] == 0 and 10 * na <= stat[7]:
                    stat[8] = loop
                if stat[9] == 0 and 100 * na <= stat[7]:
                    stat[9] = loop
                if stat[10] == 0 and na <= 16:
                    stat[10] = loop
            # pushes, reading the loop-start state
            for i in range(na):
                v = act[i]
                target = psi_c[v] - 1
                pmin = inf
                best = -1
                for e in range(col_ptr[v], col_ptr[v + 1]):
                    u = row_ind[e]
                    stat[4] += 1
                    p = psi_r[u]
                    if p < pmin:
                        pmin = p
                        best = u
                        if p <= target:
                            break
                tu[i] = best
                tp[i] = pmin
            # apply: ascending v order inside the list is not guaranteed; last writer = largest id
            for i in range(na):
                u = tu[i]
                if tp[i] < inf and (win[u] < act[i]):
                    win[u] = act[i]
            nn = 0
            for i in range(na):
                v = act[i]
                u = tu[i]
                if tp[i] >= inf:
                    mu_c[v] = -2
                    continue
                stat[3] += 1
                mu_c[v] = u
                psi_c[v] = tp[i] + 1
                if win[u] == v:
                    old = mu_r[u]
                    mu_r[u] = v
                    psi_r[u] = tp[i] + 2
                    if old >= 0 and old != v and mu_c[old] == u:
                        # displaced column (was matched, not active this loop): active next loop
                        nxt[nn] = old
                        nn += 1
                else:
                    nxt[nn] = v
                    nn += 1
            for i in range(na):
                if tu[i] >= 0:
                    win[tu[i]] = -1
            # keep only columns that are really active (stale); dedupe
            na = 0
            for i in range(nn):
                v = nxt[i]
                w = mu_c[v]
                if w >= 0 and mu_r[w] != v and not inact[v]:
                    inact[v] = True
                    act[na] = v
                    na += 1
            for i in range(na):
                inact[act[i]] = False
            loop += 1
        # FixMatching + certify
        card = 0
        for v in range(n):
            w = mu_c[v]
            if w < 0 or mu_r[w] != v:
                mu_c[v] = -1
            else:
                card += 1
        if loop >= max_loops:
            break
        dr = np.empty(m, np.int64)
        dc = np.empty(n, np.int64)
        alt_bfs_kernel(row_ptr, col_ind, mu_r, mu_c, dc, dr)
        bad = 0
        for v in range(n):
            if mu_c[v] == -1 and dc[v] >= 0:
                bad += 1
        if bad == 0 or restarts >= 3:
            break
        restarts += 1
    stat[0] = loop
    stat[6] = restarts
    return card


@numba.njit(cache=True)
def symdiff_paths_kernel(mu_r0, mu_c0, fr, fc, out):
    """Lengths of the augmenting paths of M0 xor Mfinal that start at the columns free in M0 and matched
    in Mfinal: v -Mf- u1 -M0- w1 -Mf- u2 ... ending at a row free in M0. out[i] = length (edges).
    Returns the number of paths."""
    k = 0
    for v in range(len(mu_c0)):
        if mu_c0[v] >= 0 or fc[v] < 0:
            continue
        length = 0
        c = v
        while True:
            u = fc[c]
            length += 1
            w = mu_r0[u]
            if w < 0:
                break
            length += 1
            c = w
        out[k] = length
        k += 1
    return k


def block_imbalance(mu_r, mu_c, b):
    """Sum over blocks of b consecutive vertex ids of |#free columns - #free rows| / 2: the free vertices
    that must leave their block (meaningful for spatially ordered labels: Hilbert-ordered meshes)."""
    fc = np.nonzero(mu_c < 0)[0] // b
    fr = np.nonzero(mu_r < 0)[0] // b
    nb = max(len(mu_c), len(mu_r)) // b + 1
    return int(np.abs(np.bincount(fc, minlength=nb) - np.bincount(fr, minlength=nb)).sum() // 2)


BUCKETS = [(1, 1), (3, 3), (5, 5), (7, 7), (9, 11), (13, 19), (21, 49), (51, 99), (101, 1 << 40)]


def _hist(d: np.ndarray) -> dict:
    out = {}
    for lo, hi in BUCKETS:
        out[f"{lo}-{hi}" if hi < (1 << 40) else f">={lo}"] = int(np.count_nonzero((d >= lo) & (d <= hi)))
    out["unreach"] = int(np.count_nonzero(d < 0))
    if np.any(d >= 0):
        x = d[d >= 0]
        out["median"] = float(np.median(x))
        out["mean"] = float(x.mean())
        out["max"] = int(x.max())
    return out


def analyse(g, mu_r, mu_c, *, pr=True, hk=True, gpr=True) -> dict:
    """Hardness of the rest from the start (mu_r, mu_c)."""
    rp, ci, cp, ri = g.row_ptr, g.col_ind, g.col_ptr, g.row_ind
    m, n = g.n_rows, g.n_cols
    out = {}
    dr = np.empty(m, np.int64)
    dc = np.empty(n, np.int64)
    # BFS from the free rows: label of each free column = its shortest augmenting path
    alt_bfs_kernel(rp, ci, mu_r, mu_c, dc, dr)
    free_c = (mu_c < 0) & (np.diff(cp) > 0)
    out["sap_free_cols"] = _hist(dc[free_c])
    # BFS from the free columns: distance of each free row
    dr2 = np.empty(m, np.int64)
    dc2 = np.empty(n, np.int64)
    alt_bfs_kernel(cp, ri, mu_c, mu_r, dr2, dc2)
    free_r = (mu_r < 0) & (np.diff(rp) > 0)
    out["dist_free_rows"] = _hist(dr2[free_r])
    if pr:
        r_ = mu_r.copy()
        c_ = mu_c.copy()
        st = np.zeros(4, np.int64)
        t = time.perf_counter()
        card = push_relabel_kernel(rp, ci, cp, ri, r_, c_, 0.5, st)
        out["pr"] = {"s": time.perf_counter() - t, "card": int(card), "pushes": int(st[0]),
                     "double_pushes": int(st[3]), "global_relabels": int(st[2])}
    if hk:
        r_ = mu_r.copy()
        c_ = mu_c.copy()
        st = np.zeros(3, np.int64)
        t = time.perf_counter()
        card = hopcroft_karp_kernel(cp, ri, r_, c_, False, -1, 0, st)
        out["hk"] = {"s": time.perf_counter() - t, "card": int(card), "phases": int(st[0]),
                     "augs": int(st[1]), "scanned": int(st[2])}
        buf = np.empty(n, np.int64)
        k = symdiff_paths_kernel(mu_r, mu_c, r_, c_, buf)
        out["hk_path_len"] = _hist(buf[:k])
    if m == n:
        free_c0 = mu_c < 0
        out["same_vertex_free"] = int(np.count_nonzero(free_c0 & (mu_r < 0)))
        out["imbalance"] = {str(b): block_imbalance(mu_r, mu_c, b) for b in (64, 1024, 16384)}
    if gpr:
        r_ = mu_r.copy()
        c_ = mu_c.copy()
        st = np.zeros(11, np.int64)
        t = time.perf_counter()
        card = gpr_first_emul_kernel(rp, ci, cp, ri, r_, c_, 0.7, 2_000_000, st)
        out["gpr"] = {"s": time.perf_counter() - t, "card": int(card), "loops": int(st[0]), "grs": int(st[1]),
                      "levels": int(st[2]), "pushes": int(st[3]), "push_scans": int(st[4]),
                      "bfs_scans": int(st[5]), "restarts": int(st[6]), "max_active": int(st[7]),
                      "loop_10pct": int(st[8]), "loop_1pct": int(st[9]), "loop_16": int(st[10])}
    return out


# --------------------------------------------------------------------------- starts


LD_MAX_ROUNDS = 20000


def run_start(g, name: str) -> tuple[np.ndarray, np.ndarray, dict]:
    rp, ci, cp, ri = g.row_ptr, g.col_ind, g.col_ptr, g.row_ind
    m, n = g.n_rows, g.n_cols
    mu_r = np.full(m, -1, np.int64)
    mu_c = np.full(n, -1, np.int64)
    info: dict = {}
    base, _, post = name.partition("+")
    t = time.perf_counter()
    if base == "greedy_cpu":
        greedy_init_kernel(cp, ri, mu_r, mu_c)
        info.update(rounds=1, scanned=-1)
    elif base == "ks_cpu":
        karp_sipser_kernel(rp, ci, cp, ri, mu_r, mu_c)
        info.update(rounds=-1, scanned=-1)
    elif base in ("greedy", "greedy_hash"):
        st = np.zeros(MAXR, np.int64)
        r = greedy_gpu_kernel(cp, ri, mu_r, mu_c, base == "greedy_hash", st)
        info.update(rounds=r, scanned=int(st[:r].sum()), scanned_r0=int(st[0]))
    elif base in ("ks", "ks_hash", "ks_deg1"):
        st = np.zeros((6, MAXR), np.int64)
        mode = {"ks": 0, "ks_hash": 1, "ks_deg1": 2}[base]
        r = ks_gpu_kernel(rp, ci, cp, ri, mu_r, mu_c, mode, st)
        s = st[:, :r]
        info.update(rounds=r, recount=int(s[0].sum()), recount_deadskip=int(s[1].sum()),
                    propose=int(s[2].sum()), inc_atomics=int(s[3].sum()), inc_scans=int(s[4].sum()),
                    scanned=int(s[2].sum() + (s[0].sum() if mode < 2 else s[4].sum() + len(ci))),
                    matched_per_round=[int(x) for x in s[5][: min(r, 12)]],
                    rounds_to_99=int(np.searchsorted(np.cumsum(s[5]), 0.99 * s[5].sum()) + 1))
    elif base in ("handshake", "handshake_deg1"):
        st = np.zeros((2, MAXR), np.int64)
        r = handshake_kernel(rp, ci, cp, ri, mu_r, mu_c, base == "handshake_deg1", st)
        s = st[:, :r]
        info.update(rounds=r, scanned=int(s[0].sum()),
                    rounds_to_99=int(np.searchsorted(np.cumsum(s[1]), 0.99 * s[1].sum()) + 1))
    elif base in ("ld", "ld_hash"):
        st = np.zeros((2, LD_MAX_ROUNDS), np.int64)
        r = ld_bipartite_kernel(rp, ci, cp, ri, mu_r, mu_c, base == "ld_hash", st)
        s = st[:, :r]
        info.update(rounds=r, scanned=int(s[0].sum()),
                    rounds_to_99=int(np.searchsorted(np.cumsum(s[1]), 0.99 * s[1].sum()) + 1))
    elif base in ("sym", "sym_hash"):
        if m != n or not (np.array_equal(rp, cp) and np.array_equal(ci, ri)):
            raise ValueError("sym start needs a structurally symmetric pattern")
        st = np.zeros((2, LD_MAX_ROUNDS), np.int64)
        r = ld_symmetric_kernel(rp, ci, mu_r, mu_c, base == "sym_hash", st)
        s = st[:, :r]
        info.update(rounds=r, scanned=int(s[0].sum()),
                    rounds_to_99=int(np.searchsorted(np.cumsum(s[1]), 0.99 * s[1].sum()) + 1))
    elif base == "twosided":
        r, sc = two_sided_match(g, mu_r, mu_c)
        info.update(rounds=r, scanned=sc)
    else:
        raise ValueError(f"unknown start {name!r}")
    if post:
        k = int(post[4:] or 8) if post.startswith("aug3") else 0
        st = np.zeros((2, MAXR), np.int64)
        r = aug3_kernel(rp, ci, cp, ri, mu_r, mu_c, k, st)
        info.update(aug_rounds=r, aug_scanned=int(st[0, :r + 1].sum()), augs=int(st[1, :r].sum()),
                    augs_per_round=[int(x) for x in st[1, :r]])
    info["emul_s"] = time.perf_counter() - t
    card = int(np.count_nonzero(mu_c >= 0))
    assert np.all(mu_r[mu_c[mu_c >= 0]] == np.nonzero(mu_c >= 0)[0]), "not a matching"
    info["card"] = card
    return mu_r, mu_c, info


# --------------------------------------------------------------------------- graphs


def load_graph(name: str):

    if name.startswith("rgg13_n"):
        from matchflow import generators

        s = int(name[7:])
        return as_bipartite(generators.random_geometric(1 << s, avg_degree=13, seed=1))
    from benchmarks.datasets import by_name

    return as_bipartite(by_name(name).load())


ALL = ["greedy_cpu", "ks_cpu", "greedy", "greedy_hash", "ks", "ks_hash", "ks_deg1", "handshake",
       "handshake_deg1", "twosided", "greedy+aug3", "ks+aug3", "greedy_hash+aug3", "ks_deg1+aug3",
       "ld", "ld_hash", "sym", "sym_hash", "ld+aug3"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graphs", default="soc-Slashdot0902")
    ap.add_argument("--starts", default="all")
    ap.add_argument("--no-pr", action="store_true")
    ap.add_argument("--no-hk", action="store_true")
    ap.add_argument("--no-gpr", action="store_true")
    ap.add_argument("--json", default=None, help="append one JSON line per (graph, start) to this file")
    a = ap.parse_args(argv)
    starts = ALL if a.starts == "all" else a.starts.split(",")
    for gname in a.graphs.split(","):
        t = time.perf_counter()
        g = load_graph(gname)
        _ = g.col_ptr  # build the CSC
        print(f"## {gname}: {g.n_rows} x {g.n_cols}, nnz {g.nnz} (load {time.perf_counter() - t:.1f} s)", flush=True)
        for s in starts:
            try:
                mu_r, mu_c, info = run_start(g, s)
            except ValueError as exc:
                print(f"skip {s}: {exc}", flush=True)
                continue
            res = analyse(g, mu_r, mu_c, pr=not a.no_pr, hk=not a.no_hk, gpr=not a.no_gpr)
            rec = {"graph": gname, "start": s, "nnz": g.nnz, **info, **res}
            print(json.dumps(rec), flush=True)
            if a.json:
                with open(a.json, "a") as f:
                    f.write(json.dumps(rec) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
