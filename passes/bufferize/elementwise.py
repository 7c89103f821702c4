"""Buffer forms of element-wise ops and constants (used by `bufferize`)."""

from __future__ import annotations

from xdsl.dialects import cf, memref
from xdsl.dialects.builtin import MemRefType, StringAttr, UnitAttr

from tracejit.ir import elementwise as ew
from tracejit.ir.constant import ConstantOp
from tracejit.ir.dense import array_from_dense, dense_from_array
from tracejit.ir.effects import AssertOp
from tracejit.passes.bufferize.builder import (
    PARALLEL,
    FunctionBufferizer,
    element_of,
    identity_map,
    memref_type,
    rank_of,
)
from tracejit.passes.support import scalar_semantics as scalar


def lower_elementwise(bufferizer: FunctionBufferizer, op: ew.ElementwiseUnaryOp) -> None:
    """One parallel generic whose body is the op's scalar form."""
    element = element_of(op.operands[0])
    inputs = [bufferizer.values[v] for v in op.operands]
    bufferizer.parallel_generic(
        op, inputs, lambda b, ins, outs: [scalar.emit_scalar(b, type(op), ins, element)]
    )


def lower_compare(bufferizer: FunctionBufferizer, op: ew.CompareOp) -> None:
    element, predicate = element_of(op.lhs), op.predicate.data
    bufferizer.parallel_generic(
        op,
        [bufferizer.values[op.lhs], bufferizer.values[op.rhs]],
        lambda b, ins, outs: [scalar.emit_compare(b, predicate, ins[0], ins[1], element)],
    )


def lower_select(bufferizer: FunctionBufferizer, op: ew.SelectOp) -> None:
    bufferizer.parallel_generic(
        op,
        [bufferizer.values[v] for v in op.operands],
        lambda b, ins, outs: [scalar.emit_select(b, *ins)],
    )


def lower_cast(bufferizer: FunctionBufferizer, op: ew.CastOp) -> None:
    source, target = element_of(op.input), element_of(op.result)
    bufferizer.parallel_generic(
        op,
        [bufferizer.values[op.input]],
        lambda b, ins, outs: [scalar.emit_cast(b, ins[0], source, target)],
    )


def lower_constant(bufferizer: FunctionBufferizer, op: ConstantOp) -> None:
    """A splat (all elements bit-identical: -0.0 is not 0.0) becomes a fill; anything else
    a read-only `memref.global`."""
    element = element_of(op.result)
    splat = op.splat()
    if splat is not None:
        buffer = bufferizer.destination(op.result)
        rank = rank_of(op.result)
        value = splat.item()
        bufferizer.generic(
            [],
            buffer,
            [identity_map(rank)],
            [PARALLEL] * rank,
            lambda b, ins, outs: [scalar.constant(b, value, element)],
            op.location,
        )
    else:
        buffer_type = memref_type(op.result.type)
        name = _add_global(bufferizer, op, buffer_type)
        buffer = bufferizer.builder.insert(memref.GetGlobalOp(name, buffer_type)).memref
        if op.result in bufferizer.returned:  # copied once, into the output
            destination = bufferizer.destination(op.result)
            bufferizer.copy_into(buffer, destination)
            buffer = destination
    bufferizer.values[op.result] = buffer


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
    block.insert_op_before(glob, block.first_op)  # type: ignore[arg-type]
    return name


def lower_assert(bufferizer: FunctionBufferizer, op: AssertOp) -> None:
    """Read the 0-d condition buffer and `cf.assert` on it (`lower-asserts` finishes)."""
    condition = bufferizer.builder.insert(memref.LoadOp.get(bufferizer.values[op.condition], []))
    assert_op = cf.AssertOp(condition.res, op.message)
    assert_op.location = op.location
    bufferizer.builder.insert(assert_op)


ELEMENTWISE_HANDLERS = {
    **{op_type: lower_elementwise for op_type in (*ew.UNARY_OPS, *ew.BINARY_OPS)},
    ew.CastOp: lower_cast,
    ew.CompareOp: lower_compare,
    ew.SelectOp: lower_select,
    ConstantOp: lower_constant,
    AssertOp: lower_assert,
}
