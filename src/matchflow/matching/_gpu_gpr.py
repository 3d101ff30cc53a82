"""G-PR: push-relabel maximum-cardinality bipartite matching on the GPU (host driver).

Deveci, Kaya, Uçar, Çatalyürek, "A Push-Relabel-Based Maximum Cardinality Bipartite
Matching Algorithm on GPUs", ICPP 2013. The kernels live in ``_gpu_gpr_kernels.py``;
this module validates options (without touching CUDA), moves the graph to the device,
computes the initial matching, runs the main loop (Algorithm 3 / Algorithm 7) and
returns host arrays.

Variants (``variant=``): ``"first"`` (Algorithm 6, one thread per column), ``"noshrink"``
(Algorithm 7 with active lists A_c / A_p, iteration stamps iA) and ``"shrink"`` (plus
G-PR-SHRKRNL after global relabels when |A_c| >= 512). Global-relabel schedule
(``relabel=``): ``("fixed", k)`` every k loops, ``("adaptive", k)`` every k * maxLevel loops.

Beyond the paper (measured in docs/notes/gpr.md): ``loop="persistent"`` (default on a GPU)
runs the whole main loop, every BFS level of the global relabels and the certificate in ONE
cooperative kernel with grid syncs between phases (3-16x faster than one launch per phase);
``loop="host"`` (the simulator's default) launches one kernel per phase and reads the
activity flag every ``check_every`` loops (flags are loop stamps, never reset); both drive
the same device functions. In the persistent kernel a vertex of degree > ``hub_degree`` is
scanned by a whole warp. The global relabel can run on a frontier queue (``bfs="frontier"``)
instead of scanning every row at every level (``bfs="rows"``, the paper's G-GR-KRNL, default:
faster with both drivers), and a final BFS certifies that no augmenting path is left
(``certify=True``): if one is, the main loop resumes.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .._backend import require_gpu
from .._graph import BipartiteGraph
from .._validation import (
    check_bool,
    check_choice,
    check_int,
    check_options,
    check_real,
    type_name,
)

__all__ = ["gpr_match", "gpr_initial_matching", "validate_gpr_options", "to_device", "DeviceBipartite", "GPR_VARIANTS", "GPR_INITS"]

GPR_VARIANTS = ("first", "noshrink", "shrink")
GPR_INITS = ("none", "greedy", "karp-sipser", "symmetric", "auto")
AUG_ROUNDS = 4  # init="symmetric": rounds of length-3 augmentations after the doubled undirected matching
FRONTIER_ROWS = 1 << 22  # bfs=None: the frontier BFS from this many rows on (graphs without hubs)
SKEW = 16  # init="auto": Karp-Sipser-style start when the largest degree exceeds SKEW x the average
GPR_RELABELS = ("fixed", "adaptive")
GPR_BFS = ("rows", "frontier")
GPR_LOOPS = ("auto", "persistent", "host")
_OPTIONS = ("check_every", "certify", "bfs", "max_loops", "shrink_threshold", "init_rounds", "loop", "grid_size",
            "hub_degree", "max_registers", "init_ties", "init_chunk", "init_aug_rounds")
HUB_DEGREE = 32  # persistent driver: vertices of larger degree are scanned by a whole warp
GPR_INIT_TIES = ("ids", "hashed")
INIT_TIES = "ids"  # Karp-Sipser-style start: ties between equal live degrees go to the lowest id
SHRINK_THRESHOLD = 512  # the paper's |A_c| >= 512


def validate_gpr_options(
    *,
    init: Any = "auto",
    variant: Any = "shrink",
    relabel: Any = ("adaptive", 0.7),
    block_size: Any = None,
    n_rows: int | None = None,
    n_cols: int | None = None,
    **opts: Any,
) -> dict[str, Any]:
    """Check every G-PR option; return them normalised. Needs no GPU and imports no CUDA.

    ``init`` may also be an initial matching: an integer array of length ``n_rows`` giving
    each row's column (-1 unmatched), as returned by the CPU solvers.
    """
    check_options("gpr_match", opts, _OPTIONS)
    out: dict[str, Any] = {}
    if isinstance(init, str):
        out["init"] = check_choice("init", init, GPR_INITS)
        out["init_match"] = None
    elif isinstance(init, (np.ndarray, list, tuple)):
        a = np.asarray(init)
        if a.ndim != 1 or not (np.issubdtype(a.dtype, np.integer)):
            raise ValueError(f"init must be one of {GPR_INITS} or a 1-D integer array of row mates, "
                             f"got an array of shape {a.shape} and dtype {a.dtype}")
        if n_rows is not None and len(a) != n_rows:
            raise ValueError(f"init must have one entry per row (n_rows={n_rows}), got length {len(a)}")
        if a.size:
            if int(a.min()) < -1 or (n_cols is not None and int(a.max()) >= n_cols):
                raise ValueError(f"init holds column {int(a.min()) if int(a.min()) < -1 else int(a.max())}, "
                                 f"out of range for n_cols={n_cols} (-1 means unmatched)")
            m = a[a >= 0]
            if m.size and np.bincount(m).max() > 1:  # O(n_rows + n_cols), no sort
                raise ValueError("init is not a matching: a column is the mate of two rows")
        out["init"] = "given"
        out["init_match"] = a.astype(np.int64)
    else:
        raise ValueError(f"init must be one of {GPR_INITS} or a 1-D integer array of row mates, got {init!r}")
    out["variant"] = check_choice("variant", variant, GPR_VARIANTS)
    if (not isinstance(relabel, (tuple, list))) or len(relabel) != 2:
        raise ValueError(f"relabel must be a pair (strategy, k) with strategy in {GPR_RELABELS}, got {relabel!r}")
    strategy = check_choice("relabel strategy", relabel[0], GPR_RELABELS)
    k = check_real("relabel k", relabel[1], low=0.0, low_inclusive=False)
    out["relabel"] = (strategy, k)
    if block_size is None:
        out["block_size"] = 256
    else:
        bs = check_int("block_size", block_size, low=32, high=1024)
        if bs & (bs - 1):
            raise ValueError(f"block_size must be a power of two between 32 and 1024, got {bs}")
        out["block_size"] = bs
    out["check_every"] = check_int("check_every", opts.get("check_every", 4), low=1, high=1 << 20)
    out["certify"] = check_bool("certify", opts.get("certify", True))
    out["loop"] = check_choice("loop", opts.get("loop", "auto"), GPR_LOOPS)
    bfs = opts.get("bfs", None)
    out["bfs"] = None if bfs is None else check_choice("bfs", bfs, GPR_BFS)  # None: the driver's default
    out["hub_degree"] = check_int("hub_degree", opts.get("hub_degree", HUB_DEGREE), low=0)
    mr = opts.get("max_registers", None)
    out["max_registers"] = None if mr is None else check_int("max_registers", mr, low=16, high=255)
    gs = opts.get("grid_size", None)
    out["grid_size"] = None if gs is None else check_int("grid_size", gs, low=1, high=1 << 20)
    ml = opts.get("max_loops", None)
    out["max_loops"] = None if ml is None else check_int("max_loops", ml, low=1)
    out["shrink_threshold"] = check_int("shrink_threshold", opts.get("shrink_threshold", SHRINK_THRESHOLD), low=0)
    out["init_rounds"] = check_int("init_rounds", opts.get("init_rounds", 1 << 16), low=1)
    out["init_ties"] = check_choice("init_ties", opts.get("init_ties", INIT_TIES), GPR_INIT_TIES)
    out["init_aug_rounds"] = check_int("init_aug_rounds", opts.get("init_aug_rounds", AUG_ROUNDS), low=0, high=1000)
    ch = opts.get("init_chunk", None)
    out["init_chunk"] = None if ch is None else check_int("init_chunk", ch, low=1, high=1 << 20)
    return out


class DeviceBipartite:
    """A :class:`BipartiteGraph` whose CSR and CSC arrays are on the GPU (numba device arrays)."""

    __slots__ = ("n_rows", "n_cols", "row_ptr", "col_ind", "col_ptr", "row_ind", "nnz", "seconds_h2d", "max_degree", "symmetric")

    def __init__(self, n_rows: int, n_cols: int, row_ptr: Any, col_ind: Any, col_ptr: Any, row_ind: Any,
                 seconds_h2d: float = 0.0) -> None:
        self.n_rows, self.n_cols = int(n_rows), int(n_cols)
        self.row_ptr, self.col_ind, self.col_ptr, self.row_ind = row_ptr, col_ind, col_ptr, row_ind
        self.nnz = int(col_ind.shape[0])
        self.seconds_h2d = seconds_h2d
        self.max_degree: int | None = None  # largest row or column degree, computed on first use
        self.symmetric: bool | None = None  # A == A^T (init="symmetric"), computed on first use

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_rows, self.n_cols)

    def __repr__(self) -> str:
        return f"DeviceBipartite(n_rows={self.n_rows}, n_cols={self.n_cols}, nnz={self.nnz})"


def to_device(graph: BipartiteGraph) -> DeviceBipartite:
    """Copy (or wrap, for arrays already on the GPU) a graph's CSR and CSC arrays to the device."""
    from numba import cuda  # noqa: PLC0415 - this is a _gpu_ module

    if isinstance(graph, DeviceBipartite):
        return graph
    if not isinstance(graph, BipartiteGraph):
        raise TypeError(f"graph must be a matchflow.BipartiteGraph, got {type_name(graph)}")
    t0 = time.perf_counter()
    arrs = []
    for name in ("row_ptr", "col_ind", "col_ptr", "row_ind"):
        a = getattr(graph, name)
        if hasattr(a, "__cuda_array_interface__"):
            arrs.append(cuda.as_cuda_array(a))
        else:
            a = np.ascontiguousarray(a)
            if a.size == 0:  # numba cannot transfer 0-length arrays everywhere; keep one pad element
                a = np.zeros(1, dtype=a.dtype)
            arrs.append(cuda.to_device(a))
    cuda.synchronize()
    dt = time.perf_counter() - t0
    d = DeviceBipartite(graph.n_rows, graph.n_cols, *arrs, seconds_h2d=dt)
    d.nnz = graph.nnz
    return d


def _grid(n: int, bs: int) -> int:
    return max(1, (n + bs - 1) // bs)


def gpr_match(
    graph: BipartiteGraph | DeviceBipartite,
    *,
    init: Any = "auto",
    variant: str = "shrink",
    relabel: tuple[str, float] = ("adaptive", 0.7),
    block_size: int | None = None,
    **opts: Any,
) -> tuple[np.ndarray, np.ndarray, int, dict[str, Any]]:
    """Maximum-cardinality matching of a bipartite graph with G-PR on the GPU.

    Parameters
    ----------
    graph : BipartiteGraph (host arrays, or arrays exposing ``__cuda_array_interface__``)
        or a :class:`DeviceBipartite` from :func:`to_device` (no host-to-device copy).
    init : "auto" (default: "karp-sipser" on graphs with hubs, else "symmetric" on symmetric
        patterns, else "greedy"), "none", "greedy" (the paper's cheap matching, one pass: each thread
        runs the sequential greedy over ``init_chunk`` consecutive columns, claiming rows by
        compare-and-swap), "karp-sipser" (parallel min-live-degree handshake: degree-1 vertices
        first), "symmetric" (A == A^T only: a maximal matching of the undirected graph, doubled, then
        ``init_aug_rounds`` rounds of length-3 augmentations), or an array of row mates.
    variant : "first", "noshrink" or "shrink".
    relabel : ("fixed", k) or ("adaptive", k), k > 0.
    block_size : threads per block, a power of two in 32..1024 (default 256).
    **opts : check_every (loops between host reads of the activity flag, default 4),
        certify (final BFS proving maximality, default True), bfs ("frontier" or "rows"; default
        "frontier" from 2^22 rows on graphs without hubs, else "rows"),
        max_loops, shrink_threshold (default 512), init_rounds, loop ("auto": "persistent" on a GPU,
        "host" in the simulator; "persistent": one cooperative kernel for the whole main loop;
        "host": one launch per phase), grid_size (persistent: cap on the blocks; default the
        cooperative maximum), hub_degree (persistent: vertices of larger degree are scanned by a
        whole warp; 0 disables; default 32), max_registers (persistent kernel's register cap),
        init_ties ("ids" or "hashed": tie-break of the Karp-Sipser-style start), init_chunk (columns
        per thread of the greedy start; default n / 2^16 clamped to 1..64), init_aug_rounds (default 4).

    Returns
    -------
    row_match, col_match : int64 host arrays, -1 where unmatched.
    init_cardinality : size of the initial matching.
    stats : kernel launches, loops, global relabels, host syncs, timings (seconds_*).
    """
    shape = (graph.n_rows, graph.n_cols) if isinstance(graph, (BipartiteGraph, DeviceBipartite)) else None
    if shape is None:
        raise TypeError(f"graph must be a matchflow.BipartiteGraph or DeviceBipartite, got {type_name(graph)}")
    o = validate_gpr_options(init=init, variant=variant, relabel=relabel, block_size=block_size,
                             n_rows=shape[0], n_cols=shape[1], **opts)
    _check_init_edges(graph, o)
    require_gpu("G-PR matching")
    return _run(graph, o)


def gpr_initial_matching(
    graph: BipartiteGraph | DeviceBipartite, *, init: str = "greedy", block_size: int | None = None, **opts: Any
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Only the GPU initial matching (``"greedy"`` or ``"karp-sipser"``): a maximal matching.

    Returns host ``row_match``, ``col_match`` (-1 unmatched) and stats. This is also the
    smallest end-to-end proof of the GPU pipeline (H2D, kernels, D2H), checked on the CPU.
    """
    if not isinstance(graph, (BipartiteGraph, DeviceBipartite)):
        raise TypeError(f"graph must be a matchflow.BipartiteGraph or DeviceBipartite, got {type_name(graph)}")
    o = validate_gpr_options(init=init, block_size=block_size, n_rows=graph.n_rows, n_cols=graph.n_cols, **opts)
    _check_init_edges(graph, o)
    require_gpu("the G-PR initial matching")
    o["init_only"] = True
    r, c, _, stats = _run(graph, o)
    return r, c, stats


def _check_init_edges(graph: Any, o: dict[str, Any]) -> None:
    """A given start must use edges of the graph (checked on host graphs only)."""
    a = o.get("init_match")
    if a is None or not isinstance(graph, BipartiteGraph) or hasattr(graph.col_ind, "__cuda_array_interface__"):
        return
    rows = np.flatnonzero(a >= 0)
    if rows.size == 0:
        return
    cols = a[rows]
    # Vectorised binary search of each pair's column in its row's sorted slice of col_ind:
    # O(matched rows * log max degree), without expanding all nnz edges.
    lo = graph.row_ptr[rows].astype(np.int64)
    hi = graph.row_ptr[rows + 1].astype(np.int64)
    ci = graph.col_ind
    while True:
        act = lo < hi
        if not act.any():
            break
        mid = (lo + hi) >> 1
        less = np.zeros(rows.size, dtype=bool)
        less[act] = ci[mid[act]] < cols[act]
        lo = np.where(act & less, mid + 1, lo)
        hi = np.where(act & ~less, mid, hi)
    end = graph.row_ptr[rows + 1].astype(np.int64)
    ok = lo < end
    ok[ok] = ci[lo[ok]] == cols[ok]
    if not ok.all():
        u = int(rows[np.argmin(ok)])
        raise ValueError(f"init pairs row {u} with column {int(a[u])}, which is not an edge of graph")


def _run(graph: Any, o: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, int, dict[str, Any]]:
    from numba import cuda  # noqa: PLC0415

    from . import _gpu_gpr_kernels as K  # noqa: PLC0415

    t_start = time.perf_counter()
    m, n = graph.n_rows, graph.n_cols
    loop_mode = o["loop"]
    if loop_mode == "auto":
        loop_mode = "host" if _is_simulator() else "persistent"
    bfs = o["bfs"] or "rows"  # None: decided below by _auto_bfs once the graph is on the device
    stats: dict[str, Any] = {"variant": o["variant"], "relabel": list(o["relabel"]), "init": o["init"],
                             "loop": loop_mode, "bfs": bfs, "grid_size": 0, "grid_syncs": 0,
                             "hub_degree": o["hub_degree"] if loop_mode == "persistent" else 0, "block_size": o["block_size"], "check_every": o["check_every"],
                             "kernel_launches": 0, "loops": 0, "global_relabels": 0, "gr_levels": 0,
                             "max_level": 0, "shrinks": 0, "host_syncs": 0, "init_rounds": 0,
                             "certify_restarts": 0}
    if m == 0 or n == 0:
        stats.update(seconds_h2d=0.0, seconds_init=0.0, seconds_solve=0.0, seconds_d2h=0.0,
                     seconds_total=time.perf_counter() - t_start, cardinality=0, init_cardinality=0)
        return np.full(m, -1, np.int64), np.full(n, -1, np.int64), 0, stats
    if m + n + 4 >= 2**31:
        raise ValueError(f"graph is too large for 32-bit labels: n_rows + n_cols = {m + n}")

    # ---------------------------------------------------------------- H2D
    was_device = isinstance(graph, DeviceBipartite)
    dg = to_device(graph)
    stats["seconds_h2d"] = 0.0 if was_device else dg.seconds_h2d
    bs = o["block_size"]
    launches = [0]
    syncs = [0]

    def launch(kern, size, *args):
        kern[_grid(size, bs), bs](*args)
        launches[0] += 1

    def read(a):
        syncs[0] += 1
        return int(a.copy_to_host()[0])

    it = np.int32
    inf = it(m + n)
    mu_r = cuda.device_array(m, dtype=np.int32)
    mu_c = cuda.device_array(n, dtype=np.int32)
    psi_r = cuda.device_array(m, dtype=np.int32)
    psi_c = cuda.device_array(n, dtype=np.int32)
    flag = cuda.to_device(np.full(1, -1, np.int32))
    counter = cuda.to_device(np.zeros(1, np.int32))
    mx = max(m, n)

    # ---------------------------------------------------------------- initial matching
    t0 = time.perf_counter()
    launch(K.fill_kernel, m, mu_r, it(-1))
    launch(K.fill_kernel, n, mu_c, it(-1))
    if o["bfs"] is None:
        bfs = stats["bfs"] = _auto_bfs(dg, launch)
    if o["init"] == "auto":
        o = {**o, "init": _auto_init(dg, launch, read)}
        stats["init_used"] = o["init"]
    persistent_init = (o["init"] == "karp-sipser" and loop_mode == "persistent" and not _is_simulator()
                       and _run_init_persistent(dg, o, stats, mu_r, mu_c, bs))
    if persistent_init:
        launches[0] += 1
        syncs[0] += 1
    elif o["init"] == "greedy":  # one pass
        from . import _gpu_init_kernels as KI  # noqa: PLC0415

        chunk = o["init_chunk"] or max(1, min(64, n >> 16))
        launch(KI.greedy_chunk_kernel, (n + chunk - 1) // chunk, dg.col_ptr, dg.row_ind, mu_r, mu_c, np.int64(n),
               np.int64(chunk))
        stats["init_rounds"] = 1
        stats["init_chunk"] = chunk
    elif o["init"] == "symmetric":
        if not _is_symmetric(dg, launch, read):
            raise ValueError("init='symmetric' needs a symmetric pattern (n_rows == n_cols and A == A^T)")
        _symmetric_start(dg, o, stats, mu_r, mu_c, launch, read, flag)
    elif o["init"] == "given":
        rm = cuda.to_device(o["init_match"].astype(np.int32))
        launch(K.set_matching_kernel, m, rm, mu_r, mu_c)
    elif o["init"] == "karp-sipser":  # one launch per phase (host loop, simulator)
        from . import _gpu_init_kernels as KI  # noqa: PLC0415

        deg_r = cuda.device_array(m, dtype=np.int32)
        best = cuda.device_array(m, dtype=np.int64)
        hashed = it(o["init_ties"] == "hashed")

        def ks_round(rnd: int) -> None:
            launch(KI.ks_degree_kernel, m, dg.row_ptr, dg.col_ind, mu_r, mu_c, deg_r, best)
            launch(KI.ks_propose_kernel, n, dg.col_ptr, dg.row_ind, mu_r, mu_c, deg_r, best, hashed, it(rnd), flag)
            launch(KI.ks_accept_kernel, m, mu_r, mu_c, best)

        stats["init_rounds"] = _host_rounds(ks_round, o, read, flag)
        launch(KI.clear_dead_kernel, max(m, n), mu_r, mu_c)
    if "init_cardinality" in stats:  # counted by the persistent start
        init_card = stats.pop("init_cardinality")
    else:
        counter.copy_to_device(np.zeros(1, np.int32))
        launch(K.count_matched_rows_kernel, m, mu_r, counter)
        init_card = read(counter)
    cuda.synchronize()
    stats["seconds_init"] = time.perf_counter() - t0
    if o.get("init_only"):
        launch(K.fix_matching_kernel, n, mu_r, mu_c)
        return _finish(mu_r, mu_c, init_card, stats, launches, syncs, t_start)

    # ---------------------------------------------------------------- main loop
    t0 = time.perf_counter()
    if loop_mode == "persistent":
        if _run_persistent(K, dg, o, bfs, stats, mu_r, mu_c, psi_r, psi_c, inf, bs):
            launches[0] += 1
            syncs[0] += 1
            stats["seconds_solve"] = time.perf_counter() - t0
            return _finish(mu_r, mu_c, init_card, stats, launches, syncs, t_start)
        # not one block of bs threads fits an SM (the kernel uses > 128 registers per thread)
        stats["loop"] = "host"
        stats["loop_fallback"] = f"block_size={bs}: no co-resident block for the persistent kernel"
    strategy, k = o["relabel"]
    use_frontier = bfs == "frontier"
    if use_frontier:
        fa = cuda.device_array(m, dtype=np.int32)
        fb = cuda.device_array(m, dtype=np.int32)
        na = cuda.to_device(np.zeros(1, np.int32))
        nb = cuda.to_device(np.zeros(1, np.int32))
    maxlev = cuda.to_device(np.zeros(1, np.int32))

    def global_relabel() -> int:
        """G-GR (Algorithm 4): BFS from every unmatched row; returns maxLevel."""
        stats["global_relabels"] += 1
        launch(K.gr_init_kernel, mx, mu_r, psi_r, psi_c, inf)
        if use_frontier:
            nonlocal fa, fb, na, nb
            na.copy_to_device(np.zeros(1, np.int32))
            launch(K.gr_frontier_seed_kernel, m, mu_r, fa, na)
            size = read(na)
            level = 0
            while size > 0:
                nb.copy_to_device(np.zeros(1, np.int32))
                launch(K.gr_frontier_kernel, size, dg.row_ptr, dg.col_ind, mu_r, mu_c, psi_r, psi_c,
                       it(level), inf, fa, na, fb, nb)
                stats["gr_levels"] += 1
                fa, fb, na, nb = fb, fa, nb, na
                size = read(na)
                level += 2
            maxl = max(level - 2, 0)
        else:
            maxlev.copy_to_device(np.zeros(1, np.int32))
            level = 0
            while True:
                for _ in range(o["check_every"]):
                    launch(K.gr_level_kernel, m, dg.row_ptr, dg.col_ind, mu_r, mu_c, psi_r, psi_c,
                           it(level), inf, maxlev)
                    stats["gr_levels"] += 1
                    level += 2
                maxl = read(maxlev)
                if maxl < level:  # the last launched level added no row
                    break
        stats["max_level"] = maxl
        return maxl

    def next_gr(loop: int, maxl: int) -> int:
        """GetIterGR: the loop of the next global relabel."""
        step = k if strategy == "fixed" else k * maxl
        return loop + max(1, int(math.ceil(step)))

    loop = 0
    max_loops = o["max_loops"]
    variant = o["variant"]
    while True:  # the certify loop: normally runs once
        iter_gr = loop
        if variant == "first":
            while True:
                last = loop
                for _ in range(o["check_every"]):
                    if loop == iter_gr:
                        iter_gr = next_gr(loop, global_relabel())
                    launch(K.pr_first_kernel, n, dg.col_ptr, dg.row_ind, mu_r, mu_c, psi_r, psi_c, inf,
                           it(loop), flag)
                    last = loop
                    loop += 1
                if read(flag) != last or (max_loops is not None and loop >= max_loops):
                    break
        else:
            ac = cuda.device_array(n, dtype=np.int32)
            ap = cuda.device_array(n, dtype=np.int32)
            at = cuda.device_array(n, dtype=np.int32) if variant == "shrink" else None
            ia = cuda.device_array(n, dtype=np.int32)
            launch(K.fill_kernel, n, ia, it(-1))
            counter.copy_to_device(np.zeros(1, np.int32))
            launch(K.list_unmatched_cols_kernel, n, mu_r, mu_c, ac, counter)
            size = read(counter)
            launch(K.fill_kernel, n, ap, it(-1))
            shrink_pending = False
            done = size == 0
            while not done:
                last = loop
                for _ in range(o["check_every"]):
                    if loop == iter_gr:
                        iter_gr = next_gr(loop, global_relabel())
                        shrink_pending = True
                    if shrink_pending and variant == "shrink" and size >= o["shrink_threshold"]:
                        counter.copy_to_device(np.zeros(1, np.int32))
                        launch(K.pr_shrink_kernel, size, ac, ap, it(size), at, counter, mu_r, mu_c, ia,
                               it(loop), flag)
                        stats["shrinks"] += 1
                        size = read(counter)
                        ac, at = at, ac
                        shrink_pending = False
                        if size == 0:  # nothing active: stop
                            done = True
                            break
                    else:
                        launch(K.pr_init_kernel, size, ac, ap, it(size), mu_r, mu_c, ia, it(loop), flag)
                    launch(K.pr_push_kernel, size, dg.col_ptr, dg.row_ind, mu_r, mu_c, psi_r, psi_c, ac, ap,
                           it(size), ia, it(loop), inf)
                    ac, ap = ap, ac
                    last = loop
                    loop += 1
                if done or read(flag) != last or (max_loops is not None and loop >= max_loops):
                    done = True
        stats["loops"] = loop
        launch(K.fix_matching_kernel, n, mu_r, mu_c)
        if not o["certify"] or (max_loops is not None and loop >= max_loops):
            break
        # Certificate: no unmatched column is reachable from an unmatched row (no augmenting path).
        global_relabel()
        counter.copy_to_device(np.zeros(1, np.int32))
        launch(K.certify_kernel, n, mu_r, mu_c, psi_c, inf, counter)
        if read(counter) == 0:
            break
        stats["certify_restarts"] += 1
        if stats["certify_restarts"] > 3:
            raise RuntimeError("G-PR left augmenting paths after 3 restarts; please report this bug")
    cuda.synchronize()
    stats["seconds_solve"] = time.perf_counter() - t0

    return _finish(mu_r, mu_c, init_card, stats, launches, syncs, t_start)


_COOP_CACHE: dict = {}


def _is_simulator() -> bool:
    import os  # noqa: PLC0415

    return os.environ.get("NUMBA_ENABLE_CUDASIM", "") not in ("", "0")


def _cooperative_kernel(kern: Any, args: tuple, bs: int, dg: DeviceBipartite, mr: int | None = None
                        ) -> tuple[Any, int]:
    """A persistent kernel compiled for ``args`` and its most co-resident blocks of ``bs`` threads,
    cached per kernel, block size, register cap and index dtypes of ``dg``.

    The G-PR kernel needs more than 128 registers per thread (measured: one block of 256 per H200
    SM), so a block of 512 or 1024 threads may not fit an SM at all: then gmax is 0 and the
    caller falls back to one launch per phase.
    """
    from numba import cuda  # noqa: PLC0415

    key = (kern.py_func.__name__, bs, mr, str(dg.col_ptr.dtype), str(dg.row_ind.dtype), str(dg.row_ptr.dtype),
           str(dg.col_ind.dtype))
    if key not in _COOP_CACHE:
        if mr is not None:
            kern = cuda.jit(max_registers=mr)(kern.py_func)
        spec = kern.specialize(*args)
        kobj = next(iter(spec.overloads.values()))
        _COOP_CACHE[key] = (spec, int(kobj.max_cooperative_grid_blocks(bs)))
    return _COOP_CACHE[key]


def _run_persistent(K: Any, dg: DeviceBipartite, o: dict[str, Any], bfs: str, stats: dict[str, Any], mu_r: Any,
                    mu_c: Any, psi_r: Any, psi_c: Any, inf: Any, bs: int) -> bool:
    """The main loop as ONE cooperative launch of ``pr_persistent_kernel`` (``loop="persistent"``).

    Grid: the most co-resident blocks (``max_cooperative_grid_blocks``), at most one thread per
    row/column; the simulator runs cooperative kernels with one block only. Returns False (and
    runs nothing) when not even one block of ``bs`` threads fits an SM.
    """
    from numba import cuda  # noqa: PLC0415

    m, n = dg.n_rows, dg.n_cols
    variant = {"first": K.VAR_FIRST, "noshrink": K.VAR_NOSHRINK, "shrink": K.VAR_SHRINK}[o["variant"]]
    lists = n if variant != K.VAR_FIRST else 1
    ac, ap, at, ia = (cuda.device_array(lists, dtype=np.int32) for _ in range(4))
    fl = m if bfs == "frontier" else 1
    fa, fb = cuda.device_array(fl, dtype=np.int32), cuda.device_array(fl, dtype=np.int32)
    sync = cuda.to_device(np.zeros(K.PS_NSYNC, np.int32))
    dstats = cuda.to_device(np.zeros(K.ST_N, np.int64))
    strategy, k = o["relabel"]
    ml = o["max_loops"] or 0
    args = (dg.col_ptr, dg.row_ind, dg.row_ptr, dg.col_ind, mu_r, mu_c, psi_r, psi_c, ac, ap, at, ia, fa, fb,
            sync, dstats, np.int64(m), np.int64(n), np.int32(inf), np.int32(variant),
            np.int32(bfs == "frontier"), np.int32(strategy == "adaptive"), np.float64(k), np.int64(ml),
            np.int64(o["shrink_threshold"]), np.int32(o["certify"]), np.int64(o["hub_degree"]))
    kern = K.pr_persistent_kernel
    want = max(1, (max(m, n) + bs - 1) // bs)
    mr = o["max_registers"]
    if _is_simulator():
        grid = 1
    else:
        kern, gmax = _cooperative_kernel(K.pr_persistent_kernel, args, bs, dg, mr)
        if gmax < 1:
            if mr is not None:
                raise ValueError(f"block_size={bs} with max_registers={mr} leaves no co-resident block for the "
                                 f"persistent G-PR kernel on this GPU; use a smaller block_size or loop='host'")
            return False
        grid = min(gmax, want)
    if o["grid_size"] is not None:
        grid = min(grid, o["grid_size"]) if not _is_simulator() else 1
    kern[grid, bs](*args)
    st = dstats.copy_to_host()
    stats["grid_size"] = int(grid)
    stats["max_registers"] = mr
    stats["loops"] = int(st[K.ST_LOOPS])
    stats["global_relabels"] = int(st[K.ST_GR])
    stats["gr_levels"] = int(st[K.ST_LEVELS])
    stats["max_level"] = int(st[K.ST_MAXL])
    stats["shrinks"] = int(st[K.ST_SHRINKS])
    stats["certify_restarts"] = int(st[K.ST_RESTARTS])
    stats["grid_syncs"] = int(st[K.ST_SYNCS])
    if int(st[K.ST_STATUS]) != K.STATUS_OK:
        raise RuntimeError("G-PR left augmenting paths after 3 restarts; please report this bug")
    return True


def _host_rounds(one_round: Any, o: dict[str, Any], read: Any, flag: Any) -> int:
    """Rounds of a start launched from the host until one stamps no activity in ``flag`` (rounds write
    their index there; the host reads it every ``check_every`` rounds) or ``init_rounds`` ran.
    Returns the rounds launched (up to check_every - 1 idle ones after the last active)."""
    rnd = 0
    while rnd < o["init_rounds"]:
        last = rnd
        for _ in range(min(o["check_every"], o["init_rounds"] - rnd)):
            one_round(rnd)
            last = rnd
            rnd += 1
        if read(flag) != last:
            break
    return rnd


def _is_symmetric(dg: DeviceBipartite, launch: Any, read: Any) -> bool:
    """A == A^T as patterns: square, and the CSR arrays equal the CSC arrays (cached on ``dg``)."""
    from numba import cuda  # noqa: PLC0415

    from . import _gpu_init_kernels as KI  # noqa: PLC0415

    if dg.symmetric is None:
        sym = dg.n_rows == dg.n_cols
        if sym and dg.nnz:
            flag = cuda.to_device(np.zeros(1, np.int32))
            launch(KI.same_pattern_kernel, dg.n_rows + 1, dg.row_ptr, dg.col_ptr, flag)
            launch(KI.same_pattern_kernel, dg.nnz, dg.col_ind, dg.row_ind, flag)
            sym = read(flag) == 0
        dg.symmetric = bool(sym)
    return dg.symmetric


def _symmetric_start(dg: DeviceBipartite, o: dict[str, Any], stats: dict[str, Any], mu_r: Any, mu_c: Any,
                     launch: Any, read: Any, flag: Any) -> None:
    """init="symmetric": the undirected handshake matching, doubled, then length-3 augmentations."""
    from numba import cuda  # noqa: PLC0415

    from . import _gpu_gpr_kernels as K  # noqa: PLC0415
    from . import _gpu_init_kernels as KI  # noqa: PLC0415

    n = dg.n_cols
    it = np.int32
    mate = cuda.device_array(n, dtype=np.int32)
    pt = cuda.device_array(n, dtype=np.int32)
    launch(K.fill_kernel, n, mate, it(-1))

    def handshake_round(rnd: int) -> None:
        launch(KI.sym_propose_kernel, n, dg.row_ptr, dg.col_ind, mate, pt, it(rnd), flag)
        launch(KI.sym_match_kernel, n, mate, pt)

    stats["init_rounds"] = _host_rounds(handshake_round, o, read, flag)
    launch(KI.sym_double_kernel, n, dg.row_ptr, dg.col_ind, mate, mu_r, mu_c)
    aug = o["init_aug_rounds"]
    if aug:
        cw = cuda.device_array(n, dtype=np.int64)
        cu = cuda.device_array(n, dtype=np.int64)
        launch(K.fill_kernel, n, cw, np.int64(KI.KEY_MAX))
        launch(K.fill_kernel, n, cu, np.int64(KI.KEY_MAX))
        pu, pw, pu2 = (cuda.device_array(n, dtype=np.int32) for _ in range(3))
        for r in range(aug):
            launch(KI.aug3_propose_kernel, n, dg.col_ptr, dg.row_ind, mu_r, mu_c, cw, cu, pu, pw, pu2, it(r), flag)
            launch(KI.aug3_apply_kernel, n, mu_r, mu_c, cw, cu, pu, pw, pu2, it(r))
        launch(KI.clear_dead_kernel, n, mu_r, mu_c)
    stats["init_aug_rounds"] = aug


def _skewed(dg: DeviceBipartite, launch: Any) -> bool:
    """Largest row or column degree > SKEW x the average (hubs: power-law graphs); cached on ``dg``."""
    from numba import cuda  # noqa: PLC0415

    from . import _gpu_init_kernels as KI  # noqa: PLC0415

    if dg.max_degree is None:
        out = cuda.to_device(np.zeros(2, np.int64))
        launch(KI.max_degree_kernel, dg.n_cols, dg.col_ptr, out, 0)
        launch(KI.max_degree_kernel, dg.n_rows, dg.row_ptr, out, 1)
        dg.max_degree = int(out.copy_to_host().max())
    avg = dg.nnz / max(1, min(dg.n_rows, dg.n_cols))
    return dg.max_degree > SKEW * max(avg, 1.0)


def _auto_bfs(dg: DeviceBipartite, launch: Any) -> str:
    """bfs=None: the frontier G-GR on large graphs without hubs (>= FRONTIER_ROWS rows: scanning every
    row at each of thousands of levels dominates there; delaunay_n24 1268 -> 421 ms, delaunay_n22
    185 -> 117 ms, road_n22 81 -> 63 ms; rgg_n22 84 -> 91 ms is the one loss measured), else the
    paper's all-rows G-GR-KRNL (faster below that size and on hub graphs: docs/notes/gpr.md)."""
    if dg.n_rows < FRONTIER_ROWS:
        return "rows"
    return "rows" if _skewed(dg, launch) else "frontier"


def _auto_init(dg: DeviceBipartite, launch: Any, read: Any) -> str:
    """init="auto": the Karp-Sipser-style start on graphs with hubs (largest degree > SKEW x average:
    power-law graphs, where its degree-1 rule and warp scans pay); else on symmetric patterns the
    doubled undirected matching (free rows and columns balanced in every region, as after the
    sequential greedy: G-PR then needs few loops on meshes and roads); else the chunked greedy.
    Measured in docs/notes/gpr.md (device rounds 6-8)."""
    if _skewed(dg, launch):
        return "karp-sipser"
    return "symmetric" if _is_symmetric(dg, launch, read) else "greedy"


def _run_init_persistent(dg: DeviceBipartite, o: dict[str, Any], stats: dict[str, Any], mu_r: Any, mu_c: Any,
                         bs: int) -> bool:
    """The GPU Karp-Sipser-style start as ONE cooperative launch of ``init_persistent_kernel``.

    Returns False (and runs nothing) when no block of ``bs`` threads is co-resident: the caller then
    runs the one-launch-per-phase start."""
    from numba import cuda  # noqa: PLC0415

    from . import _gpu_init_kernels as KI  # noqa: PLC0415

    m, n = dg.n_rows, dg.n_cols
    deg_r = cuda.device_array(m, dtype=np.int32)
    best = cuda.device_array(m, dtype=np.int64)
    sync = cuda.to_device(np.zeros(KI.PS_NSYNC, np.int32))
    dstats = cuda.to_device(np.zeros(KI.IST_N, np.int64))
    args = (dg.row_ptr, dg.col_ind, dg.col_ptr, dg.row_ind, mu_r, mu_c, deg_r, best, sync, dstats, np.int64(m),
            np.int64(n), np.int64(o["init_rounds"]), np.int64(o["hub_degree"]),
            np.int32(o["init_ties"] == "hashed"))
    kern, gmax = _cooperative_kernel(KI.init_persistent_kernel, args, bs, dg)
    if gmax < 1:
        stats["init_fallback"] = f"block_size={bs}: no co-resident block for the persistent start"
        return False
    grid = max(1, min(gmax, (max(m, n) + bs - 1) // bs))
    if o["grid_size"] is not None:
        grid = min(grid, o["grid_size"])
    kern[grid, bs](*args)
    st = dstats.copy_to_host()
    stats["init_rounds"] = int(st[KI.IST_ROUNDS])
    stats["init_cardinality"] = int(st[KI.IST_CARD])
    stats["init_grid_size"] = int(grid)
    return True


def _finish(mu_r: Any, mu_c: Any, init_card: int, stats: dict, launches: list, syncs: list, t_start: float
            ) -> tuple[np.ndarray, np.ndarray, int, dict[str, Any]]:
    """Copy the matching back (D2H) and complete the stats."""
    t0 = time.perf_counter()
    row_match = mu_r.copy_to_host().astype(np.int64)
    col_match = mu_c.copy_to_host().astype(np.int64)
    stats["seconds_d2h"] = time.perf_counter() - t0
    stats["kernel_launches"] = launches[0]
    stats["host_syncs"] = syncs[0]
    stats["init_cardinality"] = init_card
    stats["cardinality"] = int(np.count_nonzero(row_match >= 0))
    stats["seconds_total"] = time.perf_counter() - t_start
    return row_match, col_match, init_card, stats
