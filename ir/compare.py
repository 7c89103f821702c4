"""`tj.compare`: element-wise comparison of two tensors of one type into a bool tensor.

    %r = tj.compare "lt" %a, %b : tensor<4xf32> -> tensor<4xi1>

The predicate is one of NumPy's six comparisons. Float comparisons are false when
either side is NaN, except `ne`, which is true (as NumPy's `!=`). Unsigned and bool
tensors compare unsigned (True > False).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType, i1
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.folding import fold_with_numpy


@irdl_op_definition
class CompareOp(IRDLOperation, HasFolderInterface):
    """`lhs <predicate> rhs` element by element, as a bool (`i1`) tensor of the same shape."""

    name = "tj.compare"
    PREDICATES: ClassVar[dict[str, np.ufunc]] = {
        "eq": np.equal,
        "ne": np.not_equal,
        "lt": np.less,
        "le": np.less_equal,
        "gt": np.greater,
        "ge": np.greater_equal,
    }

    T: ClassVar = VarConstraint("T", TensorType.constr())
    predicate = prop_def(StringAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$predicate $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    def __init__(self, predicate: str, lhs: SSAValue, rhs: SSAValue):
        operand_type = SSAValue.get(lhs).type
        assert isinstance(operand_type, TensorType)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[TensorType(i1, operand_type.get_shape())],
            properties={"predicate": StringAttr(predicate)},
        )

    def verify_(self) -> None:
        source, target = self.lhs.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(target, TensorType)
        if self.predicate.data not in self.PREDICATES:
            raise VerifyException(
                f"tj.compare predicate must be one of {sorted(self.PREDICATES)}, "
                f"got '{self.predicate.data}'"
            )
        if target.get_element_type() != i1 or target.get_shape() != source.get_shape():
            raise VerifyException(
                f"tj.compare result must be {TensorType(i1, source.get_shape())}, got {target}"
            )

    def evaluate(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return self.PREDICATES[self.predicate.data](x, y)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
