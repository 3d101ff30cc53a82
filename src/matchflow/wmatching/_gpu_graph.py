"""A weighted graph on the GPU for GPU-Suitor / GPU-LD: upload, edge keys, symmetry check, device inputs.

:func:`to_device` copies a host :class:`~matchflow.Graph`'s CSR and raw weights once; the int32 edge-order
keys are computed on the device (``_gpu_graph_kernels``), and with ``check=True`` (a scipy.sparse input
not yet known to be symmetric) the symmetry check runs there too, one flag comes back: no host pass over
the entries. :func:`from_device_input` does the same for CuPy / PyTorch / numba device inputs, without a
host copy (the reader :func:`matchflow._cuda._graph.read_device`). Weights that no int32 key orders (integers >= 2^31, floats that float32 does not hold) are
ranked (:func:`rank_keys`): on the device with CuPy or PyTorch where installed (one sort), else on the host.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._cuda._arrays import NotOnDevice
from .._cuda._graph import DeviceCSR
from .._graph import Graph
from .._validation import type_name

__all__ = ["KEY_MAX", "DeviceWeightedGraph", "edge_keys", "to_device", "from_device_input", "device_pairs",
           "NotOnDevice"]

KEY_MAX = (1 << 31) - 1


def edge_keys(w: np.ndarray) -> np.ndarray:
    """int32 keys in the order of the weights (0 for weights <= 0) on the host: the weight itself for
    integers in [1, 2^31); the bits of the float32 for floats that float32 holds exactly; else the dense
    rank of the positive weights (one sort of the distinct values). The reference of the device keys."""
    if w.dtype.kind in "iub" and (w.size == 0 or int(w.max()) <= KEY_MAX):
        return np.maximum(w, 0).astype(np.int32)
    pos = w > 0
    if w.dtype.kind == "f":
        w32 = w.astype(np.float32)
        if np.array_equal(w32, w):
            return np.where(pos, w32.view(np.int32), np.int32(0))
    vals = np.unique(w[pos])
    key = np.zeros(len(w), dtype=np.int32)
    key[pos] = np.searchsorted(vals, w[pos]) + 1
    return key


@dataclass
class DeviceWeightedGraph(DeviceCSR):
    """A weighted graph on the GPU: the symmetric :class:`~matchflow._cuda._graph.DeviceCSR` (``ind`` int32,
    the raw weights ``w``) and the edge ``key`` s (device arrays). ``seconds_h2d``: the copy;
    ``seconds_keys``: keys and check on the device."""

    key: Any = None
    seconds_keys: float = 0.0
    ranked: str = ""  # "", "cupy", "torch" or "host": who ranked weights that no int32 key orders


def _rank_on_device(w: Any, key: Any) -> str:
    """Dense rank of the positive weights into ``key`` with CuPy or PyTorch (a sort on the device)."""
    from numba import cuda  # noqa: PLC0415

    try:
        import cupy as cp  # noqa: PLC0415

        x = cp.asarray(w)
        pos = x > 0
        vals = cp.unique(x[pos])
        k = cp.zeros(x.shape[0], cp.int32)
        k[pos] = (cp.searchsorted(vals, x[pos]) + 1).astype(cp.int32)
        key.copy_to_device(cuda.as_cuda_array(k))
        return "cupy"
    except ImportError:
        pass
    try:
        import torch  # noqa: PLC0415

        x = torch.as_tensor(w, device=f"cuda:{cuda.get_current_device().id}")
        pos = x > 0
        vals = torch.unique(x[pos], sorted=True)
        k = torch.zeros(x.shape[0], dtype=torch.int32, device=x.device)
        k[pos] = (torch.searchsorted(vals, x[pos]) + 1).to(torch.int32)
        key.copy_to_device(cuda.as_cuda_array(k))
        return "torch"
    except ImportError:
        pass
    key.copy_to_device(edge_keys(w.copy_to_host()))
    return "host"


def _keys_and_check(dg: DeviceWeightedGraph, check: bool) -> None:
    """``dg.key`` from ``dg.w`` on the device, then (``check``) the symmetry check; one flag read.
    Raises :class:`NotOnDevice` for non-finite weights or a graph that fails the check."""
    from numba import cuda  # noqa: PLC0415

    from .._cuda._launch import grid  # noqa: PLC0415
    from . import _gpu_graph_kernels as K  # noqa: PLC0415

    t0 = time.perf_counter()
    flag = cuda.to_device(np.zeros(K.F_N, np.int32))
    nnz = np.int64(dg.nnz)
    if dg.nnz:
        if np.dtype(dg.w.dtype).kind == "f":
            K.float_keys_kernel[grid(dg.nnz, 256), 256](dg.w, dg.key.view(np.float32), nnz, flag)
        else:
            K.int_keys_kernel[grid(dg.nnz, 256), 256](dg.w, dg.key, nnz, flag)
        if check:
            K.check_kernel[grid(dg.nnz, 256), 256](dg.ptr, dg.ind, dg.key, np.int64(dg.n), nnz, flag)
    f = flag.copy_to_host()
    if f[K.F_NONFINITE]:
        raise NotOnDevice("non-finite weights")
    if f[K.F_RANK]:
        dg.ranked = _rank_on_device(dg.w, dg.key)
        if check:  # the keys changed: check again with the ranked ones
            flag = cuda.to_device(np.zeros(K.F_N, np.int32))
            K.check_kernel[grid(dg.nnz, 256), 256](dg.ptr, dg.ind, dg.key, np.int64(dg.n), nnz, flag)
            f = flag.copy_to_host()
    if check and f[K.F_ASYM]:
        raise NotOnDevice("not a canonical symmetric CSR without diagonal")
    dg.seconds_keys = time.perf_counter() - t0


def to_device(g: Graph | DeviceWeightedGraph, check: bool = False) -> DeviceWeightedGraph:
    """The CSR and the raw weights copied to the GPU once (keys computed there); reused by every solve.
    ``check``: the CSR is a canonical input not yet checked for symmetry: check it on the device
    (:class:`NotOnDevice` when it fails)."""
    if isinstance(g, DeviceWeightedGraph):
        return g
    if not isinstance(g, Graph):
        raise TypeError(f"graph must be a matchflow.Graph or a DeviceWeightedGraph, got {type_name(g)}")
    from numba import cuda  # noqa: PLC0415

    from .._cuda._graph import upload_csr  # noqa: PLC0415

    w = np.ones(len(g.indices), np.int32) if g.weights is None else g.weights
    ind = g.indices.astype(np.int32, copy=False) if g.n < KEY_MAX else g.indices
    csr = upload_csr(g.indptr, ind, w)
    dg = DeviceWeightedGraph(g.n, csr.nnz, *csr.arrays, seconds_h2d=csr.seconds_h2d,
                             key=cuda.device_array(max(csr.nnz, 1), np.int32))
    _keys_and_check(dg, check)
    return dg


def from_device_input(x: Any) -> tuple[DeviceWeightedGraph, str]:
    """``(DeviceWeightedGraph, library)`` of a square device-resident matrix, without a host copy: a CuPy
    CSR/CSC, a PyTorch sparse CSR or coalesced COO CUDA tensor, a dense CuPy / PyTorch / numba array
    (nonzero entries are edges), read as stored (:func:`matchflow._cuda._graph.read_device`, ``merge=False``).
    Checked on the device; :class:`NotOnDevice` sends anything that is not a canonical symmetric matrix
    without diagonal (or has non-finite weights, or uint64 / complex entries) to the host path (one copy;
    symmetrised there as for host input)."""
    from numba import cuda  # noqa: PLC0415

    from .._cuda._csc import cast  # noqa: PLC0415
    from .._cuda._graph import read_device  # noqa: PLC0415

    t0 = time.perf_counter()
    shape = tuple(int(s) for s in x.shape)
    if len(shape) != 2 or shape[0] != shape[1]:
        raise NotOnDevice("not a square matrix")
    n = shape[0]
    csr, lib = read_device(x, merge=False, explicit_zeros=True, values=True)
    ptr, ind, w, nnz = csr.ptr, csr.ind, csr.w, csr.nnz
    if np.dtype(w.dtype).kind not in "iubf" or np.dtype(w.dtype) == np.uint64:
        raise NotOnDevice(f"weights of dtype {w.dtype}")
    if np.dtype(ind.dtype) != np.int32 and n < KEY_MAX:
        ind = cast(ind, np.int32)
    if nnz == 0:
        ind = cuda.device_array(1, np.int32) if ind.shape[0] == 0 else ind
    dg = DeviceWeightedGraph(n, nnz, ptr, ind, w, key=cuda.device_array(max(nnz, 1), np.int32))
    _keys_and_check(dg, check=True)
    dg.seconds_keys = time.perf_counter() - t0  # the conversion, keys and check (no copy: seconds_h2d is 0)
    return dg, lib


def device_pairs(dg: DeviceWeightedGraph, mate: Any) -> tuple[Any, Any]:
    """``(pairs, per)`` on the device: the matched pairs ``u < mate[u]`` (ascending ``u``, shape (c, 2)) and
    their weights (the input's dtype)."""
    from numba import cuda  # noqa: PLC0415

    from .._cuda._csc import exclusive_scan  # noqa: PLC0415
    from .._cuda._launch import grid  # noqa: PLC0415
    from . import _gpu_graph_kernels as K  # noqa: PLC0415

    n = dg.n
    pos = cuda.device_array(n + 1, np.int64)
    K.pairs_flag_kernel[grid(n + 1, 256), 256](mate[:n] if n else mate[:0], pos)
    exclusive_scan(pos, n + 1)
    card = int(pos[n:n + 1].copy_to_host()[0])
    pairs = cuda.device_array((max(card, 1), 2), np.dtype(mate.dtype))
    per = cuda.device_array(max(card, 1), np.dtype(dg.w.dtype))
    if card:
        K.pairs_fill_kernel[grid(n, 256), 256](mate[:n], pos, dg.ptr, dg.ind, dg.w, pairs, per)
    return pairs[:card], per[:card]
