"""``matchflow flow FILE.max`` and the demo's flow section."""

from __future__ import annotations

import json

from matchflow.cli import main


def test_cli_flow_json_and_out(shared_data, tmp_path, capsys):
    out = tmp_path / "gl1.sol"
    assert main(["flow", str(shared_data / "flow" / "gl1.max"), "--json", "--out", str(out)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["flow_value"] == 156545 and d["certificate"].startswith("verified")
    lines = out.read_text().splitlines()
    assert lines[0] == "s 156545" and all(x.startswith("f ") for x in lines[1:])


def test_cli_flow_bad_method(shared_data, capsys):
    assert main(["flow", str(shared_data / "flow" / "gl1.max"), "--method", "bk"]) == 2
    assert "method must be one of" in capsys.readouterr().err


def test_flow_demo_section_verifies():
    from rich.console import Console

    from matchflow._commands.flow import demo_section

    con = Console(record=True, width=160)
    assert demo_section(con, quick=True) == 0
    assert "verified" in con.export_text()
