"""One validation layer shared by every solver.

Every message names the argument and shows the offending value, so users see
what to fix; tests pin the messages with ``pytest.raises(match=...)``.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = [
    "check_choice",
    "check_int",
    "check_real",
    "check_bool",
    "check_options",
    "is_cupy_array",
    "is_torch_tensor",
    "native_array",
    "readonly",
    "to_host_array",
    "type_name",
]


def type_name(x: Any) -> str:
    t = type(x)
    mod = t.__module__
    return t.__qualname__ if mod == "builtins" else f"{mod}.{t.__qualname__}"


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_int(name: str, value: Any, *, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r} of type {type_name(value)}")
    v = int(value)
    if low is not None and v < low:
        raise ValueError(f"{name} must be >= {low}, got {v}")
    if high is not None and v > high:
        raise ValueError(f"{name} must be <= {high}, got {v}")
    return v


def check_real(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
) -> float:
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type_name(value)}")
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v!r}")
    if low is not None and (v < low or (not low_inclusive and v == low)):
        op = ">=" if low_inclusive else ">"
        raise ValueError(f"{name} must be {op} {low}, got {v!r}")
    if high is not None and v > high:
        raise ValueError(f"{name} must be <= {high}, got {v!r}")
    return v


def check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_options(where: str, options: dict, allowed: Iterable[str]) -> None:
    """Reject unknown ``**options`` keywords with the list of accepted ones."""
    allowed = sorted(allowed)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        acc = ", ".join(allowed) if allowed else "none"
        raise TypeError(f"{where} got unexpected option(s) {', '.join(map(repr, unknown))}; accepted: {acc}")


def is_cupy_array(x: Any) -> bool:
    mod = type(x).__module__
    return mod.startswith("cupy") and hasattr(x, "__cuda_array_interface__")


def is_torch_tensor(x: Any) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "is_cuda")


def to_host_array(x: Any, name: str) -> np.ndarray:
    """Return a NumPy view/copy of a NumPy, CuPy or PyTorch array (dense)."""
    if isinstance(x, np.ndarray):
        return x
    if is_cupy_array(x):
        return x.get()
    if is_torch_tensor(x):
        if getattr(x, "is_sparse", False) or str(getattr(x, "layout", "")) != "torch.strided":
            raise TypeError(f"{name} is a sparse torch tensor; convert it with .to_dense() or pass a scipy.sparse matrix")
        return x.detach().cpu().numpy()
    try:
        return np.asarray(x)
    except Exception as exc:
        raise TypeError(f"{name} cannot be converted to an array: {type_name(x)} ({exc})") from exc


def readonly(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Read-only views (no copy) of ``arrays``, for a Numba kernel's inputs: Numba types a read-only array
    (a ``np.broadcast_to`` result, a view of one) apart from a writable one and compiles the kernel once per
    combination; inputs passed through this give it one, whatever the caller's flags."""
    out = []
    for a in arrays:
        v = a.view()
        v.flags.writeable = False
        out.append(v)
    return tuple(out)


def native_array(a: np.ndarray, name: str) -> np.ndarray:
    """``a`` in native byte order with a dtype the Numba kernels compile for.

    Big-endian (or otherwise non-native) ``>i8``, ``>i4``, ``>i2``, ``>u2``, ``>f8``, ...
    arrays are converted to the same kind and width in native order (one copy, exact);
    bool, native integers and native floats are returned unchanged (no copy). Every
    family's door calls this after :func:`to_host_array`. Non-numeric dtypes are left
    to the caller's own type check (``name`` is kept for the callers' messages).
    """
    dt = a.dtype
    if dt.kind in "biufc" and not dt.isnative:
        return a.astype(dt.newbyteorder("="))
    return a


def as_rng(seed: Any) -> np.random.Generator:
    """``seed`` (None, an int >= 0 or a Generator) as a ``numpy.random.Generator``; the generators' seeds."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise TypeError(f"seed must be an integer, None or a numpy.random.Generator, got {seed!r} "
                        f"of type {type_name(seed)}")
    if seed is not None and int(seed) < 0:
        raise ValueError(f"seed must be >= 0, got {int(seed)}")
    return np.random.default_rng(seed)
