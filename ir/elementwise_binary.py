"""Element-wise binary `tj` ops: `%r = tj.<name> %a, %b : tensor<...>` (one type for all).

Each op is one NumPy ufunc on one loop dtype; see `elementwise_base.py` for the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import UnitAttr, f32, f64
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_prop_def
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dtypes import element_of
from tracejit.ir.elementwise_base import (
    ARITHMETIC,
    BITS,
    FLOATS,
    INEXACT,
    INTEGERS,
    NUMBERS,
    ElementwiseBinaryOp,
)


def _power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.power element by element (pow(), as NumPy's loop for an exponent of several
    elements: NumPy's shortcuts for a scalar exponent are ops of their own, emitted by
    tracing), but an integer to a negative power gives what the kernel computes (0, or +-1
    for a base of +-1) instead of raising."""
    if np.size(a) == np.size(b) == 1:  # NumPy would take a shortcut: use two elements
        twice = _power(np.repeat(np.ravel(a), 2), np.repeat(np.ravel(b), 2))
        return twice[:1].reshape(np.broadcast_shapes(np.shape(a), np.shape(b)))
    a, b = np.broadcast_arrays(a, b)
    b = np.array(b)  # its own strides: NumPy takes a stride-0 exponent for a scalar one
    if a.dtype.kind != "i" or not (b < 0).any():
        return np.power(a, b)
    negative = b < 0
    result = np.power(a, np.where(negative, 0, b))
    odd = (b % 2).astype(bool)
    unit = np.where(a == -1, np.where(odd, -1, 1), np.where(a == 1, 1, 0)).astype(a.dtype)
    return np.where(negative, unit, result)


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    """a + b (integers wrap)

    %r = tj.add %a, %b : tensor<4xf32>
    """

    name = "tj.add"
    NUMPY: ClassVar = staticmethod(np.add)
    DOMAIN: ClassVar = ARITHMETIC


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    """a - b (integers wrap)

    %r = tj.sub %a, %b : tensor<4xf32>
    """

    name = "tj.sub"
    NUMPY: ClassVar = staticmethod(np.subtract)
    DOMAIN: ClassVar = ARITHMETIC


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    """a * b (integers wrap)

    %r = tj.mul %a, %b : tensor<4xf32>
    """

    name = "tj.mul"
    NUMPY: ClassVar = staticmethod(np.multiply)
    DOMAIN: ClassVar = ARITHMETIC


@irdl_op_definition
class DivOp(ElementwiseBinaryOp):
    """a / b on floats (x / 0 is +-inf, 0 / 0 is NaN) and complex numbers (Smith's
    algorithm, as NumPy).

    %r = tj.div %a, %b : tensor<4xf32>
    """

    name = "tj.div"
    NUMPY: ClassVar = staticmethod(np.true_divide)
    DOMAIN: ClassVar = INEXACT


@irdl_op_definition
class FloorDivideOp(ElementwiseBinaryOp):
    """floor(a / b) as NumPy: integer x // 0 is 0, INT_MIN // -1 wraps to INT_MIN;
    floats follow NumPy's divmod (x // 0 is x / 0).

    %r = tj.floor_divide %a, %b : tensor<4xf32>
    """

    name = "tj.floor_divide"
    NUMPY: ClassVar = staticmethod(np.floor_divide)
    DOMAIN: ClassVar = NUMBERS


@irdl_op_definition
class RemainderOp(ElementwiseBinaryOp):
    """a - floor(a / b) * b, with the sign of b (Python's %); integer x % 0 is 0;
    float x % 0 is NaN.

    %r = tj.remainder %a, %b : tensor<4xf32>
    """

    name = "tj.remainder"
    NUMPY: ClassVar = staticmethod(np.remainder)
    DOMAIN: ClassVar = NUMBERS


@irdl_op_definition
class FmodOp(ElementwiseBinaryOp):
    """C's fmod: the remainder of truncated division, with the sign of a; integer
    fmod(x, 0) is 0.

    %r = tj.fmod %a, %b : tensor<4xf32>
    """

    name = "tj.fmod"
    NUMPY: ClassVar = staticmethod(np.fmod)
    DOMAIN: ClassVar = NUMBERS


@irdl_op_definition
class PowOp(ElementwiseBinaryOp):
    """a ** b (integers wrap; an integer to a negative power is 0, or +-1 for a base of
    +-1: tracing checks the exponents and raises NumPy's ValueError first; complex powers
    as NumPy's `npy_cpow`: small integral exponents by repeated multiplication, others
    as exp(b * log(a))).

    `one_exponent` (float32 and float64 only): b is one exponent broadcast, and the op is
    NumPy's loop for it, which computes the exponents 0.5, -1 and 2 as sqrt(a), 1 / a and
    a * a (frontend/numpy_api/power.py). Tracing marks a pow whose exponent is known only
    at run time, so that differentiation sees one pow (d/db is a ** b * log(a) at b = 0.5
    too) and the loops choose the shortcut by the exponent's value.

    %r = tj.pow %a, %b : tensor<4xf32>
    %r = tj.pow %a, %b one_exponent : tensor<4xf64>
    """

    name = "tj.pow"
    NUMPY: ClassVar = staticmethod(_power)
    DOMAIN: ClassVar = ARITHMETIC
    one_exponent = opt_prop_def(UnitAttr)
    assembly_format = "$lhs `,` $rhs (`one_exponent` $one_exponent^)? attr-dict `:` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, one_exponent: bool = False):
        properties = {"one_exponent": UnitAttr()} if one_exponent else {}
        IRDLOperation.__init__(
            self, operands=[lhs, rhs], result_types=[SSAValue.get(lhs).type],
            properties=properties,
        )

    def verify_(self) -> None:
        super().verify_()
        if self.one_exponent is not None and element_of(self.lhs) not in (f32, f64):
            raise VerifyException("tj.pow one_exponent is NumPy's float32 and float64 loop")

    def evaluate(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        result = _power(x, y)
        if self.one_exponent is None:
            return result
        for exponent, shortcut in ONE_EXPONENT_SHORTCUTS.items():
            result = np.where(y == exponent, shortcut(x), result)
        return result


ONE_EXPONENT_SHORTCUTS: dict[float, Callable[[np.ndarray], np.ndarray]] = {
    0.5: np.sqrt,
    -1.0: lambda x: np.divide(x.dtype.type(1), x),
    2.0: lambda x: np.multiply(x, x),
}
"""NumPy's float loops given one exponent: its value -> what they compute instead of pow()."""


@irdl_op_definition
class MaximumOp(ElementwiseBinaryOp):
    """Element-wise max; NaN propagates.

    %r = tj.maximum %a, %b : tensor<4xf32>
    """

    name = "tj.maximum"
    NUMPY: ClassVar = staticmethod(np.maximum)
    DOMAIN: ClassVar = NUMBERS


@irdl_op_definition
class MinimumOp(ElementwiseBinaryOp):
    """Element-wise min; NaN propagates.

    %r = tj.minimum %a, %b : tensor<4xf32>
    """

    name = "tj.minimum"
    NUMPY: ClassVar = staticmethod(np.minimum)
    DOMAIN: ClassVar = NUMBERS


@irdl_op_definition
class FmaxOp(ElementwiseBinaryOp):
    """Element-wise max ignoring NaN (NaN only if both are NaN).

    %r = tj.fmax %a, %b : tensor<4xf32>
    """

    name = "tj.fmax"
    NUMPY: ClassVar = staticmethod(np.fmax)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class FminOp(ElementwiseBinaryOp):
    """Element-wise min ignoring NaN (NaN only if both are NaN).

    %r = tj.fmin %a, %b : tensor<4xf32>
    """

    name = "tj.fmin"
    NUMPY: ClassVar = staticmethod(np.fmin)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class Arctan2Op(ElementwiseBinaryOp):
    """The angle of the point (b, a): atan(a / b) in the right quadrant.

    %r = tj.arctan2 %a, %b : tensor<4xf32>
    """

    name = "tj.arctan2"
    NUMPY: ClassVar = staticmethod(np.arctan2)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class HypotOp(ElementwiseBinaryOp):
    """sqrt(a**2 + b**2) without intermediate overflow; inf if either is inf.

    %r = tj.hypot %a, %b : tensor<4xf32>
    """

    name = "tj.hypot"
    NUMPY: ClassVar = staticmethod(np.hypot)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class CopysignOp(ElementwiseBinaryOp):
    """|a| with the sign bit of b.

    %r = tj.copysign %a, %b : tensor<4xf32>
    """

    name = "tj.copysign"
    NUMPY: ClassVar = staticmethod(np.copysign)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class BitwiseAndOp(ElementwiseBinaryOp):
    """a & b (on bool: logical and)

    %r = tj.bitwise_and %a, %b : tensor<4xi32>
    """

    name = "tj.bitwise_and"
    NUMPY: ClassVar = staticmethod(np.bitwise_and)
    DOMAIN: ClassVar = BITS


@irdl_op_definition
class BitwiseOrOp(ElementwiseBinaryOp):
    """a | b (on bool: logical or)

    %r = tj.bitwise_or %a, %b : tensor<4xi32>
    """

    name = "tj.bitwise_or"
    NUMPY: ClassVar = staticmethod(np.bitwise_or)
    DOMAIN: ClassVar = BITS


@irdl_op_definition
class BitwiseXorOp(ElementwiseBinaryOp):
    """a ^ b (on bool: logical xor)

    %r = tj.bitwise_xor %a, %b : tensor<4xi32>
    """

    name = "tj.bitwise_xor"
    NUMPY: ClassVar = staticmethod(np.bitwise_xor)
    DOMAIN: ClassVar = BITS


@irdl_op_definition
class LeftShiftOp(ElementwiseBinaryOp):
    """a << b; 0 when b is negative or at least the bit width (as NumPy on x86).

    %r = tj.left_shift %a, %b : tensor<4xi32>
    """

    name = "tj.left_shift"
    NUMPY: ClassVar = staticmethod(np.left_shift)
    DOMAIN: ClassVar = INTEGERS


@irdl_op_definition
class RightShiftOp(ElementwiseBinaryOp):
    """a >> b (arithmetic for signed); when b is negative or at least the bit width:
    0, or -1 for a negative signed a (as NumPy on x86).

    %r = tj.right_shift %a, %b : tensor<4xi32>
    """

    name = "tj.right_shift"
    NUMPY: ClassVar = staticmethod(np.right_shift)
    DOMAIN: ClassVar = INTEGERS


BINARY_OPS = (
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    FloorDivideOp,
    RemainderOp,
    FmodOp,
    PowOp,
    MaximumOp,
    MinimumOp,
    FmaxOp,
    FminOp,
    Arctan2Op,
    HypotOp,
    CopysignOp,
    BitwiseAndOp,
    BitwiseOrOp,
    BitwiseXorOp,
    LeftShiftOp,
    RightShiftOp,
)
