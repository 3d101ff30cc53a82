"""Public matching API (being written: see docs/DEVELOPING.md)."""


def bipartite_matching(graph, *, method="auto", backend="auto", init="karp-sipser", **options):
    raise NotImplementedError("bipartite_matching is being written")


def maximum_bipartite_matching(graph, perm_type="row"):
    raise NotImplementedError("maximum_bipartite_matching is being written")
