"""GPU-Suitor and GPU-LD (Naim, Manne, Halappanavar, Tumeo, HiPC 2015): host drivers.

Both return the matching of every CPU method: the greedy matching of the fixed edge order of
:mod:`._cpu_suitor` (kernels and the packed-word encoding: :mod:`._gpu_suitor_kernels`).

Options (the shared vocabulary of :mod:`matchflow._cuda._options` plus):

* ``variant``: ``"nosync"`` (default; the paper's best), ``"synclb"``, ``"syncnolb"``, ``"hybrid"``
  (Section 4); ``lb_iters``: the first k iterations that load-balance (SyncLB, Hybrid; default 2);
* ``vertices_per_warp`` (vpw, default 8, at most 32): queued vertices a warp owns;
* ``block_size`` IS the paper's threads-per-block (default 128): the same thing, the shared name;
* ``loop``: ``"host"`` (a launch per round, the queue length read every ``check_every`` rounds) or
  ``"persistent"`` (one cooperative kernel, a grid sync per round); ``"auto"`` = persistent on a GPU;
* ``certify`` (default True): the suitor relation must be symmetric at the end (checked on the device).

Stages (``stats["seconds_<stage>"]``): ``h2d`` (keys + copy: :func:`to_device`), ``solve``, ``d2h``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._backend import require_gpu
from .._cuda import is_simulator, quiet, validate_gpu_options
from .._graph import Graph
from .._validation import check_choice, check_int, check_options, type_name

__all__ = ["SUITOR_VARIANTS", "DeviceWeightedGraph", "edge_keys", "to_device", "suitor_gpu", "ld_gpu",
           "validate_suitor_gpu_options"]

SUITOR_VARIANTS = ("nosync", "synclb", "syncnolb", "hybrid")
KEY_MAX = (1 << 31) - 1
_SUITOR_OPTIONS = ("variant", "vertices_per_warp", "lb_iters", "check_every")
_LD_OPTIONS = ("check_every",)


def edge_keys(w: np.ndarray) -> np.ndarray:
    """int32 keys in the order of the weights (0 for weights <= 0), in O(m) where possible: the weight
    itself for integers in [1, 2^31); the bits of the float32 for floats that float32 holds exactly
    (positive float32 bit patterns are ordered like the values); else the dense rank of the positive
    weights (one sort of the distinct values)."""
    if w.dtype.kind in "iu" and (w.size == 0 or int(w.max()) <= KEY_MAX):
        return np.maximum(w, 0).astype(np.int32)
    pos = w > 0
    if w.dtype.kind == "f":
        w32 = w.astype(np.float32)
        if np.array_equal(w32, w):
            return np.where(pos, w32.view(np.int32), np.int32(0))
    vals = np.unique(w[pos])
    key = np.zeros(len(w), dtype=np.int32)
    key[pos] = np.searchsorted(vals, w[pos]) + 1
    return key


@dataclass
class DeviceWeightedGraph:
    """A weighted :class:`~matchflow.Graph` on the GPU: CSR ``ptr``, ``ind`` and the edge ``key`` s."""

    n: int
    nnz: int
    ptr: Any
    ind: Any
    key: Any
    seconds_h2d: float = 0.0


def to_device(g: Graph | DeviceWeightedGraph) -> DeviceWeightedGraph:
    """The edge keys (host) and the CSR copied to the GPU, once; reused by every solve."""
    if isinstance(g, DeviceWeightedGraph):
        return g
    if not isinstance(g, Graph):
        raise TypeError(f"graph must be a matchflow.Graph or a DeviceWeightedGraph, got {type_name(g)}")
    from numba import cuda  # noqa: PLC0415

    t0 = time.perf_counter()
    w = np.ones(len(g.indices), np.int64) if g.weights is None else g.weights
    key = edge_keys(w)
    ind = g.indices.astype(np.int32, copy=False) if g.n < KEY_MAX else g.indices
    arrs = [cuda.to_device(a if a.size else np.zeros(1, a.dtype)) for a in (np.ascontiguousarray(g.indptr),
                                                                               np.ascontiguousarray(ind), key)]
    cuda.synchronize()
    return DeviceWeightedGraph(g.n, len(g.indices), *arrs, seconds_h2d=time.perf_counter() - t0)


def validate_suitor_gpu_options(options: dict, names: tuple[str, ...] = _SUITOR_OPTIONS) -> dict[str, Any]:
    """Normalised GPU options (no CUDA needed); unknown names raise naming them."""
    opts = dict(options)
    o = validate_gpu_options("weighted_matching(backend='gpu')", opts, block_default=128)
    check_options("weighted_matching(backend='gpu')", opts, names)
    o["variant"] = check_choice("variant", opts.get("variant", "nosync"), SUITOR_VARIANTS)
    o["vertices_per_warp"] = check_int("vertices_per_warp", opts.get("vertices_per_warp", 8), low=1, high=32)
    o["lb_iters"] = check_int("lb_iters", opts.get("lb_iters", 2), low=0)
    o["check_every"] = check_int("check_every", opts.get("check_every", 4), low=1)
    if o["loop"] == "auto":
        o["loop"] = "host" if is_simulator() else "persistent"
    return o


def _state(dg: DeviceWeightedGraph, K: Any) -> tuple[Any, Any, Any]:
    """The suitor words (zeroed on the device, no host copy) and the queue lengths ``[n, 0, 0]``."""
    from numba import cuda  # noqa: PLC0415

    word = cuda.device_array(max(dg.n, 1), np.int64)
    lens = cuda.device_array(3, np.int32)
    K.suitor_init_kernel[max(1, (len(word) + 255) // 256), 256](word, lens, np.int32(dg.n))
    return cuda, word, lens


def _suitor_persistent(K: Any, dg: DeviceWeightedGraph, word: Any, lens: Any, dstats: Any, o: dict, vcode: int,
                       max_rounds: int) -> bool:
    """All rounds in one cooperative kernel; False when no block fits (then the host loop runs)."""
    from numba import cuda  # noqa: PLC0415

    from .._cuda._launch import cooperative_kernel, grid  # noqa: PLC0415

    bs, vpw = o["block_size"], o["vertices_per_warp"]
    qa, qb = cuda.device_array(max(dg.n, 1), np.int32), cuda.device_array(max(dg.n, 1), np.int32)
    args = (dg.ptr, dg.ind, dg.key, word, qa, qb, lens, dstats, np.int32(vcode), np.int64(o["lb_iters"]),
            np.int64(vpw), np.int64(max_rounds))
    kern, gmax = cooperative_kernel(K.suitor_persistent_kernel, args, bs)
    if gmax < 1:
        return False
    gsize = min(gmax, grid(dg.n, (bs // K.WS) * vpw))
    if o["grid_size"] is not None:
        gsize = min(gsize, o["grid_size"])
    kern[gsize, bs](*args)
    return True


def suitor_gpu(graph: Graph | DeviceWeightedGraph, **options: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """GPU-Suitor (Algorithm 4): ``(mate, stats)`` on the host. ``graph``: a weighted Graph or its
    :func:`to_device` twin. The matching is the greedy one of the fixed edge order."""
    require_gpu("weighted_matching(method='suitor')")
    o = validate_suitor_gpu_options(options)
    from .._cuda._launch import Launcher, grid, host_rounds  # noqa: PLC0415
    from . import _gpu_suitor_kernels as K  # noqa: PLC0415

    t_all = time.perf_counter()
    with quiet():
        dg = to_device(graph)
        cuda, word, lens = _state(dg, K)
        bs, vpw = o["block_size"], o["vertices_per_warp"]
        vcode = SUITOR_VARIANTS.index(o["variant"])
        stats: dict[str, Any] = {"variant": o["variant"], "block_size": bs, "vertices_per_warp": vpw,
                                 "loop": o["loop"], "seconds_h2d": 0.0 if graph is dg else dg.seconds_h2d}
        dstats = cuda.to_device(np.zeros(K.ST_N, np.int64))
        max_rounds = o["max_rounds"] or max(dg.n, 1) + 1
        L = Launcher(bs)
        t0 = time.perf_counter()
        if dg.n and (o["loop"] != "persistent" or not _suitor_persistent(K, dg, word, lens, dstats, o, vcode,
                                                                           max_rounds)):
            stats["loop"] = "host"
            qa, qb = cuda.device_array(dg.n, np.int32), cuda.device_array(dg.n, np.int32)
            flag = cuda.to_device(np.full(1, -1, np.int32))
            gsize = min(grid(dg.n, (bs // K.WS) * vpw), o["grid_size"] or 8192)

            def one_round(r: int) -> None:
                qin, qout = (qa, qb) if r % 2 == 0 else (qb, qa)
                K.suitor_round_kernel[gsize, bs](dg.ptr, dg.ind, dg.key, word, qin, qout, lens, flag, dstats,
                                                 np.int64(r), np.int32(vcode), np.int64(o["lb_iters"]), np.int64(vpw))
                L.launches += 1

            rounds = host_rounds(one_round, L.read, flag, o["check_every"], max_rounds)
            dstats[K.ST_ROUNDS:K.ST_ROUNDS + 1].copy_to_device(np.array([rounds], np.int64))
        mate_d = cuda.device_array(max(dg.n, 1), dg.ind.dtype)
        bad = cuda.to_device(np.zeros(1, np.int64))
        K.suitor_mate_kernel[grid(dg.n, 256), 256](word, mate_d, bad)
        st = dstats.copy_to_host()
        left = int(lens.copy_to_host()[int(st[K.ST_ROUNDS]) % 3]) if dg.n else 0
        stats["seconds_solve"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        mate = mate_d.copy_to_host()[:dg.n]
        nbad = int(bad.copy_to_host()[0])
        stats["seconds_d2h"] = time.perf_counter() - t0
    if left:
        raise RuntimeError(f"GPU-Suitor stopped after max_rounds={max_rounds} rounds with {left} proposals left; "
                           "raise max_rounds")
    if o["certify"] and nbad:
        raise RuntimeError(f"GPU-Suitor ended with {nbad} one-sided suitors; please report this bug")
    if isinstance(graph, Graph):
        mate = mate.astype(graph.indices.dtype, copy=False)
    stats.update(proposals=int(st[K.ST_PROPOSALS]), beaten=int(st[K.ST_FAILED]), rounds=int(st[K.ST_ROUNDS]),
                 launches=L.launches + 1, host_syncs=L.syncs + 2, seconds_total=time.perf_counter() - t_all)
    return mate, stats


def ld_gpu(graph: Graph | DeviceWeightedGraph, **options: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """GPU-LD, the paper's baseline (a thread per vertex; Halappanavar et al.): ``(mate, stats)``."""
    require_gpu("weighted_matching(method='ld')")
    o = validate_suitor_gpu_options(options, _LD_OPTIONS)
    from .._cuda._launch import Launcher, host_rounds  # noqa: PLC0415
    from . import _gpu_suitor_kernels as K  # noqa: PLC0415

    t_all = time.perf_counter()
    with quiet():
        dg = to_device(graph)
        from numba import cuda  # noqa: PLC0415

        bs = o["block_size"]
        L = Launcher(bs)
        n1 = max(dg.n, 1)
        mate = cuda.to_device(np.full(n1, -1, dg.ind.dtype))
        cand = cuda.to_device(np.full(n1, -1, dg.ind.dtype))
        flag = cuda.to_device(np.full(1, -1, np.int32))
        stats: dict[str, Any] = {"block_size": bs, "loop": "host", "seconds_h2d": 0.0 if graph is dg else
                                 dg.seconds_h2d}
        t0 = time.perf_counter()

        def one_round(r: int) -> None:
            L(K.ld_cand_kernel, dg.n, dg.ptr, dg.ind, dg.key, mate, cand, np.int64(r))
            L(K.ld_match_kernel, dg.n, cand, mate, flag, np.int32(r))

        max_rounds = o["max_rounds"] or n1 + 1
        rounds = host_rounds(one_round, L.read, flag, o["check_every"], max_rounds) if dg.n else 0
        stats["seconds_solve"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = mate.copy_to_host()[:dg.n]
        stats["seconds_d2h"] = time.perf_counter() - t0
    if dg.n and rounds >= max_rounds and L.read(flag) == rounds - 1:
        raise RuntimeError(f"GPU-LD stopped after max_rounds={max_rounds} rounds; raise max_rounds")
    if isinstance(graph, Graph):
        out = out.astype(graph.indices.dtype, copy=False)
    stats.update(rounds=rounds, launches=L.launches, host_syncs=L.syncs, seconds_total=time.perf_counter() - t_all)
    return out, stats
