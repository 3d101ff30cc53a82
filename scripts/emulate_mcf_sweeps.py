"""How many sweeps would the device's global price update need under other stopping rules? (CPU emulation.)

The refine's rounds are emulated as scripts/emulate_mcf_rounds.py does (its push / relabel passes, the CPU twin's
saturate pass; alpha 8, cycle 4), with a global price update at each phase start and before every K-th round (K 32,
the device default). At every update the device's label-correcting sweeps (lengths 0 if r < 0 else r // eps + 1,
labels 0 on deficits and n + 1 elsewhere, offers label[v] + length to u over every residual slot u -> v) are run to
full convergence twice: Jacobi (each sweep reads the previous sweep's labels: the pessimistic model of the device's
concurrent atomic.min sweeps) and Gauss-Seidel in node order (the optimistic one). Per sweep s it records

    m_s = the smallest new value of a label lowered in sweep s (INF if none),
    x_s = the largest label of a node with excess after sweep s.

A sweep that lowers no label below E leaves every label < E exact (induction along a shortest path), and a run
capped at B (offers >= B dropped, labels start at B) is exactly min(uncapped run, B) sweep by sweep. So from (m, x):

  full          S = the first s with m_s = INF (the device's rule: its last, confirming sweep counted)
  cap(B)        the first s with m_s >= B; its D_B = min(D, B)
  oracle        cap(D), D the update's final max excess label (prices = the full update's)
  adaptive      cap(max(2 D_prev, 8)), D_prev the previous update's D (first update of the solve: no cap)
  win-naive Δ   windows [kΔ, (k+1)Δ) in turn: window k ends at the first sweep (of its own) with m_s >= (k+1)Δ;
                stop there if x_s < (k+1)Δ, else the next sweep starts window k+1
  win-smart Δ   one reduction per sweep settles every window below m_s at once: E_s = max_t<=s floor(m_t/Δ)*Δ;
                stop at the first s with x_s < E_s (Δ = 1: the exact early stop "no label below the largest excess
                label changed")

Every update's derived counts can be checked against explicit capped / windowed runs (--check K: every K-th
update; default every update of the 10^4 cases, none at 10^5) whose prices p - eps*min(label, D_rule) must equal the CPU twin's
price_update_kernel (oracle, windows) or stay eps-optimal (adaptive).

``--apply adaptive`` also runs a second solve whose updates ARE the adaptive-capped ones (D_prev its own capped D):
rounds, updates, sweeps and cuts of that trajectory (the main trajectory always applies the full update).

    PYTHONPATH=src python3 scripts/emulate_mcf_sweeps.py [--cases small|big|all] [--every 32]
        [--check K] [--apply-adaptive] [--json OUT]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from pathlib import Path

import numba
import numpy as np

from matchflow.generators import gridgen, netgen
from matchflow.mcf._cpu_cost_scaling import FLOOR, price_update_kernel
from matchflow.mcf._cpu_cost_scaling import saturate_kernel as saturate
from matchflow.mcf._prepare import prepare

_spec = importlib.util.spec_from_file_location("emr", Path(__file__).resolve().parent / "emulate_mcf_rounds.py")
emr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(emr)
push_pass, relabel_pass = emr.push_pass, emr.relabel_pass

INF = np.int64(2**62)
CASES = {
    "NETGEN-like 10^4": lambda: netgen(10**4, 8 * 10**4, seed=2),
    "GRIDGEN-like 100x100": lambda: gridgen(100, 100, degree=8, seed=4),
    "NETGEN-like 10^5": lambda: netgen(10**5, 8 * 10**5, seed=5),
}
DELTAS = (1, 8, 64)
FIXED = (1, 2, 4, 16)


# ------------------------------------------------------------------------------------------------ the sweeps

@numba.njit(cache=False)
def lengths(indptr, to, res, c, price, eps, big, ulen):
    """The device's _lengths_dev: -1 where not residual or the length reaches big."""
    n = indptr.size - 1
    for u in range(n):
        pu = price[u]
        for b in range(indptr[u], indptr[u + 1]):
            ln = -1
            if res[b] > 0:
                r = c[b] + pu - price[to[b]]
                ln = 0 if r < 0 else r // eps + 1
                if ln >= big:
                    ln = -1
            ulen[b] = ln


@numba.njit(cache=False)
def init_labels(excess, big, d):
    for v in range(excess.size):
        d[v] = 0 if excess[v] < 0 else big


@numba.njit(cache=False, inline="always")
def _best_dev(u, indptr, to, ulen, big, d):
    """u's label after one relaxation of its residual slots (offers ``d[head] + length`` below ``big``)."""
    best = d[u]
    for b in range(indptr[u], indptr[u + 1]):
        ln = ulen[b]
        if ln >= 0:
            lv = d[to[b]]
            if lv < big - ln and lv + ln < best:
                best = lv + ln
    return best


@numba.njit(cache=False)
def run_sweeps(indptr, to, ulen, excess, big, jacobi, d, nd, mrec, xrec, erec):  # noqa: PLR0913
    """Sweeps (capped at big: offers >= big dropped) until one lowers no label. Jacobi reads the previous sweep's
    labels (nd the new ones), Gauss-Seidel the current ones in node order. mrec[s], xrec[s] for sweep s + 1.
    Returns the sweeps (the confirming one counted); d holds the final labels."""
    n = indptr.size - 1
    S = 0
    while True:
        mn = INF
        erec[S] = 0
        for u in range(n):
            best = _best_dev(u, indptr, to, ulen, big, d)
            if best < d[u]:
                if best < mn:
                    mn = best
                if excess[u] > 0:
                    erec[S] = 1
            if jacobi:
                nd[u] = best
            else:
                d[u] = best
        if jacobi:
            for u in range(n):
                d[u] = nd[u]
        x = -1
        for v in range(n):
            if excess[v] > 0 and d[v] > x:
                x = d[v]
        mrec[S] = mn
        xrec[S] = x
        S += 1
        if mn == INF:
            return S


@numba.njit(cache=False)
def run_windows_naive(indptr, to, ulen, excess, big, delta, d, nd):  # noqa: PLR0913
    """Explicit Jacobi delta-stepping windows (every slot offers in every sweep): window k's sweeps until one
    lowers no label below E = (k+1) delta; stop there once every excess label is < E. Returns (sweeps, D)."""
    n = indptr.size - 1
    S = 0
    E = delta
    while True:
        low = False
        for u in range(n):
            best = _best_dev(u, indptr, to, ulen, big, d)
            if best < d[u] and best < E:
                low = True
            nd[u] = best
        for u in range(n):
            d[u] = nd[u]
        S += 1
        if not low:
            x = -1
            for v in range(n):
                if excess[v] > 0 and d[v] > x:
                    x = d[v]
            if x < E:
                return S, x
            E += delta


@numba.njit(cache=False)
def new_prices(price, d, D, eps, out):
    """p - eps * min(d, D); False where one would pass the floor (the device's skip)."""
    for v in range(price.size):
        dv = d[v] if d[v] < D else D
        if dv > 0 and price[v] - dv * eps <= FLOOR:
            return False
        out[v] = price[v] - dv * eps
    return True


@numba.njit(cache=False)
def eps_optimal(indptr, to, res, c, price, eps):
    n = indptr.size - 1
    for u in range(n):
        for b in range(indptr[u], indptr[u + 1]):
            if res[b] > 0 and c[b] + price[u] - price[to[b]] < -eps:
                return False
    return True


def first_ge(m, B):
    """The first sweep (1-based) whose m_s >= B (the last sweep has m = INF)."""
    return int(np.argmax(m >= B)) + 1


def naive_windows(m, x, delta):
    S = m.size
    E = delta
    for s in range(S):
        if m[s] >= E:
            if x[s] < E:
                return s + 1
            E += delta
    s = S + 1  # converged: every further (no-change) sweep confirms one more window
    while x[-1] >= E:
        s += 1
        E += delta
    return s


def smart_windows(m, x, delta):
    E = -1
    for s in range(m.size):
        e = INF if m[s] == INF else (m[s] // delta) * delta
        E = max(E, e)
        if x[s] < E:
            return s + 1
    raise AssertionError


# ------------------------------------------------------------------------------------------------ the solve

class Updater:
    """The update at one point of the emulated refine: measures every rule, applies full or adaptive prices."""

    def __init__(self, n, slots, check, apply):
        self.n, self.check, self.apply = n, check, apply
        self.big = np.int64(n + 1)
        self.ulen = np.empty(slots, np.int64)
        self.d, self.nd = np.empty(n, np.int64), np.empty(n, np.int64)
        self.mrec, self.xrec, self.erec = np.empty(n + 3, np.int64), np.empty(n + 3, np.int64), np.empty(n + 3, np.int64)
        self.pw, self.pq = np.empty(n, np.int64), np.empty(n, np.int64)
        self.work = (np.empty(n, np.int64), np.zeros(n, np.bool_), np.empty(n, np.int64), np.empty(n, np.int64),
                     np.empty(n + 1, np.int64))
        self.D_prev = None
        self.recs = []
        self.fail = []

    def sweeps(self, indptr, to, excess, jacobi, big):
        init_labels(excess, big, self.d)
        S = run_sweeps(indptr, to, self.ulen, excess, big, jacobi, self.d, self.nd, self.mrec, self.xrec, self.erec)
        self.last_e = self.erec[:S].copy()
        return self.mrec[:S].copy(), self.xrec[:S].copy()

    def __call__(self, indptr, to, rev, res, c, excess, price, eps, phase_start):  # noqa: PLR0913
        big = self.big
        lengths(indptr, to, res, c, price, eps, big, self.ulen)
        rec = dict(phase_start=phase_start, eps=int(eps), active=int((excess > 0).sum()))
        mG, xG = self.sweeps(indptr, to, excess, False, big)
        eG = self.last_e
        mJ, xJ = self.sweeps(indptr, to, excess, True, big)
        eJ = self.last_e  # self.d: the full Jacobi labels
        D = int(max(xJ[-1], 0))
        assert int(max(xG[-1], 0)) == D
        fin = self.d[self.d < big]
        rec.update(frac_below_D=float((self.d < D).mean()), Lmax=int(fin.max()) if fin.size else 0,
                   frac_zero=float((self.d == 0).mean()))
        B = None if self.D_prev is None else max(2 * self.D_prev, 8)
        rec.update(D=D, B=B)
        for tag, m, x, e in (("J", mJ, xJ, eJ), ("G", mG, xG, eG)):
            rec[tag + "full"] = int(m.size)
            rec[tag + "oracle"] = first_ge(m, D)
            rec[tag + "adaptive"] = int(m.size) if B is None else first_ge(m, B)
            for B_ in FIXED:  # diagnostics: a fixed cap (weaker prices where D > B)
                rec[f"{tag}cap{B_}"] = first_ge(m, B_)
            ch = np.flatnonzero(e)  # the last sweep that lowered an excess node's label (not certifiable)
            rec[tag + "xfinal"] = int(ch[-1]) + 1 if ch.size else 0
            for dl in DELTAS:
                none = rec["active"] == 0  # no excess: an early stop needs no sweep
                rec[f"{tag}naive{dl}"] = 0 if none else naive_windows(m, x, dl)
                rec[f"{tag}smart{dl}"] = 0 if none else smart_windows(m, x, dl)
        DB = D if B is None else min(D, B)
        rec.update(DB=DB, cut=B is not None and DB == B, weaker=B is not None and D > B)
        # the full update's prices (the device rule) against the CPU twin's kernel
        ok_full = new_prices(price, self.d, D, eps, self.pw)
        full_labels = self.d.copy()
        pc = price.copy()
        ok_cpu = price_update_kernel(indptr, to, rev, res, c, excess, pc, eps, *self.work)
        assert ok_full == ok_cpu
        if ok_cpu and not np.array_equal(pc, self.pw):
            self.fail.append(("full!=cpu", len(self.recs)))
        # adaptive prices: min(d, D_B) with the capped labels min(d, B)
        capd = full_labels if B is None else np.minimum(full_labels, B)
        ok_ad = new_prices(price, capd, DB, eps, self.pq)
        rec["adaptive_eps_opt"] = bool(ok_ad and eps_optimal(indptr, to, res, c, self.pq, eps))
        if self.check and len(self.recs) % self.check == 0:
            self.explicit(indptr, to, res, c, excess, price, eps, rec, pc, B, DB)
        self.recs.append(rec)
        if self.apply == "adaptive":
            self.D_prev = DB
            if ok_ad:
                price[:] = self.pq
        else:
            self.D_prev = D
            if ok_cpu:
                price[:] = pc

    def explicit(self, indptr, to, res, c, excess, price, eps, rec, pc, B, DB):  # noqa: PLR0913
        """Explicit capped / windowed Jacobi runs: their counts equal the derived ones, their prices the full's."""
        D = rec["D"]
        tmp = np.empty_like(price)
        for name, cap in (("oracle", D), ("adaptive", B)):
            if cap is None:
                continue
            init_labels(excess, np.int64(cap), self.d)
            S = run_sweeps(indptr, to, self.ulen, excess, np.int64(cap), True, self.d, self.nd, self.mrec, self.xrec, self.erec)
            if S != rec["J" + name]:
                self.fail.append((name + " count", len(self.recs), S, rec["J" + name]))
            Dc = int(max(self.xrec[S - 1], 0))
            new_prices(price, self.d, Dc, eps, tmp)
            if name == "oracle" and not np.array_equal(tmp, pc):
                self.fail.append(("oracle prices", len(self.recs)))
            if name == "adaptive":
                if Dc != DB:
                    self.fail.append(("adaptive D_B", len(self.recs), Dc, DB))
                if not eps_optimal(indptr, to, res, c, tmp, eps):
                    self.fail.append(("adaptive eps-opt", len(self.recs)))
        if rec["active"] == 0:
            return
        for dl in DELTAS:
            init_labels(excess, self.big, self.d)
            S, Dw = run_windows_naive(indptr, to, self.ulen, excess, self.big, np.int64(dl), self.d, self.nd)
            if S != rec[f"Jnaive{dl}"]:
                self.fail.append((f"naive{dl} count", len(self.recs), S, rec[f"Jnaive{dl}"]))
            new_prices(price, self.d, max(Dw, 0), eps, tmp)
            if not np.array_equal(tmp, pc):
                self.fail.append((f"naive{dl} prices", len(self.recs)))
        # the smart Δ=1 stop: the Jacobi labels after its sweep count, prices min(label, x_s)
        s1 = rec["Jsmart1"]
        init_labels(excess, self.big, self.d)
        # run exactly s1 sweeps: replay by a capped-at-INF run truncated (cheap enough: re-run and stop)
        self._run_k(indptr, to, excess, s1)
        x = int(max(self.d[excess > 0].max(initial=-1), 0))
        new_prices(price, self.d, x, eps, tmp)
        if not np.array_equal(tmp, pc):
            self.fail.append(("smart1 prices", len(self.recs)))

    def _run_k(self, indptr, to, excess, k):
        for _ in range(k):
            one_jacobi(indptr, to, self.ulen, self.big, self.d, self.nd)


@numba.njit(cache=False)
def one_jacobi(indptr, to, ulen, big, d, nd):
    n = indptr.size - 1
    for u in range(n):
        nd[u] = _best_dev(u, indptr, to, ulen, big, d)
    for u in range(n):
        d[u] = nd[u]


def solve(P, every=32, alpha=8, cycle=4, check=0, apply="full"):  # noqa: PLR0913
    """The GPU twin's eps loop emulated (emulate_mcf_rounds.phase in Python), an Updater at every update point."""
    n = P.n
    indptr, to, rev, res, c, slot, cs, excess, price, eps = emr.start(P)
    up = Updater(n, to.size, check, apply)
    ids, newp = np.empty(n, np.int64), np.empty(n, np.int64)
    rounds = 0
    while True:
        eps = np.int64(max(1, eps // alpha))
        saturate(indptr, to, rev, res, cs, excess, price)
        rnd = 0
        while True:
            if rnd % every == 0:
                up(indptr, to, rev, res, cs, excess, price, eps, rnd == 0)
            for _ in range(cycle):
                push_pass(indptr, to, rev, res, cs, excess, price)
            active, _, st = relabel_pass(indptr, to, res, cs, excess, price, eps, ids, newp)
            rnd += 1
            assert st == emr.OK, st
            if active == 0:
                break
        rounds += rnd
        if eps == 1:
            break
    assert not excess.any()
    flow = P.cap - res[slot]
    return up, rounds, int((flow * P.icost).sum())


# ------------------------------------------------------------------------------------------------ report

COLS = (["full", "oracle", "adaptive"] + [f"naive{d}" for d in DELTAS] + [f"smart{d}" for d in DELTAS]
        + ["xfinal"] + [f"cap{b}" for b in FIXED])


def table(name, recs, rounds, cost, ref_cost, fail, secs, apply, checked):  # noqa: PLR0913
    U = len(recs)
    ps = [r for r in recs if r["phase_start"]]
    lines = [f"## {name} (apply {apply}): {rounds} rounds, {U} updates ({len(ps)} at phase starts), cost {cost} "
             f"(CPU twin {ref_cost}), {secs:.0f} s"]
    lines.append(f"{'rule':14s} {'J total':>8s} {'J mean':>7s} {'J/full':>7s} {'GS total':>9s} {'GS mean':>8s} "
                 f"{'GS/full':>8s}   {'J mean@phase-start':>18s} {'J mean@mid':>10s}")
    for col in COLS:
        j = np.array([r["J" + col] for r in recs])
        g = np.array([r["G" + col] for r in recs])
        jf = sum(r["Jfull"] for r in recs)
        gf = sum(r["Gfull"] for r in recs)
        jps = np.array([r["J" + col] for r in recs if r["phase_start"]])
        jmid = np.array([r["J" + col] for r in recs if not r["phase_start"]])
        lines.append(f"{col:14s} {j.sum():8d} {j.mean():7.1f} {j.sum() / jf:7.2f} {g.sum():9d} {g.mean():8.1f} "
                     f"{g.sum() / gf:8.2f}   {jps.mean() if jps.size else 0:18.1f} {jmid.mean() if jmid.size else 0:10.1f}")
    D = np.array([r["D"] for r in recs])
    cut = sum(r["cut"] for r in recs)
    weaker = sum(r["weaker"] for r in recs)
    cut_ps = sum(r["cut"] for r in ps)
    lines.append(f"D: mean {D.mean():.1f}, median {np.median(D):.0f}, max {D.max()}; adaptive cap: D_B == B in {cut}/"
                 f"{U - 1} updates ({cut_ps} at phase starts), D > B (prices weaker than full) in {weaker}; "
                 f"adaptive prices eps-optimal in {sum(r['adaptive_eps_opt'] for r in recs)}/{U}; "
                 f"updates with no excess {sum(r['active'] == 0 for r in recs)}")
    lines.append(f"nodes with d < D: mean fraction {np.mean([r['frac_below_D'] for r in recs]):.3f}; nodes at d = 0: "
                 f"{np.mean([r['frac_zero'] for r in recs]):.3f}; max finite label / D: mean "
                 f"{np.mean([r['Lmax'] / max(r['D'], 1) for r in recs]):.2f}")
    lines.append(f"explicit-run checks ({checked}): {'none failed' if not fail else fail[:10]}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="small", choices=("small", "big", "all"))
    ap.add_argument("--every", type=int, default=32)
    ap.add_argument("--check", type=int, default=None,
                    help="explicit capped / windowed runs at every k-th update (0: none; default 1 for the 10^4 "
                         "cases, 0 for 10^5)")
    ap.add_argument("--apply-adaptive", action="store_true", help="also a solve that applies the adaptive cap")
    ap.add_argument("--json")
    a = ap.parse_args()
    names = {"small": list(CASES)[:2], "big": list(CASES)[2:], "all": list(CASES)}[a.cases]
    out = []
    for name in names:
        t = time.perf_counter()
        g = CASES[name]()
        P = prepare((g.tail, g.head), g.demand, capacity=g.cap, cost=g.cost)
        from matchflow.mcf._cpu_cost_scaling import solve_cost_scaling  # noqa: PLC0415
        flow_cpu, _, _ = solve_cost_scaling(P)
        ref = int((flow_cpu * P.icost).sum())
        print(f"# {name}: n {P.n}, m {P.m}, built in {time.perf_counter() - t:.1f} s", flush=True)
        check = a.check if a.check is not None else int(P.n <= 10**4)
        for apply in ("full", "adaptive") if a.apply_adaptive else ("full",):
            t = time.perf_counter()
            chk = check if apply == "full" else 0
            up, rounds, cost = solve(P, every=a.every, check=chk, apply=apply)
            secs = time.perf_counter() - t
            assert cost == ref, (cost, ref)
            checked = "none run" if not chk else f"every {chk}th update" if chk > 1 else "every update"
            print(table(name, up.recs, rounds, cost, ref, up.fail, secs, apply, checked), flush=True)
            out.append(dict(case=name, n=P.n, m=P.m, apply=apply, rounds=rounds, updates=up.recs, fail=up.fail))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, default=int)


if __name__ == "__main__":
    main()
