"""Study (issue 9): the float route's integer pre-solve range (``float_range``, costs scaled to int32 in
[0, float_range * n]) against the host repair it leaves. A wider range makes the integer optimum's prices nearer
the float optimum (fewer rows freed for the host JV repair) and costs the integer Hungarian more steps. Public
call only (``matchflow.assignment(C, backend="gpu", float_range=R)`` from host float64 arrays), every answer
certified by ``verify_assignment`` and equal in cost to the default's. Run on a GPU:
``python3 -m studies.study_float_range [--sizes 4096,8192] [--ranges 10,30,100,300,1000]``."""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import matchflow
from benchmarks._runner import md_table
from matchflow.verify import verify_assignment

STAGES = ("seconds_prepare", "seconds_h2d", "seconds_scale", "seconds_int", "seconds_tight", "seconds_repair",
          "seconds_certificate")
DISTS = {  # name -> costs (rng, n)
    "uniform": lambda rng, n: rng.random((n, n)),
    "normal": lambda rng, n: rng.normal(size=(n, n)),
    "normal2": lambda rng, n: rng.normal(size=(n, n)) ** 2,
    "lognormal": lambda rng, n: rng.lognormal(0.0, 2.0, size=(n, n)),
    "offset": lambda rng, n: 1e6 + rng.random((n, n)),  # a large exact shift: the preparation subtracts it
    "exponential": lambda rng, n: rng.exponential(size=(n, n)),
    # rank one plus noise (a_i + b_j + 1e-3 eps): nearly every assignment costs about the same; pathological for JV
    # (an 8.4 s repair at n = 2048 in a CPU prototype, 2026-11-27), not run on the device yet
    "rank1": lambda rng, n: rng.random(n)[:, None] + rng.random(n)[None, :] + 1e-3 * rng.random((n, n)),
}


def run(sizes: list[int], ranges: list[float], reps: int, dists: list[str], gap_levels: list[float],
        cpu: bool) -> list[dict]:
    rng = np.random.default_rng(2031)
    recs = []
    for n in sizes:
        for dist in dists:
            C = DISTS[dist](rng, n)
            base = None
            if cpu:
                t0 = time.perf_counter()
                rc = matchflow.assignment(C, backend="cpu")
                print(json.dumps({"n": n, "dist": dist, "cpu_jv_ms": 1e3 * (time.perf_counter() - t0)}), flush=True)
                base = rc.cost
            for R in ranges:
                for G in gap_levels:
                    ts, res = [], None
                    for _ in range(reps):
                        t0 = time.perf_counter()
                        res = matchflow.assignment(C, backend="gpu", float_range=R, float_gap_levels=G)
                        ts.append(time.perf_counter() - t0)
                    cert = verify_assignment(C, res)
                    base = res.cost if base is None else base
                    st = res.stats
                    rec = {"n": n, "dist": dist, "float_range": R, "gap_levels": G,
                           "median_ms": 1e3 * statistics.median(ts), "best_ms": 1e3 * min(ts),
                           "certified": bool(cert.ok if hasattr(cert, "ok") else cert),
                           "same_cost": abs(res.cost - base) <= 1e-9 * max(1.0, abs(base)),
                           "backend": res.backend, "resolved_by": st.get("resolved_by"),
                           "float_scale": st.get("float_scale"), "float_gap": st.get("float_gap"),
                           "free_after_int": st.get("free_after_int"), "augmentations": st.get("augmentations"),
                           "float_passes": st.get("float_passes"),
                           "int_rounds": st.get("int_rounds", st.get("iterations"))}
                    rec.update({k: 1e3 * st[k] for k in STAGES if k in st})
                    print(json.dumps(rec), flush=True)
                    recs.append(rec)
    return recs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--ranges", default="10,30,100,300,1000")
    ap.add_argument("--dists", default="uniform,normal2,lognormal", help=f"comma list of {sorted(DISTS)}")
    ap.add_argument("--gap-levels", default="10", help="float_gap_levels values (0: the range alone)")
    ap.add_argument("--cpu", action="store_true", help="also the CPU call (JV), once per input")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    matchflow.assignment(np.random.default_rng(0).random((64, 64)), backend="gpu")  # compile / load the kernels
    recs = run([int(s) for s in a.sizes.split(",")], [float(r) for r in a.ranges.split(",")], a.reps,
               a.dists.split(","), [float(g) for g in a.gap_levels.split(",")], a.cpu)
    cols = ["n", "dist", "float_range", "gap_levels", "median_ms", "best_ms", "certified", "same_cost", "float_passes",
            "free_after_int", "augmentations", *STAGES]
    print(md_table(cols, [[r.get(c) for c in cols] for r in recs]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
