"""GPU Hungarian (Lopes et al. 2019) through the public API: optimal cost vs the CPU twin and SciPy,
dual certificates checked by ``matchflow.verify.verify_assignment``, block splits, repeats.

GPU tests are marked ``gpu`` (skipped without a GPU) and call ``matchflow.assignment(C, method="lopes",
backend="gpu", ...)``; the answer must come from the GPU (the API re-solves on the CPU when a certificate
fails, which would hide a GPU bug). What no public assignment call reaches (a matrix already on the
device) goes through the supported surface ``matchflow.gpu``. The option checks need no GPU. Under
``NUMBA_ENABLE_CUDASIM=1`` the ``host`` loop runs (no grid sync in the simulator).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import LOOPS
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import assignment_bruteforce
from scipy.optimize import linear_sum_assignment as scipy_lsa

import matchflow
from matchflow import gpu
from matchflow._cuda import is_simulator
from matchflow.assignment._gpu_munkres import choose_slack_dtype, validate_hungarian_options
from matchflow.verify import verify_assignment


def _lopes(C, *, maximize: bool = False, **kw):
    """The public GPU call; certified by verify_assignment and equal in cost to the CPU twin and SciPy."""
    res = matchflow.assignment(C, method="lopes", backend="gpu", maximize=maximize, **kw)
    assert res.backend == "gpu" and res.method == "hungarian", (res.method, res.backend)
    verify_assignment(C, res)  # raises with the problems: valid, feasible and tight duals, cost == dual value
    cpu = matchflow.assignment(C, backend="cpu", maximize=maximize)
    assert res.cost == cpu.cost
    C = np.asarray(C)
    if C.size:
        r, c = scipy_lsa(C, maximize=maximize)
        best = C[r, c].sum()
        assert res.cost == (pytest.approx(best, rel=1e-12) if C.dtype.kind == "f" else best)
    return res


# ------------------------------------------------------------------ host-side checks (no GPU needed)

def test_choose_slack_dtype():
    assert choose_slack_dtype(np.dtype(np.float32), 100, 1.0) == np.float64
    assert choose_slack_dtype(np.dtype(np.int64), 100, 1000) == np.int32
    assert choose_slack_dtype(np.dtype(np.int32), 8192, 10 * 8192) == np.int32
    assert choose_slack_dtype(np.dtype(np.int32), 16384, 10 * 16384) == np.int64
    assert choose_slack_dtype(np.dtype(np.int64), 4, 2**40) == np.int64


@pytest.mark.parametrize("bad", [0, 3, 2048, -4])
def test_block_size_rejected(bad):
    with pytest.raises(ValueError, match=rf"block_size must be a power of two in \[1, 1024\], got {bad}"):
        validate_hungarian_options(block_size=bad)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"block_size": 2.5}, TypeError, r"block_size must be an integer, got 2.5"),
    ({"loop": "fast"}, ValueError, r"loop must be one of \('auto', 'persistent', 'host'\), got 'fast'"),
    ({"certify": 1}, TypeError, r"certify must be True or False, got 1"),
    ({"max_rounds": 0}, ValueError, r"max_rounds must be >= 1, got 0"),
    ({"grid_size": 0}, ValueError, r"grid_size must be >= 1, got 0"),
    ({"colour": "red"}, TypeError, r"hungarian_gpu got unexpected option\(s\) 'colour'; accepted: float_gap_levels, float_range, float_route, slack_dtype"),
    ({"loop": "host", "mode": "host"}, ValueError, r"hungarian_gpu: give loop= only \(mode= is its deprecated "
                                                   r"alias\), not both"),
])
def test_options_rejected(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        validate_hungarian_options(**kwargs)


def test_deprecated_option_names_warn_and_still_work():
    """mode= and check= (the old names of loop= and certify=) work for one release, with a warning."""
    with pytest.warns(DeprecationWarning, match=r"hungarian_gpu: option mode= is deprecated, use loop= instead"):
        o = validate_hungarian_options(mode="host")
    assert o["loop"] == "host"
    with pytest.warns(DeprecationWarning, match=r"hungarian_gpu: option check= is deprecated, use certify= instead"):
        o = validate_hungarian_options(check=False)
    assert o["certify"] is False
    with pytest.warns(DeprecationWarning, match=r"option mode= is deprecated"), \
            pytest.raises(ValueError, match=r"loop must be one of .*got 'fast'"):
        validate_hungarian_options(mode="fast")
    o = validate_hungarian_options()
    assert (o["loop"], o["certify"], o["block_size"], o["grid_size"], o["max_rounds"]) == ("auto", True, 256, None, None)


# ------------------------------------------------------------------ GPU: named cases against the CPU twin

gpu_mark = pytest.mark.gpu
_rng = np.random.default_rng(2019)
CASES = {
    "empty-0x0": np.zeros((0, 0)),
    "one-entry": np.array([[5]], dtype=np.int64),
    "rect-3x5": _rng.integers(0, 9, size=(3, 5)),
    "rect-6x2": _rng.integers(-4, 9, size=(6, 2)),
    "all-equal-37": np.full((37, 37), 7, dtype=np.int32),  # n^2 zeros after the reductions
    "zeros-float-33": np.zeros((33, 33)),
    "negative-int-20": _rng.integers(-50, 50, size=(20, 20)),
    "ties-float-40": np.round(_rng.random((40, 40)) * 100) / 4,
    "forbidden-inf-12": np.where(_rng.random((12, 12)) < 0.3, np.inf, _rng.integers(0, 20, size=(12, 12))),
    "bool-9": _rng.random((9, 9)) < 0.5,
    "wide-range-int-16": _rng.integers(0, 2**40, size=(16, 16)),
}


@gpu_mark
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_named_cases_match_the_cpu_twin(name, loop):
    C = CASES[name]
    res = _lopes(C, block_size=4, loop=loop, grid_size=3)
    if C.size:
        assert res.stats["loop"] == loop and res.stats["block_size"] == 4
    if not np.isinf(np.asarray(C, dtype=np.float64)).any():  # +inf marks a forbidden pair only when minimising
        _lopes(C, maximize=True, block_size=32, loop=loop)


_INT = [(n, f, dt, LOOPS[0]) for n in (50, 137, 300) for f in (0.1, 1.0, 10.0) for dt in (np.int32, np.int64)]
_INT += [(n, f, np.int32, "host") for n in (50, 137) for f in (0.1, 1.0, 10.0)]  # host loop: slow, fewer cases


@gpu_mark
@pytest.mark.parametrize("n,rng_factor,dtype,loop", _INT)
def test_random_int_vs_scipy(loop, dtype, rng_factor, n):
    rng = np.random.default_rng(1000 * n + int(10 * rng_factor))
    hi = max(1, int(rng_factor * n))
    C = rng.integers(0, hi + 1, size=(n, n)).astype(dtype)
    res = _lopes(C, block_size=32, loop=loop)
    assert res.stats["seconds_solve"] > 0 and res.stats["iterations"] >= 1


@gpu_mark
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ties", [False, True])
def test_random_float_vs_scipy(dtype, ties):
    rng = np.random.default_rng(7 + ties)
    n = 120
    C = rng.random((n, n)) * 100
    if ties:
        C = np.round(C) / 4  # many exactly equal entries
    res = _lopes(C.astype(dtype), block_size=64)
    assert res.stats["float_route"] == "repair" and res.stats["gap_bound"] <= 1e-9
    assert "resolved_by" not in res.stats  # the GPU's own answer, proved by the sound float certificate
    old = _lopes(C.astype(dtype), block_size=64, float_route="slack")  # the float64-slack kernel, still there
    assert old.stats["certificate_min_reduced_cost"] >= -1e-6 and "float_route" not in old.stats


@gpu_mark
@pytest.mark.parametrize("float_range", [0.05, 1.0, 10.0, 200.0])
@pytest.mark.parametrize("n", [64, 257])
def test_float_route_any_pre_solve_range_is_repaired_to_the_optimum(n, float_range):
    """The integer pre-solve only warm-starts the repair: a coarse range (many ties in the integer matrix)
    leaves free rows and augmentations to the float JV repair, a fine one almost none; every answer is
    the float optimum, proved on the caller's costs."""
    rng = np.random.default_rng(n + int(100 * float_range))
    C = rng.random((n, n)) * 1e3 + 5.0
    res = _lopes(C, block_size=32, float_range=float_range)
    st_ = res.stats
    assert st_["float_route"] == "repair" and st_["float_range"] == float_range and st_["exact"] is not None
    assert 0 <= st_["free_after_arr"] <= st_["free_after_int"] <= n
    assert st_["augmentations"] == st_["free_after_arr"]  # one shortest augmenting path per row left free
    assert "resolved_by" not in st_ and res.backend == "gpu"


@gpu_mark
@pytest.mark.parametrize("kind", ["outlier", "squared-normal", "lognormal"])
def test_float_route_focuses_the_integer_range_on_heavy_tails(kind):
    """Costs whose scale is set by a few huge entries (one outlier, heavy tails) round to 0 in the first integer
    pass; a second pass on the range its answer used warm-starts the repair (few augmentations left), and the
    answer is still the float optimum. Uniform costs take one pass."""
    rng = np.random.default_rng(37)
    n = 200
    C = {"outlier": rng.random((n, n)), "squared-normal": rng.normal(size=(n, n)) ** 2,
         "lognormal": rng.lognormal(0.0, 3.0, size=(n, n))}[kind]
    if kind == "outlier":
        C[3, 5] = 1e7
    res = _lopes(C, block_size=32)
    assert res.stats["float_passes"] == 2 and "resolved_by" not in res.stats
    assert res.stats["augmentations"] <= n // 10, res.stats["augmentations"]  # not a full JV repair
    assert _lopes(rng.random((n, n)), block_size=32).stats["float_passes"] == 1


@gpu_mark
def test_float_route_forbidden_maximize_and_huge_ratios():
    """Forbidden pairs (big M in the prepared matrix squashes the integer pre-solve), maximising, costs
    spanning 1e-12..1e12: the repair still reaches the optimum the CPU finds."""
    rng = np.random.default_rng(31)
    n = 90
    C = rng.random((n, n)) * 50
    F = np.where(rng.random((n, n)) < 0.2, np.inf, C)
    np.fill_diagonal(F, C.diagonal())  # feasible
    _lopes(F, block_size=32)
    _lopes(C, maximize=True, block_size=32)
    W = 10.0 ** rng.uniform(-12, 12, size=(n, n))
    res = _lopes(W, block_size=32)
    assert res.stats["float_route"] == "repair"


@gpu_mark
@pytest.mark.parametrize("route", ["repair", "slack"])
def test_float_routes_on_negative_costs_the_preparation_does_not_shift(route):
    """Normal costs: the minimum shift would round, so the preparation hands the caller's matrix (negative
    entries) to the GPU as it is; the repair route scales from its own minimum, the slack route shifts its own
    copy. Both reach the optimum the CPU finds, proved on the caller's costs."""
    rng = np.random.default_rng(41)
    C = rng.normal(size=(150, 150)) * 10
    res = _lopes(C, block_size=32, float_route=route)
    assert res.backend == "gpu" and "resolved_by" not in res.stats and res.stats["gap_bound"] < 1e-9


@gpu_mark
def test_float_route_scale_capped_by_the_rows_resolution():
    """Normal costs: a row's two smallest entries lie far apart compared with the range / 10n, so the rows'
    median gap caps the integer scale (stats float_gap, float_scale); uniform costs keep range / 10n. Both
    scales reach the optimum, the capped one in no more integer rounds."""
    rng = np.random.default_rng(43)
    n = 400
    C = rng.normal(size=(n, n))
    capped = _lopes(C, block_size=64)
    free = _lopes(C, block_size=64, float_gap_levels=0)
    assert capped.stats["float_gap"] > 0 and math.isnan(free.stats["float_gap"])
    assert capped.stats["float_scale"] < free.stats["float_scale"]
    assert capped.stats["iterations"] <= free.stats["iterations"], (capped.stats["iterations"], free.stats["iterations"])
    U = rng.random((n, n))
    u = _lopes(U, block_size=64)
    assert u.stats["float_scale"] == pytest.approx(10 * n / (U.max() - U.min()))


@gpu_mark
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_certificate_rows_on_the_device_equal_the_host_pass(dtype):
    """The certificate's two n^2 passes over the device copy (``_gpu_verify``) give the host pass's row arrays
    (the rounding bound may differ in the last bit: one fused multiply-add), and the public call certified
    that way (float32 and maximising: an exactly shifted copy, the shift added back) keeps its answer and a
    bound equal to the host certificate's."""
    from numba import cuda

    from matchflow._lsap.reduced import float_bound_dense_serial
    from matchflow.assignment._gpu_verify import device_rows
    from matchflow.assignment._prepare import _polish_serial

    rng = np.random.default_rng(47)
    n = 300
    A = rng.normal(size=(n, n)).astype(dtype)
    col = rng.permutation(n).astype(np.int64)
    u, v = rng.normal(size=n), rng.normal(size=n)
    polish, bound = device_rows(cuda.to_device(A.reshape(-1)), n)
    uh = u.copy()
    _polish_serial(A, 1.0, col, uh, v.copy(), True)
    ud = polish(1.0, u, v)
    assert np.array_equal(ud, uh)
    host = [np.zeros(n) for _ in range(5)] + [np.zeros(n, dtype=np.int64)]
    float_bound_dense_serial(A, 1.0, col, uh, v, *host)
    dev = bound(1.0, col, uh, v)
    assert np.array_equal(dev[5], host[5]) and np.array_equal(dev[0], host[0])  # columns, delta
    for d, h in zip(dev[1:5], host[1:5]):
        np.testing.assert_allclose(d, h, rtol=1e-15, atol=0)
    for maximize in (False, True):
        res = _lopes(A, maximize=maximize, block_size=64)
        assert res.stats["certificate_rows_on"] == "gpu", res.stats.get("certificate_rows_on")
        cert = verify_assignment(A, res, raise_on_error=False)  # the host pass on the same answer
        assert cert.optimal and res.stats["gap_bound"] == pytest.approx(cert.gap_bound, rel=1e-6, abs=1e-14)
    shifted = _lopes(1e6 + rng.random((n, n)), block_size=64)  # an exactly shifted copy: added back there
    assert shifted.stats["certificate_rows_on"] == "gpu" and shifted.stats["gap_bound"] < 1e-6
    F = rng.random((n, n))
    F[0, 1] = np.inf  # forbidden pairs (big M in the device copy): the host pass
    assert _lopes(F, block_size=64).stats["certificate_rows_on"] == "cpu"


def test_float_route_options_rejected():
    with pytest.raises(ValueError, match=r"float_route must be one of \('repair', 'slack'\), got 'fast'"):
        validate_hungarian_options(float_route="fast")
    with pytest.raises(ValueError, match=r"float_gap_levels must be >= 0.0, got -1"):
        validate_hungarian_options(float_gap_levels=-1)
    assert validate_hungarian_options()["float_gap_levels"] == 10.0
    with pytest.raises(ValueError, match=r"float_range must be > 0.0, got 0.0"):
        validate_hungarian_options(float_range=0)
    with pytest.raises(TypeError, match=r"float_range must be a real number, got 'x' of type str"):
        validate_hungarian_options(float_range="x")
    o = validate_hungarian_options()
    assert (o["float_route"], o["float_range"]) == ("repair", 10.0)


@gpu_mark
def test_not_multiple_of_block_and_many_blocks():
    rng = np.random.default_rng(3)
    for n, bs in [(77, 32), (129, 64), (200, 1), (65, 2)]:
        C = rng.integers(0, n, size=(n, n))
        res = _lopes(C, block_size=bs, grid_size=max(2, n // 8))
        assert res.stats["grid_size"] >= 2


@gpu_mark
def test_repeated_runs_are_valid():
    """Races differ from run to run: every one of 20 runs must be optimal with exact duals."""
    rng = np.random.default_rng(11)
    n = 256
    C = rng.integers(0, n, size=(n, n))
    best = C[scipy_lsa(C)].sum()
    for _ in range(20):
        res = matchflow.assignment(C, method="lopes", backend="gpu", block_size=32)
        assert res.backend == "gpu" and res.cost == best
        verify_assignment(C, res)


@gpu_mark
def test_device_matrix_has_no_h2d():
    """A matrix already on the device (matchflow.gpu.to_device): no host-to-device copy, exact duals."""
    rng = np.random.default_rng(5)
    C = rng.integers(0, 64, size=(64, 64)).astype(np.int32)
    for loop in LOOPS:
        c4r, u, v, st_ = gpu.hungarian(gpu.to_device(C), block_size=32, loop=loop)
        assert st_["seconds_h2d"] == 0.0 and st_["loop"] == loop
        red = C.astype(np.int64) - u[:, None] - v[None, :]
        assert red.min() >= 0 and np.all(red[np.arange(64), c4r] == 0)
        assert C[np.arange(64), c4r].sum() == C[scipy_lsa(C)].sum()


@gpu_mark
def test_numba_performance_warnings_stay_inside():
    """Small inputs are deliberate low-occupancy launches: numba's NumbaPerformanceWarning must not reach the
    caller, and the caller's warning filters are left as they were."""
    import warnings

    from matchflow._cuda._env import performance_warnings

    C = np.arange(9).reshape(3, 3)
    with warnings.catch_warnings():
        for cat in performance_warnings():  # numba-cuda's own class too
            warnings.simplefilter("error", cat)
        before = list(warnings.filters)
        for loop in LOOPS:
            _lopes(C, block_size=32, loop=loop)
        assert warnings.filters == before


@gpu_mark
@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 7), hi=st.sampled_from([0, 1, 2, 5, 100, 2**40]), seed=st.integers(0, 2**31),
       bs=st.sampled_from([1, 2, 4, 32]), loop=st.sampled_from(LOOPS))
def test_hypothesis_small_vs_bruteforce(n, hi, seed, bs, loop):
    rng = np.random.default_rng(seed)
    C = rng.integers(0, hi + 1, size=(n, n), dtype=np.int64)
    res = _lopes(C, block_size=bs, loop=loop)
    assert res.cost == assignment_bruteforce(C)


# ----------------------------------------------------------------------------- as users call it (issue 9)

# the simulator runs the step kernels' blocks as racing threads without a real grid sync: one block there
KW = dict(block_size=64, grid_size=1) if is_simulator() else dict(block_size=32)


@gpu_mark
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_host_integer_matrix_is_uploaded_as_is_and_certified_on_the_device(dtype):
    """assignment(C, backend="gpu") of a square integer matrix >= 0: no int64 preparation (stats["direct"]),
    the certificate checked on the device (stats["certified"]), the caller's duals, SciPy's optimum."""
    rng = np.random.default_rng(21)
    for n, hi in ((40, 4), (97, 97), (130, 1300)):
        C = rng.integers(0, hi + 1, size=(n, n)).astype(dtype)
        res = matchflow.assignment(C, backend="gpu", **KW)
        assert res.stats["direct"] and res.stats["certified"] == "device" and res.backend == "gpu"
        assert res.col_ind.dtype == np.int64 and res.row_ind.dtype == np.int64
        assert res.cost == int(C[scipy_lsa(C)].sum())
        verify_assignment(C, res)


@gpu_mark
def test_negative_or_rectangular_or_maximize_take_the_general_path():
    rng = np.random.default_rng(22)
    C = rng.integers(-50, 50, size=(60, 60))
    for kw, M in (({}, C), ({}, C[:, :45] + 50), ({"maximize": True}, C + 50)):
        res = matchflow.assignment(M, backend="gpu", **KW, **kw)
        assert "direct" not in res.stats
        r, c = scipy_lsa(M, maximize=kw.get("maximize", False))
        assert res.cost == int(M[r, c].sum())
        verify_assignment(M, res)


@gpu_mark
def test_raw_hungarian_rejects_negative_costs():
    with pytest.raises(ValueError, match=r"C must hold entries >= 0, got minimum -3"):
        gpu.hungarian(np.array([[1, -3], [2, 2]], dtype=np.int32))


def _device_matrices() -> list:
    from numba import cuda

    out = [("numba", cuda.to_device, lambda x: x.copy_to_host())]
    try:
        import cupy

        out.append(("cupy", cupy.asarray, cupy.asnumpy))
    except Exception:  # noqa: BLE001 - cupy missing or without a usable GPU
        pass
    try:
        import torch

        if torch.cuda.is_available():
            out.append(("torch", lambda a: torch.as_tensor(a, device="cuda"), lambda x: x.cpu().numpy()))
    except Exception:  # noqa: BLE001
        pass
    return out


@gpu_mark
def test_device_resident_matrix_stays_on_the_device():
    """A device integer matrix (numba, CuPy, PyTorch): no host copy, the answer on the device in the same
    library, exact duals; a float one is copied to the host once (the repair reads it there), read on the device
    by the float route (no upload), certified there, and answered on the device in its library too."""
    rng = np.random.default_rng(23)
    C = rng.integers(0, 300, size=(90, 90)).astype(np.int32)
    best = int(C[scipy_lsa(C)].sum())
    for lib, make, to_host in _device_matrices():
        x = make(C)
        res = matchflow.assignment(x, **KW)
        assert res.stats["direct"] and res.backend == "gpu" and res.stats["seconds_h2d"] == 0.0, lib
        assert lib == "numba" or type(res.col_ind).__module__.split(".")[0] == lib, type(res.col_ind)
        r, c, u, v = (to_host(a) for a in (res.row_ind, res.col_ind, res.u, res.v))
        assert res.cost == best and int(C[r, c].sum()) == best
        red = C.astype(np.int64) - u[:, None] - v[None, :]
        assert red.min() >= 0 and np.all(red[r, c] == 0)
        resf = matchflow.assignment(make(C.astype(np.float64) + 0.5), backend="gpu", **KW)
        assert "direct" not in resf.stats and resf.cost == best + 45.0 and resf.stats["input_library"] == lib
        assert lib == "numba" or type(resf.col_ind).__module__.split(".")[0] == lib, type(resf.col_ind)
        assert resf.stats["certificate_rows_on"] == "gpu" and resf.backend == "gpu"
        r, c = to_host(resf.row_ind), to_host(resf.col_ind)
        assert float(C[r, c].sum()) + 45.0 == resf.cost


@gpu_mark
def test_strided_device_matrix_is_copied_once_on_the_device():
    """A transposed or Fortran-ordered device matrix (CuPy, PyTorch) is solved, not refused: one C-contiguous
    copy on the same device (``c_contiguous_device``), the answer in the caller's library."""
    rng = np.random.default_rng(29)
    C = rng.integers(0, 500, size=(70, 70)).astype(np.int32)
    best = int(C[scipy_lsa(C)].sum())
    views = []
    for lib, make, to_host in _device_matrices():
        if lib == "cupy":
            import cupy

            views.append((lib, cupy.asfortranarray(make(C)), to_host))
        if lib == "torch":
            views.append((lib, make(np.ascontiguousarray(C.T)).t(), to_host))
    if not views:
        pytest.skip("neither CuPy nor PyTorch with CUDA is installed")
    for lib, x, to_host in views:
        res = matchflow.assignment(x, **KW)
        assert res.backend == "gpu" and res.cost == best, lib
        assert type(res.col_ind).__module__.split(".")[0] == lib
        r, c = to_host(res.row_ind), to_host(res.col_ind)
        assert int(C[r, c].sum()) == best


def test_auto_rule_sends_floats_to_the_gpu_only_from_the_measured_size():
    """``method="auto"`` places float costs on the GPU from GPU_MIN_N_FLOAT (the float route measured faster
    than the CPU JV end to end there), from the shape alone; integers keep their range rule."""
    from matchflow.assignment._methods import GPU_MIN_N_FLOAT, Problem, gpu_measured_faster

    for dt in (np.float64, np.float32):
        assert gpu_measured_faster(Problem((GPU_MIN_N_FLOAT, GPU_MIN_N_FLOAT), np.dtype(dt), range_=1.0))
        assert not gpu_measured_faster(Problem((GPU_MIN_N_FLOAT - 1, 10), np.dtype(dt), range_=1.0))
    assert not gpu_measured_faster(Problem((8192, 8192), np.dtype(np.int64), range_=100 * 8192))
    assert gpu_measured_faster(Problem((8192, 8192), np.dtype(np.int32), range_=8192))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_granularity_kernel_matches_the_certificate_granularity(dtype):
    """The one-pass granularity kernel (the float certificate's ``_verify.granularity``; the NumPy version it
    replaced was 0.3 s of the public float call at n = 4096) agrees with the entry-by-entry oracle on random,
    dyadic, subnormal, huge, zero and forbidden entries."""
    from matchflow.assignment._prepare import granularity_exponent_kernel
    from matchflow.assignment._verify import granularity
    from tests.naive import granularity_naive

    rng = np.random.default_rng(41)
    mats = [rng.random((30, 20)), np.round(rng.random((9, 9)) * 64) / 8, np.full((3, 3), 5e-324),
            np.array([[1e300, 3.0], [np.inf, 0.0]]), np.zeros((4, 4)), rng.integers(-9, 9, (6, 6)) * 2.0**-40,
            np.array([[np.inf, 2.0**-1074 * 6]]),
            rng.choice([-1.0, 1.0], (20, 20)) * rng.random((20, 20)) * 10.0 ** rng.uniform(-300, 300, (20, 20)),
            np.array([[2.0**-1074 * 3, 1.5, -np.inf], [2.0**-1022, 0.0, 3.0 * 2.0**-1060]])]
    for a in mats:
        with np.errstate(over="ignore"):
            a = np.asarray(a, dtype=dtype)
        g = granularity_naive(a)
        k = granularity_exponent_kernel(a)
        assert (k == 1 << 30 and g == np.inf) or g == 2.0**k, (a, g, k)
        assert granularity(a) == g
