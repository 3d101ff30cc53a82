"""Issue 21 random search (sparse assignment): 7 kinds x N/7 small instances, default and cost-scaling routes, vs SciPy/Fractions; counts [tried, wrong, correct-but-rejected, errors, warned]. Run: PYTHONPATH=src python3 scripts/search_sparse_sound.py 2100"""
import sys
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

import matchflow
from matchflow.verify import verify_sparse_assignment

kinds = ["mixed", "subnormal", "huge", "unif", "negmix", "ties", "int63"]
def make(rng, kind):
    nr = int(rng.integers(1, 9)); nc = int(rng.integers(1, 9))
    if rng.random() < 0.5: nc = nr
    mask = rng.random((nr, nc)) < rng.uniform(0.3, 1.0)
    if kind == "mixed": vals = np.where(rng.random((nr, nc)) < 0.8, rng.random((nr, nc)) * 1e-5 * rng.choice([1, 1e5]), rng.uniform(1e14, 1e15, (nr, nc)))
    elif kind == "subnormal": vals = rng.integers(1, 20, (nr, nc)) * 5e-324
    elif kind == "huge": vals = rng.uniform(-1e300, 1e300, (nr, nc))
    elif kind == "unif": vals = rng.uniform(-40, 40, (nr, nc))
    elif kind == "negmix": vals = np.where(rng.random((nr, nc)) < 0.5, rng.uniform(-1e15, -1e14, (nr, nc)), rng.uniform(-1, 1, (nr, nc)))
    elif kind == "ties": vals = rng.integers(0, 3, (nr, nc)) * 0.1
    else: vals = rng.integers(-2**62, 2**62, (nr, nc), dtype=np.int64)
    r, c = np.nonzero(mask)
    return sp.csr_array((vals[r, c], (r, c)), shape=(nr, nc)), mask, vals
N = int(sys.argv[1]); stats = {k: [0, 0, 0, 0, 0] for k in kinds}  # tried, wrong, rejected-correct, errors, warned
for t in range(N):
    kind = kinds[t % len(kinds)]
    rng = np.random.default_rng(t)
    A, mask, vals = make(rng, kind)
    d = np.where(mask, vals.astype(float), np.inf) if kind != "int63" else None
    # oracle: exact for ints via dense Python enumeration is too slow; use lsa on float (ints near 2^62: compare totals as Python ints on lsa's pick)
    try:
        dd = np.where(mask, vals, np.inf if kind != "int63" else 0).astype(float) if kind != "int63" else np.where(mask, vals.astype(float), np.inf)
        if min(A.shape) and np.isfinite(dd).sum(): r0, c0 = linear_sum_assignment(dd)
        else: r0 = c0 = np.zeros(0, int)
        feasible = np.isfinite(dd[r0, c0]).all() and len(r0) == min(A.shape)
    except ValueError:
        feasible = False
    s = stats[kind]; s[0] += 1
    for kw in ({}, {"method": "cost-scaling"}):
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                res = matchflow.assignment(A, **kw)
        except ValueError as e:
            if feasible: s[3] += 1; print("ERR feasible", kind, t, kw, e)
            continue
        except Exception as e:
            s[3] += 1; print("EXC", kind, t, kw, type(e).__name__, e); continue
        if any("proved" in str(x.message) for x in w): s[4] += 1
        ok = verify_sparse_assignment(A, res, raise_on_error=False) == []
        if not feasible: s[1] += 1; print("answered infeasible", kind, t); continue
        if kind == "int63":
            want = int(sum(int(vals[i, j]) for i, j in zip(r0, c0)))
            wrong = res.cost > want  # lsa in float may itself be off: count ours worse only
        else:
            want = float(np.sum(dd[r0, c0]))
            from fractions import Fraction
            got = sum(Fraction(float(x)) for x in vals[res.row_ind, res.col_ind]); wnt = sum(Fraction(float(x)) for x in dd[r0, c0])
            wrong = got > wnt and float(got - wnt) > 1e-12 * float(sum(abs(Fraction(float(x))) for x in dd[r0, c0]))
        if wrong: s[1] += 1; print("WRONG", kind, t, kw, res.cost, want, ok)
        elif not ok: s[2] += 1
print(stats)
