"""batch_linear_sum_assignment on the GPU (marked gpu): SciPy's answer for every item, ties included (the
kernel runs SciPy's own shortest augmenting paths in its scan order), against the CPU twin and SciPy; device
inputs answered on their device; the kernel's paths (block sizes, shared or global work arrays and costs).
Under the CUDA simulator (NUMBA_ENABLE_CUDASIM=1) the sizes shrink: it runs every thread in Python."""

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from matchflow import batch_linear_sum_assignment
from matchflow._cuda import is_device_array, is_simulator
from matchflow.verify import verify_batch_assignment

pytestmark = pytest.mark.gpu
SIM = is_simulator()
HI = 7 if SIM else 40  # largest side of the random items


def _items(rng, count, hi=HI, kind="float", inf=0.0, ties=True):
    items = []
    for _ in range(count):
        n, m = (int(t) for t in rng.integers(1, hi + 1, 2))
        a = rng.integers(0, max(n, m) // 2 + 2 if ties else 10**6, (n, m)) if kind == "int" else rng.random((n, m))
        if inf:
            a = a.astype(float)
            a[rng.random((n, m)) < inf] = np.inf
        items.append(a)
    return items


def _scipy(a, maximize=False):
    """SciPy's col4row (-1 for an unmatched row)."""
    r, c = linear_sum_assignment(a, maximize=maximize)
    x = np.full(a.shape[0], -1, dtype=np.int64)
    x[r] = c
    return x


def _same_as_scipy(items, x, maximize=False):
    for b, a in enumerate(items):
        np.testing.assert_array_equal(np.asarray(x[b])[:a.shape[0]], _scipy(np.asarray(a, float), maximize),
                                      err_msg=f"item {b} {a.shape}")


@pytest.mark.parametrize("kind", ["int", "float"])
@pytest.mark.parametrize("maximize", [False, True])
def test_ragged_batches_are_scipys_answers_ties_included(kind, maximize):
    rng = np.random.default_rng(7 + maximize)
    items = _items(rng, 12 if SIM else 200, kind=kind)
    x, cost, u, v = batch_linear_sum_assignment(items, maximize=maximize, backend="gpu", return_cost=True,
                                                return_duals=True)
    _same_as_scipy(items, x, maximize)
    assert verify_batch_assignment(items, x, u, v, maximize=maximize)
    xc, cc = batch_linear_sum_assignment(items, maximize=maximize, backend="cpu", return_cost=True)
    np.testing.assert_array_equal(cost, cc)


@pytest.mark.parametrize("n, m", [(1, 1), (5, 5), (3, 8), (8, 3)] + ([] if SIM else [(32, 32), (64, 64), (33, 100),
                                                                                    (300, 50), (512, 512)]))
def test_tensor_sizes_int_and_float(n, m):
    rng = np.random.default_rng(n * 1000 + m)
    B = 3 if SIM or n * m > 10**4 else 40
    for C in (rng.integers(0, n + 1, (B, n, m)), rng.random((B, n, m))):
        x = batch_linear_sum_assignment(C, backend="gpu")
        assert x.shape == (B, n)
        _same_as_scipy(list(C), x)


def test_forbidden_pairs_rectangular_both_ways():
    rng = np.random.default_rng(3)
    items = [a for a in _items(rng, 30, inf=0.3) if _feasible(a)][:10 if SIM else 30]
    x = batch_linear_sum_assignment(items, backend="gpu")
    _same_as_scipy(items, x)


def _feasible(a):
    try:
        linear_sum_assignment(a)
    except ValueError:
        return False
    return True


def test_infeasible_and_nan_items_are_named():
    ok = np.array([[1.0, 2.0], [3.0, 4.0]])
    infeasible = np.array([[np.inf, 1.0], [np.inf, 2.0]])
    nan = np.array([[np.nan, 1.0], [1.0, 2.0]])
    with pytest.raises(ValueError, match=r"cost matrix is infeasible \(item 2\)"):
        batch_linear_sum_assignment([ok, ok, infeasible, ok], backend="gpu")
    with pytest.raises(ValueError, match=r"invalid numeric entries \(item 1\)"):
        batch_linear_sum_assignment([ok, nan, ok], backend="gpu")
    with pytest.raises(ValueError, match=r"invalid numeric entries \(item 0\)"):
        batch_linear_sum_assignment([-infeasible, ok], backend="gpu")  # -inf when minimising


def test_other_items_keep_their_answers_beside_a_failed_one():
    from matchflow.batch._gpu_jv import solve_jv_gpu
    from matchflow.batch._prepare import prepare

    items = [np.array([[4.0, 1.0], [2.0, 0.0]]), np.array([[np.inf, 1.0], [np.inf, 2.0]]), np.array([[1.0]])]
    x, _, _, st = solve_jv_gpu(prepare(items))
    assert st.tolist() == [0, 1, 0]
    assert x.tolist() == [1, 0, -1, -1, 0]


def test_float16_costs_are_promoted():
    rng = np.random.default_rng(4)
    C = rng.random((6, 5, 7)).astype(np.float16)
    _same_as_scipy(list(C.astype(np.float64)), batch_linear_sum_assignment(C, backend="gpu"))


def test_ragged_mixing_1x1_and_300x50():
    rng = np.random.default_rng(5)
    big = (12, 4) if SIM else (300, 50)
    items = [rng.random((1, 1)), rng.random(big), rng.random(big[::-1]), rng.integers(0, 3, (4, 4)).astype(float)]
    _same_as_scipy(items, batch_linear_sum_assignment(items, backend="gpu"))


@pytest.mark.parametrize("opts", [{"kernel": "block", "block_size": 1}, {"kernel": "block", "block_size": 4},
                                  {"kernel": "block", "block_size": 64}, {"kernel": "block", "shared_costs": False},
                                  {"kernel": "block", "grid_size": 2}, {"kernel": "warp"},
                                  {"kernel": "warp", "grid_size": 2}, {"certify": False}])
def test_kernel_paths(opts):
    """The block kernel: tiny blocks (several columns per thread, the tree reduction), costs in global memory,
    fewer blocks than items (a block strides over items); the warp kernel (a warp per item, warps striding);
    the door's host certificate when the device's is off."""
    rng = np.random.default_rng(6)
    for kind in ("int", "float"):
        items = _items(rng, 6, hi=9, kind=kind)
        _same_as_scipy(items, batch_linear_sum_assignment(items, backend="gpu", **opts))


@pytest.mark.parametrize("kind", ["int", "float"])
def test_warp_and_block_kernels_give_scipys_answers_up_to_side_128(kind):
    """Items with more columns (or rows) than a warp has lanes: several slots per lane; ties; tall items."""
    rng = np.random.default_rng(21)
    shapes = [(3, 40), (40, 3), (33, 33), (70, 128), (128, 90)] if not SIM else [(2, 35), (35, 2), (33, 33)]
    items = [rng.integers(0, 4, s) if kind == "int" else rng.random(s) for s in shapes]
    for k in ("warp", "block"):
        x, u, v = batch_linear_sum_assignment(items, backend="gpu", kernel=k, return_duals=True)
        _same_as_scipy(items, x)
        assert verify_batch_assignment(items, x, u, v)
    with pytest.raises(ValueError, match=r"kernel='warp' takes items of a larger side <= 128, got 129"):
        batch_linear_sum_assignment([np.ones((2, 129))], backend="gpu", kernel="warp")
    with pytest.raises(ValueError, match=r"kernel must be one of 'auto', 'warp', 'block', got 'thread'"):
        batch_linear_sum_assignment(items, backend="gpu", kernel="thread")


def test_work_arrays_in_global_memory(monkeypatch):
    """Items whose work arrays do not fit the shared-memory budget keep them in global memory."""
    from matchflow.batch import _gpu_jv

    monkeypatch.setattr(_gpu_jv, "SMEM_MAX", 0)
    rng = np.random.default_rng(8)
    items = _items(rng, 6, hi=9, kind="int") + _items(rng, 4, hi=9)
    _same_as_scipy(items, batch_linear_sum_assignment(items, backend="gpu", kernel="block"))


def test_raw_gpu_solver_stages_and_global_work():
    """``matchflow.gpu.batch_assignment``: every item's answer at its offsets, statuses, the stage timings; with
    ``shared_work=False`` the work arrays live in global memory and the answers do not change."""
    from matchflow import gpu

    rng = np.random.default_rng(9)
    items = _items(rng, 5, hi=9, kind="int") + [np.array([[np.inf, 1.0], [np.inf, 2.0]])]
    for opts, kernel, shared in (({}, "warp", False), ({"kernel": "block"}, "block", True),
                                 ({"kernel": "block", "shared_work": False, "shared_costs": False}, "block", False)):
        x, u, v, status, st = gpu.batch_assignment(items, **opts)
        ro = st["row_offsets"]
        assert status.tolist() == [0] * 5 + [1]
        assert st["seconds_solve"] >= 0 and st["launches"] == 2  # the solve and the certificate
        assert (st["kernel"], st["shared_work"]) == (kernel, shared)
        _same_as_scipy(items[:5], [x[ro[b]:ro[b + 1]] for b in range(5)])


@pytest.mark.parametrize("kind", ["int", "float"])
def test_device_certificate_refutes_a_tampered_answer(kind):
    from numba import cuda

    from matchflow.batch._gpu_jv import JVBatchRun, validate_jv_gpu_options
    from matchflow.batch._prepare import UNPROVED, prepare

    rng = np.random.default_rng(9)
    C = rng.integers(0, 20, (3, 5, 6)) if kind == "int" else rng.random((3, 5, 6))
    run = JVBatchRun(prepare(C), validate_jv_gpu_options())
    run.start()
    run.solve()
    run.certify()
    assert run.status.copy_to_host().tolist() == [0, 0, 0]  # the true answer is proved
    u = run.u.copy_to_host()
    u[7] -= 1  # item 1 (rows 5..9): a dual off by one breaks the matched pair's equality
    run.u = cuda.to_device(u)
    x = run.col4row.copy_to_host()
    x[11] = x[10]  # item 2: two rows on one column
    run.col4row = cuda.to_device(x)
    run.certify()
    assert run.status.copy_to_host().tolist() == [0, UNPROVED, UNPROVED]
    total, want = run.total.copy_to_host()[0], C[0][np.arange(5), x[:5]].sum()
    assert total == want if kind == "int" else total == pytest.approx(want, rel=1e-15)


def test_the_door_solves_again_what_the_device_did_not_prove(monkeypatch):
    """An item the device certificate leaves unproved is solved again on the host: SciPy's optimum still."""
    from matchflow.batch import _gpu_jv
    from matchflow.batch._prepare import UNPROVED

    certify = _gpu_jv.JVBatchRun.certify

    def doubting(self, wait=False):
        certify(self, wait)
        st = self.status.copy_to_host()
        st[1] = UNPROVED
        self.status[:] = st

    monkeypatch.setattr(_gpu_jv.JVBatchRun, "certify", doubting)
    rng = np.random.default_rng(19)
    C = rng.random((3, 6, 6))
    x, cost = batch_linear_sum_assignment(C, backend="gpu", return_cost=True)
    _same_as_scipy(list(C), x)
    assert cost[1] == pytest.approx(C[1][np.arange(6), x[1]].sum())


def test_wide_integers_are_solved_on_the_host():
    C = np.array([[[2**60, 1], [3, 2**59]], [[1, 2], [3, 4]]], dtype=np.int64)
    x, cost = batch_linear_sum_assignment(C, backend="gpu", return_cost=True)
    assert x.tolist() == [[1, 0], [0, 1]]
    assert cost.tolist() == [4, 5]


def test_repeated_runs_are_identical():
    """1000 solves of one tied batch (the solver alone: the door's host certificate is tested above)."""
    from matchflow.batch._gpu_jv import solve_jv_gpu
    from matchflow.batch._prepare import prepare

    rng = np.random.default_rng(10)
    C = rng.integers(0, 4, (2 if SIM else 64, 12, 12))  # many ties
    p = prepare(C)
    first = tuple(solve_jv_gpu(p))
    _same_as_scipy(list(C), first[0].reshape(C.shape[:2]))
    for _ in range(1 if SIM else 1000):
        again = solve_jv_gpu(p)
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a, b)


def test_torch_cuda_inputs_answer_on_the_device():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    rng = np.random.default_rng(11)
    C = rng.random((8, 6, 9))
    t = torch.tensor(C, device="cuda", dtype=torch.float32)
    x, cost = batch_linear_sum_assignment(t, backend="gpu", return_cost=True)
    assert x.is_cuda and x.dtype == torch.long
    _same_as_scipy(list(C.astype(np.float32).astype(np.float64)), x.cpu().numpy())
    shapes = torch.tensor([[6, 9], [3, 4]] * 4)
    xs = batch_linear_sum_assignment(t, shapes=shapes, backend="gpu")
    assert xs.is_cuda
    ragged = [t[0], t[1, :3, :4]]
    xr = batch_linear_sum_assignment(ragged, backend="gpu")
    assert all(a.is_cuda for a in xr)


def test_cupy_inputs_answer_on_the_device():
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(12)
    C = rng.integers(0, 5, (8, 7, 5))
    x = batch_linear_sum_assignment(cupy.asarray(C), backend="gpu")
    assert isinstance(x, cupy.ndarray)
    _same_as_scipy(list(C), cupy.asnumpy(x))


def test_numba_device_inputs_never_cross_to_the_host(monkeypatch):
    """A device input's costs stay on the device (certified there: no ``BatchProblem.on_host`` copy, never an
    item copied on its own); the answers are device arrays on the input's device, equal to SciPy's, the totals
    the user's sums."""
    from numba import cuda

    from matchflow.batch import _prepare

    copies = []
    on_host = _prepare.BatchProblem.on_host
    monkeypatch.setattr(_prepare.BatchProblem, "on_host", lambda self: copies.append(self.on_device) or on_host(self))
    monkeypatch.setattr(_prepare.BatchProblem, "item", lambda self, i: pytest.fail(f"item {i} copied on its own"))
    rng = np.random.default_rng(29)
    C = rng.integers(0, 6, (5, 4, 6))
    shapes = np.array([[4, 6], [2, 3], [4, 1], [1, 6], [3, 3]])
    items = [C[b, :n, :m] for b, (n, m) in enumerate(shapes)]
    for costs, kw, want in ((cuda.to_device(C), {}, list(C)), (cuda.to_device(C), {"shapes": shapes}, items),
                            ([cuda.to_device(np.ascontiguousarray(a)) for a in items], {}, items)):
        for maximize in (False, True):
            del copies[:]
            x, cost, u, v = batch_linear_sum_assignment(costs, maximize=maximize, backend="gpu", return_cost=True,
                                                        return_duals=True, **kw)
            assert copies == []
            xs = x if isinstance(x, list) else [x[b] for b in range(len(want))]
            assert all(is_device_array(t) for t in xs + [cost, u if not isinstance(u, list) else u[0]])
            xh = [t.copy_to_host() for t in xs]
            _same_as_scipy(want, xh, maximize)
            ch = cost.copy_to_host()
            for b, a in enumerate(want):
                r = np.flatnonzero(xh[b][:a.shape[0]] >= 0)
                assert ch[b] == a[r, xh[b][r]].sum()
            host = (lambda t: [s.copy_to_host() for s in t]) if isinstance(x, list) else (lambda t: t.copy_to_host())
            assert verify_batch_assignment(want, [t[:a.shape[0]] for t, a in zip(xh, want)],
                                           [t[:a.shape[0]] for t, a in zip(host(u), want)],
                                           [t[:a.shape[1]] for t, a in zip(host(v), want)], maximize=maximize)


def test_torch_compile_fullgraph_with_the_call_as_a_custom_op():
    """issue 23's question: the batched call inside ``torch.compile(fullgraph=True)``, wrapped as an opaque
    ``torch.library.custom_op`` with a fake implementation (the recipe of docs/notes/batch_gpu.md): no graph
    break, the eager answer."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or SIM:
        pytest.skip("torch with CUDA on a real device")

    @torch.library.custom_op("matchflow_test::batch_lsa", mutates_args=())
    def batch_lsa(costs: torch.Tensor) -> torch.Tensor:
        return batch_linear_sum_assignment(costs, backend="gpu")

    @batch_lsa.register_fake
    def _(costs):
        return costs.new_empty(costs.shape[:2], dtype=torch.long)

    def matcher(logits, boxes, targets):
        return batch_lsa(-logits.softmax(-1)[..., :1] + torch.cdist(boxes, targets, p=1))

    g = torch.Generator(device="cuda").manual_seed(0)
    args = (torch.randn(4, 30, 2, device="cuda", generator=g), torch.rand(4, 30, 4, device="cuda", generator=g),
            torch.rand(4, 7, 4, device="cuda", generator=g))
    got = torch.compile(matcher, fullgraph=True)(*args)
    assert torch.equal(got, matcher(*args))
    C = (-args[0].softmax(-1)[..., :1] + torch.cdist(args[1], args[2], p=1)).double().cpu().numpy()
    _same_as_scipy(list(C), got.cpu().numpy())
