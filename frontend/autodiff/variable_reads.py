"""Reads of a `tj.Variable` inside a staged loop or if, made visible to the reverse sweep.

The tape finds a Variable's reads among the ops it recorded, which are the ops of the
function's body: a read inside a staged loop (`y = y * w` in `for i in range(n)`) sits in
the loop's body, where the sweep never looked, and the Variable's gradient came back as
zeros (or None) with the right value beside it. The loop's adjoint differentiates values
its body takes from outside (a captured array's gradient sums over the iterations), so a
read of a Variable the loop does not write is moved out of it, to just before the loop:
the same value, now one the loop captures. A Variable the loop also writes has no such
read; its gradient is refused (`nested`), never silently missing, and so is a read after
such a region (before a write outside it), which the sweep would take for the Variable's
first value (`if c: v.assign(x)`, then `v * 3`: d/dv came back 3, not 0).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue

from tracejit.frontend.autodiff.eager import COPY_SUFFIX
from tracejit.frontend.staging.variable import Variable
from tracejit.ir.state import VarReadOp, VarWriteOp

WRITTEN_IN_A_BODY = (
    "the gradient of tj.Variable '{name}' is not supported here: a staged loop or if both "
    "writes it (assign, assign_add, ...) and reads it. Carry its value through the loop as "
    "an array instead (`x = v.value()` before, `x = ...` inside, `v.assign(x)` after)"
)

READ_AFTER_A_BODY_WRITES = (
    "the gradient of tj.Variable '{name}' is not supported here: it is read after a staged "
    "loop or if that may write it (assign, assign_add, ...), so its value there may not be "
    "the one the gradient is taken at. Carry its value through the loop or if as an array "
    "instead (`x = v.value()` before, `x = ...` inside, `v.assign(x)` after)"
)


def hoist_invariant_reads(
    ops: Sequence[Operation], owners: dict[SSAValue, Variable]
) -> tuple[list[Operation], dict[int, str]]:
    """`ops` (a block's recorded ops, in order) with each read of a Variable nested in an
    op's regions that the op does not write moved before that op; and, by id, the
    Variables still read inside an op that writes them, with the refusal of their gradient."""
    result: list[Operation] = []
    nested: dict[int, str] = {}
    written_inside: set[SSAValue] = set()  # by a loop or if, and not since written here
    for op in ops:
        if isinstance(op, VarWriteOp):
            written_inside.discard(op.var)
        elif isinstance(op, VarReadOp) and op.var in written_inside and op.var in owners:
            _refuse(nested, owners[op.var], READ_AFTER_A_BODY_WRITES)
        if op.regions:
            written = {inner.var for inner in op.walk() if isinstance(inner, VarWriteOp)}
            written_inside |= written
            for read in [r for r in op.walk() if isinstance(r, VarReadOp) and r is not op]:
                if read.var not in owners:
                    continue
                if read.var in written:
                    _refuse(nested, owners[read.var], WRITTEN_IN_A_BODY)
                    continue
                result.append(_moved_before(read, op))
        result.append(op)
    return result, nested


def _refuse(nested: dict[int, str], variable: Variable, message: str) -> None:
    nested.setdefault(id(variable), message.format(name=_shown(variable)))  # the first reason


def _shown(variable: Variable) -> str:
    """The Variable's name as the user gave it (a vector-Jacobian product's copy of it
    shows the original's)."""
    return variable.name.split(":")[0].removesuffix(COPY_SUFFIX)


def _moved_before(read: VarReadOp, op: Operation) -> VarReadOp:
    """A read of `read`'s Variable just before `op`, in place of `read`."""
    hoisted = VarReadOp(read.var)
    hoisted.location = read.location
    block = op.parent_block()
    assert block is not None
    block.insert_op_before(hoisted, op)
    read.result.replace_all_uses_with(hoisted.result)
    read.detach()
    read.erase()
    return hoisted
