"""First use as users meet it: ``import`` and the first call of each public function in a fresh process.

Every measurement is a new interpreter (``python -c``), run ``--repeat`` times (medians reported):
``import matchflow``, then the first ``maximum_bipartite_matching``, ``bipartite_matching``,
``linear_sum_assignment`` and ``assignment`` on small inputs (200 x 200 sparse graph, 100 x 100 integer
costs), each with a **cold** Numba cache (an empty temporary ``NUMBA_CACHE_DIR``: what a fresh install
meets) and a **warm** one (the same calls run once before); beside SciPy's same calls in a fresh process.
Per run: import time (the library and its dependencies, from a fresh interpreter), first call, second
call (steady state), the whole process from the parent's side (interpreter start to exit), each in wall
and CPU seconds, matchflow kernel compilations (Numba ``numba:compile`` events) and whether ``numba.cuda``
was imported; and ``gpu_available()`` alone (the probe behind ``backend="auto"``).
``--src`` measures another source tree (e.g. the tree before a change) with the same harness.

    python -m benchmarks.bench_first_call                      # results/first_use/first_call.{json,md}
    python -m benchmarks.bench_first_call --src /path/to/old/src --name before
    python -m benchmarks.bench_first_call --gpu --repeat 2 --name first_call_gpu   # on a GPU machine
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from benchmarks._runner import REPO, machine_info, md_table, write_results

SETUP = {
    "maximum_bipartite_matching": ("a = sp.random(200, 200, density=0.02, format='csr', random_state=0)",
                                   "f(a, perm_type='column')"),
    "bipartite_matching": ("a = sp.random(200, 200, density=0.02, format='csr', random_state=0)", "f(a)"),
    "linear_sum_assignment": ("c = np.random.default_rng(0).integers(0, 1000, size=(100, 100))", "f(c)"),
    "assignment": ("c = np.random.default_rng(0).integers(0, 1000, size=(100, 100))", "f(c)"),
    "gpu_available": ("", "f()"),  # the GPU probe behind backend="auto"
}
SCIPY = {"maximum_bipartite_matching": "scipy.sparse.csgraph", "linear_sum_assignment": "scipy.optimize"}
# --gpu: the GPU public calls (a first use compiles, or loads from numba-cuda's on-disk cache, every kernel
# the call runs: MATCHFLOW_CUDA_CACHE, on by default)
SETUP_GPU = {
    "bipartite_matching[gpu]": ("a = sp.random(2000, 2000, density=0.002, format='csr', random_state=0)",
                                "f(a, backend='gpu')"),
    "assignment[gpu]": ("c = np.random.default_rng(0).integers(0, 1024, size=(1024, 1024)).astype(np.int32)",
                        "f(c, backend='gpu')"),
}

CHILD = """
import json, sys, time
c0, t0 = time.process_time(), time.perf_counter()
{import_line}
c1, t1 = time.process_time(), time.perf_counter()
out = {{"import": t1 - t0, "import_cpu": c1 - c0}}
if {call!r}:
    import numpy as np, scipy.sparse as sp
    {setup}
    kernels = []
    if {count!r}:
        from numba.core import event

        class Count(event.Listener):  # matchflow kernels compiled (not loaded from the cache)
            def on_start(self, ev):
                if getattr(ev.data["dispatcher"].py_func, "__module__", "").startswith("matchflow"):
                    kernels.append(1)

            def on_end(self, ev):
                pass

        event.register("numba:compile", Count())
    c2, t2 = time.process_time(), time.perf_counter()
    {call}
    c3, t3 = time.process_time(), time.perf_counter()
    {call}
    out.update(first=t3 - t2, first_cpu=c3 - c2, second=time.perf_counter() - t3, kernels=len(kernels))
out["numba_cuda_imported"] = "numba.cuda" in sys.modules
print(json.dumps(out))
"""


def _child(library: str, call: str | None) -> str:
    if library == "scipy":
        import_line = f"from {SCIPY[call or 'maximum_bipartite_matching']} import {call or 'maximum_bipartite_matching'} as f"
    else:
        import_line = "import matchflow" + (f"; f = matchflow.{call.split('[')[0]}" if call else "")
    setup, invocation = {**SETUP, **SETUP_GPU}[call] if call else ("", "")
    return textwrap.dedent(CHILD.format(import_line=import_line, call=invocation, setup=setup,
                                        count=library == "matchflow"))


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(code: str, src: Path, cache_dir: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "MATCHFLOW_DISABLE_GPU")}
    env.update(PYTHONPATH=str(src), NUMBA_CACHE_DIR=cache_dir)
    c0, t0 = _cpu_children(), time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    wall, cpu = time.perf_counter() - t0, _cpu_children() - c0
    if p.returncode:
        raise RuntimeError(f"child failed:\n{code}\n{p.stderr}")
    return {**json.loads(p.stdout.strip().splitlines()[-1]), "process": wall, "process_cpu": cpu}


def measure(library: str, call: str | None, cache: str, src: Path, repeat: int) -> dict:
    """Medians over ``repeat`` fresh processes; ``cache`` is "cold" (new empty cache dir per run) or "warm"."""
    code = _child(library, call)
    runs = []
    with tempfile.TemporaryDirectory(prefix="mf-numba-cache-") as warm_dir:
        if cache == "warm":
            _run(code, src, warm_dir)  # fills the cache
        for _ in range(repeat):
            if cache == "cold":
                with tempfile.TemporaryDirectory(prefix="mf-numba-cache-") as d:
                    runs.append(_run(code, src, d))
            else:
                runs.append(_run(code, src, warm_dir))
    rec = {"library": library, "call": call or "import", "cache": cache if library == "matchflow" else "n/a",
           "repeat": repeat}
    for key in ("import", "import_cpu", "first", "first_cpu", "second", "process", "process_cpu", "kernels"):
        vals = [r[key] for r in runs if key in r]
        if vals:
            rec[key] = statistics.median(vals)
            rec[f"{key}_all"] = vals
    rec["numba_cuda_imported"] = any(r["numba_cuda_imported"] for r in runs)
    return rec


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--src", type=Path, default=REPO / "src", help="source tree to measure (default: this checkout)")
    ap.add_argument("--repeat", type=int, default=5, help="fresh processes per measurement (median)")
    ap.add_argument("--name", default="first_call", help="results/first_use/NAME.{json,md}")
    ap.add_argument("--out", type=Path, default=None, help="results folder (default results/)")
    ap.add_argument("--no-scipy", action="store_true", help="skip the SciPy rows")
    ap.add_argument("--gpu", action="store_true", help="only the GPU public calls (needs a GPU), cold and warm cache")
    args = ap.parse_args(argv)

    records = []
    load_start = os.getloadavg()[0]
    plan = [("matchflow", None, c) for c in ("cold", "warm")]
    calls = SETUP_GPU if args.gpu else SETUP
    plan += [("matchflow", call, c) for call in calls for c in (("warm",) if call == "gpu_available" else ("cold", "warm"))]
    if not args.no_scipy and not args.gpu:
        plan += [("scipy", call, "n/a") for call in SCIPY]
    for library, call, cache in plan:
        rec = measure(library, call, cache, args.src, args.repeat)
        records.append(rec)
        print(f"{library:9} {rec['call']:27} {rec['cache']:4} import {rec['import']:.3f} s (cpu {rec['import_cpu']:.3f})"
              f"  first {rec.get('first', float('nan')):.3f} s (cpu {rec.get('first_cpu', float('nan')):.3f})"
              f"  process {rec['process']:.3f} s (cpu {rec['process_cpu']:.3f})  kernels {rec.get('kernels', '-')}",
              flush=True)

    meta = machine_info()
    meta.update(benchmark="first_call", src=str(args.src), repeat=args.repeat,
                loadavg_1min=[round(load_start, 2), round(os.getloadavg()[0], 2)],
                inputs={"matching": "scipy.sparse.random(200, 200, density=0.02, random_state=0), CSR",
                        "assignment": "integers in [0, 1000), 100 x 100, default_rng(0)"})
    header = ["library", "call", "numba cache", "import (s)", "import CPU (s)", "first call (s)", "first call CPU (s)",
              "second call (s)", "whole process (s)", "whole process CPU (s)", "kernel compilations",
              "numba.cuda imported"]
    rows = [[r["library"], r["call"], r["cache"], r["import"], r["import_cpu"], r.get("first"), r.get("first_cpu"),
             r.get("second"), r["process"], r["process_cpu"], r.get("kernels"),
             "yes" if r["numba_cuda_imported"] else "no"] for r in records]
    md = (f"# First use in a fresh process ({args.src})\n\nMedians of {args.repeat} fresh interpreters per row. "
          "*import*: the library and its dependencies from a fresh interpreter; *first call*: the first call "
          "after the import (Numba compile or cache load, the GPU probe of `backend=\"auto\"`, the solve); "
          "*whole process*: interpreter start to exit, seen from the parent. *CPU*: user + system seconds of "
          "the same span (robust to other load on a shared machine, where wall times vary). "
          "*kernel compilations*: matchflow `numba:compile` events (callees included). Cold cache: an empty "
          "`NUMBA_CACHE_DIR` per run; warm: the same calls ran once before. Produced by "
          f"`python -m benchmarks.bench_first_call`. Load average (1 min) at start and end: "
          f"{meta['loadavg_1min'][0]} and {meta['loadavg_1min'][1]} on {os.cpu_count()} cores.\n\n"
          + md_table(header, rows))
    jp, mp = write_results("first_use", args.name, meta, records, md, args.out)
    print(f"wrote {jp} and {mp}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
