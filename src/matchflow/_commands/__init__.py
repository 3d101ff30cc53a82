"""The commands: ``matchflow info | match | assign | flow | wmatch | demo | precompile`` and the demo.

One module per solver family (``matching``, ``assignment``, ``flow``, ``wmatching``), each with the same hooks:
``add_parser(subparsers)`` registers its command and ``demo_section(console, *, quick, backend)`` prints its part
of ``matchflow demo`` and returns the number of failed certificates. ``_families.FAMILIES`` lists them; the parser
and the demo iterate it, so a family's command touches no dispatcher. The families never import this package,
and ``import matchflow`` does not load it.
"""

from ._main import main

__all__ = ["main"]
