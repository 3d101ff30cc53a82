"""Say so on stderr while Numba compiles matchflow's CPU kernels, and compile them ahead of time.

The first call of a solver in a process with a cold on-disk cache spends seconds compiling
(Numba's ``cache=True`` keeps the machine code for later processes). :func:`compile_progress`
listens to Numba's ``numba:compile`` events and prints one notice when the first matchflow kernel
starts compiling, and a summary at the end; with a warm cache nothing is compiled and nothing is
printed. :func:`precompile` calls every CPU solver on tiny inputs so that later first calls
(in any process) only load machine code from the cache.
"""

from __future__ import annotations

import contextlib
import io as _io
import sys
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any, TextIO

import numpy as np
import scipy.sparse as sp
from numba.core import event

from . import io, verify
from ._graph import Graph
from ._lsap import reduced  # the float bound's row passes
from .assignment import _methods as _assignment_methods
from .assignment import _prepare, assignment, linear_sum_assignment
from .batch import batch_linear_sum_assignment
from .flow import _methods as _flow_methods
from .flow import grid_cut, max_flow
from .matching import _methods as _matching_methods
from .matching import bipartite_matching, maximum_bipartite_matching
from .mcf import _methods as _mcf_methods
from .mcf import max_flow_min_cost, min_cost_flow, transport
from .wmatching import _methods as _wmatching_methods
from .wmatching import weighted_matching

__all__ = ["NOTICE", "CompileLog", "compile_progress", "precompile"]

_NEEDS = {"mcf": ("flow",)}  # min_cost_flow's feasibility check is a max_flow (pseudoflow on real networks)
NOTICE = "compiling kernels (first use only, cached afterwards)"
FAMILIES = ("matching", "assignment", "sparse-assignment", "flow", "wmatching", "batch", "mcf", "io")
_ACTIVE: list[CompileLog] = []


class CompileLog:
    """What :func:`compile_progress` saw: ``kernels`` as (name, seconds), in order of completion."""

    def __init__(self, stream: TextIO | None, quiet: bool, verbose: bool) -> None:
        self._stream, self.quiet, self.verbose = stream, quiet, verbose
        self.kernels: list[tuple[str, float]] = []
        self.started: float | None = None
        self._depth = 0
        self._t0 = 0.0

    @property
    def seconds(self) -> float:
        """Seconds spent compiling matchflow kernels (0 when nothing compiled)."""
        return sum(s for _, s in self.kernels)

    def say(self, text: str) -> None:
        if not self.quiet:  # look sys.stderr up now: rich's live displays redirect it
            print(f"[matchflow] {text}", file=self._stream or sys.stderr, flush=True)

    # numba.core.event.Listener protocol (the listener class is built per use around this log)
    def on_start(self, event: Any) -> None:
        if not _is_ours(event):
            return
        self._depth += 1
        if self._depth == 1:
            self._t0 = time.perf_counter()
            if self.started is None:
                self.started = self._t0
                self.say(f"{NOTICE} ...")

    def on_end(self, event: Any) -> None:
        if not _is_ours(event):
            return
        self._depth -= 1
        if self._depth == 0:
            name = _kernel_name(event)
            self.kernels.append((name, time.perf_counter() - self._t0))
            if self.verbose:
                self.say(f"  compiled {name} ({self.kernels[-1][1]:.1f} s)")

    def finish(self) -> None:
        if self.kernels:
            self.say(f"compiled {len(self.kernels)} kernel(s) in {self.seconds:.1f} s; "
                     "later runs load them from the on-disk cache")


def _is_ours(event: Any) -> bool:
    func = getattr((event.data or {}).get("dispatcher"), "py_func", None)
    return getattr(func, "__module__", "").startswith("matchflow")


def _kernel_name(event: Any) -> str:
    func = event.data["dispatcher"].py_func
    return f"{func.__module__.removeprefix('matchflow.')}.{func.__qualname__}"


@contextlib.contextmanager
def compile_progress(*, quiet: bool = False, verbose: bool = False,
                     stream: TextIO | None = None) -> Iterator[CompileLog]:
    """Print ``[matchflow] compiling kernels (first use only, cached afterwards) ...`` on ``stream``
    (default stderr) when a matchflow CPU kernel starts compiling inside the block, and a summary
    line at its end. Silent when nothing compiles or ``quiet``; ``verbose`` adds a line per kernel.
    Nested uses share the outermost log. Yields the :class:`CompileLog`.
    """
    if _ACTIVE:
        yield _ACTIVE[-1]
        return
    log = CompileLog(stream, quiet, verbose)
    listener = type("_CompileListener", (event.Listener,), {
        "on_start": lambda self, ev: log.on_start(ev), "on_end": lambda self, ev: log.on_end(ev)})()
    _ACTIVE.append(log)
    try:
        with event.install_listener("numba:compile", listener):
            yield log
    finally:
        _ACTIVE.pop()
        log.finish()


def _matching_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    a = sp.random(12, 15, density=0.25, format="csr", random_state=0)
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("maximum_bipartite_matching", lambda: matchflow.maximum_bipartite_matching(a, perm_type="column"))]
    for method in _matching_methods.TABLE.cpu_names:
        for init in ("none", "greedy", "karp-sipser"):
            steps.append((f"bipartite_matching(method={method!r}, init={init!r}) + verify_matching",
                          lambda m=method, i=init: matchflow.verify.verify_matching(
                              a, matchflow.bipartite_matching(a, method=m, backend="cpu", init=i))))
    return steps


def _assignment_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    ci = np.random.default_rng(0).integers(0, 50, size=(6, 6))
    cf = ci.astype(np.float64) + 0.5
    cf[0, 1] = np.inf  # forbidden pairs take their own path
    inputs = {"int64": ci, "float64": cf, "rectangular float64": cf[:4]}
    steps: list[tuple[str, Callable[[], Any]]] = []
    for label, c in inputs.items():
        steps.append((f"linear_sum_assignment({label})", lambda c=c: matchflow.linear_sum_assignment(c)))
        for method in _assignment_methods.TABLE.cpu_names:
            for maximize in (False, True):
                if maximize and label != "int64":
                    continue  # maximize negates the same kernels' inputs
                steps.append((f"assignment({label}, method={method!r}, maximize={maximize}) + verify_assignment",
                              lambda c=c, m=method, x=maximize: matchflow.verify.verify_assignment(
                                  c, matchflow.assignment(c, method=m, backend="cpu", maximize=x))))
    steps.append(("float scan and certificate, parallel row passes (large matrices)", _parallel_float_bound))
    return steps


def _parallel_float_bound() -> None:
    """The threaded twins of the float scan, shift and certificate passes, which tiny inputs never reach
    (float64; float32 certificates compile on first use)."""
    b = np.zeros(2, dtype=np.bool_)
    a = np.ones((2, 2))
    _prepare._scan_float_parallel(a, -np.inf, b, b.copy(), np.zeros(2), np.zeros(2))
    _prepare._shift_float_parallel(a, np.empty((2, 2)), 0.5, 1.0, False, b.copy())
    col = np.arange(2)
    _prepare._polish_parallel(a, 1.0, col, np.zeros(2), np.zeros(2), True)
    z = np.zeros(2)
    reduced.float_bound_dense_parallel(a, 1.0, col, z, z, np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2),
                                       np.zeros(2), np.zeros(2, dtype=np.int64))
    reduced.float_bound_csr_parallel(np.array([0, 2, 4]), np.array([0, 1, 0, 1]), np.ones(4), 1.0, col, z, z,
                                     np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2),
                                     np.zeros(2, dtype=np.int64))


def _sparse_assignment_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    c = sp.random(8, 8, density=0.5, random_state=0, format="csr")
    c.data = np.round(c.data * 100)
    ci = sp.csr_array((c.data.astype(np.int64), c.indices, c.indptr), shape=c.shape)

    def solve(a):  # a full matching (cost scaling), then two columns only (none: shortest paths, deficient part split)
        for b in (a, sp.csr_array(a.toarray() * (np.arange(a.shape[1]) < 2))):
            matchflow.verify.verify_sparse_assignment(b, matchflow.assignment(b, partial=True))

    return [(f"assignment(sparse {label}, partial=True) + verify_sparse_assignment", lambda a=a: solve(a))
            for label, a in (("int64", ci), ("float64", sp.csr_array(c)))]


def _flow_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    a = sp.csr_array(np.array([[0, 3, 2, 0], [0, 0, 1, 2], [0, 0, 0, 3], [0, 0, 0, 0]]))
    src = np.array([[3, 0], [1, 2]])
    nets = [a.astype(dt) for dt in (np.int64, np.float64)]
    return [(f"max_flow({b.dtype}, {m}) + verify_flow",
             lambda b=b, m=m: matchflow.verify.verify_flow(b, 0, 3, matchflow.max_flow(b, 0, 3, method=m)))
            for b in nets for m in _flow_methods.TABLE.cpu_names] + [
            (f"grid_cut(connectivity={k})", lambda k=k: matchflow.grid_cut(src, src[::-1], 1, connectivity=k))
            for k in (4, 8)]


def _wmatching_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    w = sp.random(12, 12, density=0.4, random_state=0, format="csr")
    w = sp.csr_array(w + w.T)
    return [(f"weighted_matching(method={m!r}) + verify_weighted_matching",
             lambda m=m: matchflow.verify.verify_weighted_matching(w, matchflow.weighted_matching(w, method=m)))
            for m in _wmatching_methods.TABLE.cpu_names] + [
            ("weighted_matching(integer weights)", lambda: matchflow.weighted_matching(
                sp.csr_array((np.round(w.data * 9).astype(np.int64) + 1, w.indices, w.indptr), shape=w.shape)))]


def _batch_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    rng = np.random.default_rng(0)
    ci = rng.integers(0, 50, size=(3, 5, 5))
    ragged = [rng.random((4, 6)), rng.random((6, 3)) + 0.5, rng.random((5, 5))]

    def solve(costs: Any, maximize: bool) -> Any:
        x, u, v = matchflow.batch_linear_sum_assignment(costs, maximize=maximize, backend="cpu", return_duals=True)
        return matchflow.verify.verify_batch_assignment(costs, x, u, v, maximize=maximize)

    return [(f"batch_linear_sum_assignment({label}, maximize={mx}) + verify_batch_assignment",
             lambda c=c, mx=mx: solve(c, mx))
            for label, c in (("int64 (B, n, n)", ci), ("ragged float64", ragged)) for mx in (False, True)]


def _mcf_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    tail, head = np.array([0, 0, 1, 1, 2, 3]), np.array([1, 2, 2, 3, 3, 0])
    demand, cap = np.array([-4, 0, 0, 4]), np.array([3, 2, 2, 3, 4, 1])
    costs = {"int64": np.array([1, 4, 1, 5, 1, 2]), "float64": np.array([1.5, 4.0, 0.25, 5.0, 1.0, 2.0])}
    steps: list[tuple[str, Callable[[], Any]]] = [
        (f"min_cost_flow({label}, method={m!r}) + verify_min_cost_flow",
         lambda w=w, m=m: matchflow.verify.verify_min_cost_flow(
             (tail, head), demand, matchflow.min_cost_flow((tail, head), demand, capacity=cap, cost=w, method=m,
                                                           backend="cpu"), capacity=cap, cost=w))
        for label, w in costs.items() for m in _mcf_methods.TABLE.cpu_names]
    g = sp.csr_array((cap, (tail, head)), shape=(4, 4))
    steps.append(("max_flow_min_cost", lambda: matchflow.max_flow_min_cost(g, 0, 3, cost=g * 2)))
    steps.append(("transport", lambda: matchflow.transport([2, 3], [1, 4], np.array([[1.0, 2.0], [3.0, 1.0]]))))
    return steps


def _io_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    a = sp.random(5, 6, density=0.4, format="coo", random_state=0)

    def roundtrip(fmt: str, obj: Any) -> Any:
        buf = _io.BytesIO()
        matchflow.io.write(buf, obj, format=fmt)
        return matchflow.io.read(_io.BytesIO(buf.getvalue()), format=fmt)

    res = matchflow.bipartite_matching(a, backend="cpu")
    return [(f"io {fmt}", lambda f=fmt, o=o: roundtrip(f, o))
            for fmt, o in (("mtx", a), ("edgelist", a), ("metis", matchflow.Graph.from_edges([0, 1, 2], [1, 2, 3], n=5)),
                           ("matching", res),
                           ("dimacs_min", io.MinCostFlowProblem(3, [0, 1], [1, 2], [1, 0], [4, 4], [2, 3], [-2, 0, 2])))]


def precompile(*, families: tuple[str, ...] = FAMILIES, progress: bool = True,
               stream: TextIO | None = None) -> dict[str, Any]:
    """Compile matchflow's CPU kernels now (each public CPU solver, its certificate check and the
    readers/writers on tiny inputs), so first calls later, in any process, only load cached code.

    Takes 15-30 s with a cold cache (2 cores), well under a second with a warm one. ``families`` picks
    among ``"matching"``, ``"assignment"``, ``"sparse-assignment"``, ``"flow"``, ``"wmatching"``, ``"batch"``,
    ``"mcf"`` (with ``"flow"``: its feasibility check) and ``"io"``. With ``progress`` a line per step goes to
    ``stream`` (default stderr). Kernels are compiled for the argument types of small inputs
    (``int32`` indices, ``int64`` / ``float64`` costs); other types compile on their first use.
    Returns ``{"kernels": [...], "seconds": ..., "steps": n}``.

    Examples
    --------
    >>> import matchflow
    >>> out = matchflow.precompile(families=("io",), progress=False)
    >>> sorted(out)
    ['kernels', 'seconds', 'steps']
    """
    makers = {"matching": _matching_steps, "assignment": _assignment_steps,
              "sparse-assignment": _sparse_assignment_steps, "flow": _flow_steps, "wmatching": _wmatching_steps,
              "batch": _batch_steps, "mcf": _mcf_steps, "io": _io_steps}
    unknown = [f for f in families if f not in makers]
    if unknown:
        raise ValueError(f"families must be among {FAMILIES}, got {unknown[0]!r}")
    wanted = dict.fromkeys(d for f in families for d in (*_NEEDS.get(f, ()), f))  # in order, once each
    steps = [s for f in wanted for s in makers[f]()]
    t0 = time.perf_counter()
    with compile_progress(quiet=not progress, stream=stream) as log:
        for i, (name, fn) in enumerate(steps, 1):
            n0, t1 = len(log.kernels), time.perf_counter()
            fn()
            if progress and len(log.kernels) > n0:
                log.say(f"  {i}/{len(steps)} {name}: {len(log.kernels) - n0} kernel(s), "
                        f"{time.perf_counter() - t1:.1f} s")
    return {"kernels": [k for k, _ in log.kernels], "seconds": time.perf_counter() - t0, "steps": len(steps)}


def _public():
    """The public API from its own modules (not through ``matchflow``, whose ``__init__`` imports this module)."""
    return SimpleNamespace(io=io, verify=verify, Graph=Graph, assignment=assignment, grid_cut=grid_cut,
                           linear_sum_assignment=linear_sum_assignment, max_flow=max_flow,
                           bipartite_matching=bipartite_matching,
                           maximum_bipartite_matching=maximum_bipartite_matching, weighted_matching=weighted_matching,
                           batch_linear_sum_assignment=batch_linear_sum_assignment, min_cost_flow=min_cost_flow,
                           max_flow_min_cost=max_flow_min_cost, transport=transport)
