"""Batched assignment on the GPU: the host driver of ``lsap_warp_kernel`` / ``lsap_batch_kernel``.

One launch solves every item of a :class:`._prepare.BatchProblem`, whatever ``B`` is; no host synchronisation per
item. A small state object with named stages (``matching/_gpu_push_relabel.py``'s shape): ``start`` (the costs on
the device: read in place for device inputs, one upload for host ones; the item table in one upload; the output
and work buffers), ``solve`` (the launch), ``certify`` (every item's LP-duality certificate on the device, exact
for integers, the dense family's rigorous bound for floats, with each item's total: :mod:`._gpu_verify_kernels`;
an item it does not prove gets status ``UNPROVED`` and the door solves it again), ``finish`` (items beyond the
exact range re-solved on the host by the CPU twin's :func:`._cpu_jv.resolve_items`; ``status`` to the host, the
one read-back of a device input; the answer on the host for host inputs, numba device arrays on the input's device
for device inputs).

Kernel (``kernel="auto"``): a warp per item (``_gpu_jv_warp_kernels``, the state in registers) when the largest
item's larger side is at most ``WARP_SIDE`` (128), else a block per item (``_gpu_jv_kernels``). Block size of the
block kernel (``block_size="auto"``): the smallest of 32, 64, 128 covering the largest item's larger side, else
256. Its shared memory: the work arrays of every item when the largest fits :data:`SMEM_MAX`, and each item's costs
where they fit too (the launch's dynamic shared memory is sized by the largest such item: ``shared_costs=False``
keeps costs in global memory, for batches where one mid-sized item would cut every block's occupancy).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._cuda import quiet, validate_gpu_options
from .._cuda._launch import launch_typed
from .._validation import check_bool, check_options
from ._prepare import Solved

__all__ = ["solve_jv_gpu", "validate_jv_gpu_options", "choose_block", "JVBatchRun", "padded",
           "negated", "KERNELS"]

_OPTIONS = ("shared_costs", "shared_work", "kernel")
KERNELS = ("auto", "warp", "block")
SMEM_MAX = 48 * 1024  # dynamic shared memory without the opt-in attribute: every CUDA device numba-cuda supports


def validate_jv_gpu_options(**options: Any) -> dict[str, Any]:
    """The GPU vocabulary (``block_size``: a power of two in [1, 1024], default by size; ``grid_size``: blocks,
    default one per item; ``certify``: every item's certificate on the device, default on (off: the door
    certifies on the host); ``loop`` / ``max_rounds`` accepted, unused: one launch) plus ``shared_costs`` and ``shared_work``
    (default True: costs and work arrays in shared memory where they fit; False keeps them in global memory) and
    ``kernel`` (``"auto"``, ``"warp"``: a warp per item, items of a larger side <= 128 only, ``"block"``)."""
    opts = dict(options)
    o = validate_gpu_options("batch_linear_sum_assignment (gpu)", opts, block_low=1, block_default=0,
                             certify_default=True)
    check_options("batch_linear_sum_assignment (gpu)", opts, _OPTIONS)
    o["shared_costs"] = check_bool("shared_costs", opts.get("shared_costs", True))
    o["shared_work"] = check_bool("shared_work", opts.get("shared_work", True))
    o["kernel"] = opts.get("kernel", "auto")
    if o["kernel"] not in KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(map(repr, KERNELS))}, got {o['kernel']!r}")
    return o


def choose_block(largest: int) -> int:
    """Threads per block for items whose larger side is at most ``largest``."""
    for b in (32, 64, 128):
        if largest <= b:
            return b
    return 256


def solve_jv_gpu(problem, stats: dict[str, Any] | None = None, **options: Any) -> Solved:
    """Solve (and, unless ``certify=False``, certify) every item of ``problem`` on the GPU: a
    :class:`._prepare.Solved` (host arrays for host inputs; numba device arrays on the input's device for device
    inputs, with the items' totals). With a ``stats`` dict, the launches are waited for and the stage timings
    (``seconds_start``, ``seconds_solve``: launch to completion, ``seconds_certify``, ``seconds_finish``) and the
    launch shape are written into it."""
    o = validate_jv_gpu_options(**options)
    with quiet():
        run = JVBatchRun(problem, o)
        run.start()
        run.solve(wait=stats is not None)
        if o["certify"]:
            run.certify(wait=stats is not None)
        out = run.finish()
    if stats is not None:
        stats.update(run.stats)
    return out


class JVBatchRun:
    """One batched solve: ``start`` -> ``solve`` -> ``certify`` -> ``finish`` (timings in ``stats``)."""

    def __init__(self, p, o: dict[str, Any]) -> None:
        from . import _gpu_jv_kernels as K  # noqa: PLC0415
        from . import _gpu_jv_warp_kernels as W  # noqa: PLC0415

        self.p, self.o, self.K, self.W = p, o, K, W
        self.B = p.batch
        self.dt = np.dtype(p.vals.dtype)
        self.R, self.C = int(p.out_rows[-1]), int(p.out_cols[-1])
        self.stats: dict[str, Any] = {}
        self.certified = False
        self.total = None
        small = np.minimum(p.rows, p.cols)
        large = np.maximum(p.rows, p.cols)
        self.largest = int(large.max()) if self.B else 0
        self.warp = o["kernel"] == "warp" or (o["kernel"] == "auto" and self.largest <= W.WARP_SIDE)
        if self.warp and self.largest > W.WARP_SIDE:
            raise ValueError(f"kernel='warp' takes items of a larger side <= {W.WARP_SIDE}, got {self.largest}")
        self.bdim = o["block_size"] or choose_block(self.largest)
        self.grid = o["grid_size"] or max(1, self.B)
        self.smem, self.wshared = 0, False
        if self.warp:
            self.wdim = 32 * W.WARPS
            self.grid = o["grid_size"] or max(1, -(-self.B // W.WARPS))
            return
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

    def start(self) -> None:
        """The costs, the item table and the output buffers on the device."""
        from numba import cuda  # noqa: PLC0415

        t0 = time.perf_counter()
        p = self.p
        self.vals = p.vals if p.on_device else cuda.to_device(np.ascontiguousarray(p.vals))
        if self.vals.size == 0:  # every item empty: a one-word stand-in (the kernel reads no entry)
            self.vals = cuda.to_device(np.zeros(1, dtype=self.dt))
        self.meta = _meta(p, self.K)
        self.col4row = cuda.device_array(max(self.R, 1), dtype=np.int64)
        self.u = cuda.device_array(max(self.R, 1), dtype=self.dt)
        self.v = cuda.device_array(max(self.C, 1), dtype=self.dt)
        self.status = cuda.device_array(max(self.B, 1), dtype=np.int8)
        if not self.warp:
            nw = 1 if self.wshared else self.R + self.C + 1
            self.gval = cuda.device_array(2 * nw, dtype=self.dt)
            self.gint = cuda.device_array(4 * nw, dtype=np.int32)
        self.stats["seconds_start"] = time.perf_counter() - t0

    def _scalars(self):
        dt = self.dt
        sign = dt.type(-1 if self.p.maximize else 1)
        inf = dt.type(np.inf) if dt.kind == "f" else dt.type(np.iinfo(np.int64).max)
        limit = np.float64(self.K.FLOAT_LIMIT if dt.kind == "f" else self.K.INT_LIMIT)
        return sign, dt.type(0), inf, limit

    def solve(self, wait: bool = False) -> None:
        """One launch for the whole batch (asynchronous unless ``wait``: nothing is read back here)."""
        from numba import cuda  # noqa: PLC0415

        if self.B == 0:
            self.stats["seconds_solve"] = 0.0
            return
        t0 = time.perf_counter()
        sign, zero, inf, limit = self._scalars()
        nb = np.int64(self.B)
        if self.warp:
            launch_typed(self.W.lsap_warp_kernel, self.dt.str, self.grid, self.wdim, 0,
                         self.vals, self.meta, nb, sign, zero, inf, limit, self.col4row, self.u, self.v, self.status)
        else:
            launch_typed(self.K.lsap_batch_kernel, self.dt.str, self.grid, self.bdim, self.smem,
                         self.vals, self.meta, nb, sign, zero, inf, limit, np.int64(self.smem), self.wshared, self.gval,
                         self.gint, self.col4row, self.u, self.v, self.status)
        if wait:
            cuda.synchronize()
        self.stats.update(seconds_solve=time.perf_counter() - t0, kernel="warp" if self.warp else "block",
                          block_size=self.wdim if self.warp else self.bdim, shared_bytes=0 if self.warp else self.smem,
                          shared_work=not self.warp and self.wshared, launches=1)

    def certify(self, wait: bool = False) -> None:
        """Every solved item's certificate on the device (exact for integers, the rigorous bound for floats) and
        its total: an item it does not prove gets status ``UNPROVED``. Nothing is read back here."""
        from numba import cuda  # noqa: PLC0415

        from . import _gpu_verify_kernels as V  # noqa: PLC0415

        self.certified = True
        if self.B == 0:
            return
        t0 = time.perf_counter()
        sign, zero, _, _ = self._scalars()
        used = cuda.device_array(max(self.C, 1), dtype=np.int32)
        self.total = cuda.device_array(self.B, dtype=self.dt)
        bdim = min(choose_block(self.largest), V.CERT_BLOCK_MAX)
        launch_typed(V.certify_items_kernel, self.dt.str, max(1, self.B), bdim, 0,
                     self.vals, self.meta, np.int64(self.B), sign, zero, self.dt.kind != "f", self.col4row, self.u,
                     self.v, used, self.status, self.total)
        self.stats["launches"] = self.stats.get("launches", 0) + 1
        if wait:
            cuda.synchronize()
        self.stats["seconds_certify"] = time.perf_counter() - t0

    def finish(self) -> Solved:
        """The answer where the input lives (``status`` on the host: the one read-back); WIDE items re-solved on
        the host first."""
        from ._cpu_jv import resolve_items  # noqa: PLC0415

        t0 = time.perf_counter()
        st = self.status.copy_to_host()[:self.B]
        wide = np.flatnonzero(st == self.K.WIDE)
        outs = [self.col4row, self.u, self.v]
        sizes = (self.R, self.R, self.C)
        total = self.total if self.p.on_device and self.total is not None else None
        if not self.p.on_device or wide.size:
            x, u, v = (a.copy_to_host()[:k] for a, k in zip(outs, sizes))
            if wide.size:
                u, v = resolve_items(self.p, wide, x, u, v, st)
                total = None
            if self.p.on_device:
                x, u, v = (_to_device(a) for a in (x, u, v))
        else:
            x, u, v = (a[:k] for a, k in zip(outs, sizes))
        self.stats["seconds_finish"] = time.perf_counter() - t0
        return Solved(x, u, v, st, certified=self.certified, total=total)


_META: dict[tuple, Any] = {}  # the item table of a plain (B, N, M) batch, by context and (B, N, M): the same every call


def _meta(p, K):
    """The item table on the device (``K.meta_rows``): one upload, or none for a plain 3-D batch seen before."""
    from numba import cuda  # noqa: PLC0415

    key = None
    if p.uniform and p.batch:
        key = (_context_key(cuda.current_context()), p.batch, p.pad_rows, int(p.ld[0]))
    hit = _META.get(key) if key else None
    if hit is None:
        hit = cuda.to_device(K.meta_rows(p))
        if key:
            if len(_META) >= 16:
                _META.pop(next(iter(_META)))
            _META[key] = hit
    return hit


def _context_key(ctx) -> Any:
    """The CUDA context's handle (a reset context gets a new one: a cached array is never used in another)."""
    h = getattr(ctx, "handle", None)
    try:
        return int(h)
    except (TypeError, ValueError):
        return getattr(h, "value", None) or id(ctx)


def _to_device(a: np.ndarray):
    from numba import cuda  # noqa: PLC0415

    return cuda.to_device(np.ascontiguousarray(a)) if a.dtype != object else a


def padded(flat, offsets: np.ndarray, sizes: np.ndarray, k: int, fill):
    """A device ``(B, k)`` array: item ``b``'s ``sizes[b]`` values of the device array ``flat`` from
    ``offsets[b]``, then ``fill`` (one launch)."""
    from numba import cuda  # noqa: PLC0415

    from ._gpu_verify_kernels import pad_rows_kernel  # noqa: PLC0415

    B = int(sizes.size)
    out = cuda.device_array(B * k, dtype=flat.dtype)
    if out.size:
        off, sz = cuda.to_device(np.ascontiguousarray(offsets[:B])), cuda.to_device(np.ascontiguousarray(sizes))
        with quiet():
            launch_typed(pad_rows_kernel, flat.dtype.str, min(1024, -(-out.size // 256)), 256, 0,
                         flat, off, sz, np.int64(k), flat.dtype.type(fill), out)
    return out.reshape(B, k)


def negated(a):
    """``-a`` of a device array, in place (one launch)."""
    from ._gpu_verify_kernels import negate_kernel  # noqa: PLC0415

    if a.size:
        with quiet():
            launch_typed(negate_kernel, a.dtype.str, min(1024, -(-a.size // 256)), 256, 0, a)
    return a
