"""compute-sanitizer target for the GPU Hungarian's float route (issue 9, public API only): the scale-to-int32
kernel, the integer pre-solve (persistent and host loop, tiny blocks so several blocks share the matrix),
its device certificate and the tight-rows kernel, on small float matrices checked against the CPU."""
import numpy as np

import matchflow

rng = np.random.default_rng(9)
for n, dt in ((70, np.float64), (45, np.float32)):
    F = rng.random((n, n)).astype(dt)
    want = matchflow.assignment(F, backend="cpu").cost
    for loop in ("persistent", "host"):
        r = matchflow.assignment(F, backend="gpu", block_size=32, loop=loop)
        print("float", n, dt.__name__, loop, r.backend, r.stats.get("float_route"), abs(r.cost - want) < 1e-9,
              "freed", r.stats.get("free_after_int"))
# 2026-11-27: heavy-tailed costs take the second, focused integer pass (entries above the focus clamped)
H = rng.lognormal(0.0, 3.0, size=(60, 60))
want = matchflow.assignment(H, backend="cpu").cost
r = matchflow.assignment(H, backend="gpu", block_size=32)
print("float lognormal", r.stats.get("float_passes"), abs(r.cost - want) <= 1e-9 * abs(want))
# 2026-11-27 (second session): normal costs, where the rows' median gap caps the integer scale (row_gap_kernel), and
# the certificate's row passes run on the device copy (polish_rows_kernel, float_bound_rows_kernel)
N = rng.normal(size=(64, 64))
want = matchflow.assignment(N, backend="cpu").cost
r = matchflow.assignment(N, backend="gpu", block_size=32)
print("float normal gap", r.stats.get("float_gap"), r.stats.get("float_scale"), abs(r.cost - want) <= 1e-9 * abs(want))
print("certificate rows on", r.stats.get("certificate_rows_on"))
r = matchflow.assignment(N.astype(np.float32), backend="gpu", block_size=32, maximize=True)
print("float32 maximise, certificate rows on", r.stats.get("certificate_rows_on"), r.stats.get("gap_bound"))
