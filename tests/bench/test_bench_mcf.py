"""benchmarks/bench_mcf.py on its smallest cases: every available peer (ours too, once the build has
``matchflow.min_cost_flow``) agrees with OR-Tools' cost, the solve-alone columns (``ortools-solve``,
``ours-solve``) run beside the whole calls, the first call in a fresh process lands in the JSON meta and the
markdown header, and the JSON + markdown are written."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for `benchmarks`

from benchmarks import bench_mcf  # noqa: E402

pytest.importorskip("ortools")


# the first call (two fresh interpreters, ~1.3 s each with a warm cache) on one case only: the tests stay fast
@pytest.mark.parametrize(("case", "first"), [("transport 100x100", False), ("gridgen 32x32", True)])
def test_quick_case_all_peers_agree(tmp_path, case, first):
    bench_mcf.main(["--quick", "--cases", case, "--out", str(tmp_path)] + ([] if first else ["--no-first-call"]))
    files = sorted(tmp_path.glob("*-quick.json"))
    assert len(files) == 1 and files[0].with_suffix(".md").exists()
    data = json.loads(files[0].read_text())
    md = files[0].with_suffix(".md").read_text()
    (row,) = data["rows"]
    meta, peers = data["meta"], data["meta"]["peers"]
    assert peers[0] == "ortools" and row["case"] == case
    ran = [p for p in peers if row[p]["cost"] is not None]
    assert "ortools" in ran and "ortools-solve" in ran and "networkx" in ran and len(ran) >= 3
    assert all(row[p]["ok"] is True and row[p]["cost"] == row["ortools"]["cost"] for p in ran)
    assert all(row[p]["ms"] > 0 for p in ran)
    assert ("pot" in ran) == ("pot" in peers and case.startswith("transport"))
    assert "`-solve` columns: the solve alone" in md
    if "ours" not in peers:  # a build without min_cost_flow: no column of ours, no first call
        assert "ours-solve" not in peers and meta["first_call_s"] is None
        return
    assert "ours-solve" in ran and "ours" in ran
    if not first:
        assert meta["first_call_s"] is None and meta["first_call"] is None and "not measured in this run" in md
        return
    fc = meta["first_call"]
    assert "failed" not in fc, fc.get("failed")
    assert meta["first_call_s"] == fc["seconds"] > 0 and fc["seconds"] >= fc["call_s"] > fc["second_call_s"] > 0
    assert fc["cost"] == bench_mcf.run_ortools(bench_mcf.Case("n", "netgen", None, 0, 0, bench_mcf.netgen(
        bench_mcf.FIRST_N, 8 * bench_mcf.FIRST_N, seed=bench_mcf.FIRST_N)))
    assert f"**{fc['seconds']:.2f} s** (import {fc['import_s']:.2f} s" in md


def test_measure_takes_a_runner_timing_its_own_part():
    """A runner returning ``(seconds, cost)`` is timed by its seconds (best of the repeats); a plain cost by the
    wall time of the call; None (not run) by neither."""
    case = bench_mcf.Case("c", "netgen", None, 0, 0)
    times = iter([3.0, 1.0, 2.0])
    assert bench_mcf.measure(lambda c: (next(times), 7), case, 3) == (1.0, 7)
    sec, cost = bench_mcf.measure(lambda c: 5, case, 2)
    assert cost == 5 and 0 <= sec < 1.0
    assert bench_mcf.measure(lambda c: None, case, 2) == (None, None)
