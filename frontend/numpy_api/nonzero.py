"""`np.nonzero` and its family: index arrays whose length depends on the data.

All of them are built on one op, `tj.nonzero` (ir/nonzero.py, `np.argwhere`): the
kernel counts the non-zero elements, then allocates and fills their coordinates. The
length is a `Counted` dim (frontend/staging/dims.py): unknown while tracing, the same for every
selection made with the same array, and returned to the caller as a NumPy array the
kernel allocated (frontend/api/kernel_outputs.py).

    np.argwhere(x)      the coordinates, shape (count, x.ndim)
    np.nonzero(x)       a tuple of x.ndim index arrays, its columns (also `t.nonzero()`
                        and `np.where(x)`); a 0-d x raises ValueError, as in NumPy 2
    np.flatnonzero(x)   the indices into `x.ravel()`
    np.count_nonzero(x) the count itself (any axis, keepdims), a static shape
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.reductions import normalize_axes
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import tensor_of
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor

_NO_0D = (
    "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead."
)


@implements(np.argwhere)
def argwhere(a: object) -> Tensor:
    return primitives.nonzero(tensor_of(a))


def column(coordinates: Tensor, axis: int) -> Tensor:
    """Column `axis` of a `tj.nonzero` result: the indices along that axis."""
    index = primitives.constant(np.intp(axis))
    message = at_user_line(f"IndexError: nonzero coordinate {axis} is out of range")
    return primitives.gather(coordinates, index, 1, message)


@implements(np.nonzero)
def nonzero(a: object) -> tuple[Tensor, ...]:
    x = tensor_of(a)
    if x.ndim == 0:
        raise ValueError(at_user_line(_NO_0D))
    coordinates = primitives.nonzero(x)
    return tuple(column(coordinates, axis) for axis in range(x.ndim))


def flat_indices(x: Tensor, of: Tensor | None = None) -> Tensor:
    """`np.flatnonzero(x)`, its length counted as `of`'s non-zero elements (default `x`)."""
    flat = x if x.ndim == 1 else np.ravel(x)
    # __array_function__: np.ravel of a Tensor is a Tensor (NumPy's stubs say ndarray)
    return column(primitives.nonzero(flat, of=x if of is None else of), 0)  # type: ignore[arg-type]  # np.ravel of a Tensor: a Tensor


@implements(np.flatnonzero)
def flatnonzero(a: object) -> Tensor:
    return flat_indices(tensor_of(a))


def where_one_argument(condition: object) -> tuple[Tensor, ...]:
    """`np.where(condition)`: NumPy's `np.asarray(condition).nonzero()`."""
    return nonzero(condition)


@implements(np.count_nonzero)
def count_nonzero(a: object, axis: Any = None, *, keepdims: bool = False) -> Tensor:
    """The number of non-zero elements (over `axis`), as intp: a sum of `x != 0`."""
    x = tensor_of(a)
    axes = normalize_axes(axis, x.ndim)
    truth = primitives.cast(primitives.cast(x, np.dtype(np.bool_)), np.dtype(np.intp))
    # __array_function__: np.sum of a Tensor is a Tensor (NumPy's stubs say ndarray)
    return np.sum(truth, axis=axes, keepdims=keepdims)


