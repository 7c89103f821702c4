"""What the IR's structure guarantees but xDSL's types leave optional.

xDSL types `value.owner` as `Operation | Block`, `op.parent_block()`, `block.first_op` and
`block.last_op` as optional. Where a pass works on a value an op defines, an op inside a
block, or a non-empty block, these say so once (casts: no run-time check, so a broken
invariant fails where it always did), instead of an ignore at every use.
"""

from __future__ import annotations

from typing import cast

from xdsl.ir import Block, Operation, SSAValue


def defining_op(value: SSAValue) -> Operation:
    """The op whose result `value` is (not a block argument)."""
    return cast(Operation, value.owner)


def enclosing_block(op: Operation) -> Block:
    """The block `op` sits in (it is not detached)."""
    return cast(Block, op.parent_block())


def first_op(block: Block) -> Operation:
    """The first op of a block that has one."""
    return cast(Operation, block.first_op)


def terminator(block: Block) -> Operation:
    """The last op of a block that ends with a terminator (`scf.yield`, `linalg.yield`...)."""
    return cast(Operation, block.last_op)
