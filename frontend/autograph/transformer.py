"""The AST rewrite: control flow and boolean expressions into calls of `ag__` dispatchers.

After `lowering.py` has removed break/continue/return, each `if`, `while` and `for`
becomes small functions plus one dispatcher call, e.g.

    if x > 0:                     def if_body():
        y = x * 2                     nonlocal y
    else:                             y = x * 2
        y = -x              ==>   def else_body():
                                      nonlocal y
                                      y = -x
                                  def get_state():
                                      return (y,)
                                  def set_state(vars_):
                                      nonlocal y
                                      (y,) = vars_
                                  ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state,
                                               ('y',), (('y',), ('y',)))

The variables a statement assigns (its state) are found statically; the dispatcher
decides at trace time whether to run Python or stage `tj.if`/`tj.while`. Every state
variable is bound to `ag__.Undefined(name)` at function entry so `nonlocal` is legal.
Expressions: `a and b` -> `ag__.and_(lambda: a, lambda: b)` (lazy), `not a`,
`a if c else b`, chained comparisons, `assert`, and calls -> `ag__.converted_call(f, args,
kwargs)` (which converts user functions on the fly). Generated nodes keep the line of
the user statement they replace, so tracebacks and errors point at user code.
"""

from __future__ import annotations

import ast
import copy
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tracejit.frontend.autograph import analysis
from tracejit.frontend.autograph.item_assignment import ItemAssignments, key_expression
from tracejit.frontend.autograph.lowering import (
    Namer,
    ag_call,
    assign,
    located,
    lower_loops,
    lower_returns,
)

# Calls that must see the caller's own frame, so they are never wrapped.
_FRAME_SENSITIVE = {"super", "locals", "globals", "vars", "eval", "exec", "dir"}
_COMPARE_OPS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}


def names_tuple(names: list[str]) -> ast.Tuple:
    return ast.Tuple([ast.Constant(n) for n in names], ast.Load())


def thunk(expr: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    return ast.Lambda(args, expr)


def is_generator(function: ast.FunctionDef | ast.Lambda) -> bool:
    body = function.body if isinstance(function.body, list) else [function.body]
    return any(
        isinstance(node, ast.Yield | ast.YieldFrom | ast.Await)
        for node in analysis.walk_scope(body)
    )


@dataclass
class _Scope:
    """One function being converted: its declarations and the state names to bind."""

    params: set[str]
    globals_: set[str]
    nonlocals: set[str]
    loads: Counter  # every Name read in the (lowered) body, for loop live-out
    locals_: set[str]  # every name the function binds (parameters included)
    closure_assigned: set[str]  # our locals that nested functions assign (`nonlocal`)
    bind: dict[str, None] = field(default_factory=dict)

    def state(self, stmts: Sequence[ast.AST]) -> list[str]:
        """The names a statement assigns, and its local containers changed in place (a staged
        branch or loop must carry those too: `d["k"] = t`, `xs.append(t)`)."""
        mutated = [n for n in analysis.mutated_names(stmts) if n in self.locals_]
        # A nested function that assigns a `nonlocal` of ours may be called in the statement.
        assigned = analysis.bound_names(stmts) + sorted(self.closure_assigned)
        names = [
            n for n in dict.fromkeys(assigned + mutated) if n not in self.globals_ | self.nonlocals
        ]
        for name in names:
            if name not in self.params:
                self.bind.setdefault(name)
        return names

    def declarations(self, stmts: Sequence[ast.AST], state: list[str]) -> list[ast.stmt]:
        """`global`/`nonlocal` lines a generated function needs to assign like the user's."""
        bound = set(analysis.bound_names(stmts))
        decls: list[ast.stmt] = []
        if bound & self.globals_:
            decls.append(ast.Global(sorted(bound & self.globals_)))
        outer = [n for n in state if n in bound] + sorted(bound & self.nonlocals)
        if outer:
            decls.append(ast.Nonlocal(outer))
        return decls


class FunctionConverter:
    """Converts one function (and the functions defined inside it)."""

    def __init__(self, namer: Namer):
        self.namer = namer
        self.helper_names: dict[str, str] = {}

    def function(self, node: ast.FunctionDef) -> ast.FunctionDef:
        if is_generator(node):
            return node  # generators and coroutines run unconverted
        ItemAssignments.rewrite(node, self.namer)  # before the scopes are read: it binds names
        node.body = lower_loops(node.body, self.namer)
        lower_returns(node, self.namer)
        globals_, nonlocals = analysis.declared(node.body)
        loads = Counter(
            n.id
            for n in analysis.walk_tree(ast.Module(node.body, []))
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        )
        params = set(analysis.parameter_names(node.args))
        locals_ = params | set(analysis.bound_names(node.body))
        closure_assigned = analysis.nonlocals_of_nested_functions(node.body) & locals_
        scope = _Scope(params, globals_, nonlocals, loads, locals_, closure_assigned)
        body = self.block(node.body, scope)
        assigned_first = _assigned_prefix(body)
        init: list[ast.stmt] = [
            assign(n, ag_call("Undefined", ast.Constant(n)))
            for n in scope.bind
            if n not in assigned_first
        ]
        docstring = body[:1] if _is_docstring(body) else []
        node.body = docstring + located(init, node) + body[len(docstring) :]
        return node

    # --- statements ---------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt], scope: _Scope) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            out += self.statement(stmt, scope)
        return out

    def statement(self, node: ast.stmt, scope: _Scope) -> list[ast.stmt]:
        # each handler takes the node class it is registered under, hence `...`
        handlers: dict[type[ast.stmt], Callable[..., list[ast.stmt]]] = {
            ast.If: self._if,
            ast.While: self._while,
            ast.For: self._for,
            ast.Assert: self._assert,
            ast.FunctionDef: lambda n, s: [self.function(n)],
        }
        handler = handlers.get(type(node))
        if handler is not None:
            return handler(node, scope)
        if not isinstance(node, ast.ClassDef | ast.AsyncFunctionDef):
            for owner in [node, *getattr(node, "handlers", []), *getattr(node, "cases", [])]:
                for name in ("body", "orelse", "finalbody"):
                    if isinstance(getattr(owner, name, None), list):
                        setattr(owner, name, self.block(getattr(owner, name), scope))
        return [node]

    def _if(self, node: ast.If, scope: _Scope) -> list[ast.stmt]:
        body_names, orelse_names = scope.state(node.body), scope.state(node.orelse)
        names = list(dict.fromkeys(body_names + orelse_names))
        if_body = self._def("if_body", [], node.body, names, scope)
        else_body = self._def("else_body", [], node.orelse, names, scope)
        state_defs, state_args = self._state(names, scope)
        call = ag_call(
            "if_stmt",
            as_test(node.test),
            ast.Name(if_body.name, ast.Load()),
            ast.Name(else_body.name, ast.Load()),
            *state_args,
            ast.Tuple([names_tuple(body_names), names_tuple(orelse_names)], ast.Load()),
        )
        return located([if_body, else_body, *state_defs, ast.Expr(call)], node)

    def _while(self, node: ast.While, scope: _Scope) -> list[ast.stmt]:
        names = scope.state([node])
        test = node.test
        extra = getattr(node, "extra_tests", [])
        if extra:
            test = ast.BoolOp(ast.And(), [*extra, test])
        walrus = scope.declarations([ast.Expr(test)], names)  # `while (y := f()) > 0`
        loop_test = self._function_def(
            self.namer_new("loop_test"), [], [*walrus, _return(as_test(test))]
        )
        loop_body = self._def("loop_body", [], node.body, names, scope)
        state_defs, state_args = self._state(names, scope)
        call = ag_call(
            "while_stmt",
            ast.Name(loop_test.name, ast.Load()),
            ast.Name(loop_body.name, ast.Load()),
            *state_args,
            names_tuple(self._live_out(node, names, scope)),
        )
        return located([loop_test, loop_body, *state_defs, ast.Expr(call)], node)

    def _for(self, node: ast.For, scope: _Scope) -> list[ast.stmt]:
        item = self.namer_new("itr")
        target = ast.Assign(targets=[node.target], value=ast.Name(item, ast.Load()))
        body = located([target], node) + node.body
        names = scope.state(body)
        defs = []
        extra_test: ast.expr = ast.Constant(None)
        extra = getattr(node, "extra_tests", [])
        if extra:
            test = extra[0] if len(extra) == 1 else ast.BoolOp(ast.And(), extra)
            defs.append(self._function_def(self.namer_new("extra_test"), [], [_return(test)]))
            extra_test = ast.Name(defs[-1].name, ast.Load())
        defs.append(self._def("loop_body", [item], body, names, scope))
        targets = analysis.bound_names([node.target])
        state_defs, state_args = self._state(names, scope)
        call = ag_call(
            "for_stmt",
            node.iter,
            extra_test,
            ast.Name(defs[-1].name, ast.Load()),
            *state_args,
            names_tuple(self._live_out(node, names, scope)),
            names_tuple(targets),
            names_tuple(sorted(analysis.loaded_names(node.body) - set(targets))),
            names_tuple(self._python_state(node.body, scope)),
        )
        return located([*defs, *state_defs, ast.Expr(call)], node)

    @staticmethod
    def _python_state(body: list[ast.stmt], scope: _Scope) -> list[str]:
        """Attributes and globals `body` assigns (`c.n += 1`, `G += 1` under `global G`)."""
        globals_ = [n for n in analysis.bound_names(body) if n in scope.globals_]
        return list(dict.fromkeys(analysis.python_state_stores(body) + globals_))

    def _assert(self, node: ast.Assert, scope: _Scope) -> list[ast.stmt]:
        message = thunk(node.msg) if node.msg is not None else ast.Constant(None)
        return located([ast.Expr(ag_call("assert_stmt", node.test, message))], node)

    # --- helpers ------------------------------------------------------------------------
    def namer_new(self, base: str) -> str:
        """A helper function's name: reused across statements (each is defined right before
        its one use, like TF's), only kept clear of the user's identifiers."""
        if base not in self.helper_names:
            self.helper_names[base] = self.namer.new(base)
        return self.helper_names[base]

    def _def(
        self, base: str, params: list[str], stmts: list[ast.stmt], names: list[str], scope: _Scope
    ) -> ast.FunctionDef:
        body = scope.declarations(stmts, names) + self.block(stmts, scope)
        return self._function_def(self.namer_new(base), params, body or [ast.Pass()])

    def _function_def(self, name: str, params: list[str], body: list[ast.stmt]):
        args = ast.arguments(
            posonlyargs=[],
            args=[ast.arg(p) for p in params],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        )
        node = ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None)
        if sys.version_info >= (3, 12):
            node.type_params = []
        return node

    def _state(self, names: list[str], scope: _Scope) -> tuple[list[ast.stmt], list[ast.expr]]:
        """`get_state`/`set_state` definitions, and the arguments `get_state, set_state,
        ('a', 'b')` that let the dispatcher read and write the statement's state."""
        values = ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load())
        get_state = self._function_def(self.namer_new("get_state"), [], [_return(values)])
        vars_ = self.namer_new("vars_")
        set_body: list[ast.stmt] = [ast.Pass()]
        if names:
            targets = ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
            decls = scope.declarations([ast.Assign([targets], ast.Constant(None))], names)
            set_body = decls + [ast.Assign([targets], ast.Name(vars_, ast.Load()))]
        set_state = self._function_def(self.namer_new("set_state"), [vars_], set_body)
        args = [ast.Name(get_state.name, ast.Load()), ast.Name(set_state.name, ast.Load())]
        return [get_state, set_state], [*args, names_tuple(names)]

    def _live_out(self, loop: ast.stmt, names: list[str], scope: _Scope) -> list[str]:
        """State names read outside the loop (conservatively: anywhere else in the function)."""
        inside = Counter(
            n.id
            for n in analysis.walk_tree(loop)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        )
        return [n for n in names if scope.loads[n] > inside[n]]


def _return(value: ast.expr) -> ast.Return:
    node = ast.Return(value)
    node.ag_generated = True  # type: ignore[attr-defined]  # a marker on the node
    return node


def _has_walrus(node: ast.expr) -> bool:
    return any(isinstance(n, ast.NamedExpr) for n in analysis.walk_scope([node]))


def _place(call: ast.Call, source: ast.expr) -> ast.Call:
    """Give a generated call `source`'s span, and its helper name `source`'s first line (Python
    reports a call at the line of the called attribute's end)."""
    ast.copy_location(call, source)
    located([ast.Expr(call.func)], source)
    return call


def _assigned_prefix(body: list[ast.stmt]) -> set[str]:
    """Names bound by the simple assignments that open the body (before anything that may
    call a generated function): they need no `Undefined` binding."""
    names: set[str] = set()
    for stmt in body:
        if not isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Expr):
            break
        if isinstance(stmt, ast.Expr) and not isinstance(stmt.value, ast.Constant):
            break
        names.update(analysis.bound_names([stmt]))
    return names


def _is_docstring(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)


class ExpressionConverter(ast.NodeTransformer):
    """Rewrites expressions everywhere in a converted function: calls, and/or/not,
    conditional expressions, chained comparisons, and return values."""

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node  # class bodies run as written; their methods convert when called

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node if is_generator(node) else self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        self.generic_visit(node)
        if node.value is None or getattr(node, "ag_generated", False):
            return node
        node.value = _place(ag_call("ret", node.value), node.value)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if getattr(node, "ag_generated", False):
            return node
        if isinstance(node.func, ast.Name) and node.func.id in _FRAME_SENSITIVE:
            return node
        args = ast.Tuple(node.args, ast.Load())
        kwargs: ast.expr = ast.Constant(None)
        if node.keywords:
            kwargs = ast.Dict(
                [None if k.arg is None else ast.Constant(k.arg) for k in node.keywords],
                [k.value for k in node.keywords],
            )
        return _place(ag_call("converted_call", node.func, args, kwargs), node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        """`x[k]` read: `ag__.getitem(x, k)` (builtins.getitem: a NumPy array indexed with
        a traced value); written or deleted items are item_assignment.py's."""
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load) or getattr(node, "ag_generated", False):
            return node
        return _place(ag_call("getitem", node.value, key_expression(node.slice)), node)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if _has_walrus(node):
            return node  # a thunk would bind the walrus target in the lambda: keep Python's
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        if getattr(node, "ag_test", False):
            name += "test"
        return _place(ag_call(name, *map(thunk, node.values)), node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return _place(ag_call("not_", as_test(node.operand)), node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if _has_walrus(node):
            return node
        call = ag_call("if_exp", as_test(node.test), thunk(node.body), thunk(node.orelse))
        return _place(call, node)

    def visit_Try(self, node: ast.Try) -> ast.AST:
        """`try: body` -> `try: with ag__.errors_caught(lambda: (types...)): body`, the types
        its handlers catch: a data error of those types found while tracing the body (an
        index out of range) raises there, so the handler runs as with NumPy, instead of
        being deferred to the end of the trace (non-strict execution)."""
        self.generic_visit(node)
        types: list[ast.expr] = []
        for handler in node.handlers:
            if handler.type is None:
                types.append(ast.Name("BaseException", ast.Load()))
            elif isinstance(handler.type, ast.Tuple):
                types += [copy.deepcopy(t) for t in handler.type.elts]
            else:
                types.append(copy.deepcopy(handler.type))
        if types:
            caught = ag_call("errors_caught", thunk(ast.Tuple(types, ast.Load())))
            guarded = ast.With([ast.withitem(caught, None)], node.body)
            node.body = located([guarded], node.body[0])
        return node

    def visit_Raise(self, node: ast.Raise) -> ast.AST:
        """`raise E` -> `raise ag__.user_raise(E)` (a staged branch makes it a run-time error)."""
        self.generic_visit(node)
        if node.exc is not None:
            node.exc = _place(ag_call("user_raise", node.exc), node.exc)
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        """`a[k] = v` -> `ag__.setitem(v, a, k)` (Python evaluates v, then a, then k)."""
        self.generic_visit(node)
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Subscript):
            return node
        target = node.targets[0]
        call = ag_call("setitem", node.value, target.value, key_expression(target.slice))
        return ast.copy_location(ast.Expr(_place(call, node.value)), node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if _has_walrus(node):
            return node
        if len(node.ops) == 1 and not isinstance(node.ops[0], ast.In | ast.NotIn):
            return node
        ops = ast.Tuple([ast.Constant(_COMPARE_OPS[type(op)]) for op in node.ops], ast.Load())
        operands = [thunk(e) for e in [node.left, *node.comparators]]
        return _place(ag_call("compare_chain", ops, *operands), node)


def as_test(expression: ast.expr) -> ast.expr:
    """`expression` where only its truth counts (an if's or while's test, `not`'s operand):
    a converted `a and b` / `a or b` there is `and_test` / `or_test`, whose staged result is
    a bool (`if x > 0 and y:` with a float y), where in a value it is the operand Python's
    is, and must be of one type."""
    if isinstance(expression, ast.BoolOp):  # converted later (visit_BoolOp)
        expression.ag_test = True  # type: ignore[attr-defined]  # a marker on the node
    elif isinstance(expression, ast.Call) and getattr(expression, "ag_generated", False):
        function = expression.func
        if isinstance(function, ast.Attribute) and function.attr in ("and_", "or_"):
            function.attr += "test"
    return expression
