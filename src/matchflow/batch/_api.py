"""The door of the batched assignment: validate once -> resolve(method, backend) -> prepared problem ->
place(row, device) -> the row's solve -> certificate -> the answer in the input's form and library."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._cuda import device_library, hand_back, is_device_array
from .._lsap.problem import limit_extended
from .._methods import check_method_options, place, resolve
from .._validation import check_bool, check_real, is_torch_tensor
from ._cpu_jv import INVALID, resolve_items
from ._methods import TABLE
from ._prepare import UNPROVED, BatchProblem, Solved, prepare
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
        The device. ``auto``: a device input runs on its GPU; host arrays run there from 1000 items of a larger
        side <= 128 (measured faster end to end on an H200; from 100,000 items before the process has used the
        GPU: its first use costs ~0.8 s), else on the CPU (Numba threads over the items).
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
    family's rigorous gap bound), on the device for the GPU (a device input never crosses to the host) and on the
    host for the CPU; an item not proved is solved again by :func:`matchflow.assignment`, which proves its answer
    (exact re-solves). Totals equal SciPy's. Ties: the GPU runs SciPy's own shortest augmenting paths in SciPy's
    scan order, so its pairs are SciPy's; the CPU's JV may pick another of the tied optima. A device input's
    float totals are summed on the device (per-thread sums, then a fixed tree: the same bits on every run, not
    NumPy's pairwise order).

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
    solved = _certified(p, Solved.of((row.cpu if device == "cpu" else row.gpu)(p, **opts)))
    return _answer(p, solved, return_cost, return_duals)


def _raise_status(status: np.ndarray) -> None:
    bad = np.flatnonzero((status != 0) & (status != UNPROVED))
    if bad.size:
        b = int(bad[0])
        what = "matrix contains invalid numeric entries" if status[b] == INVALID else "cost matrix is infeasible"
        raise ValueError(f"{what} (item {b})")


def _certified(p: BatchProblem, s: Solved) -> Solved:
    """``s`` with every item proved: by the solver's own certificate (``s.certified``: the device's, one status
    read) or here, in one batched pass on the host; an item not proved is solved again by
    :func:`matchflow.assignment` (which proves its answers), its answer then on the host. Raises SciPy's errors
    for infeasible and invalid items."""
    _raise_status(s.status)
    h = p
    if s.certified:
        redo = np.flatnonzero(s.status == UNPROVED)
    else:
        s = s.to_host()
        h = p.on_host()  # device costs: one copy for the certificate
        u, v = (-s.u, -s.v) if p.maximize else (s.u, s.v)
        verdict, _, _ = certify_batch(h, s.col4row, u, v)
        redo = np.flatnonzero(verdict != PROVED)
    if not redo.size:
        return s
    s = s.to_host()
    u, v = resolve_items(h, redo, s.col4row, s.u, s.v, s.status)
    _raise_status(s.status)
    return Solved(s.col4row, u, v, s.status, certified=True)


def _costs(p: BatchProblem, col4row: np.ndarray) -> np.ndarray:
    """Each item's total of the host problem ``p`` under ``col4row``: one gather, then one row sum per distinct
    count of matched rows (NumPy's sum of each item's values, as ``C[r, c].sum()``; exact int64 while no sum can
    overflow, Python integers beyond)."""
    B = p.batch
    hit = np.flatnonzero(col4row >= 0)
    b = np.repeat(np.arange(B), p.rows)[hit]
    vals = p.vals[p.offs[b] + (hit - p.out_rows[b]) * p.ld[b] + col4row[hit]]
    counts = np.bincount(b, minlength=B)
    starts = _prefix(counts)[:-1]
    if p.is_int and float(np.abs(vals.astype(np.float64)).max(initial=0)) * float(counts.max(initial=0)) >= 2.0**62:
        out = [sum(int(t) for t in vals[s:s + k].tolist()) for s, k in zip(starts.tolist(), counts.tolist())]
        return np.array(out, dtype=object if any(abs(t) >= 2**63 for t in out) else np.int64)
    sums = np.zeros(B, dtype=np.int64 if p.is_int else np.float64)
    for k in np.unique(counts[counts > 0]).tolist():
        items = np.flatnonzero(counts == k)
        sums[items] = vals[starts[items][:, None] + np.arange(k)].sum(axis=1)
    return sums


def _prefix(x: np.ndarray) -> np.ndarray:
    out = np.zeros(x.size + 1, dtype=np.int64)
    np.cumsum(x, out=out[1:])
    return out


def _form(p: BatchProblem, flat: Any, sizes: np.ndarray, offs: np.ndarray, fill) -> Any:
    """One flat per-item answer (host, or the solver's device array) in the input's form, library and device, by
    one hand-back: a (B, k) array (k: the padded size; a full device answer is wrapped without a copy, a ragged
    one padded on the device), or a list of views of one array."""
    if p.form == "list":
        whole = _to_input(p, flat)
        return [whole[int(offs[b]):int(offs[b + 1])] for b in range(p.batch)]
    B, k = p.batch, p.pad_rows if sizes is p.rows else int(p.source.shape[2])
    full = bool((sizes == k).all())
    if is_device_array(flat):
        from ._gpu_jv import padded  # noqa: PLC0415 - device answers only

        return _to_input(p, flat.reshape(B, k) if full else padded(flat, offs, sizes, k, fill))
    if full:
        return _to_input(p, flat.reshape(B, k))
    out = np.full((B, k), fill, dtype=flat.dtype)
    out[np.arange(k) < sizes[:, None]] = flat
    return _to_input(p, out)


def _to_input(p: BatchProblem, a: np.ndarray) -> Any:
    """``a`` (NumPy, or the solver's device array) in the input's library and on its device (PyTorch CPU tensors
    get CPU tensors; a device array is wrapped without a copy)."""
    src = p.source[0] if p.form == "list" and p.batch else p.source
    if p.on_device:
        return hand_back(a, device_library(src), src)
    if is_torch_tensor(src):
        import torch  # noqa: PLC0415

        return torch.from_numpy(np.ascontiguousarray(a)) if a.dtype != object else a
    return a


def _answer(p: BatchProblem, s: Solved, return_cost: bool, return_duals: bool):
    """The answer of ``p`` from the certified ``s`` (host arrays, or device arrays left on the device)."""
    out = [_form(p, s.col4row, p.rows, p.out_rows, -1)]
    if return_cost:
        total = s.total if s.total is not None else _costs(p.on_host(), s.to_host().col4row)
        out.append(_to_input(p, total))
    if return_duals:
        u, v = s.u, s.v
        if p.maximize:  # the minimisation's duals (on -C)
            if s.on_device:
                from ._gpu_jv import negated  # noqa: PLC0415 - device answers only

                u, v = negated(u), negated(v)
            else:
                u, v = -u, -v
        out.append(_form(p, u, p.rows, p.out_rows, 0))
        out.append(_form(p, v, p.cols, p.out_cols, 0))
    return out[0] if len(out) == 1 else tuple(out)


def _with_limit(costs, shapes, maximize: bool, lim: float, row, be: str, return_cost: bool, options: dict):
    """``cost_limit``: each item extended by lap's construction (:func:`matchflow._lsap.problem.limit_extended`,
    the dense family's too), solved as a ragged batch, the user's pairs kept."""
    p = prepare(costs, shapes, maximize)
    hp = p.on_host()
    items = [hp.item(b) for b in range(p.batch)]
    ext = [limit_extended(np.asarray(a), lim, maximize) for a in items]
    q = prepare(ext, None, maximize)
    row, device = place(TABLE, row, be if be != "gpu" else "gpu", lambda: q, options)
    opts = check_method_options(TABLE, row, device, options)
    col4row = _certified(q, Solved.of((row.cpu if device == "cpu" else row.gpu)(q, **opts))).to_host().col4row
    flat = np.concatenate([np.where(x < c, x, -1) for x, c in
                           ((col4row[q.out_rows[b]:q.out_rows[b] + int(p.rows[b])], int(p.cols[b]))
                            for b in range(p.batch))]) if p.batch else np.zeros(0, dtype=np.int64)
    out = [_form(p, flat, p.rows, p.out_rows, -1)]
    if return_cost:
        out.append(_to_input(p, _costs(hp, flat)))
    return out[0] if len(out) == 1 else tuple(out)
