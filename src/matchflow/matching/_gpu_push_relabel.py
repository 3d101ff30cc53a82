"""G-PR: push-relabel maximum-cardinality bipartite matching on the GPU (host driver).

Deveci, Kaya, Uçar, Çatalyürek, "A Push-Relabel-Based Maximum Cardinality Bipartite
Matching Algorithm on GPUs", ICPP 2013. The kernels live in ``_gpu_push_relabel_kernels.py`` and
``_gpu_init_kernels.py``; the shared GPU layer (options, launches, cooperative cache, device
graph) in ``matchflow._cuda``. A solve is a small state object with named stages (Gunrock's
problem / enactor split): ``start`` (H2D, device arrays, the initial matching), ``solve`` (the
main loop, Algorithm 3 / Algorithm 7), ``certify`` (a final BFS: no augmenting path is left;
if one is, ``solve`` resumes) and ``finish`` (D2H, stats).

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
instead of scanning every row at every level (``bfs="rows"``, the paper's G-GR-KRNL), and a
final BFS certifies that no augmenting path is left (``certify=True``).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .._backend import require_gpu
from .._cuda import is_simulator, quiet, validate_gpu_options
from .._graph import BipartiteGraph
from .._validation import check_bool, check_choice, check_int, check_options, check_real, type_name

__all__ = ["gpr_match", "gpr_match_device", "bipartite_matching_device", "gpr_initial_matching", "validate_gpr_options", "GPR_VARIANTS", "GPR_INITS"]

GPR_VARIANTS = ("first", "noshrink", "shrink")
GPR_INITS = ("none", "greedy", "karp-sipser", "symmetric", "auto")
AUG_ROUNDS = 4  # init="symmetric": rounds of length-3 augmentations after the doubled undirected matching
FRONTIER_ROWS = 1 << 22  # bfs=None: the frontier BFS from this many rows on (graphs without hubs)
SKEW = 16  # init="auto": Karp-Sipser-style start when the largest degree exceeds SKEW x the average
GPR_RELABELS = ("fixed", "adaptive")
GPR_BFS = ("rows", "frontier")
GPR_LOOPS = ("auto", "persistent", "host")
_OPTIONS = ("check_every", "bfs", "shrink_threshold", "init_rounds", "hub_degree", "max_registers", "init_ties",
            "init_chunk", "init_aug_rounds", "device_cover")
_DEPRECATED = {"max_loops": ("max_rounds", None)}
HUB_DEGREE = 32  # persistent driver: vertices of larger degree are scanned by a whole warp
GPR_INIT_TIES = ("ids", "hashed")
INIT_TIES = "ids"  # Karp-Sipser-style start: ties between equal live degrees go to the lowest id
SHRINK_THRESHOLD = 512  # the paper's |A_c| >= 512


def __getattr__(name: str) -> Any:
    """``DeviceBipartite`` and ``to_device`` live in ``matchflow._cuda._graph`` (loaded with numba.cuda)."""
    if name in ("DeviceBipartite", "to_device"):
        from .._cuda import _graph  # noqa: PLC0415

        return getattr(_graph, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _work(tag: str, n: int, dtype: Any) -> Any:
    """A scratch device array of this solve (``matchflow._cuda._work``: cached per tag, size and dtype)."""
    from .._cuda._work import work_array  # noqa: PLC0415

    return work_array("gpr." + tag, n, dtype)


def _is_device_graph(graph: Any) -> bool:
    return type(graph).__name__ == "DeviceBipartite" and type(graph).__module__ == "matchflow._cuda._graph"


def validate_gpr_options(
    *,
    init: Any = "auto",
    variant: Any = "shrink",
    relabel: Any = ("adaptive", 0.7),
    n_rows: int | None = None,
    n_cols: int | None = None,
    **opts: Any,
) -> dict[str, Any]:
    """Check every G-PR option; return them normalised. Needs no GPU and imports no CUDA.

    The GPU vocabulary of ``matchflow._cuda`` (``loop``, ``certify``, ``max_rounds``, ``block_size``: a
    power of two in [32, 1024], default 256, ``grid_size``) plus the G-PR options; ``max_loops`` is the
    deprecated name of ``max_rounds``. ``init`` may also be an initial matching: an integer array of
    length ``n_rows`` giving each row's column (-1 unmatched), as returned by the CPU solvers.
    """
    opts = dict(opts)
    out = validate_gpu_options("gpr_match", opts, block_low=32, deprecated=_DEPRECATED)
    check_options("gpr_match", opts, _OPTIONS)
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
    out["check_every"] = check_int("check_every", opts.get("check_every", 4), low=1, high=1 << 20)
    bfs = opts.get("bfs", None)
    out["bfs"] = None if bfs is None else check_choice("bfs", bfs, GPR_BFS)  # None: the driver's default
    out["hub_degree"] = check_int("hub_degree", opts.get("hub_degree", HUB_DEGREE), low=0)
    mr = opts.get("max_registers", None)
    out["max_registers"] = None if mr is None else check_int("max_registers", mr, low=16, high=255)
    out["shrink_threshold"] = check_int("shrink_threshold", opts.get("shrink_threshold", SHRINK_THRESHOLD), low=0)
    out["init_rounds"] = check_int("init_rounds", opts.get("init_rounds", 1 << 16), low=1)
    out["init_ties"] = check_choice("init_ties", opts.get("init_ties", INIT_TIES), GPR_INIT_TIES)
    out["init_aug_rounds"] = check_int("init_aug_rounds", opts.get("init_aug_rounds", AUG_ROUNDS), low=0, high=1000)
    ch = opts.get("init_chunk", None)
    out["init_chunk"] = None if ch is None else check_int("init_chunk", ch, low=1, high=1 << 20)
    out["device_cover"] = check_bool("device_cover", opts.get("device_cover", False))
    return out


def gpr_match(graph: Any, *, init: Any = "auto", variant: str = "shrink",
              relabel: tuple[str, float] = ("adaptive", 0.7), **opts: Any
              ) -> tuple[np.ndarray, np.ndarray, int, dict[str, Any]]:
    """Maximum-cardinality matching of a bipartite graph with G-PR on the GPU.

    Parameters
    ----------
    graph : BipartiteGraph (host arrays, or arrays exposing ``__cuda_array_interface__``)
        or a ``DeviceBipartite`` from :func:`matchflow.gpu.to_device` (no host-to-device copy).
    init : "auto" (default: "karp-sipser" on graphs with hubs, else "symmetric" on symmetric
        patterns, else "greedy"), "none", "greedy" (the paper's cheap matching, one pass: each thread
        runs the sequential greedy over ``init_chunk`` consecutive columns, claiming rows by
        compare-and-swap), "karp-sipser" (parallel min-live-degree handshake: degree-1 vertices
        first), "symmetric" (A == A^T only: a maximal matching of the undirected graph, doubled, then
        ``init_aug_rounds`` rounds of length-3 augmentations), or an array of row mates.
    variant : "first", "noshrink" or "shrink".
    relabel : ("fixed", k) or ("adaptive", k), k > 0.
    **opts : the GPU vocabulary: loop ("auto": "persistent" on a GPU, "host" in the simulator;
        "persistent": one cooperative kernel for the whole main loop; "host": one launch per phase),
        certify (final BFS proving maximality, default True), max_rounds (bound on the main loop's
        loops; ``max_loops`` is its deprecated name), block_size (a power of two in 32..1024, default
        256), grid_size (persistent: cap on the blocks; default the cooperative maximum); and
        check_every (loops between host reads of the activity flag, default 4), bfs ("frontier" or
        "rows"; default "frontier" from 2^22 rows on graphs without hubs, else "rows"),
        shrink_threshold (default 512), init_rounds, hub_degree (persistent: vertices of larger degree
        are scanned by a whole warp; 0 disables; default 32), max_registers (persistent kernel's
        register cap), init_ties ("ids" or "hashed"), init_chunk (columns per thread of the greedy
        start; default n / 2^16 clamped to 1..64), init_aug_rounds (default 4), device_cover (default False:
        the König cover computed on the device from the certificate BFS's labels and returned as host
        boolean masks ``stats["cover_rows"]``, ``stats["cover_cols"]``; ``bipartite_matching`` sets it).

    Returns
    -------
    row_match, col_match : host arrays in the graph's index dtype (int32 stays int32; an int64 graph's
        mates are cast on the device), -1 where unmatched.
    init_cardinality : size of the initial matching.
    stats : kernel launches, loops, global relabels, host syncs, timings (``seconds_<stage>``: h2d, csc (the
        CSC built on the device by counting sort when the host graph had none), init, solve, certify, d2h, total).
    """
    if not isinstance(graph, BipartiteGraph) and not _is_device_graph(graph):
        raise TypeError(f"graph must be a matchflow.BipartiteGraph or DeviceBipartite, got {type_name(graph)}")
    o = validate_gpr_options(init=init, variant=variant, relabel=relabel, n_rows=graph.n_rows, n_cols=graph.n_cols,
                             **opts)
    _check_init_edges(graph, o)
    require_gpu("G-PR matching")
    with quiet():
        return _run(graph, o)


def gpr_initial_matching(graph: Any, *, init: str = "greedy", **opts: Any
                         ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Only the GPU initial matching (``"greedy"`` or ``"karp-sipser"``): a maximal matching.

    Returns host ``row_match``, ``col_match`` (-1 unmatched) and stats. This is also the
    smallest end-to-end proof of the GPU pipeline (H2D, kernels, D2H), checked on the CPU.
    """
    if not isinstance(graph, BipartiteGraph) and not _is_device_graph(graph):
        raise TypeError(f"graph must be a matchflow.BipartiteGraph or DeviceBipartite, got {type_name(graph)}")
    o = validate_gpr_options(init=init, n_rows=graph.n_rows, n_cols=graph.n_cols, **opts)
    _check_init_edges(graph, o)
    require_gpu("the G-PR initial matching")
    with quiet():
        r, c, _, stats = _run(graph, o, init_only=True)
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


def _run(graph: Any, o: dict[str, Any], init_only: bool = False) -> tuple[np.ndarray, np.ndarray, int, dict[str, Any]]:
    """The stages of one solve (``init_only``: the initial matching alone)."""
    run = _GPRRun(graph, o)
    if run.m == 0 or run.n == 0:
        return run.empty()
    run.start()
    if init_only:
        return run.finish(fix=True)
    while not run.solve() and not run.certify():
        pass
    return run.finish()


def gpr_match_device(graph: Any, *, init: Any = "auto", cover: bool = True, alloc: Any = None, **opts: Any) -> tuple:
    """G-PR on a ``DeviceBipartite`` with every result left on the device (numba device arrays).

    Returns ``(row_match, col_match, cardinality, init_cardinality, stats, cover_rows, cover_cols)``:
    mates in the graph's index dtype; with ``cover``, the König cover as boolean device masks, from a
    BFS of the final matching on the device (rows outside the alternating forest of the unmatched
    rows, columns inside it: ``stats["seconds_cover"]``); else None, None.
    """
    o = validate_gpr_options(init=init, n_rows=graph.n_rows, n_cols=graph.n_cols, **opts)
    if o["init"] == "given":
        raise ValueError("init must be one of the named starts for a device-resident graph, got an array")
    require_gpu("G-PR matching")
    from numba import cuda  # noqa: PLC0415

    with quiet():
        run = _GPRRun(graph, o, alloc)
        if run.m == 0 or run.n == 0:
            rm, cm, card, stats = run.empty()

            def dev(a: np.ndarray) -> Any:
                return cuda.to_device(a) if a.size else cuda.device_array(0, dtype=a.dtype)

            crow, ccol = (dev(np.zeros(k, np.bool_)) if cover else None for k in (run.m, run.n))
            return dev(rm), dev(cm), card, 0, stats, crow, ccol
        run.start()
        while not run.solve() and not run.certify():
            pass
        return run.finish_device(cover)


def bipartite_matching_device(graph: Any, init: str, explicit_zeros: bool, want_cover: bool,
                              options: dict[str, Any]) -> Any:
    """``bipartite_matching`` of a device-resident graph (CuPy sparse/dense, PyTorch CUDA, numba device
    array): built, solved and certified on the device; the mates and the cover come back as arrays of the
    caller's library on the same device (numba device arrays for numba input). ``stats["seconds_csc"]``:
    the conversion on the device (a canonical CuPy CSR / CSC or PyTorch CSR is used as it is, the other side
    built only for a non-symmetric pattern); ``seconds_h2d`` is 0."""
    from .._results import MatchingResult  # noqa: PLC0415

    require_gpu("bipartite_matching of a device-resident graph")
    t0 = time.perf_counter()
    from .._cuda import hand_back  # noqa: PLC0415
    from ._gpu_input import device_graph  # noqa: PLC0415

    with quiet():
        dg, lib = device_graph(graph, explicit_zeros)
    rm, cm, card, init_card, stats, crow, ccol = gpr_match_device(dg, init=init, cover=want_cover,
                                                                  alloc=_allocator(lib), **options)
    stats = dict(stats, seconds_csc=dg.seconds_csc, seconds_h2d=0.0, input_library=lib)
    if init != "auto":
        stats.pop("init_used", None)

    def out(a: Any) -> Any:
        return None if a is None else hand_back(a, lib)

    return MatchingResult(row_match=out(rm), col_match=out(cm), cardinality=int(card), cover_rows=out(crow),
                          cover_cols=out(ccol), method="push-relabel", backend="gpu",
                          seconds=time.perf_counter() - t0, init=init, init_cardinality=int(init_card), stats=stats)


def _allocator(lib: str) -> Any:
    """Result arrays from the caller's library's pool allocator (CuPy's memory pool, PyTorch's caching
    allocator: no cudaMalloc / cudaFree per call), seen by the kernels as numba arrays; None for numba."""
    from numba import cuda  # noqa: PLC0415

    if lib == "cupy":
        import cupy  # noqa: PLC0415

        return lambda n, dtype: cuda.as_cuda_array(cupy.empty(n, dtype=dtype))
    if lib == "torch":
        import torch  # noqa: PLC0415

        dev = f"cuda:{cuda.get_current_device().id}"
        types = {np.dtype(np.int32): torch.int32, np.dtype(np.bool_): torch.bool}
        return lambda n, dtype: cuda.as_cuda_array(torch.empty(n, dtype=types[np.dtype(dtype)], device=dev))
    return None


class _GPRRun:
    """One G-PR solve: ``start`` (H2D, arrays, initial matching) -> ``solve`` / ``certify`` -> ``finish``.

    ``solve`` returns True when nothing is left to certify (the persistent kernel certified on the
    device, ``certify=False``, or ``max_rounds`` reached); else ``certify`` returns True when no augmenting
    path is left (and False to resume ``solve``, at most 3 times).
    """

    def __init__(self, graph: Any, o: dict[str, Any], alloc: Any = None) -> None:
        self._alloc = alloc  # (n, dtype) -> device array for the results handed to the caller (None: numba's)
        self.t_start = time.perf_counter()
        self.graph, self.o = graph, dict(o)
        self.m, self.n = graph.n_rows, graph.n_cols
        loop = o["loop"]
        if loop == "auto":
            loop = "host" if is_simulator() else "persistent"
        self.loop = loop
        self.bfs = o["bfs"] or "rows"  # None: decided in start() by _auto_bfs once the graph is on the device
        self.rounds = 0  # main-loop loops so far (the host loop's stamps)
        self.stats: dict[str, Any] = {
            "variant": o["variant"], "relabel": list(o["relabel"]), "init": o["init"], "loop": loop, "bfs": self.bfs,
            "grid_size": 0, "grid_syncs": 0, "hub_degree": o["hub_degree"] if loop == "persistent" else 0,
            "block_size": o["block_size"], "check_every": o["check_every"], "kernel_launches": 0, "loops": 0,
            "global_relabels": 0, "gr_levels": 0, "max_level": 0, "shrinks": 0, "host_syncs": 0, "init_rounds": 0,
            "certify_restarts": 0, "seconds_solve": 0.0, "seconds_certify": 0.0}

    def _new(self, n: int, dtype: Any) -> Any:
        """A fresh device array for a result (from the caller's library's memory pool when given)."""
        from numba import cuda  # noqa: PLC0415

        return cuda.device_array(n, dtype=dtype) if self._alloc is None else self._alloc(n, dtype)

    def empty(self) -> tuple[np.ndarray, np.ndarray, int, dict[str, Any]]:
        self.stats.update(seconds_h2d=0.0, seconds_init=0.0, seconds_d2h=0.0, cardinality=0, init_cardinality=0,
                          seconds_total=time.perf_counter() - self.t_start)
        it = self.graph.itype
        return np.full(self.m, -1, it), np.full(self.n, -1, it), 0, self.stats

    # ---------------------------------------------------------------- start
    def start(self) -> None:
        """H2D, the matching and label arrays, and the initial matching (``stats["seconds_init"]``)."""
        from numba import cuda  # noqa: PLC0415

        from .._cuda._graph import DeviceBipartite, to_device  # noqa: PLC0415
        from .._cuda._launch import Launcher  # noqa: PLC0415
        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        m, n, o, stats = self.m, self.n, self.o, self.stats
        if m + n + 4 >= 2**31:
            raise ValueError(f"graph is too large for 32-bit labels: n_rows + n_cols = {m + n}")
        was_device = isinstance(self.graph, DeviceBipartite)
        self.dg = dg = to_device(self.graph)
        stats["seconds_h2d"] = 0.0 if was_device else dg.seconds_h2d
        stats["seconds_csc"] = 0.0 if was_device else dg.seconds_csc  # the CSC built on the device
        self.L = L = Launcher(o["block_size"])
        it = np.int32
        self.inf = it(m + n)
        self.mu_r = self._new(m, np.int32)
        self.mu_c = self._new(n, np.int32)
        self.psi_r = _work("psi_r", m, np.int32)  # labels: scratch, reused by the next call of this size
        self.psi_c = _work("psi_c", n, np.int32)
        self.flag = _work("flag", 1, np.int32)
        self.counter = _work("counter", 1, np.int32)
        self.certified = False  # the last BFS certified the final matching: its labels give the König cover
        t0 = time.perf_counter()
        L(K.fill_kernel, 1, self.flag, it(-1))
        L(K.fill_kernel, m, self.mu_r, it(-1))
        L(K.fill_kernel, n, self.mu_c, it(-1))
        if o["bfs"] is None:
            self.bfs = stats["bfs"] = _auto_bfs(dg, L)
        if o["init"] == "auto":
            o["init"] = stats["init_used"] = _auto_init(dg, L)
        self._initial_matching()
        if "init_cardinality" in stats:  # counted by the persistent start
            self.init_card = stats.pop("init_cardinality")
        else:
            L.zero(self.counter)
            L(K.count_matched_rows_kernel, m, self.mu_r, self.counter)
            self.init_card = L.read(self.counter)
        cuda.synchronize()
        stats["seconds_init"] = time.perf_counter() - t0

    def _initial_matching(self) -> None:
        from numba import cuda  # noqa: PLC0415

        from .._cuda._launch import host_rounds  # noqa: PLC0415
        from . import _gpu_init_kernels as KI  # noqa: PLC0415
        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        m, n, o, stats, dg, L = self.m, self.n, self.o, self.stats, self.dg, self.L
        mu_r, mu_c, it = self.mu_r, self.mu_c, np.int32
        if (o["init"] == "karp-sipser" and self.loop == "persistent" and not is_simulator()
                and _run_init_persistent(dg, o, stats, mu_r, mu_c, L)):
            return
        if o["init"] == "greedy":  # one pass
            chunk = o["init_chunk"] or max(1, min(64, n >> 16))
            L(KI.greedy_chunk_kernel, (n + chunk - 1) // chunk, dg.col_ptr, dg.row_ind, mu_r, mu_c, np.int64(n),
              np.int64(chunk))
            stats["init_rounds"] = 1
            stats["init_chunk"] = chunk
        elif o["init"] == "symmetric":
            if not _is_symmetric(dg, L):
                raise ValueError("init='symmetric' needs a symmetric pattern (n_rows == n_cols and A == A^T)")
            _symmetric_start(dg, o, stats, mu_r, mu_c, L, self.flag)
        elif o["init"] == "given":
            rm = cuda.to_device(o["init_match"].astype(np.int32))
            L(K.set_matching_kernel, m, rm, mu_r, mu_c)
        elif o["init"] == "karp-sipser":  # one launch per phase (host loop, simulator)
            deg_r = _work("ks.deg_r", m, np.int32)
            best = _work("ks.best", m, np.int64)
            hashed = it(o["init_ties"] == "hashed")
            flag = self.flag

            def ks_round(rnd: int) -> None:
                L(KI.ks_degree_kernel, m, dg.row_ptr, dg.col_ind, mu_r, mu_c, deg_r, best)
                L(KI.ks_propose_kernel, n, dg.col_ptr, dg.row_ind, mu_r, mu_c, deg_r, best, hashed, it(rnd), flag)
                L(KI.ks_accept_kernel, m, mu_r, mu_c, best)

            stats["init_rounds"] = host_rounds(ks_round, L.read, flag, o["check_every"], o["init_rounds"])
            L(KI.clear_dead_kernel, max(m, n), mu_r, mu_c)

    # ---------------------------------------------------------------- solve
    def solve(self) -> bool:
        """The main loop; True when no certificate BFS is due (see the class docstring)."""
        from numba import cuda  # noqa: PLC0415

        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        t0 = time.perf_counter()
        stats, o = self.stats, self.o
        if self.loop == "persistent":
            if _run_persistent(K, self.dg, o, self.bfs, stats, self.mu_r, self.mu_c, self.psi_r, self.psi_c,
                               self.inf, self.L):
                stats["seconds_solve"] += time.perf_counter() - t0
                # the kernel ended with a passed certificate BFS unless certify=False or max_rounds stopped it
                self.certified = bool(o["certify"]) and (o["max_rounds"] is None or stats["loops"] < o["max_rounds"])
                return True
            # not one block of block_size threads fits an SM (the kernel uses > 128 registers per thread)
            self.loop = stats["loop"] = "host"
            stats["loop_fallback"] = f"block_size={o['block_size']}: no co-resident block for the persistent kernel"
        if o["variant"] == "first":
            self._loop_first()
        else:
            self._loop_lists()
        stats["loops"] = self.rounds
        self.L(K.fix_matching_kernel, self.n, self.mu_r, self.mu_c)
        cuda.synchronize()
        stats["seconds_solve"] += time.perf_counter() - t0
        return not o["certify"] or self._out_of_rounds()

    def _out_of_rounds(self) -> bool:
        return self.o["max_rounds"] is not None and self.rounds >= self.o["max_rounds"]

    def _next_gr(self, maxl: int) -> int:
        """GetIterGR: the loop of the next global relabel."""
        strategy, k = self.o["relabel"]
        step = k if strategy == "fixed" else k * maxl
        return self.rounds + max(1, int(math.ceil(step)))

    def _loop_first(self) -> None:
        """Algorithm 6: one thread per column, the activity flag read every ``check_every`` loops."""
        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        L, dg, it = self.L, self.dg, np.int32
        iter_gr = self.rounds
        while True:
            last = self.rounds
            for _ in range(self.o["check_every"]):
                if self.rounds == iter_gr:
                    iter_gr = self._next_gr(self.global_relabel())
                L(K.pr_first_kernel, self.n, dg.col_ptr, dg.row_ind, self.mu_r, self.mu_c, self.psi_r, self.psi_c,
                  self.inf, it(self.rounds), self.flag)
                last = self.rounds
                self.rounds += 1
            if L.read(self.flag) != last or self._out_of_rounds():
                return

    def _loop_lists(self) -> None:
        """Algorithm 7: active lists A_c / A_p with iteration stamps iA (and G-PR-SHRKRNL for "shrink")."""

        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        L, dg, o, n, it, stats = self.L, self.dg, self.o, self.n, np.int32, self.stats
        mu_r, mu_c, counter, flag = self.mu_r, self.mu_c, self.counter, self.flag
        shrink = o["variant"] == "shrink"
        ac, ap, ia = (_work(t, n, np.int32) for t in ("ac", "ap", "ia"))
        at = _work("at", n, np.int32) if shrink else None
        L(K.fill_kernel, n, ia, it(-1))
        L.zero(counter)
        L(K.list_unmatched_cols_kernel, n, mu_r, mu_c, ac, counter)
        size = L.read(counter)
        L(K.fill_kernel, n, ap, it(-1))
        iter_gr = self.rounds
        shrink_pending = False
        done = size == 0
        while not done:
            last = self.rounds
            for _ in range(o["check_every"]):
                loop = self.rounds
                if loop == iter_gr:
                    iter_gr = self._next_gr(self.global_relabel())
                    shrink_pending = True
                if shrink_pending and shrink and size >= o["shrink_threshold"]:
                    L.zero(counter)
                    L(K.pr_shrink_kernel, size, ac, ap, it(size), at, counter, mu_r, mu_c, ia, it(loop), flag)
                    stats["shrinks"] += 1
                    size = L.read(counter)
                    ac, at = at, ac
                    shrink_pending = False
                    if size == 0:  # nothing active: stop
                        done = True
                        break
                else:
                    L(K.pr_init_kernel, size, ac, ap, it(size), mu_r, mu_c, ia, it(loop), flag)
                L(K.pr_push_kernel, size, dg.col_ptr, dg.row_ind, mu_r, mu_c, self.psi_r, self.psi_c, ac, ap,
                  it(size), ia, it(loop), self.inf)
                ac, ap = ap, ac
                last = loop
                self.rounds += 1
            if done or L.read(flag) != last or self._out_of_rounds():
                done = True

    def global_relabel(self) -> int:
        """G-GR (Algorithm 4): BFS from every unmatched row; returns maxLevel."""

        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        L, dg, m, it, stats = self.L, self.dg, self.m, np.int32, self.stats
        mu_r, mu_c, psi_r, psi_c, inf = self.mu_r, self.mu_c, self.psi_r, self.psi_c, self.inf
        stats["global_relabels"] += 1
        L(K.gr_init_kernel, max(m, self.n), mu_r, psi_r, psi_c, inf)
        if self.bfs == "frontier":
            if not hasattr(self, "_front"):
                self._front = [_work("fa", m, np.int32), _work("fb", m, np.int32), _work("na", 1, np.int32),
                               _work("nb", 1, np.int32)]
            fa, fb, na, nb = self._front
            L.zero(na)
            L(K.gr_frontier_seed_kernel, m, mu_r, fa, na)
            size = L.read(na)
            level = 0
            while size > 0:
                L.zero(nb)
                L(K.gr_frontier_kernel, size, dg.row_ptr, dg.col_ind, mu_r, mu_c, psi_r, psi_c, it(level), inf, fa,
                  na, fb, nb)
                stats["gr_levels"] += 1
                fa, fb, na, nb = fb, fa, nb, na
                size = L.read(na)
                level += 2
            self._front = [fa, fb, na, nb]
            maxl = max(level - 2, 0)
        else:
            if not hasattr(self, "_maxlev"):
                self._maxlev = _work("maxlev", 1, np.int32)
            maxlev = self._maxlev
            L.zero(maxlev)
            level = 0
            while True:
                for _ in range(self.o["check_every"]):
                    L(K.gr_level_kernel, m, dg.row_ptr, dg.col_ind, mu_r, mu_c, psi_r, psi_c, it(level), inf, maxlev)
                    stats["gr_levels"] += 1
                    level += 2
                maxl = L.read(maxlev)
                if maxl < level:  # the last launched level added no row
                    break
        stats["max_level"] = maxl
        return maxl

    # ---------------------------------------------------------------- certify
    def certify(self) -> bool:
        """No unmatched column is reachable from an unmatched row (no augmenting path): True; else False
        (``solve`` resumes; a bug after 3 restarts)."""
        from numba import cuda  # noqa: PLC0415

        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        t0 = time.perf_counter()
        self.global_relabel()
        self.L.zero(self.counter)
        self.L(K.certify_kernel, self.n, self.mu_r, self.mu_c, self.psi_c, self.inf, self.counter)
        ok = self.L.read(self.counter) == 0
        cuda.synchronize()
        self.stats["seconds_certify"] += time.perf_counter() - t0
        if ok:
            self.certified = True
            return True
        self.stats["certify_restarts"] += 1
        if self.stats["certify_restarts"] > 3:
            raise RuntimeError("G-PR left augmenting paths after 3 restarts; please report this bug")
        return False

    # ---------------------------------------------------------------- finish
    def finish(self, fix: bool = False) -> tuple[np.ndarray, np.ndarray, int, dict[str, Any]]:
        """Copy the matching back (D2H) and complete the stats (``fix``: FixMatching first, for a start
        without a main loop)."""
        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        stats, L = self.stats, self.L
        if fix:
            L(K.fix_matching_kernel, self.n, self.mu_r, self.mu_c)
        from .._cuda._csc import cast  # noqa: PLC0415

        t0 = time.perf_counter()
        it = self.dg.itype  # the graph's index dtype: int32 comes back as is, a cast to int64 runs on the device
        if self.o["device_cover"] and not fix:
            crow, ccol = self.device_cover(fresh=False)
            stats["cover_rows"], stats["cover_cols"] = crow.copy_to_host(), ccol.copy_to_host()
            stats["seconds_cover"] = time.perf_counter() - t0
            t0 = time.perf_counter()
        row_match = cast(self.mu_r, it).copy_to_host()
        col_match = cast(self.mu_c, it).copy_to_host()
        stats["seconds_d2h"] = time.perf_counter() - t0
        stats["kernel_launches"] = L.launches
        stats["host_syncs"] = L.syncs
        stats["init_cardinality"] = self.init_card
        stats["cardinality"] = int(np.count_nonzero(row_match >= 0))
        stats["seconds_total"] = time.perf_counter() - self.t_start
        return row_match, col_match, self.init_card, stats

    def device_cover(self, fresh: bool) -> tuple:
        """The König cover as boolean device masks (rows outside the alternating forest Z of the unmatched
        rows, columns inside it), from the labels of the certificate BFS when it ran on the final matching,
        else from one more G-GR (``stats["cover_bfs"]``). ``fresh``: new arrays (handed to the caller)."""

        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        self.stats["cover_bfs"] = not self.certified
        if not self.certified:  # no certificate BFS of the final matching ran (certify=False, max_rounds)
            self.global_relabel()
        if fresh:
            crow, ccol = self._new(self.m, np.bool_), self._new(self.n, np.bool_)
        else:
            crow, ccol = _work("cover_rows", self.m, np.bool_), _work("cover_cols", self.n, np.bool_)
        self.L(K.cover_kernel, max(self.m, self.n), self.psi_r, self.psi_c, self.inf, crow, ccol)
        return crow, ccol

    def finish_device(self, cover: bool) -> tuple:
        """The results left on the device: mates (graph's index dtype), the cardinality counted there,
        and with ``cover`` the König cover from a BFS of the final matching (G-GR from the unmatched rows)."""
        from numba import cuda  # noqa: PLC0415

        from .._cuda._csc import cast  # noqa: PLC0415
        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        stats, L = self.stats, self.L
        t0 = time.perf_counter()
        L.zero(self.counter)
        L(K.count_matched_rows_kernel, self.m, self.mu_r, self.counter)
        card = L.read(self.counter)
        crow = ccol = None
        stats["cover_bfs"] = False
        if cover:
            crow, ccol = self.device_cover(fresh=True)
        it = self.dg.itype
        rm, cm = cast(self.mu_r, it), cast(self.mu_c, it)
        cuda.synchronize()
        stats["seconds_cover"] = time.perf_counter() - t0
        stats["seconds_d2h"] = 0.0
        stats["kernel_launches"] = L.launches
        stats["host_syncs"] = L.syncs
        stats["init_cardinality"] = self.init_card
        stats["cardinality"] = card
        stats["seconds_total"] = time.perf_counter() - self.t_start
        return rm, cm, card, self.init_card, stats, crow, ccol


def _run_persistent(K: Any, dg: Any, o: dict[str, Any], bfs: str, stats: dict[str, Any], mu_r: Any, mu_c: Any,
                    psi_r: Any, psi_c: Any, inf: Any, L: Any) -> bool:
    """The main loop as ONE cooperative launch of ``pr_persistent_kernel`` (``loop="persistent"``).

    Grid: the most co-resident blocks (``max_cooperative_grid_blocks``), at most one thread per
    row/column; the simulator runs cooperative kernels with one block only. Returns False (and
    runs nothing) when not even one block of ``block_size`` threads fits an SM.
    """

    from .._cuda._launch import cooperative_grid, cooperative_kernel, grid  # noqa: PLC0415

    m, n, bs = dg.n_rows, dg.n_cols, L.block_size
    variant = {"first": K.VAR_FIRST, "noshrink": K.VAR_NOSHRINK, "shrink": K.VAR_SHRINK}[o["variant"]]
    lists = n if variant != K.VAR_FIRST else 1
    ac, ap, at, ia = (_work(t, lists, np.int32) for t in ("ac", "ap", "at", "ia"))
    fl = m if bfs == "frontier" else 1
    fa, fb = _work("fa", fl, np.int32), _work("fb", fl, np.int32)
    sync = _work("ps.sync", K.PS_NSYNC, np.int32)
    dstats = _work("ps.stats", K.ST_N, np.int64)
    L(K.fill_kernel, K.PS_NSYNC, sync, np.int32(0))
    L(K.fill_kernel, K.ST_N, dstats, np.int64(0))
    strategy, k = o["relabel"]
    ml = o["max_rounds"] or 0
    args = (dg.col_ptr, dg.row_ind, dg.row_ptr, dg.col_ind, mu_r, mu_c, psi_r, psi_c, ac, ap, at, ia, fa, fb,
            sync, dstats, np.int64(m), np.int64(n), np.int32(inf), np.int32(variant),
            np.int32(bfs == "frontier"), np.int32(strategy == "adaptive"), np.float64(k), np.int64(ml),
            np.int64(o["shrink_threshold"]), np.int32(o["certify"]), np.int64(o["hub_degree"]))
    kern = K.pr_persistent_kernel
    mr = o["max_registers"]
    if is_simulator():
        gsize = 1
    else:
        kern, gmax = cooperative_kernel(K.pr_persistent_kernel, args, bs, mr)
        if gmax < 1:
            if mr is not None:
                raise ValueError(f"block_size={bs} with max_registers={mr} leaves no co-resident block for the "
                                 f"persistent G-PR kernel on this GPU; use a smaller block_size or loop='host'")
            return False
        gsize = cooperative_grid(gmax, grid(max(m, n), bs), o["grid_size"])
    st = L.once(kern, gsize, args, dstats)
    stats["grid_size"] = int(gsize)
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


def _is_symmetric(dg: Any, L: Any) -> bool:
    """A == A^T as patterns: square, and the CSR arrays equal the CSC arrays (cached on ``dg``)."""
    from numba import cuda  # noqa: PLC0415

    from . import _gpu_init_kernels as KI  # noqa: PLC0415

    if dg.symmetric is None:
        sym = dg.n_rows == dg.n_cols
        if sym and dg.nnz and dg.col_ptr is dg.row_ptr and dg.row_ind is dg.col_ind:
            pass  # build_csc found the pattern symmetric and built nothing
        elif sym and dg.nnz:
            flag = cuda.to_device(np.zeros(1, np.int32))
            L(KI.same_pattern_kernel, dg.n_rows + 1, dg.row_ptr, dg.col_ptr, flag)
            L(KI.same_pattern_kernel, dg.nnz, dg.col_ind, dg.row_ind, flag)
            sym = L.read(flag) == 0
        dg.symmetric = bool(sym)
    return dg.symmetric


def _symmetric_start(dg: Any, o: dict[str, Any], stats: dict[str, Any], mu_r: Any, mu_c: Any, L: Any,
                     flag: Any) -> None:
    """init="symmetric": the undirected handshake matching, doubled, then length-3 augmentations."""

    from .._cuda._launch import host_rounds  # noqa: PLC0415
    from . import _gpu_init_kernels as KI  # noqa: PLC0415
    from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

    n = dg.n_cols
    it = np.int32
    mate, pt = _work("sym.mate", n, np.int32), _work("sym.pt", n, np.int32)
    L(K.fill_kernel, n, mate, it(-1))

    def handshake_round(rnd: int) -> None:
        L(KI.sym_propose_kernel, n, dg.row_ptr, dg.col_ind, mate, pt, it(rnd), flag)
        L(KI.sym_match_kernel, n, mate, pt)

    stats["init_rounds"] = host_rounds(handshake_round, L.read, flag, o["check_every"], o["init_rounds"])
    L(KI.sym_double_kernel, n, dg.row_ptr, dg.col_ind, mate, mu_r, mu_c)
    aug = o["init_aug_rounds"]
    if aug:
        cw, cu = _work("sym.cw", n, np.int64), _work("sym.cu", n, np.int64)
        L(K.fill_kernel, n, cw, np.int64(KI.KEY_MAX))
        L(K.fill_kernel, n, cu, np.int64(KI.KEY_MAX))
        pu, pw, pu2 = (_work(t, n, np.int32) for t in ("sym.pu", "sym.pw", "sym.pu2"))
        for r in range(aug):
            L(KI.aug3_propose_kernel, n, dg.col_ptr, dg.row_ind, mu_r, mu_c, cw, cu, pu, pw, pu2, it(r), flag)
            L(KI.aug3_apply_kernel, n, mu_r, mu_c, cw, cu, pu, pw, pu2, it(r))
        L(KI.clear_dead_kernel, n, mu_r, mu_c)
    stats["init_aug_rounds"] = aug


def _skewed(dg: Any, L: Any) -> bool:
    """Largest row or column degree > SKEW x the average (hubs: power-law graphs); cached on ``dg``."""

    from . import _gpu_init_kernels as KI  # noqa: PLC0415

    if dg.max_degree is None:
        from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

        out = _work("max_degree", 2, np.int64)
        L(K.fill_kernel, 2, out, np.int64(0))
        L(KI.max_degree_kernel, dg.n_cols, dg.col_ptr, out, 0)
        L(KI.max_degree_kernel, dg.n_rows, dg.row_ptr, out, 1)
        dg.max_degree = int(out.copy_to_host().max())
    avg = dg.nnz / max(1, min(dg.n_rows, dg.n_cols))
    return dg.max_degree > SKEW * max(avg, 1.0)


def _auto_bfs(dg: Any, L: Any) -> str:
    """bfs=None: the frontier G-GR on large graphs without hubs (>= FRONTIER_ROWS rows: scanning every
    row at each of thousands of levels dominates there; delaunay_n24 1268 -> 421 ms, delaunay_n22
    185 -> 117 ms, road_n22 81 -> 63 ms; rgg_n22 84 -> 91 ms is the one loss measured), else the
    paper's all-rows G-GR-KRNL (faster below that size and on hub graphs: docs/notes/gpr.md)."""
    if dg.n_rows < FRONTIER_ROWS:
        return "rows"
    return "rows" if _skewed(dg, L) else "frontier"


def _auto_init(dg: Any, L: Any) -> str:
    """init="auto": the Karp-Sipser-style start on graphs with hubs (largest degree > SKEW x average:
    power-law graphs, where its degree-1 rule and warp scans pay); else on symmetric patterns the
    doubled undirected matching (free rows and columns balanced in every region, as after the
    sequential greedy: G-PR then needs few loops on meshes and roads); else the chunked greedy.
    Measured in docs/notes/gpr.md (device rounds 6-8)."""
    if _skewed(dg, L):
        return "karp-sipser"
    return "symmetric" if _is_symmetric(dg, L) else "greedy"


def _run_init_persistent(dg: Any, o: dict[str, Any], stats: dict[str, Any], mu_r: Any, mu_c: Any, L: Any) -> bool:
    """The GPU Karp-Sipser-style start as ONE cooperative launch of ``init_persistent_kernel``.

    Returns False (and runs nothing) when no block of ``block_size`` threads is co-resident: the caller
    then runs the one-launch-per-phase start."""

    from .._cuda._launch import cooperative_grid, cooperative_kernel, grid  # noqa: PLC0415
    from . import _gpu_init_kernels as KI  # noqa: PLC0415
    from . import _gpu_push_relabel_kernels as K  # noqa: PLC0415

    m, n, bs = dg.n_rows, dg.n_cols, L.block_size
    deg_r = _work("ks.deg_r", m, np.int32)
    best = _work("ks.best", m, np.int64)
    sync = _work("is.sync", KI.PS_NSYNC, np.int32)
    dstats = _work("is.stats", KI.IST_N, np.int64)
    L(K.fill_kernel, KI.PS_NSYNC, sync, np.int32(0))
    L(K.fill_kernel, KI.IST_N, dstats, np.int64(0))
    args = (dg.row_ptr, dg.col_ind, dg.col_ptr, dg.row_ind, mu_r, mu_c, deg_r, best, sync, dstats, np.int64(m),
            np.int64(n), np.int64(o["init_rounds"]), np.int64(o["hub_degree"]),
            np.int32(o["init_ties"] == "hashed"))
    kern, gmax = cooperative_kernel(KI.init_persistent_kernel, args, bs)
    if gmax < 1:
        stats["init_fallback"] = f"block_size={bs}: no co-resident block for the persistent start"
        return False
    gsize = cooperative_grid(gmax, grid(max(m, n), bs), o["grid_size"])
    st = L.once(kern, gsize, args, dstats)
    stats["init_rounds"] = int(st[KI.IST_ROUNDS])
    stats["init_cardinality"] = int(st[KI.IST_CARD])
    stats["init_grid_size"] = int(gsize)
    return True
