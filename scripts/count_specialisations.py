"""How many type specialisations ``matchflow.precompile()`` compiles, per family and per kernel (issue 24).

    NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=src python3 scripts/count_specialisations.py [--json out.json]
        [--top 8] [--families matching,flow] [--compare before.json]

Runs the CPU precompile one family at a time (in its default order, as ``precompile()`` does, so ``mcf``
finds ``flow``'s kernels already there) and, after each, walks every Numba CPU dispatcher defined in a
``matchflow`` module: the signatures that appeared during that family are that family's. Numba compiles one
specialisation per distinct argument-type tuple, so the counts are deterministic; the seconds are not (run
with a cold ``NUMBA_CACHE_DIR`` to measure compile time, with a warm one to measure loads). ``--json`` writes
every kernel's signatures per family; ``--compare`` prints the per-family difference to an earlier JSON.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
from collections import Counter
from typing import Any


def dispatchers() -> dict[str, Any]:
    """Every CPU dispatcher defined in a loaded ``matchflow`` module, by ``module.qualname`` (once each)."""
    from numba.core.registry import CPUDispatcher  # noqa: PLC0415

    out: dict[str, Any] = {}
    seen: set[int] = set()
    for name, mod in sorted(sys.modules.items()):
        if not name.startswith("matchflow") or mod is None:
            continue
        for attr, obj in list(vars(mod).items()):
            # by the defining module's name for it: ``serial = numba.njit(...)(rows)`` and ``parallel = ...``
            # share one Python function
            if isinstance(obj, CPUDispatcher) and id(obj) not in seen and obj.py_func.__module__ == name:
                seen.add(id(obj))
                out[f"{name.removeprefix('matchflow.')}.{attr}"] = obj
    return out


def names() -> dict[int, str]:
    """id(dispatcher) -> its name in :func:`dispatchers`."""
    return {id(d): k for k, d in dispatchers().items()}


def signatures() -> dict[str, list[str]]:
    """Kernel name -> its compiled signatures (strings, in compile order)."""
    return {k: [str(s) for s in d.signatures] for k, d in dispatchers().items()}


class CompileTimes:
    """Listens to ``numba:compile`` events: seconds per matchflow kernel compile, exclusive of the kernels it
    compiled inside it (a kernel called from a kernel compiles during its caller's typing)."""

    def __init__(self) -> None:
        self.stack: list[list[float]] = []  # [start, children's seconds]
        self.seconds: Counter[str] = Counter()
        self.names: dict[int, str] = {}

    def on_start(self, ev: Any) -> None:
        self.stack.append([time.perf_counter(), 0.0])

    def on_end(self, ev: Any) -> None:
        t0, children = self.stack.pop()
        total = time.perf_counter() - t0
        if self.stack:
            self.stack[-1][1] += total
        disp = ev.data.get("dispatcher")
        func = getattr(disp, "py_func", None)
        if func is not None and func.__module__.startswith("matchflow"):
            if id(disp) not in self.names:
                self.names = names()
            self.seconds[self.names.get(id(disp), func.__qualname__)] += total - children


def run(families: tuple[str, ...]) -> dict[str, Any]:
    from numba.core import event  # noqa: PLC0415

    import matchflow  # noqa: PLC0415

    all_families = inspect.signature(matchflow.precompile).parameters["families"].default  # precompile's order

    before = signatures()
    fams: dict[str, Any] = {}
    times = CompileTimes()
    listener = type("_L", (event.Listener,), {"on_start": lambda self, ev: times.on_start(ev),
                                              "on_end": lambda self, ev: times.on_end(ev)})()
    for fam in families or all_families:
        times.seconds.clear()
        t0 = time.perf_counter()
        with event.install_listener("numba:compile", listener):
            out = matchflow.precompile(families=(fam,), progress=False)
        seconds = time.perf_counter() - t0
        now = signatures()
        new = {k: [s for s in sigs if s not in before.get(k, [])] for k, sigs in now.items()}
        new = {k: v for k, v in new.items() if v}
        fams[fam] = {"seconds": round(seconds, 2), "compiled": len(out["kernels"]),
                     "signatures": sum(map(len, new.values())), "kernels": new,
                     "kernel_seconds": {k: round(s, 2) for k, s in times.seconds.most_common()}}
        before = now
    return {"families": fams, "total": sum(f["signatures"] for f in fams.values()),
            "seconds": round(sum(f["seconds"] for f in fams.values()), 2),
            "all": {k: v for k, v in before.items() if v}}


def table(res: dict[str, Any], top: int) -> None:
    print(f"{'family':<18}{'sigs':>6}{'kernels':>9}{'compile events':>16}{'seconds':>9}   most signatures")
    for fam, f in res["families"].items():
        most = sorted(f["kernels"].items(), key=lambda kv: -len(kv[1]))[:top]
        print(f"{fam:<18}{f['signatures']:>6}{len(f['kernels']):>9}{f['compiled']:>16}{f['seconds']:>9.1f}   "
              + ", ".join(f"{k.rsplit('.', 1)[-1]}:{len(v)}" for k, v in most if len(v) > 1))
    print(f"{'total':<18}{res['total']:>6}{sum(len(f['kernels']) for f in res['families'].values()):>9}"
          f"{sum(f['compiled'] for f in res['families'].values()):>16}{res['seconds']:>9.1f}")
    for fam, f in res["families"].items():
        slow = list(f.get("kernel_seconds", {}).items())[:top]
        print(f"  {fam} slowest compiles (s, own, all signatures): "
              + ", ".join(f"{k.rsplit('.', 1)[-1]} {s:.1f} ({len(f['kernels'].get(k, []))})" for k, s in slow))
    counts = Counter({k: len(v) for k, v in res["all"].items()})
    print("\nkernels with the most signatures (all families):")
    for k, n in counts.most_common(top * 3):
        if n > 1:
            print(f"  {n:>3}  {k}")


def compare(res: dict[str, Any], old: dict[str, Any]) -> None:
    print(f"\n{'family':<18}{'before':>8}{'after':>8}{'s before':>10}{'s after':>9}")
    for fam, f in res["families"].items():
        o = old["families"].get(fam, {"signatures": 0, "seconds": 0.0})
        print(f"{fam:<18}{o['signatures']:>8}{f['signatures']:>8}{o['seconds']:>10.1f}{f['seconds']:>9.1f}")
    print(f"{'total':<18}{old['total']:>8}{res['total']:>8}{old['seconds']:>10.1f}{res['seconds']:>9.1f}")
    gone = {k: len(v) - len(res["all"].get(k, [])) for k, v in old["all"].items()}
    print("\nfewest-now kernels:", ", ".join(f"{k}:{-d:+d}" for k, d in sorted(gone.items(), key=lambda kv: -kv[1])
                                             if d > 0)[:2000])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write every family's kernels and signatures here")
    ap.add_argument("--top", type=int, default=6)
    ap.add_argument("--families", default="", help="comma-separated (default: all, in precompile's order)")
    ap.add_argument("--compare", help="an earlier --json to compare against")
    ap.add_argument("--signatures", action="store_true", help="print every kernel's signatures that differ")
    a = ap.parse_args()
    res = run(tuple(x for x in a.families.split(",") if x))
    table(res, a.top)
    if a.signatures:
        for k, v in sorted(res["all"].items()):
            if len(v) > 1:
                print(f"\n{k}:")
                for s in v:
                    print(f"    {s}")
    if a.compare:
        with open(a.compare) as fh:
            compare(res, json.load(fh))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
