"""`scf` loops built straight from Python callbacks, for lowerings whose loops are not a
`linalg.generic` (scans, sorts): a counted loop with carried values, a loop nest, and a
while loop.

    results = for_loop(b, lo, hi, step, [init], lambda b, i, carried: [next value])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, UnitAttr
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tracejit.ir.parallel_contract import PARALLEL_LOOP_ATTR
from tracejit.passes.support.indices import index_constant

# body(builder, induction variable, carried values) -> the values carried to the next turn
ForBody = Callable[[Builder, SSAValue, Sequence[SSAValue]], Sequence[SSAValue]]
# body(builder, one induction variable per loop of the nest)
NestBody = Callable[[Builder, list[SSAValue]], None]
# before(builder, carried) -> (condition, values passed on); after(builder, values) -> carried
WhileBefore = Callable[[Builder, Sequence[SSAValue]], tuple[SSAValue, Sequence[SSAValue]]]
WhileAfter = Callable[[Builder, Sequence[SSAValue]], Sequence[SSAValue]]


def for_loop(
    builder: Builder,
    lower: SSAValue,
    upper: SSAValue,
    step: SSAValue,
    initial: Sequence[SSAValue],
    body: ForBody,
) -> Sequence[SSAValue]:
    """`for i in range(lower, upper, step)` carrying `initial`; returns the final values.
    A loop whose `upper` is not above `lower` runs zero times (scf.for semantics)."""
    return _for_op(builder, lower, upper, step, initial, body).results


def _for_op(
    builder: Builder,
    lower: SSAValue,
    upper: SSAValue,
    step: SSAValue,
    initial: Sequence[SSAValue],
    body: ForBody,
) -> scf.ForOp:
    block = Block(arg_types=[IndexType(), *(v.type for v in initial)])
    inner = Builder(InsertPoint.at_end(block))
    carried = body(inner, block.args[0], block.args[1:])
    inner.insert(scf.YieldOp(*carried))
    return builder.insert(scf.ForOp(lower, upper, step, list(initial), block))


def loop_nest(
    builder: Builder, uppers: Sequence[SSAValue], body: NestBody, parallel: bool = False
) -> None:
    """`for i0 in range(uppers[0]): for i1 in range(uppers[1]): ...: body(b, [i0, i1, ...])`
    (no loop at all when `uppers` is empty: `body(b, [])` once). With `parallel`, the loops
    are marked `tj.parallel` (ir/parallel_contract.py): the caller vouches that every
    iteration writes its own elements and reads none another one writes."""
    if not uppers:
        body(builder, [])
        return
    zero, one = index_constant(builder, 0), index_constant(builder, 1)

    def outer(b: Builder, i: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
        loop_nest(b, uppers[1:], lambda b, rest: body(b, [i, *rest]), parallel)
        return []

    loop = _for_op(builder, zero, uppers[0], one, [], outer)
    if parallel:
        loop.attributes[PARALLEL_LOOP_ATTR] = UnitAttr()


def while_loop(
    builder: Builder, initial: Sequence[SSAValue], before: WhileBefore, after: WhileAfter
) -> Sequence[SSAValue]:
    """`scf.while`: `before` tests the carried values (and says what to pass on), `after`
    computes the next carried values; returns the values passed on when the test fails."""
    types = [v.type for v in initial]
    test = Block(arg_types=types)
    test_builder = Builder(InsertPoint.at_end(test))
    condition, passed = before(test_builder, test.args)
    test_builder.insert(scf.ConditionOp(condition, *passed))
    turn = Block(arg_types=[v.type for v in passed])
    turn_builder = Builder(InsertPoint.at_end(turn))
    turn_builder.insert(scf.YieldOp(*after(turn_builder, turn.args)))
    loop = scf.WhileOp(list(initial), [v.type for v in passed], Region(test), Region(turn))
    return builder.insert(loop).results
