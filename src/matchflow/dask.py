"""Batched solves on Dask arrays chunked along the batch axis: lazy, one task per chunk (``map_blocks``).

Any Dask scheduler runs them (threads, processes, ``dask.distributed`` clusters; one worker per GPU with
``backend="gpu"``). Importing this module does not import Dask; the functions do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["batch_linear_sum_assignment", "grid_cut"]


def _batch_chunked(x: Any, name: str, ndim: int) -> None:
    """``x`` is a Dask array of ``ndim`` axes with one chunk along every axis but the first."""
    import dask.array as da  # noqa: PLC0415

    if not isinstance(x, da.Array):
        raise TypeError(f"{name} must be a dask.array.Array, got {type(x).__name__}")
    if x.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axes (a batch), got shape {x.shape}")
    split = [k for k in range(1, ndim) if len(x.chunks[k]) != 1]
    if split:
        raise ValueError(f"{name} must be chunked along the batch axis only, got chunks {x.chunks} (axis {split[0]} "
                         f"split); rechunk it with {{{', '.join(f'{k}: -1' for k in split)}}}")


def batch_linear_sum_assignment(costs: Any, **kw: Any) -> Any:
    """:func:`matchflow.batch_linear_sum_assignment` on a Dask array ``(B, n, m)`` chunked along B only.

    Lazy: returns the ``(B, n)`` Dask array of each row's column (``-1`` where unmatched), one task per chunk.
    ``kw`` as the batched call's, except ``shapes``, ``return_cost`` and ``return_duals`` (one answer array).

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from matchflow.dask import batch_linear_sum_assignment
    >>> C = da.from_array(np.array([[[4, 1], [2, 0]], [[1, 2], [3, 5]], [[0, 9], [9, 0]]]), chunks=(2, 2, 2))
    >>> x = batch_linear_sum_assignment(C)
    >>> x.compute().tolist()
    [[1, 0], [1, 0], [0, 1]]

    References
    ----------
    .. [1] R. Jonker, A. Volgenant, "A shortest augmenting path algorithm for dense and sparse linear
       assignment problems", Computing 38 (1987) 325-340.
    .. [2] M. Rocklin, "Dask: Parallel Computation with Blocked algorithms and Task Scheduling", Proceedings of
       the 14th Python in Science Conference (2015) 130-136.
    """
    from .batch import batch_linear_sum_assignment as solve  # noqa: PLC0415

    _batch_chunked(costs, "costs", 3)
    for k in ("shapes", "return_cost", "return_duals"):
        if kw.get(k):
            raise ValueError(f"matchflow.dask.batch_linear_sum_assignment takes no {k}= (one answer array)")
    n = int(costs.shape[1])
    return costs.map_blocks(lambda blk: solve(blk, **kw).reshape(blk.shape[0], n), dtype=np.int64,
                            drop_axis=2, chunks=(costs.chunks[0], (n,)), meta=np.empty((0, 0), dtype=np.int64))


def grid_cut(source_caps: Any, sink_caps: Any, edge_caps: Any, **kw: Any) -> Any:
    """:func:`matchflow.grid_cut` of a batch of 2-D grids ``(B, H, W)`` as Dask arrays chunked along B only.

    Lazy: returns the ``(B, H, W)`` Dask array of labels (True: source side), one batched ``grid_cut`` per
    chunk. ``edge_caps``: a scalar or a NumPy array broadcastable to ``(k, H, W)`` (the same for every item),
    or a Dask array ``(B, k, H, W)`` chunked like the capacities. ``kw`` as :func:`matchflow.grid_cut`'s
    (``connectivity``: 4 unless given, or 8).

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from matchflow.dask import grid_cut
    >>> s = da.from_array(np.array([[[5, 4, 0], [4, 0, 0]]] * 3), chunks=(2, 2, 3))
    >>> t = da.from_array(np.array([[[0, 0, 3], [0, 2, 6]]] * 3), chunks=(2, 2, 3))
    >>> grid_cut(s, t, 1, backend="cpu").compute().astype(int)[2].tolist()
    [[1, 1, 0], [1, 0, 0]]

    References
    ----------
    .. [1] Boykov, Y., and Kolmogorov, V., "An experimental comparison of min-cut/max-flow algorithms for energy
           minimization in vision", IEEE Transactions on Pattern Analysis and Machine Intelligence 26(9),
           1124-1137, 2004.
    """
    import dask.array as da  # noqa: PLC0415

    from .flow import grid_cut as cut  # noqa: PLC0415

    kw.setdefault("connectivity", 4)  # a (B, H, W) stack of 2-D grids, not one 3-D grid
    _batch_chunked(source_caps, "source_caps", 3)
    _batch_chunked(sink_caps, "sink_caps", 3)
    if source_caps.shape != sink_caps.shape or source_caps.chunks != sink_caps.chunks:
        raise ValueError(f"sink_caps must match source_caps (shape {source_caps.shape}, chunks {source_caps.chunks}),"
                         f" got shape {sink_caps.shape}, chunks {sink_caps.chunks}")

    def one(s, t, e=edge_caps):
        return cut(s, t, e, **kw).labels

    if isinstance(edge_caps, da.Array):
        _batch_chunked(edge_caps, "edge_caps", 4)
        return da.blockwise(one, "bhw", source_caps, "bhw", sink_caps, "bhw", edge_caps, "bkhw", concatenate=True,
                            dtype=bool, meta=np.empty((0, 0, 0), dtype=bool))
    return da.map_blocks(one, source_caps, sink_caps, dtype=bool, meta=np.empty((0, 0, 0), dtype=bool))
