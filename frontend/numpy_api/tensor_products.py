"""`np.tensordot` and `np.kron`, composed as NumPy composes them: tensordot moves the summed
axes together, flattens both operands to matrices and multiplies them with `np.dot`; kron
multiplies the operands spread over interleaved axes and merges each pair of axes. The
shapes must be known at trace time.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of, contains_tensor
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import require_static
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched


def _as_array(fn: object, x: object) -> tuple[Tensor, tuple[int, ...]]:
    """`np.asarray(x)` as a tensor, and its shape (known at trace time, else refused)."""
    if isinstance(x, Tensor):
        tensor = x
    elif contains_tensor(x):
        tensor = array_of(x)
    else:
        tensor = primitives.constant(np.asarray(x))
    require_static(fn, tensor)
    return tensor, tuple(int(d) for d in tensor.shape if d is not None)


def _as_list(axes: Any) -> list[int]:
    try:
        return list(axes)
    except TypeError:
        return [axes]


@implements(np.tensordot)
def tensordot(a: object, b: object, axes: Any = 2) -> Tensor:
    try:
        iter(axes)
    except TypeError:
        axes_a, axes_b = list(range(-axes, 0)), list(range(axes))
    else:
        axes_a, axes_b = axes
    axes_a, axes_b = _as_list(axes_a), _as_list(axes_b)
    if len(set(axes_a)) != len(axes_a) or len(set(axes_b)) != len(axes_b):
        raise ValueError(at_user_line("duplicate axes are not allowed in tensordot"))
    (x, shape_a), (y, shape_b) = _as_array(np.tensordot, a), _as_array(np.tensordot, b)
    equal = len(axes_a) == len(axes_b)
    if equal:
        for k in range(len(axes_a)):
            try:
                if shape_a[axes_a[k]] != shape_b[axes_b[k]]:
                    equal = False
                    break
            except IndexError as error:
                raise IndexError(at_user_line(str(error))) from None
            axes_a[k] += x.ndim if axes_a[k] < 0 else 0
            axes_b[k] += y.ndim if axes_b[k] < 0 else 0
    if not equal:
        raise ValueError(at_user_line("shape-mismatch for sum"))
    kept_a = [k for k in range(x.ndim) if k not in axes_a]
    kept_b = [k for k in range(y.ndim) if k not in axes_b]
    summed = math.prod(shape_a[d] for d in axes_a)
    matrix_a = dispatched(
        np.reshape(
            np.transpose(x, kept_a + axes_a),
            (math.prod(shape_a[d] for d in kept_a), summed),
        )
    )
    matrix_b = dispatched(
        np.reshape(
            np.transpose(y, axes_b + kept_b),
            (summed, math.prod(shape_b[d] for d in kept_b)),
        )
    )
    product = dispatched(np.dot(matrix_a, matrix_b))
    return dispatched(
        np.reshape(product, [shape_a[d] for d in kept_a] + [shape_b[d] for d in kept_b])
    )


@implements(np.kron)
def kron(a: object, b: object) -> Tensor:
    y, shape_y = _as_array(np.kron, b)
    x, shape_x = _as_array(np.kron, a)
    if x.ndim < y.ndim:  # NumPy's np.array(a, ndmin=b.ndim): leading dims of 1
        shape_x = (1,) * (y.ndim - x.ndim) + shape_x
        x = dispatched(np.reshape(x, shape_x))
    ndim = max(x.ndim, y.ndim)
    if x.ndim == 0 or y.ndim == 0:
        return dispatched(np.multiply(x, y))
    shape_a = (1,) * (ndim - x.ndim) + shape_x
    shape_b = (1,) * (ndim - y.ndim) + shape_y
    spread_a = dispatched(np.reshape(x, [v for s in shape_a for v in (s, 1)]))
    spread_b = dispatched(np.reshape(y, [v for s in shape_b for v in (1, s)]))
    product = dispatched(np.multiply(spread_a, spread_b))
    return dispatched(np.reshape(product, [s * t for s, t in zip(shape_a, shape_b, strict=True)]))
