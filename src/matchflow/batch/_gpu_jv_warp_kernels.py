"""The batched GPU assignment for small items: a warp per item, its state in the lanes' registers.

``lsap_warp_kernel`` runs the same algorithm as ``_gpu_jv_kernels.lsap_batch_kernel`` (SciPy's shortest
augmenting paths, Crouse 2016, SciPy's scan order and tie-break, the same float64 expressions), for items
whose larger side is at most :data:`WARP_SIDE`: lane ``l`` owns the columns ``l, l + 32, ...`` (up to
:data:`SLOTS` of them: ``v``, the shortest path cost, ``path``, ``row4col``, the column's position in SciPy's
``remaining`` list and its scanned flag) and the rows ``l, l + 32, ...`` (``u``, ``col4row``, the scanned
flag), in local arrays. A Dijkstra step is a warp-wide argmin by shuffles (SciPy's key: the least cost; among
equal ones the last free column in scan order, else the first) and a few broadcasts: no shared memory, no block
barrier. ``remaining``'s swap-with-last removal is kept as positions: the chosen column leaves, the column at
the last position takes its place, so the tags (positions) are SciPy's.

Several warps share a block (:data:`WARPS`), each on its own items. In the CUDA simulator (no warp
intrinsics) the shuffles go through shared memory and a block holds one warp.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, float64, int32

from .._cuda._device import FULL_MASK, warp_min_dev
from .._cuda._env import is_simulator, kernel_cache
from ._gpu_jv_kernels import INFEASIBLE, OK, clear_item_dev, item_dev, precheck_dev, put_col_dev, put_row_dev

CACHE = kernel_cache()
SHFL = not is_simulator()

__all__ = ["lsap_warp_kernel", "WARP_SIDE", "SLOTS", "WARPS"]

SLOTS = 4  # columns (and rows) per lane
WARP_SIDE = 32 * SLOTS  # the largest side of an item this kernel takes
WARPS = 4 if SHFL else 1  # warps per block
_NOPE = 1 << 30


@cuda.jit(device=True, inline=True)
def _get_dev(shx, val, src, lane):
    """Lane ``src``'s ``val`` (a shuffle; shared memory in the simulator, whose block is one warp)."""
    if SHFL:
        return cuda.shfl_sync(FULL_MASK, val, src)
    shx[lane] = val
    cuda.syncthreads()
    r = shx[src]
    cuda.syncthreads()
    return r


@cuda.jit(device=True, inline=True)
def _better_dev(v1, t1, v2, t2):
    return v1 < v2 or (v1 == v2 and t1 > t2)


@cuda.jit(device=True)
def _argmin_dev(shv, shi, val, tag, lane):
    """The warp's best ``(val, tag)`` (:func:`_better_dev`), for every lane."""
    off = 16
    while off > 0:
        v2 = _get_dev(shv, val, lane ^ off, lane)
        t2 = _get_dev(shi, tag, lane ^ off, lane)
        if _better_dev(v2, t2, val, tag):
            val = v2
            tag = t2
        off //= 2
    return val, tag


@cuda.jit(device=True)
def _min_dev(shx, x, lane):
    """The warp's least ``x``, for every lane: the shared layer's butterfly of shuffles (:func:`warp_min_dev`); in
    the simulator a scan of the lanes' values through shared memory (``shx``, of ``x``'s type)."""
    if SHFL:
        return warp_min_dev(x)
    shx[lane] = x
    cuda.syncthreads()
    for k in range(32):
        if shx[k] < x:
            x = shx[k]
    cuda.syncthreads()
    return x


@cuda.jit(device=True)
def _slot_get_dev(shx, arr, k, lane):
    """Entry ``k`` of a lane-distributed array (``arr[s]`` of lane ``l`` is entry ``l + 32 s``), for every lane
    (``k`` may differ between lanes: one shuffle per slot)."""
    out = arr[0]
    for s in range(SLOTS):
        x = _get_dev(shx, arr[s], k % 32, lane)
        if k // 32 == s:
            out = x
    return out


@cuda.jit(device=True, inline=True)
def _cost_dev(vals, base, ld, tr, sign, i, j):
    if tr:
        return sign * vals[base + j * ld + i]
    return sign * vals[base + i * ld + j]


@cuda.jit(device=True)
def _check_dev(shf, vals, base, ld, n, m, sign, lane):
    """(invalid, largest finite magnitude) of the item: NaN or ``-inf`` after the sign is invalid."""
    worst = 0.0
    for k in range(lane, n * m, 32):
        r = k // m
        f = np.float64(sign * vals[base + r * ld + k - r * m])
        if f != f or f == -np.inf:
            worst = -np.inf
        elif f != np.inf and -abs(f) < worst:
            worst = -abs(f)
    worst = _min_dev(shf, worst, lane)
    return worst == -np.inf, -worst


@cuda.jit(device=True)
def _search_dev(cur, nc, zero, inf, uu, v, spc, path, r4c, pos, sc, sr, cargs, shv, shi, lane):
    """SciPy's ``augmenting_path`` from row ``cur``: (sink, minVal); sink -1 when none exists."""
    vals, base, ld, tr, sign = cargs
    for s in range(SLOTS):
        j = lane + 32 * s
        pos[s] = nc - 1 - j
        sc[s] = 0
        spc[s] = inf
        sr[s] = 0
    minval = zero
    nrem = nc
    i = cur
    while True:
        if i % 32 == lane:
            sr[i // 32] = 1
        ui = _get_dev(shv, uu[i // 32], i % 32, lane)
        best = inf
        btag = int32(-1)
        for s in range(SLOTS):
            j = lane + 32 * s
            if j < nc and sc[s] == 0:
                r = minval + _cost_dev(vals, base, ld, tr, sign, i, j) - ui - v[s]
                if r < spc[s]:
                    path[s] = i
                    spc[s] = r
                t = int32(nc + pos[s]) if r4c[s] == -1 else int32(nc - 1 - pos[s])
                if _better_dev(spc[s], t, best, btag):
                    best = spc[s]
                    btag = t
        best, btag = _argmin_dev(shv, shi, best, btag, lane)
        if best == inf:
            return -1, best
        idx = btag - nc if btag >= nc else nc - 1 - btag
        mine = int32(_NOPE)
        mine_r = int32(-1)
        for s in range(SLOTS):
            j = lane + 32 * s
            if j < nc and sc[s] == 0:
                if pos[s] == idx:
                    sc[s] = 1
                    mine = int32(j)
                    mine_r = r4c[s]
                elif pos[s] == nrem - 1:
                    pos[s] = idx
        j = _min_dev(shi, mine, lane)
        rj = _get_dev(shi, mine_r, j % 32, lane)
        nrem -= 1
        minval = best
        if rj == -1:
            return j, minval
        i = rj


@cuda.jit(device=True)
def _item_dev(nr, nc, zero, inf, uu, v, spc, path, r4c, pos, sc, sr, c4r, cargs, shv, shi, lane):
    """Every row of the item augmented (SciPy's ``solve``); returns OK or INFEASIBLE."""
    for s in range(SLOTS):
        v[s] = zero
        r4c[s] = -1
        uu[s] = zero
        c4r[s] = -1
    for cur in range(nr):
        sink, minval = _search_dev(cur, nc, zero, inf, uu, v, spc, path, r4c, pos, sc, sr, cargs, shv, shi, lane)
        if sink < 0:
            return INFEASIBLE
        for s in range(SLOTS):  # the dual update: a scanned row's matched column's cost (other lanes' slots)
            k = lane + 32 * s
            col = c4r[s] if c4r[s] >= 0 else 0
            d = _slot_get_dev(shv, spc, col, lane)
            if k < nr and sr[s] == 1:
                if k == cur:
                    uu[s] += minval
                else:
                    uu[s] += minval - d
        for s in range(SLOTS):
            if lane + 32 * s < nc and sc[s] == 1:
                v[s] -= minval - spc[s]
        j = sink  # augment along the path: a serial chain of broadcasts
        while True:
            i = _slot_get_dev(shi, path, j, lane)
            if j % 32 == lane:
                r4c[j // 32] = i
            t = _slot_get_dev(shi, c4r, i, lane)
            if i % 32 == lane:
                c4r[i // 32] = j
            j = t
            if i == cur:
                break
    return OK


@cuda.jit(cache=CACHE)
def lsap_warp_kernel(vals, meta, nb, sign, zero, inf, limit, col4row_out, u_out, v_out, status):
    """Every item of the batch (larger side <= :data:`WARP_SIDE`), a warp each (``meta``, ``nb``: the item table
    and the item count, as ``lsap_batch_kernel`` reads them); the answer in the user's orientation and sign."""
    shv = cuda.shared.array(32, dtype=vals.dtype)  # the simulator's shuffles only
    shi = cuda.shared.array(32, dtype=int32)
    shf = cuda.shared.array(32, dtype=float64)
    uu = cuda.local.array(SLOTS, dtype=vals.dtype)
    v = cuda.local.array(SLOTS, dtype=vals.dtype)
    spc = cuda.local.array(SLOTS, dtype=vals.dtype)
    path = cuda.local.array(SLOTS, dtype=int32)
    r4c = cuda.local.array(SLOTS, dtype=int32)
    pos = cuda.local.array(SLOTS, dtype=int32)
    sc = cuda.local.array(SLOTS, dtype=int32)
    sr = cuda.local.array(SLOTS, dtype=int32)
    c4r = cuda.local.array(SLOTS, dtype=int32)
    lane = cuda.threadIdx.x % 32
    warps = cuda.blockDim.x // 32
    for b in range(cuda.blockIdx.x * warps + cuda.threadIdx.x // 32, nb, cuda.gridDim.x * warps):
        base, ld, n, m, r0, c0 = item_dev(meta, b)
        clear_item_dev(n, m, r0, c0, zero, lane, 32, col4row_out, u_out, v_out)
        tr = n > m
        nr = m if tr else n
        nc = n if tr else m
        bad, big = _check_dev(shf, vals, base, ld, n, m, sign, lane)
        code = precheck_dev(bad, big, limit, nc)
        if code == OK and nr > 0:
            code = _item_dev(nr, nc, zero, inf, uu, v, spc, path, r4c, pos, sc, sr, c4r,
                             (vals, base, ld, tr, sign), shv, shi, lane)
        if code == OK and nr > 0:
            for s in range(SLOTS):
                k = lane + 32 * s
                if k < nr:
                    put_row_dev(tr, k, c4r[s], uu[s], r0, c0, sign, col4row_out, u_out, v_out)
                if k < nc:
                    put_col_dev(tr, k, v[s], r0, c0, sign, u_out, v_out)
        if lane == 0:
            status[b] = code
