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

BFS queues: one array of 2n, level ``L`` reads half ``L % 2`` and appends to the other; its size lives
in ``cnt[L % 3]``, the next level's in ``cnt[(L + 1) % 3]``, and thread 0 clears ``cnt[(L + 2) % 3]``
(read by the previous launch), so the host never resets a counter between levels.
"""

from __future__ import annotations

from numba import cuda, int64

from .._cuda._device import block_sum_dev
from .._cuda._env import kernel_cache

__all__ = ["preflow_kernel", "push_kernel", "relabel_init_kernel", "seed_kernel", "bfs_level_kernel",
           "bfs_persistent_kernel", "finish_relabel_kernel", "excess_dev", "push_dev", "frontier_dev", "level_dev",
           "BLOCK_SUM"]

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
            if x != s and x != t and h[x] < hmax:
                ex = excess_dev(excess, x, tol)
                if ex > tol:
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
                    elif h[x] > hmin:
                        pushes += push_dev(cap, amin, rev[amin], excess, x, head[amin], ex)
                    else:
                        h[x] = hmin + 1
                        relabels += 1
            x += stride
    if pushes:
        cuda.atomic.add(counters, 0, pushes)
    if relabels:
        cuda.atomic.add(counters, 1, relabels)


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
def bfs_persistent_kernel(n, level, hoff, indptr, head, rev, cap, h, queue, cnt, tol, unset, out):
    """Every level of one backward BFS in ONE cooperative launch (``loop="persistent"``): the levels of
    ``bfs_level_kernel`` separated by grid syncs (after a sync plain reads see the previous level's
    writes); the frontier of level ``L`` has height ``L + hoff``. ``out[0]``: the first empty level."""
    g = cuda.cg.this_grid()
    i0 = cuda.grid(1)
    stride = cuda.gridsize(1)
    while level_dev(i0, stride, level, level + 1 + hoff, n, indptr, head, rev, cap, h, queue, cnt, tol, unset) > 0:
        g.sync()
        level += 1
    if i0 == 0:
        out[0] = level


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
