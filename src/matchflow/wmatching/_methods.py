"""The weighted-matching method table (see :mod:`matchflow._methods`).

Every CPU solve (``solve_<algo>`` in ``_cpu_<algo>.py``) takes ``(graph: Graph with int64/float64 weights,
**options)`` and returns ``(mate, stats)``. All methods return the same matching: the greedy matching of the edge
order of :mod:`._cpu_suitor`. ``method="auto"``: ``suitor`` (the fastest CPU method measured,
docs/notes/wmatching.md). GPU twins (:mod:`._gpu_suitor`): ``suitor`` (GPU-Suitor, variants and
vpw/tpb options) and ``ld`` (GPU-LD); they take ``(graph, **gpu options)`` and return ``(mate, stats)``
like the CPU solves. ``backend="auto"``: see :func:`_gpu_wins`.
"""

from __future__ import annotations

import numpy as np

from .._graph import Graph
from .._methods import Method, MethodTable
from .._validation import check_bool
from ._cpu_greedy import solve_greedy
from ._cpu_ld import solve_ld
from ._cpu_suitor import check_suitor_options, solve_suitor

__all__ = ["TABLE", "GPU_MIN_NNZ", "GPU_COLD_NNZ"]


def _gpu_suitor(g: Graph, parallel: bool = False, **options) -> tuple[np.ndarray, dict]:
    """GPU-Suitor; ``parallel`` (the CPU twin's scheduling switch, same answer) is accepted and ignored,
    so that ``backend="auto"`` may move a ``parallel=True`` call to the GPU."""
    from ._gpu_suitor import suitor_gpu  # noqa: PLC0415 - loads numba.cuda on use only

    check_bool("parallel", parallel)
    return suitor_gpu(g, **options)


def _gpu_ld(g: Graph, **options) -> tuple[np.ndarray, dict]:
    from ._gpu_suitor import ld_gpu  # noqa: PLC0415

    return ld_gpu(g, **options)


GPU_MIN_NNZ = 2_000_000  # CSR entries (= 2 x edges); measured on an H100 (results/wmatching/gpu-h100-*.md)
# a process that has not used the GPU yet (first call ~1.4 s more: CUDA context, kernels from the cache): from
# 64 M CSR entries (R-MAT 20, 31 M entries, saves ~1.0 s: 0.054 vs 1.07 s; R-MAT 23, 258 M, saves several s)
GPU_COLD_NNZ = 64_000_000


def _gpu_wins(g: Graph) -> bool:
    """``backend="auto"``: GPU-Suitor where its whole public call from a host matrix (keys, H2D, solve,
    D2H) was measured faster than the CPU Suitor's, in a warm process: from 1 M edges on. Measured
    (H100, 2026-11-23): Delaunay 2^20 (3.1 M edges) 0.153 s vs 0.231 s, R-MAT 20 (15.7 M) 0.584 s vs
    1.07 s; the CPU wins below 10^5 edges (delaunay_n15: 0.028 s vs 0.0057 s). The first GPU call
    of a process also pays the JIT (5.9 s)."""
    return len(g.indices) >= GPU_MIN_NNZ


TABLE = MethodTable(
    family="weighted_matching",
    methods=(
        Method("suitor", cpu=solve_suitor, gpu=_gpu_suitor, options=("parallel",), check=check_suitor_options,
               auto_gpu=_gpu_wins),
        Method("ld", cpu=solve_ld, gpu=_gpu_ld),
        Method("greedy", cpu=solve_greedy),
    ),
    cpu_rule=lambda g: "suitor",
    gpu_rule=lambda g: "suitor" if _gpu_wins(g) else None,
    common=("improve",),
    cold_gpu_rule=lambda g: len(g.indices) >= GPU_COLD_NNZ,
)
