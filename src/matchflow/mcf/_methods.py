"""The min-cost flow family's method table (see :mod:`matchflow._methods`).

Every solve takes ``(problem: Prepared, **options)`` (a feasible problem: the door checks) and returns
``(flow, potential, stats)`` on the integer costs ``problem.icost`` (:mod:`._prepare`). Two methods:
``"cost-scaling"`` (Goldberg's CS2 refine, :mod:`._cpu_cost_scaling`; its GPU twin, a parallel push-relabel refine
with a device global price update, :mod:`._gpu_cost_scaling`) and ``"network-simplex"`` (the primal network simplex
with block search, :mod:`._cpu_network_simplex`). ``method="auto"``: :func:`cpu_rule` (network simplex on small
networks and on dense medium ones, as measured); ``backend="auto"``: the GPU twin where :func:`gpu_rule` says it
was measured faster, in a process that has used the GPU already (a fresh process's first GPU call costs more than
the measured saving).
"""

from __future__ import annotations

from .._methods import Method, MethodTable
from ._cpu_cost_scaling import check_cost_scaling_options, solve_cost_scaling
from ._cpu_network_simplex import check_network_simplex_options, solve_network_simplex
from ._gpu_cost_scaling import solve_cost_scaling_gpu

__all__ = ["TABLE", "cpu_rule", "gpu_rule", "NS_MAX_N", "NS_DENSE_MAX_N", "NS_DENSE_RATIO", "GPU_MIN_N",
           "GPU_MAX_RATIO"]

NS_MAX_N = 5000  # network simplex up to this many nodes, any density
NS_DENSE_MAX_N = 10_000  # ... and up to this many where the network is dense:
NS_DENSE_RATIO = 16  # m >= 16 n


def cpu_rule(problem) -> str:
    """``method="auto"`` on the CPU: ``"network-simplex"`` on small or dense-and-medium networks, ``"cost-scaling"``
    elsewhere. Measured 2026-11-29, dev box, 2 shared cores, public call warm, median of 3-5 runs in one process,
    network simplex vs cost scaling (docs/notes/mcf.md, "Network simplex"):

    * dense transportation ``transport_instance(k, seed=k)``, n = 2k: k = 100: 2.9 vs 21.6 ms; 300: 36 vs 205 ms;
      1000: 0.73 vs 7.9 s; 2000 (n = 4000, 4M arcs): 1.28 vs 17.4 s (POT ``ot.emd`` 1.23 s, OR-Tools 4.35 s);
    * NETGEN-like m = 8n: n = 1000: 39 vs 74 ms; 3000: 100 vs 140 ms; but 10^4: 0.40 vs 0.31 s (1.1 vs 0.98 s in
      another run); 3 10^4: 3.3 vs 2.0 s; 10^5: 25.5 vs 8.9 s (one run);
    * NETGEN-like m = 32n: n = 1000: 46 vs 97 ms; 3000: 203 vs 433 ms; 10^4: 0.95 vs 1.53 s; but 3 10^4: 6.3 vs
      4.9 s;
    * GRIDGEN-like / GOTO-like (degree 8) at 32 x 32: 19 vs 29 ms / 23 vs 51 ms (network simplex also wins GRIDGEN
      at 100 x 100 and 173 x 173 and GOTO at 100 x 100, and loses GOTO at 173 x 173: 13.8 vs 10.4 s; left to cost
      scaling by this rule).

    Network simplex's pivots grow about as n (NETGEN: 54k at 10^4, 573k at 10^5, 96% degenerate) and each costs
    more as the tree deepens and outgrows the caches: past ~10^4 sparse nodes cost scaling wins, by 3x at 10^5."""
    n, m = problem.n, problem.m
    return "network-simplex" if n <= NS_MAX_N or (n <= NS_DENSE_MAX_N and m >= NS_DENSE_RATIO * n) else "cost-scaling"


GPU_MIN_N = 100_000  # the GPU twin from this many nodes ...
GPU_MAX_RATIO = 16  # ... on sparse networks, m <= 16 n (measured at m = 8 n)


def gpu_rule(problem) -> str | None:
    """``backend="auto"``: ``"cost-scaling"`` on the GPU for sparse networks of at least :data:`GPU_MIN_N` nodes, else
    None (the CPU). Measured 2026-11-29 on an H200 with its 16-core host, whole call from host arrays, warm, peers in
    the same run (results/mcf/h200-2026-11-29.md), ms, OR-Tools / our CPU / our GPU: NETGEN-like 10^5 nodes 2,639 /
    2,681 / 2,248; GRIDGEN-like 316 x 316 2,629 / 2,857 / 2,215; GOTO-like 316 x 316 22,145 / 26,947 / 27,602 (the
    GPU 2% slower); at 10^4 nodes the GPU is 1.1-1.9x slower (NETGEN 183 / 307, GRIDGEN 273 / 320, GOTO 926 /
    1,012), at 10^3 4-7x, and on dense transportation networks 10x (1000 x 1000: 216 / 2,579)."""
    n, m = problem.n, problem.m
    return "cost-scaling" if n >= GPU_MIN_N and m <= GPU_MAX_RATIO * n else None


TABLE = MethodTable(
    family="min_cost_flow",
    methods=(Method("cost-scaling", cpu=solve_cost_scaling, gpu=solve_cost_scaling_gpu,
                    options=("alpha", "price_updates", "lookahead", "price_refine"), check=check_cost_scaling_options,
                    auto_gpu=lambda p: gpu_rule(p) is not None),
             Method("network-simplex", cpu=solve_network_simplex, options=("block_size",),
                    check=check_network_simplex_options)),
    cpu_rule=cpu_rule,
    gpu_rule=gpu_rule,
    cold_gpu_rule=lambda problem: False,  # the measured saving (0.4-0.6 s at 10^5 nodes) < a first GPU call's cost
)
