"""``matchflow demo`` as a function (``run_demo``); the demo lives in ``matchflow._commands``."""

from ._commands._demo import run_demo

__all__ = ["run_demo"]
