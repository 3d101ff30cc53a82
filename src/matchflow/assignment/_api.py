"""Public dense linear assignment API.

* :func:`linear_sum_assignment` — drop-in for ``scipy.optimize.linear_sum_assignment``;
* :func:`assignment` — the full solver with method/backend choice, duals and statistics;
* :func:`read_cost_matrix` — dense ``.npy``, ``.csv``/``.txt``, Matrix Market (CLI hook).

All methods solve the same prepared square problem (:mod:`._prepare`), so CPU and GPU
see identical inputs; every integer solution is certified with exact duals before it is
returned.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np

from .._methods import Method, check_method_options, place, resolve
from .._results import AssignmentResult
from .._validation import check_bool
from ._methods import TABLE, Problem
from ._prepare import InfeasibleError, Prepared, as_cost_matrix, prepare  # noqa: F401

__all__ = ["assignment", "linear_sum_assignment", "read_cost_matrix", "METHODS"]

# method names the algorithm, backend the device; rows, options and the measured auto rules: ._methods
METHODS = TABLE.names  # ("auto", "jv", "hungarian", "auction", "munkres", "lopes")
CPU_METHODS = TABLE.cpu_names


def _resolve(method: str, backend: str) -> tuple[Method | None, str]:
    """Check ``method`` and ``backend`` once, before the matrix is read (None: ``method="auto"``)."""
    return resolve(TABLE, method, backend)


def _choose_method(row: Method | None, backend: str, a: np.ndarray) -> tuple[Method, str]:
    """The row and device that run on the validated matrix ``a`` (rules in :mod:`._methods`)."""
    return place(TABLE, row, backend, lambda: Problem.of(a))


def _check_method_options(row: Method, backend: str, options: dict) -> dict:
    return check_method_options(TABLE, row, backend, options)


def _solve_cpu(method: str, prep: Prepared, options: dict):
    return TABLE.row(method).cpu(prep, **options)


def _solve_gpu(method: str, prep: Prepared, options: dict):
    return TABLE.row(method).gpu(prep, **options)


def _square_certificate(C: np.ndarray, x: np.ndarray, u: np.ndarray, v: np.ndarray, rtol: float = 1e-9) -> bool:
    """Duals of the prepared square problem: feasible and tight (exact for int64)."""
    from ._verify import min_reduced_cost

    n = C.shape[0]
    if n == 0:
        return True
    if x.shape != (n,) or np.unique(x).size != n or x.min() < 0 or x.max() >= n:
        return False
    if C.dtype.kind == "i":
        lim = 2**61
        if max(abs(int(u.min())), abs(int(u.max())), abs(int(v.min())), abs(int(v.max()))) >= lim:
            return False
        u64, v64 = u.astype(np.int64), v.astype(np.int64)
        if not np.array_equal(C[np.arange(n), x], u64 + v64[x]):
            return False
        return min_reduced_cost(C, 1, u64, v64)[0] >= 0
    tol = rtol * max(float(C.max()), float(np.abs(u).max()), float(np.abs(v).max()))
    if np.abs(C[np.arange(n), x] - u - v[x]).max() > tol:
        return False
    return min_reduced_cost(C, 1, u, v)[0] >= -tol


def _total_cost(a: np.ndarray, r: np.ndarray, c: np.ndarray):
    vals = a[r, c]
    if a.dtype.kind in "biu":
        if vals.size and (abs(int(vals.min())) + abs(int(vals.max()))) * max(1, vals.size) >= 2**63:
            return sum(int(t) for t in vals.tolist())
        return int(vals.astype(np.int64).sum()) if vals.size else 0
    with np.errstate(over="ignore"):
        return float(vals.sum()) if vals.size else 0.0


def assignment(
    cost,
    *,
    maximize: bool = False,
    method: str = "auto",
    backend: str = "auto",
    **options,
) -> AssignmentResult:
    """Optimal linear assignment of a dense (rectangular) cost matrix, with dual potentials.

    Parameters
    ----------
    cost : array_like (n_rows, n_cols), bool / integer / float
        ``+inf`` marks a forbidden pair (``-inf`` when ``maximize``), like SciPy.
    maximize : bool
        Maximise the total instead of minimising it.
    method : {"auto", "jv", "hungarian", "auction", "munkres", "lopes"}
        The algorithm. ``jv``: Jonker-Volgenant (CPU); ``hungarian``: Kuhn-Munkres with
        potentials (CPU: O(n^3); GPU: Lopes et al.); ``auction``: Bertsekas with eps-scaling
        and an exact JV cleanup (CPU); ``munkres``: the O(n^4) six-step reference of Lopes et
        al. (CPU, small n only); ``lopes``: alias of ``hungarian`` on the GPU (not with
        ``backend="cpu"``); ``auto``: JV on the CPU, the GPU Hungarian where it was measured
        faster end to end (integer costs, max(shape) >= 1024, cost range <= 10 max(shape)).
    backend : {"auto", "cpu", "gpu"}
        The device. ``auto`` uses a (real, not simulated) GPU only where it was measured faster
        end to end: for ``method="auto"`` and ``method="hungarian"`` by the rule above; the
        CPU-only methods run on the CPU.
    **options
        ``jv``: ``arr_passes`` (int, default 2); ``auction``: ``theta`` (eps divisor,
        default 5), ``eps_final`` (floats only); on the GPU: passed to the GPU Hungarian
        (give ``backend="gpu"`` with GPU options: ``auto`` may place the method on the CPU,
        which rejects them).

    Returns
    -------
    AssignmentResult
        ``method`` (the algorithm's name, also for ``"lopes"``: ``"hungarian"``; or
        ``"hungarian-bigint"`` for the exact fallback), ``backend`` (the device that ran),
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
    int64 solution is certified with exact duals). Floats are solved in float64; the
    kernels compare exactly, and certificates use the relative tolerance
    ``1e-9 * max(|cost|, |u|, |v|)``. Unlike SciPy (which converts to float64), integer
    costs above 2**53 are therefore handled exactly.
    """
    t0 = time.perf_counter()
    maximize = check_bool("maximize", maximize)
    row, be = _resolve(method, backend)
    a = as_cost_matrix(cost, maximize)
    row, be = _choose_method(row, be, a)
    method = row.name
    opts = _check_method_options(row, be, options)
    prep = prepare(a, maximize)
    stats: dict = {"n": prep.n}
    x = u = v = None
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
        if be == "gpu":
            x, u, v, st = _solve_gpu(method, prep, opts)
        else:
            x, u, v, st = _solve_cpu(method, prep, opts)
        stats.update(st)
        ok = _square_certificate(prep.C, x, u, v)
        if not ok:
            if prep.is_int:
                # only possible through an overflow or a solver bug: redo exactly
                from ._cpu_hungarian import hungarian_bigint

                warnings.warn(f"method={method!r} on {be} returned no valid integer certificate; "
                              "re-solving with the exact big-integer Hungarian", RuntimeWarning, stacklevel=2)
                big = prep.bigint or [[int(t) for t in row] for row in prep.C.tolist()]
                x, u, v, st = hungarian_bigint(big)
                used, be = "hungarian-bigint", "cpu"
                stats.update(st)
            else:
                warnings.warn(f"method={method!r} on {be}: float duals fail the 1e-9 relative tolerance",
                              RuntimeWarning, stacklevel=2)
                stats["certificate_warning"] = True
    row_ind, col_ind, uu, vv = prep.recover(x, u, v)
    total = _total_cost(a, row_ind, col_ind)
    return AssignmentResult(row_ind=row_ind, col_ind=col_ind, cost=total, u=uu, v=vv, method=used, backend=be,
                            seconds=time.perf_counter() - t0, maximize=maximize, stats=stats)


def linear_sum_assignment(cost, maximize=False) -> tuple[np.ndarray, np.ndarray]:
    """Drop-in replacement for ``scipy.optimize.linear_sum_assignment``.

    Same arguments, same return ``(row_ind, col_ind)`` (int64, sorted by row; the smaller
    side fully assigned), same errors ("expected a matrix (2-D array), got a 1 array",
    "matrix contains invalid numeric entries", "cost matrix is infeasible", SciPy's
    TypeError for non-real dtypes). ``maximize`` is read by truthiness like SciPy.
    Integer costs are solved exactly (SciPy rounds them to float64); float ties may be
    broken differently but the total is optimal.
    """
    res = assignment(cost, maximize=bool(maximize))  # validates and prepares the matrix once
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
