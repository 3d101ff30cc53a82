"""CPU emulation of the min-cost flow GPU twin's refine rounds (issue 25; NOT a device measurement): where do the
GPU rounds go -- a long serial tail of rounds with few active nodes, or all rounds alike?

The emulation follows :mod:`matchflow.mcf._gpu_cost_scaling_kernels` as written: per phase (``eps //= alpha`` down
to 1, from the largest scaled cost) a saturate pass, then rounds of ``cycle`` push passes in node order (an active
node pushes ``min(e, res)`` along each admissible residual slot, prices fixed, until its excess is gone) and a
relabel pass on a price snapshot (an active node without an admissible slot takes ``max(p(w) - c) - eps``; the
new prices are written after the pass); a phase ends at the first round whose relabel pass counts no active node
(that round counts, as on the device). Serial node order stands in for the device's concurrent threads, so the
counts are in the device's range, not equal to them. Defaults alpha 8, cycle 4 (the driver's).

Options: ``--update K`` emulates a device global price update (the CPU twin's :func:`price_update_kernel`) at each
phase start and every K rounds; ``--tail T`` stops a phase's rounds at the first round that counts 1..T active
nodes and finishes the refine on the CPU (:func:`matchflow.mcf._cpu_cost_scaling.finish_refine`, timed).

    PYTHONPATH=src python3 scripts/emulate_mcf_rounds.py [--cases small|all] [--update K] [--tail T] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time

import numba
import numpy as np

from matchflow.generators import gridgen, netgen
from matchflow.mcf._cpu_cost_scaling import finish_refine, price_update_kernel, residual, solve_cost_scaling
from matchflow.mcf._cpu_cost_scaling import saturate_kernel as saturate  # the device's saturate pass is the twin's
from matchflow.mcf._prepare import prepare

OK, STUCK, TRIGGER, BUDGET = 0, 1, 4, 3
CASES = {
    "NETGEN-like 10^3": lambda: netgen(1000, 8000, seed=1),
    "GRIDGEN-like 32x32": lambda: gridgen(32, 32, degree=8, seed=3),
    "NETGEN-like 10^4": lambda: netgen(10**4, 8 * 10**4, seed=2),
    "GRIDGEN-like 100x100": lambda: gridgen(100, 100, degree=8, seed=4),
}


@numba.njit(cache=False)  # a script: loaded under several module names (tests), no on-disk cache
def push_pass(indptr, to, rev, res, c, excess, price):
    """One push pass in node order (push_node_dev at every node); returns the pushes."""
    pushes = 0
    for v in range(indptr.size - 1):
        e = excess[v]
        if e <= 0:
            continue
        pv = price[v]
        a = indptr[v]
        end = indptr[v + 1]
        while e > 0 and a < end:
            r = res[a]
            w = to[a]
            if r > 0 and c[a] + pv - price[w] < 0:
                d = e if e < r else r
                res[a] -= d
                res[rev[a]] += d
                excess[v] -= d
                excess[w] += d
                e -= d
                pushes += 1
            a += 1
    return pushes


@numba.njit(cache=False)  # a script: loaded under several module names (tests), no on-disk cache
def relabel_pass(indptr, to, res, c, excess, price, eps, ids, newp):  # noqa: PLR0913
    """relabel_node_dev at every active node on the prices before the pass (written after it); returns
    (active, relabels, status)."""
    n = indptr.size - 1
    active = 0
    k = 0
    status = OK
    for v in range(n):
        if excess[v] <= 0:
            continue
        active += 1
        pv = price[v]
        found = False
        best = 0
        adm = False
        for a in range(indptr[v], indptr[v + 1]):
            if res[a] > 0:
                t = price[to[a]] - c[a]
                if t > pv:
                    adm = True
                    break
                if not found or t > best:
                    best = t
                    found = True
        if adm:
            continue
        if not found:
            status = STUCK
            continue
        ids[k] = v
        newp[k] = best - eps
        k += 1
    for i in range(k):
        price[ids[i]] = newp[i]
    return active, k, status


@numba.njit(cache=False)  # a script: loaded under several module names (tests), no on-disk cache
def jacobi_sweeps(indptr, to, res, c, excess, price, eps, d, nd):  # noqa: PLR0913
    """Sweeps a Jacobi Bellman-Ford (the natural device form of the global price update: every node takes the min
    over its residual slots of the old distances, a grid sync per sweep) needs until the distances of
    :func:`price_update_kernel` (arc length 0 if its reduced cost is < 0 else ``r // eps + 1``, to the nearest
    deficit) stop changing. An upper bound on the device's sweeps (it could stop once every active node is fixed)."""
    n = indptr.size - 1
    K = n + 1
    for v in range(n):
        d[v] = 0 if excess[v] < 0 else K
    sweeps = 0
    changed = True
    while changed and sweeps < K:
        changed = False
        sweeps += 1
        for u in range(n):
            best = d[u]
            pu = price[u]
            for a in range(indptr[u], indptr[u + 1]):
                if res[a] > 0:
                    v = to[a]
                    if d[v] < K:
                        r = c[a] + pu - price[v]
                        x = d[v] + (0 if r < 0 else r // eps + 1)
                        if x < best:
                            best = x
            nd[u] = best
            if best != d[u]:
                changed = True
        for u in range(n):
            d[u] = nd[u]
    return sweeps


@numba.njit(cache=False)  # a script: loaded under several module names (tests), no on-disk cache
def phase(indptr, to, rev, res, c, excess, price, eps, cycle, max_rounds, update, tail, work, rec,  # noqa: PLR0913
          sweeps_every=0):
    """One refine of the GPU round structure. ``rec[0..3, r]``: active nodes before round r's pushes, active at
    its relabel pass (the device's count), its pushes, its relabels. Returns (rounds, status, price updates,
    Jacobi sweeps of every ``sweeps_every``-th update, updates sampled)."""
    n = indptr.size - 1
    saturate(indptr, to, rev, res, c, excess, price)
    updates = 0
    sweeps = 0
    sampled = 0
    d0 = np.empty(n, np.int64)
    d1 = np.empty(n, np.int64)
    if update > 0 and sweeps_every > 0:
        sweeps += jacobi_sweeps(indptr, to, res, c, excess, price, eps, d0, d1)
        sampled += 1
    if update > 0 and price_update_kernel(indptr, to, rev, res, c, excess, price, eps, work[0], work[5], work[1],
                                          work[2], work[3]):
        updates += 1
    ids = work[4]
    newp = np.empty(n, np.int64)
    rnd = 0
    while True:
        a0 = 0
        for v in range(n):
            if excess[v] > 0:
                a0 += 1
        p = 0
        for _ in range(cycle):
            p += push_pass(indptr, to, rev, res, c, excess, price)
        active, r, st = relabel_pass(indptr, to, res, c, excess, price, eps, ids, newp)
        rec[0, rnd], rec[1, rnd], rec[2, rnd], rec[3, rnd] = a0, active, p, r
        rnd += 1
        if st != OK:
            return rnd, st, updates, sweeps, sampled
        if active == 0:
            return rnd, OK, updates, sweeps, sampled
        if tail > 0 and active <= tail:
            return rnd, TRIGGER, updates, sweeps, sampled
        if rnd >= max_rounds:
            return rnd, BUDGET, updates, sweeps, sampled
        if update > 0 and rnd % update == 0 and sweeps_every > 0 and (rnd // update) % sweeps_every == 0:
            sweeps += jacobi_sweeps(indptr, to, res, c, excess, price, eps, d0, d1)
            sampled += 1
        if update > 0 and rnd % update == 0 and price_update_kernel(indptr, to, rev, res, c, excess, price, eps,
                                                                      work[0], work[5], work[1], work[2], work[3]):
            updates += 1


def start(P):
    """The eps loop's start, as the GPU twin's: the residual network, costs times n + 1, excess from the demand,
    zero prices and the first eps (the largest scaled cost)."""
    indptr, to, rev, res, c, slot = residual(P)
    cs = c * np.int64(P.n + 1)
    return indptr, to, rev, res, c, slot, cs, -P.demand.astype(np.int64), np.zeros(P.n, np.int64), int(np.abs(cs).max())


def emulate(P, alpha=8, cycle=4, update=0, tail=0, sweeps_every=0):  # noqa: PLR0913
    """The GPU twin's eps loop emulated; per phase the round records (and the CPU tail's stats where ``tail``).
    Rounds are not capped at the device's ``max_rounds`` (max(10^4, 40 n) per phase, past which the device falls
    back to the CPU twin): a phase past it is flagged ``past_budget``."""
    n = P.n
    indptr, to, rev, res, c, slot, cs, excess, price, eps = start(P)
    budget = max(10_000, 40 * n)
    cap = 5 * budget
    rec = np.zeros((4, cap), np.int64)
    work = (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n + 1, np.int64),
            np.empty(n, np.int64), np.zeros(n, np.bool_))
    phases = []
    while True:
        eps = max(1, eps // alpha)
        rounds, st, upd, sw, smp = phase(indptr, to, rev, res, cs, excess, price, np.int64(eps), cycle, cap, update,
                                         tail, work, rec, sweeps_every)
        ph = dict(eps=eps, rounds=int(rounds), status=int(st), updates=int(upd), sweeps=int(sw), sampled=int(smp),
                  past_budget=bool(rounds > budget), rec=rec[:, :rounds].copy())
        if st == TRIGGER:
            t = time.perf_counter()
            st2, p_, r_, u_, _ = finish_refine(indptr, to, rev, res, cs, excess, price, eps)
            ph.update(cpu_seconds=time.perf_counter() - t, cpu_pushes=int(p_), cpu_relabels=int(r_), cpu_updates=int(u_))
            assert st2 == OK and not (excess != 0).any()
        elif st != OK:
            raise RuntimeError(f"phase at eps={eps} stopped with status {st}")
        phases.append(ph)
        if eps == 1:
            break
    flow = P.cap - res[slot]
    return phases, int((flow * P.icost).sum()), price


def distribution(phases, n):
    """Fraction of rounds (and of their pushes / relabels) with at most T active nodes at the relabel pass."""
    rec = np.concatenate([ph["rec"] for ph in phases], axis=1)
    act, pu, rl = rec[1], rec[2], rec[3]
    out = {}
    for name, t in (("<=1", 1), ("<=8", 8), ("<=64", 64), ("<=1% n", max(1, n // 100))):
        m = act <= t
        out[name] = dict(rounds=float(m.mean()), pushes=float(pu[m].sum() / max(pu.sum(), 1)),
                         relabels=float(rl[m].sum() / max(rl.sum(), 1)))
    return out


def tail_after(phases, t):
    """Rounds of each phase after its first round counting <= t active nodes (what a CPU tail at T would cut)."""
    cut = 0
    for ph in phases:
        idx = np.flatnonzero(ph["rec"][1] <= t)
        if idx.size:
            cut += ph["rounds"] - int(idx[0] + 1)
    return int(cut)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="all", choices=("small", "all", "big"))
    ap.add_argument("--update", type=int, default=0, help="device global price update every K rounds (0: none)")
    ap.add_argument("--tail", type=int, default=0, help="CPU tail below T active nodes (0: none)")
    ap.add_argument("--sweeps-every", type=int, default=0, help="Jacobi sweeps of every k-th update (0: not counted)")
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = []
    names = {"small": list(CASES)[:2], "big": list(CASES)[2:], "all": list(CASES)}[a.cases]
    for name in names:
        g = CASES[name]()
        P = prepare((g.tail, g.head), g.demand, capacity=g.cap, cost=g.cost)
        solve_cost_scaling(P)
        cpu_s = []
        for _ in range(3):
            t = time.perf_counter()
            flow_cpu, _, cpu = solve_cost_scaling(P)
            cpu_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        phases, cost, _ = emulate(P, update=a.update, tail=a.tail, sweeps_every=a.sweeps_every)
        emu_s = time.perf_counter() - t
        rounds = sum(ph["rounds"] for ph in phases)
        pushes = sum(int(ph["rec"][2].sum()) + ph.get("cpu_pushes", 0) for ph in phases)
        relabels = sum(int(ph["rec"][3].sum()) + ph.get("cpu_relabels", 0) for ph in phases)
        row = dict(case=name, n=P.n, m=P.m, update=a.update, tail=a.tail, phases=len(phases), rounds=rounds,
                   pushes=pushes, relabels=relabels, updates=sum(ph["updates"] for ph in phases),
                   sweeps=sum(ph["sweeps"] for ph in phases), sweeps_sampled=sum(ph["sampled"] for ph in phases),
                   cpu_tail_ms=round(sum(ph.get("cpu_seconds", 0.0) for ph in phases) * 1e3, 2),
                   phases_past_device_budget=sum(ph["past_budget"] for ph in phases),
                   cost=cost, cpu_twin_cost=int((flow_cpu * P.icost).sum()), cpu_twin_ms=round(min(cpu_s) * 1e3, 2),
                   cpu_twin_pushes=cpu["pushes"], cpu_twin_relabels=cpu["relabels"], emulation_s=round(emu_s, 2),
                   per_phase=[dict(eps=ph["eps"], rounds=ph["rounds"], pushes=int(ph["rec"][2].sum()),
                                   relabels=int(ph["rec"][3].sum()), updates=ph["updates"],
                                   max_active=int(ph["rec"][1].max()), past_budget=ph["past_budget"],
                                   **{k: ph[k] for k in ("cpu_seconds", "cpu_pushes", "cpu_relabels") if k in ph})
                              for ph in phases],
                   distribution=distribution(phases, P.n),
                   tail_cut={str(t): tail_after(phases, t) for t in (1, 8, 64, max(1, P.n // 100))})
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k not in ("per_phase", "distribution")}), flush=True)
        for k, v in row["distribution"].items():
            print(f"    active {k:7s}: rounds {v['rounds']:.3f}  pushes {v['pushes']:.3f}  relabels {v['relabels']:.3f}")
        for ph in row["per_phase"]:
            print("   ", ph, flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
