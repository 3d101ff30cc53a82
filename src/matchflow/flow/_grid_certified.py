"""Every grid cut certified on the host before it is returned (issue 21): the answers of the general network's
solvers (through :func:`._api.max_flow`) and of the GPU grid push-relabel are checked by the grid certificate
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
from ._grid_layout import INT_LIMIT

__all__ = ["fold", "gpu_cut", "network_flows"]


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


def certify_network(shape, off, src, snk, edg, res: Any, keep: np.ndarray) -> tuple[np.ndarray, Any, dict, str]:
    """``(labels, value, stats, method)`` of a general solver's answer ``res`` (a :class:`FlowResult` on the
    grid's network), certified; a float answer that is not: the CPU grid path."""
    grid = grid_arrays(src, snk, edg, off)
    labels = res.source_side[: src.size].reshape(shape)
    value, cert = certified(grid, network_flows(grid, res.flow, keep), labels, None)
    stats = dict(res.stats, **cert)
    if cert["certified"]:
        return labels, (value[0].item() if src.dtype.kind == "f" else int(value[0])), stats, res.method
    if src.dtype.kind in "iu":
        raise RuntimeError(f"grid_cut: the integer certificate of {res.method} failed (gap {cert['gap_bound']}): "
                           "please report this input")
    labels, value, st = solve_bk(shape, None, off, src, snk, edg)
    st["fallback"] = _why(res.method, cert)
    return labels, value, st, "boykov-kolmogorov"


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
