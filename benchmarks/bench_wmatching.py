"""Half-approximate weighted matching (issue 10): matchflow's CPU methods vs NetworKit's matchers and
exact rustworkx on the same inputs, in one run.

    python -m benchmarks.bench_wmatching [--quick] [--out results]
    python -m benchmarks.bench_wmatching --gpu [--quick] [--data DIR] [--out DIR] [--big]


Times: ours = the whole public call from a symmetric scipy.sparse CSR (conversion + solve), median of
3 after a warm-up (``solve_s``: the solve alone, from ``result.seconds``); NetworKit = graph build from
the COO arrays (``nk_build_s``) and the matcher run, separately; exact rustworkx only on small graphs
(quality reference). Weights: real integer weights on the road graphs, else integers 1..1000 from a
fixed seed (one per undirected edge). Writes results/wmatching/cpu.{json,md} and the plots.

``--gpu`` (on the device; pip peers are not there): GPU-Suitor and GPU-LD against our CPU Suitor in
the same run, in the three timed forms: ``device`` (a graph already on the GPU, ``matchflow.gpu.weighted_to_device``
once; the solve + the mate back), ``public`` (``weighted_matching(csr, backend="gpu")`` from the host
matrix: keys, H2D, solve, D2H, weight) and ``first`` (a fresh process, JIT included); every variant x
threads-per-block x vertices-per-warp on each input (the paper's Figures 2-4), 20 repeated default runs
all identical to the CPU twin. Inputs: the ``*.mtx.gz`` of ``--data`` and generated R-MAT, Delaunay and
random geometric graphs (Euclidean edge lengths as weights). Writes ``<out>/wmatching/gpu.{json,md}``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._runner import RESULTS, machine_info, md_table, time_call, write_results

OURS = [("suitor", {}), ("suitor-par", {"parallel": True}), ("ld", {}), ("greedy", {})]
REAL = ["graphs/power", "graphs/delaunay_n15", "graphs/rgg_n_2_15_s0", "graphs/ego-Facebook", "graphs/astro-ph",
        "graphs/ego-Twitter", "graphs/amsterdam-roads", "graphs/rome-roads", "graphs/moscow-roads"]
EXACT_MAX_EDGES = 20_000


def weighted(a: sp.sparray, seed: int = 20151) -> sp.csr_array:
    """Symmetric CSR with the file's integer weights, or seeded integers 1..1000 per undirected edge."""
    a = sp.coo_array(a)
    r, c = a.coords
    if a.dtype == np.bool_:
        keep = r < c
        r, c = r[keep], c[keep]
        w = np.random.default_rng(seed).integers(1, 1001, size=len(r)).astype(np.float64)
    else:
        keep = r < c
        r, c, w = r[keep], c[keep], np.asarray(a.data[keep], dtype=np.float64)
    s = sp.coo_array((np.concatenate([w, w]), (np.concatenate([r, c]), np.concatenate([c, r]))), shape=a.shape)
    s = s.tocsr()
    s.sum_duplicates()
    return s


def inputs(quick: bool, data: Path):
    from matchflow import generators, io

    for name in REAL[:5] if quick else REAL:
        yield name.split("/")[1], weighted(io.read(data / f"{name}.mtx.gz"))
    for scale in ([16] if quick else [18, 20]):
        yield f"rmat{scale}", weighted(generators.rmat(scale, 16, seed=1))
    for k in ([16] if quick else [18, 20]):
        yield f"delaunay_2^{k}", weighted(generators.delaunay(2 ** k, seed=1))


def run_networkit(a: sp.csr_array, rec: dict) -> None:
    import networkit as nk

    nk.setNumberOfThreads(1)
    up = sp.triu(a, k=1).tocoo()
    t0 = time.perf_counter()
    G = nk.graph.GraphFromCoo((up.data, (up.coords[0], up.coords[1])), n=a.shape[0], weighted=True)
    rec["nk_build_s"] = time.perf_counter() - t0
    for label, make in [("nk-suitor", lambda: nk.matching.SuitorMatcher(G, False, False)),
                        ("nk-pathgrowing", lambda: nk.matching.PathGrowingMatcher(G))]:
        def go(make=make):
            m = make()
            m.run()
            return m.getMatching()
        t, M, _ = time_call(go, repeat=3, warmup=1, budget_s=20)
        rec["times"][label] = t
        rec["weight"][label] = float(M.weight(G))
        rec["cardinality"][label] = int(M.size(G))
    Gs = nk.graph.GraphFromCoo((up.data, (up.coords[0], up.coords[1])), n=a.shape[0], weighted=True)
    t0 = time.perf_counter()
    nk.graphtools.sortEdgesByWeight(Gs, True)
    sort_s = time.perf_counter() - t0

    def go_sorted():
        m = nk.matching.SuitorMatcher(Gs, True, False)
        m.run()
        return m.getMatching()
    t, M, _ = time_call(go_sorted, repeat=3, warmup=1, budget_s=20)
    rec["times"]["nk-sortsuitor"] = t
    rec["nk_sort_s"] = sort_s
    rec["weight"]["nk-sortsuitor"] = float(M.weight(Gs))


def run_exact(a: sp.csr_array, rec: dict) -> None:
    import rustworkx as rx

    up = sp.triu(a, k=1).tocoo()
    G = rx.PyGraph()
    G.add_nodes_from(range(a.shape[0]))
    G.add_edges_from(list(zip(up.coords[0].tolist(), up.coords[1].tolist(), up.data.astype(np.int64).tolist())))
    t0 = time.perf_counter()
    M = rx.max_weight_matching(G, weight_fn=lambda w: int(w))
    rec["times"]["rx-exact"] = time.perf_counter() - t0
    w = {(min(u, v), max(u, v)): d for u, v, d in zip(up.coords[0].tolist(), up.coords[1].tolist(), up.data.tolist())}
    rec["weight"]["rx-exact"] = float(sum(w[(min(u, v), max(u, v))] for u, v in M))


def first_call_seconds(data: Path) -> float:
    """Our first call in a fresh process (imports excluded; numba's on-disk cache warm), on amsterdam-roads."""
    code = ("import time, matchflow as mf, scipy.sparse as sp; from matchflow import io; "
            f"a = sp.csr_array(io.read({str(data / 'graphs/amsterdam-roads.mtx.gz')!r})).astype(float); "
            "t = time.perf_counter(); mf.weighted_matching(a); print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


GPU_SHAPES = [(tpb, vpw) for tpb in (64, 128, 256) for vpw in (1, 8, 32)]
HUB_ON = 1024  # hub_degree of the "hub" runs: vertices of larger degree scanned by a whole block
GPU_VARIANTS = ("nosync", "synclb", "syncnolb", "hybrid")


def hashed_weights(a: sp.csr_array) -> sp.csr_array:
    """Integer weights 1..1000 per undirected pair from a hash of (min, max) endpoint (O(nnz), symmetric)."""
    a = sp.csr_array(a)
    r = np.repeat(np.arange(a.shape[0], dtype=np.int64), np.diff(a.indptr))
    c = a.indices.astype(np.int64)
    x = np.minimum(r, c) * np.int64(0x9E3779B1) + np.maximum(r, c)
    x ^= x >> 29
    x *= np.int64(0xBF58476D1CE4E5B)
    x ^= x >> 32
    return sp.csr_array(((x % 1000 + 1).astype(np.int64), a.indices, a.indptr), shape=a.shape)


def rgg_lengths(n: int, seed: int = 1) -> sp.csr_array:
    """A random geometric graph with its Euclidean edge lengths as (float) weights."""
    from matchflow import generators as G

    a = G.random_geometric(n, 12.0, seed=seed)
    pts = G._points(n, G._rng(seed), "hilbert")  # the generator's points (same seed, same order)
    r = np.repeat(np.arange(n), np.diff(a.indptr))
    d = np.hypot(*(pts[r] - pts[a.indices]).T)
    return sp.csr_array((d, a.indices, a.indptr), shape=a.shape)


def gpu_inputs(quick: bool, big: bool, data: Path, only_rmat: bool = False):
    from matchflow import generators, io

    yield "rmat16" if quick else "rmat20", hashed_weights(generators.rmat(16 if quick else 20, 16, seed=1))
    if only_rmat:
        return
    if big:
        yield "rmat22", hashed_weights(generators.rmat(22, 16, seed=1))
    if not quick:
        yield "delaunay_2^20", hashed_weights(generators.delaunay(2 ** 20, seed=1))
        yield "rgg_2^21", rgg_lengths(2 ** 21)
    files = sorted(data.glob("*.mtx.gz")) or [data / f"{x}.mtx.gz" for x in REAL]
    for f in files[:3] if quick else files:
        yield f.name.split(".")[0], weighted(io.read(f))


def _median(fn, repeat: int = 3):
    """(median seconds, last result) after one warm-up, without time_call's gc per run (fast GPU calls)."""
    out = fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)), out


def gpu_first_call(a: sp.csr_array, path: Path, cache_dir: Path | None = None) -> float:
    """The public GPU call in a fresh process (imports excluded, JIT or cache loads included); with
    ``cache_dir``, numba's on-disk cache (CPU and GPU kernels) lives there (NUMBA_CACHE_DIR)."""
    import os

    sp.save_npz(path, a)
    code = ("import time, scipy.sparse as sp, matchflow as mf; "
            f"a = sp.csr_array(sp.load_npz({str(path)!r})); t = time.perf_counter(); "
            "mf.weighted_matching(a, method='suitor', backend='gpu'); print(time.perf_counter() - t)")
    env = dict(os.environ, **({"NUMBA_CACHE_DIR": str(cache_dir)} if cache_dir else {}))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return float(out.stdout.strip().splitlines()[-1])


def first_calls(a: sp.csr_array, out: Path) -> dict[str, float]:
    """The first public GPU call of a fresh process with an empty on-disk kernel cache, then warm."""
    import shutil
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="mf-cache-"))
    try:
        empty = gpu_first_call(a, out / "first_call_input.npz", d)
        warm = gpu_first_call(a, out / "first_call_input.npz", d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return {"empty_cache": empty, "warm_cache": warm}


def huge_record(scale: int, nk_edges_per_s: float | None) -> dict:
    """GPU-Suitor on a 10^8-edge R-MAT (``generators.rmat_weighted``), graph on the device: the device form
    with and without the hub pass, 20 repeats equal to the CPU twin, the public call; NetworKit's Suitor
    time extrapolated from its edges/s on R-MAT 20 (results/wmatching/cpu.json)."""
    import matchflow as mf
    from matchflow import generators
    from matchflow.gpu import suitor_matching, weighted_to_device

    t0 = time.perf_counter()
    g = generators.rmat_weighted(scale, 16, seed=1)
    rec = {"input": f"rmat{scale}w", "n": g.shape[0], "edges": g.nnz // 2, "nnz": g.nnz,
           "gen_s": time.perf_counter() - t0, "times": {}, "kernel_s": {}}
    t0 = time.perf_counter()
    cpu = mf.weighted_matching(g, method="suitor", backend="cpu")
    rec["times"]["cpu-suitor"] = time.perf_counter() - t0
    rec["solve_s"] = {"cpu-suitor": cpu.seconds}
    t0 = time.perf_counter()
    dg = weighted_to_device(g)
    rec["h2d_s"] = time.perf_counter() - t0
    for label, hub in (("gpu-nosync", 0), ("gpu-nosync-hub", HUB_ON)):
        t, (mate, st) = _median(lambda hub=hub: suitor_matching(dg, hub_degree=hub))
        rec["times"][label], rec["kernel_s"][label] = t, st["seconds_solve"]
        rec[f"{label}-rounds"] = st["rounds"]
        rec["equal_to_cpu"] = rec.get("equal_to_cpu", True) and bool(np.array_equal(mate, cpu.mate))
    rec["repeat20_identical"] = all(np.array_equal(suitor_matching(dg)[0], cpu.mate) for _ in range(20))
    dg = None
    t, res, _ = time_call(lambda: mf.weighted_matching(g, method="suitor", backend="gpu"), repeat=2)
    rec["times"]["gpu-public"] = t
    rec["public_stages"] = {k: v for k, v in res.stats.items() if k.startswith("seconds_")}
    rec["equal_to_cpu"] &= bool(np.array_equal(res.mate, cpu.mate))
    best = min(rec["kernel_s"].values())
    rec["edges_per_s"] = rec["edges"] / best
    rec["device_edges_per_s"] = rec["edges"] / min(rec["times"]["gpu-nosync"], rec["times"]["gpu-nosync-hub"])
    if nk_edges_per_s:
        rec["nk_suitor_extrapolated_s"] = rec["edges"] / nk_edges_per_s
        rec["nk_over_gpu"] = rec["nk_suitor_extrapolated_s"] / min(rec["times"]["gpu-nosync"],
                                                                   rec["times"]["gpu-nosync-hub"])
    print(rec["input"], rec["edges"], {k: round(v, 5) for k, v in rec["times"].items()}, "equal",
          rec["equal_to_cpu"], "repeat20", rec["repeat20_identical"], f"gen {rec['gen_s']:.1f}s", flush=True)
    return rec


def gpu_main(a: argparse.Namespace) -> int:
    import matchflow as mf
    from matchflow.gpu import locally_dominant_matching as ld_gpu
    from matchflow.gpu import suitor_matching as suitor_gpu
    from matchflow.gpu import weighted_to_device

    records = []
    first_s = None
    for name, g in gpu_inputs(a.quick, a.big, a.data, a.only_rmat):
        t0 = time.perf_counter()
        cpu_t, cpu, _ = time_call(lambda g=g: mf.weighted_matching(g, method="suitor", backend="cpu"), repeat=3)
        rec = {"input": name, "n": g.shape[0], "edges": g.nnz // 2, "nnz": g.nnz, "times": {"cpu-suitor": cpu_t},
               "solve_s": {"cpu-suitor": cpu.seconds}, "weight": {"cpu-suitor": cpu.weight}, "sweep": {},
               "kernel_s": {}}
        t1 = time.perf_counter()
        dg = weighted_to_device(g)
        rec["h2d_s"] = time.perf_counter() - t1
        same = True
        for variant in GPU_VARIANTS:
            for tpb, vpw in GPU_SHAPES:
                opts = {"variant": variant, "block_size": tpb, "vertices_per_warp": vpw}
                t, (mate, st) = _median(lambda o=opts: suitor_gpu(dg, **o))
                same &= bool(np.array_equal(mate, cpu.mate))
                rec["sweep"][f"{variant}/{tpb}/{vpw}"] = {"s": t, "kernel_s": st["seconds_solve"],
                                                          "rounds": st["rounds"], "proposals": st["proposals"]}
            best = rec["sweep"][f"{variant}/128/8"]
            rec["times"][f"gpu-{variant}"] = best["s"]  # the paper's default: 128 threads, 8 vertices per warp
            rec["kernel_s"][f"gpu-{variant}"] = best["kernel_s"]
        t, (mate, st) = _median(lambda dg=dg: suitor_gpu(dg, hub_degree=HUB_ON))
        same &= bool(np.array_equal(mate, cpu.mate))
        rec["times"]["gpu-nosync-hub"], rec["kernel_s"]["gpu-nosync-hub"] = t, st["seconds_solve"]
        rec["hubs_deferred"] = st["hubs_deferred"]
        t, (mate, st) = _median(lambda dg=dg: ld_gpu(dg))
        same &= bool(np.array_equal(mate, cpu.mate))
        rec["times"]["gpu-ld"], rec["kernel_s"]["gpu-ld"], rec["ld_rounds"] = t, st["seconds_solve"], st["rounds"]
        reps = [suitor_gpu(dg)[0] for _ in range(20)]  # lock-free: 20 runs, every one equal to the CPU twin
        rec["repeat20_identical"] = all(np.array_equal(m, cpu.mate) for m in reps)
        t, res, _ = time_call(lambda g=g: mf.weighted_matching(g, method="suitor", backend="gpu"), repeat=3)
        rec["times"]["gpu-public"] = t
        rec["public_stages"] = {k: v for k, v in res.stats.items() if k.startswith("seconds_")}
        rec["weight"]["gpu-public"] = res.weight
        rec["equal_to_cpu"] = same and bool(np.array_equal(res.mate, cpu.mate))
        rec["edges_per_s"] = rec["edges"] / rec["kernel_s"]["gpu-nosync"]
        if first_s is None and a.first_call and g.nnz < 200_000:
            first_s = rec["first_call_s"] = first_calls(g, a.out)
        dg = None  # free the device copy before the next input
        print(name, rec["edges"], {k: round(v, 5) for k, v in rec["times"].items()}, "equal", rec["equal_to_cpu"],
              "repeat20", rec["repeat20_identical"], f"{time.perf_counter() - t0:.1f}s", flush=True)
        records.append(rec)
        jp, md = _gpu_write(a, records, first_s)  # after every input: a time limit loses only the last one
    if a.first_call and first_s is None:  # no small input above: a small Delaunay graph
        from matchflow import generators

        first_s = first_calls(hashed_weights(generators.delaunay(2**13, seed=1)), a.out)
        jp, md = _gpu_write(a, records, first_s)
    if a.huge:
        nk = _nk_suitor_seconds()
        nk_eps = next((r["edges"] / nk[r["input"]] for r in records if r["input"] == "rmat20" and "rmat20" in nk),
                      None)
        records.append(huge_record(a.huge, nk_eps))
        records[-1]["first_call_s"] = first_s  # kept in the JSON for --merge
        jp, md = _gpu_write(a, records, first_s)
    try:
        from .plots import plot_results

        plot_results(jp, baseline="cpu-suitor")
        _sweep_plots(jp)
    except Exception as e:  # matplotlib missing on the device: plot from the JSON elsewhere
        print("no plots:", e)
    print(md)
    return 0


def _nk_suitor_seconds() -> dict[str, float]:
    """NetworKit Suitor run times (graph prebuilt, 1 thread) of the committed CPU run, by input name."""
    import json

    p = RESULTS / "wmatching" / "cpu.json"
    if not p.exists():
        return {}
    return {r["input"]: r["times"]["nk-suitor"] for r in json.loads(p.read_text())["records"]}


def _sweep_plots(jp: Path) -> None:
    """The paper's Figure 4 from the sweep: performance profiles of the four variants (each at its best
    threads-per-block x vertices-per-warp) and of the nine tpb/vpw shapes of NoSync."""
    import json

    from .plots import plot_results

    doc = json.loads(jp.read_text())
    for stem, pick in (("variants", lambda k: k.split("/")[0]), ("nosync_shapes", lambda k: k if k.startswith("nosync/")
                                                                   else None)):
        recs = []
        for r in (r for r in doc["records"] if "sweep" in r):
            t: dict[str, float] = {}
            for k, v in r["sweep"].items():
                lab = pick(k)
                if lab is not None:
                    t[lab] = min(t.get(lab, np.inf), v["s"])
            recs.append({"input": r["input"], "nnz": r["nnz"], "times": t})
        out = jp.with_name(f"{jp.stem}_{stem}.json")
        out.write_text(json.dumps({"meta": {"solvers": list(recs[0]["times"]) if recs else []}, "records": recs}))
        plot_results(out)


def _stages(r: dict) -> str:
    st = r.get("public_stages", {})
    keys = ("convert", "h2d", "keys", "solve", "weight")
    return " / ".join(f"{st[f'seconds_{k}'] * 1e3:.1f}" for k in keys if f"seconds_{k}" in st)


def _gpu_write(a: argparse.Namespace, records: list[dict], first_s: dict | float | None,
               meta: dict | None = None) -> tuple[Path, str]:
    meta = meta or machine_info()
    nk = _nk_suitor_seconds()
    meta.update(baseline="cpu-suitor", solvers=["cpu-suitor", "gpu-nosync", "gpu-nosync-hub", "gpu-synclb",
                                                 "gpu-syncnolb", "gpu-hybrid", "gpu-ld", "gpu-public"],
                note="GPU device form: graph on the GPU, solve + mate back; public: whole call from a host CSR")
    regular = [r for r in records if "sweep" in r]
    rows = [[r["input"], r["edges"], r["times"]["cpu-suitor"], r["solve_s"]["cpu-suitor"], r["h2d_s"],
             r["times"]["gpu-nosync"], r["kernel_s"]["gpu-nosync"], r["edges_per_s"] / 1e9,
             r["times"].get("gpu-nosync-hub"), r["times"]["gpu-synclb"], r["times"]["gpu-syncnolb"],
             r["times"]["gpu-hybrid"], min(v["s"] for v in r["sweep"].values()),
             min(r["sweep"], key=lambda k, r=r: r["sweep"][k]["s"]), r["times"]["gpu-ld"], r["times"]["gpu-public"],
             _stages(r), r["solve_s"]["cpu-suitor"] / r["kernel_s"]["gpu-nosync"], nk.get(r["input"]),
             nk[r["input"]] / r["times"]["gpu-nosync"] if r["input"] in nk else None,
             r["equal_to_cpu"] and r["repeat20_identical"]]
            for r in regular]
    if isinstance(first_s, dict):
        first = (f"First public call in a fresh process (JIT/cache loads included): {first_s['empty_cache']:.3f} s "
                 f"with an empty on-disk kernel cache, {first_s['warm_cache']:.3f} s with a warm one.")
    else:
        first = f"First call in a fresh process: {first_s} s."
    md = ("Seconds, median of 3. cpu = our whole CPU call from scipy.sparse (solve: the kernel alone, numba "
          "threads of this machine); h2d = weighted_to_device once (host check, copy, keys on the device); GPU "
          "columns = the device form (graph already on the GPU: solve + mate back) at 128 threads per block and 8 "
          f"vertices per warp; kernel = the rounds alone; hub = nosync with hub_degree={HUB_ON} (vertices of "
          "larger degree scanned by a whole block); best = fastest of variant x tpb {64,128,256} x vpw {1,8,32} "
          "(which); public = weighted_matching(csr, backend='gpu') from host arrays, its stages in ms (convert / "
          "h2d / keys+check on the device / solve+d2h / weight). same = every GPU run (all configurations, 20 "
          f"repeats) equal to the CPU twin. {first} nk suitor = NetworKit's Suitor run (graph prebuilt, 1 "
          "thread) from results/wmatching/cpu.md (the 2-core machine, same graph, other random weights); nk/gpu = "
          "that / our device form.\n\n"
          + md_table(["input", "edges", "cpu", "cpu solve", "h2d", "nosync", "kernel", "Gedges/s", "hub", "synclb",
                      "syncnolb", "hybrid", "best", "best cfg", "gpu-ld", "public", "public stages ms",
                      "cpu solve/kernel", "nk suitor", "nk/gpu", "same"], rows))
    huge = [r for r in records if "sweep" not in r]
    r20 = next((r for r in regular if r["input"] == "rmat20"), None)
    for r in huge:  # NetworKit extrapolated from its edges/s on rmat20 (the committed CPU run)
        if r.get("nk_suitor_extrapolated_s") is None and r20 is not None and "rmat20" in nk:
            r["nk_suitor_extrapolated_s"] = r["edges"] / (r20["edges"] / nk["rmat20"])
            r["nk_over_gpu"] = r["nk_suitor_extrapolated_s"] / min(r["times"]["gpu-nosync"],
                                                                   r["times"]["gpu-nosync-hub"])
    if huge:
        hrows = [[r["input"], r["edges"], r["gen_s"], r["times"]["cpu-suitor"], r["solve_s"]["cpu-suitor"], r["h2d_s"],
                  r["times"]["gpu-nosync"], r["kernel_s"]["gpu-nosync"], r["times"]["gpu-nosync-hub"],
                  r["kernel_s"]["gpu-nosync-hub"], r["edges_per_s"] / 1e9, r["times"]["gpu-public"], _stages(r),
                  r.get("nk_suitor_extrapolated_s"), r.get("nk_over_gpu"),
                  r["equal_to_cpu"] and r["repeat20_identical"]] for r in huge]
        md += ("\n\nGraphs of 10^8+ edges (generators.rmat_weighted, integer weights 1..2^20): gen = the generator; "
               "device form nosync without / with the hub pass; Gedges/s = edges / the faster kernel time; nk suitor "
               "= NetworKit's Suitor EXTRAPOLATED from its edges/s on rmat20 in results/wmatching/cpu.json (not run "
               "here); nk/gpu = that / our faster device form.\n\n"
               + md_table(["input", "edges", "gen", "cpu", "cpu solve", "h2d", "nosync", "kernel", "hub",
                           "hub kernel", "Gedges/s", "public", "public stages ms", "nk suitor (extrap.)", "nk/gpu",
                           "same"], hrows))
    name = getattr(a, "name", None) or ("gpu" if not a.quick else "gpu_quick")
    jp, _ = write_results("wmatching", name, meta, records, md, a.out)
    return jp, md


def public_stages(scales: list[int]) -> dict:
    """The public GPU call's stages (median of 3) on generators.rmat_weighted graphs, int32 weights as
    generated and (below scale 22) the same graph with int64 weights."""
    import json

    import matchflow as mf
    from matchflow import generators

    out = {}
    for scale in scales:
        a = generators.rmat_weighted(scale, 16, seed=1)
        for label, g in ((f"rmat{scale}w-int32", a), (f"rmat{scale}w-int64", a.astype(np.int64)))[:1 if scale > 21
                                                                                                    else 2]:
            ts = []
            for _ in range(3):
                t0 = time.perf_counter()
                r = mf.weighted_matching(g, method="suitor", backend="gpu")
                ts.append(time.perf_counter() - t0)
            out[label] = {"edges": g.nnz // 2, "public_s": sorted(ts)[1],
                          "stages": {k: v for k, v in r.stats.items() if k.startswith("seconds_")}}
            print(label, json.dumps(out[label]), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    import matchflow as mf

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--gpu", action="store_true", help="the GPU benchmark (run on the device)")
    ap.add_argument("--big", action="store_true", help="--gpu: also R-MAT 22")
    ap.add_argument("--huge", type=int, default=0, metavar="SCALE",
                    help="--gpu: also generators.rmat_weighted(SCALE) (23: 1.2e8 edges), device form + public")
    ap.add_argument("--only-rmat", action="store_true", help="--gpu: R-MAT 20 as the only regular input")
    ap.add_argument("--no-first-call", dest="first_call", action="store_false", help="--gpu: skip the fresh process")
    ap.add_argument("--merge", nargs="+", metavar="JSON", help="merge --gpu result files into <out>/wmatching/NAME")
    ap.add_argument("--name", default=None, help="--gpu/--merge: result file stem (default gpu)")
    ap.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--public-stages", type=int, nargs="+", metavar="SCALE",
                    help="only the public GPU call's stages on rmat_weighted(SCALE) graphs (JSON to stdout)")
    a = ap.parse_args(argv)
    if a.public_stages:
        public_stages(a.public_stages)
        return 0
    if a.merge:  # device result files -> one (meta of the first; an input measured twice: the first file's)
        import json

        docs = [json.loads(Path(f).read_text()) for f in a.merge]
        records, seen = [], set()
        for d in docs:
            for r in d["records"]:
                if r["input"] not in seen:
                    seen.add(r["input"])
                    records.append(r)
        first = next((r["first_call_s"] for r in records if "first_call_s" in r), None)
        records = [r for r in records if "sweep" in r] + [r for r in records if "sweep" not in r]
        jp, md = _gpu_write(a, records, first, meta=docs[0]["meta"])
        from .plots import plot_results

        plot_results(jp, baseline="cpu-suitor")
        _sweep_plots(jp)
        print(md)
        return 0
    if a.gpu:
        return gpu_main(a)
    records = []
    for name, g in inputs(a.quick, a.data):
        rec = {"input": name, "n": g.shape[0], "edges": g.nnz // 2, "nnz": g.nnz, "times": {}, "solve_s": {},
               "weight": {}, "cardinality": {}}
        for label, opts in OURS:
            t, res, _ = time_call(lambda opts=opts, label=label: mf.weighted_matching(
                g, method=label.split("-")[0], backend="cpu", **opts), repeat=3, warmup=1)
            rec["times"][label] = t
            rec["solve_s"][label] = res.seconds
            rec["weight"][label] = res.weight
            rec["cardinality"][label] = res.cardinality
        rep = mf.verify.verify_weighted_matching(g, res)
        rec["certified"] = bool(rep)
        rec["upper_bound"] = rep.upper_bound
        run_networkit(g, rec)
        if rec["edges"] <= EXACT_MAX_EDGES:
            run_exact(g, rec)
        print(name, rec["edges"], {k: round(v, 4) for k, v in rec["times"].items()}, flush=True)
        records.append(rec)
    meta = machine_info()
    meta.update(baseline="nk-suitor", solvers=[x for x, _ in OURS] + ["nk-suitor", "nk-sortsuitor", "nk-pathgrowing"],
                note="2-core machine shared with other jobs; NetworKit with 1 thread; ours with numba's threads")
    import networkit
    import rustworkx

    meta["versions"].update(networkit=networkit.__version__, rustworkx=rustworkx.__version__)
    meta["first_call_s_amsterdam"] = first_call_seconds(a.data)
    rows = []
    for r in records:
        t, w = r["times"], r["weight"]
        exact = w.get("rx-exact")
        rows.append([r["input"], r["edges"], t["suitor"], r["solve_s"]["suitor"], t["suitor-par"],
                     r["solve_s"]["suitor-par"], t["ld"], t["greedy"],
                     r["nk_build_s"], t["nk-suitor"], t["nk-suitor"] / t["suitor"],
                     (r["nk_build_s"] + t["nk-suitor"]) / t["suitor"], w["suitor"] / w["nk-suitor"],
                     w["suitor"] / r["upper_bound"], None if exact is None else w["suitor"] / exact,
                     w["nk-pathgrowing"] / w["suitor"]])
    md = ("Times in seconds (median of 3). ours = whole call from scipy.sparse CSR; solve = the kernel alone. "
          "par solve = the round-parallel Suitor's solve on the machine's cores (NUMBA_NUM_THREADS). "
          "ratio nk/ours = NetworKit Suitor run (graph prebuilt) / our whole call; build+run = with its graph "
          "build. w/nk = our weight / NetworKit Suitor's; w/bound = our weight / the certificate's upper bound; "
          "w/exact = / rustworkx's exact optimum (small graphs only). "
          f"First call in a fresh process (amsterdam-roads, cached kernels): {meta['first_call_s_amsterdam']:.3f} s. "
          "Machine shared with other jobs (2 cores).\n\n"
          + md_table(["input", "edges", "ours suitor", "solve", "suitor par", "par solve", "ld", "greedy", "nk build",
                      "nk suitor",
                      "nk/ours", "nk build+run/ours", "w/nk", "w/bound", "w/exact", "pathgrowing w/ours"], rows))
    jp, _ = write_results("wmatching", "cpu" if not a.quick else "cpu_quick", meta, records, md, a.out)
    from .plots import plot_results

    plot_results(jp, baseline="nk-suitor")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
