"""Updating a tensor's buffer in place, shared by the ops that return an updated copy of
an operand (`tj.set_row`, `tj.grow`, `tj.insert_slice`, `tj.scatter`).

Such an op may write into its operand's buffer instead of a copy when nothing reads the
old value afterwards and the buffer is this function's to overwrite: a temporary of the
region being built, or the state buffer of the innermost loop around the op (whose old
value only the loop's next iteration would read, and it reads the yielded one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from tracejit.passes.bufferize.builder import FunctionBufferizer, dead_after
from tracejit.passes.support.indices import index_constant

Body = Callable[[Builder, list[SSAValue]], None]


# --- loops over a buffer's elements --------------------------------------------------------
def load_index(bufferizer: FunctionBufferizer, value: SSAValue) -> SSAValue:
    """The 0-d integer tensor `value` as an `index`."""
    loaded = bufferizer.builder.insert(memref.LoadOp.get(bufferizer.values[value], [])).res
    return bufferizer.builder.insert(arith.IndexCastOp(loaded, IndexType())).result


def loop_nest(builder: Builder, bounds: Sequence[tuple[SSAValue, SSAValue]], body: Body) -> None:
    """`for i0 in [lo0, hi0): for i1 ...: body(indices)` as a `scf.for` nest."""
    if not bounds:
        body(builder, [])
        return
    block = Block(arg_types=[IndexType()])
    inner = Builder(InsertPoint.at_end(block))
    loop_nest(inner, bounds[1:], lambda b, rest: body(b, [block.args[0], *rest]))
    inner.insert(scf.YieldOp())
    one = index_constant(builder, 1)
    builder.insert(scf.ForOp(bounds[0][0], bounds[0][1], one, [], block))


def static_bounds(builder: Builder, shape: Sequence[int]) -> list[tuple[SSAValue, SSAValue]]:
    """Loop bounds [0, size) for each size of a static `shape`."""
    zero = index_constant(builder, 0)
    return [(zero, index_constant(builder, d)) for d in shape]


# --- ownership and liveness --------------------------------------------------------------
def innermost_while(op: Operation) -> scf.WhileOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, scf.WhileOp):
        parent = parent.parent_op()
    return parent


def loop_state(
    op: Operation, bufferizer: FunctionBufferizer
) -> tuple[set[SSAValue], set[SSAValue]]:
    """Buffers of the innermost loop's state around `op` (when `op` is in its body), and
    the loop's own values holding them (read again only by the next iteration or after
    the loop, both of which see the yielded value)."""
    loop = innermost_while(op)
    if loop is None or not loop.after_region.is_ancestor(op):
        return set(), set()
    state = bufferizer.state
    buffers: set[SSAValue] = set()
    exempt: set[SSAValue] = set()
    for before, res, after in zip(
        loop.before_region.block.args, loop.res, loop.after_region.block.args, strict=True
    ):
        buffer = bufferizer.values.get(after)
        if buffer is not None:
            buffers.add(state.latest(buffer))
            buffers.add(buffer)
            exempt.update((before, res))
    return buffers, exempt


def consumable(bufferizer: FunctionBufferizer, value: SSAValue, op: Operation) -> bool:
    """May `op` overwrite (or free) the buffer of `value` instead of copying it?"""
    output = bufferizer.output_for(op.results[0])
    if output is not None:  # the result goes to an output buffer: in place if `value` is in it
        return bufferizer.values[value] is output and not reads_buffer_twice(bufferizer, value, op)
    if reads_buffer_twice(bufferizer, value, op):
        return False
    return owned_and_dead(bufferizer, value, op)


def reads_buffer_twice(bufferizer: FunctionBufferizer, value: SSAValue, op: Operation) -> bool:
    """Does `op` also read `value`'s buffer through another of its operands? Then writing
    that buffer while `op` runs changes elements it has yet to read: `w[:] = a` with `w` a
    reversed view of `a` is `tj.insert_slice %a into %a, step = [-1]`, and NumPy reads all
    of `a` before it writes (it copies overlapping operands first)."""
    buffer = bufferizer.values[value]
    return sum(bufferizer.values.get(operand) is buffer for operand in op.operands) > 1


def owned_and_dead(
    bufferizer: FunctionBufferizer, value: SSAValue, op: Operation, inside: bool = False
) -> bool:
    """Is the buffer of `value` this region's to overwrite, and unread after `op` (with
    `inside`: after `op`'s regions, whose reads happen before it ends)?"""
    buffer = bufferizer.values[value]
    until = op if inside else None
    if buffer in bufferizer.allocations or local_stack_buffer(bufferizer, buffer):
        return dead_after(bufferizer, buffer, op, set(), until)
    buffers, exempt = loop_state(op, bufferizer)
    return buffer in buffers and dead_after(bufferizer, buffer, op, exempt, until)


def local_stack_buffer(bufferizer: FunctionBufferizer, buffer: SSAValue) -> bool:
    """A small static temporary on the stack, allocated in the region being built."""
    owner = buffer.owner
    block = bufferizer.builder.insertion_point.block
    return isinstance(owner, memref.AllocaOp) and owner.parent_block() is block
