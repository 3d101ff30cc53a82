"""Public API for maximum s-t flow / minimum s-t cut.

* :func:`max_flow` — full interface: returns a :class:`FlowResult` with the per-arc flow and the
  minimum cut (source side, cut arcs), the certificate :func:`matchflow.verify.verify_flow` checks.
* :func:`maximum_flow` — drop-in for ``scipy.sparse.csgraph.maximum_flow`` (same arguments, a
  result with ``flow_value`` and the antisymmetric ``flow`` matrix, SciPy's errors for bad input);
  floats are accepted too (SciPy refuses them).

Validate once (:class:`~matchflow.FlowNetwork`), resolve method/backend in the method table
(:mod:`._methods`), solve, extract the cut.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._graph import FlowNetwork
from .._methods import Method, MethodTable, check_method_options, place, resolve
from .._validation import check_choice, check_real, type_name
from ._cpu_bk import bk_kernel
from ._cpu_pseudoflow import INIT_AUTO, INIT_BFS, INIT_SIMPLE, pseudoflow_kernel
from ._cpu_push_relabel import (
    FIFO,
    HIGHEST,
    _bfs_dev,
    arc_flow_kernel,
    push_relabel_kernel,
    residual_reach_kernel,
    return_roundoff_kernel,
)
from ._exact import EXACT_MAX_ARCS, binary_scale, python_int_max_flow, scaled_int64, to_float
from ._gpu_push_relabel import push_relabel_gpu
from ._result import FlowResult
from ._verify import flow_certificate, vertex_balance

__all__ = ["max_flow", "maximum_flow", "METHODS", "SCIPY_METHODS", "FLOAT_RTOL"]

INT_LIMIT = 2**62  # integer capacity sums must stay below this (int64 excess never wraps)
FLOAT_LIMIT = 2.0**1022  # float capacity sums at a vertex must stay below this (no excess overflows float64)
FLOAT_RTOL = 1e-12  # grid cuts only (flow/_grid.py): general networks treat no float residual as zero by a threshold
SCIPY_METHODS = ("dinic", "edmonds_karp")


PR_VARIANTS = {"fifo": FIFO, "highest": HIGHEST}  # CPU push-relabel's vertex selection (``variant=``)
PR_DEFAULT_VARIANT = "highest"  # measured faster on the general graphs (docs/notes/flow.md)


def _check_push_relabel(opts: dict) -> dict:
    opts["relabel_freq"] = check_real("relabel_freq", opts.get("relabel_freq", 1.0), low=0.0, low_inclusive=False)
    opts["variant"] = check_choice("variant", opts.get("variant", PR_DEFAULT_VARIANT), PR_VARIANTS)
    return opts


def check_overflow(net: FlowNetwork) -> None:
    """Refuse capacities whose sums into or out of one vertex reach 2**62 (integers: int64 excess and
    deficits never wrap) or 2**1022 (floats: no excess, deficit or flow value overflows float64)."""
    c = net.capacities
    if c.size == 0:
        return
    is_int = c.dtype.kind in "iu"
    cf = c.astype(np.float64) * (1.0 if is_int else 0.5)  # halved: the float sums themselves stay finite
    loop = net.tails == net.heads
    into, out = (np.bincount(x[~loop], cf[~loop], net.n) for x in (net.heads, net.tails))
    sums = into if into.max() >= out.max() else out
    v = int(sums.argmax())
    worst = float(sums[v]) * (1.0 if is_int else 2.0)
    if is_int and worst >= INT_LIMIT:
        raise OverflowError(f"capacities at node {v} sum to about {worst:.3g}, beyond 2**62: the flow could "
                            "overflow int64 (scale the capacities down or pass floats)")
    if not is_int and sums[v] >= FLOAT_LIMIT / 2:
        raise OverflowError(f"capacities at node {v} sum to about 2 x {sums[v]:.3g}, beyond 2**1022: the flow could "
                            "overflow float64 (scale the capacities down)")


def _residual_start(net: FlowNetwork) -> tuple[np.ndarray, Any]:
    """The CPU solvers' working residual capacities (a copy: int64 for integer capacities, else float64) and
    the zero they compare residuals with (no threshold: a saturating push leaves exactly 0)."""
    is_int = net.capacities.dtype.kind in "iu"
    cap = net.cap.astype(np.int64 if is_int else np.float64, copy=True)
    return cap, np.int64(0) if is_int else np.float64(0.0)


def _solve_push_relabel(net: FlowNetwork, relabel_freq: float = 1.0, variant: str = PR_DEFAULT_VARIANT) -> tuple:
    """CPU push-relabel; returns (flow_value, per-arc flow, residual caps, tol, stats)."""
    cap, tol = _residual_start(net)
    excess = np.zeros(net.n, dtype=cap.dtype)
    status, pushes, relabels, globals_, gaps = push_relabel_kernel(
        net.n, net.source, net.sink, net.indptr, net.head, net.rev, cap, excess, relabel_freq, tol,
        PR_VARIANTS[variant], cap.dtype.kind == "i")
    if status != 0:
        raise RuntimeError(f"push-relabel kernel status {status} (a label passed 2n): please report this input")
    flow = arc_flow_kernel(net.arc, net.cap.astype(cap.dtype, copy=False), cap, net.m)
    stats = {"pushes": int(pushes), "relabels": int(relabels), "global_relabels": int(globals_), "gaps": int(gaps),
             "variant": variant}
    return excess[net.sink], flow, cap, tol, stats


def _solve_bk(net: FlowNetwork) -> tuple:
    """CPU Boykov-Kolmogorov; returns (flow_value, per-arc flow, residual caps, tol, stats)."""
    cap, tol = _residual_start(net)
    total = np.zeros(1, dtype=cap.dtype)
    augs, orphans, scans = bk_kernel(net.n, net.source, net.sink, net.indptr, net.head, net.rev, cap, tol, total)
    flow = arc_flow_kernel(net.arc, net.cap.astype(cap.dtype, copy=False), cap, net.m)
    stats = {"augmentations": int(augs), "orphans": int(orphans), "growth_scans": int(scans)}
    return total[0], flow, cap, tol, stats


HPF_VARIANTS = ("highest", "lowest")  # pseudoflow's root selection (``variant=``)
HPF_BUCKETS = ("lifo", "fifo")  # ... and the order within one label (``buckets=``)
# initial labels: residual distance to a deficit, 1 / 0 by the sign of the excess, or BFS with a fallback
HPF_INITS = {"auto": INIT_AUTO, "bfs": INIT_BFS, "simple": INIT_SIMPLE}


def _check_pseudoflow(opts: dict) -> dict:
    opts["variant"] = check_choice("variant", opts.get("variant", HPF_VARIANTS[0]), HPF_VARIANTS)
    opts["buckets"] = check_choice("buckets", opts.get("buckets", HPF_BUCKETS[0]), HPF_BUCKETS)
    opts["init"] = check_choice("init", opts.get("init", "auto"), HPF_INITS)
    return opts


def _solve_pseudoflow(net: FlowNetwork, variant: str = HPF_VARIANTS[0], buckets: str = HPF_BUCKETS[0],
                      init: str = "auto") -> tuple:
    """CPU pseudoflow (HPF); returns (flow_value, per-arc flow, residual caps, tol, stats)."""
    cap, tol = _residual_start(net)
    cap0 = net.cap.astype(cap.dtype, copy=False)  # the capacities at zero flow (phase 2 reads them)
    excess = np.zeros(net.n, dtype=cap.dtype)
    status, value1, c = pseudoflow_kernel(net.n, net.source, net.sink, net.indptr, net.head, net.rev, cap, excess,
                                          cap0, tol, variant == "highest", buckets == "lifo", HPF_INITS[init], 1.0,
                                          cap.dtype.kind == "i")
    if status != 0:
        raise RuntimeError(f"pseudoflow kernel status {status} (phase 2 found no maximum flow): please report "
                           "this input")
    flow = arc_flow_kernel(net.arc, net.cap.astype(cap.dtype, copy=False), cap, net.m)
    stats = {"pushes": int(c[0]), "mergers": int(c[1]), "relabels": int(c[2]), "gaps": int(c[3]),
             "arc_scans": int(c[4]), "restarts": int(c[5]), "phase2_pushes": int(c[6]),
             "phase2_relabels": int(c[7]), "phase2_global_relabels": int(c[8]),
             "phase1_value": int(value1) if cap.dtype.kind == "i" else float(value1), "variant": variant,
             "buckets": buckets, "init": init}
    return excess[net.sink], flow, cap, tol, stats


@dataclass(frozen=True)
class GridProblem:
    """What the method rules read for ``grid_cut``: the grid's shape and connectivity (no network built)."""

    shape: tuple[int, ...]
    connectivity: int


GPU_GRID_MIN = 512 * 512  # grid_cut, backend="auto": the GPU from this many grid points on


def _gpu_rule(problem: FlowNetwork | GridProblem) -> str | None:
    """``backend="auto"``: the GPU push-relabel only where it was measured faster end to end
    (H100, the public call from host arrays, against our best CPU method on the same host).

    Grid cuts (or batches of grids) of >= 512² points in all (results/flow/gpu-h100-2026-11-23b.md; CPU: our
    BK on a 2-core host): 512² image-like 5.5 ms vs 89 ms, 1000² random 37 ms vs 1.7 s, a batch of 256 64²
    images 15 ms vs 0.98 s, 4-16 MP and 200³ volumes 87-239x; smaller grids were not measured (launch-bound:
    kept on the CPU). General networks (the persistent loop, results/flow/gpu-general-h100-2026-11-23e.md;
    CPU: our pseudoflow and push-relabel on the device host's Xeon, the faster of the two): networks of >=
    ``GPU_NETWORK_MIN_ARCS`` (1.5M) arcs that are not grid-cut shaped: random n=200k m=1.6M 0.21 s vs 0.34 s,
    n=1.25M m=10M 1.99 s vs 2.61 s (the solve alone 24 / 57 ms: the rest is FlowNetwork's build and the
    per-arc flow on the host). Below, the CPU: the DIMACS files 4-26 ms vs 0.3-3 ms, ak-4102 0.26 s vs
    0.064 s, level graphs of 196k-786k arcs 0.27-1.37x (deep ones lose: BFS thousands of levels deep). Deep
    networks above 1.5M arcs and grid-shaped CSR networks were not measured on the GPU, so the rule also asks
    for a shallow network: the sink's residual BFS at zero flow at most ``GPU_NETWORK_MAX_DEPTH`` levels deep
    (one CPU pass over the arcs, a few % of the call; the random networks measured: 8-12 levels per global
    relabel; the deep ones that lost: ~300 (256x256 level graph) to 3,000 (4096x64) levels per relabel)."""
    if isinstance(problem, GridProblem):
        return "push-relabel" if int(np.prod(problem.shape)) >= GPU_GRID_MIN else None
    from ._gpu_push_relabel import GPU_NETWORK_MIN_ARCS  # noqa: PLC0415

    if (problem.m >= GPU_NETWORK_MIN_ARCS and not _grid_cut_shaped(problem)
            and sink_depth(problem) <= GPU_NETWORK_MAX_DEPTH):
        return "push-relabel"
    return None


# a process that has not used the GPU yet (its first call ~1.4 s more: CUDA context, kernels from the cache,
# results/gpu_e2e/first-call-h100-2026-11-23e.md): grid cuts from 4 M points (4 MP: 1.9-3.5 s on our CPU vs
# 31-44 ms; 512² images save ~80 ms, 1000² random ~1.7 s on 2 loaded cores but image-like grids of that size
# less); general networks never (10 M arcs saves 0.6 s: results/flow/gpu-general-h100-2026-11-23e.md)
GPU_GRID_COLD = 4_000_000
GPU_NETWORK_MAX_DEPTH = 64  # backend="auto": deeper networks stay on the CPU (the GPU BFS is a grid sync per level)


def sink_depth(net: FlowNetwork) -> int:
    """Levels of the backward BFS from the sink over the arcs with capacity (zero flow; the source skipped)."""
    n = net.n
    label = np.full(n, 2 * n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    count = _bfs_dev(net.sink, 0, n, net.source, net.indptr, net.head, net.rev, net.cap, label, queue,
                     net.cap.dtype.type(0))
    return int(label[queue[count - 1]])


def _grid_cut_shaped(net: FlowNetwork | GridProblem) -> bool:
    """``method="auto"`` on the CPU: Boykov-Kolmogorov where ``s`` and ``t`` together touch at least half
    the vertices (the t-links of a vision energy, every ``grid_cut``), pseudoflow elsewhere; measured
    in docs/notes/flow.md and results/flow/cpu-general-2026-11-23b.md (BK beat our HPF on every grid there,
    1.1-1.8x on the same arc lists; HPF beat our push-relabel 3-7x on the AK networks and 2x on the wide level
    graph, and was level with it elsewhere)."""
    if isinstance(net, GridProblem):
        return True
    ip = net.indptr
    return int(ip[net.source + 1] - ip[net.source] + ip[net.sink + 1] - ip[net.sink]) >= (net.n - 2) / 2


TABLE = MethodTable(
    family="max_flow",
    methods=(Method("push-relabel", cpu=_solve_push_relabel, gpu=push_relabel_gpu, options=("relabel_freq", "variant"),
                    check=_check_push_relabel, auto_gpu=lambda p: _gpu_rule(p) is not None),
             Method("boykov-kolmogorov", cpu=_solve_bk),
             Method("pseudoflow", cpu=_solve_pseudoflow, options=("variant", "buckets", "init"),
                    check=_check_pseudoflow)),
    cpu_rule=lambda net: "boykov-kolmogorov" if _grid_cut_shaped(net) else "pseudoflow",
    gpu_rule=_gpu_rule,
    cold_gpu_rule=lambda p: isinstance(p, GridProblem) and int(np.prod(p.shape)) >= GPU_GRID_COLD,
)
METHODS = TABLE.names


def _as_network(graph: Any, source: Any, sink: Any) -> FlowNetwork:
    if isinstance(graph, FlowNetwork):
        if source is None and sink is None:
            return graph
        return FlowNetwork(graph.n, graph.source if source is None else source,
                           graph.sink if sink is None else sink, graph.tails, graph.heads, graph.capacities)
    if source is None or sink is None:
        raise ValueError("source and sink are required unless graph is a FlowNetwork")
    if hasattr(graph, "edges") and hasattr(graph, "nodes"):  # networkx, attribute "capacity"
        return _from_networkx(graph, source, sink)
    if sp.issparse(graph):
        return FlowNetwork.from_scipy(graph, source, sink)
    return FlowNetwork.from_dense(graph, source, sink)


def _from_networkx(graph: Any, source: Any, sink: Any) -> FlowNetwork:
    """Arcs of a networkx graph (``capacity`` attribute, default 1); an undirected edge is two arcs, as
    networkx's own max-flow reads it."""
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    for what, v in (("source", source), ("sink", sink)):
        if v not in index:
            raise ValueError(f"{what} {v!r} is not a node of the graph")
    e = [(index[u], index[v], d.get("capacity", 1)) for u, v, d in graph.edges(data=True)]
    if not graph.is_directed():
        e += [(v, u, c) for u, v, c in e if u != v]
    t, h, c = (np.array(x) for x in zip(*e, strict=True)) if e else ([], [], np.zeros(0, np.int64))
    return FlowNetwork(len(nodes), index[source], index[sink], t, h, c)


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
    backend : ``"cpu"``, ``"gpu"`` or ``"auto"`` (the GPU only where measured faster: ``_gpu_rule``).
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
    net = _as_network(graph, source, sink)
    row, device = place(TABLE, row, backend, lambda: net, options)
    opts = check_method_options(TABLE, row, device, options)
    t0 = time.perf_counter()
    check_overflow(net)
    solve = row.gpu if device == "gpu" else row.cpu
    value, flow, side, cut, tol, stats = _solve_and_cut(net, solve, opts)
    dt = net.capacities.dtype
    if dt.kind == "f":
        value, flow, side, cut, stats = _certify_float(net, row.cpu or _solve_pseudoflow,
                                                       opts if device == "cpu" else {}, value, flow, side, cut, stats)
    value = value.item() if dt.kind == "f" else int(value)
    return FlowResult(flow_value=value, flow=flow.astype(dt, copy=False), source_side=side, cut_edges=cut,
                      method=row.name, backend=device, seconds=time.perf_counter() - t0, tol=tol, stats=stats)


def _solve_and_cut(net: FlowNetwork, solve: Any, opts: dict) -> tuple:
    """``(value, per-arc flow, source side, cut arcs, tol, stats)`` of one solve."""
    value, flow, cap, tol, stats = solve(net, **opts)
    side = residual_reach_kernel(net.n, net.source, net.indptr, net.head, cap, tol)
    loop = net.tails == net.heads
    cut = np.flatnonzero(side[net.tails] & ~side[net.heads] & ~loop)
    if flow.dtype.kind == "f":
        value = _sink_inflow(net, flow)
    return value, flow, side, cut, tol, stats


def _sink_inflow(net: FlowNetwork, flow: np.ndarray) -> np.float64:
    """The sink's net inflow, correctly rounded (floats: not the solver's running sum)."""
    loop = net.tails == net.heads
    return np.float64(math.fsum(flow[(net.heads == net.sink) & ~loop]) -
                      math.fsum(flow[(net.tails == net.sink) & ~loop]))


def _return_roundoff(net: FlowNetwork, flow: np.ndarray) -> np.ndarray | None:
    """Floats: the flow with the round-off left at inner vertices carried to the terminals
    (``return_roundoff_kernel``); None where the walk was cut short."""
    f = flow.astype(np.float64)  # a copy (the solvers' float flows are float64)
    out, _, tol = vertex_balance(net, f, 2.0**-53)
    inner = np.ones(net.n, dtype=bool)
    inner[[net.source, net.sink]] = False
    bad = np.flatnonzero(inner & (np.abs(out) > tol / 4))
    slack = np.where(inner, np.maximum(tol / 4 - np.abs(out), 0.0), 0.0)
    ok = return_roundoff_kernel(net.source, net.sink, net.tails, net.heads, f, net.indptr, net.rev, net.arc, bad,
                                -out[bad], slack, 8 * (net.n + len(net.head)) + 64)
    return f if ok else None


def _certify_float(net: FlowNetwork, cpu_solve: Any, opts: dict, value: Any, flow: np.ndarray, side: np.ndarray,
                   cut: np.ndarray, stats: dict) -> tuple:
    """Float answers pass the sound certificate (``stats["float_bound"]``: a proved bound on the distance of
    ``flow_value`` from the maximum) or are re-solved exactly (``stats["exact_resolve"]``): in scaled int64
    where the capacities' binary exponents span at most 62 bits (and the sums fit), else in Python integers
    up to ``EXACT_MAX_ARCS`` arcs; beyond, the answer comes with its bound and a RuntimeWarning."""
    dt = net.capacities.dtype
    problems, bound = flow_certificate(net, flow.astype(dt), value, side, cut)
    repaired = _return_roundoff(net, flow) if problems else None
    if repaired is not None:
        fixed = flow_certificate(net, repaired.astype(dt), _sink_inflow(net, repaired), side, cut)
        if not fixed[0]:
            flow, value, (problems, bound) = repaired, _sink_inflow(net, repaired), fixed
            stats["roundoff_returned"] = True
    scale = binary_scale(net) if problems else None
    if scale is not None:
        e, top = scale
        inet = scaled_int64(net, e) if top - e <= 62 else None
        try:
            check_overflow(inet) if inet is not None else None
        except OverflowError:
            inet = None
        if inet is not None:
            ivalue, iflow, side, cut, _, _ = _solve_and_cut(inet, cpu_solve, opts)
            value, flow = np.float64(to_float(int(ivalue), e)), np.ldexp(iflow.astype(np.float64), e)
            stats["exact_resolve"] = "int64"
        elif net.m <= EXACT_MAX_ARCS:
            value, flow, side = python_int_max_flow(net, e)
            value = np.float64(value)
            cut = np.flatnonzero(side[net.tails] & ~side[net.heads] & (net.tails != net.heads))
            stats["exact_resolve"] = "python-int"
        if "exact_resolve" in stats:
            problems, bound = flow_certificate(net, flow.astype(dt), value, side, cut)
    stats["float_bound"] = bound
    if problems:
        warnings.warn(f"max_flow: the float answer is not proved to rounding ({problems[0]}); flow_value is "
                      f"within {bound:.3g} of the maximum (stats['float_bound'])", RuntimeWarning, stacklevel=3)
    return value, flow, side, cut, stats


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
    if method not in SCIPY_METHODS + METHODS:
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
