"""The package's import graph and the numbers the architecture is judged by.

    python -m tracejit.tools.import_graph            # summary
    python -m tracejit.tools.import_graph --cycles   # also the modules of each import cycle

Every `import` of a tracejit module counts, also those inside functions (they are cycles
deferred to run time, not cycles removed) and under `if TYPE_CHECKING:` (a type-only import
is reported apart: it runs no code, but it still says which module knows which). A module is
named by its dotted path under the package (`frontend.tensor`); `from tracejit.x import y`
is an import of `x.y` when `y` is a module, else of `x`.
"""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_THE_PACKAGE = {"tests", "docs", "benchmarks", "examples", "build", "dist", ".venv"}


# The floors, lowest first: a module imports only modules of its own floor or below (a
# package's __init__ re-exports belong to the floor of the package's contents). Within a
# floor, packages listed together do not import each other.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("ir",),
    ("passes", "codegen"),
    ("runtime",),
    ("compiler",),
    ("frontend.staging",),
    ("frontend.numpy_api",),
    ("frontend.autograph", "frontend.autodiff"),
    ("frontend.api",),
    ("frontend.export",),
    ("frontend", "tools", ""),
)


def floor_of(module: str) -> tuple[int, str]:
    """(floor number, package) of `module`: the longest matching package prefix."""
    best = (len(FLOORS) - 1, "")
    best_length = -1
    for number, packages in enumerate(FLOORS):
        for package in packages:
            matches = module == package or module.startswith(package + ".") or package == ""
            if matches and len(package) > best_length:
                best, best_length = (number, package), len(package)
    return best


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module
    line: int
    in_function: bool  # inside a def (runs when called, not at import)
    type_only: bool  # under `if TYPE_CHECKING:`


@dataclass
class Graph:
    modules: dict[str, Path]
    imports: list[Import] = field(default_factory=list)

    def upward(self) -> list[Import]:
        """Imports that break the floors: to a higher floor, or sideways between packages
        of one floor (type-only imports included: they still say who knows whom)."""
        bad = []
        for imp in self.imports:
            (source_floor, source_package), (target_floor, target_package) = (
                floor_of(imp.source),
                floor_of(imp.target),
            )
            if target_floor > source_floor or (
                target_floor == source_floor and target_package != source_package
                and source_package != ""
            ):
                bad.append(imp)
        return bad

    def edges(self, *, type_only: bool = False) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {m: set() for m in self.modules}
        for imp in self.imports:
            if imp.type_only and not type_only:
                continue
            if imp.target != imp.source:
                out[imp.source].add(imp.target)
        return out


def package_modules(root: Path = ROOT) -> dict[str, Path]:
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[0] in NOT_THE_PACKAGE or parts == ("setup",):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _imported(node: ast.AST, modules: dict[str, Path]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        base = node.module
        names = []
        for alias in node.names:
            full = f"{base}.{alias.name}"
            names.append(full if full.removeprefix("tracejit.") in modules else base)
    else:
        return
    for name in names:
        if name == "tracejit" or name.startswith("tracejit."):
            yield name.removeprefix("tracejit").removeprefix(".")


def _walk(tree: ast.AST) -> Iterator[tuple[ast.AST, bool, bool]]:
    """(node, inside a function, under TYPE_CHECKING) for every node."""
    stack: list[tuple[ast.AST, bool, bool]] = [(tree, False, False)]
    while stack:
        node, in_function, type_only = stack.pop()
        yield node, in_function, type_only
        for child in ast.iter_child_nodes(node):
            child_function = in_function or isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            child_type = type_only or (
                isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                and child in node.body
            )
            stack.append((child, child_function, child_type))


def build(root: Path = ROOT) -> Graph:
    graph = Graph(package_modules(root))
    for module, path in graph.modules.items():
        for node, in_function, type_only in _walk(ast.parse(path.read_text())):
            for target in _imported(node, graph.modules):
                if target in graph.modules:
                    imp = Import(module, target, getattr(node, "lineno", 0), in_function, type_only)
                    graph.imports.append(imp)
    return graph


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of more than one module, largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components, key=len, reverse=True)


_ANY = re.compile(r"\bAny\b")
_IGNORE = re.compile(r"#\s*type:\s*ignore")
_ENV = re.compile(r"os\.environ|getenv\(")


def source_counts(graph: Graph) -> dict[str, int]:
    counts = {"lines": 0, "Any lines": 0, "type: ignore": 0, "environment reads": 0}
    env_modules = set()
    for module, path in graph.modules.items():
        if module.startswith("tools.import_graph"):
            continue
        for line in path.read_text().splitlines():
            counts["lines"] += 1
            code = line.split("#", 1)[0]
            counts["Any lines"] += bool(_ANY.search(code))
            counts["type: ignore"] += bool(_IGNORE.search(line))
            if _ENV.search(code):
                counts["environment reads"] += 1
                env_modules.add(module)
    counts["modules reading the environment"] = len(env_modules)
    counts["imports inside functions"] = sum(i.in_function for i in graph.imports)
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", action="store_true", help="list each cycle's modules")
    parser.add_argument("--upward", action="store_true", help="list imports against the floors")
    args = parser.parse_args(argv)
    graph = build()
    cycles = strongly_connected(graph.edges())
    print(f"modules: {len(graph.modules)}")
    for name, value in source_counts(graph).items():
        print(f"{name}: {value}")
    print(f"import cycles: {len(cycles)}, sizes {[len(c) for c in cycles]}")
    upward = graph.upward()
    print(f"imports against the floors: {len(upward)}")
    if args.upward:
        for imp in upward:
            where = "in a function" if imp.in_function else "type only" if imp.type_only else ""
            print(f"  {imp.source}:{imp.line} -> {imp.target} {where}")
    if args.cycles:
        for component in cycles:
            print("  " + " ".join(component))


if __name__ == "__main__":
    main()
