"""`tj.matmul`: the matrix product of two 2-D tensors of one element type.

%c = tj.matmul %a, %b : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dtypes import is_bool
from tracejit.ir.folding import fold_with_numpy


@irdl_op_definition
class MatmulOp(IRDLOperation, HasFolderInterface):
    """`lhs @ rhs` for (m, k) x (k, n) -> (m, n); integers wrap."""

    name = "tj.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)"
    )

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: TensorType):
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        a, b, c = self.lhs.type, self.rhs.type, self.result.type
        assert isinstance(a, TensorType) and isinstance(b, TensorType)
        assert isinstance(c, TensorType)
        if not a.get_element_type() == b.get_element_type() == c.get_element_type():
            raise VerifyException("tj.matmul operands and result must share an element type")
        if is_bool(a.get_element_type()):
            raise VerifyException("tj.matmul is not defined on bool tensors")
        if (a.get_num_dims(), b.get_num_dims(), c.get_num_dims()) != (2, 2, 2):
            raise VerifyException("tj.matmul expects 2-D operands and result")
        (m, k), (k2, n) = a.get_shape(), b.get_shape()
        if k != k2 or tuple(c.get_shape()) != (m, n):
            raise VerifyException(
                f"tj.matmul shapes do not match: ({m}, {k}) @ ({k2}, {n}) -> {c.get_shape()}"
            )

    def evaluate(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.matmul(x, y)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
