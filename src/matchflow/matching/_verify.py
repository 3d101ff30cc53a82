"""Certificate checker for bipartite matchings (vectorised NumPy, independent of the solvers).

A matching is *valid* when the arrays are in range and consistent, every matched pair
is an edge and no vertex is used twice. It is *maximum* when a vertex cover (König)
of the same size covers every edge: any matching has at most one edge per cover
vertex, so |M| <= |cover| = |M|.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._graph import BipartiteGraph, as_bipartite
from .._results import MatchingResult

__all__ = ["MatchingReport", "verify_matching"]


@dataclass
class MatchingReport:
    """Outcome of :func:`verify_matching`.

    ``maximum`` is True/False when a cover was checked, None when no cover was given.
    """

    valid: bool
    maximum: bool | None
    cardinality: int
    problems: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.valid and self.maximum is not False


def _as_index_vector(name: str, a: Any, length: int, bound: int, bound_name: str, problems: list[str]):
    a = np.asarray(a)
    if a.ndim != 1 or len(a) != length:
        problems.append(f"{name} must be a 1-D array of length {length}, got shape {a.shape}")
        return None
    if a.size and not np.issubdtype(a.dtype, np.integer):
        problems.append(f"{name} must hold integers, got dtype {a.dtype}")
        return None
    a = a.astype(np.int64, copy=False)
    bad = np.flatnonzero((a < -1) | (a >= bound))
    if bad.size:
        k = int(bad[0])
        problems.append(f"{name}[{k}] = {int(a[k])} is out of range (-1 or 0..{bound_name}-1 = {bound - 1})")
        return None
    return a


def _as_mask(name: str, a: Any, length: int, problems: list[str]):
    a = np.asarray(a)
    if a.ndim != 1 or len(a) != length:
        problems.append(f"{name} must be a boolean mask of length {length}, got shape {a.shape}")
        return None
    if a.dtype != np.bool_:
        if a.size and not np.all((a == 0) | (a == 1)):
            problems.append(f"{name} must be a boolean mask, got values other than 0/1 (dtype {a.dtype})")
            return None
        a = a.astype(np.bool_)
    return a


def verify_matching(
    graph: Any,
    row_match: Any,
    col_match: Any = None,
    *,
    cover_rows: Any = None,
    cover_cols: Any = None,
    raise_on_error: bool = True,
    explicit_zeros: bool = False,
) -> MatchingReport:
    """Check a bipartite matching and, given a vertex cover, that it is maximum.

    Parameters
    ----------
    graph : anything :func:`matchflow.bipartite_matching` accepts.
    row_match : column matched to each row (-1 unmatched), or a :class:`MatchingResult`
        (then ``col_match`` and the cover are taken from it unless given).
    col_match : row matched to each column; derived from ``row_match`` when None.
    cover_rows, cover_cols : boolean masks of a vertex cover (e.g. König's).
    raise_on_error : raise ``ValueError`` with the first problem instead of returning
        a report with ``valid=False`` / ``maximum=False``.
    explicit_zeros : whether stored zeros of a sparse ``graph`` are edges.

    Returns
    -------
    MatchingReport(valid, maximum, cardinality, problems)

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow.verify import verify_matching
    >>> A = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1]])
    >>> rep = verify_matching(A, np.array([1, 0, 2]), raise_on_error=False)
    >>> rep.valid, rep.cardinality
    (True, 3)
    >>> verify_matching(A, np.array([0, 0, -1]), raise_on_error=False).valid  # column 0 used twice
    False
    """
    if isinstance(row_match, MatchingResult):
        res = row_match
        row_match = res.row_match
        if col_match is None:
            col_match = res.col_match
        if cover_rows is None and cover_cols is None:
            cover_rows, cover_cols = res.cover_rows, res.cover_cols
    g = graph if isinstance(graph, BipartiteGraph) else as_bipartite(graph, "graph", explicit_zeros=explicit_zeros)
    problems: list[str] = []
    card = 0
    rm = _as_index_vector("row_match", row_match, g.n_rows, g.n_cols, "n_cols", problems)
    cm = None
    if col_match is not None:
        cm = _as_index_vector("col_match", col_match, g.n_cols, g.n_rows, "n_rows", problems)
    if rm is not None and (col_match is None or cm is not None):
        rows = np.flatnonzero(rm >= 0)
        cols = rm[rows]
        card = int(rows.size)
        # no column used twice
        counts = np.bincount(cols, minlength=g.n_cols) if g.n_cols else np.zeros(0, dtype=np.int64)
        twice = np.flatnonzero(counts > 1)
        if twice.size:
            j = int(twice[0])
            rr = rows[cols == j][:2]
            problems.append(f"column {j} is matched to more than one row (rows {int(rr[0])} and {int(rr[1])})")
        if cm is not None:
            expect = np.full(g.n_cols, -1, dtype=np.int64)
            if not twice.size:
                expect[cols] = rows
            diff = np.flatnonzero(expect != cm)
            if diff.size and not twice.size:
                j = int(diff[0])
                problems.append(
                    f"row_match and col_match disagree at column {j}: col_match[{j}] = {int(cm[j])}, "
                    f"but row_match gives {int(expect[j])}"
                )
        # every matched pair is an edge: CSR order sorts the keys row * n_cols + col
        if card:
            er, ec = g.edges()
            keys = er.astype(np.int64) * g.n_cols + ec
            want = rows.astype(np.int64) * g.n_cols + cols
            at = np.searchsorted(keys, want)
            ok = at < len(keys)
            ok[ok] = keys[at[ok]] == want[ok]
            bad = np.flatnonzero(~ok)
            if bad.size:
                k = int(bad[0])
                problems.append(f"matched pair (row {int(rows[k])}, column {int(cols[k])}) is not an edge of the graph")
    valid = not problems
    maximum: bool | None = None
    if cover_rows is not None or cover_cols is not None:
        if cover_rows is None or cover_cols is None:
            problems.append("cover_rows and cover_cols must be given together")
            maximum = False
        else:
            cr = _as_mask("cover_rows", cover_rows, g.n_rows, problems)
            cc = _as_mask("cover_cols", cover_cols, g.n_cols, problems)
            maximum = False
            if cr is not None and cc is not None:
                size = int(cr.sum()) + int(cc.sum())
                er, ec = g.edges()
                uncovered = np.flatnonzero(~(cr[er] | cc[ec]))
                if uncovered.size:
                    k = int(uncovered[0])
                    problems.append(f"edge (row {int(er[k])}, column {int(ec[k])}) is not covered by the vertex cover")
                elif valid and size != card:
                    problems.append(f"vertex cover size {size} differs from the matching cardinality {card}")
                else:
                    maximum = valid
    if problems and raise_on_error:
        raise ValueError(f"invalid matching: {problems[0]}")
    return MatchingReport(valid=valid, maximum=maximum, cardinality=card, problems=problems)
