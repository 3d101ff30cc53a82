"""Batched linear assignment: many small (ragged) problems per call, CPU (Numba prange) and GPU."""

from ._api import batch_linear_sum_assignment

__all__ = ["batch_linear_sum_assignment"]
