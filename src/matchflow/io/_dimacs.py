"""DIMACS max-flow format (``.max``): ``c`` comments, ``p max n m``, ``n id s|t``, ``a u v cap``.

Node ids are 1-based in the file and 0-based in :class:`FlowNetwork`. The reader checks
one problem line, exactly one source and one sink (distinct), arcs in range,
non-negative integer capacities and that the arc count matches ``m``. The container
:class:`FlowNetwork` lives in :mod:`matchflow._graph` (solvers never import I/O modules).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._graph import FlowNetwork
from ._common import INDEX, INT, Layout, PathOrFile, Source, format_records, open_for_write, parse_records, read_source

__all__ = ["FlowNetwork", "read_dimacs_max", "read_header", "write_dimacs_max"]


def read_dimacs_max(path: PathOrFile, *, max_vertices: int | None = None) -> FlowNetwork:
    """Read a DIMACS max-flow file (optionally compressed) into a :class:`FlowNetwork`.

    Capacities are int64. A node count beyond ``max(SIZE_FLOOR, 16 * arcs)`` is refused
    unless ``max_vertices=`` allows it (the network allocates one entry per node).

    Examples
    --------
    >>> from io import BytesIO
    >>> from matchflow import max_flow
    >>> from matchflow.io import read_dimacs_max
    >>> text = b"p max 4 5\\nn 1 s\\nn 4 t\\na 1 2 3\\na 1 3 2\\na 2 3 1\\na 2 4 2\\na 3 4 3\\n"
    >>> net = read_dimacs_max(BytesIO(text))
    >>> net
    FlowNetwork(n=4, m=5, source=0, sink=3)
    >>> max_flow(net, backend="cpu").flow_value
    5
    """
    src = read_source(path)
    ends: dict[str, tuple[int, int]] = {}

    def node_line(tok: list[str], text: str, line: int, n: int) -> None:
        if len(tok) != 3 or tok[2] not in ("s", "t"):
            raise src.error(line, f"bad node line {text[:60]!r}: expected 'n <id> s' or 'n <id> t'")
        try:
            v = int(tok[1])
        except ValueError:
            raise src.error(line, f"bad node line {text[:60]!r}: non-numeric node id") from None
        if not 1 <= v <= n:
            raise src.error(line, f"node id {v} is out of range 1..{n}")
        role = tok[2]
        if role in ends:
            what = "source" if role == "s" else "sink"
            raise src.error(line, f"second {what} node (the first is on line {ends[role][1]})")
        ends[role] = (v - 1, line)

    n, m, p_line, pos, line = read_header(src, "max", {"n": node_line}, stop=("a",))
    for role, what in (("s", "source"), ("t", "sink")):
        if role not in ends:
            raise src.error(line, f"no {what} node ('n <id> {role}' line) before the arcs")
    if ends["s"][0] == ends["t"][0]:
        raise src.error(ends["t"][1], f"the sink is the source (node {ends['s'][0] + 1})")
    idx, ints, _, count = parse_records(
        src, pos, line, Layout([INDEX, INDEX, INT], lo=[1, 1, 0], hi=[n, n, None], shift=[1, 1, 0],
                               names=["tail node", "head node", "capacity"], prefix="a", comments="c", what="arcs"),
        announced=m,
    )
    if count != m:
        raise src.error(src.last_line(), f"end of file after {count} arcs, but the problem line (line {p_line}) announces {m}")
    src.check_size(p_line, f"node count {n}", n, count, "arcs", max_vertices)
    return FlowNetwork(n, ends["s"][0], ends["t"][0], idx[0], idx[1], ints[0])


def write_dimacs_max(path: PathOrFile, net: FlowNetwork, *, comment: str | None = None) -> None:
    """Write a :class:`FlowNetwork` as a DIMACS max-flow file (1-based).

    Examples
    --------
    >>> from io import BytesIO
    >>> from matchflow.io import read_dimacs_max, write_dimacs_max
    >>> net = read_dimacs_max(BytesIO(b"p max 3 2\\nn 1 s\\nn 3 t\\na 1 2 4\\na 2 3 5\\n"))
    >>> buf = BytesIO()
    >>> write_dimacs_max(buf, net)
    >>> print(buf.getvalue().decode())
    c written by matchflow
    p max 3 2
    n 1 s
    n 3 t
    a 1 2 4
    a 2 3 5
    <BLANKLINE>
    """
    if not isinstance(net, FlowNetwork):
        raise TypeError(f"net must be a matchflow.io.FlowNetwork, got {type(net).__name__}")
    _check_network(net)
    out = ["c written by matchflow\n"]
    if comment:
        out += [f"c {s}\n" for s in comment.splitlines()]
    out.append(f"p max {net.n} {net.m}\nn {net.source + 1} s\nn {net.sink + 1} t\n")
    body = format_records([net.tails + 1, net.heads + 1, net.capacities.astype(np.int64)], prefix="a ")
    open_for_write(path, "".join(out).encode() + body)


def _check_network(net: Any) -> None:
    # the container validated ids, source/sink and signs; DIMACS capacities are integers
    c = net.capacities
    if c.dtype.kind == "f":
        if c.size and not np.all((c == np.round(c)) & (np.abs(c) < 2.0**63)):
            raise ValueError("DIMACS capacities must be integers; the network holds fractional capacities")
    elif c.dtype == np.uint64 and c.size and c.max() > np.iinfo(np.int64).max:
        raise ValueError(f"capacity {int(c.max())} does not fit in a 64-bit signed integer")


_WORDS = {"n": "node", "a": "arc"}


def read_header(src: Source, problem: str, handlers: dict[str, Callable[[list[str], str, int, int], None]],
                stop: tuple[str, ...]) -> tuple[int, int, int, int, int]:
    """The ``c`` comment lines, the problem line ``p <problem> <nodes> <arcs>`` and the descriptor lines
    before the first line whose kind is in ``stop`` (``handlers[kind](tokens, text, line, nodes)`` reads
    the others). Returns (nodes, arcs, problem line, byte offset and number of the stopping line)."""
    if len(src.data) == 0:
        raise src.error(1, f"empty file (expected a 'p {problem} <nodes> <arcs>' line)")
    pos, line, n, m, p_line = 0, 0, -1, -1, 0
    kinds = ", ".join(f"'{k}'" for k in ("c", "p", *handlers, *stop)[:-1]) + f" or '{stop[-1]}'"
    while True:
        text, nxt = src.next_line(pos)
        if text is None:
            break
        line += 1
        tok = text.split()
        if not tok or tok[0].startswith("c"):
            pos = nxt
            continue
        kind = tok[0]
        if kind in handlers or kind in stop:
            if not p_line:
                raise src.error(line, f"{_WORDS.get(kind, kind)} line before the problem line "
                                      f"'p {problem} <nodes> <arcs>'")
            if kind in stop:
                break
            handlers[kind](tok, text, line, n)
        elif kind == "p":
            n, m = _problem_line(src, problem, tok, text, line, p_line)
            p_line = line
        else:
            raise src.error(line, f"unexpected line {text[:60]!r}: expected {kinds} lines")
        pos = nxt
    if not p_line:
        raise src.error(line or 1, f"missing problem line 'p {problem} <nodes> <arcs>'")
    return n, m, p_line, pos, line


def _problem_line(src: Source, problem: str, tok: list[str], text: str, line: int, p_line: int) -> tuple[int, int]:
    if p_line:
        raise src.error(line, f"second problem line (the first is line {p_line})")
    if len(tok) != 4 or tok[1] != problem:
        other = {"max": "min", "min": "max"}.get(problem)
        hint = (f" (a 'p {other}' file is read with format='dimacs{'_min' if other == 'min' else ''}')"
                if len(tok) > 1 and tok[1] == other else "")
        raise src.error(line, f"bad problem line {text[:60]!r}: expected 'p {problem} <nodes> <arcs>'{hint}")
    try:
        n, m = int(tok[2]), int(tok[3])
    except ValueError:
        raise src.error(line, f"bad problem line {text[:60]!r}: non-numeric token") from None
    if n < 0 or m < 0:
        raise src.error(line, f"bad problem line {text[:60]!r}: counts must be non-negative")
    src.check_int64(line, "node count", n)
    src.check_int64(line, "arc count", m)
    return n, m
