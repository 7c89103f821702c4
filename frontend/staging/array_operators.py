"""Python operators on array-like objects as the NumPy ufuncs they stand for.

`tj.Tensor` and `tj.Variable` both inherit these: `a + b` is `np.add(a, b)`, which
NumPy hands to the operand's `__array_ufunc__` — staged for a Tensor, applied to the
current value for a Variable. One definition, so both behave alike.
"""

from __future__ import annotations

import numpy as np


class ArrayOperators:
    """Arithmetic, bitwise and ordering operators through NumPy ufuncs."""

    __slots__ = ()

    def __add__(self, other):
        return np.add(self, other)

    def __radd__(self, other):
        return np.add(other, self)

    def __sub__(self, other):
        return np.subtract(self, other)

    def __rsub__(self, other):
        return np.subtract(other, self)

    def __mul__(self, other):
        return np.multiply(self, other)

    def __rmul__(self, other):
        return np.multiply(other, self)

    def __truediv__(self, other):
        return np.true_divide(self, other)

    def __rtruediv__(self, other):
        return np.true_divide(other, self)

    def __pow__(self, other):
        return np.power(self, other)

    def __rpow__(self, other):
        return np.power(other, self)

    def __matmul__(self, other):
        return np.matmul(self, other)

    def __rmatmul__(self, other):
        return np.matmul(other, self)

    def __neg__(self):
        return np.negative(self)

    def __pos__(self):
        return np.positive(self)

    def __abs__(self):
        return np.absolute(self)

    def __floordiv__(self, other):
        return np.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return np.floor_divide(other, self)

    def __mod__(self, other):
        return np.remainder(self, other)

    def __rmod__(self, other):
        return np.remainder(other, self)

    def __invert__(self):
        return np.invert(self)

    def __and__(self, other):
        return np.bitwise_and(self, other)

    def __rand__(self, other):
        return np.bitwise_and(other, self)

    def __or__(self, other):
        return np.bitwise_or(self, other)

    def __ror__(self, other):
        return np.bitwise_or(other, self)

    def __xor__(self, other):
        return np.bitwise_xor(self, other)

    def __rxor__(self, other):
        return np.bitwise_xor(other, self)

    def __lshift__(self, other):
        return np.left_shift(self, other)

    def __rlshift__(self, other):
        return np.left_shift(other, self)

    def __rshift__(self, other):
        return np.right_shift(self, other)

    def __rrshift__(self, other):
        return np.right_shift(other, self)

    # Comparisons are staged too (so `__hash__` is kept as identity above).

    def __lt__(self, other):
        return np.less(self, other)

    def __le__(self, other):
        return np.less_equal(self, other)

    def __gt__(self, other):
        return np.greater(self, other)

    def __ge__(self, other):
        return np.greater_equal(self, other)
