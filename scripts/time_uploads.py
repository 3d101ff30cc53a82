"""Host-to-device uploads (issue 24, "host work off the path"): numba's ``cuda.to_device`` from pageable memory
against a pinned staging buffer (the array written into a reused pinned buffer, then one DMA; as is and narrowed
to int32 after a range check; the pass on one core or on every core), the DMA alone from pinned memory, and the
public ``grid_cut(..., backend="gpu")`` from host int64 arrays with its stage seconds, and ``assignment(C,
backend="gpu")`` from host int32 matrices. Warm, best of 5 (assignment 3), ms.

    PYTHONPATH=src python3 scripts/time_uploads.py [--grid-only] [--out OUT.json]
"""

import argparse
import json
import time

import numba
import numpy as np
from numba import cuda

import matchflow


def best(f, k=5):
    f()
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        f()
        cuda.synchronize()
        ts.append(time.perf_counter() - t)
    return 1e3 * min(ts)


@numba.njit(parallel=True)
def _pcopy(dst, src):
    for i in numba.prange(src.size):
        dst[i] = src[i]


def staged(a, buf, narrow, parallel=False):
    """The pinned-staging upload: (a range check,) one pass into the pinned buffer (on one core, or on every core
    with ``parallel``: numba prange), one DMA."""
    dt = np.int32 if narrow and a.min() >= -(2**31) and a.max() < 2**31 else a.dtype
    view = buf[: a.size * np.dtype(dt).itemsize].view(dt)
    if parallel:
        _pcopy(view, a)
    else:
        np.copyto(view, a, casting="unsafe")
    return cuda.to_device(view)


def uploads(rows):
    rng = np.random.default_rng(0)
    buf = cuda.pinned_array(8 << 24, np.uint8)
    for n in (1 << 20, 1 << 22, 1 << 24):
        a = rng.integers(0, 1000, n)
        row = {"what": f"int64 x {n}", "MB": a.nbytes / 1e6, "to_device": best(lambda a=a: cuda.to_device(a)),
               "staged": best(lambda a=a: staged(a, buf, False)),
               "staged_narrow": best(lambda a=a: staged(a, buf, True)),
               "staged_parallel": best(lambda a=a: staged(a, buf, False, parallel=True)),
               "staged_parallel_narrow": best(lambda a=a: staged(a, buf, True, parallel=True)),
               "dma_only": best(lambda a=a: cuda.to_device(buf[: a.nbytes].view(a.dtype)))}
        rows.append(row)
        print(json.dumps(row), flush=True)


def grids(rows):
    rng = np.random.default_rng(1)
    for side in (1000, 2048):
        src, snk = rng.integers(0, 100, (side, side)), rng.integers(0, 100, (side, side))
        edg = rng.integers(0, 50, (len(matchflow.flow.offsets(2, 4)), side, side))
        def call(src=src, snk=snk, edg=edg):
            return matchflow.grid_cut(src, snk, edg, connectivity=4, backend="gpu")

        ms = best(call)
        st = call().stats
        row = {"what": f"grid_cut int64 {side}x{side} 4-conn", "call": ms,
               "stages": {k: round(1e3 * v, 2) for k, v in st.items() if k.startswith("seconds")}}
        rows.append(row)
        print(json.dumps(row), flush=True)


def dense(rows):
    rng = np.random.default_rng(2)
    for n in (4096, 8192):
        C = rng.integers(0, n // 10, (n, n)).astype(np.int32)

        def call(C=C):
            return matchflow.assignment(C, backend="gpu")

        ms = best(call, 3)
        st = call().stats
        row = {"what": f"assignment int32 {n}x{n} range 0.1n", "call": ms,
               "stages": {k: round(1e3 * v, 2) for k, v in st.items() if k.startswith("seconds")}}
        rows.append(row)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--grid-only", action="store_true")
    ap.add_argument("--out")
    a = ap.parse_args()
    rows = []
    if not a.grid_only:
        uploads(rows)
    grids(rows)
    dense(rows)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f, indent=1)
