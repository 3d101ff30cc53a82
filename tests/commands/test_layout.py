"""The commands package (issue 22): families never import it, ``import matchflow`` does not load it, and a
family's command and demo section are one entry in ``FAMILIES``."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import matchflow
from matchflow._commands import _families, _main
from matchflow.cli import main

SRC = Path(matchflow.__file__).resolve().parent
COMMANDS = ("matchflow._commands", "matchflow.cli", "matchflow.demo")


def _imports(path: Path) -> set[str]:
    """Every module a file imports, absolute, with ``from X import name`` also as ``X.name``."""
    package = ("matchflow." + ".".join(path.relative_to(SRC).parent.parts)).rstrip(".").split(".")
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1] if node.level else [])
            mod = ".".join(p for p in (base, node.module or "") if p)
            found.add(mod)
            found.update(f"{mod}.{a.name}" for a in node.names)
    return found


@pytest.mark.parametrize("family", ["matching", "assignment", "flow", "wmatching", "batch", "mcf"])
def test_families_do_not_import_the_commands(family):
    files = sorted((SRC / family).rglob("*.py"))
    assert files
    hits = {f.name: m for f in files for m in _imports(f) if m.startswith(COMMANDS)}
    assert not hits, f"{family} imports the commands: {hits}"


def test_import_graph_helper_sees_relative_imports():
    """The helper above resolves ``from ..x import y`` (else the test before it would pass vacuously)."""
    assert "matchflow._commands._common.emit" in _imports(SRC / "_commands" / "wmatching.py")
    assert "matchflow.wmatching._api.METHODS" in _imports(SRC / "_commands" / "wmatching.py")


def test_import_matchflow_does_not_load_the_cli():
    code = f"import sys, matchflow; print(sorted(m for m in sys.modules if m.startswith({COMMANDS!r})))"
    env = {**os.environ, "PYTHONPATH": str(SRC.parent), "MATCHFLOW_DISABLE_GPU": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "[]"


def test_every_family_module_has_the_hooks():
    assert [f.__name__.rsplit(".", 1)[1] for f in _families.FAMILIES] == ["matching", "assignment", "flow", "wmatching",
                                                                                      "mcf"]
    for family in _families.FAMILIES:
        assert callable(family.add_parser) and callable(family.demo_section), family.__name__
    commands = set(_main.build_parser()._subparsers._group_actions[0].choices)
    assert commands == {"info", "match", "assign", "flow", "wmatch", "mcf", "demo", "precompile"}


def _family(name: str, failures: int) -> types.ModuleType:
    """A stand-in family module: a ``name`` command that prints its argument, a demo line, ``failures``."""
    fam = types.ModuleType(f"matchflow._commands.{name}")

    def add_parser(sub):
        s = sub.add_parser(name)
        s.add_argument("word")
        s.set_defaults(func=lambda args: print(f"{name} says {args.word}") or 0)

    def demo_section(con, *, quick=False, backend="auto"):
        con.print(f"{name} section quick={quick} backend={backend}")
        return failures

    fam.add_parser, fam.demo_section = add_parser, demo_section
    return fam


@pytest.mark.parametrize("failures, code, last", [(0, 0, "All results verified"), (2, 1, "2 input(s) failed")])
def test_a_new_family_is_one_entry_in_families(monkeypatch, capsys, failures, code, last):
    monkeypatch.setattr(_families, "FAMILIES", (_family("hello", failures),))
    assert main(["hello", "world"]) == 0
    assert capsys.readouterr().out == "hello says world\n"
    assert main(["demo", "--quick", "--backend", "cpu", "-q"]) == code
    out = capsys.readouterr().out
    assert "hello section quick=True backend=cpu" in out and out.strip().splitlines()[-1].startswith(last)
