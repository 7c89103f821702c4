"""Element-wise `tj` ops: unary and binary math, and dtype casts.

Operands of a binary op have one tensor type: tracing makes broadcasting
(`tj.broadcast_in_dim`) and dtype promotion (`tj.cast`) explicit first, so these ops
stay simple to verify, fold and lower. Each op names its NumPy meaning in `NUMPY`,
used for constant folding and as the reference semantics.

    %s = tj.add %a, %b : tensor<4x3xf32>
    %e = tj.exp %s : tensor<4x3xf32>
    %c = tj.cast %e : tensor<4x3xf32> to tensor<4x3xf64>
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import TensorType
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

from tracejit.ir.dtypes import is_bool, is_float, numpy_dtype
from tracejit.ir.folding import fold_with_numpy


def _element(value: SSAValue):
    assert isinstance(value.type, TensorType)
    return value.type.get_element_type()


class ElementwiseUnaryOp(IRDLOperation, HasFolderInterface):
    """Base of `%r = tj.<name> %x : tensor<...>`; result type equals operand type."""

    T: ClassVar = VarConstraint("T", TensorType.constr())
    operand = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($result)"

    NUMPY: ClassVar[Callable[..., np.ndarray]]
    FLOAT_ONLY: ClassVar[bool] = False

    def __init__(self, operand: SSAValue):
        super().__init__(operands=[operand], result_types=[SSAValue.get(operand).type])

    def verify_(self) -> None:
        element = _element(self.operand)
        if self.FLOAT_ONLY and not is_float(element):
            raise VerifyException(f"{self.name} expects a float tensor, got {element}")
        if is_bool(element) and not self.FLOAT_ONLY:
            raise VerifyException(f"{self.name} is not defined on bool tensors")

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        return self.NUMPY(x)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)


class ElementwiseBinaryOp(IRDLOperation, HasFolderInterface):
    """Base of `%r = tj.<name> %a, %b : tensor<...>`; all three types are equal."""

    T: ClassVar = VarConstraint("T", TensorType.constr())
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    NUMPY: ClassVar[Callable[..., np.ndarray]]
    FLOAT_ONLY: ClassVar[bool] = False

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[SSAValue.get(lhs).type])

    def verify_(self) -> None:
        element = _element(self.lhs)
        if self.FLOAT_ONLY and not is_float(element):
            raise VerifyException(f"{self.name} expects float tensors, got {element}")
        if is_bool(element):
            raise VerifyException(f"{self.name} is not defined on bool tensors")

    def evaluate(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return self.NUMPY(x, y)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)


@irdl_op_definition
class NegOp(ElementwiseUnaryOp):
    """-x (integers wrap)"""

    name = "tj.neg"
    NUMPY: ClassVar = staticmethod(np.negative)


@irdl_op_definition
class AbsOp(ElementwiseUnaryOp):
    """|x| (abs of the most negative integer wraps, as in NumPy)"""

    name = "tj.abs"
    NUMPY: ClassVar = staticmethod(np.absolute)


@irdl_op_definition
class ExpOp(ElementwiseUnaryOp):
    """e ** x"""

    name = "tj.exp"
    NUMPY: ClassVar = staticmethod(np.exp)
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class LogOp(ElementwiseUnaryOp):
    """Natural logarithm: NaN below 0, -inf at 0."""

    name = "tj.log"
    NUMPY: ClassVar = staticmethod(np.log)
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class TanhOp(ElementwiseUnaryOp):
    """Hyperbolic tangent."""

    name = "tj.tanh"
    NUMPY: ClassVar = staticmethod(np.tanh)
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class SqrtOp(ElementwiseUnaryOp):
    """Square root: NaN below 0."""

    name = "tj.sqrt"
    NUMPY: ClassVar = staticmethod(np.sqrt)
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    """a + b (integers wrap)"""

    name = "tj.add"
    NUMPY: ClassVar = staticmethod(np.add)


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    """a - b (integers wrap)"""

    name = "tj.sub"
    NUMPY: ClassVar = staticmethod(np.subtract)


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    """a * b (integers wrap)"""

    name = "tj.mul"
    NUMPY: ClassVar = staticmethod(np.multiply)


@irdl_op_definition
class DivOp(ElementwiseBinaryOp):
    """a / b on floats (x / 0 is +-inf, 0 / 0 is NaN)."""

    name = "tj.div"
    NUMPY: ClassVar = staticmethod(np.true_divide)
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class PowOp(ElementwiseBinaryOp):
    """a ** b"""

    name = "tj.pow"
    NUMPY: ClassVar = staticmethod(np.power)


@irdl_op_definition
class MaximumOp(ElementwiseBinaryOp):
    """Element-wise max; NaN propagates."""

    name = "tj.maximum"
    NUMPY: ClassVar = staticmethod(np.maximum)


@irdl_op_definition
class MinimumOp(ElementwiseBinaryOp):
    """Element-wise min; NaN propagates."""

    name = "tj.minimum"
    NUMPY: ClassVar = staticmethod(np.minimum)


UNARY_OPS = (NegOp, AbsOp, ExpOp, LogOp, TanhOp, SqrtOp)
BINARY_OPS = (AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp)


@irdl_op_definition
class CastOp(IRDLOperation, HasFolderInterface):
    """Convert the element type, as NumPy's `astype` (float -> int truncates toward 0).

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
        return x.astype(numpy_dtype(self.result.type.get_element_type()))

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
