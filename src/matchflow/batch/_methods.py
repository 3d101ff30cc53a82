"""The batched assignment method table (see :mod:`matchflow._methods`).

Every solve takes the prepared :class:`._prepare.BatchProblem` and returns ``(col4row, u, v, status)`` (the
contract in :mod:`._prepare`). One algorithm, Jonker-Volgenant: on the CPU a Numba ``prange`` over the items
(:mod:`._cpu_jv`), on the GPU its twin ``solve_jv_gpu`` (:mod:`._gpu_jv`, imported on first use).

``backend="auto"``: the CPU until the GPU twin is measured faster end to end. :data:`GPU_MIN_ENTRIES` is a
placeholder that never picks the GPU (no device measurement yet); the rule reads the problem's total entries.
"""

from __future__ import annotations

import math

import numpy as np

from .._methods import Method, MethodTable
from .._validation import check_int
from ._cpu_jv import solve_jv

__all__ = ["TABLE", "gpu_measured_faster", "GPU_MIN_ENTRIES"]

# placeholder: infinite, so backend="auto" stays on the CPU until the GPU twin is measured faster on the device
GPU_MIN_ENTRIES = math.inf


def gpu_measured_faster(p) -> bool:
    """The GPU twin was measured faster end to end (placeholder: never, see :data:`GPU_MIN_ENTRIES`); a device
    input counts as measured faster (no host copy)."""
    if p.on_device:
        return True
    return float(np.dot(p.rows, p.cols)) >= GPU_MIN_ENTRIES


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
)
