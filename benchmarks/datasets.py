"""Named benchmark inputs: the real graphs/matrices in ../shared/data and generated families.

Every input is a :class:`Dataset` with a unique name; :meth:`Dataset.load` returns the
pattern as a canonical boolean ``scipy.sparse.csr_array`` (every *stored* entry is an edge,
as in SciPy's csgraph and in MANIFEST.md's "max matching" column; symmetric files are
expanded to both triangles) and caches it as ``.npz`` under ``.bench-cache/`` (git-ignored),
so generated graphs are built once and worker processes load inputs quickly.

Real data: ``$MATCHFLOW_DATA`` or ``../shared/data`` beside the checkout; the known maximum
matchings come from its MANIFEST.md.

Generated families (``size`` is a scale, i.e. log2 of the vertex count, unless said):

=========  ==========================================  ===========================
family     name (size s)                               mirrors
=========  ==========================================  ===========================
delaunay   ``delaunay_n{s}`` (Hilbert-curve labels)    DIMACS10 delaunay_nXX
shuffled   ``delaunay_n{s}_shuffled`` (random labels)  the same without locality
rgg        ``rgg_n{s}``: r = 0.55 sqrt(ln n / n)       DIMACS10 rgg_n_2_XX_s0
kron       ``kron_s{s}``: R-MAT, edge factor 16        Graph500 / kron_g500-lognXX
road       ``road_n{s}``                               roadNet-*, OSM road graphs
grid3d     ``grid3d_{k}``: k^3 vertices                3-D FE/FD stencils
holes      ``holes_{k}``: k x k grid, 20 % holes       hugetrace/hugebubbles (*)
bipartite  ``bipartite_n{s}_d10``: ER, degree 10       SciPy's matching benchmark
ladder     ``ladder_d{d}_x{c}``: size (d, c)           scipy issue 26147 (*)
=========  ==========================================  ===========================

(*) adversarial: SciPy's Hopcroft-Karp (no dead-end marking, issue 26147) takes time
exponential in the depth of layered structures; holes in a mesh create them naturally.

``python -m benchmarks.datasets`` lists the inputs (``--build`` fills the cache).
"""

from __future__ import annotations

import argparse
import gzip
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("MATCHFLOW_DATA", REPO.parent / "shared" / "data"))
CACHE = Path(os.environ.get("MATCHFLOW_BENCH_CACHE", REPO / ".bench-cache"))
_CACHE_VERSION = 1  # bump when every input changes; per family: FAMILIES[f]["version"]


@dataclass
class Dataset:
    """One named benchmark input."""

    name: str
    family: str
    kind: str  # "real" or "generated"
    build: Callable[[], sp.csr_array] = field(repr=False)
    known_matching: int | None = None  # maximum matching from MANIFEST.md (real data)
    params: dict[str, Any] = field(default_factory=dict)
    adversarial: bool = False  # built to make some solver blow up (excluded from speed-up summaries)
    version: int = 1  # of the generator's output, part of the cache file name

    @property
    def cache_path(self) -> Path:
        return CACHE / f"{self.name}.v{_CACHE_VERSION}.{self.version}.npz"

    def load(self, *, use_cache: bool = True) -> sp.csr_array:
        """The boolean CSR pattern (cached as .npz)."""
        p = self.cache_path
        if use_cache and p.exists():
            try:
                a = sp.load_npz(p)
                return _canonical(sp.csr_array(a))
            except Exception:  # a truncated cache file: rebuild it
                p.unlink(missing_ok=True)
        a = _canonical(self.build())
        if use_cache:
            CACHE.mkdir(parents=True, exist_ok=True)
            tmp = p.with_suffix(".tmp.npz")
            sp.save_npz(tmp, a, compressed=False)
            os.replace(tmp, p)
        return a


def _canonical(a: Any) -> sp.csr_array:
    a = sp.csr_array(a)
    if not a.has_canonical_format:
        a.sum_duplicates()
    if a.dtype != np.bool_:
        a = sp.csr_array((np.ones(a.nnz, dtype=np.bool_), a.indices, a.indptr), shape=a.shape)
    it = np.int32 if max(*a.shape, a.nnz) < 2**31 else np.int64
    if a.indices.dtype != it or a.indptr.dtype != it:
        a = sp.csr_array((a.data, a.indices.astype(it), a.indptr.astype(it)), shape=a.shape)
    a.has_sorted_indices = True
    return a


# ------------------------------------------------------------------ real data
def manifest(data: Path | None = None) -> dict[str, dict[str, Any]]:
    """Rows of the graphs/matrices table of MANIFEST.md, keyed by the file's stem.

    Each entry: ``path``, ``family``, ``shape``, ``nnz``, ``symmetry``, ``max_matching``, ``source``.
    """
    data = data or DATA
    mf = data / "MANIFEST.md"
    out: dict[str, dict[str, Any]] = {}
    if not mf.exists():
        return out
    for line in mf.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 9 or not cells[0].endswith(".mtx.gz"):
            continue
        m = re.fullmatch(r"(\d+)x(\d+)", cells[2])
        if not m:
            continue
        stem = Path(cells[0]).name[: -len(".mtx.gz")]
        out[stem] = {
            "path": data / cells[0],
            "family": cells[1],
            "shape": (int(m.group(1)), int(m.group(2))),
            "nnz": int(cells[3]),
            "symmetry": cells[5],
            "max_matching": int(cells[6]),
            "source": cells[7],
        }
    return out


def read_matrix(path: Path) -> sp.csr_array:
    """A Matrix Market file (gzip or not) as CSR; matchflow.io when it works, else SciPy."""
    try:
        from matchflow import io as mio

        a = mio.read(path)
        if sp.issparse(a):
            return sp.csr_array(a)
    except Exception:
        pass
    import scipy.io

    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        return sp.csr_array(scipy.io.mmread(f))


def real_datasets(data: Path | None = None) -> list[Dataset]:
    """Every graph/matrix of MANIFEST.md that exists on disk, in manifest order."""
    out = []
    for stem, e in manifest(data).items():
        if not e["path"].exists():
            continue
        out.append(Dataset(stem, e["family"], "real", (lambda p=e["path"]: read_matrix(p)),
                           known_matching=e["max_matching"], params={"file": str(e["path"]), "source": e["source"]}))
    return out


# ------------------------------------------------------------------ generated families
def _gen():
    from matchflow import generators

    return generators


def _rgg_n(scale: int) -> sp.csr_array:
    n = 1 << scale
    return _gen().random_geometric(n, seed=1, radius=0.55 * math.sqrt(math.log(n) / n))


# family -> default sizes, name(size), log2 vertex count(size), builder(size)
FAMILIES: dict[str, dict[str, Any]] = {
    "delaunay": {"sizes": tuple(range(16, 23)), "name": "delaunay_n{}".format, "scale": float,
                 "build": lambda s: _gen().delaunay(1 << s, seed=1), "version": 2},
    # the same triangulation with random labels: no cache locality (a stress test)
    "shuffled": {"sizes": (20,), "name": "delaunay_n{}_shuffled".format, "scale": float,
                 "build": lambda s: _gen().delaunay(1 << s, seed=1, order="random"), "version": 2},
    "rgg": {"sizes": (16, 18, 20, 22), "name": "rgg_n{}".format, "scale": float, "build": _rgg_n, "version": 2},
    "kron": {"sizes": tuple(range(16, 22)), "name": "kron_s{}".format, "scale": float,
             "build": lambda s: _gen().rmat(s, 16, seed=1)},
    "road": {"sizes": (18, 20, 22), "name": "road_n{}".format, "scale": float,
             "build": lambda s: _gen().road_like(1 << s, seed=1)},
    "grid3d": {"sizes": (48, 96, 160), "name": "grid3d_{}".format, "scale": lambda k: 3 * math.log2(k),
               "build": lambda k: _gen().grid3d(k, k, k)},
    "holes": {"sizes": (128, 512, 1024, 2048), "name": "holes_{}".format, "scale": lambda k: 2 * math.log2(k),
              "build": lambda k: _gen().grid2d(k, k, holes=0.2, seed=1), "adversarial": True},
    "bipartite": {"sizes": (17, 20), "name": "bipartite_n{}_d10".format, "scale": float,
                  "build": lambda s: _gen().random_bipartite(1 << s, 1 << s, 10, seed=1)},
    # size = (depth, copies): SciPy needs about copies * 2^depth * 10 ns
    "ladder": {"sizes": ((24, 1), (28, 1), (20, 2000)), "name": lambda dc: f"ladder_d{dc[0]}_x{dc[1]}",
               "scale": lambda dc: math.log2(max(2, dc[1] * (3 * dc[0] + 1))),
               "build": lambda dc: _gen().hk_ladder(dc[0], dc[1]), "adversarial": True},
}


def family_scale(family: str, size: Any) -> float:
    """log2 of the vertex count of ``family`` at ``size`` (what --max-scale compares with)."""
    return float(FAMILIES[family]["scale"](size))


def generated(family: str, size: Any) -> Dataset:
    """The generated input of ``family`` at ``size`` (see the table in the module docstring)."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {tuple(FAMILIES)}, got {family!r}")
    f = FAMILIES[family]
    return Dataset(f["name"](size), family, "generated", (lambda: f["build"](size)),
                   params={"size": size}, adversarial=bool(f.get("adversarial", False)),
                   version=int(f.get("version", 1)))


def generated_datasets(families: list[str] | None = None, max_scale: float = 22, min_scale: float = 0
                       ) -> list[Dataset]:
    """Generated inputs of ``families`` (default: all) whose log2 vertex count is in [min_scale, max_scale]."""
    out = []
    for fam in families or list(FAMILIES):
        if fam not in FAMILIES:
            raise ValueError(f"family must be 'real' or one of {tuple(FAMILIES)}, got {fam!r}")
        for s in FAMILIES[fam]["sizes"]:
            if min_scale <= family_scale(fam, s) <= max_scale:
                out.append(generated(fam, s))
    return out


_NAME_PATTERNS = {
    "delaunay": r"delaunay_n(\d+)", "shuffled": r"delaunay_n(\d+)_shuffled", "rgg": r"rgg_n(\d+)", "kron": r"kron_s(\d+)", "road": r"road_n(\d+)",
    "grid3d": r"grid3d_(\d+)", "holes": r"holes_(\d+)", "bipartite": r"bipartite_n(\d+)_d10",
    "ladder": r"ladder_d(\d+)_x(\d+)",
}


def by_name(name: str) -> Dataset:
    """Find a real or generated input by its name (e.g. ``"wing"``, ``"delaunay_n18"``, ``"ladder_d24_x1"``)."""
    for d in real_datasets():  # real names win (the real delaunay_n15 is not the generated one)
        if d.name == name:
            return d
    for fam, pat in _NAME_PATTERNS.items():
        m = re.fullmatch(pat, name)
        if m:
            g = tuple(int(x) for x in m.groups())
            return generated(fam, g if len(g) > 1 else g[0])
    raise KeyError(f"no benchmark input named {name!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", default="real," + ",".join(FAMILIES),
                    help="comma list of 'real' and generated families")
    ap.add_argument("--max-scale", type=float, default=22)
    ap.add_argument("--build", action="store_true", help="load every input once (fills .bench-cache/)")
    args = ap.parse_args(argv)
    fams = [f.strip() for f in args.families.split(",") if f.strip()]
    sets = (real_datasets() if "real" in fams else []) + generated_datasets(
        [f for f in fams if f != "real"], args.max_scale)
    for d in sets:
        line = f"{d.name:32s} {d.kind:9s} {d.family:40s}"
        if args.build:
            t0 = time.perf_counter()
            a = d.load()
            line += f" {a.shape[0]}x{a.shape[1]} nnz={a.nnz} ({time.perf_counter() - t0:.1f} s)"
        print(line + (f" known={d.known_matching}" if d.known_matching is not None else ""), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
