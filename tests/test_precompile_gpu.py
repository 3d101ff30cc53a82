"""``precompile(gpu=True)`` / ``matchflow precompile --gpu`` (issue 24, first use): a GPU step maker for every
family with a GPU twin, the clear error without a GPU, the CLI flag, and on a device the kernels it compiles
into an empty cache (and nothing in a second process)."""

from __future__ import annotations

import importlib
import json

import pytest
from conftest import device_only, gpu
from test_first_use import _run

from matchflow import GPUUnavailableError, _backend
from matchflow._methods import MethodTable
from matchflow._progress import _MAKERS, FAMILIES, precompile


def _gpu_methods(family: str) -> set[str]:
    """The GPU twins in the method tables of ``family``'s package (none for a family without tables)."""
    try:
        mod = importlib.import_module(f"matchflow.{family.split('-')[-1]}._methods")
    except ModuleNotFoundError:
        return set()
    return {m for t in vars(mod).values() if isinstance(t, MethodTable) for m in t.gpu_names}


def test_every_family_with_a_gpu_twin_has_gpu_steps_naming_each_twin():
    """Built on the CPU (no solve runs): a family whose tables hold a GPU twin has a GPU step maker, and the steps
    of the families sharing those tables name every twin; a family without one has none."""
    assert set(_MAKERS) == set(FAMILIES)
    named: dict[str, list[str]] = {}
    for family in FAMILIES:
        cpu_steps, gpu_steps = _MAKERS[family]
        twins = _gpu_methods(family)
        assert (gpu_steps is not None) == bool(twins), family
        if gpu_steps is None:
            continue
        names = [name for name, fn in gpu_steps()]
        assert names and len(set(names)) == len(names) and all(callable(fn) for _, fn in gpu_steps()), family
        named.setdefault(family.split("-")[-1], []).extend(names)
    for package, names in named.items():
        for twin in _gpu_methods(package):
            assert any(repr(twin) in n for n in names), (package, twin)


def test_gpu_steps_cover_both_loops_and_both_batch_kernels():
    from matchflow._cuda import GPU_LOOPS
    from matchflow.batch._gpu_jv import KERNELS

    for family in FAMILIES:
        make = _MAKERS[family][1]
        names = [] if make is None else [n for n, _ in make()]
        if any("loop=" in n for n in names):
            assert {f"loop={loop!r}" for loop in GPU_LOOPS if loop != "auto"} <= {
                n[n.index("loop="):].split(")")[0].split(",")[0] for n in names if "loop=" in n}, family
    batch = [n for n, _ in _MAKERS["batch"][1]()]
    assert all(any(f"kernel={k!r}" in n for n in batch) for k in KERNELS if k != "auto")


def test_precompile_gpu_without_a_gpu_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(_backend, "_probe", lambda: (False, "no CUDA-capable GPU or driver was found"))
    with pytest.raises(GPUUnavailableError, match=r"matchflow\.precompile\(gpu=True\), but no CUDA-capable GPU"):
        precompile(families=("batch",), gpu=True, progress=False)


def test_cli_precompile_gpu_flag(monkeypatch, capsys):
    from matchflow._commands._main import build_parser, main

    args = build_parser().parse_args(["precompile", "--gpu", "--families", "batch", "mcf"])
    assert args.gpu is True and args.families == ["batch", "mcf"]
    assert build_parser().parse_args(["precompile"]).gpu is False
    monkeypatch.setattr(_backend, "_probe", lambda: (False, "no CUDA-capable GPU or driver was found"))
    assert main(["precompile", "--gpu", "--families", "batch"]) == 2
    assert "GPUUnavailableError" in capsys.readouterr().err


@gpu
@device_only
def test_precompile_gpu_batch_compiles_into_an_empty_cache_then_nothing(tmp_path):
    code = """
        import json
        from matchflow._progress import precompile
        print(json.dumps(precompile(families=("batch",), gpu=True)["kernels"]))
    """
    cold = json.loads(_run(code, NUMBA_CACHE_DIR=str(tmp_path)).stdout)
    for kernel in ("batch._gpu_jv_kernels.lsap_batch_kernel", "batch._gpu_jv_warp_kernels.lsap_warp_kernel",
                   "batch._gpu_verify_kernels.certify_items_kernel"):
        assert kernel in cold
    warm = _run(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert json.loads(warm.stdout) == [] and "[matchflow]" not in warm.stderr


def test_precompile_gpu_reports_the_gpu_kernels_each_step_compiled(monkeypatch):
    """Without a device: a stand-in GPU step bumps a real kernel's compile counter (numba-cuda's ``_cache_misses``,
    as a compile does; a cache load is a hit and counts nothing) and precompile names it, once per compile, in the
    CPU precompile's lines."""
    import io
    from collections import Counter

    from matchflow import _progress
    from matchflow.batch import _gpu_jv_kernels as K  # numba.cuda imports without a driver

    kern = K.lsap_batch_kernel
    monkeypatch.setattr(kern, "_cache_misses", Counter())
    monkeypatch.setattr(_progress, "require_gpu", lambda what: None)

    def compile_twice():
        kern._cache_misses["(int64[::1],)"] += 1
        kern._cache_misses["(float64[::1],)"] += 1

    monkeypatch.setitem(_MAKERS, "io", (lambda: [], lambda: [("stand-in GPU step", compile_twice),
                                                             ("cached GPU step", lambda: None)]))
    buf = io.StringIO()
    out = precompile(families=("io",), gpu=True, stream=buf)
    assert out["kernels"] == ["batch._gpu_jv_kernels.lsap_batch_kernel"] * 2 and out["steps"] == 2
    lines = buf.getvalue().splitlines()
    assert lines[0] == f"[matchflow] {_progress.NOTICE} ..."
    assert lines[1].startswith("[matchflow]   1/2 stand-in GPU step: 2 kernel(s), ")
    assert lines[2].startswith("[matchflow] compiled 2 kernel(s) in ") and len(lines) == 3
