"""The grid methods' solves (rows of ``_methods.GRID_TABLE``: the CPU grid path, the general network's solvers, the
GPU grid push-relabel) and the door's certificate stage (:func:`certify_cut`).

Every grid cut certified on the host before it is returned (issue 21): the answers of the general network's
solvers (made sound as in :func:`._api.max_flow`) and of the GPU grid push-relabel are checked by the grid certificate
(:func:`._cpu_grid.certify_grid`: the labels' energy on the input's capacities against the lower bound of the
solver's flow, tolerance from the cut and the flows, per item); a float answer it does not prove is solved again
by the CPU grid path (exact BK, its own exact re-solve), ``stats["fallback"]`` saying why.

Integer answers are exact everywhere: the general solvers' integer flows certify exactly, and the GPU's integer
certificate (:func:`._gpu_grid_kernels.grid_finish_kernel`, int64, no tolerance) stays on the device."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._cuda import device_library, hand_back, is_device_array
from .._validation import to_host_array
from ._cpu_grid import Grid, certified, clamp_grid, grid_arrays, grid_bk
from ._exact import solve_network
from ._grid_layout import INT_LIMIT

__all__ = ["certify_cut", "fold", "gpu_cut", "network_flows", "on_network", "solve_bk", "solve_grid_bk",
           "solve_grid_gpu"]


def fold(shape: tuple[int, ...], batch: int, off: np.ndarray, src: np.ndarray, snk: np.ndarray, edg: np.ndarray
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A batch as ONE 3-D grid (the items stacked along the first axis) with no arc across items: 2-D
    items are its depth slices (offsets with no depth step); 3-D items are stacked depth blocks, the arcs
    that would cross a block border zeroed (a pair with both directions zero is no arc). Returns
    ``(src, snk, edg (k, *grid3), off3 (k, 3))``."""
    d0 = shape[0] if len(shape) == 3 else 1
    g3 = (batch * d0,) + tuple(shape[-2:])
    off3 = np.zeros((len(off), 3), dtype=np.int64)
    off3[:, 3 - len(shape):] = off
    e = np.moveaxis(edg, 1, 0)
    e = (np.array(e) if len(shape) == 3 else np.ascontiguousarray(e)).reshape((len(off), batch) + shape)
    if len(shape) == 3:  # a copy (never the caller's array): zero the arcs across item borders
        for k, o in enumerate(off):
            if o[0] > 0:
                e[k, :, d0 - 1] = 0
            elif o[0] < 0:
                e[k, :, 0] = 0
    return src.reshape(g3), snk.reshape(g3), e.reshape((len(off),) + g3), off3


def solve_bk(shape, batch, off, src, snk, edg) -> tuple[np.ndarray, Any, dict]:
    """The CPU grid path (:func:`._cpu_grid.grid_bk`), a batch folded into one grid."""
    if batch is None:
        labels, value, stats = grid_bk(src, snk, edg, off, INT_LIMIT)
        return labels, (value.item() if src.dtype.kind == "f" else int(value)), stats
    labels, value, stats = grid_bk(*fold(shape, batch, off, src, snk, edg), INT_LIMIT, items=batch)
    stats["batch"] = batch
    return labels.reshape(src.shape), value, stats


def _grid(shape, batch, off, src, snk, edg) -> Grid:
    return grid_arrays(src, snk, edg, off) if batch is None else grid_arrays(*fold(shape, batch, off, src, snk, edg))


def network_flows(grid: Grid, flow: np.ndarray, keep: np.ndarray) -> tuple:
    """``(fs, ft, fe)`` (:func:`._cpu_grid.grid_certify_kernel`) of a flow on :func:`._grid.grid_network`'s arcs
    (``keep``: its non-zero arcs among all: ``s -> p``, ``p -> t``, then each offset's in-grid pairs)."""
    n, kk = grid.src.size, len(grid.off)
    full = np.zeros(keep.size, dtype=grid.src.dtype)
    full[keep] = flow
    gross = np.zeros_like(grid.edg)
    shape = tuple(int(d) for d in grid.dims)
    sl, d_ = [], []
    at = 2 * n
    for k, o in enumerate(grid.off):
        sl.append(tuple(slice(max(0, -d), shape[i] - max(0, d)) for i, d in enumerate(o)))
        d_.append(tuple(slice(max(0, d), shape[i] - max(0, -d)) for i, d in enumerate(o)))
        part = gross[k].reshape(shape)[sl[k]]
        gross[k].reshape(shape)[sl[k]] = full[at: at + part.size].reshape(part.shape)
        at += part.size
    fe = np.zeros_like(grid.edg)
    for k in range(kk // 2, kk):  # the net flow of each pair, from its lower end
        fe[k].reshape(shape)[sl[k]] = gross[k].reshape(shape)[sl[k]] - gross[kk - 1 - k].reshape(shape)[d_[k]]
    return full[:n], full[n: 2 * n], fe


def solve_grid_bk(problem: Any) -> tuple:
    """The CPU grid path as a grid method: Boykov-Kolmogorov on the residual CSR built from the arrays, certified
    by its own certificate (and its exact re-solve); ``problem``: :class:`._grid.GridProblem`."""
    t0 = time.perf_counter()
    labels, value, stats = solve_bk(*problem.arrays)
    stats["seconds_solve"] = time.perf_counter() - t0 - stats["seconds_build"]
    return labels, value, stats, None


def on_network(flow_solve: Any) -> Any:
    """The grid method of a general max-flow solve ``flow_solve(net, **options)`` (a row of ``max_flow``'s table):
    it runs on the grid's network (a batch: ONE network, no arc across items), the float answer made sound as
    :func:`._api.max_flow` does (:func:`._exact.solve_network`); the flow goes to the door's grid certificate."""

    def solve(problem: Any, **options: Any) -> tuple:
        t0 = time.perf_counter()
        net, keep = problem.network
        t1 = time.perf_counter()
        _, flow, side, _, _, stats = solve_network(net, flow_solve, options, flow_solve, options)
        stats.update(seconds_build=t1 - t0, seconds_solve=time.perf_counter() - t1)
        if problem.batch is not None:
            stats["batch"] = problem.batch
        labels = side[: net.n - 2].reshape(problem.arrays.src.shape)
        return labels, None, stats, network_flows(problem.grid, flow, keep)

    return solve


def solve_grid_gpu(problem: Any, **options: Any) -> tuple:
    """The GPU grid push-relabel as a grid method (:func:`gpu_cut`: certified on the device, or on the host for
    floats, else solved again by the CPU grid path: ``stats["fallback"]``)."""
    labels, value, stats, _ = gpu_cut(*problem.caps, lambda: problem.arrays, problem.connectivity, problem.batch,
                                      options)
    return labels, value, stats, None


def certify_cut(problem: Any, answer: tuple, name: str, device: str) -> tuple[Any, Any, dict, str, str]:
    """The door's certificate stage: ``(labels, value, stats, method, backend)`` of a grid method's ``answer``
    ``(labels, value, stats, flows)``. ``flows`` None: the method certified its own answer (``stats["fallback"]``:
    by solving it again on the CPU grid path). Else ``flows`` ``(fs, ft, fe)`` on ``problem.grid`` are checked
    against the labels' energy, per item (:func:`._cpu_grid.certified`); a float answer that is not proved is
    solved again by the CPU grid path, an integer one raises."""
    labels, value, stats, flows = answer
    if flows is None:
        return (labels, value, stats) + (("boykov-kolmogorov", "cpu") if "fallback" in stats else (name, device))
    a = problem.arrays
    value, cert = certified(problem.grid, flows, labels, a.batch)
    stats.update(cert)
    if cert["certified"]:
        if a.batch is None:
            value = value[0].item() if a.src.dtype.kind == "f" else int(value[0])
        return labels, value, stats, name, device
    if a.src.dtype.kind in "iu":
        raise RuntimeError(f"grid_cut: the integer certificate of {name} failed (gap {cert['gap_bound']}): "
                           "please report this input")
    labels, value, st = solve_bk(*a)
    st["fallback"] = _why(name, cert)
    return labels, value, st, "boykov-kolmogorov", "cpu"


def _why(who: str, cert: dict) -> str:
    return (f"{who}'s float answer was not certified (gap bound {cert['gap_bound']:.3g} above its rounding tolerance "
            f"{cert['tol']:.3g}): solved again by the CPU grid path")


def _floats(*arrays: Any) -> bool:
    """Any float array or scalar (a device array's dtype read as it is: never converted through NumPy)."""
    return any("float" in str(a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype) for a in arrays)


def gpu_cut(source_caps, sink_caps, edge_caps, inputs, connectivity: int, batch: int | None, options: dict
            ) -> tuple[Any, Any, dict, str]:
    """``(labels, value, stats, backend)`` of the GPU grid push-relabel. Integers: the device's exact
    certificate. Floats: host arrays are clamped (:func:`._cpu_grid.clamp_grid`) before the upload (device
    inputs are not: they are read in place); the residuals come back and the answer is certified on the host
    against the input's capacities (device inputs copied to the host for it), else solved again on the CPU.
    ``inputs()``: the validated host arrays (:func:`._grid._inputs`)."""
    from ._gpu_grid import grid_cut_gpu  # noqa: PLC0415

    caps = (source_caps, sink_caps, edge_caps)
    if not _floats(*caps):
        return (*grid_cut_gpu(*caps, connectivity=connectivity, batch=batch, **options), "gpu")
    shape, batch, off, src, snk, edg = inputs()
    grid = _grid(shape, batch, off, src, snk, edg)
    on_device = any(is_device_array(a) for a in caps)
    up = grid if on_device else clamp_grid(grid)
    if not on_device:
        lead = () if batch is None else (batch,)
        e = up.edg.reshape((len(off),) + lead + shape)
        caps = (up.src.reshape(src.shape), up.snk.reshape(src.shape), e if batch is None else np.moveaxis(e, 0, 1))
    labels, _, stats, (rc, rt) = grid_cut_gpu(*caps, connectivity=connectivity, batch=batch, flows=True, **options)
    t0 = time.perf_counter()
    host_labels = to_host_array(labels, "labels").reshape(-1)
    fe = up.edg - rc
    fe[: len(off) // 2] = 0  # the net flow of a pair from its lower end (the positive offsets)
    value, cert = certified(grid, (up.src, up.snk - rt, fe), host_labels, batch)
    stats.update(cert, seconds_host_certify=time.perf_counter() - t0)
    if cert["certified"]:
        stats["certified"] = "host"
        return labels, (value if batch is not None else value[0].item()), stats, "gpu"
    lab, value, st = solve_bk(shape, batch, off, src, snk, edg)
    st["fallback"] = _why("the GPU push-relabel", cert)
    return (hand_back(lab, device_library(source_caps), source_caps) if on_device else lab), value, st, "cpu"
