"""Benchmarks and scripts use the supported surface only: no underscore module of matchflow."""

import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import matchflow

ROOT = Path(__file__).resolve().parents[2]
PRIVATE = re.compile(r"(from|import)\s+matchflow(\.\w+)*\._\w+")


# analysis scripts that are about the internals themselves, each with why (they are not examples of use)
INTERNALS = {
    "emulate_mcf_rounds.py": "emulates the min-cost flow GPU refine's rounds with the CPU twin's own kernels",
    "emulate_mcf_sweeps.py": "emulates the min-cost flow device price update's sweeps with the CPU twin's kernels",
    "emulate_mcf_block_repeats.py": "emulates block-local repeats of the device price update's sweeps (CPU kernels)",
    "count_gpu_specialisations.py": "runs precompile's own GPU step makers in the simulator to count kernel types",
}


@pytest.mark.parametrize("path", sorted((ROOT / "benchmarks").glob("*.py")) + sorted((ROOT / "scripts").glob("*")),
                         ids=lambda p: p.name)
def test_no_private_imports(path):
    if path.name in INTERNALS:
        pytest.skip(INTERNALS[path.name])
    text = path.read_text(encoding="utf-8", errors="replace")
    hits = [ln.strip() for ln in text.splitlines() if PRIVATE.search(ln)]
    assert not hits, f"{path.name} imports private modules: {hits}"


def test_public_start_and_cover_accept_scipy_input():
    a = sp.random(50, 60, density=0.1, random_state=1, format="csr")
    r, c, k = matchflow.matching.initial_matching(a, "greedy")
    assert k == np.count_nonzero(r >= 0) == np.count_nonzero(c >= 0)
    res = matchflow.bipartite_matching(a, backend="cpu")
    cr, cc = matchflow.verify.konig_cover(a, res.row_match, res.col_match)
    assert int(cr.sum() + cc.sum()) == res.cardinality
    assert matchflow.verify.verify_matching(a, res.row_match, res.col_match, cover_rows=cr, cover_cols=cc).maximum
    with pytest.raises(ValueError, match=r"^init must be one of \('karp-sipser', 'greedy', 'none'\), got 'bad'$"):
        matchflow.matching.initial_matching(a, "bad")
