"""Buffer form of `tj.nonzero` (ir/nonzero.py), used by `bufferize`.

The result's row count is the number of non-zero elements, known only once the input
has been read. So the input is read twice, by two `scf.for` nests over its dims that
carry a row counter: the first counts the non-zero elements, the result buffer is
allocated with that many rows, and the second writes the coordinates of each non-zero
element into the next row:

    %n = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %c0) -> (index) {
      %x = memref.load %in[%i] : memref<4xf32>
      %nz = arith.cmpf une, %x, %zero : f32              // NaN counts, -0.0 does not
      %add = arith.select %nz, %c1, %c0 : index
      %a2 = arith.addi %a, %add : index
      scf.yield %a2 : index
    }
    %out = memref.alloc(%n) : memref<?x1xi64>
    %_ = scf.for %i = %c0 to %c4 step %c1 iter_args(%row = %c0) -> (index) {
      ...
      %next = scf.if %nz -> (index) {
        memref.store %i_as_i64, %out[%row, %c0] : memref<?x1xi64>
        scf.yield %row + 1
      } else { scf.yield %row }
      scf.yield %next : index
    }

The fill nest makes exactly as many rows as the count nest counted, so every store is in
bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, i1, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tracejit.ir.dtypes import element_of
from tracejit.ir.nonzero import NonzeroOp
from tracejit.ir.shaped import shaped_type
from tracejit.passes.bufferize.builder import FunctionBufferizer, Handler
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.indices import dim_size, index_constant

# step(builder, indices of one element, counter) -> the counter after that element
Step = Callable[[Builder, list[SSAValue], SSAValue], SSAValue]


def counting_nest(
    builder: Builder, sizes: Sequence[SSAValue], start: SSAValue, step: Step
) -> SSAValue:
    """`counter = start; for each index tuple below sizes, in row-major order: counter =
    step(indices, counter)`, as a `scf.for` nest carrying the counter; returns it."""
    if not sizes:
        return step(builder, [], start)
    block = Block(arg_types=[IndexType(), IndexType()])
    index, counter = block.args
    inner = Builder(InsertPoint.at_end(block))
    result = counting_nest(inner, sizes[1:], counter, lambda b, rest, c: step(b, [index, *rest], c))
    inner.insert(scf.YieldOp(result))
    zero, one = index_constant(builder, 0), index_constant(builder, 1)
    return builder.insert(scf.ForOp(zero, sizes[0], one, [start], block)).results[0]


def _is_nonzero(b: Builder, source: SSAValue, op: NonzeroOp, indices: list[SSAValue]):
    """Element `indices` of the input buffer `source` as an i1 (`x != 0`, NumPy's truth)."""
    value = b.insert(memref.LoadOp.get(source, indices)).res
    return scalar.emit_cast(b, value, element_of(op.input), i1)


def _store_coordinates(source: SSAValue, target: SSAValue, op: NonzeroOp) -> Step:
    def step(b: Builder, indices: list[SSAValue], row: SSAValue) -> SSAValue:
        nonzero = _is_nonzero(b, source, op, indices)
        then = Block()
        writer = Builder(InsertPoint.at_end(then))
        for axis, index in enumerate(indices):
            coordinate = writer.insert(arith.IndexCastOp(index, i64)).result
            column = index_constant(writer, axis)
            writer.insert(memref.StoreOp.get(coordinate, target, [row, column]))
        after = writer.insert(arith.AddiOp(row, index_constant(writer, 1))).result
        writer.insert(scf.YieldOp(after))
        skip = Block([scf.YieldOp(row)])
        branch = scf.IfOp(nonzero, [IndexType()], Region(then), Region(skip))
        return b.insert(branch).results[0]

    return step


def lower_nonzero(bufferizer: FunctionBufferizer, op: NonzeroOp) -> None:
    builder = bufferizer.builder
    source = bufferizer.values[op.input]
    rank = len(shaped_type(op.input).get_shape())
    sizes = [dim_size(builder, source, axis) for axis in range(rank)]
    zero, one = index_constant(builder, 0), index_constant(builder, 1)

    def count(b: Builder, indices: list[SSAValue], counter: SSAValue) -> SSAValue:
        nonzero = _is_nonzero(b, source, op, indices)
        add = b.insert(arith.SelectOp(nonzero, one, zero)).result
        return b.insert(arith.AddiOp(counter, add)).result

    rows = counting_nest(builder, sizes, zero, count)
    target = bufferizer.destination(op.result, [rows])
    counting_nest(builder, sizes, zero, _store_coordinates(source, target, op))
    bufferizer.values[op.result] = target


NONZERO_HANDLERS: dict[type[Operation], Handler] = {NonzeroOp: lower_nonzero}
