"""Numba text-parsing kernels for the file readers.

The readers hand the whole decompressed file to these kernels as a ``uint8`` array;
the kernels return status codes (the Python layer raises :class:`FormatError` with the
file name and line). Integers are parsed exactly with overflow checks. Reals with at
most 18 significant digits take Clinger's fast path (mantissa <= 2**53, ``|exponent| <=
22``: one correctly rounded multiplication or division) or else the Eisel-Lemire
algorithm (128-bit product with a truncated power of ten; it gives up on the rare
ambiguous cases). Tokens neither can settle (more digits, subnormal or overflowing
results, ties) are flagged "slow" and converted afterwards by NumPy's C parser
(:func:`gather_tokens_kernel`), so every value is the correctly rounded double, exactly
as ``float(token)``. :func:`format_records_kernel` is the writers' integer formatter.
"""

from __future__ import annotations

import math

import numba
import numpy as np

OK = 0
TOO_FEW = 1  # fewer fields than expected on a line
TOO_MANY_FIELDS = 2
BAD_TOKEN = 3
OUT_OF_RANGE = 4
TOO_MANY_RECORDS = 5
BAD_PREFIX = 6
OVERFLOW = 7
MISSING_LINES = 8  # METIS: fewer vertex lines than n
EXTRA_DATA = 9  # METIS: data after the n vertex lines

_I64_MAX_DIV10 = np.int64(922337203685477580)  # (2**63 - 1) // 10; 2**63 - 1 ends in 7
_POW10 = np.array([10.0**k for k in range(23)], dtype=np.float64)  # exact doubles
_TWO53 = np.int64(2**53)
_FAST_DIGITS = 18  # an int64 mantissa holds any 18 decimal digits


@numba.njit(cache=True, inline="always")
def _is_end_dev(c, comma):
    return c == 32 or c == 9 or c == 13 or c == 10 or (comma and c == 44)


@numba.njit(cache=True, inline="always")
def _is_blank_dev(c, comma):
    return c == 32 or c == 9 or c == 13 or (comma and c == 44)


@numba.njit(cache=True, inline="always")
def _parse_int_dev(buf, pos, comma):
    """Parse ``[+-]digits`` at pos. Returns (value, new_pos, status)."""
    n = buf.size
    neg = False
    if pos < n and (buf[pos] == 45 or buf[pos] == 43):
        neg = buf[pos] == 45
        pos += 1
    start = pos
    v = np.int64(0)
    over = False
    while pos < n:
        d = np.int64(buf[pos]) - 48
        if d < 0 or d > 9:
            break
        if v > _I64_MAX_DIV10 or (v == _I64_MAX_DIV10 and d > 7):
            over = True
        else:
            v = v * 10 + d
        pos += 1
    if pos == start or (pos < n and not _is_end_dev(buf[pos], comma)):
        return np.int64(0), pos, BAD_TOKEN
    if over:
        return np.int64(0), pos, OVERFLOW
    return (-v if neg else v), pos, OK


def _pow10_table(lo: int, hi: int) -> np.ndarray:
    """128-bit mantissas (rounded down, top bit set) of 10**e for lo <= e <= hi, as (hi64, lo64)."""
    out = np.empty((hi - lo + 1, 2), dtype=np.uint64)
    for e in range(lo, hi + 1):
        if e >= 0:
            v = 10**e
            b = v.bit_length()
            mant = v >> (b - 128) if b > 128 else v << (128 - b)
        else:
            d = 10**-e
            mant = (1 << (d.bit_length() + 127)) // d  # in (2**127, 2**128): 10**k is no power of 2
        out[e - lo, 0] = mant >> 64
        out[e - lo, 1] = mant & (2**64 - 1)
    return out


_P10_MIN = -348
_P10_MAX = 347
_P10 = _pow10_table(_P10_MIN, _P10_MAX)
_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@numba.njit(cache=True, inline="always")
def _mul64_dev(a, b):
    """Full 128-bit product of two uint64 as (hi, lo)."""
    a_lo = a & _M32
    a_hi = a >> _S32
    b_lo = b & _M32
    b_hi = b >> _S32
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    mid = (p0 >> _S32) + (p1 & _M32) + (p2 & _M32)
    lo = (p0 & _M32) | (mid << _S32)
    hi = p3 + (p1 >> _S32) + (p2 >> _S32) + (mid >> _S32)
    return hi, lo


@numba.njit(cache=True)
def _eisel_lemire_dev(w, e10):
    """Correctly rounded ``w * 10**e10`` for 0 < w < 2**63 (Eisel & Lemire, "Number parsing
    at a gigabyte per second", 2021). Returns (value, ok); ok is False when the 128-bit
    approximation cannot decide the rounding, or the result is subnormal/overflows."""
    if e10 < _P10_MIN or e10 > _P10_MAX:
        return 0.0, False
    man = np.uint64(w)
    clz = 0
    top = np.uint64(1) << np.uint64(63)
    while man < top:
        man = man << np.uint64(1)
        clz += 1
    exp2 = ((217706 * e10) >> 16) + 64 + 1023 - clz
    t_hi = _P10[e10 - _P10_MIN, 0]
    t_lo = _P10[e10 - _P10_MIN, 1]
    x_hi, x_lo = _mul64_dev(man, t_hi)
    low9 = np.uint64(0x1FF)
    if (x_hi & low9) == low9 and x_lo + man < man:  # wider approximation
        y_hi, y_lo = _mul64_dev(man, t_lo)
        m_hi = x_hi
        m_lo = x_lo + y_hi
        if m_lo < x_lo:
            m_hi += np.uint64(1)
        if (m_hi & low9) == low9 and m_lo + np.uint64(1) == np.uint64(0) and y_lo + man < man:
            return 0.0, False
        x_hi = m_hi
        x_lo = m_lo
    msb = x_hi >> np.uint64(63)
    mant = x_hi >> (msb + np.uint64(9))
    exp2 -= 1 - int(msb)
    if x_lo == np.uint64(0) and (x_hi & low9) == np.uint64(0) and (mant & np.uint64(3)) == np.uint64(1):
        return 0.0, False  # exactly half-way: let the slow path round to even
    mant += mant & np.uint64(1)
    mant = mant >> np.uint64(1)
    if (mant >> np.uint64(53)) > np.uint64(0):
        mant = mant >> np.uint64(1)
        exp2 += 1
    if exp2 <= 0 or exp2 >= 0x7FF:
        return 0.0, False
    return math.ldexp(float(mant), exp2 - 1075), True


@numba.njit(cache=True, inline="always")
def _lower_dev(c):
    return c + 32 if 65 <= c <= 90 else c


@numba.njit(cache=True)
def _match_word_dev(buf, pos, word):
    n = buf.size
    for i in range(len(word)):
        if pos + i >= n or _lower_dev(np.int64(buf[pos + i])) != word[i]:
            return False
    return True


_INF = np.array([105, 110, 102], dtype=np.int64)  # "inf"
_INFINITY = np.array([105, 110, 102, 105, 110, 105, 116, 121], dtype=np.int64)  # "infinity"
_NAN = np.array([110, 97, 110], dtype=np.int64)  # "nan"


@numba.njit(cache=True, inline="always")
def _parse_real_dev(buf, pos, comma):
    """Parse a decimal real at pos. Returns (value, new_pos, status) with status OK,
    BAD_TOKEN, or -1 ("slow": the syntax is valid but the exact value needs NumPy)."""
    n = buf.size
    neg = False
    if pos < n and (buf[pos] == 45 or buf[pos] == 43):
        neg = buf[pos] == 45
        pos += 1
    if pos < n and (_lower_dev(np.int64(buf[pos])) == 105 or _lower_dev(np.int64(buf[pos])) == 110):
        val = np.nan
        if _match_word_dev(buf, pos, _INFINITY):
            pos += 8
            val = np.inf
        elif _match_word_dev(buf, pos, _INF):
            pos += 3
            val = np.inf
        elif _match_word_dev(buf, pos, _NAN):
            pos += 3
        else:
            return 0.0, pos, BAD_TOKEN
        if pos < n and not _is_end_dev(buf[pos], comma):
            return 0.0, pos, BAD_TOKEN
        return (-val if neg else val), pos, OK
    m = np.int64(0)
    nd = 0  # significant digits kept in m
    exact = True
    e10 = 0
    ndig = 0
    while pos < n:
        d = np.int64(buf[pos]) - 48
        if d < 0 or d > 9:
            break
        ndig += 1
        if m == 0 and d == 0:
            pass
        elif nd < _FAST_DIGITS:
            m = m * 10 + d
            nd += 1
        else:
            exact = False
        if not exact:
            e10 += 1
        pos += 1
    if pos < n and buf[pos] == 46:  # '.'
        pos += 1
        while pos < n:
            d = np.int64(buf[pos]) - 48
            if d < 0 or d > 9:
                break
            ndig += 1
            if m == 0 and d == 0:
                e10 -= 1
            elif nd < _FAST_DIGITS:
                m = m * 10 + d
                nd += 1
                e10 -= 1
            else:
                exact = False
            pos += 1
    if ndig == 0:
        return 0.0, pos, BAD_TOKEN
    if pos < n and (buf[pos] == 101 or buf[pos] == 69):  # e / E
        pos += 1
        eneg = False
        if pos < n and (buf[pos] == 45 or buf[pos] == 43):
            eneg = buf[pos] == 45
            pos += 1
        start = pos
        ex = 0
        while pos < n:
            d = np.int64(buf[pos]) - 48
            if d < 0 or d > 9:
                break
            if ex < 100000:
                ex = ex * 10 + d
            pos += 1
        if pos == start:
            return 0.0, pos, BAD_TOKEN
        e10 += -ex if eneg else ex
    if pos < n and not _is_end_dev(buf[pos], comma):
        return 0.0, pos, BAD_TOKEN
    if m == 0:
        return (-0.0 if neg else 0.0), pos, OK
    if not exact:
        return 0.0, pos, -1
    if m <= _TWO53 and -22 <= e10 <= 22:  # Clinger's fast path
        val = float(m)
        if e10 >= 0:
            val = val * _POW10[e10]
        else:
            val = val / _POW10[-e10]
        return (-val if neg else val), pos, OK
    val, ok = _eisel_lemire_dev(m, e10)
    if ok:
        return (-val if neg else val), pos, OK
    return 0.0, pos, -1


@numba.njit(cache=True)
def parse_records_kernel(buf, pos, end, line, kinds, lo, hi, shift, idx, ints, reals, slow_at, slow_pos,
                         prefix, c1, c2, comma):
    """Parse one record per non-blank, non-comment line of ``buf[pos:end]`` (``end`` is
    a line start or the end of the data): ``[prefix] f_1 ... f_k``.

    Returns (status, count, line, pos, col, nslow, value): on error ``line``/``pos``/``col``
    locate it and ``value`` holds an out-of-range integer; on success ``line`` is the
    last line number and ``nslow`` the number of real tokens left for NumPy
    (``slow_at[i] = real_column * cap + record``, ``slow_pos[i]`` = its byte offset).
    """
    n = end
    ncols = kinds.size
    cap = max(idx.shape[1], ints.shape[1], reals.shape[1])
    count = 0
    nslow = 0
    while pos < n:
        while pos < n and _is_blank_dev(buf[pos], False):
            pos += 1
        if pos >= n:
            break
        c = np.int64(buf[pos])
        if c == 10:
            line += 1
            pos += 1
            continue
        if c == c1 or c == c2:
            while pos < n and buf[pos] != 10:
                pos += 1
            continue
        if count >= cap:
            return TOO_MANY_RECORDS, count, line, pos, 0, nslow, 0
        if prefix >= 0:
            if c != prefix or (pos + 1 < n and not _is_end_dev(buf[pos + 1], comma)):
                return BAD_PREFIX, count, line, pos, 0, nslow, 0
            pos += 1
        ki = 0
        kn = 0
        kr = 0
        for col in range(ncols):
            while pos < n and _is_blank_dev(buf[pos], comma):
                pos += 1
            if pos >= n or buf[pos] == 10:
                return TOO_FEW, count, line, pos, col, nslow, 0
            kind = kinds[col]
            if kind == 2:
                val, pos2, st = _parse_real_dev(buf, pos, comma)
                if st == BAD_TOKEN:
                    return BAD_TOKEN, count, line, pos, col, nslow, 0
                if st < 0:
                    slow_at[nslow] = kr * cap + count
                    slow_pos[nslow] = pos
                    nslow += 1
                reals[kr, count] = val
                kr += 1
            else:
                # _parse_int_dev written out: a tuple-returning helper costs 2x here.
                start = pos
                neg = False
                if buf[pos] == 45 or buf[pos] == 43:
                    neg = buf[pos] == 45
                    pos += 1
                digits = pos
                v = np.int64(0)
                over = False
                while pos < n:
                    d = np.int64(buf[pos]) - 48
                    if d < 0 or d > 9:
                        break
                    if v > _I64_MAX_DIV10 or (v == _I64_MAX_DIV10 and d > 7):
                        over = True
                    else:
                        v = v * 10 + d
                    pos += 1
                if pos == digits or (pos < n and not _is_end_dev(buf[pos], comma)):
                    return BAD_TOKEN, count, line, start, col, nslow, 0
                if over:
                    return OVERFLOW, count, line, start, col, nslow, 0
                if neg:
                    v = -v
                pos2 = pos
                if v < lo[col] or v > hi[col]:
                    return OUT_OF_RANGE, count, line, start, col, nslow, v
                if kind == 0:
                    idx[ki, count] = v - shift[col]
                    ki += 1
                else:
                    ints[kn, count] = v
                    kn += 1
            pos = pos2
        while pos < n and _is_blank_dev(buf[pos], comma):
            pos += 1
        if pos < n and buf[pos] != 10:
            return TOO_MANY_FIELDS, count, line, pos, ncols, nslow, 0
        count += 1
    return OK, count, line, pos, 0, nslow, 0


@numba.njit(cache=True)
def gather_tokens_kernel(buf, positions, comma):
    """Copy the tokens starting at ``positions`` into a zero-padded (k, width) byte matrix."""
    n = buf.size
    k = positions.size
    width = 1
    for i in range(k):
        p = positions[i]
        e = p
        while e < n and not _is_end_dev(buf[e], comma):
            e += 1
        width = max(width, e - p)
    out = np.zeros((k, width), dtype=np.uint8)
    for i in range(k):
        p = positions[i]
        j = 0
        while p + j < n and not _is_end_dev(buf[p + j], comma):
            out[i, j] = buf[p + j]
            j += 1
    return out


@numba.njit(cache=True)
def metis_kernel(buf, pos, line, nv, has_size, ncon, has_ew, xadj, adj, ew, vsize, vwgt, vline):
    """Parse the ``nv`` vertex lines of a METIS graph (Karypis & Kumar's format).

    Line ``i`` holds ``[size] [w_1 .. w_ncon] (v [ew])*`` with 1-based neighbours ``v``;
    ``%`` lines are comments; an empty line is a vertex without neighbours. Fills the
    CSR ``xadj``/``adj`` (0-based). Returns (status, k, line, pos, col, value).
    """
    n = buf.size
    cap = adj.size
    k = 0
    xadj[0] = 0
    v = 0
    while v < nv:
        if pos >= n:
            return MISSING_LINES, k, line, pos, v, 0
        p = pos
        while p < n and _is_blank_dev(buf[p], False):
            p += 1
        if p < n and buf[p] == 37:  # '%'
            while p < n and buf[p] != 10:
                p += 1
            pos = p + 1
            line += 1
            continue
        pos = p
        vline[v] = line
        for j in range(has_size + ncon):
            while pos < n and _is_blank_dev(buf[pos], False):
                pos += 1
            if pos >= n or buf[pos] == 10:
                return TOO_FEW, k, line, pos, j, 0
            x, pos2, st = _parse_int_dev(buf, pos, False)
            if st != OK:
                return st, k, line, pos, j, 0
            if x < 0:
                return OUT_OF_RANGE, k, line, pos, j, x
            if j < has_size:
                vsize[v] = x
            else:
                vwgt[v, j - has_size] = x
            pos = pos2
        while True:
            while pos < n and _is_blank_dev(buf[pos], False):
                pos += 1
            if pos >= n or buf[pos] == 10:
                break
            u, pos2, st = _parse_int_dev(buf, pos, False)
            if st != OK:
                return st, k, line, pos, -1, 0
            if u < 1 or u > nv:
                return OUT_OF_RANGE, k, line, pos, -1, u
            if k >= cap:
                return TOO_MANY_RECORDS, k, line, pos, -1, 0
            adj[k] = u - 1
            pos = pos2
            if has_ew:
                while pos < n and _is_blank_dev(buf[pos], False):
                    pos += 1
                if pos >= n or buf[pos] == 10:
                    return TOO_FEW, k, line, pos, -2, 0
                w, pos2, st = _parse_int_dev(buf, pos, False)
                if st != OK:
                    return st, k, line, pos, -2, 0
                if w <= 0:
                    return OUT_OF_RANGE, k, line, pos, -2, w
                ew[k] = w
                pos = pos2
            k += 1
        xadj[v + 1] = k
        pos += 1  # the newline
        line += 1
        v += 1
    while pos < n:  # only blank and comment lines may follow
        while pos < n and _is_blank_dev(buf[pos], False):
            pos += 1
        if pos >= n:
            break
        if buf[pos] == 10:
            pos += 1
            line += 1
            continue
        if buf[pos] == 37:
            while pos < n and buf[pos] != 10:
                pos += 1
            continue
        return EXTRA_DATA, k, line, pos, 0, 0
    return OK, k, line, pos, 0, 0


@numba.njit(cache=True, inline="always")
def _int_width_dev(v):
    w = 1 if v >= 0 else 2
    if v < 0:
        v = -v
    while v >= 10:
        v //= 10
        w += 1
    return w


@numba.njit(cache=True)
def format_records_kernel(ints, extra, has_extra, delim, prefix):
    """Text of ``n`` records ``[prefix] i_1 delim ... i_k [delim extra_j]\\n`` as bytes.

    ``ints`` is (k, n) int64 (the most negative int64 is not supported); ``extra`` holds one
    pre-formatted token per record, each ended by ``\\n`` (Python's repr of the reals)."""
    k, n = ints.shape
    npre = prefix.size
    size = 0
    for j in range(n):
        size += npre + 1
        for i in range(k):
            size += _int_width_dev(ints[i, j]) + (1 if i > 0 else 0)
    if has_extra:
        size += extra.size - n + (n if k > 0 else 0)  # tokens without their '\n', plus delimiters
    out = np.empty(size, dtype=np.uint8)
    p = 0
    e = 0
    for j in range(n):
        for q in range(npre):
            out[p] = prefix[q]
            p += 1
        for i in range(k):
            if i > 0:
                out[p] = delim
                p += 1
            v = ints[i, j]
            w = _int_width_dev(v)
            if v < 0:
                out[p] = 45
                v = -v
            q = p + w - 1
            while True:
                out[q] = 48 + v % 10
                v //= 10
                q -= 1
                if v == 0:
                    break
            p += w
        if has_extra:
            if k > 0:
                out[p] = delim
                p += 1
            while extra[e] != 10:
                out[p] = extra[e]
                p += 1
                e += 1
            e += 1
        out[p] = 10
        p += 1
    return out
