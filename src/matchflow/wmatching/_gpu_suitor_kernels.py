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

Hub vertices (degree > ``hub_degree`` > 0; beyond the paper): a warp meeting a hub in its segment defers
it to the next round's hub queue; each round starts with the hubs of its hub queue, one block per hub
(``hub_step_dev``: the block scans the neighbourhood, a block reduction picks the best, one thread
proposes; a displaced or beaten vertex goes to the next round's queues). Queue lengths: ``lens[0:3]``
(vertices) and ``lens[3:6]`` (hubs), rotating by round.

Under numba's simulator (no warp intrinsics) a "warp" is one thread: ``WS = 1``.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int32, int64

from .._cuda import is_simulator
from .._cuda._device import FULL_MASK, block_min_dev
from .._cuda._env import kernel_cache

__all__ = ["WS", "SH", "NOSYNC", "SYNCLB", "SYNCNOLB", "HYBRID", "ST_PROPOSALS", "ST_FAILED", "ST_ROUNDS",
           "ST_DEFERRED", "ST_N", "N_LENS",
           "suitor_init_kernel", "suitor_round_kernel", "suitor_persistent_kernel",
           "suitor_mate_kernel", "ld_cand_kernel",
           "ld_match_kernel"]

WS = 1 if is_simulator() else 32  # lanes per "warp"
SH = 1024  # shared queue slots per block: warps per block x vertices per warp
MAXW = 1024 // WS
LOW = np.int64(0xFFFFFFFF)
NOSYNC, SYNCLB, SYNCNOLB, HYBRID = 0, 1, 2, 3
ST_PROPOSALS, ST_FAILED, ST_ROUNDS, ST_DEFERRED, ST_N = 0, 1, 2, 3, 4
N_LENS = 6  # queue lengths: vertices [0:3], hubs [3:6]
CACHE = kernel_cache()  # numba-cuda on-disk cache of the kernels (off with MATCHFLOW_CUDA_CACHE=0)


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
def scan_best_dev(ptr, ind, key, word, u, start, step):
    """This thread's share (entries ``start, start + step, ...`` of u's row) of the heaviest neighbour v
    of u whose suitor word u beats, as ``key << 32 | (v + 1)`` (0: none)."""
    best = int64(0)
    uu = int64(u) + 1
    for k in range(ptr[u] + start, ptr[u + 1], step):
        kk = int64(key[k])
        if kk > 0:
            cw = (kk << 32) | (int64(ind[k]) + 1)
            if cw > best and ((kk << 32) | uu) > word[ind[k]]:  # register test first, then the random read
                best = cw
    return best


@cuda.jit(device=True, inline=True)
def best_offer_dev(ptr, ind, key, word, u, lane):
    """The warp's heaviest eligible neighbour of u (every lane gets it)."""
    return lanes_max_dev(scan_best_dev(ptr, ind, key, word, u, lane, WS))


@cuda.jit(device=True, inline=True)
def is_hub_dev(ptr, u, hub_degree):
    return hub_degree > 0 and ptr[u + 1] - ptr[u] > hub_degree


@cuda.jit(device=True, inline=True)
def push_next_dev(ptr, x, hub_degree, qout, hq_out, lens, oslot):
    """x into the next round's queue: the hub queue when x is a hub."""
    if is_hub_dev(ptr, x, hub_degree):
        hq_out[cuda.atomic.add(lens, 3 + oslot, 1)] = x
    else:
        qout[cuda.atomic.add(lens, oslot, 1)] = x


@cuda.jit(device=True, inline=True)
def hub_step_dev(ptr, ind, key, word, hin, lens, islot, oslot, qout, hq_out, hub_degree, sh, tid, bdim):
    """The hubs of this round's hub queue, one block per hub: a block scan and reduction, one proposal.
    Returns (proposals made, vertices pushed to the next round) by this thread."""
    made = 0
    pushed = 0
    for h in range(cuda.blockIdx.x, lens[3 + islot], cuda.gridDim.x):
        u = hin[h]
        b = -block_min_dev(sh, -scan_best_dev(ptr, ind, key, word, u, tid, bdim), tid, bdim)
        if tid == 0 and b > 0:
            offer = ((b >> 32) << 32) | (int64(u) + 1)
            old = cuda.atomic.max(word, (b & LOW) - 1, offer)
            if old < offer:
                made += 1
                d = (old & LOW) - 1
                if d >= 0:  # displaced: proposes again next round
                    push_next_dev(ptr, d, hub_degree, qout, hq_out, lens, oslot)
                    pushed += 1
            else:  # beaten by a concurrent proposal: again next round
                push_next_dev(ptr, u, hub_degree, qout, hq_out, lens, oslot)
                pushed += 1
    return made, pushed


@cuda.jit(device=True, inline=True)
def warp_step_dev(ptr, ind, key, word, seg, tmp, cand, cnt, ncnt, w, lane, vpw, qout, lens, oslot, hq_out,
                  hub_degree):
    """One iteration of warp ``w`` over its queued vertices: candidates, proposals, displaced ones
    back into the segment (hubs to the next round's hub queue), beaten ones to ``qout``. Returns
    (proposals made, beaten, hubs deferred) by this lane."""
    c = cnt[w]
    sb = w * vpw
    deferred = 0
    for i in range(c):
        u = seg[sb + i]
        if is_hub_dev(ptr, u, hub_degree):  # the same u on every lane: a uniform branch
            if lane == 0:
                cand[sb + i] = 0
                hq_out[cuda.atomic.add(lens, 3 + oslot, 1)] = u
                deferred += 1
        else:
            b = best_offer_dev(ptr, ind, key, word, u, lane)
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
                    if is_hub_dev(ptr, d, hub_degree):
                        hq_out[cuda.atomic.add(lens, 3 + oslot, 1)] = d
                        deferred += 1
                    else:
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
    return made, beaten, deferred


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
def suitor_round_dev(ptr, ind, key, word, qin, qout, hin, hq_out, lens, r, variant, lb_iters, vpw, hub_degree, seg,
                     tmp, cand, cnt, ncnt):
    """One round: the hubs of ``hin`` (a block each), then the queue ``qin`` (round 0: every vertex);
    returns (proposals, pushed to the next round, of which hubs deferred) of this thread."""
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    wpb = bdim // WS
    w = tid // WS
    lane = tid % WS
    islot = r % 3
    oslot = (r + 1) % 3
    qlen = lens[islot]
    chunk = wpb * vpw
    made, beaten = hub_step_dev(ptr, ind, key, word, hin, lens, islot, oslot, qout, hq_out, hub_degree, cand, tid,
                                bdim)
    deferred = 0
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
            a, b, d = warp_step_dev(ptr, ind, key, word, seg, tmp, cand, cnt, ncnt, w, lane, vpw, qout, lens, oslot,
                                    hq_out, hub_degree)
            made += a
            beaten += b
            deferred += d
            it += 1
        cuda.syncthreads()
        base += cuda.gridDim.x * chunk
    return made, beaten + deferred, deferred


@cuda.jit(cache=CACHE)
def suitor_round_kernel(ptr, ind, key, word, qin, qout, hin, hq_out, lens, flag, stats, r, variant, lb_iters, vpw,
                        hub_degree):
    """One round (``loop="host"``). Queue lengths rotate in ``lens[r % 3]`` (in), ``[(r + 1) % 3]``
    (out, zeroed by round r - 1), hubs at ``3 +`` those; ``flag[0] = r`` when this round left work for
    the next."""
    seg = cuda.shared.array(SH, int32)
    tmp = cuda.shared.array(SH, int32)
    cand = cuda.shared.array(SH, int64)
    cnt = cuda.shared.array(MAXW, int32)
    ncnt = cuda.shared.array(MAXW, int32)
    if cuda.blockIdx.x == 0 and cuda.threadIdx.x == 0:
        lens[(r + 2) % 3] = 0
        lens[3 + (r + 2) % 3] = 0
    made, pushed, deferred = suitor_round_dev(ptr, ind, key, word, qin, qout, hin, hq_out, lens, r, variant, lb_iters,
                                              vpw, hub_degree, seg, tmp, cand, cnt, ncnt)
    if made:
        cuda.atomic.add(stats, ST_PROPOSALS, made)
    if pushed:
        cuda.atomic.add(stats, ST_FAILED, pushed - deferred)
        cuda.atomic.add(stats, ST_DEFERRED, deferred)
        flag[0] = r


@cuda.jit(cache=CACHE)
def suitor_persistent_kernel(ptr, ind, key, word, qa, qb, ha, hb, lens, stats, variant, lb_iters, vpw, hub_degree,
                             max_rounds):
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
    deferred = 0
    while r < max_rounds:
        if first:
            lens[(r + 2) % 3] = 0
            lens[3 + (r + 2) % 3] = 0
        if r % 2 == 0:
            a, b, d = suitor_round_dev(ptr, ind, key, word, qa, qb, ha, hb, lens, r, variant, lb_iters, vpw,
                                       hub_degree, seg, tmp, cand, cnt, ncnt)
        else:
            a, b, d = suitor_round_dev(ptr, ind, key, word, qb, qa, hb, ha, lens, r, variant, lb_iters, vpw,
                                       hub_degree, seg, tmp, cand, cnt, ncnt)
        made += a
        beaten += b - d
        deferred += d
        r += 1
        g.sync()
        if lens[r % 3] == 0 and lens[3 + r % 3] == 0:
            break
    if made:
        cuda.atomic.add(stats, ST_PROPOSALS, made)
    if beaten:
        cuda.atomic.add(stats, ST_FAILED, beaten)
    if deferred:
        cuda.atomic.add(stats, ST_DEFERRED, deferred)
    if first:
        stats[ST_ROUNDS] = r


@cuda.jit(cache=CACHE)
def suitor_init_kernel(word, lens, n):
    """No suitors yet (word 0); round 0's queue is every vertex (``lens = [n, 0, 0, 0, 0, 0]``)."""
    v = cuda.grid(1)
    if v < word.shape[0]:
        word[v] = 0
    if v < N_LENS:
        lens[v] = n if v == 0 else 0


@cuda.jit(cache=CACHE)
def suitor_mate_kernel(word, mate, bad):
    """mate[v] = the suitor of v; ``bad[0]`` counts v whose suitor's suitor is not v (a bug)."""
    v = cuda.grid(1)
    if v < word.shape[0]:
        s = (word[v] & LOW) - 1
        mate[v] = s
        if s >= 0 and (word[s] & LOW) - 1 != v:
            cuda.atomic.add(bad, 0, 1)


@cuda.jit(cache=CACHE)
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


@cuda.jit(cache=CACHE)
def ld_match_kernel(cand, mate, flag, r):
    """Mutual candidates are matched (locally dominant edges); ``flag[0] = r`` when any was."""
    u = cuda.grid(1)
    if u < mate.shape[0] and mate[u] < 0:
        c = cand[u]
        if c >= 0 and cand[c] == u:
            mate[u] = c
            flag[0] = r
