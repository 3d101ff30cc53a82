"""Shared checks of the graph containers: index dtypes, index arrays, shapes, weight arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import native_array

_I32_MAX = np.iinfo(np.int32).max

#: dtypes kept as given for weights and capacities (native byte order); anything else is refused
WEIGHT_KINDS = "iuf"


def index_dtype(*sizes: int) -> np.dtype:
    """int32 when every size (vertex counts, edge count) fits in int32, else int64."""
    return np.dtype(np.int32) if max((int(s) for s in sizes), default=0) <= _I32_MAX else np.dtype(np.int64)


def check_index_array(name: str, a: Any, bound: int, bound_name: str) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        if np.issubdtype(a.dtype, np.floating) and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
            a = a.astype(np.int64)
        else:
            raise TypeError(f"{name} must hold integers, got dtype {a.dtype}")
    a = native_array(a, name)
    if a.size:
        lo, hi = int(a.min()), int(a.max())
        if lo < 0:
            raise ValueError(f"{name} holds a negative index {lo}")
        if hi >= bound:
            raise ValueError(f"{name} holds index {hi}, out of range for {bound_name}={bound}")
    return a


def check_shape(shape: Any) -> tuple[int, int]:
    try:
        n_rows, n_cols = (int(s) for s in shape)
    except Exception as exc:
        raise ValueError(f"shape must be a pair of non-negative integers, got {shape!r}") from exc
    if n_rows < 0 or n_cols < 0:
        raise ValueError(f"shape must be a pair of non-negative integers, got {shape!r}")
    return n_rows, n_cols


def check_weights(name: str, w: Any, length: int, *, nonnegative: bool = False) -> np.ndarray:
    """A 1-D weight (or capacity) array of ``length`` entries, dtype kept (integers stay integers,
    float32 stays float32), native byte order, finite (and ``>= 0`` with ``nonnegative``)."""
    w = np.asarray(w)
    if w.ndim != 1 or len(w) != length:
        raise ValueError(f"{name} must be a 1-D array of {length} entries (one per edge), got shape {w.shape}")
    if w.dtype.kind not in WEIGHT_KINDS:
        if w.size == 0 and w.dtype.kind in "bO":
            w = w.astype(np.float64)
        else:
            raise TypeError(f"{name} must hold integers or floats, got dtype {w.dtype}")
    if w.dtype == np.float16:
        w = w.astype(np.float32)
    w = native_array(w, name)
    if w.dtype.kind == "f" and not np.all(np.isfinite(w)):
        bad = w[~np.isfinite(w)][0]
        raise ValueError(f"{name} must be finite, got {bad}")
    if nonnegative and w.size and w.min() < 0:
        raise ValueError(f"{name} must be non-negative, got {w.min()}")
    return np.ascontiguousarray(w)
