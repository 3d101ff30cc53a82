"""Count the GPU kernel type-specialisations that matchflow.precompile(gpu=True) reaches (issue 24).

Runs precompile's GPU steps (its ``_MAKERS`` GPU makers, the same 91 steps) in numba's CUDA simulator. Every kernel
launch (FakeCUDAKernel.__call__ from the host, not a device-function call) records the kernel's module.qualname (a
closure-built kernel also its closure constants / factory key), numba-cuda's ``typeof(arg, Purpose.argument)`` of
every argument (what the real dispatcher types: it needs an exact match while it can compile, so each distinct
tuple is one compile) and each argument's raw Python type. A failing step is recorded and the run goes on;
``--step-timeout`` stops a step that runs too long. Shims so that the steps run in the simulator: warp intrinsics
(ballot_sync, shfl_sync, shfl_xor_sync, syncwarp; COUNT_SPECS_WARP_SHIM=0 turns them off) and one fake overload per
kernel (matchflow's ``cooperative_kernel`` reads ``overloads``). The report merges JSON files and counts
"cache-aware" compiles: (function, closure constants, signature); a second dispatcher of the Hungarian factory with
identical closure and types loads the first one's on-disk cache entry instead of compiling.

Run (from the repository root; about 25 min of simulator time in all on 2 cores; one process per family or step subset keeps
each run under 15 min; NUMBA_CACHE_DIR keeps Numba's CPU cache writes out of the repository):

    export NUMBA_ENABLE_CUDASIM=1 PYTHONPATH=src NUMBA_CACHE_DIR=/tmp/numba_cache
    S=scripts/count_gpu_specialisations.py; O=/tmp/specs
    for f in matching sparse-assignment flow wmatching batch mcf; do
        timeout 900 python3 $S run --families $f --out $O/$f.json; done
    timeout 900 python3 $S run --families assignment --match "method='hungarian'" --out $O/assignment-a.json
    timeout 900 python3 $S run --families assignment --match "cost-scaling" --step-timeout 240 --out $O/assignment-b.json
    timeout 900 python3 $S run --families assignment --match "gpu.hungarian" --out $O/assignment-c.json
    python3 $S report $O/{matching,assignment-a,assignment-b,assignment-c,sparse-assignment,flow,wmatching,batch,mcf}.json \
        --h200-logs results/first_use/precompile-gpu-h200-2026-11-29-*.log

``run --cpu-steps`` runs the families' CPU steps first and lists, per GPU step, the CPU (njit) specialisations it adds
(to reconcile with the H200 log, whose per-step "kernel(s)" counts mix CPU and GPU compiles).
"""

from __future__ import annotations

import argparse
import collections
import inspect
import json
import os
import signal
import sys
import time
import traceback

assert os.environ.get("NUMBA_ENABLE_CUDASIM", "") not in ("", "0"), "set NUMBA_ENABLE_CUDASIM=1"

# ---------------------------------------------------------------- the hook (before matchflow imports its kernels)
import numpy as np  # noqa: E402
from numba.cuda.simulator import kernel as _simk  # noqa: E402
from numba.cuda.typing.typeof import Purpose, typeof  # noqa: E402

RECORDS: list[dict] = []          # one per distinct (kernel, types, raw, step)
_SEEN: dict[tuple, dict] = {}
_STEP = ["<import>"]
_ORIG_CALL = _simk.FakeCUDAKernel.__call__


def _raw(a) -> str:
    """The raw Python type of an argument (arrays: class + dtype + flags that matter for typing)."""
    if isinstance(a, np.ndarray):
        return f"ndarray[{a.dtype}{'' if a.flags.writeable else ',ro'}]"
    if hasattr(a, "_ary"):  # FakeCUDAArray (a device array in the simulator)
        return f"device[{a._ary.dtype}]"
    return type(a).__module__.replace("builtins", "py") + "." + type(a).__qualname__


def _ty(a) -> str:
    try:
        return str(typeof(a, Purpose.argument))
    except Exception as exc:  # noqa: BLE001
        return f"<untypable {type(a).__name__}: {exc}>"


def _variant(fn) -> str:
    """A closure-built kernel's constants, gathered through the device functions it closes over (a kernel factory
    makes one dispatcher, hence one compile, per call: e.g. the Hungarian's ``kernels(slack, idx)``)."""
    found: dict[str, str] = {}

    def walk(f, depth):
        cells = getattr(f, "__closure__", None) or ()
        for nm, c in zip(f.__code__.co_freevars, cells):
            try:
                v = c.cell_contents
            except ValueError:
                continue
            mod = type(v).__module__
            if isinstance(v, (int, float, str, np.generic, np.dtype)) or (mod.startswith("numba") and ".types" in mod):
                found.setdefault(nm, str(v))
            elif depth < 4 and hasattr(v, "fn") and hasattr(v.fn, "__code__"):
                walk(v.fn, depth + 1)

    walk(fn, 0)
    return ",".join(f"{k}={v}" for k, v in sorted(found.items()))


def _recording_call(self, *args):
    if not (self._device or _simk._kernel_context):  # a kernel launch from the host
        fn = self.fn
        name = f"{fn.__module__}.{fn.__qualname__}"
        types_ = tuple(_ty(a) for a in args)
        raw = tuple(_raw(a) for a in args)
        var = getattr(self, "_factory_key", None) or _variant(fn)
        if var:
            name = f"{name}[{var}]"
        key = (name, types_, raw, _STEP[0])
        rec = _SEEN.get(key)
        if rec is None:
            try:
                params = list(inspect.signature(fn).parameters)
            except (TypeError, ValueError):
                params = []
            rec = _SEEN[key] = {"kernel": name, "types": list(types_), "raw": list(raw), "step": _STEP[0],
                                "func": f"{fn.__module__}.{fn.__qualname__}", "consts": _variant(fn),
                                "params": params, "launches": 0, "dispatcher": f"{os.getpid()}:{id(self)}"}
            RECORDS.append(rec)
        rec["launches"] += 1
    return _ORIG_CALL(self, *args)


_simk.FakeCUDAKernel.__call__ = _recording_call


# ---------------------------------------------------------------- warp intrinsics for the simulator
# The simulator has no ballot_sync / shfl_sync / shfl_xor_sync / syncwarp (matching's persistent G-PR hub scans use
# them unguarded).  Each lane is a Python thread: a lane posts its value for its n-th warp collective, then waits
# until every other lane of its warp posted the same n-th collective, exited, or sits in syncthreads (diverged);
# lanes that did not post read as inactive (shfl: own value, ballot: 0).  Enough to let the kernels run on.
import threading  # noqa: E402

from numba.cuda.simulator import kernelapi as _kapi  # noqa: E402

_ORIG_BT_INIT = _simk.BlockThread.__init__


def _bt_init(self, f, manager, blockIdx, threadIdx, debug):
    _ORIG_BT_INIT(self, f, manager, blockIdx, threadIdx, debug)
    if not hasattr(manager, "_lanes"):
        manager._lanes, manager._wx, manager._wcv = {}, {}, threading.Condition()
    manager._lanes[self.thread_id] = self
    self._wcount = 0


def _exchange(value):
    t = threading.current_thread()
    m = t._manager
    w0 = (t.thread_id // 32) * 32
    key = (w0, t._wcount)
    t._wcount += 1
    lanes = [m._lanes[i] for i in range(w0, w0 + 32) if i in m._lanes]
    with m._wcv:
        slot = m._wx.setdefault(key, {})
        slot[t.thread_id] = value
        m._wcv.notify_all()
        while True:
            if t.abort:
                raise RuntimeError("abort flag set in a warp collective")
            if all(ln.thread_id in slot or not ln.is_alive() or ln.syncthreads_blocked for ln in lanes):
                return w0, dict(slot)
            m._wcv.wait(0.01)


def _ballot_sync(self, mask, pred):
    w0, slot = _exchange(bool(pred))
    return np.uint32(sum(1 << (i - w0) for i, v in slot.items() if v and (mask >> (i - w0)) & 1))


def _shfl_sync(self, mask, value, src):
    w0, slot = _exchange(value)
    return slot.get(w0 + int(src) % 32, value)


def _shfl_xor_sync(self, mask, value, lane_mask):
    t = threading.current_thread()
    w0, slot = _exchange(value)
    return slot.get(w0 + ((t.thread_id - w0) ^ int(lane_mask)) % 32, value)


def _syncwarp(self, mask=0xFFFFFFFF):
    _exchange(None)


class _OneOverload(_simk.FakeOverloadDict):
    """The simulator's overloads dict is empty: ``next(iter(k.specialize(*args).overloads.values()))`` (matchflow's
    ``cooperative_kernel``, used unguarded by the suitor's persistent loop) raised StopIteration; one fake overload
    (``max_cooperative_grid_blocks`` = 1) lets it launch on one block."""

    def __init__(self):
        super().__init__()
        dict.__setitem__(self, None, _simk.FakeOverload())


_simk.FakeCUDAKernel.overloads = property(lambda self: _OneOverload())

if os.environ.get("COUNT_SPECS_WARP_SHIM", "1") != "0":
    _simk.BlockThread.__init__ = _bt_init
    for _nm, _f in (("ballot_sync", _ballot_sync), ("shfl_sync", _shfl_sync), ("shfl_xor_sync", _shfl_xor_sync),
                    ("syncwarp", _syncwarp)):
        if not hasattr(_kapi.FakeCUDAModule, _nm):
            setattr(_kapi.FakeCUDAModule, _nm, _f)


# ---------------------------------------------------------------- run the GPU steps
class StepTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise StepTimeout("step timed out")


def _cpu_overloads() -> set[tuple[str, str]]:
    """matchflow's CPU (njit) specialisations present in this process (compiled or loaded from the cache)."""
    from numba.core.registry import CPUDispatcher  # noqa: PLC0415

    out = set()
    for name, mod in list(sys.modules.items()):
        if not name.startswith("matchflow."):
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == name:
                for sig in list(obj.overloads):
                    out.add((f"{name}.{obj.py_func.__qualname__}", str(sig)))
    return out


def _tag_factories() -> None:
    """The Hungarian's ``kernels(slack, idx)`` makes one dispatcher per kernel per key (closure constants): tag each
    with its key so that a kernel whose own closure holds no constant (step2_kernel ...) is told apart."""
    import functools  # noqa: PLC0415

    from matchflow.assignment import _gpu_munkres_kernels as MK  # noqa: PLC0415

    orig = MK.kernels

    @functools.wraps(orig)
    def tagged(slack_str, idx_str):
        ns = orig(slack_str, idx_str)
        for k in vars(ns).values():
            k._factory_key = f"kernels({slack_str},{idx_str})"
        return ns

    MK.kernels = tagged


def run(families: list[str] | None, out: str, step_timeout: int, match: str | None, skip: int = 0,
        cpu_steps: bool = False) -> None:
    from matchflow import _progress as P  # noqa: PLC0415

    fams = families or list(P.FAMILIES)
    wanted = dict.fromkeys(d for f in fams for d in (*P._NEEDS.get(f, ()), f))
    if families:  # only what was asked (the _NEEDS family "flow" runs on its own)
        wanted = dict.fromkeys(fams)
    steps = []
    for f in wanted:
        gpu_make = P._MAKERS[f][1]
        if gpu_make is not None:
            steps += [(f, name, fn) for name, fn in gpu_make()]
    if match:
        steps = [s for s in steps if match in s[1]]
    steps = steps[skip:]
    P.require_gpu("count_gpu_specialisations")
    _tag_factories()
    if cpu_steps:  # the families' CPU steps first (as precompile runs them): the CPU kernels they reach
        for fam in dict.fromkeys(d for f in wanted for d in (*P._NEEDS.get(f, ()), f)):
            for name, fn in P._MAKERS[fam][0]():
                t0 = time.perf_counter()
                try:
                    fn()
                except Exception as exc:  # noqa: BLE001
                    print(f"CPU step failed: {name}: {exc}")
                print(f"[cpu] {time.perf_counter() - t0:6.1f}s {f}: {name}", flush=True)
    cpu_before = _cpu_overloads()
    results = []
    signal.signal(signal.SIGALRM, _alarm)
    t_all = time.perf_counter()
    for i, (fam, name, fn) in enumerate(steps, 1):
        _STEP[0] = f"{fam}: {name}"
        t0 = time.perf_counter()
        err = None
        signal.alarm(step_timeout)
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - record and go on
            if isinstance(exc, KeyboardInterrupt):
                raise
            err = f"{type(exc).__name__}: {str(exc)[:300]}"
            tb = traceback.extract_tb(exc.__traceback__)
            where = [f"{os.path.basename(fr.filename)}:{fr.lineno}" for fr in tb[-3:]]
            err += " @ " + " <- ".join(reversed(where))
            if isinstance(exc, StepTimeout):  # a kernel may have been stopped mid-launch: free the context
                _simk._kernel_context = None
        finally:
            signal.alarm(0)
        dt = time.perf_counter() - t0
        cpu_now = _cpu_overloads()
        cpu_new = sorted(f"{k} {sig}" for k, sig in cpu_now - cpu_before)
        cpu_before = cpu_now
        results.append({"family": fam, "step": name, "ok": err is None, "error": err, "seconds": round(dt, 2),
                        "cpu_new": cpu_new, "cpu_steps_first": cpu_steps})
        print(f"[{i}/{len(steps)}] {'ok ' if err is None else 'ERR'} {dt:6.1f}s {fam}: {name}"
              + ("" if err is None else f"\n      {err}"), flush=True)
        with open(out, "w") as fh:  # after every step: a killed run keeps what it saw
            json.dump({"steps": results, "records": RECORDS}, fh, indent=0)
    print(f"done: {len(steps)} steps, {sum(r['ok'] for r in results)} ok, {time.perf_counter() - t_all:.0f} s")


# ---------------------------------------------------------------- the report
def family_of(kernel: str) -> str:
    parts = kernel.split(".")
    return parts[1] if len(parts) > 2 else parts[0]


def _canon(t: str, rules: set[str]) -> str:
    """A type string as it would be after a host-side cast rule."""
    import re  # noqa: PLC0415

    if "int64" in rules:  # every int32 array / scalar -> int64 (indices and integer costs)
        t = re.sub(r"\bint32\b", "int64", t)
    if "uint" in rules:
        t = re.sub(r"\buint(8|16|32|64)\b", "int64", t)
    if "bool" in rules:  # bool / uint8 flags -> int64 scalar (pass np.int64(flag))
        t = "int64" if t in ("bool", "boolean") else t
    if "float" in rules:  # float32 -> float64
        t = re.sub(r"\bfloat32\b", "float64", t)
    if "layout" in rules:  # C and A layouts -> one ('A'; or always pass contiguous arrays -> 'C')
        t = re.sub(r", ([CFA])\)", ", A)", t)
    if "readonly" in rules:
        t = t.replace("readonly ", "")
    return t


def distinct(records, rules=frozenset()):
    return cache_aware(records, lambda r: [_canon(t, rules) for t in r["types"]])


def report(paths: list[str]) -> None:
    steps, records = [], []
    for p in paths:
        with open(p) as fh:
            d = json.load(fh)
        steps += d["steps"]
        records += d["records"]
    print(f"## Steps: {len(steps)} run, {sum(s['ok'] for s in steps)} ok, {sum(not s['ok'] for s in steps)} failed")
    fam_steps = collections.defaultdict(lambda: [0, 0, 0.0])
    for s in steps:
        fs = fam_steps[s["family"]]
        fs[0] += 1
        fs[1] += s["ok"]
        fs[2] += s["seconds"]
    for f, (n, ok, sec) in fam_steps.items():
        print(f"  {f}: {ok}/{n} ok, {sec:.0f} s in the simulator")
    for s in steps:
        if not s["ok"]:
            print(f"  FAILED {s['family']}: {s['step']}\n     {s['error']}")

    order: dict[tuple, list] = {}  # (pid, label) -> dispatchers in order of first launch
    for r in records:
        pid = str(r["dispatcher"]).split(":")[0]
        lst = order.setdefault((pid, r["kernel"]), [])
        if r["dispatcher"] not in lst:
            lst.append(r["dispatcher"])
    for r in records:  # a second dispatcher of the same label in one process compiles again: name it apart
        pid = str(r["dispatcher"]).split(":")[0]
        i = order[(pid, r["kernel"])].index(r["dispatcher"])
        if i and "#" not in r["kernel"]:
            r["kernel"] = f"{r['kernel']}#{i + 1}"
    sigs = collections.defaultdict(dict)  # kernel -> {types: set(steps)}
    raws = collections.defaultdict(lambda: collections.defaultdict(set))  # (kernel, pos) -> {type: raw set}
    params = {}
    dispatchers = collections.defaultdict(set)
    for r in records:
        sigs[r["kernel"]].setdefault(tuple(r["types"]), set()).add(r["step"])
        params[r["kernel"]] = r["params"]
        dispatchers[r["kernel"]].add(r["dispatcher"])
        for i, (t, rw) in enumerate(zip(r["types"], r["raw"])):
            raws[(r["kernel"], i)][t].add(rw)
    total = len(cache_aware(records))
    ca = cache_aware(records)
    fams = collections.Counter(family_of(f) for f, _, _ in ca)
    fn_consts = {(f, c) for f, c, _ in ca}
    print(f"\n## {len(sigs)} kernel dispatchers launched, {sum(len(v) for v in sigs.values())} distinct "
          f"(dispatcher, signature) pairs; {len(ca)} compiles with the on-disk cache on (cache-aware: "
          f"(function, closure constants, signature)); {len(fn_consts)} distinct (function, constants) -> "
          f"{len(ca) - len(fn_consts)} extra type specialisations")
    print("  cache-aware compiles per family: " + ", ".join(f"{f} {c}" for f, c in fams.most_common()))
    per_fam = collections.Counter()
    per_fam_k = collections.Counter()
    for k, v in sigs.items():
        per_fam[family_of(k)] += len(v)
        per_fam_k[family_of(k)] += 1
    for f, c in per_fam.most_common():
        print(f"  {f}: {per_fam_k[f]} kernels, {c} signatures")

    print("\n## Kernels by distinct signatures (varying positions: name: types [raw Python types])")
    for k, v in sorted(sigs.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        tl = list(v)
        n = len(tl[0])
        vary = []
        for i in range(n):
            ts = sorted({t[i] for t in tl})
            if len(ts) > 1:
                pname = params[k][i] if i < len(params[k]) else f"#{i}"
                desc = ", ".join(f"{t} [{'/'.join(sorted(raws[(k, i)][t]))}]" for t in ts)
                vary.append(f"{i}:{pname}: {desc}")
        per_pid = collections.Counter(str(d).split(":")[0] for d in dispatchers[k])
        extra = f" ({max(per_pid.values())} dispatchers in one process)" if max(per_pid.values()) > 1 else ""
        print(f"- {k}: {len(v)}{extra}")
        for line in vary:
            print(f"    {line}")

    by_function(records)
    proposals(records)

    print("\n## What-if: cache-aware compiles after blanket casts of every argument (saving vs now)")
    for rules in (["int64"], ["float"], ["layout"], ["readonly"], ["bool"], ["int64", "bool"],
                  ["int64", "float"], ["int64", "bool", "layout", "readonly"],
                  ["int64", "float", "bool", "layout", "readonly"]):
        d = distinct(records, frozenset(rules))
        print(f"  {'+'.join(rules):40s} {len(d):4d}  (-{total - len(d)})")
    # per-kernel savings of the int64 rule
    print("\n## Per-kernel saving of 'every int32 -> int64' (top)")
    sav = []
    for k, v in sigs.items():
        after = {tuple(_canon(t, {"int64"}) for t in ts) for ts in v}
        if len(v) - len(after):
            sav.append((len(v) - len(after), k, len(v)))
    for s, k, n in sorted(sav, reverse=True)[:30]:
        print(f"  {k}: {n} -> {n - s}")


def _func(r) -> str:
    return r.get("func") or r["kernel"].split("[")[0].split("#")[0]


def _consts(r) -> str:
    if "consts" in r:
        return r["consts"]
    k = r["kernel"]
    return k[k.index("[") + 1:k.rindex("]")] if "[" in k else ""


def cache_aware(records, tf=None) -> set:
    """Distinct compiles of a cold run with numba-cuda's on-disk cache on: a second dispatcher of the same function
    with the same closure constants and argument types (the Hungarian factory's step2..step5b) finds the entry the
    first one wrote (same index key: bytecode hash + pickled closure), so it loads instead of compiling."""
    out = set()
    for r in records:
        types = tuple(r["types"]) if tf is None else tuple(tf(r))
        out.add((_func(r), _consts(r), types))
    return out


def by_function(records) -> None:
    groups = collections.defaultdict(set)
    labels = collections.defaultdict(set)
    pos = collections.defaultdict(lambda: collections.defaultdict(set))
    params = {}
    for r in records:
        f = _func(r)
        groups[f].add((r["kernel"], tuple(r["types"])))
        labels[f].add(r["kernel"])
        params[f] = r["params"]
    for f, pairs in groups.items():
        tl = [t for _, t in pairs]
        for i in range(len(tl[0])):
            ts = {t[i] for t in tl}
            if len(ts) > 1:
                for t in ts:
                    pos[f][i].add(t)
    print("\n## By function (factory variants merged): in-process compiles, cache-aware compiles, what varies")
    cw = collections.defaultdict(set)
    for k in cache_aware(records):
        cw[k[0]].add(k)
    short = lambda t: t.replace("array(", "").replace(", 1d, C)", "[]").replace(", 2d, C)", "[:,:]")  # noqa: E731
    for f, pairs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if len(pairs) < 2:
            continue
        fam = family_of(f)
        var = []
        if len(labels[f]) > 1:
            var.append(f"{len(labels[f])} dispatchers ({', '.join(sorted(lb[len(f):] or '-' for lb in labels[f]))})")
        for i, ts in sorted(pos[f].items()):
            pname = params[f][i] if i < len(params[f]) else f"#{i}"
            var.append(f"{pname}: {'/'.join(sorted(short(t) for t in ts))}")
        print(f"| {f.split('.')[-1]} | {fam} ({f.split('.')[-2]}) | {len(pairs)} | {len(cw[f])} | {'; '.join(var)} |")


def proposals(records) -> None:
    import re  # noqa: PLC0415

    base = cache_aware(records)
    print(f"\n## Proposals (cache-aware compiles now: {len(base)}; in-process distinct pairs: "
          f"{len({(r['kernel'], tuple(r['types'])) for r in records})})")

    def idx(r, name):
        return r["params"].index(name) if name in r["params"] else -1

    def hung_c_in_slack(r):  # the dense Hungarian: C uploaded in the slack dtype when that is int32
        t = list(r["types"])
        if "kernels(int32," in r["kernel"] and idx(r, "C") >= 0:
            t[idx(r, "C")] = t[idx(r, "C")].replace("int64", "int32")
        return t

    def hung_f32(r):  # gpu.hungarian: float32 costs widened to float64 before the upload
        return [x.replace("float32", "float64") for x in r["types"]] if "_gpu_munkres" in r["kernel"] else r["types"]

    def grid_i32(r):  # grid cut: integer host inputs widened to int64 before the upload (floats already are)
        t = list(r["types"])
        if "_gpu_grid_kernels" in r["kernel"]:
            for nm in ("src", "snk", "edge"):
                if idx(r, nm) >= 0:
                    t[idx(r, nm)] = t[idx(r, nm)].replace("int32", "int64")
        return t

    def helpers_i64(r):  # the shared zero / scan / fill helpers on one index dtype
        if re.search(r"\.(zero_kernel|scan_block_kernel|fill_kernel)$", r["kernel"]):
            return [x.replace("int32", "int64") for x in r["types"]]
        return r["types"]

    rules = [("Hungarian: C in the slack dtype (int64 costs in int32 range -> int32 C)", hung_c_in_slack),
             ("gpu.hungarian: float32 costs -> float64 before upload", hung_f32),
             ("grid cut: int32 host capacities -> int64 before upload", grid_i32),
             ("zero/scan/fill helpers: one index dtype", helpers_i64)]
    for label, tf in rules:
        n = len(cache_aware(records, tf))
        print(f"  {label}: {len(base)} -> {n} (-{len(base) - n})")

    def all_rules(r):
        rr = dict(r)
        for _, tf in rules:
            rr["types"] = tf(rr)
        return rr["types"]

    n = len(cache_aware(records, all_rules))
    print(f"  all four: {len(base)} -> {n} (-{len(base) - n})")


def compare(paths: list[str], logs: list[str]) -> None:
    """Per GPU step: new (kernel, signature) pairs in the simulator (in precompile's family order) against the
    H200 log's 'kernel(s)' count for that step (which also counts CPU kernels compiled in it)."""
    import re  # noqa: PLC0415

    order = ["matching", "assignment", "sparse-assignment", "flow", "wmatching", "batch", "mcf"]
    data = {}
    for p in paths:
        with open(p) as fh:
            d = json.load(fh)
        for s in d["steps"]:
            data.setdefault(s["family"], {"steps": [], "records": []})
        if d["steps"]:
            fam = d["steps"][0]["family"]
            data[fam]["steps"] += d["steps"]
            data[fam]["records"] += d["records"]
    logged = {}
    for lg in logs:
        for line in open(lg):
            m = re.match(r"\[matchflow\]\s+(\d+)/\d+ (.*): (\d+) kernel\(s\), ([\d.]+) s", line)
            if m:
                logged.setdefault(m.group(2), (int(m.group(3)), float(m.group(4))))
    seen = set()
    print("\n## Per GPU step: new pairs in the simulator vs the H200 log's kernel(s) (GPU + any CPU kernels)")
    for fam in order:
        if fam not in data:
            continue
        for s in data[fam]["steps"]:
            key = f"{fam}: {s['step']}"
            new = []
            for r in data[fam]["records"]:
                if r["step"] == key:
                    k = (r["kernel"], tuple(r["types"]))
                    if k not in seen:
                        seen.add(k)
                        new.append(r["kernel"].split(".")[-1])
            h = logged.get(s["step"])
            hs = "-" if h is None else f"{h[0]} ({h[1]} s)"
            cpu = s.get("cpu_new")
            cs = "" if cpu is None or not s.get("cpu_steps_first") else f"+cpu {len(cpu)} "
            print(f"  sim {len(new):2d} {cs}| H200 {hs:12s} | {s['step'][:110]}")
            if cs and cpu:
                print(f"      cpu: {[c.split('.')[-1][:80] for c in cpu]}")
            if h is not None and len(new) > h[0]:
                print(f"      sim > H200: {new}")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--families", nargs="*")
    r.add_argument("--out", required=True)
    r.add_argument("--step-timeout", type=int, default=300)
    r.add_argument("--match", help="only steps whose name contains this")
    r.add_argument("--skip", type=int, default=0, help="skip the first N (matching) steps")
    r.add_argument("--cpu-steps", action="store_true",
                   help="run the families' CPU steps first; each GPU step then lists the CPU specialisations it adds")
    p = sub.add_parser("report")
    p.add_argument("paths", nargs="+")
    p.add_argument("--h200-logs", nargs="*", default=[], help="precompile --gpu logs: compare per-step counts")
    a = ap.parse_args()
    if a.cmd == "run":
        run(a.families, a.out, a.step_timeout, a.match, a.skip, a.cpu_steps)
    else:
        report(a.paths)
        if a.h200_logs:
            compare(a.paths, a.h200_logs)


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
