"""benchmarks/bench_mcf.py on its smallest case: every available peer (ours too, once the build has
``matchflow.min_cost_flow``) agrees with OR-Tools' cost, and the JSON + markdown are written."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for `benchmarks`

from benchmarks import bench_mcf  # noqa: E402

pytest.importorskip("ortools")


@pytest.mark.parametrize("case", ["transport 100x100", "gridgen 32x32"])
def test_quick_case_all_peers_agree(tmp_path, case):
    bench_mcf.main(["--quick", "--cases", case, "--out", str(tmp_path)])
    files = sorted(tmp_path.glob("*-quick.json"))
    assert len(files) == 1 and files[0].with_suffix(".md").exists()
    data = json.loads(files[0].read_text())
    (row,) = data["rows"]
    peers = data["meta"]["peers"]
    assert peers[0] == "ortools" and row["case"] == case
    ran = [p for p in peers if row[p]["cost"] is not None]
    assert "ortools" in ran and "networkx" in ran and len(ran) >= 2
    assert all(row[p]["ok"] is True and row[p]["cost"] == row["ortools"]["cost"] for p in ran)
    assert ("pot" in ran) == ("pot" in peers and case.startswith("transport"))
