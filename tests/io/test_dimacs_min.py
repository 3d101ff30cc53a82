"""DIMACS min-cost flow files (``.min``): round trip, signs, comments, line endings, errors named by line,
announced sizes that lie, and sizes taken from the data."""

from __future__ import annotations

import gzip
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest

import matchflow.io as mio
from matchflow.io import FormatError, MinCostFlowProblem
from matchflow.io import _common as common

_TEXT = ("c a small network\np min 4 5\nn 1 4\nc sink below\nn 4 -4\n"
         "a 1 2 0 4 2\na 1 3 1 2 2\na 2 3 0 2 1\na 2 4 0 3 3\na 3 4 0 5 1\n")


def _write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def _random_problem(seed: int, n: int = 30, m: int = 90) -> MinCostFlowProblem:
    rng = np.random.default_rng(seed)
    supply = np.zeros(n, dtype=np.int64)
    nodes = rng.choice(n, 6, replace=False)
    supply[nodes[:3]] = rng.integers(1, 50, 3)
    supply[nodes[3:5]] = -rng.integers(1, 50, 2)
    supply[nodes[5]] = -supply.sum()  # balanced
    low = rng.integers(0, 3, m) * (rng.random(m) < 0.3)
    ring = np.arange(n)  # a cycle through every node with room for all the flow: feasible
    tail = np.concatenate([rng.integers(0, n, m), ring])
    head = np.concatenate([rng.integers(0, n, m), (ring + 1) % n])
    low = np.concatenate([low, np.zeros(n, np.int64)])
    cap = low + np.concatenate([rng.integers(0, 9, m), np.full(n, 10**4)])
    return MinCostFlowProblem(n, tail, head, low, cap, rng.integers(-20, 100, m + n), -supply)


def _same(a: MinCostFlowProblem, b: MinCostFlowProblem) -> None:
    assert a.n == b.n
    for name in ("tail", "head", "low", "cap", "cost", "demand"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def test_read_small_file_signs_and_lower_bounds(tmp_path):
    p = mio.read(_write(tmp_path, "t.min", _TEXT))
    assert isinstance(p, MinCostFlowProblem) and (p.n, p.m) == (4, 5)
    assert p.demand.tolist() == [-4, 0, 0, 4]  # DIMACS supply 4 at node 1 sends: demand -4
    assert p.tail.tolist() == [0, 0, 1, 1, 2] and p.head.tolist() == [1, 2, 2, 3, 3]
    assert p.low.tolist() == [0, 1, 0, 0, 0] and p.cap.tolist() == [4, 2, 2, 3, 5]
    assert p.cost.tolist() == [2, 2, 1, 3, 1]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("name", ["r.min", "r.min.gz"])
def test_round_trip(tmp_path, seed, name):
    p = _random_problem(seed)
    mio.write(tmp_path / name, p, comment=f"seed {seed}\nsecond line")
    raw = (tmp_path / name).read_bytes()
    assert raw.startswith(b"\x1f\x8b") == name.endswith(".gz")  # gzip by suffix
    _same(mio.read(tmp_path / name), p)


def test_round_trip_through_networkx_cost():
    nx = pytest.importorskip("networkx")
    p = _random_problem(7)
    q, constant = p.shifted()
    buf = BytesIO()
    mio.write_dimacs_min(buf, p)
    r, constant2 = mio.read_dimacs_min(BytesIO(buf.getvalue())).shifted()
    assert constant == constant2 == int((p.low * p.cost).sum())
    assert nx.min_cost_flow_cost(r.to_networkx()) == nx.min_cost_flow_cost(q.to_networkx())


def test_crlf_comments_blank_lines_and_missing_final_newline(tmp_path):
    want = mio.read(_write(tmp_path, "a.min", _TEXT))
    text = _TEXT.replace("\n", "\r\n").replace("a 2 3", "c inside the arcs\r\n\r\na 2 3").rstrip("\r\n")
    _same(mio.read(_write(tmp_path, "b.min", text)), want)
    _same(mio.read(_write(tmp_path, "c.min", _TEXT.rstrip("\n"))), want)
    _same(mio.read(_write(tmp_path, "d.min.gz", gzip.compress(_TEXT.encode()))), want)


def test_no_node_lines_and_no_arcs(tmp_path):
    p = mio.read(_write(tmp_path, "e.min", "p min 3 0\n"))
    assert (p.n, p.m) == (3, 0) and p.demand.tolist() == [0, 0, 0]
    p = mio.read(_write(tmp_path, "f.min", "p min 2 1\na 1 2 0 5 -3\n"))
    assert p.cost.tolist() == [-3] and not p.demand.any()


_H = "c x\np min 3 2\n"


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("", r"file\.min: line 1: empty file \(expected a 'p min"),
        ("c only\n", r"file\.min: line 1: missing problem line 'p min"),
        ("c x\np max 3 2\n", r"file\.min: line 2: bad problem line.*'p max' file is read with format='dimacs'"),
        ("c x\np min 3\n", r"file\.min: line 2: bad problem line"),
        ("c x\np min -3 2\n", r"file\.min: line 2: bad problem line.*non-negative"),
        (_H + "p min 3 2\n", r"file\.min: line 3: second problem line \(the first is line 2\)"),
        ("c x\nn 1 3\n", r"file\.min: line 2: node line before the problem line"),
        ("c x\na 1 2 0 1 1\n", r"file\.min: line 2: arc line before the problem line"),
        (_H + "x 1\n", r"file\.min: line 3: unexpected line.*'c', 'p', 'n' or 'a'"),
        (_H + "n 1 3\nn 4 -3\n", r"file\.min: line 4: node id 4 is out of range \(must be <= 3\)"),
        (_H + "n 1 3\nn 3 z\n", r"file\.min: line 4: non-numeric token 'z' where supply"),
        (_H + "n 1 3\nn 3\n", r"file\.min: line 4: expected 2 fields, found 1 \(missing supply\)"),
        (_H + "n 1 3\nc c\nn 1 -3\n", r"file\.min: line 5: node 1 is listed again \(first on line 3\)"),
        (_H + "n 1 1\na 1 2 0 1 1\nn 2 -1\n", r"file\.min: line 5: expected a line starting with 'a'"),
        (_H + "a 1 2 0 1 1\na 1 4 0 1 1\n", r"file\.min: line 4: head node 4 is out of range \(must be <= 3\)"),
        (_H + "a 1 2 -1 1 1\n", r"file\.min: line 3: lower bound -1 is out of range \(must be >= 0\)"),
        (_H + "a 1 2 0 -1 1\n", r"file\.min: line 3: capacity -1 is out of range \(must be >= 0\)"),
        (_H + "a 1 2 0 1 1.5\n", r"file\.min: line 3: non-numeric token '1\.5' where cost"),
        (_H + "a 1 2 0 1\n", r"file\.min: line 3: expected 5 fields, found 4 \(missing cost\)"),
        (_H + "a 1 2 0 1 1 7\n", r"file\.min: line 3: expected 5 fields, found more"),
        (_H + "a 1 2 0 1 1\nc\na 2 3 5 4 1\n", r"file\.min: line 5: lower bound 5 is above the capacity 4"),
        (_H + "n 1 -9223372036854775808\n", r"file\.min: line 3: supply '-9223372036854775808' does not fit"),
        (_H + "a 1 2 0 1 99999999999999999999\n", r"file\.min: line 3: cost .* does not fit in a 64-bit integer"),
    ],
)
def test_errors_name_file_and_line(tmp_path, text, pattern):
    with pytest.raises(FormatError, match=pattern):
        mio.read(_write(tmp_path, "file.min", text))


def test_announced_arc_count_lies_both_ways(tmp_path):
    with pytest.raises(FormatError, match=r"x\.min: line 3: end of file after 1 arcs, but the problem line "
                                          r"\(line 2\) announces 2"):
        mio.read(_write(tmp_path, "x.min", _H + "a 1 2 0 1 1\n"))
    with pytest.raises(FormatError, match=r"y\.min: line 5: more arcs than the 2 announced"):
        mio.read(_write(tmp_path, "y.min", _H + "a 1 2 0 1 1\na 2 3 0 1 1\na 1 3 0 1 1\n"))


def test_announced_node_count_lies_both_ways(tmp_path):
    with pytest.raises(FormatError, match=r"z\.min: line 4: tail node 3 is out of range \(must be <= 2\)"):
        mio.read(_write(tmp_path, "z.min", "c x\np min 2 2\na 1 2 0 1 1\na 3 2 0 1 1\n"))
    p = mio.read(_write(tmp_path, "w.min", "p min 10 1\na 1 2 0 1 1\n"))  # more nodes than used: isolated ones
    assert p.n == 10 and p.demand.shape == (10,)


def test_huge_announced_sizes_are_not_allocated(tmp_path, monkeypatch):
    with pytest.raises(FormatError, match=r"h\.min: line 1: node count 100000000000 is too large for the 2 records"):
        mio.read(_write(tmp_path, "h.min", "p min 100000000000 1\nn 1 0\na 1 2 0 5 1\n"))
    with pytest.raises(FormatError, match=r"h2\.min: line 1: arc count 9223372036854775808 does not fit"):
        mio.read(_write(tmp_path, "h2.min", "p min 3 9223372036854775808\n"))
    with pytest.raises(FormatError, match=r"h3\.min: line 1: node count 10 is too large.*at most 5"):
        mio.read(_write(tmp_path, "h3.min", "p min 10 1\na 1 2 0 5 1\n"), max_vertices=5)
    # the arc arrays are sized from the bytes present, never from the announced count
    sizes = []
    real = common._k.parse_records_kernel

    def spy(*a):
        sizes.append(max(a[8].shape[1], a[9].shape[1]))
        return real(*a)

    monkeypatch.setattr(common._k, "parse_records_kernel", spy)
    with pytest.raises(FormatError, match="end of file after 1 arcs"):
        mio.read(_write(tmp_path, "h4.min", "p min 3 1000000000000\na 1 2 0 5 1\n"))
    assert sizes and max(sizes) < 100


def test_format_by_name_alias_and_index_base(tmp_path):
    f = _write(tmp_path, "t.txt", _TEXT)
    _same(mio.read(f, format="mcf"), mio.read(_write(tmp_path, "t.min", _TEXT)))
    assert mio.read(f, format="min", index_base=1).m == 5
    with pytest.raises(ValueError, match="index_base=0 does not apply to dimacs_min files"):
        mio.read(f, format="min", index_base=0)


def test_writer_and_container_checks(tmp_path):
    with pytest.raises(TypeError, match="problem must be a matchflow.io.MinCostFlowProblem"):
        mio.write_dimacs_min(tmp_path / "x.min", object())
    with pytest.raises(ValueError, match=r"arc ends must lie in 0\.\.2"):
        MinCostFlowProblem(3, [0], [3], [0], [1], [1], [0, 0, 0])
    with pytest.raises(ValueError, match=r"demand must have one entry per node \(3\)"):
        MinCostFlowProblem(3, [0], [1], [0], [1], [1], [0, 0])
    with pytest.raises(ValueError, match="lower bound 2 above its capacity 1"):
        MinCostFlowProblem(3, [0], [1], [2], [1], [1], [0, 0, 0]).shifted()


def test_shift_moves_lower_bounds_into_demands():
    p = mio.read_dimacs_min(BytesIO(_TEXT.encode()))
    q, constant = p.shifted()
    assert constant == 2 and not q.low.any()
    assert q.cap.tolist() == [4, 1, 2, 3, 5] and q.demand.tolist() == [-3, 0, -1, 4]
    assert q.demand.sum() == p.demand.sum()
