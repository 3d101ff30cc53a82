"""compute-sanitizer target: the counting-sort kernels (device CSC, dense -> CSR) and the new Hungarian
certificate kernels, on small inputs (hub columns take the block bitonic sort)."""
import numpy as np
import scipy.sparse as sp
from numba import cuda

import matchflow
from matchflow._cuda._csc import build_csc, dense_to_csr

rng = np.random.default_rng(7)
d = (rng.random((300, 260)) < 0.02).astype(np.int8)
d[:, 5] = 1
d[::3, 6] = 1
a = sp.csr_array(d)
for it in (np.int32, np.int64):
    cp, ri = build_csc(cuda.to_device(a.indptr.astype(it)), cuda.to_device(a.indices.astype(it)), 300, 260, a.nnz)
    t = a.tocsc()
    t.sort_indices()
    print(it.__name__, np.array_equal(cp.copy_to_host(), t.indptr), np.array_equal(ri.copy_to_host()[: a.nnz], t.indices))
p, i, nnz = dense_to_csr(cuda.to_device(d), np.dtype(np.int32))
print("dense", np.array_equal(p.copy_to_host(), a.indptr), np.array_equal(i.copy_to_host()[:nnz], a.indices))
r = matchflow.bipartite_matching(cuda.to_device(d), block_size=64)
print("device matching", r.cardinality)
C = rng.integers(0, 100, size=(96, 96)).astype(np.int32)
res = matchflow.assignment(C, backend="gpu", block_size=32)
print("assignment", res.cost, res.stats["certified"])
