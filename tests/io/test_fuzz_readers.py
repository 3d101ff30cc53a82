"""Fuzz every reader: mutated real files and small hand-made files must read or raise FormatError.

Seeds are fixed (each case has its own ``numpy.random.default_rng`` seed, so a failure replays
exactly); sizes are bounded so the whole file runs in seconds. Anything other than a successful
read or a :class:`matchflow.io.FormatError` (MemoryError, OverflowError, IndexError, a bare
NumPy ValueError, a hang...) fails the test.
"""

from __future__ import annotations

import gzip
import io
from importlib import resources

import numpy as np
import pytest
import scipy.sparse as sp

from matchflow import io as mio
from matchflow.io import FormatError

_SPECIAL = b"\n \t-+.,%e9018\r\x00#aps"
_HUGE = [b"9223372036854775807", b"9223372036854775808", b"18446744073709551616", b"1" + b"0" * 30,
         b"2147483648", b"-1", b"0", b"-9223372036854775808", b"99999999999", b"1e308", b"nan"]
_FORMATS = ("mtx", "metis", "dimacs", "edgelist", "matching", "mcf")  # mcf: DIMACS min-cost flow (.min)


def _real_mtx() -> bytes:
    """The first 300 entries of a bundled real file (bounded size), header fixed to match."""
    raw = gzip.decompress((resources.files("matchflow") / "data" / "power.mtx.gz").read_bytes())
    lines = raw.split(b"\n")
    body = [ln for ln in lines[1:] if ln and not ln.startswith(b"%")]
    m, n, _ = body[0].split()
    return b"\n".join([lines[0], b"% fuzz seed", m + b" " + n + b" 300"] + body[1:301]) + b"\n"


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict[str, bytes]:
    """One valid file per format, built from real data by our writers, plus small hand-made ones."""
    d = tmp_path_factory.mktemp("seeds")
    (d / "p.mtx").write_bytes(_real_mtx())
    a = mio.read(d / "p.mtx")
    g = sp.csr_array(a, dtype=np.int64)
    g = ((g + g.T) > 0).astype(np.int64)
    out = {"mtx": _real_mtx()}
    mio.write(d / "p.graph", mio.read_mtx(d / "p.mtx").tocsr().astype(bool).astype(np.int64) + 0 * g)
    out["metis"] = (d / "p.graph").read_bytes()
    mio.write(d / "w.graph", g * 3)
    out["metis_w"] = (d / "w.graph").read_bytes()
    mio.write(d / "p.el", a, index_base=1)
    out["edgelist"] = (d / "p.el").read_bytes()
    rows, cols = a.coords
    net = mio.FlowNetwork.from_edges(int(a.shape[0]), 0, int(a.shape[0]) - 1, rows, cols,
                                     np.arange(len(rows)) % 7 + 1)
    mio.write(d / "p.max", net)
    out["dimacs"] = (d / "p.max").read_bytes()
    low = np.arange(len(rows)) % 3 == 0
    supply = np.zeros(int(a.shape[0]), dtype=np.int64)
    supply[:5], supply[-5:] = np.arange(1, 6), -np.arange(1, 6)
    mio.write(d / "p.min", mio.MinCostFlowProblem(int(a.shape[0]), rows, cols, low, low + np.arange(len(rows)) % 5,
                                                  np.arange(len(rows)) % 11 - 3, -supply))
    out["mcf"] = (d / "p.min").read_bytes()
    k = min(a.shape)
    mio.write_matching(d / "p.matching", np.where(np.arange(k) % 3 == 0, -1, np.arange(k)[::-1]))
    out["matching"] = (d / "p.matching").read_bytes()
    out["mtx_array"] = b"%%MatrixMarket matrix array real general\n2 3\n1\n2.5\n-3\n4e2\n5\ninf\n"
    out["mtx_sym"] = b"%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 4\n2 1 -2\n3 2 7\n"
    out["metis_vw"] = b"% c\n3 2 11 2\n1 2 2 5\n3 4 1 5 3 6\n5 6 2 6\n"
    out["edgelist_w"] = b"# u v w\n0 1 0.5\n1,2,1e-3\n2\t0\t7\n"
    return out


def _mutate(data: bytes, rng: np.random.Generator) -> bytes:
    b = bytearray(data)
    kind = int(rng.integers(0, 8))
    if kind == 0 and b:  # truncation
        return bytes(b[: int(rng.integers(0, len(b)))])
    if kind == 1 and b:  # flipped bytes
        for _ in range(int(rng.integers(1, 4))):
            i = int(rng.integers(0, len(b)))
            b[i] = _SPECIAL[int(rng.integers(0, len(_SPECIAL)))] if rng.random() < 0.7 else int(rng.integers(0, 256))
        return bytes(b)
    toks = [(i, j) for i, j in _token_spans(data)]
    if kind in (2, 3) and toks:  # huge sizes / bad indices: replace an integer token (headers first, often)
        i, j = toks[int(rng.integers(0, min(len(toks), 12)))] if rng.random() < 0.5 else toks[
            int(rng.integers(0, len(toks)))]
        new = _HUGE[int(rng.integers(0, len(_HUGE)))] if kind == 2 else str(int(rng.integers(-2, 5000))).encode()
        return data[:i] + new + data[j:]
    if kind == 4:  # CRLF, or lone CRs
        return data.replace(b"\n", b"\r\n" if rng.random() < 0.7 else b"\r")
    if kind == 5:  # a corrupt or truncated gzip stream
        z = bytearray(gzip.compress(data, mtime=0))
        if rng.random() < 0.5:
            return bytes(z[: int(rng.integers(2, len(z)))])
        for _ in range(int(rng.integers(1, 4))):
            i = int(rng.integers(10, len(z)))
            z[i] ^= int(rng.integers(1, 256))
        return bytes(z)
    if kind == 6 and b:  # a duplicated or dropped line
        lines = data.split(b"\n")
        i = int(rng.integers(0, len(lines)))
        if rng.random() < 0.5:
            lines.insert(i, lines[i])
        else:
            del lines[i]
        return b"\n".join(lines)
    return gzip.compress(data, mtime=0) if rng.random() < 0.5 else data + b"\n% trailing\n\n"


def _token_spans(data: bytes):
    i, n = 0, min(len(data), 4000)
    while i < n:
        if chr(data[i]).isdigit() or data[i] == 45:
            j = i + 1
            while j < len(data) and chr(data[j]).isdigit():
                j += 1
            yield i, j
            i = j
        else:
            i += 1


def _check_read(data: bytes, fmt: str, tmp_path, tag: str) -> None:
    p = tmp_path / f"f_{tag}"
    p.write_bytes(data)
    try:
        mio.read(p, format=fmt)
    except FormatError as exc:
        assert str(p) in str(exc)  # every error names the file
    except Exception as exc:  # noqa: BLE001 - the point of the test
        raise AssertionError(f"{fmt} reader raised {type(exc).__name__}: {exc} on {data[:300]!r}") from exc


@pytest.mark.parametrize("seed_name", ["mtx", "mtx_array", "mtx_sym", "metis", "metis_w", "metis_vw", "edgelist",
                                       "edgelist_w", "dimacs", "matching", "mcf"])
def test_mutated_files_read_or_raise_format_error(seeds, tmp_path, seed_name):
    fmt = next(f for f in _FORMATS if seed_name.startswith(f))
    data = seeds[seed_name]
    mio.read(pyio_bytes(data), format=fmt)  # the seed itself is valid
    rng = np.random.default_rng(abs(sum(seed_name.encode())) + 1009)
    for k in range(120):
        _check_read(_mutate(data, rng), fmt, tmp_path, f"{seed_name}_{k}")


@pytest.mark.parametrize("seed_name", ["mtx", "mtx_array", "metis_vw", "edgelist", "dimacs", "matching", "mcf"])
def test_huge_and_bad_numbers_in_every_header_field(seeds, tmp_path, seed_name):
    """Each of the first integer tokens (the header's sizes, the first ids) replaced by every huge value."""
    fmt = next(f for f in _FORMATS if seed_name.startswith(f))
    data = seeds[seed_name]
    for t, (i, j) in enumerate(list(_token_spans(data))[:8]):
        for k, new in enumerate(_HUGE):
            _check_read(data[:i] + new + data[j:], fmt, tmp_path, f"{seed_name}_{t}_{k}")


@pytest.mark.parametrize("suffix", [".csv", ".txt", ".mtx", ".npy"])
def test_mutated_cost_matrices_read_or_raise_format_error(seeds, tmp_path, suffix):
    rng = np.random.default_rng(4242 + len(suffix) * 7 + ord(suffix[1]))
    c = rng.integers(-50, 50, size=(6, 5))
    if suffix == ".npy":
        buf = io.BytesIO()
        np.save(buf, c.astype(">f8") if rng.random() < 0.5 else c)
        data = buf.getvalue()
    elif suffix == ".mtx":
        data = seeds["mtx"]
    else:
        sep = "," if suffix == ".csv" else " "
        data = ("# costs\n" + "\n".join(sep.join(map(str, row)) for row in c / 4) + "\n").encode()
    mio.read_cost_matrix(_put(tmp_path, "seed" + suffix, data))
    for k in range(150):
        m = _mutate(data, rng)
        p = _put(tmp_path, f"f{k}{suffix}" + (".gz" if m[:2] == b"\x1f\x8b" and suffix != ".npy" else ""), m)
        try:
            mio.read_cost_matrix(p)
        except FormatError as exc:
            assert str(p) in str(exc) and str(exc).startswith("cannot read a cost matrix from ")
        except Exception as exc:  # noqa: BLE001 - the point of the test
            raise AssertionError(f"read_cost_matrix raised {type(exc).__name__}: {exc} on {m[:300]!r}") from exc


def _put(tmp_path, name: str, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def pyio_bytes(data: bytes):
    return io.BytesIO(data)


@pytest.mark.parametrize("fmt", _FORMATS)
def test_every_reader_on_garbage(tmp_path, fmt):
    """Random short byte strings of the format's alphabet: never anything but FormatError."""
    rng = np.random.default_rng(20261123 + _FORMATS.index(fmt))
    heads = {"mtx": b"%%MatrixMarket matrix coordinate real general\n", "matching": b"%%MatchFlow matching\n",
             "dimacs": b"p max 4 3\nn 1 s\nn 4 t\n", "metis": b"", "edgelist": b"", "mcf": b"p min 4 3\nn 1 2\n"}
    alphabet = np.frombuffer(b"0123456789  \n\n-.e,%ascnpt\r", dtype=np.uint8)
    for k in range(150):
        body = alphabet[rng.integers(0, len(alphabet), int(rng.integers(0, 60)))].tobytes()
        _check_read(heads[fmt] + body if rng.random() < 0.8 else body, fmt, tmp_path, f"{k}")
