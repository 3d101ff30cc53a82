"""The batched certificate on the device: every item's answer checked by LP duality where it was solved.

``certify_items_kernel`` (a block per item, blocks stride over the items) is the twin of the host certificate
(:mod:`._verify`, ``_int_item`` / ``_float_item``): the answer is a valid assignment of the smaller side
through finite entries (columns in range, none used twice: one int32 flag per column of the batch, set by an
atomic), and the duals prove it optimal:

* integers, exactly in int64 (every entry and dual below ``2**61`` in magnitude, else the item is left
  unproved for the host): reduced costs ``>= 0``, ``= 0`` on the matched pairs, the larger side's duals
  ``<= 0`` and ``0`` where unmatched;
* floats, the dense family's rigorous gap bound (:mod:`matchflow._lsap.reduced`: a thread per row scans its
  entries for the least lower bound ``h - e``, ``h = (c - u_i) - v_j``, ``e = REL (|c| + |u_i| + |v_j|) + ABS``
  (one fused multiply-add may form ``e``: still a bound, ``REL``'s margin covers it); the sums of non-negative
  terms are rounded up by the proven factor of a k-term sum, whatever the order of the additions).

The item's total ``sum_i C[i, col4row[i]]`` (the user's costs) comes with it: per-thread sums over the rows
``tid, tid + bdim, ...``, then a fixed-order tree (``_cuda._device.block_sum_dev``), so the same answer gives the
same bits on every run (not NumPy's pairwise order: floats may differ from ``C[r, c].sum()`` in the last bits).
An item whose check fails gets status :data:`UNPROVED` (the host solves it again); items not ``OK`` are left
alone.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, float64, int32, int64

from .._cuda._device import block_sum_dev
from .._cuda._env import kernel_cache
from .._lsap.reduced import ERR_ABS, ERR_REL
from ._gpu_jv_kernels import item_dev
from ._prepare import UNPROVED

CACHE = kernel_cache()

__all__ = ["certify_items_kernel", "pad_rows_kernel", "negate_kernel", "UNPROVED", "CERT_BLOCK_MAX"]

CERT_BLOCK_MAX = 256  # the shared reduction slots below
_LIM = 2**61
_U = 2.0**-53


@cuda.jit(device=True, inline=True)
def _up_dev(s, k):
    """An upper bound of a k-term float sum ``s`` of non-negative terms (``_verify._up_sum``)."""
    return s * (1.0 + (2 * k + 2) * _U)


@cuda.jit(device=True, inline=True)
def _big_dev(x):
    """``|x| >= 2**61`` (no ``abs``: it wraps at the int64 minimum)."""
    return x >= _LIM or x <= -_LIM


@cuda.jit(device=True)
def _valid_dev(vals, base, ld, n, m, x, r0, used, c0, u, v, zero, tid, bdim):
    """This thread's share of the validity check: its rows' columns in range, unused before (atomic flags),
    finite entries; finite duals. Returns (bad, matched rows, partial total)."""
    bad = False
    k = int64(0)
    tot = zero
    for i in range(tid, n, bdim):
        j = x[r0 + i]
        ui = u[r0 + i]
        if ui - ui != 0:
            bad = True
        if j == -1:
            continue
        if j < 0 or j >= m:
            bad = True
            continue
        if cuda.atomic.add(used, c0 + j, 1) != 0:
            bad = True
        c = vals[base + i * ld + j]
        if c - c != 0:
            bad = True
        else:
            tot += c
        k += 1
    for j in range(tid, m, bdim):
        vj = v[c0 + j]
        if vj - vj != 0:
            bad = True
    return bad, k, tot


@cuda.jit(device=True)
def _int_dev(vals, base, ld, n, m, sign, x, r0, used, c0, u, v, tid, bdim):
    """This thread's share of the exact integer check: 0 holds, 1 refuted, 2 beyond int64's safe range."""
    code = 0
    for i in range(tid, n, bdim):
        ui = sign * u[r0 + i]
        if _big_dev(ui):
            return 2
        for j in range(m):
            c = vals[base + i * ld + j]
            vj = sign * v[c0 + j]
            if _big_dev(c) or _big_dev(vj):
                return 2
            h = sign * c - ui - vj
            if h < 0 or (x[r0 + i] == j and h != 0):
                code = 1
        if n > m and (ui > 0 or (x[r0 + i] < 0 and ui != 0)):
            code = 1
    if n < m:
        for j in range(tid, m, bdim):
            vj = sign * v[c0 + j]
            if vj > 0 or (used[c0 + j] == 0 and vj != 0):
                code = 1
    return code


@cuda.jit(device=True)
def _float_dev(vals, base, ld, n, m, sign, x, r0, used, c0, u, v, tid, bdim):
    """This thread's share of the float bound's sums: (slack, err, rows, cols) over its rows / columns."""
    s_slack = 0.0
    s_err = 0.0
    s_rows = 0.0
    for i in range(tid, n, bdim):
        ui = sign * u[r0 + i]
        aui = abs(ui)
        best = np.inf
        ebest = 0.0
        jbest = -1
        for j in range(m):
            c = sign * np.float64(vals[base + i * ld + j])
            if c - c != 0:
                continue
            vj = sign * v[c0 + j]
            h = (c - ui) - vj
            e = ERR_REL * ((abs(c) + aui) + abs(vj)) + ERR_ABS
            if jbest < 0 or h - e < best:
                best = h - e
                ebest = e
                jbest = j
        ja = x[r0 + i]
        delta = 0.0
        if jbest >= 0 and best < 0:
            delta = -best
        if ja >= 0:
            c = sign * np.float64(vals[base + i * ld + ja])
            vj = sign * v[c0 + ja]
            h = (c - ui) - vj
            e = ERR_REL * ((abs(c) + aui) + abs(vj)) + ERR_ABS
            s_slack += max(h + e, 0.0)
            s_err += e + (ebest if jbest >= 0 else 0.0)
        if n > m:  # rows are the "<= 1" side
            s_rows += max(delta, ui) if ja >= 0 else max(delta - ui, 0.0)
        else:
            s_rows += delta
    s_cols = 0.0
    if n < m:
        for j in range(tid, m, bdim):
            vj = sign * v[c0 + j]
            s_cols += max(vj, 0.0) if used[c0 + j] != 0 else max(-vj, 0.0)
    return s_slack, s_err, s_rows, s_cols


@cuda.jit(cache=CACHE)
def certify_items_kernel(vals, meta, nb, sign, zero, exact, col4row, u, v, used, status, total):
    """Every ``OK`` item's certificate (module docstring); ``status[b]`` becomes :data:`UNPROVED` where it fails;
    ``total[b]``: the item's total. ``sign``, ``zero``: of the costs' type; ``exact``: integer costs. ``used``: one int32 per column of the batch (any content: each block clears
    its item's). ``meta``, ``nb``: the item table and count (``_gpu_jv_kernels.meta_rows``). Block: a power of two up to :data:`CERT_BLOCK_MAX`."""
    shf = cuda.shared.array(CERT_BLOCK_MAX, dtype=float64)
    shi = cuda.shared.array(CERT_BLOCK_MAX, dtype=int64)
    sht = cuda.shared.array(CERT_BLOCK_MAX, dtype=vals.dtype)
    flag = cuda.shared.array(1, dtype=int32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    for b in range(cuda.blockIdx.x, nb, cuda.gridDim.x):
        if status[b] != 0:
            continue  # uniform over the block
        base, ld, n, m, r0, c0 = item_dev(meta, b)
        for j in range(tid, m, bdim):
            used[c0 + j] = 0
        if tid == 0:
            flag[0] = 0
        cuda.syncthreads()
        bad, k, tot = _valid_dev(vals, base, ld, n, m, col4row, r0, used, c0, u, v, zero, tid, bdim)
        if bad:
            flag[0] = 1
        cuda.syncthreads()  # every flag of ``used`` set
        s_slack = 0.0
        s_err = 0.0
        s_rows = 0.0
        s_cols = 0.0
        if exact:
            if _int_dev(vals, base, ld, n, m, sign, col4row, r0, used, c0, u, v, tid, bdim) != 0:
                flag[0] = 1
        else:
            s1, s2, s3, s4 = _float_dev(vals, base, ld, n, m, sign, col4row, r0, used, c0, u, v, tid, bdim)
            s_slack = block_sum_dev(shf, s1, tid, bdim)
            s_err = block_sum_dev(shf, s2, tid, bdim)
            s_rows = block_sum_dev(shf, s3, tid, bdim)
            s_cols = block_sum_dev(shf, s4, tid, bdim)
        tot = block_sum_dev(sht, tot, tid, bdim)
        matched = block_sum_dev(shi, k, tid, bdim)
        if tid == 0:
            ok = flag[0] == 0 and matched == min(n, m)
            if ok and not exact:
                gap = _up_dev(s_slack, matched) + _up_dev(s_rows, n)
                if n < m:
                    gap += _up_dev(s_cols, m)
                gap *= 1.0 + 4 * _U
                tol = (max(n, m) + 4) * _up_dev(s_err, matched) + (n + m + 8) * 2.0**-1068
                ok = gap <= tol and gap - gap == 0 and tol - tol == 0
            if not ok:
                status[b] = UNPROVED
            total[b] = tot
        cuda.syncthreads()


@cuda.jit(cache=CACHE)
def pad_rows_kernel(flat, out_rows, sizes, k, fill, out):
    """``out`` (flat ``(B, k)``): item ``b``'s ``sizes[b]`` values from ``flat[out_rows[b]:]``, then ``fill``."""
    t = cuda.grid(1)
    stride = cuda.gridsize(1)
    for p in range(t, out.size, stride):
        b = p // k
        r = p - b * k
        out[p] = flat[out_rows[b] + r] if r < sizes[b] else fill


@cuda.jit(cache=CACHE)
def negate_kernel(a):
    """``a = -a`` in place."""
    t = cuda.grid(1)
    for p in range(t, a.size, cuda.gridsize(1)):
        a[p] = -a[p]
