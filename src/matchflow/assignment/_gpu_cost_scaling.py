"""Cost-scaling assignment on the GPU: Łupińska's lock-free parallel refine (Algorithm 5.4), the host driver.

The eps-scaling loop of Algorithms 5.0/5.2 (``eps`` divided by ``alpha`` = 10 each phase) around the
lock-free refine of ``_gpu_cost_scaling_kernels.py``; the host steps (sparse door, integer scaling of
floats, feasibility, extended problem for rectangular / ``partial=True``) are the CPU twin's
(:func:`._cpu_cost_scaling.solve_square` takes this solver in place of
:func:`._cpu_cost_scaling.cost_scaling_solve`, same signature and result).

Scaling: the paper's eps-optimality bounds *every* residual arc by ``-eps`` (forward and reverse), so a
final eps-optimal perfect matching is within ``2 n eps`` of the optimum: costs are multiplied by
``2 (n + 1)`` (the CPU twin's Goldberg-Kennedy form needs only ``n + 1``) and the last phase runs at
``eps = 1``. The caller's int64 bound ``range * 4 (n + 1)^2 < 2^59`` keeps the scaled costs below
``2^58 / (n + 1)``; a price below ``-2^61`` stops the solve (status BUDGET).

Options beyond the paper (measured in the simulator, where sweeps and pushes are counted, see
docs/notes/cost_scaling.md): ``variant="double-push"`` (default; a pushing node takes Goldberg-Kennedy's
double-push price, 3-4x fewer pushes than ``variant="paper"``, Algorithm 5.4 as published) and
``follow=True`` (default; a thread follows the path of the unit it moves).

Schedules (H100, 2026-11-23, ``results/cost_scaling/gpu-h100-2026-11-23b.md``): ``schedule="sweeps"`` is the
paper's (host-launched sweeps until one finds no active node: 0.36-1.9 s at n = 1e4); ``schedule="async"``
(default) detects the end of a phase on the device (a counter of units not yet absorbed), as one persistent
cooperative kernel for the whole eps loop (``loop="persistent"``) or two launches per phase
(``loop="host"``). Either way the last units of a phase move one at a time along long paths (on random
sparse costs 14 % of the pushes happen with <= 16 units active), serial work at a GPU thread's latency:
all on the GPU takes 4.6-5.8 s at n = 1e5 where the CPU twin takes 0.6-1.0 s. So by default (``tail=64``,
host loop) the GPU refine stops when at most 64 units are left and the CPU finishes the phase
(:func:`._cpu_cost_scaling_tail.tail_kernel`, the same operations in sequence) on the state copied back, then the prices go up
again: n = 1e4 0.07 s, n = 1e5 0.6-1.0 s (the CPU twin's time), n = 1e6 (21M arcs) 11.5 s public call
vs the CPU twin's 16.2 s; the GPU does ~75 % of the pushes in a small part of the time, the CPU tail the rest.

A solve is a state object with named stages: ``start`` (scale, the column view (CSC), H2D), ``solve``
(per phase: the init and the async refine on the device, the CPU tail; or the persistent kernel; or the
sweeps), ``certify`` (D2H; the exact integer duals of the matching by the CPU twin's label-correcting pass
from ``floor(p / 2(n + 1))``: it ends only at an optimum) and ``finish`` (stats, ``seconds_<stage>``). A
lock-free result that the exact pass does not prove optimal, or a feasible solve stopped by a budget
(int64 prices, ``max_rounds``), is solved again by the CPU twin (``stats["gpu_fallback"]`` says why): never
a wrong answer. The global price update (Algorithm 5.3, Dial buckets) runs in the CPU tail, once at the start of
each phase's tail (``price_update``, default on: :func:`._cpu_cost_scaling_tail.tail_price_update_kernel`): the
GPU leaves the last units far from the deficits, exact distances send them straight there (H100, random n = 1e5:
CPU tail pushes 1.9M -> 0.15M, public call 0.77 -> 0.53 s). ``device_update=True`` (off by default) runs the
update on the device instead (:mod:`._gpu_cost_scaling_update`, delta-stepping sweeps in one cooperative kernel,
the same prices as the CPU's) and the whole phase there, no host read per phase: correct and certified, but
slower (H200, results/cost_scaling/devupd-h200-2026-11-27.md: random n = 1e5 0.43 -> 0.71 s (c <= 1e6), 0.62 ->
3.7 s (c <= 1e2), kNN equal): after the update the last units still walk long zero-length paths one push at a
time. Not on the device: arc fixing.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._cuda import quiet, validate_gpu_options
from .._validation import check_bool, check_choice, check_int, check_options
from ._cpu_cost_scaling import BUDGET, NOT_OPTIMAL, OK, cost_scaling_solve, exact_duals_kernel
from ._cpu_cost_scaling_tail import finish_phase, update_arrays

__all__ = ["validate_cost_scaling_gpu_options", "cost_scaling_gpu_solve", "DeviceCost", "upload", "solve_uploaded"]

CHECK_EVERY = 4  # sweeps between host reads of the control words
MAX_OPS = 256  # push operations of one thread per sweep (line 2's loop, bounded so a sweep ends)
FLOOR = 1 << 61  # a feasible run keeps prices above -2**61 (see the module docstring)
_OPTIONS = ("max_ops", "variant", "follow", "schedule", "tail", "price_update", "update_every", "device_update",
            "update_delta", "update_rounds")
TAIL = 64  # units left in a phase when the CPU finishes it (see validate_cost_scaling_gpu_options)
# Alg. 5.3 in the CPU tail, once at the start of each phase's tail (H100, results/cost_scaling/
# gpu-h100-2026-11-23e.md, tail = 64, device form): random n = 1e5 c <= 1e6 0.65 -> 0.44 s (CPU tail pushes
# 1.94M -> 0.15M), c <= 1e2 0.83 -> 0.57 s; public call 0.77 -> 0.53 s. Larger tails (256-4096) were slower
# with and without it; one update every n/2 tail pushes was between the two.
PRICE_UPDATE = True
UPDATE_EVERY = 0.0  # its trigger: pushes of the tail between updates, in units of n (0: once, at its start)
# Alg. 5.3 on the device instead of the CPU tail (_gpu_cost_scaling_update; see the option). Off: slower on every
# measured input but kNN (H200 2026-11-27, device form, results/cost_scaling/devupd-h200-2026-11-27.md): random
# n = 1e5 c <= 1e6 0.43 -> 0.71 s, c <= 1e2 0.62 -> 3.7 s, kNN 0.091 -> 0.095 s; n = 1e4 0.02-0.07 -> 0.03-0.18 s
DEVICE_UPDATE = False
# device_update: levels per bucket of the device update (delta-stepping; 1 = Dial's levels). CPU emulation
# (Jacobi sweeps) on the states at 64 units left, random n = 1e5 c <= 1e6: sweeps per update 1 level 409-22424,
# 256 levels 23-670, 4096 levels 23-409 (= 65536); H200 2026-11-27 with 1 level: ~40 us a sweep at n = 1e5
UPDATE_DELTA = 4096
UPDATE_ROUNDS = 1  # device_update: updates per phase (after the first one the units left are mostly at distance 0)
UPDATE_SHRINK = 4  # device_update: the next update when the units left fell by this factor (tail, tail/4, ...)
VARIANTS = ("double-push", "paper")
SCHEDULES = ("async", "sweeps")


def validate_cost_scaling_gpu_options(**options: Any) -> dict[str, Any]:
    """The GPU vocabulary (``loop``: "auto" (persistent on a device, host in the simulator), "persistent"
    (the whole eps loop in one cooperative kernel) or "host" (launches per phase); ``max_rounds``: sweeps per
    phase, or scans of one thread per phase on the async schedule (a safety bound: past it the solve stops
    and the CPU twin answers); ``block_size``; ``grid_size``; ``certify`` must stay True: the exact duals are
    the answer's certificate) plus ``schedule`` ("async", default: the threads of a co-resident grid work
    until the phase's unit counter is 0, termination on the device; "sweeps": the paper's host-driven sweeps,
    ``loop="host"`` only), ``max_ops`` (operations of one thread on one path before it returns to its scan)
    and ``variant`` ("paper": Algorithm 5.4 as published; "double-push": a pushing node also takes
    Goldberg-Kennedy's double-push price, see ``chain_dev``) and ``follow`` (default True: a thread follows
    the push-back path of the unit it moves; False: each node's own thread, as the paper) and ``tail`` (async
    with ``loop="host"``: when at most ``tail`` units are left in a phase, the GPU stops and the CPU finishes
    the phase (:func:`tail_kernel`, the same operations in sequence; default :data:`TAIL`): the last units of
    a phase move one at a time along long paths, serial work at GPU-thread latency; 0 = all on the GPU,
    the default with ``loop="persistent"``) and ``price_update`` (the global price update of Algorithm 5.3,
    Dial buckets, in the CPU tail: :func:`._cpu_cost_scaling_tail.tail_price_update_kernel`; default
    :data:`PRICE_UPDATE`) with ``update_every`` (its trigger, in units of ``n`` pushes of the tail: 0 = once
    at the start of each phase's tail, ``r > 0`` = after every ``r n`` pushes while units are left; default
    :data:`UPDATE_EVERY`) and ``device_update`` (default :data:`DEVICE_UPDATE`; ``loop="host"``, async: no CPU
    tail, the phase ends on the device: the GPU refine stops at ``tail`` units left, the global price update
    runs on the device (:mod:`._gpu_cost_scaling_update`, one cooperative kernel), the refine goes on to
    ``tail / 4`` units, another update, ... (``update_rounds`` updates per phase, default :data:`UPDATE_ROUNDS`),
    then the refine to the end; no host read per phase) with ``update_delta`` (levels per bucket of its label-correcting sweeps, default
    :data:`UPDATE_DELTA`; 1: one level per bucket, Dial's order). No GPU needed."""
    opts = dict(options)
    o = validate_gpu_options("cost_scaling_gpu", opts, block_low=1, block_default=256)
    check_options("cost_scaling_gpu", opts, _OPTIONS)
    if not o["certify"]:
        raise ValueError("cost_scaling_gpu: certify=False is not available (the exact duals are the certificate)")
    o["max_ops"] = check_int("max_ops", opts.get("max_ops", MAX_OPS), low=1)
    o["variant"] = check_choice("variant", opts.get("variant", "double-push"), VARIANTS)
    o["follow"] = check_bool("follow", opts.get("follow", True))
    o["schedule"] = check_choice("schedule", opts.get("schedule", "async"), SCHEDULES)
    if o["schedule"] == "sweeps" and o["loop"] == "persistent":
        raise ValueError("cost_scaling_gpu: schedule='sweeps' runs host rounds; use loop='host' or 'auto' with it")
    tail = opts.get("tail")
    if tail is not None:
        tail = check_int("tail", tail, low=0)
        if tail > 0 and o["loop"] == "persistent":
            raise ValueError(f"cost_scaling_gpu: tail={tail} needs loop='host' (the CPU finishes each phase); "
                             "loop='persistent' runs tail=0")
    o["tail"] = (0 if o["loop"] == "persistent" or o["schedule"] == "sweeps" else TAIL) if tail is None else tail
    o["price_update"] = check_bool("price_update", opts.get("price_update", PRICE_UPDATE))
    every = opts.get("update_every", UPDATE_EVERY)
    if isinstance(every, (bool, np.bool_)) or not isinstance(every, (int, float, np.integer, np.floating)) or \
            not every >= 0:
        raise ValueError(f"update_every must be a number >= 0, got {every!r}")
    o["update_every"] = float(every)
    o["device_update"] = check_bool("device_update", opts.get("device_update", DEVICE_UPDATE))
    o["update_delta"] = check_int("update_delta", opts.get("update_delta", UPDATE_DELTA), low=1)
    o["update_rounds"] = check_int("update_rounds", opts.get("update_rounds", UPDATE_ROUNDS), low=1)
    if o["device_update"] and (o["loop"] == "persistent" or o["schedule"] == "sweeps"):
        raise ValueError("cost_scaling_gpu: device_update=True runs the async schedule with loop='host' "
                         f"(got schedule={o['schedule']!r}, loop={o['loop']!r})")
    return o


class DeviceCost:
    """A square sparse problem on the GPU: CSR (``rows``) and CSC (``cols``, the CSR of the transpose) with
    scaled int64 costs as values (:class:`~matchflow._cuda._graph.DeviceCSR`), plus the host CSR with the
    unscaled costs (for the exact duals). Built by :func:`upload`."""

    __slots__ = ("n", "nnz", "scale", "indptr", "indices", "cost", "rows", "cols", "seconds_h2d", "h")

    def __init__(self, n: int, indptr: np.ndarray, indices: np.ndarray, cost: np.ndarray, rows: Any, cols: Any,
                 scale: int, seconds_h2d: float, h: dict[str, np.ndarray]) -> None:
        self.n, self.nnz, self.scale = n, int(indices.shape[0]), scale
        self.indptr, self.indices, self.cost, self.seconds_h2d = indptr, indices, cost, seconds_h2d
        self.rows, self.cols = rows, cols
        self.h = h  # host twins of the device arrays (int64): the CPU tail's graph

    @property
    def d(self) -> tuple:
        """The kernels' six graph arguments: ``(indptr, indices, cost)`` of the rows, ``(cptr, crow, ccost)`` of
        the columns."""
        return (*self.rows.arrays, *self.cols.arrays)


def upload(indptr: np.ndarray, indices: np.ndarray, cost: np.ndarray, n: int) -> DeviceCost:
    """Stage ``start``: costs (int64 >= 0) times ``2 (n + 1)``, the column view, H2D."""
    import scipy.sparse as sp

    from .._cuda._graph import upload_csr  # a _gpu_ module: numba.cuda on first solve

    t = time.perf_counter()
    scale = 2 * (n + 1)
    nnz = int(indices.shape[0])
    P = sp.csr_array((np.arange(nnz, dtype=np.int64), indices, indptr), shape=(n, n)).tocsc()  # data: CSR positions
    scaled = np.ascontiguousarray(cost, dtype=np.int64) * np.int64(scale)
    it = np.int32 if nnz < 2**31 else np.int64
    rows = upload_csr(indptr.astype(it), indices.astype(np.int32), scaled)
    cols = upload_csr(P.indptr.astype(it), P.indices.astype(np.int32), np.ascontiguousarray(scaled[P.data]))
    h = {"indptr": np.ascontiguousarray(indptr, np.int64), "indices": np.ascontiguousarray(indices, np.int64),
         "cost": scaled, "cptr": P.indptr.astype(np.int64), "crow": P.indices.astype(np.int64),
         "ccost": np.ascontiguousarray(scaled[P.data])}
    return DeviceCost(n, indptr, indices, cost, rows, cols, scale, time.perf_counter() - t, h)


def cost_scaling_gpu_solve(indptr: np.ndarray, indices: np.ndarray, cost: np.ndarray, n: int, alpha: int = 10,
                           max_pushes: int = 2**62, **options: Any):
    """The GPU twin of :func:`._cpu_cost_scaling.cost_scaling_solve` (same arguments and result
    ``(status, col4row, u, v, stats)``, exact integer duals on ``cost``); GPU options as
    :func:`validate_cost_scaling_gpu_options`. ``max_pushes`` counts the CPU twin's double pushes: the
    GPU's single pushes get four times as many."""
    o = validate_cost_scaling_gpu_options(**options)
    if n == 0:
        return cost_scaling_solve(indptr, indices, cost, n, alpha, max_pushes)
    with quiet():
        dev = upload(indptr, indices, cost, n)
        return solve_uploaded(dev, alpha, max_pushes, o)


def solve_uploaded(dev: DeviceCost, alpha: int = 10, max_pushes: int = 2**62, o: dict[str, Any] | None = None):
    """Stages ``solve`` -> ``certify`` -> ``finish`` on a problem already on the device (the benchmark's
    "data on the device" form)."""
    o = validate_cost_scaling_gpu_options() if o is None else o
    with quiet():
        run = _CostScalingRun(dev, alpha, max_pushes, o)
        st = run.solve()
        if st == OK:
            st = run.certify()
        return run.finish(st)


class _CostScalingRun:
    """One solve: ``solve`` -> ``certify`` -> ``finish``; device buffers in ``b``."""

    def __init__(self, dev: DeviceCost, alpha: int, max_pushes: int, o: dict[str, Any]) -> None:
        from numba import cuda  # noqa: PLC0415

        from .._cuda._launch import Launcher
        from ._gpu_cost_scaling_kernels import CTL_SIZE

        self.dev, self.alpha, self.o = dev, int(alpha), o
        self.budget = 4 * int(max_pushes) if max_pushes < 2**60 else 2**62
        n = dev.n
        self.t0 = time.perf_counter()
        self.b = {"price": cuda.to_device(np.zeros(2 * n, np.int64)), "exc": cuda.device_array(2 * n, np.int32),
                  "col4row": cuda.device_array(n, np.int32), "ctl": cuda.to_device(np.zeros(CTL_SIZE, np.int64))}
        self.launch = Launcher(o["block_size"])
        self.stats: dict[str, Any] = {"seconds_h2d": dev.seconds_h2d, "block_size": o["block_size"],
                                      "variant": o["variant"], "follow": o["follow"]}
        self.col4row = self.u = self.v = None
        self.host_state: tuple[np.ndarray, np.ndarray] | None = None  # (col4row, price) left by the CPU tail
        self.tail_status = OK
        self.owner: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # the CPU tail's column senders
        self.work: tuple[np.ndarray, ...] | None = None  # the price update's work arrays (price_update=True)

    def _sweep_grid(self) -> int:
        from .._cuda._launch import grid

        g = grid(2 * self.dev.n, self.o["block_size"])
        return min(g, self.o["grid_size"]) if self.o["grid_size"] else g

    def _eps_seq(self) -> tuple[int, np.ndarray]:
        """The largest scaled cost and the phases' eps: ``cmax / alpha^k`` (integer division) down to 1."""
        cmax = max(int(self.dev.cost.max(initial=0)) * self.dev.scale, 1)
        seq, eps = [], cmax
        while True:
            eps = max(eps // self.alpha, 1)
            seq.append(eps)
            if eps == 1:
                return cmax, np.array(seq, np.int64)

    def solve(self) -> int:
        """The eps-scaling loop on the chosen schedule and loop (see :func:`validate_cost_scaling_gpu_options`)."""
        t = time.perf_counter()
        from numba import cuda  # noqa: PLC0415

        from .._cuda import is_simulator

        loop = self.o["loop"]
        if self.o["schedule"] == "sweeps":
            loop = "host"
        elif loop == "auto":  # the simulator mis-runs grid syncs; a CPU tail needs the host between phases
            loop = "host" if is_simulator() or self.o["tail"] > 0 else "persistent"
        self.stats.update(loop=loop, schedule=self.o["schedule"], tail=self.o["tail"])
        status = self._solve_sweeps() if self.o["schedule"] == "sweeps" else self._solve_async(loop)
        cuda.synchronize()
        self.stats["seconds_solve"] = time.perf_counter() - t
        return status

    def _async_grid(self, kern: Any, args: tuple) -> tuple[Any, int]:
        """The async schedule needs a co-resident grid (idle threads wait for work that only other threads
        make): at most the occupancy bound (the cooperative count), one block in the simulator."""
        from .._cuda import is_simulator
        from .._cuda._launch import cooperative_kernel

        want = self._sweep_grid()
        if is_simulator():
            return kern, 1
        kern, gmax = cooperative_kernel(kern, args, self.o["block_size"])
        return kern, max(1, min(want, gmax))

    def _solve_async(self, loop: str) -> int:
        """Async schedule: ``persistent`` (one cooperative launch for every phase) or ``host`` (per phase an
        init launch and a refine launch, queued with no host read); one read of the control words at the end."""
        from numba import cuda  # noqa: PLC0415

        from . import _gpu_cost_scaling_kernels as K

        b, d, n, o = self.b, self.dev.d, self.dev.n, self.o
        cmax, seq = self._eps_seq()
        live = cuda.to_device(np.full(seq.size, n, np.int64))
        b["ctl"].copy_to_device(np.zeros(len(b["ctl"]), np.int64))
        max_scans = np.int64(o["max_rounds"] or 20 * n + 100_000)
        common = (np.int64(o["max_ops"]), np.int64(FLOOR), np.int32(o["variant"] == "double-push"))
        tail_args = (np.int32(o["follow"]), np.int64(self.budget), max_scans)
        if loop == "persistent":
            args = (*d, np.int64(n),
                    cuda.to_device(seq), b["price"], b["exc"], b["col4row"], b["ctl"], live, *common,
                    np.int64(cmax), *tail_args)
            kern, gs = self._async_grid(K.persistent_kernel, args)
            kern[gs, o["block_size"]](*args)
            self.launch.launches += 1
        else:
            gs, tail = 0, o["tail"]
            if o["device_update"]:
                return self._solve_device_update(seq, cmax, live, common, tail_args)
            if tail > 0:
                self.stats.update(tail_pushes=0, tail_phases=0, seconds_tail=0.0, price_updates=0, seconds_update=0.0)
            for ph, eps in enumerate(seq.tolist()):
                self._phase_init(eps)
                gs = self._refine(ph, eps, cmax, live, common, tail_args, tail)
                if tail > 0 and self._cpu_tail(ph, eps, cmax, live, last=ph == seq.size - 1) != OK:
                    break
        h = b["ctl"].copy_to_host()
        self.stats.update(phases=int(h[K.CTL_PHASES]), pushes=int(h[K.CTL_PUSHES]) + self.stats.get("tail_pushes", 0),
                          relabels=int(h[K.CTL_RELABELS]), launches=self.launch.launches,
                          syncs=1 + self.launch.syncs, grid_size=int(gs))
        return int(h[K.CTL_STATUS]) if self.tail_status == OK else self.tail_status

    def _phase_init(self, eps: int) -> None:
        """Alg. 5.2's refine init for one phase (every row freed, column prices from the row minima)."""
        from . import _gpu_cost_scaling_kernels as K

        b, d, n = self.b, self.dev.d, self.dev.n
        self.launch(K.phase_init_kernel, 2 * n, *d[:3], np.int64(n), np.int64(eps),
                    b["price"], b["exc"], b["col4row"], b["ctl"], np.int64(FLOOR))

    def _refine(self, ph: int, eps: int, cmax: int, live: Any, common: tuple, tail_args: tuple, tail: int) -> int:
        """One async refine launch of phase ``ph`` (Alg. 5.4) until at most ``tail`` units are left (0: the
        phase's end), on a co-resident grid; returns the grid size. No host read."""
        from . import _gpu_cost_scaling_kernels as K

        b, d, n = self.b, self.dev.d, self.dev.n
        args = (*d, np.int64(n), np.int64(eps),
                b["price"], b["exc"], b["col4row"], b["ctl"], live, np.int64(ph), *common, np.int64(cmax + eps),
                *tail_args, np.int64(tail))
        kern, gs = self._async_grid(K.refine_async_kernel, args)
        kern[gs, self.o["block_size"]](*args)
        self.launch.launches += 1
        return gs

    def _solve_device_update(self, seq: np.ndarray, cmax: int, live: Any, common: tuple, tail_args: tuple) -> int:
        """``device_update=True``: per phase the init, then the async refine to ``tail`` units left, Alg. 5.3 on
        the device, the refine to ``tail // UPDATE_SHRINK`` units, ... (``update_rounds`` updates), the refine
        to the end; every launch
        queued, one read of the control words at the end (the simulator: the update's host form, reads)."""
        from numba import cuda  # noqa: PLC0415

        from .._cuda import is_simulator
        from . import _gpu_cost_scaling_kernels as K
        from . import _gpu_cost_scaling_update as U

        b, d, n, o = self.b, self.dev.d, self.dev.n, self.o
        b.setdefault("label", cuda.device_array(2 * n, np.int64))
        b.setdefault("slab", cuda.device_array(2 * n, np.int64))
        b["W"] = cuda.to_device(np.zeros(U.W_SIZE, np.int64))
        form, coop, gs = ("host" if is_simulator() else "coop"), None, 0
        for ph, eps in enumerate(seq.tolist()):
            self._phase_init(eps)
            t, rounds = o["tail"], o["update_rounds"]
            while True:
                gs = self._refine(ph, eps, cmax, live, common, tail_args, t)
                if t == 0:
                    break
                coop, reads = U.device_price_update(d, n, eps, b, FLOOR, b["ctl"], live, ph, 0, o["block_size"],
                                                    form, o["update_delta"], coop)
                self.launch.launches += 3
                self.launch.syncs += reads
                rounds -= 1
                t = t // UPDATE_SHRINK if rounds > 0 else 0
        h = b["ctl"].copy_to_host()
        w = b["W"].copy_to_host()
        self.stats.update(phases=int(h[K.CTL_PHASES]), pushes=int(h[K.CTL_PUSHES]), relabels=int(h[K.CTL_RELABELS]),
                          launches=self.launch.launches, syncs=2 + self.launch.syncs, grid_size=int(gs),
                          device_update=True, device_updates=int(w[U.W_UPDATES]), update_sweeps=int(w[U.W_SWEEPS]),
                          updates_skipped=int(w[U.W_SKIPPED]), update_grid=int(coop[1]) if coop else 0)
        return int(h[K.CTL_STATUS])

    def _cpu_tail(self, ph: int, eps: int, cmax: int, live: Any, last: bool) -> int:
        """After a phase's GPU refine stopped at ``tail`` units or fewer: D2H of the state, the CPU finishes the
        phase (:func:`tail_kernel`), the prices go back up for the next phase's init (the last phase's state
        stays on the host for the certificate). One read of the control words per phase."""
        from . import _gpu_cost_scaling_kernels as K

        t = time.perf_counter()
        b, n, hs = self.b, self.dev.n, self.dev.h
        ctl = b["ctl"].copy_to_host()
        self.launch.syncs += 1
        if ctl[K.CTL_STATUS] != OK or int(live.copy_to_host()[ph]) <= 0:
            self.stats["seconds_tail"] += time.perf_counter() - t
            return int(ctl[K.CTL_STATUS])
        price, exc, col4row = b["price"].copy_to_host(), b["exc"].copy_to_host(), b["col4row"].copy_to_host()
        if self.owner is None:
            self.owner = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.full(n, -1, np.int64))
        g = (hs["indptr"], hs["indices"], hs["cost"], hs["cptr"], hs["crow"], hs["ccost"], n)
        if self.o["price_update"] and self.work is None:
            self.work = update_arrays(n, self.dev.nnz)
        st, p, upd, su = finish_phase(g, eps, price, exc, col4row, self.o["variant"] == "double-push", cmax + eps,
                                      FLOOR, self.budget, self.owner, ph, int(self.o["update_every"] * n),
                                      self.work if self.o["price_update"] else None)
        self.stats["tail_pushes"] += p
        self.stats["price_updates"] += upd
        self.stats["seconds_update"] += su
        self.stats["tail_phases"] += 1
        if st == OK and not last:
            b["price"].copy_to_device(price)
        elif st == OK:
            self.host_state = (col4row, price)
        self.tail_status = int(st)
        self.stats["seconds_tail"] += time.perf_counter() - t
        return int(st)

    def _solve_sweeps(self) -> int:
        """The paper's schedule: per phase an init launch and host rounds of sweeps."""
        from .._cuda._launch import host_rounds
        from ._gpu_cost_scaling_kernels import CTL_PUSHES, CTL_STATUS, phase_init_kernel, refine_sweep_kernel

        b, d, n = self.b, self.dev.d, self.dev.n
        bs, gs = self.o["block_size"], self._sweep_grid()
        max_rounds = self.o["max_rounds"] or 20 * n + 100_000  # a safety bound: past it, BUDGET (never a hang)
        ctl = b["ctl"]
        ctl.copy_to_device(np.array([-1, 0, 0, 0, 0], np.int64))
        cmax, seq = self._eps_seq()
        phases, rounds, base, status = 0, 0, 0, OK
        seen = {"h": np.zeros(len(ctl), np.int64)}

        def read(_flag: Any) -> int:
            h = ctl.copy_to_host()
            self.launch.syncs += 1
            seen["h"] = h
            if h[CTL_STATUS] != OK or h[CTL_PUSHES] > self.budget:
                return -1  # stop the rounds; the caller reads the status
            return int(h[0]) - base

        for eps in seq.tolist():
            phases += 1
            self.launch(phase_init_kernel, 2 * n, *d[:3], np.int64(n),
                        np.int64(eps), b["price"], b["exc"], b["col4row"], ctl, np.int64(FLOOR))

            def one_round(r: int, eps: int = eps, base: int = base) -> None:
                refine_sweep_kernel[gs, bs](*d,
                                            np.int64(n), np.int64(eps), b["price"], b["exc"], b["col4row"], ctl,
                                            np.int64(base + r), np.int32(self.o["max_ops"]), np.int64(FLOOR),
                                            np.int32(self.o["variant"] == "double-push"), np.int64(cmax + eps),
                                            np.int32(self.o["follow"]))
                self.launch.launches += 1

            r = host_rounds(one_round, read, ctl, CHECK_EVERY, max_rounds)
            rounds += r
            h = seen["h"]
            if h[CTL_STATUS] != OK:
                status = int(h[CTL_STATUS])
                break
            if h[CTL_PUSHES] > self.budget or (r >= max_rounds and int(h[0]) - base == r - 1):
                status = BUDGET
                break
            base += r
        h = ctl.copy_to_host()
        self.stats.update(phases=phases, sweeps=rounds, pushes=int(h[2]), relabels=int(h[3]),
                          launches=self.launch.launches, syncs=self.launch.syncs + 1, grid_size=int(gs))
        return status

    def certify(self) -> int:
        """D2H, then the exact integer duals (the CPU twin's pass); NOT_OPTIMAL if they do not exist."""
        t = time.perf_counter()
        dev, n = self.dev, self.dev.n
        if self.host_state is not None:
            x, py = self.host_state[0].astype(np.int64), self.host_state[1][n:]
        else:
            x = self.b["col4row"].copy_to_host().astype(np.int64)
            py = self.b["price"].copy_to_host()[n:]
        self.stats["seconds_d2h"] = time.perf_counter() - t
        t = time.perf_counter()
        row4col = np.full(n, -1, np.int64)
        if (x < 0).any() or np.unique(x).size != n:
            self.stats["seconds_certify"] = time.perf_counter() - t
            return NOT_OPTIMAL  # not a perfect matching: only a bug can get here
        row4col[x] = np.arange(n)
        v = np.floor_divide(py, dev.scale)
        ip, ix = dev.indptr.astype(np.int64), dev.indices.astype(np.int64)
        cost = np.ascontiguousarray(dev.cost, dtype=np.int64)
        st, u, scans = exact_duals_kernel(ip, ix, cost, n, x, row4col, v, np.int64(64) * n * n + 1024)
        self.stats.update(dual_scans=int(scans), seconds_certify=time.perf_counter() - t)
        self.col4row, self.u, self.v = x, u, v
        return int(st)

    def finish(self, st: int):
        """Stats; a failed lock-free solve of a feasible problem goes to the CPU twin (said in stats)."""
        dev = self.dev
        if st == NOT_OPTIMAL or (st == BUDGET and self.budget >= 2**62):
            reason = ("not optimal (exact duals failed)" if st == NOT_OPTIMAL
                      else "work budget (int64 prices or max_rounds)")
            ip, ix = dev.indptr.astype(np.int64), dev.indices.astype(np.int64)
            st, x, u, v, cst = cost_scaling_solve(ip, ix, np.ascontiguousarray(dev.cost, dtype=np.int64), dev.n,
                                                  self.alpha, self.budget // 4 if self.budget < 2**62 else 2**62)
            self.stats.update({f"cpu_{k}": val for k, val in cst.items()})
            self.stats.update(gpu_fallback=reason, ran_on="cpu")
            self.col4row, self.u, self.v = x, u, v
        else:
            self.stats["ran_on"] = "gpu"
        self.stats["seconds_gpu_total"] = time.perf_counter() - self.t0
        return st, self.col4row, self.u, self.v, self.stats

