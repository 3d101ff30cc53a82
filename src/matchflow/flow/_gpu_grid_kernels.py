"""Kernels of the GPU grid cut: Hong's lock-free push-relabel (Algorithm 4.5) on a grid with implicit
neighbours (no CSR), 2-D (as depth 1) or 3-D, any connectivity given by an offset table, one grid or a
batch of equal grids (the items one after the other: an outer axis with no neighbours across it).

Pixel ``p`` (C order over ``(B, D, H, W)``, ``N = B * D * H * W``) has neighbour ``k`` at ``p + delta[k]``
(offset ``off[k]``, inside its own item); ``rc[k * N + p]`` is the residual capacity of ``p -> p + off[k]``
(0 where that neighbour is outside the item) and its reverse arc is ``rc[kinv[k] * N + p + delta[k]]``.
The source arcs are saturated at the start and the direct flow ``min(c_s, c_t)`` of each pixel goes
straight to the sink, so a pixel keeps ``rt[p]``, its residual arc to ``t`` (height 0, always the lowest
neighbour), and ``excess[p]``. Only the first phase runs (heights below ``hmax = N + 2``): the labels are
the pixels that cannot reach ``t`` after the last global relabel, the flow value of an item is the sum
of its ``c_t - rt``.

``grid_solve_persistent_kernel`` (``loop="persistent"``) is the whole He & Hong loop in ONE cooperative
launch: global relabel (backward BFS from ``t``, level-synchronous, grid syncs between levels; gap
relabelling), active count, ``cycle`` lock-free passes, again, until no pixel below the gap holds excess:
no host round trip. ``loop="host"`` launches the same steps one by one (``grid_push_kernel``, the
relabel kernels).

``layout="tiled"`` (the paper's Section 4.6 / CudaCuts layout): the item's pixels are cut into tiles of
``TZ x TY x TX`` (default 1 x 8 x 32: one z-slice), tile ``t`` (C order over ``(B, ntz, nty, ntx)``) goes
to block ``t mod gridDim`` (a persistent grid walks its tiles round-robin) and thread ``tid`` to the
pixel ``(tid // (TY TX), tid // TX mod TY, tid mod TX)`` of the tile: 32 threads of a warp read 32
consecutive ``x`` (coalesced; the arrays keep the plain C order, so the finish kernel and the
certificate are shared). Pushes: ``tile_passes`` lock-free passes over a tile between block syncs
(a pass in which no pixel of the tile moved ends the tile's visit). Global relabel: the tiled BFS
(:func:`tile_sweep_dev`), a Bellman-Ford wave relaxed to a fixed point inside each tile with block
syncs only, grid syncs only between sweeps over the tiles.
"""

from __future__ import annotations

from numba import cuda, int64

from .._cuda import is_simulator
from .._cuda._device import block_sum_dev, grid_stride_dev
from .._cuda._env import kernel_cache
from ._gpu_push_relabel_kernels import BLOCK_SUM, add_counts_dev, excess_dev, frontier_dev, push_dev

__all__ = ["grid_edges_kernel", "grid_terminals_kernel", "grid_push_kernel", "grid_relabel_init_kernel",
           "grid_bfs_level_kernel", "grid_solve_persistent_kernel",
           "grid_solve_linear_kernel", "grid_solve_tiled_kernel", "grid_finish_kernel", "reset_cnt_kernel", "grid_tile_push_kernel", "grid_tile_seed_kernel",
           "grid_tile_sweep_kernel"]

CACHE = kernel_cache()  # numba-cuda on-disk cache of the kernels (off with MATCHFLOW_CUDA_CACHE=0)
BAD_SOURCE, BAD_SINK, BAD_EDGE = 1, 2, 4  # status bits: a negative or non-finite capacity
NOT_FINITE = 8
# loop="host" tile kernels: registers capped so that a tile of 1024 threads launches (the simulator has no bounds)
BOUNDS = {} if is_simulator() else {"launch_bounds": (1024,)}


@cuda.jit(device=True, inline=True)
def coords_dev(p, D, H, W):
    """``(z, y, x)`` of pixel ``p`` inside its item (the divisions, once per pixel)."""
    x = p % W
    r = p // W
    return (r // H) % D, r % H, x


@cuda.jit(device=True, inline=True)
def step_dev(z, y, x, o, D, H, W):
    """Whether the neighbour at offset ``o`` (a row of the offset table) of ``(z, y, x)`` is inside the item."""
    zz = z + o[0]
    yy = y + o[1]
    xx = x + o[2]
    return 0 <= zz < D and 0 <= yy < H and 0 <= xx < W


@cuda.jit(device=True, inline=True)
def check_dev(c, bit, status):
    """Flag a negative or non-finite capacity in ``status[0]`` and return it as a float64."""
    if c < 0:
        cuda.atomic.or_(status, 0, bit)
    if c - c != 0:  # inf or nan (integers: never)
        cuda.atomic.or_(status, 0, bit | NOT_FINITE)
    return float(c)


@cuda.jit(cache=CACHE)
def grid_edges_kernel(N, K, D, H, W, off, edge, esize, rc, status, vmax):
    """``rc`` (``(k, N)``) from the edge capacities (``(B, k, D*H*W)``; ``esize`` 1: one scalar for every
    arc), 0 outside the item; ``vmax[0]``: the largest capacity."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    ni = D * H * W
    big = 0.0
    while i < K * N:
        k = i // N
        p = i - k * N
        b = p // ni
        c = edge[p + (b * (K - 1) + k) * ni if esize > 1 else 0]
        f = check_dev(c, BAD_EDGE, status)
        z, y, x = coords_dev(p, D, H, W)
        if step_dev(z, y, x, off[k], D, H, W):
            rc[i] = c
            if f > big:
                big = f
        else:
            rc[i] = 0
        i += stride
    cuda.atomic.max(vmax, 0, big)


@cuda.jit(cache=CACHE)
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


@cuda.jit(device=True, inline=True)
def grid_push_dev(x, N, K, hmax, delta, kinv, rc, rt, excess, h, tol):
    """Algorithm 4.5 at pixel ``x``: 1 after a push, 2 after a relabel, else 0."""
    if h[x] >= hmax:
        return 0
    ex = excess_dev(excess, x, tol)
    if ex <= tol:
        return 0
    if rt[x] > tol:  # the sink: height 0, the lowest neighbour; only x lowers rt[x]
        c = rt[x]
        d = ex if ex < c else c
        rt[x] = c - d
        cuda.atomic.sub(excess, x, d)
        return 1
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
        return 0
    if h[x] > hmin:
        y = x + delta[kmin]
        return push_dev(rc, kmin * N + x, kinv[kmin] * N + y, excess, x, y, ex)
    h[x] = hmin + 1
    return 2


@cuda.jit(device=True, inline=True)
def grid_passes_dev(start, stride, cycle, N, K, hmax, delta, kinv, rc, rt, excess, h, tol):
    """``cycle`` lock-free passes over this thread's pixels; returns ``(pushes, relabels)``."""
    pushes = 0
    relabels = 0
    for _ in range(cycle):
        x = start
        while x < N:
            r = grid_push_dev(x, N, K, hmax, delta, kinv, rc, rt, excess, h, tol)
            pushes += r & 1
            relabels += r >> 1
            x += stride
    return pushes, relabels


@cuda.jit(cache=CACHE)
def grid_push_kernel(N, K, hmax, cycle, delta, kinv, rc, rt, excess, h, tol, counters):
    """Algorithm 4.5 on the grid, ``cycle`` passes (see ``_gpu_push_relabel_kernels.push_kernel``)."""
    pushes, relabels = grid_passes_dev(cuda.grid(1), cuda.gridsize(1), cycle, N, K, hmax, delta, kinv, rc, rt,
                                       excess, h, tol)
    add_counts_dev(counters, pushes, relabels)


@cuda.jit(cache=CACHE)
def reset_cnt_kernel(cnt):
    if cuda.grid(1) == 0:
        cnt[0] = 0
        cnt[1] = 0
        cnt[2] = 0


@cuda.jit(device=True, inline=True)
def grid_seed_dev(p, N, rt, h, queue, cnt, tol, unset):
    """Level 1 of the backward BFS at pixel ``p``: height 1 and queued when it has a residual arc to ``t``."""
    if rt[p] > tol:
        h[p] = 1
        queue[N + cuda.atomic.add(cnt, 1, 1)] = p
    else:
        h[p] = unset


@cuda.jit(cache=CACHE)
def grid_relabel_init_kernel(N, rt, h, queue, cnt, tol, unset):
    """Level 1 of the backward BFS: the pixels with a residual arc to ``t`` (``cnt`` zeroed before)."""
    p = cuda.grid(1)
    if p < N:
        grid_seed_dev(p, N, rt, h, queue, cnt, tol, unset)


@cuda.jit(device=True, inline=True)
def grid_level_dev(i, stride, level, N, K, D, H, W, off, delta, kinv, rc, h, queue, cnt, tol, unset):
    """This thread's share of BFS level ``level`` (frontier in queue half ``level % 2``, its size in
    ``cnt[level % 3]``; thread 0 clears the slot after next): a neighbour ``v`` of a frontier pixel ``u``
    with residual ``v -> u`` gets height ``level + 1`` (compare-and-swap) and joins the next frontier.
    Returns the frontier's size."""
    size, qin, qout, nxt = frontier_dev(i, level, N, cnt)
    hu = level + 1
    while i < size:
        u = queue[qin + i]
        z, y, x = coords_dev(u, D, H, W)
        for k in range(K):
            v = u + delta[k]
            if step_dev(z, y, x, off[k], D, H, W) and h[v] == unset and rc[kinv[k] * N + v] > tol:
                if cuda.atomic.cas(h, v, unset, hu) == unset:
                    queue[qout + cuda.atomic.add(cnt, nxt, 1)] = v
        i += stride
    return size


@cuda.jit(cache=CACHE)
def grid_bfs_level_kernel(N, K, D, H, W, level, off, delta, kinv, rc, h, queue, cnt, tol, unset):
    """One BFS level (``loop="host"``): :func:`grid_level_dev` on every thread."""
    grid_level_dev(cuda.grid(1), cuda.gridsize(1), level, N, K, D, H, W, off, delta, kinv, rc, h, queue, cnt, tol,
                   unset)


@cuda.jit(device=True, inline=True)
def tile_pixel_dev(t, tid, D, H, W, tg):
    """The pixel of thread ``tid`` in tile ``t`` (``tg`` = ``(TZ, TY, TX, ntz, nty, ntx, T)``), -1 where
    the tile overhangs the item (grid sizes that are not multiples of the tile)."""
    ntx = tg[5]
    nty = tg[4]
    ntz = tg[3]
    r = t // ntx
    x = (t - r * ntx) * tg[2] + tid % tg[2]
    y = (r % nty) * tg[1] + (tid // tg[2]) % tg[1]
    r = r // nty
    z = (r % ntz) * tg[0] + tid // (tg[2] * tg[1])
    if x < W and y < H and z < D:
        return (((r // ntz) * D + z) * H + y) * W + x
    return -1


@cuda.jit(device=True, inline=True)
def tile_passes_dev(bid, gdim, tid, cycle, passes, N, K, D, H, W, tg, hmax, delta, kinv, rc, rt, excess, h, tol):
    """``layout="tiled"``: ``cycle`` lock-free passes (Algorithm 4.5) over each of this block's tiles, in
    visits of ``passes`` passes separated by block syncs; a pass in which no pixel of the tile pushed or
    relabelled ends the visit. Returns ``(pushes, relabels)``."""
    pushes = 0
    relabels = 0
    c0 = 0
    while c0 < cycle:
        n = passes if passes < cycle - c0 else cycle - c0
        t = bid
        while t < tg[6]:
            p = tile_pixel_dev(t, tid, D, H, W, tg)
            for _ in range(n):
                r = 0
                if p >= 0:
                    r = grid_push_dev(p, N, K, hmax, delta, kinv, rc, rt, excess, h, tol)
                    pushes += r & 1
                    relabels += r >> 1
                if cuda.syncthreads_or(r) == 0:
                    break
            t += gdim
        c0 += n
    return pushes, relabels


@cuda.jit(device=True, inline=True)
def relax_dev(p, N, K, delta, rc, h, tol):
    """One Bellman-Ford step of the backward BFS at pixel ``p``: ``h(p) = min(h(p), h(q) + 1)`` over the
    residual arcs ``p -> q`` (``rc = 0`` outside the item; ``unset + 1`` never wins). Only the thread of
    ``p`` writes ``h(p)`` and heights only fall. Returns 1 when ``h(p)`` fell."""
    if p < 0:
        return 0
    hv = h[p]
    best = hv
    for k in range(K):
        if rc[k * N + p] > tol:
            hq = h[p + delta[k]] + 1
            if hq < best:
                best = hq
    if best < hv:
        h[p] = best
        return 1
    return 0


@cuda.jit(device=True, inline=True)
def tile_sweep_dev(bid, gdim, tid, sw, first, N, K, D, H, W, tg, delta, rc, h, tol, stamp):
    """One sweep of the tiled BFS (global relabel) over this block's tiles: a tile is relaxed
    (:func:`relax_dev`, block syncs only) until no height in it falls, and ``stamp[t] = sw`` when one fell.
    The first sweep of a relabel visits every tile; later sweeps only the tiles whose own stamp or a
    neighbouring tile's (the 3 x 3 x 3 tiles around it) is at least ``sw - 1``. Returns 1 when a height of
    this block's tiles fell (the same value on every thread).

    Exactness: the heights start at 1 (a residual arc to ``t``) or ``unset`` and every write is
    ``h(q) + 1`` for a residual arc ``p -> q``, the length of a real residual path to ``t``: never below
    the BFS distance. The caller stops after a sweep in which no height fell anywhere (a grid sync
    between sweeps makes every earlier write visible); then every visited tile was at a fixed point of
    ``h(p) <= h(q) + 1`` with values that no longer change, and a skipped tile saw no change around it
    since it was last at its fixed point (a change in sweep ``sw - 1`` stamps a tile, which makes every
    neighbour visit it in sweep ``sw``). A fixed point of ``h(p) <= h(q) + 1`` on every residual arc with
    ``h = 1`` exactly on the pixels with a residual arc to ``t`` is at most the BFS distance (induction on
    it): the heights are the exact BFS distances, the level-synchronous BFS's, and the push-relabel
    invariant ``h(u) <= h(v) + 1`` on residual arcs holds."""
    any_ = 0
    t = bid
    while t < tg[6]:
        go = 1
        if not first:
            go = 0
            if tid < 27:
                ntx = tg[5]
                nty = tg[4]
                ntz = tg[3]
                tx = t % ntx
                r = t // ntx
                ty = r % nty
                r = r // nty
                tz = r % ntz
                xx = tx + tid % 3 - 1
                yy = ty + (tid // 3) % 3 - 1
                zz = tz + tid // 9 - 1
                if 0 <= xx < ntx and 0 <= yy < nty and 0 <= zz < ntz:
                    if stamp[t + ((zz - tz) * nty + yy - ty) * ntx + xx - tx] >= sw - 1:
                        go = 1
            go = cuda.syncthreads_or(go)
        if go:
            p = tile_pixel_dev(t, tid, D, H, W, tg)
            fell = 0
            while cuda.syncthreads_or(relax_dev(p, N, K, delta, rc, h, tol)):
                fell = 1
            if fell:
                any_ = 1
                if tid == 0:
                    stamp[t] = sw
        t += gdim
    return any_


@cuda.jit(device=True, inline=True)
def tile_seed_dev(p, rt, h, tol, unset):
    """The tiled BFS's start at pixel ``p``: height 1 with a residual arc to ``t``, else ``unset``."""
    h[p] = 1 if rt[p] > tol else unset


@cuda.jit(cache=CACHE, **BOUNDS)
def grid_tile_push_kernel(N, K, D, H, W, hmax, cycle, passes, tg, delta, kinv, rc, rt, excess, h, tol, counters):
    """``layout="tiled"``, ``loop="host"``: one round of pushes (:func:`tile_passes_dev`)."""
    pushes, relabels = tile_passes_dev(cuda.blockIdx.x, cuda.gridDim.x, cuda.threadIdx.x, cycle, passes, N, K, D, H,
                                       W, tg, hmax, delta, kinv, rc, rt, excess, h, tol)
    add_counts_dev(counters, pushes, relabels)


@cuda.jit(cache=CACHE)
def grid_tile_seed_kernel(N, rt, h, tol, unset):
    p = cuda.grid(1)
    if p < N:
        tile_seed_dev(p, rt, h, tol, unset)


@cuda.jit(cache=CACHE, **BOUNDS)
def grid_tile_sweep_kernel(N, K, D, H, W, sw, first, tg, delta, rc, h, tol, stamp, flag):
    """``loop="host"``: one sweep of the tiled BFS (:func:`tile_sweep_dev`); ``flag[0] = 1`` when a height fell."""
    tid = cuda.threadIdx.x
    if tile_sweep_dev(cuda.blockIdx.x, cuda.gridDim.x, tid, sw, first, N, K, D, H, W, tg, delta, rc, h, tol,
                      stamp) and tid == 0:
        flag[0] = 1


@cuda.jit(device=True, inline=True)
def solve_loop_dev(N, K, D, H, W, hmax, cycle, max_rounds, tiled, tile_bfs, passes, tg, off, delta, kinv, rc, rt, excess,
                   h, queue, cnt, tol, unset, stamp, tflag, out, counters):
    """He & Hong's hybrid loop in ONE cooperative launch (``loop="persistent"``): global relabel (level 1:
    the pixels with a residual arc to ``t``; ``tile_bfs`` 0: BFS levels separated by grid syncs, 1: the
    tiled BFS, sweeps of :func:`tile_sweep_dev` separated by grid syncs; unreached pixels get ``hmax``,
    the gap), the count of pixels still active, ``cycle`` lock-free passes (``tiled`` 0: grid-stride over
    the pixels, 1: :func:`tile_passes_dev`); until none is active or ``max_rounds`` rounds ran. ``cnt``,
    ``tflag`` (3 zeros each) and ``out[0:2]`` (zeros) on entry; on exit ``out[2]`` = rounds, ``out[3]`` =
    BFS levels, ``out[4]`` = pixels still active (0: done), ``out[5]`` = tile sweeps, ``out[6]`` = grid
    syncs, ``cnt`` zeros. Round ``r`` counts its active pixels in ``out[r % 2]``; thread 0 clears the other
    slot after the round's first grid sync (every thread read it before that sync). Sweep ``s`` raises
    ``tflag[s % 3]``; thread 0 clears ``tflag[(s + 1) % 3]`` before the sweep's grid sync (last read
    before the previous sweep's sync, next raised after this one's)."""
    g = cuda.cg.this_grid()
    sh = cuda.shared.array(BLOCK_SUM, dtype=int64)
    i0, stride, tid, bdim = grid_stride_dev()
    bid = cuda.blockIdx.x
    gdim = cuda.gridDim.x
    pushes = relabels = levels = sw = syncs = rnd = 0
    while True:
        x = i0
        while x < N:
            if tile_bfs:
                tile_seed_dev(x, rt, h, tol, unset)
            else:
                grid_seed_dev(x, N, rt, h, queue, cnt, tol, unset)
            x += stride
        g.sync()
        syncs += 1
        if i0 == 0:
            out[(rnd + 1) % 2] = 0
        if tile_bfs:
            first = True
            while True:
                if i0 == 0:
                    tflag[(sw + 1) % 3] = 0
                if tile_sweep_dev(bid, gdim, tid, sw, first, N, K, D, H, W, tg, delta, rc, h, tol, stamp) and tid == 0:
                    tflag[sw % 3] = 1
                g.sync()
                syncs += 1
                first = False
                sw += 1
                if tflag[(sw - 1) % 3] == 0:
                    break
        else:
            level = 1
            while grid_level_dev(i0, stride, level, N, K, D, H, W, off, delta, kinv, rc, h, queue, cnt, tol,
                                 unset) > 0:
                g.sync()
                syncs += 1
                level += 1
            levels += level - 1
        act = 0
        x = i0
        while x < N:
            if h[x] == unset:
                h[x] = hmax
            elif excess[x] > tol:
                act += 1
            x += stride
        tot = block_sum_dev(sh, act, tid, bdim)
        if tid == 0 and tot:
            cuda.atomic.add(out, rnd % 2, tot)
        if i0 == 0:
            cnt[0] = 0
            cnt[1] = 0
            cnt[2] = 0
        g.sync()
        syncs += 1
        active = out[rnd % 2]
        if active == 0 or rnd >= max_rounds:
            break
        if tiled:
            p, r = tile_passes_dev(bid, gdim, tid, cycle, passes, N, K, D, H, W, tg, hmax, delta, kinv, rc, rt,
                                   excess, h, tol)
        else:
            p, r = grid_passes_dev(i0, stride, cycle, N, K, hmax, delta, kinv, rc, rt, excess, h, tol)
        pushes += p
        relabels += r
        g.sync()
        syncs += 1
        rnd += 1
    add_counts_dev(counters, pushes, relabels)
    if i0 == 0:
        out[2] = rnd
        out[3] = levels
        out[4] = active
        out[5] = sw
        out[6] = syncs


@cuda.jit(cache=CACHE)
def grid_solve_persistent_kernel(N, K, D, H, W, hmax, cycle, max_rounds, tiled, tile_bfs, passes, tg, off, delta, kinv,
                                 rc, rt, excess, h, queue, cnt, tol, unset, stamp, tflag, out, counters):
    """:func:`solve_loop_dev` with the layout and the BFS chosen at run time (``tiled``, ``tile_bfs``): the
    mixed variants (tiled pushes with the level BFS, linear pushes with the tiled BFS)."""
    solve_loop_dev(N, K, D, H, W, hmax, cycle, max_rounds, tiled, tile_bfs, passes, tg, off, delta, kinv, rc, rt,
                   excess, h, queue, cnt, tol, unset, stamp, tflag, out, counters)


@cuda.jit(cache=CACHE)
def grid_solve_linear_kernel(N, K, D, H, W, hmax, cycle, max_rounds, tiled, tile_bfs, passes, tg, off, delta, kinv,
                             rc, rt, excess, h, queue, cnt, tol, unset, stamp, tflag, out, counters):
    """``layout="linear"``, ``bfs="levels"``: :func:`solve_loop_dev` with both flags 0 at compile time (the
    tile code is dropped: fewer registers, more blocks per SM). Same arguments as the other two."""
    solve_loop_dev(N, K, D, H, W, hmax, cycle, max_rounds, 0, 0, passes, tg, off, delta, kinv, rc, rt,
                   excess, h, queue, cnt, tol, unset, stamp, tflag, out, counters)


@cuda.jit(cache=CACHE)
def grid_solve_tiled_kernel(N, K, D, H, W, hmax, cycle, max_rounds, tiled, tile_bfs, passes, tg, off, delta, kinv,
                            rc, rt, excess, h, queue, cnt, tol, unset, stamp, tflag, out, counters):
    """``layout="tiled"``, ``bfs="tiles"``: :func:`solve_loop_dev` with both flags 1 at compile time."""
    solve_loop_dev(N, K, D, H, W, hmax, cycle, max_rounds, 1, 1, passes, tg, off, delta, kinv, rc, rt,
                   excess, h, queue, cnt, tol, unset, stamp, tflag, out, counters)


@cuda.jit(device=True, inline=True)
def certify_dev(p, b, ni, N, K, D, H, W, off, delta, kinv, edge, esize, rc, h, hgap, lab, zero, tol, rel):
    """The arcs of pixel ``p`` (item ``b``) in the certificate: ``(net outflow, capacity of p's cut arcs
    p -> q with q on the sink side when p is on the source side, magnitude, ok)``; ``ok``: every arc pair
    carries opposite flows (``c(p,q) - rc(p,q) = -(c(q,p) - rc(q,p))``) and no residual is negative."""
    net = zero
    cut = zero
    mag = zero
    ok = True
    loc = p - b * ni
    z, y, x = coords_dev(p, D, H, W)
    for k in range(K):
        if step_dev(z, y, x, off[k], D, H, W):
            q = p + delta[k]
            kr = kinv[k]
            c = zero + edge[(b * K + k) * ni + loc if esize > 1 else 0]
            crev = zero + edge[(b * K + kr) * ni + q - b * ni if esize > 1 else 0]
            f = c - rc[k * N + p]
            d = f + crev - rc[kr * N + q]
            mag += c + crev
            net += f
            if rc[k * N + p] < -tol or d > tol + rel * (c + crev) or d < -tol - rel * (c + crev):
                ok = False
            if lab and h[q] < hgap:
                cut += c
    return net, cut, mag, ok


@cuda.jit(cache=CACHE)
def grid_finish_kernel(N, K, D, H, W, lanes, hgap, certify, rel, off, delta, kinv, src, ssize, edge, esize, ct, rt, rc,
                       excess, h, tol, labels, value, cut, bad):
    """Labels (source side: the pixels that cannot reach the sink, height ``hgap``) and the flow value of
    each item (``value[b] +=`` the flow its pixels send to the sink, ``c_t - rt``); with ``certify`` the
    certificate too: the residuals are a preflow of the input capacities (``0 <= rt <= c_t``, arc pairs
    (:func:`certify_dev`), ``e(p) = c_s - (c_t - rt) - net outflow >= 0``; ``bad[0] = 1`` otherwise) and
    ``cut[b] +=`` the capacity of the cut the labels make (equal to ``value[b]``: a maximum flow and a
    minimum cut). ``lanes`` threads per item, item ``b`` = thread // lanes (one atomic add per thread)."""
    ni = D * H * W
    j = cuda.grid(1)
    b = j // lanes
    if b < value.size:
        zero = rt[0] - rt[0]
        acc = zero
        acut = zero
        ok = True
        loc = j - b * lanes
        while loc < ni:
            p = b * ni + loc
            lab = h[p] >= hgap
            labels[p] = 1 if lab else 0
            c_t = ct[p]
            r = rt[p]
            acc += c_t - r
            if certify:
                cs = zero + src[p if ssize > 1 else 0]
                net, ecut, mag, fine = certify_dev(p, b, ni, N, K, D, H, W, off, delta, kinv, edge, esize, rc, h, hgap,
                                                   lab, zero, tol, rel)
                acut += ecut + (c_t if lab else cs)
                slack = tol * (K + 2) + rel * (mag + cs + c_t)
                e = excess[p]
                dif = cs - (c_t - r) - net - e
                if not fine or r < -tol or r > c_t + tol or e < -slack or dif > slack or dif < -slack:
                    ok = False
            loc += lanes
        if acc != 0:
            cuda.atomic.add(value, b, acc)
        if acut != 0:
            cuda.atomic.add(cut, b, acut)
        if not ok:
            bad[0] = 1
