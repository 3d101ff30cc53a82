"""Where the min-cost flow GPU twin's time goes (issue 25): the host loop against the persistent loop, the CPU
twin beside them, on the quick benchmark's NETGEN-like and GRIDGEN-like networks; stats of each GPU run (phases,
rounds, launches, host reads, pushes, relabels, stage seconds). Warm (one untimed call per variant first).

    PYTHONPATH=src python3 scripts/profile_mcf_gpu.py [OUT.json]
"""

import json
import sys
import time

import matchflow
from matchflow.generators import gridgen, netgen

CASES = {
    "NETGEN-like 10^3": lambda: netgen(1000, 8000, seed=1),
    "GRIDGEN-like 32x32": lambda: gridgen(32, 32, degree=8, seed=3),
    "NETGEN-like 10^4": lambda: netgen(10**4, 8 * 10**4, seed=2),
    "GRIDGEN-like 100x100": lambda: gridgen(100, 100, degree=8, seed=4),
}
VARIANTS = {"cpu": dict(backend="cpu"), "gpu-host": dict(backend="gpu", loop="host"),
            "gpu-persistent": dict(backend="gpu", loop="persistent")}
KEYS = ("phases", "rounds", "pushes", "relabels", "kernel_launches", "host_syncs", "gpu_fallback")


def call(p, **kw):
    t = time.perf_counter()
    r = matchflow.min_cost_flow((p.tail, p.head), p.demand, capacity=p.cap, cost=p.cost, method="cost-scaling", **kw)
    return time.perf_counter() - t, r


def main(out: str | None) -> None:
    rows = []
    for name, make in CASES.items():
        p = make()
        for var, kw in VARIANTS.items():
            call(p, **kw)  # warm: compiled, context up
            best, r = min((call(p, **kw) for _ in range(2)), key=lambda x: x[0])
            st = {k: r.stats.get(k) for k in KEYS if k in r.stats}
            st.update({k: round(v, 4) for k, v in r.stats.items() if k.startswith("seconds_")})
            rows.append(dict(case=name, variant=var, seconds=round(best, 4), cost=int(r.cost), stats=st))
            print(f"{name:24s} {var:15s} {best * 1e3:10.1f} ms cost {int(r.cost)} {st}", flush=True)
    if out:
        with open(out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
