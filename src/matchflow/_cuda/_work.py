"""A small cache of device work buffers, so that a repeated GPU solve of one size allocates nothing.

A work buffer is scratch memory that a solve fills before it reads it (labels, active lists, frontier
queues, sync words, a CSC built for one call): never a result handed to the caller. Buffers are keyed
by ``(tag, length, dtype, device, thread)``; each call site uses its own tag, so two buffers of one
solve never alias. The cache keeps at most :data:`LIMIT_BYTES` (``MATCHFLOW_GPU_WORK_BYTES``, default
256 MiB; 0 turns it off), evicting the least recently used; :func:`clear_work_cache` frees it all.
Streams: every matchflow kernel runs on the default stream, so a reused buffer is ordered after its
previous use.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = ["work_array", "clear_work_cache", "work_cache_info", "LIMIT_BYTES"]

LIMIT_BYTES = int(os.environ.get("MATCHFLOW_GPU_WORK_BYTES", str(256 << 20)))

_CACHE: OrderedDict[tuple, Any] = OrderedDict()
_COUNTS = {"hits": 0, "misses": 0}
_LOCK = threading.Lock()


def work_array(tag: str, n: int, dtype: Any) -> Any:
    """A device array of ``max(n, 1)`` elements of ``dtype`` (uninitialised) for scratch use ``tag``."""
    from numba import cuda  # noqa: PLC0415

    dt = np.dtype(dtype)
    n = max(int(n), 1)
    if LIMIT_BYTES <= 0 or n * dt.itemsize > LIMIT_BYTES:
        _COUNTS["misses"] += 1
        return cuda.device_array(n, dtype=dt)
    key = (tag, n, dt.str, getattr(cuda.get_current_device(), "id", 0), threading.get_ident())
    with _LOCK:
        a = _CACHE.get(key)
        if a is not None:
            _CACHE.move_to_end(key)
            _COUNTS["hits"] += 1
            return a
        _COUNTS["misses"] += 1
        a = cuda.device_array(n, dtype=dt)
        _CACHE[key] = a
        total = sum(x.nbytes for x in _CACHE.values())
        while total > LIMIT_BYTES and len(_CACHE) > 1:
            _, old = _CACHE.popitem(last=False)
            total -= old.nbytes
        return a


def clear_work_cache() -> int:
    """Drop every cached work buffer (their memory returns to numba's allocator); returns the bytes dropped."""
    with _LOCK:
        total = sum(x.nbytes for x in _CACHE.values())
        _CACHE.clear()
        _COUNTS["hits"] = _COUNTS["misses"] = 0
    return total


def work_cache_info() -> dict[str, int]:
    """``{"entries", "bytes", "hits", "misses"}`` of the cache (misses: arrays allocated)."""
    with _LOCK:
        return {"entries": len(_CACHE), "bytes": sum(x.nbytes for x in _CACHE.values()), **_COUNTS}
