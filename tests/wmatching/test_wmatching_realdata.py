"""Every method equals the greedy oracle on every shared real input (real integer weights on the road
graphs and Matrix Market values on the matrices; seeded random weights on the pattern graphs)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from cases import wmatching_runs
from naive import greedy_weighted_mate

import matchflow as mf
from matchflow import io
from matchflow.verify import verify_weighted_matching

pytestmark = pytest.mark.slow

FILES = ["graphs/delaunay_n15", "graphs/rgg_n_2_15_s0", "graphs/4elt", "graphs/wing", "graphs/fe_4elt2",
         "graphs/astro-ph", "graphs/PGPgiantcompo", "graphs/power", "graphs/polblogs", "graphs/airfoil1",
         "graphs/hep-th", "graphs/ego-Twitter", "graphs/soc-Slashdot0902", "graphs/cit-HepPh",
         "graphs/email-Enron", "graphs/as-caida", "graphs/ego-Facebook", "graphs/amsterdam-roads",
         "graphs/seattle-roads", "graphs/rome-roads", "graphs/delhi-roads", "graphs/moscow-roads",
         "matrices/MAROS-R7", "matrices/DFL001", "matrices/STOCFOR3", "matrices/ibm01"]


def weighted_input(path) -> sp.coo_array:
    """The file's values, or (pattern) integer weights 1..1000 from a fixed seed, symmetric."""
    a = sp.coo_array(io.read(path))
    if a.dtype != np.bool_:
        return a
    rng = np.random.default_rng(20151)
    r, c = a.coords
    lo, hi = np.minimum(r, c), np.maximum(r, c)
    # the same weight for (i, j) and (j, i): a weight per unordered pair, by the pair's rank
    key = lo.astype(np.int64) * a.shape[0] + hi
    _, inv = np.unique(key, return_inverse=True)
    w = rng.integers(1, 1001, size=inv.max() + 1 if len(inv) else 0)[inv]
    return sp.coo_array((w, (r, c)), shape=a.shape)


@pytest.mark.parametrize("name", FILES)
def test_real_inputs_all_methods_equal_greedy(shared_data, name):
    a = weighted_input(shared_data / f"{name}.mtx.gz")
    res = mf.weighted_matching(a, method="suitor", backend="cpu")
    g, _ = mf.wmatching._api.as_weighted_graph(a)
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    up = rows < g.indices
    mate = greedy_weighted_mate(g.n, zip(rows[up].tolist(), g.indices[up].tolist(), g.weights[up].tolist()))
    np.testing.assert_array_equal(res.mate, mate)
    for method, opts in wmatching_runs("cpu"):
        other = mf.weighted_matching(g, method=method, backend="cpu", **opts)
        np.testing.assert_array_equal(other.mate, mate, err_msg=f"{method} {opts}")
        assert other.weight == res.weight
    rep = verify_weighted_matching(g, res)
    assert rep and rep.weight == res.weight and res.weight <= rep.upper_bound <= 2 * res.weight
