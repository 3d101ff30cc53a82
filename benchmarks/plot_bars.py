"""A benchmark's JSON as one chart: a group of bars per case, one bar per peer, ms on a log scale.

    python -m benchmarks.plot_bars results/batch/h200-2026-11-29.json --title "Batched assignment"
    python -m benchmarks.plot_bars results/mcf/vm-2026-11-29.json --title "Min-cost flow"

Reads ``{"meta": {...}, "rows": [{"case": str, <peer>: {"ms", "ok"[, "items"]}}]}`` (``bench_batch.py``,
``bench_mcf.py``); a missing time (``n/a``) leaves a gap; a bar whose answer was not the reference's (``ok`` false,
or fewer ``ok`` items than ``items``) is hatched. Peers: every column of the rows in their order, but the batch
benchmark's item-by-item GPU loop (``ours-gpu-loop``, 100 items timed and scaled) unless ``--peers`` names it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

HIDDEN = ("ours-gpu-loop",)


def _columns(rows: list[dict]) -> list[str]:
    """The peer columns of the rows (values that are dicts with ``ms``), first-seen order, less :data:`HIDDEN`."""
    seen = dict.fromkeys(k for r in rows for k, c in r.items() if isinstance(c, dict) and "ms" in c)
    return [k for k in seen if k not in HIDDEN]


def load(path: str | Path, peers=None) -> tuple[dict, list[str], list[str], np.ndarray, np.ndarray]:
    """``(meta, cases, peers, T, ok)``: ``T[i, j]`` the ms of peer j on case i (NaN: not run), ``ok[i, j]``
    whether its answer was the reference's (every item's, for a batch)."""
    doc = json.loads(Path(path).read_text())
    meta, rows = doc["meta"], doc["rows"]
    names = [p for p in (peers or _columns(rows)) if any(p in r for r in rows)]
    T = np.full((len(rows), len(names)), np.nan)
    ok = np.ones_like(T, dtype=bool)
    for i, r in enumerate(rows):
        for j, p in enumerate(names):
            c = r.get(p) or {}
            if c.get("ms") is not None:
                T[i, j] = c["ms"]
                ok[i, j] = c.get("ok") is True or ("items" in c and c.get("ok") == c["items"])
    return meta, [r["case"] for r in rows], names, T, ok


def plot(path: str | Path, out: str | Path, peers=None, title: str = "") -> Path:
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
    ax.set_title(f"{title or 'Benchmark'}, {meta.get('machine') or meta.get('host')}, {meta.get('date')}", fontsize=9)
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
    ap.add_argument("--title", default="", help="the chart's title, before the machine and the date")
    args = ap.parse_args()
    out = args.out or str(Path(args.json).with_suffix(".png"))
    print(plot(args.json, out, args.peers.split(",") if args.peers else None, args.title))


if __name__ == "__main__":
    main()
