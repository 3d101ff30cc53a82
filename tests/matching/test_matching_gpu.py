"""G-PR (GPU push-relabel matching): option validation on the CPU, correctness on the GPU.

GPU tests call the public entry point ``matchflow.bipartite_matching(g, method="gpr", backend="gpu")``
and check every answer with the public certificate ``matchflow.verify.verify_matching`` (valid, and
maximum by the König cover), against the CPU twin (``backend="cpu"``) on the named cases of ``GALLERY``,
and against SciPy's ``maximum_bipartite_matching`` (and brute force on tiny inputs). What no public
matching call reaches (a given start, a device graph, the start alone, int64 device arrays) goes through
the supported GPU surface ``matchflow.gpu``. Tiny block sizes make small inputs span several blocks.
Under ``NUMBA_ENABLE_CUDASIM=1`` the ``host`` loop runs (no warp intrinsics, no grid sync there).
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from conftest import LOOPS, device_only
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import max_matching_bruteforce, scipy_card

import matchflow
from matchflow import generators, gpu
from matchflow._graph import BipartiteGraph, as_bipartite
from matchflow.matching._gpu_push_relabel import GPR_INITS, GPR_VARIANTS, validate_gpr_options
from matchflow.verify import verify_matching

RELABELS = (("fixed", 2), ("adaptive", 0.3), ("adaptive", 0.7))
STARTS = tuple(i for i in GPR_INITS if i != "symmetric")  # "symmetric" needs A == A^T: tested on its own
ROOT = Path(__file__).resolve().parents[2]  # the repository root
DEVDATA = ROOT / ".devdata"


# ----------------------------------------------------------------------------- helpers


def check_matching(g: BipartiteGraph, row_match: np.ndarray, col_match: np.ndarray) -> int:
    """The public certificate on (row_match, col_match) of g (raises with the first problem); the cardinality."""
    return verify_matching(g, row_match, col_match).cardinality


def random_graph(rng: np.random.Generator, m: int, n: int, density: float) -> BipartiteGraph:
    a = sp.random(m, n, density=density, random_state=int(rng.integers(1 << 31)), format="csr")
    return as_bipartite(a)


def gallery() -> list[tuple[str, BipartiteGraph]]:
    rng = np.random.default_rng(12345)
    out = [
        ("empty-0x0", as_bipartite(np.zeros((0, 0)))),
        ("empty-0x5", as_bipartite(np.zeros((0, 5)))),
        ("no-edges-7x4", as_bipartite(np.zeros((7, 4)))),
        ("one-vertex", as_bipartite(np.ones((1, 1)))),
        ("star-col", as_bipartite(np.ones((50, 1)))),  # one column, many rows
        ("star-row", as_bipartite(np.ones((1, 70)))),  # one row, many columns: 69 unmatchable
        ("complete-40", as_bipartite(np.ones((40, 40)))),
        ("diag+ones-row", as_bipartite(np.eye(60) + np.pad(np.ones((1, 60)), ((0, 59), (0, 0))))),
    ]
    # a chain where greedy picks badly (long augmenting paths)
    n = 60
    r = np.concatenate([np.arange(n), np.arange(n - 1)])
    c = np.concatenate([np.arange(n), np.arange(1, n)])
    out.append(("chain-60", BipartiteGraph.from_edges(r, c, (n, n))))
    # half of the columns can only reach a few rows: many unmatchable columns
    a = np.zeros((30, 120))
    a[:5, :] = rng.random((5, 120)) < 0.5
    a[5:, :30] = np.eye(25, 30)
    out.append(("unmatchable", as_bipartite(a)))
    for i, (m, n, d) in enumerate([(100, 100, 0.02), (300, 300, 0.01), (257, 500, 0.005), (600, 150, 0.01),
                                   (1000, 1000, 0.003), (64, 64, 0.1), (2000, 1500, 0.0015)]):
        out.append((f"random-{m}x{n}-{i}", random_graph(rng, m, n, d)))
    return out


GALLERY = gallery()


# ----------------------------------------------------------------------------- CPU: validation


def test_options_defaults_need_no_gpu():
    o = validate_gpr_options()
    assert o["init"] == "auto" and o["variant"] == "shrink" and o["relabel"] == ("adaptive", 0.7)
    assert o["block_size"] == 256 and o["certify"] is True and o["check_every"] >= 1


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"variant": "fast"}, ValueError, r"variant must be one of \('first', 'noshrink', 'shrink'\), got 'fast'"),
        ({"variant": 3}, ValueError, r"variant must be one of .* got 3"),
        ({"init": "random"}, ValueError, r"init must be one of \('none', 'greedy', 'karp-sipser', 'symmetric', 'auto'\), got 'random'"),
        ({"init": 2.5}, ValueError, r"init must be one of .* got 2.5"),
        ({"relabel": "adaptive"}, ValueError, r"relabel must be a pair \(strategy, k\).*got 'adaptive'"),
        ({"relabel": ("sometimes", 1)}, ValueError, r"relabel strategy must be one of \('fixed', 'adaptive'\), got 'sometimes'"),
        ({"relabel": ("fixed", 0)}, ValueError, r"relabel k must be > 0.0, got 0.0"),
        ({"relabel": ("adaptive", -1.5)}, ValueError, r"relabel k must be > 0.0, got -1.5"),
        ({"relabel": ("adaptive", float("inf"))}, ValueError, r"relabel k must be finite, got inf"),
        ({"relabel": ("fixed", "2")}, TypeError, r"relabel k must be a real number, got '2'"),
        ({"block_size": 48}, ValueError, r"block_size must be a power of two in \[32, 1024\], got 48"),
        ({"block_size": 16}, ValueError, r"block_size must be a power of two in \[32, 1024\], got 16"),
        ({"block_size": 2048}, ValueError, r"block_size must be a power of two in \[32, 1024\], got 2048"),
        ({"block_size": 64.0}, TypeError, r"block_size must be an integer, got 64.0"),
        ({"block_size": True}, TypeError, r"block_size must be an integer, got True"),
        ({"check_every": 0}, ValueError, r"check_every must be >= 1, got 0"),
        ({"certify": "yes"}, TypeError, r"certify must be True or False, got 'yes'"),
        ({"bfs": "dfs"}, ValueError, r"bfs must be one of \('rows', 'frontier'\), got 'dfs'"),
        ({"max_rounds": 0}, ValueError, r"max_rounds must be >= 1, got 0"),
        ({"max_rounds": 1.5}, TypeError, r"max_rounds must be an integer, got 1.5"),
        ({"max_rounds": 5, "max_loops": 5}, ValueError, r"gpr_match: give max_rounds= only \(max_loops= is its "
                                                         r"deprecated alias\), not both"),
        ({"loop": "device"}, ValueError, r"loop must be one of \('auto', 'persistent', 'host'\), got 'device'"),
        ({"grid_size": 0}, ValueError, r"grid_size must be >= 1, got 0"),
        ({"hub_degree": -1}, ValueError, r"hub_degree must be >= 0, got -1"),
        ({"max_registers": 8}, ValueError, r"max_registers must be >= 16, got 8"),
        ({"grid_size": 2.5}, TypeError, r"grid_size must be an integer, got 2.5"),
        ({"init_ties": "random"}, ValueError, r"init_ties must be one of \('ids', 'hashed'\), got 'random'"),
        ({"init_chunk": 0}, ValueError, r"init_chunk must be >= 1, got 0"),
        ({"init_aug_rounds": 1001}, ValueError, r"init_aug_rounds must be <= 1000, got 1001"),
        ({"colour": "red"}, TypeError, r"gpr_match got unexpected option\(s\) 'colour'; accepted: "),
        ({"init": np.array([0, 0, -1]), "n_rows": 3, "n_cols": 2}, ValueError, r"init is not a matching"),
        ({"init": np.array([0, 5]), "n_rows": 2, "n_cols": 2}, ValueError, r"init holds column 5, out of range"),
        ({"init": np.array([0, -3]), "n_rows": 2, "n_cols": 2}, ValueError, r"init holds column -3"),
        ({"init": np.array([0]), "n_rows": 2, "n_cols": 2}, ValueError, r"init must have one entry per row \(n_rows=2\), got length 1"),
        ({"init": np.array([[0]]), "n_rows": 1, "n_cols": 1}, ValueError, r"init must be one of .* 1-D integer array"),
    ],
)
def test_options_rejected(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        validate_gpr_options(**kwargs)


def test_options_accept_all_documented_values():
    for v in GPR_VARIANTS:
        for i in GPR_INITS:
            for r in RELABELS:
                for bs in (32, 64, 1024):
                    o = validate_gpr_options(variant=v, init=i, relabel=r, block_size=bs)
                    assert (o["variant"], o["init"], o["relabel"], o["block_size"]) == (v, i, (r[0], float(r[1])), bs)
    o = validate_gpr_options(init=[1, -1, 0], n_rows=3, n_cols=2)
    assert o["init"] == "given" and o["init_match"].tolist() == [1, -1, 0]


def test_gpu_entry_raises_without_gpu(monkeypatch):
    from matchflow import _backend
    from matchflow.matching import _gpu_push_relabel

    monkeypatch.setattr(_backend, "_probe", lambda: (False, "no CUDA-capable GPU or driver was found"))
    monkeypatch.setattr(_gpu_push_relabel, "require_gpu", _backend.require_gpu)
    with pytest.raises(_backend.GPUUnavailableError, match=r"backend='gpu' was requested for G-PR matching"):
        _gpu_push_relabel.gpr_match(as_bipartite(np.eye(3)))
    with pytest.raises(ValueError, match=r"variant must be one of"):  # options are checked before the GPU
        _gpu_push_relabel.gpr_match(as_bipartite(np.eye(3)), variant="x")
    with pytest.raises(TypeError, match=r"graph must be a matchflow.BipartiteGraph or DeviceBipartite, got list"):
        _gpu_push_relabel.gpr_match([[1]])


# ----------------------------------------------------------------------------- GPU


def _gpr(g, **kw):
    """The public GPU call, certified: valid and maximum (König cover) by ``verify_matching``."""
    kw.setdefault("block_size", 32)
    res = matchflow.bipartite_matching(g, method="gpr", backend="gpu", **kw)
    rep = verify_matching(g, res)
    assert rep.valid and rep.maximum and rep.cardinality == res.cardinality, rep.problems
    assert res.backend == "gpu"
    r = np.asarray(res.row_match, dtype=np.int64)
    c = np.asarray(res.col_match, dtype=np.int64)
    return r, c, res.init_cardinality, res.stats


def test_deprecated_option_names_warn_and_still_work():
    """max_loops= (the old name of max_rounds=) works for one release with a DeprecationWarning."""
    with pytest.warns(DeprecationWarning, match=r"gpr_match: option max_loops= is deprecated, use max_rounds= instead"):
        o = validate_gpr_options(max_loops=7)
    assert o["max_rounds"] == 7 and "max_loops" not in o


def test_quiet_swallows_both_numba_performance_warning_classes():
    """numba-cuda raises its own NumbaPerformanceWarning (numba.cuda.core.errors), not numba.core.errors':
    the library's filter must cover both (the first version filtered numba.core's only, and the device log
    showed the low-occupancy warnings reaching the caller), inside the block only. Needs no GPU."""
    import warnings

    from matchflow._cuda._env import performance_warnings, quiet

    cats = performance_warnings()
    names = {f"{c.__module__}.{c.__name__}" for c in cats}
    assert "numba.core.errors.NumbaPerformanceWarning" in names
    try:
        from numba.cuda.core.errors import NumbaPerformanceWarning as Cuda
    except ImportError:
        Cuda = None
    if Cuda is not None:
        assert Cuda in cats
    with warnings.catch_warnings():
        for c in cats:
            warnings.simplefilter("error", c)
        before = list(warnings.filters)
        with quiet():
            for c in cats:
                warnings.warn(c("Grid size 1 will likely result in GPU under-utilization due to low occupancy."),
                              stacklevel=1)
        assert warnings.filters == before
        with pytest.raises(cats[-1]):  # outside the block the caller's filter holds
            warnings.warn(cats[-1]("low occupancy"), stacklevel=1)


def test_public_gpu_surface_imports_no_cuda():
    """``import matchflow.gpu`` (and the option check) work without loading numba.cuda."""
    import subprocess
    import sys

    code = ("import sys, matchflow.gpu as g; from matchflow.matching._gpu_push_relabel import validate_gpr_options; "
            "validate_gpr_options(loop='host'); print('numba.cuda' in sys.modules, g.OPTIONS)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "False" and "max_rounds" in " ".join(out)


@pytest.mark.gpu
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("name", [name for name, _ in GALLERY])
def test_named_cases_match_the_cpu_twin(name, loop):
    """Every named case: the public GPU answer is certified and as large as the CPU twin's (and SciPy's)."""
    g = dict(GALLERY)[name]
    r, c, ic, st = _gpr(g, loop=loop)
    cpu = matchflow.bipartite_matching(g, backend="cpu")
    assert verify_matching(g, cpu).maximum
    assert int(np.count_nonzero(r >= 0)) == cpu.cardinality == scipy_card(g)
    assert st["loop"] == loop or "loop_fallback" in st


@pytest.mark.gpu
def test_numba_performance_warnings_stay_inside():
    """A tiny input is a deliberate low-occupancy launch: numba's NumbaPerformanceWarning must not reach the
    caller (it did before: a 1-block grid on a GPU with 132 SMs), and the caller's filters are left as they were."""
    import warnings

    from matchflow._cuda._env import performance_warnings

    g = as_bipartite(np.eye(3))
    with warnings.catch_warnings():
        for cat in performance_warnings():  # numba-cuda's own class too
            warnings.simplefilter("error", cat)
        before = list(warnings.filters)
        for loop in LOOPS:
            _gpr(g, loop=loop)
            gpu.initial_matching(g, init="karp-sipser", loop=loop)
        assert warnings.filters == before


@pytest.mark.gpu
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("variant", GPR_VARIANTS)
@pytest.mark.parametrize("relabel", RELABELS)
@pytest.mark.parametrize("init", STARTS)
def test_gallery_every_configuration(variant, relabel, init, loop):
    bfs = ("rows", "frontier")[(GPR_VARIANTS.index(variant) + RELABELS.index(relabel) + LOOPS.index(loop)) % 2]
    for name, g in GALLERY:
        ref = scipy_card(g)
        r, c, ic, stats = _gpr(g, variant=variant, relabel=relabel, init=init, bfs=bfs, shrink_threshold=8,
                               check_every=3, loop=loop)
        card = check_matching(g, r, c)
        assert card == ref, (name, bfs, stats)
        assert stats["loop"] == loop and stats["bfs"] == bfs
        assert 0 <= ic <= card and stats["cardinality"] == card
        assert stats["certify_restarts"] == 0, (name, stats)


def is_maximal(g: BipartiteGraph, row_match: np.ndarray, col_match: np.ndarray) -> bool:
    rows, cols = g.edges()
    return not np.any((row_match[rows] < 0) & (col_match[cols] < 0))


@pytest.mark.gpu
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("ties", ("ids", "hashed"))
@pytest.mark.parametrize("init", ("greedy", "karp-sipser"))
def test_initial_matching_valid_and_maximal(init, ties, loop):
    """The GPU start alone (one cooperative launch, or one launch per phase), checked on the CPU:
    valid, maximal, counted right; small grids make every grid-stride loop wrap, hub_degree=1
    sends nearly every vertex to the warp scans."""
    for name, g in GALLERY:
        for rep, (grid, hub, chunk) in enumerate(((None, 32, None), (1, 1, 1), (3, 0, 7))):
            r, c, st = gpu.initial_matching(g, init=init, block_size=32, check_every=2, init_ties=ties, loop=loop,
                                            grid_size=grid, hub_degree=hub, init_chunk=chunk)
            card = check_matching(g, r, c)
            assert is_maximal(g, r, c), (name, rep)
            assert 2 * card >= scipy_card(g), name  # any maximal matching is a 1/2-approximation
            assert st["init_cardinality"] == card and st["cardinality"] == card
            if loop == "persistent" and g.n_rows and g.n_cols:
                # 3 fills (mates, flag), 2 zeroed sync words (persistent Karp-Sipser), start, count or FixMatching
                assert st["kernel_launches"] <= 7 and st["init_rounds"] >= 1, st
                assert grid is None or init == "greedy" or 1 <= st["init_grid_size"] <= grid
            if init == "greedy" and g.n_cols and g.n_rows:
                assert st["init_chunk"] == (chunk or 1) and st["init_rounds"] == 1


@pytest.mark.gpu
def test_auto_start_follows_the_degree_skew():
    """init="auto": the Karp-Sipser-style start where a hub exceeds SKEW x the average degree, else greedy."""
    from matchflow.matching._gpu_push_relabel import SKEW

    rng = np.random.default_rng(5)
    mesh = random_graph(rng, 2000, 2000, 3.0 / 2000)
    a = sp.lil_array(sp.random(2000, 2000, density=3.0 / 2000, random_state=1))
    a[7, :] = 1  # one row adjacent to everything: degree 2000 > SKEW x ~4
    hubs = as_bipartite(sp.csr_array(a))
    sym = as_bipartite(generators.delaunay(3000, seed=2))
    for g, want in ((mesh, "greedy"), (hubs, "karp-sipser"), (sym, "symmetric")):
        r, c, ic, st = _gpr(g, init="auto")
        assert st["init_used"] == want, (want, SKEW)
        assert check_matching(g, r, c) == scipy_card(g)


def symmetric_gallery() -> list[tuple[str, BipartiteGraph]]:
    rs = sp.random(300, 300, density=0.01, random_state=4, format="csr")
    diag = sp.diags((np.arange(300) % 3 == 0).astype(float))
    return [("delaunay-2000", as_bipartite(generators.delaunay(2000, seed=3))),
            ("holes-40", as_bipartite(generators.grid2d(40, 40, holes=0.2, seed=5))),
            ("rgg-1500", as_bipartite(generators.random_geometric(1500, 6.0, seed=6))),
            ("random-sym+diag", as_bipartite(sp.csr_array(rs + rs.T + diag))),
            ("path-7", as_bipartite(generators.grid2d(1, 7))), ("one-vertex", as_bipartite(np.ones((1, 1)))),
            ("empty-4", as_bipartite(np.zeros((4, 4))))]


@pytest.mark.gpu
@pytest.mark.parametrize("aug", (0, 1, 4))
def test_symmetric_start(aug):
    """init="symmetric": valid; without augmentations every vertex is free as a row exactly when it is
    free as a column (the doubled undirected matching, the balance that keeps G-PR short); maximal as an
    undirected matching; G-PR from it is maximum."""
    for name, g in symmetric_gallery():
        for _ in range(2):
            r, c, st = gpu.initial_matching(g, init="symmetric", block_size=32, init_aug_rounds=aug)
            card = check_matching(g, r, c)
            assert st["init_cardinality"] == card
            if aug == 0:
                assert np.array_equal(r < 0, c < 0), name
                rows, cols = g.edges()
                assert not np.any((r[rows] < 0) & (r[cols] < 0) & (rows != cols)), name  # undirected maximal
            rr, cc, ic, st2 = gpu.push_relabel_matching(g, init="symmetric", init_aug_rounds=aug, shrink_threshold=8,
                                                        block_size=32)  # the public call has no symmetric start
            assert check_matching(g, rr, cc) == scipy_card(g), (name, st2)


@pytest.mark.gpu
def test_symmetric_start_rejects_unsymmetric_patterns():
    for a in (np.triu(np.ones((5, 5))), np.ones((3, 4))):
        with pytest.raises(ValueError, match=r"init='symmetric' needs a symmetric pattern"):
            gpu.initial_matching(as_bipartite(a), init="symmetric")


@device_only
@pytest.mark.gpu
def test_auto_bfs_follows_size_and_hubs():
    """bfs=None: the frontier G-GR from FRONTIER_ROWS rows on graphs without hubs, else all rows."""
    from matchflow.matching._gpu_push_relabel import FRONTIER_ROWS

    n = FRONTIER_ROWS
    big = sp.eye(n, format="csr")  # symmetric, no hubs (the start is already perfect: a cheap test)
    rows = np.concatenate([np.arange(n), np.zeros(1024, np.int64)])
    cols = np.concatenate([np.arange(n), np.arange(1024)])  # plus a row of degree 1024 > SKEW x ~1
    hub = sp.coo_array((np.ones(len(rows)), (rows, cols)), shape=(n, n)).tocsr()
    for a, want in ((big, "frontier"), (hub, "rows"), (sp.eye(1000, format="csr"), "rows")):
        g = as_bipartite(sp.csr_array(a))
        r, c, ic, st = _gpr(g, block_size=256)
        assert st["bfs"] == want
        assert np.count_nonzero(r >= 0) == min(g.shape)  # a perfect matching exists (the diagonal)


@pytest.mark.gpu
def test_initial_matching_none_and_given():
    for _name, g in GALLERY:
        r, c, st = gpu.initial_matching(g, init="none", block_size=32)
        assert np.all(r == -1) and np.all(c == -1)
    g = as_bipartite(np.eye(5))
    r, c, st = gpu.initial_matching(g, init=np.array([1, -1, -1, 3, -1]) * 0 + np.array([0, -1, -1, 3, -1]))
    assert r.tolist() == [0, -1, -1, 3, -1] and c.tolist() == [0, -1, -1, 3, -1]


@pytest.mark.gpu
def test_given_initial_matching_and_device_graph():
    rng = np.random.default_rng(7)
    for _ in range(5):
        g = random_graph(rng, 400, 350, 0.01)
        ref = scipy_card(g)
        start = np.full(g.n_rows, -1)
        used = set()
        for u in range(g.n_rows):  # sequential cheap matching on the host
            for v in g.col_ind[g.row_ptr[u]:g.row_ptr[u + 1]]:
                if int(v) not in used:
                    start[u] = v
                    used.add(int(v))
                    break
        r, c, ic, st = gpu.push_relabel_matching(g, init=start, block_size=64)
        assert ic == np.count_nonzero(start >= 0) and check_matching(g, r, c) == ref
        dg = gpu.to_device(g)
        for variant in GPR_VARIANTS:
            r, c, ic, st = gpu.push_relabel_matching(dg, variant=variant, block_size=64)
            assert check_matching(g, r, c) == ref and st["seconds_h2d"] == 0.0


@pytest.mark.gpu
def test_repeated_runs_are_all_maximum():
    """Races differ from run to run: every one of 20 runs must be a maximum matching."""
    rng = np.random.default_rng(99)
    g = random_graph(rng, 3000, 3000, 0.0012)
    ref = scipy_card(g)
    for variant in GPR_VARIANTS:
        for i in range(10):
            r, c, ic, st = _gpr(g, variant=variant, init="greedy", loop=LOOPS[i % 2])
            assert check_matching(g, r, c) == ref


@device_only
@pytest.mark.gpu
@pytest.mark.parametrize("grid_size", (1, 2, 3, 7))
def test_persistent_grid_stride_small_grids(grid_size):
    """The persistent kernel with fewer blocks than rows/columns: every grid-stride loop wraps;
    with and without the warp scans of high-degree vertices (hub_degree=2 sends most to warps)."""
    rng = np.random.default_rng(grid_size)
    for m, n in ((900, 700), (300, 1100)):
        g = random_graph(rng, m, n, 2.5 / max(m, n))
        ref = scipy_card(g)
        for variant in GPR_VARIANTS:
            for bfs, hub in (("rows", 0), ("rows", 2), ("frontier", 2)):
                r, c, ic, st = _gpr(g, variant=variant, bfs=bfs, init="none", loop="persistent",
                                    grid_size=grid_size, shrink_threshold=16, hub_degree=hub)
                assert check_matching(g, r, c) == ref, (variant, bfs, hub, st)
                assert st["grid_size"] == grid_size and st["kernel_launches"] >= 1


@device_only
@pytest.mark.gpu
@pytest.mark.parametrize("block_size", (32, 512, 1024))
def test_persistent_every_block_size(block_size):
    """Large blocks: where one block of the persistent kernel does not fit an SM, the host loop runs."""
    rng = np.random.default_rng(block_size)
    g = random_graph(rng, 3000, 2500, 0.001)
    ref = scipy_card(g)
    for variant in GPR_VARIANTS:
        r, c, ic, st = _gpr(g, variant=variant, loop="persistent", block_size=block_size, init="greedy")
        assert check_matching(g, r, c) == ref, (variant, st)
        assert st["loop"] == "host" if "loop_fallback" in st else st["grid_size"] >= 1


@device_only
@pytest.mark.gpu
@pytest.mark.parametrize("hub", (1, 5, 40))
def test_persistent_warp_scans_of_hubs(hub):
    """Power-law-like graphs (a few rows/columns adjacent to almost everything) with warp scans."""
    rng = np.random.default_rng(hub)
    for m, n in ((500, 400), (257, 700)):
        a = sp.random(m, n, density=3.0 / max(m, n), random_state=int(rng.integers(1 << 31)), format="lil")
        for k in rng.integers(0, m, 3):
            a[int(k), : n - int(rng.integers(0, 5))] = 1  # dense rows
        for k in rng.integers(0, n, 3):
            a[: m - int(rng.integers(0, 5)), int(k)] = 1  # dense columns
        g = as_bipartite(sp.csr_array(a))
        ref = scipy_card(g)
        for variant in GPR_VARIANTS:
            for init in ("none", "karp-sipser"):
                r, c, ic, st = _gpr(g, variant=variant, init=init, loop="persistent", hub_degree=hub,
                                    shrink_threshold=8, block_size=64)
                assert check_matching(g, r, c) == ref, (variant, init, st)
                assert st["hub_degree"] == hub


@pytest.mark.gpu
@settings(max_examples=15, deadline=None)
@given(
    shape=st.tuples(st.integers(0, 9), st.integers(0, 9)),
    density=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**31 - 1),
    variant=st.sampled_from(GPR_VARIANTS),
    init=st.sampled_from(STARTS),
    relabel=st.sampled_from(RELABELS),
    loop=st.sampled_from(LOOPS),
)
def test_hypothesis_tiny_against_brute_force(shape, density, seed, variant, init, relabel, loop):
    rng = np.random.default_rng(seed)
    a = (rng.random(shape) < density).astype(np.int8)
    g = as_bipartite(a)
    r, c, ic, st_ = _gpr(g, variant=variant, init=init, relabel=relabel, shrink_threshold=2, loop=loop)
    assert check_matching(g, r, c) == max_matching_bruteforce(a) == scipy_card(g)


@pytest.mark.gpu
@settings(max_examples=10, deadline=None)
@given(
    m=st.integers(1, 400),
    n=st.integers(1, 400),
    deg=st.floats(0.5, 6.0),
    seed=st.integers(0, 2**31 - 1),
    variant=st.sampled_from(GPR_VARIANTS),
    bfs=st.sampled_from(("rows", "frontier")),
    loop=st.sampled_from(LOOPS),
)
def test_hypothesis_rectangular_against_scipy(m, n, deg, seed, variant, bfs, loop):
    rng = np.random.default_rng(seed)
    nnz = int(deg * max(m, n))
    g = BipartiteGraph.from_edges(rng.integers(0, m, nnz), rng.integers(0, n, nnz), (m, n))  # duplicates merged
    r, c, ic, st_ = _gpr(g, variant=variant, bfs=bfs, shrink_threshold=16, loop=loop)
    assert check_matching(g, r, c) == scipy_card(g)


def _real_files() -> list[Path]:
    dirs = [DEVDATA, Path(os.environ.get("MATCHFLOW_DATA", ROOT.parent / "shared" / "data"))]
    for d in dirs:
        fs = sorted(d.glob("*.mtx.gz")) or sorted(list(d.glob("graphs/*.mtx.gz")) + list(d.glob("matrices/*.mtx.gz")))
        if fs:
            return fs
    return []


def _load(path: Path) -> BipartiteGraph:
    with gzip.open(path) as f:
        a = scipy.io.mmread(f)
    a = sp.csr_array(a)
    if a.nnz:
        a.data[:] = 1  # a pattern: stored zeros are edges too
    return as_bipartite(a)


REAL = _real_files()


@device_only
@pytest.mark.gpu
@pytest.mark.parametrize("path", REAL, ids=[p.name.split(".")[0] for p in REAL])
def test_real_data(path):
    g = _load(path)
    ref = scipy_card(g)
    for variant, init, loop in (("shrink", "karp-sipser", "persistent"), ("noshrink", "greedy", "persistent"),
                                ("first", "none", "persistent"), ("first", "greedy", "host")):
        r, c, ic, st = _gpr(g, variant=variant, init=init, block_size=256, loop=loop)
        assert check_matching(g, r, c) == ref, (variant, init, loop, st)
    # the transpose (rows <-> columns) too
    gt = g.transpose()
    for loop, bfs in (("persistent", "rows"), ("host", "frontier")):
        r, c, ic, st = _gpr(gt, block_size=128, bfs=bfs, loop=loop)
        assert check_matching(gt, r, c) == ref, (loop, bfs, st)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 12), n=st.integers(1, 12), density=st.floats(0.0, 1.0), seed=st.integers(0, 2**31 - 1))
def test_given_start_edge_check_against_dense(m, n, density, seed):
    """The vectorised start check (binary search per row) agrees with a dense lookup; needs no GPU."""
    from matchflow.matching._gpu_push_relabel import _check_init_edges

    rng = np.random.default_rng(seed)
    a = rng.random((m, n)) < density
    g = as_bipartite(a.astype(np.int8))
    start = np.full(m, -1, dtype=np.int64)
    cols = rng.permutation(n)[: min(m, n)]
    rows = rng.permutation(m)[: len(cols)]
    start[rows] = cols  # a matching of the complete graph: some pairs may not be edges
    o = validate_gpr_options(init=start, n_rows=m, n_cols=n)
    bad = [u for u in rows.tolist() if not a[u, start[u]]]
    if bad:
        with pytest.raises(ValueError, match=r"init pairs row \d+ with column \d+, which is not an edge of graph"):
            _check_init_edges(g, o)
    else:
        _check_init_edges(g, o)
        assert all(a[u, start[u]] for u in rows.tolist())


@pytest.mark.gpu
@pytest.mark.parametrize("loop", LOOPS)
def test_int64_index_arrays(loop):
    """Graphs with more than 2^31 edges carry int64 offsets and indices: the kernels are compiled for
    them (checked here on small graphs whose arrays are forced to int64, both drivers, every start)."""
    rng = np.random.default_rng(64)
    for m, n in ((700, 500), (300, 900)):
        g = random_graph(rng, m, n, 3.0 / max(m, n))
        ref = scipy_card(g)
        arrs = [gpu.to_device(np.asarray(a, dtype=np.int64)) for a in (g.row_ptr, g.col_ind, g.col_ptr, g.row_ind)]
        dg = gpu.DeviceBipartite(m, n, *arrs)
        assert dg.col_ptr.dtype == np.int64
        for variant in GPR_VARIANTS:
            for init in ("greedy", "karp-sipser"):
                r, c, ic, st = gpu.push_relabel_matching(dg, variant=variant, init=init, loop=loop, block_size=64,
                                                         hub_degree=4)
                assert check_matching(g, r, c) == ref, (variant, init, st)
        r, c, st = gpu.initial_matching(dg, init="karp-sipser", loop=loop, block_size=32)
        assert is_maximal(g, r, c) and check_matching(g, r, c) == st["init_cardinality"]


# ----------------------------------------------------------------------------- as users call it (issue 9)


def _csc_cases() -> list[tuple[str, sp.csr_array]]:
    rng = np.random.default_rng(909)
    out = [("random", sp.random(300, 200, density=0.03, random_state=1, format="csr"))]
    d = (rng.random((120, 90)) < 0.05).astype(np.int8)
    d[:, 7] = 1  # a column of degree 120 > SMALL: the block bitonic sort (several merge stages)
    d[::2, 8] = 1  # degree 60
    d[:, 9] = 0  # an empty column
    d[5, :] = 0  # an empty row
    out.append(("hubs", sp.csr_array(d)))
    out.append(("one-column", sp.csr_array(np.ones((700, 1), np.int8))))  # degree 700, p = 1024
    out.append(("no-edges", sp.csr_array(np.zeros((6, 4), np.int8))))
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("name,a", _csc_cases(), ids=[c[0] for c in _csc_cases()])
def test_device_csc_equals_scipy(name, a, itype):
    """The CSC built on the device by counting sort is SciPy's (rows ascending per column, whatever order
    the atomics of the scatter took), in the CSR's index dtype; a host graph never builds its own."""
    from matchflow._cuda._graph import from_device_csr

    ref = a.tocsc()
    ref.sort_indices()
    for _ in range(2):  # the same arrays every time
        if itype == np.int32:  # a host graph (BipartiteGraph keeps int32 for small graphs)
            g = BipartiteGraph(a.shape[0], a.shape[1], a.indptr, a.indices)
            dg = gpu.to_device(g)
            assert not g.has_csc, "to_device built the CSC on the host"
        else:  # a device CSR with int64 offsets and indices (graphs of more than 2^31 edges)
            dg = from_device_csr(gpu.to_device(a.indptr.astype(itype)), gpu.to_device(a.indices.astype(itype)),
                                 a.shape[0], a.shape[1], a.nnz)
        assert dg.col_ptr.dtype == itype and dg.row_ind.dtype == itype
        assert np.array_equal(dg.col_ptr.copy_to_host(), ref.indptr)
        assert np.array_equal(dg.row_ind.copy_to_host()[: a.nnz], ref.indices)


@pytest.mark.gpu
def test_public_call_keeps_the_index_dtype_and_builds_no_host_csc():
    """bipartite_matching(A, backend="gpu") on a host graph: mates in the graph's index dtype (int32 stays
    int32: no int64 round trip), the CSC built on the device (``seconds_csc``), none built on the host."""
    rng = np.random.default_rng(91)
    for m, n in ((150, 110), (90, 160)):
        a = sp.random(m, n, density=0.04, random_state=int(rng.integers(1 << 30)), format="csr")
        g = BipartiteGraph(m, n, a.indptr, a.indices)
        assert g.itype == np.int32
        res = matchflow.bipartite_matching(g, backend="gpu", block_size=32)
        assert not g.has_csc
        assert res.row_match.dtype == np.int32 and res.col_match.dtype == np.int32
        assert "seconds_csc" in res.stats and res.stats["seconds_h2d"] >= 0.0
        assert res.cardinality == scipy_card(g)
        verify_matching(g, res.row_match, res.col_match, cover_rows=res.cover_rows, cover_cols=res.cover_cols)


def _device_inputs() -> list:
    """(library, make(dense ndarray) -> device graph, to_host(result array) -> ndarray)."""
    from numba import cuda

    out = [("numba-dense", lambda d: cuda.to_device(d), lambda x: x.copy_to_host())]
    try:
        import cupy
        import cupyx.scipy.sparse as csp
    except Exception:  # noqa: BLE001 - cupy missing or without a usable GPU
        cupy = None
    if cupy is not None:
        out += [("cupy-dense", lambda d: cupy.asarray(d), cupy.asnumpy),
                ("cupy-csr", lambda d: csp.csr_matrix(cupy.asarray(d.astype(np.float32))), cupy.asnumpy),
                ("cupy-csc", lambda d: csp.csc_matrix(cupy.asarray(d.astype(np.float32))), cupy.asnumpy)]
    try:
        import torch

        ok = torch.cuda.is_available()
    except Exception:  # noqa: BLE001
        ok = False
    if ok:
        out += [("torch-dense", lambda d: torch.as_tensor(d, device="cuda"), lambda x: x.cpu().numpy()),
                ("torch-csr", lambda d: torch.as_tensor(d.astype(np.float32), device="cuda").to_sparse_csr(),
                 lambda x: x.cpu().numpy())]
    return out


@pytest.mark.gpu
def test_device_resident_graphs_stay_on_the_device():
    """CuPy sparse/dense, PyTorch CUDA dense/sparse CSR, numba device arrays: solved and covered on the
    device, results of the input's library on the device, certified against the CPU twin."""
    rng = np.random.default_rng(92)
    dense = [(rng.random((80, 60)) < 0.05).astype(np.float64), np.zeros((7, 4)), np.ones((5, 9))]
    dense[0][3, :] = 0.0  # an empty row
    for lib, make, to_host in _device_inputs():
        for d in dense:
            x = make(d)
            res = matchflow.bipartite_matching(x, block_size=32)
            ref = matchflow.bipartite_matching(sp.csr_array(d), backend="cpu")
            assert res.backend == "gpu" and res.stats["seconds_h2d"] == 0.0, lib
            root = (lambda o: type(o).__module__.split(".")[0].replace("cupyx", "cupy"))  # cupyx.scipy.sparse -> cupy
            assert root(res.row_match) == root(x) or lib.startswith("numba"), (lib, type(res.row_match))
            r, c = to_host(res.row_match), to_host(res.col_match)
            cr, cc = to_host(res.cover_rows), to_host(res.cover_cols)
            assert res.cardinality == ref.cardinality == int((r >= 0).sum()), lib
            verify_matching(sp.csr_array(d), r, c, cover_rows=cr, cover_cols=cc)
            assert matchflow.bipartite_matching(x, block_size=32, cover=False).cover_rows is None


@pytest.mark.gpu
def test_device_graph_explicit_zeros():
    """Stored zeros of a device sparse matrix are edges only with explicit_zeros=True (SciPy's rule)."""
    cupy = pytest.importorskip("cupy")
    csp = pytest.importorskip("cupyx.scipy.sparse")
    a = csp.csr_matrix((cupy.asarray([1.0, 0.0]), cupy.asarray([0, 1]), cupy.asarray([0, 1, 2])), shape=(2, 2))
    assert matchflow.bipartite_matching(a).cardinality == 1
    assert matchflow.bipartite_matching(a, explicit_zeros=True).cardinality == 2


def test_device_graph_detection_and_cache_flag_need_no_gpu(monkeypatch):
    """The public door tells device graphs from host ones without importing numba.cuda; the on-disk
    kernel cache is on unless MATCHFLOW_CUDA_CACHE=0, and never used by the simulator."""
    from matchflow._cuda import is_device_graph
    from matchflow._cuda._env import kernel_cache

    for host in (np.zeros((2, 2)), sp.csr_array(np.eye(2)), [[1, 0]], as_bipartite(np.eye(2))):
        assert not is_device_graph(host)
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.delenv("MATCHFLOW_CUDA_CACHE", raising=False)
    assert kernel_cache()
    monkeypatch.setenv("MATCHFLOW_CUDA_CACHE", "0")
    assert not kernel_cache()
    monkeypatch.setenv("MATCHFLOW_CUDA_CACHE", "1")
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    assert not kernel_cache()


# ----------------------------------------------------------------------------- device inputs at the solve's cost


def _sym(a: sp.csr_array) -> sp.csr_array:
    s = ((a + a.T) != 0).astype(np.int8).tocsr()
    s.sort_indices()
    return sp.csr_array(s)


@pytest.mark.gpu
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_symmetric_csr_is_its_own_csc(itype):
    """A symmetric square pattern: build_csc builds nothing (the CSR is the CSC) and records the symmetry and
    the largest degree; one missing mirror edge, or a non-square shape, builds SciPy's CSC as before."""
    from matchflow._cuda._csc import build_csc

    sym = sp.random(70, 70, density=0.05, random_state=5, format="lil")
    sym[3, :] = 1  # a hub row (and, once symmetrised, a hub column: the block sort's case)
    sym = _sym(sp.csr_array(sym.tocsr()))
    holed = sym.tolil()
    r, c = (int(x) for x in np.argwhere(sym.toarray() != 0)[7])
    holed[r, c] = 0  # (r, c) gone, (c, r) kept
    holed = sp.csr_array(holed.tocsr())
    rect = sp.random(60, 75, density=0.05, random_state=6, format="csr")
    for name, a, want_sym in (("symmetric", sym, True), ("one mirror missing", holed, False), ("rect", rect, False)):
        a = sp.csr_array(a)
        a.sort_indices()
        ptr, ind = gpu.to_device(a.indptr.astype(itype)), gpu.to_device(a.indices.astype(itype))
        feats = {}
        cp, ri = build_csc(ptr, ind, a.shape[0], a.shape[1], a.nnz, features=feats)
        assert feats["symmetric"] is want_sym, name
        assert feats["max_degree"] == max(np.diff(a.indptr).max(), np.diff(a.tocsc().indptr).max()), name
        assert (cp is ptr and ri is ind) == want_sym, name
        ref = a.tocsc()
        ref.sort_indices()
        assert np.array_equal(cp.copy_to_host(), ref.indptr), name
        assert np.array_equal(ri.copy_to_host()[: a.nnz], ref.indices), name


@pytest.mark.gpu
def test_sorted_csr_check():
    """is_sorted_csr: rows strictly ascending (a duplicate or a descent inside a row is not canonical; a
    descent across a row boundary is fine)."""
    from matchflow._cuda._csc import is_sorted_csr

    ptr = gpu.to_device(np.array([0, 2, 4, 5], np.int32))
    for ind, ok in (([0, 3, 1, 2, 0], True), ([3, 0, 1, 2, 0], False), ([0, 3, 2, 2, 0], False)):
        assert is_sorted_csr(ptr, gpu.to_device(np.array(ind, np.int32)), 3, 5) is ok, ind


def _ptr(x) -> int:
    return int(x.__cuda_array_interface__["data"][0])


@pytest.mark.gpu
@device_only
def test_device_csr_and_csc_inputs_used_as_they_are():
    """A canonical CuPy CSR / CSC or PyTorch sparse CSR is G-PR's CSR / CSC without a copy (same device
    memory); the other side is built only for a non-symmetric pattern; symmetry and the largest degree are
    recorded for the start rule. A non-canonical PyTorch CSR takes the general conversion. Results certified."""
    from matchflow.matching._gpu_input import device_graph

    rng = np.random.default_rng(94)
    d = (rng.random((90, 70)) < 0.06).astype(np.float32)
    s = _sym(sp.csr_array(d[:70, :70])).toarray().astype(np.float32)
    cases = []
    try:
        import cupy
        import cupyx.scipy.sparse as csp

        def triple(m: sp.sparray, cls):  # a device matrix from its own (data, indices, indptr), as users hold them
            m.sort_indices()
            return cls((cupy.asarray(m.data.astype(np.float32)), cupy.asarray(m.indices), cupy.asarray(m.indptr)),
                       shape=m.shape)

        # (built from a dense CuPy array, the round of 2026-11-23e saw a copy of the CSR: not understood yet)
        cases += [("cupy-csr", triple(sp.csr_array(d), csp.csr_matrix), "row_ptr", cupy.asnumpy),
                  ("cupy-csc", triple(sp.csc_array(d), csp.csc_matrix), "col_ptr", cupy.asnumpy),
                  ("cupy-csr-sym", triple(sp.csr_array(s), csp.csr_matrix), "row_ptr", cupy.asnumpy)]
    except Exception:  # noqa: BLE001
        pass
    try:
        import torch

        if torch.cuda.is_available():
            cases += [("torch-csr", torch.as_tensor(d, device="cuda").to_sparse_csr(), "row_ptr",
                       lambda x: x.cpu().numpy())]
    except Exception:  # noqa: BLE001
        pass
    if not cases:
        pytest.skip("neither CuPy nor PyTorch CUDA here")
    for lib, x, side, to_host in cases:
        dense = s if lib.endswith("sym") else d
        dg, _ = device_graph(x, False)
        given = x.indptr if lib.startswith("cupy") else x.crow_indices()
        assert _ptr(getattr(dg, side)) == _ptr(given), lib
        assert dg.symmetric is lib.endswith("sym"), lib
        assert (dg.col_ptr is dg.row_ptr) is lib.endswith("sym"), lib
        assert dg.max_degree == int(max((dense != 0).sum(0).max(), (dense != 0).sum(1).max())), lib
        res = matchflow.bipartite_matching(x, block_size=32)
        ref = matchflow.bipartite_matching(sp.csr_array(dense), backend="cpu")
        r, c = to_host(res.row_match), to_host(res.col_match)
        assert res.cardinality == ref.cardinality, lib
        verify_matching(sp.csr_array(dense), r, c, cover_rows=to_host(res.cover_rows),
                        cover_cols=to_host(res.cover_cols))
    if any(lib == "torch-csr" for lib, *_ in cases):
        import torch

        t = torch.sparse_csr_tensor(torch.tensor([0, 2, 3], device="cuda"), torch.tensor([1, 0, 1], device="cuda"),
                                    torch.ones(3, device="cuda"), size=(2, 2))  # row 0 unsorted: not canonical
        dg, _ = device_graph(t, False)
        assert _ptr(dg.row_ptr) != _ptr(t.crow_indices())
        res = matchflow.bipartite_matching(t, block_size=32)
        assert res.cardinality == 2


@pytest.mark.gpu
@pytest.mark.parametrize("loop", LOOPS)
def test_cover_from_the_certificate_labels(loop):
    """The König cover of a device-resident graph comes from the certificate BFS's labels (no extra BFS:
    ``stats["cover_bfs"]`` False); with certify=False or a max_rounds stop a BFS runs. Certified each time."""
    from numba import cuda

    rng = np.random.default_rng(95)
    d = (rng.random((50, 40)) < 0.06).astype(np.int8)
    ref = matchflow.bipartite_matching(sp.csr_array(d), backend="cpu").cardinality
    x = cuda.to_device(d)
    for opts, bfs in (({}, False), ({"certify": False}, True), ({"max_rounds": 1}, True)):
        res = matchflow.bipartite_matching(x, block_size=32, loop=loop, **opts)
        if "max_rounds" in opts:  # stopped by the bound (else it finished and certified before it)
            bfs = res.stats["loops"] >= opts["max_rounds"]
        assert res.stats["cover_bfs"] is bfs, opts
        r, c = res.row_match.copy_to_host(), res.col_match.copy_to_host()
        cr, cc = res.cover_rows.copy_to_host(), res.cover_cols.copy_to_host()
        if not opts:
            assert res.cardinality == ref
        # a non-maximum matching (max_rounds) has no cover of its size: the BFS cover is checked when sizes agree
        if res.cardinality == ref:
            verify_matching(sp.csr_array(d), r, c, cover_rows=cr, cover_cols=cc)


@pytest.mark.gpu
def test_work_buffers_are_cached_bounded_and_cleared(monkeypatch):
    """A second call of one size allocates no work buffer; the cache never holds more than its limit;
    clear_work_cache empties it. Results certified every time."""
    from numba import cuda

    from matchflow._cuda import _work

    rng = np.random.default_rng(96)
    d = (rng.random((60, 45)) < 0.07).astype(np.int8)
    a = sp.csr_array(d)
    ref = matchflow.bipartite_matching(a, backend="cpu").cardinality
    x = cuda.to_device(d)
    _work.clear_work_cache()
    for k in range(3):
        res = matchflow.bipartite_matching(x, block_size=32)
        assert res.cardinality == ref
        verify_matching(a, res.row_match.copy_to_host(), res.col_match.copy_to_host(),
                        cover_rows=res.cover_rows.copy_to_host(), cover_cols=res.cover_cols.copy_to_host())
        info = _work.work_cache_info()
        if k == 0:
            first = info["misses"]
            assert first > 0 and info["entries"] == first
        else:
            assert info["misses"] == first and info["hits"] > 0, info  # nothing allocated again
    assert _work.clear_work_cache() > 0 and _work.work_cache_info()["entries"] == 0
    monkeypatch.setattr(_work, "LIMIT_BYTES", 600)
    res = matchflow.bipartite_matching(x, block_size=32)
    assert res.cardinality == ref and _work.work_cache_info()["bytes"] <= 600
    monkeypatch.setattr(_work, "LIMIT_BYTES", 0)  # off: every call allocates
    _work.clear_work_cache()
    res = matchflow.bipartite_matching(x, block_size=32)
    assert res.cardinality == ref and _work.work_cache_info()["entries"] == 0


@pytest.mark.gpu
@pytest.mark.parametrize("loop", LOOPS)
def test_public_host_call_takes_the_cover_from_the_device(loop):
    """bipartite_matching(A, backend="gpu") from a SciPy CSR: the König cover comes back as host masks
    computed on the device from the certificate labels (no host BFS, no extra device BFS); certified."""
    rng = np.random.default_rng(97)
    for m, n in ((70, 55), (40, 90)):
        a = sp.random(m, n, density=0.05, random_state=int(rng.integers(1 << 30)), format="csr")
        res = matchflow.bipartite_matching(a, backend="gpu", block_size=32, loop=loop)
        assert res.stats["cover_bfs"] is False and isinstance(res.cover_rows, np.ndarray)
        assert res.cover_rows.dtype == np.bool_ and res.cover_rows.shape == (m,)
        assert res.cardinality == matchflow.bipartite_matching(a, backend="cpu").cardinality
        verify_matching(a, res.row_match, res.col_match, cover_rows=res.cover_rows, cover_cols=res.cover_cols)
