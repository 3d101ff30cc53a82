"""File formats: Matrix Market, METIS, DIMACS max-flow and min-cost flow, edge lists, matchings.

:func:`read` and :func:`write` pick the format from the file name (``format=`` overrides);
compressed files (gzip, bzip2, xz) are recognised by their magic bytes when reading and by
the suffix (``.gz``, ``.bz2``, ``.xz``) when writing. A file whose extension says nothing
precise (``.txt``, or an unknown one) but whose first line is a ``%%MatrixMarket`` or
``%%MatchFlow matching`` banner is read in that format. Malformed files raise
:class:`FormatError` (a ``ValueError``) naming the file and the line. Readers size every
array from the data present, never from a header: a header that announces (or a vertex id
that implies) far more vertices than the records need is a FormatError unless
``max_vertices=`` allows it (:data:`SIZE_FLOOR`, :data:`SIZE_PER_RECORD`).

Index base: Matrix Market, METIS and DIMACS files are 1-based by definition; matching
files say their base in the banner (1-based unless ``0-based``); edge lists are read with
``index_base=0``, ``1`` or ``"auto"`` (default; see :func:`read_edgelist`).

Formats (extensions; what ``read`` returns):

* ``mtx`` (``.mtx``, ``.mm``): Matrix Market; ``scipy.sparse.coo_array`` (coordinate) or
  ``numpy.ndarray`` (array).
* ``metis`` (``.graph``, ``.metis``): METIS graph; :class:`matchflow.Graph`.
* ``dimacs`` (``.max``, ``.dimacs``): DIMACS max-flow; :class:`FlowNetwork`.
* ``dimacs_min`` (``.min``): DIMACS min-cost flow; :class:`MinCostFlowProblem` (``demand = -supply``:
  networkx's sign convention; lower bounds as read).
* ``edgelist`` (``.el``, ``.edges``, ``.edgelist``, ``.txt``, ``.csv``, ``.tsv``): ``u v [w]``
  lines; ``scipy.sparse.coo_array``.
* ``matching`` (``.matching``): matched pairs; ``row_match`` array (``as_result=True``:
  :class:`matchflow.MatchingResult`).

:func:`read_cost_matrix` reads a dense cost matrix for the assignment solvers (``.npy``,
delimited text, Matrix Market).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .._graph import FlowNetwork
from ._common import SIZE_FLOOR, SIZE_PER_RECORD, FormatError, PathOrFile, read_source, source_name
from ._cost import read_cost_matrix
from ._dimacs import read_dimacs_max, write_dimacs_max
from ._dimacs_min import MinCostFlowProblem, read_dimacs_min, write_dimacs_min
from ._edgelist import INDEX_BASES, read_edgelist, write_edgelist
from ._matching import read_matching, write_matching
from ._metis import read_metis, write_metis
from ._mtx import read_mtx, write_mtx

__all__ = [
    "FORMATS",
    "FlowNetwork",
    "FormatError",
    "INDEX_BASES",
    "MinCostFlowProblem",
    "SIZE_FLOOR",
    "SIZE_PER_RECORD",
    "read",
    "read_cost_matrix",
    "read_dimacs_max",
    "read_dimacs_min",
    "read_edgelist",
    "read_matching",
    "read_metis",
    "read_mtx",
    "write",
    "write_dimacs_max",
    "write_dimacs_min",
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
    ".min": "dimacs_min",
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
            "min": "dimacs_min", "mcf": "dimacs_min",
            "el": "edgelist", "edges": "edgelist"}

#: format name -> (reader, writer)
FORMATS: dict[str, tuple[Callable[..., Any], Callable[..., None]]] = {
    "mtx": (read_mtx, write_mtx),
    "metis": (read_metis, write_metis),
    "dimacs": (read_dimacs_max, write_dimacs_max),
    "dimacs_min": (read_dimacs_min, write_dimacs_min),
    "edgelist": (read_edgelist, write_edgelist),
    "matching": (read_matching, write_matching),
}


_ONE_BASED = ("mtx", "metis", "dimacs", "dimacs_min")
_BANNERS = ((b"%%matrixmarket", "mtx"), (b"%%matchflow matching", "matching"))
_VAGUE = (None, "edgelist")  # extension unknown, or a generic text one (.txt, .csv, ...)


def _format_by_name(path: PathOrFile) -> str | None:
    name = source_name(path).lower()
    base, ext = os.path.splitext(name)
    if ext in _COMPRESSED:
        base, ext = os.path.splitext(base)
    return _EXTENSIONS.get(ext)


def _format_of(path: PathOrFile, format: str | None) -> str:
    if format is not None:
        if not isinstance(format, str):
            raise TypeError(f"format must be a string or None, got {type(format).__name__}")
        f = _ALIASES.get(format.lower(), format.lower())
        if f not in FORMATS:
            raise ValueError(f"format must be one of {tuple(FORMATS)} (or None to use the extension), got {format!r}")
        return f
    f = _format_by_name(path)
    if f is not None:
        return f
    accepted = ", ".join(_EXTENSIONS)
    raise ValueError(
        f"cannot tell the format of '{source_name(path)}' from its extension or its first line; accepted "
        f"extensions: {accepted} (optionally followed by {', '.join(_COMPRESSED)}), or pass format= one of "
        f"{tuple(FORMATS)}"
    )


def _sniff(src: Any) -> str | None:
    head = src.data[:64].lstrip().lower()
    return next((f for banner, f in _BANNERS if head.startswith(banner)), None)


def read(path: PathOrFile, *, format: str | None = None, index_base: int | str | None = None, **kw: Any) -> Any:
    """Read a graph, matrix, flow network or matching; the format comes from the extension
    (or, for ``.txt`` and unknown extensions, from a ``%%`` banner on the first line).

    ``index_base`` (0, 1 or "auto") applies to edge lists; the other formats fix their own
    base (passing theirs, or "auto", is accepted). ``**kw`` go to the format's reader
    (e.g. ``max_vertices=``, ``shape=``, ``bipartite=True`` for edge lists).

    Examples
    --------
    >>> from io import BytesIO
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from matchflow.io import read, write
    >>> buf = BytesIO()  # or a path: "graph.mtx", "graph.mtx.gz", ...
    >>> write(buf, sp.coo_array(np.array([[0, 2], [3, 0]])), format="mtx")
    >>> read(BytesIO(buf.getvalue()), format="mtx").toarray().tolist()
    [[0, 2], [3, 0]]
    """
    f = _format_of(path, format) if format is not None or _format_by_name(path) not in _VAGUE else None
    if f is None:  # look at the first line
        src = read_source(path)
        f = _sniff(src) or _format_by_name(path)
        if f is None:
            _format_of(path, None)  # raises the "cannot tell the format" error
        path = src
    if index_base is not None:
        if f == "edgelist":
            kw["index_base"] = index_base
        elif not (index_base == "auto" or (f in _ONE_BASED and index_base == 1 and index_base is not True)):
            what = "files say their base in the banner" if f == "matching" else "files are 1-based by definition"
            raise ValueError(f"index_base={index_base!r} does not apply to {f} files ({f} {what}); "
                             "it sets the base of edge lists")
    return FORMATS[f][0](path, **kw)


def write(path: PathOrFile, obj: Any, *, format: str | None = None, **kw: Any) -> None:
    """Write ``obj`` in the format given by the extension (``format=`` overrides); ``.gz`` compresses.

    Examples
    --------
    >>> from io import BytesIO
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from matchflow.io import write
    >>> buf = BytesIO()  # or a path: the extension picks the format
    >>> write(buf, sp.coo_array(np.array([[0, 2], [3, 0]])), format="mtx")
    >>> print(buf.getvalue().decode())
    %%MatrixMarket matrix coordinate integer general
    % written by matchflow
    2 2 2
    1 2 2
    2 1 3
    <BLANKLINE>
    """
    FORMATS[_format_of(path, format)][1](path, obj, **kw)
