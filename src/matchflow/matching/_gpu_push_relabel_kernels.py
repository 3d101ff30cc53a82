"""numba.cuda kernels of G-PR (Deveci, Kaya, Uçar, Çatalyürek, ICPP 2013) and GPU initial matchings.

Conventions (the paper's, with rows and columns in separate arrays):

* ``mu_r[u]``: the column matched to row ``u`` or -1 (row mates are always consistent);
* ``mu_c[v]``: the row of column ``v``; -1 unmatched, -2 unmatchable ("inactive" in the
  paper); a stale entry (``mu_r[mu_c[v]] != v``) means ``v`` lost its row in a concurrent
  push and is active again; FixMatching clears stale entries at the end;
* ``psi_r``, ``psi_c``: the distance labels psi (lower bounds on the alternating distance
  to an unmatched row); ``inf = m + n`` marks "cannot reach an unmatched row".

Kernels are launched by ``_gpu_push_relabel.py``. Every phase is a ``*_dev`` function of one element,
shared by two drivers: the host loop (one small kernel per phase; flags are loop stamps,
``flag[0] = loop``, so the host never resets them and reads them every few loops) and
``pr_persistent_kernel`` (one cooperative launch, grid syncs between phases, rotating flag slots).
Pushes are atomic- and lock-free as in Section III.B; only the compaction (SHRKRNL) and the
initial matchings use atomics.
"""

from __future__ import annotations

import math

from numba import cuda, int32, int64

from .._cuda._device import FULL_MASK, PS_CNT, PS_FLAG, PS_NSYNC, block_scan_dev, phase_read_dev  # noqa: F401 - PS_NSYNC: the host sizes ``sync``
from .._cuda._env import kernel_cache
from ._cpu_push_relabel import min_label_scan

CACHE = kernel_cache()  # numba-cuda on-disk cache of the kernels (off with MATCHFLOW_CUDA_CACHE=0)

# --------------------------------------------------------------------------- helpers

min_label_scan_dev = cuda.jit(device=True, inline=True)(min_label_scan)  # the CPU loop's scan, compiled for the device


@cuda.jit(device=True, inline=True)
def is_active_col_dev(v, mu_r, mu_c):
    """True when column ``v`` is unmatched (-1) or holds a stale mate (lost a push)."""
    w = mu_c[v]
    if w == -1:
        return True
    if w >= 0 and mu_r[w] != v:
        return True
    return False


@cuda.jit(device=True, inline=True)
def min_label_row_dev(v, col_ptr, row_ind, psi_r, psi_c, inf):
    """Lines 4-11 of G-PR-PUSHKRNL: the row of minimum psi around column ``v``.

    Stops early at psi(v) - 1, the smallest value the neighbourhood invariant allows.
    Returns (row, psi_min); row is -1 when every neighbour has psi >= inf.
    """
    return min_label_scan_dev(psi_c[v] - 1, col_ptr[v], col_ptr[v + 1], 1, row_ind, psi_r, inf)




@cuda.jit(device=True, inline=True)
def warp_min_label_row_dev(v, lane, col_ptr, row_ind, psi_r, psi_c, inf):
    """min_label_row_dev for a high-degree column, scanned by the 32 lanes of a warp (beyond the paper).

    Each lane scans every 32nd edge (stopping at psi(v) - 1 like the thread version); a
    butterfly reduction gives every lane the (psi, row) minimum, ties to the smaller row.
    """
    best, pmin = min_label_scan_dev(psi_c[v] - 1, col_ptr[v] + lane, col_ptr[v + 1], 32, row_ind, psi_r, inf)
    off = 16
    while off > 0:
        op = cuda.shfl_xor_sync(FULL_MASK, pmin, off)
        ob = cuda.shfl_xor_sync(FULL_MASK, best, off)
        if op < pmin or (op == pmin and ob < best):
            pmin = op
            best = ob
        off //= 2
    return best, pmin


@cuda.jit(device=True, inline=True)
def warp_hubs_dev(big):
    """Bit mask (int64, bits 0..31) of the lanes of this warp holding a high-degree vertex."""
    return int64(cuda.ballot_sync(FULL_MASK, big)) & 0xFFFFFFFF


# --------------------------------------------------------------------------- G-GR (device functions)
#
# Every phase of the algorithm is a device function of one element (a row, a column or a slot of an
# active list). The host-loop driver wraps each in a one-thread-per-element kernel; the persistent
# driver calls the same functions in grid-stride loops between grid-wide synchronisations.


@cuda.jit(device=True, inline=True)
def gr_init_dev(i, mu_r, psi_r, psi_c, inf):
    """INITRELABEL for element ``i``: psi = 0 at unmatched rows, inf everywhere else."""
    if i < psi_r.size:
        psi_r[i] = 0 if mu_r[i] == -1 else inf
    if i < psi_c.size:
        psi_c[i] = inf


@cuda.jit(device=True, inline=True)
def gr_edge_dev(v, mu_r, mu_c, psi_r, psi_c, level, inf):
    """One edge of G-GR-KRNL: label column ``v`` and its mate row; True when a row was added."""
    if psi_c[v] == inf:
        psi_c[v] = level + 1
        w = mu_c[v]
        if w >= 0 and mu_r[w] == v:
            psi_r[w] = level + 2
            return True
    return False


@cuda.jit(device=True, inline=True)
def gr_level_dev(u, row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf):
    """G-GR-KRNL (Algorithm 5) for row ``u``; True when a row was added at level + 2.

    Every thread writing a label writes the same value, so no atomics are needed.
    """
    added = False
    if psi_r[u] != level:
        return added
    for e in range(row_ptr[u], row_ptr[u + 1]):
        if gr_edge_dev(col_ind[e], mu_r, mu_c, psi_r, psi_c, level, inf):
            added = True
    return added


@cuda.jit(device=True, inline=True)
def gr_level_warp_dev(u, valid, lane, hub, row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf):
    """gr_level_dev for the 32 rows of a warp; rows of degree > ``hub`` are expanded by the whole warp.

    Every lane of the warp must call it (``valid`` False past the last row).
    """
    added = False
    big = False
    if valid and psi_r[u] == level:
        if row_ptr[u + 1] - row_ptr[u] > hub:
            big = True
        elif gr_level_dev(u, row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf):
            added = True
    mask = warp_hubs_dev(big)
    while mask != 0:
        src = int64(cuda.ffs(mask)) - 1
        mask &= mask - 1
        uu = cuda.shfl_sync(FULL_MASK, int64(u), src)
        for e in range(row_ptr[uu] + lane, row_ptr[uu + 1], 32):
            if gr_edge_dev(col_ind[e], mu_r, mu_c, psi_r, psi_c, level, inf):
                added = True
    return added


@cuda.jit(device=True, inline=True)
def gr_frontier_dev(u, row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf, fout, nout, islot):
    """Frontier G-GR-KRNL (beyond the paper) for frontier row ``u``.

    Rows reached at level + 2 are appended to ``fout`` with one atomic on ``nout[islot]`` per
    added row (each row is added once: its only way in is through its mate column, which is
    claimed by a compare-and-swap).
    """
    for e in range(row_ptr[u], row_ptr[u + 1]):
        v = col_ind[e]
        if psi_c[v] == inf:
            old = cuda.atomic.cas(psi_c, v, inf, level + 1)
            if old == inf:
                w = mu_c[v]
                if w >= 0 and mu_r[w] == v:
                    psi_r[w] = level + 2
                    k = cuda.atomic.add(nout, islot, 1)
                    fout[k] = w


@cuda.jit(device=True, inline=True)
def gr_seed_dev(u, mu_r, fout, nout, islot):
    """Lists unmatched row ``u`` in the BFS level 0 (frontier G-GR)."""
    if mu_r[u] == -1:
        k = cuda.atomic.add(nout, islot, 1)
        fout[k] = u


# --------------------------------------------------------------------------- G-PR (device functions)


@cuda.jit(device=True, inline=True)
def pr_first_apply_dev(v, u, pmin, mu_r, mu_c, psi_r, psi_c, inf):
    """Lines 12-18 of G-PR-KRNL: push column ``v`` to row ``u`` (relabel both), or mark it unmatchable."""
    if pmin < inf:
        mu_r[u] = v
        mu_c[v] = u
        psi_c[v] = pmin + 1
        psi_r[u] = pmin + 2
    else:
        mu_c[v] = -2


@cuda.jit(device=True, inline=True)
def pr_first_dev(v, col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, inf, flag, fslot, fval):
    """G-PR-KRNL (Algorithm 6) for column ``v``: an active column pushes (or becomes unmatchable)."""
    if not is_active_col_dev(v, mu_r, mu_c):
        return
    flag[fslot] = fval
    u, pmin = min_label_row_dev(v, col_ptr, row_ind, psi_r, psi_c, inf)
    pr_first_apply_dev(v, u, pmin, mu_r, mu_c, psi_r, psi_c, inf)


@cuda.jit(device=True, inline=True)
def pr_first_warp_dev(v, valid, lane, hub, col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, inf, flag, fslot, fval):
    """pr_first_dev for the 32 columns of a warp; columns of degree > ``hub`` are scanned by the whole warp."""
    big = False
    if valid:
        if is_active_col_dev(v, mu_r, mu_c):
            flag[fslot] = fval
            if col_ptr[v + 1] - col_ptr[v] > hub:
                big = True
            else:
                u, pmin = min_label_row_dev(v, col_ptr, row_ind, psi_r, psi_c, inf)
                pr_first_apply_dev(v, u, pmin, mu_r, mu_c, psi_r, psi_c, inf)
    mask = warp_hubs_dev(big)
    while mask != 0:
        src = int64(cuda.ffs(mask)) - 1
        mask &= mask - 1
        vv = cuda.shfl_sync(FULL_MASK, int64(v), src)
        u, pmin = warp_min_label_row_dev(vv, lane, col_ptr, row_ind, psi_r, psi_c, inf)
        if lane == src:
            pr_first_apply_dev(vv, u, pmin, mu_r, mu_c, psi_r, psi_c, inf)


@cuda.jit(device=True, inline=True)
def pr_init_dev(i, ac, ap, mu_r, mu_c, ia, loop, flag, fslot, fval):
    """G-PR-INITKRNL (Algorithm 8) for slot ``i``: roll back a conflicting push, stamp the active column."""
    v = ap[i]
    if v != -1:
        if is_active_col_dev(v, mu_r, mu_c):
            ac[i] = v  # v lost its row (or did not push): it stays active in slot i
    v = ac[i]
    if v != -1:
        ia[v] = loop
        flag[fslot] = fval


@cuda.jit(device=True, inline=True)
def pr_push_dev(i, col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, ac, ap, ia, loop, inf):
    """G-PR-PUSHKRNL (Algorithm 9) for slot ``i``: push from ``ac[i]``, record the displaced column in ``ap[i]``.

    A row whose mate is active in this loop (``ia[mu(u)] == loop``) is not taken, so no
    column is listed twice after a roll-back.
    """
    v = ac[i]
    if v == -1:
        ap[i] = -1
        return
    u, pmin = min_label_row_dev(v, col_ptr, row_ind, psi_r, psi_c, inf)
    pr_push_apply_dev(i, v, u, pmin, mu_r, mu_c, psi_r, psi_c, ac, ap, ia, loop, inf)


@cuda.jit(device=True, inline=True)
def pr_push_warp_dev(i, valid, lane, hub, col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, ac, ap, ia, loop, inf):
    """pr_push_dev for the 32 slots of a warp; columns of degree > ``hub`` are scanned by the whole warp."""
    big = False
    v = int64(-1)
    if valid:
        v = ac[i]
        if v == -1:
            ap[i] = -1
        elif col_ptr[v + 1] - col_ptr[v] > hub:
            big = True
        else:
            u, pmin = min_label_row_dev(v, col_ptr, row_ind, psi_r, psi_c, inf)
            pr_push_apply_dev(i, v, u, pmin, mu_r, mu_c, psi_r, psi_c, ac, ap, ia, loop, inf)
    mask = warp_hubs_dev(big)
    while mask != 0:
        src = int64(cuda.ffs(mask)) - 1
        mask &= mask - 1
        vv = cuda.shfl_sync(FULL_MASK, v, src)
        u, pmin = warp_min_label_row_dev(vv, lane, col_ptr, row_ind, psi_r, psi_c, inf)
        if lane == src:
            pr_push_apply_dev(i, vv, u, pmin, mu_r, mu_c, psi_r, psi_c, ac, ap, ia, loop, inf)


@cuda.jit(device=True, inline=True)
def pr_push_apply_dev(i, v, u, pmin, mu_r, mu_c, psi_r, psi_c, ac, ap, ia, loop, inf):
    """Lines of G-PR-PUSHKRNL after the scan: push ``v`` (slot ``i``) to row ``u`` unless its mate is active."""
    if pmin < inf:
        w = mu_r[u]
        if w == -1 or ia[w] != loop:
            mu_r[u] = v
            mu_c[v] = u
            psi_c[v] = pmin + 1
            psi_r[u] = pmin + 2
            ap[i] = w
        else:
            ap[i] = -1  # not pushed: INITKRNL rolls slot i back to v
    else:
        mu_c[v] = -2
        ac[i] = -1
        ap[i] = -1


@cuda.jit(device=True, inline=True)
def pr_shrink_dev(i, t, nt, buf, base, ac, ap, size, out, count, cslot, mu_r, mu_c, ia, loop, flag, fslot, fval):
    """G-PR-SHRKRNL for the block's chunk holding slot ``i`` (every thread of the block calls it).

    INITKRNL's roll-back, then a block-wide prefix sum (Hillis-Steele in shared memory) gives
    each thread its write offset into ``out``; one atomic on ``count[cslot]`` per block reserves
    the block's region.
    """
    x = -1
    if i < size:
        v = ap[i]
        x = ac[i]
        if v != -1:
            if is_active_col_dev(v, mu_r, mu_c):
                x = v
        if x != -1:
            # a column that became unmatchable cannot be here (its slot holds -1)
            ia[x] = loop
    keep = 1 if x != -1 else 0
    block_scan_dev(buf, keep, t, nt)
    if t == nt - 1:
        tot = buf[t]
        base[0] = 0
        if tot > 0:
            base[0] = cuda.atomic.add(count, cslot, tot)
            flag[fslot] = fval
    cuda.syncthreads()
    if keep == 1:
        out[base[0] + buf[t] - 1] = x
    cuda.syncthreads()  # buf and base are reused by the block's next chunk


@cuda.jit(device=True, inline=True)
def fix_matching_dev(v, mu_r, mu_c):
    """FixMatching for column ``v``: clear a stale mate and the unmatchable mark (-2 -> -1)."""
    w = mu_c[v]
    if w < 0 or mu_r[w] != v:
        mu_c[v] = -1


@cuda.jit(device=True, inline=True)
def list_unmatched_col_dev(v, mu_r, mu_c, out, count, cslot):
    """The initial active list A_c: column ``v`` is listed when it has no consistent mate."""
    w = mu_c[v]
    if w < 0 or mu_r[w] != v:
        mu_c[v] = -1
        k = cuda.atomic.add(count, cslot, 1)
        out[k] = v


@cuda.jit(device=True, inline=True)
def certify_dev(v, mu_r, mu_c, psi_c, inf, count, cslot):
    """Counts column ``v`` when it is unmatched and reached by the final BFS (an augmenting path exists)."""
    w = mu_c[v]
    if (w < 0 or mu_r[w] != v) and psi_c[v] < inf:
        mu_c[v] = -1
        cuda.atomic.add(count, cslot, 1)


# --------------------------------------------------------------------------- host-loop kernels


@cuda.jit(cache=CACHE)
def gr_init_kernel(mu_r, psi_r, psi_c, inf):
    """INITRELABEL."""
    gr_init_dev(cuda.grid(1), mu_r, psi_r, psi_c, inf)


@cuda.jit(cache=CACHE)
def gr_level_kernel(row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf, maxlev):
    """G-GR-KRNL (Algorithm 5): expand BFS level ``level``; ``maxlev[0]`` = level + 2 when a row was added."""
    u = cuda.grid(1)
    if u < psi_r.size:
        if gr_level_dev(u, row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf):
            maxlev[0] = level + 2


@cuda.jit(cache=CACHE)
def gr_frontier_kernel(row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf, fin, nin, fout, nout):
    """Frontier G-GR-KRNL: ``fin[0:nin[0]]`` lists the rows at ``level``."""
    i = cuda.grid(1)
    if i < nin[0]:
        gr_frontier_dev(fin[i], row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf, fout, nout, 0)


@cuda.jit(cache=CACHE)
def gr_frontier_seed_kernel(mu_r, fout, nout):
    """Lists the unmatched rows (BFS level 0) for the frontier G-GR."""
    u = cuda.grid(1)
    if u < mu_r.size:
        gr_seed_dev(u, mu_r, fout, nout, 0)


@cuda.jit(cache=CACHE)
def pr_first_kernel(col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, inf, loop, flag):
    """G-PR-KRNL (Algorithm 6): one thread per column; active columns push; flag[0] = loop."""
    v = cuda.grid(1)
    if v < mu_c.size:
        pr_first_dev(v, col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, inf, flag, 0, loop)


@cuda.jit(cache=CACHE)
def pr_init_kernel(ac, ap, size, mu_r, mu_c, ia, loop, flag):
    """G-PR-INITKRNL (Algorithm 8)."""
    i = cuda.grid(1)
    if i < size:
        pr_init_dev(i, ac, ap, mu_r, mu_c, ia, loop, flag, 0, loop)


@cuda.jit(cache=CACHE)
def pr_push_kernel(col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, ac, ap, size, ia, loop, inf):
    """G-PR-PUSHKRNL (Algorithm 9)."""
    i = cuda.grid(1)
    if i < size:
        pr_push_dev(i, col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, ac, ap, ia, loop, inf)


@cuda.jit(cache=CACHE)
def pr_shrink_kernel(ac, ap, size, out, count, mu_r, mu_c, ia, loop, flag):
    """G-PR-SHRKRNL: roll-back and compaction of the active columns into ``out``."""
    buf = cuda.shared.array(1024, int32)
    base = cuda.shared.array(1, int32)
    pr_shrink_dev(cuda.grid(1), cuda.threadIdx.x, cuda.blockDim.x, buf, base, ac, ap, size, out, count, 0,
                  mu_r, mu_c, ia, loop, flag, 0, loop)


@cuda.jit(cache=CACHE)
def fix_matching_kernel(mu_r, mu_c):
    """FixMatching: clear stale column mates and the unmatchable mark (-2 -> -1)."""
    v = cuda.grid(1)
    if v < mu_c.size:
        fix_matching_dev(v, mu_r, mu_c)


@cuda.jit(cache=CACHE)
def list_unmatched_cols_kernel(mu_r, mu_c, out, count):
    """The initial active list A_c: every column without a consistent mate."""
    v = cuda.grid(1)
    if v < mu_c.size:
        list_unmatched_col_dev(v, mu_r, mu_c, out, count, 0)


@cuda.jit(cache=CACHE)
def certify_kernel(mu_r, mu_c, psi_c, inf, count):
    """Counts unmatched columns reached by the final BFS (an augmenting path exists)."""
    v = cuda.grid(1)
    if v < mu_c.size:
        certify_dev(v, mu_r, mu_c, psi_c, inf, count, 0)


# --------------------------------------------------------------------------- persistent driver
#
# One cooperative launch runs the whole main loop (Algorithm 3 / 7), the global relabels with
# their BFS levels, GetIterGR, FixMatching and the certificate; grid-wide synchronisations
# replace kernel boundaries and host reads. Synchronisation words live in ``sync`` (int32): the
# rotating grid-sync slots of ``_cuda._device`` (PS_FLAG, PS_CNT, phase_read_dev: phase_end_dev then bcast_read_dev).

# indices of the int64 ``stats`` array
ST_LOOPS, ST_GR, ST_LEVELS, ST_MAXL, ST_SHRINKS, ST_STATUS, ST_RESTARTS, ST_SYNCS = range(8)
ST_N = 8
STATUS_OK = 0
STATUS_CERTIFY = 1  # augmenting paths left after 3 certify restarts (a bug)
VAR_FIRST, VAR_NOSHRINK, VAR_SHRINK = 0, 1, 2


@cuda.jit(device=True)
def global_relabel_dev(row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, fa, fb, sync, stats, m, mx, inf, frontier,
                       hub, r, gtid, gsize, tid, sh):
    """G-GR (Algorithm 4) inside the persistent kernel; returns (maxLevel, next phase index r)."""
    for i in range(gtid, mx, gsize):
        gr_init_dev(i, mu_r, psi_r, psi_c, inf)
    cuda.cg.this_grid().sync()  # the labels must be reset before any expansion reads them
    level = 0
    if frontier:
        for u in range(gtid, m, gsize):
            gr_seed_dev(u, mu_r, fa, sync, PS_CNT + r % 3)
        size = phase_read_dev(sync, PS_CNT, r, gtid, tid, sh)
        r += 1
        par = 0
        while size > 0:
            if par == 0:
                for i in range(gtid, size, gsize):
                    gr_frontier_dev(fa[i], row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf, fb, sync,
                                    PS_CNT + r % 3)
            else:
                for i in range(gtid, size, gsize):
                    gr_frontier_dev(fb[i], row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf, fa, sync,
                                    PS_CNT + r % 3)
            size = phase_read_dev(sync, PS_CNT, r, gtid, tid, sh)
            r += 1
            par = 1 - par
            level += 2
            if gtid == 0:
                stats[ST_LEVELS] += 1
        maxl = level - 2 if level >= 2 else 0
    else:
        lane = tid & 31
        while True:
            if hub > 0:  # warp-uniform grid-stride loop: every lane of a warp runs the same iterations
                for b in range(gtid - lane, m, gsize):
                    if gr_level_warp_dev(b + lane, b + lane < m, lane, hub, row_ptr, col_ind, mu_r, mu_c, psi_r,
                                         psi_c, level, inf):
                        sync[PS_FLAG + r % 3] = 1
            else:
                for u in range(gtid, m, gsize):
                    if gr_level_dev(u, row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf):
                        sync[PS_FLAG + r % 3] = 1
            added = phase_read_dev(sync, PS_FLAG, r, gtid, tid, sh)
            r += 1
            if gtid == 0:
                stats[ST_LEVELS] += 1
            if added == 0:
                break
            level += 2
        maxl = level
    if gtid == 0:
        stats[ST_GR] += 1
        stats[ST_MAXL] = maxl
    return maxl, r


@cuda.jit(device=True, inline=True)
def next_gr_dev(loop, maxl, adaptive, k):
    """GetIterGR: the loop of the next global relabel (every k, or every k * maxLevel loops)."""
    step = k * maxl if adaptive else k
    s = int64(math.ceil(step))
    if s < 1:
        s = 1
    return loop + s


@cuda.jit(cache=CACHE)
def pr_persistent_kernel(col_ptr, row_ind, row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, ac, ap, at, ia, fa, fb,
                         sync, stats, m, n, inf, variant, frontier, adaptive, k, max_loops, shrink_threshold,
                         certify, hub):
    """The whole G-PR main loop in one cooperative launch (grid syncs replace launches and host reads).

    ``variant``: 0 first (Alg. 6), 1 noshrink, 2 shrink (Alg. 7-9); ``max_loops`` <= 0: no limit.
    ``ac``, ``ap``, ``at``, ``ia``: n-long work arrays (unused by "first"); ``fa``, ``fb``: m-long
    frontier queues (unused by the rows BFS). ``hub`` > 0: vertices of degree > hub are scanned by a
    whole warp (pushes and the rows BFS); 0: one thread per vertex. Results: mu_r / mu_c, ``stats``.
    """
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    bid = cuda.blockIdx.x
    gsize = cuda.gridDim.x * bdim
    gtid = bid * bdim + tid
    sh = cuda.shared.array(2, int32)
    buf = cuda.shared.array(1024, int32)
    base = cuda.shared.array(1, int32)
    mx = m if m > n else n
    lane = tid & 31
    r = 0  # phase index of the rotating sync slots
    loop = 0
    status = STATUS_OK
    restarts = 0
    while True:  # the certify loop: normally runs once
        iter_gr = loop
        limit_hit = False
        if variant == VAR_FIRST:
            while True:
                if loop == iter_gr:
                    maxl, r = global_relabel_dev(row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, fa, fb, sync, stats,
                                                 m, mx, inf, frontier, hub, r, gtid, gsize, tid, sh)
                    iter_gr = next_gr_dev(loop, maxl, adaptive, k)
                if hub > 0:
                    for b in range(gtid - lane, n, gsize):
                        pr_first_warp_dev(b + lane, b + lane < n, lane, hub, col_ptr, row_ind, mu_r, mu_c, psi_r,
                                          psi_c, inf, sync, PS_FLAG + r % 3, 1)
                else:
                    for v in range(gtid, n, gsize):
                        pr_first_dev(v, col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, inf, sync, PS_FLAG + r % 3, 1)
                act = phase_read_dev(sync, PS_FLAG, r, gtid, tid, sh)
                r += 1
                loop += 1
                if act == 0:
                    break
                if max_loops > 0 and loop >= max_loops:
                    limit_hit = True
                    break
        else:
            for v in range(gtid, n, gsize):
                ia[v] = -1
                ap[v] = -1
                list_unmatched_col_dev(v, mu_r, mu_c, ac, sync, PS_CNT + r % 3)
            size = phase_read_dev(sync, PS_CNT, r, gtid, tid, sh)
            r += 1
            pending = False
            while size > 0:
                if loop == iter_gr:
                    maxl, r = global_relabel_dev(row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, fa, fb, sync, stats,
                                                 m, mx, inf, frontier, hub, r, gtid, gsize, tid, sh)
                    iter_gr = next_gr_dev(loop, maxl, adaptive, k)
                    pending = True
                if pending and variant == VAR_SHRINK and size >= shrink_threshold:
                    nchunk = (size + bdim - 1) // bdim
                    for c in range(bid, nchunk, cuda.gridDim.x):
                        pr_shrink_dev(c * bdim + tid, tid, bdim, buf, base, ac, ap, size, at, sync, PS_CNT + r % 3,
                                      mu_r, mu_c, ia, loop, sync, PS_FLAG + r % 3, 1)
                    size = phase_read_dev(sync, PS_CNT, r, gtid, tid, sh)
                    r += 1
                    ac, at = at, ac
                    pending = False
                    if gtid == 0:
                        stats[ST_SHRINKS] += 1
                    if size == 0:
                        break
                else:
                    for i in range(gtid, size, gsize):
                        pr_init_dev(i, ac, ap, mu_r, mu_c, ia, loop, sync, PS_FLAG + r % 3, 1)
                    act = phase_read_dev(sync, PS_FLAG, r, gtid, tid, sh)
                    r += 1
                    if act == 0:
                        break
                if hub > 0:
                    for b in range(gtid - lane, size, gsize):
                        pr_push_warp_dev(b + lane, b + lane < size, lane, hub, col_ptr, row_ind, mu_r, mu_c, psi_r,
                                         psi_c, ac, ap, ia, loop, inf)
                else:
                    for i in range(gtid, size, gsize):
                        pr_push_dev(i, col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, ac, ap, ia, loop, inf)
                cuda.cg.this_grid().sync()
                ac, ap = ap, ac
                loop += 1
                if max_loops > 0 and loop >= max_loops:
                    limit_hit = True
                    break
        for v in range(gtid, n, gsize):
            fix_matching_dev(v, mu_r, mu_c)
        cuda.cg.this_grid().sync()
        if certify == 0 or limit_hit:
            break
        # Certificate: no unmatched column is reachable from an unmatched row (no augmenting path).
        maxl, r = global_relabel_dev(row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, fa, fb, sync, stats,
                                     m, mx, inf, frontier, hub, r, gtid, gsize, tid, sh)
        for v in range(gtid, n, gsize):
            certify_dev(v, mu_r, mu_c, psi_c, inf, sync, PS_CNT + r % 3)
        bad = phase_read_dev(sync, PS_CNT, r, gtid, tid, sh)
        r += 1
        if bad == 0:
            break
        restarts += 1
        if restarts > 3:
            status = STATUS_CERTIFY
            break
    if gtid == 0:
        stats[ST_LOOPS] = loop
        stats[ST_STATUS] = status
        stats[ST_RESTARTS] = restarts
        stats[ST_SYNCS] = r


# --------------------------------------------------------------------------- small kernels


@cuda.jit(cache=CACHE)
def fill_kernel(a, value):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = value


@cuda.jit(cache=CACHE)
def cover_kernel(psi_r, psi_c, inf, cover_rows, cover_cols):
    """König cover from a BFS of the final matching (Z: labels < inf): rows outside Z, columns in Z.

    Labels >= inf all mean "not reached": the host loop launches ``check_every`` BFS levels between reads,
    so a level may reach inf and expand unreached rows into labels above inf (never over a label < inf)."""
    i = cuda.grid(1)
    if i < cover_rows.size:
        cover_rows[i] = psi_r[i] >= inf
    if i < cover_cols.size:
        cover_cols[i] = psi_c[i] < inf


@cuda.jit(cache=CACHE)
def count_matched_rows_kernel(mu_r, count):
    u = cuda.grid(1)
    if u < mu_r.size and mu_r[u] >= 0:
        cuda.atomic.add(count, 0, 1)


@cuda.jit(cache=CACHE)
def set_matching_kernel(row_match, mu_r, mu_c):
    """Load a given initial matching (row -> column) into mu_r / mu_c."""
    u = cuda.grid(1)
    if u < mu_r.size:
        v = row_match[u]
        mu_r[u] = v
        if v >= 0:
            mu_c[v] = u
