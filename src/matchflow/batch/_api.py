"""The door of the batched assignment: validate once -> resolve(method, backend) -> prepared problem ->
place(row, device) -> the row's solve -> certificate -> the answer in the input's form and library."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._cuda import device_library, hand_back
from .._lsap.problem import limit_extended
from .._methods import check_method_options, place, resolve
from .._validation import check_bool, check_real, is_torch_tensor
from ._cpu_jv import INVALID, resolve_items
from ._methods import TABLE
from ._prepare import BatchProblem, prepare
from ._verify import PROVED, certify_batch

__all__ = ["batch_linear_sum_assignment"]


def batch_linear_sum_assignment(costs, *, shapes=None, maximize: bool = False, backend: str = "auto",
                                method: str = "auto", return_cost: bool = False, return_duals: bool = False,
                                cost_limit: float | None = None, **options):
    """Solve many linear assignment problems in one call: SciPy's optimum for every item.

    Parameters
    ----------
    costs : array (B, n, m), or a list of 2-D arrays
        NumPy, CuPy or PyTorch (CPU or CUDA); a list may mix shapes (ragged: solved without padding). bool,
        integers and float16/bfloat16/float32/float64; ``+inf`` forbids a pair (``-inf`` when ``maximize``).
    shapes : array (B, 2) of int, optional
        With a 3-D ``costs``: item ``i`` is the top-left ``shapes[i, 0] x shapes[i, 1]`` corner (the padded
        DETR form); the padding is never read.
    maximize : bool
        Maximise each item's total.
    backend : {"auto", "cpu", "gpu"}
        The device. ``auto``: the CPU (Numba threads over the items) until the GPU twin is measured faster; a
        device input runs on its GPU.
    method : {"auto", "jv"}
        Jonker-Volgenant (CPU option ``arr_passes``, default 2).
    return_cost, return_duals : bool
        Also return each item's optimal total (``(B,)``), and its duals ``u`` (rows), ``v`` (columns) of the
        minimisation problem on the item (``-C`` when ``maximize``), as :func:`matchflow.assignment` returns
        them: :func:`matchflow.verify.verify_batch_assignment` (or ``verify_assignment`` per item) checks them.
    cost_limit : float, optional
        lap/lapx semantics per item, as in :func:`matchflow.assignment`: leaving one row and one column
        unassigned costs ``cost_limit``, so no pair costing more is used (``-1`` where a row stays unassigned).
        Not with ``return_duals``.

    Returns
    -------
    col4row : array (B, n) of int64, or a list of 1-D arrays
        The column of each row, ``-1`` for an unmatched row (a tall item, rows beyond ``shapes``, or
        ``cost_limit``). A 3-D input gets a ``(B, n)`` array in its library and on its device
        (``torch.long`` for PyTorch); a list gets a list. Then ``cost`` and ``(u, v)`` when asked for.

    Raises
    ------
    ValueError
        SciPy's messages with the item's index: "cost matrix is infeasible (item 3)", "matrix contains
        invalid numeric entries (item 3)" (NaN, or ``-inf`` when minimising).

    Notes
    -----
    Every answer is certified by LP duality before it is returned (exact for integers; for floats the dense
    family's rigorous gap bound); an item not proved is solved again by :func:`matchflow.assignment`, which
    proves its answer (exact re-solves). Totals equal SciPy's; among tied optima the pairs may differ from
    SciPy's (JV's tie-break is not SciPy's).

    Examples
    --------
    >>> import numpy as np
    >>> from matchflow import batch_linear_sum_assignment
    >>> C = np.array([[[4, 1, 3], [2, 0, 5]], [[1, 2, 9], [3, 5, 0]]])
    >>> batch_linear_sum_assignment(C)
    array([[1, 0],
           [0, 2]])
    >>> x, cost = batch_linear_sum_assignment([np.array([[3.0]]), np.array([[1.0, 2.0], [0.5, 7.0]])],
    ...                                       return_cost=True)
    >>> [t.tolist() for t in x], cost.tolist()
    ([[0], [1, 0]], [3.0, 2.5])

    References
    ----------
    .. [1] R. Jonker, A. Volgenant, "A shortest augmenting path algorithm for dense and sparse linear
       assignment problems", Computing 38 (1987) 325-340.
    """
    maximize = check_bool("maximize", maximize)
    return_cost = check_bool("return_cost", return_cost)
    return_duals = check_bool("return_duals", return_duals)
    row, be = resolve(TABLE, method, backend)
    if cost_limit is not None:
        if return_duals:
            raise NotImplementedError("return_duals is not available with cost_limit (the duals are those of the "
                                      "extended (n + m)-square items); use matchflow.assignment per item")
        return _with_limit(costs, shapes, maximize, check_real("cost_limit", cost_limit), row, be, return_cost,
                           options)
    p = prepare(costs, shapes, maximize)
    row, device = place(TABLE, row, be, lambda: p, options)
    opts = check_method_options(TABLE, row, device, options)
    col4row, u, v, status = (row.cpu if device == "cpu" else row.gpu)(p, **opts)
    col4row, u, v, status = (_host(t) for t in (col4row, u, v, status))
    _raise_status(status)
    u, v = _certified(p, col4row, u, v, status)
    return _answer(p, col4row, u, v, return_cost, return_duals)


def _host(a: Any) -> np.ndarray:
    return a.copy_to_host() if hasattr(a, "copy_to_host") else np.asarray(a)


def _raise_status(status: np.ndarray) -> None:
    bad = np.flatnonzero(status != 0)
    if bad.size:
        b = int(bad[0])
        what = "matrix contains invalid numeric entries" if status[b] == INVALID else "cost matrix is infeasible"
        raise ValueError(f"{what} (item {b})")


def _certified(p: BatchProblem, col4row, u, v, status):
    """The answer's duals as the minimisation's (``-u``, ``-v`` when maximising), every item certified; items
    not proved are solved again by :func:`matchflow.assignment` (which proves its answers)."""
    if p.on_device:
        p = prepare([p.item(b) for b in range(p.batch)], None, p.maximize)
    if p.maximize:
        u, v = -u, -v
    verdict, _, _ = certify_batch(p, col4row, u, v)
    redo = np.flatnonzero(verdict != PROVED)
    if redo.size:
        if p.maximize:
            u, v = -u, -v
        u, v = resolve_items(p, redo, col4row, u, v, status)
        _raise_status(status)
        if p.maximize:
            u, v = -u, -v
    return u, v


def _costs(p: BatchProblem, col4row: np.ndarray) -> np.ndarray:
    out = []
    for b in range(p.batch):
        x = col4row[p.out_rows[b]:p.out_rows[b + 1]]
        r = np.flatnonzero(x >= 0)
        vals = p.item(b)[r, x[r]]
        out.append(sum(int(t) for t in vals.tolist()) if p.is_int else float(np.sum(vals)))
    if p.is_int and any(abs(t) >= 2**63 for t in out):
        return np.array(out, dtype=object)
    return np.array(out, dtype=np.int64 if p.is_int else np.float64)


def _split(p: BatchProblem, flat: np.ndarray, sizes: np.ndarray, offs: np.ndarray, fill) -> Any:
    """The flat per-item answer as the input's form: a (B, k) array (k: the padded size) or a list."""
    if p.form == "list":
        return [flat[offs[b]:offs[b + 1]].copy() for b in range(p.batch)]
    k = p.pad_rows if sizes is p.rows else int(p.source.shape[2])
    out = np.full((p.batch, k), fill, dtype=flat.dtype)
    for b in range(p.batch):
        out[b, :sizes[b]] = flat[offs[b]:offs[b + 1]]
    return out


def _to_input(p: BatchProblem, a: Any) -> Any:
    """``a`` (NumPy) in the input's library and on its device (PyTorch CPU tensors get CPU tensors)."""
    if isinstance(a, list):
        return [_to_input(p, t) for t in a]
    src = p.source[0] if p.form == "list" and p.batch else p.source
    if p.on_device:
        return hand_back(a, device_library(src), src)
    if is_torch_tensor(src):
        import torch  # noqa: PLC0415

        return torch.from_numpy(np.ascontiguousarray(a)) if a.dtype != object else a
    return a


def _answer(p: BatchProblem, col4row, u, v, return_cost: bool, return_duals: bool):
    out = [_to_input(p, _split(p, col4row, p.rows, p.out_rows, -1))]
    if return_cost:
        out.append(_to_input(p, _costs(p, col4row)))
    if return_duals:
        out.append(_to_input(p, _split(p, u, p.rows, p.out_rows, 0)))
        out.append(_to_input(p, _split(p, v, p.cols, p.out_cols, 0)))
    return out[0] if len(out) == 1 else tuple(out)


def _with_limit(costs, shapes, maximize: bool, lim: float, row, be: str, return_cost: bool, options: dict):
    """``cost_limit``: each item extended by lap's construction (:func:`matchflow._lsap.problem.limit_extended`,
    the dense family's too), solved as a ragged batch, the user's pairs kept."""
    p = prepare(costs, shapes, maximize)
    items = [p.item(b) for b in range(p.batch)]
    ext = [limit_extended(np.asarray(a), lim, maximize) for a in items]
    q = prepare(ext, None, maximize)
    row, device = place(TABLE, row, be if be != "gpu" else "gpu", lambda: q, options)
    opts = check_method_options(TABLE, row, device, options)
    col4row, u, v, status = (_host(t) for t in (row.cpu if device == "cpu" else row.gpu)(q, **opts))
    _raise_status(status)
    _certified(q, col4row, u, v, status)
    flat = np.concatenate([np.where(x < c, x, -1) for x, c in
                           ((col4row[q.out_rows[b]:q.out_rows[b] + int(p.rows[b])], int(p.cols[b]))
                            for b in range(p.batch))]) if p.batch else np.zeros(0, dtype=np.int64)
    out = [_to_input(p, _split(p, flat, p.rows, p.out_rows, -1))]
    if return_cost:
        out.append(_to_input(p, _costs(p, flat)))
    return out[0] if len(out) == 1 else tuple(out)
