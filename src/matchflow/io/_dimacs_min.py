"""DIMACS min-cost flow format (``.min``): ``c`` comments, ``p min n m``, ``n id flow``, ``a u v low cap cost``.

Node ids are 1-based in the file and 0-based in :class:`MinCostFlowProblem`. **Signs:** a DIMACS node line
gives the node's *supply* (``flow > 0``: a source, ``< 0``: a sink; unlisted nodes 0); the problem's
``demand`` follows networkx (``demand > 0`` receives), so ``demand = -supply``; the writer negates back.
Lower bounds are returned as they are (``MinCostFlowProblem.shifted()`` removes them). The reader checks one
problem line, node lines before the arcs with each node listed once, ids in range, ``0 <= low <= cap``,
integer costs and that the arc count matches ``m``; it does not check that the supplies balance (the solver
does, naming the unmet amount). Node and arc lines are parsed by the shared record kernel; sizes come
from the data, never from the problem line.
"""

from __future__ import annotations

import re

import numpy as np

from .._mcf_problem import MinCostFlowProblem
from ._common import INDEX, INT, Layout, PathOrFile, Source, format_records, open_for_write, parse_records, read_source
from ._dimacs import read_header

__all__ = ["MinCostFlowProblem", "read_dimacs_min", "write_dimacs_min"]

_ARC_LINE = re.compile(rb"^[ \t]*a", re.MULTILINE)
_I64_MAX = 2**63 - 1  # -2**63 has no negation (demand = -supply) and is not written


def read_dimacs_min(path: PathOrFile, *, max_vertices: int | None = None) -> MinCostFlowProblem:
    """Read a DIMACS min-cost flow file (optionally compressed) into a :class:`MinCostFlowProblem`.

    All arrays are int64; ``demand = -supply`` (networkx's convention, see the module notes). A node
    count beyond ``max(SIZE_FLOOR, 16 * records)`` is refused unless ``max_vertices=`` allows it.

    Examples
    --------
    >>> from io import BytesIO
    >>> from matchflow.io import read_dimacs_min
    >>> text = b"c two units from 1 to 3\\np min 3 3\\nn 1 2\\nn 3 -2\\na 1 2 0 2 1\\na 2 3 0 2 1\\na 1 3 1 1 5\\n"
    >>> p = read_dimacs_min(BytesIO(text))
    >>> p
    MinCostFlowProblem(n=3, m=3, supply=2)
    >>> p.demand.tolist(), p.low.tolist(), p.cost.tolist()
    ([-2, 0, 2], [0, 0, 1], [1, 1, 5])

    References
    ----------
    DIMACS, "Minimum Cost Flow Problems", The First DIMACS International Algorithm Implementation
    Challenge: Problem Definitions and Specifications (1991).
    """
    src = read_source(path)
    n, m, p_line, pos, line = read_header(src, "min", {}, stop=("n", "a"))
    ids, supply, pos, line = _node_lines(src, pos, line, n)
    arcs = Layout([INDEX, INDEX, INT, INT, INT], lo=[1, 1, 0, 0, -_I64_MAX], hi=[n, n, None, None, None],
                  shift=[1, 1, 0, 0, 0], names=["tail node", "head node", "lower bound", "capacity", "cost"],
                  prefix="a", comments="c", what="arcs")
    idx, ints, _, count = parse_records(src, pos, line, arcs, announced=m)
    if count != m:
        raise src.error(src.last_line(), f"end of file after {count} arcs, but the problem line (line {p_line}) announces {m}")
    low, cap, cost = ints
    bad = np.flatnonzero(low > cap)
    if bad.size:
        k = int(bad[0])
        raise src.error(src.record_line(pos, line, k, "c"),
                        f"lower bound {int(low[k])} is above the capacity {int(cap[k])}")
    src.check_size(p_line, f"node count {n}", n, count + len(ids), "records", max_vertices)
    demand = np.zeros(n, dtype=np.int64)
    demand[ids] = -supply
    return MinCostFlowProblem(n, idx[0], idx[1], low, cap, cost, demand)


def _node_lines(src: Source, pos: int, line: int, n: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The ``n id flow`` lines from ``pos`` to the first arc line: (0-based ids, supplies, where the arcs
    start, their line number). A node listed twice is an error naming both lines."""
    hit = _ARC_LINE.search(src.data, pos)
    end = len(src.data) if hit is None else hit.start()
    nodes = Layout([INDEX, INT], lo=[1, -_I64_MAX], hi=[n, None], shift=[1, 0], names=["node id", "supply"],
                   prefix="n", comments="c", what="node lines")
    idx, ints, _, count = parse_records(src, pos, line, nodes, announced=None, end=end)
    ids, supply = idx[0], ints[0]
    if count > 1:
        order = np.argsort(ids, kind="stable")
        same = np.flatnonzero(ids[order[1:]] == ids[order[:-1]])
        if same.size:
            second = int(order[1:][same].min())
            first = int(np.flatnonzero(ids == ids[second])[0])
            raise src.error(src.record_line(pos, line, second, "c"), f"node {int(ids[second]) + 1} is listed again "
                                                                     f"(first on line {src.record_line(pos, line, first, 'c')})")
    return ids, supply, end, line + src.data.count(b"\n", pos, end)


def write_dimacs_min(path: PathOrFile, problem: MinCostFlowProblem, *, comment: str | None = None) -> None:
    """Write a :class:`MinCostFlowProblem` as a DIMACS min-cost flow file (1-based; ``n`` lines give the
    supply ``-demand`` of the nodes where it is nonzero).

    Examples
    --------
    >>> from io import BytesIO
    >>> from matchflow.io import MinCostFlowProblem, write_dimacs_min
    >>> p = MinCostFlowProblem(3, [0, 1], [1, 2], [0, 0], [4, 4], [2, 3], [-2, 0, 2])
    >>> buf = BytesIO()
    >>> write_dimacs_min(buf, p)
    >>> print(buf.getvalue().decode())
    c written by matchflow
    p min 3 2
    n 1 2
    n 3 -2
    a 1 2 0 4 2
    a 2 3 0 4 3
    <BLANKLINE>
    """
    if not isinstance(problem, MinCostFlowProblem):
        raise TypeError(f"problem must be a matchflow.io.MinCostFlowProblem, got {type(problem).__name__}")
    out = ["c written by matchflow\n"]
    if comment:
        out += [f"c {s}\n" for s in comment.splitlines()]
    out.append(f"p min {problem.n} {problem.m}\n")
    nz = np.flatnonzero(problem.demand)
    nodes = format_records([nz + 1, -problem.demand[nz]], prefix="n ")
    arcs = format_records([problem.tail + 1, problem.head + 1, problem.low, problem.cap, problem.cost], prefix="a ")
    open_for_write(path, "".join(out).encode() + nodes + arcs)
