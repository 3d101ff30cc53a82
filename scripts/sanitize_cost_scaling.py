"""Small instances of the GPU cost-scaling kernels for compute-sanitizer (memcheck, racecheck).

    compute-sanitizer --tool memcheck python3 scripts/sanitize_cost_scaling.py
    compute-sanitizer --tool racecheck python3 scripts/sanitize_cost_scaling.py --small
    (--device-update: only the global price update on the device, ``device_update=True``)

Public API only: square, rectangular, partial and infeasible sparse inputs through
``matchflow.assignment(A, backend="gpu")`` with tiny blocks, on every schedule (async with the CPU tail,
the persistent kernel, async host launches, the paper's sweeps, the price update on the device); every answer certified. Racecheck checks shared
memory hazards (these kernels use none: their races are global by design, the lock-free refine, and are
covered by the certificate), so it runs the smallest inputs.
"""

from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp

import matchflow
from matchflow.verify import verify_sparse_assignment


def main() -> int:
    small = "--small" in sys.argv
    rng = np.random.default_rng(7)
    n = 60 if small else 300
    cases = []
    for nr, nc, dens, partial in ((n, n, 0.08, False), (n // 2, n, 0.1, False), (n, n // 3, 0.1, True),
                                  (n, n, 0.01, True)):
        mask = rng.random((nr, nc)) < dens
        k = min(nr, nc)
        if not partial:
            mask[rng.permutation(nr)[:k], rng.permutation(nc)[:k]] = True
        r, c = np.nonzero(mask)
        cases.append((sp.csr_array((rng.integers(-50, 1000, r.size), (r, c)), shape=(nr, nc)), partial))
    bad = 0
    for A, partial in cases:
        configs = ((32, {}), (128, {"loop": "persistent"}), (64, {"loop": "host", "tail": 0}),
                   (32, {"schedule": "sweeps"}), (32, {"loop": "host", "tail": 16, "device_update": True}))
        for bs, kw in configs[-1:] if "--device-update" in sys.argv else configs:
            res = matchflow.assignment(A, backend="gpu", partial=partial, block_size=bs, **kw)
            ok = verify_sparse_assignment(A, res, raise_on_error=False) == []
            bad += not ok or "gpu_fallback" in res.stats
            print(A.shape, "partial" if partial else "full", "block", bs, kw, "cost", res.cost, "certified", ok,
                  "pushes", res.stats.get("pushes"), "tail", res.stats.get("tail_pushes"), "fallback",
                  res.stats.get("gpu_fallback"))
    A = sp.csr_array(np.array([[1, 0, 0], [2, 0, 0], [3, 4, 5]]))
    try:
        matchflow.assignment(A, backend="gpu", block_size=32)
        bad += 1
    except ValueError as e:
        print("infeasible:", e)
    print("FAILED" if bad else "all certified")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
