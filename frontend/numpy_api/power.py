"""`np.power` and `**`: `tj.pow` (pow(), element by element) except where NumPy computes
otherwise.

NumPy takes two shortcuts whose results differ from pow()'s:

1. its float32 and float64 power loops, given an exponent of one element (a scalar, a 0-d
   array, a size-1 array broadcast), compute the exponent 0.5 as sqrt(x), -1 as 1 / x and
   2 as x * x. At -inf, sqrt gives NaN where pow() gives inf; at -0.0, -0.0 where pow()
   gives +0.0; 1 / x and x * x are correctly rounded where pow() may be an ulp off. An
   exponent of several elements, even all equal (`np.full(n, 0.5)`), goes through pow(), and
   so do the float16 and complex loops.
2. the `**` operator on a float or complex array (`ndarray.__pow__`), before any loop, takes
   the Python float 0.5 as np.sqrt, and the Python ints 2 and -1 as np.square and
   np.reciprocal (float16 and complex arrays too; `x ** np.float32(0.5)` goes to the loop).

Tracing emits the shortcuts itself: the operator's in frontend/staging/array_operators.py,
the loops' here: for a constant exponent as the op it stands for, for a traced exponent of
one element as a `tj.pow` marked `one_exponent`. The loops compute that as a select on the
exponent's value (passes/support/scalar_semantics.py), and differentiation as one pow. A
Python number raised to a Python number (a weak result, docs/guide.md) is Python's pow(),
no shortcut.
"""

from __future__ import annotations

import numpy as np

from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import emit
from tracejit.ir import elementwise as ew
from tracejit.ir.folding import constant_value
from tracejit.ir.shape_ops import BroadcastInDimOp

NEGATIVE_POWER = "Integers to negative integer powers are not allowed."


def power(x: Tensor, y: Tensor, one_exponent: bool = False) -> Tensor:
    """x ** y of the loop dtype (operands converted and broadcast); `one_exponent`: NumPy's
    exponent operand has one element, so the float32 and float64 loops take shortcuts.
    Signed integer exponents are checked as NumPy does (at trace time when they are
    constants, else by a run-time check raising NumPy's ValueError). A negative constant
    exponent makes the result a pending ValueError, raised only if the result is used
    (non-strict execution, frontend/staging/non_strict.py)."""
    if y.dtype.kind == "i" and 0 not in y.shape:  # no exponents, nothing to check
        exponents = _constant_through_broadcast(y)
        if exponents is None:
            lowest = primitives.reduce("min", y, range(y.ndim))
            ok = primitives.compare("ge", lowest, primitives.constant(0, y.dtype))
            primitives.assert_true(ok, f"ValueError: {at_user_line(NEGATIVE_POWER)}")
        elif (exponents < 0).any():
            return primitives.poison(ValueError(at_user_line(NEGATIVE_POWER)), x.dims, x.dtype)
    if one_exponent and x.dtype in (np.float32, np.float64):
        return _scalar_exponent(x, y)
    return primitives.binary(ew.PowOp, x, y)


# --- the loops' shortcuts for an exponent of one element (1. above) -----------------------
def _scalar_exponent(x: Tensor, y: Tensor) -> Tensor:
    constant = _constant_through_broadcast(y)
    if constant is not None:
        exponent = constant.reshape(-1)[0] if constant.size else None
        shortcut = _SHORTCUTS.get(exponent) if exponent is not None else None
        return shortcut(x) if shortcut else primitives.binary(ew.PowOp, x, y)
    # Known only at run time: the loops choose by its value (a select per element) and
    # differentiation sees one pow, whose d/dy is not 0 where the chosen sqrt(x) is.
    return Tensor(emit(ew.PowOp(x.value, y.value, one_exponent=True)).result)


_SHORTCUTS = {
    0.5: lambda x: primitives.unary(ew.SqrtOp, x),
    -1.0: lambda x: primitives.binary(ew.DivOp, primitives.full_like(1.0, x), x),
    2.0: lambda x: primitives.binary(ew.MulOp, x, x),
}


def _constant_through_broadcast(x: Tensor) -> np.ndarray | None:
    value = x.value
    while isinstance(value.owner, BroadcastInDimOp):
        value = value.owner.operand
    return constant_value(value)
