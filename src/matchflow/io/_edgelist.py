"""Plain edge lists: one edge ``u v [w]`` per line.

Fields are separated by blanks (spaces/tabs) and/or commas; ``#`` and ``%`` start comment
lines; blank lines are ignored. Ids are 0-based unless ``one_based=True``. Every data line
has the same number of fields (2, or 3 with a weight; the first data line decides unless
``weighted`` is given).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._graph import BipartiteGraph, Graph, index_dtype
from ._common import (
    INDEX,
    REAL,
    PathOrFile,
    Source,
    format_records,
    open_for_write,
    parse_records,
    read_source,
)

__all__ = ["read_edgelist", "write_edgelist"]


def _first_data_fields(src: Source) -> int:
    pos = 0
    while True:
        text, pos = src.next_line(pos)
        if text is None:
            return 0
        s = text.strip()
        if s and s[0] not in "#%":
            return len(s.replace(",", " ").split())


def read_edgelist(
    path: PathOrFile,
    *,
    one_based: bool = False,
    weighted: bool | None = None,
    shape: tuple[int, int] | None = None,
    bipartite: bool = False,
) -> sp.coo_array:
    """Read an edge list into a ``scipy.sparse.coo_array`` (one stored entry per line).

    ``shape`` defaults to ``(n, n)`` with ``n = max id + 1`` (a graph), or, with
    ``bipartite=True``, to ``(max u + 1, max v + 1)`` (rows ``u``, columns ``v``). Ids beyond
    a given ``shape`` are errors. Values: float64 weights, or bool ``True`` without weights.
    Duplicate lines are kept (they sum on conversion to CSR).
    """
    src = read_source(path)
    if len(src.data) == 0:
        raise src.error(1, "empty file (an edge list needs at least a comment line)")
    if weighted is None:
        nf = _first_data_fields(src)
        if nf not in (0, 2, 3):
            text_line = _first_data_line_no(src)
            raise src.error(text_line, f"expected 2 fields 'u v' or 3 fields 'u v w', found {nf}")
        weighted = nf == 3
    base = 1 if one_based else 0
    if shape is not None:
        n_rows, n_cols = (int(s) for s in shape)
        hi = [n_rows - 1 + base, n_cols - 1 + base]
        itype = index_dtype(n_rows, n_cols)
    else:
        hi = [None, None]
        itype = np.dtype(np.int64)
    kinds = [INDEX, INDEX] + ([REAL] if weighted else [])
    idx, _, reals, count = parse_records(
        src, 0, 1, kinds, announced=None, index_dtype=itype,
        lo=[base, base, None], hi=hi + [None], shift=[base, base, 0], names=["u", "v", "weight"],
        comments="#%", comma=True, what="edges",
    )
    u, v = idx[0], idx[1]
    if shape is None:
        mu = int(u.max()) + 1 if count else 0
        mv = int(v.max()) + 1 if count else 0
        shape = (mu, mv) if bipartite else (max(mu, mv),) * 2
        it = index_dtype(*shape)
        u, v = u.astype(it, copy=False), v.astype(it, copy=False)
    data = reals[0] if weighted else np.ones(count, dtype=np.bool_)
    return sp.coo_array((data, (u, v)), shape=tuple(shape))


def _first_data_line_no(src: Source) -> int:
    pos, line = 0, 0
    while True:
        text, pos = src.next_line(pos)
        line += 1
        if text is None or (text.strip() and text.strip()[0] not in "#%"):
            return line


def write_edgelist(
    path: PathOrFile,
    obj: Any,
    *,
    one_based: bool = False,
    weights: bool | None = None,
    delimiter: str = " ",
) -> None:
    """Write an edge list ``u v [w]``, one edge per line (gzip when the path ends with ``.gz``).

    ``obj``: a scipy.sparse matrix (every stored entry), a :class:`matchflow.Graph` (each
    undirected edge once, ``u < v``), a :class:`matchflow.BipartiteGraph`, or a tuple
    ``(u, v)`` / ``(u, v, w)`` of arrays. Weights are written by default when there are
    any (non-bool sparse values, Graph weights, ``w``), with the shortest exact text.
    """
    if delimiter not in (" ", "\t", ","):
        raise ValueError(f"delimiter must be ' ', '\\t' or ',', got {delimiter!r}")
    w = None
    if isinstance(obj, Graph):
        rows = np.repeat(np.arange(obj.n, dtype=np.int64), np.diff(obj.indptr))
        cols = obj.indices.astype(np.int64)
        keep = rows < cols
        u, v = rows[keep], cols[keep]
        if obj.weights is not None:
            w = obj.weights[keep]
    elif isinstance(obj, BipartiteGraph):
        u, v = obj.edges()
    elif sp.issparse(obj):
        coo = sp.coo_array(obj)
        u, v = coo.coords[0], coo.coords[1]
        if coo.dtype != np.bool_:
            w = coo.data
    elif isinstance(obj, tuple) and len(obj) in (2, 3):
        u, v = np.asarray(obj[0]), np.asarray(obj[1])
        if u.shape != v.shape or u.ndim != 1:
            raise ValueError(f"u and v must be 1-D arrays of one length, got shapes {u.shape} and {v.shape}")
        for name, a in (("u", u), ("v", v)):
            if a.size and (not np.issubdtype(a.dtype, np.integer) or a.min() < 0):
                raise ValueError(f"{name} must hold non-negative integers")
        if len(obj) == 3:
            w = np.asarray(obj[2])
            if w.shape != u.shape:
                raise ValueError(f"w must have the same shape as u, got {w.shape} and {u.shape}")
    else:
        raise TypeError("obj must be a scipy.sparse matrix, a matchflow.Graph, a matchflow.BipartiteGraph "
                        f"or a tuple (u, v[, w]), got {type(obj).__name__}")
    if weights is False:
        w = None
    elif weights and w is None:
        raise ValueError("weights=True but the input has no weights")
    base = 1 if one_based else 0
    d = delimiter
    head = f"# matchflow edge list: u{d}v{d + 'w' if w is not None else ''}, {'1' if one_based else '0'}-based\n"
    body = format_records([np.asarray(u, dtype=np.int64) + base, np.asarray(v, dtype=np.int64) + base],
                          None if w is None else np.asarray(w, dtype=np.float64), delimiter=d)
    open_for_write(path, head.encode() + body)
