"""prove-in-bounds: mark the `tj.to_index` ops whose integer is provably in `[0, size)`.

Expects tensor-level `tj` IR (after `inline`, before `fuse-elementwise` hides the scalar
arithmetic in `tj.fused` bodies). Every `x[i]` with a traced `i` stages a
`tj.to_index` that wraps a negative `i` and fails the call outside `[-size, size)`; in a
loop nest such as a dynamic program (`for i ...: for j in range(i + 1, N): for k in
range(i + 1, j): t[i, k] + t[k + 1, j]`) those checks are most of the inner loop's work,
and LLVM cannot remove them: it does not see that `k < j <= N - 1`. This pass computes an
interval for each 0-d integer value, from

* constants, and `tj.add` / `tj.sub` of values with intervals (no interval when the
  result could wrap around in its dtype);
* the counters of staged loops: a `tj.while` value that the body yields as itself plus a
  constant step and that the condition compares with a bound (`i < n`, `i <= n`, `i > n`,
  `i >= n`, either operand order), its interval in the body running from the initial
  value (the side the step moves away from) to the bound (the side the condition keeps);
* `tj.if` results: the union of what the branches yield,

and marks a `tj.to_index` whose input's interval lies in `[0, size)` (static sizes)
`in_bounds`: bufferize then converts it without the wrap and the check.

    %k0 = tj.add %i, %one : tensor<i64>                   // i in [0, 199]: k0 in [1, 200]
    tj.while %k0 ... { ^bb0(%k): %c = tj.compare "lt" %k, %j; tj.condition %c }
    do { ^bb0(%k):                                        // j in [1, 199]: k in [1, 198]
      %k1 = tj.add %k, %one : tensor<i64>                 // k1 in [2, 199]
      %r = tj.to_index %k1, size = 200, "IndexError: ..." in_bounds : tensor<i64>
      ...  tj.yield %k1 ... }
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import IntegerType, ModuleOp, TensorType, UnitAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tracejit.ir.compare import CompareOp
from tracejit.ir.constant import ConstantOp
from tracejit.ir.control_flow import ConditionOp, IfOp, WhileOp, YieldOp
from tracejit.ir.dtypes import is_unsigned
from tracejit.ir.elementwise_binary import AddOp, SubOp
from tracejit.ir.update import ToIndexOp

Interval = tuple[int, int]

# `i <pred> bound` keeps i below (+1) or above (-1) the bound, by this much
_KEEPS = {"lt": (1, -1), "le": (1, 0), "gt": (-1, 1), "ge": (-1, 0)}
_MIRRORED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


def _integer_scalar(value: SSAValue) -> IntegerType | None:
    """The element type of a 0-d integer tensor (not a bool), else None."""
    t = value.type
    if not isinstance(t, TensorType) or t.get_shape():
        return None
    element = t.get_element_type()
    if isinstance(element, IntegerType) and element.width.data > 1:
        return element
    return None


def _range_of(element: IntegerType) -> Interval:
    info = np.iinfo(f"{'u' if is_unsigned(element) else ''}int{element.width.data}")
    return int(info.min), int(info.max)


@dataclass
class IndexRanges:
    """Intervals of the 0-d integer values of one function, computed in one walk."""

    known: dict[SSAValue, Interval] = field(default_factory=dict)

    def of(self, value: SSAValue) -> Interval | None:
        return self.known.get(value)

    def visit_block(self, block: Block) -> None:
        for op in block.ops:
            self.visit(op)

    def visit(self, op: Operation) -> None:
        if isinstance(op, ConstantOp):
            self._constant(op)
        elif isinstance(op, AddOp | SubOp):
            self._arithmetic(op)
        elif isinstance(op, IfOp):
            self._if(op)
        elif isinstance(op, WhileOp):
            self._while(op)
        else:
            for region in op.regions:
                for block in region.blocks:
                    self.visit_block(block)

    def _constant(self, op: ConstantOp) -> None:
        if _integer_scalar(op.result) is not None:
            value = int(op.to_array())
            self.known[op.result] = (value, value)

    def _arithmetic(self, op: AddOp | SubOp) -> None:
        element = _integer_scalar(op.result)
        a, b = self.of(op.lhs), self.of(op.rhs)
        if element is None or a is None or b is None:
            return
        add = isinstance(op, AddOp)
        result = (a[0] + b[0], a[1] + b[1]) if add else (a[0] - b[1], a[1] - b[0])
        low, high = _range_of(element)
        if low <= result[0] and result[1] <= high:  # else the dtype wraps around
            self.known[op.result] = result

    def _if(self, op: IfOp) -> None:
        for region in op.regions:
            self.visit_block(region.block)
        ends = [region.block.last_op for region in op.regions]
        for position, result in enumerate(op.res):
            yielded = [self.of(end.operands[position]) for end in ends if end is not None]
            if len(yielded) == 2 and None not in yielded:
                lows, highs = zip(*yielded, strict=True)  # type: ignore[arg-type]
                self.known[result] = (min(lows), max(highs))

    def _while(self, op: WhileOp) -> None:
        self.visit_block(op.before_region.block)  # loop values unknown: the bounds' intervals
        for position, arg in enumerate(op.after_region.block.args):
            interval = self._counter(op, position)
            if interval is not None:
                self.known[arg] = interval
        self.visit_block(op.after_region.block)

    def _counter(self, op: WhileOp, position: int) -> Interval | None:
        """The interval of loop value `position` in the body, if it is a counter."""
        step = self._step(op, position)
        start = self.of(op.inits[position])
        bound = self._condition_bound(op, position)
        if step is None or start is None or bound is None:
            return None
        direction, limit = bound
        if step == 0:
            return start
        if (step > 0) != (direction > 0):
            return None  # moving away from the bound: the condition alone bounds nothing
        return (start[0], limit) if step > 0 else (limit, start[1])

    def _step(self, op: WhileOp, position: int) -> int | None:
        """The constant the body adds to loop value `position` on every trip."""
        end = op.after_region.block.last_op
        assert isinstance(end, YieldOp)
        arg = op.after_region.block.args[position]
        nxt = end.values[position]
        if nxt is arg:
            return 0
        producer = nxt.owner
        if not isinstance(producer, AddOp | SubOp) or producer.lhs is not arg:
            return None
        step = producer.rhs.owner
        if not isinstance(step, ConstantOp) or _integer_scalar(producer.rhs) is None:
            return None
        value = int(step.to_array())
        return value if isinstance(producer, AddOp) else -value

    def _condition_bound(self, op: WhileOp, position: int) -> tuple[int, int] | None:
        """(+1, highest) or (-1, lowest): what the condition keeps loop value `position`
        below or above on every trip the body runs."""
        end = op.before_region.block.last_op
        assert isinstance(end, ConditionOp)
        compare = end.predicate.owner
        if not isinstance(compare, CompareOp):
            return None
        arg = op.before_region.block.args[position]
        predicate = compare.predicate.data
        if compare.lhs is arg:
            other = compare.rhs
        elif compare.rhs is arg:
            other, predicate = compare.lhs, _MIRRORED.get(predicate, predicate)
        else:
            return None
        interval = self.of(other)
        if predicate not in _KEEPS or interval is None or other in op.before_region.block.args:
            return None
        direction, offset = _KEEPS[predicate]
        return direction, (interval[1] if direction > 0 else interval[0]) + offset


def prove_in_bounds(module: ModuleOp) -> None:
    ranges = IndexRanges()
    ranges.visit_block(module.body.block)
    for op in module.walk():
        if isinstance(op, ToIndexOp) and op.dim is None and op.in_bounds is None:
            interval = ranges.of(op.input)
            if interval is not None and interval[0] >= 0 and interval[1] < op.get_size():
                op.in_bounds = UnitAttr()


@dataclass(frozen=True)
class ProveInBoundsPass(ModulePass):
    """Marks `tj.to_index` ops whose integer provably lies in `[0, size)` `in_bounds`."""

    name = "prove-in-bounds"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        prove_in_bounds(op)


__all__ = ["IndexRanges", "ProveInBoundsPass", "prove_in_bounds"]
