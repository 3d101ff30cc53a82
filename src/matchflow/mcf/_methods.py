"""The min-cost flow family's method table (see :mod:`matchflow._methods`).

Every solve takes ``(problem: Prepared, **options)`` (a feasible problem: the door checks) and returns
``(flow, potential, stats)`` on the integer costs ``problem.icost`` (:mod:`._prepare`). Two methods, CPU only (no
GPU twin yet, so ``backend="auto"`` runs the CPU): ``"cost-scaling"`` (Goldberg's CS2 refine,
:mod:`._cpu_cost_scaling`) and ``"network-simplex"`` (the primal network simplex with block search,
:mod:`._cpu_network_simplex`).
"""

from __future__ import annotations

from .._methods import Method, MethodTable
from ._cpu_cost_scaling import check_cost_scaling_options, solve_cost_scaling
from ._cpu_network_simplex import check_network_simplex_options, solve_network_simplex

__all__ = ["TABLE"]

TABLE = MethodTable(
    family="min_cost_flow",
    methods=(Method("cost-scaling", cpu=solve_cost_scaling, options=("alpha", "price_updates", "lookahead"), check=check_cost_scaling_options),
             Method("network-simplex", cpu=solve_network_simplex, options=("block_size",),
                    check=check_network_simplex_options)),
    cpu_rule=lambda problem: "cost-scaling",
    gpu_rule=lambda problem: None,  # no GPU twin yet
)
