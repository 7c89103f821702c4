"""Buffer forms of the value-semantics updates (ir/update.py), used by `bufferize`.

* `tj.to_index` loads the integer, wraps a negative one and checks it (`cf.assert`).
* `tj.insert_slice` and `tj.scatter` store into the old value's buffer when it is dead
  and owned here (in_place.py), else into a copy of it. So `D[i, j] = v` in a loop over
  `D` is one store per iteration:

      %d2 = tj.insert_slice %v into %d, start = [?, ?], step = [1, 1] starts(%i, %j)
        ->   %x = memref.load %v[%c0, %c0]
             memref.store %x, %d[%i, %j]          // %d: the loop's state buffer
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, i64
from xdsl.ir import Operation, SSAValue

from tracejit.ir.dtypes import element_of, is_unsigned
from tracejit.ir.update import InsertSliceOp, ScatterOp, ToIndexOp
from tracejit.passes.bufferize.builder import FunctionBufferizer, Handler
from tracejit.passes.bufferize.in_place import consumable, loop_nest
from tracejit.passes.bufferize.shapes import checked_index
from tracejit.passes.support.indices import index_constant


def lower_to_index(bufferizer: FunctionBufferizer, op: ToIndexOp) -> None:
    b = bufferizer.builder
    raw = b.insert(memref.LoadOp.get(bufferizer.values[op.input], [])).res
    if op.in_bounds is not None:  # proved in [0, size) by prove-in-bounds: no wrap, no check
        if raw.type.width.data < 64:  # type: ignore[attr-defined]  # an integer type
            raw = b.insert(arith.ExtUIOp(raw, i64)).result
        bufferizer.values[op.result] = b.insert(arith.IndexCastOp(raw, IndexType())).result
        return
    size = bufferizer.values[op.dim] if op.dim is not None else op.get_size()
    unsigned = is_unsigned(element_of(op.input))
    bufferizer.values[op.result] = checked_index(
        b, raw, unsigned, size, op.message.data, op.location
    )


def _updated_buffer(bufferizer: FunctionBufferizer, op: Operation, dest: SSAValue) -> SSAValue:
    """The buffer `op`'s result is written in: `dest`'s own when it may be overwritten,
    else a copy of it."""
    source = bufferizer.values[dest]
    if consumable(bufferizer, dest, op):
        return source
    target = bufferizer.destination(op.results[0], bufferizer.sizes_like(op.results[0], source))
    bufferizer.copy_into(source, target)
    return target


def lower_insert_slice(bufferizer: FunctionBufferizer, op: InsertSliceOp) -> None:
    target = _updated_buffer(bufferizer, op, op.dest)
    source = bufferizer.values[op.source]
    run_time = iter(bufferizer.values[v] for v in op.starts)
    starts = [next(run_time) if a == DYNAMIC_INDEX else a for a in op.get_start()]
    b = bufferizer.builder
    zero = index_constant(b, 0)
    bounds = [(zero, bufferizer.dim(source, d)) for d in range(len(starts))]

    def body(b: Builder, idx: list[SSAValue]) -> None:
        position = [
            _offset(b, i, first, stride)
            for i, first, stride in zip(idx, starts, op.get_step(), strict=True)
        ]
        value = b.insert(memref.LoadOp.get(source, idx)).res
        b.insert(memref.StoreOp.get(value, target, position))

    loop_nest(b, bounds, body)
    bufferizer.values[op.result] = target


def _offset(b: Builder, i: SSAValue, first: int | SSAValue, stride: int) -> SSAValue:
    """first + i * stride as an `index`."""
    scaled = i if stride == 1 else b.insert(arith.MuliOp(i, index_constant(b, stride))).result
    if isinstance(first, int) and first == 0:
        return scaled
    start = index_constant(b, first) if isinstance(first, int) else first
    return b.insert(arith.AddiOp(start, scaled)).result


def lower_scatter(bufferizer: FunctionBufferizer, op: ScatterOp) -> None:
    target = _updated_buffer(bufferizer, op, op.dest)
    updates, indices = bufferizer.values[op.updates], bufferizer.values[op.indices]
    unsigned = is_unsigned(element_of(op.indices))
    size = bufferizer.dim(target, 0)
    b = bufferizer.builder
    bounds = [(index_constant(b, 0), bufferizer.dim(indices, 0))]

    def body(b: Builder, idx: list[SSAValue]) -> None:
        raw = b.insert(memref.LoadOp.get(indices, idx)).res
        position = checked_index(b, raw, unsigned, size, op.message.data, op.location)
        value = b.insert(memref.LoadOp.get(updates, idx)).res
        b.insert(memref.StoreOp.get(value, target, [position]))

    loop_nest(b, bounds, body)
    bufferizer.values[op.result] = target


UPDATE_HANDLERS: dict[type[Operation], Handler] = {
    ToIndexOp: lower_to_index,
    InsertSliceOp: lower_insert_slice,
    ScatterOp: lower_scatter,
}
