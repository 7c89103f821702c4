"""Buffer forms of the TensorArray ops (ir/tensor_array.py), used by `bufferize`.

* `tj.set_row` writes the row into the array's own buffer when the old array value is
  dead (no later reader) and the buffer is owned here: a temporary of the current
  region, or the state of the innermost loop around it. Otherwise it copies first. So
  `ta = ta.write(i, x)` in a loop costs one row, not one array:

      %a2 = tj.set_row %a[%i], %v       ->   scf.for %j = 0 to 3 {      // in place
                                                %x = memref.load %v[%j]
                                                memref.store %x, %a[%i, %j] }

* `tj.grow` reallocates when the row count is too small: `scf.if` (needed > rows)
  allocates `max(2 * rows, needed)` rows, copies the old rows, zeroes the new ones and
  frees the old buffer (when it is dead and owned), else yields the buffer unchanged.
* A loop value with a dynamic row count (a growing array) is carried by `scf.while`
  in SSA form: its buffer may be replaced inside the body. The loop owns that buffer:
  the body yields the grown buffer (or a copy of whatever else it yields, freeing the
  old one), and after the loop the result is a temporary of the enclosing region.
* `tj.get_row` / `tj.take_rows` copy rows out; `tj.export` hands a buffer to the caller
  (moved if it is a dead temporary, else copied) and writes `[address, dims...]` into
  its i64 descriptor.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, MemRefType, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tracejit.ir import upstream_memref
from tracejit.ir.dtypes import element_of
from tracejit.ir.shaped import shaped_type
from tracejit.ir.tensor_array import ExportOp, GetRowOp, GrowOp, SetRowOp, TakeRowsOp
from tracejit.passes.bufferize.builder import (
    FunctionBufferizer,
    Handler,
    memref_type,
    owned_buffer,
)
from tracejit.passes.bufferize.control_flow import _copy_all, lower_while
from tracejit.passes.bufferize.in_place import (
    consumable,
    innermost_while,
    load_index,
    loop_nest,
    static_bounds,
)
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.indices import dim_size, index_constant

Body = Callable[[Builder, list[SSAValue]], None]


# --- small builders ----------------------------------------------------------------------
def _row_bounds(builder: Builder, buffer: SSAValue) -> list[tuple[SSAValue, SSAValue]]:
    """Bounds of the element dims of one row of `buffer` (all static)."""
    return static_bounds(builder, shaped_type(buffer).get_shape()[1:])


def _copy_rows(bufferizer, source, target, low, high, target_offset=None) -> None:
    """target[r] = source[r] for r in [low, high)."""
    bounds = [(low, high), *_row_bounds(bufferizer.builder, source)]

    def body(b: Builder, idx: list[SSAValue]) -> None:
        value = b.insert(memref.LoadOp.get(source, idx)).res
        b.insert(memref.StoreOp.get(value, target, idx))

    loop_nest(bufferizer.builder, bounds, body)


def _zero_rows(bufferizer, target, low, high, element) -> None:
    bounds = [(low, high), *_row_bounds(bufferizer.builder, target)]

    def body(b: Builder, idx: list[SSAValue]) -> None:
        b.insert(memref.StoreOp.get(scalar.constant(b, 0, element), target, idx))

    loop_nest(bufferizer.builder, bounds, body)


def _alloc_rows(builder: Builder, like: MemRefType, rows: SSAValue) -> SSAValue:
    """A heap buffer of `rows` rows shaped like `like`'s (dynamic row count)."""
    mtype = MemRefType(like.element_type, [DYNAMIC_INDEX, *like.get_shape()[1:]])
    return builder.insert(upstream_memref.AllocOp([rows], [], mtype)).memref


# --- handlers ------------------------------------------------------------------------------
def lower_set_row(bufferizer: FunctionBufferizer, op: SetRowOp) -> None:
    source = bufferizer.values[op.array]
    if consumable(bufferizer, op.array, op):
        target = source
    else:
        sizes = bufferizer.sizes_like(op.result, source)
        target = bufferizer.destination(op.result, sizes)
        bufferizer.copy_into(source, target)
    index = load_index(bufferizer, op.index)
    row = bufferizer.values[op.row]

    def body(b: Builder, idx: list[SSAValue]) -> None:
        value = b.insert(memref.LoadOp.get(row, idx)).res
        b.insert(memref.StoreOp.get(value, target, [index, *idx]))

    builder = bufferizer.builder
    loop_nest(builder, static_bounds(builder, shaped_type(row).get_shape()), body)
    bufferizer.values[op.result] = target


def lower_get_row(bufferizer: FunctionBufferizer, op: GetRowOp) -> None:
    source = bufferizer.values[op.array]
    target = bufferizer.destination(op.result)
    index = load_index(bufferizer, op.index)

    def body(b: Builder, idx: list[SSAValue]) -> None:
        value = b.insert(memref.LoadOp.get(source, [index, *idx])).res
        b.insert(memref.StoreOp.get(value, target, idx))

    builder = bufferizer.builder
    loop_nest(builder, static_bounds(builder, shaped_type(target).get_shape()), body)
    bufferizer.values[op.result] = target


def lower_take_rows(bufferizer: FunctionBufferizer, op: TakeRowsOp) -> None:
    source = bufferizer.values[op.array]
    count = load_index(bufferizer, op.count)
    target = bufferizer.destination(op.result, [count])
    _copy_rows(bufferizer, source, target, index_constant(bufferizer.builder, 0), count)
    bufferizer.values[op.result] = target


def lower_grow(bufferizer: FunctionBufferizer, op: GrowOp) -> None:
    """Reallocate to max(2 * rows, needed) rows when needed > rows (see module doc)."""
    builder = bufferizer.builder
    source = bufferizer.values[op.array]
    needed = load_index(bufferizer, op.needed)
    rows = dim_size(builder, source, 0)
    doubled = builder.insert(arith.MuliOp(rows, index_constant(builder, 2))).result
    bigger = builder.insert(arith.MaxUIOp(doubled, needed)).result
    short = builder.insert(arith.CmpiOp(needed, rows, "ugt")).result
    capacity = builder.insert(arith.SelectOp(short, bigger, rows)).result
    if not _consumes_in_grow(bufferizer, op, source):
        target = bufferizer.destination(op.result, [capacity])
        _fill_grown(bufferizer, op, source, target, rows, capacity)
        bufferizer.values[op.result] = target
        return
    result_type = memref_type(op.result.type)
    grown, kept = Block(), Block()
    saved = bufferizer.builder
    bufferizer.builder = Builder(InsertPoint.at_end(grown))
    assert isinstance(source.type, MemRefType)
    target = _alloc_rows(bufferizer.builder, source.type, capacity)
    _fill_grown(bufferizer, op, source, target, rows, capacity)
    bufferizer.builder.insert(memref.DeallocOp.get(source))
    bufferizer.builder.insert(scf.YieldOp(target))
    same = source
    if source.type != result_type:
        cast = memref.CastOp.get(source, result_type)
        kept.add_op(cast)
        same = cast.dest
    kept.add_op(scf.YieldOp(same))
    bufferizer.builder = saved
    new = builder.insert(scf.IfOp(short, [result_type], Region(grown), Region(kept))).results[0]
    _hand_over(bufferizer, source, new)
    bufferizer.values[op.result] = new


def _consumes_in_grow(bufferizer: FunctionBufferizer, op: GrowOp, source: SSAValue) -> bool:
    """Free the old buffer on growth: a dead heap temporary of this region, or the
    loop-carried buffer of the loop whose body holds `op` directly (so the replacement
    dominates the loop's yield)."""
    if not consumable(bufferizer, op.array, op):
        return False
    if source in bufferizer.allocations:
        return True
    loop = innermost_while(op)
    state = bufferizer.state
    carried = {state.latest(b) for b in state.carried}
    return loop is not None and op.parent_block() is loop.after_region.block and source in carried


def _hand_over(bufferizer: FunctionBufferizer, old: SSAValue, new: SSAValue) -> None:
    if old in bufferizer.allocations:
        bufferizer.allocations[bufferizer.allocations.index(old)] = new
    else:
        bufferizer.state.successor[old] = new


def _fill_grown(bufferizer, op: GrowOp, source, target, rows, capacity) -> None:
    zero = index_constant(bufferizer.builder, 0)
    _copy_rows(bufferizer, source, target, zero, rows)
    _zero_rows(bufferizer, target, rows, capacity, element_of(op.result))


def lower_export(bufferizer: FunctionBufferizer, op: ExportOp) -> None:
    source = bufferizer.values[op.tensor]
    builder = bufferizer.builder
    assert isinstance(source.type, MemRefType)
    buffer = owned_buffer(bufferizer, source, op, source.type)
    descriptor = bufferizer.destination(op.result)
    address = builder.insert(
        memref.ExtractAlignedPointerAsIndexOp(operands=[buffer], result_types=[IndexType()])
    ).results[0]
    fields: list[SSAValue] = [address]
    fields += [dim_size(builder, buffer, a) for a in range(source.type.get_num_dims())]
    for position, value in enumerate(fields):
        as_i64 = builder.insert(arith.IndexCastOp(value, i64)).result
        builder.insert(memref.StoreOp.get(as_i64, descriptor, [index_constant(builder, position)]))
    bufferizer.values[op.result] = descriptor


# --- loops carrying growing arrays ---------------------------------------------------------
def lower_while_any(bufferizer: FunctionBufferizer, op: scf.WhileOp) -> None:
    """`scf.while` whose loop values may have dynamic dims: those are carried in SSA
    form (their buffers can be replaced by `grow`); static ones use `lower_while`."""
    dynamic = [not shaped_type(r).has_static_shape() for r in op.res]
    if not any(dynamic):
        lower_while(bufferizer, op)
        return
    static = [k for k, d in enumerate(dynamic) if not d]
    carried = [k for k, d in enumerate(dynamic) if d]
    state = {k: bufferizer.destination(op.res[k]) for k in static}
    _copy_all(
        bufferizer, [bufferizer.values[op.arguments[k]] for k in static], list(state.values())
    )
    inits = [_owned(bufferizer, op.arguments[k], op) for k in carried]
    types = [memref_type(op.res[k].type) for k in carried]
    before, after = Block(arg_types=types), Block(arg_types=types)
    new = scf.WhileOp(inits, types, Region(before), Region(after))
    new.location = op.location
    bufferizer.builder.insert(new)
    for old_block, new_block in ((op.before_region.block, before), (op.after_region.block, after)):
        for k in static:
            bufferizer.values[old_block.args[k]] = state[k]
        for k, arg in zip(carried, new_block.args, strict=True):
            bufferizer.values[old_block.args[k]] = arg
    bufferizer.state.carried.update(after.args)

    def close_condition(terminator: Operation) -> Operation:
        assert isinstance(terminator, scf.ConditionOp)
        if list(terminator.args) != list(op.before_region.block.args):
            raise NotImplementedError("bufferize: scf.condition must forward the loop values")
        return scf.ConditionOp(bufferizer.values[terminator.condition], *before.args)

    def close_body(terminator: Operation) -> Operation:
        assert isinstance(terminator, scf.YieldOp)
        values = [bufferizer.values[v] for v in terminator.arguments]
        _copy_all(bufferizer, [values[k] for k in static], list(state.values()))
        yielded = [
            _next_carried(bufferizer, values[k], arg, terminator)
            for k, arg in zip(carried, after.args, strict=True)
        ]
        return scf.YieldOp(*yielded)

    bufferizer.bufferize_block(op.before_region.block, before, close_condition)
    bufferizer.bufferize_block(op.after_region.block, after, close_body)
    for k in static:
        bufferizer.values[op.res[k]] = state[k]
    for k, result in zip(carried, new.res, strict=True):
        bufferizer.values[op.res[k]] = result
        bufferizer.allocations.append(result)  # the enclosing region frees the final buffer


def _owned(bufferizer: FunctionBufferizer, value: SSAValue, at: Operation) -> SSAValue:
    return owned_buffer(bufferizer, bufferizer.values[value], at, memref_type(value.type))


def _next_carried(bufferizer, buffer: SSAValue, arg: SSAValue, terminator: Operation) -> SSAValue:
    """The buffer the body yields for a carried value: the loop's own (possibly grown)
    buffer, or an owned copy of another value, freeing the loop's own."""
    current = bufferizer.state.latest(arg)
    if buffer is current:
        return buffer
    replacement = owned_buffer(bufferizer, buffer, terminator, arg.type)  # type: ignore[arg-type]  # a tensor type
    bufferizer.builder.insert(memref.DeallocOp.get(current))
    return replacement


TENSOR_ARRAY_HANDLERS: dict[type[Operation], Handler] = {
    SetRowOp: lower_set_row,
    GetRowOp: lower_get_row,
    GrowOp: lower_grow,
    TakeRowsOp: lower_take_rows,
    ExportOp: lower_export,
    # scf.WhileOp: lower_while_any, registered in HANDLERS (__init__.py), which says why
}
