"""The family command modules, each with ``add_parser(subparsers)`` and ``demo_section(console, *, quick, backend)``:
the parser and the demo iterate this tuple, so adding a family's command touches no dispatcher."""

from . import assignment, flow, matching, mcf, wmatching

FAMILIES = (matching, assignment, flow, wmatching, mcf)
