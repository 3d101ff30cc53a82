"""Big-M beside unit (issue 21 review): max-flow with 1e12 arcs beside unit ones on every CPU method against
networkx, sparse assignment with 1e12 entries against SciPy (certificate checked), grid cuts with 1e12 seeds against
brute force. Prints the solves tried and the wrong ones (2026-11-28: 900 tried, 0 wrong).
Run: PYTHONPATH=src python3 scripts/search_big_m.py"""
import warnings

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

import matchflow as mf
from matchflow.verify import verify_flow, verify_sparse_assignment

warnings.simplefilter("error")
rng = np.random.default_rng(3); bad = 0; n_tried = 0
for _ in range(150):
    n = int(rng.integers(3, 9))
    # max-flow: unit arcs with random big-M arcs
    A = (rng.random((n, n)) < 0.5) * rng.integers(1, 4, (n, n)).astype(float)
    A[rng.random((n, n)) < 0.15] = 1e12
    np.fill_diagonal(A, 0); A = sp.csr_array(A)
    G = nx.DiGraph(); G.add_nodes_from(range(n))
    for i, j in zip(*A.nonzero()): G.add_edge(int(i), int(j), capacity=float(A[i, j]))
    truth = nx.maximum_flow_value(G, 0, n - 1)
    for m in ("auto", "push-relabel", "pseudoflow", "boykov-kolmogorov"):
        r = mf.max_flow(A, 0, n - 1, method=m, backend="cpu"); verify_flow(A, 0, n - 1, r); n_tried += 1
        bad += r.flow_value != truth
    # sparse assignment: unit costs plus big-M entries
    C = rng.integers(0, 3, (n, n)).astype(float) + 0.5; C[rng.random((n, n)) < 0.3] = 1e12
    S = sp.csr_array(C)
    r = mf.assignment(S); verify_sparse_assignment(S, r); n_tried += 1
    ri, ci = linear_sum_assignment(C); bad += r.cost != C[ri, ci].sum()
    # grid cut: unit n-links, big-M seeds
    src = rng.random((3, 4)); snk = rng.random((3, 4)); src[rng.random((3, 4)) < 0.2] = 1e12; snk[rng.random((3, 4)) < 0.2] = 1e12
    g = mf.grid_cut(src, snk, 1.0, backend="cpu"); n_tried += 1
    import itertools

    from matchflow.flow import grid_energy
    best = min(grid_energy(np.array(l, dtype=bool).reshape(3, 4), src, snk, 1.0) for l in itertools.product([0, 1], repeat=12))
    bad += not (abs(g.flow_value - best) <= 1e-3 * max(1, best) and grid_energy(g.labels, src, snk, 1.0) <= best * (1 + 1e-15) + 1e-12)
print("tried", n_tried, "bad", bad)
