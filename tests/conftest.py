import importlib.util
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from matchflow._cuda import is_simulator  # reads the environment only: numba.cuda is not imported

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# ci and dev are derandomized (the same examples in every process); "thorough" explores with fresh seeds
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

# ../shared/data beside the checkout (present on developer machines and in CI), or $MATCHFLOW_DATA.
_here = Path(__file__).resolve().parent
SHARED_DATA = Path(os.environ.get("MATCHFLOW_DATA", _here.parent.parent / "shared" / "data"))


def load_script(name: str):
    """``scripts/<name>.py`` loaded as a module (scripts are not a package; their tests call into them)."""
    spec = importlib.util.spec_from_file_location(name, _here.parent / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def pytest_collection_modifyitems(config, items):
    from matchflow._backend import gpu_available, gpu_reason

    if gpu_available():
        return
    skip = pytest.mark.skip(reason=f"needs a GPU: {gpu_reason()}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


# ---- the GPU test prelude, one for every tests/**/test_*gpu*.py: ``from conftest import LOOPS, SIM, device_only, gpu``
SIM = is_simulator()  # numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1): no warp intrinsics, no grid sync, slow
gpu = pytest.mark.gpu  # needs a GPU: skipped without one by the collection hook above (the simulator counts as one)
device_only = pytest.mark.skipif(SIM, reason="not in the CUDA simulator (no warp intrinsics or grid sync; too slow)")
LOOPS = ("host",) if SIM else ("persistent", "host")  # the GPU drivers: a persistent cooperative kernel, host rounds


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "MANIFEST.md").exists():
        msg = (f"real-data tests need the shared data folder ({SHARED_DATA}/MANIFEST.md not found): "
               "put it beside the checkout as ../shared/data or set MATCHFLOW_DATA")
        if os.environ.get("CI"):
            pytest.fail(msg + " -- CI must run them")  # never skip silently in CI
        pytest.skip(msg)
    return SHARED_DATA


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def backend(request) -> str:
    """The device a public-entry-point test runs on: "cpu" always, "gpu" marked ``gpu``
    (skipped without a GPU by the collection hook above)."""
    return request.param


@pytest.fixture
def warm_gpu_process(monkeypatch):
    """``backend="auto"`` as in a process that has already used the GPU (its first-use rule met), whatever ran
    before in this test process; the state is restored afterwards."""
    from matchflow import _methods

    monkeypatch.setattr(_methods, "_GPU_WARM", [True])


@pytest.fixture
def cold_gpu_process(monkeypatch):
    """``backend="auto"`` as in a fresh process that has not used the GPU yet."""
    from matchflow import _methods

    monkeypatch.setattr(_methods, "_GPU_WARM", [False])
