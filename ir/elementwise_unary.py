"""Element-wise unary `tj` ops: `%r = tj.<name> %x : tensor<...>` (result type = operand type).

Each op is one NumPy ufunc on one loop dtype; see `elementwise_base.py` for the rules.
"""

from __future__ import annotations

from math import erf as _c_erf
from typing import ClassVar

import numpy as np
from xdsl.irdl import irdl_op_definition

from tracejit.ir.elementwise_base import (
    ARITHMETIC,
    BITS,
    FLOATS,
    INEXACT,
    NUMBERS,
    ElementwiseUnaryOp,
)


@irdl_op_definition
class NegOp(ElementwiseUnaryOp):
    """-x (integers wrap)

    %r = tj.neg %x : tensor<4xf32>
    """

    name = "tj.neg"
    NUMPY: ClassVar = staticmethod(np.negative)
    DOMAIN: ClassVar = ARITHMETIC


@irdl_op_definition
class AbsOp(ElementwiseUnaryOp):
    """|x| (abs of the most negative integer wraps, as in NumPy)

    %r = tj.abs %x : tensor<4xf32>
    """

    name = "tj.abs"
    NUMPY: ClassVar = staticmethod(np.absolute)
    DOMAIN: ClassVar = NUMBERS


@irdl_op_definition
class SignOp(ElementwiseUnaryOp):
    """-1, 0 or 1 by the sign of x; NaN stays NaN, -0.0 gives 0.0

    %r = tj.sign %x : tensor<4xf32>
    """

    name = "tj.sign"
    NUMPY: ClassVar = staticmethod(np.sign)
    DOMAIN: ClassVar = NUMBERS


@irdl_op_definition
class BitwiseNotOp(ElementwiseUnaryOp):
    """~x: every bit flipped (on bool: logical not)

    %r = tj.bitwise_not %x : tensor<4xi32>
    """

    name = "tj.bitwise_not"
    NUMPY: ClassVar = staticmethod(np.invert)
    DOMAIN: ClassVar = BITS


@irdl_op_definition
class ExpOp(ElementwiseUnaryOp):
    """e ** x

    %r = tj.exp %x : tensor<4xf32>
    """

    name = "tj.exp"
    NUMPY: ClassVar = staticmethod(np.exp)
    DOMAIN: ClassVar = INEXACT


@irdl_op_definition
class Expm1Op(ElementwiseUnaryOp):
    """e ** x - 1, accurate near 0

    %r = tj.expm1 %x : tensor<4xf32>
    """

    name = "tj.expm1"
    NUMPY: ClassVar = staticmethod(np.expm1)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class Exp2Op(ElementwiseUnaryOp):
    """2 ** x

    %r = tj.exp2 %x : tensor<4xf32>
    """

    name = "tj.exp2"
    NUMPY: ClassVar = staticmethod(np.exp2)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class LogOp(ElementwiseUnaryOp):
    """Natural logarithm: NaN below 0, -inf at 0 (complex: the principal branch, the
    imaginary part in [-pi, pi]).

    %r = tj.log %x : tensor<4xf32>
    """

    name = "tj.log"
    NUMPY: ClassVar = staticmethod(np.log)
    DOMAIN: ClassVar = INEXACT


@irdl_op_definition
class Log1pOp(ElementwiseUnaryOp):
    """log(1 + x), accurate near 0

    %r = tj.log1p %x : tensor<4xf32>
    """

    name = "tj.log1p"
    NUMPY: ClassVar = staticmethod(np.log1p)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class Log2Op(ElementwiseUnaryOp):
    """Base-2 logarithm.

    %r = tj.log2 %x : tensor<4xf32>
    """

    name = "tj.log2"
    NUMPY: ClassVar = staticmethod(np.log2)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class Log10Op(ElementwiseUnaryOp):
    """Base-10 logarithm.

    %r = tj.log10 %x : tensor<4xf32>
    """

    name = "tj.log10"
    NUMPY: ClassVar = staticmethod(np.log10)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class SqrtOp(ElementwiseUnaryOp):
    """Square root: NaN below 0 (complex: the principal branch, real part >= 0).

    %r = tj.sqrt %x : tensor<4xf32>
    """

    name = "tj.sqrt"
    NUMPY: ClassVar = staticmethod(np.sqrt)
    DOMAIN: ClassVar = INEXACT


def _erf(x: np.ndarray) -> np.ndarray:
    """C's erf element-wise in x's dtype (NumPy has no erf ufunc; `scipy.special.erf` and
    `math.erf` stage this op)."""
    x = np.asarray(x)
    values = np.frompyfunc(_c_erf, 1, 1)(x.astype(np.float64))
    return np.asarray(values, np.float64).astype(x.dtype)


@irdl_op_definition
class ErfOp(ElementwiseUnaryOp):
    """The error function, 2/sqrt(pi) * integral of exp(-t**2) from 0 to x (libm's erf).

    %r = tj.erf %x : tensor<4xf64>
    """

    name = "tj.erf"
    NUMPY: ClassVar = staticmethod(_erf)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class CbrtOp(ElementwiseUnaryOp):
    """Cube root (negative for negative x).

    %r = tj.cbrt %x : tensor<4xf32>
    """

    name = "tj.cbrt"
    NUMPY: ClassVar = staticmethod(np.cbrt)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class SinOp(ElementwiseUnaryOp):
    """Sine (radians).

    %r = tj.sin %x : tensor<4xf32>
    """

    name = "tj.sin"
    NUMPY: ClassVar = staticmethod(np.sin)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class CosOp(ElementwiseUnaryOp):
    """Cosine (radians).

    %r = tj.cos %x : tensor<4xf32>
    """

    name = "tj.cos"
    NUMPY: ClassVar = staticmethod(np.cos)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class TanOp(ElementwiseUnaryOp):
    """Tangent (radians).

    %r = tj.tan %x : tensor<4xf32>
    """

    name = "tj.tan"
    NUMPY: ClassVar = staticmethod(np.tan)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class ArcsinOp(ElementwiseUnaryOp):
    """Inverse sine: NaN outside [-1, 1].

    %r = tj.arcsin %x : tensor<4xf32>
    """

    name = "tj.arcsin"
    NUMPY: ClassVar = staticmethod(np.arcsin)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class ArccosOp(ElementwiseUnaryOp):
    """Inverse cosine: NaN outside [-1, 1].

    %r = tj.arccos %x : tensor<4xf32>
    """

    name = "tj.arccos"
    NUMPY: ClassVar = staticmethod(np.arccos)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class ArctanOp(ElementwiseUnaryOp):
    """Inverse tangent.

    %r = tj.arctan %x : tensor<4xf32>
    """

    name = "tj.arctan"
    NUMPY: ClassVar = staticmethod(np.arctan)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class SinhOp(ElementwiseUnaryOp):
    """Hyperbolic sine.

    %r = tj.sinh %x : tensor<4xf32>
    """

    name = "tj.sinh"
    NUMPY: ClassVar = staticmethod(np.sinh)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class CoshOp(ElementwiseUnaryOp):
    """Hyperbolic cosine.

    %r = tj.cosh %x : tensor<4xf32>
    """

    name = "tj.cosh"
    NUMPY: ClassVar = staticmethod(np.cosh)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class TanhOp(ElementwiseUnaryOp):
    """Hyperbolic tangent.

    %r = tj.tanh %x : tensor<4xf32>
    """

    name = "tj.tanh"
    NUMPY: ClassVar = staticmethod(np.tanh)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class ArcsinhOp(ElementwiseUnaryOp):
    """Inverse hyperbolic sine.

    %r = tj.arcsinh %x : tensor<4xf32>
    """

    name = "tj.arcsinh"
    NUMPY: ClassVar = staticmethod(np.arcsinh)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class ArccoshOp(ElementwiseUnaryOp):
    """Inverse hyperbolic cosine: NaN below 1.

    %r = tj.arccosh %x : tensor<4xf32>
    """

    name = "tj.arccosh"
    NUMPY: ClassVar = staticmethod(np.arccosh)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class ArctanhOp(ElementwiseUnaryOp):
    """Inverse hyperbolic tangent: +-inf at +-1, NaN outside.

    %r = tj.arctanh %x : tensor<4xf32>
    """

    name = "tj.arctanh"
    NUMPY: ClassVar = staticmethod(np.arctanh)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class FloorOp(ElementwiseUnaryOp):
    """Round toward -inf.

    %r = tj.floor %x : tensor<4xf32>
    """

    name = "tj.floor"
    NUMPY: ClassVar = staticmethod(np.floor)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class CeilOp(ElementwiseUnaryOp):
    """Round toward +inf.

    %r = tj.ceil %x : tensor<4xf32>
    """

    name = "tj.ceil"
    NUMPY: ClassVar = staticmethod(np.ceil)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class TruncOp(ElementwiseUnaryOp):
    """Round toward 0.

    %r = tj.trunc %x : tensor<4xf32>
    """

    name = "tj.trunc"
    NUMPY: ClassVar = staticmethod(np.trunc)
    DOMAIN: ClassVar = FLOATS


@irdl_op_definition
class RintOp(ElementwiseUnaryOp):
    """Round to the nearest integer, ties to even (NumPy's rint/round).

    %r = tj.rint %x : tensor<4xf32>
    """

    name = "tj.rint"
    NUMPY: ClassVar = staticmethod(np.rint)
    DOMAIN: ClassVar = FLOATS


UNARY_OPS = (
    NegOp,
    AbsOp,
    SignOp,
    BitwiseNotOp,
    ExpOp,
    Expm1Op,
    Exp2Op,
    LogOp,
    Log1pOp,
    Log2Op,
    Log10Op,
    SqrtOp,
    CbrtOp,
    ErfOp,
    SinOp,
    CosOp,
    TanOp,
    ArcsinOp,
    ArccosOp,
    ArctanOp,
    SinhOp,
    CoshOp,
    TanhOp,
    ArcsinhOp,
    ArccoshOp,
    ArctanhOp,
    FloorOp,
    CeilOp,
    TruncOp,
    RintOp,
)

# The transcendentals, evaluated on float32 in float64 (`ElementwiseUnaryOp.WIDENED`).
for _op in (
    ExpOp, Expm1Op, Exp2Op, LogOp, Log1pOp, Log2Op, Log10Op, CbrtOp, ErfOp, SinOp, CosOp,
    TanOp, ArcsinOp, ArccosOp, ArctanOp, SinhOp, CoshOp, TanhOp, ArcsinhOp, ArccoshOp,
    ArctanhOp,
):  # fmt: skip
    _op.WIDENED = True
