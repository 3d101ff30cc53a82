"""The package's house, measured from its imports (issue 22): modules, import arrows, circles, arrows up.

    python3 scripts/house.py [--verbose]

Every ``import`` in every module counts, those inside functions included. Layers, bottom to top:
0 the common ground (containers, GPU layer, validation, method tables, the linear-assignment kernels ``_lsap``, io,
generators), 1 the solver families (batched assignment included), 2 the surface (``matchflow``, ``verify``,
``gpu``, ``dask``, the commands, precompile). An arrow *up* goes from a lower layer
to a higher one; a *sideways* arrow goes from one family into another family's private module. ``tests/
test_house.py`` pins the counts the code has reached.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

FAMILIES = ("matching", "assignment", "flow", "wmatching", "batch", "mcf")
SURFACE = ("matchflow", "matchflow.verify", "matchflow.gpu", "matchflow.cli", "matchflow.demo", "matchflow._cli_out",
           "matchflow.__main__", "matchflow._info", "matchflow._progress", "matchflow._commands", "matchflow.dask")


def modules(src: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package's ``__init__``)."""
    out = {}
    for p in sorted((src / "matchflow").rglob("*.py")):
        parts = list(p.relative_to(src).with_suffix("").parts)
        pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if pkg else parts)] = (p, pkg)
    return out


def _targets(node: ast.AST, pkg: str, mods: dict) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        head = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
        base = ".".join(head + ([node.module] if node.module else []))
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]


def arrows(mods: dict) -> set[tuple[str, str]]:
    """Import arrows between the package's modules (a name imported from a package counts as the package)."""
    out = set()
    for name, (path, is_pkg) in mods.items():
        pkg = name if is_pkg else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for t in _targets(node, pkg, mods):
                while t not in mods and "." in t:
                    t = t.rsplit(".", 1)[0]
                if t in mods and t != name:
                    out.add((name, t))
    return out


def circles(mods: dict, edges: set) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    nxt = {m: sorted(b for a, b in edges if a == m) for m in mods}
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], 0
    for root in mods:
        if root in index:
            continue
        work = [(root, iter(nxt[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = counter
                counter += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(nxt[w])))
            elif w in on:
                low[v] = min(low[v], index[w])
    return comps


def layer(m: str) -> int:
    if any(m == s or m.startswith(s + ".") for s in SURFACE[1:]) or m == "matchflow":
        return 2
    return 1 if m.split(".")[1] in FAMILIES else 0


def family(m: str) -> str | None:
    parts = m.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in FAMILIES else None


def arrows_up(edges: set) -> list[tuple[str, str]]:
    """Arrows from a lower layer to a higher one."""
    return sorted((a, b) for a, b in edges if layer(a) < layer(b))


def sideways(edges: set) -> list[tuple[str, str]]:
    """Arrows from one family into another family's private module."""
    return sorted((a, b) for a, b in edges if family(a) and family(b) and family(a) != family(b)
                  and b.rsplit(".", 1)[-1].startswith("_"))


def measure(root: Path) -> dict:
    mods = modules(root / "src")
    edges = arrows(mods)
    return {"modules": len(mods), "arrows": len(edges), "circles": circles(mods, edges), "up": arrows_up(edges),
            "sideways": sideways(edges)}


def main(argv: list[str]) -> int:
    h = measure(Path(__file__).resolve().parents[1])
    print(f"{h['modules']} modules, {h['arrows']} arrows, {len(h['circles'])} circles, {len(h['up'])} arrows up, "
          f"{len(h['sideways'])} sideways into another family's private modules")
    if "--verbose" in argv:
        for kind in ("circles", "up", "sideways"):
            for item in h[kind]:
                print(f"  {kind}: {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
