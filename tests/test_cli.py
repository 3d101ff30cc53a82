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
    pairs = np.loadtxt(tmp_path / "a.txt", dtype=int)
    assert pairs.shape == (30, 2) and c[pairs[:, 0], pairs[:, 1]].sum() == c[r, k].sum()


def test_assign_infeasible_is_a_clear_error(capsys, tmp_path):
    c = np.array([[np.inf, 1.0], [np.inf, 2.0]])
    np.save(tmp_path / "inf.npy", c)
    code, _, err = _run(capsys, "assign", str(tmp_path / "inf.npy"), "-q")
    assert code == 2 and "cost matrix is infeasible" in err


def test_demo_quick_runs_and_verifies(capsys):
    code, out, _ = _run(capsys, "demo", "--quick", "--backend", "cpu")
    assert code == 0
    assert "All results verified" in out and "power" in out
