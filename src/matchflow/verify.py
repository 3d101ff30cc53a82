"""Certificate checkers.

* :func:`verify_matching` — a matching is valid, and maximum when a König vertex cover
  of the same size covers every edge.
* :func:`verify_assignment` — an assignment is optimal when the dual potentials are
  feasible (reduced costs >= 0), tight on assigned pairs, and primal cost == dual value.
"""

from .assignment._verify import verify_assignment  # noqa: F401
from .matching._verify import verify_matching  # noqa: F401
from .wmatching._verify import verify_weighted_matching  # noqa: F401

__all__ = ["verify_matching", "verify_assignment", "verify_weighted_matching"]
