"""matchflow.io: round trips, real files against independent readers, and one test per error."""

from __future__ import annotations

import gzip
import io as pyio
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import matchflow as mf
from matchflow import io as mio
from matchflow.io import FormatError, _common


def _canon(a) -> sp.csr_array:
    """Duplicates summed, explicit zeros kept: a canonical CSR for comparisons."""
    c = sp.csr_array(a)
    c.sum_duplicates()
    c.sort_indices()
    return c


def _same_sparse(a, b) -> bool:
    a, b = _canon(a), _canon(b)
    return (a.shape == b.shape and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.data, b.data, equal_nan=a.dtype.kind == "f"))


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode())
    return p


# ----------------------------------------------------------------- strategies
@st.composite
def sparse_matrices(draw, square=False):
    m = draw(st.integers(0, 7))
    n = m if square else draw(st.integers(0, 7))
    kind = draw(st.sampled_from(["bool", "int", "float"]))
    k = draw(st.integers(0, 3 * max(m * n, 1))) if m * n else 0
    rows = draw(st.lists(st.integers(0, max(m - 1, 0)), min_size=k, max_size=k))
    cols = draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=k, max_size=k))
    if kind == "bool":
        vals = np.ones(k, dtype=bool)
    elif kind == "int":
        vals = np.array(draw(st.lists(st.integers(-(2**63) + 1, 2**63 - 1), min_size=k, max_size=k)), dtype=np.int64)
    else:
        vals = np.array(draw(st.lists(st.floats(allow_nan=False, width=64), min_size=k, max_size=k)), dtype=np.float64)
    return sp.coo_array((vals, (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64))), shape=(m, n))


# ------------------------------------------------------------ Matrix Market
@given(a=sparse_matrices(), gz=st.booleans())
def test_mtx_roundtrip_coordinate(tmp_path_factory, a, gz):
    p = tmp_path_factory.mktemp("mtx") / ("a.mtx.gz" if gz else "a.mtx")
    mio.write(p, a)
    b = mio.read(p)
    assert isinstance(b, sp.coo_array)
    assert b.dtype == {"b": np.bool_, "i": np.int64, "f": np.float64}[a.dtype.kind]
    assert b.nnz == a.nnz  # duplicates and zeros are kept as stored
    assert _same_sparse(a, b)
    if gz:
        assert p.read_bytes()[:2] == b"\x1f\x8b"
    # SciPy reads what we write (pattern comes back as 1.0)
    c = scipy.io.mmread(p)
    assert _same_sparse(sp.coo_array(c).astype(np.float64), b.astype(np.float64))


@given(a=sparse_matrices(square=True), skew=st.booleans())
def test_mtx_roundtrip_symmetric(tmp_path_factory, a, skew):
    a = _canon(a)
    if a.dtype == np.int64:
        a.data //= 4  # no overflow in a + a.T
    if a.dtype == np.bool_:
        skew = False
    s = _canon(a - a.T) if skew else _canon(a + a.T)
    s.eliminate_zeros()
    if s.dtype == np.float64:
        assume(np.all(np.isfinite(s.data)))
    sym = "skew-symmetric" if skew else "symmetric"
    p = tmp_path_factory.mktemp("mtx") / "s.mtx"
    mio.write_mtx(p, s, symmetry=sym)
    lines = p.read_text().splitlines()
    assert lines[0].endswith(sym)
    stored = [tuple(map(int, ln.split()[:2])) for ln in lines[3:]]
    assert all((r > c) if skew else (r >= c) for r, c in stored)  # lower triangle only
    b = mio.read_mtx(p)
    assert _same_sparse(b, s)
    c = scipy.io.mmread(p)
    assert _same_sparse(sp.coo_array(c).astype(np.float64), b.astype(np.float64))


@given(
    m=st.integers(0, 5), n=st.integers(0, 5),
    data=st.data(), kind=st.sampled_from(["int", "float"]), sym=st.sampled_from(["general", "symmetric", "skew"]),
)
def test_mtx_roundtrip_array(tmp_path_factory, m, n, data, kind, sym):
    if sym != "general":
        n = m
    elems = st.integers(-(2**40), 2**40) if kind == "int" else st.floats(allow_nan=False, allow_infinity=False)
    a = np.array(data.draw(st.lists(elems, min_size=m * n, max_size=m * n)),
                 dtype=np.int64 if kind == "int" else np.float64).reshape(m, n)
    if sym == "symmetric":
        a = np.tril(a) + np.tril(a, -1).T
    elif sym == "skew":
        a = np.tril(a, -1) - np.tril(a, -1).T
    symmetry = {"general": "general", "symmetric": "symmetric", "skew": "skew-symmetric"}[sym]
    p = tmp_path_factory.mktemp("mtx") / "d.mtx"
    mio.write(p, a, symmetry=symmetry)
    b = mio.read(p)
    assert isinstance(b, np.ndarray) and b.dtype == a.dtype and b.shape == a.shape
    assert np.array_equal(a, b)
    if m * n:
        assert np.array_equal(scipy.io.mmread(p), a)


def test_mtx_pattern_field_and_dense_bool(tmp_path):
    a = np.array([[True, False, True], [False, False, True]])
    mio.write(tmp_path / "b.mtx", a)
    assert "coordinate pattern general" in (tmp_path / "b.mtx").read_text()
    assert np.array_equal(mio.read(tmp_path / "b.mtx").toarray(), a)
    f = sp.coo_array(np.array([[0.0, 2.5], [3.0, 0.0]]))
    mio.write(tmp_path / "p.mtx", f, field="pattern")
    b = mio.read(tmp_path / "p.mtx")
    assert b.dtype == np.bool_ and np.array_equal(b.toarray(), f.toarray() != 0)


def test_mtx_graph_containers(tmp_path):
    g = mf.Graph.from_edges([0, 1, 2], [1, 2, 0], [1.5, 2.0, 3.0], n=4)
    mio.write(tmp_path / "g.mtx", g)
    assert "real symmetric" in (tmp_path / "g.mtx").read_text().splitlines()[0]
    assert _same_sparse(mio.read(tmp_path / "g.mtx"), g.to_scipy())
    bg = mf.BipartiteGraph.from_edges([0, 0, 2], [1, 3, 0], shape=(3, 4))
    mio.write(tmp_path / "bg.mtx", bg)
    assert _same_sparse(mio.read(tmp_path / "bg.mtx"), bg.to_scipy())


def test_mtx_exact_reals_and_specials(tmp_path):
    vals = ["0.1", "-0", "1e-320", "4.9e-324", "1.7976931348623157e308", "2e308", "inf", "-Infinity", "nan",
            "123456789012345678901234567890", "0.30000000000000004", ".5", "5.", "+3.25E+2",
            "9007199254740993", "2.2250738585072011e-308", "0.000000000000000000000000001234"]
    text = f"%%MatrixMarket matrix array real general\n% specials\n{len(vals)} 1\n" + "\n".join(vals) + "\n"
    got = mio.read(_write(tmp_path, "x.mtx", text))[:, 0]
    want = np.array([float(v) for v in vals])
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@settings(max_examples=40)
@given(st.lists(st.tuples(st.integers(0, 10**19), st.integers(-340, 320), st.booleans()), min_size=1, max_size=40))
def test_real_parsing_is_correctly_rounded(tmp_path_factory, parts):
    # random decimal mantissas and exponents, compared with Python's correctly rounded float()
    toks = [f"{'-' if neg else ''}{m}e{e}" for m, e, neg in parts]
    toks += [f"{m / 7!r}" for m, _, _ in parts]
    p = tmp_path_factory.mktemp("el") / "w.el"
    p.write_text("".join(f"0 1 {t}\n" for t in toks))
    w = mio.read(p).data
    assert np.array_equal(w, np.array([float(t) for t in toks]))


def _load_reader(tmp_path) -> None:
    """Read a small file first: the parser's compiled code is loaded outside the measured memory."""
    mio.read(_write(tmp_path, "small.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0\n"))
    mio.read(_write(tmp_path, "small_dense.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n"))


def test_mtx_huge_announced_count_is_not_allocated(tmp_path, monkeypatch):
    """The size line announces 10^12 entries, the file holds 2: the record parser runs once, over buffers sized
    from the bytes present (2 records), and reads 2 records: work and memory bounded by the data, not the header."""
    kernel, calls = _common._k.parse_records_kernel, []

    def counted(*args):  # (buf, pos, end, line, kinds, lo, hi, shift, idx, ints, reals, ...)
        out = kernel(*args)
        calls.append((max(a.shape[1] for a in args[8:11]), int(out[1])))  # (buffer capacity, records read)
        return out

    _load_reader(tmp_path)
    monkeypatch.setattr(_common._k, "parse_records_kernel", counted)
    p = _write(tmp_path, "huge.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                     "1000000000 1000000000 1000000000000\n1 1 1.0\n2 2 2.0\n")
    tracemalloc.start()
    with pytest.raises(FormatError, match=r"huge\.mtx: line 4: end of file after 2 entries.*1000000000000"):
        mio.read(p)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert calls == [(2, 2)]
    assert peak < 10_000_000


def test_mtx_huge_announced_dense_is_not_allocated(tmp_path):
    p = _write(tmp_path, "big.mtx", "%%MatrixMarket matrix array real general\n1000000 1000000\n1\n2\n")
    _load_reader(tmp_path)
    tracemalloc.start()
    with pytest.raises(FormatError, match=r"big\.mtx: line 4: end of file after 2 values"):
        mio.read(p)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 10_000_000


_H = "%%MatrixMarket matrix coordinate integer general\n"


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("", r"file\.mtx: line 1: empty file"),
        ("%%MatrixMarket matrix coordinate\n2 2 0\n", r"file\.mtx: line 1: bad header"),
        ("%MatrixMarket matrix coordinate real general\n", r"file\.mtx: line 1: bad header"),
        ("%%MatrixMarket vector coordinate real general\n", r"file\.mtx: line 1: unsupported object"),
        ("%%MatrixMarket matrix sparse real general\n", r"file\.mtx: line 1: unknown format 'sparse'"),
        ("%%MatrixMarket matrix coordinate complex general\n", r"line 1: complex Matrix Market files are not"),
        ("%%MatrixMarket matrix coordinate real weird\n", r"line 1: unknown symmetry 'weird'"),
        ("%%MatrixMarket matrix array pattern general\n", r"line 1: 'array pattern' is not a valid"),
        (_H + "% only a comment\n", r"file\.mtx: line 2: missing size line"),
        (_H + "%c\n2 2\n", r"file\.mtx: line 3: bad size line '2 2': expected 3 integers"),
        (_H + "%c\n2 x 1\n", r"file\.mtx: line 3: bad size line.*non-numeric"),
        (_H + "%c\n-2 2 1\n", r"file\.mtx: line 3: bad size line.*non-negative"),
        ("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", r"line 2: a symmetric matrix must be square"),
        (_H + "2 2 2\n1 1 5\n1 2\n", r"file\.mtx: line 4: expected 3 fields, found 2 \(missing value\)"),
        (_H + "2 2 2\n1 1 5\n1 2 3 4\n", r"file\.mtx: line 4: expected 3 fields, found more.*'4'"),
        (_H + "2 2 2\n1 1 5\n1 b 3\n", r"file\.mtx: line 4: non-numeric token 'b' where column index"),
        (_H + "2 2 2\n1 1 5\n1 2 3.5\n", r"file\.mtx: line 4: non-numeric token '3\.5' where value"),
        (_H + "2 2 2\n1 1 5\n0 1 3\n", r"file\.mtx: line 4: row index 0 is out of range \(must be >= 1\)"),
        (_H + "2 2 2\n1 1 5\n1 -1 3\n", r"file\.mtx: line 4: column index -1 is out of range"),
        (_H + "2 2 2\n1 1 5\n3 1 3\n", r"file\.mtx: line 4: row index 3 is out of range \(must be <= 2\)"),
        (_H + "2 2 2\n1 1 5\n1 2 99999999999999999999\n", r"line 4: value '99999999999999999999' does not fit"),
        (_H + "2 2 1\n1 1 5\n1 2 3\n", r"file\.mtx: line 4: more entries than the 1 announced"),
        (_H + "2 2 3\n1 1 5\n\n1 2 3\n", r"file\.mtx: line 5: end of file after 2 entries, but the size line"),
        ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.2.3\n", r"line 3: non-numeric token '1\.2\.3'"),
        ("%%MatrixMarket matrix array real general\n2 1\n1\n", r"file\.mtx: line 3: end of file after 1 values"),
    ],
)
def test_mtx_errors(tmp_path, text, pattern):
    p = _write(tmp_path, "file.mtx", text)
    with pytest.raises(FormatError, match=pattern) as exc:
        mio.read(p)
    assert isinstance(exc.value, ValueError) and exc.value.path == str(p)


def test_mtx_comments_blank_lines_crlf_and_streams(tmp_path):
    text = ("%%MatrixMarket matrix coordinate real general\r\n% c1\r\n\r\n%c2\r\n3 2 3\r\n"
            "1 1 1.5\r\n\r\n  3   2\t-2\r\n% late comment\r\n2 1 4e1")
    a = mio.read(_write(tmp_path, "c.mtx", text))
    assert np.array_equal(a.toarray(), np.array([[1.5, 0], [40.0, 0], [0, -2.0]]))
    b = mio.read_mtx(pyio.BytesIO(gzip.compress(text.encode())))
    assert _same_sparse(a, b)
    # hermitian with a real field is read as symmetric
    h = mio.read(_write(tmp_path, "h.mtx", "%%MatrixMarket matrix coordinate real hermitian\n2 2 2\n1 1 1\n2 1 3\n"))
    assert np.array_equal(h.toarray(), [[1.0, 3.0], [3.0, 0.0]])


def test_mtx_writer_errors(tmp_path):
    with pytest.raises(ValueError, match=r"symmetry='symmetric' but the matrix is not symmetric"):
        mio.write(tmp_path / "x.mtx", sp.coo_array(np.array([[0, 1], [0, 0]])), symmetry="symmetric")
    with pytest.raises(ValueError, match=r"complex Matrix Market files are not supported"):
        mio.write(tmp_path / "x.mtx", np.ones((2, 2), dtype=complex))
    with pytest.raises(ValueError, match=r"field='integer' needs integer values"):
        mio.write(tmp_path / "x.mtx", np.array([[0.5]]), field="integer")
    with pytest.raises(ValueError, match=r"symmetry must be one of.*'upper'"):
        mio.write(tmp_path / "x.mtx", np.eye(2), symmetry="upper")


def test_mtx_real_files_match_scipy(shared_data):
    files = sorted(shared_data.glob("*/*.mtx.gz"))
    assert files
    for f in files:
        a = mio.read(f)
        b = sp.coo_array(scipy.io.mmread(f))
        assert a.shape == b.shape, f
        assert a.nnz == b.nnz, f
        assert _same_sparse(a.astype(np.float64), b.astype(np.float64)), f


def test_mtx_real_files_manifest_sizes(shared_data):
    rows = [ln.split("|") for ln in (shared_data / "MANIFEST.md").read_text().splitlines()
            if ln.startswith("| graphs/") or ln.startswith("| matrices/")]
    assert rows
    for r in rows:
        name, shape, nnz = r[1].strip(), r[3].strip(), int(r[4])
        a = mio.read(shared_data / name)
        assert "x".join(map(str, a.shape)) == shape, name
        assert a.nnz == nnz, name


# ------------------------------------------------------------------ DIMACS
def _naive_dimacs(path: Path):
    n = m = s = t = None
    arcs = []
    for ln in path.read_text().splitlines():
        f = ln.split()
        if not f or f[0] == "c":
            continue
        if f[0] == "p":
            n, m = int(f[2]), int(f[3])
        elif f[0] == "n":
            if f[2] == "s":
                s = int(f[1]) - 1
            else:
                t = int(f[1]) - 1
        elif f[0] == "a":
            arcs.append((int(f[1]) - 1, int(f[2]) - 1, int(f[3])))
    return n, m, s, t, np.array(arcs, dtype=np.int64).reshape(-1, 3)


def test_dimacs_real_files(shared_data, tmp_path):
    files = sorted((shared_data / "flow").glob("*.max"))
    assert files
    for f in files:
        net = mio.read(f)
        n, m, s, t, arcs = _naive_dimacs(f)
        assert (net.n, net.m, net.source, net.sink) == (n, m, s, t)
        assert np.array_equal(np.stack([net.tails, net.heads, net.capacities], axis=1), arcs)
        out = tmp_path / (f.name + ".gz")
        mio.write(out, net)
        back = mio.read(out)
        assert (back.n, back.source, back.sink) == (net.n, net.source, net.sink)
        assert np.array_equal(back.capacities, net.capacities) and np.array_equal(back.heads, net.heads)


def test_dimacs_max_flow_on_small_file(tmp_path):
    text = "c tiny\np max 4 5\nn 1 s\nn 4 t\na 1 2 3\na 1 3 2\na 2 3 5\na 2 4 2\na 3 4 3\n"
    net = mio.read(_write(tmp_path, "t.max", text))
    res = sp.csgraph.maximum_flow(net.to_scipy().astype(np.int32), net.source, net.sink)
    assert res.flow_value == 5
    assert repr(net) == "FlowNetwork(n=4, m=5, source=0, sink=3)"


_P = "c x\np max 3 2\nn 1 s\nn 3 t\n"


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("", r"file\.max: line 1: empty file"),
        ("c only\n", r"file\.max: line 1: missing problem line"),
        ("c x\np min 3 2\n", r"file\.max: line 2: bad problem line"),
        ("c x\np max 3\n", r"file\.max: line 2: bad problem line"),
        ("c x\np max 3 x\n", r"file\.max: line 2: bad problem line.*non-numeric"),
        ("c x\np max 3 2\np max 3 2\n", r"file\.max: line 3: second problem line \(the first is line 2\)"),
        ("c x\nn 1 s\n", r"file\.max: line 2: node line before the problem line"),
        ("c x\np max 3 2\nn 1 s\nn 2 s\n", r"file\.max: line 4: second source node \(the first is on line 3\)"),
        ("c x\np max 3 2\nn 1 s\nn 4 t\n", r"file\.max: line 4: node id 4 is out of range 1\.\.3"),
        ("c x\np max 3 2\nn 1 s\nn 1 t\n", r"file\.max: line 4: the sink is the source"),
        ("c x\np max 3 2\nn 1 s\na 1 2 3\n", r"file\.max: line 4: no sink node"),
        ("c x\np max 3 2\nn 1 x\n", r"file\.max: line 3: bad node line"),
        ("c x\np max 3 2\nq 1\n", r"file\.max: line 3: unexpected line"),
        (_P + "a 1 2 3\na 2 4 1\n", r"file\.max: line 6: head node 4 is out of range \(must be <= 3\)"),
        (_P + "a 1 2 3\na 0 2 1\n", r"file\.max: line 6: tail node 0 is out of range \(must be >= 1\)"),
        (_P + "a 1 2 3\na 2 3 -1\n", r"file\.max: line 6: capacity -1 is out of range \(must be >= 0\)"),
        (_P + "a 1 2 3\na 2 3\n", r"file\.max: line 6: expected 3 fields, found 2"),
        (_P + "a 1 2 3\na 2 3 z\n", r"file\.max: line 6: non-numeric token 'z' where capacity"),
        (_P + "a 1 2 3\nn 2 s\n", r"file\.max: line 6: expected a line starting with 'a'"),
        (_P + "a 1 2 3\n", r"file\.max: line 5: end of file after 1 arcs.*announces 2"),
        (_P + "a 1 2 3\na 1 3 3\na 2 3 1\n", r"file\.max: line 7: more arcs than the 2 announced"),
    ],
)
def test_dimacs_errors(tmp_path, text, pattern):
    with pytest.raises(FormatError, match=pattern):
        mio.read(_write(tmp_path, "file.max", text))


def test_dimacs_writer_checks(tmp_path):
    with pytest.raises(ValueError, match=r"source and sink must differ, both are 1"):
        mio.write(tmp_path / "x.max", mio.FlowNetwork(3, 1, 1, [0], [1], [1]))
    with pytest.raises(ValueError, match=r"heads holds node id 5, out of range 0\.\.2"):
        mio.write(tmp_path / "x.max", mio.FlowNetwork(3, 0, 2, [0], [5], [1]))
    with pytest.raises(ValueError, match=r"capacities must be non-negative, got -4"):
        mio.write(tmp_path / "x.max", mio.FlowNetwork(3, 0, 2, [0], [1], [-4]))
    with pytest.raises(ValueError, match=r"one length"):
        mio.FlowNetwork(3, 0, 2, [0, 1], [1], [1])


# ------------------------------------------------------------------- METIS
# A 4-cycle 1-2-3-4-1 plus the chord 1-3 and an isolated vertex 5, in every fmt.
_EDGES = [(1, 2, 5), (2, 3, 1), (3, 4, 2), (4, 1, 7), (1, 3, 3)]
_VW = [[4, 1], [0, 2], [3, 3], [1, 0], [9, 9]]
_VS = [2, 1, 1, 5, 0]


def _metis_text(fmt: str, ncon: int = 1) -> str:
    size, vw, ew = (c == "1" for c in fmt.zfill(3))
    adj: dict[int, list] = {v: [] for v in range(1, 6)}
    for u, v, w in _EDGES:
        adj[u].append((v, w))
        adj[v].append((u, w))
    head = f"5 {len(_EDGES)}" + ("" if fmt == "0" else f" {fmt}") + (f" {ncon}" if ncon > 1 else "")
    lines = ["% comment before the header", head]
    for v in range(1, 6):
        parts = []
        if size:
            parts.append(_VS[v - 1])
        if vw:
            parts += _VW[v - 1][:ncon]
        for u, w in adj[v]:
            parts += [u, w] if ew else [u]
        lines.append(" ".join(map(str, parts)))
        if v == 2:
            lines.append("% a comment between vertex lines")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("fmt, ncon", [("0", 1), ("1", 1), ("10", 1), ("11", 1), ("100", 1), ("101", 1),
                                       ("110", 1), ("111", 1), ("011", 1), ("10", 2), ("111", 2)])
def test_metis_every_fmt(tmp_path, fmt, ncon):
    p = _write(tmp_path, "g.graph", _metis_text(fmt, ncon))
    g, vw, vs = mio.read_metis(p, vertex_data=True)
    size, has_vw, has_ew = (c == "1" for c in fmt.zfill(3))
    u = np.array([e[0] for e in _EDGES]) - 1
    v = np.array([e[1] for e in _EDGES]) - 1
    w = np.array([e[2] for e in _EDGES], dtype=float)
    want = mf.Graph.from_edges(u, v, w if has_ew else None, n=5)
    assert g.n == 5 and g.n_edges == 5
    assert np.array_equal(g.indptr, want.indptr) and np.array_equal(g.indices, want.indices)
    if has_ew:
        assert np.array_equal(g.weights, want.weights)
    else:
        assert g.weights is None
    if has_vw:
        assert np.array_equal(vw, np.array(_VW)[:, :ncon])
    else:
        assert vw is None
    if size:
        assert np.array_equal(vs, _VS)
    else:
        assert vs is None
    # and back: write_metis -> read_metis gives the same graph and vertex data
    out = tmp_path / "back.graph"
    mio.write_metis(out, g, vertex_weights=vw, vertex_sizes=vs)
    g2, vw2, vs2 = mio.read(out, vertex_data=True)
    assert np.array_equal(g2.indptr, g.indptr) and np.array_equal(g2.indices, g.indices)
    assert (g2.weights is None) == (g.weights is None) and (g.weights is None or np.array_equal(g2.weights, g.weights))
    assert (vw2 is None and vw is None) or np.array_equal(vw2, vw)
    assert (vs2 is None and vs is None) or np.array_equal(vs2, vs)


def test_metis_against_networkx_and_matrix(tmp_path):
    nx = pytest.importorskip("networkx")
    G = nx.gnm_random_graph(40, 90, seed=3)
    mio.write(tmp_path / "r.graph.gz", nx.to_scipy_sparse_array(G, nodelist=range(40)))
    g = mio.read(tmp_path / "r.graph.gz")
    assert g.n == 40 and g.n_edges == G.number_of_edges()
    got = {(int(a), int(b)) for a in range(40) for b in g.indices[g.indptr[a]:g.indptr[a + 1]]}
    assert got == {(a, b) for a, b in G.edges()} | {(b, a) for a, b in G.edges()}


_M = "% c\n3 2\n"


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("", r"file\.graph: line 1: empty file"),
        ("% only\n", r"file\.graph: line 1: missing header"),
        ("% c\n3\n", r"file\.graph: line 2: bad header"),
        ("% c\n3 2 x\n", r"file\.graph: line 2: bad header.*non-numeric"),
        ("% c\n3 2 2\n", r"file\.graph: line 2: bad fmt '2'"),
        ("% c\n3 2 0 2\n", r"file\.graph: line 2: bad header.*ncon=2"),
        ("% c\n10 2\n2\n1\n", r"file\.graph: line 2: the header announces 10 vertices but only 3 lines follow"),
        (_M + "2\n1 3\n", r"file\.graph: line 4: end of file after 2 vertex lines"),
        (_M + "2\n1 4\n2\n", r"file\.graph: line 4: neighbour id 4 is out of range 1\.\.3"),
        (_M + "2\n1 0\n2\n", r"file\.graph: line 4: neighbour id 0 is out of range"),
        (_M + "2\n1 a\n2\n", r"file\.graph: line 4: non-numeric token 'a'"),
        (_M + "2\n1 3\n2\n1\n", r"file\.graph: line 6: data after the 3 vertex lines"),
        (_M + "2\n1 3\n2 1\n", r"file\.graph: line 5: more than 2m=4 neighbour entries"),
        ("% c\n3 3\n2\n1 3\n2\n", r"file\.graph: line 2: the header announces m=3 edges.*hold 4"),
        (_M + "2 3\n1\n2\n", r"file\.graph: line 3: asymmetric adjacency: vertex 1 lists 3"),
        (_M + "2\n1 3\n3\n", r"file\.graph: line 5: self-loop: vertex 3 lists itself"),
        (_M + "2 2\n1 1\n\n", r"file\.graph: line 3: vertex 1 lists neighbour 2 twice"),
        (_M + "2\n3 1\n1\n", r"file\.graph: line 5: asymmetric adjacency: vertex 3 lists 1"),
        ("% c\n3 2 1\n2 1\n1 1 3 2\n2 3\n", r"file\.graph: line 4: edge \(2, 3\) has weight 2 here but 3 on line 5"),
        ("% c\n3 2 1\n2 1\n1 1 3\n2 2\n", r"file\.graph: line 4: missing edge weight"),
        ("% c\n3 2 1\n2 1\n1 1 3 0\n2 0\n", r"file\.graph: line 4: edge weight 0 must be positive"),
        ("% c\n3 2 10\n1 2\n1 1 3\n\n", r"file\.graph: line 5: missing vertex weight"),
        ("% c\n3 2 10\n1 2\n-1 1 3\n1 2\n", r"file\.graph: line 4: vertex weight -1 must be non-negative"),
    ],
)
def test_metis_errors(tmp_path, text, pattern):
    with pytest.raises(FormatError, match=pattern):
        mio.read(_write(tmp_path, "file.graph", text))


def test_metis_writer_errors(tmp_path):
    with pytest.raises(ValueError, match=r"METIS edge weights must be positive integers"):
        mio.write(tmp_path / "x.graph", mf.Graph.from_edges([0], [1], [0.5], n=2))
    with pytest.raises(ValueError, match=r"graph must be symmetric"):
        mio.write(tmp_path / "x.graph", sp.csr_array(np.array([[0, 1], [0, 0]])))
    with pytest.raises(ValueError, match=r"vertex_weights must be non-negative, got -1"):
        mio.write_metis(tmp_path / "x.graph", mf.Graph.from_edges([0], [1], n=2), vertex_weights=[1, -1])


# --------------------------------------------------------------- edge lists
@given(
    edges=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.floats(allow_nan=False)), max_size=30),
    weighted=st.booleans(), one_based=st.booleans(), delim=st.sampled_from([" ", "\t", ","]),
)
def test_edgelist_roundtrip(tmp_path_factory, edges, weighted, one_based, delim):
    u = np.array([e[0] for e in edges], dtype=np.int64)
    v = np.array([e[1] for e in edges], dtype=np.int64)
    w = np.array([e[2] for e in edges], dtype=np.float64)
    p = tmp_path_factory.mktemp("el") / "e.edges"
    mio.write(p, (u, v, w) if weighted else (u, v), index_base=int(one_based), delimiter=delim)
    a = mio.read(p, index_base=int(one_based), bipartite=True)
    assert np.array_equal(a.coords[0], u) and np.array_equal(a.coords[1], v)
    assert np.array_equal(a.data, w) if weighted else a.dtype == np.bool_
    n = int(max(u.max(initial=-1), v.max(initial=-1))) + 1
    assert mio.read(p, index_base=int(one_based)).shape == (n, n)


def test_edgelist_comments_commas_and_shape(tmp_path):
    p = _write(tmp_path, "e.csv", "# SNAP style\n% also a comment\n1,2, 0.5\n\n3 1 2\n")
    a = mio.read(p, index_base=1, shape=(4, 4))
    assert a.shape == (4, 4)
    assert np.array_equal(a.toarray()[[0, 2], [1, 0]], [0.5, 2.0])
    b = mio.read(p, index_base=1, weighted=True, format="edgelist")
    assert b.shape == (3, 3) and b.nnz == 2
    g = mio.read(_write(tmp_path, "g.el", "0 1\n1 2\n"))
    assert g.dtype == np.bool_ and g.shape == (3, 3) and g.nnz == 2


def test_edgelist_graph_and_bipartite_inputs(tmp_path):
    g = mf.Graph.from_edges([0, 1], [1, 2], [2.0, 3.0], n=4)
    mio.write(tmp_path / "g.el", g)
    a = mio.read(tmp_path / "g.el", shape=(4, 4))
    assert a.nnz == 2 and np.all(a.coords[0] < a.coords[1])
    assert _same_sparse(mf.io.read(tmp_path / "g.el", shape=(4, 4)), sp.coo_array(sp.triu(g.to_scipy())))
    bg = mf.BipartiteGraph.from_edges([0, 2], [1, 0], shape=(3, 2))
    mio.write(tmp_path / "b.el", bg)
    assert _same_sparse(mio.read(tmp_path / "b.el", shape=(3, 2)), bg.to_scipy())


@pytest.mark.parametrize(
    "text, kw, pattern",
    [
        ("", {}, r"file\.el: line 1: empty file"),
        ("# c\n0 1 2 3\n", {}, r"file\.el: line 2: expected 2 fields 'u v' or 3 fields 'u v w', found 4"),
        ("0 1\n1 2 3\n", {}, r"file\.el: line 2: expected 2 fields, found more"),
        ("0 1 1.0\n1 2\n", {}, r"file\.el: line 2: expected 3 fields, found 2 \(missing weight\)"),
        ("0 1\n1 x\n", {}, r"file\.el: line 2: non-numeric token 'x' where v"),
        ("0 1\n-1 2\n", {}, r"file\.el: line 2: u -1 is out of range \(must be >= 0\)"),
        ("1 2\n0 2\n", {"index_base": 1}, r"file\.el: line 2: u 0 is out of range \(must be >= 1\)"),
        ("0 1\n0 5\n", {"shape": (3, 3)}, r"file\.el: line 2: v 5 is out of range \(must be <= 2\)"),
        ("0 1 a\n", {}, r"file\.el: line 1: non-numeric token 'a' where weight \(a number\)"),
    ],
)
def test_edgelist_errors(tmp_path, text, kw, pattern):
    with pytest.raises(FormatError, match=pattern):
        mio.read(_write(tmp_path, "file.el", text), **kw)


# ---------------------------------------------------------------- matchings
@given(st.data())
def test_matching_roundtrip(tmp_path_factory, data):
    n_rows = data.draw(st.integers(0, 8))
    n_cols = data.draw(st.integers(0, 8))
    k = data.draw(st.integers(0, min(n_rows, n_cols)))
    rows = data.draw(st.permutations(range(n_rows)))[:k]
    cols = data.draw(st.permutations(range(n_cols)))[:k]
    rm = np.full(n_rows, -1, dtype=np.int64)
    rm[list(rows)] = cols
    p = tmp_path_factory.mktemp("m") / "m.matching"
    mio.write(p, rm, n_cols=n_cols)
    assert np.array_equal(mio.read(p), rm)
    r = mio.read(p, as_result=True)
    assert isinstance(r, mf.MatchingResult)
    assert r.shape == (n_rows, n_cols) and r.cardinality == k
    assert np.array_equal(r.row_match, rm)
    assert all(r.col_match[c] == i for i, c in enumerate(rm) if c >= 0)
    assert int(np.sum(r.col_match >= 0)) == k
    mio.write(p, r)  # a MatchingResult writes back identically
    assert np.array_equal(mio.read_matching(p), rm)
    assert mio.read_matching(p, as_result=True).shape == (n_rows, n_cols)


_MH = "%%MatchFlow matching\n% c\n3 3 2\n"


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("", r"file\.matching: line 1: empty file"),
        ("%%MatrixMarket matrix\n", r"file\.matching: line 1: bad header"),
        ("%%MatchFlow matching\n% c\n", r"file\.matching: line 2: missing size line"),
        ("%%MatchFlow matching\n3 3\n", r"file\.matching: line 2: bad size line"),
        (_MH + "1 2\n4 1\n", r"file\.matching: line 5: row 4 is out of range \(must be <= 3\)"),
        (_MH + "1 2\n", r"file\.matching: line 4: end of file after 1 pairs"),
        (_MH + "1 2\n3 2\n", r"file\.matching: line 5: column 2 is matched twice"),
        (_MH + "1 2\n1 3\n", r"file\.matching: line 5: row 1 is matched twice"),
    ],
)
def test_matching_errors(tmp_path, text, pattern):
    with pytest.raises(FormatError, match=pattern):
        mio.read(_write(tmp_path, "file.matching", text))


def test_matching_writer_errors(tmp_path):
    with pytest.raises(ValueError, match=r"a column is matched twice"):
        mio.write_matching(tmp_path / "x.matching", np.array([1, 1]))
    with pytest.raises(ValueError, match=r"row_match holds -3"):
        mio.write_matching(tmp_path / "x.matching", np.array([-3, 1]))
    with pytest.raises(TypeError, match=r"matching must be a MatchingResult"):
        mio.write_matching(tmp_path / "x.matching", np.array([0.5]))


# ----------------------------------------------------------------- dispatch
def test_dispatch_errors(tmp_path):
    (tmp_path / "data.bin").write_bytes(b"1 2\n")
    with pytest.raises(ValueError, match=r"cannot tell the format of '.*data\.bin' from its extension or its first "
                                         r"line; accepted extensions: \.mtx"):
        mio.read(tmp_path / "data.bin")
    with pytest.raises(FileNotFoundError, match=r"no such file: '.*data2\.bin'"):
        mio.read(tmp_path / "data2.bin")
    with pytest.raises(ValueError, match=r"format must be one of .*got 'xml'"):
        mio.read(tmp_path / "a.mtx", format="xml")
    with pytest.raises(FileNotFoundError, match=r"no such file: '.*missing\.mtx'"):
        mio.read(tmp_path / "missing.mtx")
    p = tmp_path / "bad.mtx.gz"
    p.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(FormatError, match=r"bad\.mtx\.gz: corrupt compressed data"):
        mio.read(p)


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_dispatch_format_override_and_compression(tmp_path, suffix):
    a = sp.coo_array(np.array([[0, 2], [3, 0]]))
    p = tmp_path / ("matrix.dat" + suffix)
    mio.write(p, a, format="matrixmarket")
    assert p.read_bytes()[:1] != b"%"  # compressed
    assert _same_sparse(mio.read(p, format="mtx"), a)
    assert _same_sparse(mio.read(p), a)  # no telling extension: the %%MatrixMarket banner decides
    q = tmp_path / ("edges.dat" + suffix)
    mio.write(q, a, format="edgelist")
    with pytest.raises(ValueError, match=r"cannot tell the format"):
        mio.read(q)
