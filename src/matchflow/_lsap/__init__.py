"""Common ground of the two linear-assignment families (the dense one, :mod:`matchflow.assignment`, and the
batched one, :mod:`matchflow.batch`), so neither imports the other's private modules:

* :mod:`.jv`: the Jonker-Volgenant kernels (column reduction, augmenting row reduction, shortest augmenting
  paths, row duals);
* :mod:`.reduced`: reduced costs under duals (the least one, the exact integer duality check, the float bound's
  row pass);
* :mod:`.problem`: :class:`~.problem.InfeasibleError` and lap's ``cost_limit`` extension.
"""
