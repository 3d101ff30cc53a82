"""File formats: Matrix Market, METIS, DIMACS max-flow, edge lists, matchings.

:func:`read` and :func:`write` pick the format from the file name (``format=`` overrides);
compressed files (gzip, bzip2, xz) are recognised by their magic bytes when reading and by
the suffix (``.gz``, ``.bz2``, ``.xz``) when writing. Malformed files raise
:class:`FormatError` (a ``ValueError``) naming the file and the line.

Formats (extensions; what ``read`` returns):

* ``mtx`` (``.mtx``, ``.mm``): Matrix Market; ``scipy.sparse.coo_array`` (coordinate) or
  ``numpy.ndarray`` (array).
* ``metis`` (``.graph``, ``.metis``): METIS graph; :class:`matchflow.Graph`.
* ``dimacs`` (``.max``, ``.dimacs``): DIMACS max-flow; :class:`FlowNetwork`.
* ``edgelist`` (``.el``, ``.edges``, ``.edgelist``, ``.txt``, ``.csv``, ``.tsv``): ``u v [w]``
  lines; ``scipy.sparse.coo_array``.
* ``matching`` (``.matching``): matched pairs; ``row_match`` array (``as_result=True``:
  :class:`matchflow.MatchingResult`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ._common import FormatError, PathOrFile, source_name
from ._dimacs import FlowNetwork, read_dimacs_max, write_dimacs_max
from ._edgelist import read_edgelist, write_edgelist
from ._matching import read_matching, write_matching
from ._metis import read_metis, write_metis
from ._mtx import read_mtx, write_mtx

__all__ = [
    "FORMATS",
    "FlowNetwork",
    "FormatError",
    "read",
    "read_dimacs_max",
    "read_edgelist",
    "read_matching",
    "read_metis",
    "read_mtx",
    "write",
    "write_dimacs_max",
    "write_edgelist",
    "write_matching",
    "write_metis",
    "write_mtx",
]

_EXTENSIONS = {
    ".mtx": "mtx",
    ".mm": "mtx",
    ".graph": "metis",
    ".metis": "metis",
    ".max": "dimacs",
    ".dimacs": "dimacs",
    ".el": "edgelist",
    ".edges": "edgelist",
    ".edgelist": "edgelist",
    ".txt": "edgelist",
    ".csv": "edgelist",
    ".tsv": "edgelist",
    ".matching": "matching",
}
_COMPRESSED = (".gz", ".bz2", ".xz")
_ALIASES = {"matrixmarket": "mtx", "mm": "mtx", "graph": "metis", "max": "dimacs", "dimacs_max": "dimacs",
            "el": "edgelist", "edges": "edgelist"}

#: format name -> (reader, writer)
FORMATS: dict[str, tuple[Callable[..., Any], Callable[..., None]]] = {
    "mtx": (read_mtx, write_mtx),
    "metis": (read_metis, write_metis),
    "dimacs": (read_dimacs_max, write_dimacs_max),
    "edgelist": (read_edgelist, write_edgelist),
    "matching": (read_matching, write_matching),
}


def _format_of(path: PathOrFile, format: str | None) -> str:
    if format is not None:
        if not isinstance(format, str):
            raise TypeError(f"format must be a string or None, got {type(format).__name__}")
        f = _ALIASES.get(format.lower(), format.lower())
        if f not in FORMATS:
            raise ValueError(f"format must be one of {tuple(FORMATS)} (or None to use the extension), got {format!r}")
        return f
    name = source_name(path).lower()
    base, ext = os.path.splitext(name)
    if ext in _COMPRESSED:
        base, ext = os.path.splitext(base)
    if ext in _EXTENSIONS:
        return _EXTENSIONS[ext]
    accepted = ", ".join(_EXTENSIONS)
    raise ValueError(
        f"cannot tell the format of '{source_name(path)}' from its extension; accepted extensions: {accepted} "
        f"(optionally followed by {', '.join(_COMPRESSED)}), or pass format= one of {tuple(FORMATS)}"
    )


def read(path: PathOrFile, *, format: str | None = None, **kw: Any) -> Any:
    """Read a graph, matrix, flow network or matching; the format comes from the extension.

    ``**kw`` go to the format's reader (e.g. ``one_based=True`` for edge lists).
    """
    return FORMATS[_format_of(path, format)][0](path, **kw)


def write(path: PathOrFile, obj: Any, *, format: str | None = None, **kw: Any) -> None:
    """Write ``obj`` in the format given by the extension (``format=`` overrides); ``.gz`` compresses."""
    FORMATS[_format_of(path, format)][1](path, obj, **kw)
