"""METIS graph format (``.graph``; Karypis & Kumar, METIS manual section 4.1.1).

Header ``n m [fmt [ncon]]`` (after ``%`` comment lines); ``fmt`` is up to three binary
digits ``abc``: ``a`` vertex sizes, ``b`` vertex weights (``ncon`` per vertex, default 1),
``c`` edge weights. Then one line per vertex ``i`` (1-based; an empty line is a vertex
without neighbours): ``[size] [w_1 .. w_ncon] (v [ew])*``. Every undirected edge is listed
at both ends, so the lines hold ``2 m`` neighbours; the reader checks that, the range of
every id, that edge weights are positive and that the adjacency is symmetric without
self-loops or repeated edges (the same checks as METIS' ``graphchk``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._graph import Graph, as_graph
from . import _cpu_parse as _k
from ._common import PathOrFile, Source, open_for_write, read_source

__all__ = ["read_metis", "write_metis"]


def _parse_header(src: Source) -> tuple[int, int, bool, int, bool, int, int]:
    if len(src.data) == 0:
        raise src.error(1, "empty file (expected a header line 'n m [fmt [ncon]]')")
    s, line, pos = src.next_data_line(0, 0, "missing header line 'n m [fmt [ncon]]' (only comments found)")
    tok = s.split()
    if not 2 <= len(tok) <= 4:
        raise src.error(line, f"bad header {s[:60]!r}: expected 'n m [fmt [ncon]]'")
    try:
        vals = [int(t) for t in tok]
    except ValueError:
        raise src.error(line, f"bad header {s[:60]!r}: non-numeric token") from None
    n, m = vals[0], vals[1]
    if n < 0 or m < 0:
        raise src.error(line, f"bad header {s[:60]!r}: n and m must be non-negative")
    fmt = tok[2] if len(tok) > 2 else "0"
    if len(fmt) > 3 or any(ch not in "01" for ch in fmt):
        raise src.error(line, f"bad fmt {fmt!r} in the header: expected up to three 0/1 digits "
                              "(vertex sizes, vertex weights, edge weights), e.g. 0, 1, 10, 11, 100")
    fmt = fmt.zfill(3)
    has_size, has_vw, has_ew = fmt[0] == "1", fmt[1] == "1", fmt[2] == "1"
    if len(tok) == 4:
        ncon = vals[3]
        if ncon < 1 or not has_vw:
            raise src.error(line, f"bad header {s[:60]!r}: ncon={ncon} needs vertex weights in fmt and ncon >= 1")
    else:
        ncon = 1 if has_vw else 0
    return n, m, has_size, ncon, has_ew, pos, line


def read_metis(path: PathOrFile, *, vertex_data: bool = False) -> Graph | tuple[Graph, np.ndarray | None,
                                                                                   np.ndarray | None]:
    """Read a METIS graph file (optionally compressed) into a :class:`matchflow.Graph`.

    The graph's ``weights`` are the edge weights (int64, as in the file) when ``fmt`` has them, else None.
    With ``vertex_data=True`` returns ``(graph, vertex_weights, vertex_sizes)``: an
    ``(n, ncon)`` int64 array and an ``(n,)`` int64 array, each None when absent.

    Examples
    --------
    >>> from io import BytesIO
    >>> from matchflow.io import read_metis
    >>> read_metis(BytesIO(b"3 2\\n2\\n1 3\\n2\\n"))  # the path 1 - 2 - 3
    Graph(n=3, n_edges=2, unweighted)
    """
    src = read_source(path)
    n, m, has_size, ncon, has_ew, pos, hline = _parse_header(src)
    lines_left = src.count_lines_from(pos)
    if n > lines_left:
        raise src.error(hline, f"the header announces {n} vertices but only {lines_left} lines follow")
    numbers_left = src.max_records(pos, 1)  # each number needs two bytes ("1 "): a bound from the data
    if n * ncon > numbers_left:
        raise src.error(hline, f"the header announces ncon={ncon} vertex weights for each of the {n} vertices "
                               f"({n * ncon} numbers) but the file holds at most {numbers_left} numbers")
    cap = min(2 * m, src.max_records(pos, 2 if has_ew else 1))
    xadj = np.zeros(n + 1, dtype=np.int64)
    adj = np.empty(cap, dtype=np.int64)
    ew = np.empty(cap if has_ew else 0, dtype=np.int64)
    vsize = np.empty(n if has_size else 0, dtype=np.int64)
    vwgt = np.empty((n, ncon), dtype=np.int64)
    vline = np.empty(n, dtype=np.int64)
    err = _k.metis_kernel(src.buf, pos, hline + 1, n, int(has_size), ncon, has_ew, xadj, adj, ew, vsize, vwgt, vline)
    st, k = err[:2]
    if st != _k.OK:
        _raise(src, err, n, m, has_size, hline)
    if k != 2 * m:
        raise src.error(hline, f"the header announces m={m} edges, so 2m={2 * m} neighbour entries, "
                               f"but the vertex lines hold {k}")
    adj = adj[:k]
    ew = ew[:k] if has_ew else None
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(xadj))
    loops = np.flatnonzero(rows == adj)
    if loops.size:
        v = int(rows[loops[0]])
        raise src.error(int(vline[v]), f"self-loop: vertex {v + 1} lists itself")
    fwd = rows * n + adj
    order = np.argsort(fwd, kind="stable")
    fs = fwd[order]
    dup = np.flatnonzero(fs[1:] == fs[:-1])
    if dup.size:
        u, v = divmod(int(fs[dup[0]]), n)
        raise src.error(int(vline[u]), f"vertex {u + 1} lists neighbour {v + 1} twice")
    rev = adj * n + rows
    rorder = np.argsort(rev, kind="stable")
    rs = rev[rorder]
    bad = np.flatnonzero(fs != rs)
    if bad.size:
        i = bad[0]
        if fs[i] < rs[i]:  # u lists v, v does not list u
            u, v = divmod(int(fs[i]), n)
        else:
            v, u = divmod(int(rs[i]), n)
        raise src.error(int(vline[u]), f"asymmetric adjacency: vertex {u + 1} lists {v + 1} "
                                       f"but vertex {v + 1} (line {int(vline[v])}) does not list {u + 1}")
    weights = None
    if ew is not None:
        wf, wr = ew[order], ew[rorder]
        badw = np.flatnonzero(wf != wr)
        if badw.size:
            u, v = divmod(int(fs[badw[0]]), n)
            raise src.error(int(vline[u]), f"edge ({u + 1}, {v + 1}) has weight {int(wf[badw[0]])} here but "
                                           f"{int(wr[badw[0]])} on line {int(vline[v])}")
        weights = wf  # int64, as in the file
    g = Graph(n, xadj, adj[order], weights)
    if not vertex_data:
        return g
    return g, (vwgt if ncon else None), (vsize if has_size else None)


def _raise(src, err: tuple, n, m, has_size, hline):
    """The FormatError for the kernel's ``err = (status, count, line, pos, col, value)``."""
    st, _, line, pos, col, value = err
    fieldname = {-1: "neighbour id", -2: "edge weight"}.get(
        col, "vertex size" if (has_size and col == 0) else "vertex weight")
    if st == _k.MISSING_LINES:
        raise src.error(src.last_line(), f"end of file after {col} vertex lines, the header (line {hline}) announces {n}")
    if st == _k.EXTRA_DATA:
        raise src.error(line, f"data after the {n} vertex lines announced in the header: {src.token_at(pos)!r}")
    if st == _k.TOO_FEW:
        raise src.error(line, f"missing {fieldname}")
    if st == _k.BAD_TOKEN:
        raise src.error(line, f"non-numeric token {src.token_at(pos)!r} where a {fieldname} (an integer) was expected")
    if st == _k.OVERFLOW:
        raise src.error(line, f"{fieldname} {src.token_at(pos)!r} does not fit in a 64-bit integer")
    if st == _k.OUT_OF_RANGE:
        if col == -1:
            raise src.error(line, f"neighbour id {value} is out of range 1..{n}")
        if col == -2:
            raise src.error(line, f"edge weight {value} must be positive")
        raise src.error(line, f"{fieldname} {value} must be non-negative")
    if st == _k.TOO_MANY_RECORDS:
        raise src.error(line, f"more than 2m={2 * m} neighbour entries (m={m} in the header)")
    raise src.error(line, f"parse error (status {st})")  # pragma: no cover


def write_metis(
    path: PathOrFile,
    graph: Any,
    *,
    vertex_weights: Any = None,
    vertex_sizes: Any = None,
    edge_weights: bool | None = None,
) -> None:
    """Write a graph in METIS format.

    ``graph``: a :class:`matchflow.Graph` or anything :func:`matchflow.Graph`-convertible
    (a square symmetric scipy.sparse / dense matrix; self-loops are dropped). Edge weights
    are written when the graph has weights (``edge_weights=False`` drops them); METIS needs
    them to be positive integers. ``vertex_weights``: ``(n,)`` or ``(n, ncon)`` non-negative
    integers; ``vertex_sizes``: ``(n,)`` non-negative integers.

    Examples
    --------
    >>> from io import BytesIO
    >>> import numpy as np
    >>> from matchflow.io import write_metis
    >>> buf = BytesIO()
    >>> write_metis(buf, np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool))
    >>> print(buf.getvalue().decode())
    % written by matchflow
    3 2
    2
    1 3
    2
    <BLANKLINE>
    """
    if not isinstance(graph, Graph):
        a = graph
        if sp.issparse(a) or isinstance(a, np.ndarray):
            a_csr = sp.csr_array(a)
            if a_csr.shape[0] == a_csr.shape[1] and (abs(a_csr - a_csr.T)).count_nonzero():
                raise ValueError("graph must be symmetric to be written in METIS format")
        graph = as_graph(graph, "graph", weighted=edge_weights is not False)
    n = graph.n
    w = graph.weights if edge_weights is not False else None
    if edge_weights and w is None:
        raise ValueError("edge_weights=True but the graph has no weights")
    if w is not None:
        if not np.all((w == np.round(w)) & (w > 0) & (w < 2.0**63)):
            raise ValueError("METIS edge weights must be positive integers; the graph holds other weights")
        w = w.astype(np.int64)
    vw = _int_array("vertex_weights", vertex_weights, n, allow_2d=True)
    vs = _int_array("vertex_sizes", vertex_sizes, n, allow_2d=False)
    if vw is not None and vw.ndim == 1:
        vw = vw[:, None]
    fmt = f"{int(vs is not None)}{int(vw is not None)}{int(w is not None)}"
    head = f"{n} {graph.n_edges}"
    if fmt != "000":
        head += f" {fmt.lstrip('0') or '0'}"
    if vw is not None and vw.shape[1] > 1:
        head += f" {vw.shape[1]}"
    lines = ["% written by matchflow\n", head + "\n"]
    indptr = graph.indptr.tolist()
    nbrs = (graph.indices.astype(np.int64) + 1).tolist()
    wl = w.tolist() if w is not None else None
    vwl = vw.tolist() if vw is not None else None
    vsl = vs.tolist() if vs is not None else None
    for i in range(n):
        parts: list[str] = []
        if vsl is not None:
            parts.append(str(vsl[i]))
        if vwl is not None:
            parts.extend(map(str, vwl[i]))
        a, b = indptr[i], indptr[i + 1]
        if wl is None:
            parts.extend(map(str, nbrs[a:b]))
        else:
            for j in range(a, b):
                parts.append(f"{nbrs[j]} {wl[j]}")
        lines.append(" ".join(parts) + "\n")
    open_for_write(path, "".join(lines))


def _int_array(name: str, x: Any, n: int, allow_2d: bool) -> np.ndarray | None:
    if x is None:
        return None
    a = np.asarray(x)
    if a.shape[:1] != (n,) or a.ndim > (2 if allow_2d else 1):
        raise ValueError(f"{name} must have shape ({n},){' or (n, ncon)' if allow_2d else ''}, got {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise TypeError(f"{name} must hold integers, got dtype {a.dtype}")
    if a.size and a.min() < 0:
        raise ValueError(f"{name} must be non-negative, got {int(a.min())}")
    return a.astype(np.int64)
