"""The matching method table (see :mod:`matchflow._methods`).

Every solve takes ``(graph: BipartiteGraph, init, **options)`` and returns ``(row_match, col_match,
cardinality, init_cardinality, stats)``; its policy (starts, budgets, switches) lives beside its
kernel in ``_cpu_<algo>.py`` / ``_gpu_<algo>.py``.

``method="auto"`` on the CPU (rule measured on the 67 benchmark inputs of results/matching/cpu.md,
evidence in docs/notes/matching_cpu.md), from O(n) features:

* row degrees skewed, max degree > AUTO_SKEW x mean (power-law graphs: R-MAT/kron, ego-Twitter):
  ``push-relabel`` from greedy (ego-Twitter 0.10 s vs HK 1.6 s, SciPy 1.7 s);
* mean degree 2 nnz / (n_rows + n_cols) below AUTO_SPARSE (road networks, power grids: many
  unmatchable columns, which HK searches again in every phase while PF+ drops them once proven:
  road_n22 1.6 s vs 3.2-3.9 s): ``pothen-fan`` with its auto start;
* otherwise (meshes, random geometric, FE, grids, ER): ``hopcroft-karp`` from greedy with the PF+ finish.

``method="auto"`` on a GPU (a real one; ``backend="auto"`` never picks the CUDA simulator): G-PR,
the GPU twin of ``push-relabel``, by :func:`_gpu_rule` (size, hubs, mean degree). An explicit ``method="push-relabel"`` with ``backend="auto"``
stays on the CPU: no per-input rule says where G-PR wins end to end (delaunay_n15: CPU 3.4 ms,
G-PR with the host-to-device copy 7.4 ms, results/matching/gpr.md).
"""

from __future__ import annotations

import time

import numpy as np

from .._graph import BipartiteGraph
from .._methods import Method, MethodTable
from ._cpu_hopcroft_karp import check_hopcroft_karp_options, solve_hopcroft_karp
from ._cpu_pothen_fan import check_pothen_fan_options, solve_pothen_fan
from ._cpu_push_relabel import check_push_relabel_options, solve_push_relabel

__all__ = ["TABLE", "auto_cpu_method"]

AUTO_SKEW = 64.0
AUTO_SPARSE = 3.0


def _degree_skewed(ptr: np.ndarray, factor: float | None = None) -> bool:
    """Max degree > ``factor`` (default AUTO_SKEW) x mean degree of the vertices behind ``ptr`` (O(n), no
    conversion)."""
    factor = AUTO_SKEW if factor is None else factor
    n = len(ptr) - 1
    nnz = int(ptr[-1]) if n > 0 else 0
    if nnz == 0:
        return False
    return float(np.diff(ptr).max()) > factor * nnz / n


def _mean_degree_below(nnz: int, n_rows: int, n_cols: int, bound: float) -> bool:
    """Mean degree ``2 nnz / (n_rows + n_cols)`` of the bipartite graph below ``bound``."""
    return 2.0 * nnz < bound * (n_rows + n_cols)


def auto_cpu_method(ptr: np.ndarray, n_rows: int, n_cols: int) -> str:
    """The CPU method of ``method="auto"`` from the adjacency ``ptr`` of either side."""
    nnz = int(ptr[-1]) if len(ptr) > 1 else 0
    if _degree_skewed(ptr):
        return "push-relabel"
    if _mean_degree_below(nnz, n_rows, n_cols, AUTO_SPARSE):
        return "pothen-fan"
    return "hopcroft-karp"


def _cpu_rule(graph: BipartiteGraph) -> str:
    return auto_cpu_method(graph.row_ptr, graph.n_rows, graph.n_cols)


# backend="auto" sends a graph to G-PR from this many edges (H100, 2026-11-23, results/gpu_e2e/ and
# docs/notes/gpr.md): the public GPU call costs a fixed ~8 ms (CSC build on the device, launches), so the
# CPU wins below (delaunay_n15 2.0 vs 8.4 ms, power 1.0 vs 8.1 ms) and G-PR above (soc-Slashdot0902, 0.9 M
# edges: 9.9 vs 26 ms; ego-Twitter 25.5 vs 90 ms). The CPU figures are earlier H200 push-relabel timings.
GPU_MIN_NNZ = 400_000
# From GPU_MIN_NNZ, G-PR wins on graphs with hubs (largest row degree > AUTO_GPU_HUBS x the mean: Slashdot, ego-
# Twitter, cit-HepPh, kron) and on very sparse ones (mean degree below AUTO_GPU_SPARSE: road networks, moscow-roads
# 25 vs 90 ms); on regular meshes of mean degree >= 4 the CPU's greedy + Hopcroft-Karp finishes first until ~16 M
# edges (H200 and its host, 2026-11-27, results/gpu_e2e/gpu-h200-2026-11-27f.md: delaunay_n20 CPU 45 vs GPU 55 ms,
# rgg_n20 38 vs 40 ms; delaunay_n22, 25 M edges, 222 vs 137 ms; delaunay_n21, 12.6 M, even in gpr_paper.md)
GPU_MIN_NNZ_REGULAR = 16_000_000
AUTO_GPU_HUBS = 16.0
AUTO_GPU_SPARSE = 4.0


def _gpu_rule(graph: BipartiteGraph) -> str | None:
    """G-PR for ``backend="auto"`` (a warm process): from GPU_MIN_NNZ edges on graphs with hubs or of mean
    degree below AUTO_GPU_SPARSE, from GPU_MIN_NNZ_REGULAR edges on the others (O(n) features, no conversion)."""
    nnz = graph.nnz
    if nnz < GPU_MIN_NNZ:
        return None
    if (nnz >= GPU_MIN_NNZ_REGULAR or _degree_skewed(graph.row_ptr, AUTO_GPU_HUBS)
            or _mean_degree_below(nnz, graph.n_rows, graph.n_cols, AUTO_GPU_SPARSE)):
        return "push-relabel"
    return None


# ... once the process has used the GPU. A fresh process's first GPU call costs ~1.4 s more (CUDA context and
# the kernels from the on-disk cache; results/gpu_e2e/first-call-h100-2026-11-23e.md), so before that auto
# needs a graph where the saving covers it: kron_s20 (31 M nnz) saves ~0.9 s (CPU 1.1 s on 2 cores,
# results/matching/cpu.md; GPU <= 0.25 s), short of it; from 64 M nnz (extrapolated, linear in nnz) on.
GPU_COLD_NNZ = 64_000_000


def _gpu_push_relabel(graph: BipartiteGraph, init: str, **options) -> tuple:
    """G-PR (``_gpu_push_relabel.gpr_match``, which validates its options); ``init="auto"`` is its own rule."""
    from ._gpu_push_relabel import gpr_match  # noqa: PLC0415 - loads numba.cuda on use only

    t0 = time.perf_counter()
    row_match, col_match, init_card, stats = gpr_match(graph, init=init, **options)
    row_match = np.asarray(row_match, dtype=graph.itype)
    col_match = np.asarray(col_match, dtype=graph.itype)
    stats = dict(stats)
    stats["seconds_call"] = time.perf_counter() - t0  # the whole driver call (its stages: seconds_*)
    return row_match, col_match, int(np.count_nonzero(row_match >= 0)), int(init_card), stats


TABLE = MethodTable(
    family="bipartite_matching",
    methods=(
        Method("hopcroft-karp", cpu=solve_hopcroft_karp, options=("duff_wiberg", "pf_switch"),
               check=check_hopcroft_karp_options),
        Method("push-relabel", cpu=solve_push_relabel, gpu=_gpu_push_relabel, options=("relabel_freq",),
               check=check_push_relabel_options, gpu_alias="gpr"),
        Method("pothen-fan", cpu=solve_pothen_fan, options=("fairness",), check=check_pothen_fan_options),
    ),
    cpu_rule=_cpu_rule,
    gpu_rule=_gpu_rule,
    common=("cover",),
    cold_gpu_rule=lambda graph: graph.nnz >= GPU_COLD_NNZ,
)
