"""Shared named test cases for every backend (CPU tests and GPU tests read the same table).

``MATCHING_CASES``: graphs (scipy CSR arrays) whose maximum matching the tests take from SciPy
and, when small, from brute force. ``ASSIGNMENT_CASES``: cost matrices (``+inf`` forbidden) whose
optimum the tests take from SciPy (floats) or exact brute force (small integers); ``feasible``
False marks the ones every solver must refuse with SciPy's message. Builders are deterministic
(fixed seeds), so a failure replays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

import matchflow as mf

__all__ = ["MatchingCase", "AssignmentCase", "MATCHING_CASES", "ASSIGNMENT_CASES"]


@dataclass(frozen=True)
class MatchingCase:
    name: str
    make: Callable[[], sp.csr_array]

    def graph(self) -> sp.csr_array:
        return sp.csr_array(self.make())


@dataclass(frozen=True)
class AssignmentCase:
    name: str
    make: Callable[[], np.ndarray]
    feasible: bool = True

    def cost(self) -> np.ndarray:
        return np.asarray(self.make())


def _coo(rows, cols, shape) -> sp.csr_array:
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    return sp.coo_array((np.ones(len(rows)), (rows, cols)), shape=shape).tocsr()


def _hub(n: int = 400, seed: int = 4) -> sp.csr_array:
    """Row 0 sees every column (max degree >> mean): the auto rule's skewed class."""
    rng = np.random.default_rng(seed)
    r = np.r_[np.zeros(n, dtype=np.int64), rng.integers(0, n, 2 * n)]
    c = np.r_[np.arange(n), rng.integers(0, n, 2 * n)]
    return _coo(r, c, (n, n))


def _staircase(n: int = 120) -> sp.csr_array:
    """Row i sees columns i and i+1: greedy leaves one augmenting path through every vertex."""
    return _coo(np.r_[np.arange(n), np.arange(n - 1)], np.r_[np.arange(n), np.arange(1, n)], (n, n))


def _duplicates() -> sp.csr_array:
    """Non-canonical CSR: unsorted and repeated column indices."""
    return sp.csr_array((np.ones(7), np.array([1, 0, 1, 2, 2, 0, 0]), np.array([0, 3, 5, 7])), shape=(3, 3))


def _random(m: int, n: int, density: float, seed: int) -> sp.csr_array:
    return sp.random_array((m, n), density=density, rng=np.random.default_rng(seed), format="csr")


MATCHING_CASES = (
    MatchingCase("empty_0x0", lambda: sp.csr_array((0, 0))),
    MatchingCase("empty_0x5", lambda: sp.csr_array((0, 5))),
    MatchingCase("empty_5x0", lambda: sp.csr_array((5, 0))),
    MatchingCase("no_edges_4x6", lambda: sp.csr_array((4, 6))),
    MatchingCase("one_vertex_pair", lambda: sp.csr_array(np.ones((1, 1)))),
    MatchingCase("one_row_no_edge", lambda: sp.csr_array((1, 1))),
    MatchingCase("isolated_vertices", lambda: _coo([0, 1, 2, 3, 4], [0, 0, 0, 1, 2], (6, 4))),
    MatchingCase("wide_complete_3x200", lambda: sp.csr_array(np.ones((3, 200)))),
    MatchingCase("tall_complete_200x3", lambda: sp.csr_array(np.ones((200, 3)))),
    MatchingCase("ties_complete_6x6", lambda: sp.csr_array(np.ones((6, 6)))),
    MatchingCase("duplicates_unsorted", _duplicates),
    MatchingCase("dense_60x70", lambda: _random(60, 70, 0.5, 1)),
    MatchingCase("sparse_rect_300x500", lambda: _random(300, 500, 0.004, 2)),
    MatchingCase("hub", _hub),
    MatchingCase("ladder_d8", lambda: mf.generators.hk_ladder(8)),
    MatchingCase("staircase_120", _staircase),
    MatchingCase("path_like_sparse", lambda: sp.csr_array(sp.eye_array(300, format="csr")
                                                          + sp.eye_array(300, k=1, format="csr"))),
    MatchingCase("grid_holes_20", lambda: mf.generators.grid2d(20, 20, holes=0.2, seed=1)),
)


def _forbidden(seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 50, size=(7, 9)).astype(np.float64)
    c[rng.random(c.shape) < 0.4] = np.inf
    c[np.arange(7), np.arange(7)] = rng.integers(0, 50, 7)  # keep it feasible
    return c


ASSIGNMENT_CASES = (
    AssignmentCase("empty_0x4", lambda: np.zeros((0, 4))),
    AssignmentCase("empty_4x0", lambda: np.zeros((4, 0))),
    AssignmentCase("one_by_one", lambda: np.array([[7]])),
    AssignmentCase("row_vector", lambda: np.array([[3, 1, 2]])),
    AssignmentCase("column_vector", lambda: np.array([[3], [1], [2]])),
    AssignmentCase("small_int", lambda: np.random.default_rng(0).integers(-20, 21, size=(6, 6))),
    AssignmentCase("wide_int", lambda: np.random.default_rng(1).integers(0, 100, size=(4, 7))),
    AssignmentCase("tall_float", lambda: np.random.default_rng(2).normal(size=(7, 4)) * 100),
    AssignmentCase("forbidden", _forbidden),
    AssignmentCase("infeasible", lambda: np.array([[1.0, np.inf], [2.0, np.inf]]), feasible=False),
    AssignmentCase("ties_all_equal", lambda: np.full((5, 5), 3)),
    AssignmentCase("ties_two_values", lambda: np.random.default_rng(5).integers(0, 2, size=(8, 8))),
    AssignmentCase("int8_extremes", lambda: np.array([[-128, 127], [127, -128]], dtype=np.int8)),
    AssignmentCase("bool", lambda: np.array([[True, False], [False, True], [True, True]])),
)


def image_batch_segmentation(seed: int, b: int, h: int = 40, w: int = 50):
    """A batch of ``b`` small noisy disc images as 8-connected segmentation energies (integer source / sink
    capacities (b, h, w) and Potts edge capacities (b, 8, h, w)): the grid-cut GPU tests' batch input."""
    import numpy as np

    from matchflow.flow import potts_weights, unary_from_intensity

    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:h, :w]
    imgs = np.stack([0.2 + 0.6 * ((yy - rng.integers(10, 30)) ** 2 + (xx - rng.integers(10, 40)) ** 2 < 12**2)
                     for _ in range(b)]) + 0.1 * rng.standard_normal((b, h, w))
    src, snk = (np.rint(a * 100).astype(np.int32) for a in unary_from_intensity(imgs, 0.8, 0.2, sigma=0.3))
    edg = np.stack([np.rint(potts_weights(im, connectivity=8, lam=2.0) * 100).astype(np.int32) for im in imgs])
    return src, snk, edg


# --- weighted matching (issue 22): named graphs, and the (method, options) runs read off the family's table -------


@dataclass(frozen=True)
class WMatchingCase:
    """A graph on ``n`` vertices given by the stored entries ``(r, c, w)`` of its square matrix, read as
    SciPy reads a COO matrix (duplicates summed, the diagonal dropped, edge {i, j} = max(A[i, j], A[j, i]))."""

    name: str
    make: Callable[[], tuple]

    def entries(self) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        n, r, c, w = self.make()
        return n, np.asarray(r, dtype=np.int64), np.asarray(c, dtype=np.int64), np.asarray(w)

    def graph(self) -> sp.coo_array:
        """The public input: a COO matrix of shape (n, n) (it keeps isolated vertices beyond the largest id)."""
        n, r, c, w = self.entries()
        return sp.coo_array((w, (r, c)), shape=(n, n))


def _w(n: int, triples, dtype=None) -> tuple:
    r, c, w = zip(*triples) if triples else ((), (), ())
    return n, r, c, np.array(w, dtype=dtype or (None if triples else np.float64))


def _sym(n: int, triples, dtype=None) -> tuple:
    """Both orientations of every (u, v, w)."""
    return _w(n, [t for u, v, w in triples for t in ((u, v, w), (v, u, w))], dtype)


def _wrandom(n: int, m: int, seed: int, lo: int, hi: int) -> tuple:
    rng = np.random.default_rng(seed)
    return n, rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(lo, hi + 1, m)


def _bundled(name: str):
    """A real input bundled with matchflow (``src/matchflow/data``), through the public reader."""
    from importlib.resources import as_file, files

    with as_file(files("matchflow") / "data" / f"{name}.mtx.gz") as p:
        return sp.coo_array(mf.io.read(p))


def _real_cycle() -> tuple:
    """CYCLE (an LP matrix, 1903 x 2857, real values of both signs) as a bipartite graph: rows 0..m-1, columns
    m..m+n-1."""
    a = _bundled("CYCLE")
    m, k = a.shape
    return m + k, a.coords[0], a.coords[1] + m, a.data


def _real_power() -> tuple:
    """The power grid (4941 vertices, a pattern) with seeded integer weights 1..9 per stored entry (many ties;
    A[i, j] and A[j, i] differ, so the edge takes the larger)."""
    a = _bundled("power")
    return a.shape[0], a.coords[0], a.coords[1], np.random.default_rng(22).integers(1, 10, a.nnz)


_BIG = 2**63 - 1
WMATCHING_CASES = (
    WMatchingCase("empty", lambda: _w(0, [])),
    WMatchingCase("one_vertex", lambda: _w(1, [])),
    WMatchingCase("one_vertex_self_loop", lambda: _w(1, [(0, 0, 5.0)])),
    WMatchingCase("isolated_vertices", lambda: _sym(9, [(2, 5, 3.0), (6, 7, 1.5)])),
    WMatchingCase("ties_path", lambda: _sym(7, [(i, i + 1, 4) for i in range(6)])),
    WMatchingCase("ties_complete_6", lambda: _sym(6, [(i, j, 1) for i in range(6) for j in range(i + 1, 6)])),
    WMatchingCase("ties_star_hub", lambda: _sym(41, [(0, j, 2) for j in range(1, 41)] + [(1, 2, 2)])),
    WMatchingCase("self_loops", lambda: _w(5, [(0, 0, 100), (1, 1, 50), (0, 1, 3), (2, 2, 9), (2, 3, 1), (4, 4, 7)])),
    WMatchingCase("duplicates_summed", lambda: _w(4, [(0, 1, 2), (0, 1, 2), (1, 2, 3), (2, 3, 1), (3, 2, 1),
                                                      (3, 2, 1), (2, 1, -1)])),
    WMatchingCase("mirrors_differ", lambda: _w(4, [(0, 1, 1.0), (1, 0, 6.0), (1, 2, 5.0), (2, 1, 2.0), (2, 3, 4.0)])),
    WMatchingCase("huge_int64", lambda: _sym(4, [(0, 1, _BIG - 2), (1, 2, _BIG), (2, 3, _BIG - 1)], np.int64)),
    WMatchingCase("huge_uint64", lambda: _sym(4, [(0, 1, 2**64 - 1), (1, 2, 2**64 - 2), (2, 3, 2**63 + 1)],
                                              np.uint64)),
    WMatchingCase("huge_and_tiny_floats", lambda: _sym(6, [(0, 1, 1e300), (1, 2, 1e300 * (1 + 2**-52)),
                                                           (2, 3, 1e-300), (3, 4, 5e-324), (4, 5, 1e-310)])),
    WMatchingCase("negative_weights", lambda: _sym(5, [(0, 1, -1.0), (1, 2, -3.0), (2, 3, -0.5), (3, 4, -2.0)])),
    WMatchingCase("negative_and_zero_beside_positive", lambda: _sym(6, [(0, 1, -5), (1, 2, 0), (2, 3, 2), (3, 4, -1),
                                                                        (4, 5, 1), (0, 5, 0)])),
    WMatchingCase("random_small_int", lambda: _wrandom(9, 24, 1, -3, 9)),
    WMatchingCase("random_medium_int", lambda: _wrandom(300, 1500, 2, -50, 1000)),
    WMatchingCase("real_cycle_lp", _real_cycle),
    WMatchingCase("real_power_grid_ties", _real_power),
)


def wmatching_runs(device: str) -> list[tuple[str, dict]]:
    """``(method, options)`` of every weighted-matching run on ``device``, read off the family's method table (a
    new row is tested without touching a test file): on the CPU each row with a CPU solve, with its defaults and
    with each of its options that takes ``True`` (a boolean switch such as suitor's ``parallel``) switched on; on
    the GPU each row with a GPU twin, with 32-thread blocks (small inputs span several blocks)."""
    from matchflow.wmatching._methods import TABLE

    if device == "gpu":
        return [(m.name, {"block_size": 32}) for m in TABLE.methods if m.gpu is not None]
    runs = []
    for m in TABLE.methods:
        if m.cpu is None:
            continue
        runs.append((m.name, {}))
        for opt in m.options:
            try:
                runs.append((m.name, m.check({opt: True}) if m.check is not None else {opt: True}))
            except (TypeError, ValueError):
                pass  # not a boolean switch
    return runs
