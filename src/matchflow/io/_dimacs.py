"""DIMACS max-flow format (``.max``): ``c`` comments, ``p max n m``, ``n id s|t``, ``a u v cap``.

Node ids are 1-based in the file and 0-based in :class:`FlowNetwork`. The reader checks
one problem line, exactly one source and one sink (distinct), arcs in range,
non-negative integer capacities and that the arc count matches ``m``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._common import (
    INDEX,
    INT,
    PathOrFile,
    format_records,
    open_for_write,
    parse_records,
    read_source,
)

__all__ = ["FlowNetwork", "read_dimacs_max", "write_dimacs_max"]


@dataclass(repr=False)
class FlowNetwork:
    """A max-flow instance: ``n`` nodes, arcs ``tails[k] -> heads[k]`` with ``capacities[k]``.

    All arrays are int64 and 0-based; ``source``/``sink`` are node ids. Parallel arcs and
    self-loops are kept as in the file.
    """

    n: int
    source: int
    sink: int
    tails: np.ndarray
    heads: np.ndarray
    capacities: np.ndarray

    def __post_init__(self) -> None:
        self.n = int(self.n)
        self.source = int(self.source)
        self.sink = int(self.sink)
        self.tails = np.ascontiguousarray(self.tails, dtype=np.int64)
        self.heads = np.ascontiguousarray(self.heads, dtype=np.int64)
        self.capacities = np.ascontiguousarray(self.capacities, dtype=np.int64)
        if not (self.tails.shape == self.heads.shape == self.capacities.shape) or self.tails.ndim != 1:
            raise ValueError(
                "tails, heads and capacities must be 1-D arrays of one length, got shapes "
                f"{self.tails.shape}, {self.heads.shape} and {self.capacities.shape}"
            )

    @property
    def m(self) -> int:
        """Number of arcs."""
        return int(len(self.tails))

    def to_scipy(self) -> sp.csr_array:
        """The ``n x n`` capacity matrix (parallel arcs summed, self-loops dropped), int64 CSR."""
        keep = self.tails != self.heads
        a = sp.csr_array((self.capacities[keep], (self.tails[keep], self.heads[keep])), shape=(self.n, self.n))
        a.sum_duplicates()
        return a

    def __repr__(self) -> str:
        return f"FlowNetwork(n={self.n}, m={self.m}, source={self.source}, sink={self.sink})"


def read_dimacs_max(path: PathOrFile) -> FlowNetwork:
    """Read a DIMACS max-flow file (optionally compressed) into a :class:`FlowNetwork`."""
    src = read_source(path)
    if len(src.data) == 0:
        raise src.error(1, "empty file (expected a 'p max <nodes> <arcs>' line)")
    pos, line = 0, 0
    n = m = -1
    p_line = 0
    ends: dict[str, tuple[int, int]] = {}
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
        if kind == "a":
            break
        if kind == "p":
            if p_line:
                raise src.error(line, f"second problem line (the first is line {p_line})")
            if len(tok) != 4 or tok[1] != "max":
                raise src.error(line, f"bad problem line {text[:60]!r}: expected 'p max <nodes> <arcs>'")
            try:
                n, m = int(tok[2]), int(tok[3])
            except ValueError:
                raise src.error(line, f"bad problem line {text[:60]!r}: non-numeric token") from None
            if n < 0 or m < 0:
                raise src.error(line, f"bad problem line {text[:60]!r}: counts must be non-negative")
            p_line = line
        elif kind == "n":
            if not p_line:
                raise src.error(line, "node line before the problem line 'p max <nodes> <arcs>'")
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
        else:
            raise src.error(line, f"unexpected line {text[:60]!r}: expected 'c', 'p', 'n' or 'a' lines")
        pos = nxt
    if not p_line:
        raise src.error(line or 1, "missing problem line 'p max <nodes> <arcs>'")
    for role, what in (("s", "source"), ("t", "sink")):
        if role not in ends:
            raise src.error(line, f"no {what} node ('n <id> {role}' line) before the arcs")
    if ends["s"][0] == ends["t"][0]:
        raise src.error(ends["t"][1], f"the sink is the source (node {ends['s'][0] + 1})")
    idx, ints, _, count = parse_records(
        src, pos, line, [INDEX, INDEX, INT], announced=m,
        lo=[1, 1, 0], hi=[n, n, None], shift=[1, 1, 0], names=["tail node", "head node", "capacity"],
        prefix="a", comments="c", what="arcs",
    )
    if count != m:
        raise src.error(src.last_line(), f"end of file after {count} arcs, but the problem line (line {p_line}) announces {m}")
    return FlowNetwork(n, ends["s"][0], ends["t"][0], idx[0], idx[1], ints[0])


def write_dimacs_max(path: PathOrFile, net: FlowNetwork, *, comment: str | None = None) -> None:
    """Write a :class:`FlowNetwork` as a DIMACS max-flow file (1-based)."""
    if not isinstance(net, FlowNetwork):
        raise TypeError(f"net must be a matchflow.io.FlowNetwork, got {type(net).__name__}")
    _check_network(net)
    out = ["c written by matchflow\n"]
    if comment:
        out += [f"c {s}\n" for s in comment.splitlines()]
    out.append(f"p max {net.n} {net.m}\nn {net.source + 1} s\nn {net.sink + 1} t\n")
    body = format_records([net.tails + 1, net.heads + 1, net.capacities], prefix="a ")
    open_for_write(path, "".join(out).encode() + body)


def _check_network(net: Any) -> None:
    n = net.n
    for name in ("source", "sink"):
        v = getattr(net, name)
        if not 0 <= v < n:
            raise ValueError(f"{name} must be a node id in 0..{n - 1}, got {v}")
    if net.source == net.sink:
        raise ValueError(f"source and sink must differ, both are {net.source}")
    for name in ("tails", "heads"):
        a = getattr(net, name)
        if a.size and (a.min() < 0 or a.max() >= n):
            bad = int(a.min()) if a.min() < 0 else int(a.max())
            raise ValueError(f"{name} holds node id {bad}, out of range 0..{n - 1}")
    if net.capacities.size and net.capacities.min() < 0:
        raise ValueError(f"capacities must be non-negative, got {int(net.capacities.min())}")
