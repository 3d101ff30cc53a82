"""Public API for maximum s-t flow / minimum s-t cut.

* :func:`max_flow` — full interface: returns a :class:`FlowResult` with the per-arc flow and the
  minimum cut (source side, cut arcs), the certificate :func:`matchflow.verify.verify_flow` checks.
* :func:`maximum_flow` — drop-in for ``scipy.sparse.csgraph.maximum_flow`` (same arguments, a
  result with ``flow_value`` and the antisymmetric ``flow`` matrix, SciPy's errors for bad input);
  floats are accepted too (SciPy refuses them).

``method`` names the algorithm, ``backend`` the device. The methods, their CPU and GPU twins, options and
the ``method="auto"`` rules are the table in :mod:`._methods`; each method's solve and option check live
beside its kernel (``_cpu_<algo>.py``, ``_gpu_<algo>.py``). This module holds no per-method code: it
validates once (:func:`~matchflow._graph._flow.as_flow_network`), places the method
(:mod:`matchflow._methods`), runs it, extracts the cut and certifies a float answer (:mod:`._exact`).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._graph import FlowNetwork
from .._graph._flow import FLOAT_RTOL, as_flow_network, check_overflow
from .._methods import check_method_options, place, resolve
from .._validation import type_name
from ._exact import certify_float, solve_and_cut
from ._methods import TABLE, GridProblem
from ._result import FlowResult

# TABLE, GridProblem and FLOAT_RTOL are re-exported (flow/_grid.py imports the first two from here)
__all__ = ["max_flow", "maximum_flow", "METHODS", "SCIPY_METHODS", "FLOAT_RTOL", "TABLE", "GridProblem"]

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
    check_overflow(net)
    solve = row.gpu if device == "gpu" else row.cpu
    value, flow, side, cut, tol, stats = solve_and_cut(net, solve, opts)
    dt = net.capacities.dtype
    if dt.kind == "f":  # the exact re-solve runs the row's CPU twin, or the CPU rule's pick for a GPU-only row
        exact = row.cpu or TABLE.row(TABLE.cpu_rule(net)).cpu
        value, flow, side, cut, stats = certify_float(net, exact, opts if device == "cpu" else {}, value, flow,
                                                      side, cut, stats)
    value = value.item() if dt.kind == "f" else int(value)
    return FlowResult(flow_value=value, flow=flow.astype(dt, copy=False), source_side=side, cut_edges=cut,
                      method=row.name, backend=device, seconds=time.perf_counter() - t0, tol=tol, stats=stats)


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
