"""Grid cuts, large inputs and batches: the GPU push-relabel (``grid_cut(..., backend="gpu")``) against our
CPU path and PyMaxflow's Boykov-Kolmogorov, on the same generated inputs (issue 11's protocol).

    python -m benchmarks.bench_grid_gpu --gpu [--out DIR] [--reps 20] [--only NAME,...]   # on the device
    python -m benchmarks.bench_grid_gpu --cpu [--out DIR] [--only NAME,...]               # ours + BK, a CPU host
    python -m benchmarks.bench_grid_gpu --merge GPU.json CPU.json [--out DIR]             # table + speed-up chart

Inputs (deterministic): the two target inputs of the issue (random 1000² 4-connected, int64; an image-like
512² segmentation), 2-D segmentations of ``matchflow.generators.blobs`` images at 4 MP (2048²) and 16 MP
(4096²), 3-D volumes of 200³ = 8 M voxels (6- and 26-connected), and a batch of 256 images of 64².
Energies: Gaussian unaries (``unary_from_intensity``) and the contrast-sensitive Potts term
(``potts_weights``), scaled by 100 and rounded to int32 (every peer takes integers).

GPU (``--gpu``): ``--reps`` runs of the public call from host arrays per input with the default
``layout`` (``--other-reps`` with the other one; fewer only where they do not fit ``--budget`` seconds;
the count is recorded), every run certified on the device
(``stats["certified"] == "device"``: the residuals are a preflow of the input and the labels' cut equals
the flow value) and equal in flow value; the labels' energy recomputed on the host (``grid_energy``) for the
first run; data already on the device (CuPy in, labels left there); the first call in a fresh process
(empty kernel cache, and warm); per input a few variants (the tiled layout with the level BFS, the
linear layout with the tiled BFS, ``tile_passes``, a 32 x 4 x 2 tile on volumes), best of 3.
CPU (``--cpu``): our ``grid_cut(backend="cpu")`` (build + solve) and PyMaxflow (build + solve), once.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks._runner import REPO, geomean, machine_info, md_table, write_results

TARGETS = ("random 1000x1000 4-conn", "image-like 512x512 4-conn")


def _segmentation(img: np.ndarray, conn: int, lam: float = 2.0, sigma: float = 0.3):
    from matchflow.flow import potts_weights, unary_from_intensity

    src, snk = unary_from_intensity(img, 1.0, 0.0, sigma=sigma)
    w = potts_weights(img, connectivity=conn, lam=lam)
    return tuple(np.rint(a * 100).astype(np.int32) for a in (src, snk, w))


def _random(shape, conn, seed):
    from matchflow.flow import offsets

    rng = np.random.default_rng(seed)
    k = len(offsets(len(shape), conn))
    return rng.integers(0, 100, shape), rng.integers(0, 100, shape), rng.integers(0, 50, (k,) + shape)


def _image_like(shape, seed, conn):
    from benchmarks.bench_flow import image_like

    return image_like(shape, seed, conn)


def _batch(b, side, conn, seed):
    from matchflow.generators import blobs

    parts = [_segmentation(blobs((side, side), n_blobs=3, seed=seed + i), conn) for i in range(b)]
    return tuple(np.stack([p[j] for p in parts]) for j in range(3))


REAL_IMAGES = ("camera", "astronaut", "motorcycle")


def _grey(name: str) -> np.ndarray:
    """A scikit-image bundled photograph, grey in [0, 1]; without scikit-image (the GPU machine) the same image
    saved by ``--save-images`` under ``$MATCHFLOW_DATA/images/<name>.npy``."""
    try:
        import skimage.data as skdata
        from skimage.color import rgb2gray
    except ImportError:
        return np.load(Path(os.environ.get("MATCHFLOW_DATA", REPO.parent / "shared" / "data")) / "images" / f"{name}.npy")
    img = {"camera": skdata.camera, "astronaut": skdata.astronaut,
           "motorcycle": lambda: skdata.stereo_motorcycle()[0]}[name]()
    return np.asarray(rgb2gray(img) if img.ndim == 3 else img / 255.0, dtype=np.float32)  # = the saved copy


def _upscale(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Bilinear upscaling in NumPy (no scikit-image needed)."""
    ys, xs = (np.linspace(0, n - 1, m) for n, m in zip(img.shape, size))
    y0, x0 = np.minimum(ys.astype(int), img.shape[0] - 2), np.minimum(xs.astype(int), img.shape[1] - 2)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    a, b = img[y0][:, x0], img[y0][:, x0 + 1]
    c, d = img[y0 + 1][:, x0], img[y0 + 1][:, x0 + 1]
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy


def _real(name: str, conn: int, size: tuple[int, int] | None = None):
    """A real photograph (``_grey``), upscaled to ``size`` when given, as a foreground / background
    segmentation (bright = foreground)."""
    img = np.asarray(_grey(name), dtype=np.float64)
    return _segmentation(_upscale(img, size) if size is not None else img, conn)


def _real_cases():
    """The issue's real images (scikit-image's bundled ones, or their saved copies; skipped when neither)."""
    try:
        import skimage  # noqa: F401
    except ImportError:
        folder = Path(os.environ.get("MATCHFLOW_DATA", REPO.parent / "shared" / "data")) / "images"
        if not all((folder / f"{n}.npy").exists() for n in REAL_IMAGES):
            return []
    return [
        ("camera 512x512 4-conn (real)", lambda: _real("camera", 4), 4),
        ("astronaut 512x512 8-conn (real)", lambda: _real("astronaut", 8), 8),
        ("motorcycle 500x741 4-conn (real, stereo left)", lambda: _real("motorcycle", 4), 4),
        ("camera upscaled 2048x2048 8-conn (4 MP, real)", lambda: _real("camera", 8, (2048, 2048)), 8),
        ("astronaut upscaled 4096x4096 4-conn (16 MP, real)", lambda: _real("astronaut", 4, (4096, 4096)), 4),
    ]


def cases():
    from matchflow.generators import blobs

    return _real_cases() + [
        ("random 1000x1000 4-conn", lambda: _random((1000, 1000), 4, 7), 4),
        ("image-like 512x512 4-conn", lambda: _image_like((512, 512), 3, 4), 4),
        ("image-like 512x512 8-conn", lambda: _image_like((512, 512), 3, 8), 8),
        ("batch 256 x 64x64 8-conn", lambda: _batch(256, 64, 8, 100), 8),
        ("blobs 2048x2048 4-conn (4 MP)", lambda: _segmentation(blobs((2048, 2048), seed=1), 4), 4),
        ("blobs 2048x2048 8-conn (4 MP)", lambda: _segmentation(blobs((2048, 2048), seed=1), 8), 8),
        ("blobs 4096x4096 4-conn (16 MP)", lambda: _segmentation(blobs((4096, 4096), seed=2), 4), 4),
        ("blobs 200^3 6-conn (8 M voxels)", lambda: _segmentation(blobs((200, 200, 200), seed=3), 6), 6),
        ("blobs 200^3 26-conn (8 M voxels)", lambda: _segmentation(blobs((200, 200, 200), seed=3), 26), 26),
    ]


def _wanted(name, only):
    return not only or any(o in name for o in only)


def _fresh(code: str, env_extra: dict) -> float:
    env = dict(os.environ, **env_extra)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=240)
    if out.returncode:
        print(out.stderr[-2000:], flush=True)
        return float("nan")
    return float(out.stdout.strip().splitlines()[-1])


def _variants(ndim):
    """Per-input variants, best of 3: the halves of the tiled layout alone, tile passes, a 3-D tile."""
    v = {"tiled, levels BFS": {"layout": "tiled", "bfs": "levels"},
         "linear, tiled BFS": {"layout": "linear", "bfs": "tiles"}}
    if ndim == 2:
        v.update({"tiled, tile_passes=1": {"layout": "tiled", "tile_passes": 1},
                  "tiled, tile_passes=32": {"layout": "tiled", "tile_passes": 32}})
    else:
        v.update({"tiled, tile 2x4x32": {"layout": "tiled", "tile": (2, 4, 32)}})
    return v


def _timed(src, snk, edg, conn, opts, reps, budget, cupy, dev_reps):
    """``reps`` public calls from host arrays (at least 3, then within ``budget`` s) and ``dev_reps`` with CuPy
    inputs; returns (host times, device times, flow values seen, certified runs, last result)."""
    from matchflow import grid_cut

    host, dev, vals, certified = [], [], set(), 0
    t_in = time.perf_counter()
    r = None
    for i in range(reps):
        if i >= 3 and time.perf_counter() - t_in > budget:
            break
        t0 = time.perf_counter()
        r = grid_cut(src, snk, edg, connectivity=conn, backend="gpu", **opts)
        host.append(time.perf_counter() - t0)
        vals.add(json.dumps(np.asarray(r.flow_value).tolist()))
        certified += r.stats.get("certified") == "device"
    if cupy is not None:
        d_in = [cupy.asarray(a) for a in (src, snk, edg)]
        for _ in range(min(dev_reps, len(host))):
            cupy.cuda.Device().synchronize()
            t0 = time.perf_counter()
            rd = grid_cut(*d_in, connectivity=conn, backend="gpu", **opts)
            cupy.cuda.Device().synchronize()
            dev.append(time.perf_counter() - t0)
            vals.add(json.dumps(np.asarray(rd.flow_value).tolist()))
            certified += rd.stats.get("certified") == "device"
        del d_in
    return host, dev, vals, certified, r


STAT_KEYS = ("loop", "layout", "bfs", "tile", "tiles", "rounds", "global_relabels", "bfs_levels", "bfs_sweeps",
             "grid_syncs", "pushes", "relabels", "kernel_launches", "host_syncs", "grid_size", "block_size", "cycle",
             "tile_passes", "seconds_h2d", "seconds_start", "seconds_solve", "seconds_finish")


def main_gpu(args) -> int:
    from numba import cuda

    from matchflow import grid_cut
    from matchflow.flow import grid_energy

    def default_layout(ndim: int) -> str:  # what grid_cut picks without options, read from a tiny solve
        z = np.ones((2,) * ndim, dtype=np.int32)
        return grid_cut(z, z, np.ones((2 * ndim,) + z.shape, np.int32), connectivity=2 * ndim,
                        backend="gpu").stats["layout"]

    LAYOUT = {2: default_layout(2), 3: default_layout(3)}

    name_ = getattr(cuda.get_current_device(), "name", "simulator")
    gpu_name = name_.decode() if isinstance(name_, bytes) else name_
    tag = "h200" if "H200" in gpu_name else ("h100" if "H100" in gpu_name else "gpu")
    try:
        import cupy
    except Exception:
        cupy = None
    only = [o for o in args.only.split(",") if o]
    records = []
    t_all = time.perf_counter()
    import datetime

    meta = machine_info()
    meta.update({"benchmark": "bench_grid_gpu --gpu", "gpu": gpu_name, "reps": args.reps, "budget_s": args.budget,
                 "default_layout": "2-D: " + LAYOUT[2] + ", 3-D: " + LAYOUT[3], "other_reps": args.other_reps})
    stem = f"gpu-{tag}-{datetime.date.today().isoformat()}{args.suffix}"
    out = Path(args.out) if args.out else None
    jp = mp = None
    for name, make, conn in cases():
        if not _wanted(name, only):
            continue
        try:
            t0 = time.perf_counter()
            src, snk, edg = make()
            gen = time.perf_counter() - t0
            ndim = 2 if conn in (4, 8) else 3
            lay0, other = LAYOUT[ndim], "linear" if LAYOUT[ndim] == "tiled" else "tiled"
            res = {}
            for lay, reps, dreps in ((lay0, args.reps, 5), (other, args.other_reps, 3)):
                from matchflow import grid_cut

                grid_cut(src, snk, edg, connectivity=conn, backend="gpu", layout=lay)  # warm-up (compile)
                res[lay] = _timed(src, snk, edg, conn, {"layout": lay}, reps, args.budget, cupy, dreps)
            host, dev, vals, certified, r = res[lay0]
            ohost, odev, ovals, ocert, orr = res[other]
            energy = grid_energy(r.labels, src, snk, edg, connectivity=conn)
            value = np.asarray(r.flow_value).tolist()
            rec = {"input": name, "points": int(src.size), "connectivity": conn, "generate_seconds": gen,
                   "flow_value": value if np.ndim(value) == 0 else int(np.sum(value)),
                   "values_agree": len(vals | ovals) == 1 and np.array_equal(np.asarray(energy),
                                                                             np.asarray(r.flow_value)),
                   "runs": len(host) + len(dev) + len(ohost) + len(odev), "certified_runs": certified + ocert,
                   "gpu_host_best": min(host), "gpu_host_median": float(np.median(host)),
                   "gpu_device_best": min(dev) if dev else None,
                   "stats": {k: r.stats.get(k) for k in STAT_KEYS}, "layout": lay0, "other_layout": other,
                   "other": {"host_best": min(ohost), "host_median": float(np.median(ohost)),
                           "device_best": min(odev) if odev else None,
                           "stats": {k: orr.stats.get(k) for k in STAT_KEYS}}}
            rec["variants"] = {}
            for vname, opts in _variants(ndim).items():
                ts = []
                for _ in range(3):
                    t0 = time.perf_counter()
                    rr = grid_cut(src, snk, edg, connectivity=conn, backend="gpu", **opts)
                    ts.append(time.perf_counter() - t0)
                    assert np.array_equal(rr.flow_value, r.flow_value) and rr.stats["certified"] == "device"
                rec["variants"][vname] = {"best": min(ts), "rounds": rr.stats["rounds"],
                                          "grid_syncs": rr.stats.get("grid_syncs")}
            if name == TARGETS[0] and not args.no_fresh:
                code = ("import time; t0 = time.perf_counter(); import numpy as np; import matchflow; "
                        "rng = np.random.default_rng(7); s = rng.integers(0, 100, (1000, 1000)); "
                        "t = rng.integers(0, 100, (1000, 1000)); e = rng.integers(0, 50, (4, 1000, 1000)); "
                        "t0 = time.perf_counter() - t0; t1 = time.perf_counter(); "
                        "matchflow.grid_cut(s, t, e, connectivity=4, backend='gpu'); print(time.perf_counter() - t1)")
                rec["first_call_cold_cache"] = _fresh(code, {"MATCHFLOW_CUDA_CACHE": "0"})
                rec["first_call_warm_cache"] = _fresh(code, {})
            records.append(rec)
            print("RECORD", json.dumps(rec, default=str), flush=True)
            del src, snk, edg, r, res
        except Exception:
            import traceback

            print("FAILED", name, flush=True)
            traceback.print_exc()
        meta.update({"wall_seconds": time.perf_counter() - t_all})
        jp, mp = write_results("flow", stem, meta, records, gpu_markdown(meta, records, None), out)  # after each
    print(jp, mp)
    return 0


def main_cpu(args) -> int:
    from benchmarks.bench_flow import run_grid_bk
    from matchflow import grid_cut
    from matchflow.flow import grid_energy

    only = [o for o in args.only.split(",") if o]
    records = []
    for shape, conn in (((3, 3), 4), ((3, 3), 8), ((2, 2, 2), 6), ((2, 2, 2), 26), ((2, 3, 3), 8)):
        grid_cut(np.ones(shape, np.int32), np.ones(shape, np.int32), np.int32(1), connectivity=conn)  # compile
    for name, make, conn in cases():
        if not _wanted(name, only):
            continue
        src, snk, edg = make()
        rec = {"input": name, "points": int(src.size), "connectivity": conn}
        t0 = time.perf_counter()
        r = grid_cut(src, snk, edg, connectivity=conn, backend="cpu")
        rec["ours_total"] = time.perf_counter() - t0
        rec["ours_build"], rec["ours_solve"] = r.stats.get("seconds_build"), r.stats.get("seconds_solve")
        value = np.asarray(r.flow_value)
        rec["flow_value"] = int(value.sum())
        rec["ours_certified"] = bool(np.array_equal(grid_energy(r.labels, src, snk, edg, connectivity=conn), value))
        del r
        if src.ndim == (2 if conn in (4, 8) else 3):  # PyMaxflow: one grid (no batch)
            try:
                v, d = run_grid_bk(src, snk, edg, conn)
                rec.update({"bk_build": d["build"], "bk_solve": d["solve"], "bk_total": d["total"],
                            "bk_agrees": int(v) == rec["flow_value"]})
            except Exception as exc:  # noqa: BLE001 - memory on the largest volumes
                rec["bk_error"] = repr(exc)[:200]
        records.append(rec)
        print("RECORD", json.dumps(rec, default=str), flush=True)
        del src, snk, edg
    meta = machine_info()
    meta.update({"benchmark": "bench_grid_gpu --cpu"})
    import datetime

    jp, mp = write_results("flow", f"cpu-grids-{datetime.date.today().isoformat()}{args.suffix}", meta, records,
                           "# Grid cuts on the CPU: ours vs PyMaxflow (BK), build + solve, one run\n\n"
                           + md_table(["input", "points", "ours build", "ours solve", "ours total", "BK build",
                                       "BK solve", "BK total", "flow value", "agree"],
                                      [[r["input"], r["points"], r["ours_build"], r["ours_solve"], r["ours_total"],
                                        r.get("bk_build"), r.get("bk_solve"), r.get("bk_total"), r["flow_value"],
                                        r.get("bk_agrees", "-")] for r in records]) + "\n",
                           Path(args.out) if args.out else None)
    print(jp, mp)
    return 0


def gpu_markdown(meta: dict, records: list, cpu: dict | None) -> str:
    gpu = meta.get("gpu", "GPU")
    head = (f"# Grid cuts on the GPU ({gpu}): the default layout ({meta.get('default_layout')}) vs the other, "
            "large inputs, batches\n\n"
            f"{meta.get('reps')} runs per input of the public call from host arrays with the default layout "
            f"(fewer where they did not fit {meta.get('budget_s')} s) and {meta.get('other_reps')} with the other, "
            "plus runs with CuPy inputs ('device data', labels left on the device); column 'runs' counts them all. "
            "Every run certified on the device (the residuals are a preflow of the input and the labels cut exactly "
            "the flow value) and equal in flow value across runs and layouts; the labels' energy recomputed on the "
            "host for one run. 'syncs': grid syncs of the persistent kernel (the linear layout's level-synchronous BFS "
            "pays one per BFS level, the tiled BFS one per sweep over the tiles); 'solve': the persistent kernel "
            "alone (stats seconds_solve). CPU columns: our grid_cut and PyMaxflow's BK (build + solve) on the CPU "
            "host named below, same inputs.\n\n")
    hdr = ["input", "points", "flow value", "agree", "runs (certified)", "layout", "host best (s)", "median (s)",
           "device data (s)", "solve (s)", "other: host best (s)", "other: device data (s)", "other: solve (s)",
           "other / default", "rounds", "syncs (other)", "syncs", "CPU ours (s)", "BK (s)", "vs ours", "vs BK",
           "vs BK solve"]
    rows = []
    for r in records:
        c = (cpu or {}).get(r["input"], {})
        g = r["gpu_host_best"]
        o = r.get("other", {})
        ours, bk, bks = c.get("ours_total"), c.get("bk_total"), c.get("bk_solve")
        gs = (r["stats"].get("seconds_solve") or g)
        rows.append([r["input"], r["points"], r["flow_value"], "yes" if r["values_agree"] else "NO",
                     f"{r['runs']} ({r['certified_runs']})", r.get("layout"), g, r["gpu_host_median"],
                     r["gpu_device_best"], r["stats"].get("seconds_solve"), o.get("host_best"), o.get("device_best"),
                     o.get("stats", {}).get("seconds_solve"),
                     f"{o['host_best'] / g:.2f}x" if o.get("host_best") else "-", r["stats"].get("rounds"),
                     o.get("stats", {}).get("grid_syncs"), r["stats"].get("grid_syncs"), ours, bk,
                     f"{ours / g:.1f}x" if ours else "-", f"{bk / g:.1f}x" if bk else "-",
                     f"{bks / gs:.1f}x" if bks else "-"])
    md = head + md_table(hdr, rows) + "\n"
    vs = [r for r in records if r.get("variants")]
    if vs:
        keys = list(dict.fromkeys(k for r in vs for k in r["variants"]))
        md += ("\n## Variants, host arrays, best of 3 (s) [rounds / grid syncs]\n\n"
               + md_table(["input", "default"] + keys,
                          [[r["input"], f"{r['gpu_host_best']:.4g} ({r.get('layout')}) [{r['stats'].get('rounds')} / "
                                        f"{r['stats'].get('grid_syncs')}]"]
                           + [f"{r['variants'][k]['best']:.4g} [{r['variants'][k]['rounds']} / "
                              f"{r['variants'][k]['grid_syncs']}]" if k in r["variants"] else "-" for k in keys]
                           for r in vs]) + "\n")
    fc = [r for r in records if "first_call_cold_cache" in r]
    for r in fc:
        md += (f"\nFirst call in a fresh process ({r['input']}, the grid_cut call alone after import and input "
               f"generation): empty kernel cache {r['first_call_cold_cache']:.3g} s, warm cache "
               f"{r['first_call_warm_cache']:.3g} s.\n")
    if cpu:
        sp = [(r["gpu_host_best"], cpu[r["input"]]) for r in records if r["input"] in cpu]
        o = [c["ours_total"] / g for g, c in sp if c.get("ours_total")]
        b = [c["bk_total"] / g for g, c in sp if c.get("bk_total")]
        md += (f"\nGeometric-mean speed-up of the GPU (host arrays, end to end): {geomean(o):.1f}x over our CPU path, "
               f"{geomean(b):.1f}x over BK ({len(b)} inputs).\n")
    return md


def merge(args) -> int:
    gj, cj = (json.loads(Path(p).read_text()) for p in args.merge)
    cpu = {r["input"]: r for r in cj["records"]}
    meta = dict(gj["meta"])
    meta["cpu_host"] = cj["meta"].get("cpu", cj["meta"].get("machine"))
    md = gpu_markdown(meta, gj["records"], cpu)
    md += (f"\nCPU columns measured on: {cj['meta'].get('cpu')} ({cj['meta'].get('cpu_cores')} cores), "
           f"{cj['meta'].get('date')}, one run each (a development host shared with other jobs: slower and noisier "
           "than the quiet runs of results/flow/cpu.md, which give the CPU-vs-BK ratios).\n")
    if meta.get("note"):
        md += f"\nGPU runs: {meta['note']}.\n"
    out = Path(args.out) if args.out else None
    stem = Path(args.merge[0]).stem
    write_results("flow", stem, meta, gj["records"], md, out)
    _chart(gj["records"], cpu, (out or REPO / "results") / "flow" / f"{stem}-speedup.png", meta.get("gpu", "GPU"))
    _layout_chart(gj["records"], (out or REPO / "results") / "flow" / f"{stem}-layouts.png", meta.get("gpu", "GPU"))
    print(md)
    return 0


def _bars(rows, labels, xlabel, title, path, guides=(1,)):
    """Horizontal paired bars per input (log x): ``rows`` = (input, first value, second value)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(rows) + 1.5))
    ax.barh(y - 0.2, [r[1] for r in rows], 0.4, label=labels[0])
    ax.barh(y + 0.2, [r[2] for r in rows], 0.4, label=labels[1])
    ax.set_yticks(y, [r[0] for r in rows])
    ax.set_xscale("log")
    for k, g in enumerate(guides):
        ax.axvline(g, color="k" if k == 0 else "grey", lw=0.8, ls="-" if k == 0 else "--")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.invert_yaxis()
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _chart(records, cpu, path, gpu):
    rows = [(r["input"], cpu[r["input"]].get("ours_total", np.nan) / r["gpu_host_best"],
             cpu[r["input"]].get("bk_total", np.nan) / r["gpu_host_best"]) for r in records if r["input"] in cpu]
    if rows:
        _bars(rows, ("over our CPU grid_cut", "over PyMaxflow BK"),
              "speed-up of grid_cut(backend='gpu'), end to end from host arrays",
              f"Grid cuts: {gpu} vs the CPU (build + solve)", path, guides=(1, 10))


def _layout_chart(records, path, gpu):
    """Tiled over linear layout, per input: end to end from host arrays and the solve alone (> 1: tiled faster)."""
    rows = []
    for r in records:
        o = r.get("other")
        if not o:
            continue
        t, lin = (r, o) if r.get("layout") == "tiled" else (o, r)
        tb, lb = (t.get("gpu_host_best", t.get("host_best")), lin.get("gpu_host_best", lin.get("host_best")))
        rows.append((r["input"], lb / tb, lin["stats"]["seconds_solve"] / t["stats"]["seconds_solve"]))
    if rows:
        _bars(rows, ("end to end, host arrays", "solve alone (persistent kernel)"),
              "time linear / time tiled (> 1: the tiled layout + tiled BFS is faster)",
              f"Grid cuts on {gpu}: layout='tiled' vs 'linear'", path)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpu", action="store_true")
    p.add_argument("--cpu", action="store_true")
    p.add_argument("--merge", nargs=2, metavar=("GPU_JSON", "CPU_JSON"))
    p.add_argument("--out", default=None)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--budget", type=float, default=15.0, help="--gpu: seconds of repeated runs per input")
    p.add_argument("--only", default="")
    p.add_argument("--save-images", metavar="DIR", help="save the real images as DIR/images/<name>.npy (for a "
                   "machine without scikit-image: set MATCHFLOW_DATA=DIR there)")
    p.add_argument("--no-fresh", action="store_true")
    p.add_argument("--other-reps", type=int, default=5, help="--gpu: runs of the non-default layout")
    p.add_argument("--suffix", default="e", help="result file stem gpu-<gpu>-<date><suffix> (--cpu: cpu-grids-...)")
    args = p.parse_args(argv)
    if args.merge:
        return merge(args)
    if args.save_images:
        folder = Path(args.save_images) / "images"
        folder.mkdir(parents=True, exist_ok=True)
        for name in REAL_IMAGES:
            np.save(folder / f"{name}.npy", np.asarray(_grey(name), dtype=np.float32))
        print("saved", sorted(p.name for p in folder.iterdir()))
        return 0
    return main_gpu(args) if args.gpu else main_cpu(args)


if __name__ == "__main__":
    raise SystemExit(main())
