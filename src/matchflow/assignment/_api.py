"""Public dense linear assignment API.

* :func:`linear_sum_assignment` — drop-in for ``scipy.optimize.linear_sum_assignment``;
* :func:`assignment` — the full solver with method/backend choice, duals and statistics;
* :func:`read_cost_matrix` — dense ``.npy``, ``.csv``/``.txt``, Matrix Market (CLI hook).

All methods solve the same prepared square problem (:mod:`._prepare`), so CPU and GPU
see identical inputs; every integer solution is certified with exact duals before it is
returned.
"""

from __future__ import annotations

import math
import os
import time
import warnings
from pathlib import Path

import numpy as np

from .._backend import gpu_reason, resolve_backend
from .._results import AssignmentResult
from .._validation import check_bool, check_choice, check_int, check_options, check_real
from ._prepare import InfeasibleError, Prepared, as_cost_matrix, prepare  # noqa: F401
from ._verify import centre_duals, certify, exact_difference, square_certificate, total_cost

__all__ = ["assignment", "linear_sum_assignment", "read_cost_matrix", "METHODS"]

METHODS = ("auto", "jv", "hungarian", "auction", "munkres", "lopes")
CPU_METHODS = ("jv", "hungarian", "auction", "munkres")
_CPU_OPTIONS = {"jv": ("arr_passes",), "hungarian": (), "auction": ("theta", "eps_final"), "munkres": ()}

# auto on a GPU (measured on an H200, docs/notes/hungarian_gpu.md and results/assignment/table1_h200.md):
# end to end (H2D copy included) the GPU Hungarian beats the best CPU JV from n = 1024 at every measured
# range up to 10n (closest: n=1024, range 10n, 14.6 ms vs 18.7 ms) and loses at n = 512. The Hungarian
# family slows ~5x from range n to 10n while JV slows ~1.3x, so larger ranges and float costs (many
# distinct values, unmeasured) stay on the CPU JV.
GPU_MIN_N = 1024
# float answers not proved *exactly* optimal (gap bound >= the entries' granularity) are re-solved
# exactly in rational arithmetic up to this size (O(n^3) Python steps); larger ones keep the float
# answer when its certificate holds within the rounding tolerance (stats["exact"] says which)
EXACT_FLOAT_N = 16
GPU_MAX_RANGE_PER_N = 10.0


def _choose_method(shape: tuple[int, int], cost_range: float, dtype: np.dtype, backend: str) -> str:
    """The method ``method='auto'`` runs. ``backend`` is the resolved backend ("cpu"/"gpu").

    CPU: Jonker-Volgenant. GPU: the Lopes et al. Hungarian for integer costs with
    max(shape) >= 1024 and cost range <= 10 * max(shape); CPU JV otherwise (measured rule).
    """
    n = max(shape) if len(shape) else 0
    if (backend == "gpu" and np.dtype(dtype).kind in "iub" and n >= GPU_MIN_N
            and cost_range <= GPU_MAX_RANGE_PER_N * n):
        return "lopes"
    return "jv"


def _is_simulator() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "") not in ("", "0") or "simulator" in gpu_reason()


def _resolve(method: str, backend: str, a: np.ndarray) -> tuple[str, str]:
    check_choice("method", method, METHODS)
    if method == "lopes":
        if backend == "cpu":
            raise ValueError("method='lopes' runs on the GPU only; got backend='cpu' (use method='jv' on the CPU)")
        return "lopes", resolve_backend(backend, gpu_supported=True, what="method='lopes'")
    if method in CPU_METHODS:
        return method, resolve_backend(backend, gpu_supported=False, what=f"method={method!r}")
    be = resolve_backend(backend, gpu_supported=True, what="assignment")
    if backend == "gpu":
        return "lopes", "gpu"
    if be == "gpu" and _is_simulator():
        be = "cpu"  # auto never picks the (very slow) CUDA simulator
    fin = a[np.isfinite(a)] if a.dtype.kind == "f" else a
    rng = float(fin.max()) - float(fin.min()) if fin.size else 0.0
    m = _choose_method(a.shape, rng, a.dtype, be)
    return m, ("gpu" if m == "lopes" else "cpu")


def _check_method_options(method: str, options: dict) -> dict:
    if method == "lopes":
        return options  # validated by the GPU module
    check_options(f"assignment(method={method!r})", options, _CPU_OPTIONS[method])
    out = dict(options)
    if "arr_passes" in out:
        out["arr_passes"] = check_int("arr_passes", out["arr_passes"], low=0, high=16)
    if "theta" in out:
        out["theta"] = check_real("theta", out["theta"], low=1.0, low_inclusive=False)
    if "eps_final" in out:
        out["eps_final"] = check_real("eps_final", out["eps_final"], low=0.0, low_inclusive=False)
    return out


def _solve_cpu(method: str, C: np.ndarray, options: dict):
    if method == "jv":
        from ._cpu_jv import jv_solve

        return jv_solve(C, **options)
    if method == "hungarian":
        from ._cpu_hungarian import hungarian_solve

        return hungarian_solve(C)
    if method == "auction":
        from ._cpu_auction import auction_solve

        return auction_solve(C, **options)
    from ._cpu_munkres import munkres_solve

    return munkres_solve(C)


def _solve_gpu(prep: Prepared, options: dict):
    from ._gpu_hungarian import hungarian_gpu

    C = prep.C
    if prep.is_int and C.size and int(C.max()) * 8 * (prep.n + 2) <= 2**30:
        C = C.astype(np.int32)  # int32 cannot overflow on this matrix (same rule as int64)
    col4row, u, v, stats = hungarian_gpu(np.ascontiguousarray(C), **options)
    dt = np.int64 if prep.is_int else np.float64
    return (np.asarray(col4row, dtype=np.int64), np.asarray(u).astype(dt), np.asarray(v).astype(dt), dict(stats))


def assignment(
    cost,
    *,
    maximize: bool = False,
    method: str = "auto",
    backend: str = "auto",
    cost_limit: float | None = None,
    extend_cost: bool | None = None,
    **options,
) -> AssignmentResult:
    """Optimal linear assignment of a dense (rectangular) cost matrix, with dual potentials.

    Parameters
    ----------
    cost : array_like (n_rows, n_cols), bool / integer / float (any byte order)
        ``+inf`` marks a forbidden pair (``-inf`` when ``maximize``), like SciPy.
    maximize : bool
        Maximise the total instead of minimising it.
    method : {"auto", "jv", "hungarian", "auction", "munkres", "lopes"}
        ``jv``: Jonker-Volgenant; ``hungarian``: O(n^3) Kuhn-Munkres with potentials;
        ``auction``: Bertsekas with eps-scaling and an exact JV cleanup; ``munkres``: the
        O(n^4) six-step reference of Lopes et al. (small n only); ``lopes``: GPU
        Hungarian of Lopes et al.; ``auto``: :func:`_choose_method` (JV on the CPU; never
        the auction).
    backend : {"auto", "cpu", "gpu"}
    cost_limit : float, optional
        lap/lapx semantics: a pair costing more than ``cost_limit`` is never worth it;
        leaving one row and one column unassigned costs ``cost_limit`` (each side
        ``cost_limit / 2``, lap's construction: the ``(n_rows + n_cols)``-square matrix
        ``[[cost, L/2], [L/2, 0]]``, see :func:`._prepare.limit_extended`). Rows and columns
        may stay unassigned; ``stats["limit_certificate"]`` holds the extended problem's
        solution and duals (its ``verify()`` checks them). With ``maximize``: a row stays
        unassigned rather than earn less than ``cost_limit``.
    extend_cost : bool, optional
        lapx's flag. ``None``/``True``: rectangular matrices are solved directly (our
        rectangular support is lapx's ``extend_cost=True``); ``False``: a non-square
        matrix raises ``ValueError`` as in lapx.
    **options
        ``jv``: ``arr_passes`` (int, default 2); ``auction``: ``theta`` (eps divisor,
        default 5), ``eps_final`` (floats only); ``lopes``: passed to the GPU module.

    Returns
    -------
    AssignmentResult
        ``row_ind`` (sorted), ``col_ind``, ``cost`` (total of the user's entries: a Python
        int for integer matrices, exact), and ``u``, ``v``: duals of the minimisation
        problem on ``cost`` (``-cost`` when maximising), on the user's (untransposed,
        unpadded) matrix, so that :func:`matchflow.verify.verify_assignment` checks them
        directly. Rectangular: for ``n_rows <= n_cols`` ``v <= 0`` with ``v == 0`` on
        unassigned columns; for ``n_rows > n_cols`` the same holds for ``u`` on rows.

    Notes
    -----
    Integers are solved exactly in int64 (rule in :mod:`matchflow.assignment._prepare`:
    overflow-free bound, else gcd reduction, else exact big-integer Hungarian; every
    int64 solution is certified with exact duals). Floats are solved in float64 on the
    caller's costs (the preparation never rounds an entry: see :mod:`._prepare`) and the
    answer is certified on the caller's matrix by :func:`matchflow.verify.verify_assignment`'s
    rigorous gap bound (``stats["gap_bound"]``: ``cost - optimum <= gap_bound``); a method
    whose answer is not proved within 64 times the rounding of the entries it uses (large
    duals can widen ``verify_assignment``'s tolerance) is compared with
    JV's, then the Hungarian's (exact comparison of the totals; the cheaper is kept, then the
    better proved: ``stats["resolved_by"]``). A float answer whose certificate fails, or (for
    ``n <= EXACT_FLOAT_N``) is not proved *exactly* optimal (``stats["exact"]``: gap bound
    below the entries' granularity), is re-solved exactly in rational arithmetic
    (:func:`._cpu_hungarian.hungarian_exact_float`, ``stats["resolved_by"]``,
    ``gap_bound = 0``; a warning above n = 300, where it is slow). No float answer is
    returned with a certificate that does not hold.
    """
    t0 = time.perf_counter()
    maximize = check_bool("maximize", maximize)
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    a = as_cost_matrix(cost, maximize)
    if extend_cost is not None:
        extend_cost = check_bool("extend_cost", extend_cost)
        if not extend_cost and a.shape[0] != a.shape[1]:
            raise ValueError(f"Square cost array expected, got shape {a.shape}; pass extend_cost=True "
                             "(or leave it out) to solve a rectangular matrix")
    if cost_limit is not None:
        from ._prepare import limit_extended, limit_result

        lim = check_real("cost_limit", cost_limit)
        ext = limit_extended(a, lim, maximize)
        res = assignment(ext, maximize=maximize, method=method, backend=backend, **options)
        return limit_result(a, ext, res, maximize, lim, t0)
    method, be = _resolve(method, backend, a)
    opts = _check_method_options(method, options)
    prep = exact_prep = prepare(a, maximize)
    if be == "gpu" and not prep.is_int and not prep.stats.get("shift_exact", True):
        prep = prepare(a, maximize, force_shift=True)  # the GPU Hungarian needs C >= 0
    stats: dict = {"n": prep.n}
    used = method
    if prep.bigint is not None:
        from ._cpu_hungarian import hungarian_bigint

        if prep.n > 300:
            warnings.warn(f"integer costs too wide for int64 (n={prep.n}): using the exact but slow "
                          "big-integer Hungarian", RuntimeWarning, stacklevel=2)
        x, u, v, st = hungarian_bigint(prep.bigint)
        used, be = "hungarian-bigint", "cpu"
        stats.update(st)
    else:
        x, u, v, st = _solve_gpu(prep, opts) if be == "gpu" else _solve_cpu(method, prep.C, opts)
        stats.update(st)
        if prep.is_int and not square_certificate(prep.C, x, u, v):
            # only possible through an overflow or a solver bug: redo exactly
            from ._cpu_hungarian import hungarian_bigint

            warnings.warn(f"method={method!r} on {be} returned no valid integer certificate; "
                          "re-solving with the exact big-integer Hungarian", RuntimeWarning, stacklevel=2)
            big = prep.bigint or [[int(t) for t in row] for row in prep.C.tolist()]
            x, u, v, st = hungarian_bigint(big)
            used, be = "hungarian-bigint", "cpu"
            stats.update(st)
    row_ind, col_ind, uu, vv = prep.recover(x, u, v)
    if not prep.is_int:
        cert, uu, vv = _float_certificate(a, maximize, prep, x, u, v)
        for other in ("jv", "hungarian"):
            if cert.optimal and cert.gap_bound <= 64.0 * cert.tol_entries:
                break
            if other == used:
                continue
            # not proved within 64x the rounding of the entries it uses: ask another solver (its
            # duals grow from zero along paths), keep the exactly cheaper answer, then the proved one
            x2, u2, v2, st2 = _solve_cpu(other, exact_prep.C, {})
            r2, c2, _, _ = exact_prep.recover(x2, None, None)
            cert2, uu2, vv2 = _float_certificate(a, maximize, exact_prep, x2, u2, v2)
            d = exact_difference(a, maximize, (r2, c2), (row_ind, col_ind))
            if d < 0 or (d == 0 and cert2.optimal and not cert.optimal):
                stats.update(st2)
                stats["resolved_by"] = f"{other} (after {used})"
                used, be = other, "cpu"
                row_ind, col_ind, uu, vv, cert = r2, c2, uu2, vv2, cert2
        stats["gap_bound"] = cert.gap_bound
        stats["exact"] = bool(cert.exact)
        if not cert.exact and (not cert.optimal or prep.n <= EXACT_FLOAT_N):
            # not proved exactly optimal (small n), or not proved at all: the exact rational solve
            if prep.n > 300:
                warnings.warn(f"method={used!r}: the float certificate failed (gap bound {cert.gap_bound}); "
                              f"re-solving exactly with the slow rational Hungarian (n={prep.n})",
                              RuntimeWarning, stacklevel=2)
            row_ind, col_ind, uu, vv = _exact_float(a, maximize, stats)
            stats["resolved_by"] = f"hungarian-exact (after {used})"  # res.method stays the one asked for
            be = "cpu"
    total = total_cost(a, row_ind, col_ind)
    return AssignmentResult(row_ind=row_ind, col_ind=col_ind, cost=total, u=uu, v=vv, method=used, backend=be,
                            seconds=time.perf_counter() - t0, maximize=maximize, stats=stats)


def _float_certificate(a: np.ndarray, maximize: bool, prep: Prepared, x, u, v):
    """Prove optimality on the caller's costs with the same sound check as
    ``verify_assignment``, after recomputing one side's duals from the other's there.
    When the caller's duals overflow, on ``cost * prep.scale`` instead -- only if that
    power-of-two scaling is exact for every entry (no underflow of a tiny cost), and with
    ``gap_bound``/``tol`` divided back by the scale (caller's units). Returns (cert, u, v)."""
    from ._prepare import polish_duals_kernel

    r, c, uu, vv = prep.recover(x, u, v, scaled=True)
    s = prep.scale
    with np.errstate(all="ignore"):
        af = a.astype(np.float64, copy=False)
        uo, vo = uu / s, vv / s  # exact (powers of two) unless they overflow
        if s != 1.0 and not (np.isfinite(uo).all() and np.isfinite(vo).all()):
            a_s = af * s
            fin = np.isfinite(af)
            if not np.array_equal(a_s[fin] / s, af[fin]):  # a tiny cost underflowed: not the caller's matrix
                cert = certify(a, r, c, None, None, maximize, False)
                cert.optimal, cert.exact, cert.gap_bound = False, False, math.inf
                cert.problems.append("duals overflow on the caller's scale and the scaled matrix loses entries")
                return cert, uo, vo
        else:
            a_s, uu, vv, s = af, uo, vo, 1.0
        am = np.ascontiguousarray(-a_s if maximize else a_s)
        col_of_row = np.full(a.shape[0], -1, dtype=np.int64)
        col_of_row[r] = c
        if np.isfinite(uu).all() and np.isfinite(vv).all():
            uu, vv = centre_duals(uu, vv)
            polish_duals_kernel(am, col_of_row, uu, vv, a.shape[0] <= a.shape[1])
        cert = certify(a_s, r, c, uu, vv, maximize, False)
        if s != 1.0:
            uu, vv = uu / s, vv / s
            cert.cost = total_cost(a, r, c)
            for name in ("gap_bound", "tol", "tol_entries"):
                val = getattr(cert, name)
                if val is not None:
                    setattr(cert, name, _up(val / s))
    return cert, uu, vv


def _up(t: float) -> float:
    return float(np.nextafter(t, np.inf))


def _exact_float(a: np.ndarray, maximize: bool, stats: dict):
    """The exact rational fallback (:func:`._cpu_hungarian.hungarian_exact_float`): the
    caller's pairs, float duals nearest to the exact ones, and ``gap_bound = 0``."""
    from ._cpu_hungarian import hungarian_exact_float

    nr, nc = a.shape
    x, u, v, den, st = hungarian_exact_float(a, maximize)
    p = Prepared(C=np.zeros((0, 0), dtype=np.int64), n_rows=nr, n_cols=nc, is_int=True, maximize=maximize,
                 shift=0, scale=1.0, gcd=1, big_m=None, allowed=None, int64_ok=False)
    r, c, uu, vv = p.recover(x, u, v)
    stats.update(st)
    stats["gap_bound"] = 0.0
    stats["exact"] = True
    return r, c, _to_floats(uu, den), _to_floats(vv, den)


def _to_floats(xs, den: int) -> np.ndarray:
    """Nearest floats of the exact duals ``x / den`` (+-inf where they overflow)."""
    from fractions import Fraction

    out = []
    for t in xs:
        try:
            out.append(float(Fraction(int(t), den)))
        except OverflowError:
            out.append(math.inf if int(t) > 0 else -math.inf)
    return np.array(out, dtype=np.float64)


def linear_sum_assignment(cost_matrix, maximize=False) -> tuple[np.ndarray, np.ndarray]:
    """Drop-in replacement for ``scipy.optimize.linear_sum_assignment``.

    Same arguments (``cost_matrix``, ``maximize``, by position or keyword), same return
    ``(row_ind, col_ind)`` (int64, sorted by row; the smaller side fully assigned), same
    errors ("expected a matrix (2-D array), got a 1 array", "matrix contains invalid
    numeric entries", "cost matrix is infeasible", SciPy's TypeError for non-real dtypes).
    ``maximize`` is read by truthiness like SciPy. Integer costs are solved exactly (SciPy
    rounds them to float64); float ties may be broken differently but the total is optimal.
    Non-native byte orders (``>i8``, ``>f8``, ...) are accepted like SciPy.
    """
    maximize = bool(maximize)
    a = as_cost_matrix(cost_matrix, maximize)
    if a.size == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    res = assignment(a, maximize=maximize)
    return res.row_ind, res.col_ind


def read_cost_matrix(path) -> np.ndarray:
    """Read a dense cost matrix: ``.npy``; ``.csv``/``.txt``/``.tsv``/``.dat`` (comma or
    whitespace separated, ``#`` comments; integers kept as int64); Matrix Market ``.mtx``
    (``.gz`` allowed): *array* format as is, *coordinate* format with missing entries
    forbidden (``+inf``). Errors name the file."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"cost matrix file not found: {p}")
    name = p.name.lower()
    try:
        if name.endswith(".npy"):
            a = np.load(p, allow_pickle=False)
        elif name.endswith((".mtx", ".mtx.gz", ".mm", ".mm.gz")):
            a = _read_mtx(p)
        elif name.endswith((".csv", ".txt", ".tsv", ".dat", ".csv.gz", ".txt.gz")):
            a = _read_text(p)
        else:
            raise ValueError("unknown extension; expected .npy, .csv, .txt, .tsv, .dat or .mtx[.gz]")
    except (OSError, ValueError, TypeError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ValueError(f"cannot read a cost matrix from {p}: {exc}") from exc
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"cannot read a cost matrix from {p}: expected a 2-D matrix, got {a.ndim}-D shape {a.shape}")
    return a


def _read_text(p: Path) -> np.ndarray:
    import gzip

    opener = gzip.open if p.name.lower().endswith(".gz") else open
    with opener(p, "rt") as f:
        lines = [ln for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
    delim = "," if lines and "," in lines[0] else None
    try:
        return np.loadtxt(lines, delimiter=delim, dtype=np.int64, ndmin=2)
    except ValueError:
        return np.loadtxt(lines, delimiter=delim, dtype=np.float64, ndmin=2)


def _read_mtx(p: Path) -> np.ndarray:
    import scipy.io
    import scipy.sparse as sp

    m = scipy.io.mmread(str(p))
    if not sp.issparse(m):
        return np.asarray(m)
    coo = sp.coo_array(m)
    if coo.dtype.kind == "c":
        raise ValueError("complex Matrix Market files are not cost matrices")
    out = np.full(coo.shape, np.inf, dtype=np.float64)
    out[coo.row, coo.col] = coo.data.astype(np.float64)
    return out
