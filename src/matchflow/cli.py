"""The ``matchflow`` console script (``matchflow.cli:main``); the commands live in ``matchflow._commands``."""

from ._commands import main

__all__ = ["main"]

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
