"""Backend discovery: which compute backends exist on this machine.

Nothing here imports ``numba.cuda`` at module import time, so ``import matchflow``
works on machines without a GPU or without a CUDA driver. GPU entry points call
:func:`require_gpu`, which raises :class:`GPUUnavailableError` with the reason.
"""

from __future__ import annotations

import functools
import os

__all__ = ["GPUUnavailableError", "gpu_available", "gpu_reason", "require_gpu", "resolve_backend", "gpu_info"]

BACKENDS = ("auto", "cpu", "gpu")


class GPUUnavailableError(RuntimeError):
    """Raised when a GPU entry point is called on a machine without a usable GPU."""


@functools.lru_cache(maxsize=1)
def _probe() -> tuple[bool, str]:
    if os.environ.get("MATCHFLOW_DISABLE_GPU", "") not in ("", "0"):
        return False, "the GPU backend is disabled by MATCHFLOW_DISABLE_GPU"
    try:
        from numba import cuda  # noqa: PLC0415 - deliberately lazy
    except Exception as exc:  # pragma: no cover - depends on the installation
        return False, f"numba.cuda cannot be imported ({type(exc).__name__}: {exc})"
    simulator = os.environ.get("NUMBA_ENABLE_CUDASIM", "") not in ("", "0")
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
    """True when numba-cuda finds a usable GPU (or the CUDA simulator is on)."""
    return _probe()[0]


def gpu_reason() -> str:
    """Why the GPU backend is (un)available, as a short sentence."""
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
