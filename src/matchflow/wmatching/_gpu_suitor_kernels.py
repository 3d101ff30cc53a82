"""GPU kernels of GPU-Suitor (Naim et al. 2015, Algorithm 4) and GPU-LD (their baseline).

The edge order of :mod:`._cpu_suitor` (weight, then neighbour id, larger first, seen from one vertex)
becomes integer arithmetic: every CSR entry carries ``key[k]``, an int32 order-preserving key of its
weight (0: a non-positive edge, never matched). The offer of ``u`` to ``v`` over entry ``k`` is the
word ``key[k] << 32 | (u + 1)`` and ``word[v]`` holds the best offer ``v`` has (0: no suitor), so
"u beats the suitor of v" is ``offer > word[v]`` and "become the suitor" is ONE 64-bit
``atomic.max(word, v, offer)``: the lock of Algorithm 3. The displaced proposer is the low half of
the old word. The heaviest neighbour, seen from ``u``, is the largest ``key[k] << 32 | (v + 1)``.

A warp scans one vertex's neighbourhood (lane-strided), a shuffle reduction picks the best eligible
neighbour (Algorithm 4 lines 6-7); a warp owns ``vpw`` queued vertices, finds all their candidates,
then its lanes propose in parallel (line 8); displaced vertices stay in the warp's shared segment
(line 9), a proposal beaten by a concurrent one goes to the next round's global queue (a plain read of
``word`` may be stale-low within a launch; the next launch reads it fresh, so no round can spin).
Variants (line 10): NOSYNC (warps independent), SYNCNOLB (a block barrier every iteration), SYNCLB
(the block's queued vertices re-split evenly among its warps while the largest load exceeds the mean by
25 %, during the first ``lb_iters`` iterations, then barriers only), HYBRID (that split, then no
barriers). Every variant returns the same matching (the Suitor result does not depend on the order).

Under numba's simulator (no warp intrinsics) a "warp" is one thread: ``WS = 1``.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int32, int64

from .._cuda import is_simulator
from .._cuda._device import FULL_MASK

__all__ = ["WS", "SH", "NOSYNC", "SYNCLB", "SYNCNOLB", "HYBRID", "ST_PROPOSALS", "ST_FAILED", "ST_ROUNDS", "ST_N",
           "suitor_init_kernel", "suitor_round_kernel", "suitor_persistent_kernel",
           "suitor_mate_kernel", "ld_cand_kernel",
           "ld_match_kernel"]

WS = 1 if is_simulator() else 32  # lanes per "warp"
SH = 1024  # shared queue slots per block: warps per block x vertices per warp
MAXW = 1024 // WS
LOW = np.int64(0xFFFFFFFF)
NOSYNC, SYNCLB, SYNCNOLB, HYBRID = 0, 1, 2, 3
ST_PROPOSALS, ST_FAILED, ST_ROUNDS, ST_N = 0, 1, 2, 3


@cuda.jit(device=True, inline=True)
def syncwarp_dev():
    if WS > 1:
        cuda.syncwarp(FULL_MASK)


@cuda.jit(device=True, inline=True)
def lanes_max_dev(x):
    """Butterfly maximum over the WS lanes of a warp (Algorithm 4 line 7); every lane gets it."""
    off = WS // 2
    while off > 0:
        y = cuda.shfl_xor_sync(FULL_MASK, x, off)
        if y > x:
            x = y
        off //= 2
    return x


@cuda.jit(device=True, inline=True)
def best_offer_dev(ptr, ind, key, word, u, lane):
    """The heaviest neighbour v of u whose suitor word u beats, as ``key << 32 | (v + 1)`` (0: none)."""
    best = int64(0)
    uu = int64(u) + 1
    for k in range(ptr[u] + lane, ptr[u + 1], WS):
        kk = int64(key[k])
        if kk > 0:
            cw = (kk << 32) | (int64(ind[k]) + 1)
            if cw > best and ((kk << 32) | uu) > word[ind[k]]:  # register test first, then the random read
                best = cw
    return lanes_max_dev(best)


@cuda.jit(device=True, inline=True)
def warp_step_dev(ptr, ind, key, word, seg, tmp, cand, cnt, ncnt, w, lane, vpw, qout, lens, oslot):
    """One iteration of warp ``w`` over its queued vertices: candidates, proposals, displaced ones
    back into the segment, beaten ones to ``qout``. Returns (proposals made, beaten) by this lane."""
    c = cnt[w]
    sb = w * vpw
    for i in range(c):
        b = best_offer_dev(ptr, ind, key, word, seg[sb + i], lane)
        if lane == 0:
            cand[sb + i] = b
    syncwarp_dev()
    made = 0
    beaten = 0
    for i in range(lane, c, WS):
        b = cand[sb + i]
        if b > 0:
            u = int64(seg[sb + i])
            offer = ((b >> 32) << 32) | (u + 1)
            old = cuda.atomic.max(word, (b & LOW) - 1, offer)
            if old < offer:
                made += 1
                d = (old & LOW) - 1
                if d >= 0:
                    tmp[sb + cuda.atomic.add(ncnt, w, 1)] = d
            else:
                beaten += 1
                qout[cuda.atomic.add(lens, oslot, 1)] = u
    syncwarp_dev()
    nc = ncnt[w]
    for i in range(lane, nc, WS):
        seg[sb + i] = tmp[sb + i]
    syncwarp_dev()
    if lane == 0:
        cnt[w] = nc
        ncnt[w] = 0
    syncwarp_dev()
    return made, beaten


@cuda.jit(device=True, inline=True)
def rebalance_dev(seg, tmp, cnt, tid, w, lane, wpb, vpw, total):
    """Split the block's queued vertices evenly over its warps (SyncLB / Hybrid)."""
    off = 0
    for x in range(w):
        off += cnt[x]
    for i in range(lane, cnt[w], WS):
        tmp[off + i] = seg[w * vpw + i]
    cuda.syncthreads()
    per = (total + wpb - 1) // wpb
    mine = min(max(total - w * per, 0), per)
    for i in range(lane, mine, WS):
        seg[w * vpw + i] = tmp[w * per + i]
    cuda.syncthreads()
    if tid < wpb:
        cnt[tid] = min(max(total - tid * per, 0), per)
    cuda.syncthreads()


@cuda.jit(device=True, inline=True)
def suitor_round_dev(ptr, ind, key, word, qin, qout, lens, r, variant, lb_iters, vpw, seg, tmp, cand, cnt, ncnt):
    """One round over the queue ``qin`` (round 0: every vertex); returns (proposals, beaten) of this thread."""
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    wpb = bdim // WS
    w = tid // WS
    lane = tid % WS
    islot = r % 3
    oslot = (r + 1) % 3
    qlen = lens[islot]
    chunk = wpb * vpw
    made = 0
    beaten = 0
    base = cuda.blockIdx.x * chunk
    while base < qlen:
        for i in range(tid, min(chunk, qlen - base), bdim):
            seg[i] = qin[base + i] if r > 0 else base + i
        if tid < wpb:
            cnt[tid] = min(max(qlen - base - tid * vpw, 0), vpw)
            ncnt[tid] = 0
        cuda.syncthreads()
        sync = variant != NOSYNC
        it = 0
        while True:
            if sync:
                cuda.syncthreads()
                total = 0
                mx = 0
                for x in range(wpb):
                    total += cnt[x]
                    mx = max(mx, cnt[x])
                cuda.syncthreads()
                if total == 0:
                    break
                if it < lb_iters and (variant == SYNCLB or variant == HYBRID):
                    if 4 * mx * wpb > 5 * total:  # the paper's 25 % deviation from the mean load
                        rebalance_dev(seg, tmp, cnt, tid, w, lane, wpb, vpw, total)
                elif variant == HYBRID:
                    sync = False
            if not sync and cnt[w] == 0:
                break
            a, b = warp_step_dev(ptr, ind, key, word, seg, tmp, cand, cnt, ncnt, w, lane, vpw, qout, lens, oslot)
            made += a
            beaten += b
            it += 1
        cuda.syncthreads()
        base += cuda.gridDim.x * chunk
    return made, beaten


@cuda.jit
def suitor_round_kernel(ptr, ind, key, word, qin, qout, lens, flag, stats, r, variant, lb_iters, vpw):
    """One round (``loop="host"``). Queue lengths rotate in ``lens[r % 3]`` (in), ``[(r + 1) % 3]``
    (out, zeroed by round r - 1); ``flag[0] = r`` when this round left work for the next."""
    seg = cuda.shared.array(SH, int32)
    tmp = cuda.shared.array(SH, int32)
    cand = cuda.shared.array(SH, int64)
    cnt = cuda.shared.array(MAXW, int32)
    ncnt = cuda.shared.array(MAXW, int32)
    if cuda.blockIdx.x == 0 and cuda.threadIdx.x == 0:
        lens[(r + 2) % 3] = 0
    made, beaten = suitor_round_dev(ptr, ind, key, word, qin, qout, lens, r, variant, lb_iters, vpw, seg, tmp, cand,
                                    cnt, ncnt)
    if made:
        cuda.atomic.add(stats, ST_PROPOSALS, made)
    if beaten:
        cuda.atomic.add(stats, ST_FAILED, beaten)
        flag[0] = r


@cuda.jit
def suitor_persistent_kernel(ptr, ind, key, word, qa, qb, lens, stats, variant, lb_iters, vpw, max_rounds):
    """Every round in one cooperative kernel (``loop="persistent"``), a grid sync between rounds."""
    seg = cuda.shared.array(SH, int32)
    tmp = cuda.shared.array(SH, int32)
    cand = cuda.shared.array(SH, int64)
    cnt = cuda.shared.array(MAXW, int32)
    ncnt = cuda.shared.array(MAXW, int32)
    g = cuda.cg.this_grid()
    first = cuda.blockIdx.x == 0 and cuda.threadIdx.x == 0
    r = 0
    made = 0
    beaten = 0
    while r < max_rounds:
        if first:
            lens[(r + 2) % 3] = 0
        if r % 2 == 0:
            a, b = suitor_round_dev(ptr, ind, key, word, qa, qb, lens, r, variant, lb_iters, vpw, seg, tmp, cand,
                                    cnt, ncnt)
        else:
            a, b = suitor_round_dev(ptr, ind, key, word, qb, qa, lens, r, variant, lb_iters, vpw, seg, tmp, cand,
                                    cnt, ncnt)
        made += a
        beaten += b
        r += 1
        g.sync()
        if lens[r % 3] == 0:
            break
    if made:
        cuda.atomic.add(stats, ST_PROPOSALS, made)
    if beaten:
        cuda.atomic.add(stats, ST_FAILED, beaten)
    if first:
        stats[ST_ROUNDS] = r


@cuda.jit
def suitor_init_kernel(word, lens, n):
    """No suitors yet (word 0); round 0's queue is every vertex (``lens = [n, 0, 0]``)."""
    v = cuda.grid(1)
    if v < word.shape[0]:
        word[v] = 0
    if v < 3:
        lens[v] = n if v == 0 else 0


@cuda.jit
def suitor_mate_kernel(word, mate, bad):
    """mate[v] = the suitor of v; ``bad[0]`` counts v whose suitor's suitor is not v (a bug)."""
    v = cuda.grid(1)
    if v < word.shape[0]:
        s = (word[v] & LOW) - 1
        mate[v] = s
        if s >= 0 and (word[s] & LOW) - 1 != v:
            cuda.atomic.add(bad, 0, 1)


@cuda.jit
def ld_cand_kernel(ptr, ind, key, mate, cand, r):
    """GPU-LD, a thread per vertex: an unmatched vertex whose candidate got matched (round 0: every
    vertex) points again at its heaviest unmatched neighbour (-1: none, for good)."""
    u = cuda.grid(1)
    if u < mate.shape[0] and mate[u] < 0:
        c = cand[u]
        if r == 0 or (c >= 0 and mate[c] >= 0):
            best = int64(0)
            for k in range(ptr[u], ptr[u + 1]):
                kk = int64(key[k])
                if kk > 0 and mate[ind[k]] < 0:
                    cw = (kk << 32) | (int64(ind[k]) + 1)
                    if cw > best:
                        best = cw
            cand[u] = (best & LOW) - 1


@cuda.jit
def ld_match_kernel(cand, mate, flag, r):
    """Mutual candidates are matched (locally dominant edges); ``flag[0] = r`` when any was."""
    u = cuda.grid(1)
    if u < mate.shape[0] and mate[u] < 0:
        c = cand[u]
        if c >= 0 and cand[c] == u:
            mate[u] = c
            flag[0] = r
