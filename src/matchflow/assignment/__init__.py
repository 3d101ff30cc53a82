"""Dense linear assignment (CPU: Jonker-Volgenant, Hungarian, auction; GPU: Lopes et al. Hungarian)."""

from ._api import assignment, linear_sum_assignment
from ._api_sparse import min_weight_full_bipartite_matching

__all__ = ["assignment", "linear_sum_assignment", "min_weight_full_bipartite_matching"]
