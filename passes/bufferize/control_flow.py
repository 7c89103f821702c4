"""Buffer forms of `scf.if`, `scf.while` and `tensor.extract` (used by `bufferize`).

* `scf.if` with tensor results: the result buffers are allocated before the `if`;
  each branch computes its values and copies them into the result buffers. A result
  one branch yields a value from outside the `if` for, whose buffer is this region's
  and unread after the `if`, takes that buffer instead: `if c: a[i] = v` in a loop
  over `a` stores one element into the loop's array, and neither branch copies it. A
  result whose size is known only at run time is a heap buffer each branch yields: its
  own temporary when dead, else a copy.
* `scf.while` whose loop values all have static shapes (`tensor_array.lower_while_any`
  takes every `scf.while`, carries values of changing size itself and passes the other
  loops here): each loop value gets one state buffer; the condition and the body read
  the state, the body computes the next values into temporaries and copies them into
  the state at its end. The loop carries nothing in SSA form; its results are the
  state buffers.
* `tensor.extract` of a 0-d tensor (a predicate) is a `memref.load`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref, scf, tensor
from xdsl.dialects.builtin import ShapedType
from xdsl.ir import Block, Operation, Region, SSAValue

from tracejit.ir.constant import ConstantOp
from tracejit.ir.invariants import terminator
from tracejit.ir.tensor_array import SetRowOp
from tracejit.ir.update import InsertSliceOp, ScatterOp
from tracejit.passes.bufferize.builder import FunctionBufferizer, Handler, memref_type, owned_buffer
from tracejit.passes.bufferize.elementwise import fill_or_copy
from tracejit.passes.bufferize.in_place import owned_and_dead


def lower_extract(bufferizer: FunctionBufferizer, op: tensor.ExtractOp) -> None:
    indices = [bufferizer.values.get(i, i) for i in op.indices]
    load = memref.LoadOp.get(bufferizer.values[op.tensor], indices)
    bufferizer.values[op.result] = bufferizer.builder.insert(load).res


def _static(value: SSAValue) -> bool:
    assert isinstance(value.type, ShapedType)
    return value.type.has_static_shape()


def lower_if(bufferizer: FunctionBufferizer, op: scf.IfOp) -> None:
    """Static results (and returned ones) get their buffers before the `if`; a result
    of a shape known only at run time is a buffer each branch allocates and yields."""
    dynamic = [r for r in op.output if not _static(r) and r not in bufferizer.returned]
    results = _result_buffers(bufferizer, op, dynamic)
    new = scf.IfOp(
        bufferizer.values[op.cond],
        [memref_type(r.type) for r in dynamic],
        Region(Block()),
        Region(Block()),
    )
    new.location = op.location
    bufferizer.builder.insert(new)

    def close(terminator: Operation) -> Operation:
        assert isinstance(terminator, scf.YieldOp)
        yielded: dict[SSAValue, SSAValue] = dict(
            zip(op.output, [bufferizer.values[v] for v in terminator.arguments], strict=True)
        )
        _copy_all(bufferizer, [yielded[r] for r in results], list(results.values()))
        owned = [
            owned_buffer(bufferizer, yielded[r], terminator, memref_type(r.type)) for r in dynamic
        ]
        return scf.YieldOp(*owned)

    bufferizer.bufferize_block(op.true_region.block, new.true_region.block, close)
    bufferizer.bufferize_block(op.false_region.block, new.false_region.block, close)
    bufferizer.values.update(results)
    for result, buffer in zip(dynamic, new.results, strict=True):
        bufferizer.values[result] = buffer
        bufferizer.allocations.append(buffer)  # freed by the enclosing block


def _result_buffers(
    bufferizer: FunctionBufferizer, op: scf.IfOp, dynamic: Sequence[SSAValue]
) -> dict[SSAValue, SSAValue]:
    """The buffer of each static result: the buffer of the outer value a branch yields for
    it, when the `if` may overwrite that (this region's, unread after the `if`; the
    branches' reads come first, and their closing copies save a source they overwrite),
    else a new one."""
    results: dict[SSAValue, SSAValue] = {}
    for position, result in enumerate(op.output):
        if result in dynamic:
            continue
        reused = None
        if result not in bufferizer.returned:
            for value in _outer_yields(op, position):
                buffer = bufferizer.values[value]
                if (
                    buffer not in results.values()
                    and buffer.type == memref_type(result.type)
                    and owned_and_dead(bufferizer, value, op, inside=True)
                ):
                    reused = buffer
                    break
        results[result] = reused or bufferizer.destination(result)
    return results


def _outer_yields(op: scf.IfOp, position: int) -> list[SSAValue]:
    """The values from outside `op` that its branches yield at `position`, or update and
    yield: `if c: a[i, j] = v` inside `if d:` yields the `tj.insert_slice` of an outer `a`
    (through the inner `if`), and the inner `if` may take `a`'s buffer as the outer one
    does; else each branch copied the whole array on every trip of a loop around them."""
    found: list[SSAValue] = []
    for region in (op.true_region, op.false_region):
        for value in _updated_roots(op, terminator(region.block).operands[position]):
            if value not in found:
                found.append(value)
    return found


def _updated_roots(op: scf.IfOp, value: SSAValue) -> list[SSAValue]:
    """`value` when it comes from outside `op`; else the outer values it is an update of
    (the destination of an in-place update op, the yields of a nested `if`), if any."""
    owner = value.owner
    if isinstance(owner, Block):
        return [] if op.is_ancestor(owner) else [value]
    if not op.is_ancestor(owner):
        return [value]
    if isinstance(owner, InsertSliceOp | ScatterOp):
        return _updated_roots(op, owner.dest)
    if isinstance(owner, SetRowOp):
        return _updated_roots(op, owner.array)
    if isinstance(owner, scf.IfOp):
        position = owner.results.index(value)
        branches = (owner.true_region, owner.false_region)
        yields = [terminator(region.block).operands[position] for region in branches]
        return [root for y in yields for root in _updated_roots(op, y)]
    return []


def lower_while(bufferizer: FunctionBufferizer, op: scf.WhileOp) -> None:
    state = _state_buffers(bufferizer, op)
    # splat constants are filled into their state last (no source is a fresh state buffer)
    splats = [
        isinstance(v.owner, ConstantOp)
        and v.owner.splat() is not None
        and s is not bufferizer.values[v]
        for v, s in zip(op.arguments, state, strict=True)
    ]
    sources = [
        s if splat else bufferizer.values[v]
        for v, s, splat in zip(op.arguments, state, splats, strict=True)
    ]
    _copy_all(bufferizer, sources, state)
    for value, buffer, splat in zip(op.arguments, state, splats, strict=True):
        if splat:
            fill_or_copy(bufferizer, value, buffer)
    new = scf.WhileOp([], [], Region(Block()), Region(Block()))
    new.location = op.location
    bufferizer.builder.insert(new)
    for arg, buffer in zip(op.before_region.block.args, state, strict=True):
        bufferizer.values[arg] = buffer
    for arg, buffer in zip(op.after_region.block.args, state, strict=True):
        bufferizer.values[arg] = buffer

    def close_condition(terminator: Operation) -> Operation:
        assert isinstance(terminator, scf.ConditionOp)
        forwarded = list(terminator.args)
        if forwarded != list(op.before_region.block.args):
            raise NotImplementedError("bufferize: scf.condition must forward the loop values")
        return scf.ConditionOp(bufferizer.values[terminator.condition])

    def close_body(terminator: Operation) -> Operation:
        assert isinstance(terminator, scf.YieldOp)
        _copy_all(bufferizer, [bufferizer.values[v] for v in terminator.arguments], state)
        return scf.YieldOp()

    bufferizer.bufferize_block(op.before_region.block, new.before_region.block, close_condition)
    bufferizer.bufferize_block(op.after_region.block, new.after_region.block, close_body)
    for result, buffer in zip(op.res, state, strict=True):
        bufferizer.values[result] = buffer


def _state_buffers(bufferizer: FunctionBufferizer, op: scf.WhileOp) -> list[SSAValue]:
    """One buffer per loop value. An initial value whose buffer nothing reads after the
    loop (a dead temporary, or the state of an enclosing loop: a loop nest updating one
    array) becomes the state itself, so entering the loop copies nothing."""
    state: list[SSAValue] = []
    for init, result in zip(op.arguments, op.res, strict=True):
        buffer = bufferizer.values[init]
        output = bufferizer.output_for(result)
        reuse = (
            buffer is output
            if output is not None
            else (
                buffer not in state
                and buffer.type == memref_type(result.type)
                and owned_and_dead(bufferizer, init, op)
            )
        )
        state.append(buffer if reuse else bufferizer.destination(result))
    return state


def _copy_all(
    bufferizer: FunctionBufferizer, sources: Sequence[SSAValue], targets: Sequence[SSAValue]
) -> None:
    """targets[i] = sources[i] for all i at once: a source that is itself one of the
    targets (a loop value passed to another position, `x, y = y, x`) is saved first."""
    saved = []
    for source, target in zip(sources, targets, strict=True):
        if source is not target and source in targets:
            # on the stack when small: a loop's scalars are saved on every iteration, and a
            # heap block each time made an element-by-element loop nest 300x slower
            temporary = bufferizer.temporary(source.type)  # type: ignore[arg-type]  # a tensor type
            bufferizer.copy_into(source, temporary)
            source = temporary
        saved.append(source)
    for source, target in zip(saved, targets, strict=True):
        if source is not target:
            bufferizer.copy_into(source, target)


CONTROL_FLOW_HANDLERS: dict[type[Operation], Handler] = {
    tensor.ExtractOp: lower_extract,
    scf.IfOp: lower_if,
    # scf.WhileOp: through tensor_array.lower_while_any (see HANDLERS in __init__.py)
}
