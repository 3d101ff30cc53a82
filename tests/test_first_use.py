"""First use as a user meets it: the GPU probe, installs without numba-cuda, compile notices, caching.

Each test runs a fresh interpreter (first use is a per-process event); the probe tests fake the
driver lookup, so they assert the same thing on machines with and without a GPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

SRC = str(Path(__file__).resolve().parent.parent / "src")


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter on this checkout's sources, without GPU switches."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("MATCHFLOW_DISABLE_GPU", "NUMBA_ENABLE_CUDASIM", "NUMBA_CACHE_DIR")}
    # this checkout's sources first; the caller's path after them (a device image's carried NumPy lives there)
    base["PYTHONPATH"] = os.pathsep.join([SRC] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         env={**base, **env}, timeout=600)
    assert out.returncode == 0, out.stderr
    return out


def test_probe_without_driver_does_not_import_numba_cuda():
    out = _run("""
        import json, sys
        import scipy.sparse as sp
        import matchflow
        from matchflow import _backend
        _backend._numba_cuda_installed = lambda: True
        _backend._driver_found = lambda: (False, "libcuda.so.1 cannot be loaded")
        ok, reason = matchflow.gpu_available(), _backend.gpu_reason()
        res = matchflow.bipartite_matching(sp.eye(3, format="csr"))
        print(json.dumps([ok, reason, res.backend, _backend.resolve_backend("auto"), "numba.cuda" in sys.modules]))
    """)
    assert json.loads(out.stdout) == [False, "no CUDA-capable GPU or driver was found (libcuda.so.1 cannot be loaded)",
                                      "cpu", "cpu", False]


def test_probe_with_driver_asks_numba_cuda():
    pytest.importorskip("numba_cuda")
    out = _run("""
        import json, sys
        from matchflow import _backend
        _backend._driver_found = lambda: (True, "libcuda.so.1")
        ok = _backend.gpu_available()
        from numba import cuda
        print(json.dumps(["numba.cuda" in sys.modules, ok == cuda.is_available()]))
    """)
    assert json.loads(out.stdout) == [True, True]


def test_driver_lookup_answers_without_numba_cuda():
    out = _run("""
        import json, sys
        from matchflow._backend import _driver_found
        found, detail = _driver_found()
        print(json.dumps([found, detail, "numba.cuda" in sys.modules]))
    """)
    found, detail, imported = json.loads(out.stdout)
    assert not imported
    assert found or detail.endswith("cannot be loaded")


HIDE_NUMBA_CUDA = """
    import importlib.abc, sys

    class _Hide(importlib.abc.MetaPathFinder):  # as if numba-cuda were not installed
        def find_spec(self, name, path=None, target=None):
            if name in ("numba_cuda", "numba.cuda") or name.startswith(("numba_cuda.", "numba.cuda.")):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(0, _Hide())
"""


@pytest.mark.parametrize("simulator", ["0", "1"])
def test_every_cpu_path_works_without_numba_cuda(simulator):
    out = _run(HIDE_NUMBA_CUDA + """
    import json
    import numpy as np, scipy.sparse as sp
    import matchflow
    from matchflow import GPUUnavailableError, verify
    from matchflow._backend import gpu_reason, require_gpu
    a = sp.random(8, 9, density=0.3, format="csr", random_state=1)
    c = np.arange(16).reshape(4, 4) % 5
    res, r = matchflow.bipartite_matching(a), matchflow.assignment(c)
    verify.verify_matching(a, res)
    verify.verify_assignment(c, r)
    try:
        require_gpu("G-PR")
        err = None
    except GPUUnavailableError as exc:
        err = str(exc)
    print(json.dumps({"gpu": matchflow.gpu_available(), "reason": gpu_reason(), "err": err,
                      "backends": [res.backend, r.backend],
                      "mbm": int((matchflow.maximum_bipartite_matching(a) >= 0).sum()) == res.cardinality,
                      "lsa": int(c[matchflow.linear_sum_assignment(c)].sum()), "cost": int(r.cost),
                      "info": "matchflow[gpu]" in matchflow.info(),
                      "imported": "numba.cuda" in sys.modules or "numba_cuda" in sys.modules}))
    """, NUMBA_ENABLE_CUDASIM=simulator)
    d = json.loads(out.stdout)
    reason = 'numba-cuda is not installed (the GPU backend needs it: pip install "matchflow[gpu]")'
    assert d["gpu"] is False and d["reason"] == reason
    assert d["err"] == f"backend='gpu' was requested for G-PR, but {reason}. Use backend='cpu' or backend='auto' to run on the CPU."
    assert d["backends"] == ["cpu", "cpu"] and d["mbm"] and d["info"] and not d["imported"]
    c = np.arange(16).reshape(4, 4) % 5
    assert d["lsa"] == d["cost"] == c[linear_sum_assignment(c)].sum()


def test_every_cpu_kernel_is_cached_on_disk():
    import importlib
    import pkgutil

    import numba

    import matchflow

    found = []
    for mod in pkgutil.walk_packages(matchflow.__path__, "matchflow."):
        if "_gpu" in mod.name or mod.name.endswith("__main__"):
            continue  # the GPU modules import numba.cuda
        for name, obj in vars(importlib.import_module(mod.name)).items():
            if isinstance(obj, numba.core.registry.CPUDispatcher) and obj.py_func.__module__ == mod.name:
                found.append((f"{mod.name}.{name}", type(obj._cache).__name__))
    assert len(found) > 30
    assert [f for f, cache in found if cache == "NullCache"] == []


def test_parallel_kernel_loads_from_the_cache(tmp_path):
    code = """
        import json, numpy as np
        from matchflow.generators import _hilbert_index_kernel as k
        k(np.random.default_rng(0).random((20, 2)), 8)
        print(json.dumps([k.targetoptions.get("parallel", False), sum(k.stats.cache_hits.values()),
                          sum(k.stats.cache_misses.values())]))
    """
    cold = json.loads(_run(code, NUMBA_CACHE_DIR=str(tmp_path)).stdout)
    warm = json.loads(_run(code, NUMBA_CACHE_DIR=str(tmp_path)).stdout)
    assert cold == [True, 0, 1] and warm == [True, 1, 0]


class _Event:
    def __init__(self, module: str, name: str) -> None:
        func = SimpleNamespace(__module__=module, __qualname__=name)
        self.data = {"dispatcher": SimpleNamespace(py_func=func)}


def test_compile_log_counts_outermost_matchflow_kernels():
    import io

    from matchflow._progress import NOTICE, CompileLog

    for quiet in (False, True):
        buf = io.StringIO()
        log = CompileLog(buf, quiet=quiet, verbose=True)
        outer, inner, other = _Event("matchflow.x", "outer_kernel"), _Event("matchflow.x", "_dev"), _Event("numba.np", "f")
        for ev, start in ((other, 1), (outer, 1), (inner, 1), (other, 1), (other, 0), (inner, 0), (outer, 0), (other, 0)):
            (log.on_start if start else log.on_end)(ev)
        log.finish()
        assert [k for k, _ in log.kernels] == ["x.outer_kernel"]
        lines = buf.getvalue().splitlines()
        if quiet:
            assert lines == []
        else:
            assert lines[0] == f"[matchflow] {NOTICE} ..."
            assert lines[1].startswith("[matchflow]   compiled x.outer_kernel (")
            assert lines[2].startswith("[matchflow] compiled 1 kernel(s) in ") and len(lines) == 3


def test_precompile_then_first_calls_compile_nothing(tmp_path):
    cold = _run("""
        import json
        from matchflow._progress import precompile
        print(json.dumps(precompile(families=("matching",))["kernels"]))
    """, NUMBA_CACHE_DIR=str(tmp_path))
    kernels = json.loads(cold.stdout)
    assert any("hopcroft_karp" in k for k in kernels) and any("pothen_fan" in k for k in kernels)
    lines = cold.stderr.splitlines()
    assert lines[0] == "[matchflow] compiling kernels (first use only, cached afterwards) ..."
    assert lines[-1].startswith(f"[matchflow] compiled {len(kernels)} kernel(s) in ")
    warm = _run("""
        import json
        import scipy.sparse as sp
        import matchflow
        from matchflow._progress import compile_progress, precompile
        from matchflow.matching._methods import TABLE
        a = sp.random(40, 30, density=0.1, format="csr", random_state=7)
        with compile_progress() as log:
            matchflow.maximum_bipartite_matching(a, perm_type="column")
            for m in ("auto", *TABLE.cpu_names):
                for i in ("auto", "none", "greedy", "karp-sipser"):
                    matchflow.verify.verify_matching(a, matchflow.bipartite_matching(a, method=m, init=i))
        print(json.dumps([log.kernels, precompile(families=("matching",))["kernels"]]))
    """, NUMBA_CACHE_DIR=str(tmp_path))
    assert json.loads(warm.stdout) == [[], []] and warm.stderr == ""


def test_precompile_rejects_unknown_families():
    from matchflow._progress import precompile

    with pytest.raises(ValueError, match=r"families must be among \('matching', 'assignment', 'sparse-assignment', "
                                         r"'flow', 'wmatching', 'batch', 'mcf', 'io'\), got 'flows'"):
        precompile(families=("matching", "flows"))


def test_precompile_new_families_run_and_verify():
    from matchflow._progress import precompile
    from matchflow.flow._methods import TABLE as FLOW
    from matchflow.wmatching._methods import TABLE as WMATCHING

    out = precompile(families=("sparse-assignment", "flow", "wmatching"), progress=False)
    # 2 sparse (int64, float64) + 2 dtypes x each CPU flow method + 2 grids + each CPU wmatching method + integers
    assert out["steps"] == 2 + 2 * len(FLOW.cpu_names) + 2 + len(WMATCHING.cpu_names) + 1


def test_precompile_batch_and_mcf_with_what_mcf_needs():
    """The batched assignment and min-cost flow families precompile (each step solves and verifies); ``mcf``
    brings ``flow`` (its feasibility check is a max-flow), once even when both are named."""
    from matchflow._progress import precompile
    from matchflow.flow._methods import TABLE as FLOW
    from matchflow.mcf._methods import TABLE as MCF

    flow_steps = 2 * len(FLOW.cpu_names) + 2
    mcf_steps = 2 * len(MCF.cpu_names) + 2
    assert precompile(families=("batch",), progress=False)["steps"] == 4
    assert precompile(families=("mcf",), progress=False)["steps"] == flow_steps + mcf_steps
    assert precompile(families=("flow", "mcf"), progress=False)["steps"] == flow_steps + mcf_steps


def test_precompile_compiles_no_literal_specialisations():
    """Issue 24: a constant passed from one kernel to another (``True``, ``0``), or a loop variable that starts
    as one, types as a literal on typing's first pass, and Numba compiles the callee once more for that value
    (pass ``np.bool_(...)`` / ``np.int64(...)``). The families that had such kernels: none is left."""
    from numba.core.registry import CPUDispatcher

    from matchflow._progress import precompile

    precompile(families=("assignment", "flow", "batch", "mcf"), progress=False)
    literal = sorted(f"{obj.py_func.__module__}.{name}: {sig}" for mod_name, mod in list(sys.modules.items())
                     if mod_name.startswith("matchflow") and mod is not None
                     for name, obj in list(vars(mod).items()) if isinstance(obj, CPUDispatcher)
                     for sig in obj.signatures if "Literal[" in str(sig))
    assert not literal, literal
