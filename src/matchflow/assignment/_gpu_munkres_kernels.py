"""Kernels of the GPU Hungarian algorithm of Lopes, Yadav, Ilic and Patra (JPDC 130, 2019).

The six steps of the paper (Section 4), on the slack matrix ``L = C - u - v`` kept in device memory:

1. row and column reductions (block-per-row min, then chunked column mins with atomics);
   the slack is written and its zeros compressed into the vector ``zeros`` in the same pass;
2. initial stars with ``atomicExch`` on the covers (Algorithm 1; every block takes a share of the zeros);
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

:func:`kernels` returns the named kernels for one slack dtype and one zero-index dtype (compile-time
constants): ``persistent_kernel`` (the whole algorithm, one cooperative launch) and one kernel per step
for the host loop (``init_kernel`` ... ``step6_update_kernel``, ``reset_kernel``); both run the same
device functions. ``certificate_int_kernel`` / ``certificate_float_kernel`` recompute ``C - u - v``.
Kernels report through ``flags[ERR]`` and ``stats[S_STATUS]``; the host driver raises.
"""

from __future__ import annotations

import functools
import math
from types import SimpleNamespace
from typing import Any

import numpy as np
from numba import cuda, types

from .._cuda._device import bcast_read_dev, block_min_dev, dense_row_min_dev
from .._cuda._env import kernel_cache

CACHE = kernel_cache()  # numba-cuda on-disk cache of the kernels (off with MATCHFLOW_CUDA_CACHE=0)

__all__ = ["kernels", "certificate_int_kernel", "certificate_float_kernel", "minmax_kernel", "permutation_kernel",
           "assigned_total_kernel", "arange_cast_kernel", "scale_floor_kernel", "tight_rows_kernel", "NFLAGS", "STATUS_OK",
           "STATUS_ROUND_LIMIT", "STATUS_BROKEN_PATH"]

# flag slots in the int32 ``flags`` array
GOTO5 = 8  # 3 rotating slots 8..10 (one per step-4 round: a reset never races a late reader)
FOUND = 1  # 3 rotating slots 1..3
STARS = 4  # 3 rotating slots 4..6
ERR = 7
NFLAGS = 11
# stats slots in the int64 ``stats`` array
S_ROUNDS, S_AUG, S_DUAL, S_STATUS = 0, 1, 2, 3
S_N = 4

STATUS_OK = 0
STATUS_ROUND_LIMIT = 1
STATUS_BROKEN_PATH = 2

COL_CHUNK = 64  # rows per work item of the column-minimum pass


@functools.cache
def kernels(slack_str: str, idx_str: str) -> SimpleNamespace:
    """The named kernels for slack dtype ``slack_str`` and zero-index dtype ``idx_str`` (closure constants)."""
    ST = types.float64 if slack_str == "float64" else (types.int32 if slack_str == "int32" else types.int64)
    IT = types.int32 if idx_str == "int32" else types.int64
    if slack_str == "float64":
        BIG = np.inf
    else:
        BIG = int(np.iinfo(np.dtype(slack_str)).max)
    CH = COL_CHUNK

    # ---------------------------------------------------------------- helpers
    @cuda.jit(device=True, inline=True)
    def load_dev(arr, i):
        """Coherent (L2) read of an int32 flag: the paper's volatile read."""
        return cuda.atomic.or_(arr, i, 0)

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
            for i in range(NFLAGS):
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
    def step2_dev(zeros, nzv, n, cov_row, cov_col, star_col, star_row, tid, start, stride, shflag):
        """Algorithm 1: star independent zeros, covering row then column with atomicExch. Every block takes
        the zeros ``start, start + stride, ...`` (the whole grid: HyLAC's many-block step 2; the paper ran
        one block, slow when the small ranges leave ~10n zeros) and repeats until its own share has no
        conflict; a conflict with another block may leave a zero unstarred (a smaller initial matching,
        never an inconsistent one: a star is written only by the thread that won both the row and the
        column)."""
        while True:
            if tid == 0:
                shflag[0] = 0
            cuda.syncthreads()
            for k in range(start, nzv, stride):
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
            cuda.atomic.add(flags, STARS + slot, cnt)

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
                            cuda.atomic.exch(flags, GOTO5 + slot, 1)
            cuda.syncthreads()
            f = shflag[0]
            if tid == 0:
                shflag[1] = load_dev(flags, GOTO5 + slot)
            cuda.syncthreads()
            g5 = shflag[1]
            cuda.syncthreads()
            if f == 0:
                break
            any_found = 1
            if g5 != 0:
                break
        if tid == 0 and any_found != 0:
            cuda.atomic.exch(flags, FOUND + slot, 1)

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
                        cuda.atomic.exch(flags, ERR, STATUS_BROKEN_PATH)
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
                        cuda.atomic.exch(flags, ERR, STATUS_BROKEN_PATH)
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
    @cuda.jit(cache=CACHE)
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
        nzv = bcast_read_dev(nz, 0, tid, shcnt, 1)
        step2_dev(zeros, nzv, n, cov_row, cov_col, star_col, star_row, tid, gtid, gsize, shflag)
        g.sync()
        rounds = 0
        dual = 0
        outer = 0
        aug = 0
        status = 0
        while True:
            step3_dev(cov_row, cov_col, star_row, prime, green, flags, outer % 3, n, gtid, gsize)
            if gtid == 0:
                flags[STARS + (outer + 1) % 3] = 0
            g.sync()
            stars = bcast_read_dev(flags, STARS + outer % 3, tid, shflag, 2)
            outer += 1
            if stars >= n:
                break
            while True:
                nzv = bcast_read_dev(nz, 0, tid, shcnt, 1)
                step4_dev(zeros, nzv, n, cov_row, cov_col, star_col, prime, flags, rounds % 3, tid, gtid, gsize,
                          shflag)
                if gtid == 0:
                    flags[FOUND + (rounds + 1) % 3] = 0
                    flags[GOTO5 + (rounds + 1) % 3] = 0
                g.sync()
                found = bcast_read_dev(flags, FOUND + rounds % 3, tid, shflag, 2)
                go5 = bcast_read_dev(flags, GOTO5 + rounds % 3, tid, shflag, 2)
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
            err = bcast_read_dev(flags, ERR, tid, shflag, 2)
            if err != 0:
                status = err
                break
        if gtid == 0:
            stats[S_ROUNDS], stats[S_AUG], stats[S_DUAL], stats[S_STATUS] = rounds, aug, dual, status

    # ---------------------------------------------------------------- one kernel per step (host loop)
    @cuda.jit(cache=CACHE)
    def init_kernel(colmin, cov_row, cov_col, star_col, star_row, prime, green, nz, flags, gmin, n):
        gtid = cuda.grid(1)
        init_dev(colmin, cov_row, cov_col, star_col, star_row, prime, green, nz, flags, gmin, n, gtid,
                 cuda.gridsize(1))

    @cuda.jit(cache=CACHE)
    def rowmin_kernel(C, rowmin, n):
        sh = cuda.shared.array(1024, dtype=ST)
        rowmin_dev(C, rowmin, n, cuda.blockIdx.x, cuda.gridDim.x, cuda.threadIdx.x, cuda.blockDim.x, sh)

    @cuda.jit(cache=CACHE)
    def colmin_kernel(C, rowmin, colmin, n):
        colmin_dev(C, rowmin, colmin, n, cuda.grid(1), cuda.gridsize(1))

    @cuda.jit(cache=CACHE)
    def slack_kernel(C, rowmin, colmin, slack, u, v, zeros, nz, n):
        shcnt = cuda.shared.array(2, dtype=IT)
        shbuf = cuda.shared.array(1024, dtype=IT)
        if cuda.threadIdx.x == 0:
            shcnt[0] = 0
        cuda.syncthreads()
        slack_dev(C, rowmin, colmin, slack, u, v, zeros, nz, n, cuda.blockIdx.x, cuda.gridDim.x, cuda.threadIdx.x,
                  cuda.blockDim.x, cuda.grid(1), cuda.gridsize(1), shcnt, shbuf)

    @cuda.jit(cache=CACHE)
    def step2_kernel(zeros, nz, n, cov_row, cov_col, star_col, star_row):
        shflag = cuda.shared.array(4, dtype=types.int32)
        step2_dev(zeros, nz[0], n, cov_row, cov_col, star_col, star_row, cuda.threadIdx.x, cuda.grid(1),
                  cuda.gridsize(1), shflag)

    @cuda.jit(cache=CACHE)
    def step3_kernel(cov_row, cov_col, star_row, prime, green, flags, slot, n):
        step3_dev(cov_row, cov_col, star_row, prime, green, flags, slot, n, cuda.grid(1), cuda.gridsize(1))

    @cuda.jit(cache=CACHE)
    def step4_kernel(zeros, nz, n, cov_row, cov_col, star_col, prime, flags, slot):
        shflag = cuda.shared.array(4, dtype=types.int32)
        step4_dev(zeros, nz[0], n, cov_row, cov_col, star_col, prime, flags, slot, cuda.threadIdx.x, cuda.grid(1),
                  cuda.gridsize(1), shflag)

    @cuda.jit(cache=CACHE)
    def step5a_kernel(n, star_col, star_row, prime, green, flags):
        step5a_dev(n, star_col, star_row, prime, green, flags, cuda.grid(1), cuda.gridsize(1))

    @cuda.jit(cache=CACHE)
    def step5b_kernel(n, star_col, star_row, green, flags):
        step5b_dev(n, star_col, star_row, green, flags, cuda.grid(1), cuda.gridsize(1))

    @cuda.jit(cache=CACHE)
    def step6_min_kernel(slack, cov_row, cov_col, gmin, slot, n):
        sh = cuda.shared.array(1024, dtype=ST)
        step6_min_dev(slack, cov_row, cov_col, gmin, slot, n, cuda.blockIdx.x, cuda.gridDim.x, cuda.threadIdx.x,
                      cuda.blockDim.x, sh)

    @cuda.jit(cache=CACHE)
    def step6_update_kernel(slack, cov_row, cov_col, u, v, gmin, slot, zeros, nz, n):
        shcnt = cuda.shared.array(2, dtype=IT)
        shbuf = cuda.shared.array(1024, dtype=IT)
        if cuda.threadIdx.x == 0:
            shcnt[0] = 0
        cuda.syncthreads()
        step6_update_dev(slack, cov_row, cov_col, u, v, gmin[slot], zeros, nz, n, cuda.blockIdx.x, cuda.gridDim.x,
                         cuda.threadIdx.x, cuda.blockDim.x, cuda.grid(1), cuda.gridsize(1), shcnt, shbuf)

    @cuda.jit(cache=CACHE)
    def reset_kernel(flags, nz, gmin, i_flag, v_flag, i_gmin):
        """Tiny bookkeeping launch of the host loop (resets one flag, the zero count, one min slot)."""
        if cuda.grid(1) == 0:
            if i_flag >= 0:
                flags[i_flag] = v_flag
            if i_gmin >= 0:
                gmin[i_gmin] = BIG
                nz[0] = 0

    loc = dict(locals())
    return SimpleNamespace(**{k: val for k, val in loc.items() if k.endswith("_kernel")})



def _certificate_kernel(DT: Any, BIG: Any) -> Any:
    """The certificate kernel in the duals' dtype ``DT`` (``BIG``: its largest value; closure constants):
    out[0] = min over all (C - u - v), out[1] = max |.| on assigned pairs."""

    @cuda.jit(cache=CACHE)
    def certificate_kernel(C, u, v, star_col, n, out):
        """Grid-stride over rows, block-stride over columns; one atomic min / max pair per thread."""
        tid = cuda.threadIdx.x
        bdim = cuda.blockDim.x
        m = DT(BIG)
        mx = DT(0)
        for r in range(cuda.blockIdx.x, n, cuda.gridDim.x):
            base = r * n
            ur = u[r]
            sc = star_col[r]
            for c in range(tid, n, bdim):
                d = DT(C[base + c]) - ur - v[c]
                if d < m:
                    m = d
                if c == sc:
                    a = d if d >= 0 else -d
                    if a > mx:
                        mx = a
        cuda.atomic.min(out, 0, m)
        cuda.atomic.max(out, 1, mx)

    return certificate_kernel


certificate_int_kernel = _certificate_kernel(types.int64, 9223372036854775807)  # exact integer certificate
certificate_float_kernel = _certificate_kernel(types.float64, np.inf)  # float certificate


@cuda.jit(cache=CACHE)
def minmax_kernel(C, size, out):
    """out[0] = min, out[1] = max of the flat matrix (grid-stride; one atomic pair per thread)."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    lo = out[0]
    hi = out[1]
    for k in range(i, size, stride):
        x = C[k]
        if x < lo:
            lo = x
        if x > hi:
            hi = x
    cuda.atomic.min(out, 0, lo)
    cuda.atomic.max(out, 1, hi)


@cuda.jit(cache=CACHE)
def permutation_kernel(star_col, seen, bad):
    """bad[0] = 1 unless ``star_col`` is a permutation of 0..n-1 (``seen`` zeroed, n entries)."""
    r = cuda.grid(1)
    n = star_col.size
    if r < n:
        c = star_col[r]
        if c < 0 or c >= n or cuda.atomic.add(seen, c, 1) != 0:
            bad[0] = 1


@cuda.jit(cache=CACHE)
def assigned_total_kernel(C, star_col, n, out):
    """out[0] = sum of C[r, star_col[r]] (exact int64)."""
    r = cuda.grid(1)
    if r < n:
        cuda.atomic.add(out, 0, np.int64(C[r * n + star_col[r]]))


@cuda.jit(cache=CACHE)
def arange_cast_kernel(star_col, row_ind, col_ind):
    """row_ind = 0..n-1 and col_ind = star_col as int64 (the API's index dtype)."""
    r = cuda.grid(1)
    if r < star_col.size:
        row_ind[r] = r
        col_ind[r] = star_col[r]


# ---------------------------------------------------------------- the float route (integer pre-solve)

@cuda.jit(cache=CACHE)
def scale_floor_kernel(C, size, lo, s, cap, out):
    """out = min(max(floor((C - lo) * s), 0), cap) as int32: the integer matrix of the float route's
    pre-solve (``C`` finite, ``lo`` its minimum: every value lies in [0, cap])."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    for k in range(i, size, stride):
        x = math.floor((np.float64(C[k]) - lo) * s)
        out[k] = np.int32(cap) if x >= cap else (np.int32(x) if x > 0 else np.int32(0))


@cuda.jit(cache=CACHE)
def tight_rows_kernel(C, v, star_col, n, tight):
    """One block per row: ``tight[i] = 1`` when the assigned column attains ``min_j C[i, j] - v[j]``
    (float64, the same single rounding as the host's JV), else 0 (the row is freed for the repair)."""
    sh = cuda.shared.array(1024, dtype=types.float64)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    for r in range(cuda.blockIdx.x, n, cuda.gridDim.x):
        base = r * n
        m = dense_row_min_dev(C, base, n, 0.0, v, True, sh, tid, bdim)
        if tid == 0:
            j = star_col[r]
            tight[r] = 1 if np.float64(C[base + j]) - v[j] == m else 0


@cuda.jit(cache=CACHE)
def row_gap_kernel(C, n, gap):
    """One block per row: ``gap[i]`` = the second smallest distinct value of row i minus its smallest (+inf when
    the row holds one value): the row's resolution, which caps the float route's integer scale."""
    sh = cuda.shared.array(1024, dtype=types.float64)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    for r in range(cuda.blockIdx.x, n, cuda.gridDim.x):
        base = r * n
        m = dense_row_min_dev(C, base, n, 0.0, gap, False, sh, tid, bdim)
        m2 = np.inf
        for c in range(tid, n, bdim):
            x = np.float64(C[base + c])
            if m < x < m2:
                m2 = x
        m2 = block_min_dev(sh, m2, tid, bdim)
        if tid == 0:
            gap[r] = m2 - m
