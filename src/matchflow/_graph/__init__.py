"""Graph containers shared by all solvers (a solver imports these, never an I/O module).

* :class:`BipartiteGraph` — rows ``V_R`` and columns ``V_C`` of a sparse matrix, stored
  both as CSR (row -> columns) and CSC (column -> rows), sorted, without duplicates, with
  optional edge weights in CSR order (``csc_weights`` follows the CSR -> CSC permutation).
* :class:`Graph` — an undirected general graph as a symmetric CSR with optional weights.
* :class:`FlowNetwork` — arcs with capacities, a source and a sink, and the residual CSR
  with reverse-arc pointers.

Index arrays are ``int32`` when every index and offset fits, ``int64`` otherwise; weights
and capacities keep the input's dtype (native byte order). :func:`as_bipartite` and
:func:`as_graph` turn user input (scipy.sparse in any format, dense NumPy / CuPy / PyTorch
arrays, networkx graphs) into these containers; they are the validation layer for graphs.
"""

from ._bipartite import BipartiteGraph
from ._common import index_dtype
from ._convert import as_bipartite, as_graph
from ._flow import FlowNetwork
from ._general import Graph

__all__ = ["BipartiteGraph", "FlowNetwork", "Graph", "as_bipartite", "as_graph", "index_dtype"]
