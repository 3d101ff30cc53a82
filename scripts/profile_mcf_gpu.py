"""Where the min-cost flow GPU twin's time goes (issue 25): the persistent loop without and with the device global
price update every K rounds (and the host loop with ``--host``), the CPU twin beside them, on the quick benchmark's
NETGEN-like and GRIDGEN-like networks; stats of each GPU run (phases, rounds, price updates and their sweeps,
launches, host reads, pushes, relabels, stage seconds). Warm (one untimed call per variant first), best of
``--runs``.

    PYTHONPATH=src python3 scripts/profile_mcf_gpu.py [--out OUT.json] [--updates 0,4,16,64] [--runs 2] [--host]
        [--grids 1,4] [--cases small|big]
"""

import argparse
import json
import time

import matchflow
from matchflow.generators import gridgen, netgen

CASES = {
    "NETGEN-like 10^3": lambda: netgen(1000, 8000, seed=1),
    "GRIDGEN-like 32x32": lambda: gridgen(32, 32, degree=8, seed=3),
    "NETGEN-like 10^4": lambda: netgen(10**4, 8 * 10**4, seed=2),
    "GRIDGEN-like 100x100": lambda: gridgen(100, 100, degree=8, seed=4),
}
BIG = {
    "NETGEN-like 10^5": lambda: netgen(10**5, 8 * 10**5, seed=5),
    "GRIDGEN-like 316x316": lambda: gridgen(316, 316, degree=8, seed=6),
}
KEYS = ("phases", "rounds", "price_updates", "update_sweeps", "updates_skipped", "pushes", "relabels",
        "kernel_launches", "host_syncs", "gpu_fallback")


def variants(updates: list[int], host: bool) -> dict[str, dict]:
    out = {"cpu": dict(backend="cpu")}
    if host:
        out["gpu-host"] = dict(backend="gpu", loop="host")
    for k in updates:
        out[f"gpu-persistent-u{k}"] = dict(backend="gpu", loop="persistent", update_every=k)
    return out


def call(p, **kw):
    t = time.perf_counter()
    r = matchflow.min_cost_flow((p.tail, p.head), p.demand, capacity=p.cap, cost=p.cost, method="cost-scaling", **kw)
    return time.perf_counter() - t, r


def main(out: str | None, updates: list[int], runs: int, host: bool, grids: list[int], cases: str) -> None:
    rows = []
    for name, make in (BIG if cases == "big" else CASES).items():
        p = make()
        base = variants(updates, host)
        vs = dict(base)
        for g in grids:  # the persistent grid: g times a thread per node's blocks (default 1)
            vs.update({f"{k}-g{g}": dict(v, grid_size=g * -(-p.n // 256)) for k, v in base.items() if "-u" in k
                       and g != 1})
        for var, kw in vs.items():
            call(p, **kw)  # warm: compiled, context up
            best, r = min((call(p, **kw) for _ in range(runs)), key=lambda x: x[0])
            st = {k: r.stats.get(k) for k in KEYS if k in r.stats}
            st.update({k: round(v, 4) for k, v in r.stats.items() if k.startswith("seconds_")})
            rows.append(dict(case=name, variant=var, seconds=round(best, 4), cost=int(r.cost), stats=st))
            print(f"{name:24s} {var:15s} {best * 1e3:10.1f} ms cost {int(r.cost)} {st}", flush=True)
    if out:
        with open(out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--updates", default="0,4,16,64", help="update_every values of the persistent loop")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--host", action="store_true", help="also the host loop (slow: seconds per network)")
    ap.add_argument("--grids", default="1", help="persistent grid sizes, in blocks of 256 per 256 nodes")
    ap.add_argument("--cases", default="small", choices=("small", "big"))
    a = ap.parse_args()
    main(a.out, [int(k) for k in a.updates.split(",")], a.runs, a.host, [int(g) for g in a.grids.split(",")],
         a.cases)
