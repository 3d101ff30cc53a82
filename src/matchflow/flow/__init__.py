"""Maximum s-t flow and minimum s-t cut: general graphs (:func:`max_flow`, the SciPy drop-in
:func:`maximum_flow`) and grid graph cuts (:func:`grid_cut`), each with its certificate."""

from ._api import METHODS, grid_cut, max_flow, maximum_flow
from ._prepare_grid import grid_energy, grid_network, offsets, potts_weights, unary_from_intensity
from ._result import FlowResult, GridCutResult
from ._verify import verify_flow

__all__ = ["FlowResult", "GridCutResult", "METHODS", "grid_cut", "grid_energy", "grid_network", "max_flow",
           "maximum_flow", "offsets", "potts_weights", "unary_from_intensity", "verify_flow"]
