"""Values computed straight into a function output, found before bufferizing.

A returned value is computed into its output buffer (`FunctionBufferizer.destination`). So
can the values it is an in-place update of, when nothing else reads them: in

    out = np.empty_like(x)                 %z = tj.constant dense<0.0>
    out[0] = x[0]                  ->      %u = tj.insert_slice %x0 into %z
    for i in range(1, n): out[i] = ...     %r = scf.while (%u) { ... }     return %r

`%r` is returned; the loop's initial value `%u` and the constant `%z` it updates have one
user each, so all three live in the output: the zeros are filled into it, the element is
stored into it, and the loop runs on it. Without this, `%z` and `%u` were a temporary the
size of the output (a fresh allocation: page faults on first touch) copied into the output
when the loop starts.

The chain is followed from each returned value through single-use links: a loop result to
its initial value, an in-place update's result to the value it updates. A value with another
user is read elsewhere (after the update, or by another loop): the chain stops there.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import scf
from xdsl.ir import SSAValue

from tracejit.ir.scatter_combine import ScatterCombineOp
from tracejit.ir.update import InsertSliceOp, ScatterOp

UPDATES_IN_PLACE = (InsertSliceOp, ScatterOp, ScatterCombineOp)


def values_in_outputs(returned: Sequence[SSAValue]) -> dict[SSAValue, int]:
    """{value: the output position it is computed in} for the values that are not returned
    themselves but are earlier states of a returned one (see the module docstring)."""
    placed: dict[SSAValue, int] = {}
    for position, value in enumerate(returned):
        if returned.index(value) != position:
            continue  # returned twice: the first output holds it
        earlier = _updated_by(value)
        while earlier is not None and earlier not in placed and earlier not in returned:
            placed[earlier] = position
            earlier = _updated_by(earlier)
    return placed


def _updated_by(value: SSAValue) -> SSAValue | None:
    """The value `value` is an in-place continuation of, when `value`'s op is its only user."""
    owner = value.owner
    if isinstance(owner, scf.WhileOp):
        earlier = owner.arguments[owner.res.index(value)]
    elif isinstance(owner, UPDATES_IN_PLACE):
        earlier = owner.dest
    else:
        return None
    if earlier.uses.get_length() != 1 or earlier.type != value.type:
        return None
    return earlier
