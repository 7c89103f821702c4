"""Emitters for control flow: `func.return`, `func.call`, `cf.br`, `cf.cond_br`, `cf.switch`
(LAPACK calls: emit_lapack.py).

Block arguments become phi nodes (created up front by the function translator); a branch only
records its edge, and phis are filled once every block has been emitted. When two edges of one
terminator reach the same block, each gets its own trampoline block so the phis stay valid.
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir
from xdsl.dialects import cf, func
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation, SSAValue

from tracejit.codegen.context import Emitter, FunctionEmitter
from tracejit.codegen.emit_lapack import emit_lapack_call, is_lapack_call
from tracejit.codegen.emit_parallel import (
    emit_outlined_call,
    emit_parallel_call,
    is_outlined_call,
    is_parallel_call,
)
from tracejit.codegen.emit_vector import fence_streamed_lines
from tracejit.codegen.errors import CodegenError
from tracejit.codegen.interrupts import INTERRUPT_CALLS


def _return(fx: FunctionEmitter, op: func.ReturnOp) -> None:
    if fx.fences_at_return:
        fence_streamed_lines(fx)
    if not op.arguments:
        fx.b.ret_void()
    elif len(op.arguments) == 1:
        fx.b.ret(fx.get(op.arguments[0]))
    else:
        raise CodegenError("func.return with more than one value is not supported")


def _call(fx: FunctionEmitter, op: func.CallOp) -> ir.Value | None:
    name = op.callee.root_reference.data
    if name in INTERRUPT_CALLS:  # the Ctrl-C flag: a load or store, not a call
        return INTERRUPT_CALLS[name](fx.b, fx.state.module)
    if is_lapack_call(name):  # through the loader-filled table (codegen/emit_lapack.py)
        return emit_lapack_call(fx, op)
    callee = fx.state.functions.get(name)
    if callee is None:
        raise CodegenError(f"func.call: no func.func @{name} in the module")
    if is_parallel_call(op):  # an outlined loop (passes/parallelize.py): maybe forked
        return emit_parallel_call(fx, op, callee)
    if is_outlined_call(op):  # a repeated loop nest (passes/dedupe_loop_nests.py)
        return emit_outlined_call(fx, op, callee)
    # Same convention as the kernel ABI: pointers and scalars, then the dynamic dims.
    leading: list[ir.Value] = []
    dims: list[ir.Value] = []
    for value in op.arguments:
        if isinstance(value.type, MemRefType):
            leading.append(fx.memref(value).ptr)
            dims.extend(fx.flatten(value)[1:])
        else:
            leading.append(fx.get(value))
    result = fx.b.call(callee, leading + dims)
    if len(op.res) > 1:
        raise CodegenError("func.call with more than one result is not supported")
    return result if op.res else None


def _edge(fx: FunctionEmitter, target: Block, args: Sequence[SSAValue],
          trampoline: bool) -> ir.Block:
    """The LLVM block to jump to for edge -> target(args); optionally via its own block."""
    if not trampoline or not target.args:
        return fx.branch_edge(target, args)
    current = fx.b.block
    hop = fx.fn.append_basic_block("edge")
    fx.b.position_at_end(hop)
    fx.b.branch(fx.branch_edge(target, args))
    fx.b.position_at_end(current)
    return hop


def _br(fx: FunctionEmitter, op: cf.BranchOp) -> None:
    fx.b.branch(_edge(fx, op.successor, op.arguments, trampoline=False))


def _cond_br(fx: FunctionEmitter, op: cf.ConditionalBranchOp) -> None:
    shared = op.then_block is op.else_block
    then = _edge(fx, op.then_block, op.then_arguments, trampoline=False)
    other = _edge(fx, op.else_block, op.else_arguments, trampoline=shared)
    fx.b.cbranch(fx.get(op.cond), then, other)


def _switch(fx: FunctionEmitter, op: cf.SwitchOp) -> None:
    flag = fx.get(op.flag)
    default = _edge(fx, op.default_block, op.default_operands, trampoline=True)
    values = op.case_values.get_values() if op.case_values is not None else ()
    targets = [
        _edge(fx, block, args, trampoline=True)
        for block, args in zip(op.case_blocks, op.case_operand, strict=True)
    ]
    switch = fx.b.switch(flag, default)
    for value, target in zip(values, targets, strict=True):
        switch.add_case(ir.Constant(flag.type, value), target)


CONTROL_EMITTERS: dict[type[Operation], Emitter] = {
    func.ReturnOp: _return,
    func.CallOp: _call,
    cf.BranchOp: _br,
    cf.ConditionalBranchOp: _cond_br,
    cf.SwitchOp: _switch,
}
