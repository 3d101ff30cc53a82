"""File formats: Matrix Market, METIS, DIMACS max-flow, edge lists, matchings."""

def read(path, **kwargs):
    raise NotImplementedError("matchflow.io.read is being written")


def write(path, obj, **kwargs):
    raise NotImplementedError("matchflow.io.write is being written")
