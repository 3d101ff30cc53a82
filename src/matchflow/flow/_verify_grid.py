"""The grid cut's certificate: the labels' energy on the input's capacities against the lower bound of a
solver's flow, with a tolerance from the cut and the flows, per item of a batch (:func:`certify_grid`, its
kernel :func:`grid_certify_kernel`), and the door's certificate stage (:func:`certify_cut`).

Every grid cut is certified on the host before it is returned (issue 21) unless its method certified it itself
(the CPU grid path, the GPU's exact integer certificate, :func:`._gpu_grid_kernels.grid_finish_kernel`): the
general network's solvers (made sound as in :func:`._api.max_flow`) and the GPU's float answers are checked here;
a float answer that is not proved is solved again by the CPU grid path, ``stats["fallback"]`` saying why.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from .._validation import readonly
from ._prepare_grid import Grid

__all__ = ["TINY", "U", "certified", "certify_cut", "certify_grid", "grid_certify_kernel", "grid_cut_energy",
           "network_flows"]


U = 2.0**-53  # unit roundoff of float64


TINY = 2.0**-1074  # the least subnormal: one absolute rounding step per operation, so underflow proves nothing


@numba.njit(cache=True, nogil=True, inline="always")
def _add_dev(hi, lo, k, x):
    """TwoSum accumulation of ``x`` into ``hi[k] + lo[k]`` (exact error terms; integers: plain sums)."""
    h = hi[k] + x
    z = h - hi[k]
    lo[k] += (hi[k] - (h - z)) + (x - z)
    hi[k] = h


@numba.njit(cache=True, nogil=True)
def grid_certify_kernel(dims, off, per, src, snk, edg, fs, ft, fe, flows, ins, e_hi, e_lo, f_hi, f_lo, mag, err):
    """The grid cut's certificate data, per item (pixels ``b * per ..``): the labels' (``ins``) energy
    ``e_hi + e_lo``; with ``flows``, the flow's lower bound on the minimum cut ``f_hi + f_lo`` (its inflow into
    ``t`` less every pixel's deficit), ``mag`` the sum of the magnitudes added, ``err`` the pixels' own summation
    rounding. The flow: ``fs``/``ft`` on the terminal arcs, ``fe[k, p]`` the net flow ``p -> p + off[k]`` for the
    positive offsets (``k >= K/2``; the pair's reverse carries its negation). False when it is no flow within
    the capacities (NaN fails too)."""
    nz, ny, nx = dims[0], dims[1], dims[2]
    kk = off.shape[0]
    for p in range(nz * ny * nx):
        z, y, x = p // (ny * nx), (p // nx) % ny, p % nx
        b = p // per
        if ins[p]:
            if snk[p] != 0:
                _add_dev(e_hi, e_lo, b, snk[p])
                mag[b] += snk[p]
        elif src[p] != 0:
            _add_dev(e_hi, e_lo, b, src[p])
            mag[b] += src[p]
        if flows and not (0 <= fs[p] <= src[p] and 0 <= ft[p] <= snk[p]):
            return False
        net = ft[p] - fs[p]
        m = abs(ft[p]) + abs(fs[p])
        deg = 2
        for k in range(kk):
            z2, y2, x2 = z + off[k, 0], y + off[k, 1], x + off[k, 2]
            if not (0 <= z2 < nz and 0 <= y2 < ny and 0 <= x2 < nx):
                continue
            q = (z2 * ny + y2) * nx + x2
            if ins[p] and not ins[q] and edg[k, p] != 0:
                _add_dev(e_hi, e_lo, b, edg[k, p])
                mag[b] += edg[k, p]
            if not flows:
                continue
            if 2 * k >= kk:  # p's own pair: its flow fe[k, p] within both directions' capacities
                f = fe[k, p]
                if not (f <= edg[k, p] and -f <= edg[kk - 1 - k, q]):
                    return False
            else:  # q's pair: the flow q -> p leaves p negated
                f = -fe[kk - 1 - k, q]
            net += f
            m += abs(f)
            deg += 1
        if flows:
            err[b] += (deg + 1) * U * m
            if net > 0:  # more flow leaves than enters: a deficit
                _add_dev(f_hi, f_lo, b, -net)
                mag[b] += net
            if ft[p] > 0:
                _add_dev(f_hi, f_lo, b, ft[p])
                mag[b] += ft[p]
    return True


def _sums(grid: Grid, labels: np.ndarray, flows: tuple | None, items: int) -> tuple | None:
    """The certificate kernel's per-item sums ``(e_hi, e_lo, f_hi, f_lo, mag, err)``, None when ``flows`` is no
    flow within the capacities."""
    npix = grid.src.size
    ins = np.asarray(labels, dtype=bool).reshape(-1)
    out = [np.zeros(items, dtype=grid.src.dtype) for _ in range(4)] + [np.zeros(items), np.zeros(items)]
    fs, ft, fe = flows if flows is not None else (grid.src, grid.snk, grid.edg)
    # the inputs as read-only views (readonly): one kernel specialisation whatever the caller's flags
    ok = grid_certify_kernel(*readonly(grid.dims, grid.off), max(npix // max(items, 1), 1),
                             *readonly(grid.src, grid.snk, grid.edg, fs, ft, fe), flows is not None, *readonly(ins), *out)
    return tuple(out) if ok else None


def grid_cut_energy(grid: Grid, labels: np.ndarray, items: int = 1) -> np.ndarray:
    """The labels' cut capacity per item (TwoSum: rounded once more at most; integers exact)."""
    e_hi, e_lo = _sums(grid, labels, None, items)[:2]
    return e_hi + e_lo if grid.src.dtype.kind == "f" else e_hi


def certify_grid(grid: Grid, flows: tuple, labels: np.ndarray, values: np.ndarray, wsum: np.ndarray | None,
                 items: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(gap_bound, tol)`` per item of the labels (True: source side) and claimed ``values`` (the cut's
    capacity) against the flow ``flows = (fs, ft, fe)`` (:func:`grid_certify_kernel`) on the input's ``grid``.

    ``gap_bound`` is a rigorous bound on ``energy(labels) - minimum``; the answer is certified where
    ``gap_bound <= tol`` and ``values`` lies within the energy's own rounding (``inf``: the check failed,
    an overflow or a value off its energy). Integers: exact (``tol`` 0). Floats: ``tol`` is ``2**-53 * wsum``
    per item (the solver's own flow updates, :func:`._cpu_bk.bk_flow_kernel`; None for a solver that
    reports none: then ``(deg + 1) 2**-53`` times each pixel's flows, the rounding of its balance) plus the
    rounding of the certificate's own sums: the cut arcs' and the flows' magnitudes, never the largest
    capacity."""
    inf = np.full(items, np.inf)
    sums = _sums(grid, labels, flows, items)
    if sums is None:
        return inf, inf
    e_hi, e_lo, f_hi, f_lo, mag, err = sums
    values = np.asarray(values).reshape(items)
    if grid.src.dtype.kind in "iu":
        exact = (e_lo == 0) & (f_lo == 0) & (mag < 2.0**62)  # no int64 sum wrapped
        ok = exact & (values == e_hi)
        return np.where(ok, (e_hi - f_hi).astype(np.float64), np.inf), np.zeros(items)
    k = float(grid.edg.size + 2 * grid.src.size)
    with np.errstate(over="ignore", invalid="ignore"):
        budget = err if wsum is None else U * np.asarray(wsum, dtype=np.float64)
        sum_err = (2 * U * (np.abs(e_hi) + np.abs(f_hi)) + 2 * (k * U) ** 2 * mag + 4 * TINY * k) * (1 + 4 * U)
        energy = e_hi + e_lo
        gap = ((energy - (f_hi + f_lo)) + sum_err + err) * (1 + 4 * U)
        tol = (budget + sum_err + err + TINY * k) * (1 + 4 * U)
        off_value = np.abs(values - energy) > 2 * U * np.abs(energy) + TINY
    bad = ~np.isfinite(gap) | ~np.isfinite(tol) | ~np.isfinite(values) | off_value
    return np.where(bad, np.inf, gap), tol


def certified(grid: Grid, flows: tuple, labels: np.ndarray, items: int | None, wsum: np.ndarray | None = None
              ) -> tuple[np.ndarray, dict]:
    """``(value per item: the labels' energy, stats with gap_bound, tol, certified)`` of a solver's answer."""
    b = 1 if items is None else items
    value = grid_cut_energy(grid, labels, b)
    gap, tol = certify_grid(grid, flows, labels, value, wsum, b)
    return value, {"gap_bound": float(gap.max(initial=0.0)), "tol": float(tol.max(initial=0.0)),
                   "certified": bool(np.all(gap <= tol))}


def network_flows(grid: Grid, flow: np.ndarray, keep: np.ndarray) -> tuple:
    """``(fs, ft, fe)`` (:func:`grid_certify_kernel`) of a flow on :func:`._prepare_grid.grid_network`'s arcs
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


def certify_cut(problem: Any, answer: tuple, name: str, device: str, fallback: Any
                ) -> tuple[Any, Any, dict, str, str]:
    """The door's certificate stage: ``(labels, value, stats, method, backend)`` of a grid method's ``answer``
    ``(labels, value, stats, flows)``. ``flows`` None: the method certified its own answer (``stats["fallback"]``:
    by solving it again on the CPU grid path). Else ``flows`` ``(fs, ft, fe)`` on ``problem.grid`` are checked
    against the labels' energy, per item (:func:`certified`); a float answer that is not proved is
    solved again by ``fallback`` (the CPU grid path, :func:`._cpu_grid_bk.solve_bk`), an integer one raises."""
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
    labels, value, st = fallback(*a)
    st["fallback"] = why_not(name, cert)
    return labels, value, st, "boykov-kolmogorov", "cpu"


def why_not(who: str, cert: dict) -> str:
    return (f"{who}'s float answer was not certified (gap bound {cert['gap_bound']:.3g} above its rounding tolerance "
            f"{cert['tol']:.3g}): solved again by the CPU grid path")


def floats_in(*arrays: Any) -> bool:
    """Any float array or scalar (a device array's dtype read as it is: never converted through NumPy)."""
    return any("float" in str(a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype) for a in arrays)
