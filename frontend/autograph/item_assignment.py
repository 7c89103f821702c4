"""Item assignments into local arrays, rewritten so that a write can promote the array.

An array made inside the function from Python values (`np.eye(3)`, `np.arange(5.0)`,
`np.array([1.0, 2.0])`, `np.ndarray((2, 3))`) is a NumPy array while tracing: a constant of
the trace. Writing a traced value into it (`E[0, 0] = x[0]`) cannot store into NumPy memory;
instead the array becomes a traced array holding the constant, and the write is staged into
it (`builtins.setitem`). For that the name must be rebound, so, in a converted function,

    E[k] = v          ->   E = ag__.setitem_local(v, E, k)   (E a local of the function)

(the arguments in Python's order: v, then E, then k; `setitem_local` returns the object that holds
the value afterwards: `E` itself, or the traced array it became). Targets that are not plain
locals (`self.W[0] = v`, a global's item, `a[i][j] = v`) keep Python's statement, through
`ag__.setitem` (ExpressionConverter.visit_Assign), which never promotes.

An augmented assignment to a local name goes through `builtins.augassign_local` for the same
reason (`r = np.array([1.0, 2.0]); r += x` would have NumPy write a traced value into the
constant's memory):

    E += v            ->   E = ag__.augassign_local(E, v, "iadd")   (E a local of the function)
    E[k] += v         ->   E = ag__.augassign_item_local(E, k, lambda: v, "iadd")

(not when `v` is a literal, and `k` too for an item: `n += 1` and `E[0] -= 1` stay as
written; `E[:, i] /= 3` with a traced `i` would have NumPy convert `i`).

Tuple targets with items (`KE[0], PE[0] = a, b`; NumPy would try to store a traced value, or
a sequence, into one element) are unpacked into fresh names first, then assigned one target
at a time, left to right, as Python assigns them:

    A[i], x = rhs     ->   t, t_1 = rhs;  A[i] = t;  x = t_1
"""

from __future__ import annotations

import ast

from tracejit.frontend.autograph import analysis
from tracejit.frontend.autograph.lowering import Namer, ag, ag_call, located


class ItemAssignments(ast.NodeTransformer):
    """Rewrites item assignments in one function body (not in the functions it defines)."""

    def __init__(self, namer: Namer, locals_: set[str]):
        self.namer = namer
        self.locals_ = locals_

    @classmethod
    def rewrite(cls, node: ast.FunctionDef, namer: Namer) -> None:
        globals_, nonlocals = analysis.declared(node.body)
        params = set(analysis.parameter_names(node.args))
        locals_ = (params | set(analysis.bound_names(node.body))) - globals_ - nonlocals
        rewriter = cls(namer, locals_)
        node.body = [rewritten for stmt in node.body for rewritten in rewriter.statement(stmt)]

    def statement(self, stmt: ast.stmt) -> list[ast.stmt]:
        result = self.visit(stmt)
        return result if isinstance(result, list) else [result]

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # converted on its own (FunctionConverter.function), with its own locals

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def generic_visit(self, node: ast.AST) -> ast.AST:
        # statement lists (bodies of if/for/while/with/try) are rewritten statement by statement
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, [s for stmt in value for s in self.statement(stmt)])
            elif isinstance(value, ast.AST) and not isinstance(value, ast.expr):
                self.visit(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST) and not isinstance(item, ast.expr):
                        self.visit(item)
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST | list[ast.stmt]:
        if len(node.targets) != 1:
            return self._chained(node) if any(map(_has_item, node.targets)) else node
        target = node.targets[0]
        if isinstance(target, ast.Tuple | ast.List) and _has_item(target):
            return self._unpacked(node, target)
        if isinstance(target, ast.Subscript) and self._is_local(target.value):
            return self._rebinding(target, node.value, node)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        target = node.target
        literal_key = not isinstance(target, ast.Subscript) or _literal(target.slice)
        if _literal(node.value) and literal_key:
            return node  # (`n += 1` writes no traced value: Python's statement, as written)
        in_place = ast.Constant(_IN_PLACE_OPERATORS[type(node.op)])
        if self._is_local(target):
            assert isinstance(target, ast.Name)
            call = ag_call("augassign_local", ast.Name(target.id, ast.Load()), node.value, in_place)
            return self._rebound(target.id, call, node)
        if isinstance(target, ast.Subscript) and self._is_local(target.value):
            assert isinstance(target.value, ast.Name)
            name = target.value.id
            value = ast.Lambda(_no_arguments(), node.value)  # evaluated after the item
            key = key_expression(target.slice)
            call = ag_call("augassign_item_local", ast.Name(name, ast.Load()), key, value, in_place)
            return self._rebound(name, call, node)
        return node

    def _rebound(self, name: str, call: ast.expr, source: ast.stmt) -> ast.stmt:
        rebind = ast.Assign(targets=[ast.Name(name, ast.Store())], value=call)
        return located([rebind], source)[0]

    def _is_local(self, root: ast.expr) -> bool:
        return isinstance(root, ast.Name) and root.id in self.locals_

    def _rebinding(self, target: ast.Subscript, value: ast.expr, source: ast.stmt) -> ast.stmt:
        assert isinstance(target.value, ast.Name)
        name = target.value.id
        key = key_expression(target.slice)
        call = ag_call("setitem_local", value, ast.Name(name, ast.Load()), key)
        rebind = ast.Assign(targets=[ast.Name(name, ast.Store())], value=call)
        return located([rebind], source)[0]

    def _chained(self, node: ast.Assign) -> list[ast.stmt]:
        """`a[i] = b[j] = v` as Python runs it: `v` once, then each target, left to right,
        each assignment rewritten as a single one is (`corr[i, j] = corr[j, i] = c`)."""
        value = self.namer.new("item")
        statements: list[ast.stmt] = [ast.Assign([ast.Name(value, ast.Store())], node.value)]
        for target in node.targets:
            assigned = ast.Assign(targets=[target], value=ast.Name(value, ast.Load()))
            statements += self.statement(located([assigned], node)[0])
        return located(statements, node)

    def _unpacked(self, node: ast.Assign, target: ast.Tuple | ast.List) -> list[ast.stmt]:
        names: list[tuple[str, ast.expr]] = []
        fresh = _with_fresh_names(target, self.namer, names)
        statements: list[ast.stmt] = [ast.Assign(targets=[fresh], value=node.value)]
        for name, original in names:
            assigned = ast.Assign(targets=[original], value=ast.Name(name, ast.Load()))
            statements += self.statement(located([assigned], node)[0])
        for statement in statements:
            ast.copy_location(statement, node)
        return located(statements, node)


_IN_PLACE_OPERATORS = {  # the `operator` module's function for each `op=`
    ast.Add: "iadd",
    ast.Sub: "isub",
    ast.Mult: "imul",
    ast.MatMult: "imatmul",
    ast.Div: "itruediv",
    ast.FloorDiv: "ifloordiv",
    ast.Mod: "imod",
    ast.Pow: "ipow",
    ast.LShift: "ilshift",
    ast.RShift: "irshift",
    ast.BitAnd: "iand",
    ast.BitOr: "ior",
    ast.BitXor: "ixor",
}


def _no_arguments() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])


def _has_item(target: ast.expr) -> bool:
    return any(isinstance(n, ast.Subscript) for n in ast.walk(target))


def _with_fresh_names(
    target: ast.expr, namer: Namer, names: list[tuple[str, ast.expr]]
) -> ast.expr:
    """`target` with every leaf replaced by a fresh name; `names` gets (fresh, leaf) pairs in
    Python's assignment order."""
    if isinstance(target, ast.Tuple | ast.List):
        elements = [_with_fresh_names(e, namer, names) for e in target.elts]
        return type(target)(elements, ast.Store())
    if isinstance(target, ast.Starred):
        return ast.Starred(_with_fresh_names(target.value, namer, names), ast.Store())
    name = namer.new("item")
    names.append((name, target))
    return ast.Name(name, ast.Store())


def key_expression(key: ast.expr) -> ast.expr:
    """A subscript's key as an expression: slices `a:b:c` become `slice(a, b, c)`."""
    if isinstance(key, ast.Tuple):
        return ast.Tuple([key_expression(k) for k in key.elts], ast.Load())
    if not isinstance(key, ast.Slice):
        return key
    parts = [part or ast.Constant(None) for part in (key.lower, key.upper, key.step)]
    return ast.copy_location(ast.Call(ag("slice_"), parts, []), key)


def _literal(node: ast.expr) -> bool:
    """Whether `node` is made of constants only (`1`, `-2.5`, `0, :3`, `...`): no name in
    it can hold a traced value."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    if isinstance(node, ast.Slice):
        return all(p is None or _literal(p) for p in (node.lower, node.upper, node.step))
    if isinstance(node, ast.Tuple):
        return all(_literal(element) for element in node.elts)
    return False
