"""Dense linear assignment (CPU: Jonker-Volgenant, Hungarian, auction; GPU: Lopes et al. Hungarian)."""

from ._api import assignment, linear_sum_assignment

__all__ = ["assignment", "linear_sum_assignment"]
