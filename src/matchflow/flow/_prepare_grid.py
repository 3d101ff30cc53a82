"""Grid graph cuts (vision energies): the prepared problem of :func:`._api.grid_cut` (:class:`GridProblem`: the
layout read from the shapes, the validated arrays, the s-t network built from them vectorised, no Python loop over
pixels) and the public helpers around it (:func:`grid_energy`, :func:`grid_network`, the segmentation terms).

Neighbour ``k`` of a grid point ``p`` is ``p + offsets(ndim, connectivity)[k]``; ``edge_caps[k][p]``
is the capacity of the arc ``p -> p + offset_k`` (so a symmetric term fills both directions).
Labels: True on the source side. A pixel on the source side pays ``sink_caps`` (its arc to the
sink is cut), one on the sink side pays ``source_caps``, and a pair ``p`` (source side) -> ``q``
(sink side) pays ``edge_caps`` of that arc: :func:`grid_energy` is this sum, equal to
``flow_value`` for the minimum cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

import numba
import numpy as np

from .._cuda import is_device_array
from .._graph import FlowNetwork
from .._methods import mark_gpu_warm
from .._validation import check_real, readonly, to_host_array
from ._prepare_grid_layout import INT64_MAX, grid_layout, offsets

__all__ = ["Grid", "GridArrays", "GridProblem", "clamp_grid", "fold", "grid_arrays", "grid_energy", "grid_network", "grid_problem", "offsets", "potts_weights",
           "unary_from_intensity"]


@numba.njit(cache=True, nogil=True, inline="always")
def _pair_dev(u, v, cuv, cvu, deg, incap, outcap, fill, head, rev, cap):
    """One residual arc pair ``u -> v`` (capacity ``cuv``) and ``v -> u`` (``cvu``): counted into ``deg`` and
    the float64 capacity sums into and out of every node when ``fill`` is None, else placed at ``fill``."""
    if fill is None:
        deg[u] += 1
        deg[v] += 1
        outcap[u] += cuv
        incap[v] += cuv
        outcap[v] += cvu
        incap[u] += cvu
    else:
        a = fill[u]
        fill[u] += 1
        b = fill[v]
        fill[v] += 1
        head[a], cap[a], rev[a] = v, cuv, b
        head[b], cap[b], rev[b] = u, cvu, a


@numba.njit(cache=True, nogil=True)
def grid_arcs_kernel(src, snk, edg, off, dims, deg, incap, outcap, fill, head, rev, cap):
    """One pass over the grid's arc pairs (pixels 0..N-1, s = N, t = N + 1): ``s -> p``, ``p -> t`` where
    non-zero and one pair per neighbour pair. With ``fill`` None (first pass): the residual degrees into
    ``deg`` and the capacity sums into ``incap``/``outcap``. Else (second pass): the arcs placed at ``fill``
    (the CSR's row starts, advanced)."""
    nz, ny, nx = dims[0], dims[1], dims[2]
    npix = nz * ny * nx
    s, t = npix, npix + 1
    for p in range(npix):
        if src[p] != 0:
            _pair_dev(s, p, src[p], 0, deg, incap, outcap, fill, head, rev, cap)
        if snk[p] != 0:
            _pair_dev(p, t, snk[p], 0, deg, incap, outcap, fill, head, rev, cap)
    kk = off.shape[0]
    for k in range(kk // 2, kk):  # the "positive" offsets: q = p + o_k > p
        ki = kk - 1 - k
        dz, dy, dx = off[k, 0], off[k, 1], off[k, 2]
        for z in range(max(0, -dz), nz - max(0, dz)):
            for y in range(max(0, -dy), ny - max(0, dy)):
                p0 = (z * ny + y) * nx
                q0 = ((z + dz) * ny + y + dy) * nx + dx
                for x in range(max(0, -dx), nx - max(0, dx)):
                    p = p0 + x
                    q = q0 + x
                    a, b = edg[k, p], edg[ki, q]
                    if a != 0 or b != 0:
                        _pair_dev(p, q, a, b, deg, incap, outcap, fill, head, rev, cap)


class Grid(NamedTuple):
    """A grid's capacities, flat in one work dtype (int64 or float64): ``dims`` (3,) (2-D: depth 1), ``off``
    (k, 3) offsets, ``src``/``snk`` (N,), ``edg`` (k, N)."""

    dims: np.ndarray
    off: np.ndarray
    src: np.ndarray
    snk: np.ndarray
    edg: np.ndarray


def grid_arrays(src: np.ndarray, snk: np.ndarray, edg: np.ndarray, off: np.ndarray) -> Grid:
    """:class:`Grid` of ``src``/``snk`` (the grid's shape), ``edg`` (k, *shape) and the (k, ndim) ``off``."""
    shape = src.shape
    npix = int(np.prod(shape))
    off3 = np.zeros((len(off), 3), dtype=np.int64)
    off3[:, 3 - len(shape):] = off
    work = np.int64 if src.dtype.kind in "iu" else np.float64
    return Grid(np.array((1,) * (3 - len(shape)) + shape, dtype=np.int64), off3,
                src.reshape(-1).astype(work, copy=False), snk.reshape(-1).astype(work, copy=False),
                np.ascontiguousarray(edg, dtype=work).reshape(len(off), npix))


def _lower(cap: np.ndarray, lim: np.ndarray) -> np.ndarray:
    """``cap`` lowered to ``lim`` where ``0 < lim < cap`` (integers: just above ``lim``, never above ``cap``)."""
    hit = (lim > 0) & (lim < cap)
    if cap.dtype.kind == "f":
        return np.where(hit, lim, cap)
    return np.where(hit, np.minimum(cap, np.floor(np.where(hit, lim, 0)).astype(np.int64) + 1), cap)


def clamp_grid(grid: Grid, incap: np.ndarray | None = None, outcap: np.ndarray | None = None) -> Grid:
    """The capacities lowered to just above twice what can flow through each arc (the float64 sums into its
    tail and out of its head, :func:`grid_arcs_kernel`'s first pass): a clamped arc can never saturate, so the
    feasible flows, the maximum flow, its minimum cuts and the residual reachability (the labels) are the
    input's, while a hard seed (1e300) no longer sits beside the flows it would round. Arcs leaving the grid: 0."""
    dims, off, src, snk, edg = grid
    npix = src.size
    if incap is None:
        incap, outcap = np.zeros(npix + 2), np.zeros(npix + 2)
        grid_arcs_kernel(*readonly(src, snk, edg, off, dims), np.zeros(npix + 2, np.int64), incap, outcap, None, None,
                         None, None)
    e2 = np.zeros_like(edg)
    shape = tuple(int(d) for d in dims)
    for k, o in enumerate(off):
        s = tuple(slice(max(0, -d), shape[i] - max(0, d)) for i, d in enumerate(o))
        d_ = tuple(slice(max(0, d), shape[i] - max(0, -d)) for i, d in enumerate(o))
        lim = 2.0 * np.minimum(incap[:npix].reshape(shape)[s], outcap[:npix].reshape(shape)[d_])
        e2[k].reshape(shape)[s] = _lower(edg[k].reshape(shape)[s], lim)
    return Grid(dims, off, _lower(src, 2.0 * outcap[:npix]), _lower(snk, 2.0 * incap[:npix]), e2)


def fold(shape: tuple[int, ...], batch: int, off: np.ndarray, src: np.ndarray, snk: np.ndarray, edg: np.ndarray
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A batch as ONE 3-D grid (the items stacked along the first axis) with no arc across items: 2-D
    items are its depth slices (offsets with no depth step); 3-D items are stacked depth blocks, the arcs
    that would cross a block border zeroed (a pair with both directions zero is no arc). Returns
    ``(src, snk, edg (k, *grid3), off3 (k, 3))``."""
    d0 = shape[0] if len(shape) == 3 else 1
    g3 = (batch * d0,) + tuple(shape[-2:])
    off3 = np.zeros((len(off), 3), dtype=np.int64)
    off3[:, 3 - len(shape):] = off
    e = np.moveaxis(edg, 1, 0)
    e = (np.array(e) if len(shape) == 3 else np.ascontiguousarray(e)).reshape((len(off), batch) + shape)
    if len(shape) == 3:  # a copy (never the caller's array): zero the arcs across item borders
        for k, o in enumerate(off):
            if o[0] > 0:
                e[k, :, d0 - 1] = 0
            elif o[0] < 0:
                e[k, :, 0] = 0
    return src.reshape(g3), snk.reshape(g3), e.reshape((len(off),) + g3), off3


def grid_of(shape, batch, off, src, snk, edg) -> Grid:
    return grid_arrays(src, snk, edg, off) if batch is None else grid_arrays(*fold(shape, batch, off, src, snk, edg))


class GridArrays(NamedTuple):
    """The validated host arrays of a grid cut: ``shape`` the grid's, ``batch`` B or None (``src``/``snk`` then
    ``(B,) + shape``, ``edg`` ``(B, k) + shape``), ``off`` the ``(k, ndim)`` offsets, one dtype (int64 or float64)."""

    shape: tuple[int, ...]
    batch: int | None
    off: np.ndarray
    src: np.ndarray
    snk: np.ndarray
    edg: np.ndarray


@dataclass(frozen=True)
class GridProblem:
    """What the grid methods and rules read: ``shape`` (``source_caps``' shape, a batch's axis included) and the
    connectivity, known without reading the arrays; ``caps`` the caller's three inputs as given (a device array
    stays where it is: the GPU reads it in place). Read on demand, once: :attr:`arrays` (validated on the host),
    :attr:`grid` (flat, a batch folded into one grid with no arc across items) and :attr:`network`."""

    shape: tuple[int, ...]
    connectivity: int
    caps: tuple = field(default=(), repr=False, compare=False)

    @property
    def points(self) -> int:
        return int(np.prod(self.shape))

    @property
    def batch(self) -> int | None:
        return grid_layout(self.shape, self.connectivity)[1]

    @cached_property
    def arrays(self) -> GridArrays:
        return _inputs(*self.caps, self.connectivity)

    @cached_property
    def grid(self) -> Grid:
        a = self.arrays
        return grid_arrays(a.src, a.snk, a.edg, a.off) if a.batch is None else grid_arrays(*fold(*a))

    @cached_property
    def network(self) -> tuple[FlowNetwork, np.ndarray]:
        """:func:`grid_network` of the grid (a batch: of the folded grid) and the mask of its arcs among all."""
        a = self.arrays
        if a.batch is None:
            return _network(a.shape, a.off, a.src, a.snk, a.edg)
        src, snk, edg, off = fold(*a)
        return _network(src.shape, off, src, snk, edg)


def grid_problem(source_caps: Any, sink_caps: Any, edge_caps: Any, connectivity: int | None, backend: str
                 ) -> GridProblem:
    """The :class:`GridProblem` of ``grid_cut``'s inputs: shapes and connectivity checked, the arrays not read
    yet. Device inputs for a call that may use the GPU mark the process warm (its CUDA context exists)."""
    caps = (source_caps, sink_caps, edge_caps)
    on_device = any(is_device_array(a) for a in caps)
    full = getattr(source_caps, "shape", None) if is_device_array(source_caps) else \
        to_host_array(source_caps, "source_caps").shape
    full = tuple(int(d) for d in full)
    if backend != "cpu" and on_device:
        mark_gpu_warm()
    return GridProblem(full, grid_layout(full, connectivity)[2], caps)


def _caps(name: str, a: Any, shape: tuple[int, ...]) -> np.ndarray:
    if isinstance(a, int) and not isinstance(a, bool):  # a Python int: exact, never through float64
        if a > INT64_MAX:
            raise OverflowError(f"{name} = {a} is beyond int64 (2**63 - 1): scale the capacities down or pass floats")
        a = np.int64(a)
    arr = to_host_array(a, name) if not np.isscalar(a) else np.asarray(a)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integers or floats, got dtype {arr.dtype}")
    try:
        arr = np.broadcast_to(arr, shape)
    except ValueError:
        raise ValueError(f"{name} must have shape {shape} (or broadcast to it), got {arr.shape}") from None
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must be non-negative, got {arr.min()}")
    if arr.dtype.kind == "u" and arr.size and arr.max() > INT64_MAX:
        raise OverflowError(f"{name} holds {arr.max()}, beyond int64 (2**63 - 1): scale the capacities down or pass "
                            "floats")
    return arr


def _inputs(source_caps, sink_caps, edge_caps, connectivity) -> GridArrays:
    """The validated :class:`GridArrays` of the three inputs."""
    src = to_host_array(source_caps, "source_caps")
    shape, batch, connectivity = grid_layout(src.shape, connectivity)
    off = offsets(len(shape), connectivity)
    lead = () if batch is None else (batch,)
    src = _caps("source_caps", src, lead + shape)
    snk = _caps("sink_caps", sink_caps, lead + shape)
    edg = _caps("edge_caps", edge_caps, lead + (len(off),) + shape)
    # integers of any dtype (unsigned ones checked to fit) work in int64, exactly; any float: float64
    dt = np.dtype(np.int64) if all(a.dtype.kind in "iu" for a in (src, snk, edg)) else np.dtype(np.float64)
    return GridArrays(shape, batch, off, src.astype(dt, copy=False), snk.astype(dt, copy=False),
                      edg.astype(dt, copy=False))


def _shifted(idx: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(tails, heads) of every grid point p with p + o inside the grid."""
    src = tuple(slice(max(0, -d), idx.shape[i] - max(0, d)) for i, d in enumerate(o))
    dst = tuple(slice(max(0, d), idx.shape[i] - max(0, -d)) for i, d in enumerate(o))
    return idx[src], idx[dst], src


def grid_network(source_caps: Any, sink_caps: Any, edge_caps: Any, *, connectivity: int) -> FlowNetwork:
    """The s-t network of a grid cut: grid points 0..N-1 (C order), source N, sink N+1; zero arcs dropped.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import max_flow
    >>> from matchflow.flow import grid_network
    >>> net = grid_network(np.array([[5, 4, 0], [4, 0, 0]]), np.array([[0, 0, 3], [0, 2, 6]]), 1, connectivity=4)
    >>> net
    FlowNetwork(n=8, m=20, source=6, sink=7)
    >>> max_flow(net, backend="cpu").flow_value
    3
    """
    shape, batch, off, src, snk, edg = _inputs(source_caps, sink_caps, edge_caps, connectivity)
    if batch is not None:
        raise ValueError(f"grid_network takes one grid, got a batch of {batch} (source_caps of shape {src.shape})")
    return _network(shape, off, src, snk, edg)[0]


def _network(shape, off, src, snk, edg) -> tuple[FlowNetwork, np.ndarray]:
    """:func:`grid_network` of validated arrays and the mask of its arcs among all (``s -> p``, ``p -> t``,
    then each offset's in-grid pairs)."""
    n = int(np.prod(shape))
    idx = np.arange(n, dtype=np.int64).reshape(shape)
    tails, heads, caps = [np.full(n, n, np.int64), idx.ravel()], [idx.ravel(), np.full(n, n + 1, np.int64)], \
        [src.ravel(), snk.ravel()]
    for k, o in enumerate(off):
        t, h, sl = _shifted(idx, o)
        tails.append(t.ravel())
        heads.append(h.ravel())
        caps.append(edg[k][sl].ravel())
    t, h, c = np.concatenate(tails), np.concatenate(heads), np.concatenate(caps)
    keep = c != 0
    return FlowNetwork(n + 2, n, n + 1, t[keep], h[keep], c[keep]), keep


def grid_energy(labels: Any, source_caps: Any, sink_caps: Any, edge_caps: Any, *, connectivity: int | None = None
                ) -> Any:
    """Cut capacity of a labelling (True: source side): the energy :func:`grid_cut` minimises. A batch
    (a leading axis on every input, as :func:`grid_cut`): one energy per grid, a NumPy array.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow.flow import grid_energy
    >>> source_caps = np.array([[5, 4, 0], [4, 0, 0]])
    >>> sink_caps = np.array([[0, 0, 3], [0, 2, 6]])
    >>> labels = np.array([[True, True, False], [True, False, False]])
    >>> int(grid_energy(labels, source_caps, sink_caps, 1))  # 2 cut edges and the sink arc of (1, 1)
    3
    """
    shape, batch, off, src, snk, edg = _inputs(source_caps, sink_caps, edge_caps, connectivity)
    lab = np.asarray(labels, dtype=bool)
    if lab.shape != src.shape:
        raise ValueError(f"labels must have shape {src.shape}, got {lab.shape}")
    lead = () if batch is None else (slice(None),)
    axes = tuple(range(len(lead), len(lead) + len(shape)))
    e = np.where(lab, snk, 0).sum(axis=axes) + np.where(lab, 0, src).sum(axis=axes)
    for k, o in enumerate(off):
        s = lead + tuple(slice(max(0, -d), shape[i] - max(0, d)) for i, d in enumerate(o))
        d_ = lead + tuple(slice(max(0, d), shape[i] - max(0, -d)) for i, d in enumerate(o))
        ek = edg[:, k] if batch is not None else edg[k]
        e = e + np.where(lab[s] & ~lab[d_], ek[s], 0).sum(axis=axes)
    return e if batch is not None else e.item()


def potts_weights(image: Any, *, connectivity: int = 4, lam: float = 1.0, sigma: float | None = None) -> np.ndarray:
    """Contrast-sensitive Potts term (Boykov & Jolly 2001): ``lam * exp(-(I_p - I_q)^2 / (2 sigma^2)) / |p - q|``
    for every neighbour arc, shape ``(k, *grid)`` (float64). ``sigma`` defaults to the RMS neighbour
    difference. Colour images: the last axis is summed over channels when the image has ndim + 1 axes.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import grid_cut
    >>> from matchflow.flow import potts_weights, unary_from_intensity
    >>> img = np.array([[0.0, 0.1, 0.9], [0.1, 0.8, 1.0]])
    >>> edge_caps = potts_weights(img, lam=0.5)
    >>> edge_caps.shape  # one weight per neighbour offset and pixel
    (4, 2, 3)
    >>> source_caps, sink_caps = unary_from_intensity(img, fg_mean=1.0, bg_mean=0.0, sigma=0.5)
    >>> grid_cut(source_caps, sink_caps, edge_caps, backend="cpu").labels.astype(int).tolist()
    [[0, 0, 1], [0, 1, 1]]

    References
    ----------
    .. [1] Boykov, Y., and Jolly, M.-P., "Interactive graph cuts for optimal boundary & region segmentation of
           objects in N-D images", Eighth IEEE International Conference on Computer Vision (ICCV), 105-112, 2001.
           DOI:10.1109/ICCV.2001.937505
    """
    img = to_host_array(image, "image").astype(np.float64)
    lam = check_real("lam", lam, low=0.0)
    colour = img.ndim == 4 or (img.ndim == 3 and connectivity in (4, 8))
    shape = img.shape[:-1] if colour else img.shape
    off = offsets(len(shape), connectivity)
    w = np.zeros((len(off),) + shape)
    diffs = []
    for o in off:
        s = tuple(slice(max(0, -d), shape[i] - max(0, d)) for i, d in enumerate(o))
        d_ = tuple(slice(max(0, d), shape[i] - max(0, -d)) for i, d in enumerate(o))
        sq = (img[s] - img[d_]) ** 2
        diffs.append(sq.sum(axis=-1) if colour else sq)
    if sigma is None:
        total = sum(float(x.sum()) for x in diffs)
        count = sum(x.size for x in diffs)
        sigma = max(np.sqrt(total / max(count, 1)), 1e-12)
    sigma = check_real("sigma", sigma, low=0.0, low_inclusive=False)
    for k, o in enumerate(off):
        s = tuple(slice(max(0, -d), shape[i] - max(0, d)) for i, d in enumerate(o))
        w[k][s] = lam * np.exp(-diffs[k] / (2 * sigma**2)) / np.sqrt(float(np.sum(np.abs(o))))
    return w


def unary_from_intensity(image: Any, fg_mean: float, bg_mean: float, *, sigma: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian intensity models: ``(source_caps, sink_caps)`` with ``sink_caps`` = cost of foreground
    ``(I - fg_mean)^2 / (2 sigma^2)`` and ``source_caps`` = cost of background (True labels: foreground).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow.flow import unary_from_intensity
    >>> source_caps, sink_caps = unary_from_intensity(np.array([[0.0, 1.0]]), fg_mean=1.0, bg_mean=0.0)
    >>> source_caps.tolist(), sink_caps.tolist()  # a pixel pays its distance to the other model
    ([[0.0, 0.5]], [[0.5, 0.0]])
    """
    img = to_host_array(image, "image").astype(np.float64)
    sigma = check_real("sigma", sigma, low=0.0, low_inclusive=False)
    fg = (img - check_real("fg_mean", fg_mean)) ** 2 / (2 * sigma**2)
    bg = (img - check_real("bg_mean", bg_mean)) ** 2 / (2 * sigma**2)
    return bg, fg
