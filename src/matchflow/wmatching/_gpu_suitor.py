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

A solve is a small state object with named stages (:class:`SuitorRun`, :class:`LDRun`): ``start`` (the graph on
the device: stats ``seconds_h2d``, the copy, and ``seconds_keys``, edge keys and the symmetry check on the
device), ``solve`` (the rounds and the mate array: ``seconds_solve``, ``rounds``), ``certify`` (nothing left to
propose, the suitor relation symmetric: ``seconds_certify``) and ``finish`` (on the host: ``seconds_d2h``; a
device-resident input: ``seconds_weight``, its pairs and exact weight read on the device).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._backend import require_gpu
from .._cuda import hand_back, is_simulator, quiet, validate_gpu_options
from .._graph import Graph
from .._validation import check_bool, check_choice, check_int, check_options
from ._gpu_graph import KEY_MAX, DeviceWeightedGraph, NotOnDevice, device_pairs, edge_keys, from_device_input, to_device
from ._prepare import _general, _trusted, _widen
from ._prepare_weights import exact_sum, int64_ranks
from ._result import WeightedMatchingResult

__all__ = ["SUITOR_VARIANTS", "HUB_DEGREE", "KEY_MAX", "DeviceWeightedGraph", "edge_keys", "to_device", "suitor_gpu",
           "suitor_device", "ld_gpu", "ld_device", "validate_suitor_gpu_options", "weighted_matching_device",
           "solve_problem", "SuitorRun", "LDRun", "RUNS"]

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

    from .._cuda._launch import cooperative_grid, cooperative_kernel, grid  # noqa: PLC0415

    bs, vpw = o["block_size"], o["vertices_per_warp"]
    qa, qb, ha, hb = _queues(cuda, dg, o["hub_degree"])
    args = (dg.ptr, dg.ind, dg.key, word, qa, qb, ha, hb, lens, dstats, np.int32(vcode), np.int64(o["lb_iters"]),
            np.int64(vpw), np.int64(o["hub_degree"]), np.int64(max_rounds))
    kern, gmax = cooperative_kernel(K.suitor_persistent_kernel, args, bs)
    if gmax < 1:
        return False
    kern[cooperative_grid(gmax, grid(dg.n, (bs // K.WS) * vpw), o["grid_size"]), bs](*args)
    return True


class _WeightedRun:
    """One GPU weighted-matching solve with validated options ``o``: ``start`` (the graph on the device) -> ``solve``
    (the twin's rounds and the mate array) -> ``certify`` (nothing left to propose, the relation is symmetric) ->
    ``finish`` (on the host: the mate, and without ``improve`` the matched pairs and their exact weight read on the
    device). The door's host problem: :meth:`run`; a device-resident input: :meth:`run_device`;
    ``matchflow.gpu``'s ``(mate, stats)``: :meth:`run_graph`. Subclasses give ``name``, ``options`` and the stages
    ``_rounds`` / ``_check``."""

    name = ""
    options: tuple[str, ...] = ()

    def __init__(self, o: dict[str, Any], improve: bool = False) -> None:
        self.o, self.improve = o, improve
        self.t_start = time.perf_counter()
        self.stats: dict[str, Any] = {}
        self.g: Graph | None = None
        self.dg: DeviceWeightedGraph | None = None

    @classmethod
    def from_options(cls, options: dict[str, Any], improve: bool = False) -> _WeightedRun:
        """A run of the caller's options, checked (unknown names raise naming them) before any device work."""
        return cls(validate_suitor_gpu_options(cls._accept(dict(options)), cls.options), improve)

    @staticmethod
    def _accept(opts: dict[str, Any]) -> dict[str, Any]:
        return opts

    # ---------------------------------------------------------------- start
    def start(self, g: Graph, pending: Any) -> None:
        """Upload once (raw weights; keys and, for an unchecked canonical scipy.sparse input ``pending``, the
        symmetry check on the device). An input that fails the device check takes the host's general path."""

        self.ranks = g.weights is not None and g.weights.dtype == np.uint64  # device keys read int64: uint64
        g_dev = _trusted(g.n, g.indptr, g.indices, int64_ranks(g.weights)) if self.ranks else g  # weights go as ranks
        try:
            dg = to_device(g_dev, check=pending is not None)
        except NotOnDevice:
            if pending is None:
                raise
            g = _general(pending)
            dg = to_device(g)
        self.g, self.dg = g, dg
        self.stats.update(seconds_h2d=dg.seconds_h2d, seconds_keys=dg.seconds_keys, seconds_check=0.0)

    def start_device(self, x: Any) -> str | None:
        """A device-resident input converted and checked on the device; the reason (a str) when it is not a
        canonical symmetric matrix without diagonal with finite int/float entries."""
        try:
            self.dg, self.lib = from_device_input(x)
        except NotOnDevice as e:
            return str(e)
        self.stats.update(seconds_h2d=0.0, seconds_keys=self.dg.seconds_keys, input_library=self.lib)
        return None

    # ---------------------------------------------------------------- solve / certify
    def solve(self) -> None:
        t0 = time.perf_counter()
        self.mate = self._rounds()
        self.stats["seconds_solve"] = time.perf_counter() - t0

    def certify(self) -> None:
        t0 = time.perf_counter()
        self._check()
        self.stats["seconds_certify"] = time.perf_counter() - t0

    def _rounds(self) -> Any:
        raise NotImplementedError

    def _check(self) -> None:
        raise NotImplementedError

    # ---------------------------------------------------------------- finish
    def finish(self) -> tuple[Graph, np.ndarray, dict[str, Any], tuple | None]:
        """``(graph, mate, stats, (weight, pairs) or None)`` on the host; the host weights widened only for
        ``improve`` (and for uint64 weights, whose pairs the host sums)."""

        t0 = time.perf_counter()
        g, dg = self.g, self.dg
        mate = self.mate.copy_to_host()[:g.n].astype(g.indices.dtype, copy=False)
        done = None
        if not (self.improve or self.ranks):
            pairs_d, per_d = device_pairs(dg, self.mate[:g.n])
            pairs = pairs_d.copy_to_host().astype(g.indices.dtype, copy=False).reshape(-1, 2)
            done = (exact_sum(per_d.copy_to_host()), pairs)
        self.stats["seconds_d2h"] = time.perf_counter() - t0
        if dg.ranked:
            self.stats["ranked"] = dg.ranked
        return (_widen(g) if done is None else g), mate, self.stats, done

    def finish_device(self) -> Any:
        """The result of a device-resident input, ``mate`` and ``edges`` in its library on its device."""

        t0 = time.perf_counter()
        dg, stats = self.dg, self.stats
        mate = self.mate[:dg.n]
        pairs, per = device_pairs(dg, mate)
        weight = exact_sum(per.copy_to_host())
        stats["seconds_weight"] = time.perf_counter() - t0
        if dg.ranked:
            stats["ranked"] = dg.ranked
        stats["seconds_call"] = time.perf_counter() - self.t_start
        return WeightedMatchingResult(mate=hand_back(mate, self.lib), weight=weight, cardinality=int(pairs.shape[0]),
                                      edges=hand_back(pairs, self.lib), method=self.name, backend="gpu",
                                      seconds=stats["seconds_solve"] + stats["seconds_certify"], stats=stats)

    # ---------------------------------------------------------------- the stages in order
    def run(self, g: Graph, pending: Any) -> tuple[Graph, np.ndarray, dict[str, Any], tuple | None]:
        with quiet():
            self.start(g, pending)
            self.solve()
            self.certify()
            return self.finish()

    def run_device(self, x: Any) -> Any:
        with quiet():
            reason = self.start_device(x)
            if reason is not None:
                return reason
            self.solve()
            self.certify()
            return self.finish_device()

    def run_graph(self, graph: Graph | DeviceWeightedGraph) -> tuple[np.ndarray, dict[str, Any]]:
        """``(mate, stats)`` on the host of a weighted Graph or its :func:`to_device` twin (stage ``d2h``)."""
        with quiet():
            self.dg = dg = to_device(graph)
            self.solve()
            self.certify()
            t0 = time.perf_counter()
            out = self.mate.copy_to_host()[:dg.n]
            stats = self.stats
            stats["seconds_d2h"] = time.perf_counter() - t0
            stats["seconds_h2d"] = 0.0 if graph is dg else dg.seconds_h2d
            stats["seconds_keys"] = 0.0 if graph is dg else dg.seconds_keys
            if isinstance(graph, Graph):
                out = out.astype(graph.indices.dtype, copy=False)
            stats["seconds_total"] = time.perf_counter() - self.t_start
            return out, stats


class SuitorRun(_WeightedRun):
    """GPU-Suitor (Algorithm 4); suitor's CPU switch ``parallel`` (same answer) is accepted and ignored, so that
    ``backend="auto"`` may move a ``parallel=True`` call to the GPU."""

    name = "suitor"
    options = _SUITOR_OPTIONS

    @staticmethod
    def _accept(opts: dict[str, Any]) -> dict[str, Any]:
        check_bool("parallel", opts.pop("parallel", False))
        return opts

    def _rounds(self) -> Any:
        from .._cuda._launch import Launcher, grid, host_rounds  # noqa: PLC0415
        from . import _gpu_suitor_kernels as K  # noqa: PLC0415

        dg, o = self.dg, self.o
        cuda, word, self.lens = _state(dg, K)
        bs, vpw, hub = o["block_size"], o["vertices_per_warp"], o["hub_degree"]
        vcode = SUITOR_VARIANTS.index(o["variant"])
        self.stats.update(variant=o["variant"], block_size=bs, vertices_per_warp=vpw, loop=o["loop"], hub_degree=hub)
        self.dstats = dstats = cuda.to_device(np.zeros(K.ST_N, np.int64))
        self.max_rounds = max_rounds = o["max_rounds"] or max(dg.n, 1) + 1
        self.L = L = Launcher(bs)
        if dg.n and (o["loop"] != "persistent" or not _suitor_persistent(K, dg, word, self.lens, dstats, o, vcode,
                                                                           max_rounds)):
            self.stats["loop"] = "host"
            qa, qb, ha, hb = _queues(cuda, dg, hub)
            flag = cuda.to_device(np.full(1, -1, np.int32))
            gsize = min(grid(dg.n, (bs // K.WS) * vpw), o["grid_size"] or 8192)
            lens = self.lens

            def one_round(r: int) -> None:
                qin, qout, hin, hout = (qa, qb, ha, hb) if r % 2 == 0 else (qb, qa, hb, ha)
                K.suitor_round_kernel[gsize, bs](dg.ptr, dg.ind, dg.key, word, qin, qout, hin, hout, lens, flag,
                                                 dstats, np.int64(r), np.int32(vcode), np.int64(o["lb_iters"]),
                                                 np.int64(vpw), np.int64(hub))
                L.launches += 1

            rounds = host_rounds(one_round, L.read, flag, o["check_every"], max_rounds)
            dstats[K.ST_ROUNDS:K.ST_ROUNDS + 1].copy_to_device(np.array([rounds], np.int64))
        mate = cuda.device_array(max(dg.n, 1), dg.ind.dtype)
        self.bad = cuda.to_device(np.zeros(1, np.int64))
        K.suitor_mate_kernel[grid(dg.n, 256), 256](word, mate, self.bad)
        return mate

    def _check(self) -> None:
        """No proposal left (else ``max_rounds`` ran out) and, with ``certify``, no one-sided suitor."""
        from . import _gpu_suitor_kernels as K  # noqa: PLC0415

        st = self.dstats.copy_to_host()
        r = int(st[K.ST_ROUNDS])
        ln = self.lens.copy_to_host()
        left = int(ln[r % 3] + ln[3 + r % 3]) if self.dg.n else 0
        nbad = int(self.bad.copy_to_host()[0])
        if left:
            raise RuntimeError(f"GPU-Suitor stopped after max_rounds={self.max_rounds} rounds with {left} proposals "
                               "left; raise max_rounds")
        if self.o["certify"] and nbad:
            raise RuntimeError(f"GPU-Suitor ended with {nbad} one-sided suitors; please report this bug")
        self.stats.update(proposals=int(st[K.ST_PROPOSALS]), beaten=int(st[K.ST_FAILED]),
                          hubs_deferred=int(st[K.ST_DEFERRED]), rounds=r, launches=self.L.launches + 1,
                          host_syncs=self.L.syncs + 3)


class LDRun(_WeightedRun):
    """GPU-LD, the paper's baseline (a thread per vertex; Halappanavar et al.)."""

    name = "ld"
    options = _LD_OPTIONS

    def _rounds(self) -> Any:
        from numba import cuda  # noqa: PLC0415

        from .._cuda._launch import Launcher, host_rounds  # noqa: PLC0415
        from . import _gpu_suitor_kernels as K  # noqa: PLC0415

        dg, o = self.dg, self.o
        self.L = L = Launcher(o["block_size"])
        n1 = max(dg.n, 1)
        mate = cuda.to_device(np.full(n1, -1, dg.ind.dtype))
        cand = cuda.to_device(np.full(n1, -1, dg.ind.dtype))
        self.flag = flag = cuda.to_device(np.full(1, -1, np.int32))
        self.stats.update(block_size=o["block_size"], loop="host")

        def one_round(r: int) -> None:
            L(K.ld_cand_kernel, dg.n, dg.ptr, dg.ind, dg.key, mate, cand, np.int64(r))
            L(K.ld_match_kernel, dg.n, cand, mate, flag, np.int32(r))

        self.max_rounds = o["max_rounds"] or n1 + 1
        self.rounds = host_rounds(one_round, L.read, flag, o["check_every"], self.max_rounds) if dg.n else 0
        return mate

    def _check(self) -> None:
        """The last round still matched (else ``max_rounds`` ran out before the matching was maximal)."""
        L, rounds = self.L, self.rounds
        if self.dg.n and rounds >= self.max_rounds and L.read(self.flag) == rounds - 1:
            raise RuntimeError(f"GPU-LD stopped after max_rounds={self.max_rounds} rounds; raise max_rounds")
        self.stats.update(rounds=rounds, launches=L.launches, host_syncs=L.syncs)


RUNS = {run.name: run for run in (SuitorRun, LDRun)}  # the GPU twins by method name


def suitor_device(dg: DeviceWeightedGraph, o: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """GPU-Suitor (Algorithm 4) on a device graph with validated options: ``(mate, stats)``, ``mate`` a
    device array (int32; -1 unmatched). Raises RuntimeError when ``max_rounds`` ran out."""
    return _on_device(SuitorRun(o), dg)


def ld_device(dg: DeviceWeightedGraph, o: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """GPU-LD on a device graph with validated options: ``(mate, stats)``, ``mate`` a device array."""
    return _on_device(LDRun(o), dg)


def _on_device(run: _WeightedRun, dg: DeviceWeightedGraph) -> tuple[Any, dict[str, Any]]:
    run.dg = dg
    run.solve()
    run.certify()
    return run.mate, run.stats


def suitor_gpu(graph: Graph | DeviceWeightedGraph, **options: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """GPU-Suitor (Algorithm 4): ``(mate, stats)`` on the host. ``graph``: a weighted Graph or its
    :func:`to_device` twin. The matching is the greedy one of the fixed edge order."""
    require_gpu("weighted_matching(method='suitor')")
    return SuitorRun.from_options(options).run_graph(graph)


def ld_gpu(graph: Graph | DeviceWeightedGraph, **options: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """GPU-LD: ``(mate, stats)`` on the host, the same greedy matching as :func:`suitor_gpu`."""
    require_gpu("weighted_matching(method='ld')")
    return LDRun.from_options(options).run_graph(graph)


def weighted_matching_device(graph: Any, method: str, improve: bool, options: dict[str, Any]) -> Any:
    """``weighted_matching`` of a device-resident square matrix (CuPy CSR/CSC or dense, PyTorch sparse CSR /
    coalesced COO / dense CUDA tensor, numba device array): converted, checked, solved on the device; ``mate``
    and ``edges`` come back as arrays of the input's library on the same device, ``weight`` (exact) as a float.
    The reason (a str) when the input is not a canonical symmetric matrix without diagonal with finite
    int/float entries: the caller then takes the host path (one copy; symmetrised there) and reports the
    reason as ``stats["device_fallback"]``."""
    require_gpu(f"weighted_matching(method={method!r}) of a device-resident graph")
    if improve:
        raise ValueError("improve=True runs on the host: pass a host matrix (e.g. cupy's .get()), or improve=False")
    return RUNS[method].from_options(options).run_device(graph)


def solve_problem(run: type[_WeightedRun], g: Graph, pending: Any, improve: bool, options: dict[str, Any]
                  ) -> tuple[Graph, np.ndarray, dict[str, Any], tuple | None]:
    """The door's GPU twin ``run`` on its prepared graph ``g`` (``pending``: the canonical scipy.sparse input not
    yet checked for symmetry, checked on the device): ``(graph, mate, stats, (weight, pairs) or None)``."""
    require_gpu(f"weighted_matching(method={run.name!r})")
    return run.from_options(options, improve).run(g, pending)
