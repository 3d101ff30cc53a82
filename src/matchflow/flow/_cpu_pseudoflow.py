"""Hochbaum's pseudoflow algorithm (HPF; Hochbaum 2008, "The pseudoflow algorithm: a new algorithm for
the maximum-flow problem"; Chandran & Hochbaum 2009, "A computational study of the pseudoflow and
push-relabel algorithms for the maximum flow problem"), highest- or lowest-label, LIFO or FIFO buckets.

Phase 1 works on the graph without ``s`` and ``t``: every source arc and every sink arc starts saturated,
so a node holds an *excess* (positive) or a *deficit* (negative). The nodes form a forest of *normalized
trees*: only a root holds excess; a tree is *strong* when its root's excess is positive (> ``tol``),
*weak* otherwise. Strong roots wait in buckets by label. The highest- (or lowest-) labelled strong root is
processed: a depth-first walk of its tree over the nodes of the root's label ``l`` looks for a residual
arc to a node of label ``l - 1`` (*merger*). A merger re-hangs the strong tree from that node (the path to
the old root reverses) and pushes the root's excess up to the other tree's root; an arc that cannot carry
the whole excess is saturated and cut (*split*: its lower end becomes a strong root). A node whose
children hold no node of its label and which has no merger arc is relabelled (``l + 1``). A label below
the strong roots' left empty is a *gap*: the lowest-label variant stops there; the highest-label one
lifts the trees above it to label ``n`` (done) and goes on until no strong root is left.

Phase 2 turns the pseudoflow into a feasible maximum flow: deficits sit only at nodes whose sink arcs
started saturated (a weak root is never anything else), so their sink arcs give the deficit back; the
excess left on the strong side returns to ``s`` by the FIFO push-relabel of :mod:`._cpu_push_relabel`
(HPF's recoverFlow decomposes the flow instead; both give a maximum flow). That push-relabel searches
from ``t`` as well, so a phase 1 that stopped short would still end in a maximum flow: ``phase1_value``
(the flow into ``t`` after phase 1) is reported so the tests can check that phase 1 alone was maximal.

Residual capacities in the shared CSR layout (``indptr``, ``head``, ``rev``, ``cap``): a tree arc is the
slot ``parc[v]`` from ``v`` to its parent, the direction in which excess moves to the root; no arc lists
are kept (the merger scan checks the residual capacity, then the label; ``cur[v]`` resumes it until
``v`` is relabelled). Labels never decrease from a tree's root to its leaves, so a node of label
``l - 1`` is never in the strong tree being processed (no cycle can form).

:func:`solve_pseudoflow` is the ``pseudoflow`` row's CPU solve (options: :func:`check_pseudoflow_options`).
"""

from __future__ import annotations

import numba
import numpy as np

from .._graph._flow import FlowNetwork, residual_start
from .._validation import check_choice
from ._cpu_push_relabel import _fifo_dev, arc_flow_kernel, residual_bfs_dev, saturate_source_dev

__all__ = ["pseudoflow_kernel", "INIT_AUTO", "INIT_BFS", "INIT_SIMPLE", "solve_pseudoflow", "check_pseudoflow_options"]

INIT_AUTO, INIT_BFS, INIT_SIMPLE = 0, 1, 2  # pseudoflow_kernel's initial labels
# INIT_AUTO: BFS labels until phase 1 has done AUTO_RELABELS * (mergers + n) relabels, then phase 1 again from
# the start with the simple labels (a reset in place would break the trees' label order). Measured (results/flow/cpu-general-2026-11-23b.md): with BFS labels the random, level
# and DIMACS graphs end at 0.02-1.4 relabels per (merger + node), gw1 at 3.5, and run 1-3x faster than with
# simple labels on the random and level graphs (random 1.6M arcs: 4k pushes instead of 630k); ak-4102 ends at
# 410, where exact distances make every unit climb the path (k^2 relabels: 0.5 s against 0.03 s)
AUTO_RELABELS = 4
HPF_VARIANTS = ("highest", "lowest")  # the root selection (``variant=``)
HPF_BUCKETS = ("lifo", "fifo")  # ... and the order within one label (``buckets=``)
# initial labels: residual distance to a deficit, 1 / 0 by the sign of the excess, or BFS with a fallback
HPF_INITS = {"auto": INIT_AUTO, "bfs": INIT_BFS, "simple": INIT_SIMPLE}


@numba.njit(cache=True, nogil=True, inline="always")
def _link_dev(p, c, parent, first, nsib, psib):
    """Hang ``c`` from ``p`` (front of ``p``'s child list)."""
    parent[c] = p
    f = first[p]
    nsib[c] = f
    psib[c] = -1
    if f >= 0:
        psib[f] = c
    first[p] = c


@numba.njit(cache=True, nogil=True, inline="always")
def _cut_dev(p, c, parent, first, nsib, psib):
    """Detach ``c`` from its parent ``p``."""
    parent[c] = -1
    a, b = psib[c], nsib[c]
    if a >= 0:
        nsib[a] = b
    else:
        first[p] = b
    if b >= 0:
        psib[b] = a


@numba.njit(cache=True, nogil=True, inline="always")
def _bucket_add_dev(v, d, bfirst, blast, bnext, lifo):
    """Add root ``v`` to the bucket of label ``d``: at the front (``lifo``) or the back (FIFO)."""
    if lifo:
        bnext[v] = bfirst[d]
        bfirst[d] = v
        return
    bnext[v] = -1
    if bfirst[d] < 0:
        bfirst[d] = v
    else:
        bnext[blast[d]] = v
    blast[d] = v


@numba.njit(cache=True, nogil=True)
def _lift_dev(r, n, label, count, first, nsib, parent, nscan):
    """A gap below ``r``'s label (highest-label variant): every node of ``r``'s tree gets label ``n``."""
    count[label[r]] -= 1
    label[r] = n
    u = r
    nscan[r] = first[r]
    while u >= 0:
        c = nscan[u]
        if c >= 0:
            nscan[u] = nsib[c]
            count[label[c]] -= 1
            label[c] = n
            nscan[c] = first[c]
            u = c
        elif u == r:
            break
        else:
            u = parent[u]


@numba.njit(cache=True, nogil=True)
def _phase1_dev(n, s, t, indptr, head, rev, cap, excess, tol, highest, lifo, bfs, adaptive, counters):
    """HPF phase 1 on the pseudoflow in ``cap``/``excess``: the lowest- or (``highest``) highest-labelled
    strong root first, FIFO or (``lifo``) LIFO within a label; initial labels by a breadth-first search
    (``bfs``) or 1 / 0 by the sign of the excess. ``adaptive``: returns False (given up; ``cap`` and ``excess``
    mid-way) once the relabels pass ``AUTO_RELABELS * (mergers + n)``; True when done."""
    it = indptr.dtype  # node and slot ids in the CSR's index type (int32 below 2**31 slots: half the cache)
    label = np.zeros(n, dtype=it)
    count = np.zeros(n + 2, dtype=np.int64)  # nodes per label (s and t excluded)
    parent = np.full(n, -1, dtype=it)
    parc = np.full(n, -1, dtype=it)  # slot v -> parent[v]
    first = np.full(n, -1, dtype=it)  # child lists, doubly linked through the siblings
    nsib = np.full(n, -1, dtype=it)
    psib = np.full(n, -1, dtype=it)
    nscan = np.full(n, -1, dtype=it)  # the depth-first walk's next child to look at
    cur = np.empty(n, dtype=it)  # current arc of the merger scan
    bfirst = np.full(n + 2, -1, dtype=it)
    blast = np.full(n + 2, -1, dtype=it)
    bnext = np.full(n, -1, dtype=it)
    for v in range(n):
        cur[v] = indptr[v]
    if bfs:  # labels = residual distance to the nearest deficit (n: none reachable, done)
        label[:] = n
        queue = nscan  # free until the first root is processed
        qt = 0
        for v in range(n):
            if v != s and v != t and excess[v] < 0:
                label[v] = 0
                queue[qt] = v
                qt += 1
        residual_bfs_dev(qt, n, s, t, indptr, head, rev, cap, label, queue, tol)
        nscan[:] = -1
    level = 1  # the lowest strong label (lowest-label variant) or the highest (highest-label variant)
    for v in range(n):
        if v == s or v == t:
            label[v] = -2  # never l - 1: the terminals take no part in phase 1
            continue
        if not bfs:
            label[v] = 1 if excess[v] > tol else 0
        d = label[v]
        if d < n:
            count[d] += 1
            if excess[v] > tol:
                _bucket_add_dev(v, d, bfirst, blast, bnext, lifo)
                if highest:
                    level = max(level, d)
    pushes = mergers = relabels = gaps = scans = 0
    while True:
        if adaptive and relabels > AUTO_RELABELS * (mergers + n):
            counters[4] += scans  # the work given up stays counted
            counters[0] += pushes
            counters[2] += relabels
            return False
        r = -1
        if highest:
            while level >= 1:
                if bfirst[level] >= 0:
                    if count[level - 1] > 0:
                        r = bfirst[level]
                        bfirst[level] = bnext[r]
                        break
                    v = bfirst[level]  # a gap: these trees are cut off from the sink
                    bfirst[level] = -1
                    while v >= 0:
                        nx = bnext[v]
                        _lift_dev(v, n, label, count, first, nsib, parent, nscan)
                        gaps += 1
                        v = nx
                level -= 1
        if r < 0 and (level == 0 or highest):
            # bucket 0 holds roots split off a weak tree: relabel them to 1
            v = bfirst[0]
            if highest and v < 0:
                break
            while v >= 0:
                nx = bnext[v]
                label[v] = 1
                count[0] -= 1
                count[1] += 1
                relabels += 1
                _bucket_add_dev(v, 1, bfirst, blast, bnext, lifo)
                v = nx
            bfirst[0] = -1
            level = 1
            if highest:
                r = bfirst[1]
                bfirst[1] = bnext[r]
        if not highest:
            while level < n:
                if bfirst[level] >= 0:
                    if count[level - 1] == 0:
                        r = -2  # a gap below every strong root
                    else:
                        r = bfirst[level]
                        bfirst[level] = bnext[r]
                    break
                level += 1
            if r < 0:
                if r == -2:
                    gaps += 1
                break
        # ---- process root r: depth-first over its tree's nodes of label l, looking for a merger arc
        lo = label[r] - 1
        u = r
        nscan[r] = first[r]
        a_merge = -1
        while True:
            end = indptr[u + 1]  # visit u: a residual arc to a node of label l - 1?
            a = cur[u]
            while a < end:
                scans += 1
                if cap[a] > tol and label[head[a]] == lo:
                    break
                a += 1
            cur[u] = a
            if a < end:
                a_merge = a
                break
            while True:  # checkChildren: descend into a child of u's label, or relabel u and climb
                c = nscan[u]
                while c >= 0 and label[c] != label[u]:
                    c = nsib[c]
                if c >= 0:
                    nscan[u] = nsib[c]
                    u = c
                    nscan[u] = first[u]
                    break
                nscan[u] = -1
                count[label[u]] -= 1
                label[u] += 1
                count[label[u]] += 1
                relabels += 1
                cur[u] = indptr[u]
                if u == r:
                    break
                u = parent[u]
            if u == r and label[r] != lo + 1:
                break  # the whole tree has been relabelled
        if a_merge < 0:
            _bucket_add_dev(r, label[r], bfirst, blast, bnext, lifo)
            if highest:
                level = label[r]
            continue
        # ---- merger: re-hang u's tree from w = head[a_merge], then push r's excess to w's root
        mergers += 1
        w = head[a_merge]
        x = u
        newp = w
        newa = a_merge
        while parent[x] >= 0:
            olda = parc[x]
            oldp = parent[x]
            parc[x] = newa
            _cut_dev(oldp, x, parent, first, nsib, psib)
            _link_dev(newp, x, parent, first, nsib, psib)
            newp = x
            x = oldp
            newa = rev[olda]
        parc[x] = newa
        _link_dev(newp, x, parent, first, nsib, psib)
        e = excess[r]  # the amount in flight; non-root nodes hold no excess
        excess[r] = 0
        x = r
        p = parent[x]
        while p >= 0:
            a = parc[x]
            c = cap[a]
            pushes += 1
            if c >= e:
                cap[a] = c - e
                cap[rev[a]] += e
            else:  # split: saturate a; x keeps the rest and becomes a strong root
                cap[a] = 0
                cap[rev[a]] += c
                excess[x] = e - c
                e = c
                _cut_dev(p, x, parent, first, nsib, psib)
                if excess[x] > tol:
                    if not highest:
                        level = min(level, label[x])
                    _bucket_add_dev(x, label[x], bfirst, blast, bnext, lifo)
                if e == 0:
                    break
            x = p
            p = parent[x]
        if e > 0:  # x is the root of the merged tree
            old = excess[x]
            excess[x] = old + e
            if old <= tol and old + e > tol:  # a weak root turned strong
                if not highest:
                    level = min(level, label[x])
                _bucket_add_dev(x, label[x], bfirst, blast, bnext, lifo)

    counters[0] += pushes
    counters[1] += mergers
    counters[2] += relabels
    counters[3] += gaps
    counters[4] += scans
    return True

@numba.njit(cache=True, nogil=True)
def pseudoflow_kernel(n, s, t, indptr, head, rev, cap, excess, cap0, tol, highest, lifo, init, relabel_freq, exact):
    """HPF on residual capacities ``cap`` (modified in place; ``cap0`` the capacities at zero flow).

    Returns ``(status, value_phase1, counters)``: status 0: ``excess`` is a maximum flow's (only ``s``
    and ``t`` hold nonzero excess, ``excess[t]`` the value); 1: a deficit was left after phase 1, 2: a
    push-relabel label passed 2n (bug guards; ``exact``: integer capacities, see ``_fifo_dev``). ``value_phase1``: the flow into ``t`` when phase 1 ended
    (the minimum cut's capacity: phase 2 only returns excess to ``s``). ``counters``: pushes, mergers,
    relabels, gaps, arc scans (phase 1), then phase 2's pushes, relabels, global relabels.
    """
    counters = np.zeros(9, dtype=np.int64)  # phase 1: pushes, mergers, relabels, gaps, scans, restarts
    saturate_source_dev(s, indptr, head, rev, cap, excess)
    for b in range(indptr[t], indptr[t + 1]):  # ... and the sink's
        a = rev[b]
        u = head[b]
        c = cap[a]
        if u != s and c > 0:
            cap[a] = 0
            cap[b] += c
            excess[u] -= c
            excess[t] += c
    # the flags go in as np.bool_(...), not literals: Numba compiles a kernel once per literal value passed to it,
    # and one _phase1_dev (per capacity type) serves the three calls (a flag is tested once per root scan)
    if init == INIT_AUTO:  # BFS labels while they pay, else phase 1 again from the start with simple labels
        cap_start = cap.copy()
        excess_start = excess.copy()
        if not _phase1_dev(n, s, t, indptr, head, rev, cap, excess, tol, highest, lifo, np.bool_(True), np.bool_(True),
                           counters):
            cap[:] = cap_start
            excess[:] = excess_start
            counters[5] += 1
            _phase1_dev(n, s, t, indptr, head, rev, cap, excess, tol, highest, lifo, np.bool_(False), np.bool_(False),
                        counters)
    else:
        _phase1_dev(n, s, t, indptr, head, rev, cap, excess, tol, highest, lifo, init == INIT_BFS, np.bool_(False),
                    counters)
    for b in range(indptr[t], indptr[t + 1]):  # deficits: give back flow on their sink arcs
        a = rev[b]
        u = head[b]
        if u != s and excess[u] < 0:
            f = cap0[a] - cap[a]
            if f > 0:
                d = -excess[u] if -excess[u] < f else f
                cap[a] += d
                cap[b] -= d
                excess[u] += d
                excess[t] -= d
    for v in range(n):
        if exact and v != s and v != t and excess[v] < 0:  # floats: a deficit left is round-off (certified)
            return 1, excess[t], counters
    value1 = excess[t]
    c2 = np.zeros(4, dtype=np.int64)
    status = _fifo_dev(n, s, t, indptr, head, rev, cap, excess, relabel_freq, tol, c2, np.bool_(True), exact)
    counters[6] = c2[0]
    counters[7] = c2[1]
    counters[8] = c2[2]
    return (2 if status != 0 else 0), value1, counters


def check_pseudoflow_options(opts: dict) -> dict:
    """``variant`` (``HPF_VARIANTS``), ``buckets`` (``HPF_BUCKETS``) and ``init`` (``HPF_INITS``); defaults first."""
    opts["variant"] = check_choice("variant", opts.get("variant", HPF_VARIANTS[0]), HPF_VARIANTS)
    opts["buckets"] = check_choice("buckets", opts.get("buckets", HPF_BUCKETS[0]), HPF_BUCKETS)
    opts["init"] = check_choice("init", opts.get("init", "auto"), HPF_INITS)
    return opts


def solve_pseudoflow(net: FlowNetwork, variant: str = HPF_VARIANTS[0], buckets: str = HPF_BUCKETS[0],
                     init: str = "auto") -> tuple:
    """CPU pseudoflow (HPF); returns (flow_value, per-arc flow, residual caps, tol, stats)."""
    cap, tol = residual_start(net)
    cap0 = net.cap.astype(cap.dtype, copy=False)  # the capacities at zero flow (phase 2 reads them)
    excess = np.zeros(net.n, dtype=cap.dtype)
    status, value1, c = pseudoflow_kernel(net.n, net.source, net.sink, net.indptr, net.head, net.rev, cap, excess,
                                          cap0, tol, variant == "highest", buckets == "lifo", HPF_INITS[init], 1.0,
                                          cap.dtype.kind == "i")
    if status != 0:
        raise RuntimeError(f"pseudoflow kernel status {status} (phase 2 found no maximum flow): please report "
                           "this input")
    flow = arc_flow_kernel(net.arc, net.cap.astype(cap.dtype, copy=False), cap, net.m)
    stats = {"pushes": int(c[0]), "mergers": int(c[1]), "relabels": int(c[2]), "gaps": int(c[3]),
             "arc_scans": int(c[4]), "restarts": int(c[5]), "phase2_pushes": int(c[6]),
             "phase2_relabels": int(c[7]), "phase2_global_relabels": int(c[8]),
             "phase1_value": int(value1) if cap.dtype.kind == "i" else float(value1), "variant": variant,
             "buckets": buckets, "init": init}
    return excess[net.sink], flow, cap, tol, stats
