"""Local search after a ½-approximate matching (the ``improve=True`` option of every method): length-3
augmentations x - a = b - y with x, y free, taken while one is strictly heavier (exact comparisons).
"""

from __future__ import annotations

import numba as nb

__all__ = ["improve_kernel"]


@nb.njit(inline="always", cache=True)
def _pair_gt_dev(a1, b1, a2, b2):
    """a1 + b1 > a2 + b2 for weights >= 0 without forming a sum: exact for int64 and uint64 (no overflow);
    for floats it compares one rounded difference with a weight, and rounding is monotone, so a True is true
    of the exact values whenever b2 = 0 (the test that an augmentation gains)."""
    if a1 >= a2:
        return b1 > b2 or a1 - a2 > b2 - b1
    return b1 > b2 and b1 - b2 > a2 - a1

@nb.njit(cache=True)
def improve_kernel(ptr, ind, w, mate, max_passes):
    """Local search by length-3 augmentations x - a = b - y (x, y free): replace the matched edge
    {a, b} by {x, a} and {b, y} when that is strictly heavier (exactly: :func:`_pair_gt_dev`). Never lowers
    the weight.
    Returns the number of augmentations."""
    n = len(ptr) - 1
    count = 0
    for _ in range(max_passes):
        changed = 0
        for a in range(n):
            b = mate[a]
            if b < a:  # each matched edge once (also skips unmatched a)
                continue
            wab = w[0]
            for k in range(ptr[a], ptr[a + 1]):
                if ind[k] == b:
                    wab = w[k]
            # two best free neighbours of a and of b (positive edges)
            xa1 = -1
            xa2 = -1
            wa1 = wab - wab
            wa2 = wa1
            for k in range(ptr[a], ptr[a + 1]):
                x = ind[k]
                if mate[x] < 0 and w[k] > 0:
                    if xa1 < 0 or w[k] > wa1:
                        xa2, wa2 = xa1, wa1
                        xa1, wa1 = x, w[k]
                    elif xa2 < 0 or w[k] > wa2:
                        xa2, wa2 = x, w[k]
            if xa1 < 0:
                continue
            bx = -1
            zero = wa1 - wa1
            bwa = zero
            bwy = zero
            for k in range(ptr[b], ptr[b + 1]):
                y = ind[k]
                if mate[y] < 0 and w[k] > 0:
                    xa = xa1 if y != xa1 else xa2
                    wa = wa1 if y != xa1 else wa2
                    if xa >= 0 and _pair_gt_dev(wa, w[k], wab, zero) and (bx < 0 or _pair_gt_dev(wa, w[k], bwa, bwy)):
                        bx = y
                        bwa = wa
                        bwy = w[k]
            if bx >= 0:
                x = xa1 if bx != xa1 else xa2
                mate[x] = a
                mate[a] = x
                mate[b] = bx
                mate[bx] = b
                changed += 1
        count += changed
        if changed == 0:
            break
    return count
