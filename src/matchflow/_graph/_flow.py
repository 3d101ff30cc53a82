"""The flow network container: arcs with capacities, a source and a sink, and the residual CSR.

Every input arc ``u -> v`` (capacity ``c``) becomes a pair of residual arcs: ``u -> v`` with
capacity ``c`` and ``v -> u`` with capacity 0, each pointing at the other through ``rev``
(the usual push-relabel layout, Goldberg & Tarjan 1988; Cherkassky & Goldberg 1997).
Self-loops carry no flow and get no residual arcs; parallel and antiparallel arcs are kept.

Beside the container: the solvers' residual start (:func:`residual_start`), the overflow limits they rely
on (:func:`check_overflow`) and :func:`as_flow_network`, which turns user input into a ``FlowNetwork``.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import scipy.sparse as sp

from .._validation import native_array, to_host_array, type_name
from ._common import check_index_array, check_weights, index_dtype

__all__ = ["FlowNetwork", "as_flow_network", "check_overflow", "residual_start", "FLOAT_RTOL", "INT_LIMIT",
           "FLOAT_LIMIT"]

INT_LIMIT = 2**62  # integer capacity sums must stay below this (int64 excess never wraps)
FLOAT_LIMIT = 2.0**1022  # float capacity sums at a vertex must stay below this (no excess overflows float64)
FLOAT_RTOL = 1e-12  # grid cuts only (flow/_grid.py): general networks treat no float residual as zero by a threshold


@numba.njit(cache=True, inline="always")
def _place_dev(fill, t, h, c, e, head, cap, arc):
    """Put the residual arc ``t -> h`` (capacity ``c``, input arc ``e``, -1 for a reverse arc) in the next free
    slot of tail ``t``; returns the slot."""
    p = fill[t]
    fill[t] += 1
    head[p] = h
    cap[p] = c
    arc[p] = e
    return p


@numba.njit(cache=True)
def residual_csr_kernel(tails, heads, caps, keep, indptr, head, rev, cap, arc):
    """Counting sort of the residual arcs by tail (one pass to count, two to place): the forward
    slots of a tail first, in input order, then its reverse slots, in input order -- the order of
    a stable sort of the forward-then-reverse arc list. Fills the CSR arrays in place."""
    k = len(keep)
    n = len(indptr) - 1
    for j in range(k):
        e = keep[j]
        indptr[tails[e] + 1] += 1
        indptr[heads[e] + 1] += 1
    for v in range(n):
        indptr[v + 1] += indptr[v]
    fill = indptr[:n].copy()
    fwd = np.empty(k, dtype=np.int64)
    for j in range(k):
        e = keep[j]
        fwd[j] = _place_dev(fill, tails[e], heads[e], caps[e], e, head, cap, arc)
    for j in range(k):
        e = keep[j]
        p = _place_dev(fill, heads[e], tails[e], 0, -1, head, cap, arc)
        rev[p] = fwd[j]
        rev[fwd[j]] = p


class FlowNetwork:
    """A max-flow instance: ``n`` nodes, arcs ``tails[k] -> heads[k]`` with ``capacities[k]``.

    ``tails``/``heads`` are int64 node ids (0-based); ``capacities`` keep the input's dtype
    (integers stay integers, floats stay floats; native byte order), non-negative and finite.
    The residual graph (built on first use) is a CSR over the nodes: ``indptr`` (n + 1),
    ``head`` (the arc's head), ``rev`` (the position of the paired reverse arc), ``cap`` (the
    residual capacity at zero flow) and ``arc`` (the input arc of a forward slot, -1 for a
    reverse slot); arcs of one tail are in input order, forward slots before reverse ones.
    """

    __slots__ = ("n", "source", "sink", "tails", "heads", "capacities", "_residual")

    def __init__(self, n: int, source: int, sink: int, tails: Any, heads: Any, capacities: Any) -> None:
        self.n = int(n)
        if self.n < 2:
            raise ValueError(f"n must be at least 2 (a source and a sink), got {self.n}")
        for what, v in (("source", source), ("sink", sink)):
            if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer):
                raise TypeError(f"{what} must be an integer node id, got {type_name(v)} {v!r}")
            if not 0 <= int(v) < self.n:
                raise ValueError(f"{what} must be a node id in 0..{self.n - 1}, got {int(v)}")
        self.source, self.sink = int(source), int(sink)
        if self.source == self.sink:
            raise ValueError(f"source and sink must differ, both are {self.source}")
        t, h, c = np.asarray(tails), np.asarray(heads), np.asarray(capacities)
        if not (t.shape == h.shape == c.shape) or t.ndim != 1:
            raise ValueError("tails, heads and capacities must be 1-D arrays of one length, got shapes "
                             f"{t.shape}, {h.shape} and {c.shape}")
        self.tails = np.ascontiguousarray(_node_ids("tails", t, self.n), dtype=np.int64)
        self.heads = np.ascontiguousarray(_node_ids("heads", h, self.n), dtype=np.int64)
        if c.size == 0 and c.dtype.kind not in "iuf":
            c = c.astype(np.int64)  # an empty list: integer capacities
        self.capacities = check_weights("capacities", c, len(c), nonnegative=True)
        self._residual: tuple[np.ndarray, ...] | None = None

    # ---------------------------------------------------------------- views
    @property
    def m(self) -> int:
        """Number of input arcs."""
        return int(len(self.tails))

    def _build(self) -> tuple[np.ndarray, ...]:
        if self._residual is None:
            keep = np.flatnonzero(self.tails != self.heads)
            k = len(keep)
            it = index_dtype(self.n, 2 * k)
            indptr = np.zeros(self.n + 1, dtype=it)
            head = np.empty(2 * k, dtype=it)
            rev = np.empty(2 * k, dtype=it)
            cap = np.empty(2 * k, dtype=self.capacities.dtype)
            arc = np.empty(2 * k, dtype=np.int64)
            residual_csr_kernel(self.tails, self.heads, self.capacities, keep, indptr, head, rev, cap, arc)
            self._residual = (indptr, head, rev, cap, arc)
        return self._residual

    indptr = property(lambda self: self._build()[0], doc="Residual CSR pointers (n + 1).")
    head = property(lambda self: self._build()[1], doc="Head node of each residual arc.")
    rev = property(lambda self: self._build()[2], doc="Position of each residual arc's reverse arc.")
    cap = property(lambda self: self._build()[3], doc="Residual capacity at zero flow (input dtype).")
    arc = property(lambda self: self._build()[4], doc="Input arc of each forward slot, -1 for reverse slots.")

    def to_scipy(self) -> sp.csr_array:
        """The ``n x n`` capacity matrix (parallel arcs summed, self-loops dropped), CSR, the input dtype
        (integers: summed in int64, the input dtype kept where the sums fit it)."""
        keep = self.tails != self.heads
        c = self.capacities[keep]
        wide = c.astype(np.int64) if c.dtype.kind in "iu" and c.dtype.itemsize < 8 else c
        a = sp.csr_array((wide, (self.tails[keep], self.heads[keep])), shape=(self.n, self.n))
        a.sum_duplicates()
        if wide is not c and (a.nnz == 0 or a.data.max() <= np.iinfo(c.dtype).max):
            a = a.astype(c.dtype)
        return a

    def __repr__(self) -> str:
        return f"FlowNetwork(n={self.n}, m={self.m}, source={self.source}, sink={self.sink})"

    # --------------------------------------------------------- constructors
    @classmethod
    def from_edges(cls, n: int, source: int, sink: int, tails: Any, heads: Any, capacities: Any) -> FlowNetwork:
        """Arcs ``tails[k] -> heads[k]`` with ``capacities[k]`` (same as the constructor)."""
        return cls(n, source, sink, tails, heads, capacities)

    @classmethod
    def from_scipy(cls, a: Any, source: int, sink: int) -> FlowNetwork:
        """One arc per stored nonzero ``a[u, v]`` of a square scipy.sparse capacity matrix
        (duplicates summed, stored zeros dropped; dtype kept)."""
        if not sp.issparse(a):
            raise TypeError(f"a must be a scipy.sparse matrix or array, got {type_name(a)}")
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise ValueError(f"a must be a square capacity matrix, got shape {a.shape}")
        if a.dtype.kind in "iu" and a.nnz:
            _check_duplicate_sums(sp.coo_array(a))
        csr = sp.csr_array(a, copy=True)
        csr.sum_duplicates()
        coo = csr.tocoo()
        keep = coo.data != 0
        return cls(a.shape[0], source, sink, coo.coords[0][keep], coo.coords[1][keep],
                   native_array(np.asarray(coo.data[keep]), "capacities"))

    @classmethod
    def from_dense(cls, a: Any, source: int, sink: int) -> FlowNetwork:
        """One arc per nonzero entry of a square dense capacity matrix (dtype kept)."""
        arr = to_host_array(a, "a")
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
            raise ValueError(f"a must be a square capacity matrix, got shape {arr.shape}")
        r, c = np.nonzero(arr)
        return cls(arr.shape[0], source, sink, r, c, native_array(arr[r, c], "capacities"))


def check_overflow(net: FlowNetwork) -> None:
    """Refuse capacities whose sums into or out of one vertex reach 2**62 (integers: int64 excess and
    deficits never wrap) or 2**1022 (floats: no excess, deficit or flow value overflows float64)."""
    c = net.capacities
    if c.size == 0:
        return
    is_int = c.dtype.kind in "iu"
    cf = c.astype(np.float64) * (1.0 if is_int else 0.5)  # halved: the float sums themselves stay finite
    loop = net.tails == net.heads
    into, out = (np.bincount(x[~loop], cf[~loop], net.n) for x in (net.heads, net.tails))
    sums = into if into.max() >= out.max() else out
    v = int(sums.argmax())
    worst = float(sums[v]) * (1.0 if is_int else 2.0)
    if is_int and worst >= INT_LIMIT:
        raise OverflowError(f"capacities at node {v} sum to about {worst:.3g}, beyond 2**62: the flow could "
                            "overflow int64 (scale the capacities down or pass floats)")
    if not is_int and sums[v] >= FLOAT_LIMIT / 2:
        raise OverflowError(f"capacities at node {v} sum to about 2 x {sums[v]:.3g}, beyond 2**1022: the flow could "
                            "overflow float64 (scale the capacities down)")


def residual_start(net: FlowNetwork) -> tuple[np.ndarray, Any]:
    """The CPU solvers' working residual capacities (a copy: int64 for integer capacities, else float64) and
    the zero they compare residuals with (no threshold: a saturating push leaves exactly 0)."""
    is_int = net.capacities.dtype.kind in "iu"
    cap = net.cap.astype(np.int64 if is_int else np.float64, copy=True)
    return cap, np.int64(0) if is_int else np.float64(0.0)


def as_flow_network(graph: Any, source: Any, sink: Any) -> FlowNetwork:
    """``graph`` as a :class:`FlowNetwork`: a FlowNetwork (``source``/``sink`` None: its own), a scipy.sparse
    or dense capacity matrix, or a networkx graph."""
    if isinstance(graph, FlowNetwork):
        if source is None and sink is None:
            return graph
        return FlowNetwork(graph.n, graph.source if source is None else source,
                           graph.sink if sink is None else sink, graph.tails, graph.heads, graph.capacities)
    if source is None or sink is None:
        raise ValueError("source and sink are required unless graph is a FlowNetwork")
    if hasattr(graph, "edges") and hasattr(graph, "nodes"):  # networkx, attribute "capacity"
        return _from_networkx(graph, source, sink)
    if sp.issparse(graph):
        return FlowNetwork.from_scipy(graph, source, sink)
    return FlowNetwork.from_dense(graph, source, sink)


def _from_networkx(graph: Any, source: Any, sink: Any) -> FlowNetwork:
    """Arcs of a networkx graph (``capacity`` attribute, default 1); an undirected edge is two arcs, as
    networkx's own max-flow reads it."""
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    for what, v in (("source", source), ("sink", sink)):
        if v not in index:
            raise ValueError(f"{what} {v!r} is not a node of the graph")
    e = [(index[u], index[v], d.get("capacity", 1)) for u, v, d in graph.edges(data=True)]
    if not graph.is_directed():
        e += [(v, u, c) for u, v, c in e if u != v]
    t, h, c = (np.array(x) for x in zip(*e, strict=True)) if e else ([], [], np.zeros(0, np.int64))
    return FlowNetwork(len(nodes), index[source], index[sink], t, h, c)


def _node_ids(name: str, a: np.ndarray, n: int) -> np.ndarray:
    try:
        return check_index_array(name, a, n, "n")
    except ValueError as exc:
        bad = int(a.min()) if a.size and a.min() < 0 else int(a.max())
        raise ValueError(f"{name} holds node id {bad}, out of range 0..{n - 1}") from exc


def _check_duplicate_sums(coo: sp.coo_array) -> None:
    """Integer duplicates summed must not wrap: refuse entries whose sum passes 2**62 (``FlowNetwork``'s limit)."""
    wide = sp.coo_array((coo.data.astype(np.float64), coo.coords), shape=coo.shape)
    wide.sum_duplicates()
    if wide.nnz and np.abs(wide.data).max() >= 2.0**62:
        k = int(np.abs(wide.data).argmax())
        raise OverflowError(f"a's duplicate entries at ({int(wide.coords[0][k])}, {int(wide.coords[1][k])}) sum "
                            f"to about {wide.data[k]:.3g}, beyond 2**62 (capacities must fit int64 when summed)")
