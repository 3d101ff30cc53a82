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

# End to end from host NumPy arrays, H200 (16-core host), results/batch/h200-2026-11-29b.md, ms, GPU (the warp
# kernel up to a side of 128, the device certificate) vs our CPU path on the 16 cores, best of 2:
#   10000 x 8x8      int 4.5 vs 124     float 4.2 vs 106     GPU 25x
#   10000 x 32x32    int 13.8 vs 166    float 17.1 vs 127    GPU 7-12x
#   4096 x 64x64     int 26.2 vs 71.6   float 27.2 vs 81.9   GPU 2.7-3.0x
#   1024 x 128x128   int 25.3 vs 37.7   float 26.1 vs 49.5   GPU 1.5-1.9x
#   1000 x 50x50 (tracking, float)      6.0 vs 16.4          GPU 2.7x
#   256 x 256x256    int 30.8 vs 19.8   float 35.8 vs 45.2   CPU 1.6x / GPU 1.3x: few items, each a long serial
#                                                            chain of Dijkstra steps on one block
#   64 x 512x512     int 38.1 vs 22.9   float 52.5 vs 46.2   CPU
#   64 x 300x(1-150) DETR list 5.8 vs 4.6; padded + shapes 7.0 vs 15.9 (the CPU's list form is level): 64 items
#                    stay on the CPU
# So the GPU from 1000 items of a larger side <= 128 (the measured range where it wins; larger items in large
# batches were not measured: no measured rule means the CPU). The upload of the costs is most of the GPU's call
# from host arrays (17.1 ms of which the kernel is 1.4 at 10^4 x 32^2 float64).
GPU_MIN_ITEMS = 1000
GPU_MAX_SIDE = 128
# First use: a fresh process (warm kernel cache) paid import numba.cuda 0.26 s + the CUDA context 0.13 s + the first
# batched call 0.38 s (loading the cached kernels) before its first answer, ~0.8 s (H200, the same run). At ~11 us
# saved per item (10^4 x 32^2: 127 -> 17 ms) that is paid back from ~70,000 items: before the process has used the
# GPU, `auto` takes it from 100,000 items (a device input, or gpu.warm_up(), makes the process warm).
GPU_COLD_ITEMS = 100_000


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
