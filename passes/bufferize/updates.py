"""Buffer forms of the value-semantics updates (ir/update.py), used by `bufferize`.

* `tj.to_index` loads the integer, wraps a negative one and checks it (`cf.assert`).
* `tj.insert_slice`, `tj.scatter` and `tj.scatter_combine` store into the old value's
  buffer when it is dead
  and owned here (in_place.py), else into a copy of it. So `D[i, j] = v` in a loop over
  `D` is one store per iteration:

      %d2 = tj.insert_slice %v into %d, start = [?, ?], step = [1, 1] starts(%i, %j)
        ->   %x = memref.load %v[%c0, %c0]
             memref.store %x, %d[%i, %j]          // %d: the loop's state buffer
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, MemRefType, i64
from xdsl.ir import Attribute, Operation, SSAValue

from tracejit.ir.dtypes import element_kind, element_of, is_unsigned
from tracejit.ir.elementwise import AddOp, DivOp, MulOp
from tracejit.ir.scatter_combine import UNARY_COMBINERS, ScatterCombineOp
from tracejit.ir.shaped import shaped_type
from tracejit.ir.update import InsertSliceOp, ScatterOp, ToIndexOp
from tracejit.passes.bufferize.builder import FunctionBufferizer, Handler
from tracejit.passes.bufferize.elementwise import fill_or_copy
from tracejit.passes.bufferize.in_place import consumable, loop_nest, static_bounds
from tracejit.passes.bufferize.shapes import checked_index
from tracejit.passes.support import scalar_semantics as scalar
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
    fill_or_copy(bufferizer, dest, target)
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


# Integer sums into a dest of at most this many elements (bincount, histogram counts) are
# added into LANES interleaved copies first: consecutive updates of one bin then do not
# wait for each other's store (the copies are added up at the end; integer addition is
# associative, so the result is the same).
LANES = 4
LANES_LIMIT = 1 << 12


def _in_lanes(op: ScatterCombineOp) -> bool:
    element = element_of(op.dest)
    size = shaped_type(op.dest).get_shape()[0]
    return (
        not op.is_unary
        and op.combiner_op() is AddOp
        and element == element_of(op.updates)
        and element_kind(element) in ("signed", "unsigned")
        and 0 <= size <= LANES_LIMIT
    )


def lower_scatter_combine(bufferizer: FunctionBufferizer, op: ScatterCombineOp) -> None:
    """One loop over the indices, in order: load the old element, combine it with the
    update in the updates' element type, store it back (so repeated indices accumulate)."""
    if _in_lanes(op):
        _scatter_add_in_lanes(bufferizer, op)
        return
    target = _updated_buffer(bufferizer, op, op.dest)
    updates, indices = bufferizer.values[op.updates], bufferizer.values[op.indices]
    unsigned = is_unsigned(element_of(op.indices))
    stored, computed = element_of(op.dest), element_of(op.updates)
    combiner = None if op.is_unary else op.combiner_op()
    size = bufferizer.dim(target, 0)
    b = bufferizer.builder
    bounds = [(index_constant(b, 0), bufferizer.dim(indices, 0))]
    one_update = shaped_type(updates).get_shape() == ()  # loaded once, before the loop
    shared = None
    if one_update and not op.is_unary:  # a unary combiner's updates are a dtype, not read
        shared = b.insert(memref.LoadOp.get(updates, [])).res

    def body(b: Builder, idx: list[SSAValue]) -> None:
        raw = b.insert(memref.LoadOp.get(indices, idx)).res
        position = checked_index(b, raw, unsigned, size, op.message.data, op.location)
        old = b.insert(memref.LoadOp.get(target, [position])).res
        wide = scalar.emit_cast(b, old, stored, computed)
        if combiner is None:  # unary
            combined = _unary_combine(b, op.combiner.data, wide, computed)
        else:
            value = shared or b.insert(memref.LoadOp.get(updates, idx)).res
            combined = scalar.emit_scalar(b, combiner, [wide, value], computed)
        new = scalar.emit_cast(b, combined, computed, stored)
        b.insert(memref.StoreOp.get(new, target, [position]))

    loop_nest(b, bounds, body)
    bufferizer.values[op.result] = target


def _unary_combine(b: Builder, name: str, x: SSAValue, element: Attribute) -> SSAValue:
    """A unary combiner (ir/scatter_combine.py) on the old element `x`."""
    if name == "identity":
        return x
    if name == "square":
        return scalar.emit_scalar(b, MulOp, [x, x], element)
    if name == "reciprocal":
        return scalar.emit_scalar(b, DivOp, [scalar.constant(b, 1, element), x], element)
    return scalar.emit_scalar(b, UNARY_COMBINERS[name], [x], element)


def _scatter_add_in_lanes(bufferizer: FunctionBufferizer, op: ScatterCombineOp) -> None:
    """An integer scatter-add into a small dest: update k goes to copy k % LANES of it,
    then each element of dest gets the sum of its copies.

        scratch = zeros(LANES, n)
        for k: scratch[k & 3, check(idx[k])] += v[k]
        for i: out[i] = a[i] + scratch[0, i] + ... + scratch[3, i]
    """
    target = _updated_buffer(bufferizer, op, op.dest)
    updates, indices = bufferizer.values[op.updates], bufferizer.values[op.indices]
    unsigned = is_unsigned(element_of(op.indices))
    element = scalar.signless(element_of(op.dest))
    size = shaped_type(op.dest).get_shape()[0]
    b = bufferizer.builder
    scratch = bufferizer.temporary(MemRefType(element, [LANES, size]))
    zero = scalar.constant(b, 0, element_of(op.dest))
    loop_nest(b, static_bounds(b, [LANES, size]), lambda b, at: _store(b, zero, scratch, at))
    one_update = shaped_type(updates).get_shape() == ()
    shared = b.insert(memref.LoadOp.get(updates, [])).res if one_update else None
    lane_mask = index_constant(b, LANES - 1)

    def add(b: Builder, idx: list[SSAValue]) -> None:
        raw = b.insert(memref.LoadOp.get(indices, idx)).res
        position = checked_index(b, raw, unsigned, size, op.message.data, op.location)
        lane = b.insert(arith.AndIOp(idx[0], lane_mask)).result
        old = b.insert(memref.LoadOp.get(scratch, [lane, position])).res
        value = shared or b.insert(memref.LoadOp.get(updates, idx)).res
        _store(b, b.insert(arith.AddiOp(old, value)).result, scratch, [lane, position])

    loop_nest(b, [(index_constant(b, 0), bufferizer.dim(indices, 0))], add)

    def gather_lanes(b: Builder, at: list[SSAValue]) -> None:
        total = b.insert(memref.LoadOp.get(target, at)).res
        for lane in range(LANES):
            part = b.insert(memref.LoadOp.get(scratch, [index_constant(b, lane), *at])).res
            total = b.insert(arith.AddiOp(total, part)).result
        _store(b, total, target, at)

    loop_nest(b, static_bounds(b, [size]), gather_lanes)
    bufferizer.values[op.result] = target


def _store(b: Builder, value: SSAValue, buffer: SSAValue, at: list[SSAValue]) -> None:
    b.insert(memref.StoreOp.get(value, buffer, at))


UPDATE_HANDLERS: dict[type[Operation], Handler] = {
    ToIndexOp: lower_to_index,
    InsertSliceOp: lower_insert_slice,
    ScatterOp: lower_scatter,
    ScatterCombineOp: lower_scatter_combine,
}
