"""NumPy reductions (`np.sum`, `np.max`, ..., and the ndarray methods) as `tj.reduce`.

NumPy's result dtypes are kept: `np.sum`/`np.prod` widen small integers and bools to
the platform integer (int64 here) and `np.mean` of integers is float64.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tracejit.frontend import primitives
from tracejit.frontend.numpy_api.promotion import as_tensor, dtype_descriptor
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.source_location import at_user_line
from tracejit.frontend.tensor import Tensor


def normalize_axes(axis: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Axes as sorted non-negative ints; `None` means all; AxisError when out of range."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    normalized = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(
                at_user_line(f"axis {a} is out of bounds for array of dimension {ndim}")
            )
        normalized.append(int(a) % ndim)
    if len(set(normalized)) != len(normalized):
        raise ValueError(at_user_line("duplicate value in 'axis'"))
    return tuple(sorted(normalized))


def _keep_dims(result: Tensor, source: Tensor, axes: tuple[int, ...]) -> Tensor:
    """Re-insert the reduced axes as size-1 dims (`keepdims=True`)."""
    from tracejit.frontend.tracing import emit
    from tracejit.ir.dtypes import tensor_type
    from tracejit.ir.shape_ops import BroadcastInDimOp

    shape = [1 if i in axes else s for i, s in enumerate(source.shape)]
    kept = [i for i in range(source.ndim) if i not in axes]
    op = BroadcastInDimOp(result.value, kept, tensor_type(shape, result.dtype))
    return Tensor(emit(op).result)


def _reduce(kind: str, x: Any, axis, dtype, keepdims: bool, numpy_fn) -> Tensor:
    source_dtype = np.dtype(dtype_descriptor(x)) if not isinstance(x, Tensor) else x.dtype
    if dtype is None:
        dtype = numpy_fn(np.zeros(1, source_dtype)).dtype
    x = as_tensor(x, np.dtype(dtype))
    axes = normalize_axes(axis, x.ndim)
    if any(x.shape[a] == 0 for a in axes) and kind in ("max", "min"):
        raise ValueError(
            at_user_line(f"zero-size array to reduction operation {kind}imum which has no identity")
        )
    result = primitives.reduce(kind, x, axes)
    return _keep_dims(result, x, axes) if keepdims else result


@implements(np.sum)
def sum_(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    _no_out(out, kwargs)
    return _reduce("sum", a, axis, dtype, keepdims, np.sum)


@implements(np.prod)
def prod(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    _no_out(out, kwargs)
    return _reduce("prod", a, axis, dtype, keepdims, np.prod)


@implements(np.max, np.amax)
def max_(a, axis=None, out=None, keepdims=False, **kwargs):
    _no_out(out, kwargs)
    return _reduce("max", a, axis, None, keepdims, np.max)


@implements(np.min, np.amin)
def min_(a, axis=None, out=None, keepdims=False, **kwargs):
    _no_out(out, kwargs)
    return _reduce("min", a, axis, None, keepdims, np.min)


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    _no_out(out, kwargs)
    source = a.dtype if isinstance(a, Tensor) else np.dtype(dtype_descriptor(a))
    if dtype is None:
        dtype = np.mean(np.zeros(1, source)).dtype
    x = as_tensor(a, np.dtype(dtype))
    count = int(np.prod([x.shape[i] for i in normalize_axes(axis, x.ndim)], dtype=np.int64))
    total = _reduce("sum", x, axis, dtype, keepdims, np.sum)
    return np.true_divide(total, primitives.constant(count, total.dtype) if count else np.nan)


def _no_out(out, kwargs) -> None:
    if out is not None:
        raise TypeError(at_user_line("reductions with out= are not supported by tracejit"))
    unsupported_args = [k for k, v in kwargs.items() if v is not np._NoValue]
    if unsupported_args:
        raise TypeError(
            at_user_line(f"reduction arguments {unsupported_args} are not supported by tracejit")
        )
