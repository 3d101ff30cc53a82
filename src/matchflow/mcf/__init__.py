"""Min-cost flow: :func:`min_cost_flow`, :func:`max_flow_min_cost`, :func:`transport` (CPU cost scaling)."""

from ._api import METHODS, max_flow_min_cost, min_cost_flow, transport
from ._result import MinCostFlowResult, TransportResult

__all__ = ["METHODS", "MinCostFlowResult", "TransportResult", "max_flow_min_cost", "min_cost_flow", "transport"]
