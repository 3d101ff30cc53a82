"""The CPU tail of the GPU cost-scaling refine (``_gpu_cost_scaling.py``, ``tail > 0``): the last units of a
phase finished on the host, with the GPU kernels' operations (``_gpu_cost_scaling_kernels.py``) in sequence.

The GPU refine stops when at most ``tail`` units are left; its state is a quiescent eps-optimal pseudoflow in
the two-price form (prices of rows and columns, ``col4row`` the flow, ``exc`` the excesses). These units move
one at a time along long paths, serial work that a GPU thread does at memory latency and a CPU core at cache
latency. Numba on the CPU (no CUDA needed).
"""

from __future__ import annotations

import time

import numba
import numpy as np

from ._cpu_cost_scaling import BUDGET, NO_PERFECT, NOT_OPTIMAL, OK

__all__ = ["tail_kernel", "tail_price_update_kernel", "update_arrays", "emulate_schedule"]


BIG = np.int64(1) << np.int64(62)
PAUSED = 4  # tail_kernel stopped after ``pause`` pushes, units left (not a solve status)


@numba.njit(cache=True)
def _col_op(v, n, cptr, crow, ccost, price, col4row, eps, double, owner, ocost, stamp, ph):
    """The column operation of ``tail_kernel`` when the column's senders are not known: a scan of its
    in-arcs (``col_op_dev``). Records the sender that stays (when one does) as the column's owner.
    Returns (row the unit goes back to or -1, the new price, relabelled)."""
    y = v - n
    m1 = BIG
    m2 = BIG
    best = -1
    second = -1
    c1 = 0
    c2 = 0
    cnt = 0
    for k in range(cptr[y], cptr[y + 1]):
        x = crow[k]
        if col4row[x] == y:
            cnt += 1
            t = -ccost[k] - price[x]
            if t < m1:
                m2, second, c2 = m1, best, c1
                m1, best, c1 = t, x, ccost[k]
            elif t < m2:
                m2, second, c2 = t, x, ccost[k]
    if best < 0:
        return -1, price[v], 0
    q = price[v]
    r = 0
    if m1 >= -q:
        q = -(m1 + eps)
        r = 1
    if double and cnt == 2:
        q = min(q, -(m2 + eps))
    stamp[y] = ph if cnt == 2 else -1
    owner[y] = second
    ocost[y] = c2
    return best, min(price[v], q), r


@numba.njit(cache=True)
def tail_kernel(indptr, indices, cost, cptr, crow, ccost, n, eps, price, exc, col4row, double, gap, floor, budget,
                owner, ocost, stamp, ph, stop, pause):
    """The end of a refine phase on the CPU, from the state the GPU left (a quiescent eps-optimal pseudoflow,
    a few units left): the kernels' row and column operations (``row_op_dev`` / ``col_op_dev``: lines 6-18 of
    Algorithm 5.4, with the double-push price) in sequence, the node a push activates next (a stack: the
    path of the unit, as ``follow``). A column's one sender (``owner``, its arc cost ``ocost``; valid where
    ``stamp == ph``) is kept as the tail goes, so a push into a matched column is answered at once from its
    two senders (Goldberg-Kennedy's double push in the two-price form) instead of a scan of its in-arcs.
    ``stop`` > 0: return (status OK) as soon as at most ``stop`` units are left (the deficit columns; the
    CPU emulation of the GPU's stopping point, :func:`emulate_schedule`); after ``pause`` pushes: return
    :data:`PAUSED` (work left; the caller updates the prices and calls again). Returns (status, pushes)."""
    stack = np.empty(2 * n, np.int64)
    live = 0
    for y in range(n):
        if exc[n + y] < 0:
            live += 1
    on = np.zeros(2 * n, np.bool_)
    top = 0
    for v in range(2 * n):
        if exc[v] > 0:
            stack[top] = v
            on[v] = True
            top += 1
    pushes = 0
    while top > 0:
        if pushes >= pause:
            return PAUSED, pushes
        top -= 1
        v = stack[top]
        on[v] = False
        if exc[v] <= 0:
            continue
        if v < n:  # a row: every arc residual (it sends nothing)
            m1 = BIG
            m2 = BIG
            y = -1
            bc = 0
            for k in range(indptr[v], indptr[v + 1]):
                t = cost[k] - price[n + indices[k]]
                if t < m1:
                    m2, m1, y, bc = m1, t, indices[k], cost[k]
                elif t < m2:
                    m2 = t
            if y < 0:
                return NO_PERFECT, pushes
            q = price[v]
            if m1 >= -q:
                q = -(m1 + eps)
            if double:
                q = min(q, -((m1 + gap if m2 == BIG else m2) + eps))
            price[v] = q
            if q < -floor:
                return BUDGET, pushes
            col4row[v] = y
            exc[v] -= 1
            w = n + y
            o = exc[w]
            exc[w] = o + 1
            pushes += 1
            if o < 0:  # absorbed by a deficit: v is the column's one sender
                owner[y], ocost[y], stamp[y] = v, bc, ph
                live -= 1
                if live <= stop:
                    return OK, pushes
                continue
            if o > 0 or stamp[y] != ph:
                if not on[w]:
                    stack[top] = w
                    on[w] = True
                    top += 1
                continue
            # two senders, the owner r and v: the column's operation at once
            r = owner[y]
            tr = -ocost[y] - price[r]
            tv = -bc - price[v]
            if tr < tv:
                back, m1, keep, m2, kc = r, tr, v, tv, bc
            else:
                back, m1, keep, m2, kc = v, tv, r, tr, ocost[y]
            q = price[w]
            if m1 >= -q:
                q = -(m1 + eps)
            if double:
                q = min(q, -(m2 + eps))
            price[w] = min(price[w], q)
            owner[y], ocost[y] = keep, kc
        else:  # a column: its senders by a scan
            back, q, _ = _col_op(v, n, cptr, crow, ccost, price, col4row, eps, double, owner, ocost, stamp, ph)
            if back < 0:
                return NOT_OPTIMAL, pushes  # a column holding a unit has a sender: only a bug gets here
            price[v] = q
            w = v
            if exc[v] > 1 and not on[v]:
                stack[top] = v
                on[v] = True
                top += 1
        if q < -floor:
            return BUDGET, pushes
        col4row[back] = -1
        exc[w] -= 1
        exc[back] += 1
        pushes += 1
        if pushes > budget:
            return BUDGET, pushes
        if not on[back]:
            stack[top] = back
            on[back] = True
            top += 1
    return OK, pushes


@numba.njit(cache=True, inline="always")
def _relax(v, d, cp, eps, inv, nb, label, bhead, enext, enode, ne):
    """Offer node ``v`` level ``d + floor(cp / eps) + 1`` (``cp >= -eps``: >= d); a bucket entry when it lowers
    the label below ``nb``. The division only for a real candidate (a float estimate corrected by one step:
    the quotient is below ``2n``). Returns the entry count."""
    lim = min(label[v], nb) - d  # a candidate must be < d + lim
    if lim <= 0 or cp >= (lim - 1) * eps:
        return ne
    q = np.int64(np.floor(cp * inv))
    if q * eps > cp:
        q -= 1
    elif (q + 1) * eps <= cp:
        q += 1
    cand = d + max(q + 1, 0)
    label[v] = cand
    enode[ne] = v
    enext[ne] = bhead[cand]
    bhead[cand] = ne
    return ne + 1


@numba.njit(cache=True)
def tail_price_update_kernel(indptr, indices, cost, cptr, crow, ccost, n, eps, price, exc, col4row, floor, label,
                             bhead, enext, enode):
    """Algorithm 5.3 (global price update, Dial buckets) on the two-price pseudoflow the GPU leaves.

    Nodes are the rows ``0..n-1`` and the columns ``n..2n-1``; residual arcs: ``(x, y)`` where ``col4row[x] !=
    y`` and ``(y, x)`` where ``col4row[x] == y``, of length ``floor(c_p / eps) + 1`` (>= 0: the state is
    eps-optimal, ``c_p >= -eps``; ``c_p(x, y) = c(x, y) + p(x) - p(y)``). Labels ``l`` = distances to the
    deficit columns (bucket 0), by a backward Dial scan level by level until every node with excess has been
    reached (its level final), then ``p(v) -= eps * l(v)``, unscanned nodes by ``eps * d`` (``d`` the last level
    reached; every node of a smaller true level is scanned). For every residual arc ``l(v) <= l(w) +
    length(v, w)``, so its ``c_p`` falls by at most ``eps * (floor(c_p / eps) + 1) <= c_p + eps`` and stays
    ``>= -eps`` (eps-optimality kept, Goldberg-Kennedy); prices only fall (Lemma 5.2); the excesses and the
    flow are unchanged. Levels above ``2n`` are not kept (a smaller label is still valid). Work arrays
    (:func:`update_arrays`): ``label`` (2n), ``bhead`` (2n + 1), ``enext``, ``enode`` (nnz + 4n + 1). Returns
    (done, levels, nodes scanned); done False, changing nothing, when a price could fall below ``-floor``."""
    N = 2 * n
    nb = N + 1
    pmin = BIG
    for v in range(N):
        pmin = min(pmin, price[v])
    if pmin - nb * eps < -floor:
        return False, 0, 0
    inv = 1.0 / eps
    label[:] = BIG  # tentative level; scanned at level d: -1 - d
    bhead[:] = -1
    ne = 0
    active = 0
    for v in range(N):
        if exc[v] > 0:
            active += 1
    for y in range(n):
        if exc[n + y] < 0:
            label[n + y] = 0
            enode[ne] = n + y
            enext[ne] = bhead[0]
            bhead[0] = ne
            ne += 1
    reached = 0
    scanned = 0
    d = 0
    while d < nb and reached < active:
        e = bhead[d]
        bhead[d] = -1
        if e < 0:
            d += 1
            continue
        while e >= 0 and reached < active:
            v = enode[e]
            e = enext[e]
            if e < 0 and bhead[d] >= 0:  # entries added at this level while scanning it (zero-length arcs)
                e = bhead[d]
                bhead[d] = -1
            if label[v] != d:
                continue  # stale: lowered to an earlier level and scanned there
            label[v] = -1 - d
            scanned += 1
            if exc[v] > 0:
                reached += 1
            if v >= n:  # a column: its rows with a residual arc into it (they do not send to it)
                y = v - n
                pv = price[v]
                for k in range(cptr[y], cptr[y + 1]):
                    x = crow[k]
                    if col4row[x] != y:
                        ne = _relax(x, d, ccost[k] + price[x] - pv, eps, inv, nb, label, bhead, enext, enode, ne)
            else:  # a row: the reverse arc from the column it sends to
                y = col4row[v]
                if y < 0:
                    continue
                for k in range(indptr[v], indptr[v + 1]):
                    if indices[k] == y:
                        ne = _relax(n + y, d, price[n + y] - cost[k] - price[v], eps, inv, nb, label, bhead, enext,
                                    enode, ne)
                        break
        if reached < active and bhead[d] < 0:
            d += 1
    for v in range(N):
        price[v] -= (-1 - label[v] if label[v] < 0 else d) * eps
    return True, d, scanned


def update_arrays(n: int, nnz: int) -> tuple[np.ndarray, ...]:
    """The work arrays of :func:`tail_price_update_kernel` (allocated once per solve)."""
    return (np.empty(2 * n, np.int64), np.empty(2 * n + 1, np.int64), np.empty(nnz + 4 * n + 1, np.int64),
            np.empty(nnz + 4 * n + 1, np.int64))


@numba.njit(cache=True)
def _phase_init(indptr, indices, cost, n, eps, price, exc, col4row):
    """Algorithm 5.2 lines 3-6 on the host (``phase_init_dev``'s twin): no flow, ``e(x) = 1``, ``e(y) = -1``,
    ``p(x) = -(min_y c'_p(x, y) + eps)``. False when a row has no arc."""
    for x in range(n):
        col4row[x] = -1
        exc[x] = 1
        exc[n + x] = -1
        m1 = BIG
        for k in range(indptr[x], indptr[x + 1]):
            m1 = min(m1, cost[k] - price[n + indices[k]])
        if m1 == BIG:
            return False
        price[x] = -(m1 + eps)
    return True


def finish_phase(g: tuple, eps: int, price, exc, col4row, double: bool, gap: int, floor: int, budget: int,
                 owner: tuple, ph: int, every: int, work: tuple | None) -> tuple[int, int, int, float]:
    """The CPU tail of one phase: :func:`tail_kernel` to the end; with ``work`` (price update on) one
    :func:`tail_price_update_kernel` first when ``every == 0``, else one after each ``every`` pushes of the
    tail while units are left (Goldberg-Kennedy's trigger: an update costs about a scan of the graph). ``g``:
    the host graph (indptr, indices, cost, cptr, crow, ccost, n). Returns (status, pushes, updates, seconds of
    the updates)."""
    head = (np.int64(eps), price, exc, col4row, bool(double), np.int64(gap), np.int64(floor))
    tail = (*owner, np.int64(ph), np.int64(0))
    pushes, updates, secs = 0, 0, 0.0
    pause = every if work is not None and every > 0 else 2**62
    if work is not None and every == 0:
        pause = 2**62
        st = PAUSED
    else:
        st, pushes = tail_kernel(*g, *head, np.int64(budget), *tail, np.int64(pause))
    while st == PAUSED:
        t = time.perf_counter()
        done, _, _ = tail_price_update_kernel(*g, np.int64(eps), price, exc, col4row, np.int64(floor), *work)
        secs += time.perf_counter() - t
        updates += int(done)
        if not done:
            pause = 2**62  # near the int64 floor: no more updates in this phase
        # the budget bounds the whole tail of the phase, not each call (an infeasible problem must stop)
        st, p = tail_kernel(*g, *head, np.int64(budget - pushes), *tail, np.int64(pause))
        pushes += int(p)
    return int(st), int(pushes), updates, secs


def emulate_schedule(h: dict, n: int, seq, cmax: int, floor: int, tail: int, every: int | None) -> dict:
    """The GPU's default schedule emulated on the CPU (no GPU needed; tests and the push counts of
    docs/notes/cost_scaling.md): per phase the init, :func:`tail_kernel` until at most ``tail`` units are
    left (the GPU's share, in another order than the GPU's), then :func:`finish_phase` (the CPU tail;
    ``every``: None = no price update, else its trigger). ``h``: the scaled host graph of
    ``_gpu_cost_scaling.upload``. Returns the state (``status``, ``price``, ``col4row``) and the counts
    (``pushes``, ``tail_pushes``, ``updates``, ``seconds_update``, ``seconds_tail``)."""
    price = np.zeros(2 * n, np.int64)
    exc = np.zeros(2 * n, np.int32)
    col4row = np.full(n, -1, np.int32)
    owner = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.full(n, -1, np.int64))
    g = (h["indptr"], h["indices"], h["cost"], h["cptr"], h["crow"], h["ccost"], n)
    work = None if every is None else update_arrays(n, h["indices"].shape[0])
    out = {"status": OK, "pushes": 0, "tail_pushes": 0, "updates": 0, "seconds_update": 0.0, "seconds_tail": 0.0}
    for ph, eps in enumerate(seq):
        if not _phase_init(h["indptr"], h["indices"], h["cost"], n, np.int64(eps), price, exc, col4row):
            out["status"] = NO_PERFECT
            break
        st, p = tail_kernel(*g, np.int64(eps), price, exc, col4row, True, np.int64(cmax + eps), np.int64(floor),
                            np.int64(2**62), *owner, np.int64(ph), np.int64(tail), np.int64(2**62))
        out["pushes"] += int(p)
        if st == OK:
            t = time.perf_counter()
            st, p, u, su = finish_phase(g, eps, price, exc, col4row, True, cmax + eps, floor, 2**62, owner, ph,
                                        0 if every is None else every, work)
            out["seconds_tail"] += time.perf_counter() - t
            out["pushes"] += p
            out["tail_pushes"] += p
            out["updates"] += u
            out["seconds_update"] += su
        if st != OK:
            out["status"] = int(st)
            break
    out.update(price=price, col4row=col4row)
    return out
