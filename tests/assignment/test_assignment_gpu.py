"""GPU Hungarian (Lopes et al. 2019): optimal cost vs SciPy, dual certificates, block splits, repeats.

GPU tests are marked ``gpu`` (skipped without a GPU); the host-side helpers are tested everywhere.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import assignment_bruteforce
from scipy.optimize import linear_sum_assignment as scipy_lsa

from matchflow.assignment._gpu_hungarian import choose_slack_dtype, hungarian_gpu


def _check(C: np.ndarray, col4row, u, v, *, exact: bool) -> None:
    n = C.shape[0]
    assert col4row.shape == (n,)
    assert np.array_equal(np.sort(col4row), np.arange(n)), "not a permutation"
    r, c = scipy_lsa(C)
    best = C[r, c].astype(np.float64).sum()
    got = C[np.arange(n), col4row].astype(np.float64).sum()
    if exact:
        assert C[np.arange(n), col4row].astype(object).sum() == C[r, c].astype(object).sum()
        red = C.astype(np.int64) - u.astype(np.int64)[:, None] - v.astype(np.int64)[None, :]
        assert red.min() >= 0
        assert np.all(red[np.arange(n), col4row] == 0)
    else:
        scale = max(1.0, float(np.abs(C).max())) * n
        assert got == pytest.approx(best, rel=1e-9, abs=1e-9 * scale)
        red = C.astype(np.float64) - u[:, None] - v[None, :]
        assert red.min() >= -1e-9 * scale
        assert np.abs(red[np.arange(n), col4row]).max() <= 1e-9 * scale


# ------------------------------------------------------------------ host-side helpers (no GPU needed)

def test_choose_slack_dtype():
    assert choose_slack_dtype(np.dtype(np.float32), 100, 1.0) == np.float64
    assert choose_slack_dtype(np.dtype(np.int64), 100, 1000) == np.int32
    assert choose_slack_dtype(np.dtype(np.int32), 8192, 10 * 8192) == np.int32
    assert choose_slack_dtype(np.dtype(np.int32), 16384, 10 * 16384) == np.int64
    assert choose_slack_dtype(np.dtype(np.int64), 4, 2**40) == np.int64


@pytest.mark.parametrize("bad", [0, 3, 2048, -4])
def test_block_size_rejected(bad):
    with pytest.raises(ValueError, match=rf"block_size must be a power of two in \[1, 1024\], got {bad}"):
        hungarian_gpu(np.zeros((2, 2)), block_size=bad)


def test_block_size_type_and_mode_rejected():
    with pytest.raises(TypeError, match="block_size must be an integer, got 2.5"):
        hungarian_gpu(np.zeros((2, 2)), block_size=2.5)
    with pytest.raises(ValueError, match="mode must be one of .*got 'fast'"):
        hungarian_gpu(np.zeros((2, 2)), mode="fast")


# ------------------------------------------------------------------ GPU

gpu = pytest.mark.gpu


_CASES = [(n, f, dt, "persistent") for n in (50, 137, 300) for f in (0.1, 1.0, 10.0) for dt in (np.int32, np.int64)]
_CASES += [(n, f, np.int32, "host") for n in (50, 137) for f in (0.1, 1.0, 10.0)]  # host loop: slow, fewer cases


@gpu
@pytest.mark.parametrize("n,rng_factor,dtype,mode", _CASES)
def test_random_int_vs_scipy(mode, dtype, rng_factor, n):
    rng = np.random.default_rng(1000 * n + int(10 * rng_factor))
    hi = max(1, int(rng_factor * n))
    C = rng.integers(0, hi + 1, size=(n, n)).astype(dtype)
    col4row, u, v, stats = hungarian_gpu(C, block_size=32, mode=mode)
    _check(C, col4row, u, v, exact=True)
    assert stats["seconds_solve"] > 0 and stats["iterations"] >= 1


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ties", [False, True])
def test_random_float_vs_scipy(dtype, ties):
    rng = np.random.default_rng(7 + ties)
    n = 120
    C = rng.random((n, n)) * 100
    if ties:
        C = np.round(C) / 4  # many exactly equal entries
    C = C.astype(dtype)
    col4row, u, v, stats = hungarian_gpu(C, block_size=64)
    _check(C, col4row, u, v, exact=False)
    assert stats["certificate_min_reduced_cost"] >= -1e-6


@gpu
@pytest.mark.parametrize("mode", ["persistent", "host"])
def test_tiny_and_degenerate(mode):
    c4r, u, v, _ = hungarian_gpu(np.array([[5]], dtype=np.int64), mode=mode)
    assert c4r.tolist() == [0] and u[0] + v[0] == 5
    C = np.full((97, 97), 7, dtype=np.int32)  # all equal: n^2 zeros
    c4r, u, v, _ = hungarian_gpu(C, block_size=16, mode=mode)
    _check(C, c4r, u, v, exact=True)
    C = np.zeros((33, 33))
    c4r, u, v, _ = hungarian_gpu(C, block_size=8, mode=mode)
    _check(C, c4r, u, v, exact=False)


@gpu
def test_not_multiple_of_block_and_many_blocks():
    rng = np.random.default_rng(3)
    for n, bs in [(77, 32), (129, 64), (200, 1), (65, 2)]:
        C = rng.integers(0, n, size=(n, n))
        c4r, u, v, st_ = hungarian_gpu(C, block_size=bs, grid_size=max(2, n // 8))
        _check(C, c4r, u, v, exact=True)
        assert st_["grid_size"] >= 2


@gpu
def test_repeated_runs_are_valid():
    rng = np.random.default_rng(11)
    n = 256
    C = rng.integers(0, n, size=(n, n))
    best = C[scipy_lsa(C)].sum()
    for _ in range(20):
        c4r, u, v, _ = hungarian_gpu(C, block_size=32)
        assert C[np.arange(n), c4r].sum() == best
        red = C - u[:, None] - v[None, :]
        assert red.min() >= 0 and np.all(red[np.arange(n), c4r] == 0)


@gpu
def test_device_array_input_has_no_h2d():
    from numba import cuda

    rng = np.random.default_rng(5)
    C = rng.integers(0, 64, size=(64, 64)).astype(np.int32)
    c4r, u, v, st_ = hungarian_gpu(cuda.to_device(C), block_size=32)
    _check(C, c4r, u, v, exact=True)
    assert st_["seconds_h2d"] == 0.0


@gpu
@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 7), hi=st.sampled_from([0, 1, 2, 5, 100, 2**40]), seed=st.integers(0, 2**31),
       bs=st.sampled_from([1, 2, 4, 32]), mode=st.sampled_from(["persistent", "host"]))
def test_hypothesis_small_vs_bruteforce(n, hi, seed, bs, mode):
    rng = np.random.default_rng(seed)
    C = rng.integers(0, hi + 1, size=(n, n), dtype=np.int64)
    c4r, u, v, _ = hungarian_gpu(C, block_size=bs, mode=mode)
    assert int(C[np.arange(n), c4r].sum()) == assignment_bruteforce(C)
    _check(C, c4r, u, v, exact=True)
