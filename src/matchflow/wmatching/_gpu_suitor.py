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
* ``certify`` (default True): the suitor relation must be symmetric at the end (checked on the device);
* ``hub_degree`` (default :data:`HUB_DEGREE`; 0: off): vertices of larger degree are scanned by a whole
  block, in a pass at the start of each round (:mod:`._gpu_suitor_kernels`).

Stages (``stats["seconds_<stage>"]``): ``h2d`` (the copy: :func:`to_device`), ``keys`` (edge keys and the
symmetry check on the device), ``solve``, ``d2h``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._backend import require_gpu
from .._cuda import is_simulator, quiet, validate_gpu_options
from .._graph import Graph
from .._validation import check_bool, check_choice, check_int, check_options
from ._gpu_graph import KEY_MAX, DeviceWeightedGraph, edge_keys, to_device

__all__ = ["SUITOR_VARIANTS", "HUB_DEGREE", "KEY_MAX", "DeviceWeightedGraph", "edge_keys", "to_device", "suitor_gpu",
           "suitor_device", "ld_gpu", "ld_device", "validate_suitor_gpu_options",
           "weighted_matching_device", "solve_device"]

SUITOR_VARIANTS = ("nosync", "synclb", "syncnolb", "hybrid")
# The default of ``hub_degree`` (0: off). H100, 2026-11-23 (results/wmatching/gpu-h100-2026-11-23b.md), device
# form with / without the hub pass: R-MAT 20 5.4 vs 6.7 ms, R-MAT 23 (1.3e8 edges) 31.1 vs 38.1 ms; graphs
# without such hubs (meshes, roads) never enter the pass.
HUB_DEGREE = 1024
_SUITOR_OPTIONS = ("variant", "vertices_per_warp", "lb_iters", "check_every", "hub_degree")
_LD_OPTIONS = ("check_every",)


def validate_suitor_gpu_options(options: dict, names: tuple[str, ...] = _SUITOR_OPTIONS) -> dict[str, Any]:
    """Normalised GPU options (no CUDA needed); unknown names raise naming them."""
    opts = dict(options)
    o = validate_gpu_options("weighted_matching(backend='gpu')", opts, block_default=128)
    check_options("weighted_matching(backend='gpu')", opts, names)
    o["variant"] = check_choice("variant", opts.get("variant", "nosync"), SUITOR_VARIANTS)
    o["vertices_per_warp"] = check_int("vertices_per_warp", opts.get("vertices_per_warp", 8), low=1, high=32)
    o["lb_iters"] = check_int("lb_iters", opts.get("lb_iters", 2), low=0)
    o["check_every"] = check_int("check_every", opts.get("check_every", 4), low=1)
    o["hub_degree"] = check_int("hub_degree", opts.get("hub_degree", HUB_DEGREE), low=0)
    if o["loop"] == "auto":
        o["loop"] = "host" if is_simulator() else "persistent"
    return o


def _state(dg: DeviceWeightedGraph, K: Any) -> tuple[Any, Any, Any]:
    """The suitor words (zeroed on the device, no host copy) and the queue lengths ``[n, 0, 0, 0, 0, 0]``."""
    from numba import cuda  # noqa: PLC0415

    word = cuda.device_array(max(dg.n, 1), np.int64)
    lens = cuda.device_array(K.N_LENS, np.int32)
    K.suitor_init_kernel[max(1, (len(word) + 255) // 256), 256](word, lens, np.int32(dg.n))
    return cuda, word, lens


def _queues(cuda: Any, dg: DeviceWeightedGraph, hub_degree: int) -> tuple[Any, Any, Any, Any]:
    """Vertex queues (n slots each) and hub queues (as many slots as vertices of degree > hub_degree can be)."""
    n1 = max(dg.n, 1)
    nh = min(n1, dg.nnz // (hub_degree + 1) + 1) if hub_degree else 1
    return (cuda.device_array(n1, np.int32), cuda.device_array(n1, np.int32), cuda.device_array(nh, np.int32),
            cuda.device_array(nh, np.int32))


def _suitor_persistent(K: Any, dg: DeviceWeightedGraph, word: Any, lens: Any, dstats: Any, o: dict, vcode: int,
                       max_rounds: int) -> bool:
    """All rounds in one cooperative kernel; False when no block fits (then the host loop runs)."""
    from numba import cuda  # noqa: PLC0415

    from .._cuda._launch import cooperative_kernel, grid  # noqa: PLC0415

    bs, vpw = o["block_size"], o["vertices_per_warp"]
    qa, qb, ha, hb = _queues(cuda, dg, o["hub_degree"])
    args = (dg.ptr, dg.ind, dg.key, word, qa, qb, ha, hb, lens, dstats, np.int32(vcode), np.int64(o["lb_iters"]),
            np.int64(vpw), np.int64(o["hub_degree"]), np.int64(max_rounds))
    kern, gmax = cooperative_kernel(K.suitor_persistent_kernel, args, bs)
    if gmax < 1:
        return False
    gsize = min(gmax, grid(dg.n, (bs // K.WS) * vpw))
    if o["grid_size"] is not None:
        gsize = min(gsize, o["grid_size"])
    kern[gsize, bs](*args)
    return True


def suitor_device(dg: DeviceWeightedGraph, o: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """GPU-Suitor (Algorithm 4) on a device graph with validated options: ``(mate, stats)``, ``mate`` a
    device array (int32; -1 unmatched). Raises RuntimeError when ``max_rounds`` ran out."""
    from .._cuda._launch import Launcher, grid, host_rounds  # noqa: PLC0415
    from . import _gpu_suitor_kernels as K  # noqa: PLC0415

    cuda, word, lens = _state(dg, K)
    bs, vpw, hub = o["block_size"], o["vertices_per_warp"], o["hub_degree"]
    vcode = SUITOR_VARIANTS.index(o["variant"])
    stats: dict[str, Any] = {"variant": o["variant"], "block_size": bs, "vertices_per_warp": vpw, "loop": o["loop"],
                             "hub_degree": hub}
    dstats = cuda.to_device(np.zeros(K.ST_N, np.int64))
    max_rounds = o["max_rounds"] or max(dg.n, 1) + 1
    L = Launcher(bs)
    t0 = time.perf_counter()
    if dg.n and (o["loop"] != "persistent" or not _suitor_persistent(K, dg, word, lens, dstats, o, vcode,
                                                                       max_rounds)):
        stats["loop"] = "host"
        qa, qb, ha, hb = _queues(cuda, dg, hub)
        flag = cuda.to_device(np.full(1, -1, np.int32))
        gsize = min(grid(dg.n, (bs // K.WS) * vpw), o["grid_size"] or 8192)

        def one_round(r: int) -> None:
            qin, qout, hin, hout = (qa, qb, ha, hb) if r % 2 == 0 else (qb, qa, hb, ha)
            K.suitor_round_kernel[gsize, bs](dg.ptr, dg.ind, dg.key, word, qin, qout, hin, hout, lens, flag, dstats,
                                             np.int64(r), np.int32(vcode), np.int64(o["lb_iters"]), np.int64(vpw),
                                             np.int64(hub))
            L.launches += 1

        rounds = host_rounds(one_round, L.read, flag, o["check_every"], max_rounds)
        dstats[K.ST_ROUNDS:K.ST_ROUNDS + 1].copy_to_device(np.array([rounds], np.int64))
    mate = cuda.device_array(max(dg.n, 1), dg.ind.dtype)
    bad = cuda.to_device(np.zeros(1, np.int64))
    K.suitor_mate_kernel[grid(dg.n, 256), 256](word, mate, bad)
    st = dstats.copy_to_host()
    r = int(st[K.ST_ROUNDS])
    ln = lens.copy_to_host()
    left = int(ln[r % 3] + ln[3 + r % 3]) if dg.n else 0
    nbad = int(bad.copy_to_host()[0])
    stats["seconds_solve"] = time.perf_counter() - t0
    if left:
        raise RuntimeError(f"GPU-Suitor stopped after max_rounds={max_rounds} rounds with {left} proposals left; "
                           "raise max_rounds")
    if o["certify"] and nbad:
        raise RuntimeError(f"GPU-Suitor ended with {nbad} one-sided suitors; please report this bug")
    stats.update(proposals=int(st[K.ST_PROPOSALS]), beaten=int(st[K.ST_FAILED]), hubs_deferred=int(st[K.ST_DEFERRED]),
                 rounds=r, launches=L.launches + 1, host_syncs=L.syncs + 3)
    return mate, stats


def _host_result(graph: Any, dg: DeviceWeightedGraph, mate: Any, stats: dict, t_all: float) -> np.ndarray:
    """The device mate on the host (stage ``d2h``), in the host graph's index dtype."""
    t0 = time.perf_counter()
    out = mate.copy_to_host()[:dg.n]
    stats["seconds_d2h"] = time.perf_counter() - t0
    stats["seconds_h2d"] = 0.0 if graph is dg else dg.seconds_h2d
    stats["seconds_keys"] = 0.0 if graph is dg else dg.seconds_keys
    if isinstance(graph, Graph):
        out = out.astype(graph.indices.dtype, copy=False)
    stats["seconds_total"] = time.perf_counter() - t_all
    return out


def suitor_gpu(graph: Graph | DeviceWeightedGraph, **options: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """GPU-Suitor (Algorithm 4): ``(mate, stats)`` on the host. ``graph``: a weighted Graph or its
    :func:`to_device` twin. The matching is the greedy one of the fixed edge order."""
    require_gpu("weighted_matching(method='suitor')")
    o = validate_suitor_gpu_options(options)
    t_all = time.perf_counter()
    with quiet():
        dg = to_device(graph)
        mate, stats = suitor_device(dg, o)
        return _host_result(graph, dg, mate, stats, t_all), stats


def ld_device(dg: DeviceWeightedGraph, o: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """GPU-LD, the paper's baseline (a thread per vertex; Halappanavar et al.) on a device graph:
    ``(mate, stats)``, ``mate`` a device array."""
    from numba import cuda  # noqa: PLC0415

    from .._cuda._launch import Launcher, host_rounds  # noqa: PLC0415
    from . import _gpu_suitor_kernels as K  # noqa: PLC0415

    bs = o["block_size"]
    L = Launcher(bs)
    n1 = max(dg.n, 1)
    mate = cuda.to_device(np.full(n1, -1, dg.ind.dtype))
    cand = cuda.to_device(np.full(n1, -1, dg.ind.dtype))
    flag = cuda.to_device(np.full(1, -1, np.int32))
    stats: dict[str, Any] = {"block_size": bs, "loop": "host"}
    t0 = time.perf_counter()

    def one_round(r: int) -> None:
        L(K.ld_cand_kernel, dg.n, dg.ptr, dg.ind, dg.key, mate, cand, np.int64(r))
        L(K.ld_match_kernel, dg.n, cand, mate, flag, np.int32(r))

    max_rounds = o["max_rounds"] or n1 + 1
    rounds = host_rounds(one_round, L.read, flag, o["check_every"], max_rounds) if dg.n else 0
    stats["seconds_solve"] = time.perf_counter() - t0
    if dg.n and rounds >= max_rounds and L.read(flag) == rounds - 1:
        raise RuntimeError(f"GPU-LD stopped after max_rounds={max_rounds} rounds; raise max_rounds")
    stats.update(rounds=rounds, launches=L.launches, host_syncs=L.syncs)
    return mate, stats


def ld_gpu(graph: Graph | DeviceWeightedGraph, **options: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """GPU-LD: ``(mate, stats)`` on the host, the same greedy matching as :func:`suitor_gpu`."""
    require_gpu("weighted_matching(method='ld')")
    o = validate_suitor_gpu_options(options, _LD_OPTIONS)
    t_all = time.perf_counter()
    with quiet():
        dg = to_device(graph)
        mate, stats = ld_device(dg, o)
        return _host_result(graph, dg, mate, stats, t_all), stats


def weighted_matching_device(graph: Any, method: str, improve: bool, options: dict[str, Any]) -> Any:
    """``weighted_matching`` of a device-resident square matrix (CuPy CSR/CSC or dense, PyTorch sparse CSR /
    coalesced COO / dense CUDA tensor, numba device array): converted, checked, solved on the device; ``mate``
    and ``edges`` come back as arrays of the input's library on the same device, ``weight`` (exact) as a float.
    The reason (a str) when the input is not a canonical symmetric matrix without diagonal with finite
    int/float entries: the caller then takes the host path (one copy; symmetrised there) and reports the
    reason as ``stats["device_fallback"]``."""
    from .._cuda import hand_back  # noqa: PLC0415
    from ._gpu_graph import NotOnDevice, device_pairs, from_device_input  # noqa: PLC0415
    from ._result import WeightedMatchingResult  # noqa: PLC0415
    from ._weights import exact_sum  # noqa: PLC0415

    require_gpu(f"weighted_matching(method={method!r}) of a device-resident graph")
    if improve:
        raise ValueError("improve=True runs on the host: pass a host matrix (e.g. cupy's .get()), or improve=False")
    solve_device(None, method, options)  # the options, checked before any device work
    t_all = time.perf_counter()
    with quiet():
        try:
            dg, lib = from_device_input(graph)
        except NotOnDevice as e:
            return str(e)
        mate, stats = solve_device(dg, method, options)
        t0 = time.perf_counter()
        mate = mate[:dg.n]
        pairs, per = device_pairs(dg, mate)
        weight = exact_sum(per.copy_to_host())
        stats.update(seconds_h2d=0.0, seconds_keys=dg.seconds_keys, seconds_weight=time.perf_counter() - t0,
                     input_library=lib)
        if dg.ranked:
            stats["ranked"] = dg.ranked
        stats["seconds_call"] = time.perf_counter() - t_all
        return WeightedMatchingResult(mate=hand_back(mate, lib), weight=weight, cardinality=int(pairs.shape[0]),
                                      edges=hand_back(pairs, lib), method=method, backend="gpu",
                                      seconds=stats["seconds_solve"], stats=stats)


def solve_device(dg: DeviceWeightedGraph | None, method: str, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The public call's GPU solve of ``method`` ("suitor", "ld") on a device graph: the options checked
    (suitor's CPU switch ``parallel`` accepted and ignored), ``(mate, stats)`` with ``mate`` on the device.
    ``dg=None``: only the option check."""
    opts = dict(options)
    if method == "suitor":
        check_bool("parallel", opts.pop("parallel", False))
    o = validate_suitor_gpu_options(opts, _SUITOR_OPTIONS if method == "suitor" else _LD_OPTIONS)
    if dg is None:
        return None, {}
    return (suitor_device if method == "suitor" else ld_device)(dg, o)
