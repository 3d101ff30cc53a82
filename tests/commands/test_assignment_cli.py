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
