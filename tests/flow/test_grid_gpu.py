"""GPU grid cut layouts: ``layout="tiled"`` (32 x 8 / CudaCuts tiles, the tiled BFS) beside ``"linear"``,
through ``grid_cut(..., backend="gpu")`` against the CPU twin, every answer certified (device, or host for floats) and
its labels' energy equal to the flow value. Tiny tiles (32 threads) make small grids span many tiles and
blocks; grid sizes that are not multiples of the tile (1 x N, 33 x 9, 5 x 7 x 3) leave overhanging threads.
Option checks run without a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
from cases import image_batch_segmentation
from conftest import SIM, device_only, gpu
from hypothesis import given, settings
from hypothesis import strategies as st

from matchflow.flow import grid_cut, grid_energy, offsets
from matchflow.flow._gpu_grid import grid_gpu_options

LOOPS = ("persistent", "host")
# (layout, bfs): the tiled layout with its BFS, and each half alone beside the linear order
LAYOUTS = [("tiled", "tiles"), ("linear", "levels"), ("linear", "tiles"), ("tiled", "levels")]
TINY = {2: (4, 8), 3: (2, 4, 4)}  # 32 threads a tile


def check(src, snk, edg, conn, **opts):
    """GPU (certified: integers on the device, floats on the host) == CPU flow value == the energy of the GPU
    labels (a float answer the host certificate refused would come back from the CPU: backend "cpu")."""
    r = grid_cut(src, snk, edg, connectivity=conn, backend="gpu", **opts)
    c = grid_cut(src, snk, edg, connectivity=conn, backend="cpu")
    floats = any(np.asarray(a).dtype.kind == "f" for a in (src, snk, edg))
    assert r.backend == "gpu" and r.stats["certified"] == ("host" if floats else "device")
    assert r.labels.shape == np.shape(src) and r.labels.dtype == bool
    e = grid_energy(r.labels, src, snk, edg, connectivity=conn)
    if np.asarray(src).dtype.kind == "f":
        assert np.allclose(r.flow_value, c.flow_value, rtol=1e-9, atol=1e-9)
        assert np.allclose(e, r.flow_value, rtol=1e-9, atol=1e-9)
    else:
        assert np.array_equal(r.flow_value, c.flow_value) and np.array_equal(e, r.flow_value)
    return r


def _caps(rng, shape, conn, hi=30, batch=()):
    k = len(offsets(len(shape), conn))
    return (rng.integers(0, hi, batch + shape), rng.integers(0, hi, batch + shape),
            rng.integers(0, hi // 2, batch + (k,) + shape))


# ----------------------------------------------------------------------------- options (no GPU needed)


def test_layout_options_checked_without_a_gpu():
    assert grid_gpu_options({}, 2) == {"layout": "tiled", "bfs": "tiles", "tile_passes": 8, "tile": None}
    assert grid_gpu_options({}, 3) == {"layout": "linear", "bfs": "levels", "tile_passes": 8, "tile": None}
    assert grid_gpu_options({"layout": "linear"}, 2)["bfs"] == "levels"
    big = 1 << 22  # from 4 MP per grid the 2-D default is linear (measured on upscaled photographs)
    assert grid_gpu_options({}, 2, big - 1)["layout"] == "tiled"
    assert grid_gpu_options({}, 2, big) == {"layout": "linear", "bfs": "levels", "tile_passes": 8, "tile": None}
    assert grid_gpu_options({"layout": "tiled"}, 2, big)["bfs"] == "tiles"
    assert grid_gpu_options({"layout": "tiled"}, 3)["bfs"] == "tiles"
    opts = {"tile": (2, 4, 32)}
    assert grid_gpu_options(opts, 3)["tile"] == (2, 4, 32) and opts["block_size"] == 256
    assert grid_gpu_options({"tile": [8, 32]}, 2)["tile"] == (1, 8, 32)
    with pytest.raises(ValueError, match=r"layout must be one of \('linear', 'tiled'\), got 'tiles'"):
        grid_gpu_options({"layout": "tiles"}, 2)
    with pytest.raises(ValueError, match=r"bfs must be one of \('levels', 'tiles'\), got 'bfs'"):
        grid_gpu_options({"bfs": "bfs"}, 2)
    with pytest.raises(ValueError, match=r"tile_passes must be >= 1, got 0"):
        grid_gpu_options({"tile_passes": 0}, 2)
    with pytest.raises(ValueError, match=r"tile must hold powers of two with a product in \[32, 1024\], got \(3, 32\)"):
        grid_gpu_options({"tile": (3, 32)}, 2)
    with pytest.raises(ValueError, match=r"tile must hold powers of two with a product in \[32, 1024\], got \(2, 8\)"):
        grid_gpu_options({"tile": (2, 8)}, 2)
    with pytest.raises(ValueError, match=r"tile must be a tuple \(TY, TX\) of powers of two, got \(1, 8, 32\)"):
        grid_gpu_options({"tile": (1, 8, 32)}, 2)
    with pytest.raises(ValueError, match=r"block_size=64 differs from the tile's 256 threads \(8, 32\): give one"):
        grid_gpu_options({"tile": (8, 32), "block_size": 64}, 2)


# ----------------------------------------------------------------------------- answers on the GPU


@gpu
@pytest.mark.parametrize("layout,bfs", LAYOUTS)
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("conn,shape", [(4, (1, 70)), (4, (33, 9)), (8, (33, 9)), (4, (70, 1)), (6, (5, 7, 3)),
                                        (26, (5, 7, 3))])
def test_layouts_on_grids_not_multiples_of_the_tile(conn, shape, loop, layout, bfs):
    rng = np.random.default_rng(21)
    tile = TINY[len(shape)]
    for hi in (2, 30):
        r = check(*_caps(rng, shape, conn, hi), conn, layout=layout, bfs=bfs, loop=loop, tile=tile, cycle=2,
                  tile_passes=2)
        assert r.stats["layout"] == layout and r.stats["bfs"] == bfs and r.stats["tile"] == tile[-len(shape):]
        ntiles = int(np.prod([-(-n // t) for n, t in zip(shape, tile[-len(shape):], strict=True)]))
        assert r.stats["tiles"] == ntiles
        if bfs == "tiles":
            assert r.stats["bfs_sweeps"] >= r.stats["global_relabels"] and r.stats["bfs_levels"] == 0
    src, snk, edg = (a * 0.25 for a in _caps(rng, shape, conn))  # floats
    check(src, snk, edg, conn, layout=layout, bfs=bfs, loop=loop, tile=tile, cycle=3, tile_passes=1)


@st.composite
def small_grids(draw):
    conn = draw(st.sampled_from([4, 8, 6, 26]))
    shape = draw(st.sampled_from({4: [(1, 1), (1, 9), (3, 4), (9, 40)], 8: [(2, 3), (12, 33)],
                                  6: [(2, 2, 2), (1, 3, 5), (4, 9, 5)], 26: [(2, 2, 2), (3, 5, 6)]}[conn]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    return conn, *_caps(rng, shape, conn, draw(st.sampled_from([2, 5, 40])))


@gpu
@pytest.mark.parametrize("loop", ("host",) if SIM else LOOPS)
@settings(max_examples=4 if SIM else 25, deadline=None)
@given(g=small_grids(), passes=st.sampled_from([1, 3, 8]))
def test_random_grids_tiled_match_the_cpu_twin(g, passes, loop):
    conn, src, snk, edg = g
    check(src, snk, edg, conn, layout="tiled", loop=loop, tile=TINY[src.ndim], cycle=4, tile_passes=passes)


@gpu
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("conn,shape", [(4, (9, 33)), (26, (3, 4, 5))])
def test_tiled_batches_match_the_cpu_item_by_item(conn, shape, loop):
    # a tile never spans two items: tile rows are counted per item, items one after the other
    rng = np.random.default_rng(22)
    src, snk, edg = _caps(rng, shape, conn, 30, batch=(3,))
    r = check(src, snk, edg, conn, layout="tiled", loop=loop, tile=TINY[len(shape)], cycle=2)
    assert r.flow_value.tolist() == [grid_cut(src[b], snk[b], edg[b], connectivity=conn, backend="cpu").flow_value
                                     for b in range(3)]
    assert r.stats["tiles"] == 3 * int(np.prod([-(-n // t) for n, t in zip(shape, TINY[len(shape)][-len(shape):],
                                                                              strict=True)]))


@gpu
def test_tiled_persistent_is_one_launch_with_fewer_grid_syncs():
    # the tiled BFS relaxes inside a tile with block syncs: far fewer grid syncs than BFS levels
    rng = np.random.default_rng(23)
    shape = (24, 64) if SIM else (120, 256)
    src, snk, edg = _caps(rng, shape, 4, 100)
    lin = check(src, snk, edg, 4, layout="linear", loop="persistent", block_size=256)
    til = check(src, snk, edg, 4, layout="tiled", loop="persistent", block_size=256)
    assert til.stats["kernel_launches"] == lin.stats["kernel_launches"] == 4
    assert til.stats["tile"] == (8, 32) and til.stats["grid_size"] <= til.stats["tiles"]
    assert lin.stats["bfs_levels"] > 0 and lin.stats["bfs_sweeps"] == 0
    # per global relabel (the two layouts may take different numbers of rounds)
    assert til.stats["grid_syncs"] / til.stats["global_relabels"] < lin.stats["grid_syncs"] / lin.stats["global_relabels"]
    assert til.stats["global_relabels"] == til.stats["rounds"] + 1


@gpu
@device_only
@pytest.mark.parametrize("conn,shape,tile", [(4, (200, 300), (8, 32)), (8, (120, 150), (8, 32)),
                                             (6, (30, 40, 50), (1, 8, 32)), (6, (30, 40, 50), (2, 4, 32)),
                                             (26, (16, 20, 24), (2, 4, 32))])
def test_tiled_larger_grids_repeated_runs(conn, shape, tile):
    rng = np.random.default_rng(24)
    src, snk, edg = _caps(rng, shape, conn, 100)
    for loop, passes in (("persistent", 8), ("persistent", 1), ("host", 4), ("persistent", 32)):
        r = check(src, snk, edg, conn, layout="tiled", tile=tile, loop=loop, tile_passes=passes, cycle=16)
        assert r.stats["layout"] == "tiled" and r.stats["loop"] == loop


@gpu
@device_only
def test_tiled_image_batch_and_device_arrays():
    cupy = pytest.importorskip("cupy")
    src, snk, edg = image_batch_segmentation(25, 16)
    want = grid_cut(src, snk, edg, connectivity=8, backend="cpu").flow_value
    for _ in range(3):  # lock-free: repeated runs, every one certified and equal
        r = grid_cut(*(cupy.asarray(a) for a in (src, snk, edg)), connectivity=8, backend="gpu", layout="tiled")
        assert isinstance(r.labels, cupy.ndarray) and r.stats["certified"] == "device"  # int32 weights: the device certificate
        assert np.array_equal(r.flow_value, want)
        assert np.array_equal(grid_energy(cupy.asnumpy(r.labels), src, snk, edg, connectivity=8), want)


@gpu
def test_strided_device_arrays_are_copied_once_on_the_device():
    """Fortran-ordered CuPy capacities and a transposed PyTorch view are accepted (one C-contiguous copy on
    the device), not refused; the labels come back in the caller's library."""
    rng = np.random.default_rng(31)
    src, snk, edg = _caps(rng, (23, 17), 4, 50)
    want = grid_cut(src, snk, edg, connectivity=4, backend="cpu").flow_value
    views = []
    try:
        import cupy

        views.append(("cupy", [cupy.asfortranarray(cupy.asarray(a)) for a in (src, snk, edg)], cupy.asnumpy))
    except Exception:  # noqa: BLE001 - CuPy missing or without a usable GPU
        pass
    try:
        import torch

        if torch.cuda.is_available():
            t = [torch.as_tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), device="cuda").transpose(-1, -2)
                 for a in (src, snk, edg)]
            views.append(("torch", t, lambda x: x.cpu().numpy()))
    except Exception:  # noqa: BLE001
        pass
    if not views:
        pytest.skip("neither CuPy nor PyTorch with CUDA is installed")
    for lib, arrs, to_host in views:
        r = grid_cut(*arrs, connectivity=4, backend="gpu")
        assert type(r.labels).__module__.split(".")[0] == lib
        assert np.array_equal(r.flow_value, want), lib
        assert np.array_equal(grid_energy(to_host(r.labels), src, snk, edg, connectivity=4), want)



@gpu
@device_only
def test_wide_host_integers():
    """Host int64 capacities on a grid of 90,000 points, with values in int32 and past it: the answers equal the
    CPU's, twice each."""
    rng = np.random.default_rng(41)
    src, snk, edg = _caps(rng, (300, 300), 4, 100)
    assert src.dtype == np.int64
    for scale in (1, 2**33):
        for _ in range(2):
            check(src * scale, snk * scale, edg * scale, 4)
