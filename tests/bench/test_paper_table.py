"""Internal consistency of benchmarks/paper_deveci2013.py (Deveci et al. 2013, Table I as data).

The transcription is checked against the paper's own statements (its GEOMEAN row and the numbers
the text of Section IV quotes), and the mapping to our inputs against benchmarks.datasets. No
result of our code is involved.
"""

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for `benchmarks`

from benchmarks import datasets  # noqa: E402
from benchmarks import paper_deveci2013 as p  # noqa: E402

N = len(p.TABLE_I)
COUNTS = ("#Row", "#Cols", "#Edges", "IM", "MM")


def geomean(xs):
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def times(col):
    return [r[col] for r in p.TABLE_I]


def test_rows_complete_positive_and_ordered():
    assert N == 28  # "28 matrices from variety of classes at UFL matrix collection"
    assert [r["ID"] for r in p.TABLE_I] == list(range(1, N + 1))
    assert len({r["Graph"] for r in p.TABLE_I}) == N
    for r in p.TABLE_I:
        assert tuple(r) == p.COLUMNS
        for c in COUNTS:
            assert isinstance(r[c], int) and r[c] > 0, (r["Graph"], c)
        for c in p.TIME_COLUMNS:
            assert isinstance(r[c], float) and math.isfinite(r[c]) and r[c] > 0, (r["Graph"], c)
        # a matching: initial <= maximum <= both sides, and every matched pair is a distinct edge
        assert r["IM"] <= r["MM"] <= min(r["#Row"], r["#Cols"]), r["Graph"]
        assert r["MM"] <= r["#Edges"], r["Graph"]
    rows = [r["#Row"] for r in p.TABLE_I]  # "the graphs are ordered with the increasing number of rows"
    assert rows == sorted(rows)


def test_geomean_row_matches_the_columns():
    for c in p.TIME_COLUMNS:  # the GEOMEAN row is rounded to 2 decimals like the entries
        assert abs(geomean(times(c)) - p.TABLE_I_GEOMEAN[c]) <= 0.006, c


def test_text_claims_follow_from_the_table():
    claims = {k: v["value"] for k, v in p.PAPER_CLAIMS.items()}
    sp = {r["Graph"]: p.speedup_over_pr(r["Graph"]) for r in p.TABLE_I}
    assert sum(s > 1 for s in sp.values()) == claims["graphs_faster_than_pr"]
    assert round(claims["graphs_faster_than_pr"] / N, 2) == claims["fraction_faster_than_pr"]
    best = max(sp, key=sp.get)
    worst = min(sp, key=sp.get)
    assert best == p.PAPER_CLAIMS["speedup_over_pr_max"]["graph"]
    assert worst == p.PAPER_CLAIMS["speedup_over_pr_min"]["graph"]
    assert abs(sp[best] - claims["speedup_over_pr_max"]) < 0.05  # from rounded times: 23.01 / 1.83
    assert abs(sp[worst] - claims["speedup_over_pr_min"]) < 0.005
    assert abs(geomean(sp.values()) - claims["speedup_over_pr_average"]) < 0.01
    t = {c: times(c) for c in p.TIME_COLUMNS}
    fastest = sum(g < min(h, d, s) for g, h, d, s in zip(t["G-PR"], t["G-HKDW"], t["P-DBFS"], t["PR"]))
    assert fastest == claims["graphs_gpr_fastest_of_all"]
    par = ("G-PR", "G-HKDW", "P-DBFS")
    best_par = [min(x) for x in zip(*(t[c] for c in par))]
    assert round(sum(g == b for g, b in zip(t["G-PR"], best_par)) / N, 2) == claims["fraction_gpr_best_parallel"]
    for c in par:
        frac = sum(x <= 1.5 * b for x, b in zip(t[c], best_par)) / N
        assert round(frac, 2) == claims["fraction_within_1.5x_of_best_parallel"][c], c
        # Fig. 2 was drawn from unrounded times: within one graph of the rounded table
        n5 = sum(pr / x >= 5 for pr, x in zip(t["PR"], t[c]))
        assert abs(n5 - round(claims["fraction_speedup_at_least_5"][c] * N)) <= 1, c
    for c, ratio in claims["geomean_ratio_to_gpr"].items():
        assert abs(geomean(t[c]) / geomean(t["G-PR"]) - ratio) < 0.01, c


def test_family_of_covers_the_table_and_names_real_inputs():
    assert list(p.FAMILY_OF) == [r["Graph"] for r in p.TABLE_I]
    mapped = {k: v for k, v in p.FAMILY_OF.items() if v != p.NO_COUNTERPART}
    assert mapped, "no paper graph is mapped"
    for paper, ours in mapped.items():
        assert datasets.by_name(ours).name == ours  # a name benchmarks.datasets resolves (nothing is built)
        assert paper in p.MATCH_NOTES
        assert p.MATCH_NOTES[paper].split(":")[0] in ("same family", "approximate")
        ratio = p.our_vertex_count(ours) / p.row(paper)["#Row"]
        assert 1 / p.SIZE_TOLERANCE <= ratio <= p.SIZE_TOLERANCE, (paper, ours, ratio)
    for ours in p.OURS_WITHOUT_COUNTERPART:
        assert ours not in mapped.values()


def test_holes_vertex_estimate_matches_the_generator():
    a = datasets.by_name("holes_256").build()  # the generator itself, uncached
    assert a.shape[0] == a.shape[1]
    assert abs(a.shape[0] / p.our_vertex_count("holes_256") - 1) < 0.03


def test_paper_rows_select_by_our_names():
    everything = p.paper_rows()
    assert [r[1] for r in everything] == [r["Graph"] for r in p.TABLE_I if p.FAMILY_OF[r["Graph"]] != p.NO_COUNTERPART]
    for r in everything:
        assert len(r) == len(p.PAPER_ROWS_HEADER)
        t = p.row(r[1])
        assert r[2:11] == [t[c] for c in COUNTS + p.TIME_COLUMNS]
        assert r[11] == pytest.approx(t["PR"] / t["G-PR"], abs=0.005)
        assert r[12] == pytest.approx(p.our_vertex_count(r[0]) / t["#Row"], abs=0.005)
    some = [everything[0][0], everything[-1][0], "rgg_n20", "not-an-input"]
    picked = p.paper_rows(iter(some))  # any iterable
    assert picked == [r for r in everything if r[0] in some[:2]]
    assert len(picked) >= 2
    assert p.paper_rows([]) == []
    md = p.paper_table_md(some)
    assert md.count("\n") == len(picked) + 1 and all(r[1] in md for r in picked)
    full = p.table_i_md()
    assert full.count("\n") == N + 2 and "GEOMEAN" in full


def test_errors_name_the_argument():
    with pytest.raises(TypeError, match="names must be an iterable of input names, not a str; got 'delaunay_n20'"):
        p.paper_rows("delaunay_n20")
    with pytest.raises(KeyError, match="graph must be one of Table I's graphs, got 'delaunay_n22'"):
        p.row("delaunay_n22")
    with pytest.raises(ValueError, match="algorithm must be one of .*got 'ECL-MM'"):
        p.speedup_over_pr("delaunay_n20", "ECL-MM")
    with pytest.raises(ValueError, match="name must be a generated .*got 'moscow-roads'"):
        p.our_vertex_count("moscow-roads")
