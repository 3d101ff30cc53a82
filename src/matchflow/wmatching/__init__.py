"""Half-approximate maximum-weight matching of general graphs: Suitor, Locally-Dominant, greedy."""

from ._api import max_weight_matching_approx, weighted_matching
from ._result import WeightedMatchingResult

__all__ = ["WeightedMatchingResult", "max_weight_matching_approx", "weighted_matching"]
