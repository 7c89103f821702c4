"""The one-way layering of docs/design.md, checked by reading every module's imports (also
those inside functions): ir imports nothing of ours, passes and codegen import only ir, and
in the frontend only driver.py imports passes or codegen."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "ir": {"frontend", "passes", "codegen", "tools"},
    "passes": {"frontend", "codegen", "tools"},
    "codegen": {"frontend", "passes", "tools"},
}
# The one driver module may tie the frontend to the compiler.
DRIVER = ROOT / "frontend" / "driver.py"


def imported_layers(path: pathlib.Path) -> set[str]:
    layers = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "tracejit" and len(parts) > 1:
                layers.add(parts[1])
    return layers


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_downwards(layer):
    for path in (ROOT / layer).rglob("*.py"):
        bad = imported_layers(path) & FORBIDDEN[layer]
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_only_the_driver_imports_passes_or_codegen_from_the_frontend():
    for path in (ROOT / "frontend").rglob("*.py"):
        if path == DRIVER:
            continue
        bad = imported_layers(path) & {"passes", "codegen"}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}; go through driver.py"


def test_the_layering_check_sees_imports_inside_functions(tmp_path):
    module = tmp_path / "lazy.py"
    module.write_text("def f():\n    from tracejit.passes.pipeline import DEFAULT_PIPELINE\n")
    assert imported_layers(module) == {"passes"}
