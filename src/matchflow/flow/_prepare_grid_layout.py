"""Grid layout shared by the CPU and GPU grid cuts: neighbour ``offsets``, the connectivities and
``grid_layout`` (the grid's shape and batch size from ``source_caps``' shape), and the integer limit."""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["CONNECTIVITY", "GRID_NDIM", "INT64_MAX", "INT_LIMIT", "grid_layout", "offsets"]

CONNECTIVITY = {2: (4, 8), 3: (6, 26)}
GRID_NDIM = {4: 2, 8: 2, 6: 3, 26: 3}
INT_LIMIT = 2**62  # integer capacity sums must stay below this (int64 flows never wrap)
INT64_MAX = 2**63 - 1


def offsets(ndim: int, connectivity: int) -> np.ndarray:
    """Neighbour offsets (k, ndim), lexicographic: the 2*ndim axis neighbours (4, 6) or all (8, 26).

    Examples
    --------
    >>> from matchflow.flow import offsets
    >>> offsets(2, 4).tolist()
    [[-1, 0], [0, -1], [0, 1], [1, 0]]
    >>> offsets(3, 26).shape
    (26, 3)
    """
    if ndim not in CONNECTIVITY:
        raise ValueError(f"grids must be 2-D or 3-D, got {ndim} dimensions")
    if connectivity not in CONNECTIVITY[ndim]:
        raise ValueError(f"connectivity must be one of {CONNECTIVITY[ndim]} for a {ndim}-D grid, got {connectivity!r}")
    full = connectivity in (8, 26)
    return np.array([o for o in itertools.product((-1, 0, 1), repeat=ndim)
                     if any(o) and (full or sum(map(abs, o)) == 1)], dtype=np.int64)


def grid_layout(shape: tuple[int, ...], connectivity: int | None) -> tuple[tuple[int, ...], int | None, int]:
    """``(grid shape, batch size or None, connectivity)`` of ``source_caps``' shape: the connectivity names
    the grid's dimension (4, 8: 2-D; 6, 26: 3-D), one more leading axis is a batch of independent grids.
    ``None``: 4 for a 2-D array, 6 for a 3-D array (a batch needs an explicit connectivity, but a 4-D
    array can only be a batch of 3-D grids: 6)."""
    nd = len(shape)
    if nd not in (2, 3, 4):
        raise ValueError(f"source_caps must be a 2-D or 3-D grid (or a batch of them), got shape {shape}")
    if connectivity is None:
        connectivity = 4 if nd == 2 else 6
    if connectivity not in GRID_NDIM or nd == 2 or (nd == 4 and GRID_NDIM[connectivity] == 2):
        if nd == 4:
            raise ValueError(f"connectivity must be one of (6, 26) for a batch of 3-D grids, got {connectivity!r}")
        offsets(nd, connectivity)  # raises: the allowed values for this dimension
    gnd = GRID_NDIM[connectivity]
    return (shape, None, connectivity) if nd == gnd else (shape[1:], shape[0], connectivity)
