"""Every public entry point has a SciPy-style ``Examples`` section (solvers: ``References`` too), and its examples
run: each docstring is a doctest. Lines that need a GPU carry ``# doctest: +SKIP``; the ``gpu``-marked run executes
them too where a real GPU is present."""

import doctest
import inspect
import re

import pytest

import matchflow
import matchflow.dask
import matchflow.mcf

MODULES = (matchflow, matchflow.verify, matchflow.io, matchflow.gpu, matchflow.generators, matchflow.flow,
           matchflow.wmatching, matchflow.dask, matchflow.mcf)
# the entry points that solve a problem with a published algorithm: they cite it
SOLVERS = {
    "bipartite_matching", "maximum_bipartite_matching", "assignment", "linear_sum_assignment",
    "min_weight_full_bipartite_matching", "max_flow", "maximum_flow", "grid_cut", "weighted_matching",
    "max_weight_matching_approx", "konig_cover", "push_relabel_matching", "initial_matching", "hungarian",
    "suitor_matching", "locally_dominant_matching", "cost_scaling_assignment", "potts_weights",
    "batch_linear_sum_assignment", "min_cost_flow", "max_flow_min_cost", "transport",
}
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _entry_points() -> dict[str, object]:
    found: dict[str, object] = {}
    for mod in MODULES:
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj) and obj not in found.values():
                found[f"{mod.__name__}.{name}"] = obj
    return found


ENTRY_POINTS = _entry_points()


def _sections(func) -> set[str]:
    doc = inspect.cleandoc(func.__doc__ or "")
    return set(re.findall(r"^(\w[\w ]*)\n-{3,}$", doc, flags=re.M))


def test_the_walk_finds_every_family():
    names = {q.rsplit(".", 1)[1] for q in ENTRY_POINTS}
    assert SOLVERS <= names
    assert {"verify_matching", "verify_assignment", "verify_flow", "read", "write", "delaunay", "info"} <= names


@pytest.mark.parametrize("qualname", ENTRY_POINTS)
def test_sections(qualname):
    name = qualname.rsplit(".", 1)[1]
    sections = _sections(ENTRY_POINTS[qualname])
    assert "Examples" in sections, f"{qualname} has no Examples section"
    if name in SOLVERS:
        assert "References" in sections, f"{qualname} solves a problem but cites no paper (References)"
        refs = inspect.cleandoc(ENTRY_POINTS[qualname].__doc__).split("References\n----------", 1)[1]
        assert re.search(r"^\.\. \[1\] ", refs, flags=re.M), f"{qualname}: References is not a numbered list"


def _run(qualname: str, *, unskip: bool) -> None:
    func = ENTRY_POINTS[qualname]
    tests = doctest.DocTestFinder(recurse=False).find(func, qualname, globs={})
    assert tests and tests[0].examples, f"{qualname} has no doctest examples"
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in tests:
        if unskip:
            for ex in test.examples:
                ex.options.pop(doctest.SKIP, None)
        runner.run(test, out=lambda s: None)
    failures = runner.summarize(verbose=False).failed
    if failures:  # run again to show what differed
        report: list[str] = []
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        for test in tests:
            runner.run(test, out=report.append)
        pytest.fail(f"{qualname}: {failures} doctest failure(s)\n" + "".join(report))


@pytest.mark.parametrize("qualname", ENTRY_POINTS)
def test_examples_run(qualname):
    _run(qualname, unskip=False)


GPU_EXAMPLES = [q for q, f in ENTRY_POINTS.items() if "+SKIP" in (f.__doc__ or "")]


@pytest.mark.gpu
@pytest.mark.parametrize("qualname", GPU_EXAMPLES)
def test_gpu_examples_run(qualname):
    """The lines skipped without a GPU (``# doctest: +SKIP``) run and print what they say on one."""
    from matchflow._cuda import is_simulator

    if is_simulator():
        pytest.skip("the CUDA simulator is not a GPU")
    _run(qualname, unskip=True)
