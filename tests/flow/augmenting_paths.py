"""A toy max-flow method for ``test_a_new_method_is_one_table_row``: augmenting paths on the residual CSR,
shortest first (``order="bfs"``: Edmonds-Karp) or depth first (``order="dfs"``: Ford-Fulkerson). Plain
Python: tiny networks only. It is the whole of a new CPU method: its solve and its option check."""

from __future__ import annotations

from collections import deque

import numpy as np

from matchflow._graph._flow import FlowNetwork, residual_start
from matchflow._validation import check_choice
from matchflow.flow._cpu_push_relabel import arc_flow_kernel

ORDERS = ("bfs", "dfs")


def check_augmenting_paths_options(opts: dict) -> dict:
    opts["order"] = check_choice("order", opts.get("order", "bfs"), ORDERS)
    return opts


def solve_augmenting_paths(net: FlowNetwork, order: str = "bfs") -> tuple:
    """``(flow_value, per-arc flow, residual caps, tol, stats)``, as every max-flow solve returns."""
    cap, zero = residual_start(net)
    value, paths = cap.dtype.type(0), 0
    while (path := _path(net, cap, zero, order)) is not None:
        d = min(cap[a] for a in path)
        for a in path:
            cap[a] = zero if cap[a] == d else cap[a] - d  # the bottleneck saturates to exactly 0
            cap[net.rev[a]] += d
        value, paths = value + d, paths + 1
    flow = arc_flow_kernel(net.arc, net.cap.astype(cap.dtype, copy=False), cap, net.m)
    return value, flow, cap, zero, {"augmenting_paths": paths, "order": order}


def _path(net: FlowNetwork, cap: np.ndarray, zero, order: str) -> list[int] | None:
    """Residual arcs of one source-to-sink path (None: the flow is maximum)."""
    via = np.full(net.n, -1, dtype=np.int64)
    seen = np.zeros(net.n, dtype=bool)
    seen[net.source] = True
    todo = deque([net.source])
    while todo:
        u = todo.popleft() if order == "bfs" else todo.pop()
        for a in range(net.indptr[u], net.indptr[u + 1]):
            v = int(net.head[a])
            if cap[a] > zero and not seen[v]:
                seen[v], via[v] = True, a
                todo.append(v)
    if not seen[net.sink]:
        return None
    path, v = [], net.sink
    while v != net.source:
        path.append(int(via[v]))
        v = int(net.head[net.rev[via[v]]])
    return path
