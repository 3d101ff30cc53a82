"""CPU maximum-cardinality bipartite matching: matchflow vs SciPy vs networkx.

For every input (the real graphs/matrices of ../shared/data and generated families, see
benchmarks/datasets.py) each solver is timed on the same ``scipy.sparse.csr_array``
(end to end, as a user calls it; median of ``--repeat`` runs within ``--budget`` seconds)
in a separate worker process, so that a solver that blows up (SciPy's Hopcroft-Karp on
layered inputs, scipy issue 26147) is killed at its cap and recorded as "> cap".
Every matching is checked (matched pairs are edges, no vertex twice); all cardinalities
must agree with each other and with MANIFEST.md, and our result is certified maximum by
a König vertex cover (``matchflow.verify.verify_matching``). Any disagreement is printed
loudly and the exit status is 1.

    python -m benchmarks.bench_matching               # full run (~17 min on 2 cores)
    python -m benchmarks.bench_matching --quick       # CI-sized smoke run
    python -m benchmarks.bench_matching --families real,holes --max-scale 20

Writes ``<out>/matching/<name>.json`` and ``.md`` (default results/matching/cpu.*), and the
plots ``<name>_profile.png`` and ``<name>_speedup.png`` (benchmarks/plots.py).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import statistics
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import datasets as ds
from benchmarks._runner import RESULTS, geomean, machine_info, md_table, write_results

# our CPU configurations: key -> (method, init); "mf-mbm" is matchflow.maximum_bipartite_matching
OURS: dict[str, tuple[str, str] | None] = {
    "mf-auto": ("auto", "auto"),
    "mf-hk": ("hopcroft-karp", "greedy"),
    "mf-pf-ks": ("pothen-fan", "karp-sipser"),
    "mf-pf-auto": ("pothen-fan", "auto"),
    "mf-pr-ks": ("push-relabel", "karp-sipser"),
    "mf-pr-greedy": ("push-relabel", "greedy"),
    "mf-mbm": None,
}
BASELINES = ("scipy", "networkx")
# configurations measured by default (the others stay selectable with --solvers)
DEFAULT_SOLVERS = ("mf-auto", "mf-mbm", "mf-hk", "mf-pr-greedy", "mf-pf-auto", "scipy", "networkx")
LABELS = {
    "mf-auto": "auto (default call)", "mf-hk": "Hopcroft-Karp (greedy)",
    "mf-pf-ks": "PF+ (KS)", "mf-pf-auto": "PF+ (auto init)", "mf-pr-ks": "push-relabel (KS)",
    "mf-pr-greedy": "push-relabel (greedy)", "mf-mbm": "mf.maximum_bipartite_matching",
    "scipy": "SciPy HK", "networkx": "networkx HK",
}
QUICK_REAL = ("4elt", "power", "as-caida", "ibm01", "GREENBEA", "amsterdam-roads", "ego-Facebook")
QUICK_GEN = ("delaunay_n16", "kron_s16", "rgg_n16", "holes_128", "ladder_d24_x1", "road_n18")
BIG_EDGES = 100_000  # the summary's speed-ups use inputs with at least this many stored entries


def log(*a: object) -> None:
    print(*a, flush=True)


# ============================================================== worker process
class _Worker:
    """State of the worker process: the current input and its solvers."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.A = None
        self.G = None  # networkx graph, built lazily

    def load(self, name: str) -> dict:
        t0 = time.perf_counter()
        self.A = ds.by_name(name).load()
        self.name, self.G = name, None
        n_r, n_c = self.A.shape
        return {"n_rows": n_r, "n_cols": n_c, "nnz": int(self.A.nnz), "load_s": time.perf_counter() - t0}

    def _call(self, solver: str):
        """A zero-argument callable for ``solver`` on the current input, and a function
        turning its output into row_match (column of each row, -1 unmatched)."""
        A = self.A
        if solver == "scipy":
            from scipy.sparse.csgraph import maximum_bipartite_matching

            return (lambda: maximum_bipartite_matching(A, perm_type="column")), (lambda m: np.asarray(m))
        if solver == "networkx":
            import networkx as nx

            n_r = A.shape[0]
            if self.G is None:
                G = nx.Graph()
                G.add_nodes_from(range(n_r + A.shape[1]))
                r, c = A.nonzero()
                G.add_edges_from(zip(r.tolist(), (c + n_r).tolist()))
                self.G = G
            G = self.G

            def conv(d: dict) -> np.ndarray:
                rm = np.full(n_r, -1, dtype=np.int64)
                for u, v in d.items():
                    if u < n_r:
                        rm[u] = v - n_r
                return rm

            return (lambda: nx.bipartite.hopcroft_karp_matching(G, top_nodes=range(n_r))), conv
        import matchflow

        if solver == "mf-mbm":
            return (lambda: matchflow.maximum_bipartite_matching(A, perm_type="column")), (lambda m: np.asarray(m))
        method, init = OURS[solver]
        return (lambda: matchflow.bipartite_matching(A, method=method, backend="cpu", init=init, cover=False)), (
            lambda res: res.row_match)

    def run(self, solver: str, check: bool) -> dict:
        fn, conv = self._call(solver)
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        rm = np.asarray(conv(out), dtype=np.int64)
        rec = {"seconds": dt, "cardinality": int(np.count_nonzero(rm >= 0))}
        if check:
            rec["valid"], rec["problem"] = _valid_matching(self.A, rm)
        return rec

    def certify(self) -> dict:
        """Default matchflow call with the König cover, checked by matchflow.verify."""
        import matchflow
        from matchflow.verify import verify_matching

        t0 = time.perf_counter()
        res = matchflow.bipartite_matching(self.A, backend="cpu")
        dt = time.perf_counter() - t0
        rep = verify_matching(self.A, res, raise_on_error=False)
        return {"cardinality": int(res.cardinality), "valid": bool(rep.valid), "maximum": rep.maximum,
                "problems": list(rep.problems)[:3], "seconds": dt, "method": res.method, "init": res.init}

    def prime(self) -> dict:
        """Compile / load the Numba kernels of every configuration on a tiny graph."""
        from matchflow import generators

        t0 = time.perf_counter()
        A, name = self.A, self.name
        self.A = generators.random_bipartite(60, 50, 3.0, seed=0)
        try:
            for s in OURS:
                self.run(s, check=False)
            self.A = self.A.T.tocsr()  # the other search side / degree rule branches
            for s in OURS:
                self.run(s, check=False)
            self.certify()
        finally:
            self.A, self.name = A, name
        return {"seconds": time.perf_counter() - t0}


def _valid_matching(A, row_match: np.ndarray) -> tuple[bool, str]:
    """Matched pairs are edges of A and no column is used twice (independent of matchflow)."""
    n_r, n_c = A.shape
    if row_match.shape != (n_r,):
        return False, f"row_match has shape {row_match.shape}, expected ({n_r},)"
    rows = np.flatnonzero(row_match >= 0)
    cols = row_match[rows]
    if cols.size and cols.max() >= n_c:
        return False, f"column {int(cols.max())} out of range"
    if np.unique(cols).size != cols.size:
        return False, "a column is matched twice"
    if rows.size and A.nnz == 0:
        return False, "a pair is matched in a graph without edges"
    # edge test: binary search of row * n_cols + col among the (sorted, canonical CSR) edge keys
    key = rows.astype(np.int64) * n_c + cols
    edge_rows = np.repeat(np.arange(n_r, dtype=np.int64), np.diff(A.indptr))
    edge_keys = edge_rows * n_c + A.indices.astype(np.int64)
    pos = np.searchsorted(edge_keys, key)
    ok = (pos < edge_keys.size) & (edge_keys[np.minimum(pos, max(edge_keys.size - 1, 0))] == key)
    if not ok.all():
        k = int(np.flatnonzero(~ok)[0])
        return False, f"pair ({int(rows[k])}, {int(cols[k])}) is not an edge"
    return True, ""


def _worker_main(conn) -> None:
    os.environ.setdefault("MATCHFLOW_DISABLE_GPU", "1")
    w = _Worker()
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        op = msg[0]
        if op == "quit":
            return
        try:
            if op == "load":
                out = w.load(msg[1])
            elif op == "run":
                out = w.run(msg[1], msg[2])
            elif op == "certify":
                out = w.certify()
            elif op == "prime":
                out = w.prime()
            else:
                raise ValueError(f"unknown op {op!r}")
            conn.send(("ok", out))
        except Exception as exc:  # report, keep serving
            conn.send(("error", f"{type(exc).__name__}: {exc}", traceback.format_exc(limit=4)))


class WorkerHandle:
    """A spawned worker process; requests time out and kill it (it is restarted on demand)."""

    def __init__(self) -> None:
        self.proc = None
        self.conn = None
        self.loaded: str | None = None

    def start(self) -> None:
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent
        self.loaded = None
        st, out = self.request(("prime",), timeout=600)[:2]
        if st != "ok":
            raise RuntimeError(f"worker failed to start: {out}")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.join(5)
        self.proc = self.conn = None
        self.loaded = None

    def request(self, msg: tuple, timeout: float) -> tuple:
        if self.proc is None:
            self.start()
        self.conn.send(msg)
        if not self.conn.poll(timeout):
            self.kill()
            return ("timeout", timeout)
        try:
            return self.conn.recv()
        except EOFError:
            code = self.proc.exitcode if self.proc else None
            self.kill()
            return ("error", f"worker died (exit code {code}; out of memory?)", "")

    def ensure(self, name: str, timeout: float = 900) -> tuple:
        if self.proc is None or self.loaded != name:
            r = self.request(("load", name), timeout)
            if r[0] == "ok":
                self.loaded = name
            return r
        return ("ok", None)

    def close(self) -> None:
        if self.proc is not None:
            try:
                self.conn.send(("quit",))
                self.proc.join(5)
            except Exception:
                pass
            self.kill()


# ============================================================== driver
def measure(wk: WorkerHandle, name: str, solver: str, repeat: int, budget: float, cap: float) -> dict:
    """Runs of one solver: stop after ``repeat`` runs or once ``budget`` seconds are spent.
    A run longer than ``cap`` is killed and the solver is recorded as capped."""
    times: list[float] = []
    out: dict[str, Any] = {"status": "ok"}
    for i in range(max(1, repeat)):
        r = wk.ensure(name)
        if r[0] != "ok":
            return {"status": "error", "note": f"load failed: {r[1]}"}
        r = wk.request(("run", solver, i == 0), cap)
        if r[0] == "timeout":
            if times:  # a later run blew the cap: keep the finished ones, flag it
                out["note"] = f"run {i + 1} > cap {cap:g} s"
                break
            return {"status": "capped", "note": f"> {cap:g} s", "cap_s": cap}
        if r[0] != "ok":
            return {"status": "error", "note": r[1], "trace": r[2] if len(r) > 2 else ""}
        rec = r[1]
        times.append(rec["seconds"])
        if i == 0:
            out["cardinality"] = rec["cardinality"]
            out["valid"] = rec["valid"]
            if not rec["valid"]:
                out["note"] = rec["problem"]
        elif rec["cardinality"] != out["cardinality"]:
            out["valid"] = False
            out["note"] = f"cardinality changed between runs: {out['cardinality']} then {rec['cardinality']}"
        if sum(times) > budget:
            break
    out["seconds"] = statistics.median(times)
    out["times"] = times
    return out


def fmt_time(s: float | None) -> str:
    if s is None or not math.isfinite(s):
        return "—"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.3g} ms"
    return f"{s:.3g} s"


def select_inputs(args) -> list[ds.Dataset]:
    fams = [f.strip() for f in args.families.split(",") if f.strip()]
    if args.quick:
        real = {d.name: d for d in ds.real_datasets()}
        sets = [real[n] for n in QUICK_REAL if n in real] if "real" in fams else []
        for n in QUICK_GEN:
            d = ds.by_name(n)
            if d.family in fams and ds.family_scale(d.family, d.params["size"]) <= args.max_scale:
                sets.append(d)
        return sets
    sets = ds.real_datasets() if "real" in fams else []
    sets += ds.generated_datasets([f for f in fams if f != "real"], max_scale=args.max_scale,
                                  min_scale=args.min_scale)
    if args.inputs:
        want = {x.strip() for x in args.inputs.split(",")}
        sets = [d for d in sets if d.name in want]
    return sets


def summarize(records: list[dict], ours: list[str]) -> tuple[list[str], dict]:
    """Speed-up lines: per configuration, geomean and worst of SciPy time / ours on big inputs."""
    lines: list[str] = []
    summary: dict[str, Any] = {"big_edges": BIG_EDGES, "per_solver": {}}
    big = [r for r in records if r["nnz"] >= BIG_EDGES and not r["adversarial"]
           and r["status"].get("scipy") == "ok"]
    for s in ours:
        ratios = [(r["times"]["scipy"] / r["times"][s], r["input"]) for r in big
                  if r["status"].get(s) == "ok" and r["times"].get(s)]
        if not ratios:
            continue
        worst = min(ratios)
        summary["per_solver"][s] = {"geomean": geomean([x for x, _ in ratios]), "worst": worst[0],
                                    "worst_input": worst[1], "inputs": len(ratios),
                                    "min_time_all": all(r["status"].get(s) == "ok" for r in big)}
    if not summary["per_solver"]:
        return ["no input with >= 100k edges where both SciPy and ours finished"], summary
    best = max(summary["per_solver"], key=lambda s: summary["per_solver"][s]["geomean"])
    b = summary["per_solver"][best]
    summary["best"] = best
    n_big = len(big)
    lines.append(f"Inputs with >= {BIG_EDGES:,} stored entries where SciPy finished (adversarial excluded): {n_big}")
    for s, v in sorted(summary["per_solver"].items(), key=lambda kv: -kv[1]["geomean"]):
        lines.append(f"  {s:14s} ({LABELS[s]}): geomean speed-up over SciPy {v['geomean']:.2f}x, "
                     f"worst {v['worst']:.2f}x ({v['worst_input']}) on {v['inputs']} inputs")
    oracle = [min(r["times"][s] for s in ours if r["status"].get(s) == "ok") for r in big
              if any(r["status"].get(s) == "ok" for s in ours)]
    sc = [r["times"]["scipy"] for r in big if any(r["status"].get(s) == "ok" for s in ours)]
    if oracle:
        ratios = [a / b_ for a, b_ in zip(sc, oracle)]
        summary["per_input_best"] = {"geomean": geomean(ratios), "worst": min(ratios)}
        lines.append(f"  per-input best of ours: geomean {geomean(ratios):.2f}x, worst {min(ratios):.2f}x")
    gm_ok = b["geomean"] >= 2.0
    worst_ok = b["worst"] >= 0.5
    summary["target_geomean_2x"] = gm_ok
    summary["target_never_2x_slower"] = worst_ok
    lines.append(f"Best CPU configuration {best} ({LABELS[best]}): geomean {b['geomean']:.2f}x "
                 f"[target >= 2x: {'PASS' if gm_ok else 'FAIL'}], worst {b['worst']:.2f}x on {b['worst_input']} "
                 f"[target never > 2x slower: {'PASS' if worst_ok else 'FAIL'}]")
    adv = [r for r in records if r["adversarial"] or r["status"].get("scipy") == "capped"]
    if adv:
        lines.append("Adversarial / capped inputs (SciPy's Hopcroft-Karp, scipy issue 26147):")
        for r in adv:
            t_ours = r["times"].get(best)
            sp_s = r["status"].get("scipy")
            sp_txt = fmt_time(r["times"].get("scipy")) if sp_s == "ok" else r.get("notes", {}).get("scipy", sp_s)
            ratio = ""
            if t_ours:
                if sp_s == "ok":
                    ratio = f" -> {r['times']['scipy'] / t_ours:.0f}x"
                elif sp_s == "capped":
                    ratio = f" -> > {r['cap_s']['scipy'] / t_ours:.0f}x"
            lines.append(f"  {r['input']:20s} nnz {r['nnz']:>9,}: SciPy {sp_txt}, {best} {fmt_time(t_ours)}{ratio}")
    return lines, summary


def markdown(records: list[dict], solvers: list[str], summary_lines: list[str], args) -> str:
    head = ["input", "family", "shape", "nnz", "matching", "cert."] + [LABELS[s] for s in solvers] + ["best vs SciPy"]
    rows = []
    for r in records:
        cells = []
        for s in solvers:
            st = r["status"].get(s)
            if st == "ok":
                cells.append(fmt_time(r["times"][s]))
            elif st == "capped":
                cells.append(f"> {r['cap_s'][s]:g} s")
            elif st == "skipped":
                cells.append("skip")
            else:
                cells.append(f"**{st}**")
        sp_ = r["speedup_vs_scipy"]
        sp_txt = "" if sp_ is None else (f"> {sp_:.3g}x" if r["speedup_is_lower_bound"] else f"{sp_:.3g}x")
        match = str(r["cardinality"]) if r["agree"] else f"**DISAGREE** {r['cardinalities']}"
        rows.append([r["input"] + (" (*)" if r["adversarial"] else ""), r["family"][:24],
                     f"{r['n_rows']}x{r['n_cols']}", r["nnz"], match,
                     "yes" if r["certified"] else "**no**"] + cells + [sp_txt])
    text = [
        "# CPU maximum bipartite matching: matchflow vs SciPy vs networkx", "",
        "Times are end to end from a `scipy.sparse.csr_array` (median of up to "
        f"{args.repeat} runs within {args.budget:g} s per solver, in a worker process). SciPy: "
        "`scipy.sparse.csgraph.maximum_bipartite_matching` (Hopcroft-Karp); networkx: "
        f"`hopcroft_karp_matching` (only up to {args.nx_max_nnz:,} entries, graph build not timed). "
        "Ours: `matchflow.bipartite_matching(A, method=..., init=..., backend='cpu', cover=False)` "
        "('auto (default call)' is `bipartite_matching(A, backend='cpu', cover=False)`) and "
        "`matchflow.maximum_bipartite_matching`. 'cert.': our default call's König cover, checked by "
        "`matchflow.verify.verify_matching`, proves the cardinality maximum; every solver's matching "
        "was checked valid and all cardinalities agree with each other and with MANIFEST.md. "
        "(*) adversarial inputs (scipy issue 26147); '> cap' = killed at the cap.",
        "", "## Summary", "", "```", *summary_lines, "```", "", "## Per input", "", md_table(head, rows), "",
        "![performance profile](cpu_profile.png)" if args.name == "cpu" else "",
        "![speed-up over SciPy](cpu_speedup.png)" if args.name == "cpu" else "",
    ]
    return "\n".join(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--quick", action="store_true", help="small CI-sized set (a few seconds per input)")
    ap.add_argument("--families", default="real," + ",".join(ds.FAMILIES),
                    help="comma list of 'real' and generated families: " + ", ".join(ds.FAMILIES))
    ap.add_argument("--inputs", default="", help="comma list of input names (filters the families)")
    ap.add_argument("--max-scale", type=float, default=22, help="largest log2(vertices) of generated inputs")
    ap.add_argument("--min-scale", type=float, default=0)
    ap.add_argument("--solvers", default=",".join(DEFAULT_SOLVERS),
                    help="comma list from " + ", ".join(list(OURS) + list(BASELINES)))
    ap.add_argument("--repeat", type=int, default=3, help="runs per solver (median)")
    ap.add_argument("--budget", type=float, default=5.0, help="stop repeating a solver after this many seconds")
    ap.add_argument("--scipy-cap", type=float, default=30.0, help="kill a SciPy run after this many seconds")
    ap.add_argument("--ours-cap", type=float, default=120.0, help="kill one of our runs after this many seconds")
    ap.add_argument("--nx-cap", type=float, default=20.0, help="kill a networkx run after this many seconds")
    ap.add_argument("--nx-max-nnz", type=int, default=300_000, help="skip networkx above this many entries")
    ap.add_argument("--out", type=Path, default=RESULTS, help="results folder (writes <out>/matching/<name>.*)")
    ap.add_argument("--name", default=None, help="file stem (default: cpu, or cpu_quick with --quick)")
    ap.add_argument("--merge", action="store_true",
                    help="re-measure the selected inputs only and merge them into the existing <name>.json")
    ap.add_argument("--no-plots", action="store_true")
    args = ap.parse_args(argv)
    if args.name is None:
        args.name = "cpu_quick" if args.quick else "cpu"
    if args.quick:
        args.repeat = min(args.repeat, 3)
        args.budget = min(args.budget, 2.0)
        args.scipy_cap = min(args.scipy_cap, 10.0)
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    for s in solvers:
        if s not in OURS and s not in BASELINES:
            ap.error(f"--solvers: unknown solver {s!r}; choose from {', '.join(list(OURS) + list(BASELINES))}")
    ours = [s for s in solvers if s in OURS]
    inputs = select_inputs(args)
    if not inputs:
        ap.error("no inputs selected (check --families, --inputs and --max-scale)")
    log(f"{len(inputs)} inputs x {len(solvers)} solvers; results -> {args.out / 'matching' / args.name}.json")

    wk = WorkerHandle()
    records: list[dict] = []
    failures: list[str] = []
    t_start = time.perf_counter()
    try:
        for k, d in enumerate(inputs, 1):
            t_in = time.perf_counter()
            r = wk.ensure(d.name)
            if r[0] != "ok":
                msg = f"{d.name}: could not load ({r[1]})"
                log("  ERROR " + msg)
                failures.append(msg)
                continue
            info = r[1]
            rec: dict[str, Any] = {"input": d.name, "family": d.family, "kind": d.kind, "adversarial": d.adversarial,
                                   **{k_: info[k_] for k_ in ("n_rows", "n_cols", "nnz")},
                                   "known_matching": d.known_matching, "times": {}, "status": {}, "notes": {},
                                   "cap_s": {}, "runs": {}, "cardinalities": {}}
            log(f"[{k}/{len(inputs)}] {d.name} ({d.family}) {info['n_rows']}x{info['n_cols']} nnz={info['nnz']:,}"
                f" (load {info['load_s']:.1f} s)")
            for s in solvers:
                if s == "networkx" and info["nnz"] > args.nx_max_nnz:
                    rec["status"][s], rec["times"][s] = "skipped", None
                    rec["notes"][s] = f"nnz > {args.nx_max_nnz:,}"
                    continue
                cap = {"scipy": args.scipy_cap, "networkx": args.nx_cap}.get(s, args.ours_cap)
                m = measure(wk, d.name, s, args.repeat, args.budget, cap)
                rec["status"][s] = m["status"]
                rec["times"][s] = m.get("seconds")
                rec["runs"][s] = m.get("times", [])
                if "cap_s" in m:
                    rec["cap_s"][s] = m["cap_s"]
                if "note" in m:
                    rec["notes"][s] = m["note"]
                if "cardinality" in m:
                    rec["cardinalities"][s] = m["cardinality"]
                if m["status"] == "ok" and not m.get("valid", True):
                    rec["status"][s] = "invalid"
                    failures.append(f"{d.name}: {s} returned an invalid matching ({m.get('note')})")
                if m["status"] == "error":
                    failures.append(f"{d.name}: {s} failed: {m.get('note')}")
                if m["status"] == "capped" and s in OURS:
                    failures.append(f"{d.name}: {s} exceeded its cap of {cap:g} s")
                log(f"    {s:14s} {m['status']:8s} {fmt_time(m.get('seconds')):>10s}  "
                    f"card={m.get('cardinality', '-')}" + (f"  ({m['note']})" if m.get("note") else ""))
            # certificate of our default call
            c = wk.ensure(d.name)
            c = wk.request(("certify",), args.ours_cap) if c[0] == "ok" else c
            if c[0] == "ok":
                cert = c[1]
                rec["certified"] = bool(cert["valid"] and cert["maximum"])
                rec["certificate"] = {k_: cert[k_] for k_ in ("cardinality", "seconds", "method", "init", "problems")}
                rec["cardinalities"]["certified"] = cert["cardinality"]
            else:
                rec["certified"] = False
                rec["certificate"] = {"error": str(c[1])}
            if not rec["certified"]:
                failures.append(f"{d.name}: König certificate failed: {rec['certificate']}")
            cards = set(rec["cardinalities"].values())
            if d.known_matching is not None:
                cards.add(d.known_matching)
            rec["agree"] = len(cards) == 1
            rec["cardinality"] = next(iter(cards)) if rec["agree"] else None
            if not rec["agree"]:
                failures.append(f"{d.name}: cardinalities DISAGREE: {rec['cardinalities']} known={d.known_matching}")
                log(f"  !!!!!! DISAGREEMENT on {d.name}: {rec['cardinalities']} known={d.known_matching} !!!!!!")
            ok_ours = [s for s in ours if rec["status"].get(s) == "ok"]
            rec["best_ours"] = min(ok_ours, key=lambda s: rec["times"][s]) if ok_ours else None
            rec["speedup_vs_scipy"], rec["speedup_is_lower_bound"] = None, False
            if rec["best_ours"]:
                tb = rec["times"][rec["best_ours"]]
                if rec["status"].get("scipy") == "ok":
                    rec["speedup_vs_scipy"] = rec["times"]["scipy"] / tb
                elif rec["status"].get("scipy") == "capped":
                    rec["speedup_vs_scipy"], rec["speedup_is_lower_bound"] = rec["cap_s"]["scipy"] / tb, True
            sp_ = rec["speedup_vs_scipy"]
            log(f"  -> matching {rec['cardinality']}, certified {rec['certified']}, best {rec['best_ours']}"
                + ("" if sp_ is None else f" {'>' if rec['speedup_is_lower_bound'] else ''}{sp_:.2f}x vs SciPy")
                + f"  [{time.perf_counter() - t_in:.1f} s, total {time.perf_counter() - t_start:.0f} s]")
            records.append(rec)
    except KeyboardInterrupt:
        log("interrupted: writing what was measured")
    finally:
        wk.close()

    merged_meta: dict[str, Any] = {}
    if args.merge:
        import json

        old_path = args.out / "matching" / f"{args.name}.json"
        if old_path.exists():
            old = json.loads(old_path.read_text())
            new_names = {r["input"] for r in records}
            fresh = {r["input"]: r for r in records}
            merged = [fresh.pop(r["input"], r) for r in old["records"]]
            records = merged + list(fresh.values())
            failures = [f for f in old["meta"].get("failures", []) if f.split(":", 1)[0] not in new_names] + failures
            log(f"merged {len(new_names)} re-measured input(s) into {len(old['records'])} existing records")
            merged_meta = {"args": old["meta"].get("args"), "total_seconds": old["meta"].get("total_seconds"),
                           "remeasured": sorted(set(old["meta"].get("remeasured", [])) | new_names)}
    lines, summary = summarize(records, ours)
    if failures:
        lines = ["FAILURES:"] + [f"  {f}" for f in failures] + lines
    log("\n" + "\n".join(lines))
    meta = machine_info()
    meta.update({"benchmark": "bench_matching", "args": {k: str(v) for k, v in vars(args).items()},
                 "solvers": solvers, "labels": {s: LABELS[s] for s in solvers}, "summary": summary,
                 "failures": failures, "total_seconds": time.perf_counter() - t_start,
                 "time_key": "times", "baseline": "scipy"})
    meta.update(merged_meta)
    jp, mpath = write_results("matching", args.name, meta, records, markdown(records, solvers, lines, args), args.out)
    log(f"wrote {jp} and {mpath}")
    if not args.no_plots and records:
        try:
            from benchmarks import plots

            made = plots.plot_results(jp, out_dir=jp.parent, stem=args.name, baseline="scipy")
            log("plots: " + ", ".join(str(p) for p in made))
        except Exception as exc:  # plots are a convenience; the numbers are written
            log(f"plots failed: {type(exc).__name__}: {exc}")
    if failures:
        log(f"\n!!!!!! {len(failures)} FAILURE(S): see above !!!!!!")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
