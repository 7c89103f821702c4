"""Staged control flow: `tj.if` and `tj.while`, with their region terminators.

    %r = tj.if %pred : tensor<i1> -> tensor<4xf32> {
      tj.yield %a : tensor<4xf32>
    } else {
      tj.yield %b : tensor<4xf32>
    }

    %x, %i = tj.while %x0, %i0 : (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i64>) {
    ^bb0(%x: tensor<4xf32>, %i: tensor<i64>):        // the condition, on the current values
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%x: tensor<4xf32>, %i: tensor<i64>):        // the body, run while %c is true
      tj.yield %x2, %i2 : tensor<4xf32>, tensor<i64>
    }

Regions may use values defined outside them (captures need no operands). Both ops
have the effects of the ops they contain (`RecursiveMemoryEffect`), so a branch that
prints is kept while a pure, unused one is removed.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException


def _check_predicate(value: SSAValue, op_name: str) -> None:
    ttype = value.type
    if not isinstance(ttype, TensorType) or ttype.get_shape() or ttype.get_element_type() != i1:
        raise VerifyException(f"{op_name} expects a tensor<i1> predicate, got {ttype}")


def _check_types(found: Sequence[Attribute], expected: Sequence[Attribute], what: str) -> None:
    if list(found) != list(expected):
        raise VerifyException(
            f"{what} types ({', '.join(map(str, found))}) do not match "
            f"({', '.join(map(str, expected))})"
        )


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a `tj.if` branch or a `tj.while` body with the region's results."""

    name = "tj.yield"
    values = var_operand_def(TensorType)
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[values])


@irdl_op_definition
class ConditionOp(IRDLOperation):
    """Ends a `tj.while` condition: continue while the 0-d bool `predicate` is true."""

    name = "tj.condition"
    predicate = operand_def(TensorType)
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "$predicate attr-dict `:` type($predicate)"

    def __init__(self, predicate: SSAValue):
        super().__init__(operands=[predicate])

    def verify_(self) -> None:
        _check_predicate(self.predicate, self.name)


@irdl_op_definition
class IfOp(IRDLOperation):
    """Run one of two single-block regions, chosen at run time by a 0-d bool tensor."""

    name = "tj.if"
    pred = operand_def(TensorType)
    res = var_result_def(TensorType)
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = (
        "$pred attr-dict `:` type($pred) (`->` type($res)^)? $then_region `else` $else_region"
    )

    def __init__(
        self,
        pred: SSAValue,
        result_types: Sequence[Attribute],
        then_region: Region,
        else_region: Region,
    ):
        super().__init__(
            operands=[pred], result_types=[result_types], regions=[then_region, else_region]
        )

    def verify_(self) -> None:
        _check_predicate(self.pred, self.name)
        for region, name in ((self.then_region, "then"), (self.else_region, "else")):
            terminator = region.block.last_op
            if not isinstance(terminator, YieldOp):
                raise VerifyException(f"tj.if {name} region must end with tj.yield")
            _check_types(terminator.values.types, self.res.types, f"tj.if {name} yield")


@irdl_op_definition
class WhileOp(IRDLOperation):
    """Loop: the `before` region computes a predicate from the loop values; while it is
    true the `after` region computes the next loop values; the results are the values
    for which the predicate was false."""

    name = "tj.while"
    inits = var_operand_def(TensorType)
    res = var_result_def(TensorType)
    before_region = region_def("single_block")
    after_region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = (
        "$inits attr-dict `:` functional-type($inits, $res) $before_region `do` $after_region"
    )

    def __init__(self, inits: Sequence[SSAValue], before_region: Region, after_region: Region):
        types = [v.type for v in inits]
        super().__init__(
            operands=[inits], result_types=[types], regions=[before_region, after_region]
        )

    def verify_(self) -> None:
        types = list(self.inits.types)
        _check_types(self.res.types, types, "tj.while result")
        before, after = self.before_region.block, self.after_region.block
        _check_types([a.type for a in before.args], types, "tj.while condition argument")
        _check_types([a.type for a in after.args], types, "tj.while body argument")
        if not isinstance(before.last_op, ConditionOp):
            raise VerifyException("tj.while condition region must end with tj.condition")
        terminator = after.last_op
        if not isinstance(terminator, YieldOp):
            raise VerifyException("tj.while body region must end with tj.yield")
        _check_types(terminator.values.types, types, "tj.while body yield")


CONTROL_FLOW_OPS = (IfOp, WhileOp, YieldOp, ConditionOp)
