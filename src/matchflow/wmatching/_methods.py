"""The weighted-matching method table (see :mod:`matchflow._methods`).

Every CPU solve (``solve_<algo>`` in ``_cpu_<algo>.py``) takes ``(graph: Graph with int64/float64 weights,
**options)`` and returns ``(mate, stats)``; its row holds it as :func:`on_host` ``(solve)``. All methods return
the same matching: the greedy matching of the edge order of :mod:`._cpu_suitor`. ``method="auto"``: ``suitor``
(the fastest CPU method measured, docs/notes/wmatching.md). GPU twins (:mod:`._gpu_suitor`'s stage objects,
through :func:`on_gpu`): ``suitor`` (GPU-Suitor, variants and vpw/tpb options) and ``ld`` (GPU-LD). Both twins
of a row take the door's ``(graph, pending, improve, **options)`` and return ``(graph, mate, stats, (weight,
pairs) or None)``. ``backend="auto"``: see :func:`_gpu_wins`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .._graph import Graph
from .._methods import Method, MethodTable
from ._cpu_greedy import solve_greedy
from ._cpu_ld import solve_ld
from ._cpu_suitor import check_suitor_options, solve_suitor
from ._prepare import host_graph

__all__ = ["TABLE", "GPU_MIN_NNZ", "GPU_COLD_NNZ"]


def on_host(solve: Callable[..., tuple[np.ndarray, dict]]) -> Callable[..., tuple]:
    """A CPU solve ``(graph, **options) -> (mate, stats)`` as a row's twin of the door's prepared graph: the
    symmetry check of a canonical scipy.sparse input on the host (stage ``check``), the widened weights, the
    solve (stage ``solve``): ``(graph, mate, stats, None)``, the GPU twins' shape."""

    @functools.wraps(solve)
    def twin(g: Graph, pending: Any, improve: bool, **options: Any) -> tuple:
        t0 = time.perf_counter()
        g = host_graph(g, pending)
        t1 = time.perf_counter()
        mate, stats = solve(g, **options)
        stats["seconds_check"], stats["seconds_solve"] = t1 - t0, time.perf_counter() - t1
        return g, mate, stats, None

    return twin


def on_gpu(run: str) -> Callable[..., tuple]:
    """The GPU twin: the stage object ``run`` of :mod:`._gpu_suitor` (start -> solve -> certify -> finish) on the
    door's prepared graph: ``(graph, mate, stats, (weight, pairs) or None)``."""

    def twin(g: Graph, pending: Any, improve: bool, **options: Any) -> tuple:
        from . import _gpu_suitor  # noqa: PLC0415 - loads numba.cuda on use only

        return _gpu_suitor.solve_problem(getattr(_gpu_suitor, run), g, pending, improve, options)

    twin.__name__ = twin.__qualname__ = f"on_gpu({run})"
    return twin


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
        Method("suitor", cpu=on_host(solve_suitor), gpu=on_gpu("SuitorRun"), options=("parallel",),
               check=check_suitor_options, auto_gpu=_gpu_wins),
        Method("ld", cpu=on_host(solve_ld), gpu=on_gpu("LDRun")),
        Method("greedy", cpu=on_host(solve_greedy)),
    ),
    cpu_rule=lambda g: "suitor",
    gpu_rule=lambda g: "suitor" if _gpu_wins(g) else None,
    common=("improve",),
    cold_gpu_rule=lambda g: len(g.indices) >= GPU_COLD_NNZ,
)
