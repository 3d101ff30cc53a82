"""Backend discovery: which compute backends exist on this machine.

Nothing here imports ``numba.cuda`` at module import time, so ``import matchflow``
works on machines without a GPU, without a CUDA driver or without numba-cuda (the
``gpu`` extra). The probe looks for numba-cuda and the CUDA driver library first and
imports ``numba.cuda`` (~0.5 s) only when both exist or the CUDA simulator is on.
GPU entry points call :func:`require_gpu`, which raises :class:`GPUUnavailableError`
with the reason.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
import sys

from ._cuda._env import is_simulator

__all__ = ["GPUUnavailableError", "gpu_available", "gpu_reason", "require_gpu", "resolve_backend", "gpu_info"]

BACKENDS = ("auto", "cpu", "gpu")


class GPUUnavailableError(RuntimeError):
    """Raised when a GPU entry point is called on a machine without a usable GPU."""


GPU_EXTRA_HINT = 'pip install "matchflow[gpu]"'


def _env_on(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def _numba_cuda_installed() -> bool:
    """True when the numba-cuda package can be imported (checked without importing it)."""
    try:
        return importlib.util.find_spec("numba_cuda") is not None
    except (ImportError, ValueError):  # a broken or hidden installation
        return False


def _driver_found() -> tuple[bool, str]:
    """Look for the CUDA driver library without importing numba.cuda (a few ms instead of ~0.3-0.5 s).

    Tries the places numba-cuda's ``locate_driver_and_loader`` tries (``NUMBA_CUDA_DRIVER`` first), in
    the same order, with ctypes; no CUDA call is made, so no context is created.
    """
    if sys.platform == "win32":
        names, dirs = ["nvcuda.dll"], ["\\windows\\system32"]
    elif sys.platform == "darwin":
        names, dirs = ["libcuda.dylib"], ["/usr/local/cuda/lib"]
    else:
        names, dirs = ["libcuda.so", "libcuda.so.1"], ["/usr/lib", "/usr/lib64"]
    candidates = [os.environ["NUMBA_CUDA_DRIVER"]] if os.environ.get("NUMBA_CUDA_DRIVER") else []
    candidates += names + [os.path.join(d, n) for d in dirs for n in names]
    for path in candidates:
        try:
            ctypes.CDLL(path)
        except OSError:
            continue
        return True, path
    return False, f"{' / '.join(names)} cannot be loaded"


@functools.lru_cache(maxsize=1)
def _probe() -> tuple[bool, str]:
    """(usable, reason). Imports numba.cuda only when a CUDA driver exists or the simulator is on."""
    if _env_on("MATCHFLOW_DISABLE_GPU"):
        return False, "the GPU backend is disabled by MATCHFLOW_DISABLE_GPU"
    if not _numba_cuda_installed():
        return False, f"numba-cuda is not installed (the GPU backend needs it: {GPU_EXTRA_HINT})"
    simulator = is_simulator()
    if not simulator:
        found, detail = _driver_found()
        if not found:
            return False, f"no CUDA-capable GPU or driver was found ({detail})"
    try:
        from numba import cuda  # noqa: PLC0415 - deliberately lazy
    except Exception as exc:  # pragma: no cover - depends on the installation
        return False, f"numba.cuda cannot be imported ({type(exc).__name__}: {exc}; {GPU_EXTRA_HINT})"
    try:
        ok = bool(cuda.is_available())
    except Exception as exc:  # pragma: no cover
        return False, f"CUDA is not usable ({type(exc).__name__}: {exc})"
    if not ok:
        return False, "no CUDA-capable GPU or driver was found"
    if simulator:
        return True, "CUDA simulator (NUMBA_ENABLE_CUDASIM=1)"
    return True, "ok"


def gpu_available() -> bool:
    """True when numba-cuda is installed and finds a usable GPU (or the CUDA simulator is on).

    Examples
    --------
    >>> from matchflow import gpu_available
    >>> isinstance(gpu_available(), bool)  # False here means: the CPU backend only
    True
    """
    return _probe()[0]


def gpu_reason() -> str:
    """Why the GPU backend is (un)available, as a short sentence.

    Examples
    --------
    >>> from matchflow.gpu import gpu_reason
    >>> isinstance(gpu_reason(), str)
    True
    """
    return _probe()[1]


def require_gpu(what: str = "this solver") -> None:
    """Raise :class:`GPUUnavailableError` unless a GPU can be used."""
    ok, reason = _probe()
    if not ok:
        raise GPUUnavailableError(
            f"backend='gpu' was requested for {what}, but {reason}. "
            "Use backend='cpu' or backend='auto' to run on the CPU."
        )


def resolve_backend(backend: str, *, gpu_supported: bool = True, what: str = "this solver") -> str:
    """Map ``backend`` ("auto", "cpu" or "gpu") to the backend that will run.

    ``auto`` picks the GPU when one is present and the method supports it.
    """
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "cpu":
        return "cpu"
    if backend == "gpu":
        if not gpu_supported:
            raise ValueError(f"backend='gpu' is not available for {what}; use backend='cpu'")
        require_gpu(what)
        return "gpu"
    return "gpu" if (gpu_supported and gpu_available()) else "cpu"


@functools.lru_cache(maxsize=1)
def gpu_info() -> dict | None:
    """Name, compute capability, memory and SM count of GPU 0, or None without a GPU."""
    if not gpu_available():
        return None
    from numba import cuda  # noqa: PLC0415

    try:
        dev = cuda.get_current_device()
        name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        free, total = cuda.current_context().get_memory_info()
        return {
            "name": name,
            "compute_capability": ".".join(map(str, dev.compute_capability)),
            "memory_total_bytes": int(total),
            "memory_free_bytes": int(free),
            "multiprocessors": int(getattr(dev, "MULTIPROCESSOR_COUNT", 0)),
        }
    except Exception as exc:  # pragma: no cover - simulator or odd drivers
        return {"name": f"unknown ({type(exc).__name__}: {exc})"}
