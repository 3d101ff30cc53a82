"""GPU push-relabel max-flow (host driver): Hong's lock-free push-relabel with He & Hong's hybrid
scheme (Łupińska, Section 4, Algorithms 4.5-4.8), the global relabel on the device.

A solve is a state object with named stages: ``start`` (H2D, the preflow), ``solve`` (phase 1 until no
vertex below the gap holds excess, phase 2 -- general graphs only -- returns the excess that cannot reach
the sink to the source, so the answer is a flow), ``finish`` (D2H, per-arc flow, stats).
``loop="persistent"`` (the default on a GPU) runs the whole loop of both phases -- global relabels,
gap relabelling, active counts, lock-free passes -- in ONE cooperative kernel
(``csr_solve_persistent_kernel``) with one host read at the end; ``loop="host"`` runs host rounds
(``Rounds``: a push launch of ``cycle`` passes, one launch per BFS level, host reads between).
``grid_cut_gpu`` runs phase 1 on a grid with implicit neighbours (:mod:`._gpu_grid`) with the same
options and ``Rounds``.

Beyond the paper: the global relabel runs on the device (a level-synchronous backward BFS on a frontier
queue); the stop test ``e(s) + e(t) = ExcessTotal`` is evaluated as "no vertex below the gap holds
excess" (the same condition); the violating arcs are not cancelled (Algorithm 4.6 lines 1-6: the exact
BFS heights are valid by construction, and a cancel that moves more than ``e(x)`` would leave deficits);
and the persistent loop relabels globally after work proportional to ``n + m`` (``relabel_freq``, HIPR's
measure: a push or relabel at ``x`` costs ``deg(x) + 1`` arc scans) and at least as many passes as the
last BFS had levels, checked every ``cycle`` passes, instead of after a fixed CYCLE: ak-4102 needs ~16k
passes in all and its BFS is ~5000 levels deep (a host emulation of the loop: 7 global relabels instead
of 580 with the work rule alone). The push step itself (``excess_dev``, ``push_dev``) is shared
with the grid kernels.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._backend import require_gpu
from .._cuda import is_simulator, quiet, validate_gpu_options
from .._cuda._launch import Launcher
from .._graph import FlowNetwork
from .._graph._flow import FLOAT_RTOL
from .._validation import check_int, check_options

__all__ = ["validate_flow_gpu_options", "push_relabel_gpu", "CYCLE", "CHECK_EVERY", "RELABEL_FREQ", "GPU_NETWORK_MIN_ARCS"]

CYCLE = 32  # lock-free passes per round (the paper's CYCLE counts iterations of one thread; 7000 there)
CHECK_EVERY = 8  # BFS levels between host reads of the frontier size
BFS_BLOCKS = 1024  # blocks of a BFS level launch (grid-stride over the frontier)
RELABEL_FREQ = 0.5  # loop="persistent" on networks: a global relabel after RELABEL_FREQ * (n + m) arc scans
GPU_NETWORK_MIN_ARCS = 1_500_000  # max_flow, backend="auto": the GPU from this many arcs on (_methods._gpu_rule)
_OPTIONS = ("cycle", "check_every")


def validate_flow_gpu_options(opts: dict[str, Any]) -> dict[str, Any]:
    """The GPU vocabulary (``loop``: "persistent" -- the whole solve in one cooperative launch --, "host" --
    one launch per BFS level and per round --, or "auto": persistent on a GPU, host in the simulator;
    ``certify``; ``max_rounds``; ``block_size``, a power of two in [32, 1024], default 256; ``grid_size``:
    cap on the push kernel's blocks) plus ``cycle`` (lock-free passes per round; networks with
    ``loop="persistent"``: passes between checks of the round's work; default 32) and ``check_every``
    (BFS levels per host read, default 8). Networks also take ``relabel_freq`` (:func:`push_relabel_gpu`)."""
    opts = dict(opts)
    out = validate_gpu_options("push-relabel (GPU)", opts, block_low=32)
    check_options("push-relabel (GPU)", opts, _OPTIONS)
    if out["loop"] == "auto":
        out["loop"] = "host" if is_simulator() else "persistent"
    out["cycle"] = check_int("cycle", opts.get("cycle", CYCLE), low=1, high=1 << 20)
    out["check_every"] = check_int("check_every", opts.get("check_every", CHECK_EVERY), low=1, high=1 << 16)
    return out


class Rounds(Launcher):
    """The shared host loop on :class:`~matchflow._cuda._launch.Launcher` (launches and host reads counted,
    published as ``stats["kernel_launches"]`` / ``stats["host_syncs"]`` by :meth:`work`): the BFS level
    batches and the round loop."""

    def __init__(self, o: dict[str, Any], n: int) -> None:
        from numba import cuda  # noqa: PLC0415

        super().__init__(o["block_size"])
        self.o, self.n, self.bs = o, n, o["block_size"]
        blocks = self.over(n)
        self.push_blocks = min(blocks, o["grid_size"]) if o["grid_size"] else blocks
        self.bfs_blocks = min(blocks, BFS_BLOCKS)
        self.cnt = cuda.to_device(np.zeros(3, np.int32))
        self.out = cuda.to_device(np.zeros(1, np.int64))
        self.counters = cuda.to_device(np.zeros(2, np.int64))
        self.queue = cuda.device_array(2 * max(n, 1), dtype=np.int32)
        self.lvl = cuda.to_device(np.zeros(1, np.int64))
        self.stats: dict[str, Any] = {"loop": o["loop"], "cycle": o["cycle"], "block_size": self.bs,
                                      "grid_size": self.push_blocks, "check_every": o["check_every"], "rounds": 0,
                                      "global_relabels": 0, "bfs_levels": 0, "kernel_launches": 0, "host_syncs": 0}

    def bfs(self, one_level: Any, level: int) -> int:
        """``one_level(level)`` from ``level`` until a frontier is empty; returns the next level."""
        while True:
            for _ in range(self.o["check_every"]):
                one_level(np.int64(level))
                level += 1
            self.stats["bfs_levels"] += self.o["check_every"]
            if self.value(self.cnt, level % 3) == 0:
                return level

    def active(self, finish: Any, *args: Any) -> int:
        """The relabel's last kernel (gap relabelling) and the count of vertices still active."""
        self.out.copy_to_device(np.zeros(1, np.int64))
        self.on(finish, self.over(self.n), *args, self.out)
        self.stats["global_relabels"] += 1
        return self.read(self.out)

    def run(self, push: Any, relabel: Any, what: str) -> None:
        """Rounds of ``push()`` then ``relabel() -> active`` until nothing is active."""
        limit = self.o["max_rounds"] or max(10_000, 4 * self.n)
        active = relabel()
        while active:
            if self.stats["rounds"] >= limit:
                raise RuntimeError(f"{what}: {active} vertices still active after max_rounds={limit} rounds "
                                   "(raise max_rounds)")
            push()
            self.stats["rounds"] += 1
            active = relabel()

    def work(self) -> None:
        """The push and relabel counters, launches and host reads into ``stats`` (at the end of a solve)."""
        c = self.counters.copy_to_host()
        self.stats["pushes"], self.stats["relabels"] = int(c[0]), int(c[1])
        self.stats["kernel_launches"], self.stats["host_syncs"] = self.launches, self.syncs


def push_relabel_gpu(net: FlowNetwork, **options: Any) -> tuple:
    """The GPU twin of the ``push-relabel`` row: ``(flow_value, per-arc flow, residual caps, tol, stats)``
    like the CPU solve (``_cpu_push_relabel.solve_push_relabel``); options: :func:`validate_flow_gpu_options` and
    ``relabel_freq`` (``loop="persistent"``: a global relabel after ``relabel_freq * (n + m)`` arc scans of
    pushes and relabels, as the CPU's; default ``RELABEL_FREQ``)."""
    from .._validation import check_real  # noqa: PLC0415

    options = dict(options)
    freq = check_real("relabel_freq", options.pop("relabel_freq", RELABEL_FREQ), low=0.0, low_inclusive=False)
    o = validate_flow_gpu_options(options)
    o["relabel_freq"] = freq
    require_gpu("max_flow(method='push-relabel', backend='gpu')")
    if 2 * net.n + 2 >= 2**31:
        raise ValueError(f"graph is too large for 32-bit heights: n = {net.n}")
    is_int = net.capacities.dtype.kind in "iu"
    work = np.int64 if is_int else np.float64
    cap0 = net.cap
    tol = work(0) if is_int else work(FLOAT_RTOL * float(cap0.max(initial=0.0)))
    with quiet():
        return _CSRRun(net, o, work, tol).go()


class _CSRRun:
    """One GPU solve on the residual CSR: ``start`` -> ``solve`` (phase 1, phase 2) -> ``finish``."""

    def __init__(self, net: FlowNetwork, o: dict[str, Any], work: type, tol: Any) -> None:
        self.t0 = time.perf_counter()
        self.net, self.o, self.work, self.tol = net, o, work, tol
        self.n = net.n
        self.unset = np.int32(2 * self.n + 1)

    def go(self) -> tuple:
        self.start()
        self.solve()
        return self.finish()

    def start(self) -> None:
        from numba import cuda  # noqa: PLC0415

        from .._cuda._graph import upload_array, upload_csr  # noqa: PLC0415
        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        net, n = self.net, self.n
        t0 = time.perf_counter()
        self.csr = upload_csr(net.indptr, net.head, net.cap.astype(self.work))  # residual capacities as values
        self.rev = upload_array(net.rev)
        self.arcs = (self.csr.ptr, self.csr.ind, self.rev, self.csr.w)  # the kernels' (indptr, head, rev, cap)
        self.excess = cuda.to_device(np.zeros(n, self.work))
        self.h = cuda.device_array(n, dtype=np.int32)
        cuda.synchronize()
        self.R = R = Rounds(self.o, n)
        R.stats["seconds_h2d"] = time.perf_counter() - t0
        deg = int(net.indptr[net.source + 1] - net.indptr[net.source])
        if deg:
            R.on(K.preflow_kernel, R.over(deg), np.int64(net.source), *self.arcs, self.excess)

    def _relabel(self, phase: int) -> int:
        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        R, n, s, t = self.R, np.int64(self.n), np.int64(self.net.source), np.int64(self.net.sink)
        R.on(K.relabel_init_kernel, R.over(n), n, s, t, np.int64(0), self.h, R.queue, R.cnt, self.unset)

        def levels(lv: int, hoff: int) -> int:
            def one_level(level: np.int64) -> None:
                R.on(K.bfs_level_kernel, R.bfs_blocks, n, level, np.int64(hoff), *self.arcs, self.h, R.queue, R.cnt, self.tol, self.unset)

            return R.bfs(one_level, lv)

        level = levels(0, 0)
        if phase == 2:
            R.on(K.seed_kernel, 1, n, s, np.int64(level), R.queue, R.cnt)
            levels(level, n - level)
        hgap = np.int64(n if phase == 1 else 2 * n)
        return R.active(K.finish_relabel_kernel, n, s, t, hgap, self.unset, self.h, self.excess, self.tol)

    def _push(self, phase: int) -> None:
        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        R, n = self.R, np.int64(self.n)
        hmax = np.int64(n if phase == 1 else 2 * n)
        R.on(K.push_kernel, R.push_blocks, n, np.int64(self.net.source), np.int64(self.net.sink), hmax,
                 np.int64(self.o["cycle"]), *self.arcs, self.excess, self.h, self.tol,
                 R.counters)

    def _persistent(self) -> bool:
        """``loop="persistent"``: both phases in one cooperative launch and one host read; False when not
        one block fits an SM (the caller then runs host rounds)."""
        from numba import cuda  # noqa: PLC0415

        from .._cuda._launch import cooperative_kernel  # noqa: PLC0415
        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        R, n, net = self.R, self.n, self.net
        limit = self.o["max_rounds"] or max(10_000, 4 * n)
        work = max(1, int(self.o["relabel_freq"] * (n + len(net.head))))
        out = cuda.to_device(np.zeros(K.OUT_SIZE, np.int64))
        self.value = cuda.to_device(np.zeros(1, self.work))
        args = (np.int64(n), np.int64(net.source), np.int64(net.sink), np.int64(self.o["cycle"]), np.int64(work),
                np.int64(limit), *self.arcs, self.excess, self.h, R.queue, R.cnt,
                self.tol, self.unset, out, self.value, R.counters)
        kern = K.csr_solve_persistent_kernel
        if is_simulator():
            spec, gsize = kern, 1
        else:
            spec, gmax = cooperative_kernel(kern, args, R.bs)
            if gmax < 1:  # not one block of block_size threads fits an SM: cap the registers (spills)
                spec, gmax = cooperative_kernel(kern, args, R.bs, max_registers=min(255, 65536 // R.bs))
                R.stats["max_registers"] = min(255, 65536 // R.bs)
            if gmax < 1:
                return False
            gsize = min(gmax, R.push_blocks)
        res = R.once(spec, gsize, args, out)
        st = R.stats
        st["grid_size"], st["relabel_freq"], st["work_per_relabel"] = gsize, self.o["relabel_freq"], work
        st["rounds"], st["bfs_levels"], st["rounds_phase1"] = int(res[K.S_ROUNDS]), int(res[K.S_LEVELS]), \
            int(res[K.S_ROUNDS1])
        st["global_relabels"], st["passes"] = int(res[K.S_RELABELS]), int(res[K.S_PASSES])
        if res[K.S_ACTIVE]:
            raise RuntimeError(f"push-relabel (GPU): {int(res[K.S_ACTIVE])} vertices still active after "
                               f"max_rounds={limit} rounds (raise max_rounds)")
        return True

    def solve(self) -> None:
        from numba import cuda  # noqa: PLC0415

        R = self.R
        t0 = time.perf_counter()
        if self.o["loop"] == "persistent" and self.n and self._persistent():
            R.stats["value_phase1"] = self.value.copy_to_host()[0]
        else:
            self.o["loop"] = R.stats["loop"] = "host"
            R.run(lambda: self._push(1), lambda: self._relabel(1), "push-relabel (GPU), phase 1")
            R.stats["rounds_phase1"] = R.stats["rounds"]
            R.stats["value_phase1"] = self.read_value()
            cuda.synchronize()
            R.stats["seconds_phase1"] = time.perf_counter() - t0
            R.run(lambda: self._push(2), lambda: self._relabel(2), "push-relabel (GPU), phase 2")
        cuda.synchronize()
        R.stats["seconds_solve"] = time.perf_counter() - t0

    def read_value(self) -> Any:
        return self.R.value(self.excess, self.net.sink)

    def finish(self) -> tuple:
        from ._cpu_push_relabel import arc_flow_kernel  # noqa: PLC0415

        net, R = self.net, self.R
        t0 = time.perf_counter()
        cap = self.csr.w.copy_to_host()[: len(net.head)]
        excess = self.excess.copy_to_host()
        R.work()
        R.stats["seconds_d2h"] = time.perf_counter() - t0
        if self.o["certify"]:  # a flow: no excess left inside, no negative residual
            inner = np.ones(net.n, bool)
            inner[[net.source, net.sink]] = False
            bad = np.flatnonzero(inner & (np.abs(excess) > self.tol * max(1, net.n)))
            if len(bad) or (cap.size and cap.min() < 0):
                raise RuntimeError(f"GPU push-relabel left excess at node {int(bad[0]) if len(bad) else -1} or a "
                                   "negative residual: please report this input")
        flow = arc_flow_kernel(net.arc, net.cap.astype(cap.dtype, copy=False), cap, net.m)
        R.stats["seconds_total"] = time.perf_counter() - self.t0
        return excess[net.sink], flow, cap, float(self.tol), R.stats
