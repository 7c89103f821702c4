"""Adjoints of staged control flow.

`tj.if`: the adjoint is another `tj.if` on the same predicate. Each of its branches
recomputes the forward branch (a copy of its ops: the forward branch's values are not
visible outside it) and runs the reverse sweep over the copy, seeded with the cotangents
of the if's results; it yields the cotangents of the outer float values the forward
branches read (zeros where a branch does not read one).

    %r = tj.if %p { %a = tj.sin %x ; tj.yield %a } else { tj.yield %y }
      ->  %gx, %gy = tj.if %p { %a' = tj.sin %x ; (sweep: %gx = %g * cos %x) ; tj.yield %gx, 0 }
                           else { tj.yield 0, %g }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

from tracejit.frontend.autodiff.adjoints import add, zeros_like
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import current_trace
from tracejit.ir.control_flow import IfOp, WhileOp, YieldOp

Sweep = Callable[..., dict[SSAValue, Tensor]]


def captured_values(region: Region) -> list[SSAValue]:
    """Values defined outside `region` that its ops read, in order of first use."""
    inside: set[SSAValue] = set()
    for block in region.blocks:
        inside.update(block.args)
    for op in region.walk():
        inside.update(op.results)
    seen: dict[SSAValue, None] = {}
    for op in region.walk():
        for value in op.operands:
            if value not in inside:
                seen.setdefault(value, None)
    return list(seen)


def if_adjoint(
    op: IfOp, cotangents: Sequence[Tensor | None], live: set[SSAValue], sweep: Sweep,
    is_float: Callable[[SSAValue], bool],
) -> dict[SSAValue, Tensor]:
    """Cotangents of the outer values `op`'s branches read."""
    outer = [
        v
        for v in dict.fromkeys(captured_values(op.then_region) + captured_values(op.else_region))
        if v in live and is_float(v) and isinstance(v.type, TensorType)
    ]
    if not outer:
        return {}
    seeds = [  # none for integer and bool results: no gradient flows through them
        None if not is_float(r) else g if g is not None else zeros_like(Tensor(r))
        for g, r in zip(cotangents, op.res, strict=True)
    ]
    blocks = [Block(), Block()]
    for block, region in zip(blocks, (op.then_region, op.else_region), strict=True):
        _branch_adjoint(block, region.block, seeds, outer, sweep)
    adjoint = current_trace().emit(
        IfOp(op.pred, [v.type for v in outer], Region(blocks[0]), Region(blocks[1]))
    )
    return {v: Tensor(r) for v, r in zip(outer, adjoint.res, strict=True)}


def _branch_adjoint(
    block: Block, forward: Block, seeds: Sequence[Tensor | None], outer: list[SSAValue],
    sweep: Sweep,
) -> None:
    context = current_trace()
    with context.building_in(block):
        mapping: dict[SSAValue, SSAValue] = {}
        copies: list[Operation] = []
        yielded: Sequence[SSAValue] = ()
        for op in forward.ops:
            if isinstance(op, YieldOp):
                yielded = [mapping.get(v, v) for v in op.values]
                break
            copies.append(context.builder.insert(op.clone(value_mapper=mapping)))
        branch_seeds: dict[SSAValue, Tensor] = {}
        for value, seed in zip(yielded, seeds, strict=True):
            if seed is None:
                continue
            if value in branch_seeds:
                branch_seeds[value] = add(branch_seeds[value], seed)
            else:
                branch_seeds[value] = seed
        found = sweep(copies, branch_seeds, set(outer))
        results = [found[v] if v in found else zeros_like(Tensor(v)) for v in outer]
        context.builder.insert(YieldOp(*[r.value for r in results]))


# --- tj.while ----------------------------------------------------------------------------
def _inline_region(block: Block, values: Sequence[SSAValue]) -> tuple[list[Operation], list]:
    """Copy `block`'s ops (its arguments bound to `values`) into the block being traced;
    the copies, and the values its terminator passes on (mapped)."""
    context = current_trace()
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, values, strict=True))
    copies: list[Operation] = []
    for op in block.ops:
        if op.has_trait(IsTerminator):
            return copies, [mapping.get(v, v) for v in op.operands]
        copies.append(context.builder.insert(op.clone(value_mapper=mapping)))
    raise AssertionError("a region without a terminator")


def while_adjoint(
    op: WhileOp, cotangents: Sequence[Tensor | None], live: set[SSAValue], sweep: Sweep,
    is_float: Callable[[SSAValue], bool],
) -> dict[SSAValue, Tensor]:
    """Cotangents of the loop's initial values and of the outer values its body reads.

    The loop runs again, pushing the values it carries into each iteration onto run-time
    stacks (dynamic TensorArrays); a second loop then walks the iterations backwards,
    recomputing one iteration's body from its stacked inputs and sweeping it."""
    from tracejit.frontend.staging.control_flow import while_loop
    from tracejit.frontend.staging.tensor_array import TensorArray

    outer = [
        v for v in captured_values(op.after_region)
        if v in live and is_float(v) and isinstance(v.type, TensorType)
    ]
    carried = [Tensor(v) for v in op.inits]
    for value in carried:
        if None in value.shape:
            raise _refused(op, "a loop value whose shape is unknown at trace time")
    stacks = [TensorArray(v.dtype, size=0, dynamic_size=True, element_shape=v.shape)
              for v in carried]

    def replay_cond(count, state, arrays):
        _, (predicate,) = _inline_region(op.before_region.block, [s.value for s in state])
        return Tensor(predicate)

    def replay_body(count, state, arrays):
        arrays = [a.write(count, s) for a, s in zip(arrays, state, strict=True)]
        _, following = _inline_region(op.after_region.block, [s.value for s in state])
        return count + 1, [Tensor(v) for v in following], arrays

    count, _, stacks = while_loop(replay_cond, replay_body, (_index(0), carried, stacks))
    seeds = [g if g is not None else zeros_like(Tensor(r)) for g, r in zip(cotangents, op.res,
                                                                          strict=True)]
    totals = [zeros_like(Tensor(v)) for v in outer]

    def backward_cond(step, grads, sums):
        return step > _index(0)

    def backward_body(step, grads, sums):
        step = step - 1
        state = [a.read(step) for a in stacks]
        copies, following = _inline_region(op.after_region.block, [s.value for s in state])
        branch_seeds: dict[SSAValue, Tensor] = {}
        for value, g, carried_value in zip(following, grads, state, strict=True):
            if is_float(carried_value.value):
                known = branch_seeds.get(value)
                branch_seeds[value] = g if known is None else add(known, g)
        sources = {s.value for s in state if is_float(s.value)} | set(outer)
        found = sweep(copies, branch_seeds, sources)
        grads = [found.get(s.value, zeros_like(s)) for s in state]
        sums = [add(t, found[v]) if v in found else t for t, v in zip(sums, outer, strict=True)]
        return step, grads, sums

    _, initial, sums = while_loop(backward_cond, backward_body, (count, seeds, totals))
    result: dict[SSAValue, Tensor] = {
        v: g for v, g in zip(op.inits, initial, strict=True) if is_float(v) and v in live
    }
    for captured, total in zip(outer, sums, strict=True):
        result[captured] = add(result[captured], total) if captured in result else total
    return result


def _index(value: int) -> Tensor:
    from tracejit.frontend.staging import primitives

    return primitives.constant(np.int64(value))


def _refused(op: Operation, what: str) -> Exception:
    from tracejit.frontend.autodiff.backprop import NotDifferentiableError, location_of

    return NotDifferentiableError(
        f"{location_of(op)}gradients through a staged loop over {what} are not supported"
    )
