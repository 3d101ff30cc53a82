"""``matchflow wmatch`` on a real weighted graph file."""

from __future__ import annotations

import json

import pytest

from matchflow.cli import main


@pytest.mark.slow
def test_wmatch_cli_json_and_out(shared_data, tmp_path, capsys):
    out = tmp_path / "pairs.txt"
    rc = main(["wmatch", str(shared_data / "graphs/amsterdam-roads.mtx.gz"), "--method", "ld", "--json",
               "--out", str(out)])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["valid"] and doc["half_approximate"] and doc["method"] == "ld"
    assert doc["weight"] == 2345767.0 and doc["cardinality"] == 28984  # the greedy matching (tests: = oracle)
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + doc["cardinality"] and sum(float(x.split()[2]) for x in lines[1:]) == doc["weight"]


def test_wmatch_cli_bad_method(tmp_path, capsys):
    f = tmp_path / "g.mtx"
    f.write_text("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 3.0\n")
    assert main(["wmatch", str(f), "--method", "nope"]) != 0
    assert "method must be one of ('auto', 'suitor', 'ld', 'greedy'), got 'nope'" in capsys.readouterr().err
    assert main(["wmatch", str(f)]) == 0
    assert "weight        3.0" in capsys.readouterr().out
