"""`np.tensordot` and `np.kron`, composed as NumPy composes them: tensordot moves the summed
axes together, flattens both operands to matrices and multiplies them with `np.dot`; kron
multiplies the operands spread over interleaved axes and merges each pair of axes.
tensordot's shapes must be known at trace time; kron's may have dims known only at run time
(a merged pair is then their product, a dim the caller computes from the inputs' sizes).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of, contains_tensor
from tracejit.frontend.numpy_api.masks import followable, product_dim
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import require_static
from tracejit.frontend.staging import primitives, runtime_sizes
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
    y, x = _kron_operand(b), _kron_operand(a)
    if x.ndim < y.ndim:  # NumPy's np.array(a, ndmin=b.ndim): leading dims of 1
        x = primitives.reshape(x, (1,) * (y.ndim - x.ndim) + tuple(x.dims))
    ndim = max(x.ndim, y.ndim)
    if x.ndim == 0 or y.ndim == 0:
        return dispatched(np.multiply(x, y))
    x = primitives.reshape(x, (1,) * (ndim - x.ndim) + tuple(x.dims))
    y = primitives.reshape(y, (1,) * (ndim - y.ndim) + tuple(y.dims))
    spread_a = primitives.reshape(x, [v for s in x.dims for v in (s, 1)])
    spread_b = primitives.reshape(y, [v for s in y.dims for v in (1, s)])
    product = dispatched(np.multiply(spread_a, spread_b))
    merged = [_merged(product, 2 * k) for k in range(ndim)]
    return primitives.reshape(product, merged)


def _kron_operand(x: object) -> Tensor:
    """`np.asarray(x)` as a tensor, its dims possibly known only at run time."""
    if isinstance(x, Tensor):
        return x
    return array_of(x) if contains_tensor(x) else primitives.constant(np.asarray(x))


def _merged(product: Tensor, axis: int) -> object:
    """The dim of `product`'s axes `axis` and `axis + 1` merged (row-major): their product,
    a `Product` when tracejit can follow both dims, else a size the kernel computes (a
    selection's count, say)."""
    pair = product.dims[axis : axis + 2]
    if 1 in pair:
        return pair[1] if pair[0] == 1 else pair[0]
    if followable(pair):
        return product_dim(pair)
    rows, columns = runtime_sizes.dim_size(product, axis), runtime_sizes.dim_size(product, axis + 1)
    return runtime_sizes.length_dim(dispatched(np.multiply(rows, columns)))
