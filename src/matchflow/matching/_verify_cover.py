"""König minimum vertex cover from a maximum matching (CPU, Numba).

König's theorem, constructive form: let ``Z`` be the set of vertices reachable from the
unmatched rows by alternating paths (row -> column along any edge, column -> row along
its matching edge). Then ``(V_R \\ Z) ∪ (V_C ∩ Z)`` is a vertex cover of size |M|
exactly when ``M`` is maximum; it certifies maximality (see :mod:`._verify`).
"""

from __future__ import annotations

import numpy as np

from .._graph import BipartiteGraph, as_bipartite
from .._graph._alternating import konig_cover_kernel

__all__ = ["konig_cover_kernel", "konig_cover"]


def konig_cover(graph, row_match: np.ndarray, col_match: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks ``(cover_rows, cover_cols)`` of the König cover of a maximum matching.

    ``graph`` is anything :func:`matchflow.as_bipartite` accepts. Raises RuntimeError when the
    matching is not maximum (an augmenting path exists).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow.verify import konig_cover
    >>> A = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 0]])  # a maximum matching has 2 edges
    >>> cover_rows, cover_cols = konig_cover(A, np.array([1, 0, -1]), np.array([1, 0, -1]))
    >>> int(cover_rows.sum() + cover_cols.sum())  # as many vertices as matched edges
    2

    References
    ----------
    .. [1] König, D., "Gráfok és mátrixok", Matematikai és Fizikai Lapok 38, 116-119, 1931.
    .. [2] Hopcroft, J. E., and Karp, R. M., "An n^{5/2} algorithm for maximum matchings in bipartite graphs", SIAM
           Journal on Computing 2(4), 225-231, 1973. DOI:10.1137/0202019
    """
    if not isinstance(graph, BipartiteGraph):
        graph = as_bipartite(graph, "graph")
    cover_rows = np.empty(graph.n_rows, dtype=np.bool_)
    cover_cols = np.empty(graph.n_cols, dtype=np.bool_)
    status = konig_cover_kernel(graph.row_ptr, graph.col_ind, row_match, col_match, cover_rows, cover_cols)
    if status != 0:
        raise RuntimeError("konig_cover: the matching is not maximum (an unmatched column is reachable "
                           "from an unmatched row by an alternating path)")
    return cover_rows, cover_cols
