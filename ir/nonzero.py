"""`tj.nonzero`: the coordinates of the non-zero elements, a result sized by the data.

    %c = tj.nonzero %x : tensor<4x5xf32> -> tensor<?x2xi64>

is `np.argwhere(x)`: one row per element that is not zero (NaN counts as non-zero,
-0.0 does not), in row-major order, holding that element's index along each dim. The
row count is only known when the kernel runs, so the result's first dim is always `?`;
the kernel counts the elements first and then allocates and fills the result
(passes/bufferize/nonzero.py). A 0-d input gives 0 or 1 rows of 0 coordinates.

The frontend builds `np.nonzero`, `np.flatnonzero`, one-argument `np.where` and
boolean-mask indexing `x[mask]` (a `tj.gather` of the flattened indices) on it.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


def coordinates_type(source: TensorType) -> TensorType:
    """`tensor<? x rank x i64>`: the result type of `tj.nonzero` of `source`."""
    return TensorType(i64, [DYNAMIC_INDEX, source.get_num_dims()])


@irdl_op_definition
class NonzeroOp(IRDLOperation):
    """The coordinates of `input`'s non-zero elements (`np.argwhere`, see the module doc).
    Its result size is never known at trace time, so it has no folder."""

    name = "tj.nonzero"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue):
        assert isinstance(input.type, TensorType)
        super().__init__(operands=[input], result_types=[coordinates_type(input.type)])

    def verify_(self) -> None:
        source = self.input.type
        assert isinstance(source, TensorType)
        expected = coordinates_type(source)
        if self.result.type != expected:
            raise VerifyException(
                f"tj.nonzero of {source} gives {expected}, not {self.result.type}"
            )

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        return np.argwhere(x).astype(np.int64)
