"""Public assignment API (being written: see docs/DEVELOPING.md)."""


def assignment(cost, *, maximize=False, method="auto", backend="auto"):
    raise NotImplementedError("assignment is being written")


def linear_sum_assignment(cost, maximize=False):
    raise NotImplementedError("linear_sum_assignment is being written")
