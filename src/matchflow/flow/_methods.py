"""The flow family's method tables (see :mod:`matchflow._methods`): ``TABLE`` for ``max_flow``, ``GRID_TABLE`` for
``grid_cut`` (the same names, options and rules; a grid row's solves are grid methods).

``TABLE``: every solve takes ``(net: FlowNetwork, **options)`` and returns ``(flow_value, per-arc flow, residual
caps, tol, stats)``; its policy and option check live beside its kernel (``_cpu_<algo>.py`` / ``_gpu_<algo>.py``).
``GRID_TABLE``: every solve takes ``(problem: GridProblem, **options)`` and returns ``(labels, value, stats,
flows)``: ``flows`` None when the method certified its own answer, else its flow ``(fs, ft, fe)`` on
``problem.grid`` for the door's grid certificate (:func:`._verify_grid.certify_cut`). A general max-flow
method becomes a grid method through :func:`on_network` (on the grid's network).

The rules (one copy each, read by both tables) take a :class:`~matchflow.FlowNetwork` or a :class:`GridProblem`.
``method="auto"`` on the CPU (:func:`_cpu_rule`): Boykov-Kolmogorov on grid / vision cuts, pseudoflow elsewhere.
``backend="auto"``: the GPU push-relabel where :func:`_gpu_rule` says it was measured faster end to end, and in a
process that has not used the GPU yet only on grids of ``GPU_GRID_COLD`` points (:func:`_cold_gpu_rule`).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from .._graph import FlowNetwork
from .._methods import Method, MethodTable
from . import _gpu_push_relabel
from ._cpu_bk import solve_bk
from ._cpu_exact import solve_network
from ._cpu_grid_bk import bk_arrays, solve_grid_bk
from ._cpu_pseudoflow import check_pseudoflow_options, solve_pseudoflow
from ._cpu_push_relabel import _bfs_dev, check_push_relabel_options, solve_push_relabel
from ._gpu_grid import solve_grid_gpu
from ._prepare_grid import GridProblem
from ._verify_grid import network_flows

__all__ = ["GRID_TABLE", "TABLE", "GridProblem", "sink_depth"]


GPU_GRID_MIN = 512 * 512  # grid_cut, backend="auto": the GPU from this many grid points on


def _gpu_rule(problem: FlowNetwork | GridProblem) -> str | None:
    """``backend="auto"``: the GPU push-relabel only where it was measured faster end to end
    (H100, the public call from host arrays, against our best CPU method on the same host).

    Grid cuts (or batches of grids) of >= 512² points in all (results/flow/gpu-h100-2026-11-23b.md; CPU: our
    BK on a 2-core host): 512² image-like 5.5 ms vs 89 ms, 1000² random 37 ms vs 1.7 s, a batch of 256 64²
    images 15 ms vs 0.98 s, 4-16 MP and 200³ volumes 87-239x; smaller grids were not measured (launch-bound:
    kept on the CPU). General networks (the persistent loop, results/flow/gpu-general-h100-2026-11-23e.md;
    CPU: our pseudoflow and push-relabel on the device host's Xeon, the faster of the two): networks of >=
    ``GPU_NETWORK_MIN_ARCS`` (1.5M) arcs that are not grid-cut shaped: random n=200k m=1.6M 0.21 s vs 0.34 s,
    n=1.25M m=10M 1.99 s vs 2.61 s (the solve alone 24 / 57 ms: the rest is FlowNetwork's build and the
    per-arc flow on the host). Below, the CPU: the DIMACS files 4-26 ms vs 0.3-3 ms, ak-4102 0.26 s vs
    0.064 s, level graphs of 196k-786k arcs 0.27-1.37x (deep ones lose: BFS thousands of levels deep). Deep
    networks above 1.5M arcs and grid-shaped CSR networks were not measured on the GPU, so the rule also asks
    for a shallow network: the sink's residual BFS at zero flow at most ``GPU_NETWORK_MAX_DEPTH`` levels deep
    (one CPU pass over the arcs, a few % of the call; the random networks measured: 8-12 levels per global
    relabel; the deep ones that lost: ~300 (256x256 level graph) to 3,000 (4096x64) levels per relabel)."""
    if isinstance(problem, GridProblem):
        return "push-relabel" if problem.points >= GPU_GRID_MIN else None
    if (problem.m >= _gpu_push_relabel.GPU_NETWORK_MIN_ARCS and not _grid_cut_shaped(problem)
            and sink_depth(problem) <= GPU_NETWORK_MAX_DEPTH):
        return "push-relabel"
    return None


# a process that has not used the GPU yet (its first call ~1.4 s more: CUDA context, kernels from the cache,
# results/gpu_e2e/first-call-h100-2026-11-23e.md): grid cuts from 4 M points (4 MP: 1.9-3.5 s on our CPU vs
# 31-44 ms; 512² images save ~80 ms, 1000² random ~1.7 s on 2 loaded cores but image-like grids of that size
# less); general networks never (10 M arcs saves 0.6 s: results/flow/gpu-general-h100-2026-11-23e.md)
GPU_GRID_COLD = 4_000_000
GPU_NETWORK_MAX_DEPTH = 64  # backend="auto": deeper networks stay on the CPU (the GPU BFS is a grid sync per level)


def sink_depth(net: FlowNetwork) -> int:
    """Levels of the backward BFS from the sink over the arcs with capacity (zero flow; the source skipped)."""
    n = net.n
    label = np.full(n, 2 * n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    count = _bfs_dev(net.sink, 0, n, net.source, net.indptr, net.head, net.rev, net.cap, label, queue,
                     net.cap.dtype.type(0))
    return int(label[queue[count - 1]])


def _cold_gpu_rule(problem: FlowNetwork | GridProblem) -> bool:
    """``backend="auto"`` before this process used the GPU: grid cuts from ``GPU_GRID_COLD`` points, no network."""
    return isinstance(problem, GridProblem) and problem.points >= GPU_GRID_COLD


def _terminal_arcs(problem: FlowNetwork | GridProblem) -> tuple[int, int]:
    """(arcs at ``s`` and ``t``, inner vertices): a network's residual degrees, a grid's non-zero unaries."""
    if isinstance(problem, GridProblem):
        a = problem.arrays
        return int(np.count_nonzero(a.src) + np.count_nonzero(a.snk)), a.src.size
    ip = problem.indptr
    return int(ip[problem.source + 1] - ip[problem.source] + ip[problem.sink + 1] - ip[problem.sink]), problem.n - 2


def _grid_cut_shaped(problem: FlowNetwork | GridProblem) -> bool:
    """``s`` and ``t`` together touch at least half the vertices (the t-links of a vision energy, most
    ``grid_cut`` inputs)."""
    touching, inner = _terminal_arcs(problem)
    return touching >= inner / 2


def _cpu_rule(problem: FlowNetwork | GridProblem) -> str:
    """``method="auto"`` on the CPU: Boykov-Kolmogorov on grid-cut shaped problems, pseudoflow elsewhere; measured
    in docs/notes/flow.md and results/flow/cpu-general-2026-11-23b.md (BK beat our HPF on every grid there,
    1.1-1.8x on the same arc lists; HPF beat our push-relabel 3-7x on the AK networks and 2x on the wide level
    graph, and was level with it elsewhere)."""
    return "boykov-kolmogorov" if _grid_cut_shaped(problem) else "pseudoflow"


def on_network(flow_solve: Any) -> Any:
    """The grid method of a general max-flow solve ``flow_solve(net, **options)`` (a row of ``max_flow``'s table):
    it runs on the grid's network (a batch: ONE network, no arc across items), the float answer made sound as
    :func:`._api.max_flow` does (:func:`._cpu_exact.solve_network`); the flow goes to the door's grid certificate."""

    def solve(problem: Any, **options: Any) -> tuple:
        t0 = time.perf_counter()
        net, keep = problem.network
        t1 = time.perf_counter()
        _, flow, side, _, _, stats = solve_network(net, flow_solve, options, flow_solve, options)
        stats.update(seconds_build=t1 - t0, seconds_solve=time.perf_counter() - t1)
        if problem.batch is not None:
            stats["batch"] = problem.batch
        labels = side[: net.n - 2].reshape(problem.arrays.src.shape)
        return labels, None, stats, network_flows(problem.grid, flow, keep)

    return solve


_PUSH_RELABEL = Method("push-relabel", cpu=solve_push_relabel, gpu=_gpu_push_relabel.push_relabel_gpu,
                       options=("relabel_freq", "variant"), check=check_push_relabel_options,
                       auto_gpu=lambda p: _gpu_rule(p) is not None)
_PSEUDOFLOW = Method("pseudoflow", cpu=solve_pseudoflow, options=("variant", "buckets", "init"),
                     check=check_pseudoflow_options)

TABLE = MethodTable(
    family="max_flow",
    methods=(_PUSH_RELABEL, Method("boykov-kolmogorov", cpu=solve_bk), _PSEUDOFLOW),
    cpu_rule=_cpu_rule,
    gpu_rule=_gpu_rule,
    cold_gpu_rule=_cold_gpu_rule,
)

# grid_cut: the same names, options and rules; push-relabel's GPU twin is the grid push-relabel (implicit neighbours)
GRID_TABLE = MethodTable(
    family="grid_cut",
    methods=(dataclasses.replace(_PUSH_RELABEL, cpu=on_network(solve_push_relabel), gpu=solve_grid_gpu),
             Method("boykov-kolmogorov", cpu=solve_grid_bk),
             dataclasses.replace(_PSEUDOFLOW, cpu=on_network(solve_pseudoflow))),
    cpu_rule=_cpu_rule,
    gpu_rule=_gpu_rule,
    cold_gpu_rule=_cold_gpu_rule,
)
GRID_FALLBACK = bk_arrays  # the exact CPU grid path: a float grid answer not proved is solved again by it
