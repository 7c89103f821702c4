"""Element-wise `tj` ops: unary and binary math, comparisons, select, and dtype casts.

This module is the one import for the element-wise family; the ops live in
`elementwise_unary.py`, `elementwise_binary.py`, `compare.py`, `select.py` and
`complex_parts.py`, their shared bases in `elementwise_base.py`.

    %s = tj.add %a, %b : tensor<4x3xf32>
    %e = tj.exp %s : tensor<4x3xf32>
    %m = tj.compare "lt" %e, %a : tensor<4x3xf32> -> tensor<4x3xi1>
    %w = tj.select %m, %e, %a : tensor<4x3xi1>, tensor<4x3xf32>
    %c = tj.cast %w : tensor<4x3xf32> to tensor<4x3xf64>
    %re = tj.real %z : tensor<4x3xcomplex<f64>> to tensor<4x3xf64>
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.compare import CompareOp
from tracejit.ir.complex_parts import ConjOp, ImagOp, RealOp, ReciprocalOp
from tracejit.ir.dtypes import numpy_dtype
from tracejit.ir.elementwise_base import ElementwiseBinaryOp, ElementwiseUnaryOp  # noqa: F401
from tracejit.ir.elementwise_binary import *  # noqa: F403  (re-export: ew.AddOp, ...)
from tracejit.ir.elementwise_binary import BINARY_OPS  # noqa: F401
from tracejit.ir.elementwise_unary import *  # noqa: F403  (re-export: ew.ExpOp, ...)
from tracejit.ir.elementwise_unary import UNARY_OPS  # noqa: F401
from tracejit.ir.folding import fold_with_numpy
from tracejit.ir.select import SelectOp


@irdl_op_definition
class CastOp(IRDLOperation, HasFolderInterface):
    """Convert the element type, as NumPy's `astype` (float -> int truncates toward 0;
    to bool is `x != 0`; NaN and out-of-range floats to int are unspecified, as in C;
    complex -> real keeps the real part, complex -> bool is `z != 0`).

    %r = tj.cast %x : tensor<4xi32> to tensor<4xf32>
    """

    name = "tj.cast"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, result_type: TensorType):
        super().__init__(operands=[input], result_types=[result_type])

    def verify_(self) -> None:
        assert isinstance(self.input.type, TensorType)
        assert isinstance(self.result.type, TensorType)
        if self.input.type.get_shape() != self.result.type.get_shape():
            raise VerifyException("tj.cast must keep the shape")

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        assert isinstance(self.result.type, TensorType)
        target = numpy_dtype(self.result.type.get_element_type())
        if x.dtype.kind == "c" and target.kind not in "cb":  # NumPy warns and drops imag
            x = x.real
        return x.astype(target)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)


# Element-wise ops that are neither unary nor binary in the sense of the two bases.
OTHER_ELEMENTWISE_OPS = (CompareOp, SelectOp, CastOp, RealOp, ImagOp, ConjOp, ReciprocalOp)
