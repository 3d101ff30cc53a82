"""Readers never allocate from announced sizes; index bases of edge lists; matching files read back;
read_cost_matrix with the project's own parsers. Each reproducer failed before the fix (noted)."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import matchflow as mf
from matchflow import io as mio
from matchflow.io import FormatError


def _w(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


# ------------------------------------------------------------ announced sizes
@pytest.mark.parametrize(
    "name, text, pattern",
    [
        # before: MemoryError (allocated an (n, ncon) array from the header)
        ("a.graph", "3 0 10 100000000000\n1\n1\n1\n",
         r"a\.graph: line 1: the header announces ncon=100000000000 vertex weights for each of the 3 vertices "
         r"\(300000000000 numbers\) but the file holds at most 3 numbers"),
        # before: MemoryError (row_match of n_rows entries)
        ("b.matching", "%%MatchFlow matching\n100000000000 5 0\n",
         r"b\.matching: line 2: n_rows 100000000000 is too large for the 0 pairs in the file: 100000000000 "
         r"vertices, at most 16777216 \(pass max_vertices= to allow it\)"),
        ("b2.matching", "%%MatchFlow matching\n3 99999999999999999999 0\n",
         r"b2\.matching: line 2: n_cols 99999999999999999999 does not fit in a 64-bit integer"),
        # before: OverflowError
        ("c.mtx", "%%MatrixMarket matrix coordinate pattern general\n9223372036854775808 2 0\n",
         r"c\.mtx: line 2: bad size line: rows 9223372036854775808 does not fit in a 64-bit integer"),
        ("c2.mtx", "%%MatrixMarket matrix array real general\n2 18446744073709551616\n",
         r"c2\.mtx: line 2: bad size line: columns 18446744073709551616 does not fit in a 64-bit integer"),
        # before: a 1e11 x 1e11 matrix, then a traceback in any solver
        ("d.el", "0 1\n1 99999999999\n",
         r"d\.el: line 2: vertex id 99999999999 \(v\) is too large for the 2 edges in the file: 100000000000 "
         r"vertices, at most 16777216 \(pass shape= or max_vertices= to allow it\)"),
        # before: OverflowError
        ("d2.el", "# c\n9223372036854775807 1\n0 1\n",
         r"d2\.el: line 2: vertex id 9223372036854775807 \(u\) is too large"),
        # before: a 1e11 x 1e11 coo_array, then a MemoryError in any solver or CSR conversion (issue 21, 8a)
        ("f.mtx", "%%MatrixMarket matrix coordinate real general\r\n% c\r\n99999999999 5 1\r\n1 1 2.5",
         r"f\.mtx: line 3: rows 99999999999 is too large for the 1 entries in the file: 99999999999 vertices, "
         r"at most 16777216 \(pass max_vertices= to allow it\)"),
        ("f2.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n20000000 20000000 2\n2 1\n3 1\n",
         r"f2\.mtx: line 2: rows 20000000 is too large for the 2 entries in the file"),
        ("f3.mtx", "%%MatrixMarket matrix coordinate integer general\n2 20000000 1\n1 1 7\n",
         r"f3\.mtx: line 2: columns 20000000 is too large for the 1 entries in the file"),
        ("e.max", "p max 100000000000 1\nn 1 s\nn 2 t\na 1 2 5\n",
         r"e\.max: line 1: node count 100000000000 is too large for the 1 arcs in the file"),
        ("e2.max", "p max 9223372036854775808 1\n",
         r"e2\.max: line 1: node count 9223372036854775808 does not fit in a 64-bit integer"),
    ],
)
def test_announced_sizes_are_format_errors(tmp_path, name, text, pattern):
    with pytest.raises(FormatError, match=pattern):
        mio.read(_w(tmp_path, name, text))


def test_max_vertices_allows_a_large_announced_size(tmp_path):
    rm = mio.read(_w(tmp_path, "m.matching", "%%MatchFlow matching\n20000000 3 1\n2 3\n"), max_vertices=20_000_000)
    assert rm.shape == (20_000_000,) and rm[1] == 2 and (rm >= 0).sum() == 1
    a = mio.read(_w(tmp_path, "e.el", "0 1\n1 20000000\n"), max_vertices=20_000_001)
    assert a.shape == (20_000_001, 20_000_001)
    assert mio.read(_w(tmp_path, "f.el", "0 1\n1 20000000\n"), shape=(2, 20_000_001), bipartite=True).nnz == 2
    m = mio.read(_w(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate real general\n2 20000000 1\n1 1 7\n"),
                 max_vertices=20_000_000)
    assert m.shape == (2, 20_000_000) and m.nnz == 1


def test_cost_matrices_keep_their_own_limit_on_mtx_sizes(tmp_path, monkeypatch):
    """read_cost_matrix bounds dense cells (max_entries=), not Matrix Market rows (a floor of 4 stands in for
    SIZE_FLOOR, so a 20 x 1 file is "huge" for read but small for the cost reader)."""
    monkeypatch.setattr("matchflow.io._common.SIZE_FLOOR", 4)
    p = _w(tmp_path, "h.mtx", "%%MatrixMarket matrix coordinate real general\n20 1 1\n1 1 7\n")
    with pytest.raises(FormatError, match=r"h\.mtx: line 2: rows 20 is too large for the 1 entries"):
        mio.read(p)
    c = mio.read_cost_matrix(p)
    assert c.shape == (20, 1) and c[0, 0] == 7 and np.isinf(c[1:]).all()


# ------------------------------------------------------------ index bases
def test_one_based_triangle_is_not_a_four_vertex_graph(tmp_path):
    p = _w(tmp_path, "t.el", "1 2\n2 3\n3 1\n")
    a = mio.read(p)  # before: a 4 x 4 graph with an isolated vertex 0 (deficiency 1)
    assert a.shape == (3, 3)
    assert sorted(zip(a.coords[0].tolist(), a.coords[1].tolist())) == [(0, 1), (1, 2), (2, 0)]
    assert mio.read(p, index_base=0).shape == (4, 4)
    assert mio.read(p, index_base=1).shape == (3, 3)
    assert mf.bipartite_matching(a, backend="cpu").cardinality == 3


@pytest.mark.parametrize(
    "text, base, shape",
    [
        ("0 1\n1 2\n", 0, (3, 3)),  # a 0 appears: 0-based
        ("5 7\n7 9\n", 0, (10, 10)),  # smallest id > 1: ids kept as given
        ("% sym unweighted\n% 3 3 3\n2 3\n3 4\n", 1, (4, 4)),  # KONECT header: 1-based even without vertex 1
        ("# matchflow edge list: u v, 0-based\n1 2\n", 0, (3, 3)),  # our writer's header
        ("# matchflow edge list: u v, 1-based\n2 3\n", 1, (3, 3)),
    ],
)
def test_auto_index_base_rules(tmp_path, text, base, shape):
    a = mio.read(_w(tmp_path, "x.edges", text))
    assert a.shape == shape
    b = mio.read(_w(tmp_path, "y.edges", text), index_base=base)
    assert b.shape == shape and np.array_equal(a.coords[0], b.coords[0])


def test_index_base_round_trip_and_errors(tmp_path):
    u, v = np.array([1, 2, 3]), np.array([2, 3, 1])
    for base in (0, 1):
        mio.write(tmp_path / f"w{base}.el", (u, v), index_base=base)
        a = mio.read(tmp_path / f"w{base}.el")  # auto reads the header back
        assert np.array_equal(a.coords[0], u) and a.shape == (4, 4)
    with pytest.raises(ValueError, match=r"index_base must be one of \('auto', 0, 1\), got 2"):
        mio.read(tmp_path / "w0.el", index_base=2)
    with pytest.raises(ValueError, match=r"index_base must be one of \(0, 1\), got 'auto'"):
        mio.write(tmp_path / "x.el", (u, v), index_base="auto")
    with pytest.raises(ValueError, match=r"index_base=0 does not apply to mtx files \(mtx files are 1-based by "
                                         r"definition\); it sets the base of edge lists"):
        mio.read(tmp_path / "a.mtx", index_base=0)
    with pytest.warns(DeprecationWarning, match=r"one_based= is deprecated; use index_base=1"):
        assert mio.read(tmp_path / "w1.el", one_based=True).shape == (4, 4)
    p = _w(tmp_path, "s.el", "2 3\n3 4\n")
    with pytest.raises(FormatError, match=r"s\.el: line 2: u 3 is out of range \(must be <= 2\)"):
        mio.read(p, shape=(3, 3))  # auto (base 0) and a shape


# ------------------------------------------------------------ matching files
def test_matching_file_reads_back_from_any_name(tmp_path):
    rm = np.array([2, -1, 0])
    for name, base in (("m.txt", 1), ("m.out", 0), ("m.matching", 0)):
        mio.write_matching(tmp_path / name, rm, n_cols=4, index_base=base)
        head = (tmp_path / name).read_text().splitlines()[0]
        assert head == "%%MatchFlow matching" + (" 0-based" if base == 0 else "")
        assert np.array_equal(mio.read(tmp_path / name), rm)  # before: .txt was read as an edge list
        assert np.array_equal(mio.read_matching(tmp_path / name), rm)
    with pytest.raises(FormatError, match=r"line 1: bad header '%%MatchFlow matching 2-based'"):
        mio.read(_w(tmp_path, "b.matching", "%%MatchFlow matching 2-based\n1 1 0\n"))
    with pytest.raises(FormatError, match=r"z\.matching: line 4: column 0 is matched twice \(pairs 1 and 2\)"):
        mio.read(_w(tmp_path, "z.matching", "%%MatchFlow matching 0-based\n2 2 2\n0 0\n1 0\n"))


def test_graph_from_metis_is_accepted_by_bipartite_matching(tmp_path):
    p = _w(tmp_path, "x.graph", "4 4\n2 4\n1 3\n2 4\n1 3\n")  # a 4-cycle
    g = mio.read(p)
    assert isinstance(g, mf.Graph)
    res = mf.bipartite_matching(g, backend="cpu")  # before: TypeError
    assert res.shape == (4, 4) and res.cardinality == 4
    assert mf.verify.verify_matching(g, res).maximum


# ------------------------------------------------------------ cost matrices
def test_read_cost_matrix_formats(tmp_path):
    c = np.arange(12).reshape(3, 4) % 5
    np.save(tmp_path / "c.npy", c.astype(">i8"))  # big-endian: native on return
    got = mio.read_cost_matrix(tmp_path / "c.npy")
    assert got.dtype == np.int64 and got.dtype.isnative and np.array_equal(got, c)
    np.savetxt(tmp_path / "c.csv", c, delimiter=",", fmt="%d")
    got = mio.read_cost_matrix(tmp_path / "c.csv")
    assert got.dtype == np.int64 and np.array_equal(got, c)
    (tmp_path / "c.txt.gz").write_bytes(gzip.compress(b"# costs\n1.5 inf\n\n-2 3e2\r\n"))
    assert np.array_equal(mio.read_cost_matrix(tmp_path / "c.txt.gz"), [[1.5, np.inf], [-2.0, 300.0]])
    s = sp.coo_array(([1.0, 0.0, 7.0, 2.0], ([0, 1, 2, 2], [1, 0, 1, 1])), shape=(3, 2))
    scipy.io.mmwrite(str(tmp_path / "s.mtx"), s)
    got = mio.read_cost_matrix(tmp_path / "s.mtx")  # missing = forbidden, duplicates summed
    assert np.array_equal(got, [[np.inf, 1.0], [0.0, np.inf], [np.inf, 9.0]])
    scipy.io.mmwrite(str(tmp_path / "d.mtx"), c.astype(float) / 2)
    assert np.array_equal(mio.read_cost_matrix(tmp_path / "d.mtx"), c / 2)


def test_read_cost_matrix_errors_name_file_and_line(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"cost matrix file not found: .*nope\.npy"):
        mio.read_cost_matrix(tmp_path / "nope.npy")
    with pytest.raises(FormatError, match=r"cannot read a cost matrix from .*c\.xyz: unknown extension"):
        mio.read_cost_matrix(_w(tmp_path, "c.xyz", "1 2\n"))
    with pytest.raises(FormatError, match=r"cannot read a cost matrix from .*bad\.csv: line 2: expected 2 fields, "
                                          r"found 1 \(missing column 2\)"):
        mio.read_cost_matrix(_w(tmp_path, "bad.csv", "1,2\n3\n"))
    with pytest.raises(FormatError, match=r"cannot read a cost matrix from .*x\.csv: line 1: non-numeric token 'a'"):
        mio.read_cost_matrix(_w(tmp_path, "x.csv", "1,a\n"))
    np.save(tmp_path / "v.npy", np.arange(3))
    with pytest.raises(FormatError, match=r"v\.npy: expected a 2-D matrix, got 1-D"):
        mio.read_cost_matrix(tmp_path / "v.npy")
    raw = (tmp_path / "v.npy").read_bytes().replace(b"(3,)", b"(9999999999999,)")
    with pytest.raises(FormatError, match=r"h\.npy: the header announces shape \(9999999999999,\) of int64"):
        mio.read_cost_matrix(_w(tmp_path, "h.npy", raw))
    with pytest.raises(FormatError, match=r"t\.npy: not a valid \.npy file"):
        mio.read_cost_matrix(_w(tmp_path, "t.npy", b"\x93NUMPY\x01"))
    with pytest.raises(FormatError, match=r"cannot read a cost matrix from .*m\.mtx: line 3: row index 5 is out"):
        mio.read_cost_matrix(_w(tmp_path, "m.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n5 1 1\n"))
    with pytest.raises(FormatError, match=r"big\.mtx: a 100000 x 100000 cost matrix would hold 10000000000 dense"):
        mio.read_cost_matrix(_w(tmp_path, "big.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                                      "100000 100000 1\n1 1 1\n"))
