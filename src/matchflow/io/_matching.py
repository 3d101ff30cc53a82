"""A small text format for matchings (``.matching``), Matrix Market in spirit::

    %%MatchFlow matching [1-based|0-based]
    % any comment lines
    <n_rows> <n_cols> <cardinality>
    <row> <col>          one line per matched pair, sorted by row
    ...

Pairs are 1-based (like Matrix Market) unless the banner says ``0-based``. The reader checks
the pair count, the ranges and that no row or column is matched twice; sizes of more than
``max(SIZE_FLOOR, 16 * pairs)`` vertices are refused unless ``max_vertices=`` allows them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._results import AssignmentResult, MatchingResult
from ._common import INDEX, Layout, PathOrFile, format_records, open_for_write, parse_records, read_source

__all__ = ["read_matching", "write_matching"]

_BANNER = "%%MatchFlow matching"


def write_matching(
    path: PathOrFile,
    matching: Any,
    *,
    n_rows: int | None = None,
    n_cols: int | None = None,
    comment: str | None = None,
    index_base: int = 1,
) -> None:
    """Write a matching: a :class:`MatchingResult`, an :class:`AssignmentResult`, or a
    ``row_match`` array (``row_match[i]`` = column of row ``i``, -1 if unmatched).

    ``n_cols`` (and for an AssignmentResult ``n_rows``) default to the largest index + 1;
    a MatchingResult knows its shape. ``index_base`` (1, the default, or 0) numbers the pairs;
    the banner records it, so :func:`read_matching` reads either back.

    Examples
    --------
    >>> from io import BytesIO
    >>> from matchflow.io import read_matching, write_matching
    >>> buf = BytesIO()
    >>> write_matching(buf, [1, 0, -1], n_cols=2)  # row 2 unmatched
    >>> print(buf.getvalue().decode())
    %%MatchFlow matching
    % rows cols pairs, then one 'row col' line per matched pair (1-based)
    3 2 2
    1 2
    2 1
    <BLANKLINE>
    >>> read_matching(BytesIO(buf.getvalue())).tolist()
    [1, 0, -1]
    """
    if index_base not in (0, 1) or isinstance(index_base, bool):
        raise ValueError(f"index_base must be 0 or 1, got {index_base!r}")
    if isinstance(matching, MatchingResult):
        rows, cols = matching.matched_pairs
        shape = matching.shape
        n_rows = shape[0] if n_rows is None else n_rows
        n_cols = shape[1] if n_cols is None else n_cols
    elif isinstance(matching, AssignmentResult):
        rows = np.asarray(matching.row_ind, dtype=np.int64)
        cols = np.asarray(matching.col_ind, dtype=np.int64)
    else:
        rm = np.asarray(matching)
        if rm.ndim != 1 or (rm.size and not np.issubdtype(rm.dtype, np.integer)):
            raise TypeError("matching must be a MatchingResult, an AssignmentResult or a 1-D integer row_match "
                            f"array, got {type(matching).__name__} of shape {getattr(rm, 'shape', None)}")
        if rm.size and rm.min() < -1:
            raise ValueError(f"row_match holds {int(rm.min())}; unmatched rows must be -1")
        rows = np.flatnonzero(rm >= 0)
        cols = rm[rows].astype(np.int64)
        n_rows = len(rm) if n_rows is None else n_rows
    n_rows = int(rows.max()) + 1 if n_rows is None and rows.size else (n_rows or 0)
    n_cols = int(cols.max()) + 1 if n_cols is None and cols.size else (n_cols or 0)
    order = np.argsort(rows, kind="stable")
    rows, cols = rows[order], cols[order]
    if rows.size:
        if rows.min() < 0 or rows.max() >= n_rows:
            raise ValueError(f"a matched row is out of range 0..{n_rows - 1}")
        if cols.min() < 0 or cols.max() >= n_cols:
            raise ValueError(f"a matched column {int(cols.max())} is out of range 0..{n_cols - 1}")
        if np.any(rows[1:] == rows[:-1]):
            raise ValueError("a row is matched twice")
        if len(np.unique(cols)) != len(cols):
            raise ValueError("a column is matched twice: this is not a matching")
    banner = _BANNER + (" 0-based" if index_base == 0 else "")
    head = [banner + "\n", f"% rows cols pairs, then one 'row col' line per matched pair ({index_base}-based)\n"]
    if comment:
        head += [f"% {s}\n" for s in comment.splitlines()]
    head.append(f"{n_rows} {n_cols} {len(rows)}\n")
    open_for_write(path, "".join(head).encode() + format_records([rows + index_base, cols + index_base]))


def read_matching(path: PathOrFile, *, as_result: bool = False,
                  max_vertices: int | None = None) -> np.ndarray | MatchingResult:
    """Read a matching file.

    Returns ``row_match`` (int64, length ``n_rows``, the column of each row or -1), or with
    ``as_result=True`` a :class:`MatchingResult` (``method="file"``) that also holds
    ``col_match`` and the shape. The file carries no certificate: ``cover_rows`` and
    ``cover_cols`` are None; check the matching against its graph with :mod:`matchflow.verify`.

    Examples
    --------
    >>> from io import BytesIO
    >>> from matchflow.io import read_matching
    >>> text = b"%%MatchFlow matching\\n3 2 2\\n1 2\\n2 1\\n"
    >>> read_matching(BytesIO(text)).tolist()
    [1, 0, -1]
    >>> read_matching(BytesIO(text), as_result=True).cardinality
    2
    """
    src = read_source(path)
    if len(src.data) == 0:
        raise src.error(1, f"empty file (expected a '{_BANNER}' header)")
    banner, pos = src.next_line(0)
    words = banner.strip().lower().split()
    if words[:2] != _BANNER.lower().split() or len(words) > 3 or words[2:] not in ([], ["1-based"], ["0-based"]):
        raise src.error(1, f"bad header {banner[:60]!r}: expected '{_BANNER}' (optionally followed by "
                           "'1-based' or '0-based')")
    base = 0 if words[2:] == ["0-based"] else 1
    s, line, nxt = src.next_data_line(pos, 1, "missing size line 'n_rows n_cols pairs'")
    parts = s.split()
    try:
        vals = [int(p) for p in parts]
    except ValueError:
        vals = []
    if len(vals) != 3 or min(vals) < 0:
        raise src.error(line, f"bad size line {s[:60]!r}: expected 3 non-negative integers 'n_rows n_cols pairs'")
    n_rows, n_cols, k = (src.check_int64(line, what, v) for what, v in zip(("n_rows", "n_cols", "pairs"), vals))
    idx, _, _, count = parse_records(
        src, nxt, line + 1, Layout([INDEX, INDEX], lo=[base, base], hi=[n_rows - 1 + base, n_cols - 1 + base],
                                   shift=[base, base], names=["row", "column"], what="pairs"),
        announced=k,
    )
    if count != k:
        raise src.error(src.last_line(), f"end of file after {count} pairs, but the size line announces {k}")
    for what, v in (("n_rows", n_rows), ("n_cols", n_cols)):
        src.check_size(line, f"{what} {v}", v, count, "pairs", max_vertices)
    rows, cols = idx[0], idx[1]
    row_match = np.full(n_rows, -1, dtype=np.int64)
    col_match = np.full(n_cols, -1, dtype=np.int64)
    for what, a in (("row", rows), ("column", cols)):
        seen = np.bincount(a) if a.size else np.zeros(0, dtype=np.int64)
        twice = np.flatnonzero(seen > 1)
        if twice.size:
            x = int(twice[0])
            at = np.flatnonzero(a == x)[:2]
            raise src.error(src.record_line(nxt, line + 1, int(at[1])),
                            f"{what} {x + base} is matched twice (pairs {int(at[0]) + 1} and {int(at[1]) + 1})")
    row_match[rows] = cols
    col_match[cols] = rows
    if not as_result:
        return row_match
    return MatchingResult(row_match=row_match, col_match=col_match, cardinality=int(k), cover_rows=None,
                          cover_cols=None, method="file", backend="none", seconds=0.0)

