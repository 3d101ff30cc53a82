"""Maximum-cardinality bipartite matching (CPU: push-relabel, Pothen-Fan+; GPU: G-PR)."""

from ._api import bipartite_matching, maximum_bipartite_matching
from ._cpu_init import initial_matching

__all__ = ["bipartite_matching", "maximum_bipartite_matching", "initial_matching"]
