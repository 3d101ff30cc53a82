"""Matrix Market (NIST) reader and writer.

Supported: ``matrix coordinate|array``, fields ``pattern|integer|real`` (``double`` is an
alias of real), symmetries ``general|symmetric|skew-symmetric``. ``hermitian`` with a
real/integer/pattern field is read as symmetric (a real Hermitian matrix is symmetric);
``complex`` files are rejected. Coordinate files give a ``scipy.sparse.coo_array``
(pattern -> bool, integer -> int64, real -> float64; symmetric files expanded to both
triangles with the diagonal once, skew-symmetric mirrors negated; like SciPy, an entry is
mirrored whichever triangle it is stored in; duplicates and stored zeros are kept as in
the file); array files give a dense ``numpy.ndarray``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._graph import BipartiteGraph, Graph, index_dtype
from ._common import (
    INDEX,
    INT,
    REAL,
    Layout,
    PathOrFile,
    Source,
    format_records,
    open_for_write,
    parse_records,
    read_source,
)

__all__ = ["read_mtx", "write_mtx"]

_FORMATS = ("coordinate", "array")
_FIELDS = ("pattern", "integer", "real", "double", "complex")
_SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")


def _parse_header(src: Source) -> tuple[str, str, str, int, int, int, int, int]:
    """Banner, comments and size line. Returns (format, field, symmetry, M, N, nnz, pos, line)."""
    if len(src.data) == 0:
        raise src.error(1, "empty file (expected a '%%MatrixMarket matrix ...' header)")
    banner, pos = src.next_line(0)
    tok = banner.split()
    if not tok or tok[0].lower() != "%%matrixmarket":
        raise src.error(1, f"bad header {banner[:60]!r}: a Matrix Market file starts with '%%MatrixMarket'")
    if len(tok) != 5:
        raise src.error(1, f"bad header {banner[:80]!r}: expected '%%MatrixMarket matrix <format> <field> "
                           "<symmetry>' (5 words)")
    obj, fmt, field, sym = (t.lower() for t in tok[1:])
    if obj != "matrix":
        raise src.error(1, f"unsupported object {tok[1]!r}: only 'matrix' is supported")
    if fmt not in _FORMATS:
        raise src.error(1, f"unknown format {tok[2]!r}: expected one of {_FORMATS}")
    if field not in _FIELDS:
        raise src.error(1, f"unknown field {tok[3]!r}: expected one of {_FIELDS}")
    if field == "complex":
        raise src.error(1, "complex Matrix Market files are not supported")
    if sym not in _SYMMETRIES:
        raise src.error(1, f"unknown symmetry {tok[4]!r}: expected one of {_SYMMETRIES}")
    if field == "double":
        field = "real"
    if sym == "hermitian":
        sym = "symmetric"
    if field == "pattern" and fmt == "array":
        raise src.error(1, "'array pattern' is not a valid Matrix Market type")
    if field == "pattern" and sym == "skew-symmetric":
        raise src.error(1, "'pattern skew-symmetric' is not a valid Matrix Market type")
    s, line, nxt = src.next_data_line(pos, 1, "missing size line (end of file after the header and comments)")
    want = 3 if fmt == "coordinate" else 2
    parts = s.split()
    if len(parts) != want:
        raise src.error(line, f"bad size line {s[:60]!r}: expected {want} integers "
                              f"({'rows cols entries' if want == 3 else 'rows cols'})")
    try:
        vals = [int(p) for p in parts]
    except ValueError:
        raise src.error(line, f"bad size line {s[:60]!r}: non-numeric token") from None
    if any(v < 0 for v in vals):
        raise src.error(line, f"bad size line {s[:60]!r}: sizes must be non-negative")
    for what, v in zip(("rows", "columns", "entries"), vals):
        src.check_int64(line, f"bad size line: {what}", v)
    m, n = vals[0], vals[1]
    nnz = vals[2] if fmt == "coordinate" else -1
    if sym != "general" and m != n:
        raise src.error(line, f"a {sym} matrix must be square, the size line says {m} x {n}")
    return fmt, field, sym, m, n, nnz, nxt, line + 1


def read_mtx(path: PathOrFile, *, max_vertices: int | None = None) -> sp.coo_array | np.ndarray:
    """Read a Matrix Market file (optionally gzip/bzip2/xz compressed).

    Returns a ``scipy.sparse.coo_array`` for ``coordinate`` files and a dense
    ``numpy.ndarray`` for ``array`` files (see the module docstring for dtypes and
    symmetry handling). Raises :class:`FormatError` naming the file and the line.
    A coordinate file's row or column count beyond ``max(SIZE_FLOOR, 16 * entries)`` is
    refused unless ``max_vertices=`` allows it (every solver allocates one entry per row or column).

    Examples
    --------
    >>> from io import BytesIO
    >>> from matchflow.io import read_mtx
    >>> text = b"%%MatrixMarket matrix coordinate integer general\\n2 2 2\\n1 2 2\\n2 1 3\\n"
    >>> read_mtx(BytesIO(text)).toarray().tolist()
    [[0, 2], [3, 0]]
    """
    src = read_source(path)
    fmt, field, sym, m, n, nnz, pos, line = _parse_header(src)
    if fmt == "array":
        return _read_array(src, field, sym, m, n, pos, line)
    itype = index_dtype(m, n)
    kinds = [INDEX, INDEX] + ([] if field == "pattern" else [INT if field == "integer" else REAL])
    idx, ints, reals, count = parse_records(
        src, pos, line, Layout(kinds, lo=[1, 1, None], hi=[m, n, None], shift=[1, 1, 0],
                               names=["row index", "column index", "value"], what="entries"),
        announced=nnz, index_dtype=itype,
    )
    if count != nnz:
        raise src.error(src.last_line(), f"end of file after {count} entries, but the size line announces {nnz}")
    for what, size in (("rows", m), ("columns", n)):
        src.check_size(line - 1, f"{what} {size}", size, count, "entries", max_vertices)
    r, c = idx[0], idx[1]
    if field == "pattern":
        v = np.ones(count, dtype=np.bool_)
    elif field == "integer":
        v = ints[0]
    else:
        v = reals[0]
    if sym != "general":
        off = r != c
        rr, cc, vv = c[off], r[off], v[off]
        if sym == "skew-symmetric":
            vv = -vv
        r, c, v = np.concatenate([r, rr]), np.concatenate([c, cc]), np.concatenate([v, vv])
    return sp.coo_array((v, (r, c)), shape=(m, n))


def _read_array(src: Source, field: str, sym: str, m: int, n: int, pos: int, line: int) -> np.ndarray:
    if sym == "general":
        want = m * n
    elif sym == "symmetric":
        want = n * (n + 1) // 2
    else:
        want = n * (n - 1) // 2
    kinds = [INT if field == "integer" else REAL]
    _, ints, reals, count = parse_records(src, pos, line, Layout(kinds, names=["value"], what="values"), announced=want)
    if count != want:
        raise src.error(src.last_line(), f"end of file after {count} values, but the size line announces {want}")
    vals = ints[0] if field == "integer" else reals[0]
    if sym == "general":
        return np.asarray(vals.reshape(n, m).T, order="C")
    out = np.zeros((n, n), dtype=vals.dtype)
    # Lower triangle, column by column (diagonal excluded when skew-symmetric).
    cols, rows = np.triu_indices(n, 0 if sym == "symmetric" else 1)  # (col, row) in column-major order
    out[rows, cols] = vals
    if sym == "symmetric":
        out[cols, rows] = vals
    else:
        out[cols, rows] = -vals
    return out


# ------------------------------------------------------------------ writer
def _field_of(dtype: np.dtype) -> str:
    if dtype == np.bool_:
        return "pattern"
    if np.issubdtype(dtype, np.integer):
        return "integer"
    if np.issubdtype(dtype, np.floating):
        return "real"
    if np.issubdtype(dtype, np.complexfloating):
        raise ValueError("complex matrices cannot be written: complex Matrix Market files are not supported")
    raise TypeError(f"matrix must hold numbers or booleans, got dtype {dtype}")


def _as_field(v: np.ndarray, field: str) -> np.ndarray:
    if field == "integer":
        if not (np.issubdtype(v.dtype, np.integer) or v.dtype == np.bool_):
            if not np.all(np.isfinite(v) & (v == np.round(v)) & (np.abs(v) < 2.0**63)):
                raise ValueError("field='integer' needs integer values in the int64 range, "
                                 "the matrix holds other values")
        return v.astype(np.int64)
    return v.astype(np.float64)


def write_mtx(
    path: PathOrFile,
    a: Any,
    *,
    field: str | None = None,
    symmetry: str = "general",
    comment: str | None = None,
) -> None:
    """Write a matrix in Matrix Market format (gzip when the path ends with ``.gz``).

    ``a``: a scipy.sparse matrix/array, a :class:`matchflow.BipartiteGraph` (pattern) or a
    :class:`matchflow.Graph` (symmetric) -> ``coordinate``; a dense 2-D array -> ``array``
    (dense bool arrays are written as coordinate pattern). ``field`` defaults from the
    dtype (bool -> pattern, integers -> integer, floats -> real); ``field="pattern"`` drops
    the values. ``symmetry`` is ``general``, ``symmetric`` or ``skew-symmetric``; a
    non-general symmetry is checked and only the lower triangle is written. Reals are
    written with the shortest text that reads back to the same double.

    Examples
    --------
    >>> from io import BytesIO
    >>> import numpy as np
    >>> from matchflow.io import read_mtx, write_mtx
    >>> buf = BytesIO()
    >>> write_mtx(buf, np.array([[1.5, 0.25]]))
    >>> print(buf.getvalue().decode())
    %%MatrixMarket matrix array real general
    % written by matchflow
    1 2
    1.5
    0.25
    <BLANKLINE>
    >>> read_mtx(BytesIO(buf.getvalue())).tolist()
    [[1.5, 0.25]]
    """
    if symmetry not in ("general", "symmetric", "skew-symmetric"):
        raise ValueError(f"symmetry must be one of ('general', 'symmetric', 'skew-symmetric'), got {symmetry!r}")
    if field is not None and field not in ("pattern", "integer", "real"):
        raise ValueError(f"field must be one of ('pattern', 'integer', 'real') or None, got {field!r}")
    if isinstance(a, BipartiteGraph):
        a = a.to_scipy()
    elif isinstance(a, Graph):
        a = a.to_scipy() if a.weights is not None else sp.csr_array(
            (np.ones(len(a.indices), dtype=np.bool_), a.indices, a.indptr), shape=(a.n, a.n))
        if symmetry == "general":
            symmetry = "symmetric"
    dense = not sp.issparse(a)
    if dense:
        arr = np.asarray(a)
        if arr.ndim != 2:
            raise ValueError(f"matrix must be 2-D, got an array of shape {arr.shape}")
        if arr.dtype == np.bool_ or field == "pattern":
            a, dense = sp.coo_array(arr), False
    if dense:
        natural = _field_of(arr.dtype)  # also rejects complex and non-numeric dtypes
        _write_array(path, arr, field or natural, symmetry, comment)
        return
    coo = sp.coo_array(a)
    if coo.ndim != 2:
        raise ValueError(f"matrix must be 2-D, got shape {coo.shape}")
    f = field or _field_of(coo.dtype)
    _field_of(coo.dtype)  # rejects complex and non-numeric dtypes even when field is given
    m, n = coo.shape
    r, c, v = coo.coords[0].astype(np.int64), coo.coords[1].astype(np.int64), coo.data
    if symmetry != "general":
        _check_symmetric(coo, symmetry, f)
        keep = r >= c if symmetry == "symmetric" else r > c
        r, c, v = r[keep], c[keep], v[keep]
    lines = [f"%%MatrixMarket matrix coordinate {f} {symmetry}\n"]
    lines += _comment_lines(comment)
    lines.append(f"{m} {n} {len(r)}\n")
    if f == "pattern":
        body = format_records([r + 1, c + 1])
    elif f == "integer":
        body = format_records([r + 1, c + 1], integer_last=_as_field(v, f))
    else:
        body = format_records([r + 1, c + 1], _as_field(v, f))
    open_for_write(path, "".join(lines).encode() + body)


def _check_symmetric(coo: sp.coo_array, symmetry: str, field: str) -> None:
    if coo.shape[0] != coo.shape[1]:
        raise ValueError(f"symmetry={symmetry!r} needs a square matrix, got shape {coo.shape}")
    a = sp.csr_array(coo)
    a.sum_duplicates()
    if field == "pattern":
        a = sp.csr_array((np.ones(a.nnz, dtype=np.int8), a.indices, a.indptr), shape=a.shape)
    d = a - a.T if symmetry == "symmetric" else a + a.T
    if d.count_nonzero():
        raise ValueError(f"symmetry={symmetry!r} but the matrix is not {symmetry}")


def _comment_lines(comment: str | None) -> list[str]:
    out = ["% written by matchflow\n"]
    if comment:
        out += [f"% {s}\n" for s in comment.splitlines()]
    return out


def _write_array(path: PathOrFile, arr: np.ndarray, field: str, symmetry: str, comment: str | None) -> None:
    m, n = arr.shape
    if symmetry != "general":
        if m != n:
            raise ValueError(f"symmetry={symmetry!r} needs a square matrix, got shape {arr.shape}")
        ok = np.array_equal(arr, arr.T) if symmetry == "symmetric" else np.array_equal(arr, -arr.T)
        if not ok:
            raise ValueError(f"symmetry={symmetry!r} but the matrix is not {symmetry}")
        cols, rows = np.triu_indices(n, 0 if symmetry == "symmetric" else 1)
        vals = arr[rows, cols]
    else:
        vals = arr.T.reshape(-1)  # column-major
    vals = _as_field(vals, field)
    lines = [f"%%MatrixMarket matrix array {field} {symmetry}\n"] + _comment_lines(comment) + [f"{m} {n}\n"]
    body = format_records([], integer_last=vals) if field == "integer" else format_records([], vals)
    open_for_write(path, "".join(lines).encode() + body)
