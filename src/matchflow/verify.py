"""Certificate checkers.

* :func:`verify_matching` — a matching is valid, and maximum when a König vertex cover
  of the same size covers every edge.
* :func:`konig_cover` — the König vertex cover of a maximum matching (the certificate itself).
* :func:`verify_assignment` — an assignment is optimal when the dual potentials are
  feasible (reduced costs >= 0), tight on assigned pairs, and primal cost == dual value.
* :func:`verify_batch_assignment` — every item of a batched assignment, by the same duality.
* :func:`verify_flow` — a flow is feasible (capacities, conservation) and maximum when its value equals
  the capacity of the returned minimum cut.
* :func:`verify_min_cost_flow` — a flow is feasible (bounds, conservation = demand) and optimal when the node
  potentials make every residual arc's reduced cost non-negative.
"""

from .assignment._verify import verify_assignment  # noqa: F401
from .assignment._verify_sparse import verify_sparse_assignment  # noqa: F401
from .batch._verify import verify_batch_assignment  # noqa: F401
from .flow._verify import verify_flow  # noqa: F401
from .matching._verify import verify_matching  # noqa: F401
from .matching._verify_cover import konig_cover  # noqa: F401
from .mcf._verify import verify_min_cost_flow  # noqa: F401
from .wmatching._verify import verify_weighted_matching  # noqa: F401

__all__ = ["verify_matching", "verify_assignment", "verify_sparse_assignment", "verify_batch_assignment",
           "verify_flow", "verify_min_cost_flow", "verify_weighted_matching", "konig_cover"]
