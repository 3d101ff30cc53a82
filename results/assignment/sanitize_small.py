"""Small instance for compute-sanitizer (memcheck/racecheck) of the GPU Hungarian kernels."""
import numpy as np

from matchflow.assignment._gpu_munkres import hungarian_gpu

rng = np.random.default_rng(0)
for n, hi in [(64, 64), (100, 10)]:
    C = rng.integers(0, hi + 1, size=(n, n)).astype(np.int32)
    for mode in ("persistent", "host"):
        c4r, u, v, st = hungarian_gpu(C, block_size=32, grid_size=4, mode=mode)
        print(mode, n, int(C[np.arange(n), c4r].sum()), st["iterations"], st["dual_updates"])
