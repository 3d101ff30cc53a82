"""The batched-assignment benchmark as one chart: a group of bars per case, one bar per peer, ms on a log scale.

    python -m benchmarks.plot_batch results/batch/h200-2026-11-29.json [--out results/batch/h200-2026-11-29.png]

Reads the JSON of ``bench_batch.py`` (``{"meta": {...}, "rows": [{"case": str, <peer>: {"ms", "ok", "items"}}]}``);
a missing time (``n/a``) leaves a gap; a bar whose answers were not all SciPy's optimum is hatched. The item-by-item
GPU loop (``ours-gpu-loop``, 100 items timed and scaled) is left out unless ``--peers`` names it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

DEFAULT_PEERS = ("scipy-loop", "lapx-batch", "ours-cpu", "tla-gpu", "ours-gpu", "ours-gpu-dev", "ours-gpu-solve")


def load(path: str | Path, peers=None) -> tuple[dict, list[str], list[str], np.ndarray, np.ndarray]:
    """``(meta, cases, peers, T, ok)``: ``T[i, j]`` the ms of peer j on case i (NaN: not run), ``ok[i, j]``
    whether every item's total was SciPy's."""
    doc = json.loads(Path(path).read_text())
    meta, rows = doc["meta"], doc["rows"]
    names = [p for p in (peers or DEFAULT_PEERS) if any(p in r for r in rows)]
    T = np.full((len(rows), len(names)), np.nan)
    ok = np.ones_like(T, dtype=bool)
    for i, r in enumerate(rows):
        for j, p in enumerate(names):
            c = r.get(p) or {}
            if c.get("ms") is not None:
                T[i, j] = c["ms"]
                ok[i, j] = c.get("ok") == c.get("items")
    return meta, [r["case"] for r in rows], names, T, ok


def plot(path: str | Path, out: str | Path, peers=None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    meta, cases, names, T, ok = load(path, peers)
    fig, ax = plt.subplots(figsize=(11, 0.55 * len(cases) * max(1, len(names) / 4) + 1.5))
    h = 0.8 / len(names)
    y = np.arange(len(cases))
    for j, p in enumerate(names):
        bars = ax.barh(y - 0.4 + (j + 0.5) * h, T[:, j], height=h, label=p)
        for b, good in zip(bars, ok[:, j]):
            if not good:
                b.set_hatch("//")
    ax.set_yticks(y, cases)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("ms (log scale; best of {} runs; shorter is faster)".format(meta.get("repeat", "?")))
    ax.set_title(f"Batched assignment, {meta.get('machine') or meta.get('host')}, {meta.get('date')}")
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--out", default=None, help="the PNG (default: the JSON's name with .png)")
    ap.add_argument("--peers", default=None, help="comma-separated columns (default: all but ours-gpu-loop)")
    args = ap.parse_args()
    out = args.out or str(Path(args.json).with_suffix(".png"))
    print(plot(args.json, out, args.peers.split(",") if args.peers else None))


if __name__ == "__main__":
    main()
