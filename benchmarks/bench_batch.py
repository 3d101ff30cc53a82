"""Batched assignment benchmark (issue 23): peers on the same inputs in one run, each answer checked.

A program, not a test: ``PYTHONPATH=src python3 benchmarks/bench_batch.py [--quick] [--peers scipy,lapx,ours-cpu]``.
Inputs: B x n x n for the issue's (B, n) grid, integer costs in [0, n] and float costs in [0, 1); 208 x 300 x
{100, 300, 600}; the DETR-like ragged case (64 images, 300 queries x 1-150 targets, float; as a list and as
padded + shapes); tracking (1000 frames of 50 x 50). Every peer's totals are compared with SciPy's optimum per
item (the ``ok`` column: items equal / items). Writes ``results/batch/<host>-<date>.json`` and ``.md``.

The peers table :data:`PEERS` maps a column name to ``(available(), run(case) -> per-item totals)``; a GPU
column is one more entry (the GPU helper adds ``ours-gpu``, torch-linear-assignment, our single-problem GPU
loop).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import socket
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import linear_sum_assignment

from benchmarks._runner import best_of, has

GRID = [(10_000, 8), (10_000, 32), (4096, 64), (1024, 128), (256, 256), (64, 512)]
QUICK_GRID = [(200, 8), (100, 32), (20, 64)]


@dataclass
class Case:
    name: str
    items: list  # the 2-D items (the oracle's input)
    costs: object  # what the batched peers get: a 3-D array or a list
    shapes: np.ndarray | None = None


def _tensor_case(name, a):
    return Case(name, list(a), a)


def cases(quick: bool, seed: int = 0) -> list[Case]:
    rng = np.random.default_rng(seed)
    out = []
    for B, n in QUICK_GRID if quick else GRID:
        out.append(_tensor_case(f"{B}x{n}x{n} int", rng.integers(0, n + 1, (B, n, n))))
        out.append(_tensor_case(f"{B}x{n}x{n} float", rng.random((B, n, n))))
    B = 8 if quick else 208
    for m in (100, 300, 600):
        out.append(_tensor_case(f"{B}x300x{m} float", rng.random((B, 300, m))))
    imgs = 8 if quick else 64
    targets = rng.integers(1, 151, imgs)
    items = [rng.random((300, int(t))) for t in targets]
    out.append(Case(f"DETR {imgs}x300x(1-150) list", items, items))
    pad = np.zeros((imgs, 300, 150))
    for b, a in enumerate(items):
        pad[b, :, :a.shape[1]] = a
    shapes = np.column_stack([np.full(imgs, 300), targets])
    out.append(Case(f"DETR {imgs}x300x(1-150) padded+shapes", items, pad, shapes))
    frames = 50 if quick else 1000
    out.append(_tensor_case(f"tracking {frames}x50x50", rng.random((frames, 50, 50))))
    return out


def _totals_from_cols(items, cols):
    return np.array([a[np.flatnonzero(x >= 0), x[x >= 0]].sum() for a, x in zip(items, cols)])


def run_scipy(case: Case):
    return np.array([a[linear_sum_assignment(a)].sum() for a in case.items])


def run_ours_cpu(case: Case):
    from matchflow import batch_linear_sum_assignment

    x = batch_linear_sum_assignment(case.costs, shapes=case.shapes, backend="cpu")
    return _totals_from_cols(case.items, [np.asarray(t) for t in x])


def run_ours_cpu_1t(case: Case):
    """Ours on one Numba thread (a loaded shared machine delays every parallel region: the per-core number)."""
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        return run_ours_cpu(case)
    finally:
        numba.set_num_threads(old)


def run_lapx(case: Case, n_threads: int = 0):
    import lap

    if isinstance(case.costs, list):  # lapx takes one dense (B, N, M) only (the padded case is its DETR form)
        return None
    costs = np.ascontiguousarray(case.costs, dtype=np.float64)
    totals, rows, cols = lap.lapjvx_batch(costs, extend_cost=True, return_cost=True, n_threads=n_threads)
    if case.shapes is not None:  # padded zero columns are free targets: lapx solves the padded problem
        return np.array([a[r[c < a.shape[1]], c[c < a.shape[1]]].sum() for a, r, c in zip(case.items, rows, cols)])
    return np.asarray(totals)


# column -> (available, run); GPU columns are added here by the GPU part
PEERS = {
    "scipy-loop": (lambda: True, run_scipy),
    "lapx-batch": (has("lap"), run_lapx),
    "lapx-batch-1t": (has("lap"), lambda case: run_lapx(case, n_threads=1)),
    "ours-cpu": (lambda: True, run_ours_cpu),
    "ours-cpu-1t": (lambda: True, run_ours_cpu_1t),
}


def measure(run, case, repeat):
    """Best wall time of ``run(case)`` after one warm-up call (compilation, caches); a runner returning
    ``(seconds, totals)`` times its own part (the GPU columns: the host totals are not timed)."""
    run(case)
    return best_of(lambda: run(case), repeat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    ap.add_argument("--peers", default=None, help="comma-separated columns (default: all available)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--machine", default="", help="a label for the machine (e.g. 'dev box, 2 cores')")
    ap.add_argument("--out", default="results/batch")
    ap.add_argument("--cases", default="", help="comma-separated substrings of the case names to run (default: all)")
    args = ap.parse_args()
    try:  # the GPU columns (none without a GPU); as a module or as a script
        from benchmarks._bench_batch_gpu import first_call, gpu_peers
    except ImportError:
        from _bench_batch_gpu import first_call, gpu_peers

    PEERS.update(gpu_peers())
    names = args.peers.split(",") if args.peers else list(PEERS)
    peers = [p for p in names if p in PEERS and PEERS[p][0]()]
    meta = {"host": socket.gethostname(), "machine": args.machine, "cores": os.cpu_count(),
            "cpu": platform.processor() or platform.machine(), "date": datetime.date.today().isoformat(),
            "python": platform.python_version(), "quick": args.quick, "repeat": args.repeat, "peers": peers,
            "first_gpu_call_s": None}
    rows = []
    for case in cases(args.quick):
        if args.cases and not any(c in case.name for c in args.cases.split(",")):
            continue
        want = run_scipy(case)
        row = {"case": case.name}
        for p in peers:
            sec, totals = measure(PEERS[p][1], case, args.repeat)
            ok = None if totals is None else int(np.isclose(totals, want, rtol=1e-12, atol=1e-9).sum())
            row[p] = {"ms": None if totals is None else 1e3 * sec, "ok": ok, "items": len(case.items)}
        rows.append(row)
        print(json.dumps(row), flush=True)
        _write(args.out, meta, rows, peers)  # after every case: a run cut short keeps what it measured
    if any(p.startswith("ours-gpu") for p in peers):
        meta["first_gpu_call_s"] = first_call()
    print(_write(args.out, meta, rows, peers))


def _write(folder: str, meta: dict, rows: list, peers: list) -> str:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{meta['host']}-{meta['date']}{'-quick' if meta['quick'] else ''}"
    md = markdown(meta, rows, peers)
    (out / f"{stem}.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    (out / f"{stem}.md").write_text(md)
    return md


def markdown(meta, rows, peers) -> str:
    lines = [f"# Batched assignment, {meta['machine'] or meta['host']} ({meta['cores']} cores), {meta['date']}", "",
             "Best of {} runs, ms; `ok`: items whose total equals SciPy's optimum / items.".format(meta["repeat"]),
             "", "| case | " + " | ".join(peers) + " |", "|---" * (len(peers) + 1) + "|"]
    for r in rows:
        cells = []
        for p in peers:
            c = r[p]
            cells.append("n/a" if c["ms"] is None else f"{c['ms']:.1f} ({c['ok']}/{c['items']})")
        lines.append(f"| {r['case']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
