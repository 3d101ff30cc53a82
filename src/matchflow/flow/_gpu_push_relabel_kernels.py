"""Kernels of the GPU push-relabel max-flow on a residual CSR (Łupińska, Section 4).

* ``push_kernel``: Hong's lock-free push-relabel (Algorithm 4.5): every thread owns vertices ``x``
  (grid-stride); an active ``x`` (excess above ``tol``, height below ``hmax``) finds its lowest residual
  neighbour ``y~`` and pushes ``min(e', c_f(x, y~))`` to it when ``h(x) > h(y~)``, else relabels
  ``h(x) = h(y~) + 1``; ``cycle`` passes per launch (the paper's CYCLE). Only ``x`` lowers ``e(x)`` and
  ``c_f(x, .)`` (others only raise them), so ``e'`` and ``c_f(x, y~)`` are read with an atomic (at L2:
  never an over-estimate) and every update is an atomic add; heights are plain reads (stale is safe).
* Global relabel on the device (Algorithm 4.6's backward BFS, level-synchronous on a frontier queue):
  ``relabel_init_kernel`` (heights UNSET, ``h(t) = 0``, ``h(s) = n``, seed ``t``), ``seed_kernel``
  (phase 2: seed ``s`` at height ``n``), ``bfs_level_kernel`` (one level: a vertex ``v`` whose residual
  arc ``v -> u`` reaches the frontier vertex ``u`` gets ``h(u) + 1``, claimed by compare-and-swap),
  ``finish_relabel_kernel`` (gap relabelling: unreached vertices get ``hgap``; counts the vertices still
  active, the He & Hong stop test e(s) + e(t) = ExcessTotal read as "no active vertex is left").

``csr_solve_persistent_kernel`` (``loop="persistent"``) is the whole hybrid loop of both phases in ONE
cooperative launch: the same steps (``vertex_step_dev``, ``level_dev``) separated by grid syncs, grid-wide
sums by ``grid_total_dev``, status in ``out`` (vertices still active after ``max_rounds`` rounds: the host
raises).

BFS queues: one array of 2n, level ``L`` reads half ``L % 2`` and appends to the other; its size lives
in ``cnt[L % 3]``, the next level's in ``cnt[(L + 1) % 3]``, and thread 0 clears ``cnt[(L + 2) % 3]``
(read by the previous launch), so the host never resets a counter between levels.
"""

from __future__ import annotations

from numba import cuda, int64

from .._cuda._device import block_sum_dev, grid_stride_dev, grid_total_dev
from .._cuda._env import kernel_cache

__all__ = ["preflow_kernel", "push_kernel", "relabel_init_kernel", "seed_kernel", "bfs_level_kernel",
           "finish_relabel_kernel", "csr_solve_persistent_kernel", "excess_dev", "push_dev", "vertex_step_dev",
           "frontier_dev", "level_dev", "bfs_dev", "add_counts_dev", "BLOCK_SUM", "OUT_SIZE"]

BLOCK_SUM = 1024  # shared slots of the block reductions (the largest block)
CACHE = kernel_cache()  # numba-cuda on-disk cache of the kernels (off with MATCHFLOW_CUDA_CACHE=0)


@cuda.jit(device=True, inline=True)
def excess_dev(excess, x, tol):
    """``e'`` of Algorithm 4.5: a plain read filters, an atomic read (at L2: never an over-estimate) is exact."""
    ex = excess[x]
    if ex > tol:
        ex = cuda.atomic.add(excess, x, tol - tol)
    return ex


@cuda.jit(device=True, inline=True)
def push_dev(cap, a, ra, excess, x, y, ex):
    """The push of Algorithm 4.5: ``d = min(e', c_f(a))`` along the residual arc ``a = x -> y`` (reverse arc
    ``ra``), every update an atomic add (only ``x`` lowers ``c_f(a)`` and ``e(x)``). Returns 1 if ``d > 0``."""
    zero = ex - ex
    c = cuda.atomic.add(cap, a, zero)
    d = ex if ex < c else c
    if d > zero:
        cuda.atomic.sub(cap, a, d)
        cuda.atomic.add(cap, ra, d)
        cuda.atomic.sub(excess, x, d)
        cuda.atomic.add(excess, y, d)
        return 1
    return 0


@cuda.jit(cache=CACHE)
def preflow_kernel(s, indptr, head, rev, cap, excess):
    """Init (Algorithm 4.7): saturate every arc out of ``s``; its head gets the excess."""
    a = indptr[s] + cuda.grid(1)
    if a < indptr[s + 1]:
        c = cap[a]
        if c > 0:
            cap[a] = c - c
            cuda.atomic.add(cap, rev[a], c)
            cuda.atomic.add(excess, head[a], c)


@cuda.jit(device=True, inline=True)
def vertex_step_dev(x, n, s, t, hmax, indptr, head, rev, cap, excess, h, tol):
    """Algorithm 4.5 at vertex ``x``: 1 after a push, 2 after a relabel (or a drop: no residual arc left,
    a float residue below ``tol``), else 0 (``x`` not active)."""
    if x == s or x == t or h[x] >= hmax:
        return 0
    ex = excess_dev(excess, x, tol)
    if ex <= tol:
        return 0
    hmin = 4 * n
    amin = -1
    for a in range(indptr[x], indptr[x + 1]):
        if cap[a] > tol:
            hy = h[head[a]]
            if hy < hmin:
                hmin = hy
                amin = a
    if amin < 0:
        h[x] = 2 * n  # no residual arc left (float residue below tol): drop it
        return 2
    if h[x] > hmin:
        return push_dev(cap, amin, rev[amin], excess, x, head[amin], ex)
    h[x] = hmin + 1
    return 2


@cuda.jit(device=True, inline=True)
def add_counts_dev(counters, pushes, relabels):
    """A thread's pushes and relabels into the launch's ``counters[0:2]`` (no atomic for a zero)."""
    if pushes:
        cuda.atomic.add(counters, 0, pushes)
    if relabels:
        cuda.atomic.add(counters, 1, relabels)


@cuda.jit(cache=CACHE)
def push_kernel(n, s, t, hmax, cycle, indptr, head, rev, cap, excess, h, tol, counters):
    """Algorithm 4.5, ``cycle`` passes over this thread's vertices; adds its pushes and relabels to
    ``counters[0]`` and ``counters[1]``."""
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    pushes = 0
    relabels = 0
    for _ in range(cycle):
        x = start
        while x < n:
            r = vertex_step_dev(x, n, s, t, hmax, indptr, head, rev, cap, excess, h, tol)
            pushes += r & 1
            relabels += r >> 1
            x += stride
    add_counts_dev(counters, pushes, relabels)


@cuda.jit(cache=CACHE)
def relabel_init_kernel(n, s, t, level, h, queue, cnt, unset):
    """Heights UNSET but ``h(t) = 0`` and ``h(s) = n``; ``t`` is the frontier of level ``level``."""
    v = cuda.grid(1)
    if v < n:
        h[v] = 0 if v == t else (n if v == s else unset)
    if v == 0:
        queue[(level % 2) * n] = t
        cnt[level % 3] = 1
        cnt[(level + 1) % 3] = 0


@cuda.jit(cache=CACHE)
def seed_kernel(n, root, level, queue, cnt):
    """``root`` (its height already set) is the frontier of level ``level``."""
    if cuda.grid(1) == 0:
        queue[(level % 2) * n] = root
        cnt[level % 3] = 1
        cnt[(level + 1) % 3] = 0


@cuda.jit(device=True, inline=True)
def frontier_dev(i, level, n, cnt):
    """The bookkeeping of BFS level ``level``: ``(size, qin, qout, nxt)`` -- its frontier's size
    (``cnt[level % 3]``), the queue halves it reads and appends to, the next size slot; thread 0 clears
    the slot after next (read by the previous level)."""
    size = cnt[level % 3]
    if i == 0:
        cnt[(level + 2) % 3] = 0
    qin = (level % 2) * n
    return size, qin, n - qin, (level + 1) % 3


@cuda.jit(device=True, inline=True)
def level_dev(i, stride, level, hu, n, indptr, head, rev, cap, h, queue, cnt, tol, unset):
    """This thread's share of one backward BFS level: ``v`` with residual ``v -> u`` (``u`` in the
    frontier) gets height ``hu`` (compare-and-swap) and joins the next frontier. Returns the frontier's size."""
    size, qin, qout, nxt = frontier_dev(i, level, n, cnt)
    while i < size:
        u = queue[qin + i]
        for a in range(indptr[u], indptr[u + 1]):
            v = head[a]
            if h[v] == unset and cap[rev[a]] > tol:
                if cuda.atomic.cas(h, v, unset, hu) == unset:
                    queue[qout + cuda.atomic.add(cnt, nxt, 1)] = v
        i += stride
    return size


@cuda.jit(cache=CACHE)
def bfs_level_kernel(n, level, hoff, indptr, head, rev, cap, h, queue, cnt, tol, unset):
    """One level of the backward BFS (``loop="host"``); the frontier of level ``L`` has height ``L + hoff``."""
    level_dev(cuda.grid(1), cuda.gridsize(1), level, level + 1 + hoff, n, indptr, head, rev, cap, h, queue, cnt,
              tol, unset)


@cuda.jit(cache=CACHE)
def finish_relabel_kernel(n, s, t, hgap, unset, h, excess, tol, out):
    """Gap relabelling (unreached vertices get ``hgap``) and ``out[0] +=`` the vertices still active."""
    sh = cuda.shared.array(BLOCK_SUM, dtype=int64)
    v = cuda.grid(1)
    act = 0
    if v < n:
        if h[v] == unset:
            h[v] = hgap
        if v != s and v != t and h[v] < hgap and excess[v] > tol:
            act = 1
    tot = block_sum_dev(sh, act, cuda.threadIdx.x, cuda.blockDim.x)
    if cuda.threadIdx.x == 0 and tot:
        cuda.atomic.add(out, 0, tot)


# ------------------------------------------------------------------ the whole loop in one cooperative launch
S_ROUNDS, S_LEVELS, S_ACTIVE, S_ROUNDS1, S_RELABELS, S_PASSES = 3, 4, 5, 6, 7, 8  # out[]: results of the solve
OUT_SIZE = 9  # out[0:3]: the rotating slots of grid_total_dev (base 0)


@cuda.jit(device=True, inline=True)
def bfs_dev(g, i0, stride, level, hoff, n, indptr, head, rev, cap, h, queue, cnt, tol, unset):
    """Backward BFS levels from ``level`` (its frontier seeded, height ``level + hoff``), grid syncs between
    levels, until a frontier is empty; returns that level (every ``cnt`` slot is 0 then)."""
    while level_dev(i0, stride, level, level + 1 + hoff, n, indptr, head, rev, cap, h, queue, cnt, tol, unset) > 0:
        g.sync()
        level += 1
    return level


@cuda.jit(cache=CACHE)
def csr_solve_persistent_kernel(n, s, t, cycle, work_limit, max_rounds, indptr, head, rev, cap, excess, h, queue, cnt,
                                tol, unset, out, value, counters):
    """He & Hong's hybrid loop (Algorithms 4.6-4.8) in ONE cooperative launch (``loop="persistent"``), no
    host read inside. A round: global relabel (heights UNSET, ``h(t) = 0``, ``h(s) = n``; backward BFS
    from ``t``; phase 2 continues it from ``s`` at height ``n``; unreached vertices get the gap height
    ``hgap`` = n (phase 1) or 2n (phase 2)), the count of vertices still active (below the gap with excess:
    the stop test e(s) + e(t) = ExcessTotal), then lock-free passes (Algorithm 4.5) in chunks of ``cycle``,
    until a chunk does nothing or both the round's work (a push or relabel at ``x`` costs ``deg(x) + 1``
    arc scans, HIPR's measure) reached ``work_limit`` and its passes the depth of the relabel's BFS (a level
    costs about what a pass does: deep BFS, e.g. the AK networks', are not repeated after little work). Phase 1 ends with no active vertex (``value[0]`` =
    e(t): the flow value), phase 2 (the excess that cannot reach ``t`` back to ``s``) likewise; or stop
    after ``max_rounds`` rounds with ``out[S_ACTIVE]`` > 0. ``out`` zeros on entry."""
    g = cuda.cg.this_grid()
    sh = cuda.shared.array(BLOCK_SUM, dtype=int64)
    i0, stride, tid, bdim = grid_stride_dev()
    pushes = relabels = levels = rnd = rounds1 = ph = nrel = 0
    phase = 1
    passes = 0
    active = 0
    while True:
        hgap = n if phase == 1 else 2 * n
        v = i0
        while v < n:
            h[v] = 0 if v == t else (n if v == s else unset)
            v += stride
        if i0 == 0:
            queue[0] = t
            cnt[0] = 1
            cnt[1] = 0
        g.sync()
        depth = bfs_dev(g, i0, stride, 0, 0, n, indptr, head, rev, cap, h, queue, cnt, tol, unset)
        level = depth
        if phase == 2:  # the excess that cannot reach t flows back to s: BFS on from s at height n
            g.sync()
            if i0 == 0:
                queue[(level % 2) * n] = s
                cnt[level % 3] = 1
                cnt[(level + 1) % 3] = 0
            g.sync()
            depth = bfs_dev(g, i0, stride, level, n - level, n, indptr, head, rev, cap, h, queue, cnt, tol, unset)
        levels += depth
        act = 0
        v = i0
        while v < n:
            if h[v] == unset:
                h[v] = hgap  # gap relabelling
            elif v != s and v != t and h[v] < hgap and excess[v] > tol:
                act += 1
            v += stride
        active = grid_total_dev(g, sh, act, out, 0, ph, i0, tid, bdim)
        ph += 1
        nrel += 1
        if active == 0:
            if phase == 2:
                break
            phase = 2
            rounds1 = rnd
            if i0 == 0:
                value[0] = excess[t]
            continue
        if rnd >= max_rounds:
            break
        work = 0
        done = 0
        while True:
            w = 0
            for _ in range(cycle):
                x = i0
                while x < n:
                    r = vertex_step_dev(x, n, s, t, hgap, indptr, head, rev, cap, excess, h, tol)
                    if r:
                        pushes += r & 1
                        relabels += r >> 1
                        w += indptr[x + 1] - indptr[x] + 1
                    x += stride
            done += cycle
            tot = grid_total_dev(g, sh, w, out, 0, ph, i0, tid, bdim)
            ph += 1
            work += tot
            if tot == 0 or (work >= work_limit and done >= depth):
                break
        passes += done
        rnd += 1
    add_counts_dev(counters, pushes, relabels)
    if i0 == 0:
        out[S_ROUNDS] = rnd
        out[S_LEVELS] = levels
        out[S_ACTIVE] = active
        out[S_ROUNDS1] = rounds1
        out[S_RELABELS] = nrel
        out[S_PASSES] = passes
