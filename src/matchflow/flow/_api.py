"""Public API for maximum s-t flow / minimum s-t cut: the family's doors.

* :func:`max_flow` — full interface: returns a :class:`FlowResult` with the per-arc flow and the
  minimum cut (source side, cut arcs), the certificate :func:`matchflow.verify.verify_flow` checks.
* :func:`grid_cut` — minimum cut of a 2-D/3-D grid (vision energies) or a batch of them, from arrays.
* :func:`maximum_flow` — drop-in for ``scipy.sparse.csgraph.maximum_flow`` (same arguments, a
  result with ``flow_value`` and the antisymmetric ``flow`` matrix, SciPy's errors for bad input);
  floats are accepted too (SciPy refuses them).

``method`` names the algorithm, ``backend`` the device. The methods, their CPU and GPU twins, options and
the ``method="auto"`` rules are the tables in :mod:`._methods` (``TABLE`` for networks, ``GRID_TABLE`` for
grids); each method's solve and option check live beside its kernel (``_cpu_<algo>.py``, ``_gpu_<algo>.py``;
the grid rows' solves in :mod:`._cpu_grid_bk`, :mod:`._gpu_grid` and :func:`._methods.on_network`). This module holds no per-method code: each door
validates once (:func:`~matchflow._graph._flow.as_flow_network`; :func:`._grid.grid_problem`), places the
method (:mod:`matchflow._methods`), runs it and certifies the answer (:func:`._cpu_exact.solve_network`: the cut,
a float answer proved or re-solved exactly; :func:`._verify_grid.certify_cut`: the grid certificate).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._graph import FlowNetwork
from .._graph._flow import FLOAT_RTOL, as_flow_network
from .._methods import check_method_options, place, resolve
from .._validation import type_name
from ._cpu_exact import solve_network
from ._methods import GRID_FALLBACK, GRID_TABLE, TABLE
from ._prepare_grid import grid_problem
from ._result import FlowResult, GridCutResult
from ._verify_grid import certify_cut

# FLOAT_RTOL is re-exported
__all__ = ["max_flow", "maximum_flow", "grid_cut", "METHODS", "SCIPY_METHODS", "FLOAT_RTOL"]

SCIPY_METHODS = ("dinic", "edmonds_karp")
METHODS = TABLE.names


def max_flow(graph: Any, source: int | None = None, sink: int | None = None, *, method: str = "auto",
             backend: str = "auto", **options: Any) -> FlowResult:
    """Maximum ``source``-``sink`` flow and a minimum cut.

    Parameters
    ----------
    graph : :class:`~matchflow.FlowNetwork` (source/sink optional: its own), scipy.sparse capacity
        matrix, dense NumPy/CuPy/PyTorch square array, or a networkx graph (``capacity`` edge
        attribute, default 1; nodes in ``graph.nodes`` order; an undirected edge is two arcs). Integer
        capacities are exact (sums checked: OverflowError from 2**62). Float capacities are solved in
        float64 (no residual is treated as zero by a threshold; OverflowError where a vertex's capacities sum
        past 2**1022) and certified (:func:`~matchflow.flow._verify.flow_certificate`:
        ``stats["float_bound"]`` bounds ``|flow_value - maximum|`` by the rounding of the answer's own flows
        and cut); an answer the certificate cannot prove is re-solved exactly (``stats["exact_resolve"]``:
        ``"int64"`` on the capacities scaled by a power of two, or ``"python-int"`` up to
        ``EXACT_MAX_ARCS`` arcs), else returned with its bound and a RuntimeWarning.
    method : ``"auto"``, ``"push-relabel"`` (CPU: HIPR's highest-label with gap and global relabelling,
        or FIFO with global relabelling: option ``variant``; GPU: Hong's lock-free
        push-relabel with He & Hong's global relabel on the device), ``"boykov-kolmogorov"`` (search
        trees, CPU) or ``"pseudoflow"`` (Hochbaum's HPF, CPU). ``"auto"`` on the CPU: Boykov-Kolmogorov where
        the source and sink are adjacent to at least half the vertices (grid / vision cuts), pseudoflow
        elsewhere.
    backend : ``"cpu"``, ``"gpu"`` or ``"auto"`` (the GPU only where measured faster: ``_methods._gpu_rule``).
    **options : CPU push-relabel: ``relabel_freq`` (global relabel after ``relabel_freq * (n + m)`` relabel
        arc scans, default 1) and ``variant`` (``"highest"``, the default, or ``"fifo"``). CPU pseudoflow:
        ``variant`` (``"highest"``, the default, or ``"lowest"`` label first), ``buckets`` (``"lifo"``, the
        default, or ``"fifo"``), ``init`` (``"auto"``, the default: breadth-first labels unless they cost too
        many relabels, then ``"simple"`` ones; or either of ``"bfs"``, ``"simple"``). GPU: ``loop``, ``certify``, ``max_rounds``, ``block_size``, ``grid_size``, ``cycle``,
        ``check_every`` (``matchflow.flow._gpu_push_relabel.validate_flow_gpu_options``).

    Returns
    -------
    FlowResult with ``flow_value``, ``flow`` (per input arc), ``source_side``, ``cut_edges``,
    ``method``, ``backend``, ``seconds``, ``tol`` and ``stats`` (work counters: pushes, relabels,
    global_relabels, gaps, variant for push-relabel; augmentations, orphans, growth_scans for Boykov-Kolmogorov;
    pushes, mergers, relabels, gaps, arc_scans, restarts, phase2_* and phase1_value for pseudoflow).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from matchflow import max_flow
    >>> from matchflow.verify import verify_flow
    >>> cap = sp.csr_array(np.array([[0, 3, 2, 0], [0, 0, 1, 2], [0, 0, 0, 3], [0, 0, 0, 0]]))
    >>> res = max_flow(cap, 0, 3, backend="cpu")
    >>> res.flow_value
    5
    >>> res.source_side.tolist()  # a minimum cut: the source alone
    [True, False, False, False]
    >>> verify_flow(cap, 0, 3, res)
    True
    >>> max_flow(cap, 0, 3, method="push-relabel", backend="cpu").flow_value
    5

    Hong's lock-free push-relabel on a GPU (this line needs one):

    >>> max_flow(cap, 0, 3, backend="gpu").flow_value  # doctest: +SKIP
    5

    References
    ----------
    .. [1] Goldberg, A. V., and Tarjan, R. E., "A new approach to the maximum-flow problem", Journal of the ACM
           35(4), 921-940, 1988. DOI:10.1145/48014.61051
    .. [2] Cherkassky, B. V., and Goldberg, A. V., "On implementing the push-relabel method for the maximum flow
           problem", Algorithmica 19, 390-410, 1997. DOI:10.1007/PL00009180
    .. [3] Boykov, Y., and Kolmogorov, V., "An experimental comparison of min-cut/max-flow algorithms for energy
           minimization in vision", IEEE Transactions on Pattern Analysis and Machine Intelligence 26(9), 1124-1137,
           2004. DOI:10.1109/TPAMI.2004.60
    .. [4] Hochbaum, D. S., "The pseudoflow algorithm: a new algorithm for the maximum-flow problem", Operations
           Research 56(4), 992-1009, 2008.
    .. [5] Hong, B., "A lock-free multi-threaded algorithm for the maximum flow problem", IEEE International
           Parallel and Distributed Processing Symposium (IPDPS), 2008.
    """
    row, backend = resolve(TABLE, method, backend)
    net = as_flow_network(graph, source, sink)
    row, device = place(TABLE, row, backend, lambda: net, options)
    opts = check_method_options(TABLE, row, device, options)
    t0 = time.perf_counter()
    exact = row.cpu or TABLE.row(TABLE.cpu_rule(net)).cpu  # a float's exact re-solve: the CPU twin, or the rule's
    value, flow, side, cut, tol, stats = solve_network(net, row.gpu if device == "gpu" else row.cpu, opts, exact,
                                                       opts if device == "cpu" else {})
    return FlowResult(flow_value=value, flow=flow, source_side=side, cut_edges=cut, method=row.name, backend=device,
                      seconds=time.perf_counter() - t0, tol=tol, stats=stats)


def grid_cut(source_caps: Any, sink_caps: Any, edge_caps: Any, *, connectivity: int | None = None,
             method: str = "auto", backend: str = "auto", **options: Any) -> GridCutResult:
    """Minimum s-t cut of a 2-D (connectivity 4 or 8) or 3-D (6 or 26) grid, or of a batch of them.

    ``source_caps``/``sink_caps``: arrays of the grid's shape (NumPy; CuPy/PyTorch CUDA arrays stay on
    the device with ``backend="gpu"``, labels returned as the same kind of array; the CPU copies them to
    the host); ``edge_caps``: shape ``(k, *grid)`` or broadcastable to it (a
    scalar: one weight), ``edge_caps[k][p]`` the capacity of ``p -> p + offsets(...)[k]``. Integer
    capacities are exact; floats as in :func:`max_flow`. ``connectivity``: default 4 for a 2-D array,
    6 for a 3-D one. **Batch**: one more leading axis than the connectivity's grid (``(B, H, W)`` with
    4 or 8, ``(B, D, H, W)`` with 6 or 26; ``edge_caps`` ``(B, k, *grid)`` or broadcastable, e.g. one
    ``(k, *grid)`` for all) solves the B independent grids in one call: ``labels`` ``(B, *grid)`` and
    ``flow_value`` a NumPy array of B values (each the item's :func:`grid_energy`).
    Returns ``labels`` (True: source side), ``flow_value`` (= :func:`grid_energy` of ``labels``) and
    ``stats`` (``seconds_build`` too). Every answer is certified before it is returned (issue 21,
    :func:`._verify_grid.certify_cut`): ``stats["certified"]`` (True, or ``"device"`` / ``"host"`` on the GPU),
    ``"gap_bound"`` and ``"tol"``; a float answer of push-relabel, pseudoflow or the GPU that the certificate
    does not prove is solved again by the CPU grid path (``result.method``/``backend`` then say so, and
    ``stats["fallback"]`` why).
    The methods are the table ``_methods.GRID_TABLE`` (the names and rules of :func:`max_flow`). CPU, method
    ``"auto"`` (BK when the unaries touch half the points, :func:`max_flow`'s rule; else pseudoflow) or
    ``"boykov-kolmogorov"``: the residual CSR is built straight from the arrays in Numba (one arc pair
    per neighbour pair, :mod:`._cpu_grid_bk`; a batch is one graph with no arc across items) and the labels
    are BK's final source tree; ``"push-relabel"``, ``"pseudoflow"``: the general network of
    :func:`grid_network` (a batch: one network, no arc across items) solved as by :func:`max_flow`.
    ``backend="gpu"``: the lock-free push-relabel on the implicit grid (:mod:`._gpu_grid`; a batch is
    one solve, the items an outer grid axis with no neighbours across it; options as :func:`max_flow`'s
    GPU options, plus ``layout="tiled"`` -- 32 x 8 tiles, one per block, and the tiled BFS; the default on
    2-D grids below 4 MP -- or ``"linear"`` -- the default on 3-D ones and from 4 MP --, ``bfs``, ``tile``, ``tile_passes``: see
    :mod:`._gpu_grid`); its labels are the pixels that cannot reach the sink (the largest minimum-cut source
    side; the CPU returns the smallest: equal energy).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import grid_cut
    >>> from matchflow.flow import grid_energy
    >>> source_caps = np.array([[5, 4, 0], [4, 0, 0]])
    >>> sink_caps = np.array([[0, 0, 3], [0, 2, 6]])
    >>> res = grid_cut(source_caps, sink_caps, 1, backend="cpu")  # 4-connected, every edge capacity 1
    >>> res.labels.astype(int).tolist()
    [[1, 1, 0], [1, 0, 0]]
    >>> res.flow_value, grid_energy(res.labels, source_caps, sink_caps, 1)
    (3, 3)

    On a GPU (these lines need one; the energy is the same):

    >>> grid_cut(source_caps, sink_caps, 1, backend="gpu").flow_value  # doctest: +SKIP
    3

    References
    ----------
    .. [1] Boykov, Y., and Kolmogorov, V., "An experimental comparison of min-cut/max-flow algorithms for energy
           minimization in vision", IEEE Transactions on Pattern Analysis and Machine Intelligence 26(9), 1124-1137,
           2004. DOI:10.1109/TPAMI.2004.60
    .. [2] Kolmogorov, V., and Zabih, R., "What energy functions can be minimized via graph cuts?", IEEE
           Transactions on Pattern Analysis and Machine Intelligence 26(2), 147-159, 2004.
           DOI:10.1109/TPAMI.2004.1262177
    .. [3] Hong, B., "A lock-free multi-threaded algorithm for the maximum flow problem", IEEE International
           Parallel and Distributed Processing Symposium (IPDPS), 2008.
    .. [4] Łupińska, A., "Parallel implementation of flow and matching algorithms", Jagiellonian University, Kraków
           (technical report).
    """
    t0 = time.perf_counter()
    row, backend = resolve(GRID_TABLE, method, backend)
    problem = grid_problem(source_caps, sink_caps, edge_caps, connectivity, backend)
    row, device = place(GRID_TABLE, row, backend, lambda: problem, options)
    opts = check_method_options(GRID_TABLE, row, device, options)
    answer = (row.gpu if device == "gpu" else row.cpu)(problem, **opts)
    labels, value, stats, used, where = certify_cut(problem, answer, row.name, device, GRID_FALLBACK)
    return GridCutResult(labels=labels, flow_value=value, connectivity=problem.connectivity, method=used,
                         backend=where, seconds=time.perf_counter() - t0, stats=stats)


class MaximumFlowResult:
    """SciPy's result shape: ``flow_value`` and ``flow`` (antisymmetric n x n CSR)."""

    def __init__(self, flow_value: Any, flow: sp.csr_array) -> None:
        self.flow_value = flow_value
        self.flow = flow

    def __repr__(self) -> str:
        return f"MaximumFlowResult with value of {self.flow_value}"


def maximum_flow(csgraph: Any, source: int, sink: int, *, method: str = "dinic") -> MaximumFlowResult:
    """Drop-in for ``scipy.sparse.csgraph.maximum_flow``.

    ``csgraph`` must be a square CSR matrix/array of capacities (SciPy's errors otherwise; float
    capacities are accepted here, unlike SciPy). ``method``: SciPy's ``"dinic"``/``"edmonds_karp"``
    (both run our ``method="auto"``: the value is the same, the flow may differ) or ours. The flow matrix
    has the capacities' dtype; unsigned ones give the smallest signed dtype that holds them (uint8 -> int16).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from matchflow import maximum_flow
    >>> cap = sp.csr_array(np.array([[0, 3, 2, 0], [0, 0, 1, 2], [0, 0, 0, 3], [0, 0, 0, 0]]))
    >>> maximum_flow(cap, 0, 3).flow_value
    5

    References
    ----------
    .. [1] Boykov, Y., and Kolmogorov, V., "An experimental comparison of min-cut/max-flow algorithms for energy
           minimization in vision", IEEE Transactions on Pattern Analysis and Machine Intelligence 26(9), 1124-1137,
           2004. DOI:10.1109/TPAMI.2004.60
    .. [2] Hochbaum, D. S., "The pseudoflow algorithm: a new algorithm for the maximum-flow problem", Operations
           Research 56(4), 992-1009, 2008.
    """
    if method not in SCIPY_METHODS + TABLE.names:
        raise ValueError(f"{method} method is not supported yet.")
    if not (sp.issparse(csgraph) and csgraph.format == "csr"):
        raise TypeError("graph must be in CSR format")
    if csgraph.ndim != 2 or csgraph.shape[0] != csgraph.shape[1]:
        raise ValueError("graph must be specified as a square matrix.")
    n = csgraph.shape[0]
    for what, v in (("source", source), ("sink", sink)):
        if not isinstance(v, int | np.integer):
            raise TypeError(f"{what} must be an integer, got {type_name(v)}")
        if not 0 <= v < n:
            raise ValueError(f"{what} value ({v}) must be between 0 and {n - 1}")
    if source == sink:
        raise ValueError("source and sink vertices must differ")
    if csgraph.dtype.kind not in "iuf":
        raise ValueError("graph capacities must be integers")
    if csgraph.nnz and csgraph.data.min() < 0:
        raise ValueError("graph capacities must be non-negative")  # matchflow: refused, not ignored
    net = FlowNetwork.from_scipy(csgraph, int(source), int(sink))
    res = max_flow(net, method="auto" if method in SCIPY_METHODS else method)
    f = res.flow.astype(_signed(csgraph.dtype))
    flow = sp.csr_array((np.concatenate([f, -f]), (np.concatenate([net.tails, net.heads]),
                                                    np.concatenate([net.heads, net.tails]))), shape=(n, n))
    flow.sum_duplicates()
    return MaximumFlowResult(res.flow_value, flow)


def _signed(dt: np.dtype) -> np.dtype:
    """The drop-in's flow matrix dtype: the capacities' own, or for unsigned ones the smallest signed type
    that holds them (the matrix is antisymmetric; uint64 capacities are below 2**62 here)."""
    if dt.kind != "u":
        return dt
    return np.dtype(np.int64) if dt.itemsize >= 4 else np.promote_types(dt, np.int8)
