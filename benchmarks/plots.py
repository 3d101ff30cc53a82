"""Performance profiles and speed-up charts from any results JSON of benchmarks/_runner.write_results.

    python -m benchmarks.plots results/matching/cpu.json --baseline scipy
    python -m benchmarks.plots results/assignment/cpu.json --time-key seconds_wall --input-keys n,range,seed

Record schema (``{"meta": {...}, "records": [...]}``); two layouts are understood:

* wide (bench_matching): one record per input,
  ``{"input": str, "times": {solver: seconds or null}, "status": {solver: "ok" | "capped" |
  "skipped" | "error" | "invalid"}, "cap_s": {solver: seconds}, ...}``. ``status`` and
  ``cap_s`` are optional; a missing/null time or a status other than "ok" is a failure,
  "capped" means the solver took more than ``cap_s`` (a lower bound).
* long (bench_assignment): one record per (input, solver), ``{"solver": str, <time key>:
  seconds, ...}``; the input is ``record["input"]`` or the tuple of ``--input-keys``.

Performance profile (Dolan & Moré 2002): for each solver s, the fraction of inputs p on
which t(p, s) <= tau * min over solvers of t(p, .), plotted against tau (log scale);
failures and capped runs never count as "within tau". Speed-up chart: t(p, baseline) / t(p, s)
per input, sorted, one line per solver (log scale); a capped baseline gives a lower bound
(drawn as an up-pointing triangle).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def load_times(path: Path | str, time_key: str | None = None, input_keys: Sequence[str] | None = None,
               min_nnz: int = 0) -> dict[str, Any]:
    """Read a results JSON into ``{"inputs", "solvers", "T", "capped", "labels", "meta"}``.

    ``T[i, j]`` is the time of solver j on input i (NaN when it failed or did not run; the
    cap when ``capped[i, j]``).
    """
    doc = json.loads(Path(path).read_text())
    meta, recs = doc.get("meta", {}), doc.get("records", [])
    inputs: list[str] = []
    solvers: list[str] = list(meta.get("solvers", []))
    cells: dict[tuple[str, str], tuple[float, bool]] = {}

    def add_solver(s: str) -> None:
        if s not in solvers:
            solvers.append(s)

    for r in recs:
        if min_nnz and r.get("nnz", min_nnz) < min_nnz:
            continue
        if "times" in r and isinstance(r["times"], dict) and time_key is None:  # wide layout
            name = str(r["input"])
            inputs.append(name)
            status = r.get("status", {})
            caps = r.get("cap_s", {})
            for s, t in r["times"].items():
                add_solver(s)
                st = status.get(s, "ok" if t is not None else "error")
                if st == "ok" and t is not None and t > 0:
                    cells[(name, s)] = (float(t), False)
                elif st == "capped" and s in caps:
                    cells[(name, s)] = (float(caps[s]), True)
        else:  # long layout
            key = time_key or ("seconds_wall" if "seconds_wall" in r else "seconds")
            s = str(r.get("solver"))
            if input_keys:
                name = ",".join(f"{k}={r.get(k)}" for k in input_keys)
            else:
                name = str(r.get("input", r.get("name")))
            if name not in inputs:
                inputs.append(name)
            add_solver(s)
            t = r.get(key)
            if t is not None and np.isfinite(t) and t > 0 and r.get("status", "ok") == "ok":
                cells[(name, s)] = (float(t), False)
    T = np.full((len(inputs), len(solvers)), np.nan)
    C = np.zeros(T.shape, dtype=bool)
    for i, p in enumerate(inputs):
        for j, s in enumerate(solvers):
            if (p, s) in cells:
                T[i, j], C[i, j] = cells[(p, s)]
    labels = dict(meta.get("labels", {}))
    return {"inputs": inputs, "solvers": solvers, "T": T, "capped": C,
            "labels": {s: labels.get(s, s) for s in solvers}, "meta": meta}


def performance_profile(T: np.ndarray, capped: np.ndarray | None = None, taus: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Dolan-Moré profile: ``rho[j, k]`` = fraction of inputs where solver j is within ``taus[k]`` of the best.

    Inputs on which no solver finished are dropped. Returns (taus, rho).
    """
    T = np.asarray(T, dtype=float)
    ok = np.isfinite(T) & (T > 0)
    if capped is not None:
        ok &= ~np.asarray(capped, dtype=bool)
    R = np.where(ok, T, np.inf)
    best = R.min(axis=1)
    keep = np.isfinite(best)
    R = R[keep] / best[keep, None]
    if taus is None:
        finite = R[np.isfinite(R)]
        hi = max(2.0, float(finite.max()) * 1.05) if finite.size else 2.0
        taus = np.unique(np.concatenate([np.geomspace(1.0, hi, 400), finite]))
    if R.shape[0] == 0:
        return taus, np.zeros((T.shape[1], len(taus)))
    rho = (R[:, :, None] <= taus[None, None, :]).mean(axis=0)
    return taus, rho


def speedups(T: np.ndarray, capped: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray]:
    """``S[i, j] = T[i, base] / T[i, j]`` (NaN where either failed; capped solver j -> NaN) and a
    mask of the entries that are lower bounds (the baseline was capped)."""
    tb = T[:, base][:, None]
    S = tb / T
    S[capped] = np.nan  # a capped solver's own speed-up is an upper bound: not drawn
    S[:, base] = np.nan
    lower = np.repeat(capped[:, base][:, None], T.shape[1], axis=1) & np.isfinite(S)
    return S, lower


_MARKERS = "os^vD<>pXh*"


def _color(data: dict, solver: str) -> str:
    """The same colour for a solver in every chart of one results file."""
    return f"C{data['solvers'].index(solver) % 10}"


def plot_profile(data: dict, path: Path, title: str = "Performance profile", solvers: Sequence[str] | None = None,
                 tau_max: float = 2.0**10) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    idx = [data["solvers"].index(s) for s in (solvers or data["solvers"])]
    taus, rho = performance_profile(data["T"][:, idx], data["capped"][:, idx])
    n_inputs = int(np.isfinite(np.where(data["capped"][:, idx], np.nan, data["T"][:, idx])).any(axis=1).sum())
    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    order = np.argsort(-rho[:, 0] - 1e-3 * rho.mean(axis=1))
    for j in order:
        s = data["solvers"][idx[j]]
        ax.step(taus, rho[j], where="post", lw=1.8, label=data["labels"].get(s, s), color=_color(data, s),
                marker=_MARKERS[data['solvers'].index(s) % len(_MARKERS)], markevery=max(1, len(taus) // 12), ms=5)
    ax.set_xscale("log", base=2)
    ax.set_xlim(1, min(taus[-1], tau_max))
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(r"$\tau$ (time within a factor $\tau$ of the fastest solver)")
    ax.set_ylabel(r"fraction of inputs")
    ax.set_title(f"{title} ({n_inputs} inputs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_speedup(data: dict, path: Path, baseline: str, title: str | None = None,
                 solvers: Sequence[str] | None = None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if baseline not in data["solvers"]:
        raise ValueError(f"baseline must be one of {data['solvers']}, got {baseline!r}")
    b = data["solvers"].index(baseline)
    S, lower = speedups(data["T"], data["capped"], b)
    names = [s for s in (solvers or data["solvers"]) if s != baseline]
    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    n_max = 0
    for s in names:
        j = data["solvers"].index(s)
        ok = np.isfinite(S[:, j])
        if not ok.any():
            continue
        o = np.argsort(S[ok, j])
        y, lb = S[ok, j][o], lower[ok, j][o]
        x = np.arange(1, len(y) + 1)
        n_max = max(n_max, len(y))
        line, = ax.plot(x, y, lw=1.5, marker=_MARKERS[data['solvers'].index(s) % len(_MARKERS)], ms=4, color=_color(data, s),
                        label=f"{data['labels'].get(s, s)} (geomean {np.exp(np.log(y).mean()):.2f}x, {len(y)} inputs)")
        if lb.any():
            ax.plot(x[lb], y[lb], ls="none", marker="^", ms=9, mfc="none", color=line.get_color())
    ax.set_yscale("log")
    ax.axhline(1.0, color="k", lw=1)
    for yv, st in ((2.0, "--"), (0.5, ":")):
        ax.axhline(yv, color="gray", lw=1, ls=st)
    ax.set_xlabel("inputs, sorted by speed-up")
    ax.set_ylabel(f"speed-up over {data['labels'].get(baseline, baseline)} (time ratio)")
    t = title or f"Speed-up over {data['labels'].get(baseline, baseline)} per input"
    if lower.any():
        t += "\n(open triangles: baseline killed at its cap, a lower bound)"
    ax.set_title(t, fontsize=10)
    ax.set_xlim(0.5, max(n_max, 1) + 0.5)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize=8, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_results(json_path: Path | str, out_dir: Path | str | None = None, stem: str | None = None,
                 baseline: str | None = None, time_key: str | None = None,
                 input_keys: Sequence[str] | None = None, min_nnz: int = 0,
                 solvers: Sequence[str] | None = None) -> list[Path]:
    """Write ``<stem>_profile.png`` and (with a baseline) ``<stem>_speedup.png``; returns the paths."""
    json_path = Path(json_path)
    out_dir = Path(out_dir) if out_dir else json_path.parent
    stem = stem or json_path.stem
    data = load_times(json_path, time_key, input_keys, min_nnz)
    baseline = baseline or data["meta"].get("baseline")
    made = [plot_profile(data, out_dir / f"{stem}_profile.png",
                         title=f"Performance profile: {stem}", solvers=solvers)]
    if baseline:
        made.append(plot_speedup(data, out_dir / f"{stem}_speedup.png", baseline, solvers=solvers))
    return made


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Performance profile and speed-up chart from a results JSON")
    ap.add_argument("json", type=Path)
    ap.add_argument("--baseline", default=None, help="solver for the speed-up chart (default: meta.baseline)")
    ap.add_argument("--time-key", default=None, help="long layout: the time field (default seconds_wall)")
    ap.add_argument("--input-keys", default=None, help="long layout: comma list of fields naming an input")
    ap.add_argument("--min-nnz", type=int, default=0, help="only inputs with at least this many entries")
    ap.add_argument("--solvers", default=None, help="comma list of solvers to draw")
    ap.add_argument("--out-dir", type=Path, default=None)
    ap.add_argument("--stem", default=None)
    a = ap.parse_args(argv)
    made = plot_results(a.json, a.out_dir, a.stem, a.baseline, a.time_key,
                        a.input_keys.split(",") if a.input_keys else None, a.min_nnz,
                        a.solvers.split(",") if a.solvers else None)
    for p in made:
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
