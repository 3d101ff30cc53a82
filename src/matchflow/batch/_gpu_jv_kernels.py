"""Kernels of the batched GPU assignment: one block per item, SciPy's shortest augmenting paths (Crouse 2016).

One launch solves every item (``lsap_batch_kernel``; blocks stride over the items). Per item, the rows of the
smaller side are augmented one by one (a tall item is read transposed), each by a Dijkstra search over the
columns in the order SciPy scans them (its ``remaining`` list: reversed at the start, the chosen column swapped
with the last); the block's threads scan the columns in parallel and a block reduction picks SciPy's column:
the least reduced path cost; among equal ones, the last free column in the scan order when there is a free
one, else the first. The same float64 expressions in the same order as SciPy's ``rectangular_lsap.cpp``
(no products: nothing to contract into a fused multiply-add), so the answers are SciPy's, ties included.

Shared memory (dynamic, sized by the host for the largest item): the reduction slots, the item's work arrays
(``v``, shortest path costs, ``u``; ``path``, ``row4col``, ``remaining``, ``SC``, ``col4row``, ``SR``) and,
where they fit, its costs (signed, in the solved orientation); beyond, the work arrays live in global memory at
the item's offsets and the costs are read from the caller's array. Status codes per item: :data:`OK`,
:data:`INFEASIBLE` (no complete matching of the smaller side avoids the ``+inf`` entries), :data:`INVALID` (NaN,
or ``-inf`` after the sign), :data:`WIDE` (magnitudes beyond the exact range of the CPU twin's limits: the host
solves the item again, :func:`._cpu_jv.resolve_items`).

The warp-shuffle reduction has a shared-memory twin (a tree over the block) that the CUDA simulator runs (it has
no warp intrinsics) and that block sizes below 32 use.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, float64, int32

from .._cuda._device import FULL_MASK
from .._cuda._env import is_simulator, kernel_cache

CACHE = kernel_cache()  # numba-cuda on-disk cache of the kernels (off with MATCHFLOW_CUDA_CACHE=0)
SHFL = not is_simulator()  # warp shuffles on a real device; the shared-memory tree in the simulator

__all__ = ["lsap_batch_kernel", "OK", "INFEASIBLE", "INVALID", "WIDE", "INT_LIMIT",
           "FLOAT_LIMIT", "item_smem", "head8", "RED_SLOTS", "meta_rows", "item_dev", "clear_item_dev", "precheck_dev",
           "put_row_dev", "put_col_dev"]

OK, INFEASIBLE, INVALID, WIDE = 0, 1, 2, 3
# an item is WIDE when max |finite entry| > LIMIT / (max(n, m) + 2): the CPU twin's bounds (_cpu_jv), so every
# value the search forms fits (int64) or stays finite (float64)
INT_LIMIT = 2.0**62 / 32.0
FLOAT_LIMIT = 2.0**900 / 64.0
RED_SLOTS = 4  # int32 broadcast slots after the reduction's tags


def meta_rows(p) -> np.ndarray:
    """The item table every batched kernel reads, ``(6, max(B, 1))`` int64: offset, row stride, rows, columns,
    first answer row, first answer column of each item (``meta[k, b]``)."""
    meta = np.zeros((6, max(p.batch, 1)), dtype=np.int64)
    for k, a in enumerate((p.offs, p.ld, p.rows, p.cols, p.out_rows[:-1], p.out_cols[:-1])):
        meta[k, :p.batch] = a
    return meta


def head8(bdim: int) -> int:
    """8-byte words before the work arrays: the reduction's values (``bdim``), tags (``bdim`` int32) and
    broadcast slots (:data:`RED_SLOTS` int32)."""
    return bdim + (bdim + RED_SLOTS + 1) // 2


def item_smem(nr: int, nc: int, bdim: int, costs: bool, work: bool = True) -> int:
    """Dynamic shared bytes of one item (``nr <= nc`` in the solved orientation): the head, then its work
    arrays when ``work`` and its costs when ``costs`` (:func:`_layout_dev`'s layout)."""
    if not work:
        return 8 * head8(bdim)
    return 8 * (head8(bdim) + nr + 2 * nc + (nr * nc if costs else 0)) + 4 * (4 * nc + 2 * nr)


@cuda.jit(device=True, inline=True)
def item_dev(meta, b):
    """Item ``b``'s offset, row stride, rows, columns, first answer row and first answer column (``meta_rows``)."""
    return meta[0, b], meta[1, b], meta[2, b], meta[3, b], meta[4, b], meta[5, b]


@cuda.jit(device=True)
def clear_item_dev(n, m, r0, c0, zero, first, step, col4row_out, u_out, v_out):
    """The item's answer before its solve (``-1``, zero duals), by the threads ``first, first + step, ...``."""
    for k in range(first, n, step):
        col4row_out[r0 + k] = -1
        u_out[r0 + k] = zero
    for k in range(first, m, step):
        v_out[c0 + k] = zero


@cuda.jit(device=True, inline=True)
def precheck_dev(bad, big, limit, nc):
    """OK, or INVALID (NaN / ``-inf`` after the sign), or WIDE (beyond the exact range)."""
    if bad:
        return INVALID
    if big > limit / (nc + 2):
        return WIDE
    return OK


@cuda.jit(device=True, inline=True)
def put_row_dev(tr, k, j, uk, r0, c0, sign, col4row_out, u_out, v_out):
    """Solved row ``k`` (matched to column ``j``, dual ``uk``) into the answer, in the user's orientation and sign."""
    if tr:
        col4row_out[r0 + j] = k
        v_out[c0 + k] = sign * uk
    else:
        col4row_out[r0 + k] = j
        u_out[r0 + k] = sign * uk


@cuda.jit(device=True, inline=True)
def put_col_dev(tr, k, vk, r0, c0, sign, u_out, v_out):
    """Solved column ``k``'s dual ``vk`` into the answer, in the user's orientation and sign."""
    if tr:
        u_out[r0 + k] = sign * vk
    else:
        v_out[c0 + k] = sign * vk


@cuda.jit(device=True, inline=True)
def _better_dev(v1, t1, v2, t2):
    """(v1, t1) before (v2, t2): the smaller value; among equal values the larger tag."""
    return v1 < v2 or (v1 == v2 and t1 > t2)


@cuda.jit(device=True)
def block_argmin_dev(val, tag, shv, sht, tid, bdim):
    """The best ``(val, tag)`` of the block (:func:`_better_dev`), for every thread. Warp shuffles on a device
    when the block is whole warps; else a tree over ``shv``, ``sht`` (``bdim`` slots each, a power of two)."""
    if SHFL and bdim % 32 == 0:
        off = 16
        while off > 0:
            v2 = cuda.shfl_xor_sync(FULL_MASK, val, off)
            t2 = cuda.shfl_xor_sync(FULL_MASK, tag, off)
            if _better_dev(v2, t2, val, tag):
                val = v2
                tag = t2
            off //= 2
        if bdim == 32:
            return val, tag
        if tid % 32 == 0:
            shv[tid // 32] = val
            sht[tid // 32] = tag
        cuda.syncthreads()
        val = shv[0]
        tag = sht[0]
        for w in range(1, bdim // 32):
            if _better_dev(shv[w], sht[w], val, tag):
                val = shv[w]
                tag = sht[w]
        cuda.syncthreads()
        return val, tag
    shv[tid] = val
    sht[tid] = tag
    cuda.syncthreads()
    s = bdim // 2
    while s > 0:
        if tid < s and _better_dev(shv[tid + s], sht[tid + s], shv[tid], sht[tid]):
            shv[tid] = shv[tid + s]
            sht[tid] = sht[tid + s]
        cuda.syncthreads()
        s //= 2
    val = shv[0]
    tag = sht[0]
    cuda.syncthreads()
    return val, tag


@cuda.jit(device=True, inline=True)
def _cost_dev(sc, cshared, vals, base, ld, tr, nc, sign, i, j):
    """Entry ``(i, j)`` of the solved (signed, maybe transposed) item."""
    if cshared:
        return sc[i * nc + j]
    if tr:
        return sign * vals[base + j * ld + i]
    return sign * vals[base + i * ld + j]


@cuda.jit(device=True)
def _load_dev(vals, base, ld, n, m, tr, sign, sc, cshared, shf, sht, tid, bdim):
    """Scan the item once (coalesced): NaN / ``-inf`` after the sign, the largest finite magnitude; its signed
    costs into ``sc`` (solved orientation) when ``cshared``. Returns (invalid, largest magnitude)."""
    worst = 0.0  # -(largest magnitude), or -inf for an invalid entry
    for k in range(tid, n * m, bdim):
        r = k // m
        c = k - r * m
        x = sign * vals[base + r * ld + c]
        if cshared:
            if tr:
                sc[c * n + r] = x
            else:
                sc[k] = x
        f = np.float64(x)
        if f != f or f == -np.inf:
            worst = -np.inf
        elif f != np.inf and -abs(f) < worst:
            worst = -abs(f)
    w, _ = block_argmin_dev(worst, int32(0), shf, sht, tid, bdim)
    return w == -np.inf, -w


@cuda.jit(device=True)
def _search_dev(cur, nr, nc, zero, inf, u, v, spc, path, row4col, rem, SC, SR, cost_args, shv, sht, bc, tid, bdim):
    """SciPy's ``augmenting_path`` from row ``cur``: returns (sink, minVal); sink -1 when none exists. One
    barrier per step: thread 0 takes the chosen column out of ``rem`` and broadcasts it through ``bc[step % 2]``
    (two slots: a slot is rewritten two steps later, after every thread has read it)."""
    sc, cshared, vals, base, ld, tr, sign = cost_args
    for k in range(tid, nc, bdim):
        rem[k] = nc - k - 1
        SC[k] = 0
        spc[k] = inf
    for k in range(tid, nr, bdim):
        SR[k] = 0
    cuda.syncthreads()
    minval = zero
    nrem = nc
    i = cur
    sink = -1
    step = 0
    while sink == -1:
        ui = u[i]
        best = inf
        btag = int32(-1)
        for it in range(tid, nrem, bdim):
            j = rem[it]
            r = minval + _cost_dev(sc, cshared, vals, base, ld, tr, nc, sign, i, j) - ui - v[j]
            if r < spc[j]:
                path[j] = i
                spc[j] = r
            s = spc[j]
            t = int32(nc + it) if row4col[j] == -1 else int32(nc - 1 - it)
            if _better_dev(s, t, best, btag):
                best = s
                btag = t
        best, btag = block_argmin_dev(best, btag, shv, sht, tid, bdim)
        if best == inf:
            return -1, best
        slot = step % 2
        if tid == 0:
            SR[i] = 1
            idx = btag - nc if btag >= nc else nc - 1 - btag
            j = rem[idx]
            rem[idx] = rem[nrem - 1]
            SC[j] = 1
            bc[slot] = j
        cuda.syncthreads()
        minval = best
        j = bc[slot]
        nrem -= 1
        step += 1
        if row4col[j] == -1:
            sink = j
        else:
            i = row4col[j]
    return sink, minval


@cuda.jit(device=True)
def _item_dev(nr, nc, zero, inf, u, v, spc, path, row4col, rem, SC, SR, col4row, cost_args, shv, sht, bc, tid, bdim):
    """Every row of the item augmented (SciPy's ``solve``); returns OK or INFEASIBLE."""
    for k in range(tid, nc, bdim):
        v[k] = zero
        row4col[k] = -1
    for k in range(tid, nr, bdim):
        u[k] = zero
        col4row[k] = -1
    cuda.syncthreads()
    for cur in range(nr):
        sink, minval = _search_dev(cur, nr, nc, zero, inf, u, v, spc, path, row4col, rem, SC, SR, cost_args, shv,
                                   sht, bc, tid, bdim)
        if sink < 0:
            return INFEASIBLE
        for k in range(tid, nr, bdim):  # the dual update (no thread reads another's entries)
            if k == cur:
                u[k] += minval
            elif SR[k] == 1:
                u[k] += minval - spc[col4row[k]]
        for k in range(tid, nc, bdim):
            if SC[k] == 1:
                v[k] -= minval - spc[k]
        cuda.syncthreads()
        if tid == 0:  # augment along the path
            j = sink
            while True:
                i = path[j]
                row4col[j] = i
                t = col4row[i]
                col4row[i] = j
                j = t
                if i == cur:
                    break
        cuda.syncthreads()
    return OK


@cuda.jit(device=True, inline=True)
def _layout_dev(dv, di, wshared, gval, gint, gv0, gi0, nr, nc, h8, costs):
    """The item's arrays (u, v, spc, sc, path, row4col, rem, SC, col4row, SR): after the head of the dynamic
    shared memory (``item_smem``'s layout), or at the item's global offsets; the costs ``sc`` in shared memory
    after the value arrays."""
    if wshared:
        fv = dv
        a = h8
        fi = di
        b = 2 * (h8 + nr + 2 * nc + (nr * nc if costs else 0))
    else:
        fv = gval
        a = gv0
        fi = gint
        b = gi0
    u = fv[a:a + nr]
    v = fv[a + nr:a + nr + nc]
    spc = fv[a + nr + nc:a + nr + 2 * nc]
    sc = dv[h8 + nr + 2 * nc:]
    path = fi[b:b + nc]
    row4col = fi[b + nc:b + 2 * nc]
    rem = fi[b + 2 * nc:b + 3 * nc]
    SC = fi[b + 3 * nc:b + 4 * nc]
    col4row = fi[b + 4 * nc:b + 4 * nc + nr]
    SR = fi[b + 4 * nc + nr:b + 4 * nc + 2 * nr]
    return u, v, spc, sc, path, row4col, rem, SC, col4row, SR


@cuda.jit(cache=CACHE)
def lsap_batch_kernel(vals, meta, nb, sign, zero, inf, limit, smem, wshared, gval, gint, col4row_out, u_out, v_out,
                      status):
    """Every item of the batch, a block each (a block strides over items ``blockIdx.x + k * gridDim.x``);
    ``meta``: the item table (``meta_rows``), ``nb`` items.

    ``sign``, ``zero``, ``inf`` (+inf, or the int64 maximum): of the costs' type; ``limit``: :data:`INT_LIMIT` or
    :data:`FLOAT_LIMIT`. ``smem``: the launch's dynamic shared bytes; with ``wshared`` every item's work arrays
    lie in shared memory (:func:`item_smem`), and an item keeps its costs there too when they fit in ``smem``;
    else the work arrays lie in ``gval`` / ``gint`` at ``2 (out_rows[b] + out_cols[b])`` / ``4 (...)``. Writes
    the answer in the user's orientation and sign (``u + v <= C``; ``>=`` when ``sign = -1``)."""
    dv = cuda.shared.array(0, dtype=vals.dtype)
    df = cuda.shared.array(0, dtype=float64)
    di = cuda.shared.array(0, dtype=int32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    h8 = bdim + (bdim + RED_SLOTS + 1) // 2
    shv = dv[:bdim]
    sht = di[2 * bdim:3 * bdim]
    bc = di[3 * bdim:3 * bdim + RED_SLOTS]
    for b in range(cuda.blockIdx.x, nb, cuda.gridDim.x):
        base, ld, n, m, r0, c0 = item_dev(meta, b)
        clear_item_dev(n, m, r0, c0, zero, tid, bdim, col4row_out, u_out, v_out)
        tr = n > m
        nr = m if tr else n
        nc = n if tr else m
        costs = wshared and 8 * (h8 + nr + 2 * nc + nr * nc) + 4 * (4 * nc + 2 * nr) <= smem
        u, v, spc, sc, path, row4col, rem, SC, col4row, SR = _layout_dev(
            dv, di, wshared, gval, gint, 2 * (r0 + c0), 4 * (r0 + c0), nr, nc, h8, costs)
        bad, big = _load_dev(vals, base, ld, n, m, tr, sign, sc, costs, df[:bdim], sht, tid, bdim)
        code = precheck_dev(bad, big, limit, nc)
        if code == OK and nr > 0:
            code = _item_dev(nr, nc, zero, inf, u, v, spc, path, row4col, rem, SC, SR, col4row,
                             (sc, costs, vals, base, ld, tr, sign), shv, sht, bc, tid, bdim)
        if code == OK and nr > 0:
            for k in range(tid, nr, bdim):
                put_row_dev(tr, k, col4row[k], u[k], r0, c0, sign, col4row_out, u_out, v_out)
            for k in range(tid, nc, bdim):
                put_col_dev(tr, k, v[k], r0, c0, sign, u_out, v_out)
        if tid == 0:
            status[b] = code
        cuda.syncthreads()
