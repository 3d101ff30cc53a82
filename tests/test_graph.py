"""Containers and the shared validation layer: BipartiteGraph, Graph, as_bipartite, as_graph, backends."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import matchflow
from matchflow._backend import GPUUnavailableError, require_gpu, resolve_backend
from matchflow._graph import BipartiteGraph, Graph, as_bipartite, as_graph, index_dtype
from matchflow._validation import check_choice, check_int, check_options, check_real

FORMATS = ("csr", "csc", "coo", "lil", "dok", "bsr", "dia")


def _dense_pattern(g: BipartiteGraph) -> np.ndarray:
    d = np.zeros(g.shape, dtype=bool)
    r, c = g.edges()
    d[r, c] = True
    return d


def _check_canonical(g: BipartiteGraph) -> None:
    """CSR and CSC describe the same edge set, sorted, without duplicates."""
    assert g.row_ptr[0] == 0 and g.row_ptr[-1] == g.nnz and len(g.row_ptr) == g.n_rows + 1
    assert g.col_ptr[0] == 0 and g.col_ptr[-1] == g.nnz and len(g.col_ptr) == g.n_cols + 1
    for i in range(g.n_rows):
        seg = g.col_ind[g.row_ptr[i]:g.row_ptr[i + 1]]
        assert np.all(np.diff(seg) > 0)
    csc = np.zeros(g.shape, dtype=bool)
    cols = np.repeat(np.arange(g.n_cols), np.diff(g.col_ptr))
    csc[g.row_ind, cols] = True
    assert np.array_equal(csc, _dense_pattern(g))
    assert g.row_ind.dtype == g.col_ind.dtype == g.row_ptr.dtype == g.col_ptr.dtype


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_scipy_format_gives_the_same_graph(fmt):
    a = sp.random(13, 7, density=0.3, random_state=1, format="csr")
    g = as_bipartite(a.asformat(fmt))
    _check_canonical(g)
    assert np.array_equal(_dense_pattern(g), a.toarray() != 0)
    # sparse arrays (not only matrices) too
    g2 = as_bipartite(sp.csr_array(a).asformat(fmt))
    assert np.array_equal(_dense_pattern(g2), a.toarray() != 0)


def test_explicit_zeros_are_edges_only_when_asked():
    a = sp.csr_array((np.array([0.0, 2.0, 0.0]), np.array([0, 1, 2]), np.array([0, 2, 3])), shape=(2, 3))
    assert as_bipartite(a).nnz == 1
    g = as_bipartite(a, explicit_zeros=True)
    assert g.nnz == 3
    _check_canonical(g)
    assert as_bipartite(a.tocoo(), explicit_zeros=True).nnz == 3


def test_duplicates_are_merged_and_cancelling_duplicates_still_count_once():
    r = np.array([0, 0, 1, 1, 1])
    c = np.array([1, 1, 0, 0, 2])
    coo = sp.coo_array((np.array([1.0, -1.0, 2.0, 3.0, 4.0]), (r, c)), shape=(2, 3))
    # each stored entry is nonzero, so the pattern has 3 distinct edges
    g = as_bipartite(coo)
    assert g.nnz == 3
    _check_canonical(g)
    g2 = BipartiteGraph.from_edges(r, c, shape=(2, 3))
    assert g2.nnz == 3


@given(st.integers(0, 12), st.integers(0, 12), st.integers(0, 2**31 - 1))
def test_from_edges_matches_dense_pattern(n_rows, n_cols, seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(0, 3 * max(n_rows, n_cols) + 1)) if n_rows and n_cols else 0
    r = rng.integers(0, max(n_rows, 1), m)
    c = rng.integers(0, max(n_cols, 1), m)
    g = BipartiteGraph.from_edges(r, c, shape=(n_rows, n_cols))
    _check_canonical(g)
    dense = np.zeros((n_rows, n_cols), dtype=bool)
    dense[r, c] = True
    assert np.array_equal(_dense_pattern(g), dense)
    t = g.transpose()
    assert np.array_equal(_dense_pattern(t), dense.T)
    assert np.array_equal(g.to_scipy().toarray(), dense)
    assert np.array_equal(g.to_scipy("csc").toarray(), dense)


def test_dense_inputs_and_array_likes():
    a = np.array([[0, 1, 0], [2, 0, 3]])
    g = as_bipartite(a)
    assert g.shape == (2, 3) and g.nnz == 3
    assert as_bipartite(a.astype(bool)).nnz == 3
    assert as_bipartite([[1, 0], [0, 1]]).nnz == 2
    assert as_bipartite(np.array([[np.nan, 0.0]])).nnz == 1  # NaN is a nonzero entry
    assert as_bipartite(np.zeros((0, 5))).shape == (0, 5)


def test_index_dtype_rule():
    assert index_dtype(10, 2**31 - 1) == np.int32
    assert index_dtype(2**31) == np.int64
    assert as_bipartite(sp.eye(4, format="csr")).itype == np.int32


def test_networkx_bipartite_attribute_and_explicit_sets():
    nx = pytest.importorskip("networkx")
    G = nx.Graph()
    G.add_nodes_from(["a", "b"], bipartite=0)
    G.add_nodes_from([1, 2, 3], bipartite=1)
    G.add_edges_from([("a", 1), (2, "a"), ("b", 3)])
    g = as_bipartite(G)
    assert g.shape == (2, 3) and g.nnz == 3
    assert g.row_labels == ["a", "b"] and g.col_labels == [1, 2, 3]
    g2 = BipartiteGraph.from_networkx(G, ["b", "a"])
    assert g2.row_labels == ["b", "a"] and g2.nnz == 3
    H = nx.path_graph(3)
    with pytest.raises(ValueError, match="without a 'bipartite' node attribute"):
        as_bipartite(H)
    with pytest.raises(ValueError, match=r"edge \(0, 1\) does not join a row node to a column node"):
        BipartiteGraph.from_networkx(H, [0, 1])
    with pytest.raises(ValueError, match="row_nodes holds 'zz', which is not a node"):
        BipartiteGraph.from_networkx(G, ["zz"])


@pytest.mark.parametrize(
    "bad, err, msg",
    [
        (None, TypeError, "graph must be a scipy.sparse matrix or array.*got NoneType"),
        ("abc", TypeError, "graph must be .* got str"),
        ({1: 2}, TypeError, "got dict"),
        (np.zeros(3), ValueError, r"graph must be 2-D, got an array of shape \(3,\)"),
        (np.zeros((2, 2, 2)), ValueError, r"graph must be 2-D, got an array of shape \(2, 2, 2\)"),
        (np.array([["a", "b"]]), TypeError, "graph must hold numbers or booleans, got dtype <U1"),
        (object(), TypeError, "graph must be .* got object"),
    ],
)
def test_as_bipartite_errors(bad, err, msg):
    with pytest.raises(err, match=msg):
        as_bipartite(bad)


@pytest.mark.parametrize(
    "rows, cols, shape, msg",
    [
        ([0, -1], [0, 0], (2, 2), "rows holds a negative index -1"),
        ([0, 1], [0, 5], (2, 3), "cols holds index 5, out of range for n_cols=3"),
        ([0, 2], [0, 0], (2, 3), "rows holds index 2, out of range for n_rows=2"),
        ([0, 1], [0], (2, 3), r"rows and cols must have the same shape, got \(2,\) and \(1,\)"),
        ([0.5], [0], (2, 3), "rows must hold integers, got dtype float64"),
        ([0], [0], (-1, 3), r"shape must be a pair of non-negative integers, got \(-1, 3\)"),
    ],
)
def test_from_edges_errors(rows, cols, shape, msg):
    with pytest.raises((ValueError, TypeError), match=msg):
        BipartiteGraph.from_edges(rows, cols, shape=shape)


def test_from_csr_validation():
    g = BipartiteGraph.from_csr([0, 2, 3], [1, 0, 2], (2, 3))
    assert g.nnz == 3
    _check_canonical(g)
    with pytest.raises(ValueError, match="indptr must have length n_rows \\+ 1 = 3"):
        BipartiteGraph.from_csr([0, 2], [1, 0], (2, 3))
    with pytest.raises(ValueError, match="indptr must start at 0 and be non-decreasing"):
        BipartiteGraph.from_csr([0, 2, 1], [1, 0], (2, 3))
    with pytest.raises(ValueError, match=r"indptr\[-1\] = 3 must equal len\(indices\) = 2"):
        BipartiteGraph.from_csr([0, 1, 3], [1, 0], (2, 3))


def test_graph_symmetrises_and_drops_self_loops():
    a = np.array([[5.0, 2.0, 0.0], [1.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    g = as_graph(a)
    assert g.n == 3 and g.n_edges == 2
    s = g.to_scipy().toarray()
    assert np.array_equal(s, s.T)
    assert s[0, 1] == 2.0  # the larger of the two stored weights
    assert s[1, 2] == 3.0 and s[0, 0] == 0
    with pytest.raises(ValueError, match=r"graph must be square, got shape \(2, 3\)"):
        as_graph(np.ones((2, 3)))
    with pytest.raises(ValueError, match="graph holds non-finite weights"):
        as_graph(np.array([[0, np.inf], [0, 0]]))
    g2 = Graph.from_edges([0, 0, 1, 1], [1, 1, 1, 2], weights=[1.0, 7.0, 9.0, 2.0], n=4)
    assert g2.n_edges == 2 and g2.to_scipy().toarray()[0, 1] == 7.0
    assert g2.degrees().tolist() == [1, 2, 1, 0]


def test_graph_from_networkx_weights():
    nx = pytest.importorskip("networkx")
    G = nx.Graph()
    G.add_edge("x", "y", weight=2.5)
    G.add_edge("y", "z")
    g = as_graph(G)
    assert g.labels == ["x", "y", "z"]
    assert g.to_scipy().toarray()[0, 1] == 2.5 and g.to_scipy().toarray()[1, 2] == 1.0


def test_validation_helpers_name_argument_and_value():
    with pytest.raises(ValueError, match=r"method must be one of \('a', 'b'\), got 'c'"):
        check_choice("method", "c", ("a", "b"))
    with pytest.raises(TypeError, match="k must be an integer, got 1.5 of type float"):
        check_int("k", 1.5)
    with pytest.raises(TypeError, match="k must be an integer, got True"):
        check_int("k", True)
    with pytest.raises(ValueError, match="k must be >= 1, got 0"):
        check_int("k", 0, low=1)
    with pytest.raises(ValueError, match="eps must be > 0, got 0.0"):
        check_real("eps", 0.0, low=0, low_inclusive=False)
    with pytest.raises(ValueError, match="eps must be finite, got nan"):
        check_real("eps", float("nan"))
    with pytest.raises(TypeError, match=r"solve\(\) got unexpected option\(s\) 'bogus'; accepted: alpha, beta"):
        check_options("solve()", {"bogus": 1}, ("beta", "alpha"))


def test_backends_without_gpu(monkeypatch):
    from matchflow import _backend

    monkeypatch.setenv("MATCHFLOW_DISABLE_GPU", "1")
    _backend._probe.cache_clear()
    _backend.gpu_info.cache_clear()
    try:
        assert not matchflow.gpu_available()
        assert resolve_backend("auto") == "cpu"
        assert resolve_backend("cpu") == "cpu"
        with pytest.raises(GPUUnavailableError, match="backend='gpu' was requested for G-PR, but the GPU backend is disabled"):
            require_gpu("G-PR")
        with pytest.raises(GPUUnavailableError, match="Use backend='cpu' or backend='auto'"):
            resolve_backend("gpu")
        assert "backends" in matchflow.info(as_dict=True)
        assert "gpu" in matchflow.info()
    finally:
        _backend._probe.cache_clear()
        _backend.gpu_info.cache_clear()
    with pytest.raises(ValueError, match=r"backend must be one of \('auto', 'cpu', 'gpu'\), got 'tpu'"):
        resolve_backend("tpu")
    with pytest.raises(ValueError, match="backend='gpu' is not available for munkres"):
        resolve_backend("gpu", gpu_supported=False, what="munkres")


def test_import_does_not_load_numba_cuda():
    import subprocess
    import sys

    code = "import sys, matchflow; print('numba.cuda' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin", "MATCHFLOW_DISABLE_GPU": "1"})
    assert out.stdout.strip() == "False"


def test_cupy_and_torch_inputs_when_installed():
    torch = pytest.importorskip("torch")
    t = torch.tensor([[0.0, 1.0], [1.0, 1.0]])
    assert as_bipartite(t).nnz == 3
    assert as_bipartite(t.to_sparse_coo()).nnz == 3
    assert as_bipartite(t.to_sparse_csr()).nnz == 3
