"""One GPU option vocabulary for every GPU solver, validated in one place (no CUDA needed).

``loop``: "auto" | "persistent" (one cooperative kernel, grid syncs) | "host" (one launch per phase);
``certify``: check the answer on the device; ``max_rounds``: safety bound on the main loop's rounds;
``block_size``: threads per block, a power of two; ``grid_size``: blocks (default: the solver's).
Stats timing keys are ``seconds_<stage>``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .._validation import check_bool, check_choice, check_int

__all__ = ["BLOCK_MAX", "GPU_LOOPS", "GPU_OPTIONS", "check_block_size", "validate_gpu_options"]

GPU_LOOPS = ("auto", "persistent", "host")
GPU_OPTIONS = ("loop", "certify", "max_rounds", "block_size", "grid_size")
BLOCK_MAX = 1024
GRID_MAX = 1 << 20


def check_block_size(value: Any, low: int = 32) -> int:
    """``block_size``: a power of two in ``[low, 1024]`` (``low`` = 32 for kernels with warp intrinsics)."""
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"block_size must be an integer, got {value!r}")
    b = int(value)
    if b < low or b > BLOCK_MAX or b & (b - 1):
        raise ValueError(f"block_size must be a power of two in [{low}, {BLOCK_MAX}], got {b}")
    return b


def validate_gpu_options(
    solver: str,
    opts: dict[str, Any],
    *,
    block_low: int = 32,
    block_default: int = 256,
    certify_default: bool = True,
    deprecated: dict[str, tuple[str, Callable[[Any], Any] | None]] | None = None,
) -> dict[str, Any]:
    """Pop the common GPU options from ``opts`` (mutated) and return them normalised.

    ``deprecated`` maps an old option name to ``(new name, converter or None)``: the old name still
    works for one release, with a DeprecationWarning naming the new one; giving both is an error.
    Options the caller does not know are left in ``opts`` for its own check.
    """
    for old, (new, conv) in (deprecated or {}).items():
        if old not in opts:
            continue
        if new in opts:
            raise ValueError(f"{solver}: give {new}= only ({old}= is its deprecated alias), not both")
        warnings.warn(f"{solver}: option {old}= is deprecated, use {new}= instead", DeprecationWarning,
                      stacklevel=4)
        val = opts.pop(old)
        opts[new] = conv(val) if conv is not None else val
    out: dict[str, Any] = {}
    out["loop"] = check_choice("loop", opts.pop("loop", "auto"), GPU_LOOPS)
    out["certify"] = check_bool("certify", opts.pop("certify", certify_default))
    mr = opts.pop("max_rounds", None)
    out["max_rounds"] = None if mr is None else check_int("max_rounds", mr, low=1)
    bs = opts.pop("block_size", None)
    out["block_size"] = block_default if bs is None else check_block_size(bs, block_low)
    gs = opts.pop("grid_size", None)
    out["grid_size"] = None if gs is None else check_int("grid_size", gs, low=1, high=GRID_MAX)
    return out
