"""The docs name only what the tree holds: every ``src/matchflow/...py`` path and every backticked private name
(`` `_module` ``, `` `_module.name` ``, `` `_helper()` ``) in docs/*.md and docs/notes/*.md exists under src/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "matchflow"
DOCS = sorted([*ROOT.glob("docs/*.md"), *ROOT.glob("docs/notes/*.md")])
PATH = re.compile(r"src/matchflow/[\w/]+\.py")
PRIVATE = re.compile(r"`(_(?!_)\w+)((?:\.[\w.]+)?)(?:\(\))?`")  # not dunders (`__pycache__`)
FILES = (".png", ".md", ".json", ".csv", ".txt", ".svg")  # `_speedup.png`: a results file, not a module


def _defined() -> set[str]:
    """Private modules (files and folders) and the names defined or assigned at any level of any module."""
    names = {p.stem for p in SRC.rglob("_*.py")} | {p.name for p in SRC.rglob("_*") if p.is_dir()}
    pattern = re.compile(r"^\s*(?:def|class)\s+(_\w+)|^\s*(_\w+)\s*[:=]|\b(_\w+)\s*=|\bas\s+(_\w+)", re.M)
    for p in SRC.rglob("*.py"):
        for m in pattern.finditer(p.read_text()):
            names.add(next(g for g in m.groups() if g))
    return names


def test_docs_are_found():
    assert len(DOCS) >= 5 and (ROOT / "docs" / "DEVELOPING.md") in DOCS


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_name_only_what_exists(doc):
    text = doc.read_text()
    missing = sorted({p for p in PATH.findall(text) if not (ROOT / p).exists()})
    defined = _defined()
    missing += sorted({n for n, tail in PRIVATE.findall(text) if n not in defined and not tail.endswith(FILES)})
    assert not missing, f"{doc.relative_to(ROOT)} names what src/ does not hold: {missing}"
