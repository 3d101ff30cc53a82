"""The three input forms of :func:`matchflow.min_cost_flow` -> one :class:`Prepared` problem.

* an edge list ``(tail, head)`` with ``capacity``/``cost`` arrays and ``demand`` (n = ``len(demand)``);
* a square scipy.sparse matrix: arcs = its stored entries in canonical CSR order (duplicates summed as SciPy
  does), ``capacity``/``cost`` sparse matrices of the same pattern (capacity default: the matrix's values);
* a networkx DiGraph / MultiDiGraph: node attribute ``demand``, edge attributes ``capacity`` (absent: unbounded)
  and ``weight`` (absent: 0), as ``networkx.min_cost_flow`` reads them.

Capacities and demands must be integral (integer dtypes, or floats holding integers); ``np.inf`` (or an absent
networkx capacity) is an unbounded arc. An unbounded arc gets the finite bound ``U = sum of positive demands +
sum of finite capacities + 1``: if the network has an optimum it has one within ``U`` on every arc (a flow
decomposes into paths, each carrying at most the supplies, and cycles; a cycle through a finite arc is bounded by
it; a cycle of unbounded arcs only costs >= 0 unless the problem is unbounded, and an optimum needs none of
positive cost). Whether a negative cycle runs over unbounded arcs only is decided after the bounded solve, by
the exact potentials (:mod:`._api`): such a cycle exists iff no potential makes every unbounded arc's reduced cost
non-negative, and the bounded optimum's exact potentials do whenever no such cycle exists (an unbounded arc
carrying ``U`` lies on a flow cycle of unbounded arcs, all of reduced cost 0 at an optimum).

Costs: integers are exact (int64; ``max|cost| * (n + 1)`` must stay below 2**60 for the scaled costs, else
OverflowError). Float costs are multiplied by a power of two ``2**k`` and rounded to integers: exactly when every
cost is a multiple of ``2**-k`` in range (``Prepared.exact``), else rounded, and the answer's optimality gap on the
float costs is bounded by the certificate (:func:`._verify.gap_bound`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import type_name

__all__ = ["Prepared", "prepare", "with_demand", "COST_LIMIT", "FLOW_LIMIT"]

COST_LIMIT = 2**60  # max|cost| * (n + 1) below this (the scaled costs; prices stay within 2**62 or the solve says so)
FLOW_LIMIT = 2**62  # capacities and demands: every sum an excess can reach stays below this


@dataclass
class Prepared:
    """One min-cost flow problem: ``n`` nodes, arcs ``tail[k] -> head[k]`` in the input's arc order with integer
    capacity ``cap`` (unbounded arcs: ``bound``, marked in ``unbounded``), costs ``cost`` (the input's values,
    int64 or float64) and ``icost`` (int64: ``cost * scale`` rounded; ``exact`` when no rounding happened), and
    integer ``demand`` (networkx's sign: > 0 receives). ``nodes``/``edges``: the networkx form's labels."""

    n: int
    tail: np.ndarray
    head: np.ndarray
    cap: np.ndarray
    unbounded: np.ndarray
    bound: int
    cost: np.ndarray
    icost: np.ndarray
    scale: float
    exact: bool
    demand: np.ndarray
    nodes: list | None = None
    edges: list | None = None
    multigraph: bool = False

    @property
    def m(self) -> int:
        return int(self.tail.size)

    @property
    def is_float(self) -> bool:
        return self.cost.dtype.kind == "f"


def prepare(G: Any, demand: Any = None, capacity: Any = None, cost: Any = None,
            ignore_demand: bool = False) -> Prepared:
    """Validate once and build the :class:`Prepared` problem (see the module docstring); ``ignore_demand``: a
    networkx graph's node demands are read as 0 (``max_flow_min_cost``)."""
    nodes = edges = None
    multigraph = False
    if hasattr(G, "nodes") and hasattr(G, "edges") and hasattr(G, "is_directed"):
        if demand is not None or capacity is not None or cost is not None:
            raise ValueError("a networkx graph carries its own demand, capacity and weight attributes: "
                             "demand, capacity and cost must be None")
        n, tail, head, capacity, cost, demand, nodes, edges, multigraph = _from_networkx(G)
        if ignore_demand:
            demand = np.zeros(n, np.int64)
    elif sp.issparse(G):
        n, tail, head, capacity, cost = _from_sparse(G, capacity, cost)
    elif isinstance(G, tuple | list) and len(G) == 2:
        if demand is None:
            raise ValueError("demand is required with the edge-list form G=(tail, head): it gives n = len(demand)")
        n = np.asarray(demand).shape[0] if np.ndim(demand) == 1 else -1
        tail, head = (_ids(name, a, n) for name, a in (("tail", G[0]), ("head", G[1])))
        if tail.size != head.size:
            raise ValueError(f"tail and head must have the same length, got {tail.size} and {head.size}")
    else:
        raise TypeError("G must be a tuple (tail, head) of integer arrays, a square scipy.sparse matrix or a "
                        f"networkx DiGraph, got {type_name(G)}")
    m = tail.size
    d = _demand(demand, n)
    cap, unb = _capacity(capacity, m)
    c = _cost(cost, m)
    icost, scale, exact = _scaled_costs(c, n)
    P = Prepared(n=n, tail=tail, head=head, cap=cap, unbounded=unb, bound=0, cost=c, icost=icost,
                 scale=scale, exact=exact, demand=d, nodes=nodes, edges=edges, multigraph=multigraph)
    return with_demand(P, d)


def with_demand(P: Prepared, d: np.ndarray) -> Prepared:
    """``P`` with demands ``d`` (summing to 0) and the unbounded arcs' bound recomputed (module docstring)."""
    unb = P.unbounded
    finite = int(P.cap[~unb].sum(dtype=object)) if P.m else 0
    supply = int(d[d > 0].sum(dtype=object)) if P.n else 0
    bound = supply + finite + 1
    if (int(unb.sum()) + 1) * bound + finite + 2 * supply >= FLOW_LIMIT:
        raise OverflowError(f"capacities and demands too large: the flow bound {bound} over "
                            f"{int(unb.sum())} unbounded arcs passes 2**62")
    cap = P.cap.copy()
    cap[unb] = bound
    return dataclasses.replace(P, cap=cap, bound=bound, demand=d)


def _ids(name: str, a: Any, n: int) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of node ids, got shape {a.shape}")
    if a.size and a.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integer node ids, got dtype {a.dtype}")
    a = a.astype(np.int64)
    if a.size and (a.min() < 0 or a.max() >= n):
        bad = int(a.min()) if a.min() < 0 else int(a.max())
        raise ValueError(f"{name} holds node id {bad}, out of range 0..{n - 1} (n = len(demand) = {n})")
    return a


def _integral(name: str, a: Any, what: str) -> np.ndarray:
    """``a`` as a 1-D integer-valued array (int64 or float64 holding integers; inf kept for the caller)."""
    a = np.asarray(a)
    if a.dtype == object or a.dtype.kind == "b" or a.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a numeric array, got dtype {a.dtype}")
    if a.dtype.kind == "f":
        if np.isnan(a).any():
            raise ValueError(f"{name} holds NaN at {int(np.flatnonzero(np.isnan(a))[0])}")
        fin = np.isfinite(a)
        if (a[fin] != np.round(a[fin])).any():
            k = int(np.flatnonzero(fin & (a != np.round(a)))[0])
            raise ValueError(f"{name} must be integral ({what}), got {a[k].item()!r} at {k}")
        if (np.abs(a[fin]) >= FLOW_LIMIT).any():
            raise OverflowError(f"{name} holds values beyond 2**62")
        return a
    if a.dtype.kind == "u" and a.size and a.max() >= FLOW_LIMIT:
        raise OverflowError(f"{name} holds values beyond 2**62")
    return a.astype(np.int64)


def _demand(demand: Any, n: int) -> np.ndarray:
    d = np.asarray(demand) if demand is not None else np.zeros(0, np.int64)
    if d.ndim != 1 or d.shape[0] != n:
        raise ValueError(f"demand must be a 1-D array of length n = {n}, got shape {d.shape}")
    d = _integral("demand", d, "units of flow")
    if d.dtype.kind == "f" and not np.isfinite(d).all():
        raise ValueError(f"demand must be finite, got {d[~np.isfinite(d)][0].item()!r}")
    d = d.astype(np.int64)
    total = int(d.sum(dtype=object)) if n else 0
    if total != 0:
        raise ValueError(f"demand must sum to 0 (what is sent = what is received), got sum {total}")
    return d


def _capacity(capacity: Any, m: int) -> tuple[np.ndarray, np.ndarray]:
    if capacity is None:
        return np.zeros(m, np.int64), np.ones(m, bool)
    c = np.asarray(capacity)
    if c.ndim != 1 or c.shape[0] != m:
        raise ValueError(f"capacity must be a 1-D array with one entry per arc ({m}), got shape {c.shape}")
    c = _integral("capacity", c, "units of flow; np.inf: unbounded")
    if c.size and (c < 0).any():
        k = int(np.flatnonzero(c < 0)[0])
        raise ValueError(f"capacity must be non-negative, got {c[k].item()!r} at arc {k}")
    unb = np.isinf(c) if c.dtype.kind == "f" else np.zeros(m, bool)
    return np.where(unb, 0, c).astype(np.int64), unb


def _cost(cost: Any, m: int) -> np.ndarray:
    if cost is None:
        return np.zeros(m, np.int64)
    c = np.asarray(cost)
    if c.ndim != 1 or c.shape[0] != m:
        raise ValueError(f"cost must be a 1-D array with one entry per arc ({m}), got shape {c.shape}")
    if c.dtype == object or c.dtype.kind not in "iuf":
        raise ValueError(f"cost must be a numeric array, got dtype {c.dtype}")
    if c.dtype.kind == "f":
        if not np.isfinite(c).all():
            k = int(np.flatnonzero(~np.isfinite(c))[0])
            raise ValueError(f"cost must be finite, got {c[k].item()!r} at arc {k}")
        return c.astype(np.float64)
    if c.dtype.kind == "u" and c.size and c.max() >= COST_LIMIT:
        raise OverflowError(f"cost holds {int(c.max())}, beyond 2**60")
    return c.astype(np.int64)


def _scaled_costs(c: np.ndarray, n: int) -> tuple[np.ndarray, float, bool]:
    """``(icost, scale, exact)``: int64 costs ``c * scale`` with ``max|icost| * (n + 1) < 2**60``."""
    big = float(np.abs(c).max()) if c.size else 0.0
    if c.dtype.kind != "f":
        if int(np.abs(c).max()) * (n + 1) >= COST_LIMIT if c.size else False:
            raise OverflowError(f"costs up to {int(np.abs(c).max())} on {n} nodes: max|cost| * (n + 1) must stay "
                                "below 2**60 for the exact integer solve")
        return c, 1.0, True
    room = min(2.0**52, COST_LIMIT / (n + 1) / 2)  # icost exact in float64 and within the scaled limit
    if big == 0.0:
        return np.zeros(c.size, np.int64), 1.0, True
    k = int(np.floor(np.log2(room / big)))
    scale = 2.0**k
    s = c * scale  # exact: a power of two (no overflow: big * scale <= room)
    r = np.round(s)
    return r.astype(np.int64), scale, bool((r == s).all())


def _from_sparse(G: Any, capacity: Any, cost: Any) -> tuple:
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"G must be a square scipy.sparse matrix, got shape {G.shape}")
    A = _canonical(G)
    n = A.shape[0]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(A.indptr))
    cols = A.indices.astype(np.int64)
    vals = []
    for name, X in (("capacity", capacity), ("cost", cost)):
        if X is None:
            vals.append(A.data if name == "capacity" else None)
            continue
        if not sp.issparse(X):
            raise ValueError(f"{name} must be a scipy.sparse matrix of G's pattern, got {type_name(X)}")
        B = _canonical(X)
        if B.shape != A.shape or not (np.array_equal(B.indptr, A.indptr) and np.array_equal(B.indices, A.indices)):
            raise ValueError(f"{name} must have G's sparsity pattern (shape {A.shape}, {A.nnz} stored entries), "
                             f"got shape {B.shape} with {B.nnz} stored entries")
        vals.append(B.data)
    return n, rows, cols, vals[0], vals[1]


def _canonical(X: Any) -> sp.csr_array:
    A = sp.csr_array(X, copy=True)
    A.sum_duplicates()  # sorts the indices too; stored zeros are kept (they are arcs)
    return A


def _from_networkx(G: Any) -> tuple:
    if not G.is_directed():
        raise ValueError("G must be a directed networkx graph (DiGraph or MultiDiGraph), as networkx.min_cost_flow "
                         "requires")
    nodes = list(G.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    multigraph = bool(G.is_multigraph())
    edges = list(G.edges(keys=True, data=True)) if multigraph else list(G.edges(data=True))
    tail = np.array([index[e[0]] for e in edges], dtype=np.int64)
    head = np.array([index[e[1]] for e in edges], dtype=np.int64)
    caps = np.array([e[-1].get("capacity", np.inf) for e in edges], dtype=np.float64)
    wts = [e[-1].get("weight", 0) for e in edges]
    cost = np.array(wts, dtype=np.int64 if all(isinstance(w, int | np.integer) for w in wts) else np.float64)
    demand = np.array([G.nodes[v].get("demand", 0) for v in nodes])
    if demand.size and demand.dtype.kind not in "iuf":
        demand = demand.astype(np.float64)
    keys = [e[:3] if multigraph else e[:2] for e in edges]
    return len(nodes), tail, head, caps, cost, demand if demand.size else np.zeros(0, np.int64), nodes, keys, multigraph
