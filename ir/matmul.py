"""`tj.matmul`: NumPy's `matmul` of two tensors of one element type.

    %c = tj.matmul %a, %b : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
    %d = tj.matmul %p, %q : (tensor<2x1x3x4xf64>, tensor<5x4x6xf64>) -> tensor<2x5x3x6xf64>
    %v = tj.matmul %x, %y : (tensor<3xi32>, tensor<3xi32>) -> tensor<i32>

The last two dims of an operand are its matrix (m, k) and (k, n); the dims before them
are batch dims, broadcast against each other as NumPy does. A 1-D lhs is a row (k,) and
contributes no m to the result; a 1-D rhs is a column (k,) and contributes no n. Integers
wrap; on bool it is NumPy's `any(a & b)`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
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

from tracejit.ir.folding import fold_with_numpy


def _batch_dims_agree(a: int, b: int) -> bool:
    return a == b or 1 in (a, b) or DYNAMIC_INDEX in (a, b)


def matmul_shape(lhs: Sequence[int], rhs: Sequence[int]) -> list[int] | None:
    """The result shape of `lhs @ rhs` (dynamic dims as -1), or None if they do not fit."""
    if not lhs or not rhs:
        return None
    k_lhs, k_rhs = lhs[-1], rhs[0] if len(rhs) == 1 else rhs[-2]
    if k_lhs != k_rhs and DYNAMIC_INDEX not in (k_lhs, k_rhs):
        return None
    batch_lhs, batch_rhs = list(lhs[:-2]), list(rhs[:-2])
    rank = max(len(batch_lhs), len(batch_rhs))
    batch_lhs = [1] * (rank - len(batch_lhs)) + batch_lhs
    batch_rhs = [1] * (rank - len(batch_rhs)) + batch_rhs
    batch = []
    for a, b in zip(batch_lhs, batch_rhs, strict=True):
        if not _batch_dims_agree(a, b):
            return None
        batch.append(b if a == 1 else a if b == 1 else max(a, b))  # max: a known dim over ?
    m = list(lhs[-2:-1])  # empty for a 1-D lhs
    n = list(rhs[-1:]) if len(rhs) > 1 else []
    return batch + m + n


@irdl_op_definition
class MatmulOp(IRDLOperation, HasFolderInterface):
    """`lhs @ rhs` with NumPy's matmul shapes (see the module docstring)."""

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
        if a.get_num_dims() == 0 or b.get_num_dims() == 0:
            raise VerifyException("tj.matmul operands must have at least one dim")
        expected = matmul_shape(a.get_shape(), b.get_shape())
        if expected is None or list(c.get_shape()) != expected:
            raise VerifyException(
                f"tj.matmul shapes do not match: {list(a.get_shape())} @ "
                f"{list(b.get_shape())} -> {list(c.get_shape())}"
            )

    def evaluate(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.matmul(x, y)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
