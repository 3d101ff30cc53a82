"""GPU Hungarian algorithm of Lopes, Yadav, Ilic and Patra (JPDC 130, 2019), in numba.cuda.

The six steps of the paper (Section 4), on the slack matrix ``L = C - u - v`` kept in device memory:

1. row and column reductions (block-per-row min, then chunked column mins with atomics);
   the slack is written and its zeros compressed into the vector ``zeros`` in the same pass;
2. initial stars with ``atomicExch`` on the covers (Algorithm 1, one block);
3. cover the columns of stars, count them (done when the count is n);
4. the block-distributed alternating-path search over the compressed zeros (Algorithm 2):
   every block re-scans its share of the zeros until it finds no uncovered zero, then a grid-wide
   synchronisation; the ordering conditions S1-S5 of Appendix A are met by one prime per row (S1),
   reading the column cover before the row cover (S2), ``threadfence`` between covering the row and
   uncovering the star's column (S3), covers read and written with atomics, i.e. at the L2 point of
   coherence, in place of the paper's ``volatile`` (S4), and repeated scans plus grid syncs (S5);
5. 5a marks one path per column "green" walking forward from every primed free row, 5b flips the
   green paths from their free columns backwards (several augmenting paths per iteration);
6. minimum of the uncovered slack (one block reduction and one atomic per block), the add/subtract
   update fused with the re-compression of the zeros (block-aggregated appends).

Two drivers run the same device functions: ``mode="persistent"`` is one cooperative kernel whose step
loop stays on the device (grid syncs, no host round trips); ``mode="host"`` launches one kernel per step
and reads the flags back (used by the CUDA simulator with several blocks and as a fallback).

Zero test: integer slack is exact. Float costs keep a float64 slack; a zero is an exact 0.0. Zeros arise
exactly: step 1 subtracts the same row/column minima it found, and step 6 computes ``s - delta`` with
``delta <= s``; by Sterbenz's lemma that difference is exact when ``s <= 2 delta`` and ``> 0`` otherwise,
so an entry becomes 0.0 exactly when it equals the minimum. Duals u, v are kept separately (int64 or
float64); after the solve a certificate kernel recomputes ``C - u - v`` from the original costs.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import numpy as np
from numba import cuda, types

__all__ = ["hungarian_gpu", "choose_slack_dtype", "HungarianGPUError"]

# flag slots in the int32 ``flags`` array
_GOTO5 = 8  # 3 rotating slots 8..10 (one per step-4 round: a reset never races a late reader)
_FOUND = 1  # 3 rotating slots 1..3
_STARS = 4  # 3 rotating slots 4..6
_ERR = 7
_NFLAGS = 11
# stats slots in the int64 ``stats`` array
_S_ROUNDS, _S_AUG, _S_DUAL, _S_STATUS = 0, 1, 2, 3

STATUS_OK = 0
STATUS_ROUND_LIMIT = 1
STATUS_BROKEN_PATH = 2

_COL_CHUNK = 64  # rows per work item of the column-minimum pass


class HungarianGPUError(RuntimeError):
    """The GPU Hungarian kernels returned an error status (an internal bug, never bad input)."""


def choose_slack_dtype(cost_dtype: np.dtype, n: int, max_cost: float) -> np.dtype:
    """Slack dtype: float64 for float costs; int32 when ``(2n + 2) * max_cost`` fits, else int64.

    Every dual update keeps ``v`` non-decreasing from ``>= 0`` and ``u`` non-increasing from ``<= max``;
    the bound is a heuristic margin, and the certificate check after the solve catches any overflow.
    """
    if np.issubdtype(cost_dtype, np.floating):
        return np.dtype(np.float64)
    if (2 * n + 2) * float(max_cost) < 2**31 - 1:
        return np.dtype(np.int32)
    return np.dtype(np.int64)


@functools.cache
def _kernels(slack_str: str, idx_str: str) -> dict[str, Any]:
    """Compile-time specialisation per slack dtype and zero-index dtype (closure constants)."""
    ST = types.float64 if slack_str == "float64" else (types.int32 if slack_str == "int32" else types.int64)
    IT = types.int32 if idx_str == "int32" else types.int64
    if slack_str == "float64":
        BIG = np.inf
    else:
        BIG = int(np.iinfo(np.dtype(slack_str)).max)
    CH = _COL_CHUNK

    # ---------------------------------------------------------------- helpers
    @cuda.jit(device=True, inline=True)
    def load_dev(arr, i):
        """Coherent (L2) read of an int32 flag: the paper's volatile read."""
        return cuda.atomic.or_(arr, i, 0)

    @cuda.jit(device=True)
    def block_min_dev(sh, val, tid, bdim):
        """Tree reduction over a power-of-two block; every thread gets the minimum."""
        sh[tid] = val
        cuda.syncthreads()
        s = bdim // 2
        while s > 0:
            if tid < s:
                o = sh[tid + s]
                if o < sh[tid]:
                    sh[tid] = o
            cuda.syncthreads()
            s //= 2
        r = sh[0]
        cuda.syncthreads()
        return r

    @cuda.jit(device=True)
    def append_zero_dev(is_zero, k, zeros, nz, tid, shcnt, shbuf):
        """Block-aggregated append of the entries ``k`` with ``is_zero`` (one global atomic per block)."""
        if is_zero:
            p = cuda.atomic.add(shcnt, 0, 1)
            shbuf[p] = k
        cuda.syncthreads()
        cnt = shcnt[0]
        if cnt > 0:
            if tid == 0:
                shcnt[1] = cuda.atomic.add(nz, 0, cnt)
            cuda.syncthreads()
            if tid < cnt:
                zeros[shcnt[1] + tid] = shbuf[tid]
            cuda.syncthreads()
            if tid == 0:
                shcnt[0] = 0
            cuda.syncthreads()

    @cuda.jit(device=True)
    def bcast_flag_dev(flags, i, tid, shflag):
        """Block 0..: thread 0 reads flag i coherently, the block gets it via shared memory."""
        if tid == 0:
            shflag[2] = load_dev(flags, i)
        cuda.syncthreads()
        f = shflag[2]
        cuda.syncthreads()
        return f

    @cuda.jit(device=True)
    def bcast_count_dev(nz, tid, shcnt):
        if tid == 0:
            shcnt[1] = cuda.atomic.add(nz, 0, 0)
        cuda.syncthreads()
        f = shcnt[1]
        cuda.syncthreads()
        return f

    # ---------------------------------------------------------------- step 0/1
    @cuda.jit(device=True)
    def init_dev(colmin, cov_row, cov_col, star_col, star_row, prime, green, nz, flags, gmin, n, gtid, gsize):
        for i in range(gtid, n, gsize):
            colmin[i] = BIG
            cov_row[i] = 0
            cov_col[i] = 0
            star_col[i] = -1
            star_row[i] = -1
            prime[i] = -1
            green[i] = -1
        if gtid == 0:
            nz[0] = 0
            for i in range(_NFLAGS):
                flags[i] = 0
            for i in range(3):
                gmin[i] = BIG

    @cuda.jit(device=True)
    def rowmin_dev(C, rowmin, n, bid, nblk, tid, bdim, sh):
        """Step 1a: row minima, one block per row (coalesced), shared-memory reduction."""
        for r in range(bid, n, nblk):
            m = ST(BIG)
            base = r * n
            for c in range(tid, n, bdim):
                x = ST(C[base + c])
                if x < m:
                    m = x
            m = block_min_dev(sh, m, tid, bdim)
            if tid == 0:
                rowmin[r] = m

    @cuda.jit(device=True)
    def colmin_dev(C, rowmin, colmin, n, gtid, gsize):
        """Step 1b: column minima of C - rowmin, in chunks of CH rows merged with atomic min."""
        nch = (n + CH - 1) // CH
        for w in range(gtid, n * nch, gsize):
            c = w % n
            ch = w // n
            m = ST(BIG)
            r1 = min(n, (ch + 1) * CH)
            for r in range(ch * CH, r1):
                x = ST(C[r * n + c]) - rowmin[r]
                if x < m:
                    m = x
            cuda.atomic.min(colmin, c, m)

    @cuda.jit(device=True)
    def slack_dev(C, rowmin, colmin, slack, u, v, zeros, nz, n, bid, nblk, tid, bdim, gtid, gsize, shcnt, shbuf):
        """Step 1c: slack = (C - rowmin) - colmin, compress its zeros; u = rowmin, v = colmin."""
        for r in range(bid, n, nblk):
            base = r * n
            rm = rowmin[r]
            for c0 in range(0, n, bdim):
                c = c0 + tid
                isz = False
                k = IT(base + c)
                if c < n:
                    s = (ST(C[k]) - rm) - colmin[c]
                    slack[k] = s
                    isz = s == 0
                append_zero_dev(isz, k, zeros, nz, tid, shcnt, shbuf)
        for i in range(gtid, n, gsize):
            u[i] = rowmin[i]
            v[i] = colmin[i]

    # ---------------------------------------------------------------- step 2
    @cuda.jit(device=True)
    def step2_dev(zeros, nzv, n, cov_row, cov_col, star_col, star_row, tid, bdim, shflag):
        """Algorithm 1 (one block): star independent zeros, covering row then column with atomicExch."""
        while True:
            if tid == 0:
                shflag[0] = 0
            cuda.syncthreads()
            for k in range(tid, nzv, bdim):
                z = zeros[k]
                r = z // n
                c = z - r * n
                if load_dev(cov_col, c) == 0 and load_dev(cov_row, r) == 0:
                    if cuda.atomic.exch(cov_row, r, 1) == 0:
                        if cuda.atomic.exch(cov_col, c, 1) == 0:
                            star_col[r] = c
                            star_row[c] = r
                        else:
                            cuda.atomic.exch(cov_row, r, 0)
                            shflag[0] = 1
            cuda.syncthreads()
            f = shflag[0]
            cuda.syncthreads()
            if f == 0:
                break

    # ---------------------------------------------------------------- step 3
    @cuda.jit(device=True)
    def step3_dev(cov_row, cov_col, star_row, prime, green, flags, slot, n, gtid, gsize):
        """Cover the columns of stars, uncover rows, clear primes and greens, count stars."""
        cnt = 0
        for i in range(gtid, n, gsize):
            has = star_row[i] >= 0
            cov_col[i] = 1 if has else 0
            if has:
                cnt += 1
            cov_row[i] = 0
            prime[i] = -1
            green[i] = -1
        if cnt > 0:
            cuda.atomic.add(flags, _STARS + slot, cnt)

    # ---------------------------------------------------------------- step 4
    @cuda.jit(device=True)
    def step4_dev(zeros, nzv, n, cov_row, cov_col, star_col, prime, flags, slot, tid, gtid, gsize, shflag):
        """Algorithm 2, one kernel-run worth: re-scan this block's zeros until it finds none."""
        any_found = 0
        while True:
            if tid == 0:
                shflag[0] = 0
            cuda.syncthreads()
            for k in range(gtid, nzv, gsize):
                z = zeros[k]
                r = z // n
                c = z - r * n
                if load_dev(cov_col, c) == 0:  # S2: column before row
                    if load_dev(cov_row, r) == 0:
                        prime[r] = c  # S1: one prime per row (last writer wins)
                        shflag[0] = 1
                        sc = star_col[r]
                        if sc >= 0:
                            cuda.atomic.exch(cov_row, r, 1)
                            cuda.threadfence()  # S3: row cover seen before column uncover
                            cuda.atomic.exch(cov_col, sc, 0)
                        else:
                            cuda.atomic.exch(flags, _GOTO5 + slot, 1)
            cuda.syncthreads()
            f = shflag[0]
            if tid == 0:
                shflag[1] = load_dev(flags, _GOTO5 + slot)
            cuda.syncthreads()
            g5 = shflag[1]
            cuda.syncthreads()
            if f == 0:
                break
            any_found = 1
            if g5 != 0:
                break
        if tid == 0 and any_found != 0:
            cuda.atomic.exch(flags, _FOUND + slot, 1)

    # ---------------------------------------------------------------- step 5
    @cuda.jit(device=True)
    def step5a_dev(n, star_col, star_row, prime, green, flags, gtid, gsize):
        """Algorithm 3: walk forward from every primed free row, marking greens (one per column)."""
        for r in range(gtid, n, gsize):
            c = prime[r]
            if c >= 0 and star_col[r] < 0:
                green[c] = r
                steps = 0
                while star_row[c] >= 0:
                    rr = star_row[c]
                    c = prime[rr]
                    steps += 1
                    if c < 0 or steps > n:
                        cuda.atomic.exch(flags, _ERR, STATUS_BROKEN_PATH)
                        break
                    green[c] = rr

    @cuda.jit(device=True)
    def step5b_dev(n, star_col, star_row, green, flags, gtid, gsize):
        """Algorithm 4: from each green free column walk back along the greens, flipping stars."""
        for j in range(gtid, n, gsize):
            r0 = green[j]
            if r0 >= 0 and star_row[j] < 0:
                c2 = star_col[r0]
                star_col[r0] = j
                star_row[j] = r0
                steps = 0
                while c2 >= 0:
                    r0 = green[c2]
                    steps += 1
                    if r0 < 0 or steps > n:
                        cuda.atomic.exch(flags, _ERR, STATUS_BROKEN_PATH)
                        break
                    c0 = c2
                    c2 = star_col[r0]
                    star_col[r0] = c0
                    star_row[c0] = r0

    # ---------------------------------------------------------------- step 6
    @cuda.jit(device=True)
    def step6_min_dev(slack, cov_row, cov_col, gmin, slot, n, bid, nblk, tid, bdim, sh):
        """Minimum of the uncovered slack: uncovered rows only, one reduction + one atomic per block."""
        m = ST(BIG)
        for r in range(bid, n, nblk):
            if cov_row[r] == 0:
                base = r * n
                for c in range(tid, n, bdim):
                    if cov_col[c] == 0:
                        x = slack[base + c]
                        if x < m:
                            m = x
        m = block_min_dev(sh, m, tid, bdim)
        if tid == 0:
            cuda.atomic.min(gmin, slot, m)

    @cuda.jit(device=True)
    def step6_update_dev(slack, cov_row, cov_col, u, v, delta, zeros, nz, n, bid, nblk, tid, bdim, gtid, gsize,
                         shcnt, shbuf):
        """Algorithm 6 + 7 fused: +delta on doubly covered, -delta on uncovered, re-compress zeros."""
        for r in range(bid, n, nblk):
            base = r * n
            rc = cov_row[r]
            for c0 in range(0, n, bdim):
                c = c0 + tid
                isz = False
                k = IT(base + c)
                if c < n:
                    cc = cov_col[c]
                    s = slack[k]
                    if rc != 0 and cc != 0:
                        s += delta
                        slack[k] = s
                    elif rc == 0 and cc == 0:
                        s -= delta
                        slack[k] = s
                    isz = s == 0
                append_zero_dev(isz, k, zeros, nz, tid, shcnt, shbuf)
            if tid == 0 and rc != 0:
                u[r] -= delta
        for c in range(gtid, n, gsize):
            if cov_col[c] == 0:
                v[c] += delta

    # ---------------------------------------------------------------- persistent kernel
    @cuda.jit
    def persistent_kernel(C, slack, zeros, nz, rowmin, colmin, u, v, cov_row, cov_col, star_col, star_row,
                          prime, green, flags, gmin, stats, n, max_rounds):
        """The whole algorithm in one cooperative launch; grid syncs replace kernel restarts."""
        g = cuda.cg.this_grid()
        tid = cuda.threadIdx.x
        bdim = cuda.blockDim.x
        bid = cuda.blockIdx.x
        nblk = cuda.gridDim.x
        gtid = bid * bdim + tid
        gsize = nblk * bdim
        sh = cuda.shared.array(1024, dtype=ST)
        shcnt = cuda.shared.array(2, dtype=IT)
        shbuf = cuda.shared.array(1024, dtype=IT)
        shflag = cuda.shared.array(4, dtype=types.int32)
        if tid == 0:
            shcnt[0] = 0
        init_dev(colmin, cov_row, cov_col, star_col, star_row, prime, green, nz, flags, gmin, n, gtid, gsize)
        g.sync()
        rowmin_dev(C, rowmin, n, bid, nblk, tid, bdim, sh)
        g.sync()
        colmin_dev(C, rowmin, colmin, n, gtid, gsize)
        g.sync()
        slack_dev(C, rowmin, colmin, slack, u, v, zeros, nz, n, bid, nblk, tid, bdim, gtid, gsize, shcnt, shbuf)
        g.sync()
        if bid == 0:
            nzv = bcast_count_dev(nz, tid, shcnt)
            step2_dev(zeros, nzv, n, cov_row, cov_col, star_col, star_row, tid, bdim, shflag)
        g.sync()
        rounds = 0
        dual = 0
        outer = 0
        aug = 0
        status = 0
        while True:
            step3_dev(cov_row, cov_col, star_row, prime, green, flags, outer % 3, n, gtid, gsize)
            if gtid == 0:
                flags[_STARS + (outer + 1) % 3] = 0
            g.sync()
            stars = bcast_flag_dev(flags, _STARS + outer % 3, tid, shflag)
            outer += 1
            if stars >= n:
                break
            while True:
                nzv = bcast_count_dev(nz, tid, shcnt)
                step4_dev(zeros, nzv, n, cov_row, cov_col, star_col, prime, flags, rounds % 3, tid, gtid, gsize,
                          shflag)
                if gtid == 0:
                    flags[_FOUND + (rounds + 1) % 3] = 0
                    flags[_GOTO5 + (rounds + 1) % 3] = 0
                g.sync()
                found = bcast_flag_dev(flags, _FOUND + rounds % 3, tid, shflag)
                go5 = bcast_flag_dev(flags, _GOTO5 + rounds % 3, tid, shflag)
                rounds += 1
                if go5 != 0:
                    break
                if rounds > max_rounds:
                    status = STATUS_ROUND_LIMIT
                    break
                if found != 0:
                    continue
                # step 6
                if gtid == 0:
                    nz[0] = 0
                    gmin[(dual + 1) % 3] = BIG
                step6_min_dev(slack, cov_row, cov_col, gmin, dual % 3, n, bid, nblk, tid, bdim, sh)
                g.sync()
                if tid == 0:
                    sh[0] = cuda.atomic.min(gmin, dual % 3, ST(BIG))
                cuda.syncthreads()
                delta = sh[0]
                cuda.syncthreads()
                step6_update_dev(slack, cov_row, cov_col, u, v, delta, zeros, nz, n, bid, nblk, tid, bdim, gtid,
                                 gsize, shcnt, shbuf)
                dual += 1
                g.sync()
            if status != 0:
                break
            step5a_dev(n, star_col, star_row, prime, green, flags, gtid, gsize)
            g.sync()
            step5b_dev(n, star_col, star_row, green, flags, gtid, gsize)
            aug += 1
            g.sync()
            err = bcast_flag_dev(flags, _ERR, tid, shflag)
            if err != 0:
                status = err
                break
        if gtid == 0:
            stats[_S_ROUNDS] = rounds
            stats[_S_AUG] = aug
            stats[_S_DUAL] = dual
            stats[_S_STATUS] = status

    # ---------------------------------------------------------------- one kernel per step (host loop)
    @cuda.jit
    def init_kernel(colmin, cov_row, cov_col, star_col, star_row, prime, green, nz, flags, gmin, n):
        gtid = cuda.grid(1)
        init_dev(colmin, cov_row, cov_col, star_col, star_row, prime, green, nz, flags, gmin, n, gtid,
                 cuda.gridsize(1))

    @cuda.jit
    def rowmin_kernel(C, rowmin, n):
        sh = cuda.shared.array(1024, dtype=ST)
        rowmin_dev(C, rowmin, n, cuda.blockIdx.x, cuda.gridDim.x, cuda.threadIdx.x, cuda.blockDim.x, sh)

    @cuda.jit
    def colmin_kernel(C, rowmin, colmin, n):
        colmin_dev(C, rowmin, colmin, n, cuda.grid(1), cuda.gridsize(1))

    @cuda.jit
    def slack_kernel(C, rowmin, colmin, slack, u, v, zeros, nz, n):
        shcnt = cuda.shared.array(2, dtype=IT)
        shbuf = cuda.shared.array(1024, dtype=IT)
        if cuda.threadIdx.x == 0:
            shcnt[0] = 0
        cuda.syncthreads()
        slack_dev(C, rowmin, colmin, slack, u, v, zeros, nz, n, cuda.blockIdx.x, cuda.gridDim.x, cuda.threadIdx.x,
                  cuda.blockDim.x, cuda.grid(1), cuda.gridsize(1), shcnt, shbuf)

    @cuda.jit
    def step2_kernel(zeros, nz, n, cov_row, cov_col, star_col, star_row):
        shflag = cuda.shared.array(4, dtype=types.int32)
        step2_dev(zeros, nz[0], n, cov_row, cov_col, star_col, star_row, cuda.threadIdx.x, cuda.blockDim.x, shflag)

    @cuda.jit
    def step3_kernel(cov_row, cov_col, star_row, prime, green, flags, slot, n):
        step3_dev(cov_row, cov_col, star_row, prime, green, flags, slot, n, cuda.grid(1), cuda.gridsize(1))

    @cuda.jit
    def step4_kernel(zeros, nz, n, cov_row, cov_col, star_col, prime, flags, slot):
        shflag = cuda.shared.array(4, dtype=types.int32)
        step4_dev(zeros, nz[0], n, cov_row, cov_col, star_col, prime, flags, slot, cuda.threadIdx.x, cuda.grid(1),
                  cuda.gridsize(1), shflag)

    @cuda.jit
    def step5a_kernel(n, star_col, star_row, prime, green, flags):
        step5a_dev(n, star_col, star_row, prime, green, flags, cuda.grid(1), cuda.gridsize(1))

    @cuda.jit
    def step5b_kernel(n, star_col, star_row, green, flags):
        step5b_dev(n, star_col, star_row, green, flags, cuda.grid(1), cuda.gridsize(1))

    @cuda.jit
    def step6_min_kernel(slack, cov_row, cov_col, gmin, slot, n):
        sh = cuda.shared.array(1024, dtype=ST)
        step6_min_dev(slack, cov_row, cov_col, gmin, slot, n, cuda.blockIdx.x, cuda.gridDim.x, cuda.threadIdx.x,
                      cuda.blockDim.x, sh)

    @cuda.jit
    def step6_update_kernel(slack, cov_row, cov_col, u, v, gmin, slot, zeros, nz, n):
        shcnt = cuda.shared.array(2, dtype=IT)
        shbuf = cuda.shared.array(1024, dtype=IT)
        if cuda.threadIdx.x == 0:
            shcnt[0] = 0
        cuda.syncthreads()
        step6_update_dev(slack, cov_row, cov_col, u, v, gmin[slot], zeros, nz, n, cuda.blockIdx.x, cuda.gridDim.x,
                         cuda.threadIdx.x, cuda.blockDim.x, cuda.grid(1), cuda.gridsize(1), shcnt, shbuf)

    @cuda.jit
    def reset_kernel(flags, nz, gmin, i_flag, v_flag, i_gmin):
        """Tiny bookkeeping launch of the host loop (resets one flag, the zero count, one min slot)."""
        if cuda.grid(1) == 0:
            if i_flag >= 0:
                flags[i_flag] = v_flag
            if i_gmin >= 0:
                gmin[i_gmin] = BIG
                nz[0] = 0

    loc = dict(locals())
    return {k: val for k, val in loc.items() if k.endswith("_kernel")}


@functools.cache
def _cert_kernel_int():
    @cuda.jit
    def certificate_int_kernel(C, u, v, star_col, n, out):
        """Exact integer certificate: out[0] = min over all (C - u - v), out[1] = max |.| on assigned pairs."""
        tid = cuda.threadIdx.x
        bdim = cuda.blockDim.x
        big = 9223372036854775807
        m = big
        mx = 0
        for r in range(cuda.blockIdx.x, n, cuda.gridDim.x):
            base = r * n
            ur = u[r]
            sc = star_col[r]
            for c in range(tid, n, bdim):
                d = np.int64(C[base + c]) - ur - v[c]
                if d < m:
                    m = d
                if c == sc:
                    a = d if d >= 0 else -d
                    if a > mx:
                        mx = a
        cuda.atomic.min(out, 0, m)
        cuda.atomic.max(out, 1, mx)

    return certificate_int_kernel


@functools.cache
def _cert_kernel_float():
    @cuda.jit
    def certificate_float_kernel(C, u, v, star_col, n, out):
        """Float certificate: out[0] = min over all (C - u - v), out[1] = max |.| on assigned pairs."""
        tid = cuda.threadIdx.x
        bdim = cuda.blockDim.x
        m = np.inf
        mx = 0.0
        for r in range(cuda.blockIdx.x, n, cuda.gridDim.x):
            base = r * n
            ur = u[r]
            sc = star_col[r]
            for c in range(tid, n, bdim):
                d = np.float64(C[base + c]) - ur - v[c]
                if d < m:
                    m = d
                if c == sc:
                    a = abs(d)
                    if a > mx:
                        mx = a
        cuda.atomic.min(out, 0, m)
        cuda.atomic.max(out, 1, mx)

    return certificate_float_kernel


_COOP_CACHE: dict = {}


def _is_simulator() -> bool:
    import os

    return os.environ.get("NUMBA_ENABLE_CUDASIM", "") not in ("", "0")


def _check_block_size(block_size: Any) -> int:
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)):
        raise TypeError(f"block_size must be an integer, got {block_size!r}")
    b = int(block_size)
    if b < 1 or b > 1024 or (b & (b - 1)) != 0:
        raise ValueError(f"block_size must be a power of two in [1, 1024], got {b}")
    return b


_OPTIONS = ("block_size", "grid_size", "mode", "max_rounds", "check", "slack_dtype")


def hungarian_gpu(C: Any, *, block_size: int = 256, grid_size: int | None = None, mode: str = "auto",
                  max_rounds: int | None = None, check: bool = True, slack_dtype: Any = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """Solve a square assignment problem on the GPU with the Hungarian algorithm of Lopes et al. (2019).

    ``C``: square C-contiguous NumPy / CuPy / numba device matrix, dtype int32/int64/float32/float64,
    finite and >= 0 (validated by the caller). Returns ``(col4row, u, v, stats)`` on the host;
    ``C[i, j] - u[i] - v[j] >= 0`` everywhere and ``== 0`` on the assigned pairs (exact for integers).

    Options: ``block_size`` (power of two <= 1024; small values make small inputs span many blocks),
    ``grid_size`` (blocks; default: the cooperative maximum in persistent mode), ``mode`` ("persistent":
    one cooperative kernel, "host": one launch per step with flag read-backs, "auto"), ``max_rounds``
    (safety bound on step-4 rounds), ``check`` (run the certificate kernel), ``slack_dtype`` (override).
    """
    block_size = _check_block_size(block_size)
    if mode not in ("auto", "persistent", "host"):
        raise ValueError(f"mode must be one of ('auto', 'persistent', 'host'), got {mode!r}")
    t0 = time.perf_counter()
    on_device = (not isinstance(C, np.ndarray)) and hasattr(C, "__cuda_array_interface__")
    if on_device:
        dC = cuda.as_cuda_array(C)
        shape, dtype = tuple(dC.shape), np.dtype(dC.dtype)
    else:
        C = np.ascontiguousarray(C)
        shape, dtype = C.shape, C.dtype
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"C must be a square matrix, got shape {shape}")
    if dtype not in (np.int32, np.int64, np.float32, np.float64):
        raise TypeError(f"C must have dtype int32, int64, float32 or float64, got {dtype}")
    n = int(shape[0])
    if n == 0:
        e = np.zeros(0, dtype=np.int64)
        z = np.zeros(0, dtype=np.float64 if dtype.kind == "f" else np.int64)
        return e, z, z.copy(), {"iterations": 0, "augmentations": 0, "dual_updates": 0, "seconds_h2d": 0.0,
                                "seconds_solve": 0.0, "mode": "none"}
    if on_device:
        dflat = dC.reshape(n * n) if dC.is_c_contiguous() else None
        if dflat is None:
            raise ValueError("C must be C-contiguous")
        maxc = None
    else:
        maxc = float(C.max())
        dflat = cuda.to_device(C.reshape(n * n))
    if slack_dtype is None:
        if maxc is None:
            sdt = np.dtype(np.float64) if dtype.kind == "f" else np.dtype(np.int64)
        else:
            sdt = choose_slack_dtype(dtype, n, maxc)
    else:
        sdt = np.dtype(slack_dtype)
        if sdt not in (np.int32, np.int64, np.float64) or (sdt.kind == "f") != (dtype.kind == "f"):
            raise ValueError(f"slack_dtype must be int32/int64 for integer C and float64 for float C, got {sdt}")
    idt = np.dtype(np.int32) if n * n < 2**31 - 1 else np.dtype(np.int64)
    ddt = np.dtype(np.float64) if dtype.kind == "f" else np.dtype(np.int64)
    K = _kernels(sdt.name, idt.name)

    slack = cuda.device_array(n * n, dtype=sdt)
    zeros = cuda.device_array(n * n, dtype=idt)
    nz = cuda.to_device(np.zeros(1, dtype=idt))
    rowmin = cuda.device_array(n, dtype=sdt)
    colmin = cuda.device_array(n, dtype=sdt)
    u = cuda.device_array(n, dtype=ddt)
    v = cuda.device_array(n, dtype=ddt)
    i32 = [cuda.device_array(n, dtype=np.int32) for _ in range(7)]
    cov_row, cov_col, star_col, star_row, prime, green, _spare = i32
    flags = cuda.to_device(np.zeros(_NFLAGS, dtype=np.int32))
    gmin = cuda.device_array(3, dtype=sdt)
    stats = cuda.to_device(np.zeros(4, dtype=np.int64))
    if max_rounds is None:
        max_rounds = 8 * n * n + 1000
    cuda.synchronize()
    t1 = time.perf_counter()

    if mode == "auto":
        mode = "host" if (_is_simulator() and (grid_size or 2) > 1) else "persistent"
    if mode == "persistent":
        kern = K["persistent_kernel"]
        args = (dflat, slack, zeros, nz, rowmin, colmin, u, v, cov_row, cov_col, star_col, star_row, prime,
                green, flags, gmin, stats, np.int64(n), np.int64(max_rounds))
        if grid_size is None:
            if _is_simulator():
                grid_size = 1
            else:
                key = (sdt.name, idt.name, dtype.name, block_size)
                if key not in _COOP_CACHE:
                    spec = kern.specialize(*args)
                    kobj = next(iter(spec.overloads.values()))
                    _COOP_CACHE[key] = (spec, max(1, int(kobj.max_cooperative_grid_blocks(block_size))))
                kern, gmax = _COOP_CACHE[key]
                grid_size = min(gmax, max(1, (n * n + block_size - 1) // block_size))
        kern[grid_size, block_size](*args)
        cuda.synchronize()
        st = stats.copy_to_host()
        status = int(st[_S_STATUS])
        rounds, aug, dual = int(st[_S_ROUNDS]), int(st[_S_AUG]), int(st[_S_DUAL])
    else:
        if grid_size is None:
            if _is_simulator():
                grid_size = min(4, n)
            else:
                grid_size = 4 * int(getattr(cuda.get_current_device(), "MULTIPROCESSOR_COUNT", 132))
        rounds, aug, dual, status = _host_loop(K, grid_size, block_size, n, dflat, slack, zeros, nz, rowmin,
                                               colmin, u, v, cov_row, cov_col, star_col, star_row, prime, green,
                                               flags, gmin, max_rounds)
    t2 = time.perf_counter()
    if status != STATUS_OK:
        raise HungarianGPUError(f"GPU Hungarian kernels stopped with status {status} "
                                f"({'round limit' if status == STATUS_ROUND_LIMIT else 'broken alternating path'}) "
                                f"after {rounds} rounds; this is a bug, please report it with the input")
    col4row = star_col.copy_to_host().astype(np.int64)
    stats_out: dict[str, Any] = {"iterations": rounds, "augmentations": aug, "dual_updates": dual,
                                 "seconds_h2d": 0.0 if on_device else t1 - t0, "seconds_solve": t2 - t1,
                                 "mode": mode, "grid_size": int(grid_size), "block_size": block_size,
                                 "slack_dtype": sdt.name}
    if check:
        kc = _cert_kernel_float() if ddt.kind == "f" else _cert_kernel_int()
        init = np.array([np.inf, 0.0]) if ddt.kind == "f" else np.array([np.iinfo(np.int64).max, 0], dtype=np.int64)
        dout = cuda.to_device(init)
        cg = 1 if _is_simulator() else min(n, 1024)
        kc[cg, min(block_size, 1024) if _is_simulator() else 256](dflat, u, v, star_col, np.int64(n), dout)
        out = dout.copy_to_host()
        stats_out["certificate_min_reduced_cost"] = out[0].item()
        stats_out["certificate_max_assigned_reduced_cost"] = out[1].item()
        perm_ok = bool(np.array_equal(np.sort(col4row), np.arange(n)))
        if not perm_ok or (ddt.kind == "i" and (out[0] < 0 or out[1] != 0)):
            raise HungarianGPUError(
                f"GPU Hungarian certificate failed (permutation={perm_ok}, min reduced cost {out[0]}, "
                f"max reduced cost on assigned pairs {out[1]}); this is a bug (or an overflow with "
                f"slack_dtype={sdt.name}), please report it")
    return col4row, u.copy_to_host(), v.copy_to_host(), stats_out


def _host_loop(K, grid, block, n, dflat, slack, zeros, nz, rowmin, colmin, u, v, cov_row, cov_col, star_col,
               star_row, prime, green, flags, gmin, max_rounds):
    """Same step sequence as the persistent kernel, one launch per step, flags read back by the host."""
    nn = np.int64(n)
    K["init_kernel"][grid, block](colmin, cov_row, cov_col, star_col, star_row, prime, green, nz, flags, gmin, nn)
    K["rowmin_kernel"][grid, block](dflat, rowmin, nn)
    K["colmin_kernel"][grid, block](dflat, rowmin, colmin, nn)
    K["slack_kernel"][grid, block](dflat, rowmin, colmin, slack, u, v, zeros, nz, nn)
    K["step2_kernel"][1, block](zeros, nz, nn, cov_row, cov_col, star_col, star_row)
    rounds = dual = outer = aug = 0
    status = STATUS_OK
    while True:
        K["step3_kernel"][grid, block](cov_row, cov_col, star_row, prime, green, flags, np.int64(outer % 3), nn)
        K["reset_kernel"][1, 1](flags, nz, gmin, np.int64(_STARS + (outer + 1) % 3), np.int64(0), np.int64(-1))
        stars = int(flags.copy_to_host()[_STARS + outer % 3])
        outer += 1
        if stars >= n:
            break
        while True:
            K["step4_kernel"][grid, block](zeros, nz, nn, cov_row, cov_col, star_col, prime, flags,
                                           np.int64(rounds % 3))
            K["reset_kernel"][1, 1](flags, nz, gmin, np.int64(_FOUND + (rounds + 1) % 3), np.int64(0),
                                    np.int64(-1))
            K["reset_kernel"][1, 1](flags, nz, gmin, np.int64(_GOTO5 + (rounds + 1) % 3), np.int64(0),
                                    np.int64(-1))
            fl = flags.copy_to_host()
            found, go5 = int(fl[_FOUND + rounds % 3]), int(fl[_GOTO5 + rounds % 3])
            rounds += 1
            if go5:
                break
            if rounds > max_rounds:
                status = STATUS_ROUND_LIMIT
                break
            if found:
                continue
            K["reset_kernel"][1, 1](flags, nz, gmin, np.int64(-1), np.int64(0), np.int64((dual + 1) % 3))
            K["step6_min_kernel"][grid, block](slack, cov_row, cov_col, gmin, np.int64(dual % 3), nn)
            K["step6_update_kernel"][grid, block](slack, cov_row, cov_col, u, v, gmin, np.int64(dual % 3), zeros,
                                                  nz, nn)
            dual += 1
        if status:
            break
        K["step5a_kernel"][grid, block](nn, star_col, star_row, prime, green, flags)
        K["step5b_kernel"][grid, block](nn, star_col, star_row, green, flags)
        aug += 1
        err = int(flags.copy_to_host()[_ERR])
        if err:
            status = err
            break
    cuda.synchronize()
    return rounds, aug, dual, status
