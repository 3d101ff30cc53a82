"""The README's tour runs as written (lines that read the user's own files are left out)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_tour_runs():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## A short tour\n\n```python\n(.*?)```", text, re.S)
    assert block is not None, "README lost its tour"
    code = "\n".join(ln for ln in block.group(1).splitlines() if "io.read(" not in ln)
    env: dict = {}
    exec(compile(code, "README tour", "exec"), env)  # noqa: S102 - our own README
    assert env["res"].cardinality == env["perm"].__ge__(0).sum()
    assert env["f"].flow_value >= 0 and env["seg"].labels.shape == (64, 64)
