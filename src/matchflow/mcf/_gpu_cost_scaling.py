"""Min-cost flow by cost scaling on the GPU (the ``gpu=`` twin of the ``"cost-scaling"`` row): the host driver.

The CPU twin's scaling (:mod:`._cpu_cost_scaling`: costs times ``n + 1``, ``eps`` from the largest scaled cost
divided by ``alpha`` per phase down to 1, so the last phase's eps-optimal flow is optimal) around a parallel
push-relabel refine on the residual network (:mod:`._gpu_cost_scaling_kernels`: a thread per node; a round is a
push launch of ``cycle`` passes then a relabel launch that also counts the active nodes). ``loop="persistent"`` (the
default under ``"auto"``: 7-11x the host loop on an H200, results/mcf/h200-gpu-loops-2026-11-29.md): the whole eps
loop in one cooperative launch (``persistent_kernel``), one host read at the end; one block in the simulator; the
host loop where not one block fits an SM. ``loop="host"``: a phase is a saturate launch, then rounds until a round
counts no active node (the host reads the count every ``check_every`` rounds; idle rounds after the last active one
do nothing). The persistent loop runs Goldberg's global price update on the device
(:mod:`._gpu_price_update_kernels`) at each phase start and every ``update_every`` rounds; the host loop has none.
No price refinement and no look-ahead on the device (the CPU twin's other heuristics): see docs/notes/mcf.md.

A solve is a state object with named stages: ``start`` (the residual CSR of the CPU twin, scaled costs, H2D),
``solve`` (the eps loop), ``certify`` (D2H; the exact integer potentials by the CPU twin's label-correcting pass
from ``floor(p / (n + 1))``, which ends only at an optimum) and ``finish`` (per-arc flow, stats
``seconds_gpu_<stage>``, ``rounds``, ``phases``, ``pushes``, ``relabels``, ``kernel_launches``, ``host_syncs``).
A device answer that the exact pass does not prove optimal, or a feasible solve stopped by ``max_rounds``, is
solved again by the CPU twin (``stats["gpu_fallback"]`` says why): never a wrong answer. The door
(:func:`matchflow.min_cost_flow`) certifies the result either way.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._backend import require_gpu
from .._cuda import is_simulator, quiet, validate_gpu_options
from .._cuda._launch import Launcher
from .._validation import check_int, check_options
from ._cpu_cost_scaling import FLOOR, exact_potentials_kernel, residual, solve_cost_scaling

__all__ = ["solve_cost_scaling_gpu", "validate_mcf_gpu_options", "CYCLE", "CHECK_EVERY", "ALPHA"]

ALPHA = 8  # eps divided by this per phase (the CPU twin's default)
CYCLE = 4  # push passes per round (a pass moves excess one admissible arc further at most)
CHECK_EVERY = 4  # rounds between host reads of the active count
UPDATE_EVERY = 32  # persistent loop: a global price update every this many rounds of a phase (0: none)
_OPTIONS = ("alpha", "cycle", "check_every", "update_every")


def validate_mcf_gpu_options(options: dict[str, Any]) -> dict[str, Any]:
    """The GPU vocabulary (``loop``: "host" -- launches per step, host reads --, "persistent" -- the whole solve
    in one cooperative launch -- or "auto" = "persistent" (measured 7-11x the host loop; the host loop where the
    cooperative launch does not fit); ``certify`` must stay True: the exact potentials are the certificate;
    ``max_rounds``: rounds per phase, a safety bound: past it the CPU twin answers; ``block_size``: a power of two
    in [1, 1024], default 256; ``grid_size``: the host loop's cap on the blocks of the push launch, and the
    persistent loop's blocks, default a thread per node, at most the co-resident blocks) plus ``alpha`` (the scaling factor, default
    :data:`ALPHA`), ``cycle`` (push passes per round, default :data:`CYCLE`) and ``check_every`` (rounds between
    host reads, default :data:`CHECK_EVERY`) and ``update_every`` (persistent loop: a device global price update
    at each phase start and every this many rounds, 0 for none; default :data:`UPDATE_EVERY`). No GPU needed."""
    opts = dict(options)
    o = validate_gpu_options("min_cost_flow cost-scaling (GPU)", opts, block_low=1)
    check_options("min_cost_flow cost-scaling (GPU)", opts, _OPTIONS)
    if o["loop"] == "auto":
        o["loop"] = "persistent"
    if not o["certify"]:
        raise ValueError("min_cost_flow cost-scaling (GPU): certify=False is not available (the exact potentials "
                         "are the certificate)")
    o["alpha"] = check_int("alpha", opts.get("alpha", ALPHA), low=2)
    o["cycle"] = check_int("cycle", opts.get("cycle", CYCLE), low=1, high=1 << 20)
    o["check_every"] = check_int("check_every", opts.get("check_every", CHECK_EVERY), low=1, high=1 << 16)
    o["update_every"] = check_int("update_every", opts.get("update_every", UPDATE_EVERY), low=0, high=1 << 30)
    return o


def solve_cost_scaling_gpu(problem, **options: Any) -> tuple[np.ndarray, np.ndarray, dict]:
    """The GPU twin of :func:`._cpu_cost_scaling.solve_cost_scaling`: ``(flow, potential, stats)`` on the integer
    costs ``problem.icost``, the same contract (exact int64 potentials; OverflowError where the prices leave
    int64; RuntimeError if a phase is stuck: an infeasible problem, which the door rules out first). Options:
    :func:`validate_mcf_gpu_options`."""
    o = validate_mcf_gpu_options(options)
    require_gpu("min_cost_flow(method='cost-scaling', backend='gpu')")
    run = _Run(problem, o)
    if problem.n == 0 or problem.m == 0:  # nothing to move (the door checked the demands): no launch
        return run.empty()
    with quiet():
        run.start()
        run.solve()
        run.certify()
        return run.finish()


class _Run:
    """One GPU solve: ``start`` -> ``solve`` -> ``certify`` -> ``finish`` (module docstring)."""

    def __init__(self, problem: Any, o: dict[str, Any]) -> None:
        self.t0 = time.perf_counter()
        self.P, self.o = problem, o
        self.n, self.m = problem.n, problem.m
        self.stats: dict[str, Any] = {"loop": o["loop"], "block_size": o["block_size"], "cycle": o["cycle"],
                                      "check_every": o["check_every"], "alpha": o["alpha"],
                                      "update_every": o["update_every"], "price_updates": 0, "update_sweeps": 0,
                                      "updates_skipped": 0, "phases": 0,
                                      "rounds": 0, "pushes": 0, "relabels": 0}

    def empty(self) -> tuple[np.ndarray, np.ndarray, dict]:
        self.stats.update(kernel_launches=0, host_syncs=0, seconds_gpu_start=0.0, seconds_gpu_solve=0.0,
                          seconds_gpu_certify=0.0, seconds_gpu_finish=0.0)
        return np.zeros(self.m, np.int64), np.zeros(self.n, np.int64), self.stats

    def start(self) -> None:
        """The residual CSR (the CPU twin's), costs times ``n + 1``, the excesses ``-demand``; H2D."""
        from numba import cuda  # noqa: PLC0415

        t = time.perf_counter()
        P, n = self.P, self.n
        self.indptr, to, rev, res, c, self.slot = residual(P)
        self.to, self.c = to, c
        self.k = np.int64(n + 1)
        cs = c * self.k
        self.eps0 = int(np.abs(cs).max()) if cs.size else 0
        self.d_indptr = cuda.to_device(self.indptr)
        self.d_to, self.d_rev = cuda.to_device(to), cuda.to_device(rev)
        self.d_res, self.d_c = cuda.to_device(res), cuda.to_device(cs)
        self.d_excess = cuda.to_device(-P.demand.astype(np.int64))
        self.d_price = cuda.to_device(np.zeros(n, np.int64))
        self.ctl = cuda.to_device(np.zeros(self._K.CTL_SIZE, np.int64))
        self.L = Launcher(self.o["block_size"])
        self.stamp = 0  # host loop: rounds launched so far (relabel_kernel's ``rnd``)
        blocks = self.L.over(n)
        self.push_blocks = min(blocks, self.o["grid_size"]) if self.o["grid_size"] else blocks
        cuda.synchronize()
        self.stats["seconds_gpu_start"] = time.perf_counter() - t

    @property
    def _K(self) -> Any:
        from . import _gpu_cost_scaling_kernels as K  # noqa: PLC0415 - numba.cuda on first solve

        return K

    def _phase(self, eps: int) -> int:
        """One refine at ``eps``: saturate, then rounds until none is active. Returns the rounds run; raises on a
        status (OverflowError, RuntimeError) and returns -1 past ``max_rounds`` (the caller falls back)."""
        K, L, n = self._K, self.L, np.int64(self.n)
        arcs = (self.d_indptr, self.d_to, self.d_rev, self.d_res, self.d_c, self.d_excess, self.d_price)
        L.on(K.saturate_kernel, L.over(self.n), n, *arcs)
        limit = self.o["max_rounds"] or max(10_000, 40 * self.n)
        cycle, every, e, floor = np.int64(self.o["cycle"]), self.o["check_every"], np.int64(eps), np.int64(FLOOR)
        rnd = 0
        while True:
            for _ in range(every):
                L.on(K.push_kernel, self.push_blocks, n, cycle, *arcs, self.ctl)
                L.on(K.relabel_kernel, L.over(self.n), n, np.int64(self.stamp), e, floor, self.d_indptr, self.d_to,
                     self.d_res, self.d_c, self.d_excess, self.d_price, self.ctl)
                rnd += 1
                self.stamp += 1  # the count slots rotate over all rounds of the solve (none read stale)
            L.syncs += 1
            ctl = self.ctl.copy_to_host()
            status = int(ctl[K.CTL_STATUS])
            if status == K.OVERFLOW:
                raise OverflowError(f"prices passed -2**62 at eps={eps} (costs too large for this network's size)")
            if status == K.STUCK:
                raise RuntimeError("a node with excess has no residual arc (the problem is infeasible)")
            if ctl[K.CTL_ACTIVE + (self.stamp - 1) % 3] == 0:
                return rnd
            if rnd >= limit:
                return -1

    def _persistent(self) -> bool:
        """``loop="persistent"``: the eps loop in one cooperative launch; False where not one block fits an SM
        (the caller then runs host rounds)."""
        from numba import cuda  # noqa: PLC0415

        from .._cuda._launch import cooperative_kernel  # noqa: PLC0415
        from . import _gpu_price_update_kernels as U  # noqa: PLC0415

        K, n = self._K, self.n
        limit = self.o["max_rounds"] or max(10_000, 40 * n)
        owner = np.repeat(np.arange(n, dtype=self.to.dtype), np.diff(self.indptr))  # the node of each slot
        args = (np.int64(n), np.int64(self.eps0), np.int64(self.o["alpha"]), np.int64(self.o["cycle"]),
                np.int64(limit), np.int64(self.o["update_every"]), np.int64(FLOOR), self.d_indptr, self.d_to,
                self.d_rev, self.d_res, self.d_c, self.d_excess, self.d_price, cuda.to_device(owner),
                cuda.device_array(n, np.int64), cuda.device_array(self.to.size, np.int64), self.ctl)
        bs = self.o["block_size"]
        if is_simulator():  # the simulator's grid sync is sound on one block only
            spec, blocks = K.persistent_kernel, 1
        else:
            spec, gmax = cooperative_kernel(K.persistent_kernel, args, bs)
            if gmax < 1:
                return False
            # a thread per node (a thread per slot, for the update's sweeps, measured 2x slower: more blocks to sync)
            blocks = min(gmax, self.o["grid_size"] or self.L.over(n))
        spec[blocks, bs](*args)
        self.L.launches += 1
        self.L.syncs += 1
        ctl = self.ctl.copy_to_host()
        self.stats["grid_size"] = blocks
        self.stats["rounds"], self.stats["phases"] = int(ctl[K.CTL_ROUNDS]), int(ctl[K.CTL_PHASES])
        u = K.CTL_UPDATE
        self.stats.update(price_updates=int(ctl[u + U.U_UPDATES]), update_sweeps=int(ctl[u + U.U_SWEEPS]),
                          updates_skipped=int(ctl[u + U.U_SKIPPED]))
        status = int(ctl[K.CTL_STATUS])
        if status == K.OVERFLOW:
            raise OverflowError("prices passed -2**62 (costs too large for this network's size)")
        if status == K.STUCK:
            raise RuntimeError("a node with excess has no residual arc (the problem is infeasible)")
        if status == K.BUDGET:
            self.fallback = f"a phase ran past max_rounds={limit} (loop='persistent')"
        return True

    def solve(self) -> None:
        """The eps loop (the CPU twin's schedule, without price refinement): host rounds or one persistent launch."""
        from numba import cuda  # noqa: PLC0415

        t = time.perf_counter()
        eps = self.eps0
        self.fallback = None
        if self.o["loop"] == "persistent" and self._persistent():
            cuda.synchronize()
            self.stats["seconds_gpu_solve"] = time.perf_counter() - t
            return
        self.o["loop"] = self.stats["loop"] = "host"
        while True:
            eps = max(1, eps // self.o["alpha"])
            r = self._phase(eps)
            self.stats["phases"] += 1
            if r < 0:
                self.fallback = f"a phase ran past max_rounds at eps={eps}"
                break
            self.stats["rounds"] += r
            if eps == 1:
                break
        cuda.synchronize()
        self.stats["seconds_gpu_solve"] = time.perf_counter() - t

    def certify(self) -> None:
        """D2H; the exact integer potentials from ``floor(p / (n + 1))`` (ends only at an optimum)."""
        t = time.perf_counter()
        n, m = self.n, self.m
        self.res = self.d_res.copy_to_host()
        ctl = self.ctl.copy_to_host()
        self.stats["pushes"], self.stats["relabels"] = int(ctl[self._K.CTL_PUSHES]), int(ctl[self._K.CTL_RELABELS])
        self.pot = np.floor_divide(self.d_price.copy_to_host(), self.k)
        excess = self.d_excess.copy_to_host()
        self.L.syncs += 4
        if self.fallback is None and (excess != 0).any():
            self.fallback = f"node {int(np.flatnonzero(excess)[0])} kept an excess after the last phase"
        if self.fallback is None:
            queue, inq = np.empty(max(n, 1), np.int64), np.zeros(n, np.bool_)
            relax = exact_potentials_kernel(self.indptr, self.to, self.res, self.c, self.pot, queue, inq,
                                            np.int64(max(n, 1)) * max(2 * m, 1))
            self.stats["potential_relaxations"] = int(relax)
            if relax < 0:
                self.fallback = "the exact potentials did not converge (the device flow is not optimal)"
        self.stats["seconds_gpu_certify"] = time.perf_counter() - t

    def finish(self) -> tuple[np.ndarray, np.ndarray, dict]:
        """Per-arc flow and stats; the CPU twin's answer where the device's was not proven (``gpu_fallback``)."""
        t = time.perf_counter()
        st = self.stats
        st["kernel_launches"], st["host_syncs"] = self.L.launches, self.L.syncs
        if self.fallback is not None:
            flow, pot, cpu = solve_cost_scaling(self.P, alpha=self.o["alpha"])
            st["gpu_fallback"] = self.fallback
            st["cpu_stats"] = cpu
        else:
            flow = (self.P.cap - self.res[self.slot]).astype(np.int64)
            pot = self.pot
        st["seconds_gpu_finish"] = time.perf_counter() - t
        return flow, pot, st
