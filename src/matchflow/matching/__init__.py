"""Maximum-cardinality bipartite matching (CPU: push-relabel, Hopcroft-Karp; GPU: G-PR)."""

from ._api import bipartite_matching, maximum_bipartite_matching

__all__ = ["bipartite_matching", "maximum_bipartite_matching"]
