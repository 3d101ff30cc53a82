"""matchflow: matching, assignment, max-flow and min-cost flow solvers on NVIDIA GPUs, with a fast CPU path.

Importing matchflow never touches CUDA; GPU entry points fail only when called.
"""

from __future__ import annotations

from . import generators, gpu, io, verify
from ._backend import GPUUnavailableError, gpu_available
from ._graph import BipartiteGraph, FlowNetwork, Graph, as_bipartite, as_graph
from ._info import info
from ._progress import precompile
from ._results import AssignmentResult, MatchingResult
from ._version import __version__
from .assignment import assignment, linear_sum_assignment, min_weight_full_bipartite_matching
from .batch import batch_linear_sum_assignment
from .flow import FlowResult, GridCutResult, grid_cut, max_flow, maximum_flow
from .matching import bipartite_matching, maximum_bipartite_matching
from .mcf import MinCostFlowResult, TransportResult, max_flow_min_cost, min_cost_flow, transport
from .wmatching import WeightedMatchingResult, weighted_matching

__all__ = [
    "__version__",
    "AssignmentResult",
    "BipartiteGraph",
    "FlowNetwork",
    "FlowResult",
    "GridCutResult",
    "grid_cut",
    "max_flow",
    "maximum_flow",
    "GPUUnavailableError",
    "Graph",
    "MatchingResult",
    "as_bipartite",
    "as_graph",
    "assignment",
    "batch_linear_sum_assignment",
    "bipartite_matching",
    "generators",
    "gpu",
    "gpu_available",
    "info",
    "io",
    "linear_sum_assignment",
    "min_weight_full_bipartite_matching",
    "maximum_bipartite_matching",
    "max_flow_min_cost",
    "min_cost_flow",
    "MinCostFlowResult",
    "transport",
    "TransportResult",
    "precompile",
    "verify",
    "WeightedMatchingResult",
    "weighted_matching",
]
