"""The max-flow certificate: a feasible flow whose value equals the capacity of an s-t cut
(max-flow min-cut theorem: both are then optimal)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["verify_flow"]


def verify_flow(graph: Any, source: int | None, sink: int | None, result: Any, *, rtol: float = 1e-9) -> bool:
    """Raise AssertionError unless ``result`` (a FlowResult) is a maximum flow of ``graph``.

    Checks 0 <= flow <= capacity on every input arc, conservation at every vertex but the
    source and sink, net outflow of the source == ``flow_value`` == inflow of the sink, the
    source side holds the source and not the sink, and the capacity of the arcs leaving the
    source side equals ``flow_value`` (exact for integers; floats within
    ``rtol * (sum of capacities)``). Returns True.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from matchflow import max_flow
    >>> from matchflow.verify import verify_flow
    >>> cap = sp.csr_array(np.array([[0, 3, 2, 0], [0, 0, 1, 2], [0, 0, 0, 3], [0, 0, 0, 0]]))
    >>> verify_flow(cap, 0, 3, max_flow(cap, 0, 3, backend="cpu"))
    True
    """
    from ._api import _as_network

    net = _as_network(graph, source, sink)
    f = np.asarray(result.flow)
    c = net.capacities
    if f.shape != c.shape:
        raise AssertionError(f"flow has shape {f.shape}, the network has {net.m} arcs")
    exact = c.dtype.kind in "iu" and f.dtype.kind in "iu"
    work = np.int64 if exact else np.float64
    f, c = f.astype(work), c.astype(work)
    tol = 0 if exact else rtol * max(1.0, float(np.abs(c).sum()))
    loops = net.tails == net.heads
    if np.any(f < -tol) or np.any(f - c > tol):
        k = int(np.flatnonzero((f < -tol) | (f - c > tol))[0])
        raise AssertionError(f"arc {k} carries flow {f[k]} outside [0, {c[k]}]")
    fl = np.where(loops, 0, f)
    net_out = np.zeros(net.n, dtype=work)
    np.add.at(net_out, net.tails, fl)
    np.subtract.at(net_out, net.heads, fl)
    inner = np.ones(net.n, dtype=bool)
    inner[[net.source, net.sink]] = False
    bad = np.flatnonzero(inner & (np.abs(net_out) > tol))
    if len(bad):
        raise AssertionError(f"flow is not conserved at node {int(bad[0])} (net outflow {net_out[bad[0]]})")
    value = result.flow_value
    if abs(net_out[net.source] - value) > tol or abs(-net_out[net.sink] - value) > tol:
        raise AssertionError(f"flow_value {value} differs from the source's net outflow {net_out[net.source]} "
                             f"or the sink's net inflow {-net_out[net.sink]}")
    side = np.asarray(result.source_side, dtype=bool)
    if side.shape != (net.n,) or not side[net.source] or side[net.sink]:
        raise AssertionError("source_side must be a mask of n vertices holding the source and not the sink")
    crossing = side[net.tails] & ~side[net.heads]
    cut = c[crossing].sum()
    if abs(cut - value) > tol:
        raise AssertionError(f"the cut's capacity {cut} differs from flow_value {value}: not a maximum flow")
    if not np.array_equal(np.sort(np.asarray(result.cut_edges)), np.flatnonzero(crossing)):
        raise AssertionError("cut_edges are not the arcs leaving source_side")
    return True
