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


def test_ci_runs_the_readme_test_command_on_every_declared_python():
    """`.ci/run` is the README's test command (python3 -> each interpreter), once per Python the package declares."""
    root = README.parent
    text = README.read_text(encoding="utf-8")
    cmd = re.search(r"```bash\n(python3 -m pip install \"\.\[test\]\".*?)\n```", text).group(1)
    ci = (root / ".ci" / "run").read_text(encoding="utf-8")
    assert cmd.replace("python3", '"$py"') in ci
    declared = re.findall(r"Python :: (3\.\d+)\"", (root / "pyproject.toml").read_text(encoding="utf-8"))
    tested = re.search(r"MATCHFLOW_CI_PYTHONS:-([0-9. ]+)\}", ci).group(1).split()
    assert declared == tested == ["3.11", "3.12", "3.13"]
