"""The floors of docs/design.md, checked by reading every module's imports (also those inside
functions and the type-only ones): each floor imports only the floors below it, and packages
that share a floor do not import each other (tools/import_graph.py's FLOORS)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tracejit.tools import import_graph
from tracejit.tools.import_graph import FLOORS, build, floor_of, strongly_connected

# One worker builds the graph (~3 s), once, when these tests run: not at collection.
pytestmark = pytest.mark.xdist_group("layering")


@pytest.fixture(scope="module")
def graph():
    return build()


def test_no_import_goes_against_the_floors(graph):
    upward = [
        f"{imp.source}:{imp.line} imports {imp.target}"
        f" ({floor_of(imp.source)[1] or 'top'} -> {floor_of(imp.target)[1]})"
        for imp in graph.upward()
    ]
    assert not upward, "imports against the floors of docs/design.md:\n" + "\n".join(upward)


def test_every_module_has_a_floor(graph):
    """A new top-level package must be given its floor in FLOORS (else it is 'top')."""
    top = {m.split(".")[0] for m in graph.modules if "." in m}
    named = {package.split(".")[0] for floor in FLOORS for package in floor if package}
    assert top <= named, f"packages without a floor: {sorted(top - named)}"


def test_no_import_cycle_spans_two_floors(graph):
    for component in strongly_connected(graph.edges()):
        floors = {floor_of(module)[1] for module in component}
        assert len(floors) == 1, f"an import cycle across floors: {component}"


@pytest.mark.parametrize("floor", ["ir", "runtime", "compiler"])
def test_the_lower_floors_have_no_import_cycle(floor, graph):
    inside = {m: {t for t in ts if floor_of(t)[1] == floor} for m, ts in graph.edges().items()}
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


# --- the public record of a trace (issue 36, point 4) -----------------------------------------
# Tiered execution and export take a trace through ConcreteFunction's and Function's public
# surface (`record`, `is_compiled`, `compile_fresh`, `install_compilation`, `options`, ...).
RECORD_READERS = ["frontend/api/tiered.py", "frontend/export"]


def private_reaches(source: str) -> list[str]:
    """`x._name` in `source` where x is not self, cls or an imported name (a module's own
    privates are its business)."""
    tree = ast.parse(source)
    imported = {"self", "cls"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            imported |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return [
        f"{node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.endswith("__")
        and not (isinstance(node.value, ast.Name) and node.value.id in imported)
    ]


def test_tiering_and_export_use_only_public_members():
    root = Path(import_graph.__file__).resolve().parents[1]
    reaches = [
        f"{path.relative_to(root)}:{reach}"
        for name in RECORD_READERS
        for path in sorted([root / name] if name.endswith(".py") else (root / name).rglob("*.py"))
        for reach in private_reaches(path.read_text())
    ]
    assert not reaches, "private members reached from another module:\n" + "\n".join(reaches)


def test_the_private_member_check_sees_a_reach():
    assert private_reaches("def f(c):\n    return c._lock, self._ok\n") == ["2: c._lock"]
