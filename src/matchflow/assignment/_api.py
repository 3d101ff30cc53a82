"""Public dense linear assignment API.

* :func:`linear_sum_assignment` — drop-in for ``scipy.optimize.linear_sum_assignment``;
* :func:`assignment` — the full solver with method/backend choice, duals and statistics;
* ``read_cost_matrix`` moved to :func:`matchflow.io.read_cost_matrix` (re-exported here for old imports).

All methods solve the same prepared square problem (:mod:`._prepare`), so CPU and GPU
see identical inputs; every integer solution is certified with exact duals before it is
returned.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._cuda import c_contiguous_device, device_library, hand_back, is_device_array
from .._lsap.problem import InfeasibleError, limit_extended  # noqa: F401 - InfeasibleError: old import path
from .._methods import Method, MethodTable, check_method_options, resolve
from .._results import AssignmentResult
from .._validation import check_bool, check_real
from ..io import read_cost_matrix  # noqa: F401 - moved to matchflow.io; kept here for old imports
from ._api_sparse import sparse_assignment
from ._cpu_hungarian import hungarian_bigint, hungarian_exact_float
from ._methods import FLOAT_REPROVERS, SPARSE_TABLE, TABLE, direct_row, place_dense
from ._prepare import (  # noqa: F401 - old import paths
    Prepared,
    as_cost_matrix,
    as_cost_matrix_scanned,
    polish_duals_kernel,
    prepare,
)
from ._prepare_sparse import is_device_sparse
from ._verify import LimitCertificate, centre_duals, certify, exact_difference, square_certificate, total_cost

__all__ = ["assignment", "linear_sum_assignment", "read_cost_matrix", "METHODS"]

# method names the algorithm, backend the device; rows, options and the measured auto rules: ._methods
METHODS = TABLE.names  # ("auto", "jv", "hungarian", "auction", "munkres", "lopes")
CPU_METHODS = TABLE.cpu_names
# float answers not proved *exactly* optimal (gap bound >= the entries' granularity) are re-solved
# exactly in rational arithmetic up to this size (O(n^3) Python steps); larger ones keep the float
# answer when its certificate holds within the rounding tolerance (stats["exact"] says which)
EXACT_FLOAT_N = 16


def assignment(
    cost,
    *,
    maximize: bool = False,
    method: str = "auto",
    backend: str = "auto",
    cost_limit: float | None = None,
    extend_cost: bool | None = None,
    partial: bool = False,
    **options,
) -> AssignmentResult:
    """Optimal linear assignment of a dense (rectangular) cost matrix, with dual potentials.

    Parameters
    ----------
    cost : array_like or scipy.sparse (n_rows, n_cols), bool / integer / float (any byte order)
        ``+inf`` marks a forbidden pair (``-inf`` when ``maximize``), like SciPy. A square int32/int64
        matrix with entries >= 0 that runs on the GPU (minimising, no ``cost_limit``) is uploaded
        in its own dtype and certified on the device; a device-resident one (CuPy, a PyTorch CUDA
        tensor, a numba device array) with ``backend`` "gpu" or "auto" never visits the host, and
        ``row_ind``, ``col_ind``, ``u``, ``v`` come back on the device in its library
        (``stats["direct"]``). Other device matrices (floats, rectangular, negative entries) are copied to the
        host once (the float route's repair and the certificate's checks read them there); a square float64
        one the preparation uses as it is is also read on the device by the GPU float route (no upload), and
        every device input gets its answer on its device, in its library (``stats["input_library"]``). A CuPy sparse matrix
        or a PyTorch sparse CUDA tensor is a sparse ``cost`` (cost scaling): copied to the host once
        (``stats["device_fallback"]`` says why), the answer on the device in its library.
    maximize : bool
        Maximise the total instead of minimising it.
    method : {"auto", "jv", "hungarian", "auction", "munkres", "cost-scaling", "lopes"}
        The algorithm. ``jv``: Jonker-Volgenant (CPU); ``hungarian``: Kuhn-Munkres with
        potentials (CPU: O(n^3); GPU: Lopes et al.); ``auction``: Bertsekas with eps-scaling
        and an exact JV cleanup (CPU); ``munkres``: the O(n^4) six-step reference of Lopes et
        al. (CPU, small n only); ``cost-scaling``: Goldberg-Kennedy CSA on the CPU (options
        ``price_update``, ``update_every``, ``arc_fixing``: Alg. 5.3 and Section 5.2, off by
        default), Łupińska's lock-free refine with ``backend="gpu"`` (``auto`` picks it for sparse
        costs from 20M arcs, where it measured faster end to end with a fresh process's first GPU call counted); what a scipy.sparse ``cost`` always gets, see :mod:`._api_sparse`; on
        dense input slower than JV; ``lopes``: alias of ``hungarian`` on the GPU (not with
        ``backend="cpu"``); ``auto``: JV on the CPU, the GPU Hungarian where it was measured
        faster end to end (integer costs, max(shape) >= 1024, cost range <= 10 max(shape); float costs from
        max(shape) >= 4096, or 8192 in a process that has not used the GPU yet).
    backend : {"auto", "cpu", "gpu"}
        The device. ``auto`` uses a (real, not simulated) GPU only where it was measured faster
        end to end: for ``method="auto"`` and ``method="hungarian"`` by the rule above; the
        CPU-only methods run on the CPU.
    cost_limit : float, optional
        lap/lapx semantics: a pair costing more than ``cost_limit`` is never worth it;
        leaving one row and one column unassigned costs ``cost_limit`` (each side
        ``cost_limit / 2``, lap's construction: the ``(n_rows + n_cols)``-square matrix
        ``[[cost, L/2], [L/2, 0]]``, see :func:`matchflow._lsap.problem.limit_extended`). Rows and columns
        may stay unassigned; ``stats["limit_certificate"]`` holds the extended problem's
        solution and duals (its ``verify()`` checks them). With ``maximize``: a row stays
        unassigned rather than earn less than ``cost_limit``.
    partial : bool
        scipy.sparse ``cost`` only: when no full matching exists, return a maximum-cardinality
        matching of least cost among those (certificate: ``stats["U"], stats["V"]``, the duals of
        the extended problem of :mod:`._prepare_sparse`) instead of raising.
    extend_cost : bool, optional
        lapx's flag. ``None``/``True``: rectangular matrices are solved directly (our
        rectangular support is lapx's ``extend_cost=True``); ``False``: a non-square
        matrix raises ``ValueError`` as in lapx.
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
    (:func:`._cpu_hungarian.hungarian_exact_float`, ``gap_bound = 0``; a warning above
    n = 300, where it is slow): when it picks the same pairs, the solver's answer is kept
    with the exact duals (``stats["proved_by"]``, ``backend`` unchanged); otherwise the exact
    answer replaces it (``stats["resolved_by"]``, ``backend="cpu"``). No float answer is
    returned with a certificate that does not hold.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import assignment
    >>> from matchflow.verify import verify_assignment
    >>> C = np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
    >>> res = assignment(C, backend="cpu")
    >>> res.col_ind.tolist(), res.cost
    ([1, 0, 2], 5)
    >>> verify_assignment(C, res).optimal  # the duals u, v prove it
    True
    >>> assignment(C, maximize=True, backend="cpu").cost
    11
    >>> assignment(C, method="hungarian", backend="cpu").cost
    5

    The GPU Hungarian (this line needs a GPU):

    >>> assignment(C, method="hungarian", backend="gpu").cost  # doctest: +SKIP
    5

    References
    ----------
    .. [1] Jonker, R., and Volgenant, A., "A shortest augmenting path algorithm for dense and sparse linear
           assignment problems", Computing 38(4), 325-340, 1987. DOI:10.1007/BF02278710
    .. [2] Kuhn, H. W., "The Hungarian method for the assignment problem", Naval Research Logistics Quarterly 2,
           83-97, 1955. DOI:10.1002/nav.3800020109
    .. [3] Munkres, J., "Algorithms for the assignment and transportation problems", Journal of the Society for
           Industrial and Applied Mathematics 5(1), 32-38, 1957. DOI:10.1137/0105003
    .. [4] Bertsekas, D. P., "The auction algorithm: a distributed relaxation method for the assignment problem",
           Annals of Operations Research 14, 105-123, 1988. DOI:10.1007/BF02186476
    .. [5] Goldberg, A. V., and Kennedy, R., "An efficient cost scaling algorithm for the assignment problem",
           Mathematical Programming 71, 153-177, 1995. DOI:10.1007/BF01585996
    .. [6] Lopes, P. A. C., Yadav, S. S., Ilic, A., and Patra, S. K., "Fast block distributed CUDA implementation of
           the Hungarian algorithm", Journal of Parallel and Distributed Computing 130, 50-62, 2019.
           DOI:10.1016/j.jpdc.2019.03.014
    .. [7] Łupińska, A., "Parallel implementation of flow and matching algorithms", Jagiellonian University, Kraków
           (technical report).
    """
    t0 = time.perf_counter()
    maximize = check_bool("maximize", maximize)
    table, row, be, partial = _route(cost, method, backend, partial, cost_limit)  # before the matrix is read
    if table is SPARSE_TABLE:
        return sparse_assignment(cost, table, row, be, maximize=maximize, partial=partial, options=options, t0=t0)
    if cost_limit is not None:
        return _limited(cost, maximize, method, backend, cost_limit, extend_cost, options, t0)
    run = _start(cost, maximize, row, be, extend_cost, options, t0)
    if isinstance(run, AssignmentResult):
        return run  # solved and certified on the GPU as it was (the Hungarian's direct path)
    _solve(run)
    if not run.prep.is_int:
        _certify_float(run)
    return _finish(run)


def _route(cost, method, backend, partial, cost_limit) -> tuple[MethodTable, Method | None, str, bool]:
    """The table of ``cost``'s kind (scipy.sparse or a device-resident sparse matrix: :data:`SPARSE_TABLE`), the
    row (None: ``"auto"``), the device asked for and ``partial``; what only one kind of cost takes is checked here,
    before the matrix is read."""
    sparse = sp.issparse(cost) or is_device_sparse(cost)
    table = SPARSE_TABLE if sparse and method in SPARSE_TABLE.names else TABLE
    row, be = resolve(table, method, backend)
    partial = check_bool("partial", partial)
    if partial and not sparse:
        raise ValueError("partial=True needs a scipy.sparse cost matrix (stored entries are the allowed pairs)")
    if sparse and table is not SPARSE_TABLE:
        names = ", ".join(repr(m.name) for m in SPARSE_TABLE.methods)
        raise ValueError(f"method={row.name!r} takes dense costs; a scipy.sparse matrix needs method={names} or 'auto'")
    if sparse and cost_limit is not None:
        raise ValueError("sparse costs take no cost_limit")
    return table, row, be, partial


@dataclass
class _Run:
    """A dense solve between its stages: the validated matrix ``a``, the placed row and device, the prepared square
    problem, the solver's answer on it (``x``, ``u``, ``v``) and on the user's matrix (``pairs``, ``duals``)."""

    cost: Any
    a: np.ndarray
    maximize: bool
    row: Method
    be: str
    opts: dict
    prep: Prepared
    t0: float
    stats: dict
    used: str = ""
    x: Any = None
    u: Any = None
    v: Any = None
    pairs: tuple = ()
    duals: tuple = ()


def _matrix(cost, maximize: bool, extend_cost) -> tuple[np.ndarray, tuple | None]:
    """The validated dense matrix and its float scan (kept for the preparation); lapx's ``extend_cost``."""
    a, scan = as_cost_matrix_scanned(cost, maximize)
    if extend_cost is not None:
        extend_cost = check_bool("extend_cost", extend_cost)
        if not extend_cost and a.shape[0] != a.shape[1]:
            raise ValueError(f"Square cost array expected, got shape {a.shape}; pass extend_cost=True "
                             "(or leave it out) to solve a rectangular matrix")
    return a, scan


def _start(cost, maximize: bool, row: Method | None, be: str, extend_cost, options: dict, t0: float
           ) -> _Run | AssignmentResult:
    """Validate, place, prepare. A square integer matrix >= 0 that the GPU Hungarian takes as it is (on its device,
    or uploaded in its dtype; :func:`._methods.direct_row`) comes back solved and certified."""
    direct = direct_row(TABLE, row, maximize)
    on_device = is_device_array(cost) and not isinstance(cost, np.ndarray)
    if direct is not None and be != "cpu" and on_device:
        res = direct.gpu_direct(cost, check_method_options(TABLE, direct, "gpu", options), t0)
        if res is not None:
            return res
    a, scan = _matrix(cost, maximize, extend_cost)
    row, be = place_dense(TABLE, row, be, a, options)
    opts = check_method_options(TABLE, row, be, options)
    if direct is not None and be == "gpu" and a.dtype in (np.int32, np.int64):
        res = direct.gpu_direct(a, opts, t0)  # uploaded as it is, certified on the device (no int64 copy)
        if res is not None:
            return res
    prep = prepare(a, maximize, scan)
    if on_device and be == "gpu" and prep.C is a:
        src = cost.detach() if hasattr(cost, "detach") else cost  # a PyTorch tensor that requires grad
        prep.device_C = c_contiguous_device(src).reshape(a.size)  # the caller's device matrix: no upload
    stats: dict = {"n": prep.n, "seconds_prepare": time.perf_counter() - t0}  # validation, scan, preparation
    return _Run(cost, a, maximize, row, be, opts, prep, t0, stats, used=row.name)


def _solve(run: _Run) -> None:
    """The row's solve on the prepared problem (integers beyond int64: the exact big-integer Hungarian); an integer
    answer is certified with exact duals, else (an overflow or a solver bug) re-solved exactly."""
    prep = run.prep
    if prep.bigint is not None:
        if prep.n > 300:
            warnings.warn(f"integer costs too wide for int64 (n={prep.n}): using the exact but slow "
                          "big-integer Hungarian", RuntimeWarning, stacklevel=3)
        x, u, v, st = _bigint(run, prep.bigint)
    else:
        x, u, v, st = run.row.gpu(prep, **run.opts) if run.be == "gpu" else run.row.cpu(prep, **run.opts)
        if prep.is_int and st.get("certified") != "device" and not square_certificate(prep.C, x, u, v):
            warnings.warn(f"method={run.used!r} on {run.be} returned no valid integer certificate; "
                          "re-solving with the exact big-integer Hungarian", RuntimeWarning, stacklevel=3)
            run.stats.update(st)
            x, u, v, st = _bigint(run, prep.bigint or [[int(t) for t in r] for r in prep.C.tolist()])
    run.stats.update(st)
    run.x, run.u, run.v = x, u, v
    r, c, uu, vv = prep.recover(x, u, v)
    run.pairs, run.duals = (r, c), (uu, vv)


def _bigint(run: _Run, big: list):
    run.used, run.be = "hungarian-bigint", "cpu"
    return hungarian_bigint(big)


def _certify_float(run: _Run) -> None:
    """The sound float certificate on the caller's costs (``stats["gap_bound"]``, ``stats["exact"]``): an answer not
    proved within 64x the rounding of the entries it uses is compared with :data:`._methods.FLOAT_REPROVERS`'
    (the exactly cheaper kept, then the better proved); one not proved at all, or not exactly for n <=
    EXACT_FLOAT_N, is re-solved in exact rationals."""
    a, maximize, prep, stats = run.a, run.maximize, run.prep, run.stats
    t_cert = time.perf_counter()
    cert, uu, vv = _float_certificate(a, maximize, prep, run.x, run.u, run.v)
    stats["seconds_certificate"] = time.perf_counter() - t_cert  # the sound float certificate
    stats["certificate_rows_on"] = "gpu" if prep.device_rows is not None else "cpu"  # where its n^2 passes ran
    (row_ind, col_ind), exact_prep = run.pairs, prep
    for other in FLOAT_REPROVERS:
        if cert.optimal and cert.gap_bound <= 64.0 * cert.tol_entries:
            break
        if other == run.used:
            continue
        # not proved within 64x the rounding of the entries it uses: ask another solver (its
        # duals grow from zero along paths), keep the exactly cheaper answer, then the proved one
        x2, u2, v2, st2 = TABLE.row(other).cpu(exact_prep)
        r2, c2, _, _ = exact_prep.recover(x2, None, None)
        cert2, uu2, vv2 = _float_certificate(a, maximize, exact_prep, x2, u2, v2)
        d = exact_difference(a, maximize, (r2, c2), (row_ind, col_ind))
        if d < 0 or (d == 0 and cert2.optimal and not cert.optimal):
            stats.update(st2)
            stats["resolved_by"] = f"{other} (after {run.used})"
            run.used, run.be = other, "cpu"
            row_ind, col_ind, uu, vv, cert = r2, c2, uu2, vv2, cert2
    stats["gap_bound"] = cert.gap_bound
    stats["exact"] = bool(cert.exact)
    if not cert.exact and (not cert.optimal or prep.n <= EXACT_FLOAT_N):
        # not proved exactly optimal (small n), or not proved at all: the exact rational solve
        if prep.n > 300:
            warnings.warn(f"method={run.used!r}: the float certificate failed (gap bound {cert.gap_bound}); "
                          f"re-solving exactly with the slow rational Hungarian (n={prep.n})",
                          RuntimeWarning, stacklevel=3)
        r_ex, c_ex, uu, vv = _exact_float(a, maximize, stats)
        if _same_pairs((r_ex, c_ex), (row_ind, col_ind)):
            stats["proved_by"] = "hungarian-exact"  # the solver's own pairs, proved exactly on the CPU
        else:
            row_ind, col_ind = r_ex, c_ex
            stats["resolved_by"] = f"hungarian-exact (after {run.used})"  # res.method stays the one asked for
            run.be = "cpu"
    run.pairs, run.duals = (row_ind, col_ind), (uu, vv)


def _finish(run: _Run) -> AssignmentResult:
    """The result on the user's matrix: the exact total; a device input gets its answer on its device, in its
    library."""
    (row_ind, col_ind), (uu, vv) = run.pairs, run.duals
    total = total_cost(run.a, row_ind, col_ind)
    if is_device_array(run.cost) and not isinstance(run.cost, np.ndarray):
        row_ind, col_ind, uu, vv = (hand_back(x, device_library(run.cost), run.cost) for x in (row_ind, col_ind, uu, vv))
        run.stats["input_library"] = device_library(run.cost)
    return AssignmentResult(row_ind=row_ind, col_ind=col_ind, cost=total, u=uu, v=vv, method=run.used,
                            backend=run.be, seconds=time.perf_counter() - run.t0, maximize=run.maximize,
                            stats=run.stats)


def _limited(cost, maximize: bool, method, backend, cost_limit, extend_cost, options: dict, t0: float):
    """``cost_limit``: the extended problem of :func:`matchflow._lsap.problem.limit_extended`, solved by :func:`assignment`."""
    a, _ = _matrix(cost, maximize, extend_cost)
    lim = check_real("cost_limit", cost_limit)
    ext = limit_extended(a, lim, maximize)
    res = assignment(ext, maximize=maximize, method=method, backend=backend, **options)
    return limit_result(a, ext, res, maximize, lim, t0)


def _float_certificate(a: np.ndarray, maximize: bool, prep: Prepared, x, u, v):
    """Prove optimality on the caller's costs with the same sound check as
    ``verify_assignment``, after recomputing one side's duals from the other's there.
    When the caller's duals overflow, on ``cost * prep.scale`` instead -- only if that
    power-of-two scaling is exact for every entry (no underflow of a tiny cost), and with
    ``gap_bound``/``tol`` divided back by the scale (caller's units). Returns (cert, u, v)."""
    r, c, uu, vv = prep.recover(x, u, v, scaled=True)
    s = prep.scale
    with np.errstate(all="ignore"):
        # float32 / float64 stay as they are (the kernels widen each entry exactly): no n^2 copy
        af = a if a.dtype in (np.float32, np.float64) else a.astype(np.float64)
        uo, vo = uu / s, vv / s  # exact (powers of two) unless they overflow
        if s != 1.0 and not (np.isfinite(uo).all() and np.isfinite(vo).all()):
            af = af.astype(np.float64, copy=False)
            a_s = af * s
            fin = np.isfinite(af)
            if not np.array_equal(a_s[fin] / s, af[fin]):  # a tiny cost underflowed: not the caller's matrix
                cert = certify(a, r, c, None, None, maximize, False)
                cert.optimal, cert.exact, cert.gap_bound = False, False, math.inf
                cert.problems.append("duals overflow on the caller's scale and the scaled matrix loses entries")
                return cert, uo, vo
        else:
            a_s, uu, vv, s = af, uo, vo, 1.0
        col_of_row = np.full(a.shape[0], -1, dtype=np.int64)
        col_of_row[r] = c
        sign = -1.0 if maximize else 1.0
        dev = prep.device_rows if s == 1.0 else None  # (polish, bound) over a device copy of sign * a
        if np.isfinite(uu).all() and np.isfinite(vv).all():
            uu, vv = centre_duals(uu, vv)
            if dev is not None:
                uu = dev[0](sign, uu, vv)
            else:
                polish_duals_kernel(np.ascontiguousarray(a_s), sign, col_of_row, uu, vv, a.shape[0] <= a.shape[1])
        cert = certify(a_s, r, c, uu, vv, maximize, False, rows=None if dev is None else dev[1])
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
    nr, nc = a.shape
    x, u, v, den, st = hungarian_exact_float(a, maximize)
    p = Prepared(C=np.zeros((0, 0), dtype=np.int64), n_rows=nr, n_cols=nc, is_int=True, maximize=maximize,
                 shift=0, scale=1.0, gcd=1, big_m=None, allowed=None, int64_ok=False)
    r, c, uu, vv = p.recover(x, u, v)
    stats.update(st)
    stats["gap_bound"] = 0.0
    stats["exact"] = True
    return r, c, _to_floats(uu, den), _to_floats(vv, den)


def _same_pairs(p, q) -> bool:
    """Whether two assignments ``(row_ind, col_ind)`` pick the same pairs."""
    a = sorted(zip(np.asarray(p[0]).tolist(), np.asarray(p[1]).tolist()))
    b = sorted(zip(np.asarray(q[0]).tolist(), np.asarray(q[1]).tolist()))
    return a == b


def _to_floats(xs, den: int) -> np.ndarray:
    """Nearest floats of the exact duals ``x / den`` (+-inf where they overflow)."""
    out = []
    for t in xs:
        try:
            out.append(float(Fraction(int(t), den)))
        except OverflowError:
            out.append(math.inf if int(t) > 0 else -math.inf)
    return np.array(out, dtype=np.float64)


def limit_result(a: np.ndarray, ext: np.ndarray, res, maximize: bool, lim: float, t0: float):
    """The user's pairs of a ``cost_limit`` solve; the extended certificate goes to stats."""
    nr, nc = a.shape
    keep = (res.row_ind < nr) & (res.col_ind < nc)
    row_ind, col_ind = res.row_ind[keep], res.col_ind[keep]
    stats = dict(res.stats)
    stats["cost_limit"] = lim
    stats["unassigned_rows"] = int(nr - row_ind.size)
    stats["limit_certificate"] = LimitCertificate(ext, res.row_ind, res.col_ind, res.u, res.v, maximize)
    u = res.u[:nr] if res.u is not None else None
    v = res.v[:nc] if res.v is not None else None
    return AssignmentResult(row_ind=row_ind, col_ind=col_ind, cost=total_cost(a, row_ind, col_ind), u=u, v=v,
                            method=res.method, backend=res.backend, seconds=time.perf_counter() - t0,
                            maximize=maximize, stats=stats)


def linear_sum_assignment(cost_matrix, maximize=False) -> tuple[np.ndarray, np.ndarray]:
    """Drop-in replacement for ``scipy.optimize.linear_sum_assignment``.

    Same arguments (``cost_matrix``, ``maximize``, by position or keyword), same return
    ``(row_ind, col_ind)`` (int64, sorted by row; the smaller side fully assigned), same
    errors ("expected a matrix (2-D array), got a 1 array", "matrix contains invalid
    numeric entries", "cost matrix is infeasible", SciPy's TypeError for non-real dtypes).
    ``maximize`` is read by truthiness like SciPy. Integer costs are solved exactly (SciPy
    rounds them to float64); float ties may be broken differently but the total is optimal.
    Non-native byte orders (``>i8``, ``>f8``, ...) are accepted like SciPy. Always runs on
    the CPU, whatever GPU is present (results and timings do not depend on the machine; use
    :func:`assignment` with ``backend="gpu"`` for the GPU Hungarian).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import linear_sum_assignment
    >>> C = np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
    >>> row_ind, col_ind = linear_sum_assignment(C)
    >>> col_ind.tolist(), int(C[row_ind, col_ind].sum())
    ([1, 0, 2], 5)

    References
    ----------
    .. [1] Jonker, R., and Volgenant, A., "A shortest augmenting path algorithm for dense and sparse linear
           assignment problems", Computing 38(4), 325-340, 1987. DOI:10.1007/BF02278710
    """
    # always the CPU, whatever GPU is present (like maximum_bipartite_matching): a SciPy user must never pay
    # a GPU's first-use compile for a problem SciPy solves in milliseconds; assignment() reaches the GPU
    res = assignment(cost_matrix, maximize=bool(maximize), backend="cpu")  # validates and prepares once
    return res.row_ind, res.col_ind
