"""Study (issue 9): where the GPU Hungarian's small-range (0.1n) time goes. Launches the pre-loop stages one by
one (init, row minima, column minima, slack + zero compression, step 2 on one block as in the paper and on the
whole grid) with a device sync after each, beside the persistent kernel's whole solve. Reads private modules (a
study, not a benchmark). Run on a GPU: ``python3 -m studies.study_hungarian_stages [--sizes 1024,4096,8192]``.
Results of 2026-11-23e: docs/notes/hungarian_gpu.md."""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from benchmarks._runner import md_table


def ms(t):
    return None if t is None else 1e3 * t


def log(*a):
    print(*a, flush=True)


def stage_records(sizes: list[int], ranges: list[float], reps: int) -> list[dict]:
    """Where the small-range time goes: the pre-loop stages (init, row minima, column minima, slack + zero
    compression, step 2 on one block and on the whole grid) launched one by one with a device sync after each, and
    the persistent kernel's whole solve on the same matrix (input already on the device)."""
    from numba import cuda

    from matchflow.assignment._gpu_hungarian import _HungarianRun, validate_hungarian_options

    rng = np.random.default_rng(2028)
    recs = []
    for n in sizes:
        for f in ranges:
            C = rng.integers(0, max(1, int(f * n)) + 1, size=(n, n), dtype=np.int32)
            dC = cuda.to_device(C)
            o = validate_hungarian_options(block_size=256)
            run = _HungarianRun(dC, o)
            run.start()
            K, b, nn = run.K, run.b, np.int64(n)
            gs = 4 * int(getattr(cuda.get_current_device(), "MULTIPROCESSOR_COUNT", 132))
            stages = {"init": lambda: K.init_kernel[gs, 256](b.colmin, b.cov_row, b.cov_col, b.star_col, b.star_row,
                                                             b.prime, b.green, b.nz, b.flags, b.gmin, nn),
                      "rowmin": lambda: K.rowmin_kernel[gs, 256](run.dflat, b.rowmin, nn),
                      "colmin": lambda: K.colmin_kernel[gs, 256](run.dflat, b.rowmin, b.colmin, nn),
                      "slack_zeros": lambda: K.slack_kernel[gs, 256](run.dflat, b.rowmin, b.colmin, b.slack, b.u,
                                                                     b.v, b.zeros, b.nz, nn),
                      "step2": lambda: K.step2_kernel[gs, 256](b.zeros, b.nz, nn, b.cov_row, b.cov_col, b.star_col,
                                                               b.star_row),
                      "step2_1block": lambda: K.step2_kernel[1, 256](b.zeros, b.nz, nn, b.cov_row, b.cov_col,
                                                                     b.star_col, b.star_row)}
            rec = dict(n=n, range=f"{f:g}n")
            for last in ("step2_1block", "step2"):  # the paper's one-block step 2, then the whole grid's
                for _ in range(2):  # the first pass compiles / loads the kernels
                    for name, launch in stages.items():
                        if name.startswith("step2") and name != last:
                            continue
                        cuda.synchronize()
                        t = time.perf_counter()
                        launch()
                        cuda.synchronize()
                        rec[name + "_ms"] = ms(time.perf_counter() - t)
                rec["zeros"] = int(b.nz.copy_to_host()[0])
                rec["stars_after_" + last] = int((b.star_col.copy_to_host() >= 0).sum())
            ts = []
            for _ in range(reps):
                run.solve()
                ts.append(run.stats["seconds_solve"])
            rec.update(persistent_solve_ms=ms(statistics.median(ts)), iterations=run.stats["iterations"],
                       augmentations=run.stats["augmentations"], dual_updates=run.stats["dual_updates"])
            log(json.dumps(rec))
            recs.append(rec)
    return recs



def markdown(srecs: list[dict]) -> str:
    parts = []
    if srecs:
        keys = ["init", "rowmin", "colmin", "slack_zeros", "step2_1block", "step2"]
        rows = [[r["n"], r["range"]] + [r[k + "_ms"] for k in keys] + [r["zeros"], r["stars_after_step2_1block"],
                r["stars_after_step2"], r["persistent_solve_ms"], r["iterations"], r["augmentations"],
                r["dual_updates"]] for r in srecs]
        parts.append("## Where the small-range solve goes: pre-loop stages one launch each (ms; step 2 on one "
                     "block as in the paper, then on the whole grid)\n\n" + md_table(
                         ["n", "range"] + keys + ["zeros", "stars (1 block)", "stars (grid)",
                                                  "persistent solve (all)", "step-4 rounds", "augment phases",
                                                  "dual updates"], rows))
    return "\n\n".join(parts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1024,4096,8192")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    print(markdown(stage_records([int(x) for x in args.sizes.split(",")], [0.1], args.reps)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
