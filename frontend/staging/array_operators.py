"""Python operators on array-like objects as the NumPy ufuncs they stand for.

`tj.Tensor` and `tj.Variable` both inherit these: `a + b` is `np.add(a, b)`, which
NumPy hands to the operand's `__array_ufunc__` — staged for a Tensor, applied to the
current value for a Variable. One definition, so both behave alike.
"""

from __future__ import annotations

import numpy as np


def _apply(ufunc: np.ufunc, *operands: object) -> object:
    """`ufunc(*operands)` through NumPy's generic `ufunc.__call__`: the stubs' per-ufunc
    overloads accept only array-likes, not the `__array_ufunc__` objects these operators serve."""
    return ufunc(*operands)


def power_shortcut(base: object, exponent: object) -> object | None:
    """`base ** exponent` where NumPy's `ndarray.__pow__` takes a shortcut before any loop:
    an array to the Python int 2 is np.square (a bool array's is int8, where np.power's is
    int64), a float or complex array to the Python int -1 np.reciprocal and to the Python
    float 0.5 np.sqrt (frontend/numpy_api/power.py); None elsewhere. Not for a weak tensor:
    it stands for a Python number, whose `**` is pow()."""
    dtype = getattr(base, "dtype", None)
    if dtype is None or getattr(base, "weak", False):
        return None
    if type(exponent) is int and exponent == 2 and dtype.kind in "biufc":
        return _apply(np.square, base)
    if dtype.kind not in "fc":
        return None
    if type(exponent) is float and exponent == 0.5:
        return _apply(np.sqrt, base)
    if type(exponent) is int and exponent == -1:
        return _apply(np.reciprocal, base)
    return None


class ArrayOperators:
    """Arithmetic, bitwise and ordering operators through NumPy ufuncs."""

    __slots__ = ()

    def __add__(self, other):
        return _apply(np.add, self, other)

    def __radd__(self, other):
        return _apply(np.add, other, self)

    def __sub__(self, other):
        return _apply(np.subtract, self, other)

    def __rsub__(self, other):
        return _apply(np.subtract, other, self)

    def __mul__(self, other):
        return _apply(np.multiply, self, other)

    def __rmul__(self, other):
        return _apply(np.multiply, other, self)

    def __truediv__(self, other):
        return _apply(np.true_divide, self, other)

    def __rtruediv__(self, other):
        return _apply(np.true_divide, other, self)

    def __pow__(self, other):
        shortcut = power_shortcut(self, other)
        return _apply(np.power, self, other) if shortcut is None else shortcut

    def __rpow__(self, other):
        return _apply(np.power, other, self)

    def __matmul__(self, other):
        return _apply(np.matmul, self, other)

    def __rmatmul__(self, other):
        return _apply(np.matmul, other, self)

    def __neg__(self):
        return _apply(np.negative, self)

    def __pos__(self):
        return _apply(np.positive, self)

    def __abs__(self):
        return _apply(np.absolute, self)

    def __floordiv__(self, other):
        return _apply(np.floor_divide, self, other)

    def __rfloordiv__(self, other):
        return _apply(np.floor_divide, other, self)

    def __mod__(self, other):
        return _apply(np.remainder, self, other)

    def __rmod__(self, other):
        return _apply(np.remainder, other, self)

    def __invert__(self):
        return _apply(np.invert, self)

    def __and__(self, other):
        return _apply(np.bitwise_and, self, other)

    def __rand__(self, other):
        return _apply(np.bitwise_and, other, self)

    def __or__(self, other):
        return _apply(np.bitwise_or, self, other)

    def __ror__(self, other):
        return _apply(np.bitwise_or, other, self)

    def __xor__(self, other):
        return _apply(np.bitwise_xor, self, other)

    def __rxor__(self, other):
        return _apply(np.bitwise_xor, other, self)

    def __lshift__(self, other):
        return _apply(np.left_shift, self, other)

    def __rlshift__(self, other):
        return _apply(np.left_shift, other, self)

    def __rshift__(self, other):
        return _apply(np.right_shift, self, other)

    def __rrshift__(self, other):
        return _apply(np.right_shift, other, self)

    # Comparisons are staged too (so `__hash__` is kept as identity above).

    def __lt__(self, other):
        return _apply(np.less, self, other)

    def __le__(self, other):
        return _apply(np.less_equal, self, other)

    def __gt__(self, other):
        return _apply(np.greater, self, other)

    def __ge__(self, other):
        return _apply(np.greater_equal, self, other)
