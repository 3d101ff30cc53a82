"""compute-sanitizer target (issue 9's kernels, public API only): the device CSC build (counting sort,
per-column sort; hub columns take the block sort), the dense -> CSR build of a device matrix, and the
GPU Hungarian's direct path with its device certificate, on small inputs checked against the CPU; since
2026-11-23e also the device inputs used as they are (symmetry test, hub-column sort, cover from labels)."""
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
# 2026-11-23e: the symmetry test (a symmetric CSR is its own CSC), the grid-stride block sort of hub columns
# without a host read, the sorted-rows check of a PyTorch CSR, the device cover from the certificate labels
# and cached work buffers (each call twice: the second reuses them)
s = sp.csr_array(((d[:260, :] + d[:260, :].T) != 0).astype(np.int8))
for name, x in (("host csr sym", s), ("host csr", sp.csr_array(d))):
    for _ in range(2):
        r = matchflow.bipartite_matching(x, backend="gpu", block_size=64)
    print(name, r.cardinality == matchflow.bipartite_matching(x, backend="cpu").cardinality,
          verify_matching(x, r).maximum, r.stats["cover_bfs"])
try:
    import cupy
    import cupyx.scipy.sparse as csp

    for name, x, ref in (("cupy csr", csp.csr_matrix(cupy.asarray(d.astype(np.float32))), sp.csr_array(d)),
                         ("cupy csc", csp.csc_matrix(cupy.asarray(d.astype(np.float32))), sp.csr_array(d)),
                         ("cupy csr sym", csp.csr_matrix(cupy.asarray(s.toarray().astype(np.float32))), s)):
        for _ in range(2):
            r = matchflow.bipartite_matching(x, block_size=64)
        print(name, r.cardinality == matchflow.bipartite_matching(ref, backend="cpu").cardinality)
except ImportError:
    print("no cupy")
try:
    import torch

    t = torch.as_tensor(d.astype(np.float32), device="cuda").to_sparse_csr()
    r = matchflow.bipartite_matching(t, block_size=64)
    print("torch csr", r.cardinality == want)
except ImportError:
    print("no torch")
C = rng.integers(0, 100, size=(96, 96)).astype(np.int32)
res = matchflow.assignment(C, backend="gpu", block_size=32)
print("assignment", res.cost == matchflow.assignment(C, backend="cpu").cost, res.stats.get("certified"))
# the float route (issue 9): scale-to-int32 kernel, integer pre-solve, tight-rows kernel, host JV repair
F = rng.random((80, 80))
rf = matchflow.assignment(F, backend="gpu", block_size=32)
print("assignment float", rf.backend, rf.stats.get("float_route"), abs(rf.cost - matchflow.assignment(F, backend="cpu").cost) < 1e-12)
