"""Kernels of the GPU grid cut: Hong's lock-free push-relabel (Algorithm 4.5) on a grid with implicit
neighbours (no CSR), 2-D (as depth 1) or 3-D, any connectivity given by an offset table.

Pixel ``p`` (C order over ``(D, H, W)``) has neighbour ``k`` at ``p + delta[k]`` (offset ``off[k]``);
``rc[k * N + p]`` is the residual capacity of ``p -> p + off[k]`` (0 where that neighbour is outside
the grid) and its reverse arc is ``rc[kinv[k] * N + p + delta[k]]``. The source arcs are saturated at
the start and the direct flow ``min(c_s, c_t)`` of each pixel goes straight to the sink, so a pixel
keeps ``rt[p]``, its residual arc to ``t`` (height 0, always the lowest neighbour), and ``excess[p]``.
Only the first phase runs (heights below ``hmax = N + 2``): the labels are the pixels that cannot
reach ``t`` after the last global relabel, the flow value is ``sum(c_t - rt)``.
"""

from __future__ import annotations

from numba import cuda

__all__ = ["grid_edges_kernel", "grid_terminals_kernel", "grid_push_kernel", "grid_relabel_init_kernel",
           "grid_bfs_level_kernel", "grid_bfs_persistent_kernel", "grid_labels_kernel", "grid_sent_kernel", "reset_cnt_kernel"]

BAD_SOURCE, BAD_SINK, BAD_EDGE = 1, 2, 4  # status bits: a negative or non-finite capacity
NOT_FINITE = 8


@cuda.jit(device=True, inline=True)
def inside_dev(p, o, D, H, W):
    """The neighbour ``p + o`` (o: a row of the offset table) or -1 outside the grid."""
    x = p % W
    r = p // W
    y = r % H
    z = r // H
    zz = z + o[0]
    yy = y + o[1]
    xx = x + o[2]
    if zz < 0 or zz >= D or yy < 0 or yy >= H or xx < 0 or xx >= W:
        return -1
    return (zz * H + yy) * W + xx


@cuda.jit(device=True, inline=True)
def check_dev(c, bit, status):
    """Flag a negative or non-finite capacity in ``status[0]`` and return it as a float64."""
    if c < 0:
        cuda.atomic.or_(status, 0, bit)
    if c - c != 0:  # inf or nan (integers: never)
        cuda.atomic.or_(status, 0, bit | NOT_FINITE)
    return float(c)


@cuda.jit
def grid_edges_kernel(N, K, D, H, W, off, edge, esize, rc, status, vmax):
    """``rc`` from the edge capacities (``esize`` 1: one scalar for every arc), 0 outside the grid;
    ``vmax[0]``: the largest capacity."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    big = 0.0
    while i < K * N:
        k = i // N
        c = edge[i if esize > 1 else 0]
        f = check_dev(c, BAD_EDGE, status)
        if inside_dev(i - k * N, off[k], D, H, W) >= 0:
            rc[i] = c
            if f > big:
                big = f
        else:
            rc[i] = 0
        i += stride
    cuda.atomic.max(vmax, 0, big)


@cuda.jit
def grid_terminals_kernel(N, src, ssize, snk, tsize, excess, rt, ct, status, vmax):
    """Saturate the source arcs and send ``min(c_s, c_t)`` straight on to the sink (Algorithm 4.7)."""
    p = cuda.grid(1)
    if p < N:
        cs = src[p if ssize > 1 else 0]
        c = snk[p if tsize > 1 else 0]
        f = max(check_dev(cs, BAD_SOURCE, status), check_dev(c, BAD_SINK, status))
        cuda.atomic.max(vmax, 0, f)
        ct[p] = c
        excess[p] = cs
        rt[p] = c
        d = excess[p] if excess[p] < rt[p] else rt[p]
        excess[p] -= d
        rt[p] -= d


@cuda.jit
def grid_push_kernel(N, K, hmax, cycle, delta, kinv, rc, rt, excess, h, tol, counters):
    """Algorithm 4.5 on the grid, ``cycle`` passes (see ``_gpu_push_relabel_kernels.push_kernel``)."""
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    zero = tol - tol
    pushes = 0
    relabels = 0
    for _ in range(cycle):
        x = start
        while x < N:
            if h[x] < hmax:
                ex = excess[x]  # a plain read filters; the atomic read below is exact
                if ex > tol:
                    ex = cuda.atomic.add(excess, x, zero)
                if ex > tol:
                    if rt[x] > tol:  # the sink: height 0, the lowest neighbour; only x lowers rt[x]
                        c = rt[x]
                        d = ex if ex < c else c
                        rt[x] = c - d
                        cuda.atomic.sub(excess, x, d)
                        pushes += 1
                    else:
                        hmin = hmax + N
                        kmin = -1
                        for k in range(K):
                            if rc[k * N + x] > tol:
                                hy = h[x + delta[k]]
                                if hy < hmin:
                                    hmin = hy
                                    kmin = k
                        if kmin < 0:
                            h[x] = hmax  # only the source is left: its excess is not the sink's
                        elif h[x] > hmin:
                            a = kmin * N + x
                            y = x + delta[kmin]
                            c = cuda.atomic.add(rc, a, zero)
                            d = ex if ex < c else c
                            if d > zero:
                                cuda.atomic.sub(rc, a, d)
                                cuda.atomic.add(rc, kinv[kmin] * N + y, d)
                                cuda.atomic.sub(excess, x, d)
                                cuda.atomic.add(excess, y, d)
                                pushes += 1
                        else:
                            h[x] = hmin + 1
                            relabels += 1
            x += stride
    if pushes:
        cuda.atomic.add(counters, 0, pushes)
    if relabels:
        cuda.atomic.add(counters, 1, relabels)


@cuda.jit
def reset_cnt_kernel(cnt):
    if cuda.grid(1) == 0:
        cnt[0] = 0
        cnt[1] = 0
        cnt[2] = 0


@cuda.jit
def grid_relabel_init_kernel(N, rt, h, queue, cnt, tol, unset):
    """Level 1 of the backward BFS: the pixels with a residual arc to ``t`` (``cnt`` zeroed before)."""
    p = cuda.grid(1)
    if p < N:
        if rt[p] > tol:
            h[p] = 1
            queue[N + cuda.atomic.add(cnt, 1, 1)] = p
        else:
            h[p] = unset


@cuda.jit
def grid_bfs_level_kernel(N, K, D, H, W, level, off, kinv, rc, h, queue, cnt, tol, unset):
    """One BFS level: the neighbour ``v`` of a frontier pixel ``u`` with residual ``v -> u`` gets ``h(u) + 1``."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    size = cnt[level % 3]
    if i == 0:
        cnt[(level + 2) % 3] = 0
    qin = (level % 2) * N
    qout = N - qin
    nxt = (level + 1) % 3
    while i < size:
        u = queue[qin + i]
        hu = h[u] + 1
        for k in range(K):
            v = inside_dev(u, off[k], D, H, W)
            if v >= 0 and h[v] == unset and rc[kinv[k] * N + v] > tol:
                if cuda.atomic.cas(h, v, unset, hu) == unset:
                    queue[qout + cuda.atomic.add(cnt, nxt, 1)] = v
        i += stride


@cuda.jit
def grid_bfs_persistent_kernel(N, K, D, H, W, level, off, kinv, rc, h, queue, cnt, tol, unset, out):
    """Every level of the grid's backward BFS in ONE cooperative launch (grid syncs between levels; the
    frontier of level ``L`` has height ``L``). ``out[0]``: the first empty level."""
    g = cuda.cg.this_grid()
    i0 = cuda.grid(1)
    stride = cuda.gridsize(1)
    while True:
        size = cnt[level % 3]
        if size == 0:
            break
        if i0 == 0:
            cnt[(level + 2) % 3] = 0
        qin = (level % 2) * N
        qout = N - qin
        nxt = (level + 1) % 3
        hu = level + 1
        i = i0
        while i < size:
            u = queue[qin + i]
            for k in range(K):
                v = inside_dev(u, off[k], D, H, W)
                if v >= 0 and h[v] == unset and rc[kinv[k] * N + v] > tol:
                    if cuda.atomic.cas(h, v, unset, hu) == unset:
                        queue[qout + cuda.atomic.add(cnt, nxt, 1)] = v
            i += stride
        g.sync()
        level += 1
    if i0 == 0:
        out[0] = level


@cuda.jit
def grid_labels_kernel(N, h, hgap, labels):
    """Source side: the pixels that cannot reach the sink (height ``hgap`` after the last relabel)."""
    p = cuda.grid(1)
    if p < N:
        labels[p] = 1 if h[p] >= hgap else 0


@cuda.jit
def grid_sent_kernel(N, ct, rt):
    """``rt[p] = c_t(p) - rt[p]``: the flow each pixel sends to the sink (summed for the flow value)."""
    p = cuda.grid(1)
    if p < N:
        rt[p] = ct[p] - rt[p]
