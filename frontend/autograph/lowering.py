"""Lowering `break`, `continue` and `return` into flag variables and guarded blocks.

Staged branches and loop bodies become separate Python functions, where a jump
statement would mean something else (or nothing), so jumps are rewritten first, into
plain Python with the same meaning:

    while c:                      break_ = False
        if p:                     while not break_ and c:
            break                     if p:
        x = f(x)          ==>             break_ = True
    else:                             if not break_:
        done()                            x = f(x)
                                  if not break_:
                                      done()

`continue` is the same with a flag reset at the top of the body; `return v` sets
`do_return = True; retval_ = v`, guards the rest, stops enclosing loops, and the
function ends with `return retval_`. When an `if`'s body always jumps, the statements
after it move into its `else` instead of under a guard (TF's pattern), so that
`if c: return a` / `return b` stays one conditional with a value on both paths.
Loops get their extra stop conditions as `node.extra_tests` (used by the converter).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from tracejit.frontend.autograph import analysis

LOOPS = (ast.For, ast.While)


class Namer:
    """Fresh names that collide with no identifier of the function being converted."""

    def __init__(self, taken: set[str]):
        self.taken = set(taken)

    def new(self, base: str) -> str:
        name, suffix = base, 0
        while name in self.taken:
            suffix += 1
            name = f"{base}_{suffix}"
        self.taken.add(name)
        return name


def located(nodes: list[ast.stmt], source: ast.stmt | ast.expr) -> list[ast.stmt]:
    """Give generated nodes the line of the user statement they come from."""
    # One-line spans: a multi-line span would make Python report a call at its last line.
    line, column = source.lineno, source.col_offset
    for root in nodes:
        for node in analysis.walk_tree(root):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                # typeshed declares the location fields per node class, not on ast.AST
                node.lineno, node.col_offset = line, column  # type: ignore[attr-defined]  # every node has them
                node.end_lineno, node.end_col_offset = line, column  # type: ignore[attr-defined]  # every node has them
    return nodes


def add_extra_test(loop: ast.For | ast.While, test: ast.expr) -> None:
    """One more stop condition for `loop` (AutoGraph's own field, read by the converter)."""
    loop.extra_tests = [*getattr(loop, "extra_tests", []), test]  # type: ignore[union-attr]  # For/While nodes only


def assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[ast.Name(name, ast.Store())], value=value)


def not_flag(flag: str) -> ast.expr:
    return ast.UnaryOp(ast.Not(), ast.Name(flag, ast.Load()))


@dataclass
class _Jumps:
    """Rewrites one kind of jump in a block: `replace` gives its flag-setting statements."""

    kind: type
    flag: str
    replace: Callable[[ast.stmt], list[ast.stmt]]
    stop_loops: bool = False  # return: loops containing the jump get `not flag` as extra test

    def block(self, stmts: list[ast.stmt]) -> tuple[list[ast.stmt], bool, bool]:
        """The rewritten block, whether it may jump, and whether it always jumps."""
        out: list[ast.stmt] = []
        for index, stmt in enumerate(stmts):
            rest = stmts[index + 1 :]
            if isinstance(stmt, self.kind):
                return out + located(self.replace(stmt), stmt), True, True  # rest is dead
            if isinstance(stmt, ast.If):
                may, always, placed = self._if(stmt, rest)
            else:
                (may, always), placed = self._compound(stmt), False
            out.append(stmt)
            if always:
                return out, True, True
            if may:
                return out + ([] if placed else self._guarded(rest)), True, False
        return out, False, False

    def _guarded(self, rest: list[ast.stmt]) -> list[ast.stmt]:
        """`if not flag: <rest>`, the statements after one that may jump."""
        if not rest:
            return []
        body, _, _ = self.block(rest)
        return located([ast.If(test=not_flag(self.flag), body=body, orelse=[])], rest[0])

    def _if(self, node: ast.If, rest: list[ast.stmt]) -> tuple[bool, bool, bool]:
        """Rewrite an `if`; may it jump, does it always, and did it absorb `rest`?"""
        node.body, body_may, body_always = self.block(node.body)
        if body_always:  # `if c: <jump>` + rest  ==>  `if c: <jump>` `else: <orelse> + rest`
            node.orelse, _, orelse_always = self.block(node.orelse + rest)
            return True, orelse_always, True
        node.orelse, orelse_may, orelse_always = self.block(node.orelse)
        node.body = node.body or [ast.Pass()]
        if not orelse_always:
            return body_may or orelse_may, False, False
        if body_may:  # the else always jumps: rest runs after the body only
            node.body = node.body + self._guarded(rest)
            return True, False, True
        tail, _, tail_always = self.block(rest)
        node.body = node.body + tail
        return True, tail_always, True

    def _compound(self, node: ast.stmt) -> tuple[bool, bool]:
        """Rewrite the blocks of a compound statement; may it / does it always jump?"""
        if isinstance(node, _SCOPES) or (isinstance(node, LOOPS) and not self.stop_loops):
            return False, False  # own scope; or break/continue of an inner, lowered loop
        endless = _is_endless(node)  # before the return flag becomes its extra test
        always: dict[tuple[int, str], bool] = {}
        may = False
        for owner, field in _blocks_of(node):
            new, block_may, block_always = self.block(getattr(owner, field))
            setattr(owner, field, new or ([ast.Pass()] if field == "body" else []))
            may, always[id(owner), field] = may or block_may, block_always
        if may and isinstance(node, LOOPS):
            add_extra_test(node, not_flag(self.flag))
        return may, (endless and may) or _always_jumps(node, always)


# --- loops: break, continue and `else` ------------------------------------------------------
def lower_loops(stmts: list[ast.stmt], namer: Namer) -> list[ast.stmt]:
    """Lower break/continue/else of every loop in this scope, inner loops first."""
    out: list[ast.stmt] = []
    for stmt in stmts:
        if isinstance(stmt, _SCOPES):
            out.append(stmt)
            continue
        for owner, field in _blocks_of(stmt):
            setattr(owner, field, lower_loops(getattr(owner, field), namer))
        out += _lower_loop(stmt, namer) if isinstance(stmt, LOOPS) else [stmt]
    return out


def _lower_loop(loop: ast.For | ast.While, namer: Namer) -> list[ast.stmt]:
    before: list[ast.stmt] = []
    orelse, loop.orelse = loop.orelse, []
    if analysis.contains(loop.body, ast.Continue, loops=False):
        flag = namer.new("continue_")
        jumps = _Jumps(ast.Continue, flag, lambda _: [assign(flag, ast.Constant(True))])
        body, _, _ = jumps.block(loop.body)
        loop.body = located([assign(flag, ast.Constant(False))], loop) + body
    after = orelse
    if analysis.contains(loop.body, ast.Break, loops=False):
        flag = namer.new("break_")
        jumps = _Jumps(ast.Break, flag, lambda _: [assign(flag, ast.Constant(True))])
        body, _, _ = jumps.block(loop.body)
        loop.body = body or [ast.Pass()]
        add_extra_test(loop, not_flag(flag))
        before = [assign(flag, ast.Constant(False))]
        after = [ast.If(test=not_flag(flag), body=orelse, orelse=[])] if orelse else []
    return located(before, loop) + [loop] + located(after, loop)


# --- return ---------------------------------------------------------------------------------
def lower_returns(function: ast.FunctionDef, namer: Namer) -> None:
    """Rewrite `return` when one occurs inside a compound statement (else keep it)."""
    nested = [s for s in function.body if not isinstance(s, (ast.Return, *_SCOPES))]
    if not analysis.contains(nested, ast.Return, loops=True):
        return
    flag, value = namer.new("do_return"), namer.new("retval_")

    def replace(node: ast.stmt) -> list[ast.stmt]:
        assert isinstance(node, ast.Return)
        result = node.value if node.value is not None else ast.Constant(None)
        # The value first: if computing it raises (and an `except` catches it), the function
        # has not returned.
        return [assign(value, result), assign(flag, ast.Constant(True))]

    body = function.body
    if not isinstance(body[-1], ast.Return):  # falling off the end returns None
        body = body + located([ast.Return(None)], body[-1])
    jumps = _Jumps(ast.Return, flag, replace, stop_loops=True)
    new_body, _, _ = jumps.block(body)
    undefined = ast.Call(ag("Undefined"), [ast.Constant(value)], [])
    undefined.ag_generated = True  # type: ignore[attr-defined]  # not a user call
    start = located([assign(flag, ast.Constant(False)), assign(value, undefined)], function.body[0])
    end = located([ast.Return(ast.Name(value, ast.Load()))], body[-1])
    function.body = start + new_body + end


def _is_endless(node: ast.stmt) -> bool:
    """`while True:` with no break (lowered breaks are extra tests): it only ends by a jump."""
    return (
        isinstance(node, ast.While)
        and isinstance(node.test, ast.Constant)
        and node.test.value is True
        and not getattr(node, "extra_tests", [])
    )


def _always_jumps(node: ast.stmt, always: dict[tuple[int, str], bool]) -> bool:
    """Does every path through `node` jump, given which of its blocks always do?"""
    if isinstance(node, ast.With | ast.AsyncWith):
        return always[id(node), "body"]
    if isinstance(node, ast.Try | getattr(ast, "TryStar", ast.Try)):
        handled = all(always[id(h), "body"] for h in node.handlers)
        return (always[id(node), "body"] and handled) or always.get((id(node), "finalbody"), False)
    return False


def ag(attribute: str) -> ast.expr:
    """`ag__.<attribute>`: the runtime helpers, bound in every converted function."""
    return ast.Attribute(ast.Name("ag__", ast.Load()), attribute, ast.Load())


def ag_call(attribute: str, *args: ast.expr) -> ast.Call:
    """`ag__.<attribute>(*args)`, marked as generated (ExpressionConverter leaves it)."""
    call = ast.Call(ag(attribute), list(args), [])
    call.ag_generated = True  # type: ignore[attr-defined]  # a marker on the node
    return call


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _blocks_of(node: ast.stmt) -> list[tuple[ast.AST, str]]:
    """The statement lists of a compound statement, as (owner, field) pairs."""
    owners: list[ast.AST] = [node, *getattr(node, "handlers", []), *getattr(node, "cases", [])]
    fields = ("body", "orelse", "finalbody")
    return [(o, f) for o in owners for f in fields if isinstance(getattr(o, f, None), list)]
