"""compute-sanitizer target (issue 9's kernels, public API only): the device CSC build (counting sort,
per-column sort; hub columns take the block sort), the dense -> CSR build of a device matrix, and the
GPU Hungarian's direct path with its device certificate, on small inputs checked against the CPU."""
import numpy as np
import scipy.sparse as sp
from numba import cuda

import matchflow
from matchflow.verify import verify_matching

rng = np.random.default_rng(7)
d = (rng.random((300, 260)) < 0.02).astype(np.int8)
d[:, 5] = 1
d[::3, 6] = 1
want = matchflow.bipartite_matching(sp.csr_array(d), backend="cpu").cardinality
for it in (np.int32, np.int64):
    a = sp.csr_array(d)
    a = sp.csr_array((a.data, a.indices.astype(it), a.indptr.astype(it)), shape=a.shape)
    r = matchflow.bipartite_matching(a, backend="gpu", block_size=64)  # CSR uploaded as is, CSC built there
    print("host csr", it.__name__, r.cardinality == want, verify_matching(a, r).maximum)
r = matchflow.bipartite_matching(cuda.to_device(d), block_size=64)  # dense device matrix -> CSR -> CSC
print("device dense", r.cardinality == want)
C = rng.integers(0, 100, size=(96, 96)).astype(np.int32)
res = matchflow.assignment(C, backend="gpu", block_size=32)
print("assignment", res.cost == matchflow.assignment(C, backend="cpu").cost, res.stats.get("certified"))
# the float route (issue 9): scale-to-int32 kernel, integer pre-solve, tight-rows kernel, host JV repair
F = rng.random((80, 80))
rf = matchflow.assignment(F, backend="gpu", block_size=32)
print("assignment float", rf.backend, rf.stats.get("float_route"), abs(rf.cost - matchflow.assignment(F, backend="cpu").cost) < 1e-12)
