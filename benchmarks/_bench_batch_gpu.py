"""The GPU columns of ``bench_batch.py`` (added to its ``PEERS`` when a GPU is usable).

Each runner returns ``(seconds, totals)``: only the stated part is timed (the totals, computed on the host for
the ``ok`` check, are not). Columns:

* ``tla-gpu``: torch-linear-assignment ``batch_linear_assignment`` on a CUDA tensor (float64 as given; a list is
  padded by the caller's own code, which is timed: it is what a ragged user of it pays); n/a without torch/CUDA;
* ``ours-gpu-loop``: ``matchflow.assignment(C, backend="gpu")`` item by item from host arrays (the first
  :data:`LOOP_ITEMS` items timed and scaled to the batch; totals for those items only, so ``ok`` counts them);
* ``ours-gpu``: ``batch_linear_sum_assignment(costs, backend="gpu")`` from host arrays, the whole call;
* ``ours-gpu-dev``: the same from CUDA tensors (torch), answers on the device, the whole call;
* ``ours-gpu-solve``: the kernel alone (``JVBatchRun.solve`` + synchronize; buffers ready; ``kernel="auto"``:
  a warp per item up to a side of 128);
* ``ours-gpu-block-solve``: the same with the block-per-item kernel (``kernel="block"``);
* ``ours-gpu-certify``: the device certificate alone (``seconds_certify``).

:func:`first_call` times the first batched GPU call of a fresh process (a subprocess; warm kernel cache).
"""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np

LOOP_ITEMS = 100


def _sync():
    from numba import cuda

    cuda.synchronize()


def _totals(items, cols):
    return np.array([a[np.flatnonzero(x >= 0), x[x >= 0]].sum() for a, x in zip(items, cols)])


def _flat_cols(case, x):
    return [np.asarray(t) for t in x]


def run_tla(case):
    import torch
    from torch_linear_assignment import batch_linear_assignment

    if isinstance(case.costs, list) or case.shapes is not None:  # pad to the largest (its only form)
        N = max(a.shape[0] for a in case.items)
        M = max(a.shape[1] for a in case.items)
        big = float(max(np.abs(a).max() for a in case.items)) * N * 4 + 1  # padding never preferred
        t0 = time.perf_counter()
        pad = torch.full((len(case.items), N, M), big, dtype=torch.float64, device="cuda")
        for b, a in enumerate(case.items):
            pad[b, :a.shape[0], :a.shape[1]] = torch.as_tensor(a, device="cuda")
        x = batch_linear_assignment(pad)
        torch.cuda.synchronize()
        sec = time.perf_counter() - t0
        xs = x.cpu().numpy()
        cols = [np.where(xs[b, :a.shape[0]] < a.shape[1], xs[b, :a.shape[0]], -1) for b, a in enumerate(case.items)]
        return sec, _totals(case.items, cols)
    t = torch.as_tensor(np.asarray(case.costs), device="cuda")
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    x = batch_linear_assignment(t)
    torch.cuda.synchronize()
    sec = time.perf_counter() - t0
    return sec, _totals(case.items, list(x.cpu().numpy()))


def run_loop(case):
    from matchflow import assignment

    k = min(LOOP_ITEMS, len(case.items))
    cols = []
    t0 = time.perf_counter()
    for a in case.items[:k]:
        r = assignment(a, backend="gpu")
        x = np.full(a.shape[0], -1)
        x[r.row_ind] = r.col_ind
        cols.append(x)
    sec = (time.perf_counter() - t0) * len(case.items) / k
    tot = np.full(len(case.items), np.nan)
    tot[:k] = _totals(case.items[:k], cols)
    return sec, tot


def run_ours(case):
    from matchflow import batch_linear_sum_assignment

    t0 = time.perf_counter()
    x = batch_linear_sum_assignment(case.costs, shapes=case.shapes, backend="gpu")
    sec = time.perf_counter() - t0
    return sec, _totals(case.items, _flat_cols(case, x))


def run_ours_dev(case):
    import torch

    from matchflow import batch_linear_sum_assignment

    if isinstance(case.costs, list):
        costs = [torch.as_tensor(a, device="cuda") for a in case.costs]
    else:
        costs = torch.as_tensor(np.asarray(case.costs), device="cuda")
    shapes = None if case.shapes is None else torch.as_tensor(case.shapes)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    x = batch_linear_sum_assignment(costs, shapes=shapes, backend="gpu")
    torch.cuda.synchronize()
    sec = time.perf_counter() - t0
    return sec, _totals(case.items, [t.cpu().numpy() for t in x])


def run_solve(case, key="seconds_solve", **options):
    """One stage alone (inputs already uploaded): ``stats[key]`` of the raw GPU solver."""
    from matchflow import gpu

    x, _, _, _, st = gpu.batch_assignment(case.costs, case.shapes, **options)
    ro = st["row_offsets"]
    return st[key], _totals(case.items, [x[ro[b]:ro[b + 1]] for b in range(len(ro) - 1)])


_FIRST = """
import sys, time, numpy as np
t0 = time.perf_counter()
import matchflow
t1 = time.perf_counter()
from numba import cuda
t2 = time.perf_counter()
cuda.current_context()
t3 = time.perf_counter()
C = np.random.default_rng(0).random((1000, 32, 32))
x = matchflow.batch_linear_sum_assignment(C, backend="gpu")
t4 = time.perf_counter()
x = matchflow.batch_linear_sum_assignment(C, backend="gpu")
t5 = time.perf_counter()
print(f"import matchflow {t1 - t0:.3f} s, import numba.cuda {t2 - t1:.3f} s, CUDA context {t3 - t2:.3f} s, "
      f"first call {t4 - t3:.3f} s, second call {t5 - t4:.3f} s", file=sys.stderr)
print(t4 - t0)
"""


def first_call() -> float | None:
    """Seconds of ``import matchflow`` + the first batched GPU call (1000 x 32 x 32) in a fresh process (run
    twice: the first fills the kernel cache; the second is reported)."""
    out = None
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", _FIRST], capture_output=True, text=True, check=False)
        out = float(r.stdout.split()[-1]) if r.returncode == 0 and r.stdout.split() else None
    print("first call, fresh process:", r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "?", flush=True)
    return out


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def _tla():
    try:
        import torch_linear_assignment  # noqa: F401
    except ImportError:
        return False
    return _torch_cuda()


def gpu_peers() -> dict:
    """The GPU columns, each ``(available, run)``; empty without a usable GPU."""
    from matchflow.gpu import gpu_available

    if not gpu_available():
        return {}
    return {"tla-gpu": (_tla, run_tla), "ours-gpu-loop": (lambda: True, run_loop), "ours-gpu": (lambda: True, run_ours),
            "ours-gpu-dev": (_torch_cuda, run_ours_dev), "ours-gpu-solve": (lambda: True, run_solve),
            "ours-gpu-block-solve": (lambda: True, lambda case: run_solve(case, kernel="block")),
            "ours-gpu-certify": (lambda: True, lambda case: run_solve(case, "seconds_certify"))}
