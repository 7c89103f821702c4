"""inline: replace every `func.call` to a function of the module by the callee's body.

Expects tensor-level functions (single-block bodies ending in `func.return`), as
tracing produces when one `tj.function` calls another. Produces the same module
with no calls between its functions, so fusion and bufferization see one body;
private functions left without callers are erased.

    %r = func.call @inner(%x) : (tensor<4xf32>) -> tensor<4xf32>
      ->  %r = tj.exp %x : tensor<4xf32>          (inner's body, its arguments mapped)
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from tracejit.ir.invariants import enclosing_block


def _functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}


def inline_call(call: func.CallOp, callee: func.FuncOp) -> list[SSAValue]:
    """Clone `callee`'s body in front of `call` and forward its returned values (which it
    returns)."""
    block = callee.body.block
    values: dict[SSAValue, SSAValue] = dict(zip(block.args, call.arguments, strict=True))
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            returned = [values.get(v, v) for v in op.arguments]
            break
        enclosing_block(call).insert_op_before(op.clone(value_mapper=values), call)
    for result, value in zip(call.results, returned, strict=True):
        result.replace_all_uses_with(value)
    call.detach()
    call.erase()
    return returned


def inline_module(module: ModuleOp) -> None:
    functions = _functions(module)
    while calls := [
        op
        for op in module.walk()
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in functions
    ]:
        for call in calls:
            inline_call(call, functions[call.callee.root_reference.data])
    for function in functions.values():
        if function.sym_visibility is not None and function.sym_visibility.data == "private":
            function.detach()
            function.erase()


@dataclass(frozen=True)
class InlinePass(ModulePass):
    """Inline calls between the module's functions and drop unused private ones."""

    name = "inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_module(op)
