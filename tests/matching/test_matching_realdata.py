"""Every graph/matrix of the shared data set gives MANIFEST.md's maximum matching,
for every CPU method and initial matching, with a verified König certificate."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from conftest import SHARED_DATA

from matchflow import BipartiteGraph, bipartite_matching, maximum_bipartite_matching
from matchflow.matching._methods import TABLE
from matchflow.verify import verify_matching


def _manifest_rows() -> list[tuple[str, int, int]]:
    """(file, stored nnz, max matching) from the first table of MANIFEST.md."""
    path = SHARED_DATA / "MANIFEST.md"
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 7 and re.match(r"^(graphs|matrices)/.+\.mtx(\.gz)?$", cells[0]):
            out.append((cells[0], int(cells[3]), int(cells[6])))
    return out


ROWS = _manifest_rows()
BIG = 1_000_000  # stored entries above which only the informed starts run (empty starts are slow)


@functools.lru_cache(maxsize=4)
def _load(name: str) -> BipartiteGraph:
    a = sp.csr_array(scipy.io.mmread(SHARED_DATA / name))
    g = BipartiteGraph._from_csr_trusted(a)  # stored entries are edges (values may be 0)
    return g


def test_manifest_parsed(shared_data):
    assert len(ROWS) >= 30
    assert ("graphs/delaunay_n15.mtx.gz", 196548, 32768) in ROWS


@pytest.mark.parametrize("name, nnz, expected", ROWS, ids=[r[0] for r in ROWS])
def test_real_data_maximum_matching(shared_data, name, nnz, expected):
    g = _load(name)
    assert g.nnz == nnz
    inits = ["karp-sipser", "greedy", "none", "auto"] if nnz < BIG else ["karp-sipser", "auto"]
    for method in TABLE.cpu_names:
        for init in inits:
            res = bipartite_matching(g, method=method, init=init, backend="cpu")
            assert res.cardinality == expected, (method, init)
            rep = verify_matching(g, res)
            assert rep.valid and rep.maximum
    a = sp.csr_array((np.ones(g.nnz), g.col_ind, g.row_ptr), shape=g.shape)
    res = bipartite_matching(g, backend="cpu")  # the default call (method="auto")
    assert res.cardinality == expected and verify_matching(g, res).maximum
    for fmt in ("csr", "csc"):
        out = maximum_bipartite_matching(a.asformat(fmt), perm_type="column")
        assert out.dtype == np.int32 and np.count_nonzero(out >= 0) == expected
        verify_matching(g, out)
