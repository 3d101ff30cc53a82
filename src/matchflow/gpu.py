"""The supported GPU surface of matchflow, for benchmarks, scripts and repeated solves.

``import matchflow.gpu`` works without a GPU and without CUDA (numba-cuda loads on first use). Every
GPU solver speaks one option vocabulary (:data:`OPTIONS`): ``loop`` ("auto" | "persistent" | "host"),
``certify``, ``max_rounds``, ``block_size``, ``grid_size``; stats timing keys are ``seconds_<stage>``.

* :func:`to_device` — a :class:`~matchflow.BipartiteGraph` to a :class:`DeviceBipartite` (CSR and CSC
  on the GPU; copied once, reused by every solve), or a dense array to a device array.
* :func:`push_relabel_matching` — G-PR (Deveci et al. 2013) on a host or device graph: the raw solver
  behind ``bipartite_matching(method="gpr", backend="gpu")``, without the König cover.
* :func:`initial_matching` — only the GPU start ("greedy", "karp-sipser", "symmetric").
* :func:`hungarian` — the GPU Hungarian (Lopes et al. 2019) on a host or device square matrix: the raw
  solver behind ``assignment(method="lopes", backend="gpu")``, returning duals.
* :func:`suitor_matching` — GPU-Suitor (Naim et al. 2015) on a weighted :class:`~matchflow.Graph` or its
  device twin from :func:`weighted_to_device`: the raw solver behind ``weighted_matching(backend="gpu")``.
* :func:`batch_assignment` — the batched GPU Jonker-Volgenant on a (B, n, m) array or a list of matrices: the raw
  solver behind ``batch_linear_sum_assignment(backend="gpu")``, with the stage timings.
* :func:`warm_up` — create the CUDA context now, so that ``backend="auto"`` uses the GPU wherever it wins in a
  warm process (until a process has used the GPU, ``auto`` sends only problems large enough to pay for the
  first GPU call there: see :mod:`matchflow._methods`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._backend import GPUUnavailableError, gpu_available, gpu_reason, require_gpu
from ._cuda import GPU_LOOPS, GPU_OPTIONS

__all__ = ["OPTIONS", "LOOPS", "warm_up", "to_device", "push_relabel_matching", "initial_matching",
           "hungarian", "suitor_matching", "weighted_to_device", "locally_dominant_matching",
           "cost_scaling_to_device", "cost_scaling_assignment", "batch_assignment", "gpu_available", "gpu_reason", "GPUUnavailableError"]

OPTIONS = GPU_OPTIONS
LOOPS = GPU_LOOPS


def __getattr__(name: str) -> Any:
    if name == "DeviceBipartite":  # loads numba.cuda: only on use
        from ._cuda._graph import DeviceBipartite  # noqa: PLC0415

        return DeviceBipartite
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def warm_up() -> None:
    """Create the CUDA context (``GPUUnavailableError`` without a usable GPU) and let ``backend="auto"`` treat
    this process as warm: later calls use the GPU wherever it was measured faster in a warm process. The kernels
    of each family still load from the on-disk cache on their first call (0.06-0.45 s on an H100).

    Examples
    --------
    >>> from matchflow import gpu
    >>> gpu.warm_up()  # doctest: +SKIP
    """
    require_gpu("matchflow.gpu.warm_up")
    from numba import cuda  # noqa: PLC0415

    from ._methods import mark_gpu_warm  # noqa: PLC0415

    cuda.current_context()
    mark_gpu_warm()


def to_device(x: Any) -> Any:
    """A graph to a ``DeviceBipartite`` (``seconds_h2d`` records the copy), a device graph unchanged,
    or an array (e.g. a cost matrix) to a C-contiguous numba device array.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import as_bipartite, gpu
    >>> G = as_bipartite(np.eye(3))
    >>> # the lines below need a GPU (skipped without one)
    >>> dG = gpu.to_device(G)  # doctest: +SKIP
    >>> row_match, col_match, k0, stats = gpu.push_relabel_matching(dG)  # doctest: +SKIP
    >>> row_match.tolist()  # doctest: +SKIP
    [0, 1, 2]
    """
    from ._graph import BipartiteGraph  # noqa: PLC0415

    require_gpu("matchflow.gpu.to_device")
    from ._cuda._graph import DeviceBipartite  # noqa: PLC0415
    from ._cuda._graph import to_device as graph_to_device  # noqa: PLC0415

    if isinstance(x, (BipartiteGraph, DeviceBipartite)):
        return graph_to_device(x)
    from numba import cuda  # noqa: PLC0415

    from ._cuda import as_numba, is_device_array  # noqa: PLC0415

    if is_device_array(x):
        return as_numba(x)
    return cuda.to_device(np.ascontiguousarray(x))


def push_relabel_matching(graph: Any, *, init: Any = "auto", **options: Any
                          ) -> tuple[np.ndarray, np.ndarray, int, dict[str, Any]]:
    """G-PR maximum-cardinality matching: ``(row_match, col_match, init_cardinality, stats)`` on the host.

    ``graph``: a :class:`~matchflow.BipartiteGraph` or a :class:`DeviceBipartite`. Options: see
    :data:`OPTIONS` and ``matchflow.matching._gpu_push_relabel.gpr_match`` (variant, relabel, bfs, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import as_bipartite, gpu
    >>> G = as_bipartite(np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1]]))
    >>> # the lines below need a GPU (skipped without one)
    >>> row_match, col_match, k0, stats = gpu.push_relabel_matching(G)  # doctest: +SKIP
    >>> row_match.tolist()  # doctest: +SKIP
    [1, 0, 2]

    References
    ----------
    .. [1] Deveci, M., Kaya, K., Uçar, B., and Çatalyürek, Ü. V., "A push-relabel-based maximum cardinality
           bipartite matching algorithm on GPUs", 42nd International Conference on Parallel Processing (ICPP),
           21-29, 2013. DOI:10.1109/ICPP.2013.11
    """
    from .matching._gpu_push_relabel import gpr_match  # noqa: PLC0415

    return gpr_match(graph, init=init, **options)


def initial_matching(graph: Any, *, init: str = "greedy", **options: Any
                     ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Only the GPU initial matching (a maximal matching): ``(row_match, col_match, stats)``.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import as_bipartite, gpu
    >>> # needs a GPU (skipped without one): a maximal matching, here already a perfect one
    >>> row_match, _, stats = gpu.initial_matching(as_bipartite(np.eye(2)), init="karp-sipser")  # doctest: +SKIP
    >>> row_match.tolist()  # doctest: +SKIP
    [0, 1]

    References
    ----------
    .. [1] Karp, R. M., and Sipser, M., "Maximum matchings in sparse random graphs", 22nd Annual Symposium on
           Foundations of Computer Science (FOCS), 364-375, 1981. DOI:10.1109/SFCS.1981.21
    .. [2] Deveci, M., Kaya, K., Uçar, B., and Çatalyürek, Ü. V., "A push-relabel-based maximum cardinality
           bipartite matching algorithm on GPUs", 42nd International Conference on Parallel Processing (ICPP),
           21-29, 2013. DOI:10.1109/ICPP.2013.11
    """
    from .matching._gpu_push_relabel import gpr_initial_matching  # noqa: PLC0415

    return gpr_initial_matching(graph, init=init, **options)


def hungarian(C: Any, **options: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """GPU Hungarian on a square int32/int64/float32/float64 matrix with entries >= 0 (host or device):
    ``(col4row, u, v, stats)`` with ``C - u - v >= 0`` and ``== 0`` on the assigned pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import gpu
    >>> C = np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
    >>> # the lines below need a GPU (skipped without one)
    >>> col4row, u, v, stats = gpu.hungarian(C)  # doctest: +SKIP
    >>> col4row.tolist(), int(C[np.arange(3), col4row].sum())  # doctest: +SKIP
    ([1, 0, 2], 5)
    >>> bool((C - u[:, None] - v[None, :] >= 0).all())  # doctest: +SKIP
    True

    References
    ----------
    .. [1] Lopes, P. A. C., Yadav, S. S., Ilic, A., and Patra, S. K., "Fast block distributed CUDA implementation of
           the Hungarian algorithm", Journal of Parallel and Distributed Computing 130, 50-62, 2019.
           DOI:10.1016/j.jpdc.2019.03.014
    .. [2] Munkres, J., "Algorithms for the assignment and transportation problems", Journal of the Society for
           Industrial and Applied Mathematics 5(1), 32-38, 1957. DOI:10.1137/0105003
    """
    from .assignment._gpu_munkres import hungarian_gpu  # noqa: PLC0415

    require_gpu("matchflow.gpu.hungarian")
    return hungarian_gpu(C, **options)


def weighted_to_device(graph: Any) -> Any:
    """A weighted undirected graph (any input :func:`matchflow.weighted_matching` takes) to a
    ``DeviceWeightedGraph`` (CSR + edge-order keys, copied once; reused by every solve).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import gpu
    >>> W = np.array([[0, 3, 1, 0], [3, 0, 4, 0], [1, 4, 0, 2], [0, 0, 2, 0]])
    >>> # the lines below need a GPU (skipped without one)
    >>> dW = gpu.weighted_to_device(W)  # doctest: +SKIP
    >>> mate, stats = gpu.suitor_matching(dW)  # doctest: +SKIP
    >>> mate.tolist()  # doctest: +SKIP
    [-1, 2, 1, -1]
    """
    from .wmatching._api import as_weighted_graph  # noqa: PLC0415
    from .wmatching._gpu_suitor import DeviceWeightedGraph  # noqa: PLC0415
    from .wmatching._gpu_suitor import to_device as wto  # noqa: PLC0415

    require_gpu("matchflow.gpu.weighted_to_device")
    return wto(graph if isinstance(graph, DeviceWeightedGraph) else as_weighted_graph(graph)[0])


def suitor_matching(graph: Any, **options: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """GPU-Suitor: ``(mate, stats)``, the greedy matching of the fixed edge order (options: ``variant``,
    ``vertices_per_warp``, ``block_size``, ``lb_iters`` and :data:`OPTIONS`).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import as_graph, gpu
    >>> W = as_graph(np.array([[0, 3, 1, 0], [3, 0, 4, 0], [1, 4, 0, 2], [0, 0, 2, 0]]))
    >>> # the lines below need a GPU (skipped without one)
    >>> mate, stats = gpu.suitor_matching(W)  # doctest: +SKIP
    >>> mate.tolist()  # doctest: +SKIP
    [-1, 2, 1, -1]

    References
    ----------
    .. [1] Naim, Md., Manne, F., Halappanavar, M., Tumeo, A., and Langguth, J., "Optimizing approximate weighted
           matching on Nvidia Kepler K40", IEEE 22nd International Conference on High Performance Computing (HiPC),
           105-114, 2015. DOI:10.1109/HiPC.2015.15
    .. [2] Manne, F., and Halappanavar, M., "New effective multithreaded matching algorithms", IEEE 28th
           International Parallel and Distributed Processing Symposium (IPDPS), 519-528, 2014.
    """
    from .wmatching._gpu_suitor import suitor_gpu  # noqa: PLC0415

    return suitor_gpu(graph, **options)


def locally_dominant_matching(graph: Any, **options: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """GPU-LD (the paper's baseline): ``(mate, stats)``, the same greedy matching as :func:`suitor_matching`.

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import gpu
    >>> dW = gpu.weighted_to_device(np.array([[0, 5], [5, 0]]))  # doctest: +SKIP
    >>> # the lines below need a GPU (skipped without one); the same mate as suitor_matching's
    >>> mate, stats = gpu.locally_dominant_matching(dW)  # doctest: +SKIP
    >>> mate.tolist(), stats["rounds"] >= 1  # doctest: +SKIP
    ([1, 0], True)

    References
    ----------
    .. [1] Preis, R., "Linear time 1/2-approximation algorithm for maximum weighted matching in general graphs",
           STACS 99, Lecture Notes in Computer Science 1563, 259-269, 1999. DOI:10.1007/3-540-49116-3_24
    .. [2] Naim, Md., Manne, F., Halappanavar, M., Tumeo, A., and Langguth, J., "Optimizing approximate weighted
           matching on Nvidia Kepler K40", IEEE 22nd International Conference on High Performance Computing (HiPC),
           105-114, 2015. DOI:10.1109/HiPC.2015.15
    """
    from .wmatching._gpu_suitor import ld_gpu  # noqa: PLC0415

    return ld_gpu(graph, **options)


def cost_scaling_to_device(cost: Any) -> Any:
    """Stage ``start`` of the GPU cost-scaling assignment (Łupińska Alg. 5.4): a square scipy.sparse integer
    cost matrix that has a perfect matching, shifted to costs >= 0, scaled and uploaded once; reused by
    :func:`cost_scaling_assignment` (the "data on the device" form of the benchmarks).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from matchflow import gpu
    >>> # the lines below need a GPU (skipped without one): one upload, solved twice
    >>> dev = gpu.cost_scaling_to_device(sp.csr_array([[4, 1], [2, 0]]))  # doctest: +SKIP
    >>> [gpu.cost_scaling_assignment(dev)[1].tolist() for _ in range(2)]  # doctest: +SKIP
    [[1, 0], [1, 0]]
    """
    import scipy.sparse as sp  # noqa: PLC0415

    from .assignment._gpu_cost_scaling import upload  # noqa: PLC0415
    from .assignment._prepare_sparse import shifted_integer_costs  # noqa: PLC0415

    require_gpu("matchflow.gpu.cost_scaling_to_device")
    a = sp.csr_array(cost)
    a.sum_duplicates()
    if a.shape[0] != a.shape[1] or a.dtype.kind not in "iu":
        raise ValueError(f"cost must be a square integer sparse matrix, got shape {a.shape} and dtype {a.dtype}")
    ic, _ = shifted_integer_costs(a)  # the sparse solve's own shift and overflow guard
    return upload(a.indptr.astype(np.int64), a.indices.astype(np.int64), ic, a.shape[0])


def cost_scaling_assignment(dev: Any, **options: Any) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, dict]:
    """Stages ``solve``, ``certify``, ``finish`` on a :func:`cost_scaling_to_device` problem: ``(status,
    col_of_row, u, v, stats)``, status 0 when solved and certified (options: ``variant``, ``follow``,
    ``block_size`` and :data:`OPTIONS`).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from matchflow import gpu
    >>> C = sp.csr_array(np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]]))
    >>> # the lines below need a GPU (skipped without one)
    >>> status, col_of_row, u, v, stats = gpu.cost_scaling_assignment(gpu.cost_scaling_to_device(C))  # doctest: +SKIP
    >>> status, col_of_row.tolist()  # doctest: +SKIP
    (0, [1, 0, 2])

    References
    ----------
    .. [1] Łupińska, A., "Parallel implementation of flow and matching algorithms", Jagiellonian University, Kraków
           (technical report).
    .. [2] Goldberg, A. V., and Kennedy, R., "An efficient cost scaling algorithm for the assignment problem",
           Mathematical Programming 71, 153-177, 1995. DOI:10.1007/BF01585996
    """
    from .assignment._gpu_cost_scaling import solve_uploaded, validate_cost_scaling_gpu_options  # noqa: PLC0415

    return solve_uploaded(dev, o=validate_cost_scaling_gpu_options(**options))



def batch_assignment(costs: Any, shapes: Any = None, *, maximize: bool = False, **options: Any
                     ) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
    """The batched GPU solve and its device certificate, without the door's re-solves: ``(col4row, u, v, status,
    stats)``. ``col4row``, ``u`` (rows) and ``v`` (columns) are every item's answer one after the other (item
    ``b``'s rows are ``stats["row_offsets"][b]:stats["row_offsets"][b + 1]``, its columns likewise with
    ``"col_offsets"``), the duals in the user's sign (``u + v <= C``, ``>=`` when maximising); ``status[b]`` (a
    NumPy array) is 0 when item ``b`` was solved and proved optimal, 1 when it is infeasible, 2 when it holds NaN
    (or ``-inf`` when minimising), 4 when the device certificate did not prove it (``certify=False``: not
    checked). Host inputs give NumPy arrays, device inputs numba device arrays. ``stats``: ``seconds_start``
    (uploads), ``seconds_solve`` (the launch, waited for), ``seconds_certify``, ``seconds_finish``, ``kernel``
    (``"warp"``: a warp per item, ``"block"``: a block per item), ``block_size``, ``shared_bytes``, ``launches``.
    Options: :data:`OPTIONS` plus ``kernel`` (``"auto"``, ``"warp"``, ``"block"``), ``shared_costs`` and
    ``shared_work`` (default True).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import gpu
    >>> C = np.array([[[4, 1, 3], [2, 0, 5]], [[1, 2, 9], [3, 5, 0]]])
    >>> # the lines below need a GPU (skipped without one)
    >>> col4row, u, v, status, stats = gpu.batch_assignment(C)  # doctest: +SKIP
    >>> col4row.tolist(), status.tolist(), stats["row_offsets"].tolist()  # doctest: +SKIP
    ([1, 0, 0, 2], [0, 0], [0, 2, 4])

    References
    ----------
    .. [1] Crouse, D. F., "On implementing 2D rectangular assignment algorithms", IEEE Transactions on Aerospace
           and Electronic Systems 52(4), 1679-1696, 2016. DOI:10.1109/TAES.2016.2517038
    """
    require_gpu("matchflow.gpu.batch_assignment")
    from .batch._gpu_jv import solve_jv_gpu  # noqa: PLC0415
    from .batch._prepare import prepare  # noqa: PLC0415

    p = prepare(costs, shapes, maximize)
    stats: dict[str, Any] = {"row_offsets": p.out_rows.copy(), "col_offsets": p.out_cols.copy()}
    s = solve_jv_gpu(p, stats=stats, **options)
    return s.col4row, s.u, s.v, s.status, stats
