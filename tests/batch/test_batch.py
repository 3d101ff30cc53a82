"""batch_linear_sum_assignment on the CPU: every item's total equal to SciPy's optimum, duals certified."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from matchflow import assignment, batch_linear_sum_assignment
from matchflow.verify import verify_assignment, verify_batch_assignment


def _random_items(rng, count, hi=12, kind="float", inf=0.0):
    items = []
    for _ in range(count):
        n, m = (int(t) for t in rng.integers(1, hi + 1, 2))
        if kind == "int":
            a = rng.integers(-3, rng.integers(1, 2 * max(n, m)) + 1, (n, m))  # small ranges: many ties
        else:
            a = rng.random((n, m))
        if inf:
            a = a.astype(float)
            a[rng.random((n, m)) < inf] = np.inf
        items.append(a)
    return items


def _scipy_total(a, maximize=False):
    r, c = linear_sum_assignment(a, maximize=maximize)
    return a[r, c].sum()


def _check_items(items, x, cost, maximize=False):
    """Each item: a valid assignment of the smaller side whose total is SciPy's optimum."""
    for b, a in enumerate(items):
        xb = np.asarray(x[b])[:a.shape[0]]
        r = np.flatnonzero(xb >= 0)
        assert r.size == min(a.shape)
        assert np.unique(xb[r]).size == r.size
        total = a[r, xb[r]].sum()
        want = _scipy_total(a, maximize)
        if a.dtype.kind in "iu":
            assert total == want == cost[b]
        else:
            assert total == pytest.approx(want, rel=1e-12, abs=1e-12)
            assert cost[b] == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("kind", ["int", "float"])
@pytest.mark.parametrize("maximize", [False, True])
def test_ragged_items_equal_scipy_and_duals_verify(kind, maximize):
    rng = np.random.default_rng(1 + 2 * maximize + (kind == "int"))
    items = _random_items(rng, 120, kind=kind)
    x, cost, u, v = batch_linear_sum_assignment(items, maximize=maximize, return_cost=True, return_duals=True)
    _check_items(items, x, cost, maximize)
    assert bool(verify_batch_assignment(items, x, u, v, maximize=maximize))
    for b in range(0, 120, 17):  # the dense family's verifier accepts each item's duals as they are
        r = np.flatnonzero(x[b] >= 0)
        assert verify_assignment(items[b], r, x[b][r], u[b], v[b], maximize=maximize).optimal


def test_forbidden_pairs_tall_and_wide():
    rng = np.random.default_rng(5)
    items = [a for a in _random_items(rng, 150, inf=0.3) if _feasible(a)]
    x, cost = batch_linear_sum_assignment(items, return_cost=True)
    _check_items(items, x, cost)


def _feasible(a):
    try:
        linear_sum_assignment(a)
    except ValueError:
        return False
    return True


def test_sizes_up_to_64_int_and_float_tensor():
    rng = np.random.default_rng(7)
    for n, m in [(1, 1), (8, 8), (33, 20), (20, 33), (64, 64)]:
        for a in (rng.integers(0, n + 1, (6, n, m)), rng.random((6, n, m))):
            x, cost, u, v = batch_linear_sum_assignment(a, return_cost=True, return_duals=True)
            assert x.shape == (6, n) and x.dtype == np.int64
            _check_items(list(a), x, cost)
            assert bool(verify_batch_assignment(a, x, u, v))


def test_float16_and_float32_are_promoted():
    rng = np.random.default_rng(9)
    a16 = rng.random((20, 7, 9)).astype(np.float16)
    x, cost = batch_linear_sum_assignment(a16, return_cost=True)
    _check_items(list(a16.astype(np.float64)), x, cost)
    x32 = batch_linear_sum_assignment(a16.astype(np.float32))
    assert np.array_equal(x, x32)


def test_ragged_mixing_1x1_and_300x50():
    rng = np.random.default_rng(11)
    items = [rng.random((1, 1)), rng.random((300, 50)), rng.random((50, 300)), rng.integers(0, 9, (3, 4)) * 1.0,
             rng.random((1, 1))]
    x, cost = batch_linear_sum_assignment(items, return_cost=True)
    assert [t.shape for t in x] == [(1,), (300,), (50,), (3,), (1,)]
    _check_items(items, x, cost)


def test_shapes_form_equals_list_form():
    rng = np.random.default_rng(13)
    pad = rng.random((10, 30, 12))
    shapes = np.column_stack([rng.integers(0, 31, 10), rng.integers(0, 13, 10)])
    pad_int = rng.integers(0, 20, (10, 30, 12))
    for c in (pad, pad_int):
        items = [c[b, :n, :m] for b, (n, m) in enumerate(shapes)]
        xs, cs, us, vs = batch_linear_sum_assignment(c, shapes=shapes, return_cost=True, return_duals=True)
        xl, cl, ul, vl = batch_linear_sum_assignment(items, return_cost=True, return_duals=True)
        assert xs.shape == (10, 30) and np.array_equal(cs, cl)
        for b, (n, m) in enumerate(shapes):
            assert np.array_equal(xs[b, :n], xl[b]) and (xs[b, n:] == -1).all()
            assert np.array_equal(us[b, :n], ul[b]) and np.array_equal(vs[b, :m], vl[b])
        assert bool(verify_batch_assignment(c, xs, us, vs, shapes=shapes))


def test_wide_integers_take_the_exact_route():
    rng = np.random.default_rng(17)
    a = rng.integers(-2**60, 2**60, (3, 6, 5), dtype=np.int64)
    x, cost, u, v = batch_linear_sum_assignment(a, return_cost=True, return_duals=True)
    for b in range(3):
        res = assignment(a[b], backend="cpu")
        assert cost[b] == res.cost
    assert bool(verify_batch_assignment(a, x, u, v))


def test_wide_integer_certificate_is_exact(monkeypatch):
    """Entries beyond the int64 check (|C| >= 2**61) are certified item by item in Python integers (the shared
    exact duality check): the solver's answer is proved, a swapped pair is not, and object duals holding a
    float take the float bound."""
    from matchflow.batch import _verify

    rng = np.random.default_rng(3)
    a = rng.integers(-2**62, 2**62, (3, 4, 5), dtype=np.int64)
    x, u, v = batch_linear_sum_assignment(a, return_duals=True)
    seen = []
    wide = _verify._wide_item
    monkeypatch.setattr(_verify, "_wide_item", lambda *args: seen.append(1) or wide(*args))
    assert verify_batch_assignment(a, x, u, v, raise_on_error=False).optimal.all()
    assert len(seen) == 3
    y = x.copy()
    y[1, [0, 1]] = y[1, [1, 0]]
    assert verify_batch_assignment(a, y, u, v, raise_on_error=False).optimal.tolist() == [True, False, True]
    uo = u.astype(object)
    uo[0, 0] = float(uo[0, 0])
    cert = verify_batch_assignment(a, x, uo, v.astype(object), raise_on_error=False)
    assert cert.optimal.all() and np.isfinite(cert.gap_bound[0]) and cert.gap_bound[1] == 0


def test_cost_limit_matches_assignment():
    rng = np.random.default_rng(19)
    items = _random_items(rng, 30, hi=8, kind="int")
    x, cost = batch_linear_sum_assignment(items, cost_limit=6, return_cost=True)
    for b, a in enumerate(items):
        res = assignment(a, cost_limit=6, backend="cpu")
        assert cost[b] == res.cost
        r = np.flatnonzero(x[b] >= 0)
        assert a[r, x[b][r]].sum() == res.cost and (a[r, x[b][r]] <= 6).all()


def test_tampered_answers_fail_the_certificate():
    rng = np.random.default_rng(23)
    a = rng.random((5, 6, 6))
    x, u, v = batch_linear_sum_assignment(a, return_duals=True)
    y = x.copy()
    y[2] = y[2][::-1]
    cert = verify_batch_assignment(a, y, u, v, raise_on_error=False)
    assert cert.optimal.tolist() == [True, True, False, True, True]
    with pytest.raises(ValueError, match=r"certificate failed: item 2"):
        verify_batch_assignment(a, y, u, v)
    u2 = u.copy()
    u2[4, 0] += 1e-6
    assert verify_batch_assignment(a, x, u2, v, raise_on_error=False).optimal.tolist() == [True] * 4 + [False]
    ai = rng.integers(0, 5, (4, 3, 5))
    xi, ui, vi = batch_linear_sum_assignment(ai, return_duals=True)
    vi2 = vi.copy()
    vi2[1, :] += 1
    assert verify_batch_assignment(ai, xi, ui, vi2, raise_on_error=False).optimal.tolist() == [True, False, True,
                                                                                                True]


# ------------------------------------------------------------------ errors name the argument and the item


def test_invalid_and_infeasible_items_are_named():
    ok = np.ones((2, 2))
    with pytest.raises(ValueError, match=r"matrix contains invalid numeric entries \(item 2\)"):
        batch_linear_sum_assignment([ok, ok, np.array([[1.0, np.nan]]), ok])
    with pytest.raises(ValueError, match=r"matrix contains invalid numeric entries \(item 1\)"):
        batch_linear_sum_assignment([ok, np.array([[-np.inf, 1.0]])])
    with pytest.raises(ValueError, match=r"matrix contains invalid numeric entries \(item 0\)"):
        batch_linear_sum_assignment([np.array([[np.inf, 1.0]])], maximize=True)
    bad = np.array([[np.inf, np.inf], [1.0, 2.0]])
    with pytest.raises(ValueError, match=r"cost matrix is infeasible \(item 3\)"):
        batch_linear_sum_assignment(np.stack([ok, ok, ok, bad]))
    with pytest.raises(ValueError, match=r"cost matrix is infeasible \(item 1\)"):
        batch_linear_sum_assignment([ok, bad.T[:, :2].T])


@pytest.mark.parametrize("kw, exc, match", [
    ({"costs": np.ones((2, 2))}, ValueError, r"costs must be a 3-D array .* got 2-D shape \(2, 2\)"),
    ({"costs": [np.ones((2, 2)), np.ones(3)]}, ValueError, r"costs\[1\] must be a 2-D array, got 1-D shape"),
    ({"costs": [np.ones((2, 2)), np.ones((1, 1), dtype=complex)]}, TypeError, r"costs\[1\]: cannot cast"),
    ({"costs": np.ones((2, 3, 4)), "shapes": [[1, 5], [1, 1]]}, ValueError,
     r"shapes\[0\] = \(1, 5\) is outside the padded item shape \(3, 4\)"),
    ({"costs": np.ones((2, 3, 4)), "shapes": [[1, 1]]}, ValueError, r"shapes must have shape \(2, 2\)"),
    ({"costs": np.ones((2, 3, 4)), "shapes": [[1.5, 1], [1, 1]]}, TypeError, r"shapes must hold integers"),
    ({"costs": [np.ones((2, 2))], "shapes": [[1, 1]]}, ValueError, r"shapes is for a padded 3-D costs array"),
    ({"costs": np.ones((1, 2, 2)), "method": "hungarian"}, ValueError, r"method must be one of"),
    ({"costs": np.ones((1, 2, 2)), "backend": "tpu"}, ValueError, r"backend must be one of .* got 'tpu'"),
    ({"costs": np.ones((1, 2, 2)), "maximize": "yes"}, TypeError, r"maximize"),
    ({"costs": np.ones((1, 2, 2)), "cost_limit": "x"}, TypeError, r"cost_limit"),
    ({"costs": np.ones((1, 2, 2)), "arr_passes": 99}, ValueError, r"arr_passes"),
    ({"costs": np.ones((1, 2, 2)), "bogus": 1}, TypeError, r"unexpected option\(s\) 'bogus'"),
    ({"costs": np.ones((1, 2, 2)), "cost_limit": 1.0, "return_duals": True}, NotImplementedError,
     r"return_duals is not available with cost_limit"),
])
def test_bad_arguments_raise_naming_them(kw, exc, match):
    costs = kw.pop("costs")
    with pytest.raises(exc, match=match):
        batch_linear_sum_assignment(costs, backend=kw.pop("backend", "cpu"), **kw)


# ------------------------------------------------------------------ properties

_item = st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 2**32 - 1))


@given(st.lists(_item, max_size=6), st.booleans(), st.booleans())
def test_any_small_batch_equals_scipy(specs, as_int, maximize):
    items = []
    for n, m, seed in specs:
        rng = np.random.default_rng(seed)
        items.append(rng.integers(-4, 5, (n, m)) if as_int else rng.normal(size=(n, m)))
    x, cost, u, v = batch_linear_sum_assignment(items, maximize=maximize, return_cost=True, return_duals=True)
    assert len(x) == len(items) and len(cost) == len(items)
    for b, a in enumerate(items):
        assert x[b].shape == (a.shape[0],)
        if a.size == 0:
            assert (x[b] == -1).all() and cost[b] == 0
    _check_items([a for a in items if a.size], [t for t, a in zip(x, items) if a.size],
                 [c for c, a in zip(cost, items) if a.size], maximize)
    assert bool(verify_batch_assignment(items, x, u, v, maximize=maximize))


@given(st.integers(0, 4), st.integers(0, 4))
def test_empty_batches_keep_their_shape(n, m):
    x, cost = batch_linear_sum_assignment(np.zeros((0, n, m)), return_cost=True)
    assert x.shape == (0, n) and cost.shape == (0,)
    x1 = batch_linear_sum_assignment(np.zeros((1, n, m)))
    assert x1.shape == (1, n)
    assert batch_linear_sum_assignment([]) == []


def test_the_door_certifies_in_one_pass_and_does_no_per_item_work(monkeypatch):
    """Every form goes through one batched certificate call and one gather for the totals: no item is read
    one by one (``BatchProblem.item`` is the per-item path), and the totals are NumPy's sums of each item's
    assigned entries."""
    from matchflow.batch import _prepare, _verify

    calls = []
    for name in ("_certify_int_kernel", "_certify_float_kernel"):
        kern = getattr(_verify, name)
        monkeypatch.setattr(_verify, name, lambda *a, _k=kern, _n=name: calls.append(_n) or _k(*a))
    monkeypatch.setattr(_prepare.BatchProblem, "item", lambda self, i: pytest.fail(f"item {i} read on its own"))
    rng = np.random.default_rng(23)
    items = _random_items(rng, 40, hi=9) + [rng.random((300, 5)), rng.random((4, 30))]
    shapes = np.array([a.shape for a in items])
    pad = np.zeros((len(items), *shapes.max(axis=0)))
    for b, a in enumerate(items):
        pad[b, :a.shape[0], :a.shape[1]] = a
    for maximize in (False, True):
        for costs, kw in ((items, {}), (pad, {"shapes": shapes})):
            before = len(calls)
            x, cost, u, v = batch_linear_sum_assignment(costs, maximize=maximize, return_cost=True,
                                                        return_duals=True, **kw)
            assert calls[before:] == ["_certify_float_kernel"]
            for b, a in enumerate(items):
                xb = np.asarray(x[b])[:a.shape[0]]
                r = np.flatnonzero(xb >= 0)
                assert cost[b] == a[r, xb[r]].sum()  # bit for bit: the user's own sum
            _check_items(items, x, cost, maximize)
            assert verify_batch_assignment(costs, x, u, v, maximize=maximize, **kw)  # no item read either
    ints = rng.integers(0, 9, (50, 7, 7))
    before = len(calls)
    x, cost = batch_linear_sum_assignment(ints, return_cost=True)
    assert calls[before:] == ["_certify_int_kernel"] and x.shape == (50, 7) and cost.dtype == np.int64
    _check_items(list(ints), x, cost)


def _fake_gpu(monkeypatch, ran):
    """Pretend a real GPU is present: the placement rules run as on a GPU machine; the GPU twin is the CPU
    solve, recording each call in ``ran``."""
    from matchflow import _methods
    from matchflow._methods import Method
    from matchflow.batch import _api
    from matchflow.batch._methods import TABLE

    jv = TABLE.row("jv")
    gpu = Method("jv", cpu=jv.cpu, gpu=lambda p, **o: ran.append(p.batch) or jv.cpu(p), options=jv.options,
                 check=jv.check, auto_gpu=jv.auto_gpu)
    monkeypatch.setattr(_methods, "_auto_may_use_gpu", lambda: True)
    monkeypatch.setattr(_api, "TABLE", TABLE.with_method(gpu))


def test_backend_auto_takes_the_gpu_where_it_was_measured_faster(monkeypatch, warm_gpu_process):
    """Warm process: the GPU from GPU_MIN_ITEMS items of a larger side <= GPU_MAX_SIDE (the H200's end-to-end
    range), the CPU for fewer or larger items; method="jv" follows the same rule; a CPU option keeps the CPU."""
    from matchflow.batch._methods import GPU_MAX_SIDE, GPU_MIN_ITEMS

    ran = []
    _fake_gpu(monkeypatch, ran)
    rng = np.random.default_rng(31)
    many = rng.integers(0, 9, (GPU_MIN_ITEMS, 5, 3))
    x, cost = batch_linear_sum_assignment(many, return_cost=True)
    assert ran == [GPU_MIN_ITEMS]
    _check_items(list(many[:20]), x[:20], cost[:20])
    batch_linear_sum_assignment(many[:-1])  # one item fewer
    batch_linear_sum_assignment(list(many[:-1]) + [np.ones((2, GPU_MAX_SIDE + 1))])  # one item too large
    batch_linear_sum_assignment(many, arr_passes=1)  # a CPU option
    assert ran == [GPU_MIN_ITEMS]
    ragged = list(many[:-1]) + [np.ones((GPU_MAX_SIDE, 2))]
    batch_linear_sum_assignment(ragged, method="jv")
    assert ran == [GPU_MIN_ITEMS] * 2


def test_backend_auto_first_use_rule(monkeypatch, cold_gpu_process):
    """A fresh process: the GPU only from GPU_COLD_ITEMS items (the saving covers the measured first GPU call);
    placing a batch there makes the process warm, and then the warm rule alone decides."""
    from matchflow import _methods as M
    from matchflow.batch import _methods
    from matchflow.batch._methods import GPU_MIN_ITEMS

    ran = []
    _fake_gpu(monkeypatch, ran)
    many = np.random.default_rng(37).integers(0, 9, (GPU_MIN_ITEMS, 4, 4))
    batch_linear_sum_assignment(many)
    assert ran == [] and not M.gpu_warm()  # the warm rule says GPU, the first call is not paid back
    monkeypatch.setattr(_methods, "GPU_COLD_ITEMS", 2 * GPU_MIN_ITEMS)
    batch_linear_sum_assignment(np.concatenate([many, many]))
    assert ran == [2 * GPU_MIN_ITEMS] and M.gpu_warm()
    batch_linear_sum_assignment(many)
    assert ran == [2 * GPU_MIN_ITEMS, GPU_MIN_ITEMS]


@pytest.mark.parametrize("warm", [False, True])
def test_a_device_input_counts_as_on_its_gpu(monkeypatch, warm):
    """The rules read a device input as measured faster and the first call as paid (it is on its GPU)."""
    import dataclasses

    from matchflow import _methods as M
    from matchflow._methods import place
    from matchflow.batch._methods import TABLE
    from matchflow.batch._prepare import prepare

    monkeypatch.setattr(M, "_GPU_WARM", [warm])
    monkeypatch.setattr(M, "_auto_may_use_gpu", lambda: True)
    p = prepare(np.ones((2, 3, 3)))
    assert place(TABLE, None, "auto", lambda: p)[1] == "cpu"  # 2 host items
    d = dataclasses.replace(p, on_device=True)
    assert place(TABLE, None, "auto", lambda: d)[1] == "gpu"
    assert place(TABLE, TABLE.row("jv"), "auto", lambda: d)[1] == "gpu"


def test_gpu_options_are_checked_without_a_gpu():
    """The GPU twin's vocabulary (``kernel``, ``certify`` on by default) is validated on any machine."""
    from matchflow.batch._gpu_jv import validate_jv_gpu_options

    o = validate_jv_gpu_options()
    assert (o["kernel"], o["certify"]) == ("auto", True)
    assert validate_jv_gpu_options(kernel="warp")["kernel"] == "warp"
    with pytest.raises(ValueError, match=r"^kernel must be one of 'auto', 'warp', 'block', got 'thread'$"):
        validate_jv_gpu_options(kernel="thread")
