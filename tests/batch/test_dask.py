"""matchflow.dask on a dask.distributed LocalCluster with worker processes: the same answers as the direct calls."""

import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster

from matchflow import batch_linear_sum_assignment, grid_cut
from matchflow import dask as mfdask


@pytest.fixture(scope="module")
def client():
    with LocalCluster(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        yield c


def test_batched_assignment_on_worker_processes(client):
    rng = np.random.default_rng(3)
    a = rng.random((40, 9, 7))
    x = mfdask.batch_linear_sum_assignment(da.from_array(a, chunks=(15, 9, 7)), backend="cpu")
    assert isinstance(x, da.Array) and x.shape == (40, 9) and x.chunks[0] == (15, 15, 10)
    assert np.array_equal(x.compute(), batch_linear_sum_assignment(a, backend="cpu"))
    xm = mfdask.batch_linear_sum_assignment(da.from_array(a, chunks=(15, 9, 7)), maximize=True)
    assert np.array_equal(xm.compute(), batch_linear_sum_assignment(a, maximize=True))


def test_batched_grid_cut_on_worker_processes(client):
    rng = np.random.default_rng(4)
    s, t = rng.integers(0, 9, (6, 12, 10)), rng.integers(0, 9, (6, 12, 10))
    e = rng.integers(0, 4, (6, 4, 12, 10))
    want = grid_cut(s, t, e, connectivity=4, backend="cpu").labels
    got = mfdask.grid_cut(da.from_array(s, chunks=(4, 12, 10)), da.from_array(t, chunks=(4, 12, 10)),
                          da.from_array(e, chunks=(4, 4, 12, 10)), backend="cpu")
    assert got.shape == (6, 12, 10) and np.array_equal(got.compute(), want)
    one = mfdask.grid_cut(da.from_array(s, chunks=(3, 12, 10)), da.from_array(t, chunks=(3, 12, 10)), 2)
    assert np.array_equal(one.compute(), grid_cut(s, t, 2, connectivity=4, backend="cpu").labels)


def test_chunks_must_split_the_batch_axis_only():
    a = da.zeros((4, 6, 6), chunks=(2, 3, 6))
    with pytest.raises(ValueError, match=r"costs must be chunked along the batch axis only.*axis 1 split"):
        mfdask.batch_linear_sum_assignment(a)
    with pytest.raises(TypeError, match=r"costs must be a dask.array.Array, got ndarray"):
        mfdask.batch_linear_sum_assignment(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match=r"takes no return_cost="):
        mfdask.batch_linear_sum_assignment(da.zeros((2, 2, 2)), return_cost=True)
    with pytest.raises(ValueError, match=r"sink_caps must match source_caps"):
        mfdask.grid_cut(da.zeros((2, 3, 3), chunks=(1, 3, 3)), da.zeros((2, 3, 3), chunks=(2, 3, 3)), 1)
