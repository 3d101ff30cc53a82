"""A FIFO queue as a ring buffer of ``cap`` slots (CPU, Numba), shared by the CPU kernels that discharge vertices
in FIFO order: the matching family's push-relabel and the min-cost flow's cost scaling. The caller keeps
``head``, ``tail`` and ``count`` (live entries) and guarantees ``count < cap`` before a push."""

from __future__ import annotations

import numba

__all__ = ["ring_pop", "ring_push"]


@numba.njit(cache=True, inline="always")
def ring_pop(queue, head, count, cap):
    """The front entry (``count > 0``): ``(v, head, count)`` after taking it."""
    v = queue[head]
    head += 1
    if head == cap:
        head = 0
    return v, head, count - 1


@numba.njit(cache=True, inline="always")
def ring_push(queue, tail, count, cap, w):
    """``w`` at the back: ``(tail, count)`` after adding it."""
    queue[tail] = w
    tail += 1
    if tail == cap:
        tail = 0
    return tail, count + 1
