"""GPU Hungarian algorithm of Lopes, Yadav, Ilic and Patra (JPDC 130, 2019): the host driver.

Named after its CPU twin ``_cpu_munkres.py`` (the same six Munkres steps); the table serves it as the GPU twin
of ``method="hungarian"`` (alias ``"lopes"``).
The kernels (the paper's six steps) live in ``_gpu_munkres_kernels.py``. A solve is a small state
object with named stages (Gunrock's problem / enactor split): ``start`` (validate the matrix, H2D, device
buffers), ``solve`` (``loop="persistent"``: one cooperative kernel whose step loop stays on the device;
``loop="host"``: one launch per step, flags read back by the host; both run the same device functions),
``certify`` (a kernel recomputes ``C - u - v`` from the original costs) and ``finish`` (D2H, stats).

Zero test: integer slack is exact. Float costs keep a float64 slack; a zero is an exact 0.0. Zeros arise
exactly: step 1 subtracts the same row/column minima it found, and step 6 computes ``s - delta`` with
``delta <= s``; by Sterbenz's lemma that difference is exact when ``s <= 2 delta`` and ``> 0`` otherwise,
so an entry becomes 0.0 exactly when it equals the minimum. Duals u, v are kept separately (int64 or
float64).
"""

from __future__ import annotations

import math
import time
from types import SimpleNamespace
from typing import Any

import numpy as np

from .._cuda import (
           c_contiguous_device,
           device_library,
           hand_back,
           is_device_array,
           is_simulator,
           quiet,
           validate_gpu_options,
)
from .._validation import check_options, check_real

__all__ = ["hungarian_gpu", "hungarian_gpu_float", "solve_hungarian_gpu", "assignment_direct", "choose_slack_dtype", "validate_hungarian_options", "HungarianGPUError"]

_OPTIONS = ("slack_dtype", "float_route", "float_range", "float_gap_levels")
FLOAT_ROUTES = ("repair", "slack")
# the float route's integer pre-solve uses costs in [0, FLOAT_RANGE * n]: on the CPU prototype (uniform float64,
# n = 2048 / 4096) ranges 0.1n / n / 3n / 10n / 30n left 78 / 2-11 / 2-3 / 0 / 0 augmentations to the repair
# (after JV's augmenting row reduction), and the integer kernel grows with the range (H100 n = 4096: 1.8 / 10.6
# / 49.6 ms at 0.1n / n / 10n): 10n is the knee
FLOAT_RANGE = 10.0
# a second integer pass focused on the values the first one used, when the first pass's optimum is degenerate: every
# entry it assigned rounded to at most FOCUS_BELOW (heavy tails: the scale is set by a few huge entries, the
# optimum's entries all round to 0, nearly every row is freed and the host repair is a full JV). H200, 2026-11-27,
# public call n = 4096: squared-normal costs 2.5 -> 0.72 s, lognormal(0, 2) 0.64 s; n = 8192 2.9 s. A looser
# trigger (used entries spanning < 1/256 of the range) also fired on uniform costs (~140 of 40960 levels used) and
# made them 4-6x slower end to end (the focused integer solve 1.4 s at 4096, 9.3 s at 8192: most entries clamped).
# The focused range is FOCUS_MARGIN times the largest used value above the minimum; larger entries are clamped (a
# warm start only: the repair and the certificate decide).
FOCUS_BELOW = 3
FOCUS_MARGIN = 3.0
# The scale is also capped by the rows' resolution: s <= FLOAT_GAP_LEVELS / g, g the median over the rows of the
# gap between a row's two smallest distinct entries. Uniform costs (g ~ 0.7 / n of the range) keep s = 10 n / range;
# costs whose low tail is sparse (normal: the assigned entries sit in a tail where a row's two smallest entries are
# ~0.1 sigma apart) had ~50x more integer levels per gap, and the integer solve took 20x the rounds (n = 4096:
# 1.19 s vs 54 ms) for a warm start no better. 0 turns the cap off (float_gap_levels).
FLOAT_GAP_LEVELS = 10.0
_DEPRECATED = {"mode": ("loop", None), "check": ("certify", None)}


class HungarianGPUError(RuntimeError):
    """The GPU Hungarian kernels returned an error status (an internal bug, never bad input)."""


def choose_slack_dtype(cost_dtype: np.dtype, n: int, max_cost: float) -> np.dtype:
    """Slack dtype: float64 for float costs; int32 when ``(2n + 2) * max_cost`` fits, else int64.

    Every dual update keeps ``v`` non-decreasing from ``>= 0`` and ``u`` non-increasing from ``<= max``;
    the bound is a heuristic margin, and the certificate check after the solve catches any overflow.
    """
    if np.issubdtype(cost_dtype, np.floating):
        return np.dtype(np.float64)
    if (2 * n + 2) * float(max_cost) < 2**31 - 1:
        return np.dtype(np.int32)
    return np.dtype(np.int64)


def validate_hungarian_options(**options: Any) -> dict[str, Any]:
    """Check the options of :func:`hungarian_gpu` (no GPU needed); return them normalised.

    The GPU vocabulary of ``matchflow._cuda`` (``loop``, ``certify``, ``max_rounds``, ``block_size``: a
    power of two in [1, 1024], ``grid_size``) plus ``slack_dtype``. Deprecated: ``mode`` (use ``loop``),
    ``check`` (use ``certify``).
    """
    opts = dict(options)
    o = validate_gpu_options("hungarian_gpu", opts, block_low=1, deprecated=_DEPRECATED)
    check_options("hungarian_gpu", opts, _OPTIONS)
    sd = opts.get("slack_dtype")
    o["slack_dtype"] = None if sd is None else np.dtype(sd)
    fr = opts.get("float_route", "repair")
    if fr not in FLOAT_ROUTES:
        raise ValueError(f"float_route must be one of {FLOAT_ROUTES}, got {fr!r}")
    o["float_route"] = fr
    o["float_range"] = check_real("float_range", opts.get("float_range", FLOAT_RANGE), low=0.0, low_inclusive=False,
                                  high=1000.0)
    o["float_gap_levels"] = check_real("float_gap_levels", opts.get("float_gap_levels", FLOAT_GAP_LEVELS), low=0.0,
                                       high=1e9)
    return o


def hungarian_gpu(C: Any, **options: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """Solve a square assignment problem on the GPU with the Hungarian algorithm of Lopes et al. (2019).

    ``C``: square C-contiguous NumPy / CuPy / numba device matrix, dtype int32/int64/float32/float64,
    finite and >= 0 (validated by the caller). Returns ``(col4row, u, v, stats)`` on the host;
    ``C[i, j] - u[i] - v[j] >= 0`` everywhere and ``== 0`` on the assigned pairs (exact for integers).

    Options: ``block_size`` (power of two in [1, 1024], default 256; small values make small inputs span
    many blocks), ``grid_size`` (blocks; default: the cooperative maximum with ``loop="persistent"``),
    ``loop`` ("persistent": one cooperative kernel, "host": one launch per step with flag read-backs,
    "auto"), ``max_rounds`` (safety bound on step-4 rounds), ``certify`` (run the certificate kernel,
    default True), ``slack_dtype`` (override). Stats: ``iterations``, ``augmentations``,
    ``dual_updates``, ``seconds_h2d``, ``seconds_solve``, ``seconds_certify``, ``seconds_d2h``.
    """
    o = validate_hungarian_options(**options)
    with quiet():
        run = _HungarianRun(C, o)
        if run.n == 0:
            return run.empty()
        run.start()
        run.solve()
        if o["certify"]:
            run.certify()
        return run.finish()


def hungarian_gpu_float(C: np.ndarray, big_m: float | None = None, device_C: Any = None, **options: Any
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """Float costs on the GPU by an integer pre-solve and an exact repair (``float_route="repair"``).

    ``C``: square C-contiguous float64 host matrix, finite (the float preparation's; any sign); ``big_m``: the
    value the preparation gave forbidden pairs (they become ``4 cap`` in the integer matrix, the allowed
    entries set the scale). Stages:

    * ``h2d``: ``C`` uploaded once (not when ``device_C``, the same values already on the device as a flat
      C-ordered array, is given: the caller's device matrix); its minimum and maximum reduced on the device;
    * ``scale``: ``Ci = min(floor((C - min C) * s), cap)`` as int32 on the device, ``s = float_range * n /
      (max C - min C)`` (default 10n: Ci lies within 1 of ``(C - min C) * s`` entrywise up to rounding, so Ci's
      optimal duals are nearly optimal for ``C``; the scaling is only a warm start, never trusted);
    * ``solve`` + ``certify``: the integer Lopes Hungarian on Ci, its exact certificate checked on the device;
      when every entry it assigned rounded to at most ``FOCUS_BELOW`` (heavy-tailed costs), once more on a
      range focused on them (``FOCUS_MARGIN``; larger entries clamped; ``stats["float_passes"]`` = 2);
    * ``tight``: column prices ``v = v_int / s``; a kernel marks each row whose assigned column attains
      ``min_j C[i, j] - v[j]`` in float64 (the arithmetic of the CPU JV); the other rows are freed;
    * ``repair``: on the host, Jonker-Volgenant's augmenting row reduction and shortest augmenting paths
      (``_cpu_jv``) from those prices and the kept pairs, on the float costs themselves: the answer is JV's
      float optimum, warm-started. Returns ``(col4row, u, v, stats)`` in float64; nothing here is trusted:
      the caller proves it with the sound float certificate (``_verify``) on the user's costs.
    """
    from numba import cuda  # noqa: PLC0415

    from ._cpu_jv import _arr_kernel, augment_kernel  # noqa: PLC0415
    from ._gpu_munkres_kernels import row_gap_kernel, scale_floor_kernel, tight_rows_kernel  # noqa: PLC0415

    o = validate_hungarian_options(**options)
    C = np.ascontiguousarray(C, dtype=np.float64)
    n = int(C.shape[0])
    if n == 0:
        e = np.zeros(0, dtype=np.int64)
        return e, np.zeros(0), np.zeros(0), {"float_route": "repair", "augmentations": 0}
    t0 = time.perf_counter()
    with quiet():
        frun = _HungarianRun(C, o)
        frun.dflat = cuda.to_device(C.reshape(n * n)) if device_C is None else device_C
        lo, hi = (float(t) for t in frun._minmax())
        if big_m is not None:  # rare (forbidden pairs): the allowed maximum on the host
            allowed = C[C < big_m]
            hi = float(allowed.max()) if allowed.size else lo
        cap = max(1, int(math.ceil(o["float_range"] * n)))
        gap = math.nan
        if o["float_gap_levels"] > 0 and hi > lo:  # the rows' resolution caps the scale (FLOAT_GAP_LEVELS)
            dgap = cuda.device_array(n, dtype=np.float64)
            row_gap_kernel[min(n, 1024), 256](frun.dflat, np.int64(n), dgap)
            gaps = dgap.copy_to_host()
            gaps = gaps[np.isfinite(gaps) & (gaps > 0)]
            gap = float(np.median(gaps)) if gaps.size else math.nan
            if gap > 0 and o["float_gap_levels"] / gap < cap / (hi - lo):
                hi = lo + cap * gap / o["float_gap_levels"]  # a coarser scale, nothing clamped
        t1 = time.perf_counter()
        dI = cuda.device_array(n * n, dtype=np.int32)
        passes, t_scale, t_int = 0, 0.0, 0.0
        g = min(4096, max(1, (n * n + 255) // 256))  # the scaling kernel's grid (grid-stride loop)
        while True:  # one integer pass, a second focused one when the first used a sliver of the range
            passes += 1
            s, ta = (cap / (hi - lo) if hi > lo else 0.0), time.perf_counter()
            scale_floor_kernel[g, 256](frun.dflat, np.int64(n * n), np.float64(lo), np.float64(s),
                                       np.float64(cap if big_m is None else 4 * cap), dI)
            cuda.synchronize()
            tb = time.perf_counter()
            run = _HungarianRun(dI.reshape(n, n), {**o, "slack_dtype": None})
            run.start()
            run.solve()
            run.certify()  # exact on Ci: raises HungarianGPUError on a bug, never returns a wrong integer answer
            x = run.b.star_col.copy_to_host().astype(np.int64)
            t_scale, t_int = t_scale + tb - ta, t_int + time.perf_counter() - tb
            top = float(C[np.arange(n), x].max())
            if passes > 1 or s == 0.0 or (top - lo) * s > FOCUS_BELOW or top <= lo:
                break
            hi = lo + FOCUS_MARGIN * (top - lo)  # the focused pass: entries above hi are clamped
        t3 = time.perf_counter()
        v_int = run.b.v.copy_to_host()
        v = v_int / s + lo if s > 0 else np.zeros(n)  # prices of C (the shift lo goes to the column side)
        dtight = run.b.prime  # free after the solve and the certificate: the tight flags
        tight_rows_kernel[min(n, 1024), 256](frun.dflat, cuda.to_device(v), run.b.star_col, np.int64(n), dtight)
        tight = dtight.copy_to_host() != 0
        t4 = time.perf_counter()
    free = np.flatnonzero(~tight).astype(np.int64)
    nfree = int(free.size)
    x[free] = -1
    y = np.full(n, -1, dtype=np.int64)
    kept = np.flatnonzero(tight)
    y[x[kept]] = kept
    free = np.concatenate([free, np.empty(n - nfree, dtype=np.int64)])
    nf = nfree
    for _ in range(2):  # JV's two augmenting row reduction passes (each bounded)
        if nf == 0 or n < 2:
            break
        nf = _arr_kernel(C, x, y, v, free, nf, 8 * n + 64)
    after_arr = int(nf)
    st = np.zeros(3, dtype=np.int64)
    if augment_kernel(C, x, y, v, free, nf, st) != 0:
        raise HungarianGPUError("the float repair found no augmenting path (internal error)")
    u = C[np.arange(n), x] - v[x]
    t5 = time.perf_counter()
    stats = dict(run.stats)
    stats.update(float_route="repair", float_range=o["float_range"], float_scale=s, float_passes=passes, float_gap=gap,
                 int_augmentations=stats.get("augmentations"), free_after_int=nfree, free_after_arr=after_arr,
                 augmentations=int(st[0]), repair_scanned_columns=int(st[1]), repair_dual_updates=int(st[2]),
                 seconds_h2d=t1 - t0, seconds_scale=t_scale, seconds_int=t_int, seconds_tight=t4 - t3,
                 seconds_repair=t5 - t4)
    for k in ("certified", "certificate_min_reduced_cost", "certificate_max_assigned_reduced_cost"):
        stats.pop(k, None)  # the integer pre-solve's certificate: the float answer is proved by the caller
    stats["_device_C"] = frun.dflat  # C on the device, for the caller's certificate (popped by the method table)
    return x, u, v, stats


class _HungarianRun:
    """One solve: ``start`` -> ``solve`` -> ``certify`` -> ``finish``; device buffers bundled in ``b``."""

    def __init__(self, C: Any, o: dict[str, Any]) -> None:
        self.o = o
        self.t0 = time.perf_counter()
        self.on_device = (not isinstance(C, np.ndarray)) and is_device_array(C)
        if self.on_device:
            self.dC = c_contiguous_device(C)  # the caller's memory (one device copy only if strided)
            shape, dtype = tuple(self.dC.shape), np.dtype(self.dC.dtype)
        else:
            C = np.ascontiguousarray(C)
            shape, dtype = C.shape, C.dtype
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"C must be a square matrix, got shape {shape}")
        if dtype not in (np.int32, np.int64, np.float32, np.float64):
            raise TypeError(f"C must have dtype int32, int64, float32 or float64, got {dtype}")
        self.C, self.dtype, self.n = C, dtype, int(shape[0])
        self.stats: dict[str, Any] = {}

    def empty(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        e = np.zeros(0, dtype=np.int64)
        z = np.zeros(0, dtype=np.float64 if self.dtype.kind == "f" else np.int64)
        return e, z, z.copy(), {"iterations": 0, "augmentations": 0, "dual_updates": 0, "seconds_h2d": 0.0,
                                "seconds_solve": 0.0, "loop": "none"}

    def start(self) -> None:
        """The flat matrix on the device, the slack and index dtypes, the kernels and the buffers."""
        from numba import cuda  # noqa: PLC0415

        from ._gpu_munkres_kernels import NFLAGS, S_N, kernels  # noqa: PLC0415

        n, dtype, o = self.n, self.dtype, self.o
        if self.on_device:
            self.dflat = self.dC.reshape(n * n)
        else:
            self.dflat = cuda.to_device(self.C.reshape(n * n))  # the caller's dtype: int32 stays int32
        self.minc, self.maxc = self._minmax()  # on the device: no host pass over C
        maxc = self.maxc
        if self.minc < 0:
            raise ValueError(f"C must hold entries >= 0, got minimum {self.minc}")
        sdt = o["slack_dtype"]
        if sdt is None:
            sdt = choose_slack_dtype(dtype, n, maxc)
        elif sdt not in (np.int32, np.int64, np.float64) or (sdt.kind == "f") != (dtype.kind == "f"):
            raise ValueError(f"slack_dtype must be int32/int64 for integer C and float64 for float C, got {sdt}")
        self.sdt = sdt
        idt = np.dtype(np.int32) if n * n < 2**31 - 1 else np.dtype(np.int64)
        self.ddt = np.dtype(np.float64) if dtype.kind == "f" else np.dtype(np.int64)
        self.K = kernels(sdt.name, idt.name)
        i32 = [cuda.device_array(n, dtype=np.int32) for _ in range(6)]
        self.b = SimpleNamespace(
            slack=cuda.device_array(n * n, dtype=sdt), zeros=cuda.device_array(n * n, dtype=idt),
            nz=cuda.to_device(np.zeros(1, dtype=idt)), rowmin=cuda.device_array(n, dtype=sdt),
            colmin=cuda.device_array(n, dtype=sdt), u=cuda.device_array(n, dtype=self.ddt),
            v=cuda.device_array(n, dtype=self.ddt), cov_row=i32[0], cov_col=i32[1], star_col=i32[2],
            star_row=i32[3], prime=i32[4], green=i32[5], flags=cuda.to_device(np.zeros(NFLAGS, dtype=np.int32)),
            gmin=cuda.device_array(3, dtype=sdt), stats=cuda.to_device(np.zeros(S_N, dtype=np.int64)))
        self.max_rounds = o["max_rounds"] if o["max_rounds"] is not None else 8 * n * n + 1000
        cuda.synchronize()
        self.stats["seconds_h2d"] = 0.0 if self.on_device else time.perf_counter() - self.t0

    def _minmax(self) -> tuple[Any, Any]:
        """Min and max of C, reduced on the device (exact int64 for integers, float64 for floats)."""
        from numba import cuda  # noqa: PLC0415

        from ._gpu_munkres_kernels import minmax_kernel  # noqa: PLC0415

        if self.dtype.kind == "f":
            init = np.array([np.inf, -np.inf])
        else:
            init = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min], dtype=np.int64)
        out = cuda.to_device(init)
        size = self.n * self.n
        minmax_kernel[min(1024, max(1, (size + 255) // 256)), 256](self.dflat, np.int64(size), out)
        lo, hi = out.copy_to_host().tolist()
        return lo, hi

    def solve(self) -> None:
        """Steps 1-6: the persistent kernel (one cooperative launch) or the host loop."""
        from numba import cuda  # noqa: PLC0415

        from ._gpu_munkres_kernels import S_AUG, S_DUAL, S_ROUNDS, S_STATUS, STATUS_OK, STATUS_ROUND_LIMIT  # noqa: PLC0415

        t1 = time.perf_counter()
        n, o, b = self.n, self.o, self.b
        bs, gs, loop = o["block_size"], o["grid_size"], o["loop"]
        if loop == "auto":
            loop = "host" if (is_simulator() and (gs or 2) > 1) else "persistent"
        if loop == "persistent":
            args = (self.dflat, b.slack, b.zeros, b.nz, b.rowmin, b.colmin, b.u, b.v, b.cov_row, b.cov_col,
                    b.star_col, b.star_row, b.prime, b.green, b.flags, b.gmin, b.stats, np.int64(n),
                    np.int64(self.max_rounds))
            kern = self.K.persistent_kernel
            if gs is None:
                if is_simulator():
                    gs = 1
                else:
                    from .._cuda._launch import cooperative_kernel, grid  # noqa: PLC0415

                    kern, gmax = cooperative_kernel(kern, args, bs)
                    gs = min(max(1, gmax), grid(n * n, bs))
            kern[gs, bs](*args)
            cuda.synchronize()
            st = b.stats.copy_to_host()
            status = int(st[S_STATUS])
            rounds, aug, dual = int(st[S_ROUNDS]), int(st[S_AUG]), int(st[S_DUAL])
        else:
            if gs is None:
                gs = min(4, n) if is_simulator() else 4 * int(getattr(cuda.get_current_device(),
                                                                       "MULTIPROCESSOR_COUNT", 132))
            rounds, aug, dual, status = _host_loop(self.K, gs, bs, n, self.dflat, b, self.max_rounds)
        self.stats.update(iterations=rounds, augmentations=aug, dual_updates=dual, loop=loop, grid_size=int(gs),
                          block_size=bs, slack_dtype=self.sdt.name, seconds_solve=time.perf_counter() - t1)
        if status != STATUS_OK:
            raise HungarianGPUError(f"GPU Hungarian kernels stopped with status {status} "
                                    f"({'round limit' if status == STATUS_ROUND_LIMIT else 'broken alternating path'}"
                                    f") after {rounds} rounds; this is a bug, please report it with the input")

    def certify(self) -> None:
        """The certificate kernel: min of ``C - u - v`` over all pairs and max ``|.|`` on assigned pairs."""
        from numba import cuda  # noqa: PLC0415

        from ._gpu_munkres_kernels import (  # noqa: PLC0415
            certificate_float_kernel,
            certificate_int_kernel,
            permutation_kernel,
        )

        t = time.perf_counter()
        n, b, is_f = self.n, self.b, self.ddt.kind == "f"
        kc = certificate_float_kernel if is_f else certificate_int_kernel
        init = np.array([np.inf, 0.0]) if is_f else np.array([np.iinfo(np.int64).max, 0], dtype=np.int64)
        dout = cuda.to_device(init)
        sim = is_simulator()
        kc[1 if sim else min(n, 1024), min(self.o["block_size"], 1024) if sim else 256](
            self.dflat, b.u, b.v, b.star_col, np.int64(n), dout)
        seen = b.prime  # free after the solve: reused as the permutation check's counters
        seen.copy_to_device(np.zeros(n, np.int32))
        bad = cuda.to_device(np.zeros(1, np.int32))
        permutation_kernel[max(1, (n + 255) // 256), 256](b.star_col, seen, bad)
        out = dout.copy_to_host()
        perm_ok = int(bad.copy_to_host()[0]) == 0
        self.stats["certificate_min_reduced_cost"] = out[0].item()
        self.stats["certificate_max_assigned_reduced_cost"] = out[1].item()
        self.stats["seconds_certify"] = time.perf_counter() - t
        if not is_f:
            self.stats["certified"] = "device"  # exact: the caller need not re-check C - u - v on the host
        if not perm_ok or (not is_f and (out[0] < 0 or out[1] != 0)):
            raise HungarianGPUError(
                f"GPU Hungarian certificate failed (permutation={perm_ok}, min reduced cost {out[0]}, "
                f"max reduced cost on assigned pairs {out[1]}); this is a bug (or an overflow with "
                f"slack_dtype={self.sdt.name}), please report it")

    def finish(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Copy the assignment and the duals back (D2H)."""
        t = time.perf_counter()
        col4row = self.b.star_col.copy_to_host().astype(np.int64)
        u, v = self.b.u.copy_to_host(), self.b.v.copy_to_host()
        self.stats["seconds_d2h"] = time.perf_counter() - t
        return col4row, u, v, self.stats


    def finish_device(self) -> tuple[Any, Any, Any, Any, int]:
        """Results left on the device: ``row_ind`` (0..n-1), ``col_ind`` (int64), ``u``, ``v`` and the total
        cost of the assignment (summed on the device, exact for integers)."""
        from numba import cuda  # noqa: PLC0415

        from ._gpu_munkres_kernels import arange_cast_kernel, assigned_total_kernel  # noqa: PLC0415

        t = time.perf_counter()
        n, b, g = self.n, self.b, max(1, (self.n + 255) // 256)
        row_ind = cuda.device_array(n, dtype=np.int64)
        col_ind = cuda.device_array(n, dtype=np.int64)
        arange_cast_kernel[g, 256](b.star_col, row_ind, col_ind)
        tot = cuda.to_device(np.zeros(1, np.int64))
        assigned_total_kernel[g, 256](self.dflat, b.star_col, np.int64(n), tot)
        total = int(tot.copy_to_host()[0])
        self.stats["seconds_d2h"] = time.perf_counter() - t
        return row_ind, col_ind, b.u, b.v, total


def assignment_direct(cost: Any, options: dict[str, Any], t0: float) -> Any:
    """``assignment(cost, backend="gpu")`` of a square integer matrix, host or device, minimising, without
    the host preparation: the matrix is uploaded in its own dtype (int32 stays int32; a device matrix is
    used in place), its range and sign are reduced on the device, the certificate (``C - u - v >= 0``,
    tight on the pairs, a permutation) is checked on the device, and only the answer comes back (a device
    input gets its answer on the device, in its own library). Returns None when the matrix does not
    qualify (float, not square, a negative entry): the caller takes the general path."""
    from .._results import AssignmentResult  # noqa: PLC0415
    from ._prepare import INT_SAFE  # noqa: PLC0415

    dev = (not isinstance(cost, np.ndarray)) and is_device_array(cost)
    shape = tuple(int(s) for s in cost.shape)
    dtype = np.dtype(str(cost.dtype).replace("torch.", ""))
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] == 0 or dtype not in (np.int32, np.int64):
        return None
    o = validate_hungarian_options(**options)
    with quiet():
        C = cost
        lib = "numba"
        if dev:
            lib = device_library(cost)
            C = cost.detach() if lib == "torch" else cost
        elif not cost.flags.c_contiguous:
            return None
        run = _HungarianRun(C, o)
        try:
            run.start()
        except ValueError:
            if run.__dict__.get("minc", 0) < 0:
                return None  # a negative entry: the general path shifts it
            raise
        if run.maxc * 8 * (run.n + 2) > INT_SAFE:  # the general path's overflow-free bound (gcd, big integers)
            return None
        run.solve()
        run.certify()
        row_ind, col_ind, u, v, total = run.finish_device()
        stats = dict(run.stats, n=run.n, direct=True)
        if dev:
            out = [hand_back(a, lib) for a in (row_ind, col_ind, u, v)]
        else:
            t = time.perf_counter()
            out = [a.copy_to_host() for a in (row_ind, col_ind, u, v)]
            stats["seconds_d2h"] += time.perf_counter() - t
    return AssignmentResult(row_ind=out[0], col_ind=out[1], cost=total, u=out[2], v=out[3], method="hungarian",
                            backend="gpu", seconds=time.perf_counter() - t0, maximize=False, stats=stats)


def _host_loop(K: Any, grid: int, block: int, n: int, dflat: Any, b: Any, max_rounds: int
               ) -> tuple[int, int, int, int]:
    """Same step sequence as the persistent kernel, one launch per step, flags read back by the host."""
    from numba import cuda  # noqa: PLC0415

    from ._gpu_munkres_kernels import ERR, FOUND, GOTO5, STARS, STATUS_OK, STATUS_ROUND_LIMIT  # noqa: PLC0415

    nn, i64 = np.int64(n), np.int64
    flags, nz, gmin = b.flags, b.nz, b.gmin

    def reset(i_flag: int, v_flag: int, i_gmin: int) -> None:
        K.reset_kernel[1, 1](flags, nz, gmin, i64(i_flag), i64(v_flag), i64(i_gmin))

    K.init_kernel[grid, block](b.colmin, b.cov_row, b.cov_col, b.star_col, b.star_row, b.prime, b.green, nz, flags,
                               gmin, nn)
    K.rowmin_kernel[grid, block](dflat, b.rowmin, nn)
    K.colmin_kernel[grid, block](dflat, b.rowmin, b.colmin, nn)
    K.slack_kernel[grid, block](dflat, b.rowmin, b.colmin, b.slack, b.u, b.v, b.zeros, nz, nn)
    K.step2_kernel[grid, block](b.zeros, nz, nn, b.cov_row, b.cov_col, b.star_col, b.star_row)
    rounds = dual = outer = aug = 0
    status = STATUS_OK
    while True:
        K.step3_kernel[grid, block](b.cov_row, b.cov_col, b.star_row, b.prime, b.green, flags, i64(outer % 3), nn)
        reset(STARS + (outer + 1) % 3, 0, -1)
        stars = int(flags.copy_to_host()[STARS + outer % 3])
        outer += 1
        if stars >= n:
            break
        while True:
            K.step4_kernel[grid, block](b.zeros, nz, nn, b.cov_row, b.cov_col, b.star_col, b.prime, flags,
                                        i64(rounds % 3))
            reset(FOUND + (rounds + 1) % 3, 0, -1)
            reset(GOTO5 + (rounds + 1) % 3, 0, -1)
            fl = flags.copy_to_host()
            found, go5 = int(fl[FOUND + rounds % 3]), int(fl[GOTO5 + rounds % 3])
            rounds += 1
            if go5:
                break
            if rounds > max_rounds:
                status = STATUS_ROUND_LIMIT
                break
            if found:
                continue
            reset(-1, 0, (dual + 1) % 3)
            K.step6_min_kernel[grid, block](b.slack, b.cov_row, b.cov_col, gmin, i64(dual % 3), nn)
            K.step6_update_kernel[grid, block](b.slack, b.cov_row, b.cov_col, b.u, b.v, gmin, i64(dual % 3),
                                               b.zeros, nz, nn)
            dual += 1
        if status:
            break
        K.step5a_kernel[grid, block](nn, b.star_col, b.star_row, b.prime, b.green, flags)
        K.step5b_kernel[grid, block](nn, b.star_col, b.star_row, b.green, flags)
        aug += 1
        err = int(flags.copy_to_host()[ERR])
        if err:
            status = err
            break
    cuda.synchronize()
    return rounds, aug, dual, status


def solve_hungarian_gpu(prep: Any, **options: Any) -> tuple:
    """The dense table's GPU Hungarian row (Lopes et al.) on the prepared square problem ``prep``
    (:class:`._prepare.Prepared`): integers as int32 where they cannot overflow, floats by the float route
    (:func:`hungarian_gpu_float`) or shifted to >= 0 for the float64-slack kernel; :func:`hungarian_gpu` validates
    the options. ``(col4row, u, v, stats)``."""

    C = prep.C
    if not prep.is_int and validate_hungarian_options(**options)["float_route"] == "repair":
        # floats: integer pre-solve on the GPU + exact JV repair on the float costs (the caller certifies: on the
        # device copy of C when C is the caller's minimisation matrix itself)
        x, u, v, st = hungarian_gpu_float(C, big_m=prep.big_m, device_C=prep.device_C, **options)
        dC = st.pop("_device_C", None)
        if dC is not None and prep.scale == 1.0 and prep.big_m is None and prep.n_rows == prep.n_cols:
            from ._gpu_verify import device_rows  # noqa: PLC0415 - loads numba.cuda on use only; C + shift is the caller's sign * a (the shift is exact)

            prep.device_rows = device_rows(dC, prep.n, float(prep.shift))
        return x, u, v, st
    if prep.is_int and C.size and int(C.max()) * 8 * (prep.n + 2) <= 2**30:
        C = C.astype(np.int32)  # int32 cannot overflow on this matrix (same rule as int64)
    elif not prep.is_int and C.size and (cmin := float(C.min())) < 0:
        C = C - cmin  # the float64-slack kernel needs C >= 0 (rounds: the caller's certificate re-checks)
    col4row, u, v, stats = hungarian_gpu(np.ascontiguousarray(C), **options)
    dt = np.int64 if prep.is_int else np.float64
    return np.asarray(col4row, dtype=np.int64), np.asarray(u).astype(dt), np.asarray(v).astype(dt), dict(stats)
