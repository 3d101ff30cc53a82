"""Issue 23's scale-out, tried on the GPU machine: ``matchflow.dask.batch_linear_sum_assignment`` on a
``dask.distributed.LocalCluster`` with one worker process per GPU, ``backend="gpu"``, NumPy chunks and CuPy
chunks (answers stay CuPy). dask-cuda's ``LocalCUDACluster`` is used where it imports (it pins a worker to each
GPU); otherwise a plain LocalCluster of as many single-threaded worker processes as GPUs.

    python3 scripts/try_dask_gpu.py [--B 40000 --n 32 --chunk 10000]

Prints the wall time of each compute and checks 200 items per run against SciPy (exit 1 on a mismatch).
"""

import argparse
import time

import dask.array as da
import numpy as np
from dask.distributed import Client, LocalCluster
from numba import cuda
from scipy.optimize import linear_sum_assignment

from matchflow.dask import batch_linear_sum_assignment


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--B", type=int, default=40000)
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--chunk", type=int, default=10000)
    a = ap.parse_args()
    gpus = len(cuda.gpus)
    try:
        from dask_cuda import LocalCUDACluster  # noqa: PLC0415 - optional
        cluster, kind = LocalCUDACluster(), "dask-cuda LocalCUDACluster"
    except ImportError:
        cluster, kind = LocalCluster(n_workers=gpus, threads_per_worker=1, processes=True), "LocalCluster"
    client = Client(cluster)
    print(f"{kind}: {len(client.scheduler_info()['workers'])} worker(s) for {gpus} GPU(s)")
    rng = np.random.default_rng(0)
    C = rng.random((a.B, a.n, a.n))
    bad = 0
    for label, X in (("numpy chunks", da.from_array(C, chunks=(a.chunk, a.n, a.n))),
                     ("cupy chunks", da.from_array(C, chunks=(a.chunk, a.n, a.n)).map_blocks(_cupy))):
        x = batch_linear_sum_assignment(X, backend="gpu")
        for _ in range(2):
            t0 = time.perf_counter()
            got = x.compute()
            sec = time.perf_counter() - t0
        got = got.get() if hasattr(got, "get") else got
        for b in rng.choice(a.B, 200, replace=False):
            r, c = linear_sum_assignment(C[b])
            bad += not np.array_equal(got[b, r], c)
        print(f"{label}: {a.B} x {a.n}x{a.n} in {a.B // a.chunk} tasks: {sec:.3f} s (second compute); "
              f"answer type {type(x.compute()).__module__}")
    client.close()
    cluster.close()
    print("mismatches", bad)
    raise SystemExit(1 if bad else 0)


def _cupy(blk):
    import cupy  # noqa: PLC0415 - on the workers

    return cupy.asarray(blk)


if __name__ == "__main__":
    main()
