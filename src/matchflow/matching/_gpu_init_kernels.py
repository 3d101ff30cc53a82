"""numba.cuda kernels of the GPU initial matchings (beyond the paper, which starts from a CPU matching).

* ``greedy_chunk_kernel``: the cheap matching in one pass; each thread runs the sequential greedy
  over a chunk of consecutive columns and claims rows by compare-and-swap (maximal).
* ``init_persistent_kernel``: the Karp-Sipser-style handshake below, every round in ONE cooperative
  launch (grid-wide syncs between phases, the activity flag read on the device through rotating
  slots as in ``pr_persistent_kernel``, high-degree vertices scanned by a whole warp, rows and
  columns without a free neighbour retired as "dead" (-3) so later rounds skip them); the
  ``ks_*_kernel`` wrappers run the same device functions one launch per phase (host loop, simulator).

Karp-Sipser-style handshake, one round:

1. every free, live row counts its free neighbour columns (its live degree); a row with none
   is dead (rows and columns never become free again, so it stays dead);
2. every free column proposes to its free neighbour row of least key (live degree, then a
   tie-break); the proposal's key is (the column's live degree, tie-break, column id); a
   column with no free neighbour is dead;
3. every row that received proposals takes the least key (atomic min on ``best``).

Degree-1 vertices on either side therefore win first, as in Karp-Sipser. Tie-break
(``hashed``): 0 lowest id (deterministic chains on meshes), 1 a 12-bit hash of the id.
A key is ``min(deg, 2^20 - 1) << 43 | tie << 31 | id``: ids < 2^31.
"""

from __future__ import annotations

from numba import cuda, int32, int64

from .._cuda._device import (  # noqa: F401 - PS_NSYNC: the host sizes ``sync`` with it
    FULL_MASK,
    PS_FLAG,
    PS_NSYNC,
    phase_read_dev,
    warp_min_dev,
    warp_sum_dev,
)
from .._cuda._env import kernel_cache
from ._gpu_push_relabel_kernels import warp_hubs_dev

CACHE = kernel_cache()  # numba-cuda on-disk cache of the kernels (off with MATCHFLOW_CUDA_CACHE=0)

KEY_MAX = 0x7FFFFFFFFFFFFFFF
DEG_CAP = (1 << 20) - 1
DEAD = -3
# indices of the int64 ``stats`` array
IST_ROUNDS, IST_CARD = 0, 1
IST_N = 2


@cuda.jit(device=True, inline=True)
def tie_dev(x, hashed):
    """The 12-bit tie-break of id ``x``: 0, or a multiplicative hash (Knuth) when ``hashed``."""
    if hashed == 0:
        return int64(0)
    return ((int64(x) * int64(2654435761)) >> 16) & int64(0xFFF)


@cuda.jit(device=True, inline=True)
def key_dev(deg, x, hashed):
    d = int64(deg)
    if d > DEG_CAP:
        d = int64(DEG_CAP)
    return (d << 43) | (tie_dev(x, hashed) << 31) | int64(x)


# --------------------------------------------------------------------------- phase 1: live degrees


@cuda.jit(device=True, inline=True)
def ks_degree_count_dev(u, start, step, row_ptr, col_ind, mu_c):
    d = int64(0)
    for e in range(row_ptr[u] + start, row_ptr[u + 1], step):
        if mu_c[col_ind[e]] == -1:
            d += 1
    return d


@cuda.jit(device=True, inline=True)
def ks_degree_set_dev(u, d, mu_r, deg_r, best):
    deg_r[u] = d
    best[u] = KEY_MAX
    if d == 0:
        mu_r[u] = DEAD


@cuda.jit(device=True, inline=True)
def ks_degree_warp_dev(u, valid, lane, hub, row_ptr, col_ind, mu_r, mu_c, deg_r, best):
    """Phase 1 for the 32 rows of a warp; rows of degree > ``hub`` are counted by the whole warp."""
    big = False
    if valid and mu_r[u] == -1:
        if hub > 0 and row_ptr[u + 1] - row_ptr[u] > hub:
            big = True
        else:
            ks_degree_set_dev(u, ks_degree_count_dev(u, 0, 1, row_ptr, col_ind, mu_c), mu_r, deg_r, best)
    mask = warp_hubs_dev(big)
    while mask != 0:
        src = int64(cuda.ffs(mask)) - 1
        mask &= mask - 1
        uu = cuda.shfl_sync(FULL_MASK, int64(u), src)
        d = warp_sum_dev(ks_degree_count_dev(uu, lane, 32, row_ptr, col_ind, mu_c))
        if lane == src:
            ks_degree_set_dev(uu, d, mu_r, deg_r, best)


# --------------------------------------------------------------------------- phase 2: proposals


@cuda.jit(device=True, inline=True)
def ks_scan_dev(v, start, step, col_ptr, row_ind, mu_r, deg_r, hashed):
    """Free neighbour rows of column ``v`` (a lane's share): their count and the least row key."""
    d = int64(0)
    bk = int64(KEY_MAX)
    for e in range(col_ptr[v] + start, col_ptr[v + 1], step):
        u = row_ind[e]
        if mu_r[u] == -1:
            d += 1
            k = key_dev(deg_r[u], u, hashed)
            if k < bk:
                bk = k
    return d, bk


@cuda.jit(device=True, inline=True)
def ks_propose_apply_dev(v, d, bk, mu_c, best, hashed, sync, fslot, fval):
    if d == 0:
        mu_c[v] = DEAD
        return
    sync[fslot] = fval
    cuda.atomic.min(best, bk & 0x7FFFFFFF, key_dev(d, v, hashed))


@cuda.jit(device=True, inline=True)
def ks_propose_warp_dev(v, valid, lane, hub, col_ptr, row_ind, mu_r, mu_c, deg_r, best, hashed, sync, fslot):
    """Phase 2 for the 32 columns of a warp; columns of degree > ``hub`` are scanned by the whole warp."""
    big = False
    if valid and mu_c[v] == -1:
        if hub > 0 and col_ptr[v + 1] - col_ptr[v] > hub:
            big = True
        else:
            d, bk = ks_scan_dev(v, 0, 1, col_ptr, row_ind, mu_r, deg_r, hashed)
            ks_propose_apply_dev(v, d, bk, mu_c, best, hashed, sync, fslot, 1)
    mask = warp_hubs_dev(big)
    while mask != 0:
        src = int64(cuda.ffs(mask)) - 1
        mask &= mask - 1
        vv = cuda.shfl_sync(FULL_MASK, int64(v), src)
        d, bk = ks_scan_dev(vv, lane, 32, col_ptr, row_ind, mu_r, deg_r, hashed)
        d = warp_sum_dev(d)
        bk = warp_min_dev(bk)
        if lane == src:
            ks_propose_apply_dev(vv, d, bk, mu_c, best, hashed, sync, fslot, 1)


# --------------------------------------------------------------------------- phase 3: handshake


@cuda.jit(device=True, inline=True)
def ks_accept_dev(u, mu_r, mu_c, best):
    if mu_r[u] == -1:
        b = best[u]
        if b != KEY_MAX:
            v = b & 0x7FFFFFFF
            mu_r[u] = v
            mu_c[v] = u


# --------------------------------------------------------------------------- greedy (the paper's cheap start)


@cuda.jit(cache=CACHE)
def greedy_chunk_kernel(col_ptr, row_ind, mu_r, mu_c, n, chunk):
    """The cheap matching in ONE pass: thread t runs the sequential greedy over columns
    [t * chunk, (t + 1) * chunk), each taking its first free row by compare-and-swap.

    A claimed row is never released and a column that finds every neighbour taken stays free, so the
    result is maximal. With labels that follow the geometry (Hilbert-ordered meshes), chunks are
    regions and the result is close to the sequential greedy's; chunk = 1 is the plain parallel greedy.
    """
    t = cuda.grid(1)
    lo = int64(t) * chunk
    if lo >= n:
        return
    hi = lo + chunk
    if hi > n:
        hi = n
    for v in range(lo, hi):
        if mu_c[v] != -1:
            continue
        for e in range(col_ptr[v], col_ptr[v + 1]):
            u = row_ind[e]
            if mu_r[u] == -1:
                if cuda.atomic.cas(mu_r, u, int32(-1), int32(v)) == -1:
                    mu_c[v] = u
                    break


@cuda.jit(cache=CACHE)
def init_persistent_kernel(row_ptr, col_ind, col_ptr, row_ind, mu_r, mu_c, deg_r, best, sync, stats, m, n,
                           max_rounds, hub, hashed):
    """The Karp-Sipser-style start (a maximal matching) in one cooperative launch.

    ``mu_r``/``mu_c`` must hold -1 (or a partial matching) on entry; on exit every vertex is matched
    or -1 (dead marks cleared). ``stats``: rounds, cardinality.
    """
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    gsize = cuda.gridDim.x * bdim
    gtid = cuda.blockIdx.x * bdim + tid
    lane = tid & 31
    sh = cuda.shared.array(2, int32)
    r = 0
    rnd = 0
    while rnd < max_rounds:
        for b in range(gtid - lane, m, gsize):
            ks_degree_warp_dev(b + lane, b + lane < m, lane, hub, row_ptr, col_ind, mu_r, mu_c, deg_r, best)
        cuda.cg.this_grid().sync()
        for b in range(gtid - lane, n, gsize):
            ks_propose_warp_dev(b + lane, b + lane < n, lane, hub, col_ptr, row_ind, mu_r, mu_c, deg_r, best,
                                hashed, sync, PS_FLAG + r % 3)
        act = phase_read_dev(sync, PS_FLAG, r, gtid, tid, sh)
        r += 1
        rnd += 1
        if act == 0:
            break
        for u in range(gtid, m, gsize):
            ks_accept_dev(u, mu_r, mu_c, best)
        cuda.cg.this_grid().sync()
    card = int64(0)
    for i in range(gtid, m if m > n else n, gsize):
        if clear_dead_dev(i, mu_r, mu_c):
            card += 1
    card = warp_sum_dev(card)
    if lane == 0 and card > 0:
        cuda.atomic.add(stats, IST_CARD, card)
    if gtid == 0:
        stats[IST_ROUNDS] = rnd


@cuda.jit(device=True, inline=True)
def clear_dead_dev(i, mu_r, mu_c):
    """Dead marks back to -1 (row and column ``i``); True when row ``i`` is matched."""
    matched = False
    if i < mu_r.size:
        if mu_r[i] < -1:
            mu_r[i] = -1
        elif mu_r[i] >= 0:
            matched = True
    if i < mu_c.size and mu_c[i] < -1:
        mu_c[i] = -1
    return matched


# --------------------------------------------------------------------------- one launch per phase
# (``loop="host"`` and the simulator): the same device functions, one thread per element; the
# activity flag is a round stamp (``flag[0] = rnd``), never reset, read by the host every few rounds.


@cuda.jit(cache=CACHE)
def ks_degree_kernel(row_ptr, col_ind, mu_r, mu_c, deg_r, best):
    u = cuda.grid(1)
    if u < mu_r.size and mu_r[u] == -1:
        ks_degree_set_dev(u, ks_degree_count_dev(u, 0, 1, row_ptr, col_ind, mu_c), mu_r, deg_r, best)


@cuda.jit(cache=CACHE)
def ks_propose_kernel(col_ptr, row_ind, mu_r, mu_c, deg_r, best, hashed, rnd, flag):
    v = cuda.grid(1)
    if v < mu_c.size and mu_c[v] == -1:
        d, bk = ks_scan_dev(v, 0, 1, col_ptr, row_ind, mu_r, deg_r, hashed)
        ks_propose_apply_dev(v, d, bk, mu_c, best, hashed, flag, 0, rnd)


@cuda.jit(cache=CACHE)
def ks_accept_kernel(mu_r, mu_c, best):
    u = cuda.grid(1)
    if u < mu_r.size:
        ks_accept_dev(u, mu_r, mu_c, best)


@cuda.jit(cache=CACHE)
def clear_dead_kernel(mu_r, mu_c):
    i = cuda.grid(1)
    if i < mu_r.size or i < mu_c.size:
        clear_dead_dev(i, mu_r, mu_c)


@cuda.jit(cache=CACHE)
def max_degree_kernel(ptr, out, slot):
    """out[slot] = the largest degree of the CSR/CSC offsets ``ptr`` (for ``init="auto"``)."""
    i = cuda.grid(1)
    if i + 1 < ptr.size:
        cuda.atomic.max(out, slot, int64(ptr[i + 1] - ptr[i]))


# --------------------------------------------------------------------------- symmetric start
# For a symmetric pattern (rows and columns are the same vertices, A = A^T): a maximal matching of
# the undirected graph by a handshake on hashed edge priorities, doubled (pair {a, b} gives row a -
# column b and row b - column a), so every free vertex is free on both sides and free rows and
# columns stay balanced in every region, as after the sequential greedy; parallel bipartite starts
# lose that balance and leave G-PR long augmenting paths (docs/notes/gpr.md, round 6). Then a few
# rounds of disjoint length-3 augmentations v - u = w - u2.


@cuda.jit(device=True, inline=True)
def mix32_dev(x):
    """A 32-bit integer hash (murmur3's finaliser)."""
    x = int64(x) & 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x85EBCA6B) & 0xFFFFFFFF
    x ^= x >> 13
    x = (x * 0xC2B2AE35) & 0xFFFFFFFF
    x ^= x >> 16
    return x


@cuda.jit(cache=CACHE)
def sym_propose_kernel(ptr, ind, mate, pt, rnd, flag):
    """Every free vertex points at its free neighbour over the edge of least (hash, lo, hi); the globally
    least free edge is chosen from both ends, so every round matches at least one pair. A free vertex
    with no free neighbour is dead (-3)."""
    a = cuda.grid(1)
    if a >= mate.size:
        return
    pt[a] = -1
    if mate[a] != -1:
        return
    bk = int64(KEY_MAX)
    bhi = int64(KEY_MAX)
    bb = int64(-1)
    for e in range(ptr[a], ptr[a + 1]):
        b = int64(ind[e])
        if b != a and mate[b] == -1:
            lo = a if a < b else b
            hi = a + b - lo
            k = (mix32_dev(mix32_dev(lo) ^ hi) << 31) | lo
            if k < bk or (k == bk and hi < bhi):
                bk = k
                bhi = hi
                bb = b
    if bb < 0:
        mate[a] = DEAD
    else:
        pt[a] = bb
        flag[0] = rnd


@cuda.jit(cache=CACHE)
def sym_match_kernel(mate, pt):
    """Mutual pointers become matched pairs (each end writes only its own entry: no atomics)."""
    a = cuda.grid(1)
    if a < mate.size and mate[a] == -1:
        b = pt[a]
        if b >= 0 and pt[b] == a:
            mate[a] = b


@cuda.jit(cache=CACHE)
def sym_double_kernel(ptr, ind, mate, mu_r, mu_c):
    """The bipartite start: row a - column mate(a) and column a - row mate(a); a free vertex with a
    diagonal entry is matched to itself."""
    a = cuda.grid(1)
    if a >= mate.size:
        return
    b = mate[a]
    if b < 0:
        b = -1
        for e in range(ptr[a], ptr[a + 1]):
            if ind[e] == a:
                b = a
                break
    mu_r[a] = b
    mu_c[a] = b


@cuda.jit(device=True, inline=True)
def aug3_key_dev(v, rnd):
    """Column v's claim key in round rnd (< 1024): (1023 - rnd, 21-bit hash, v), unique, falling with rnd."""
    h = mix32_dev(int64(v) ^ ((int64(rnd) * 0x9E3779B9) & 0xFFFFFFFF)) & 0x1FFFFF
    return (int64(1023 - rnd) << 52) | (h << 31) | int64(v)


@cuda.jit(cache=CACHE)
def aug3_propose_kernel(col_ptr, row_ind, mu_r, mu_c, cw, cu, pu, pw, pu2, rnd, flag):
    """Free column v looks for a length-3 augmenting path v - u = w - u2 (u matched to w, u2 free) and
    claims w and u2 with its key (atomic min; the key's top bits fall with the round, so last round's
    claims never win). A free column with no such path is dead (-3) for the remaining rounds."""
    v = cuda.grid(1)
    if v >= mu_c.size:
        return
    pu[v] = -1
    if mu_c[v] != -1:
        return
    key = aug3_key_dev(v, rnd)
    for e in range(col_ptr[v], col_ptr[v + 1]):
        u = row_ind[e]
        w = mu_r[u]
        if w < 0:
            continue
        for f in range(col_ptr[w], col_ptr[w + 1]):
            u2 = row_ind[f]
            if mu_r[u2] == -1:
                cuda.atomic.min(cw, w, key)
                cuda.atomic.min(cu, u2, key)
                pu[v] = u
                pw[v] = w
                pu2[v] = u2
                flag[0] = rnd
                return
    mu_c[v] = DEAD


@cuda.jit(cache=CACHE)
def aug3_apply_kernel(mu_r, mu_c, cw, cu, pu, pw, pu2, rnd):
    """A column that won both claims flips its path: v - u and w - u2 become matched."""
    v = cuda.grid(1)
    if v >= mu_c.size:
        return
    u = pu[v]
    if u < 0:
        return
    key = aug3_key_dev(v, rnd)
    w = pw[v]
    u2 = pu2[v]
    if cw[w] == key and cu[u2] == key:
        mu_r[u] = v
        mu_c[v] = u
        mu_r[u2] = w
        mu_c[w] = u2


@cuda.jit(cache=CACHE)
def same_pattern_kernel(a, b, flag):
    """flag[0] = 1 where two index arrays differ (symmetry test: CSR == CSC)."""
    i = cuda.grid(1)
    if i < a.size and a[i] != b[i]:
        flag[0] = 1
