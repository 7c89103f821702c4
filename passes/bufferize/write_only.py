"""Heap buffers that nothing reads, dropped after bufferize.

A splat constant is filled into its own buffer when it is lowered; a user that needs the
value in a buffer of its own (a loop's state, an updated copy) is filled again
(`fill_or_copy`) instead of copying it. When every user did so, the constant's buffer is
allocated, filled and freed with no read in between: 2 x 512 KiB of stores for
`np.empty_like(x)` twice in a Deriche filter (`np.empty_like` is a zero fill here, and
CSE makes the two one constant). This drops such a buffer, its fills and its free.
"""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Operation, SSAValue
from xdsl.traits import is_side_effect_free


def drop_write_only_buffers(function: func.FuncOp) -> None:
    for op in list(function.walk()):
        if isinstance(op, memref.AllocOp) and _write_only(op.memref):
            for use in list(op.memref.uses):
                use.operation.detach()
                use.operation.erase()
            op.detach()
            op.erase()


def _write_only(buffer: SSAValue) -> bool:
    """Only freed, and written by generics that read nothing (fills)."""
    users = [use.operation for use in buffer.uses]
    fills = [u for u in users if _is_fill_of(u, buffer)]
    frees = [u for u in users if isinstance(u, memref.DeallocOp)]
    return bool(fills) and len(fills) + len(frees) == len(users)


def _is_fill_of(op: Operation, buffer: SSAValue) -> bool:
    if not isinstance(op, GenericOp) or op.inputs or tuple(op.outputs) != (buffer,):
        return False
    body = op.body.block.ops
    return all(isinstance(o, YieldOp) or is_side_effect_free(o) for o in body)
