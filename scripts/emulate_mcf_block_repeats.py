"""Would block-local repeats between grid syncs cut the device price update's grid sweeps? (CPU emulation.)

Same solve / update points as scripts/emulate_mcf_sweeps.py (update_every 32, full CPU-twin prices applied), but at
every update the label-correcting sweeps are run as the device's grid would with block-local repeats:

  grid of G = ceil(n / 256) blocks of 256 threads, T = 256 G; mapping "stride" (the device's): thread t owns slots
  t, t + T, t + 2T, ...; mapping "contig": block k owns the contiguous slot range [k C, (k+1) C), C = ceil(slots / G).
  One grid sweep: every block relaxes its slots once reading the start-of-sweep labels d0 (pass 0), then up to R
  local passes reading d0 plus its OWN updates of this sweep (other blocks' invisible); local mode "J": each local
  pass reads the block's labels as of the pass start (Jacobi inside the block, pessimistic), "G": reads them live in
  slot order (Gauss-Seidel inside the block, optimistic). A block stops its local passes early once one lowers nothing
  (the confirming pass counted; a block whose pass 0 lowered nothing does none). Blocks merge by elementwise min.
  Grid sweeps run until one lowers nothing (counted). R = 0 is plain Jacobi (checked against run_sweeps).

    PYTHONPATH=src python3 scripts/emulate_mcf_block_repeats.py [--cases small] [--sample K]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numba
import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))
_spec = importlib.util.spec_from_file_location("ems", _HERE / "emulate_mcf_sweeps.py")
ems = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ems)

from matchflow.mcf._cpu_cost_scaling import price_update_kernel  # noqa: E402
from matchflow.mcf._prepare import prepare  # noqa: E402

RS = (0, 1, 2, 4, 8)
MAPS = ("stride", "contig", "rcm-stride", "rcm-contig")
MODES = ("J", "G")
BD = 256


def rcm_slot_order(indptr, to, n):
    """Slots reordered as the CSR of the reverse-Cuthill-McKee renumbered (symmetrised) residual graph."""
    from scipy.sparse import csr_matrix  # noqa: PLC0415
    from scipy.sparse.csgraph import reverse_cuthill_mckee  # noqa: PLC0415
    owner = np.repeat(np.arange(n), np.diff(indptr))
    A = csr_matrix((np.ones(to.size), (owner, to)), shape=(n, n))
    perm = reverse_cuthill_mckee((A + A.T).tocsr(), symmetric_mode=True)
    newid = np.empty(n, np.int64)
    newid[perm] = np.arange(n)
    return np.argsort(newid[owner], kind="stable").astype(np.int64)


def block_slots(S, n, mapping, order=None):
    if mapping.startswith("rcm-"):
        ptr, pos = block_slots(S, n, mapping[4:])
        return ptr, order[pos]
    G = -(-n // BD)
    T = BD * G
    ptr = np.zeros(G + 1, np.int64)
    lst = []
    for k in range(G):
        if mapping == "stride":
            idx = np.concatenate([np.arange(j + BD * k, min(j + BD * k + BD, S)) for j in range(0, S, T)])
        else:
            C = -(-S // G)
            idx = np.arange(k * C, min((k + 1) * C, S))
        lst.append(idx.astype(np.int64))
        ptr[k + 1] = ptr[k] + idx.size
    return ptr, np.concatenate(lst)


@numba.njit(cache=False)
def _pass(lo, hi, bs, owner, to, ulen, big, rd, L, mark, touched, nt):  # noqa: PLR0913
    """One relaxation of slots bs[lo:hi], reading rd, lowering L. Returns (lowered?, nt)."""
    low = False
    for i in range(lo, hi):
        b = bs[i]
        ln = ulen[b]
        if ln >= 0:
            lv = rd[to[b]]
            if lv < big - ln:
                u = owner[b]
                c = lv + ln
                if c < L[u]:
                    L[u] = c
                    low = True
                    if not mark[u]:
                        mark[u] = True
                        touched[nt] = u
                        nt += 1
    return low, nt


@numba.njit(cache=False)
def block_sweeps(bptr, bs, owner, to, ulen, big, d, R, gs_local, L, P, mark, touched, out):  # noqa: PLR0913
    """Grid sweeps with R local passes per block until one lowers nothing. d: start labels in, final labels out.
    L, P: scratch equal to d on entry (kept equal to d between blocks). out[0] grid sweeps, out[1] local passes
    summed over blocks, out[2] local passes on the critical path (max over blocks, summed over sweeps)."""
    G = bptr.size - 1
    n = d.size
    nd = d.copy()
    sweeps = 0
    tot = 0
    crit = 0
    while True:
        any_low = False
        cmax = 0
        for k in range(G):
            lo, hi = bptr[k], bptr[k + 1]
            low, nt = _pass(lo, hi, bs, owner, to, ulen, big, d, L, mark, touched, 0)
            if low:
                any_low = True
                r = 0
                while r < R:
                    r += 1
                    if gs_local:
                        low, nt = _pass(lo, hi, bs, owner, to, ulen, big, L, L, mark, touched, nt)
                    else:
                        for i in range(nt):
                            P[touched[i]] = L[touched[i]]
                        low, nt = _pass(lo, hi, bs, owner, to, ulen, big, P, L, mark, touched, nt)
                    if not low:
                        break
                tot += r
                if r > cmax:
                    cmax = r
            for i in range(nt):
                u = touched[i]
                if L[u] < nd[u]:
                    nd[u] = L[u]
                L[u] = d[u]
                P[u] = d[u]
                mark[u] = False
        sweeps += 1
        crit += cmax
        if not any_low:
            break
        for v in range(n):
            d[v] = nd[v]
            L[v] = nd[v]
            P[v] = nd[v]
    out[0] = sweeps
    out[1] = tot
    out[2] = crit


class BlockUpdater:
    def __init__(self, n, slots, check, apply):  # signature of ems.Updater
        self.n, self.big = n, np.int64(n + 1)
        self.ulen = np.empty(slots, np.int64)
        self.d, self.nd = np.empty(n, np.int64), np.empty(n, np.int64)
        self.rec = np.empty(n + 3, np.int64)
        self.work = (np.empty(n, np.int64), np.zeros(n, np.bool_), np.empty(n, np.int64), np.empty(n, np.int64),
                     np.empty(n + 1, np.int64))
        self.maps = None
        self.recs, self.fail = [], []
        self.k = 0

    def __call__(self, indptr, to, rev, res, c, excess, price, eps, phase_start):  # noqa: PLR0913
        n, big = self.n, self.big
        if self.maps is None:
            self.owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
            order = rcm_slot_order(indptr, to, n)
            self.maps = {m: block_slots(to.size, n, m, order) for m in MAPS}
        if self.k % SAMPLE == 0:
            ems.lengths(indptr, to, res, c, price, eps, big, self.ulen)
            ems.init_labels(excess, big, self.d)
            SJ = ems.run_sweeps(indptr, to, self.ulen, excess, big, True, self.d, self.nd, self.rec, self.rec, self.rec)
            ref = self.d.copy()
            r = dict(phase_start=phase_start, J=SJ)
            L, P = np.empty(n, np.int64), np.empty(n, np.int64)
            mark, touched, out = np.zeros(n, np.bool_), np.empty(n, np.int64), np.zeros(3, np.int64)
            for m in MAPS:
                bptr, bs = self.maps[m]
                for mode in MODES:
                    for R in RS:
                        if R == 0 and mode == "G":
                            r[(m, "G", 0)] = r[(m, "J", 0)]
                            continue
                        d = np.empty(n, np.int64)
                        ems.init_labels(excess, big, d)
                        L[:] = d
                        P[:] = d
                        block_sweeps(bptr, bs, self.owner, to, self.ulen, big, d, R, mode == "G", L, P, mark,
                                     touched, out)
                        if not np.array_equal(d, ref):
                            self.fail.append(("labels", self.k, m, mode, R))
                        if R == 0 and out[0] != SJ:
                            self.fail.append(("R0 != Jacobi", self.k, m, int(out[0]), SJ))
                        r[(m, mode, R)] = (int(out[0]), int(out[1]), int(out[2]))
            self.recs.append(r)
        self.k += 1
        pc = price.copy()
        if price_update_kernel(indptr, to, rev, res, c, excess, pc, eps, *self.work):
            price[:] = pc


SAMPLE = 1


def report(name, recs, fail, secs):
    U = len(recs)
    J = np.array([r["J"] for r in recs])
    print(f"## {name}: {U} updates measured, Jacobi sweeps/update {J.mean():.1f}, {secs:.0f} s; "
          f"checks: {'none failed' if not fail else fail[:6]}")
    print(f"{'map':7s} {'local':5s} {'R':>2s} {'sweeps/upd':>10s} {'/R=0':>6s} {'local/upd (sum blk)':>19s} "
          f"{'local/upd (crit)':>16s} {'crit/sweep':>10s}")
    for m in MAPS:
        base = np.mean([r[(m, 'J', 0)][0] for r in recs])
        for mode in MODES:
            for R in RS:
                if R == 0 and mode == "G":
                    continue
                a = np.array([r[(m, mode, R)] for r in recs], dtype=float)
                s, tot, cr = a.mean(axis=0)
                print(f"{m:7s} {mode if R else '-':5s} {R:2d} {s:10.1f} {s / base:6.3f} {tot:19.0f} {cr:16.1f} "
                      f"{cr / s:10.2f}")


def main():
    global SAMPLE
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="small", choices=("small",))
    ap.add_argument("--sample", type=int, default=1, help="measure every k-th update")
    a = ap.parse_args()
    SAMPLE = a.sample
    ems.Updater = BlockUpdater
    for name in list(ems.CASES)[:2]:
        t = time.perf_counter()
        g = ems.CASES[name]()
        P = prepare((g.tail, g.head), g.demand, capacity=g.cap, cost=g.cost)
        up, rounds, cost = ems.solve(P, every=32)
        print(f"# {name}: n {P.n}, m {P.m}, rounds {rounds}, updates {up.k}, cost {cost}", flush=True)
        report(name, up.recs, up.fail, time.perf_counter() - t)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
