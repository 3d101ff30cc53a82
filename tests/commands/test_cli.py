"""The command-line tool: matchflow info | match | assign | demo."""

import json
import subprocess
import sys
from importlib import resources

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment as scipy_lsa
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

import matchflow
from matchflow.cli import main

POWER = str(resources.files("matchflow") / "data" / "power.mtx.gz")
LP = str(resources.files("matchflow") / "data" / "80BAU3B.mtx.gz")


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_info_plain_and_json(capsys):
    code, out, _ = _run(capsys, "info")
    assert code == 0 and out.startswith("matchflow ") and "backends" in out
    code, out, _ = _run(capsys, "info", "--json")
    d = json.loads(out)
    assert code == 0 and "cpu" in d["backends"] and d["matchflow"]


def test_python_dash_m_entry_point():
    out = subprocess.run([sys.executable, "-m", "matchflow", "info", "--json"], capture_output=True, text=True,
                         check=True, env={"PATH": "/usr/bin:/bin", "MATCHFLOW_DISABLE_GPU": "1"})
    assert json.loads(out.stdout)["backends"] == ["cpu"]


@pytest.mark.parametrize("path", [POWER, LP])
def test_match_reports_the_maximum_and_writes_it(capsys, tmp_path, path):
    a = sp.csr_array(scipy.io.mmread(path))
    expected = int((scipy_mbm(a) >= 0).sum())
    out_file = tmp_path / "m.txt"
    code, out, err = _run(capsys, "match", path, "--backend", "cpu", "--json", "--out", str(out_file))
    assert code == 0, err
    d = json.loads(out)
    assert d["cardinality"] == expected
    assert d["deficiency"] == min(a.shape) - expected
    assert d["certificate"]["valid"] and d["certificate"]["maximum"]
    assert "reading" in err  # progress goes to stderr
    from matchflow import io

    rm = io.read_matching(str(out_file))
    rows, cols = (rm if isinstance(rm, tuple) else (np.flatnonzero(rm >= 0), rm[rm >= 0]))
    assert len(rows) == expected
    assert np.all(a[rows, cols] != 0)


def test_match_plain_text_and_methods(capsys):
    code, out, _ = _run(capsys, "match", POWER, "--backend", "cpu", "--method", "push-relabel", "-q")
    assert code == 0 and "cardinality   4366" in out and "verified" in out


def test_match_errors_exit_2_with_message(capsys, tmp_path):
    code, _, err = _run(capsys, "match", str(tmp_path / "nope.mtx"), "-q")
    assert code == 2 and "nope.mtx" in err
    code, _, err = _run(capsys, "match", POWER, "--method", "bogus", "-q")
    assert code == 2 and "method must be one of" in err and "'bogus'" in err
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n3 1\n")
    code, _, err = _run(capsys, "match", str(bad), "-q")
    assert code == 2 and "bad.mtx" in err and "line 3" in err
    code, _, err = _run(capsys, "match", POWER, "-O", "novalue", "-q")
    assert code == 2 and "--option must be KEY=VALUE" in err


def test_assign_npy_and_csv(capsys, tmp_path):
    rng = np.random.default_rng(3)
    c = rng.integers(0, 50, size=(30, 40))
    r, k = scipy_lsa(c)
    np.save(tmp_path / "c.npy", c)
    np.savetxt(tmp_path / "c.csv", c, delimiter=",", fmt="%d")
    for f in ("c.npy", "c.csv"):
        code, out, err = _run(capsys, "assign", str(tmp_path / f), "--json", "--backend", "cpu")
        assert code == 0, err
        d = json.loads(out)
        assert d["cost"] == c[r, k].sum() and d["n_assigned"] == 30
        assert d["certificate"]["valid"] and d["certificate"]["optimal"]
    code, out, _ = _run(capsys, "assign", str(tmp_path / "c.npy"), "--maximize", "--json", "--backend", "cpu",
                        "--out", str(tmp_path / "a.txt"))
    r, k = scipy_lsa(c, maximize=True)
    assert code == 0 and json.loads(out)["cost"] == c[r, k].sum()
    from matchflow import io

    rm = io.read(tmp_path / "a.txt")  # the matching file, 1-based like match --out
    assert rm.shape == (30,) and c[np.arange(30), rm].sum() == c[r, k].sum()
    assert (tmp_path / "a.txt").read_text().splitlines()[0] == "%%MatchFlow matching"


def test_assign_infeasible_is_a_clear_error(capsys, tmp_path):
    c = np.array([[np.inf, 1.0], [np.inf, 2.0]])
    np.save(tmp_path / "inf.npy", c)
    code, _, err = _run(capsys, "assign", str(tmp_path / "inf.npy"), "-q")
    assert code == 2 and "cost matrix is infeasible" in err


@pytest.mark.parametrize("command", ["match", "wmatch", "assign"])
def test_huge_matrix_market_size_line_is_a_clear_error(capsys, tmp_path, command):
    """Issue 21, 8a: before, match and wmatch died with a raw MemoryError (assign --sparse: tests/commands/
    test_assignment_cli.py; dense assign refused it already, by its cell count)."""
    path = tmp_path / "huge.mtx"
    path.write_bytes(b"%%MatrixMarket matrix coordinate real general\r\n99999999999 99999999999 1\r\n1 1 2.5")
    code, _, err = _run(capsys, command, str(path), *(["-q"] if command != "wmatch" else []))
    assert code == 2 and f"{path}: " in err and "99999999999" in err and "Traceback" not in err
    if command != "assign":
        assert "line 2: rows 99999999999 is too large for the 1 entries" in err


def test_demo_quick_runs_and_verifies(capsys):
    code, out, _ = _run(capsys, "demo", "--quick", "--backend", "cpu")
    assert code == 0
    assert "All results verified" in out and "power" in out


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    out, _ = capsys.readouterr()
    assert e.value.code == 0 and out.strip() == f"matchflow {matchflow.__version__}"


@pytest.mark.parametrize("base", ["1", "0"])
def test_match_and_assign_out_read_back_with_one_convention(capsys, tmp_path, base):
    """Both --out files are matching files (1-based unless --out-index-base 0), read back by io.read."""
    from matchflow import io

    m_out, a_out = tmp_path / "m.txt", tmp_path / "a.out"
    code, out, err = _run(capsys, "match", POWER, "--backend", "cpu", "--json", "-q", "--out", str(m_out),
                          "--out-index-base", base)
    assert code == 0, err
    d = json.loads(out)
    rm = io.read(m_out)  # before: .txt was taken for an edge list
    assert isinstance(rm, np.ndarray) and int((rm >= 0).sum()) == d["cardinality"] == 4366
    assert d["written_index_base"] == int(base)
    a = sp.csr_array(scipy.io.mmread(POWER))
    assert np.all(a[np.flatnonzero(rm >= 0), rm[rm >= 0]] != 0)
    c = np.random.default_rng(7).integers(0, 9, size=(5, 7))
    np.save(tmp_path / "c.npy", c)
    code, out, err = _run(capsys, "assign", str(tmp_path / "c.npy"), "--backend", "cpu", "--json", "-q",
                          "--out", str(a_out), "--out-index-base", base)
    assert code == 0, err
    rm = io.read_matching(a_out, as_result=True)
    assert rm.shape == (5, 7) and c[np.arange(5), rm.row_match].sum() == json.loads(out)["cost"]
    first = m_out.read_text().splitlines()[0]
    assert first == a_out.read_text().splitlines()[0] == "%%MatchFlow matching" + (" 0-based" if base == "0" else "")


def test_times_separate_solve_from_startup(capsys, tmp_path):
    np.save(tmp_path / "c.npy", np.arange(16).reshape(4, 4) % 5)
    code, out, _ = _run(capsys, "assign", str(tmp_path / "c.npy"), "--backend", "cpu", "--json", "-q")
    d = json.loads(out)
    assert code == 0 and {"seconds", "startup", "seconds_read", "seconds_verify", "total"} <= set(d)
    assert d["total"] >= d["seconds"] + d["startup"] + d["seconds_read"] + d["seconds_verify"] >= 0
    code, out, _ = _run(capsys, "match", POWER, "--backend", "cpu", "-q")
    assert code == 0 and "s solve  (start-up" in out and "total" in out


@pytest.mark.parametrize("dtype", [">i8", ">i4", ">i2", ">u2", ">f8"])
def test_assign_big_endian_npy(capsys, tmp_path, dtype):
    c = np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]], dtype=dtype)
    np.save(tmp_path / "be.npy", c)
    code, out, err = _run(capsys, "assign", str(tmp_path / "be.npy"), "--backend", "cpu", "--json", "-q")
    assert code == 0, err  # before: a numba TypingError traceback
    assert json.loads(out)["cost"] == 5


def test_match_edge_list_index_base(capsys, tmp_path):
    p = tmp_path / "tri.txt"
    p.write_text("1 2\n2 3\n3 1\n")
    code, out, _ = _run(capsys, "match", str(p), "--backend", "cpu", "--json", "-q")
    d = json.loads(out)
    assert code == 0 and d["shape"] == [3, 3] and d["deficiency"] == 0  # before: 4 x 4, deficiency 1
    code, out, _ = _run(capsys, "match", str(p), "--backend", "cpu", "--json", "-q", "--index-base", "0")
    assert json.loads(out)["shape"] == [4, 4] and json.loads(out)["deficiency"] == 1
    with pytest.raises(SystemExit):
        main(["match", str(p), "--index-base", "2"])
    assert "must be auto, 0 or 1, got '2'" in capsys.readouterr().err


def test_match_metis_graph(capsys, tmp_path):
    p = tmp_path / "c4.graph"
    p.write_text("4 4\n2 4\n1 3\n2 4\n1 3\n")
    code, out, err = _run(capsys, "match", str(p), "--backend", "cpu", "--json", "-q")
    assert code == 0, err
    d = json.loads(out)
    assert d["cardinality"] == 4 and d["certificate"]["maximum"]


def test_method_help_comes_from_the_method_tables(capsys):
    from matchflow.assignment._api import METHODS as A
    from matchflow.matching._api import METHODS as M

    for cmd, methods in (("match", M), ("assign", A)):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        out = " ".join(capsys.readouterr().out.split()).replace("- ", "-")  # argparse wraps at "cost-scaling"'s hyphen
        assert "one of: " + ", ".join(methods) in out
