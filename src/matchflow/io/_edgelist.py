"""Plain edge lists: one edge ``u v [w]`` per line.

Fields are separated by blanks (spaces/tabs) and/or commas; ``#`` and ``%`` start comment
lines; blank lines are ignored. Every data line has the same number of fields (2, or 3 with
a weight; the first data line decides unless ``weighted`` is given).

Index base (``index_base=``): ``0``, ``1`` or ``"auto"`` (the default). ``"auto"`` reads the
base from the file when it says so -- our writer's header (``# matchflow edge list: ...,
1-based``) or a KONECT header (``% sym|asym|bip ...``: KONECT files are 1-based) -- and else
from the ids: 1-based when the smallest id is 1 (SNAP/KONECT style: "1 2 / 2 3 / 3 1" is a
triangle on 3 vertices, not a 4-vertex graph), 0-based when it is 0 or larger than 1 (ids
kept as given). A 0-based file in which vertex 0 has no edge is read as 1-based by "auto":
pass ``index_base=0`` when that matters.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._graph import BipartiteGraph, Graph, index_dtype
from ._common import INDEX, REAL, Layout, PathOrFile, Source, format_records, open_for_write, parse_records, read_source

__all__ = ["read_edgelist", "write_edgelist", "INDEX_BASES"]

#: accepted values of ``index_base``
INDEX_BASES = ("auto", 0, 1)
_OUR_HEADER = re.compile(rb"^#\s*matchflow edge list:.*\b([01])-based", re.IGNORECASE)
_KONECT_HEADER = re.compile(rb"^%\s*(sym|asym|bip)\b", re.IGNORECASE)


def check_index_base(index_base: Any, one_based: bool | None, *, allow_auto: bool = True) -> int | str:
    """Validate ``index_base`` (``one_based`` is its deprecated spelling)."""
    if one_based is not None:
        warnings.warn("one_based= is deprecated; use index_base=1 (or index_base=0)", DeprecationWarning,
                      stacklevel=3)
        return 1 if one_based else 0
    choices = INDEX_BASES if allow_auto else (0, 1)
    if isinstance(index_base, bool) or index_base not in choices:
        raise ValueError(f"index_base must be one of {choices}, got {index_base!r}")
    return index_base


def _declared_base(src: Source) -> int | None:
    first = src.data[: src.data.find(b"\n") if b"\n" in src.data[:4096] else 4096]
    m = _OUR_HEADER.match(first)
    if m:
        return int(m.group(1))
    return 1 if _KONECT_HEADER.match(first) else None


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
    index_base: int | str = "auto",
    weighted: bool | None = None,
    shape: tuple[int, int] | None = None,
    bipartite: bool = False,
    max_vertices: int | None = None,
    one_based: bool | None = None,
) -> sp.coo_array:
    """Read an edge list into a ``scipy.sparse.coo_array`` (one stored entry per line).

    ``index_base``: 0, 1 or "auto" (module docstring). ``shape`` defaults to ``(n, n)`` with
    ``n = max id + 1`` (a graph), or, with ``bipartite=True``, to ``(max u + 1, max v + 1)``
    (rows ``u``, columns ``v``); such a vertex count may not exceed ``max(SIZE_FLOOR, 16 *
    edges)`` unless ``max_vertices=`` allows it (a huge id would allocate a huge graph). Ids
    beyond a given ``shape`` are errors. Values: float64 weights, or bool ``True`` without
    weights. Duplicate lines are kept (they sum on conversion to CSR). ``one_based=`` is the
    deprecated spelling of ``index_base``.

    Examples
    --------
    >>> from io import BytesIO
    >>> from matchflow.io import read_edgelist
    >>> A = read_edgelist(BytesIO(b"1 2\\n2 3\\n"), index_base=1)
    >>> A.shape, A.toarray().astype(int).tolist()
    ((3, 3), [[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    """
    base = check_index_base(index_base, one_based)
    src = read_source(path)
    if len(src.data) == 0:
        raise src.error(1, "empty file (an edge list needs at least a comment line)")
    if weighted is None:
        nf = _first_data_fields(src)
        if nf not in (0, 2, 3):
            text_line = _first_data_line_no(src)
            raise src.error(text_line, f"expected 2 fields 'u v' or 3 fields 'u v w', found {nf}")
        weighted = nf == 3
    if base == "auto":
        base = _declared_base(src)
    given = shape is not None
    if given:
        n_rows, n_cols = (int(s) for s in shape)
    kinds = [INDEX, INDEX] + ([REAL] if weighted else [])
    b = 0 if base is None else base
    hi = [n_rows - 1 + b, n_cols - 1 + b, None] if given and base is not None else [None] * 3
    idx, _, reals, count = parse_records(
        src, 0, 1, Layout(kinds, lo=[b, b, None], hi=hi, shift=[b, b, 0], names=["u", "v", "weight"],
                          comments="#%", comma=True, what="edges"),
        announced=None, index_dtype=np.dtype(np.int64),
    )
    u, v = idx[0], idx[1]
    if base is None:  # "auto" without a header: 1-based when the smallest id is 1
        base = 1 if count and min(int(u.min()), int(v.min())) == 1 else 0
        if base:
            u, v = u - 1, v - 1
        if given:
            for name, a, n in (("u", u, n_rows), ("v", v, n_cols)):
                if count and int(a.max()) >= n:
                    k = int(np.argmax(a))
                    raise src.error(src.record_line(0, 1, k, "#%"),
                                    f"{name} {int(a[k]) + base} is out of range (must be <= {n - 1 + base})")
    if not given:
        sizes = []
        for name, a in (("u", u), ("v", v)):
            top = int(a.max()) + 1 if count else 0
            if count:
                src.check_size(lambda a=a: src.record_line(0, 1, int(np.argmax(a)), "#%"),
                               f"vertex id {top - 1 + base} ({name})", top, count, "edges", max_vertices,
                               "pass shape= or max_vertices= to allow it")
            sizes.append(top)
        shape = tuple(sizes) if bipartite else (max(sizes),) * 2
    it = index_dtype(*shape)
    data = reals[0] if weighted else np.ones(count, dtype=np.bool_)
    return sp.coo_array((data, (u.astype(it, copy=False), v.astype(it, copy=False))), shape=tuple(shape))


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
    index_base: int = 0,
    weights: bool | None = None,
    delimiter: str = " ",
    one_based: bool | None = None,
) -> None:
    """Write an edge list ``u v [w]``, one edge per line (gzip when the path ends with ``.gz``).

    ``obj``: a scipy.sparse matrix (every stored entry), a :class:`matchflow.Graph` (each
    undirected edge once, ``u < v``), a :class:`matchflow.BipartiteGraph`, or a tuple
    ``(u, v)`` / ``(u, v, w)`` of arrays. Weights are written by default when there are
    any (non-bool sparse values, Graph weights, ``w``), with the shortest exact text.
    ``index_base`` (0 or 1) numbers the vertices; the header line records it, so
    ``read_edgelist(index_base="auto")`` reads the file back exactly.

    Examples
    --------
    >>> import io
    >>> from matchflow.io import read_edgelist, write_edgelist
    >>> buf = io.BytesIO()
    >>> write_edgelist(buf, ([0, 1], [1, 2]))  # the edges 0-1 and 1-2
    >>> print(buf.getvalue().decode())
    # matchflow edge list: u v, 0-based
    0 1
    1 2
    <BLANKLINE>
    >>> read_edgelist(io.BytesIO(buf.getvalue())).nnz
    2
    """
    base = check_index_base(index_base, one_based, allow_auto=False)
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
    d = delimiter
    head = f"# matchflow edge list: u{d}v{d + 'w' if w is not None else ''}, {base}-based\n"
    body = format_records([np.asarray(u, dtype=np.int64) + base, np.asarray(v, dtype=np.int64) + base],
                          None if w is None else np.asarray(w, dtype=np.float64), delimiter=d)
    open_for_write(path, head.encode() + body)
