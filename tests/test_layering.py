"""The floors of docs/design.md, checked by reading every module's imports (also those inside
functions and the type-only ones): each floor imports only the floors below it, and packages
that share a floor do not import each other (tools/import_graph.py's FLOORS)."""

from __future__ import annotations

import pytest

from tracejit.tools import import_graph
from tracejit.tools.import_graph import FLOORS, build, floor_of, strongly_connected

GRAPH = build()


def test_no_import_goes_against_the_floors():
    upward = [
        f"{imp.source}:{imp.line} imports {imp.target}"
        f" ({floor_of(imp.source)[1] or 'top'} -> {floor_of(imp.target)[1]})"
        for imp in GRAPH.upward()
    ]
    assert not upward, "imports against the floors of docs/design.md:\n" + "\n".join(upward)


def test_every_module_has_a_floor():
    """A new top-level package must be given its floor in FLOORS (else it is 'top')."""
    top = {m.split(".")[0] for m in GRAPH.modules if "." in m}
    named = {package.split(".")[0] for floor in FLOORS for package in floor if package}
    assert top <= named, f"packages without a floor: {sorted(top - named)}"


def test_no_import_cycle_spans_two_floors():
    for component in strongly_connected(GRAPH.edges()):
        floors = {floor_of(module)[1] for module in component}
        assert len(floors) == 1, f"an import cycle across floors: {component}"


@pytest.mark.parametrize("floor", ["ir", "runtime", "compiler"])
def test_the_lower_floors_have_no_import_cycle(floor):
    inside = {m: {t for t in ts if floor_of(t)[1] == floor} for m, ts in GRAPH.edges().items()}
    cycles = [c for c in strongly_connected(inside) if floor_of(c[0])[1] == floor]
    assert not cycles, f"import cycles inside {floor}/: {cycles}"


def test_the_check_sees_imports_inside_functions(tmp_path):
    (tmp_path / "ir").mkdir()
    (tmp_path / "ir" / "__init__.py").write_text("")
    (tmp_path / "passes").mkdir()
    (tmp_path / "passes" / "__init__.py").write_text("")
    (tmp_path / "ir" / "lazy.py").write_text(
        "def f():\n    from tracejit.passes import pipeline\n"
    )
    (tmp_path / "passes" / "pipeline.py").write_text("")
    graph = import_graph.build(tmp_path)
    [imp] = graph.upward()
    assert (imp.source, imp.target, imp.in_function) == ("ir.lazy", "passes.pipeline", True)
