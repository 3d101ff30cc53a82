"""Counting-sort kernels on the GPU: a CSR's transpose (the CSC) and a dense device matrix's CSR.

:func:`build_csc` is SciPy's ``csr.tocsc()`` on the device, index dtype kept (int32 stays int32):
degree count by atomics (``degree_count_kernel``), an exclusive scan (``scan_block_kernel`` +
``scan_add_kernel``, recursive over block sums), a scatter of the rows into their columns' slots
(``csc_scatter_kernel``, one thread per edge; slot order decided by atomics), then a sort inside
each column (``sort_small_kernel``: one thread per column of degree <= ``SMALL``; ``sort_large_kernel``:
one block per larger column, a bitonic network with all comparators ascending). The sort makes the
result independent of atomic timing: the CSC is the unique one with rows ascending per column, as
SciPy builds it (``same_pattern_kernel``'s symmetry test compares it with the CSR).

A square pattern is first tested for symmetry (``csr_symmetric_kernel``: every edge (u, v) finds (v, u)
by binary search in row v); a symmetric CSR IS its CSC, so nothing is built (meshes, roads, undirected
graphs: the transpose is built only where it differs). The same launch records the largest row
degree; the column sort records the largest column degree (``features=``: G-PR's start rule reads
them). Temporaries come from the work-buffer cache (:mod:`._work`), and the CSC too with ``work=True``
(a graph that lives for one call): a repeated call of one size allocates nothing.

:func:`dense_to_csr` turns a dense 2-D device array's nonzero pattern into a canonical CSR
(count per row, scan, fill in column order) and :func:`dense_values` reads its values there: device inputs
never visit the host.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int64

from ._device import block_scan_dev, lower_bound_dev, row_of_dev
from ._env import kernel_cache
from ._launch import grid

CACHE = kernel_cache()  # numba-cuda on-disk cache of the kernels (off with MATCHFLOW_CUDA_CACHE=0)

__all__ = ["build_csc", "cast", "dense_to_csr", "dense_values", "exclusive_scan", "is_symmetric_csr", "is_sorted_csr", "SMALL", "SCAN_BLOCK"]

SCAN_BLOCK = 1024  # elements per block of the scan (one thread each)
SMALL = 32  # columns of at most this degree are sorted by one thread (insertion sort)
SORT_BLOCK = 256


@cuda.jit(cache=CACHE)
def zero_kernel(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 0


@cuda.jit(cache=CACHE)
def degree_count_kernel(col_ind, nnz, deg):
    """deg[c] += 1 for every edge into column c (``deg`` zeroed)."""
    e = cuda.grid(1)
    if e < nnz:
        cuda.atomic.add(deg, col_ind[e], 1)


@cuda.jit(cache=CACHE)
def scan_block_kernel(a, n, sums):
    """Exclusive scan of each block's ``SCAN_BLOCK`` elements of ``a[:n]`` in place (Hillis-Steele in
    shared memory); the block's total goes to ``sums[block]``."""
    sh = cuda.shared.array(SCAN_BLOCK, dtype=int64)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * SCAN_BLOCK + t
    x = int64(0)
    if i < n:
        x = int64(a[i])
    block_scan_dev(sh, x, t, SCAN_BLOCK)
    if i < n:
        a[i] = sh[t] - x
    if t == SCAN_BLOCK - 1:
        sums[cuda.blockIdx.x] = sh[t]


@cuda.jit(cache=CACHE)
def scan_add_kernel(a, n, sums):
    """Add each block's scanned offset ``sums[block]`` to its elements."""
    i = cuda.grid(1)
    if i < n:
        a[i] += sums[i // SCAN_BLOCK]


@cuda.jit(cache=CACHE)
def csc_scatter_kernel(row_ptr, col_ind, nnz, n_rows, col_ptr, fill, row_ind):
    """Edge e (row found by binary search in ``row_ptr``) takes the next free slot of its column."""
    e = cuda.grid(1)
    if e < nnz:
        c = col_ind[e]
        row_ind[col_ptr[c] + cuda.atomic.add(fill, c, 1)] = row_of_dev(row_ptr, n_rows, e)


@cuda.jit(cache=CACHE)
def sort_small_kernel(col_ptr, row_ind, n_cols, big, n_big):
    """Insertion sort of each column of degree <= SMALL; larger columns are listed in ``big`` (their count
    in ``n_big[0]``); ``n_big[1]``: the largest column degree (atomic max)."""
    c = cuda.grid(1)
    if c < n_cols:
        lo = col_ptr[c]
        hi = col_ptr[c + 1]
        cuda.atomic.max(n_big, 1, int64(hi - lo))
        if hi - lo > SMALL:
            big[cuda.atomic.add(n_big, 0, 1)] = c
            return
        for k in range(lo + 1, hi):
            x = row_ind[k]
            j = k - 1
            while j >= lo and row_ind[j] > x:
                row_ind[j + 1] = row_ind[j]
                j -= 1
            row_ind[j + 1] = x


@cuda.jit(cache=CACHE)
def sort_large_kernel(col_ptr, row_ind, big, n_big):
    """Block b sorts the listed columns b, b + gridDim, ... (``n_big[0]`` of them: read on the device, so the
    host launches without reading it): bitonic sort, every comparator ascending (the first step of each
    merge compares mirrored positions), so the virtual +inf padding up to a power of two never moves."""
    t = cuda.threadIdx.x
    bd = cuda.blockDim.x
    for b in range(cuda.blockIdx.x, n_big[0], cuda.gridDim.x):  # block-uniform bound: syncthreads is safe
        c = big[b]
        lo = col_ptr[c]
        d = col_ptr[c + 1] - lo
        p = 1
        while p < d:
            p *= 2
        k = 2
        while k <= p:
            j = k // 2
            while j > 0:
                for i in range(t, p, bd):
                    if j == k // 2:
                        m = i ^ (k - 1)
                    else:
                        m = i ^ j
                    if i < m < d:
                        x = row_ind[lo + i]
                        y = row_ind[lo + m]
                        if x > y:
                            row_ind[lo + i] = y
                            row_ind[lo + m] = x
                cuda.syncthreads()
                j //= 2
            k *= 2
        cuda.syncthreads()  # the next column's reads of col_ptr / big start after this one's writes


@cuda.jit(cache=CACHE)
def csr_symmetric_kernel(row_ptr, col_ind, n_rows, nnz, out):
    """Thread i < n_rows: ``out[0]`` = max(row degree) (atomic max); thread e < nnz: edge e = (u, v) looks for
    (v, u) by binary search in row v (rows sorted) and sets ``out[1] = 1`` when it is missing."""
    i = cuda.grid(1)
    if i < n_rows:
        cuda.atomic.max(out, 0, int64(row_ptr[i + 1] - row_ptr[i]))
    if i < nnz and out[1] == 0:
        u = row_of_dev(row_ptr, n_rows, i)
        v = col_ind[i]
        a = lower_bound_dev(col_ind, row_ptr[v], row_ptr[v + 1], u)
        if a == row_ptr[v + 1] or col_ind[a] != u:
            out[1] = 1


@cuda.jit(cache=CACHE)
def count_nonzero_rows_kernel(a, ptr):
    """ptr[i] = nonzeros of row i of the dense matrix ``a`` (NaN counts as nonzero)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        k = 0
        for j in range(a.shape[1]):
            if a[i, j] != 0:
                k += 1
        ptr[i] = k


@cuda.jit(cache=CACHE)
def fill_nonzero_rows_kernel(a, ptr, ind):
    """The column indices of row i's nonzeros, ascending, at ``ind[ptr[i]:]``."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        k = ptr[i]
        for j in range(a.shape[1]):
            if a[i, j] != 0:
                ind[k] = j
                k += 1


@cuda.jit(cache=CACHE)
def cast_kernel(src, dst):
    """dst[i] = src[i] (a dtype change on the device)."""
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i]


def cast(a, dtype: np.dtype):
    """``a`` as ``dtype`` on the device (``a`` itself when it has that dtype already)."""
    if np.dtype(a.dtype) == np.dtype(dtype):
        return a
    out = cuda.device_array(a.shape[0], dtype=dtype)
    cast_kernel[grid(a.shape[0], 256), 256](a, out)
    return out


def exclusive_scan(a, n: int, _level: int = 0) -> None:
    """Exclusive prefix sum of ``a[:n]`` on the device, in place (deterministic: no atomics)."""
    from ._work import work_array  # noqa: PLC0415

    nb = grid(n, SCAN_BLOCK)
    sums = work_array(f"scan.sums{_level}", nb, np.int64)  # one buffer per recursion level
    scan_block_kernel[nb, SCAN_BLOCK](a, np.int64(n), sums)
    if nb > 1:
        exclusive_scan(sums, nb, _level + 1)
        scan_add_kernel[grid(n, 256), 256](a, np.int64(n), sums)


@cuda.jit(cache=CACHE)
def csr_unsorted_kernel(row_ptr, col_ind, n_rows, nnz, out):
    """``out[0] = 1`` when some row's indices are not strictly ascending (unsorted or duplicated)."""
    e = cuda.grid(1)
    if 0 < e < nnz and out[0] == 0 and col_ind[e] <= col_ind[e - 1]:
        if row_ptr[row_of_dev(row_ptr, n_rows, e)] < e:  # e is not the first edge of its row
            out[0] = 1


def is_sorted_csr(row_ptr, col_ind, n_rows: int, nnz: int) -> bool:
    """Every row of a device CSR strictly ascending (canonical: sorted, no duplicates); one host read."""
    from ._work import work_array  # noqa: PLC0415

    out = work_array("csc.sorted", 1, np.int64)
    zero_kernel[1, 32](out)
    if nnz > 1:
        csr_unsorted_kernel[grid(nnz, 256), 256](row_ptr, col_ind, np.int64(n_rows), np.int64(nnz), out)
    return int(out.copy_to_host()[0]) == 0


def is_symmetric_csr(row_ptr, col_ind, n: int, nnz: int) -> tuple[bool, int]:
    """``(A == A^T as patterns, largest row degree)`` of a square canonical device CSR (rows sorted, no
    duplicates) of ``n`` rows: one launch and one host read."""
    from ._work import work_array  # noqa: PLC0415

    out = work_array("csc.features", 2, np.int64)
    zero_kernel[1, 32](out)
    span = max(n, nnz)
    if span:
        csr_symmetric_kernel[grid(span, 256), 256](row_ptr, col_ind, np.int64(n), np.int64(nnz), out)
    h = out.copy_to_host()
    return bool(h[1] == 0), int(h[0])


def build_csc(row_ptr, col_ind, n_rows: int, n_cols: int, nnz: int, *, work: bool = False,
              features: dict | None = None) -> tuple:
    """``(col_ptr, row_ind)`` on the device from a device CSR (rows ascending per column, the index
    dtype of ``col_ind``); no host copy. A symmetric square pattern returns ``(row_ptr, col_ind)``
    themselves (nothing built; one launch and one host read decide it). ``work``: the CSC comes from
    the work-buffer cache (a graph used for one call only). ``features``: filled with ``symmetric``
    and ``max_degree`` (largest row or column degree; one more host read when the CSC is built)."""
    from ._work import work_array  # noqa: PLC0415

    it = col_ind.dtype
    if nnz and n_rows == n_cols:
        sym, maxr = is_symmetric_csr(row_ptr, col_ind, n_rows, nnz)
        if features is not None:
            features.update(symmetric=sym, max_degree=maxr)
        if sym:
            return row_ptr, col_ind
    alloc = (lambda tag, k: work_array(tag, k, it)) if work else (lambda tag, k: cuda.device_array(k, dtype=it))
    col_ptr = alloc("csc.col_ptr", n_cols + 1)
    row_ind = alloc("csc.row_ind", max(nnz, 1))
    zero_kernel[grid(n_cols + 1, 256), 256](col_ptr)
    if nnz == 0:
        if features is not None:
            features.update(symmetric=n_rows == n_cols, max_degree=0)
        return col_ptr, row_ind
    degree_count_kernel[grid(nnz, 256), 256](col_ind, np.int64(nnz), col_ptr)
    exclusive_scan(col_ptr, n_cols + 1)
    fill = work_array("csc.fill", n_cols, it)
    zero_kernel[grid(n_cols, 256), 256](fill)
    csc_scatter_kernel[grid(nnz, 256), 256](row_ptr, col_ind, np.int64(nnz), np.int64(n_rows), col_ptr, fill,
                                             row_ind)
    big = fill  # reused: the scatter is done with it
    n_big = work_array("csc.n_big", 2, np.int64)
    zero_kernel[1, 32](n_big)
    sort_small_kernel[grid(n_cols, 256), 256](col_ptr, row_ind, np.int64(n_cols), big, n_big)
    # at most nnz / (SMALL + 1) columns are large: the blocks stride over them, no host read of the count
    sort_large_kernel[max(1, min(nnz // (SMALL + 1), 1024)), SORT_BLOCK](col_ptr, row_ind, big, n_big)
    if features is not None:
        if "max_degree" not in features:
            features.update(symmetric=False, max_degree=int(_row_max_degree(row_ptr, n_rows)))
        features["max_degree"] = max(features["max_degree"], int(n_big.copy_to_host()[1]))
    return col_ptr, row_ind


def _row_max_degree(row_ptr, n_rows: int) -> int:
    """The largest row degree (one launch and one host read)."""
    from ._work import work_array  # noqa: PLC0415

    out = work_array("csc.features", 2, np.int64)
    zero_kernel[1, 32](out)
    if n_rows:
        csr_symmetric_kernel[grid(n_rows, 256), 256](row_ptr, row_ptr, np.int64(n_rows), np.int64(0), out)
    return int(out.copy_to_host()[0])


def dense_to_csr(a, it: np.dtype) -> tuple:
    """``(row_ptr, col_ind, nnz)`` of the nonzero pattern of a dense 2-D device array (canonical CSR)."""
    m = a.shape[0]
    ptr = cuda.device_array(m + 1, dtype=it)
    zero_kernel[grid(m + 1, 256), 256](ptr)
    if m:
        count_nonzero_rows_kernel[grid(m, 128), 128](a, ptr)
    exclusive_scan(ptr, m + 1)
    nnz = int(ptr[m:m + 1].copy_to_host()[0])
    ind = cuda.device_array(max(nnz, 1), dtype=it)
    if m and nnz:
        fill_nonzero_rows_kernel[grid(m, 128), 128](a, ptr, ind)
    return ptr, ind, nnz


@cuda.jit(cache=CACHE)
def dense_values_kernel(a, ptr, ind, w):
    """w[k] = a[i, ind[k]] for the entries k of row i (one thread per row)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        for k in range(ptr[i], ptr[i + 1]):
            w[k] = a[i, ind[k]]


def dense_values(a, ptr, ind, nnz: int):
    """The values of the dense 2-D device array ``a`` at its CSR pattern ``(ptr, ind)`` (:func:`dense_to_csr`)."""
    w = cuda.device_array(max(nnz, 1), a.dtype)
    if a.shape[0] and nnz:
        dense_values_kernel[grid(a.shape[0], 128), 128](a, ptr, ind, w)
    return w
