"""The AST walks AutoGraph's conversion reads its facts from (frontend/autograph/analysis.py):
the same nodes as `ast.walk`, in source order, contexts left out, nested scopes skipped."""

from __future__ import annotations

import ast
import inspect

import pytest

from benchmarks import program_kernels
from tracejit.frontend.autograph import analysis

SOURCES = [
    inspect.getsource(program_kernels),
    inspect.getsource(analysis),
    """
def outer(a, b=1, *rest, key, **options):
    import os.path as p, sys
    x, [y, *z] = a
    for i in range(b):
        with open(p) as handle:
            total: int = i
    def inner(c):
        hidden = c
        return hidden
    squares = [w * w for w in rest]
    match options:
        case {"k": v, **others}:
            pass
        case [first, *more]:
            pass
    try:
        pass
    except ValueError as error:
        del x
    global G
    return lambda q: q + total
""",
]


def _trees() -> list[ast.Module]:
    return [ast.parse(source) for source in SOURCES]


@pytest.mark.parametrize("tree", _trees(), ids=["program_kernels", "analysis", "edge_cases"])
def test_walk_tree_is_ast_walk_without_contexts(tree):
    expected = [n for n in ast.walk(tree) if not isinstance(n, ast.expr_context)]
    got = list(analysis.walk_tree(tree))
    assert len(got) == len(expected)
    assert {id(n) for n in got} == {id(n) for n in expected}


@pytest.mark.parametrize("tree", _trees(), ids=["program_kernels", "analysis", "edge_cases"])
def test_walk_scope_is_in_source_order_and_skips_nested_scopes(tree):
    nested_insides = {
        id(inner)
        for scope in ast.walk(tree)
        if isinstance(scope, analysis._NESTED_SCOPES)
        for child in ast.iter_child_nodes(scope)
        for inner in ast.walk(child)
    }
    got = list(analysis.walk_scope(tree.body))
    assert not any(isinstance(n, ast.expr_context) for n in got)
    assert not [n for n in got if id(n) in nested_insides]
    expected = [n for root in tree.body for n in _pre_order(root)]
    assert [id(n) for n in got] == [id(n) for n in expected]
    lines = [(n.lineno, n.col_offset) for n in got if isinstance(n, ast.stmt)]
    assert lines == sorted(lines)


def _pre_order(node: ast.AST) -> list[ast.AST]:
    """The nodes of `node`'s scope, parents before children, children in field order."""
    if isinstance(node, ast.expr_context):
        return []
    if isinstance(node, analysis._NESTED_SCOPES):
        return [node]
    return [node, *(n for child in ast.iter_child_nodes(node) for n in _pre_order(child))]


def test_bound_names_of_every_binding_form():
    function = ast.parse(SOURCES[2]).body[0]
    assert isinstance(function, ast.FunctionDef)
    assert analysis.bound_names(function.body) == [
        "p", "sys", "x", "y", "z", "i", "handle", "total", "inner", "squares",
        "others", "v", "first", "more", "error",
    ]  # fmt: skip
