"""Where a batched GPU call's time goes (issue 23): the door's stages for a CUDA tensor input, and numba-cuda's
launch cost. A program, not a test: ``python3 -m benchmarks.profile_batch_gpu [--B 10000 --n 32]``.

Prints medians of ``--reps`` calls, in microseconds: an empty kernel launched with 1 / 8 / 16 device-array
arguments (launch alone, then launch + synchronize), an allocation, an upload and a read-back; then the raw GPU
solver's stages (``matchflow.gpu.batch_assignment``'s ``seconds_<stage>``, each waited for) and the whole public
call on a CUDA tensor.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _median_us(f, reps):
    f()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return 1e6 * float(np.median(ts))


def launch_costs(reps):
    from numba import cuda

    @cuda.jit
    def k1(a):
        pass

    @cuda.jit
    def k8(a, b, c, d, e, f, g, h):
        pass

    @cuda.jit
    def k16(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p):  # noqa: E741
        pass

    arrs = [cuda.device_array(16, dtype=np.int64) for _ in range(16)]
    for name, kern, args in (("1 arg", k1, arrs[:1]), ("8 args", k8, arrs[:8]), ("16 args", k16, arrs)):
        launch = _median_us(lambda: kern[1, 32](*args), reps)
        synced = _median_us(lambda: (kern[1, 32](*args), cuda.synchronize()), reps)
        print(f"empty kernel, {name}: launch {launch:.0f} us, launch + sync {synced:.0f} us")
    print(f"cuda.device_array(10000): {_median_us(lambda: cuda.device_array(10000), reps):.0f} us")
    h = np.zeros((6, 10000), dtype=np.int64)
    print(f"cuda.to_device(6 x 10000 int64): {_median_us(lambda: cuda.to_device(h), reps):.0f} us")
    d = cuda.device_array(10000, dtype=np.int8)
    print(f"copy_to_host(10000 int8): {_median_us(lambda: d.copy_to_host(), reps):.0f} us")


def stages(B, n, reps):
    import torch

    from matchflow import batch_linear_sum_assignment, gpu

    t = torch.rand(B, n, n, device="cuda", dtype=torch.float64)
    keys = ("seconds_start", "seconds_solve", "seconds_certify", "seconds_finish")
    gpu.batch_assignment(t)
    rows = np.array([[gpu.batch_assignment(t)[4][k] for k in keys] for _ in range(reps)])
    med = dict(zip(keys, 1e6 * np.median(rows, axis=0)))

    def whole():
        batch_linear_sum_assignment(t, backend="gpu")
        torch.cuda.synchronize()

    med["whole call"] = _median_us(whole, reps)
    for k, us in med.items():
        print(f"{B} x {n}x{n} float64 torch: {k:16s} {us:8.0f} us")
    print(f"{B} x {n}x{n} float64 torch: outside the stages {med['whole call'] - sum(med[k] for k in keys):8.0f} us "
          "(prepare, the door, the answer's hand-back; the stages above each wait for the device)")
    return med


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--B", type=int, default=10000)
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--reps", type=int, default=30)
    a = ap.parse_args()
    launch_costs(a.reps)
    stages(a.B, a.n, a.reps)
    stages(64, 300, a.reps)


if __name__ == "__main__":
    main()
