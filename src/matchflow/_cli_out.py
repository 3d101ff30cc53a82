"""How every CLI command prints its answer: the JSON record, or a title and labelled lines."""

from __future__ import annotations

import json
from collections.abc import Iterable


def emit(out: dict, as_json: bool, title: str, lines: Iterable[tuple[str, object] | None]) -> None:
    """Print ``out`` as indented JSON, or ``title`` then one ``  label  value`` line per pair (``None`` skipped)."""
    if as_json:
        print(json.dumps(out, indent=1, default=str))
        return
    print(title)
    for line in lines:
        if line is not None:
            print(f"  {line[0]:<14}{line[1]}")
