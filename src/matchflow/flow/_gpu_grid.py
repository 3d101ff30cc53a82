"""``grid_cut(..., backend="gpu")``: the lock-free push-relabel on a grid with implicit neighbours.

No CSR is built: the residual capacities live in one array of shape ``(k, N)`` beside the excess and
heights of the ``N`` pixels (kernels in :mod:`._gpu_grid_kernels`). ``loop="persistent"`` (the default
on a GPU) runs the whole He & Hong loop -- global relabels, active counts, lock-free passes -- in ONE
cooperative launch with one host read at the end; ``loop="host"`` runs host rounds (the loop shared with
the general-graph driver :mod:`._gpu_push_relabel`, one launch per BFS level). A batch of B equal grids
is one solve: the items follow each other in memory and no neighbour crosses an item border. Inputs may be NumPy, CuPy or PyTorch (CUDA) arrays;
device inputs are read in place (no host copy) and the labels come back as the same kind of array,
on the device. Device inputs must have the full shape (``edge_caps``: ``(k, *grid)``) or hold one
element; host inputs broadcast like the CPU path.

Grid options beside :func:`._gpu_push_relabel.validate_flow_gpu_options`'s: ``layout`` -- ``"linear"``
(pixels in C order, grid-stride) or ``"tiled"`` (Section 4.6's 32 x 8 / CudaCuts layout: a block owns a
tile, round-robin over the tiles; :mod:`._gpu_grid_kernels`; default: tiled for 2-D grids below
``LINEAR_FROM_POINTS`` (4 MP), linear from there and for 3-D ones, as measured in ``LAYOUT``); ``bfs`` -- the global relabel's BFS,
``"levels"`` (level-synchronous, a grid sync per level) or ``"tiles"`` (a Bellman-Ford wave relaxed inside
each tile with block syncs, a grid sync per sweep over the tiles); default ``"tiles"`` with the tiled
layout, ``"levels"`` with the linear one; ``tile`` -- ``(TY, TX)`` or, 3-D, ``(TZ, TY, TX)``, powers of two
whose product (32 to 1024) is the block size (default ``(block_size // 32, 32)``, one z-slice);
``tile_passes`` -- lock-free passes per visit of a tile (default 8).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._backend import require_gpu
from .._cuda import as_numba, c_contiguous_device, device_library, hand_back, is_device_array, quiet
from .._validation import check_choice, check_int, to_host_array
from ._cpu_grid_bk import bk_arrays
from ._gpu_push_relabel import Rounds, validate_flow_gpu_options
from ._prepare_grid import clamp_grid, grid_of
from ._prepare_grid_layout import INT_LIMIT, offsets
from ._verify_grid import certified, floats_in, why_not

__all__ = ["gpu_cut", "grid_cut_gpu", "solve_grid_gpu"]

FINISH_ITEMS = 64  # pixels per thread in the labels + flow-value + certificate kernel
FINISH_BLOCK = 128  # threads per block of the finish kernel (H100: out of resources at 1024)
# floats: the device push-relabel still counts residuals below GPU_RTOL x the largest capacity as zero and its device
# check allows CERT_RTOL; neither is what certifies a float answer: gpu_cut clamps hard seeds before
# the upload and certifies the returned residuals on the host (else the CPU grid path solves it again)
GPU_RTOL = 1e-12
CERT_RTOL = 1e-9  # float certificate: relative slack on sums of capacities (atomics round)
_NAMES = ("source_caps", "sink_caps", "edge_caps")
LAYOUTS = ("linear", "tiled")
BFS_KINDS = ("levels", "tiles")
# default layout by grid dimension (H100, results/flow/gpu-h100-2026-11-23e.md: host arrays end to end, best of
# 20 / of 5; the solve alone in brackets). 2-D "tiled": faster where the BFS is deep -- random 1000² 35 vs 45 ms
# [20 vs 29 ms; grid syncs 140 vs 1,623], 512² 8-conn image 9.7 vs 12.1 ms [1.8 vs 4.3] -- and 3-9 % slower on
# the shallow blob images and batches (4 MP 31/44 vs 28/43 ms, 16 MP 89 vs 84, 256 x 64² 19 vs 17 [5.8 vs 3.7]);
# geometric mean over the 7 2-D inputs 1.03x for tiled end to end, the worst case 0.91x (linear's: 0.79x).
# 3-D "linear": a 1 x 8 x 32 tile moves the tiled BFS one z-slice per sweep (200³ 26-conn: 44 sweeps vs 14
# levels; 0.16 vs 0.21 s, solve 20 vs 59 ms; 6-conn 47 vs 60 ms) and a 2 x 4 x 32 tile did not win it back.
LAYOUT = {2: "tiled", 3: "linear"}
# ... but from 2^22 points per grid the 2-D default is "linear" too (H200, 2026-11-27, results/flow/
# gpu-h200-2026-11-27real.md, real photographs upscaled: camera 2048² 8-conn solve 0.171 s tiled vs 0.148 s linear,
# astronaut 4096² 4-conn 0.64 vs 0.32 s, end to end 0.98 vs 0.58 s; the synthetic 4-16 MP blobs are within 12 %
# either way; 512² photos keep tiled: 5.7 vs 15 ms, 38 vs 212 ms).
LINEAR_FROM_POINTS = 1 << 22
TILE_PASSES = 8  # lock-free passes per visit of a tile (layout="tiled")
HOST_TILE_BLOCKS = 4096  # blocks of the loop="host" tile kernels (round-robin over the tiles)


def grid_gpu_options(options: dict[str, Any], ndim: int, points: int = 0) -> dict[str, Any]:
    """Pop and check the grid-only GPU options (``layout``, ``bfs``, ``tile``, ``tile_passes``) from
    ``options``; the rest goes to :func:`validate_flow_gpu_options`. ``tile`` fixes ``block_size``. The default
    layout follows ``ndim`` and the ``points`` of one grid (:data:`LAYOUT`, :data:`LINEAR_FROM_POINTS`)."""
    default = "linear" if points >= LINEAR_FROM_POINTS else LAYOUT[ndim]
    layout = check_choice("layout", options.pop("layout", default), LAYOUTS)
    bfs = check_choice("bfs", options.pop("bfs", "tiles" if layout == "tiled" else "levels"), BFS_KINDS)
    passes = check_int("tile_passes", options.pop("tile_passes", TILE_PASSES), low=1, high=1 << 20)
    tile = options.pop("tile", None)
    if tile is not None:
        if not isinstance(tile, (tuple, list)) or len(tile) not in (2, ndim) or len(tile) < ndim - 1:
            raise ValueError(f"tile must be a tuple (TY, TX){' or (TZ, TY, TX)' if ndim == 3 else ''} of powers of "
                             f"two, got {tile!r}")
        dims = [check_int("tile", d, low=1, high=1024) for d in tile]
        size = int(np.prod(dims))
        if any(d & (d - 1) for d in dims) or not 32 <= size <= 1024:
            raise ValueError(f"tile must hold powers of two with a product in [32, 1024], got {tuple(dims)}")
        bs = options.get("block_size")
        if bs is not None and bs != size:
            raise ValueError(f"block_size={bs} differs from the tile's {size} threads {tuple(dims)}: give one")
        options["block_size"] = size
        tile = (1,) * (3 - len(dims)) + tuple(dims)
    return {"layout": layout, "bfs": bfs, "tile_passes": passes, "tile": tile}


def _kind(x: Any) -> str:
    return device_library(x) if is_device_array(x) else "numpy"


def _device_input(name: str, x: Any, shape: tuple[int, ...]) -> tuple[Any, np.dtype]:
    """A flat device array (the full ``shape`` or one element) and its dtype, checked like the CPU path."""
    from numba import cuda  # noqa: PLC0415

    if is_device_array(x):
        a = as_numba(x)
        if a.dtype.kind not in "iuf":
            raise TypeError(f"{name} must hold integers or floats, got dtype {a.dtype}")
        if a.size != 1 and tuple(a.shape) != shape:
            raise ValueError(f"{name} must have shape {shape} (device arrays: that shape or one element), "
                             f"got {tuple(a.shape)}")
        if hasattr(x, "__cuda_array_interface__") and not a.is_c_contiguous():
            a = c_contiguous_device(x)  # strided: one copy on the device, by the array's own library
        return a.reshape(a.size), a.dtype
    arr = np.asarray(x)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integers or floats, got dtype {arr.dtype}")
    if arr.size != 1:
        try:
            arr = np.broadcast_to(arr, shape)
        except ValueError:
            raise ValueError(f"{name} must have shape {shape} (or broadcast to it), got {arr.shape}") from None
    arr = np.ascontiguousarray(arr).reshape(-1)
    if arr.dtype.byteorder not in "=|":
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return cuda.to_device(arr), arr.dtype


def _table(ndim: int, connectivity: int, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Offsets as (k, 3) rows (2-D: depth 1), flat deltas and the reverse arc of each neighbour."""
    off = offsets(ndim, connectivity)
    off3 = np.zeros((len(off), 3), np.int32)
    off3[:, 3 - ndim:] = off
    D, H, W = (1,) * (3 - ndim) + shape
    delta = ((off3[:, 0].astype(np.int64) * H + off3[:, 1]) * W + off3[:, 2]).astype(np.int64)
    kinv = np.array([int(np.flatnonzero((off3 == -o).all(axis=1))[0]) for o in off3], np.int64)
    return off3, delta, kinv


def grid_cut_gpu(source_caps: Any, sink_caps: Any, edge_caps: Any, *, connectivity: int, batch: int | None = None,
                 flows: bool = False, **options: Any) -> tuple:
    """``(labels, flow_value, stats)`` of the minimum cut of a 2-D or 3-D grid on the GPU (labels True on
    the source side: the pixels that cannot reach the sink in the residual graph of a maximum preflow).
    ``batch``: B independent grids (a leading axis of every input); the flow value is then a NumPy array.
    ``flows``: a fourth element, the final residuals on the host (:meth:`_GridRun.host_flows`), for the host
    certificate of a float solve (:func:`.gpu_cut`)."""
    full = tuple(int(d) for d in getattr(source_caps, "shape", np.shape(source_caps)))
    shape = full if batch is None else full[1:]
    if len(shape) not in (2, 3):
        raise ValueError(f"source_caps must be a 2-D or 3-D grid (or a batch of them), got shape {full}")
    options = dict(options)
    g = grid_gpu_options(options, len(shape), int(np.prod(shape)))
    o = validate_flow_gpu_options(options)
    bs = o["block_size"]
    o.update(g, tile=g["tile"] or (1, bs // 32, 32))
    off3, delta, kinv = _table(len(shape), connectivity, shape)
    require_gpu("grid_cut(backend='gpu')")
    with quiet():
        run = _GridRun(shape, batch, off3, delta, kinv, o, GPU_RTOL, INT_LIMIT)
        out = run.go(source_caps, sink_caps, edge_caps)
        return (*out, run.host_flows()) if flows else out


class _GridRun:
    """One grid solve (or one batch): ``start`` (inputs to the device, checks, preflow) -> ``solve``
    (``loop="persistent"``: one cooperative launch; ``"host"``: host rounds) -> ``finish``."""

    def __init__(self, shape, batch, off3, delta, kinv, o, rtol, int_limit) -> None:
        self.t0 = time.perf_counter()
        self.shape, self.batch, self.o, self.rtol, self.int_limit = shape, batch, o, rtol, int_limit
        self.B = 1 if batch is None else int(batch)
        self.lead = () if batch is None else (self.B,)
        self.ni = int(np.prod(shape))
        self.N = self.B * self.ni
        self.K = len(off3)
        self.dims = (1,) * (3 - len(shape)) + shape
        self.off3, self.delta, self.kinv = off3, delta, kinv

    def go(self, src: Any, snk: Any, edg: Any) -> tuple[Any, Any, dict[str, Any]]:
        self.kind = _kind(src)
        self.start(src, snk, edg)
        self.solve()
        return self.finish()

    def start(self, src: Any, snk: Any, edg: Any) -> None:
        from numba import cuda  # noqa: PLC0415

        from . import _gpu_grid_kernels as G  # noqa: PLC0415

        N, K, full = self.N, self.K, self.lead + self.shape
        t0 = time.perf_counter()
        ins = [_device_input(nm, x, s) for nm, x, s in zip(_NAMES, (src, snk, edg),
                                                          (full, full, self.lead + (K,) + self.shape), strict=True)]
        self.ins = ins
        self.is_int = all(dt.kind in "iu" for _, dt in ins)
        self.work = work = np.int64 if self.is_int else np.float64
        self.R = R = Rounds(self.o, max(N, 1))
        self.rc = cuda.device_array(max(K * N, 1), work)
        self.rt = cuda.device_array(max(N, 1), work)
        self.ct = cuda.device_array(max(N, 1), work)
        self.excess = cuda.device_array(max(N, 1), work)
        self.h = cuda.device_array(max(N, 1), np.int32)
        self.off, self.dl, self.ki = cuda.to_device(self.off3), cuda.to_device(self.delta), cuda.to_device(self.kinv)
        TZ, TY, TX = self.o["tile"]
        D, H, W = self.dims
        nt = (-(-D // TZ), -(-H // TY), -(-W // TX))
        self.T = self.B * int(np.prod(nt))
        tiles = self.o["layout"] == "tiled" or self.o["bfs"] == "tiles"
        # one transfer: the tile geometry (7), the sweep flags (3 zeros), the tiles' stamps (-2: never changed)
        meta = np.full(10 + (max(self.T, 1) if tiles else 1), -2, np.int64)
        meta[:10] = (TZ, TY, TX, *nt, self.T, 0, 0, 0)
        meta = cuda.to_device(meta)
        self.tg, self.tflag, self.stamp = meta[:7], meta[7:10], meta[10:]
        self.sw = 0
        R.stats.update(layout=self.o["layout"], bfs=self.o["bfs"], tile=(TZ, TY, TX)[3 - len(self.shape):],
                       tile_passes=self.o["tile_passes"], tiles=self.T, bfs_sweeps=0)
        status = cuda.to_device(np.zeros(1, np.int32))
        vmax = cuda.to_device(np.zeros(1, np.float64))
        cuda.synchronize()
        R.stats["seconds_h2d"] = time.perf_counter() - t0
        if N:
            D, H, W = (np.int64(d) for d in self.dims)
            (s, _), (t, _), (e, _) = ins
            R.on(G.grid_edges_kernel, min(R.over(K * N), 4096), np.int64(N), np.int64(K), D, H, W, self.off, e,
                     np.int64(e.size), self.rc, status, vmax)
            R.on(G.grid_terminals_kernel, R.over(N), np.int64(N), s, np.int64(s.size), t, np.int64(t.size),
                     self.excess, self.rt, self.ct, status, vmax)
        bad, big = int(self.R.value(status)), float(self.R.value(vmax))
        if bad:
            self._raise(bad, (src, snk, edg))
        if self.is_int and big * max(K + 1, self.ni) >= self.int_limit:
            raise OverflowError(f"capacities up to {big:.3g} on a grid of {self.ni} points with {K} neighbours could "
                                "sum beyond 2**62: the flow could overflow int64 (scale the capacities down or pass "
                                "floats)")
        self.tol = work(0) if self.is_int else work(self.rtol * big)
        R.stats["seconds_start"] = time.perf_counter() - t0
        if self.batch is not None:
            R.stats["batch"] = self.B

    @staticmethod
    def _raise(bad: int, arrays: tuple) -> None:
        from ._gpu_grid_kernels import BAD_EDGE, BAD_SINK, BAD_SOURCE, NOT_FINITE  # noqa: PLC0415

        for bit, name, x in zip((BAD_SOURCE, BAD_SINK, BAD_EDGE), _NAMES, arrays, strict=True):
            if bad & bit:
                a = to_host_array(x, name) if is_device_array(x) else np.asarray(x)
                if bad & NOT_FINITE and not np.all(np.isfinite(a)):
                    raise ValueError(f"{name} must be finite")
                raise ValueError(f"{name} must be non-negative, got {a.min()}")

    def _dims(self) -> tuple[np.int64, ...]:
        return tuple(np.int64(d) for d in self.dims)

    def _relabel(self) -> int:
        """``loop="host"``: one global relabel, a launch per BFS level (``bfs="tiles"``: per sweep);
        returns the pixels still active."""
        from .._cuda._launch import grid  # noqa: PLC0415
        from . import _gpu_grid_kernels as G  # noqa: PLC0415
        from ._gpu_push_relabel_kernels import finish_relabel_kernel  # noqa: PLC0415

        R, N, K = self.R, np.int64(self.N), np.int64(self.K)
        D, H, W = self._dims()
        unset = np.int32(2 * (N + 2) + 1)
        if self.o["bfs"] == "tiles":
            R.on(G.grid_tile_seed_kernel, grid(N, R.bs), N, self.rt, self.h, self.tol, unset)
            first = 1
            while True:
                R.on(G.reset_cnt_kernel, 1, self.tflag)
                R.on(G.grid_tile_sweep_kernel, min(self.T, HOST_TILE_BLOCKS), N, K, D, H, W, np.int64(self.sw),
                         np.int64(first), self.tg, self.dl, self.rc, self.h, self.tol, self.stamp, self.tflag)
                self.sw += 1
                R.stats["bfs_sweeps"] += 1
                first = 0
                if R.value(self.tflag) == 0:
                    break
            return R.active(finish_relabel_kernel, N, np.int64(-1), np.int64(-1), np.int64(N + 2), unset, self.h,
                            self.excess, self.tol)
        R.on(G.reset_cnt_kernel, 1, R.cnt)
        R.on(G.grid_relabel_init_kernel, grid(N, R.bs), N, self.rt, self.h, R.queue, R.cnt, self.tol, unset)

        def one_level(lv: np.int64) -> None:
            R.on(G.grid_bfs_level_kernel, R.bfs_blocks, N, K, D, H, W, lv, self.off, self.dl, self.ki, self.rc, self.h,
                     R.queue, R.cnt, self.tol, unset)

        R.bfs(one_level, 1)
        return R.active(finish_relabel_kernel, N, np.int64(-1), np.int64(-1), np.int64(N + 2), unset, self.h,
                        self.excess, self.tol)

    def _push(self) -> None:
        from . import _gpu_grid_kernels as G  # noqa: PLC0415

        R = self.R
        if self.o["layout"] == "tiled":
            R.on(G.grid_tile_push_kernel, min(self.T, HOST_TILE_BLOCKS), np.int64(self.N), np.int64(self.K),
                     *self._dims(), np.int64(self.N + 2), np.int64(self.o["cycle"]), np.int64(self.o["tile_passes"]),
                     self.tg, self.dl, self.ki, self.rc, self.rt, self.excess, self.h, self.tol, R.counters)
            return
        R.on(G.grid_push_kernel, R.push_blocks, np.int64(self.N), np.int64(self.K), np.int64(self.N + 2),
                 np.int64(self.o["cycle"]), self.dl, self.ki, self.rc, self.rt, self.excess, self.h, self.tol,
                 R.counters)

    def _persistent(self) -> bool:
        """``loop="persistent"``: the whole loop in one cooperative launch and one host read; False when not
        one block fits an SM (the caller then runs host rounds)."""
        from numba import cuda  # noqa: PLC0415

        from .._cuda import is_simulator  # noqa: PLC0415
        from .._cuda._launch import cooperative_kernel  # noqa: PLC0415
        from . import _gpu_grid_kernels as G  # noqa: PLC0415

        R, N = self.R, np.int64(self.N)
        limit = self.o["max_rounds"] or max(10_000, 4 * self.N)
        out = cuda.to_device(np.zeros(7, np.int64))
        tiled = self.o["layout"] == "tiled"
        args = (N, np.int64(self.K), *self._dims(), N + 2, np.int64(self.o["cycle"]), np.int64(limit),
                np.int64(tiled), np.int64(self.o["bfs"] == "tiles"), np.int64(self.o["tile_passes"]), self.tg,
                self.off, self.dl, self.ki, self.rc, self.rt, self.excess, self.h, R.queue, R.cnt, self.tol,
                np.int32(2 * (N + 2) + 1), self.stamp, self.tflag, out, R.counters)
        # the two main forms get their own kernel (the other's code compiled out: fewer registers)
        kern = {("linear", "levels"): G.grid_solve_linear_kernel, ("tiled", "tiles"): G.grid_solve_tiled_kernel}.get(
            (self.o["layout"], self.o["bfs"]), G.grid_solve_persistent_kernel)
        if is_simulator():
            spec, gsize = kern, 1
        else:
            spec, gmax = cooperative_kernel(kern, args, R.bs)
            if gmax < 1:
                return False
            # tiled: no more blocks than tiles (a block owns whole tiles); linear: grid_size caps it
            gsize = min(gmax, max(self.T, 1), self.o["grid_size"] or gmax) if tiled else min(gmax, R.push_blocks)
        res = R.once(spec, gsize, args, out)
        R.stats["grid_size"] = gsize
        R.stats["rounds"], R.stats["bfs_levels"] = int(res[2]), int(res[3])
        R.stats["bfs_sweeps"], R.stats["grid_syncs"] = int(res[5]), int(res[6])
        R.stats["global_relabels"] = int(res[2]) + 1
        if res[4]:
            raise RuntimeError(f"grid_cut (GPU): {int(res[4])} vertices still active after max_rounds={limit} rounds "
                               "(raise max_rounds)")
        return True

    def solve(self) -> None:
        from numba import cuda  # noqa: PLC0415

        t0 = time.perf_counter()
        if self.N and (self.o["loop"] != "persistent" or not self._persistent()):
            self.o["loop"] = self.R.stats["loop"] = "host"
            self.R.run(self._push, self._relabel, "grid_cut (GPU)")
        cuda.synchronize()
        self.R.stats["seconds_solve"] = time.perf_counter() - t0

    def host_flows(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rc (K, N), rt (N,))``: the residuals of the neighbour arcs and of the sink arcs, on the host."""
        t0 = time.perf_counter()
        rc = self.rc.copy_to_host()[: self.K * self.N].reshape(self.K, self.N)
        rt = self.rt.copy_to_host()[: self.N]
        self.R.stats["seconds_d2h_flows"] = time.perf_counter() - t0
        return rc, rt

    def finish(self) -> tuple[Any, Any, dict[str, Any]]:
        from numba import cuda  # noqa: PLC0415

        from .._cuda._launch import grid  # noqa: PLC0415
        from . import _gpu_grid_kernels as G  # noqa: PLC0415

        R, N = self.R, self.N
        t0 = time.perf_counter()
        lab = cuda.device_array(max(N, 1), np.uint8)
        B = self.B
        sums = cuda.to_device(np.zeros(2 * B + 1, self.work))  # flow values, cut capacities, a failure flag
        certify = bool(self.o["certify"])
        if N:
            (s, _), _, (e, _) = self.ins
            lanes = max(1, -(-self.ni // FINISH_ITEMS))
            # its own block size: the certificate's registers do not fit blocks of 1024 threads
            G.grid_finish_kernel[grid(B * lanes, FINISH_BLOCK), FINISH_BLOCK](
                np.int64(N), np.int64(self.K), *self._dims(), np.int64(lanes), np.int64(N + 2), certify,
                0.0 if self.is_int else CERT_RTOL, self.off, self.dl, self.ki, s, np.int64(s.size), e, np.int64(e.size),
                self.ct, self.rt, self.rc, self.excess, self.h, self.tol, lab, sums[:B], sums[B: 2 * B], sums[2 * B:])
            R.launches += 1
        both = sums.copy_to_host()
        values, cuts = both[:B], both[B: 2 * B]
        R.syncs += 1
        if certify:
            ok = both[2 * B] == 0 and (
                np.array_equal(values, cuts) if self.is_int
                else np.allclose(values, cuts, rtol=CERT_RTOL, atol=float(self.tol) * max(self.ni, 1)))
            if not ok:
                raise RuntimeError("grid_cut (GPU): the certificate failed (the residuals are not a preflow of the "
                                   "input, or the labels' cut differs from the flow value): please report this input")
            R.stats["certified"] = "device"
        full = self.lead + self.shape
        lab = lab[:N]
        if self.kind in ("cupy", "torch"):  # 0/1 labels as booleans of the caller's library, on the device
            labels = (hand_back(lab, self.kind) != 0).reshape(full)
        else:
            labels = lab.copy_to_host().view(bool).reshape(full)
        R.work()
        R.stats["seconds_finish"] = time.perf_counter() - t0
        R.stats["seconds_total"] = time.perf_counter() - self.t0
        if self.batch is not None:
            return labels, values, R.stats
        v = values[0].item()
        return labels, (int(v) if self.is_int else float(v)), R.stats


def solve_grid_gpu(problem: Any, **options: Any) -> tuple:
    """The GPU grid push-relabel as a grid method (:func:`gpu_cut`: certified on the device, or on the host for
    floats, else solved again by the CPU grid path: ``stats["fallback"]``)."""
    labels, value, stats, _ = gpu_cut(*problem.caps, lambda: problem.arrays, problem.connectivity, problem.batch,
                                      options)
    return labels, value, stats, None


def gpu_cut(source_caps, sink_caps, edge_caps, inputs, connectivity: int, batch: int | None, options: dict
            ) -> tuple[Any, Any, dict, str]:
    """``(labels, value, stats, backend)`` of the GPU grid push-relabel. Integers: the device's exact
    certificate. Floats: host arrays are clamped (:func:`._prepare_grid.clamp_grid`) before the upload (device
    inputs are not: they are read in place); the residuals come back and the answer is certified on the host
    against the input's capacities (device inputs copied to the host for it), else solved again on the CPU.
    ``inputs()``: the validated host arrays (:func:`._prepare_grid._inputs`)."""
    caps = (source_caps, sink_caps, edge_caps)
    if not floats_in(*caps):
        return (*grid_cut_gpu(*caps, connectivity=connectivity, batch=batch, **options), "gpu")
    shape, batch, off, src, snk, edg = inputs()
    grid = grid_of(shape, batch, off, src, snk, edg)
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
    lab, value, st = bk_arrays(shape, batch, off, src, snk, edg)
    st["fallback"] = why_not("the GPU push-relabel", cert)
    return (hand_back(lab, device_library(source_caps), source_caps) if on_device else lab), value, st, "cpu"
