"""numba.cuda kernels of G-PR (Deveci, Kaya, Uçar, Çatalyürek, ICPP 2013) and GPU initial matchings.

Conventions (the paper's, with rows and columns in separate arrays):

* ``mu_r[u]``: the column matched to row ``u`` or -1 (row mates are always consistent);
* ``mu_c[v]``: the row of column ``v``; -1 unmatched, -2 unmatchable ("inactive" in the
  paper); a stale entry (``mu_r[mu_c[v]] != v``) means ``v`` lost its row in a concurrent
  push and is active again; FixMatching clears stale entries at the end;
* ``psi_r``, ``psi_c``: the distance labels psi (lower bounds on the alternating distance
  to an unmatched row); ``inf = m + n`` marks "cannot reach an unmatched row".

Kernels are launched by ``_gpu_gpr.py``; flags are written as loop stamps (``flag[0] = loop``)
so the host never has to reset them, and several loops can run between host reads.
Pushes are atomic- and lock-free as in Section III.B; only the compaction (SHRKRNL) and the
initial matchings use atomics.
"""

from __future__ import annotations

from numba import cuda, int32, int64

# --------------------------------------------------------------------------- helpers


@cuda.jit(device=True, inline=True)
def is_active_col_dev(v, mu_r, mu_c):
    """True when column ``v`` is unmatched (-1) or holds a stale mate (lost a push)."""
    w = mu_c[v]
    if w == -1:
        return True
    if w >= 0 and mu_r[w] != v:
        return True
    return False


@cuda.jit(device=True, inline=True)
def min_label_row_dev(v, col_ptr, row_ind, psi_r, psi_c, inf):
    """Lines 4-11 of G-PR-PUSHKRNL: the row of minimum psi around column ``v``.

    Stops early at psi(v) - 1, the smallest value the neighbourhood invariant allows.
    Returns (row, psi_min); row is -1 when every neighbour has psi >= inf.
    """
    target = psi_c[v] - 1
    pmin = inf
    best = -1
    for e in range(col_ptr[v], col_ptr[v + 1]):
        u = row_ind[e]
        p = psi_r[u]
        if p < pmin:
            pmin = p
            best = u
            if p <= target:
                break
    return best, pmin


# --------------------------------------------------------------------------- G-GR


@cuda.jit
def gr_init_kernel(mu_r, psi_r, psi_c, inf):
    """INITRELABEL: psi = 0 at unmatched rows, inf everywhere else."""
    i = cuda.grid(1)
    if i < psi_r.size:
        psi_r[i] = 0 if mu_r[i] == -1 else inf
    if i < psi_c.size:
        psi_c[i] = inf


@cuda.jit
def gr_level_kernel(row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf, maxlev):
    """G-GR-KRNL (Algorithm 5): expand BFS level ``level`` (rows) by one row level.

    Every thread writing a label writes the same value, so no atomics are needed.
    ``maxlev[0]`` receives level + 2 when a row was added.
    """
    u = cuda.grid(1)
    if u >= psi_r.size:
        return
    if psi_r[u] != level:
        return
    for e in range(row_ptr[u], row_ptr[u + 1]):
        v = col_ind[e]
        if psi_c[v] == inf:
            psi_c[v] = level + 1
            w = mu_c[v]
            if w >= 0 and mu_r[w] == v:
                psi_r[w] = level + 2
                maxlev[0] = level + 2


@cuda.jit
def gr_frontier_kernel(row_ptr, col_ind, mu_r, mu_c, psi_r, psi_c, level, inf, fin, nin, fout, nout):
    """Frontier variant of G-GR-KRNL (beyond the paper): only rows of the current level.

    ``fin[0:nin[0]]`` lists the rows at ``level``; rows reached at level + 2 are appended
    to ``fout`` with one atomic per added row (each row is added once: its only way in is
    through its mate column, which is claimed by a compare-and-swap).
    """
    i = cuda.grid(1)
    if i >= nin[0]:
        return
    u = fin[i]
    for e in range(row_ptr[u], row_ptr[u + 1]):
        v = col_ind[e]
        if psi_c[v] == inf:
            old = cuda.atomic.cas(psi_c, v, inf, level + 1)
            if old == inf:
                w = mu_c[v]
                if w >= 0 and mu_r[w] == v:
                    psi_r[w] = level + 2
                    k = cuda.atomic.add(nout, 0, 1)
                    fout[k] = w


@cuda.jit
def gr_frontier_seed_kernel(mu_r, fout, nout):
    """Lists the unmatched rows (BFS level 0) for the frontier G-GR."""
    u = cuda.grid(1)
    if u < mu_r.size and mu_r[u] == -1:
        k = cuda.atomic.add(nout, 0, 1)
        fout[k] = u


# --------------------------------------------------------------------------- G-PR


@cuda.jit
def pr_first_kernel(col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, inf, loop, flag):
    """G-PR-KRNL (Algorithm 6): one thread per column; active columns push."""
    v = cuda.grid(1)
    if v >= mu_c.size:
        return
    if not is_active_col_dev(v, mu_r, mu_c):
        return
    flag[0] = loop
    u, pmin = min_label_row_dev(v, col_ptr, row_ind, psi_r, psi_c, inf)
    if pmin < inf:
        mu_r[u] = v
        mu_c[v] = u
        psi_c[v] = pmin + 1
        psi_r[u] = pmin + 2
    else:
        mu_c[v] = -2


@cuda.jit
def pr_init_kernel(ac, ap, size, mu_r, mu_c, ia, loop, flag):
    """G-PR-INITKRNL (Algorithm 8): roll back conflicting pushes, stamp active columns."""
    i = cuda.grid(1)
    if i >= size:
        return
    v = ap[i]
    if v != -1:
        if is_active_col_dev(v, mu_r, mu_c):
            ac[i] = v  # v lost its row (or did not push): it stays active in slot i
    v = ac[i]
    if v != -1:
        ia[v] = loop
        flag[0] = loop


@cuda.jit
def pr_push_kernel(col_ptr, row_ind, mu_r, mu_c, psi_r, psi_c, ac, ap, size, ia, loop, inf):
    """G-PR-PUSHKRNL (Algorithm 9): push from ``ac[i]``, record the displaced column in ``ap[i]``.

    A row whose mate is active in this loop (``ia[mu(u)] == loop``) is not taken, so no
    column is listed twice after a roll-back.
    """
    i = cuda.grid(1)
    if i >= size:
        return
    v = ac[i]
    if v == -1:
        ap[i] = -1
        return
    u, pmin = min_label_row_dev(v, col_ptr, row_ind, psi_r, psi_c, inf)
    if pmin < inf:
        w = mu_r[u]
        if w == -1 or ia[w] != loop:
            mu_r[u] = v
            mu_c[v] = u
            psi_c[v] = pmin + 1
            psi_r[u] = pmin + 2
            ap[i] = w
        else:
            ap[i] = -1  # not pushed: INITKRNL rolls slot i back to v
    else:
        mu_c[v] = -2
        ac[i] = -1
        ap[i] = -1


@cuda.jit
def pr_shrink_kernel(ac, ap, size, out, count, mu_r, mu_c, ia, loop, flag):
    """G-PR-SHRKRNL: INITKRNL's roll-back, then compact the active columns into ``out``.

    A block-wide prefix sum (Hillis-Steele in shared memory) gives each thread its write
    offset; one atomic per block reserves the block's region of ``out``.
    """
    buf = cuda.shared.array(1024, int32)
    base = cuda.shared.array(1, int32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    nt = cuda.blockDim.x
    x = -1
    if i < size:
        v = ap[i]
        x = ac[i]
        if v != -1:
            if is_active_col_dev(v, mu_r, mu_c):
                x = v
        if x != -1:
            # a column that became unmatchable cannot be here (its slot holds -1)
            ia[x] = loop
    keep = 1 if x != -1 else 0
    buf[t] = keep
    cuda.syncthreads()
    off = 1
    while off < nt:
        add = 0
        if t >= off:
            add = buf[t - off]
        cuda.syncthreads()
        buf[t] += add
        cuda.syncthreads()
        off *= 2
    if t == nt - 1:
        tot = buf[t]
        if tot > 0:
            base[0] = cuda.atomic.add(count, 0, tot)
            flag[0] = loop
    cuda.syncthreads()
    if keep == 1:
        out[base[0] + buf[t] - 1] = x


@cuda.jit
def fill_kernel(a, value):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = value


@cuda.jit
def fix_matching_kernel(mu_r, mu_c):
    """FixMatching: clear stale column mates and the unmatchable mark (-2 -> -1)."""
    v = cuda.grid(1)
    if v < mu_c.size:
        w = mu_c[v]
        if w < 0 or mu_r[w] != v:
            mu_c[v] = -1


@cuda.jit
def list_unmatched_cols_kernel(mu_r, mu_c, out, count):
    """The initial active list A_c: every column without a consistent mate."""
    v = cuda.grid(1)
    if v < mu_c.size:
        w = mu_c[v]
        if w < 0 or mu_r[w] != v:
            mu_c[v] = -1
            k = cuda.atomic.add(count, 0, 1)
            out[k] = v


@cuda.jit
def certify_kernel(mu_r, mu_c, psi_c, inf, count):
    """Counts unmatched columns reached by the final BFS (an augmenting path exists)."""
    v = cuda.grid(1)
    if v < mu_c.size:
        w = mu_c[v]
        if (w < 0 or mu_r[w] != v) and psi_c[v] < inf:
            mu_c[v] = -1
            cuda.atomic.add(count, 0, 1)


@cuda.jit
def count_matched_rows_kernel(mu_r, count):
    u = cuda.grid(1)
    if u < mu_r.size and mu_r[u] >= 0:
        cuda.atomic.add(count, 0, 1)


@cuda.jit
def set_matching_kernel(row_match, mu_r, mu_c):
    """Load a given initial matching (row -> column) into mu_r / mu_c."""
    u = cuda.grid(1)
    if u < mu_r.size:
        v = row_match[u]
        mu_r[u] = v
        if v >= 0:
            mu_c[v] = u


# --------------------------------------------------------------------------- initial matchings


@cuda.jit
def greedy_propose_kernel(col_ptr, row_ind, mu_r, prop, rnd, flag):
    """Cheap matching, one round: every open column claims its first free row (last writer wins).

    ``prop[v]``: -1 open, -2 dead (no free neighbour left; rows never become free again),
    >= 0 the row claimed this round.
    """
    v = cuda.grid(1)
    if v >= prop.size or prop[v] != -1:
        return
    for e in range(col_ptr[v], col_ptr[v + 1]):
        u = row_ind[e]
        if mu_r[u] == -1:
            mu_r[u] = v
            prop[v] = u
            flag[0] = rnd
            return
    prop[v] = -2


@cuda.jit
def greedy_confirm_kernel(mu_r, mu_c, prop):
    """Cheap matching: a column whose claim survived is matched; the others reopen."""
    v = cuda.grid(1)
    if v >= prop.size:
        return
    u = prop[v]
    if u >= 0:
        if mu_r[u] == v:
            mu_c[v] = u
            prop[v] = -3  # matched
        else:
            prop[v] = -1


@cuda.jit
def ks_row_degree_kernel(row_ptr, col_ind, mu_r, mu_c, deg_r, best):
    """Karp-Sipser-style start: live degree of every free row (free neighbour columns)."""
    u = cuda.grid(1)
    if u >= mu_r.size:
        return
    best[u] = 0x7FFFFFFFFFFFFFFF
    if mu_r[u] != -1:
        deg_r[u] = 0
        return
    d = 0
    for e in range(row_ptr[u], row_ptr[u + 1]):
        if mu_c[col_ind[e]] == -1:
            d += 1
    deg_r[u] = d


@cuda.jit
def ks_propose_kernel(col_ptr, row_ind, mu_r, mu_c, deg_r, best, rnd, flag):
    """Each free column proposes to its free neighbour row of least live degree.

    The proposal's key is (live degree of the column, column id): a row keeps the least
    key (atomic min), so degree-1 vertices on either side go first, as in Karp-Sipser.
    A column with no free neighbour is marked dead (-3) for the rest of the start.
    """
    v = cuda.grid(1)
    if v >= mu_c.size or mu_c[v] != -1:
        return
    d = int64(0)
    bu = -1
    bd = 0x7FFFFFFF
    for e in range(col_ptr[v], col_ptr[v + 1]):
        u = row_ind[e]
        if mu_r[u] == -1:
            d += 1
            du = deg_r[u]
            if du < bd:
                bd = du
                bu = u
    if bu == -1:
        mu_c[v] = -3
        return
    flag[0] = rnd
    cuda.atomic.min(best, bu, (d << 32) | int64(v))


@cuda.jit
def ks_accept_kernel(mu_r, mu_c, best):
    """Rows take their best proposer (the handshake of the parallel Karp-Sipser start)."""
    u = cuda.grid(1)
    if u >= mu_r.size:
        return
    b = best[u]
    if b != 0x7FFFFFFFFFFFFFFF and mu_r[u] == -1:
        v = b & 0xFFFFFFFF
        mu_r[u] = v
        mu_c[v] = u


@cuda.jit
def clear_dead_kernel(mu_c):
    v = cuda.grid(1)
    if v < mu_c.size and mu_c[v] < -1:
        mu_c[v] = -1
