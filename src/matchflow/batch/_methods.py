"""The batched assignment method table (see :mod:`matchflow._methods`).

Every solve takes the prepared :class:`._prepare.BatchProblem` and returns ``(col4row, u, v, status)`` (the
contract in :mod:`._prepare`). One algorithm, Jonker-Volgenant: on the CPU a Numba ``prange`` over the items
(:mod:`._cpu_jv`), on the GPU its twin ``solve_jv_gpu`` (:mod:`._gpu_jv`, imported on first use).

``backend="auto"`` (:func:`gpu_measured_faster`, :func:`gpu_pays_first_call`): the GPU for batches of at least
:data:`GPU_MIN_ITEMS` items whose larger side is at most :data:`GPU_MAX_SIDE` (the range where the H200 measured
it faster end to end from host arrays), and in a process that has not used the GPU yet only from
:data:`GPU_COLD_ITEMS` items; a device input runs on its GPU. Everything else: the CPU.
"""

from __future__ import annotations

import numpy as np

from .._methods import Method, MethodTable
from .._validation import check_int
from ._cpu_jv import solve_jv

__all__ = ["TABLE", "gpu_measured_faster", "gpu_pays_first_call", "GPU_MIN_ITEMS", "GPU_MAX_SIDE",
           "GPU_COLD_ITEMS"]

# End to end from host NumPy arrays, H200 (16-core host), results/batch/h200-2026-11-29.md, ms, GPU vs our CPU
# path on the 16 cores (best of 2, before the door's host work was batched, which both paths share):
#   10000 x 8x8      int 23.5 vs 123    float 14.0 vs 80.1   GPU 3.7-5.7x
#   10000 x 32x32    int 44.8 vs 146    float 37.9 vs 110    GPU 2.9-3.3x
#   4096 x 64x64     int 48.6 vs 81.3   float 52.5 vs 92.9   GPU 1.7-1.8x
#   1000 x 50x50 (tracking, float)      9.5 vs 19.0          GPU 2.0x
#   256 x 256x256    int 41.9 vs 29.5   float 51.8 vs 53.2   CPU 1.4x / level: few items leave the GPU's SMs
#                                                            idle, each item a serial chain of Dijkstra steps
#   64 x 300x(1-150) DETR list 12.7 vs 5.0 (CPU 2.5x); padded + shapes 8.9 vs 16.2 (GPU 1.8x, but the CPU's
#                    list form, 5.0, is the fastest of the four): 64 items stay on the CPU
# So the GPU from 1000 items of a larger side <= 64 (the measured range; larger items in large batches were not
# measured: no measured rule means the CPU). The saving is ~8-10 us per item (101 ms / 10^4 items of 32x32,
# 33 ms / 4096 of 64x64, 9.5 ms / 1000 of 50x50).
GPU_MIN_ITEMS = 1000
GPU_MAX_SIDE = 64
# First use: a fresh process's first batched GPU call (import matchflow + 1000 x 32x32 with a warm kernel cache:
# CUDA context, numba-cuda, the kernels from the cache) took 2.34 s on the H200 (meta.first_gpu_call_s of the same
# run; predicted 0.6-1 s). At ~8 us saved per item that is paid back from ~290,000 items: before the process has
# used the GPU, `auto` takes it from 300,000 items (a device input, or gpu.warm_up(), makes the process warm).
GPU_COLD_ITEMS = 300_000


def gpu_measured_faster(p) -> bool:
    """The GPU twin was measured faster end to end on this batch (the table above :data:`GPU_MIN_ITEMS`); a
    device input counts as measured faster (it is on its GPU already: no host copy)."""
    if p.on_device:
        return True
    large = int(np.maximum(p.rows, p.cols).max(initial=0))
    return p.batch >= GPU_MIN_ITEMS and large <= GPU_MAX_SIDE


def gpu_pays_first_call(p) -> bool:
    """The first-use rule: the saving covers a fresh process's first GPU call (:data:`GPU_COLD_ITEMS`); a device
    input is on its GPU already."""
    return p.on_device or p.batch >= GPU_COLD_ITEMS


def _jv(problem, **options):
    return solve_jv(problem, **options)


def _jv_gpu(problem, **options):
    from ._gpu_jv import solve_jv_gpu  # noqa: PLC0415 - loads numba.cuda on use only

    return solve_jv_gpu(problem, **options)


def _check_jv(options: dict) -> dict:
    if "arr_passes" in options:
        options["arr_passes"] = check_int("arr_passes", options["arr_passes"], low=0, high=16)
    return options


TABLE = MethodTable(
    family="batch_linear_sum_assignment",
    methods=(Method("jv", cpu=_jv, gpu=_jv_gpu, options=("arr_passes",), check=_check_jv,
                    auto_gpu=gpu_measured_faster),),
    cpu_rule=lambda p: "jv",
    gpu_rule=lambda p: "jv" if gpu_measured_faster(p) else None,
    cold_gpu_rule=gpu_pays_first_call,
)
