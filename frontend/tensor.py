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

from tracejit.frontend.array_operators import ArrayOperators
from tracejit.frontend.source_location import at_user_line
from tracejit.ir.dtypes import numpy_dtype, static_shape


def _dims_of(value: SSAValue, shape: tuple) -> tuple:
    if None not in shape:
        return shape
    from tracejit.frontend.dims import UNKNOWN
    from tracejit.frontend.tracing import current_trace, is_tracing

    if not is_tracing():
        return tuple(UNKNOWN if d is None else d for d in shape)
    known = current_trace().dims
    if value in known:
        return known[value]
    owner = value.owner
    from tracejit.ir.shape_ops import BroadcastInDimOp

    if isinstance(owner, BroadcastInDimOp) and owner.operand in known:
        return _broadcast_result_dims(owner, known[owner.operand], shape)
    for operand in getattr(owner, "operands", ()):
        same_shape = isinstance(operand.type, TensorType) and static_shape(operand.type) == shape
        if same_shape and operand in known:
            known[value] = known[operand]
            return known[operand]
    return tuple(UNKNOWN if d is None else d for d in shape)


def _broadcast_result_dims(op, operand_dims: tuple, shape: tuple) -> tuple:
    """A broadcast's result dims: an unknown result dim fed by an unknown operand dim
    has that dim's source (e.g. `keepdims=True` inserting 1s)."""
    from tracejit.frontend.dims import UNKNOWN

    mapped = {d: i for i, d in enumerate(op.get_dims())}
    return tuple(
        size
        if size is not None
        else operand_dims[mapped[d]]
        if d in mapped and not isinstance(operand_dims[mapped[d]], int)
        else UNKNOWN
        for d, size in enumerate(shape)
    )


def _record_dims(value: SSAValue, dims: tuple) -> None:
    from tracejit.frontend.tracing import current_trace, is_tracing

    if is_tracing():
        current_trace().dims[value] = tuple(dims)


class Tensor(ArrayOperators):
    """A symbolic NumPy array inside a traced function."""

    __slots__ = ("value", "shape", "dtype", "dims")
    __array_priority__ = 1000  # NumPy defers `ndarray + Tensor` to Tensor.__radd__

    def __init__(self, value: SSAValue, dims: tuple | None = None):
        ttype = value.type
        assert isinstance(ttype, TensorType), ttype
        self.value = value
        self.shape: tuple[int | None, ...] = static_shape(ttype)
        self.dtype: np.dtype = numpy_dtype(ttype.get_element_type())
        # Where each dim's size comes from (frontend/dims.py): ints when known at trace
        # time; for unknown dims, recorded per value in the trace or inherited from an
        # operand of the same shape.
        self.dims = dims if dims is not None else _dims_of(value, self.shape)
        if dims is not None and None in self.shape:
            _record_dims(value, dims)

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

    # --- indexing and shape methods (frontend/numpy_api/indexing.py, shapes.py) ----
    def __getitem__(self, key: Any) -> Tensor:
        from tracejit.frontend.numpy_api.indexing import getitem

        return getitem(self, key)

    @property
    def T(self) -> Tensor:
        return np.transpose(self)

    def reshape(self, *shape: Any, order: str = "C") -> Tensor:
        return np.reshape(self, shape[0] if len(shape) == 1 else shape, order=order)

    def transpose(self, *axes: Any) -> Tensor:
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], tuple | list)):
            axes = axes[0]
        return np.transpose(self, axes or None)

    def ravel(self, order: str = "C") -> Tensor:
        return np.ravel(self, order=order)

    def flatten(self, order: str = "C") -> Tensor:
        return np.ravel(self, order=order)

    def squeeze(self, axis: Any = None) -> Tensor:
        return np.squeeze(self, axis=axis)

    def swapaxes(self, axis1: Any, axis2: Any) -> Tensor:
        return np.swapaxes(self, axis1, axis2)

    def take(self, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise"):
        return np.take(self, indices, axis=axis, out=out, mode=mode)

    def repeat(self, repeats: Any, axis: Any = None) -> Tensor:
        return np.repeat(self, repeats, axis=axis)

    # --- operators: ArrayOperators (array_operators.py); equality is staged too -------
    def __eq__(self, other):  # type: ignore[override]
        return np.equal(self, other)

    def __ne__(self, other):  # type: ignore[override]
        return np.not_equal(self, other)

    # --- ndarray methods -----------------------------------------------------------
    def astype(
        self,
        dtype: Any,
        order: Any = "K",
        casting: Any = "unsafe",
        subok: Any = True,
        copy: Any = True,
    ) -> Tensor:
        from tracejit.frontend.numpy_api.elementwise import stage_astype

        return stage_astype(self, dtype)

    def clip(self, min=None, max=None, out=None, **kwargs):
        return np.clip(self, min, max, out, **kwargs)

    def round(self, decimals=0, out=None):
        return np.round(self, decimals, out)

    # Reductions take NumPy's positional order (`out` is rejected by the NumPy function).
    def sum(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return np.sum(self, axis, dtype, out, keepdims=keepdims, **kwargs)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return np.prod(self, axis, dtype, out, keepdims=keepdims, **kwargs)

    def max(self, axis=None, out=None, keepdims=False, **kwargs):
        return np.max(self, axis, out, keepdims=keepdims, **kwargs)

    def min(self, axis=None, out=None, keepdims=False, **kwargs):
        return np.min(self, axis, out, keepdims=keepdims, **kwargs)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return np.mean(self, axis, dtype, out, keepdims=keepdims, **kwargs)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
        return np.var(self, axis, dtype, out, ddof=ddof, keepdims=keepdims, **kwargs)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
        return np.std(self, axis, dtype, out, ddof=ddof, keepdims=keepdims, **kwargs)

    def any(self, axis=None, out=None, keepdims=False, **kwargs):
        return np.any(self, axis, out, keepdims=keepdims, **kwargs)

    def all(self, axis=None, out=None, keepdims=False, **kwargs):
        return np.all(self, axis, out, keepdims=keepdims, **kwargs)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        return np.argmax(self, axis, out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        return np.argmin(self, axis, out, keepdims=keepdims)

    def dot(self, other):
        return np.dot(self, other)
