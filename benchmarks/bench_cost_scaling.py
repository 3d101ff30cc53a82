"""Sparse assignment by cost scaling (issue 12) against its peers, on the CPU, in one run.

    python -m benchmarks.bench_cost_scaling            # ~5-8 min on a shared 2-core machine
    python -m benchmarks.bench_cost_scaling --quick

Peers: OR-Tools SimpleLinearSumAssignment (Goldberg-Kennedy, C++; build = add_arcs_with_cost from
arrays, timed apart from solve), SciPy min_weight_full_bipartite_matching (LAPJVsp), lap.lapmod (lapx)
and, for dense inputs, our JV and SciPy linear_sum_assignment. Ours is the public call
``matchflow.assignment(C)`` from host arrays (validation, feasibility, solve, exact duals); the
first call in a fresh process is timed apart (``first_call``). Quality: every solver's total is
compared with ours (``same_cost``) and ours is certified (``verify_sparse_assignment``).
Writes results/cost_scaling/cpu.{json,md}.

    python -m benchmarks.bench_cost_scaling --gpu [--sizes 10000 100000 1000000] [--repeats 20]

GPU mode (Łupińska's lock-free refine): random sparse inputs with 10-30 arcs per row, three timed forms:
``device`` (the square problem already uploaded: refine + D2H + exact duals, ``matchflow.gpu.cost_scaling_assignment``),
``public`` (``matchflow.assignment(A, backend="gpu")`` from host arrays) and ``first_call`` (import + a tiny GPU
solve in a fresh process); every public run is certified by ``verify_sparse_assignment`` (the lock-free refine
is not deterministic: ``--repeats`` runs per input, fewer at n = 1e6), and compared with the CPU twin in the same
run (n <= 1e5). Pip peers are not installed on the device: quote results/cost_scaling/cpu.md for them.
Writes results/cost_scaling/gpu-<model>-<date>.{json,md}.
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

from ._runner import machine_info, md_table, write_results

DATA = Path(__import__("os").environ.get("MATCHFLOW_DATA", "/work/shared/data"))
SCIPY_CAP_N = 50_000  # SciPy's LAPJVsp took 62.9 s at n = 1e5 on this machine class (issue 12): skipped above


def random_sparse(n: int, hi: int, seed: int) -> sp.csr_array:
    """10-30 arcs per row (uniform), integer costs in [1, hi] (no zeros: SciPy would drop them), plus a
    random perfect matching (feasible)."""
    rng = np.random.default_rng(seed)
    deg = rng.integers(10, 31, n)
    rows = np.r_[np.repeat(np.arange(n), deg), np.arange(n)]
    cols = np.r_[rng.integers(0, n, int(deg.sum())), rng.permutation(n)]
    A = sp.csr_array((rng.integers(1, hi + 1, rows.size), (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    return A


def geometric_knn(n: int, k: int, seed: int) -> sp.csr_array:
    """Match two point clouds (the second a jittered copy): the k nearest targets of each source,
    costs = distance * 10^4 rounded; the twin arc is always present (feasible)."""
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(seed)
    P = rng.random((n, 2))
    Q = P + rng.normal(0, 0.3 / np.sqrt(n), (n, 2))
    d, j = cKDTree(Q).query(P, k)
    rows = np.repeat(np.arange(n), k)
    keep = j.ravel() != rows  # the twin is added once below
    rows = np.r_[rows[keep], np.arange(n)]
    cols = np.r_[j.ravel()[keep], np.arange(n)]
    dist = np.r_[d.ravel()[keep], np.linalg.norm(P - Q, axis=1)]
    return sp.csr_array((np.rint(dist * 1e4).astype(np.int64) + 1, (rows, cols)), shape=(n, n))


def netlib(name: str) -> sp.csr_array:
    with gzip.open(DATA / "matrices" / f"{name}.mtx.gz") as f:
        M = sp.csr_array(scipy.io.mmread(f))
    M.data = np.rint(np.abs(M.data) * 100).astype(np.int64) + 1  # |values| as integer costs (x100), > 0
    return M


def _time(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def run_ours(A):
    import matchflow
    from matchflow.verify import verify_sparse_assignment

    t, res = _time(lambda: matchflow.assignment(A, partial=A.shape[0] != A.shape[1]))
    ok = verify_sparse_assignment(A, res, raise_on_error=False) == []
    return {"solve": t, "cost": res.cost, "n_assigned": int(res.row_ind.size), "certified": ok,
            "pushes": res.stats.get("pushes"), "phases": res.stats.get("phases")}


def run_ortools(A):
    from ortools.graph.python import linear_sum_assignment as ola

    if A.shape[0] != A.shape[1]:
        return {"status": "skipped (square only)"}
    co = A.tocoo()
    t0 = time.perf_counter()
    s = ola.SimpleLinearSumAssignment()
    s.add_arcs_with_cost(co.row.astype(np.int64), co.col.astype(np.int64), co.data.astype(np.int64))
    tb = time.perf_counter() - t0
    ts, st = _time(s.solve)
    if st != s.OPTIMAL:
        return {"status": f"status {st}", "build": tb, "solve": ts}
    return {"build": tb, "solve": ts, "cost": int(s.optimal_cost())}


def run_scipy(A):
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    if max(A.shape) > SCIPY_CAP_N:
        return {"status": f"skipped (n > {SCIPY_CAP_N}: 62.9 s at n=1e5 in the issue)"}
    try:
        t, (r, c) = _time(lambda: min_weight_full_bipartite_matching(A))
    except ValueError as e:
        return {"status": f"error: {e}"}
    return {"solve": t, "cost": int(A[r, c].sum())}


def run_lapmod(A):
    try:
        import lap
    except ImportError:
        return {"status": "not installed"}
    if A.shape[0] != A.shape[1]:
        return {"status": "skipped (square only)"}
    n = A.shape[0]
    t, out = _time(lambda: lap.lapmod(n, A.data.astype(np.float64), A.indptr.astype(np.int32),
                                      A.indices.astype(np.int32)))
    return {"solve": t, "cost": int(round(out[0]))}


def first_call_seconds() -> float:
    """Import + the first sparse call in a fresh process (kernels loaded from the on-disk cache)."""
    code = ("import time;t=time.perf_counter();import numpy as np,scipy.sparse as sp,matchflow;"
            "matchflow.assignment(sp.csr_array(np.array([[1,2],[3,1]])));print(time.perf_counter()-t)")
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def dense_rows(sizes):
    import scipy.optimize

    import matchflow

    rows = []
    for n in sizes:
        a = np.random.default_rng(n).integers(0, n * 10, (n, n))
        rec = {"input": f"dense n={n} range 10n", "n": n, "nnz": n * n}
        for name, fn in (("ours_cost_scaling", lambda: matchflow.assignment(a, method="cost-scaling").cost),
                         ("ours_jv", lambda: matchflow.assignment(a, method="jv").cost),
                         ("scipy_lsa", lambda: int(a[scipy.optimize.linear_sum_assignment(a)].sum()))):
            t, cost = _time(fn)
            rec[name] = {"solve": t, "cost": int(cost)}
        rows.append(rec)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--gpu", action="store_true", help="the GPU mode (see the module docstring)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--block-size", type=int, default=256)
    ap.add_argument("--profile", action="store_true", help="with --gpu: stage seconds per schedule")
    ap.add_argument("--tag", default="", help="with --gpu: suffix of the result files' name")
    ap.add_argument("--only", nargs="*", help="with --gpu: inputs whose label contains one of these")
    ap.add_argument("--twin-max", type=int, default=100_000, help="with --gpu: the CPU twin up to this n")
    ap.add_argument("--no-first-call", dest="first_call", action="store_false", help="with --gpu: skip the "
                    "fresh-process timings")
    args = ap.parse_args(argv)
    if args.gpu:
        return gpu_main(args)
    import matchflow

    matchflow.assignment(random_sparse(50, 10, 0))  # compile / load the kernels once
    inputs = [("random n=1e4 c<=1e2", lambda: random_sparse(10_000, 100, 1)),
              ("random n=1e4 c<=1e6", lambda: random_sparse(10_000, 10**6, 2)),
              ("geometric kNN n=2e4 k=10", lambda: geometric_knn(20_000, 10, 3))]
    if not args.quick:
        inputs += [("random n=3e4 c<=1e3", lambda: random_sparse(30_000, 1000, 7)),  # SciPy over a second
                   ("random n=5e4 c<=1e3", lambda: random_sparse(50_000, 1000, 8)),
                   ("random n=1e5 c<=1e3", lambda: random_sparse(100_000, 1000, 4)),
                   ("random n=1e5 c<=1e6", lambda: random_sparse(100_000, 10**6, 5)),
                   ("geometric kNN n=1e5 k=10", lambda: geometric_knn(100_000, 10, 6)),
                   ("netlib FIT2P (partial)", lambda: netlib("FIT2P")),
                   ("netlib GREENBEA (partial)", lambda: netlib("GREENBEA"))]
    records = []
    for name, make in inputs:
        A = make()
        rec = {"input": name, "shape": list(A.shape), "nnz": int(A.nnz)}
        for solver, fn in (("ours", run_ours), ("ortools", run_ortools), ("scipy", run_scipy),
                           ("lapmod", run_lapmod)):
            try:
                rec[solver] = fn(A)
            except Exception as e:  # a peer's failure is a result, not a crash of the benchmark
                rec[solver] = {"status": f"error: {type(e).__name__}: {e}"[:200]}
            print(name, solver, rec[solver], flush=True)
        # the wide layout of benchmarks/plots.py: whole call (OR-Tools: build + solve), "ok" only when the
        # total equals ours (ours: only when certified)
        rec["times"] = {s: (rec[s].get("build", 0.0) + rec[s]["solve"]) if "solve" in rec[s] else None
                        for s in ("ours", "ortools", "scipy", "lapmod")}
        rec["status"] = {s: "ok" if "solve" in rec[s] and rec[s].get("cost") == rec["ours"].get("cost")
                         and rec["ours"].get("certified") else "skipped" for s in rec["times"]}
        records.append(rec)
    dense = dense_rows([1024] if args.quick else [1024, 2048])
    for d in dense:
        print(d, flush=True)
    first = first_call_seconds()
    meta = machine_info()
    meta["note"] = "2-core machine shared with other helpers during the run; one run per cell (no repeats)"
    meta["first_call_s"] = first
    hdr = ["input", "shape", "nnz", "ours s", "OR-Tools build+solve s", "SciPy s", "lapmod s", "OR-Tools/ours",
           "SciPy/ours", "same cost", "certified"]
    rows = []
    for r in records:
        o = r["ours"]
        if "solve" not in o:
            rows.append([r["input"], "x".join(map(str, r["shape"])), r["nnz"], o["status"][:60]] + ["-"] * 7)
            continue
        ot = r["ortools"].get("solve")
        ot_total = None if ot is None else r["ortools"]["build"] + ot
        sc, lm = r["scipy"].get("solve"), r["lapmod"].get("solve")
        costs = {r[s].get("cost") for s in ("ours", "ortools", "scipy", "lapmod") if r[s].get("cost") is not None}
        rows.append([r["input"], "x".join(map(str, r["shape"])), r["nnz"], f"{o['solve']:.3f}",
                     "-" if ot is None else f"{r['ortools']['build']:.3f}+{ot:.3f}",
                     "-" if sc is None else f"{sc:.3f}", "-" if lm is None else f"{lm:.3f}",
                     "-" if ot is None else f"{ot_total / o['solve']:.2f}",
                     "-" if sc is None else f"{sc / o['solve']:.1f}", len(costs) == 1, o["certified"]])
    md = "## Sparse (CPU)\n\n" + md_table(hdr, rows)
    md += "\n\n## Dense (CPU)\n\n" + md_table(
        ["input", "ours cost-scaling s", "ours JV s", "SciPy lsa s", "same cost"],
        [[d["input"], f"{d['ours_cost_scaling']['solve']:.3f}", f"{d['ours_jv']['solve']:.3f}",
          f"{d['scipy_lsa']['solve']:.3f}",
          len({d[k]["cost"] for k in ("ours_cost_scaling", "ours_jv", "scipy_lsa")}) == 1] for d in dense])
    md += (f"\n\nFirst call in a fresh process (import + a 2x2 sparse solve, kernels from the disk cache): "
           f"{first:.2f} s. Skipped/failed cells: " + "; ".join(
               f"{r['input']} {s}: {r[s]['status']}" for r in records for s in ("ortools", "scipy", "lapmod")
               if "status" in r[s]) + "\n")
    meta["dense"] = dense
    jp, mp = write_results("cost_scaling", "cpu", meta, records, md)
    print(md)
    print(jp, mp)
    return 0


def _median(ts):
    return float(np.median(ts)) if ts else None


def gpu_first_call_seconds() -> float:
    """Import + the first sparse GPU call in a fresh process (CUDA context, kernels compiled or loaded)."""
    code = ("import time;t=time.perf_counter();import numpy as np,scipy.sparse as sp,matchflow;"
            "matchflow.assignment(sp.csr_array(np.array([[1,2],[3,1]])),backend='gpu');print(time.perf_counter()-t)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if p.returncode:
        print("first call failed:", p.stderr[-2000:], file=sys.stderr)
        return float("nan")
    return float(p.stdout)


def gpu_rows(A, repeats: int, block_size: int, cpu_twin: bool, tails: bool) -> dict:
    """The three timed forms on one square feasible input (see the module docstring): the device form with the
    default options (async refine, CPU tail) and all on the GPU (one persistent kernel, ``tail=0``); the
    public call ``repeats`` times, every answer certified; ``tails``: the device form once per tail."""
    import matchflow
    from matchflow.gpu import cost_scaling_assignment, cost_scaling_to_device

    n = A.shape[0]
    rec = {"shape": list(A.shape), "nnz": int(A.nnz)}
    t_up, dev = _time(lambda: cost_scaling_to_device(A))
    rec["upload_s"] = t_up
    forms = {"device": {}}
    if n <= 10**4:  # all on the GPU (tail-bound: 4.6-5.8 s at n = 1e5 on an H100), skipped from 1e5
        forms["device_persistent"] = {"loop": "persistent", "tail": 0}
    if n <= 10**4:
        forms["device_sweeps"] = {"schedule": "sweeps"}  # the paper's host-driven sweeps (the 'before')
    for form, kw in forms.items():
        ts, costs, stats = [], set(), None
        for _ in range(3 if form == "device" and n <= 10**5 or n <= 10**4 and form != "device_sweeps" else 1):
            t, (st, x, u, v, stats) = _time(lambda kw=kw: cost_scaling_assignment(dev, block_size=block_size, **kw))
            ts.append(t)
            costs.add(int(A[np.arange(n), x].sum()) if st == 0 else None)
        rec[form] = {"median_s": _median(ts), "min_s": min(ts), "runs": len(ts),
                     "costs": sorted(c for c in costs if c is not None), "stats": _plain(stats)}
    after = {}
    if tails:  # the CPU tail's threshold x the global price update in it (Alg. 5.3), device form, one run each
        rec["tails"] = {}
        for tail in TAILS:
            for every in UPDATES:
                kw = {"tail": tail, "loop": "host", "price_update": every is not None} | (
                    {} if every is None else {"update_every": every})
                t, (st, x, u, v, stats) = _time(lambda kw=kw: cost_scaling_assignment(dev, block_size=block_size,
                                                                                       **kw))
                rec["tails"][f"{tail}/{every}"] = {"tail": tail, "update_every": every, "s": t, "status": st,
                                                   "stats": _plain(stats)}
                print(f"   tail {tail} update {every}: {t:.4f} s", {k: stats.get(k) for k in (
                    "pushes", "tail_pushes", "price_updates", "seconds_tail", "seconds_update")}, flush=True)
        best = min((r for r in rec["tails"].values() if r["update_every"] is not None and r["status"] == 0),
                   key=lambda r: r["s"])
        after = {"tail": best["tail"], "price_update": True, "update_every": best["update_every"]}
        rec["after_options"] = after
    rec.update(_public(A, repeats if not after else max(1, repeats // 2), block_size, {}, "public"))
    if after:  # the same public call with the fastest price-update setting of the grid
        rec.update(_public(A, repeats, block_size, after, "public_after"))
    if cpu_twin:
        t, cres = _time(lambda: matchflow.assignment(A, backend="cpu"))
        rec["cpu_twin"] = {"s": t, "cost": cres.cost, "pushes": cres.stats.get("pushes")}
    return rec


TAILS = (64, 256, 1024, 4096)
UPDATES = (None, 0.0, 0.5)  # no price update; one at the start of each tail; one every n/2 tail pushes


def _public(A, repeats: int, block_size: int, kw: dict, key: str) -> dict:
    """The public call ``repeats`` times, every answer certified."""
    import matchflow
    from matchflow.verify import verify_sparse_assignment

    pub_t, pub_costs, certified, fallbacks = [], set(), 0, 0
    for _ in range(repeats):
        t, res = _time(lambda: matchflow.assignment(A, backend="gpu", block_size=block_size, **kw))
        pub_t.append(t)
        pub_costs.add(res.cost)
        certified += verify_sparse_assignment(A, res, raise_on_error=False) == []
        fallbacks += "gpu_fallback" in res.stats
    print(f"   {key} {kw}: median {_median(pub_t):.4f} s, certified {certified}/{repeats}", flush=True)
    return {key: {"median_s": _median(pub_t), "min_s": min(pub_t), "runs": repeats, "certified": certified,
                  "fallbacks": fallbacks, "costs": sorted(pub_costs), "options": kw, "stats": _plain(res.stats)}}


def _e(x: int) -> str:
    k = int(round(np.log10(x)))
    return f"1e{k}" if 10**k == x else str(x)


def _plain(stats):
    return {k: v for k, v in (stats or {}).items() if isinstance(v, (int, float, str, bool))}


SCHEDULES = {"async-persistent": {"schedule": "async", "loop": "persistent"},
             "async-host tail=64": {"schedule": "async", "loop": "host"},
             "async-host tail=0": {"schedule": "async", "loop": "host", "tail": 0},
             "sweeps (before)": {"schedule": "sweeps", "loop": "host"}}


def gpu_profile(args) -> int:
    """Stage seconds of the device form per schedule (``--profile``): where a GPU solve spends its time."""
    import matchflow
    from matchflow.gpu import cost_scaling_assignment, cost_scaling_to_device

    matchflow.assignment(random_sparse(50, 10, 0), backend="gpu")
    for n in args.sizes:
        for label, A in ((f"random n={_e(n)} c<=1e6", random_sparse(n, 10**6 if n < 10**6 else 10**5, n % 97 + 2)),
                         (f"kNN n={_e(n)} k=10", geometric_knn(n, 10, 6))):
            t_up, dev = _time(lambda A=A: cost_scaling_to_device(A))
            print(f"{label}: nnz {A.nnz}, upload (CSC + scale + H2D) {t_up:.4f} s", flush=True)
            for name, kw in SCHEDULES.items():
                if name.startswith("sweeps") and n > 10**4:
                    continue
                out = []
                for _ in range(3):
                    t, (st, x, u, v, stats) = _time(lambda kw=kw: cost_scaling_assignment(dev, block_size=args.block_size,
                                                                                           **kw))
                    out.append((t, st, stats))
                t, st, stats = sorted(out, key=lambda o: o[0])[1]
                keys = ("seconds_solve", "seconds_d2h", "seconds_certify", "phases", "sweeps", "pushes", "launches",
                        "syncs", "grid_size", "ran_on", "gpu_fallback", "dual_scans")
                print(f"  {name}: total {t:.4f} s status {st} " + " ".join(f"{k}={stats.get(k)}" for k in keys
                                                                             if k in stats), flush=True)
            t, res = _time(lambda A=A: matchflow.assignment(A, backend="gpu", block_size=args.block_size))
            print(f"  public call {t:.4f} s: " + " ".join(f"{k}={v:.4f}" for k, v in res.stats.items()
                                                           if k.startswith("seconds_")), flush=True)
            t, res = _time(lambda A=A: matchflow.assignment(A, backend="cpu"))
            print(f"  CPU twin {t:.4f} s", flush=True)
    return 0


def gpu_main(args) -> int:
    from numba import cuda

    import matchflow

    if args.profile:
        return gpu_profile(args)

    first = gpu_first_call_seconds() if args.first_call else float("nan")  # kernels not compiled nor cached yet
    first_warm = gpu_first_call_seconds() if args.first_call else float("nan")  # again: from the disk cache
    matchflow.assignment(random_sparse(50, 10, 0), backend="gpu")  # load the kernels in this process
    matchflow.assignment(random_sparse(50, 10, 0), backend="cpu")  # and the CPU twin's
    name = getattr(cuda.get_current_device(), "name", b"simulator")
    model = name.decode() if isinstance(name, bytes) else str(name)
    short = next((k for k in ("h100", "h200", "a100") if k in model.lower()), "gpu")
    meta = machine_info()
    meta.update(gpu_model=model, first_call_s=first, first_call_warm_cache_s=first_warm, block_size=args.block_size,
                note="GPU = Łupińska Alg. 5.4 lock-free refine, async schedule (device-side termination), the "
                     "last units of each phase on the CPU (tail=64); the global price update (Alg. 5.3) runs in the "
                     "CPU tail when asked (grid and 'price update' columns), not on the device")
    tag = f"gpu-{short}-{meta.get('date', time.strftime('%Y-%m-%d'))[:10]}{args.tag}"
    jobs = []
    for n in args.sizes:
        reps = args.repeats if n <= 10**5 else max(1, min(args.repeats, 3))
        # n = 1e6: range * 4(n+1)^2 < 2^59 needs a range < 1.4e5 (duplicate arcs are summed: up to 2 hi)
        for hi in ((100, 10**6) if n < 10**6 else (5 * 10**4,)):
            jobs.append((f"random n={_e(n)} c<={_e(hi)}", lambda n=n, hi=hi: random_sparse(n, hi, n % 97 + hi % 13),
                         reps, n <= args.twin_max, n == 100_000))
        if n >= 100_000:
            jobs.append((f"geometric kNN n={_e(n)} k=10", lambda n=n: geometric_knn(n, 10, 6), reps, n <= args.twin_max,
                         False))
    jobs = [j for j in jobs if not args.only or any(o in j[0] for o in args.only)]
    records = []
    for label, make, reps, twin, tails in jobs:
        print(label, flush=True)
        rec = {"input": label} | gpu_rows(make(), reps, args.block_size, twin, tails)
        records.append(rec)
        print({k: rec[k] for k in rec if k not in ("tails",)}, flush=True)
        jp, mp, md = _write_gpu(records, meta, model, first, first_warm, tag)  # after every input: a cut run keeps
    print(md)
    print(jp, mp)
    return 0


def _write_gpu(records, meta, model, first, first_warm, tag):
    hdr = ["input", "nnz", "device s (default)", "device s (price update)", "public s (default)",
           "public s (price update)", "runs certified", "fallbacks", "CPU twin s", "CPU twin / best public",
           "costs equal", "pushes", "CPU tail pushes (default)", "CPU tail pushes (update)", "update options"]
    rows = []
    for r in records:
        d, p, c, pa = r["device"], r["public"], r.get("cpu_twin"), r.get("public_after")
        costs = set(p["costs"]) | set(d["costs"]) | set(pa["costs"] if pa else ()) | ({c["cost"]} if c else set())
        best_dev = None
        if "tails" in r:
            o = r["after_options"]
            cell = r["tails"][f"{o['tail']}/{o['update_every']}"]
            best_dev = cell["s"]
        best_pub = min(p["median_s"], pa["median_s"]) if pa else p["median_s"]
        runs = p["runs"] + (pa["runs"] if pa else 0)
        cert = p["certified"] + (pa["certified"] if pa else 0)
        rows.append([r["input"], r["nnz"], f"{d['median_s']:.4f}", "-" if best_dev is None else f"{best_dev:.4f}",
                     f"{p['median_s']:.4f}", "-" if not pa else f"{pa['median_s']:.4f}", f"{cert}/{runs}",
                     p["fallbacks"] + (pa["fallbacks"] if pa else 0), "-" if not c else f"{c['s']:.3f}",
                     "-" if not c else f"{c['s'] / best_pub:.2f}", len(costs) == 1, p["stats"].get("pushes"),
                     p["stats"].get("tail_pushes"), "-" if not pa else pa["stats"].get("tail_pushes"),
                     "-" if not pa else ", ".join(f"{k}={v}" for k, v in pa["options"].items())])
    md = f"## Sparse cost scaling on the GPU ({model})\n\n" + md_table(hdr, rows)
    for r in (r for r in records if "tails" in r):
        md += (f"\n\n### {r['input']}: CPU tail threshold x global price update in the tail (device form, one run "
               "each; s, CPU tail pushes, updates)\n\n")
        body = []
        for tail in TAILS:
            cells = [r["tails"].get(f"{tail}/{e}") for e in UPDATES]
            body.append([tail] + ["-" if x is None else
                                  f"{x['s']:.4f} ({x['stats'].get('tail_pushes')}, {x['stats'].get('price_updates')})"
                                  for x in cells])
        md += md_table(["tail", "no update", "update once per tail", "update every n/2 tail pushes"], body)
    md += (f"\n\nFirst call in a fresh process (import + CUDA context + the kernels + a 2x2 GPU solve): {first:.2f} s "
           f"with an empty kernel cache, {first_warm:.2f} s with the kernels cached on disk. device = data already "
           "on the GPU (`matchflow.gpu.cost_scaling_assignment`: refine + D2H + exact duals on the host; default = "
           "async refine with the last <= 64 units of each phase finished on the CPU, no price update; price update "
           "= the fastest cell of the grid below with Alg. 5.3 in the CPU tail); public = "
           "`matchflow.assignment(A, backend='gpu')` from host arrays (validation, CSC build, H2D, solve, "
           "certificate), with the default options and with the grid's best price-update options. Peers (OR-Tools, "
           "SciPy, lapmod) are not installed on the device: see cpu.md.\n")
    jp, mp = write_results("cost_scaling", tag, meta, records, md)
    return jp, mp, md


def gpu_plot(json_path: str) -> str:
    """The speed-up plot of a GPU result file: public GPU call (default and price update) and the CPU twin
    against OR-Tools' committed times (results/cost_scaling/cpu.json, same generators and sizes)."""
    import json

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    recs = json.loads(Path(json_path).read_text())["records"]
    labels, series = [], {"GPU public, no price update (before)": [], "GPU public, price update in the tail (after)": [], "CPU twin (device host)": []}
    for r in recs:
        labels.append(f"{r['input']}\n{r['nnz'] / 1e6:.1f}M arcs")
        series["GPU public, no price update (before)"].append(r["public"]["median_s"])
        series["GPU public, price update in the tail (after)"].append(r.get("public_after", {}).get("median_s", np.nan))
        series["CPU twin (device host)"].append(r.get("cpu_twin", {}).get("s", np.nan))
    fig, ax = plt.subplots(figsize=(9, 4.5))
    w = 0.27
    for k, (name, ys) in enumerate(series.items()):
        ax.bar(np.arange(len(labels)) + (k - 1) * w, ys, w, label=name)
    ax.set_yscale("log")
    ax.set_ylabel("seconds (log)")
    ax.set_xticks(np.arange(len(labels)), labels, fontsize=8)
    ax.set_title("Sparse cost scaling, GPU vs CPU twin (OR-Tools: 0.91-1.03 s at n = 1e5 on the 2-core host)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = str(Path(json_path).with_suffix("")) + "_speedup.png"
    fig.savefig(out, dpi=110)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
