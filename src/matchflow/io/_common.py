"""Shared plumbing for the file formats: opening (compressed or not), FormatError, line scanning."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Union

import numpy as np

from . import _cpu_parse as _k

_INT64 = np.dtype(np.int64)

__all__ = ["FormatError", "Layout", "PathOrFile", "Source", "format_records", "open_for_write", "parse_records", "read_source",
           "source_name", "SIZE_FLOOR", "SIZE_PER_RECORD"]

#: A vertex count that only a header announces or a large vertex id implies may exceed what
#: the records present need (the reader allocates arrays of that length) up to
#: ``max(SIZE_FLOOR, SIZE_PER_RECORD * records)``; beyond, the reader raises FormatError unless
#: the caller passes a larger ``max_vertices=`` (a decompression-bomb guard in the spirit of
#: Pillow's ``MAX_IMAGE_PIXELS``).
SIZE_FLOOR = 1 << 24
SIZE_PER_RECORD = 16
_I64_LIMIT = 2**63

PathOrFile = Union[str, "os.PathLike[str]", IO[bytes]]

_GZIP_MAGIC = b"\x1f\x8b"
_BZ2_MAGIC = b"BZh"
_XZ_MAGIC = b"\xfd7zXZ\x00"


class FormatError(ValueError):
    """A malformed input file. ``path`` and ``line`` (1-based, or None) say where."""

    def __init__(self, path: str, line: int | None, what: str, context: str = "") -> None:
        self.path = path
        self.line = line
        self.what = what
        self.context = context
        where = f"{path}: line {line}: " if line is not None else f"{path}: "
        super().__init__(context + where + what)

    def __reduce__(self):  # picklable (multiprocessing, pytest-xdist)
        return (type(self), (self.path, self.line, self.what, self.context))


def source_name(src: Any) -> str:
    if isinstance(src, (str, os.PathLike)):
        return os.fspath(src)
    return str(getattr(src, "name", "<stream>"))


class Source:
    """The whole (decompressed) content of an input file as bytes, with its name for messages."""

    __slots__ = ("name", "data", "buf")

    def __init__(self, name: str, data: bytes) -> None:
        self.name = name
        self.data = data
        self.buf = np.frombuffer(data, dtype=np.uint8)

    def error(self, line: int | None, what: str) -> FormatError:
        return FormatError(self.name, line, what)

    # --------------------------------------------------------------- lines
    def next_line(self, pos: int) -> tuple[str | None, int]:
        """The line starting at byte ``pos`` (without its newline) and where the next one starts."""
        data = self.data
        if pos >= len(data):
            return None, pos
        end = data.find(b"\n", pos)
        if end < 0:
            end = len(data)
        return data[pos:end].decode("latin-1").rstrip("\r"), end + 1

    def next_data_line(self, pos: int, line: int, missing: str) -> tuple[str, int, int]:
        """Skip blank and ``%`` comment lines from byte ``pos`` (``line`` lines already read).

        Returns the stripped data line, its 1-based number and where the next line starts;
        raises FormatError(``missing``) at the file's last line when no data line is left.
        """
        while True:
            text, nxt = self.next_line(pos)
            if text is None:
                raise self.error(max(line, 1), missing)
            line += 1
            s = text.strip()
            if s and not s.startswith("%"):
                return s, line, nxt
            pos = nxt

    def check_int64(self, line: int, what: str, value: int) -> int:
        """``value`` (a size from a header) must fit in a signed 64-bit integer."""
        if value >= _I64_LIMIT:
            raise self.error(line, f"{what} {value} does not fit in a 64-bit integer")
        return value

    def check_size(self, line: int | Callable[[], int], what: str, value: int, records: int, records_name: str,
                   max_vertices: int | None, hint: str = "pass max_vertices= to allow it") -> None:
        """Refuse a vertex count ``value`` far beyond what ``records`` records need (see SIZE_FLOOR).
        ``line`` may be a callable, evaluated on the error path only."""
        limit = max(SIZE_FLOOR, SIZE_PER_RECORD * records) if max_vertices is None else int(max_vertices)
        if value > limit:
            raise self.error(line() if callable(line) else line, f"{what} is too large for the {records} {records_name} in the file: "
                                   f"{value} vertices, at most {limit} ({hint})")

    def record_line(self, pos: int, line: int, index: int, comments: str = "%") -> int:
        """Line number of the ``index``-th data record (0-based) from byte ``pos``, whose line
        number is ``line`` (blank and comment lines skipped; error paths only)."""
        seen = -1
        while True:
            text, nxt = self.next_line(pos)
            if text is None:
                return max(line - 1, 1)
            s = text.strip()
            if s and s[0] not in comments:
                seen += 1
                if seen == index:
                    return line
            pos, line = nxt, line + 1

    def line_of(self, pos: int) -> int:
        """1-based line number of byte offset ``pos`` (used on error paths only)."""
        return self.data.count(b"\n", 0, pos) + 1

    def last_line(self) -> int:
        """Number of the file's last line (where "end of file" errors point)."""
        d = self.data
        return max(d.count(b"\n") + (0 if d.endswith(b"\n") else 1), 1)

    def count_lines_from(self, pos: int) -> int:
        """An upper bound on the number of lines from ``pos`` on (sizes arrays from the data present)."""
        return self.data.count(b"\n", pos) + 1

    def max_records(self, pos: int, nfields: int, end: int | None = None) -> int:
        """An upper bound on the records of ``nfields`` fields from ``pos`` on: each needs at least
        ``2 * nfields`` bytes ("1 1\\n"), the last one minus its newline. Sizes arrays from the data
        actually present, never from a count announced in a header."""
        return ((len(self.data) if end is None else end) - pos + 1) // (2 * max(nfields, 1))

    def token_at(self, pos: int) -> str:
        """The whitespace-delimited token starting at ``pos``, shortened for messages."""
        end = pos
        data = self.data
        n = len(data)
        while end < n and end - pos < 40 and data[end] not in b" \t\r\n,":
            end += 1
        tok = data[pos:end].decode("latin-1")
        return tok + ("..." if end - pos >= 40 else "")


def _decompress(name: str, raw: bytes) -> bytes:
    try:
        if raw.startswith(_GZIP_MAGIC):
            return gzip.decompress(raw)
        if raw.startswith(_BZ2_MAGIC):
            return bz2.decompress(raw)
        if raw.startswith(_XZ_MAGIC):
            return lzma.decompress(raw)
    except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as exc:
        raise FormatError(name, None, f"corrupt compressed data ({type(exc).__name__}: {exc})") from exc
    return raw


def read_source(src: PathOrFile) -> Source:
    """Read a path or a binary file object completely; gzip/bzip2/xz are recognised by magic bytes."""
    if isinstance(src, Source):
        return src
    name = source_name(src)
    if isinstance(src, (str, os.PathLike)):
        p = Path(src)
        if not p.exists():
            raise FileNotFoundError(f"no such file: '{name}'")
        if p.is_dir():
            raise IsADirectoryError(f"'{name}' is a directory, not a file")
        raw = p.read_bytes()
    elif hasattr(src, "read"):
        raw = src.read()
        if isinstance(raw, str):
            raw = raw.encode()
    else:
        raise TypeError(f"path must be a str, an os.PathLike or a binary file object, got {type(src).__name__}")
    return Source(name, _decompress(name, bytes(raw)))


def open_for_write(dst: PathOrFile, text: str | bytes) -> None:
    """Write ``text`` to a path (gzip/bz2/xz chosen by the suffix) or to a binary file object."""
    data = text.encode() if isinstance(text, str) else text
    if isinstance(dst, (str, os.PathLike)):
        name = os.fspath(dst).lower()
        if name.endswith(".gz"):
            data = gzip.compress(data, compresslevel=6, mtime=0)
        elif name.endswith(".bz2"):
            data = bz2.compress(data)
        elif name.endswith(".xz"):
            data = lzma.compress(data)
        Path(dst).write_bytes(data)
    elif hasattr(dst, "write"):
        dst.write(data)
    else:
        raise TypeError(f"path must be a str, an os.PathLike or a binary file object, got {type(dst).__name__}")


# ------------------------------------------------------------------ records
_INT64_MIN = np.iinfo(np.int64).min
_INT64_MAX = np.iinfo(np.int64).max

INDEX, INT, REAL = 0, 1, 2  # column kinds of parse_records


@dataclass(frozen=True)
class Layout:
    """What one record line of :func:`parse_records` holds: a kind per field (INDEX, INT, REAL), optional bounds
    ``lo``/``hi`` (None: no bound) and ``shift`` per field, the field ``names`` for messages, and the line syntax:
    a ``prefix`` letter, up to two ``comments`` characters, ``comma`` separators; ``what`` names the records."""

    kinds: list[int]
    lo: list[int | None] | None = None
    hi: list[int | None] | None = None
    shift: list[int] | None = None
    names: list[str] | None = None
    prefix: str = ""
    comments: str = "%"
    comma: bool = False
    what: str = "entries"


def parse_records(src: Source, pos: int, line: int, layout: Layout, *, announced: int | None,
                  index_dtype: np.dtype = _INT64, end: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Parse fixed-field records (one per line) from ``pos`` to the end of the data.

    ``layout`` (a :class:`Layout`) says what a record holds: ``kinds[k]`` is INDEX (stored minus ``shift[k]`` in the index array), INT (int64) or REAL
    (float64, correctly rounded); ``end`` (a line start; default: the end of the data) stops early; integers are checked against ``lo[k]..hi[k]`` (None: no
    bound). ``announced`` is the record count the header promises (None: unknown); a record
    beyond it is an error. Arrays are sized from the data actually present
    (:meth:`Source.max_records`), never from ``announced``. Returns (index[:, :count],
    ints[:, :count], reals[:, :count], count); the caller checks ``count == announced``.
    """
    kinds, lo, hi, shift = layout.kinds, layout.lo, layout.hi, layout.shift
    prefix, comments = layout.prefix, layout.comments
    ncols = len(kinds)
    kinds_a = np.asarray(kinds, dtype=np.int64)
    lo_a = np.array([_INT64_MIN if x is None else x for x in (lo or [None] * ncols)], dtype=np.int64)
    hi_a = np.array([_INT64_MAX if x is None else x for x in (hi or [None] * ncols)], dtype=np.int64)
    shift_a = np.array(shift or [0] * ncols, dtype=np.int64)
    n_of = [sum(1 for k in kinds if k == kind) for kind in (INDEX, INT, REAL)]
    dtypes = (np.dtype(index_dtype), np.dtype(np.int64), np.dtype(np.float64))
    c1 = ord(comments[0]) if len(comments) > 0 else -1
    c2 = ord(comments[1]) if len(comments) > 1 else -1
    pre = ord(prefix) if prefix else -1
    args = (kinds_a, lo_a, hi_a, shift_a)
    opts = (pre, c1, c2, layout.comma)
    end = len(src.data) if end is None else end
    bound = src.max_records(pos, ncols + (1 if prefix else 0), end)
    cap = bound if announced is None else min(int(announced), bound)
    idx, ints, reals = (np.empty((k, cap), dtype=d) for k, d in zip(n_of, dtypes))
    slow_at = np.empty(cap * n_of[2], dtype=np.int64)
    slow_pos = np.empty(cap * n_of[2], dtype=np.int64)
    status, count, eline, epos, ecol, nslow, evalue = _k.parse_records_kernel(
        src.buf, pos, end, line, *args, idx, ints, reals, slow_at, slow_pos, *opts)
    if status == _k.TOO_MANY_RECORDS and (announced is None or cap < announced):
        # The size bound, not the header, stopped us: this line is too short to be a record.
        # Parse it alone to report what is wrong with it.
        one = [np.empty((a.shape[0], 1), dtype=a.dtype) for a in (idx, ints, reals)]
        status, count, eline, epos, ecol, _, evalue = _k.parse_records_kernel(
            src.buf, epos, end, eline, *args, *one, np.empty(1, np.int64), np.empty(1, np.int64), *opts)
        if status == _k.OK:  # pragma: no cover - a well-formed record always fits the bound
            raise RuntimeError(f"{src.name}: line {eline}: record size bound exceeded (please report this)")
    if status != _k.OK:
        _raise_record_error(src, (status, count, eline, epos, ecol, evalue), layout, lo_a, hi_a, announced)
    if nslow:
        reals.reshape(-1)[slow_at[:nslow]] = exact_floats(src, slow_pos[:nslow], layout.comma)
    return idx[:, :count], ints[:, :count], reals[:, :count], count


def exact_floats(src: Source, positions: np.ndarray, comma: bool) -> np.ndarray:
    """Correctly rounded float64 of the tokens starting at ``positions`` (NumPy's C parser)."""
    mat = _k.gather_tokens_kernel(src.buf, positions, comma)
    width = mat.shape[1]
    try:
        with np.errstate(over="ignore"):  # "1e400" -> inf, like float()
            return mat.view(f"S{width}").reshape(-1).astype(np.float64)
    except ValueError:  # pragma: no cover - the kernel checked the syntax already
        for p in positions:
            try:
                float(src.token_at(int(p)))
            except ValueError:
                raise src.error(src.line_of(int(p)), f"non-numeric token {src.token_at(int(p))!r}") from None
        raise


def _raise_record_error(src, err: tuple, layout: Layout, lo, hi, announced):
    """The FormatError for the kernel's ``err = (status, count, line, pos, col, value)``."""
    status, _, line, pos, col, value = err
    kinds, names, prefix, what = layout.kinds, layout.names, layout.prefix, layout.what
    col_name = names[col] if names is not None and 0 <= col < len(names) else f"field {col + 1}"
    n = len(kinds)
    if status == _k.TOO_FEW:
        raise src.error(line, f"expected {n} fields, found {col} (missing {col_name})")
    if status == _k.TOO_MANY_FIELDS:
        raise src.error(line, f"expected {n} fields, found more (extra token {src.token_at(pos)!r})")
    if status == _k.BAD_TOKEN:
        kind = "an integer" if kinds[col] != REAL else "a number"
        raise src.error(line, f"non-numeric token {src.token_at(pos)!r} where {col_name} ({kind}) was expected")
    if status == _k.OVERFLOW:
        raise src.error(line, f"{col_name} {src.token_at(pos)!r} does not fit in a 64-bit integer")
    if status == _k.OUT_OF_RANGE:
        if lo[col] > _INT64_MIN and value < lo[col]:
            raise src.error(line, f"{col_name} {value} is out of range (must be >= {lo[col]})")
        raise src.error(line, f"{col_name} {value} is out of range (must be <= {hi[col]})")
    if status == _k.TOO_MANY_RECORDS:
        raise src.error(line, f"more {what} than the {announced} announced in the header")
    if status == _k.BAD_PREFIX:
        raise src.error(line, f"expected a line starting with '{prefix}', found {src.token_at(pos)!r}")
    raise src.error(line, f"parse error (status {status})")  # pragma: no cover


def format_records(columns: list[np.ndarray], reals: np.ndarray | None = None, *, delimiter: str = " ",
                   prefix: str = "", integer_last: np.ndarray | None = None) -> bytes:
    """One line per record: ``prefix`` + the integer ``columns`` (+ the ``reals`` as shortest
    round-trip text, or the ``integer_last`` column) joined by ``delimiter``."""
    cols = list(columns) + ([integer_last] if integer_last is not None else [])
    n = len(cols[0]) if cols else (len(reals) if reals is not None else 0)
    ints = np.empty((len(cols), n), dtype=np.int64)
    for i, c in enumerate(cols):
        ints[i] = c
    if ints.size and ints.min() == _INT64_MIN:
        raise ValueError(f"cannot write the integer {_INT64_MIN}")
    if reals is not None:
        text = ("\n".join(map(repr, np.asarray(reals, dtype=np.float64).tolist())) + "\n").encode("ascii")
        extra = np.frombuffer(text if n else b"", dtype=np.uint8)
    else:
        extra = np.frombuffer(b"", dtype=np.uint8)
    pre = np.frombuffer(prefix.encode(), dtype=np.uint8)  # read-only like extra: one compiled signature
    out = _k.format_records_kernel(ints, extra, reals is not None, ord(delimiter), pre)
    return out.tobytes()
