"""Where does a device-resident G-PR call spend the time the solve does not?  A device profile (issue 9).

Not part of the library. Per graph (the carried ``$MATCHFLOW_DATA/graphs/*.mtx.gz`` and R-MAT ``kron_sS``
built here): the public call on a CuPy CSR (with and without the König cover), G-PR on a graph already on the
device (``gpu.push_relabel_matching``: the issue's "solve alone"), each a median of ``--reps`` calls; the
stages and counters of one call; a cProfile of the public call (the Python functions, CUDA waits included,
that hold the time); and for ``--inits`` graphs every G-PR start (stages, start cardinality, loops, relabels).

Usage::

    python -m studies.study_gpu_calls --graphs as-caida,soc-Slashdot0902 --kron 18,20 --reps 50
"""

from __future__ import annotations

import argparse
import cProfile
import gzip
import io
import os
import pstats
import statistics
import time
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp


def load(name: str) -> sp.csr_array:
    if name.startswith("kron_s"):
        from matchflow import generators

        a = sp.csr_array(generators.rmat(int(name[6:]), seed=1))
    else:
        with gzip.open(Path(os.environ.get("MATCHFLOW_DATA", ".")) / "graphs" / f"{name}.mtx.gz") as f:
            a = sp.csr_array(scipy.io.mmread(f, spmatrix=False))
    a.data[:] = 1
    a.sum_duplicates()
    a.indices, a.indptr = a.indices.astype(np.int32), a.indptr.astype(np.int32)
    return a


def med(f, reps: int) -> float:
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def profile(f, reps: int, top: int) -> str:
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(reps):
        f()
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(top)
    return s.getvalue()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="as-caida,soc-Slashdot0902,delaunay_n15")
    ap.add_argument("--kron", default="18,20")
    ap.add_argument("--inits", default="kron_s18,kron_s20,soc-Slashdot0902")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--host", action="store_true", help="profile the public call from a host (SciPy) CSR instead")
    args = ap.parse_args()
    import cupy
    import cupyx.scipy.sparse as csp

    import matchflow
    from matchflow import as_bipartite, gpu

    names = [g for g in args.graphs.split(",") if g] + [f"kron_s{k}" for k in args.kron.split(",") if k]
    sync = cupy.cuda.Device().synchronize
    for name in names:
        a = load(name)
        x = csp.csr_matrix((cupy.ones(a.nnz, dtype=np.float32), cupy.asarray(a.indices), cupy.asarray(a.indptr)),
                           shape=a.shape)
        x.has_canonical_format  # noqa: B018 - CuPy computes the flag lazily; the call below reads it
        dgc = gpu.to_device(as_bipartite(a))
        for _ in range(3):
            matchflow.bipartite_matching(x)
            matchflow.bipartite_matching(x, cover=False)
            gpu.push_relabel_matching(dgc)
        sync()
        t_pub = med(lambda x=x: (matchflow.bipartite_matching(x), sync()), args.reps)
        t_nocov = med(lambda x=x: (matchflow.bipartite_matching(x, cover=False), sync()), args.reps)
        t_alone = med(lambda d=dgc: gpu.push_relabel_matching(d), args.reps)
        r = matchflow.bipartite_matching(x)
        st = {k: (round(1e3 * v, 3) if k.startswith("seconds") else v) for k, v in r.stats.items()
              if isinstance(v, (int, float, str, bool))}
        print(f"\n##### {name}: {a.shape} nnz {a.nnz}  public CuPy CSR {1e3 * t_pub:.3f} ms, cover=False "
              f"{1e3 * t_nocov:.3f} ms, solve alone {1e3 * t_alone:.3f} ms, ratio {t_pub / t_alone:.3f}")
        print("stats of one public call:", st)
        if args.host:
            matchflow.bipartite_matching(a, backend="gpu")
            t_host = med(lambda a=a: matchflow.bipartite_matching(a, backend="gpu"), args.reps)
            rh = matchflow.bipartite_matching(a, backend="gpu")
            print(f"host CSR public call {1e3 * t_host:.3f} ms; stages:",
                  {k: round(1e3 * v, 3) for k, v in rh.stats.items() if k.startswith("seconds")})
            print(profile(lambda a=a: matchflow.bipartite_matching(a, backend="gpu"), args.reps, args.top))
        else:
            print(profile(lambda x=x: (matchflow.bipartite_matching(x), sync()), args.reps, args.top))
        if name in args.inits.split(","):
            for init in ("auto", "karp-sipser", "greedy", "symmetric", "none"):
                try:
                    rr = matchflow.bipartite_matching(x, init=init)
                    t = med(lambda i=init, x=x: (matchflow.bipartite_matching(x, init=i), sync()), max(5, args.reps // 5))
                except Exception as e:  # noqa: BLE001 - a start that does not apply (symmetric on a non-symmetric graph)
                    print(f"  init {init}: {type(e).__name__}: {e}")
                    continue
                s = rr.stats
                print(f"  init {init:12s} {1e3 * t:8.3f} ms  start {1e3 * s.get('seconds_init', 0):7.3f}  "
                      f"solve {1e3 * s.get('seconds_solve', 0):7.3f}  init_card {rr.init_cardinality} / "
                      f"{rr.cardinality}  used {s.get('init_used')} rounds {s.get('init_rounds')} loops "
                      f"{s.get('loops')} GR {s.get('global_relabels')} levels {s.get('gr_levels')} syncs "
                      f"{s.get('grid_syncs')} launches {s.get('kernel_launches')} bfs {s.get('bfs')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
