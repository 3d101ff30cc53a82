"""The min-cost flow family's method table (see :mod:`matchflow._methods`).

Every solve takes ``(problem: Prepared, **options)`` (a feasible problem: the door checks) and returns
``(flow, potential, stats)`` on the integer costs ``problem.icost`` (:mod:`._prepare`). One method so far:
``"cost-scaling"`` (Goldberg's CS2 refine on the CPU); no GPU twin yet, so ``backend="auto"`` runs the CPU.
"""

from __future__ import annotations

from .._methods import Method, MethodTable
from ._cpu_cost_scaling import check_cost_scaling_options, solve_cost_scaling

__all__ = ["TABLE"]

TABLE = MethodTable(
    family="min_cost_flow",
    methods=(Method("cost-scaling", cpu=solve_cost_scaling,
                    options=("alpha", "price_updates", "lookahead", "price_refine"), check=check_cost_scaling_options),),
    cpu_rule=lambda problem: "cost-scaling",
    gpu_rule=lambda problem: None,  # no GPU twin yet
)
