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


# ----------------------------------------------------------------------------- sparse assignment
@dataclass(frozen=True)
class SparseAssignmentCase:
    """A scipy.sparse cost matrix: its stored entries are the allowed pairs (explicit zeros are zero-cost pairs).
    ``feasible`` False: no full matching (full mode raises SciPy's message; ``partial=True`` solves it)."""

    name: str
    make: Callable[[], sp.csr_array]
    feasible: bool = True

    def cost(self) -> sp.csr_array:
        return self.make()


def _stored(dense: np.ndarray, keep: np.ndarray) -> sp.csr_array:
    """The entries of ``dense`` where ``keep`` holds, stored (zeros included)."""
    r, c = np.nonzero(keep)
    return sp.csr_array((dense[r, c], (r, c)), shape=dense.shape)


def _sparse_random(m: int, n: int, density: float, seed: int, floats: bool = False, diagonal: bool = True,
                   lo: int = -50, hi: int = 50) -> sp.csr_array:
    rng = np.random.default_rng(seed)
    keep = rng.random((m, n)) < density
    if diagonal:
        keep[np.arange(min(m, n)), np.arange(min(m, n))] = True  # a full matching exists
    vals = rng.normal(size=(m, n)) * 100 if floats else rng.integers(lo, hi + 1, size=(m, n))
    return _stored(vals, keep)


SPARSE_ASSIGNMENT_CASES = (
    SparseAssignmentCase("empty_0x3", lambda: sp.csr_array((0, 3), dtype=np.int64)),
    SparseAssignmentCase("one_by_one", lambda: sp.csr_array(np.array([[7]]))),
    SparseAssignmentCase("explicit_zeros", lambda: _stored(np.array([[0, 5, 1], [2, 0, 0], [0, 3, 0]]),
                                                           np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], bool))),
    SparseAssignmentCase("square_int", lambda: _sparse_random(12, 12, 0.3, 0)),
    SparseAssignmentCase("wide_int", lambda: _sparse_random(6, 11, 0.4, 1)),
    SparseAssignmentCase("tall_float", lambda: _sparse_random(11, 5, 0.5, 2, floats=True)),
    SparseAssignmentCase("square_float", lambda: _sparse_random(15, 15, 0.25, 3, floats=True)),
    SparseAssignmentCase("ties_all_equal", lambda: sp.csr_array(np.full((5, 5), 3))),
    SparseAssignmentCase("duplicates_summed", lambda: sp.coo_array(
        (np.array([1, 2, 4, 1, 3]), (np.array([0, 0, 1, 1, 0]), np.array([0, 0, 1, 0, 1]))), shape=(2, 2)).tocsr()),
    SparseAssignmentCase("wide_range_int", lambda: _sparse_random(8, 8, 0.5, 4, lo=-(2**40), hi=2**40)),
    SparseAssignmentCase("bool", lambda: sp.csr_array(np.array([[True, False], [False, True], [True, True]]))),
    SparseAssignmentCase("empty_row", lambda: _stored(np.arange(16).reshape(4, 4) % 7,
                                                      np.array([[1, 1, 0, 0], [0, 0, 0, 0], [1, 0, 1, 0],
                                                                [0, 1, 0, 1]], bool)), feasible=False),
    SparseAssignmentCase("hall_violator", lambda: _stored(np.arange(1.0, 21.0).reshape(4, 5),
                                                          np.array([[1, 0, 0, 0, 0], [1, 0, 0, 0, 0],
                                                                    [1, 1, 1, 0, 0], [0, 0, 1, 1, 1]], bool)),
                         feasible=False),
)
