"""compute-sanitizer target for the batched assignment kernels (``lsap_warp_kernel``: a warp per item, one and
several slots per lane; ``lsap_batch_kernel`` with shared and global work arrays, shared and global costs,
warp-shuffle and tree reductions; ``certify_items_kernel``, int and float; ``pad_rows_kernel`` and
``negate_kernel`` through a device input's answer) on small ragged batches, through the GPU driver and the door;
each answer is checked against SciPy.

    compute-sanitizer --tool memcheck python3 scripts/sanitize_batch.py
    compute-sanitizer --tool racecheck python3 scripts/sanitize_batch.py   (SANITIZE_SMALL=1: a subset)
"""

import os

import numpy as np
from scipy.optimize import linear_sum_assignment

from matchflow import gpu

rng = np.random.default_rng(5)
SMALL = os.environ.get("SANITIZE_SMALL", "") == "1"
shapes = [(1, 1), (3, 7), (7, 3), (12, 12), (40, 33), (5, 70)]
batches = {"int": [rng.integers(0, 6, s) for s in shapes], "float": [rng.random(s) for s in shapes]}
batches["inf"] = [np.where(rng.random(s) < 0.2, np.inf, rng.random(s)) for s in shapes[:4]] + [
    np.array([[np.inf, 1.0], [np.inf, 2.0]])]  # the last item is infeasible
bad = 0


def want(a):
    try:
        r, c = linear_sum_assignment(a)
    except ValueError:
        return None
    x = np.full(a.shape[0], -1)
    x[r] = c
    return x


def check(items, label, **opts):
    global bad
    x, _, _, st, stats = gpu.batch_assignment(items, **opts)
    ro = stats["row_offsets"]
    diff = 0
    for b, a in enumerate(items):
        w = want(np.asarray(a, float))
        got = x[ro[b]:ro[b + 1]]
        diff += (st[b] != 1) if w is None else (st[b] != 0 or not np.array_equal(got, w))
    bad += diff
    print(label, opts, "equal" if not diff else f"{diff} DIFFERENT")


B = {"kernel": "block"}
variants = [{}, {"grid_size": 2}, B, {**B, "block_size": 64}] if SMALL else [
    {}, {"grid_size": 2}, B, {**B, "block_size": 8}, {**B, "block_size": 64}, {**B, "shared_costs": False}]
for name, items in batches.items():
    for opts in variants:
        check(items, name, **opts)
for name, items in batches.items():
    check(items, name + " global work", kernel="block", shared_work=False)

# a device input through the door: padded answers (shapes) and negated duals (maximize) on the device
from numba import cuda  # noqa: E402

from matchflow import batch_linear_sum_assignment  # noqa: E402

C = rng.random((4, 6, 5))
shp = np.array([[6, 5], [2, 3], [5, 1], [3, 3]])
x, cost, u, v = batch_linear_sum_assignment(cuda.to_device(C), shapes=shp, maximize=True, return_cost=True,
                                            return_duals=True)
xh = x.copy_to_host()
for b, (n, m) in enumerate(shp):
    r, c = linear_sum_assignment(C[b, :n, :m], maximize=True)
    w = np.full(n, -1)
    w[r] = c
    same = np.array_equal(xh[b, :n], w) and (xh[b, n:] == -1).all()
    bad += not same
    print("device input, item", b, "equal" if same else "DIFFERENT")
print("mismatches", bad)
raise SystemExit(1 if bad else 0)
