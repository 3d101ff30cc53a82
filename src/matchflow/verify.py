"""Certificate checkers: matchings (König cover), assignments (dual potentials)."""
