"""Static facts about a function's AST that the conversion needs.

Which local names a block of statements (re)binds, which names are read, and which
names a scope declares `global`/`nonlocal`. Nested scopes (functions, lambdas,
classes, comprehensions) bind their own names, so the walks stop at them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

_NESTED_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def walk_scope(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node under `nodes` that belongs to their scope (nested scopes' insides skipped;
    a nested def's own node is yielded, since it binds its name here), in source order.
    A name's context (`ast.Load()`...) is read from the name, never yielded."""
    stack = list(nodes)[::-1]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _NESTED_SCOPES):
            stack.extend(_children_reversed(node))


def walk_tree(root: ast.AST) -> Iterator[ast.AST]:
    """Every node under `root`, nested scopes included, as `ast.walk` (but for contexts),
    in source order."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(_children_reversed(node))


def _children_reversed(node: ast.AST) -> list[ast.AST]:
    """`ast.iter_child_nodes(node)` without contexts, last first. The conversion walks a
    function's tree a dozen times: this is most of its time (a 2,000-node stencil solver
    took 110 ms to convert)."""
    children: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            children += [item for item in value if isinstance(item, ast.AST)]
        elif isinstance(value, ast.AST) and not isinstance(value, ast.expr_context):
            children.append(value)
    children.reverse()
    return children


def bound_names(nodes: Iterable[ast.AST]) -> list[str]:
    """The names `nodes` bind in their scope, in first-binding order."""
    names: dict[str, None] = {}
    for node in walk_scope(nodes):
        for name in _binds(node):
            names.setdefault(name)
    return list(names)


def _binds(node: ast.AST) -> Iterable[str]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return (node.id,)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return (node.name,)
    if isinstance(node, ast.Import | ast.ImportFrom):
        return tuple((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
        return (node.name,)
    if isinstance(node, ast.MatchMapping) and node.rest:
        return (node.rest,)
    return ()


# Methods that change a list, dict, set or bytearray in place.
MUTATING_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
     "popitem", "sort", "reverse", "add", "discard", "difference_update",
     "intersection_update", "symmetric_difference_update", "__setitem__", "__delitem__"}
)  # fmt: skip


def mutated_names(nodes: Iterable[ast.AST]) -> list[str]:
    """Names whose object `nodes` change in place: `x[k] = v`, `x[k] += v`, `del x[k]`
    (also `x[i][j] = v`), `x.append(v)` and the other mutating methods of containers."""
    names: dict[str, None] = {}
    for node in walk_scope(nodes):
        root = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            root = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATING_METHODS
        ):
            root = node.func.value
        while isinstance(root, ast.Subscript):
            root = root.value
        if isinstance(root, ast.Name):
            names.setdefault(root.id)
    return list(names)


def nonlocals_of_nested_functions(body: list[ast.stmt]) -> set[str]:
    """The names that functions nested (at any depth) in `body` declare `nonlocal`."""
    return {
        name
        for node in walk_tree(ast.Module(body, []))
        if isinstance(node, ast.Nonlocal)
        for name in node.names
    }


def python_state_stores(nodes: Iterable[ast.AST]) -> list[str]:
    """The attributes (`c.n`, `self.total`) and globals (`global G`) the statements assign:
    Python state a staged loop would change once, while tracing, where the loop runs it on
    every trip (an index loop over `range` unrolls for it, as TensorFlow's AutoGraph does)."""
    found: list[str] = []
    for node in walk_scope(nodes):
        if isinstance(node, ast.Global):
            found += node.names
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and isinstance(part.ctx, ast.Store):
                    found.append(ast.unparse(part))
    return list(dict.fromkeys(found))


def loaded_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Names read anywhere under `nodes`, nested scopes included (closures read them too)."""
    return {
        node.id
        for root in nodes
        for node in walk_tree(root)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def declared(body: list[ast.stmt]) -> tuple[set[str], set[str]]:
    """The names a function body declares `global` and `nonlocal`."""
    globals_: set[str] = set()
    nonlocals: set[str] = set()
    for node in walk_scope(body):
        if isinstance(node, ast.Global):
            globals_.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            nonlocals.update(node.names)
    return globals_, nonlocals


def parameter_names(args: ast.arguments) -> list[str]:
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    params += [a for a in (args.vararg, args.kwarg) if a is not None]
    return [a.arg for a in params]


def contains(nodes: Iterable[ast.AST], kinds: type | tuple[type, ...], loops: bool) -> bool:
    """Whether a `kinds` statement occurs in this scope, looking inside nested loops only
    when `loops` (a `break` in an inner loop belongs to the inner loop)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, _NESTED_SCOPES):
            continue
        if not loops and isinstance(node, ast.For | ast.While | ast.AsyncFor):
            stack.extend(node.orelse)  # a loop's `else` belongs to the enclosing loop
            continue
        stack.extend(_children_reversed(node))
    return False


def all_identifiers(tree: ast.AST) -> set[str]:
    """Every identifier in the tree, so generated names can avoid them."""
    names = set()
    for node in walk_tree(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
    return names
