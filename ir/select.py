"""`tj.select`: NumPy's three-argument `np.where` on tensors of one shape.

    %r = tj.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>

Tracing broadcasts the three operands and casts the two branches to the result dtype
first, so the op only picks `a` where `c` is true and `b` elsewhere.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import TensorType, i1
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.folding import fold_with_numpy


@irdl_op_definition
class SelectOp(IRDLOperation, HasFolderInterface):
    """`on_true` where `condition` holds, else `on_false`, element by element."""

    name = "tj.select"
    T: ClassVar = VarConstraint("T", TensorType.constr())
    condition = operand_def(TensorType)
    on_true = operand_def(T)
    on_false = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$condition `,` $on_true `,` $on_false attr-dict `:` type($condition) `,` type($result)"
    )

    def __init__(self, condition: SSAValue, on_true: SSAValue, on_false: SSAValue):
        super().__init__(
            operands=[condition, on_true, on_false],
            result_types=[SSAValue.get(on_true).type],
        )

    def verify_(self) -> None:
        condition, result = self.condition.type, self.result.type
        assert isinstance(condition, TensorType) and isinstance(result, TensorType)
        if condition.get_element_type() != i1:
            raise VerifyException(f"tj.select condition must be a bool tensor, got {condition}")
        if condition.get_shape() != result.get_shape():
            raise VerifyException(
                f"tj.select condition shape {condition.get_shape()} must equal the "
                f"result shape {result.get_shape()}"
            )

    def evaluate(self, c: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.where(c, x, y)

    def fold(self):
        if self.on_true == self.on_false:  # select(c, x, x) = x
            return (self.on_true,)
        return fold_with_numpy(self, self.evaluate)
