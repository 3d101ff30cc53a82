"""Batched assignment on the GPU: the host driver of ``lsap_batch_kernel`` (:mod:`._gpu_jv_kernels`).

One launch solves every item of a :class:`._prepare.BatchProblem`, a block per item, whatever ``B`` is; no host
synchronisation per item. A small state object with named stages (``matching/_gpu_push_relabel.py``'s shape):
``start`` (the costs on the device: read in place for device inputs, one upload for host ones; the item table in
one upload; the output and work buffers), ``solve`` (the launch), ``certify`` (integers: the exact certificate
on the device, ``O(B)`` flags back; floats are certified by the door), ``finish`` (items beyond the exact range
re-solved on the host by the CPU twin's :func:`._cpu_jv.resolve_items`; the answer on the host for host inputs,
numba device arrays on the input's device for device inputs).

Block size (``block_size="auto"``): the smallest of 32, 64, 128 covering the largest item's larger side, else
256. Shared memory: the work arrays of every item when the largest fits :data:`SMEM_MAX`, and each item's costs
where they fit too (the launch's dynamic shared memory is sized by the largest such item: ``shared_costs=False``
keeps costs in global memory, for batches where one mid-sized item would cut every block's occupancy).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._cuda import quiet, validate_gpu_options
from .._validation import check_bool, check_options

__all__ = ["solve_jv_gpu", "validate_jv_gpu_options", "BatchGPUError", "choose_block", "JVBatchRun"]

_OPTIONS = ("shared_costs", "shared_work")
SMEM_MAX = 48 * 1024  # dynamic shared memory without the opt-in attribute: every CUDA device numba-cuda supports


class BatchGPUError(RuntimeError):
    """The batched GPU kernel's answer failed its device certificate (an internal bug, never bad input)."""


def validate_jv_gpu_options(**options: Any) -> dict[str, Any]:
    """The GPU vocabulary (``block_size``: a power of two in [1, 1024], default by size; ``grid_size``: blocks,
    default one per item; ``certify``: the device certificate of integer answers, default off: the door
    certifies; ``loop`` / ``max_rounds`` accepted, unused: one launch) plus ``shared_costs`` and ``shared_work``
    (default True: costs and work arrays in shared memory where they fit; False keeps them in global memory)."""
    opts = dict(options)
    o = validate_gpu_options("batch_linear_sum_assignment (gpu)", opts, block_low=1, block_default=0,
                             certify_default=False)
    check_options("batch_linear_sum_assignment (gpu)", opts, _OPTIONS)
    o["shared_costs"] = check_bool("shared_costs", opts.get("shared_costs", True))
    o["shared_work"] = check_bool("shared_work", opts.get("shared_work", True))
    return o


def choose_block(largest: int) -> int:
    """Threads per block for items whose larger side is at most ``largest``."""
    for b in (32, 64, 128):
        if largest <= b:
            return b
    return 256


def solve_jv_gpu(problem, stats: dict[str, Any] | None = None, **options: Any):
    """Solve every item of ``problem`` on the GPU; returns ``(col4row, u, v, status)`` (the contract of
    :mod:`._prepare`): NumPy arrays for host inputs, numba device arrays on the input's device for device
    inputs (the door hands them back in the input's library, ``_cuda.hand_back``). With a ``stats`` dict, the
    launch is waited for and the stage timings (``seconds_start``, ``seconds_solve``: launch to completion,
    ``seconds_finish``) and the launch shape are written into it."""
    o = validate_jv_gpu_options(**options)
    with quiet():
        run = JVBatchRun(problem, o)
        run.start()
        run.solve(wait=stats is not None)
        if o["certify"]:
            run.certify()
        out = run.finish()
    if stats is not None:
        stats.update(run.stats)
    return out


class JVBatchRun:
    """One batched solve: ``start`` -> ``solve`` -> ``certify`` -> ``finish`` (timings in ``stats``)."""

    def __init__(self, p, o: dict[str, Any]) -> None:
        from . import _gpu_jv_kernels as K  # noqa: PLC0415

        self.p, self.o, self.K = p, o, K
        self.B = p.batch
        self.dt = np.dtype(p.vals.dtype)
        self.R, self.C = int(p.out_rows[-1]), int(p.out_cols[-1])
        self.stats: dict[str, Any] = {}
        small = np.minimum(p.rows, p.cols)
        large = np.maximum(p.rows, p.cols)
        largest = int(large.max()) if self.B else 0
        self.bdim = o["block_size"] or choose_block(largest)
        work = K.item_smem(small, large, self.bdim, False)  # vectorised over the items
        self.wshared = o["shared_work"] and int(work.max(initial=0)) <= SMEM_MAX
        smem = K.item_smem(0, 0, self.bdim, False, work=False)
        if self.wshared:
            smem = max(smem, int(work.max(initial=0)))
            if o["shared_costs"]:
                sizes = K.item_smem(small, large, self.bdim, True)  # vectorised over the items
                fits = sizes[sizes <= SMEM_MAX]
                smem = max(smem, int(fits.max()) if fits.size else 0)
        self.smem = int(smem)
        self.grid = o["grid_size"] or max(1, self.B)

    def start(self) -> None:
        """The costs, the item table and the output buffers on the device."""
        from numba import cuda  # noqa: PLC0415

        t0 = time.perf_counter()
        p = self.p
        self.vals = p.vals if p.on_device else cuda.to_device(np.ascontiguousarray(p.vals))
        if self.vals.size == 0:  # every item empty: a one-word stand-in (the kernel reads no entry)
            self.vals = cuda.to_device(np.zeros(1, dtype=self.dt))
        meta = np.stack([p.offs, p.ld, p.rows, p.cols, p.out_rows[:-1], p.out_cols[:-1]]).astype(np.int64)
        dmeta = cuda.to_device(np.ascontiguousarray(meta))
        self.meta = [dmeta[k] for k in range(6)]
        self.col4row = cuda.device_array(max(self.R, 1), dtype=np.int64)
        self.u = cuda.device_array(max(self.R, 1), dtype=self.dt)
        self.v = cuda.device_array(max(self.C, 1), dtype=self.dt)
        self.status = cuda.device_array(max(self.B, 1), dtype=np.int8)
        nw = 1 if self.wshared else self.R + self.C + 1
        self.gval = cuda.device_array(2 * nw, dtype=self.dt)
        self.gint = cuda.device_array(4 * nw, dtype=np.int32)
        self.stats["seconds_start"] = time.perf_counter() - t0

    def solve(self, wait: bool = False) -> None:
        """One launch for the whole batch (asynchronous unless ``wait``: nothing is read back here)."""
        from numba import cuda  # noqa: PLC0415

        if self.B == 0:
            self.stats["seconds_solve"] = 0.0
            return
        K, dt = self.K, self.dt
        t0 = time.perf_counter()
        sign = dt.type(-1 if self.p.maximize else 1)
        inf = dt.type(np.inf) if dt.kind == "f" else dt.type(np.iinfo(np.int64).max)
        limit = K.FLOAT_LIMIT if dt.kind == "f" else K.INT_LIMIT
        offs, ld, rows, cols, r0, c0 = self.meta
        K.lsap_batch_kernel[self.grid, self.bdim, 0, self.smem](
            self.vals, offs, ld, rows, cols, sign, dt.type(0), inf, np.float64(limit), r0, c0, np.int64(self.smem),
            self.wshared, self.gval, self.gint, self.col4row, self.u, self.v, self.status)
        if wait:
            cuda.synchronize()
        self.stats.update(seconds_solve=time.perf_counter() - t0, block_size=self.bdim, shared_bytes=self.smem,
                          shared_work=self.wshared, launches=1)

    def certify(self) -> None:
        """Integers: the exact certificate of every solved item on the device; raises :class:`BatchGPUError`
        naming the first item it refutes. Floats: nothing here (the door's sound float certificate)."""
        from numba import cuda  # noqa: PLC0415

        if self.B == 0 or self.dt.kind == "f":
            return
        t0 = time.perf_counter()
        ok = cuda.device_array(self.B, dtype=np.int8)
        offs, ld, rows, cols, r0, c0 = self.meta
        self.K.certify_int_kernel[self.grid, min(self.bdim, 256) if self.bdim >= 32 else 32](
            self.vals, offs, ld, rows, cols, self.dt.type(-1 if self.p.maximize else 1), r0, c0, self.col4row,
            self.u, self.v, self.status, ok)
        okh, st = ok.copy_to_host(), self.status.copy_to_host()[:self.B]
        bad = np.flatnonzero((okh == 0) & (st == self.K.OK))
        self.stats["seconds_certify"] = time.perf_counter() - t0
        if bad.size:
            raise BatchGPUError(f"the batched GPU answer of item {int(bad[0])} failed its certificate "
                                f"({bad.size} items): an internal error")

    def finish(self):
        """The answer where the input lives; WIDE items re-solved on the host first."""
        from ._cpu_jv import resolve_items  # noqa: PLC0415

        t0 = time.perf_counter()
        st = self.status.copy_to_host()[:self.B]
        wide = np.flatnonzero(st == self.K.WIDE)
        host = not self.p.on_device or wide.size
        outs = [self.col4row, self.u, self.v]
        sizes = (self.R, self.R, self.C)
        if host:
            x, u, v = (a.copy_to_host()[:k] for a, k in zip(outs, sizes))
            if wide.size:
                u, v = resolve_items(self.p, wide, x, u, v, st)
            self.stats["seconds_finish"] = time.perf_counter() - t0
            if not self.p.on_device:
                return x, u, v, st
            outs = [_to_device(a) for a in (x, u, v)]
            self.status = _to_device(st)
        x, u, v = (a[:k] for a, k in zip(outs, sizes))
        self.stats["seconds_finish"] = time.perf_counter() - t0
        return x, u, v, self.status[:self.B]


def _to_device(a: np.ndarray):
    from numba import cuda  # noqa: PLC0415

    return cuda.to_device(np.ascontiguousarray(a)) if a.dtype != object else a

