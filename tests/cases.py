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
from importlib.resources import as_file, files

import numpy as np
import scipy.sparse as sp

import matchflow as mf
from matchflow.flow import offsets, potts_weights, unary_from_intensity
from matchflow.wmatching import _methods as wmatching_methods  # TABLE read per call: tests patch it

__all__ = ["MatchingCase", "AssignmentCase", "MATCHING_CASES", "ASSIGNMENT_CASES", "MCFCase", "MCF_CASES",
           "BatchCase", "BATCH_CASES"]


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




# ----------------------------------------------------------------------------- flow: max-flow networks and grid cuts
@dataclass(frozen=True)
class FlowCase:
    """A max-flow network with its own source and sink (tests take the exact value from networkx on scaled
    integers and, up to 14 vertices, from brute force)."""

    name: str
    make: Callable[[], mf.FlowNetwork]

    def network(self) -> mf.FlowNetwork:
        return self.make()


def _net(n, s, t, tails, heads, caps, dtype=np.int64) -> mf.FlowNetwork:
    return mf.FlowNetwork(n, s, t, np.asarray(tails, np.int64), np.asarray(heads, np.int64), np.asarray(caps, dtype))


def _random_net(n: int, m: int, seed: int, dtype=np.int64, hi: int = 20) -> mf.FlowNetwork:
    rng = np.random.default_rng(seed)
    caps = rng.integers(1, hi, m) if np.dtype(dtype).kind in "iu" else rng.random(m) * hi
    return _net(n, 0, n - 1, rng.integers(0, n, m), rng.integers(0, n, m), caps, dtype)


_DIAMOND = ([0, 0, 1, 2, 1], [1, 2, 3, 3, 2])  # s=0 -> {1, 2} -> t=3, and 1 -> 2

FLOW_CASES = (
    FlowCase("empty_no_arcs", lambda: _net(2, 0, 1, [], [], [])),
    FlowCase("unit_capacities", lambda: _random_net(9, 30, 1, hi=2)),
    FlowCase("int_random", lambda: _random_net(12, 40, 2)),
    FlowCase("int32_diamond", lambda: _net(4, 0, 3, *_DIAMOND, [3, 2, 2, 3, 1], np.int32)),
    FlowCase("uint8_diamond", lambda: _net(4, 0, 3, *_DIAMOND, [3, 2, 2, 3, 1], np.uint8)),
    FlowCase("float32_random", lambda: _random_net(8, 24, 3, np.float32)),
    FlowCase("float64_random", lambda: _random_net(10, 35, 4, np.float64)),
    FlowCase("big_m_beside_unit_float", lambda: _net(4, 0, 1, [0, 2], [1, 3], [1.0, 1e12], np.float64)),
    FlowCase("big_m_beside_unit_int", lambda: _net(4, 0, 3, *_DIAMOND, [2**60 + 1, 2**60 - 1, 2**60, 3, 1])),
    FlowCase("hard_seed_1e300", lambda: _net(4, 0, 3, [0, 1, 1, 2], [1, 2, 3, 3], [1e300, 0.6, 0.4, 1.0],
                                             np.float64)),
    FlowCase("parallel_arcs_and_self_loops", lambda: _net(4, 0, 3, [0, 0, 1, 1, 2, 2, 1], [1, 1, 3, 2, 3, 3, 1],
                                                          [2, 3, 4, 1, 1, 1, 5])),
    FlowCase("sink_unreachable", lambda: _net(4, 0, 3, [0, 1, 3], [1, 2, 0], [5, 7, 4])),
    FlowCase("zero_capacities", lambda: _net(3, 0, 2, [0, 1], [1, 2], [0, 0])),
    FlowCase("source_not_vertex_0", lambda: _net(5, 3, 1, [3, 3, 0, 2, 4], [0, 2, 1, 1, 1], [4, 5, 3, 9, 2])),
)


@dataclass(frozen=True)
class GridCase:
    """A grid cut ``(source_caps, sink_caps, edge_caps)`` of ``connectivity`` (a batch: a leading axis); items
    of at most 14 points, so the tests take each item's exact minimum energy by brute force."""

    name: str
    make: Callable[[], tuple]
    connectivity: int


def _grid(shape, conn: int, seed: int, hi: int = 30, dtype=np.int64, zeros: float = 0.0, batch: tuple = ()) -> tuple:
    """Random capacities in [0, hi) of a grid (``batch``: ``(B,)`` for a batch), ``zeros``: the share of zero edges;
    floats: times 0.37."""
    rng = np.random.default_rng(seed)
    k = len(offsets(len(shape), conn))
    src, snk, edg = (rng.integers(0, hi, s) for s in (batch + shape, batch + shape, batch + (k,) + shape))
    edg = np.where(rng.random(edg.shape) < zeros, 0, edg)
    if np.dtype(dtype).kind == "f":
        return tuple((a * 0.37).astype(dtype) for a in (src, snk, edg))
    return tuple(a.astype(dtype) for a in (src, snk, edg))


def _hard_seed_1x4() -> tuple:
    """Issue 21's 1 x 4 grid: a 1e300 source seed at pixel 0, symmetric n-links 0.6, 0.4, 0.4 (minimum 1.1)."""
    edg = np.zeros((4, 1, 4))
    edg[2, 0, :3] = edg[1, 0, 1:] = [0.6, 0.4, 0.4]
    return np.array([[1e300, 0, 0, 0]]), np.array([[0.6, 0.1, 0.4, 0.3]]), edg


GRID_CASES = (
    GridCase("one_pixel", lambda: (np.array([[3]]), np.array([[5]]), 7), 4),
    GridCase("int_4conn_3x4", lambda: _grid((3, 4), 4, 1), 4),
    GridCase("int_8conn_3x3_sparse_edges", lambda: _grid((3, 3), 8, 2, zeros=0.5), 8),
    GridCase("uint8_4conn_2x5", lambda: _grid((2, 5), 4, 3, hi=200, dtype=np.uint8), 4),
    GridCase("float_8conn_2x4", lambda: _grid((2, 4), 8, 4, dtype=np.float64), 8),
    GridCase("float32_4conn_3x3", lambda: _grid((3, 3), 4, 5, dtype=np.float32), 4),
    GridCase("3d_6conn_2x2x3", lambda: _grid((2, 2, 3), 6, 6), 6),
    GridCase("3d_26conn_2x2x2", lambda: _grid((2, 2, 2), 26, 7, hi=9), 26),
    GridCase("scalar_edge_weight", lambda: (_grid((3, 4), 4, 8)[0], _grid((3, 4), 4, 9)[1], 2), 4),
    GridCase("no_unaries", lambda: (np.zeros((2, 3), np.int64), np.zeros((2, 3), np.int64), 5), 4),
    GridCase("sparse_unaries", lambda: (np.pad([[9]], ((0, 2), (0, 3))), np.pad([[7]], ((2, 0), (3, 0))), 1), 4),
    GridCase("hard_seed_1x4", _hard_seed_1x4, 4),
    GridCase("batch_2d_8conn", lambda: _grid((2, 3), 8, 10, batch=(3,)), 8),
    GridCase("batch_3d_6conn_floats", lambda: _grid((2, 2, 2), 6, 11, dtype=np.float64, batch=(2,)), 6),
    GridCase("empty_batch", lambda: (np.zeros((0, 3, 4)), np.zeros((0, 3, 4)), 1.0), 4),
)




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
    if device == "gpu":
        return [(m.name, {"block_size": 32}) for m in wmatching_methods.TABLE.methods if m.gpu is not None]
    runs = []
    for m in wmatching_methods.TABLE.methods:
        if m.cpu is None:
            continue
        runs.append((m.name, {}))
        for opt in m.options:
            try:
                runs.append((m.name, m.check({opt: True}) if m.check is not None else {opt: True}))
            except (TypeError, ValueError):
                pass  # not a boolean switch
    return runs


# ----------------------------------------------------------------------------- min-cost flow networks
@dataclass(frozen=True)
class MCFCase:
    """A min-cost flow problem ``(tail, head, demand, capacity, cost)`` in the edge-list form (capacity ``np.inf``:
    unbounded); ``error``: the ValueError message every method must raise (None: solvable). The tests take the
    optimal cost from networkx's ``min_cost_flow_cost`` and OR-Tools' ``SimpleMinCostFlow``."""

    name: str
    make: Callable[[], tuple]
    error: str | None = None


def _mcf(tail, head, demand, cap, cost, cdtype=np.int64) -> tuple:
    return (np.asarray(tail, np.int64), np.asarray(head, np.int64), np.asarray(demand, np.int64),
            np.asarray(cap, np.float64 if np.isinf(np.asarray(cap, np.float64)).any() else np.int64),
            np.asarray(cost, cdtype))


def _mcf_random(n: int, m: int, seed: int, hi: int = 20, cdtype=np.int64, lo: int = -5, unbounded: float = 0.0,
                cost_hi: int = 30) -> tuple:
    """Random arcs and demands taken from a random flow on them (so a feasible problem): capacities below ``hi``,
    integer costs in ``[lo, cost_hi)``."""
    rng = np.random.default_rng(seed)
    t, h = rng.integers(0, n, m), rng.integers(0, n, m)
    cap = rng.integers(0, hi, m)
    f = rng.integers(0, cap + 1)
    d = np.zeros(n, np.int64)
    np.add.at(d, h, f)
    np.subtract.at(d, t, f)
    cost = rng.integers(lo, cost_hi, m) if cdtype == np.int64 else rng.random(m) * 30 + lo
    cap = np.where(rng.random(m) < unbounded, np.inf, cap)
    if unbounded:
        cost = np.where(np.isinf(cap), np.abs(cost), cost)  # unbounded arcs cost >= 0: no unbounded cycle
    return _mcf(t, h, d, cap, cost, cdtype)


_NEAR = 2**60 // 5 - 1  # costs on 4 nodes: max|cost| * (n + 1) just below 2**60

MCF_CASES = (
    MCFCase("empty", lambda: _mcf([], [], [], [], [])),
    MCFCase("one_node", lambda: _mcf([], [], [0], [], [])),
    MCFCase("isolated_nodes", lambda: _mcf([0, 1], [1, 2], [-3, 0, 3, 0, 0], [5, 5], [2, 1])),
    MCFCase("parallel_arcs", lambda: _mcf([0, 0, 0], [1, 1, 1], [-7, 7], [3, 2, 5], [4, 1, 2])),
    MCFCase("self_loops", lambda: _mcf([0, 0, 1, 1], [0, 1, 1, 2], [-2, 0, 2], [4, 5, 3, 5], [-3, 1, 2, 1])),
    MCFCase("zero_cost_cycle", lambda: _mcf([0, 1, 2, 0, 2], [1, 2, 0, 2, 3], [-2, 0, 0, 2], [5, 5, 5, 1, 5],
                                            [0, 0, 0, 0, 1])),
    MCFCase("negative_cycle_bounded", lambda: _mcf([0, 1, 2, 2], [1, 2, 0, 3], [-1, 0, 0, 1], [4, 4, 4, 9],
                                                   [-2, -2, 1, 3])),
    MCFCase("ties", lambda: _mcf([0, 0, 0, 1, 2, 3], [1, 2, 3, 4, 4, 4], [-5, 0, 0, 0, 5], [5] * 6, [1] * 6)),
    MCFCase("unbounded_arcs", lambda: _mcf([0, 1, 0, 2], [1, 2, 2, 1], [-6, 6, 0], [np.inf, 2, np.inf, np.inf],
                                           [5, -1, 1, 1])),
    MCFCase("random_int", lambda: _mcf_random(12, 40, 1)),
    MCFCase("random_unbounded", lambda: _mcf_random(15, 50, 2, unbounded=0.3)),
    MCFCase("random_float", lambda: _mcf_random(10, 35, 3, cdtype=np.float64)),
    MCFCase("float_dyadic", lambda: _mcf([0, 0, 1, 2], [1, 2, 3, 3], [-4, 0, 0, 4], [3] * 4, [0.5, 1.25, 0.75, 0.5],
                                         np.float64)),
    MCFCase("int64_near_overflow", lambda: _mcf([0, 0, 1, 2, 1], [1, 2, 3, 3, 2], [-(2**40), 0, 0, 2**40],
                                                [2**40] * 5, [_NEAR, _NEAR - 1, -_NEAR, 1, 3])),
    MCFCase("infeasible", lambda: _mcf([0, 1], [1, 2], [-5, 0, 5], [5, 2], [1, 1]), error="3 of 5 units"),
    MCFCase("unbounded_negative_cycle", lambda: _mcf([0, 1, 2, 0], [1, 2, 0, 2], [-1, 0, 1], [np.inf] * 4,
                                                     [1, -3, 1, 1]), error="unbounded"),
    MCFCase("demand_not_balanced", lambda: _mcf([0], [1], [-1, 2], [5], [1]), error="sum 1"),
)


# ----------------------------------------------------------------------------- batched assignment
@dataclass(frozen=True)
class BatchCase:
    """A batch for ``batch_linear_sum_assignment``: ``make() -> (costs, shapes)`` (a list of 2-D matrices with
    ``shapes`` None, or a padded ``(B, n, m)`` array with or without ``shapes``); ``error``: the ValueError message
    every method must raise (None: solvable). The tests take each item's optimum from SciPy."""

    name: str
    make: Callable[[], tuple]
    error: str | None = None


def _padded_detr(seed: int = 11) -> tuple:
    """The DETR form: queries x targets, the valid corner of each item given by ``shapes``, the padding garbage."""
    rng = np.random.default_rng(seed)
    shapes = np.array([[12, 0], [12, 5], [12, 12], [7, 12], [1, 1]])
    costs = rng.normal(size=(len(shapes), 12, 12)) * 1e3  # padding: large values a solver must never read
    for b, (n, m) in enumerate(shapes):
        costs[b, :n, :m] = rng.random((n, m))
    return costs, shapes


BATCH_CASES = (
    BatchCase("empty_batch", lambda: ([], None)),
    BatchCase("assignment_cases_ragged", lambda: ([c.cost() for c in ASSIGNMENT_CASES if c.feasible], None)),
    BatchCase("int_tensor_ties", lambda: (np.random.default_rng(3).integers(0, 3, (40, 6, 6)), None)),
    BatchCase("float32_wide", lambda: (np.random.default_rng(4).random((25, 5, 9)).astype(np.float32), None)),
    BatchCase("tall_and_wide_mixed", lambda: ([np.random.default_rng(5 + k).integers(-50, 50, (1 + k % 7, 7 - k % 7))
                                               for k in range(21)], None)),
    BatchCase("forbidden_pairs", lambda: ([_forbidden(s) for s in range(8)] + [_forbidden(9).T], None)),
    BatchCase("padded_with_shapes", _padded_detr),
    BatchCase("int8_extremes", lambda: (np.stack([np.array([[-128, 127], [127, -128]], dtype=np.int8)] * 3), None)),
    BatchCase("infeasible_item", lambda: ([np.ones((2, 2)), np.array([[np.inf, np.inf], [1.0, 2.0]])], None),
              error=r"cost matrix is infeasible \(item 1\)"),
)
