"""Host side of a GPU solve: grid sizing, counted launches and reads, the cooperative compile-and-
occupancy cache, and host rounds with a check interval. Imports numba.cuda only to compile a cooperative
kernel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["grid", "cooperative_grid", "Launcher", "cooperative_kernel", "host_rounds", "launch_typed"]

_COOP_CACHE: dict[tuple, tuple[Any, int]] = {}
_TYPED: dict[tuple, Any] = {}


def launch_typed(kern: Any, key: Any, blocks: int, threads: int, shmem: int, *args: Any) -> None:
    """``kern[blocks, threads, 0, shmem](*args)`` through the compiled overload found once per ``key`` (the
    caller's name for its argument types, e.g. the costs' dtype): numba-cuda's dispatcher types every argument
    on every launch (H200, 2026-11-29: 258 us to launch the batched kernel against 86 us for an empty kernel of
    16 arrays); this skips it. The simulator launches as usual."""
    k = _TYPED.get((kern, key))
    if k is None:
        from ._env import is_simulator  # noqa: PLC0415

        if is_simulator():
            kern[blocks, threads, 0, shmem](*args)
            return
        k = _TYPED[(kern, key)] = kern.compile(tuple(kern.typeof_pyval(a) for a in args))
        _TYPED["stream"] = _default_stream()
    k.launch(args, (int(blocks), 1, 1), (int(threads), 1, 1), _TYPED["stream"], int(shmem))


def _default_stream() -> Any:
    """The default stream as the compiled kernel's ``launch`` takes it: numba-cuda >= 0.2x launches through
    cuda.core, which wants a stream object (the dispatcher converts ``0`` the same way); older ones take 0."""
    from numba.cuda.cudadrv import driver  # noqa: PLC0415

    conv = getattr(driver, "_to_core_stream", None)
    return conv(0) if conv is not None else 0


def grid(n: int, block_size: int) -> int:
    """Blocks of ``block_size`` threads covering ``n`` items (at least one)."""
    return max(1, (int(n) + block_size - 1) // block_size)


def cooperative_grid(gmax: int, blocks: int, grid_size: int | None) -> int:
    """Blocks of a persistent (cooperative) launch: no more than are co-resident (``gmax``, from
    :func:`cooperative_kernel`) or than the work covers (``blocks``), capped by the ``grid_size`` option (None: no cap)."""
    gsize = min(gmax, blocks)
    return gsize if grid_size is None else min(gsize, grid_size)


class Launcher:
    """Launches 1-D kernels of ``block_size`` threads per block; counts launches and host reads (syncs)."""

    __slots__ = ("block_size", "launches", "syncs")

    def __init__(self, block_size: int) -> None:
        self.block_size = block_size
        self.launches = 0
        self.syncs = 0

    def __call__(self, kern: Any, size: int, *args: Any) -> None:
        """One thread per item: ``kern[grid(size), block_size](*args)``."""
        self.on(kern, grid(size, self.block_size), *args)

    def on(self, kern: Any, blocks: int, *args: Any) -> None:
        """``kern[blocks, block_size](*args)``: a launch of a given number of blocks."""
        kern[blocks, self.block_size](*args)
        self.launches += 1

    def once(self, kern: Any, blocks: int, args: tuple, out: Any) -> np.ndarray:
        """A persistent kernel's one launch on ``blocks`` blocks, then its stats ``out`` on the host (one read)."""
        kern[blocks, self.block_size](*args)
        self.launches += 1
        self.syncs += 1
        return out.copy_to_host()

    def over(self, size: int) -> int:
        """Blocks of ``block_size`` threads covering ``size`` items (:func:`grid`)."""
        return grid(size, self.block_size)

    def value(self, a: Any, i: int = 0) -> Any:
        """``a[i]`` on the host, as stored (one device-to-host copy: a host sync)."""
        self.syncs += 1
        return a.copy_to_host()[i]

    def read(self, a: Any) -> int:
        """``a[0]`` on the host as an int (one device-to-host copy: a host sync)."""
        return int(self.value(a))

    def zero(self, a: Any) -> None:
        """Reset a one-word int32 counter on the device."""
        a.copy_to_device(np.zeros(1, np.int32))


def _signature(args: tuple) -> tuple:
    return tuple((str(a.dtype), getattr(a, "ndim", 0)) if hasattr(a, "dtype") else type(a).__name__ for a in args)


def cooperative_kernel(kern: Any, args: tuple, block_size: int, max_registers: int | None = None
                       ) -> tuple[Any, int]:
    """A cooperative kernel compiled for ``args`` and its most co-resident blocks of ``block_size`` threads.

    Cached per kernel, block size, register cap and argument dtypes (never per container type). The
    count is 0 when not even one block fits an SM (a kernel of > 128 registers per thread with blocks of
    512 or 1024): the caller then falls back to one launch per phase.
    """
    key = (kern, block_size, max_registers, _signature(args))
    hit = _COOP_CACHE.get(key)
    if hit is None:
        from numba import cuda  # noqa: PLC0415

        k = cuda.jit(max_registers=max_registers)(kern.py_func) if max_registers is not None else kern
        if max_registers is None and _caching(kern):
            # specialize() makes a dispatcher without the on-disk cache: compile on the cached one instead
            spec, kobj = kern, kern.compile(tuple(kern.typeof_pyval(a) for a in args))
        else:
            spec = k.specialize(*args)
            kobj = next(iter(spec.overloads.values()))
        hit = _COOP_CACHE[key] = (spec, int(kobj.max_cooperative_grid_blocks(block_size)))
    return hit


def _caching(kern: Any) -> bool:
    """Whether ``kern`` was compiled with ``cache=True`` (numba-cuda's on-disk cache)."""
    return type(getattr(kern, "_cache", None)).__name__ not in ("NullCache", "NoneType")


def host_rounds(one_round: Callable[[int], None], read: Callable[[Any], int], flag: Any, check_every: int,
                max_rounds: int) -> int:
    """Rounds launched from the host until one stamps no activity in ``flag`` (round r writes r there; the
    host reads it every ``check_every`` rounds) or ``max_rounds`` ran. Returns the rounds launched (up to
    ``check_every - 1`` idle ones after the last active)."""
    rnd = 0
    while rnd < max_rounds:
        last = rnd
        for _ in range(min(check_every, max_rounds - rnd)):
            one_round(rnd)
            last = rnd
            rnd += 1
        if read(flag) != last:
            break
    return rnd
