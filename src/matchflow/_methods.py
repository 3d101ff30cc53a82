"""Method tables: ``method`` names the algorithm, ``backend`` names the device.

Every solver family (matching, assignment, ...) lists its algorithms in one :class:`MethodTable`
of :class:`Method` rows: the CPU solve, the GPU solve (its "twin"), the CPU options, an old
name that fixed the GPU (``"gpr"``, ``"lopes"``) and the measured ``backend="auto"`` rule. The
public entry point of a family calls :func:`resolve` (names only, before the input is read) and
:func:`place` (which row runs on which device), then the row's solve; it holds no ``if`` chain over
method names, so adding a method is one row (NetworKit's matchers: a new one touches no dispatcher).

``backend="auto"`` (one rule for every family):

* ``method="auto"``: a usable GPU (never the CUDA simulator) runs the family's ``gpu_rule`` (the
  method whose GPU twin was measured faster end to end on this input, or None: stay on the CPU);
  the CPU runs the family's ``cpu_rule``;
* an explicit method with both twins: the GPU only where the row's ``auto_gpu`` says its GPU twin
  was measured faster end to end on this input; no measured rule (``auto_gpu=None``): the CPU;
* a method with one twin runs there (a GPU-only method asks for the GPU);
* first use: until this process has run a GPU solve (or :func:`matchflow.gpu.warm_up`), the GPU also has to
  pass the family's ``cold_gpu_rule`` -- the sizes where the measured saving covers a fresh process's first
  GPU call (CUDA context + kernels from the cache, ~1-1.4 s on an H100): ``auto`` never makes a one-off call
  slower than the CPU (issue 9). Families whose ``gpu_rule`` already counts it leave ``cold_gpu_rule`` None;
* method options that the CPU method accepts keep ``auto`` on the CPU; options no CPU method accepts (GPU
  options: ``block_size``, ``loop``, ...) send it to the GPU twin wherever a GPU is usable.

``result.method`` is the row's canonical name (the algorithm); the device is ``result.backend``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._backend import BACKENDS, gpu_available, gpu_reason, require_gpu
from ._cuda import is_simulator
from ._validation import check_choice, check_options

__all__ = ["Method", "MethodTable", "resolve", "place", "check_method_options"]


@dataclass(frozen=True)
class Method:
    """One algorithm of a family.

    ``cpu``/``gpu``: the solves (None: no twin on that device; the family fixes their signature).
    ``options``: the CPU options it accepts (the GPU solve validates its own);
    ``check``: validates and normalises those options (dict -> dict).
    ``gpu_alias``: an older name that runs the GPU twin (kept: ``"gpr"``, ``"lopes"``).
    ``auto_gpu``: problem -> True where the GPU twin was measured faster end to end (``backend="auto"``).
    ``gpu_direct``: ``(input, options, t0) -> result | None``, a GPU solve of the caller's input as it is (no host
    preparation; the certified result, or None where it does not apply): the dense Hungarian's.
    """

    name: str
    cpu: Callable[..., Any] | None = None
    gpu: Callable[..., Any] | None = None
    options: tuple[str, ...] = ()
    check: Callable[[dict], dict] | None = None
    gpu_alias: str | None = None
    auto_gpu: Callable[[Any], bool] | None = None
    gpu_direct: Callable[..., Any] | None = None


@dataclass(frozen=True)
class MethodTable:
    """The methods of one family. ``family`` names the entry point in messages;
    ``cpu_rule(problem) -> name`` and ``gpu_rule(problem) -> name | None`` are ``method="auto"``;
    ``common``: options every method accepts (handled by the entry point); ``cold_gpu_rule(problem) -> bool``:
    ``backend="auto"`` in a process that has not used the GPU yet also needs it (None: no extra condition)."""

    family: str
    methods: tuple[Method, ...]
    cpu_rule: Callable[[Any], str]
    gpu_rule: Callable[[Any], str | None]
    common: tuple[str, ...] = ()
    cold_gpu_rule: Callable[[Any], bool] | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """Accepted ``method`` values: "auto", the algorithms, then the GPU aliases."""
        return ("auto",) + tuple(m.name for m in self.methods) + tuple(m.gpu_alias for m in self.methods
                                                                        if m.gpu_alias)

    @property
    def cpu_names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.methods if m.cpu is not None)

    @property
    def gpu_names(self) -> tuple[str, ...]:
        """The algorithms with a GPU twin."""
        return tuple(m.name for m in self.methods if m.gpu is not None)

    def row(self, name: str) -> Method:
        for m in self.methods:
            if name in (m.name, m.gpu_alias):
                return m
        raise KeyError(name)

    def with_method(self, method: Method) -> MethodTable:
        """A copy with ``method`` added (or replacing the row of the same name)."""
        rows = tuple(method if m.name == method.name else m for m in self.methods)
        if all(m.name != method.name for m in self.methods):
            rows += (method,)
        return dataclasses.replace(self, methods=rows)


def resolve(table: MethodTable, method: Any, backend: Any) -> tuple[Method | None, str]:
    """Check ``method`` and ``backend`` before the input is read.

    Returns the row (None for ``"auto"``) and the device asked for: ``"cpu"``, ``"gpu"`` or
    ``"auto"`` (a GPU alias asks for ``"gpu"``). Raises ValueError for unknown names and
    impossible pairs, :class:`~matchflow.GPUUnavailableError` when the GPU is required but absent.
    """
    check_choice("method", method, table.names)
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if method == "auto":
        if backend == "gpu":
            require_gpu(f"{table.family}(method='auto')")
        return None, backend
    row = table.row(method)
    where = f"{table.family}(method={method!r})"
    if method == row.gpu_alias:
        if backend == "cpu":
            twin = (f"method={row.name!r} with backend='cpu' runs its CPU twin" if row.cpu is not None else
                    "on the CPU use method=" + " or ".join(map(repr, table.cpu_names)))
            raise ValueError(f"method={method!r} runs on the GPU only; it cannot be combined with "
                             f"backend='cpu' ({twin})")
        require_gpu(where)
        return row, "gpu"
    if backend == "gpu":
        if row.gpu is None:
            raise ValueError(f"backend='gpu' is not available for {where}; use backend='cpu'")
        require_gpu(where)
    elif backend == "cpu" and row.cpu is None:
        raise ValueError(f"backend='cpu' is not available for {where}; use backend='gpu'")
    elif backend == "auto" and row.cpu is None:
        require_gpu(where)
        return row, "gpu"
    return row, backend


def _auto_may_use_gpu() -> bool:
    """``backend="auto"`` considers the GPU only when a real one is present (never the simulator)."""
    return gpu_available() and not is_simulator() and "simulator" not in gpu_reason()


_GPU_WARM = [False]  # this process has placed a solve on the GPU (its CUDA context and kernels are loaded)


def gpu_warm() -> bool:
    """True once this process has run (or placed) a matchflow GPU solve, or called ``gpu.warm_up()``."""
    return _GPU_WARM[0]


def mark_gpu_warm() -> None:
    _GPU_WARM[0] = True


def _cold_ok(table: MethodTable, problem: Callable[[], Any]) -> bool:
    """The first-use condition of ``backend="auto"`` (module docstring)."""
    return gpu_warm() or table.cold_gpu_rule is None or bool(table.cold_gpu_rule(problem()))


def place(table: MethodTable, row: Method | None, backend: str, problem: Callable[[], Any],
          options: dict | None = None) -> tuple[Method, str]:
    """The row and the device (``"cpu"``/``"gpu"``) that run, after :func:`resolve`.

    ``problem()`` builds what the rules read (called at most once, only when a rule needs it). With
    ``backend="auto"``, ``options`` that the CPU method accepts keep the call on the CPU (they were written
    for it: a CPU-only option such as ``variant=`` must not meet the GPU solver because a size rule fired).
    """
    problem = functools.cache(problem)
    row, device = _place(table, row, backend, problem, options)
    if device == "gpu":
        mark_gpu_warm()
    return row, device


def _place(table: MethodTable, row: Method | None, backend: str, problem: Callable[[], Any],
           options: dict | None) -> tuple[Method, str]:
    if row is None:
        if backend == "gpu":
            name = table.gpu_rule(problem()) or next(m.name for m in table.methods if m.gpu is not None)
            return table.row(name), "gpu"
        if backend == "auto" and _auto_may_use_gpu():
            name = table.gpu_rule(problem())
            if name is None and _gpu_only_options(table, None, options):
                name = next(m.name for m in table.methods if m.gpu is not None)
            if name is not None and not _cpu_options(table, table.row(name), options) and (
                    _cold_ok(table, problem) or _gpu_only_options(table, table.row(name), options)):
                return table.row(name), "gpu"
        return table.row(table.cpu_rule(problem())), "cpu"
    if backend == "auto":
        usable = row.gpu is not None and _auto_may_use_gpu()
        on_gpu = usable and (_gpu_only_options(table, row, options) or (
            row.auto_gpu is not None and not _cpu_options(table, row, options) and row.auto_gpu(problem())
            and _cold_ok(table, problem)))
        return row, "gpu" if on_gpu else "cpu"
    return row, backend


def _cpu_options(table: MethodTable, row: Method, options: dict | None) -> bool:
    """Options were given and the CPU twin of ``row`` accepts every one of them."""
    return bool(options) and row.cpu is not None and set(options) <= set(row.options + table.common)


def _gpu_only_options(table: MethodTable, row: Method | None, options: dict | None) -> bool:
    """Options were given that no CPU method of the table (``row``'s, when given) accepts: GPU options
    (``block_size``, ``loop``, ...), so ``backend="auto"`` runs the GPU twin where a GPU is usable."""
    if not options:
        return False
    rows = (row,) if row is not None else tuple(m for m in table.methods if m.cpu is not None)
    accepted = set(table.common).union(*(m.options for m in rows if m.cpu is not None))
    return bool(set(options) - accepted) and (row is None or row.gpu is not None)


def check_method_options(table: MethodTable, row: Method, device: str, options: dict) -> dict:
    """Validate the options of ``row`` on ``device`` (GPU options: left to the GPU solve)."""
    if device == "gpu":
        return dict(options)
    check_options(f"{table.family}(method={row.name!r})", options, row.options + table.common)
    return row.check(dict(options)) if row.check is not None else dict(options)
