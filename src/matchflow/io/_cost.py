"""Dense cost matrices for the assignment solvers: ``.npy``, delimited text, Matrix Market.

Every error is a :class:`FormatError` (a ``ValueError``) reading "cannot read a cost matrix
from <file>: [line N: ]<what>"; a missing file is a ``FileNotFoundError``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._common import INT, REAL, SIZE_FLOOR, SIZE_PER_RECORD, FormatError, Layout, Source, parse_records, read_source
from ._mtx import read_mtx

__all__ = ["read_cost_matrix"]

_CTX = "cannot read a cost matrix from "
_TEXT = (".csv", ".txt", ".tsv", ".dat")
_MTX = (".mtx", ".mm")
_COMPRESSED = (".gz", ".bz2", ".xz")
#: a coordinate Matrix Market cost matrix becomes dense: at most max(DENSE_FLOOR, 16 * entries) cells
DENSE_FLOOR = SIZE_FLOOR * 8
_NO_VERTEX_LIMIT = 2**63


def _error(name: str, line: int | None, what: str) -> FormatError:
    return FormatError(name, line, what, context=_CTX)


def read_cost_matrix(path: str | os.PathLike[str], *, max_entries: int | None = None) -> np.ndarray:
    """Read a dense cost matrix.

    * ``.npy``: as stored (``allow_pickle=False``; the header's shape is checked against the
      file's size before anything is allocated; non-native byte order converted);
    * ``.csv``/``.txt``/``.tsv``/``.dat`` (optionally ``.gz``/``.bz2``/``.xz``): comma or
      blank separated, ``#`` comments, the same number of values on every line; int64 when
      every value is an integer, else float64 (``inf``/``nan`` allowed);
    * Matrix Market ``.mtx``/``.mm`` (optionally compressed), read by :func:`read_mtx`:
      *array* files as they are; *coordinate* files densified with missing entries forbidden
      (``+inf``), duplicates summed, float64. A coordinate file may not ask for more than
      ``max(DENSE_FLOOR, 16 * entries)`` cells unless ``max_entries=`` allows it.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> from matchflow.io import read_cost_matrix
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "costs.csv")
    ...     with open(path, "w") as f:
    ...         _ = f.write("4, 1, 3\\n2, 0, 5\\n# a comment\\n3, 2, inf\\n")
    ...     C = read_cost_matrix(path)
    >>> C.dtype, C.tolist()
    (dtype('float64'), [[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, inf]])
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"cost matrix file not found: {p}")
    name = p.name.lower()
    base = name[: -len(name.rsplit(".", 1)[-1]) - 1] if name.endswith(_COMPRESSED) else name
    if name.endswith(".npy"):
        a = _read_npy(p)
    elif base.endswith(_MTX):
        a = _read_mtx(p, max_entries)
    elif base.endswith(_TEXT):
        try:
            src = read_source(p)
        except FormatError as exc:  # corrupt compressed data
            raise FormatError(exc.path, exc.line, exc.what, context=_CTX) from exc
        a = _read_text(src)
    else:
        raise _error(str(p), None, "unknown extension; expected .npy, .csv, .txt, .tsv, .dat or .mtx "
                                   "(text and Matrix Market optionally .gz, .bz2 or .xz)")
    if a.ndim != 2:
        raise _error(str(p), None, f"expected a 2-D matrix, got {a.ndim}-D shape {a.shape}")
    if a.dtype.kind not in "biuf":
        raise _error(str(p), None, f"expected real numbers, got dtype {a.dtype}")
    return a.astype(a.dtype.newbyteorder("=")) if not a.dtype.isnative else a


def _read_npy(p: Path) -> np.ndarray:
    fmt = np.lib.format
    try:
        with open(p, "rb") as f:
            version = fmt.read_magic(f)
            shape, _, dtype = (fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0)(f)
            left = os.fstat(f.fileno()).st_size - f.tell()
        need = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if need > left:
            raise _error(str(p), None, f"the header announces shape {shape} of {dtype} ({need} bytes) "
                                       f"but only {left} bytes follow")
        return np.load(p, allow_pickle=False)
    except FormatError:
        raise
    except Exception as exc:  # NumPy's header parser raises ValueError, SyntaxError, TokenError, ...
        raise _error(str(p), None, f"not a valid .npy file ({type(exc).__name__}: {exc})") from exc


def _read_mtx(p: Path, max_entries: int | None) -> np.ndarray:
    try:
        m = read_mtx(p, max_vertices=_NO_VERTEX_LIMIT)  # the dense cell limit below governs
    except FormatError as exc:
        raise FormatError(exc.path, exc.line, exc.what, context=_CTX) from exc
    if not sp.issparse(m):
        return m
    coo = sp.coo_array(m)
    cells = coo.shape[0] * coo.shape[1]
    limit = max(DENSE_FLOOR, SIZE_PER_RECORD * coo.nnz) if max_entries is None else int(max_entries)
    if cells > limit:
        raise _error(str(p), None, f"a {coo.shape[0]} x {coo.shape[1]} cost matrix would hold {cells} dense "
                                   f"entries for {coo.nnz} stored ones (at most {limit}; pass max_entries= to "
                                   "allow it)")
    csr = sp.csr_array(coo.astype(np.float64))
    csr.sum_duplicates()
    out = np.full(coo.shape, np.inf, dtype=np.float64)
    r = np.repeat(np.arange(coo.shape[0]), np.diff(csr.indptr))
    out[r, csr.indices] = csr.data
    return out


def _read_text(src: Source) -> np.ndarray:
    pos, line = 0, 0
    while True:  # the first data line fixes the number of columns
        text, nxt = src.next_line(pos)
        if text is None:
            raise _error(src.name, max(line, 1), "no data lines (only blank and '#' comment lines)")
        line += 1
        s = text.strip()
        if s and not s.startswith("#"):
            break
        pos = nxt
    k = len(s.replace(",", " ").split())
    names = [f"column {j + 1}" for j in range(k)]
    errors = []
    for kind in (INT, REAL):  # integers stay int64 when every value is one
        try:
            _, ints, reals, count = parse_records(
                src, pos, line, Layout([kind] * k, names=names, comments="#", comma=True, what="rows"), announced=None)
        except FormatError as exc:
            errors.append(exc)
            continue
        return np.ascontiguousarray((ints if kind == INT else reals).T)
    exc = errors[-1]
    raise FormatError(exc.path, exc.line, exc.what, context=_CTX) from exc
