"""Turning mixed operands (Tensors, arrays, NumPy and Python scalars) into Tensors of
one dtype and one shape, with NumPy 2's rules.

The dtypes come from NumPy itself (`ufunc.resolve_dtypes`), so NEP 50 holds by
construction: Python scalars are weak (`int32_tensor + 1` stays int32, `float32_tensor + 1j`
is complex64), NumPy scalars
and arrays are not, and a Python int that does not fit raises OverflowError as in NumPy.
A weak tensor (`Tensor.weak`: a staged loop variable initialised from a Python literal, and
Python-operator arithmetic on it with literals) stands for a Python int, float or complex,
so it is weak too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tracejit.frontend.numpy_api.construction import array_dtype, array_of
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, weak_type

_PYTHON_SCALARS = (bool, int, float, complex)


def dtype_descriptor(x: object) -> np.dtype | type:
    """What `resolve_dtypes` needs: a dtype, or the Python type for a weak scalar."""
    if isinstance(x, Tensor):
        return weak_type(x) or x.dtype
    if isinstance(x, bool):  # NumPy treats a Python bool as np.bool_
        return np.dtype(np.bool_)
    if isinstance(x, _PYTHON_SCALARS) and not isinstance(x, np.generic):
        return type(x)
    if isinstance(x, np.ndarray | np.generic):
        return x.dtype
    if isinstance(x, list | tuple):  # `np.asarray` of it: strong, as NumPy converts it
        return array_dtype(x)
    raise TypeError(at_user_line(f"cannot use a {type(x).__name__} as a tracejit tensor"))




def loop_dtypes(ufunc: np.ufunc, operands: Sequence[object]) -> tuple[np.dtype, ...]:
    """(input dtypes..., output dtype) NumPy would use for `ufunc(*operands)`."""
    descriptors = tuple(dtype_descriptor(x) for x in operands)
    if not any(isinstance(d, np.dtype) for d in descriptors):  # weak tensors and literals only:
        descriptors = tuple(_strong(x, d) for x, d in zip(operands, descriptors, strict=True))
    try:
        return ufunc.resolve_dtypes((*descriptors, *(None,) * ufunc.nout))
    except TypeError as error:
        raise TypeError(at_user_line(f"np.{ufunc.__name__}: {error}")) from None


def _strong(x: object, descriptor: np.dtype | type) -> np.dtype | type:
    """A weak tensor's own dtype (int64/float64, what NumPy gives the Python scalar alone):
    resolving only Python types gives object loops for comparisons of Python ints."""
    return x.dtype if isinstance(x, Tensor) else descriptor


def as_tensor(x: object, dtype: np.dtype) -> Tensor:
    """`x` as a Tensor of `dtype`: cast a Tensor, stage anything else as a constant."""
    if isinstance(x, Tensor):
        return primitives.cast(x, dtype)
    if isinstance(x, np.ndarray | np.generic):
        return primitives.constant(np.asarray(x).astype(dtype))
    if isinstance(x, list | tuple):  # `np.asarray(x)`, then cast to the loop's dtype
        return primitives.cast(array_of(x), dtype)
    try:
        return primitives.constant(np.asarray(x, dtype=dtype))
    except OverflowError as error:  # NEP 50: `int8_tensor + 300` raises, as in NumPy
        raise OverflowError(at_user_line(str(error))) from None


def broadcast_shape(tensors: Sequence[Tensor]) -> tuple:
    """NumPy's broadcast shape; dims unknown at trace time become run-time constraints
    (frontend/staging/dims.py)."""
    if all(None not in t.shape for t in tensors):
        try:
            return np.broadcast_shapes(*(t.shape for t in tensors))  # type: ignore[arg-type]  # None dims fail as NumPy's error
        except ValueError:
            shapes = " and ".join(str(t.shape) for t in tensors)
            raise ValueError(
                at_user_line(f"operands could not be broadcast together with shapes {shapes}")
            ) from None
    from tracejit.frontend.staging.dims import broadcast_dims
    from tracejit.frontend.staging.tracing import current_trace

    distinct = {t.value: t for t in tensors}.values()  # x * x: one operand, one unknown dim
    return broadcast_dims([t.dims for t in distinct], current_trace().dim_constraints)


def broadcast_all(tensors: Sequence[Tensor]) -> list[Tensor]:
    """`tensors` broadcast to their one shape; a slice like `x[:1]` of a dim unknown at
    trace time is broadcast as NumPy does, checked by the kernel (one_element_broadcast.py)."""
    from tracejit.frontend.numpy_api import one_element_broadcast

    tensors, narrowed = one_element_broadcast.narrowed_operands(tensors)
    shape = broadcast_shape(tensors)
    witnesses = _unknown_dim_witnesses(tensors, len(shape))
    one_element_broadcast.check_narrowed(narrowed, shape, witnesses)
    return [primitives.broadcast_to(t, shape, witnesses) for t in tensors]


def _unknown_dim_witnesses(tensors: Sequence[Tensor], rank: int) -> dict[int, tuple]:
    """{result axis: (tensor value, its axis)} for result dims unknown at trace time whose
    size no input gives: the one operand that has the dim reads it at run time."""
    from tracejit.frontend.staging.dims import DimSource

    found: dict[int, tuple] = {}
    for t in tensors:
        for axis, d in enumerate(t.dims):
            if not isinstance(d, int | DimSource):
                found.setdefault(rank - t.ndim + axis, (t.value, axis))
    return found


def weak_result_type(*operands: object) -> np.dtype:
    """`np.result_type` of the operands with Python scalars weak (NEP 50), as `np.where`."""
    descriptors = []
    for x in operands:
        if isinstance(x, Tensor):
            python_type = weak_type(x)
            descriptors.append(python_type() if python_type else x.dtype)  # 0 or 0.0: weak
        elif isinstance(x, _PYTHON_SCALARS) and not isinstance(x, np.generic):
            descriptors.append(x)  # the value itself: result_type treats it as weak
        else:
            descriptors.append(array_dtype(x))
    try:
        return np.result_type(*descriptors)
    except TypeError as error:
        raise TypeError(at_user_line(str(error))) from None
