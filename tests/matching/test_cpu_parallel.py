"""The parallel host stages of the CPU matching call give the same arrays on any thread count.

The CSC build (``BipartiteGraph._build_csc``) is a stable counting sort over row blocks
(``csr_to_csc_kernel``): its output must equal SciPy's ``tocsc`` for every block count, and the
public call must return the same matching and cover with 1 and 2 Numba threads.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import matchflow._graph._bipartite as bip
import matchflow.matching._cpu_init as cpu_init
from matchflow import BipartiteGraph, bipartite_matching
from matchflow._graph._bipartite import csc_chunks, csr_to_csc_kernel, csr_to_csc_serial_kernel
from matchflow.matching._methods import TABLE
from matchflow.verify import verify_matching

THREADS = sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)})


@pytest.fixture
def threads():
    """Restore the Numba thread count after a test that changes it."""
    before = numba.get_num_threads()
    yield
    numba.set_num_threads(before)


def scipy_csc(a: sp.csr_array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, CSR slot of each CSC slot) from SciPy, the oracle."""
    t = sp.csr_array((np.arange(a.nnz), a.indices, a.indptr), shape=a.shape).tocsc()
    return t.indptr, t.indices, t.data


def random_csr(n_rows: int, n_cols: int, density: float, seed: int) -> sp.csr_array:
    rng = np.random.default_rng(seed)
    if n_rows == 0 or n_cols == 0:
        return sp.csr_array((n_rows, n_cols), dtype=np.bool_)
    return sp.random_array((n_rows, n_cols), density=density, format="csr", rng=rng, dtype=np.float64).astype(bool)


def kernel_csc(a: sp.csr_array, n_chunks: int, dtype=np.int32) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cp = np.empty(a.shape[1] + 1, dtype=dtype)
    ri = np.empty(a.nnz, dtype=dtype)
    pm = np.empty(a.nnz, dtype=dtype)
    ptr, ind = a.indptr.astype(dtype), a.indices.astype(dtype)
    if n_chunks == 0:
        csr_to_csc_serial_kernel(ptr, ind, cp, ri, pm)
    else:
        csr_to_csc_kernel(ptr, ind, n_chunks, cp, ri, pm)
    return cp, ri, pm


@pytest.mark.parametrize("shape,density", [((0, 0), 0), ((0, 4), 0), ((4, 0), 0), ((1, 7), 0.6), ((7, 1), 0.6),
                                           ((40, 60), 0.1), ((300, 200), 0.05), ((2000, 500), 0.02)])
@pytest.mark.parametrize("n_chunks", [0, 1, 2, 3, 8])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_csc_kernel_equals_scipy(shape, density, n_chunks, dtype):
    a = random_csr(*shape, density, seed=shape[0] * 1000 + shape[1])
    got = kernel_csc(a, n_chunks, dtype)
    for g, want in zip(got, scipy_csc(a), strict=True):
        np.testing.assert_array_equal(g, want)
        assert g.dtype == dtype


def test_csc_kernel_more_blocks_than_rows_with_edges():
    # all edges in the last row: every block but one is empty
    a = sp.csr_array((np.ones(5, dtype=bool), np.arange(5), np.array([0, 0, 0, 0, 5])), shape=(4, 5))
    for n_chunks in (1, 2, 4):
        for g, want in zip(kernel_csc(a, n_chunks), scipy_csc(a), strict=True):
            np.testing.assert_array_equal(g, want)


@given(st.integers(0, 30), st.integers(0, 30), st.floats(0.0, 1.0), st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_csc_kernel_property(n_rows, n_cols, density, seed, n_chunks):
    a = random_csr(n_rows, n_cols, density, seed)
    for g, want in zip(kernel_csc(a, n_chunks), scipy_csc(a), strict=True):
        np.testing.assert_array_equal(g, want)


def test_csc_chunks_rule():
    assert csc_chunks(10, 10, 100, 1) == 1
    big = 64 * bip.CSC_BLOCK_EDGES
    assert csc_chunks(big // 10, big // 10, big, 16) == 10  # at most nnz / n_cols blocks
    assert csc_chunks(big // 100, big // 100, big, 4) == 4
    assert csc_chunks(big, big // 100, 3 * bip.CSC_BLOCK_EDGES, 16) == 3  # one block per CSC_BLOCK_EDGES
    assert csc_chunks(10**5, 10**5, bip.CSC_BLOCK_EDGES - 1, 4) == 1  # small graphs: one thread
    assert csc_chunks(0, 0, 0, 4) == 1


@pytest.mark.parametrize("n_threads", THREADS)
def test_graph_csc_any_thread_count(n_threads, threads, monkeypatch):
    monkeypatch.setattr(bip, "CSC_BLOCK_EDGES", 16)  # several blocks on a small graph
    numba.set_num_threads(n_threads)
    a = random_csr(500, 300, 0.03, seed=7)
    g = BipartiteGraph(a.shape[0], a.shape[1], a.indptr, a.indices)
    assert csc_chunks(g.n_rows, g.n_cols, g.nnz, numba.get_num_threads()) == n_threads
    want = scipy_csc(a)
    for got, w in zip((g.col_ptr, g.row_ind, g.csc_perm), want, strict=True):
        np.testing.assert_array_equal(got, w)
    assert g.row_ind.dtype == g.col_ind.dtype == np.int32


@pytest.mark.parametrize("n_threads", THREADS)
@pytest.mark.parametrize("seed", range(4))
def test_karp_sipser_blocked_degrees_same(n_threads, seed, threads, monkeypatch):
    """The parallel degree count gives the one-thread kernel's matching, from empty and partial starts."""
    monkeypatch.setattr(cpu_init, "KS_BLOCK_EDGES", 8)
    numba.set_num_threads(n_threads)
    a = random_csr(300, 250, 0.01 + 0.01 * seed, seed=100 + seed)
    g = BipartiteGraph(a.shape[0], a.shape[1], a.indptr, a.indices)
    for partial in (False, True):
        rm = np.full(g.n_rows, -1, dtype=g.itype)
        cm = np.full(g.n_cols, -1, dtype=g.itype)
        if partial:
            cpu_init.greedy_init_kernel(g.col_ptr[:60], g.row_ind, rm, cm)  # the first 59 columns matched greedily
        rm2, cm2 = rm.copy(), cm.copy()
        want = cpu_init.karp_sipser_kernel(g.row_ptr, g.col_ind, g.col_ptr, g.row_ind, rm, cm)
        assert min(n_threads, g.nnz // cpu_init.KS_BLOCK_EDGES) == n_threads
        got = cpu_init._karp_sipser(g, rm2, cm2)
        assert got == want > 0
        np.testing.assert_array_equal(rm2, rm)
        np.testing.assert_array_equal(cm2, cm)


@pytest.mark.parametrize("method", TABLE.cpu_names)
@pytest.mark.parametrize("init", ["karp-sipser", "greedy", "auto"])
def test_public_call_same_on_1_and_2_threads(method, init, threads, monkeypatch):
    monkeypatch.setattr(bip, "CSC_BLOCK_EDGES", 16)
    monkeypatch.setattr(cpu_init, "KS_BLOCK_EDGES", 16)
    a = random_csr(400, 400, 0.008, seed=11)
    results = []
    for n in THREADS:
        numba.set_num_threads(n)
        res = bipartite_matching(sp.csr_array(a), method=method, init=init, backend="cpu")
        rep = verify_matching(a, res)
        assert rep.valid and rep.maximum and rep.cardinality == res.cardinality
        results.append(res)
    first = results[0]
    for res in results[1:]:
        np.testing.assert_array_equal(res.row_match, first.row_match)
        np.testing.assert_array_equal(res.col_match, first.col_match)
        np.testing.assert_array_equal(res.cover_rows, first.cover_rows)
        np.testing.assert_array_equal(res.cover_cols, first.cover_cols)
        assert res.init_cardinality == first.init_cardinality


@pytest.mark.parametrize("name,method", [("graphs/delhi-roads.mtx.gz", "pothen-fan"),
                                         ("graphs/soc-Slashdot0902.mtx.gz", "push-relabel")])
def test_real_graph_same_on_1_and_2_threads(shared_data, name, method, threads, monkeypatch):
    """A real graph through the parallel CSC build and Karp-Sipser count (blocks forced small):
    the CSC equals SciPy's, the matching is certified and identical on 1 and 2 threads."""
    monkeypatch.setattr(bip, "CSC_BLOCK_EDGES", 1 << 14)
    monkeypatch.setattr(cpu_init, "KS_BLOCK_EDGES", 1 << 14)
    a = sp.csr_array(scipy.io.mmread(shared_data / name)).astype(bool)
    a.sum_duplicates()
    results = []
    for n in THREADS:
        numba.set_num_threads(n)
        g = BipartiteGraph(a.shape[0], a.shape[1], a.indptr, a.indices)
        for got, want in zip((g.col_ptr, g.row_ind, g.csc_perm), scipy_csc(a), strict=True):
            np.testing.assert_array_equal(got, want)
        res = bipartite_matching(g, method=method, init="karp-sipser", backend="cpu")
        rep = verify_matching(a, res)
        assert rep.valid and rep.maximum and rep.cardinality == res.cardinality
        results.append(res)
    for res in results[1:]:
        np.testing.assert_array_equal(res.row_match, results[0].row_match)
        np.testing.assert_array_equal(res.cover_cols, results[0].cover_cols)
        assert res.init_cardinality == results[0].init_cardinality
