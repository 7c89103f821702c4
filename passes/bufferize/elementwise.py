"""Buffer forms of element-wise ops and constants (used by `bufferize`)."""

from __future__ import annotations

from xdsl.dialects import arith, cf, func, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, StringAttr, UnitAttr, i1
from xdsl.ir import Operation, SSAValue

from tracejit.ir.constant import ConstantOp
from tracejit.ir.dense import array_from_dense, dense_from_array
from tracejit.ir.effects import AssertOp, CheckInterruptOp, ClearInterruptOp
from tracejit.ir.fused import ELEMENTWISE_OPS
from tracejit.ir.invariants import first_op
from tracejit.passes.bufferize.builder import (
    PARALLEL,
    FunctionBufferizer,
    Handler,
    identity_map,
    memref_type,
    rank_of,
)
from tracejit.passes.support import scalar_semantics as scalar


def lower_elementwise(bufferizer: FunctionBufferizer, op: Operation) -> None:
    """One parallel generic whose body is the op's scalar form (`scalar.emit_op`, as in a
    `tj.fused` kernel)."""
    inputs = [bufferizer.values[v] for v in op.operands]
    bufferizer.parallel_generic(op, inputs, lambda b, ins, outs: [scalar.emit_op(b, op, ins)])


def lower_constant(bufferizer: FunctionBufferizer, op: ConstantOp) -> None:
    """A splat (all elements bit-identical: -0.0 is not 0.0) becomes a fill; anything else
    a read-only `memref.global`."""
    if op.splat() is not None:
        buffer = bufferizer.destination(op.result)
        _fill(bufferizer, op, buffer)
    else:
        buffer_type = memref_type(op.result.type)
        name = _add_global(bufferizer, op, buffer_type)
        buffer = bufferizer.builder.insert(memref.GetGlobalOp(name, buffer_type)).memref
        if bufferizer.output_for(op.result) is not None:  # copied once, into the output
            destination = bufferizer.destination(op.result)
            bufferizer.copy_into(buffer, destination)
            buffer = destination
    bufferizer.values[op.result] = buffer


def _fill(bufferizer: FunctionBufferizer, op: ConstantOp, buffer: SSAValue) -> None:
    rank = rank_of(op.result)
    bufferizer.generic(
        [],
        buffer,
        [identity_map(rank)],
        [PARALLEL] * rank,
        lambda b, ins, outs: [scalar.emit_op(b, op, [])],
        op.location,
    )


def fill_or_copy(bufferizer: FunctionBufferizer, value: SSAValue, destination: SSAValue) -> None:
    """destination = `value`: a splat constant is filled in again (writes only) rather
    than copied from its buffer (a read and a write of every element: `a = np.zeros(..)`
    and `b = np.zeros(..)` are one constant after CSE, and each loop writing into its own
    paid a copy of the other)."""
    owner = value.owner
    if isinstance(owner, ConstantOp) and owner.splat() is not None:
        _fill(bufferizer, owner, destination)
    else:
        bufferizer.copy_into(bufferizer.values[value], destination)


def _add_global(bufferizer: FunctionBufferizer, op: ConstantOp, buffer_type: MemRefType) -> str:
    block = bufferizer.module.body.block
    taken = {g.sym_name.data for g in block.ops if isinstance(g, memref.GlobalOp)}
    index = len(taken)
    while f"__tj_constant_{index}" in taken:
        index += 1
    name = f"__tj_constant_{index}"
    array = array_from_dense(op.value)
    if array.dtype.kind == "u":  # buffers hold signless integers: reinterpret the bits
        array = array.view(array.dtype.str.replace("u", "i"))
    value = dense_from_array(array)
    glob = memref.GlobalOp.get(
        StringAttr(name), buffer_type, value, constant=UnitAttr(), alignment=64
    )
    block.insert_op_before(glob, first_op(block))
    return name


def lower_assert(bufferizer: FunctionBufferizer, op: AssertOp) -> None:
    """Read the 0-d condition buffer and `cf.assert` on it (`lower-asserts` finishes)."""
    condition = bufferizer.builder.insert(memref.LoadOp.get(bufferizer.values[op.condition], []))
    assert_op = cf.AssertOp(condition.res, op.message)
    assert_op.location = op.location
    bufferizer.builder.insert(assert_op)


INTERRUPTED, CLEAR_INTERRUPT = "tracejit_interrupted", "tracejit_clear_interrupt"
INTERRUPT_MESSAGE = "KeyboardInterrupt: a staged loop of the compiled function was interrupted"


def _runtime_function(module: ModuleOp, name: str, results: list) -> None:
    """Declare `func.func private @name() -> results` once in `module` (upstream MLIR's
    form of a function the code generator provides; codegen/interrupts.py)."""
    if any(isinstance(op, func.FuncOp) and op.sym_name.data == name for op in module.ops):
        return
    declaration = func.FuncOp.external(name, [], results)
    first = module.body.block.first_op  # (the function being bufferized: never None)
    assert first is not None
    module.body.block.insert_op_before(declaration, first)


def lower_check_interrupt(bufferizer: FunctionBufferizer, op: CheckInterruptOp) -> None:
    """`tj.check_interrupt` -> `%stop = func.call @tracejit_interrupted() : () -> i1` and
    `cf.assert (not %stop), "KeyboardInterrupt: ..."` (lower-asserts returns its status)."""
    _runtime_function(bufferizer.module, INTERRUPTED, [i1])
    b = bufferizer.builder
    stop = b.insert(func.CallOp(INTERRUPTED, [], [i1]))
    true = b.insert(arith.ConstantOp(IntegerAttr(-1, i1)))
    go = b.insert(arith.XOrIOp(stop.res[0], true.result))
    check = b.insert(cf.AssertOp(go.result, INTERRUPT_MESSAGE))
    for new in (stop, true, go, check):
        new.location = op.location


def lower_clear_interrupt(bufferizer: FunctionBufferizer, op: ClearInterruptOp) -> None:
    """`tj.clear_interrupt` -> `func.call @tracejit_clear_interrupt() : () -> ()`."""
    _runtime_function(bufferizer.module, CLEAR_INTERRUPT, [])
    call = bufferizer.builder.insert(func.CallOp(CLEAR_INTERRUPT, [], []))
    call.location = op.location


ELEMENTWISE_HANDLERS: dict[type[Operation], Handler] = {
    **dict.fromkeys(ELEMENTWISE_OPS, lower_elementwise),
    ConstantOp: lower_constant,
    AssertOp: lower_assert,
    CheckInterruptOp: lower_check_interrupt,
    ClearInterruptOp: lower_clear_interrupt,
}
