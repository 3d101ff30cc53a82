"""The assignment method tables (see :mod:`matchflow._methods`): :data:`TABLE` for dense costs, :data:`SPARSE_TABLE`
for scipy.sparse ones (below), and the dense door's rules that name methods (:func:`place_dense`,
:func:`direct_row`, :data:`FLOAT_REPROVERS`), so that ``_api`` names none.

Every dense solve takes the prepared square problem (:class:`._prepare.Prepared`) and the validated
options and returns ``(col4row, u, v, stats)`` on it; the GPU modules are imported on first use (they load numba.cuda).

``method="auto"``: Jonker-Volgenant on the CPU. On a GPU (measured on an H200,
docs/notes/hungarian_gpu.md and results/assignment/table1_h200.md): end to end (H2D copy
included) the GPU Hungarian of Lopes et al. beats the best CPU JV from n = 1024 at every measured
range up to 10n (closest: n=1024, range 10n, 14.6 ms vs 18.7 ms) and loses at n = 512. The
Hungarian family slows ~5x from range n to 10n while JV slows ~1.3x, so larger integer ranges stay
on the CPU JV. Float costs take the GPU float route (integer pre-solve at range 10n + JV repair) from
n = 4096, or n = 8192 before the process's first GPU call (numbers in :func:`gpu_measured_faster`). The same rule places an explicit
``method="hungarian"`` with ``backend="auto"`` (the GPU twin beat the CPU JV there, so it beats
the CPU Hungarian too); elsewhere it runs on the CPU.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .._methods import Method, MethodTable, check_method_options, place
from .._validation import check_int, check_real
from . import _cpu_auction, _cpu_hungarian, _cpu_jv, _cpu_munkres  # through the module: tests patch solve_<algo>
from ._cpu_cost_scaling import OPTIONS as COST_SCALING_OPTIONS
from ._cpu_cost_scaling import (
    check_cost_scaling_options,
    cost_scaling_solve,
    solve_cost_scaling,
    solve_cost_scaling_dense,
)
from ._cpu_sparse_ssp import solve_sparse_ssp
from ._prepare_sparse import SparseProblem

__all__ = ["TABLE", "SPARSE_TABLE", "Problem", "gpu_measured_faster", "GPU_MIN_N", "GPU_MAX_RANGE_PER_N",
           "GPU_MIN_N_FLOAT", "GPU_COLD_N_FLOAT", "AUTO_GPU_NNZ"]

GPU_MIN_N = 1024
GPU_MAX_RANGE_PER_N = 10.0
# float costs (issue 9's float route: integer pre-solve on the GPU + JV repair on the host), from n = 4096 in a
# process that has used the GPU, from GPU_COLD_N_FLOAT before (its first call): see gpu_measured_faster
GPU_MIN_N_FLOAT = 4096
GPU_COLD_N_FLOAT = 8192


@dataclass(frozen=True)
class Problem:
    """What the placement rules read: shape, dtype and the range of the finite costs (the range
    is one O(n^2) pass over the user's validated matrix, so it is computed only when a rule asks)."""

    shape: tuple[int, ...]
    dtype: np.dtype
    a: np.ndarray | None = None
    range_: float | None = None

    @classmethod
    def of(cls, a: np.ndarray) -> Problem:
        return cls(tuple(a.shape), a.dtype, a)

    @functools.cached_property
    def cost_range(self) -> float:
        if self.range_ is not None:
            return float(self.range_)
        a = self.a
        fin = a[np.isfinite(a)] if a.dtype.kind == "f" else a
        return float(fin.max()) - float(fin.min()) if fin.size else 0.0


# integer costs in a process that has not used the GPU yet (its first call ~1.0-1.4 s more: CUDA context,
# kernels from the cache): at n = 8192 the GPU saves ~0.6-0.8 s (66-199 ms vs our CPU JV's 0.66-0.93 s,
# docs/notes/hungarian_gpu.md), short of it; from n = 16384 (extrapolated: the CPU grows at least as n^2). Float
# costs: from GPU_COLD_N_FLOAT (n = 4096 saves 0.03-0.8 s, less than the ~1 s first float call).
GPU_COLD_N = 16384


def gpu_measured_faster(p: Problem) -> bool:
    """The GPU Hungarian was measured faster end to end: integer costs, max(shape) >= GPU_MIN_N,
    cost range <= GPU_MAX_RANGE_PER_N * max(shape); float costs (float16/32/64) from max(shape) >=
    GPU_MIN_N_FLOAT, read from the shape alone (no pass over the matrix).

    Floats, public call from host arrays, H200 and its 16-core host, GPU vs CPU JV, ms (results/gpu_e2e/
    assignment-float-h200-2026-11-27d.md, float-scale-gap-h200-2026-11-27.log; six cost laws, every answer
    certified): n = 4096: 175-545 vs 533-1039 (1.06x exponential, 2.3-5.5x uniform, normal, lognormal, squared
    normal, offset); n = 8192: 0.82-2.9 s vs 3.7-6.3 s. n = 1024 was even on the H100 (79 vs 100 float64, 88 vs 86
    float32). A fresh process pays ~1.0 s more on its first float call with a warm kernel cache: at 4096 the
    per-call gain (0.03-0.8 s) does not cover it, at 8192 (2-5 s) it does, so a process that has not used the
    GPU yet starts at GPU_COLD_N_FLOAT (the table's cold rule), one that has at GPU_MIN_N_FLOAT."""
    n = max(p.shape) if len(p.shape) else 0
    kind = np.dtype(p.dtype).kind
    if kind == "f":
        return n >= GPU_MIN_N_FLOAT
    return kind in "iub" and n >= GPU_MIN_N and p.cost_range <= GPU_MAX_RANGE_PER_N * n


def _on_matrix(module):
    """A dense row's CPU solve: ``module.solve_<algo>(prep.C, **options)`` on the prepared square matrix (looked up
    at call time: tests patch ``solve_<algo>``)."""
    name = "solve_" + module.__name__.rsplit("._cpu_", 1)[1]

    def solve(prep, **options):
        return getattr(module, name)(prep.C, **options)

    return solve


def _on_gpu(name: str):
    """A row's GPU solve, ``_gpu_munkres.<name>`` (imported on first use: it loads numba.cuda)."""

    def solve(*args, **options):
        from . import _gpu_munkres  # noqa: PLC0415 - loads numba.cuda on use only

        return getattr(_gpu_munkres, name)(*args, **options)

    return solve


def _cost_scaling_gpu(prep, **options):
    """Łupińska's lock-free refine (GPU) on the prepared dense problem, every entry an arc."""
    return solve_cost_scaling_dense(prep, gpu_cost_scaling(options))


def _check_jv(options: dict) -> dict:
    if "arr_passes" in options:
        options["arr_passes"] = check_int("arr_passes", options["arr_passes"], low=0, high=16)
    return options


def _check_auction(options: dict) -> dict:
    if "theta" in options:
        options["theta"] = check_real("theta", options["theta"], low=1.0, low_inclusive=False)
    if "eps_final" in options:
        options["eps_final"] = check_real("eps_final", options["eps_final"], low=0.0, low_inclusive=False)
    if options.get("max_bids") is not None:
        options["max_bids"] = check_int("max_bids", options["max_bids"], low=1)
    return options


TABLE = MethodTable(
    family="assignment",
    methods=(
        Method("jv", cpu=_on_matrix(_cpu_jv), options=("arr_passes",), check=_check_jv),
        Method("hungarian", cpu=_on_matrix(_cpu_hungarian), gpu=_on_gpu("solve_hungarian_gpu"), gpu_alias="lopes",
               auto_gpu=gpu_measured_faster, gpu_direct=_on_gpu("assignment_direct")),
        Method("auction", cpu=_on_matrix(_cpu_auction), options=("theta", "eps_final", "max_bids"),
               check=_check_auction),
        Method("munkres", cpu=_on_matrix(_cpu_munkres)),
        Method("cost-scaling", cpu=solve_cost_scaling_dense, gpu=_cost_scaling_gpu),
    ),
    cpu_rule=lambda p: "jv",
    gpu_rule=lambda p: "hungarian" if gpu_measured_faster(p) else None,
    cold_gpu_rule=lambda p: max(p.shape, default=0) >= (GPU_COLD_N_FLOAT if np.dtype(p.dtype).kind == "f"
                                                       else GPU_COLD_N),
)


# ----------------------------------------------------------------------------- sparse costs (issue 12)
# A scipy.sparse ``cost`` (or a device-resident one) is another problem: the stored entries are the allowed pairs,
# the rows solve the square extended problem (:class:`._prepare_sparse.SparseProblem`) and return
# ``(method, x, U, V, stats)`` on it (``method``: the algorithm whose answer it is: a row may hand over, e.g. cost
# scaling's unproved float answer to shortest paths), certified by ``_verify_sparse``. Its own table: the
# same names where the algorithm is the same ("cost-scaling"), a different solve signature and auto rules.

# backend="auto" for sparse costs (H100 host, results/cost_scaling/gpu-h100-2026-11-23e.md, public call from host
# arrays vs the CPU twin on the same host): the GPU is faster end to end from 2M arcs (random n = 1e5, 2.1M arcs:
# 0.53 vs 0.61 s and 0.90 vs 0.95 s; kNN n = 1e6, 10M arcs: 1.83 vs 2.42 s; random n = 1e6, 21M arcs: 11.5 vs
# 16.2 s) and slower below (n = 1e4, 0.2M arcs: 0.071 vs 0.048 s). But a GPU call in a fresh process first pays
# the CUDA context and the kernel-cache load (~1 s, results/gpu_e2e/first-call-h100-2026-11-23b.md), and auto must
# not cost more than the CPU including that: the savings exceed it only on the 21M-arc input (4.7 s; 0.08 s at
# 2.1M arcs, 0.6 s at 10M), so the GPU from 20M arcs (the first call counted: no cold rule). Options the CPU twin
# takes keep it on the CPU (``place``).
AUTO_GPU_NNZ = 20_000_000


def sparse_gpu_measured_faster(p: SparseProblem) -> bool:
    """Cost scaling's GPU twin was measured faster end to end, first GPU call included: ``nnz >= AUTO_GPU_NNZ``."""
    return p.nnz >= AUTO_GPU_NNZ


def _sparse_cpu_rule(p: SparseProblem) -> str:
    """Shortest augmenting paths (LAPJVsp's way) where they beat cost scaling on the square extension: rectangular
    inputs in full mode (Netlib FIT2P, 3000 x 13525, 50k arcs: cost scaling 0.23-0.28 s, SciPy 0.026 s, shortest
    paths 0.0095 s on the 2-core machine) and ``partial=True`` without a full matching, square or not (the
    deficient part split off; public call warm, 2-core machine: Netlib GREENBEA 2392 x 5405, 31k arcs: cost
    scaling 144-197 ms, shortest paths 16 ms; SNAP as-caida, 26k square, 107k arcs, costs 1..1000: 2.4 s vs
    0.067 s; dense square ones tie: ego-Facebook 0.50 vs 0.49 s, astro-ph 2.2 vs 2.1 s; email-Enron's big M
    overflows cost scaling's prices, shortest paths 0.5 s); cost scaling elsewhere and whenever options are given
    (they are cost scaling's)."""
    return "jv" if (p.partial or p.is_extended) and not p.options else "cost-scaling"


def sparse_auto_rule(p: SparseProblem, device: str) -> str:
    """The words of ``stats["auto_rule"]`` for ``backend="auto"`` on sparse costs (:data:`AUTO_GPU_NNZ`)."""
    if p.options:
        return ("options given: the GPU twin (GPU options)" if device == "gpu" else
                "options given: the CPU (give backend='gpu' for GPU options)")
    if p.nnz < AUTO_GPU_NNZ:
        return f"nnz {p.nnz} < {AUTO_GPU_NNZ}: the CPU twin is faster"
    return f"nnz {p.nnz} >= {AUTO_GPU_NNZ} and a GPU: the GPU is faster end to end" if device == "gpu" else "no GPU"


def gpu_cost_scaling(options: dict):
    """The GPU twin of :func:`cost_scaling_solve` with the caller's GPU options (validated by the GPU module
    before any work; needs no GPU)."""
    from ._gpu_cost_scaling import cost_scaling_gpu_solve, validate_cost_scaling_gpu_options  # noqa: PLC0415 - loads numba.cuda on use only

    validate_cost_scaling_gpu_options(**options)
    return functools.partial(cost_scaling_gpu_solve, **options)


def _cost_scaling_sparse(p: SparseProblem, **options):
    return solve_cost_scaling(p, functools.partial(cost_scaling_solve, **options) if options else cost_scaling_solve)


def _cost_scaling_sparse_gpu(p: SparseProblem, **options):
    return solve_cost_scaling(p, gpu_cost_scaling(options))


def _check_sparse_jv(options: dict) -> dict:
    if options:
        raise ValueError("method='jv' on sparse costs (shortest augmenting paths) takes no options; the cost-scaling "
                         "options need method='cost-scaling'")
    return options


SPARSE_TABLE = MethodTable(
    family="assignment",
    methods=(
        Method("cost-scaling", cpu=_cost_scaling_sparse, gpu=_cost_scaling_sparse_gpu, options=COST_SCALING_OPTIONS,
               check=check_cost_scaling_options, auto_gpu=sparse_gpu_measured_faster),
        # LAPJVsp: Jonker-Volgenant's shortest augmenting paths on sparse costs (their paper's sparse variant), so
        # its name stays "jv" (what result.method has always said)
        Method("jv", cpu=functools.partial(solve_sparse_ssp, fallback=solve_cost_scaling), check=_check_sparse_jv),
    ),
    cpu_rule=_sparse_cpu_rule,
    gpu_rule=lambda p: "cost-scaling" if sparse_gpu_measured_faster(p) else None,
)


def check_sparse_options(table: MethodTable, row: Method, device: str, options: dict) -> dict:
    """:func:`matchflow._methods.check_method_options` for a sparse row, except that a row's own ``check`` sees
    every CPU option, names included (cost scaling's and jv's messages list what they take)."""
    if device == "gpu" or row.check is None:
        return check_method_options(table, row, device, options)
    return row.check(dict(options))


# ----------------------------------------------------------------------------- the dense door's method rules
# a float answer not proved within 64x the rounding of the entries it uses is compared with these solvers' (their
# duals grow from zero along paths), in this order (see assignment()'s Notes)
FLOAT_REPROVERS = ("jv", "hungarian")


def place_dense(table: MethodTable, row: Method | None, backend: str, a: np.ndarray, options: dict):
    """:func:`matchflow._methods.place` for a dense matrix ``a``; ``method="auto"`` with ``backend="gpu"`` runs the
    table's first GPU row (the Hungarian; cost scaling only when named) without the rules' O(n^2) range pass."""
    if row is None and backend == "gpu":
        row = next(m for m in table.methods if m.gpu is not None)
    return place(table, row, backend, lambda: Problem.of(a), options)


def direct_row(table: MethodTable, row: Method | None, maximize: bool) -> Method | None:
    """The row whose GPU twin may take the matrix as it is (:attr:`Method.gpu_direct`: uploaded in its dtype or read
    on its device, solved and certified there): minimising, the named row, or for ``"auto"`` the table's first row
    that has one (the Hungarian)."""
    if maximize:
        return None
    if row is not None:
        return row if row.gpu_direct is not None else None
    return next((m for m in table.methods if m.gpu_direct is not None), None)


