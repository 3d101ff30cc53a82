"""``matchflow assign --sparse [--partial]`` on a Matrix Market coordinate file (issue 12)."""

from __future__ import annotations

import json

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm

from matchflow.cli import main


def test_assign_sparse_matrix_market(tmp_path, capsys):
    A = sp.random(30, 40, density=0.2, random_state=4, format="coo")
    A.data = np.rint(A.data * 100) + 1
    path = tmp_path / "c.mtx"
    scipy.io.mmwrite(path, A)
    r, c = scipy_mwfbm(A.tocsr())
    # --method auto: shortest augmenting paths on a rectangular input; cost scaling when asked
    for extra, method in (([], "jv"), (["--method", "cost-scaling"], "cost-scaling")):
        assert main(["assign", "--sparse", "--json", *extra, str(path)]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["certificate"] == "optimal" and out["method"] == method
        assert out["cost"] == A.tocsr()[r, c].sum() and out["n_assigned"] == 30


def test_assign_partial_matrix_market(tmp_path, capsys):
    A = sp.coo_array((np.array([3.0, 5.0, 1.0]), (np.array([0, 1, 2]), np.array([0, 0, 0]))), shape=(3, 3))
    path = tmp_path / "p.mtx"
    scipy.io.mmwrite(path, A)
    assert main(["assign", "--partial", "--json", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_assigned"] == 1 and out["cost"] == 1.0 and out["certificate"] == "optimal"


def test_assign_sparse_reads_crlf_without_final_newline(tmp_path, capsys):
    """Issue 21, 8a (verbatim reproducer): before, scipy.io.mmread segfaulted on this file; the last line, with
    no newline, holds the arc the optimum needs. Oracle: SciPy on the same entries, and the LF twin."""
    crlf = "%%MatrixMarket matrix coordinate real general\r\n2 2 4\r\n1 1 2.5\r\n2 2 1.0\r\n1 2 0.5\r\n2 1 0.25"
    (tmp_path / "crlf.mtx").write_bytes(crlf.encode())
    (tmp_path / "lf.mtx").write_bytes(crlf.replace("\r\n", "\n").encode() + b"\n")
    A = sp.csr_array((np.array([2.5, 1.0, 0.5, 0.25]), (np.array([0, 1, 0, 1]), np.array([0, 1, 1, 0]))))
    r, c = scipy_mwfbm(A)
    costs = []
    for name in ("crlf.mtx", "lf.mtx"):
        assert main(["assign", "--sparse", "--json", str(tmp_path / name)]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["nnz"] == 4 and out["certificate"] == "optimal"
        costs.append(out["cost"])
    assert costs[0] == costs[1] == A[r, c].sum()


def test_assign_sparse_huge_size_line_is_a_format_error(tmp_path, capsys):
    """Issue 21, 8a (verbatim reproducer): before, a raw MemoryError (a 1e11-row CSR index)."""
    path = tmp_path / "huge.mtx"
    path.write_bytes(b"%%MatrixMarket matrix coordinate real general\r\n99999999999 99999999999 1\r\n1 1 2.5")
    for extra in (["--sparse"], ["--sparse", "--partial"]):
        assert main(["assign", *extra, str(path)]) == 2
        err = capsys.readouterr().err
        assert f"FormatError: {path}: line 2: rows 99999999999 is too large for the 1 entries in the file" in err
