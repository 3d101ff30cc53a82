"""The house (issue 22), measured from the imports by ``scripts/house.py``: no import circles, no arrow from a
lower layer up (common ground -> family -> surface), no family importing another family's private modules."""

from __future__ import annotations

from pathlib import Path

from conftest import load_script

ROOT = Path(__file__).resolve().parents[1]


def _house():
    return load_script("house")


def test_the_house_has_no_circles_no_arrows_up_no_sideways():
    h = _house().measure(ROOT)
    assert h["modules"] > 100 and h["arrows"] > 400  # the walk saw the package
    assert h["circles"] == []
    assert h["up"] == []
    assert h["sideways"] == []


def test_the_house_knows_every_family_and_the_surface():
    house = _house()
    families = {p.parent.name for p in (ROOT / "src" / "matchflow").glob("*/_methods.py")}
    assert families == set(house.FAMILIES)
    assert house.layer("matchflow.dask") == 2 and house.layer("matchflow.batch._cpu_jv") == 1
    assert house.layer("matchflow._lsap.jv") == 0


def test_the_measure_sees_a_sideways_arrow_and_an_arrow_up():
    """The counters are not vacuous: a family importing another's private module, and common ground importing a
    family, are found."""
    house = _house()
    mods = {"matchflow.batch._x": None, "matchflow.assignment._y": None, "matchflow._lsap.z": None}
    edges = {("matchflow.batch._x", "matchflow.assignment._y"), ("matchflow._lsap.z", "matchflow.batch._x")}
    assert house.sideways(edges) == [("matchflow.batch._x", "matchflow.assignment._y")]
    assert house.arrows_up(edges) == [("matchflow._lsap.z", "matchflow.batch._x")]
    assert house.circles(mods, edges | {("matchflow.assignment._y", "matchflow.batch._x")}) == [
        ["matchflow.assignment._y", "matchflow.batch._x"]]


# The template's kinds of file (docs/DEVELOPING.md): a family with two problem forms (dense and sparse assignment,
# networks and grids) names the second form's door, preparation and certificate `_api_<form>`, `_prepare_<form>`,
# `_verify_<form>`.
KINDS = ("__init__.py", "_api", "_methods", "_prepare", "_result", "_verify", "_cpu_", "_gpu_")


def test_each_family_folder_holds_only_the_templates_kinds_of_file():
    house = _house()
    odd = []
    for family in house.FAMILIES:
        for f in sorted((ROOT / "src" / "matchflow" / family).glob("*.py")):
            if not f.name.startswith(KINDS):
                odd.append(f"{family}/{f.name}")
    assert odd == []
