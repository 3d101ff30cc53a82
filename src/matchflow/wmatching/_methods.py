"""The weighted-matching method table (see :mod:`matchflow._methods`).

Every CPU solve takes ``(graph: Graph with int64/float64 weights, **options)`` and returns
``(mate, stats)``. All methods return the same matching: the greedy matching of the edge order of
:mod:`._cpu_suitor`. ``method="auto"``: ``suitor`` (the fastest CPU method measured,
docs/notes/wmatching.md). GPU twins (:mod:`._gpu_suitor`): ``suitor`` (GPU-Suitor, variants and
vpw/tpb options) and ``ld`` (GPU-LD); they take ``(graph, **gpu options)`` and return ``(mate, stats)``
like the CPU solves. ``backend="auto"``: see :func:`_gpu_wins`.
"""

from __future__ import annotations

import numpy as np

from .._graph import Graph
from .._methods import Method, MethodTable
from .._validation import check_bool
from ._cpu_suitor import greedy_kernel, ld_kernel, suitor_kernel, suitor_parallel_kernel

__all__ = ["TABLE", "edge_order"]


def edge_order(g: Graph) -> tuple[np.ndarray, np.ndarray]:
    """The edges ``u < v`` of positive weight, heaviest first in the fixed total order
    (weight, then larger endpoint, then smaller endpoint; larger first)."""
    n = g.n
    u = np.repeat(np.arange(n, dtype=g.indices.dtype), np.diff(g.indptr))
    v = g.indices
    keep = (u < v) & (g.weights > 0)
    u, v, w = u[keep], v[keep], g.weights[keep]
    order = np.lexsort((u, v, w))[::-1]  # u < v: v is the larger endpoint
    return np.ascontiguousarray(u[order]), np.ascontiguousarray(v[order])


def _mate0(g: Graph) -> np.ndarray:
    return np.full(g.n, -1, dtype=g.indices.dtype)


def _solve_greedy(g: Graph) -> tuple[np.ndarray, dict]:
    mate = _mate0(g)
    ou, ov = edge_order(g)
    greedy_kernel(g.indptr, g.indices, g.weights, ou, ov, mate)
    return mate, {"edges_sorted": len(ou)}


def _solve_suitor(g: Graph, parallel: bool = False) -> tuple[np.ndarray, dict]:
    s = _mate0(g)
    ws = np.zeros(g.n, dtype=g.weights.dtype)
    if parallel:
        proposals, rounds = suitor_parallel_kernel(g.indptr, g.indices, g.weights, s, ws)
        return s, {"proposals": int(proposals), "rounds": int(rounds), "parallel": True}
    proposals = suitor_kernel(g.indptr, g.indices, g.weights, s, ws)
    return s, {"proposals": int(proposals)}


def _check_suitor(options: dict) -> dict:
    if "parallel" in options:
        options["parallel"] = check_bool("parallel", options["parallel"])
    return options


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


def _solve_ld(g: Graph) -> tuple[np.ndarray, dict]:
    mate = _mate0(g)
    cand = _mate0(g)
    rounds = ld_kernel(g.indptr, g.indices, g.weights, mate, cand)
    return mate, {"rounds": int(rounds)}


TABLE = MethodTable(
    family="weighted_matching",
    methods=(
        Method("suitor", cpu=_solve_suitor, gpu=_gpu_suitor, options=("parallel",), check=_check_suitor,
               auto_gpu=_gpu_wins),
        Method("ld", cpu=_solve_ld, gpu=_gpu_ld),
        Method("greedy", cpu=_solve_greedy),
    ),
    cpu_rule=lambda g: "suitor",
    gpu_rule=lambda g: "suitor" if _gpu_wins(g) else None,
    common=("improve",),
    cold_gpu_rule=lambda g: len(g.indices) >= GPU_COLD_NNZ,
)
