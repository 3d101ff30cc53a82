"""Device helpers shared by the GPU kernels: warp and block reductions, coherent reads broadcast to a
block, and the rotating grid-sync slots of the persistent (cooperative) kernels.

Grid-sync slots: a persistent kernel keeps its phase flags and counters in an int32 ``sync`` array of
``PS_NSYNC`` words: 3 rotating flag slots (``PS_FLAG + 0..2``) and 3 rotating counter slots
(``PS_CNT + 0..2``). In phase r the threads write slot r % 3 while thread 0 clears slot (r + 1) % 3 for
the next phase; after the grid sync every block reads slot r % 3. A slot is cleared again only in
phase r + 2, after every block has passed the sync of phase r + 1, so a reset never races a late
reader (with one shared word, fast blocks of phase r + 1 would clear it while slow ones still read it).
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int64

__all__ = ["FULL_MASK", "PS_FLAG", "PS_CNT", "PS_NSYNC", "phase_end_dev", "bcast_read_dev", "phase_read_dev",
           "warp_sum_dev", "warp_min_dev", "block_min_dev", "dense_row_min_dev", "block_sum_dev", "grid_total_dev",
           "block_scan_dev", "grid_stride_dev", "row_of_dev", "lower_bound_dev"]

FULL_MASK = 0xFFFFFFFF
PS_FLAG = 0
PS_CNT = 3
PS_NSYNC = 6


@cuda.jit(device=True, inline=True)
def phase_end_dev(sync, r, gtid):
    """Thread 0 clears the next phase's flag and counter slots; then the grid synchronises."""
    if gtid == 0:
        s = (r + 1) % 3
        sync[PS_FLAG + s] = 0
        sync[PS_CNT + s] = 0
    cuda.cg.this_grid().sync()


@cuda.jit(device=True, inline=True)
def bcast_read_dev(arr, idx, tid, sh, k):
    """Thread 0 reads ``arr[idx]`` coherently (an atomic, i.e. at L2: the paper's volatile read); the
    block gets it through shared slot ``sh[k]``. Both barriers are needed: no thread reads the slot
    before it is written, and none overwrites it before every thread has read it."""
    if tid == 0:
        sh[k] = cuda.atomic.add(arr, idx, 0)
    cuda.syncthreads()
    x = sh[k]
    cuda.syncthreads()
    return x


@cuda.jit(device=True, inline=True)
def phase_read_dev(sync, slot, r, gtid, tid, sh):
    """The end of phase ``r`` (:func:`phase_end_dev`), then the phase's word ``sync[slot + r % 3]`` (``slot``:
    ``PS_FLAG`` or ``PS_CNT``) read coherently by every thread (:func:`bcast_read_dev` through ``sh[0]``)."""
    phase_end_dev(sync, r, gtid)
    return bcast_read_dev(sync, slot + r % 3, tid, sh, 0)


@cuda.jit(device=True, inline=True)
def warp_sum_dev(x):
    """Butterfly sum over the 32 lanes of a full warp; every lane gets it."""
    off = 16
    while off > 0:
        x += cuda.shfl_xor_sync(FULL_MASK, x, off)
        off //= 2
    return x


@cuda.jit(device=True, inline=True)
def warp_min_dev(x):
    """Butterfly minimum over the 32 lanes of a full warp; every lane gets it."""
    off = 16
    while off > 0:
        y = cuda.shfl_xor_sync(FULL_MASK, x, off)
        if y < x:
            x = y
        off //= 2
    return x


@cuda.jit(device=True)
def block_min_dev(sh, val, tid, bdim):
    """Tree reduction over a power-of-two block (no warp intrinsics: any block size, the simulator);
    every thread gets the minimum."""
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
def dense_row_min_dev(C, base, n, off, v, use_v, sh, tid, bdim):
    """The minimum over ``c`` of ``(C[base + c] + off) - v[c]`` (without ``- v[c]`` unless ``use_v``) across a
    block that strides over one row of a flat dense matrix, in float64; every thread gets it."""
    m = np.inf
    for c in range(tid, n, bdim):
        h = np.float64(C[base + c]) + off
        if use_v:
            h = h - v[c]
        if h < m:
            m = h
    return block_min_dev(sh, m, tid, bdim)


@cuda.jit(device=True)
def block_sum_dev(sh, val, tid, bdim):
    """Tree sum over a power-of-two block (no warp intrinsics: any block size, the simulator); every
    thread gets the sum (``sh``: a shared array of at least ``bdim`` slots of ``val``'s type)."""
    sh[tid] = val
    cuda.syncthreads()
    s = bdim // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    r = sh[0]
    cuda.syncthreads()
    return r


@cuda.jit(device=True, inline=True)
def grid_total_dev(g, sh, val, out, base, ph, i0, tid, bdim):
    """The sum of ``val`` over the grid, returned to every thread (reduction number ``ph`` of a cooperative
    kernel, grid group ``g``): block sums (:func:`block_sum_dev`) added to ``out[base + ph % 3]``, thread 0 of
    the grid (``i0 == 0``) clears ``out[base + (ph + 1) % 3]`` (last read in reduction ``ph - 2``: every thread
    passed the grid sync of ``ph - 1`` since) before the grid sync, read after it."""
    tot = block_sum_dev(sh, val, tid, bdim)
    if tid == 0 and tot:
        cuda.atomic.add(out, base + ph % 3, tot)
    if i0 == 0:
        out[base + (ph + 1) % 3] = 0
    g.sync()
    return cuda.atomic.add(out, base + ph % 3, 0)  # a coherent read (at L2)


@cuda.jit(device=True, inline=True)
def block_scan_dev(sh, x, t, nt):
    """Inclusive prefix sum (Hillis-Steele) of the block's ``x`` in shared ``sh[0:nt]`` (``nt``: the threads of
    the block, ``t``: this thread): on return ``sh[t]`` = the sum of ``x`` over threads ``0..t``, visible to the
    whole block."""
    sh[t] = x
    cuda.syncthreads()
    off = 1
    while off < nt:
        y = int64(0)
        if t >= off:
            y = sh[t - off]
        cuda.syncthreads()
        sh[t] += y
        cuda.syncthreads()
        off *= 2


@cuda.jit(device=True, inline=True)
def grid_stride_dev():
    """A grid-stride loop's thread: ``(first item, stride, thread in block, block size)``."""
    return cuda.grid(1), cuda.gridsize(1), cuda.threadIdx.x, cuda.blockDim.x


@cuda.jit(device=True, inline=True)
def row_of_dev(ptr, n_rows, e):
    """The row ``u`` of a CSR entry: ``ptr[u] <= e < ptr[u + 1]`` (binary search over the ``n_rows + 1``
    offsets; rows without entries are skipped)."""
    lo = int64(0)
    hi = int64(n_rows)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ptr[mid] <= e:
            lo = mid
        else:
            hi = mid
    return lo


@cuda.jit(device=True, inline=True)
def lower_bound_dev(ind, a, b, x):
    """The first position ``k`` in ``[a, b)`` with ``ind[k] >= x`` (``ind`` ascending there), ``b`` if none."""
    a = int64(a)
    b = int64(b)
    while a < b:
        mid = (a + b) // 2
        if ind[mid] < x:
            a = mid + 1
        else:
            b = mid
    return a
