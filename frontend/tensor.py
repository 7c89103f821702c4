"""`tj.Tensor`: the symbolic array a traced function sees in place of an ndarray.

A Tensor only carries an SSA value and its abstract value (shape, dtype). Python
operators and NumPy calls on it are staged, not executed: NumPy hands ufuncs to
`__array_ufunc__` and other functions to `__array_function__`, which look the call up
in the NumPy registry (`frontend/numpy_api/`). Using a Tensor where a concrete value is
needed (`bool(t)`, `np.asarray(t)`) raises an error that says what to do instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from tracejit.frontend.source_location import at_user_line
from tracejit.ir.dtypes import numpy_dtype, static_shape


class Tensor:
    """A symbolic NumPy array inside a traced function."""

    __slots__ = ("value", "shape", "dtype")
    __array_priority__ = 1000  # NumPy defers `ndarray + Tensor` to Tensor.__radd__

    def __init__(self, value: SSAValue):
        ttype = value.type
        assert isinstance(ttype, TensorType), ttype
        self.value = value
        self.shape: tuple[int | None, ...] = static_shape(ttype)
        self.dtype: np.dtype = numpy_dtype(ttype.get_element_type())

    # --- abstract value ------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int | None:
        if any(d is None for d in self.shape):
            return None
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError(at_user_line("len() of unsized object (a 0-d tensor)"))
        if self.shape[0] is None:
            raise TypeError(at_user_line("len() of a tensor whose first dim is unknown"))
        return self.shape[0]

    def __repr__(self) -> str:
        dims = ", ".join("None" if d is None else str(d) for d in self.shape)
        return f"<tj.Tensor shape=({dims}{',' if len(self.shape) == 1 else ''}) dtype={self.dtype}>"

    # --- concrete-value misuse -----------------------------------------------------
    def __bool__(self) -> bool:
        raise TypeError(
            at_user_line(
                "using a symbolic tj.Tensor as a Python bool is not allowed while tracing: "
                "its value is only known at run time. Use tj.cond / np.where, or enable "
                "AutoGraph (tj.function(autograph=True)) to stage `if`/`while` on tensors"
            )
        )

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError(
            at_user_line(
                "a symbolic tj.Tensor cannot be converted to a NumPy array while tracing "
                "(its value is only known at run time); keep using NumPy functions on it"
            )
        )

    def __index__(self) -> int:
        raise TypeError(at_user_line("a symbolic tj.Tensor cannot be used as a Python int"))

    __hash__ = object.__hash__

    # --- NumPy protocols -----------------------------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any):
        from tracejit.frontend.numpy_api.registry import call_ufunc

        return call_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any):
        from tracejit.frontend.numpy_api.registry import call_function

        return call_function(func, args, kwargs)

    # --- operators (staged through the same NumPy entry points) ---------------------
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
        return self

    def __abs__(self):
        return np.absolute(self)

    # --- ndarray methods -----------------------------------------------------------
    def astype(self, dtype: Any) -> Tensor:
        from tracejit.frontend import primitives

        return primitives.cast(self, np.dtype(dtype))

    def sum(self, axis=None, dtype=None, keepdims=False):
        return np.sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return np.prod(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return np.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return np.min(self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, keepdims=False):
        return np.mean(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def dot(self, other):
        return np.dot(self, other)
