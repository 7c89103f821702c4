"""lower-asserts: `cf.assert` -> a branch to a block that returns an error status.

Expects cf-level functions (no results, destination-passing) that may contain
`cf.assert %ok, "ErrorType: message"`. Produces functions returning an `i32`
status, the ABI of every compiled kernel (`codegen/abi.py`):

    0      the call succeeded;
    k > 0  the k-th assertion failed: its message is `tj.messages[k - 1]`, an array
           attribute on the module the caller reads to raise `ErrorType(message)`.

    cf.assert %ok, "IndexError: ..."        ->      cf.cond_br %ok, ^continue, ^fail1
                                                  ^fail1:
                                                    %s = arith.constant 1 : i32
                                                    func.return %s : i32

Buffers allocated before a failed assertion are not freed (a leak on the error
path only, never a wrong result).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf, func
from xdsl.dialects.builtin import ArrayAttr, FunctionType, IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.ir import Block
from xdsl.passes import ModulePass
from xdsl.utils.hints import isa

from tracejit.ir.invariants import enclosing_block
from tracejit.ir.runtime_contract import MESSAGES_ATTR


def _status_block(code: int) -> Block:
    block = Block()
    status = arith.ConstantOp(IntegerAttr(code, i32))
    block.add_ops([status, func.ReturnOp(status.result)])
    return block


def lower_function_asserts(function: func.FuncOp, messages: list[str]) -> None:
    """Give `function` an i32 status result and turn its asserts into branches."""
    for assert_op in [op for op in function.walk() if isinstance(op, cf.AssertOp)]:
        messages.append(assert_op.msg.data)
        block = assert_op.parent_block()
        assert block is not None and block.parent is not None
        rest = block.split_before(assert_op)
        fail = _status_block(len(messages))
        block.parent.add_block(fail)
        branch = cf.ConditionalBranchOp(assert_op.arg, rest, (), fail, ())
        branch.location = assert_op.location
        assert_op.detach()
        assert_op.erase()
        block.add_op(branch)
    for ret in [op for op in function.walk() if isinstance(op, func.ReturnOp)]:
        if ret.arguments:
            continue  # an error-status return made above
        ok = arith.ConstantOp(IntegerAttr(0, i32))
        enclosing_block(ret).insert_op_before(ok, ret)
        enclosing_block(ret).insert_op_before(func.ReturnOp(ok.result), ret)
        ret.detach()
        ret.erase()
    inputs = function.function_type.inputs
    function.function_type = FunctionType.from_lists(list(inputs), [i32])


def _is_kernel(op) -> bool:
    """A defined function in destination-passing form (no results yet)."""
    return (
        isinstance(op, func.FuncOp) and bool(op.body.blocks) and not op.function_type.outputs.data
    )


def lower_asserts(module: ModuleOp) -> None:
    existing = module.attributes.get(MESSAGES_ATTR, ArrayAttr([]))
    assert isa(existing, ArrayAttr[StringAttr])
    messages: list[str] = [m.data for m in existing]
    for function in module.ops:
        if _is_kernel(function):
            lower_function_asserts(function, messages)
    module.attributes[MESSAGES_ATTR] = ArrayAttr([StringAttr(m) for m in messages])


@dataclass(frozen=True)
class LowerAssertsPass(ModulePass):
    """cf.assert -> branches to error-status returns; kernels return an i32 status."""

    name = "lower-asserts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_asserts(op)
