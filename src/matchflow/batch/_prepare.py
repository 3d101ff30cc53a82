"""The prepared batch: every item's costs in one flat array, read in place where possible.

Three forms, one :class:`BatchProblem` (the contract between the CPU and GPU solvers):

* a 3-D array ``(B, N, M)``: every item ``N x M``;
* a 3-D array plus ``shapes`` (``(B, 2)`` integers): item ``i`` is the top-left ``n_i x m_i`` corner (DETR's
  padded form; no copy of the corners);
* a list of 2-D arrays of any shapes (ragged): concatenated once, never padded to the largest.

NumPy input stays NumPy (a C-contiguous float64/int64 array is read in place); a PyTorch CPU tensor is read
through NumPy without a copy; CuPy arrays and PyTorch CUDA tensors stay on their device (one device-side cast
or copy when the dtype or layout is not float64/int64 C-contiguous). Costs: bool and integers -> int64 (uint64
beyond int64 -> float64, as SciPy reads every matrix), float16/bfloat16/float32/float64 -> float64. ``vals``
hold the user's costs (not negated for ``maximize``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .._cuda import c_contiguous_device, device_library, is_device_array
from .._validation import is_torch_tensor, native_array, type_name

__all__ = ["BatchProblem", "Solved", "prepare", "UNPROVED"]

UNPROVED = 4  # a solved item its solver's own certificate did not prove (beside OK 0, INFEASIBLE 1, INVALID 2)


@dataclass(frozen=True)
class BatchProblem:
    """Item ``i``'s entry ``(r, c)`` is ``vals[offs[i] + r * ld[i] + c]``; its answer lies at
    ``col4row[out_rows[i]:out_rows[i + 1]]``, its column duals at ``v[out_cols[i]:out_cols[i + 1]]``."""

    vals: Any  # 1-D float64 / int64, host (NumPy) or device (numba device array view)
    offs: np.ndarray  # int64[B]
    ld: np.ndarray  # int64[B] row stride
    rows: np.ndarray  # int64[B] n_i
    cols: np.ndarray  # int64[B] m_i
    maximize: bool
    out_rows: np.ndarray  # int64[B + 1]
    out_cols: np.ndarray  # int64[B + 1]
    on_device: bool = False
    library: str = "numpy"  # "numpy" | "cupy" | "torch" | "numba"
    form: str = "tensor"  # "tensor" (3-D, maybe with shapes) | "list"
    pad_rows: int = 0  # N of a 3-D input (the answer's width)
    uniform: bool = False  # a 3-D input without shapes: every item N x M (the item table depends on (B, N, M) only)
    source: Any = field(default=None, repr=False)  # the caller's input (the answer goes back to its device)

    @property
    def batch(self) -> int:
        return int(self.offs.size)

    @property
    def is_int(self) -> bool:
        return np.dtype(self.vals.dtype).kind in "iu"

    def on_host(self) -> BatchProblem:
        """This problem with its costs on the host: itself, or (device costs) ONE device-to-host copy of ``vals``
        (the certificate's input; never one copy per item)."""
        if not self.on_device:
            return self
        dt = np.dtype(self.vals.dtype)
        vals = self.vals.copy_to_host() if self.vals.size else np.zeros(0, dtype=dt)
        return replace(self, vals=vals, on_device=False)

    def item(self, i: int) -> np.ndarray:
        """Item ``i`` as a 2-D host view (a copy for device costs)."""
        n, m, o, ld = int(self.rows[i]), int(self.cols[i]), int(self.offs[i]), int(self.ld[i])
        vals = self.vals
        if self.on_device:
            vals = vals[o:o + max(n - 1, 0) * ld + m].copy_to_host() if n and m else np.zeros(0, vals.dtype)
            o = 0
        if n == 0 or m == 0:
            return np.zeros((n, m), dtype=vals.dtype)
        return np.lib.stride_tricks.as_strided(vals[o:], shape=(n, m), strides=(ld * vals.itemsize, vals.itemsize),
                                               writeable=False)


@dataclass
class Solved:
    """What every solve returns (the contract of the method table): flat ``col4row``, the duals ``u``, ``v`` in
    the user's sign (``u + v <= C``, ``>=`` when maximising), and ``status`` per item (host int8: 0 solved, 1
    infeasible, 2 invalid entries, :data:`UNPROVED`). Host arrays, or device arrays on the input's device.
    ``certified``: the solver certified every item it left ``0`` (so the door need not); ``total``: the items'
    totals where the solver computed them (device inputs), else None. A plain 4-tuple reads as uncertified."""

    col4row: Any
    u: Any
    v: Any
    status: np.ndarray
    certified: bool = False
    total: Any = None

    @classmethod
    def of(cls, out: Any) -> Solved:
        return out if isinstance(out, cls) else cls(*out)

    def __iter__(self):
        """``col4row, u, v, status = solved``."""
        return iter((self.col4row, self.u, self.v, self.status))

    @property
    def on_device(self) -> bool:
        return hasattr(self.col4row, "copy_to_host")

    def to_host(self) -> Solved:
        """Itself with host arrays (device ones copied once each)."""
        if not self.on_device:
            return self
        x, u, v = (a.copy_to_host() for a in (self.col4row, self.u, self.v))
        return Solved(x, u, v, self.status, self.certified, None)


def _host_dtype(a: np.ndarray, what: str) -> np.dtype:
    """The solver dtype of a host array (SciPy's cast rule: anything not safely castable to float64 raises)."""
    if not np.can_cast(a.dtype, np.float64, casting="safe"):
        raise TypeError(f"{what}: cannot cast array data from {a.dtype!r} to dtype('float64') according to the "
                        f"rule 'safe'")
    if a.dtype.kind in "biu":
        if a.dtype == np.uint64 and a.size and int(a.max()) > np.iinfo(np.int64).max:
            return np.dtype(np.float64)
        return np.dtype(np.int64)
    return np.dtype(np.float64)


def _torch_cpu(x: Any) -> np.ndarray:
    """A PyTorch CPU tensor as NumPy (no copy where NumPy has its dtype; bfloat16 widened)."""
    import torch  # noqa: PLC0415

    t = x.detach()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.resolve_conj().resolve_neg().numpy()


def _host(x: Any, what: str) -> np.ndarray:
    if is_torch_tensor(x):
        if getattr(x, "is_sparse", False) or str(getattr(x, "layout", "")) != "torch.strided":
            raise TypeError(f"{what} is a sparse torch tensor; pass a dense one")
        return native_array(_torch_cpu(x), what)
    if isinstance(x, np.ndarray):
        return native_array(x, what)
    try:
        return native_array(np.asarray(x), what)
    except Exception as exc:
        raise TypeError(f"{what} cannot be converted to an array: {type_name(x)} ({exc})") from exc


def _is_gpu(x: Any) -> bool:
    return is_device_array(x) and not (is_torch_tensor(x) and not x.is_cuda)


def _check_shapes(shapes: Any, B: int, N: int, M: int) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(_host(shapes, "shapes") if not _is_gpu(shapes) else shapes.get() if hasattr(shapes, "get")
                   else shapes.cpu().numpy())
    if s.ndim != 2 or s.shape[1] != 2 or s.shape[0] != B:
        raise ValueError(f"shapes must have shape ({B}, 2) for costs of shape ({B}, {N}, {M}), got {s.shape}")
    if s.size and s.dtype.kind not in "iu":
        raise TypeError(f"shapes must hold integers, got dtype {s.dtype}")
    s = s.astype(np.int64)
    bad = np.flatnonzero((s[:, 0] < 0) | (s[:, 0] > N) | (s[:, 1] < 0) | (s[:, 1] > M))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"shapes[{i}] = {tuple(int(t) for t in s[i])} is outside the padded item shape ({N}, {M})")
    return s[:, 0].copy(), s[:, 1].copy()


def _prefix(x: np.ndarray) -> np.ndarray:
    out = np.zeros(x.size + 1, dtype=np.int64)
    np.cumsum(x, out=out[1:])
    return out


def _make(vals, offs, ld, rows, cols, maximize, **kw) -> BatchProblem:
    return BatchProblem(vals=vals, offs=offs, ld=ld, rows=rows, cols=cols, maximize=maximize,
                        out_rows=_prefix(rows), out_cols=_prefix(cols), **kw)


def _device_flat(x: Any) -> tuple[Any, str]:
    """A C-contiguous 1-D float64/int64 numba view of a device array (one device-side cast when needed)."""
    lib = device_library(x)
    kind = np.dtype(str(x.dtype).replace("torch.", "")).kind if lib != "torch" else (
        "f" if x.is_floating_point() else "b" if str(x.dtype) == "torch.bool" else
        "c" if x.is_complex() else "i")
    if kind not in "biuf":
        raise TypeError(f"costs: cannot cast array data from {x.dtype!r} to dtype('float64') according to the "
                        f"rule 'safe'")
    if lib == "torch":
        import torch  # noqa: PLC0415

        want = torch.float64 if kind == "f" else torch.int64
        x = x if x.dtype == want else x.to(want)
    else:
        want = np.float64 if kind == "f" else np.int64
        x = x if np.dtype(x.dtype) == want else x.astype(want)
    a = c_contiguous_device(x)
    return a.reshape(a.size), lib


def _tensor(costs: Any, shapes: Any, maximize: bool) -> BatchProblem:
    gpu = _is_gpu(costs)
    a = costs if gpu else _host(costs, "costs")
    if len(a.shape) != 3:
        raise ValueError(f"costs must be a 3-D array (B, n, m) or a list of 2-D arrays, got {len(a.shape)}-D "
                         f"shape {tuple(a.shape)}")
    B, N, M = (int(t) for t in a.shape)
    if gpu:
        vals, lib = _device_flat(a)
    else:
        vals, lib = np.ascontiguousarray(a, dtype=_host_dtype(a, "costs")).reshape(-1), "numpy"
    if shapes is None:
        rows, cols = np.full(B, N, dtype=np.int64), np.full(B, M, dtype=np.int64)
    else:
        rows, cols = _check_shapes(shapes, B, N, M)
    offs = np.arange(B, dtype=np.int64) * (N * M)
    return _make(vals, offs, np.full(B, M, dtype=np.int64), rows, cols, maximize, on_device=gpu, library=lib,
                 form="tensor", pad_rows=N, uniform=shapes is None, source=costs)


def _ragged(items: list, maximize: bool) -> BatchProblem:
    B = len(items)
    gpu = [_is_gpu(x) for x in items]
    if any(gpu) and not all(gpu):
        i = gpu.index(not gpu[0])
        raise TypeError(f"costs[{i}] is on {'the GPU' if gpu[i] else 'the host'} but costs[0] is not: every item "
                        f"of a list must live on the same device")
    arrs = list(items) if gpu and all(gpu) else [_host(x, f"costs[{i}]") for i, x in enumerate(items)]
    for i, a in enumerate(arrs):
        if len(a.shape) != 2:
            raise ValueError(f"costs[{i}] must be a 2-D array, got {len(a.shape)}-D shape {tuple(a.shape)}")
    rows = np.array([int(a.shape[0]) for a in arrs], dtype=np.int64)
    cols = np.array([int(a.shape[1]) for a in arrs], dtype=np.int64)
    sizes = rows * cols
    offs = _prefix(sizes)[:-1]
    if B and all(gpu):
        lib = device_library(arrs[0])
        if lib in ("torch", "cupy"):  # one concatenation by the library (a DETR list: one op, not B copies)
            vals, lib = _device_flat(_library_cat(arrs, lib))
        else:
            flats = [_device_flat(a) for a in arrs]
            vals = _device_concat([f[0] for f in flats], lib, items[0])
    else:
        lib = "numpy"
        dts = [_host_dtype(a, f"costs[{i}]") for i, a in enumerate(arrs)]
        dt = np.dtype(np.float64) if any(d.kind == "f" for d in dts) else np.dtype(np.int64)
        vals = np.empty(int(sizes.sum()), dtype=dt)
        for a, o, s in zip(arrs, offs.tolist(), sizes.tolist()):
            vals[o:o + s] = np.asarray(a).reshape(-1)
    return _make(vals, offs, cols.copy(), rows, cols, maximize, on_device=bool(B and all(gpu)), library=lib,
                 form="list", source=items)


def _library_cat(arrs: list, lib: str) -> Any:
    """The items' entries one after the other, by their own library (PyTorch or CuPy), in one dtype: the common one,
    else float64 when any item is floating, else int64."""
    if lib == "torch":
        import torch  # noqa: PLC0415

        for i, t in enumerate(arrs):
            if t.is_complex():
                raise TypeError(f"costs[{i}]: cannot cast array data from {t.dtype!r} to dtype('float64') according "
                                f"to the rule 'safe'")
        dts = {t.dtype for t in arrs}
        want = dts.pop() if len(dts) == 1 else torch.float64 if any(t.is_floating_point() for t in arrs) else torch.int64
        return torch.cat([t.reshape(-1).to(want) for t in arrs])
    import cupy  # noqa: PLC0415

    dts = {np.dtype(a.dtype) for a in arrs}
    want = dts.pop() if len(dts) == 1 else np.float64 if any(d.kind == "f" for d in dts) else np.int64
    return cupy.concatenate([a.reshape(-1).astype(want, copy=False) for a in arrs])


def _device_concat(flats: list, lib: str, like: Any) -> Any:
    """One device array holding the items one after the other (float64 when any item is float)."""
    from numba import cuda  # noqa: PLC0415

    dt = np.float64 if any(np.dtype(f.dtype).kind == "f" for f in flats) else np.int64
    out = cuda.device_array(sum(int(f.size) for f in flats), dtype=dt)
    o = 0
    for f in flats:
        if f.size:
            if np.dtype(f.dtype) != dt:
                f = cuda.to_device(f.copy_to_host().astype(dt))
            out[o:o + f.size].copy_to_device(f)
        o += int(f.size)
    return out


def prepare(costs: Any, shapes: Any = None, maximize: bool = False) -> BatchProblem:
    """The :class:`BatchProblem` of ``costs`` (a 3-D array, a 3-D array with ``shapes``, or a list of 2-D arrays).

    Examples
    --------
    >>> import numpy as np
    >>> p = prepare([np.ones((2, 3)), np.zeros((1, 1))])
    >>> p.rows.tolist(), p.cols.tolist(), p.offs.tolist(), p.out_rows.tolist()
    ([2, 1], [3, 1], [0, 6], [0, 2, 3])
    """
    if isinstance(costs, (list, tuple)):
        if shapes is not None:
            raise ValueError("shapes is for a padded 3-D costs array; a list of 2-D arrays carries its own shapes")
        return _ragged(list(costs), maximize)
    return _tensor(costs, shapes, maximize)
