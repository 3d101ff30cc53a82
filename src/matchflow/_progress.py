"""Say so on stderr while Numba compiles matchflow's kernels, and compile them ahead of time.

The first call of a solver in a process with a cold on-disk cache spends seconds compiling
(Numba's ``cache=True`` keeps the machine code for later processes). :func:`compile_progress`
listens to Numba's ``numba:compile`` events and prints one notice when the first matchflow kernel
starts compiling, and a summary at the end; with a warm cache nothing is compiled and nothing is
printed. :func:`precompile` calls every CPU solver (with ``gpu=True`` every GPU solver too) on tiny
inputs so that later first calls (in any process) only load machine code from the cache. numba-cuda
sends no compile event for a GPU kernel: precompile reads the kernels' own compile counters instead.
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

from . import gpu, io, verify
from ._backend import require_gpu
from ._cuda import GPU_LOOPS
from ._graph import Graph, as_bipartite
from ._lsap import reduced  # the float bound's row passes
from .assignment import _methods as _assignment_methods
from .assignment import _prepare, assignment, linear_sum_assignment
from .batch import _methods as _batch_methods
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
            self.record(_kernel_name(event), time.perf_counter() - self._t0)

    def record(self, name: str, seconds: float) -> None:
        """One kernel compiled in ``seconds`` (the notice first if it is the first)."""
        if self.started is None:
            self.started = time.perf_counter() - seconds
            self.say(f"{NOTICE} ...")
        self.kernels.append((name, seconds))
        if self.verbose:
            self.say(f"  compiled {name} ({seconds:.1f} s)")

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


def _batch_inputs() -> tuple[tuple[str, Any], ...]:
    """The batched steps' inputs (CPU and GPU alike): a 3-D integer batch and a ragged float list."""
    rng = np.random.default_rng(0)
    ci = rng.integers(0, 50, size=(3, 5, 5))
    ragged = [rng.random((4, 6)), rng.random((6, 3)) + 0.5, rng.random((5, 5))]
    return ("int64 (B, n, n)", ci), ("ragged float64", ragged)


def _batch_solve(costs: Any, maximize: bool, **kw: Any) -> Any:
    """One batched solve with its duals, certified (``kw``: backend, method, kernel)."""
    matchflow = _public()
    x, u, v = matchflow.batch_linear_sum_assignment(costs, maximize=maximize, return_duals=True, **kw)
    return matchflow.verify.verify_batch_assignment(costs, x, u, v, maximize=maximize)


def _batch_steps() -> list[tuple[str, Callable[[], Any]]]:
    return [(f"batch_linear_sum_assignment({label}, maximize={mx}) + verify_batch_assignment",
             lambda c=c, mx=mx: _batch_solve(c, mx, backend="cpu"))
            for label, c in _batch_inputs() for mx in (False, True)]


def _mcf_network() -> tuple:
    """The min-cost flow steps' network (CPU and GPU alike): ``(tail, head, demand, cap, {label: costs})``."""
    tail, head = np.array([0, 0, 1, 1, 2, 3]), np.array([1, 2, 2, 3, 3, 0])
    demand, cap = np.array([-4, 0, 0, 4]), np.array([3, 2, 2, 3, 4, 1])
    costs = {"int64": np.array([1, 4, 1, 5, 1, 2]), "float64": np.array([1.5, 4.0, 0.25, 5.0, 1.0, 2.0])}
    return tail, head, demand, cap, costs


def _mcf_solve(w: Any, **kw: Any) -> Any:
    """One min-cost flow on :func:`_mcf_network` with costs ``w``, certified (``kw``: method, backend, loop)."""
    matchflow = _public()
    tail, head, demand, cap, _ = _mcf_network()
    return matchflow.verify.verify_min_cost_flow(
        (tail, head), demand, matchflow.min_cost_flow((tail, head), demand, capacity=cap, cost=w, **kw), capacity=cap,
        cost=w)


def _mcf_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    tail, head, _, cap, costs = _mcf_network()
    steps: list[tuple[str, Callable[[], Any]]] = [
        (f"min_cost_flow({label}, method={m!r}) + verify_min_cost_flow",
         lambda w=w, m=m: _mcf_solve(w, method=m, backend="cpu"))
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


# ---- the GPU twins (``precompile(gpu=True)``): the public GPU doors on tiny inputs, every loop, every cost type
# the door keeps (integers: int64, int32 where it narrows them; floats: float64, float32 where it keeps them), the
# batched warp and block kernels; the device certificates run with each door's default ``certify=True``.
_LOOPS = tuple(loop for loop in GPU_LOOPS if loop != "auto")  # "persistent" (cooperative kernel) and "host"


def _matching_gpu_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    a = sp.random(12, 15, density=0.25, format="csr", random_state=0)
    sym = sp.csr_array(sp.random(10, 10, density=0.3, random_state=1, format="csr") + sp.eye(10))
    sym = sp.csr_array(sym + sym.T)
    steps: list[tuple[str, Callable[[], Any]]] = [
        (f"bipartite_matching(method={m!r}, backend='gpu', init={i!r}, loop={loop!r}) + verify_matching",
         lambda m=m, i=i, loop=loop: matchflow.verify.verify_matching(
             a, matchflow.bipartite_matching(a, method=m, backend="gpu", init=i, loop=loop)))
        for m in _matching_methods.TABLE.gpu_names for i in ("auto", "none", "greedy", "karp-sipser")
        for loop in _LOOPS]
    steps.append(("gpu.initial_matching(init='symmetric')",
                  lambda: matchflow.gpu.initial_matching(matchflow.as_bipartite(sym), init="symmetric")))
    return steps


def _assignment_gpu_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    ci = np.random.default_rng(0).integers(0, 50, size=(6, 6))
    cf = ci.astype(np.float64) + 0.5
    inputs = {"int64, int32 range": ci, "int64, wide range": ci * 10**9, "float64": cf,
              "float32": cf.astype(np.float32), "rectangular float64": cf[:4]}
    steps: list[tuple[str, Callable[[], Any]]] = []
    for m in _assignment_methods.TABLE.gpu_names:
        for label, c in inputs.items():
            for maximize in (False, True):
                if maximize and not label.startswith("int64, int32"):
                    continue  # maximize negates the same kernels' inputs
                steps += [(f"assignment({label}, method={m!r}, backend='gpu', maximize={maximize}, loop={loop!r}) "
                           "+ verify_assignment", lambda c=c, m=m, x=maximize, loop=loop: matchflow.verify.verify_assignment(
                               c, matchflow.assignment(c, method=m, backend="gpu", maximize=x, loop=loop)))
                          for loop in _LOOPS]
    steps += [(f"gpu.hungarian({dt.__name__}, loop={loop!r})",
               lambda dt=dt, loop=loop: matchflow.gpu.hungarian(ci.astype(dt), loop=loop))
              for dt in (np.int32, np.int64, np.float32, np.float64) for loop in _LOOPS]
    return steps


def _sparse_assignment_gpu_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    c = sp.random(8, 8, density=0.5, random_state=0, format="csr") + sp.eye(8)  # a perfect matching exists
    ci = sp.csr_array(np.round(c * 100).astype(np.int64))
    steps: list[tuple[str, Callable[[], Any]]] = [
        (f"assignment(sparse {label}, method={m!r}, backend='gpu', loop={loop!r}) + verify_sparse_assignment",
         lambda a=a, m=m, loop=loop: matchflow.verify.verify_sparse_assignment(
             a, matchflow.assignment(a, method=m, backend="gpu", loop=loop)))
        for m in _assignment_methods.SPARSE_TABLE.gpu_names for label, a in (("int64", ci), ("float64", sp.csr_array(c)))
        for loop in _LOOPS]
    steps += [(f"gpu.cost_scaling_assignment(loop={loop!r})", lambda loop=loop: matchflow.gpu.cost_scaling_assignment(
                   matchflow.gpu.cost_scaling_to_device(ci), loop=loop)) for loop in _LOOPS]
    return steps


def _flow_gpu_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    a = sp.csr_array(np.array([[0, 3, 2, 0], [0, 0, 1, 2], [0, 0, 0, 3], [0, 0, 0, 0]]))
    src = np.array([[3, 0, 1], [1, 2, 0], [0, 1, 4]])
    nets = {dt: a.astype(dt) for dt in (np.int64, np.float64)}
    grids = {dt: src.astype(dt) for dt in (np.int32, np.int64, np.float32, np.float64)}  # the GPU keeps each type
    steps: list[tuple[str, Callable[[], Any]]] = [
        (f"max_flow({dt.__name__}, {m!r}, backend='gpu', loop={loop!r}) + verify_flow",
         lambda b=b, m=m, loop=loop: matchflow.verify.verify_flow(
             b, 0, 3, matchflow.max_flow(b, 0, 3, method=m, backend="gpu", loop=loop)))
        for dt, b in nets.items() for m in _flow_methods.TABLE.gpu_names for loop in _LOOPS]
    steps += [(f"grid_cut({dt.__name__}, {m!r}, connectivity={k}, backend='gpu', loop={loop!r})",
               lambda s=s, m=m, k=k, loop=loop: matchflow.grid_cut(
                   s, s[::-1], s.dtype.type(1), connectivity=k, method=m, backend="gpu", loop=loop))
              for dt, s in grids.items() for m in _flow_methods.GRID_TABLE.gpu_names
              for k in (4, 8) for loop in _LOOPS]
    return steps


def _wmatching_gpu_steps() -> list[tuple[str, Callable[[], Any]]]:
    matchflow = _public()

    w = sp.random(12, 12, density=0.4, random_state=0, format="csr")
    w = sp.csr_array(w + w.T)
    wi = sp.csr_array((np.round(w.data * 9).astype(np.int64) + 1, w.indices, w.indptr), shape=w.shape)
    return [(f"weighted_matching({label}, method={m!r}, backend='gpu', loop={loop!r}) + verify_weighted_matching",
             lambda g=g, m=m, loop=loop: matchflow.verify.verify_weighted_matching(
                 g, matchflow.weighted_matching(g, method=m, backend="gpu", loop=loop)))
            for label, g in (("float64", w), ("int64", wi)) for m in _wmatching_methods.TABLE.gpu_names
            for loop in _LOOPS]


def _batch_gpu_steps() -> list[tuple[str, Callable[[], Any]]]:
    from .batch._gpu_jv import KERNELS  # noqa: PLC0415 - the GPU module only where its steps are made

    matchflow = _public()

    kernels = [k for k in KERNELS if k != "auto"]  # a warp per item, a block per item
    inputs = _batch_inputs()
    return [(f"batch_linear_sum_assignment({label}, maximize={mx}, method={m!r}, backend='gpu', kernel={k!r}) + "
             "verify_batch_assignment", lambda c=c, mx=mx, m=m, k=k: _batch_solve(c, mx, method=m, backend="gpu",
                                                                                  kernel=k))
            for label, c in inputs for mx in (False, True) for m in _batch_methods.TABLE.gpu_names
            for k in kernels] + [
            (f"gpu.batch_assignment({label}, kernel={k!r}, certify=True)",
             lambda c=c, k=k: matchflow.gpu.batch_assignment(c, kernel=k, certify=True))
            for label, c in inputs for k in kernels]


def _mcf_gpu_steps() -> list[tuple[str, Callable[[], Any]]]:
    return [(f"min_cost_flow({label}, method={m!r}, backend='gpu', loop={loop!r}) + verify_min_cost_flow",
             lambda w=w, m=m, loop=loop: _mcf_solve(w, method=m, backend="gpu", loop=loop))
            for label, w in _mcf_network()[4].items() for m in _mcf_methods.TABLE.gpu_names for loop in _LOOPS]


def _gpu_compiled() -> dict[tuple[str, str], int]:
    """matchflow's GPU kernels compiled in this process: (kernel, argument types) -> compiles. numba-cuda sends
    no ``numba:compile`` event for a kernel, so this reads each kernel's own counter (``_cache_misses``: a compile;
    a load from the on-disk cache is a hit). The simulator's kernels compile nothing: empty there."""
    from numba.cuda.dispatcher import CUDADispatcher  # noqa: PLC0415 - numba.cuda only with gpu=True

    out: dict[tuple[str, str], int] = {}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("matchflow."):
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, CUDADispatcher) and obj.py_func.__module__ == name:
                for sig, k in obj._cache_misses.items():
                    out[(f"{name.removeprefix('matchflow.')}.{obj.py_func.__qualname__}", str(sig))] = k
    return out


_MAKERS: dict[str, tuple[Callable[[], list], Callable[[], list] | None]] = {  # family: (CPU steps, GPU steps)
    "matching": (_matching_steps, _matching_gpu_steps), "assignment": (_assignment_steps, _assignment_gpu_steps),
    "sparse-assignment": (_sparse_assignment_steps, _sparse_assignment_gpu_steps),
    "flow": (_flow_steps, _flow_gpu_steps), "wmatching": (_wmatching_steps, _wmatching_gpu_steps),
    "batch": (_batch_steps, _batch_gpu_steps), "mcf": (_mcf_steps, _mcf_gpu_steps), "io": (_io_steps, None)}


def precompile(*, families: tuple[str, ...] = FAMILIES, progress: bool = True, gpu: bool = False,
               stream: TextIO | None = None) -> dict[str, Any]:
    """Compile matchflow's CPU kernels now (each public CPU solver, its certificate check and the
    readers/writers on tiny inputs), so first calls later, in any process, only load cached code.

    Takes 15-30 s with a cold cache (2 cores), well under a second with a warm one. ``families`` picks
    among ``"matching"``, ``"assignment"``, ``"sparse-assignment"``, ``"flow"``, ``"wmatching"``, ``"batch"``,
    ``"mcf"`` (with ``"flow"``: its feasibility check) and ``"io"``. With ``progress`` a line per step goes to
    ``stream`` (default stderr). Kernels are compiled for the argument types of small inputs
    (``int32`` indices, ``int64`` / ``float64`` costs); other types compile on their first use.
    ``gpu=True`` also runs each family's public GPU solvers (``backend="gpu"`` and :mod:`matchflow.gpu`) on tiny
    inputs: both loops ("persistent", "host"), every cost type the door keeps (int64 and the int32 it narrows to,
    float64 and float32 where kept), the batched warp and block kernels and the device certificates, so that
    numba-cuda's on-disk cache holds every GPU kernel variant a default call reaches (options such as ``variant``
    or ``block_size`` compile on their first use); it raises :class:`~matchflow.GPUUnavailableError` without a
    usable GPU. Returns ``{"kernels": [...], "seconds": ..., "steps": n}`` (``kernels``: those compiled now;
    a GPU kernel is named once per argument-type variant).

    Examples
    --------
    >>> import matchflow
    >>> out = matchflow.precompile(families=("io",), progress=False)
    >>> sorted(out)
    ['kernels', 'seconds', 'steps']
    """
    unknown = [f for f in families if f not in _MAKERS]
    if unknown:
        raise ValueError(f"families must be among {FAMILIES}, got {unknown[0]!r}")
    if gpu:
        require_gpu("matchflow.precompile(gpu=True)")
    wanted = dict.fromkeys(d for f in families for d in (*_NEEDS.get(f, ()), f))  # in order, once each
    steps = [s for f in wanted for make in _MAKERS[f][:2 if gpu else 1] if make is not None for s in make()]
    compiled = _gpu_compiled if gpu else dict
    t0 = time.perf_counter()
    with compile_progress(quiet=not progress, stream=stream) as log:
        for i, (name, fn) in enumerate(steps, 1):
            n0, before, t1 = len(log.kernels), compiled(), time.perf_counter()
            fn()
            new = [k for k, c in compiled().items() for _ in range(c - before.get(k, 0))]
            for kernel, _ in new:  # numba-cuda compiles send no event: a GPU kernel shares its step's seconds
                log.record(kernel, (time.perf_counter() - t1) / len(new))
            if progress and len(log.kernels) > n0:
                log.say(f"  {i}/{len(steps)} {name}: {len(log.kernels) - n0} kernel(s), "
                        f"{time.perf_counter() - t1:.1f} s")
    return {"kernels": [k for k, _ in log.kernels], "seconds": time.perf_counter() - t0, "steps": len(steps)}


def _public():
    """The public API from its own modules (not through ``matchflow``, whose ``__init__`` imports this module)."""
    return SimpleNamespace(io=io, verify=verify, gpu=gpu, Graph=Graph, as_bipartite=as_bipartite,
                           assignment=assignment, grid_cut=grid_cut,
                           linear_sum_assignment=linear_sum_assignment, max_flow=max_flow,
                           bipartite_matching=bipartite_matching,
                           maximum_bipartite_matching=maximum_bipartite_matching, weighted_matching=weighted_matching,
                           batch_linear_sum_assignment=batch_linear_sum_assignment, min_cost_flow=min_cost_flow,
                           max_flow_min_cost=max_flow_min_cost, transport=transport)
