"""``matchflow.info()``: version, backends and GPU."""

from __future__ import annotations

import importlib.metadata
import platform
import sys

import numba
import numpy
import scipy

from ._backend import gpu_available, gpu_info, gpu_reason
from ._version import __version__


def info(*, as_dict: bool = False) -> dict | str:
    """Describe this installation: versions, available backends, GPU model and memory.

    Returns a printable multi-line string, or a dict with ``as_dict=True``.

    Examples
    --------
    >>> import matchflow
    >>> print(matchflow.info())  # doctest: +ELLIPSIS
    matchflow ...
      python ...
    >>> sorted(matchflow.info(as_dict=True))[:3]
    ['backends', 'cpu_threads', 'gpu']
    """
    try:  # the distribution's metadata: importing numba_cuda would cost ~0.5 s
        numba_cuda_version = importlib.metadata.version("numba-cuda")
    except importlib.metadata.PackageNotFoundError:
        numba_cuda_version = None
    d = {
        "matchflow": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "numba": numba.__version__,
        "numba_cuda": numba_cuda_version,
        "backends": ["cpu"] + (["gpu"] if gpu_available() else []),
        "gpu": gpu_info(),
        "gpu_status": gpu_reason(),
        "cpu_threads": numba.config.NUMBA_NUM_THREADS,
    }
    if as_dict:
        return d
    lines = [f"matchflow {d['matchflow']}"]
    for key in ("python", "platform", "numpy", "scipy", "numba", "numba_cuda", "cpu_threads"):
        lines.append(f"  {key:<12} {d[key]}")
    lines.append(f"  {'backends':<12} {', '.join(d['backends'])}")
    g = d["gpu"]
    if g:
        mem = g.get("memory_total_bytes")
        mem_s = f", {mem / 2**30:.1f} GiB" if mem else ""
        lines.append(f"  {'gpu':<12} {g.get('name')} (cc {g.get('compute_capability', '?')}{mem_s})")
    else:
        lines.append(f"  {'gpu':<12} none ({d['gpu_status']})")
    return "\n".join(lines)
