"""Sums of products along one axis: `np.convolve`, `np.polyval` and `np.trapezoid`,
composed from slices, element-wise arithmetic and reductions (so they fuse like the rest).

`np.convolve` of lengths n >= m (NumPy swaps the two so) is, for each output, the sum of
m products: for short kernels (m <= 32) the sum of m shifted slices of the zero-padded longer
array, each scaled by one element of the other; for longer ones a gather of the m windows
(a constant index matrix) multiplied by the reversed kernel and summed. The lengths must be
known at trace time. Booleans combine with `and`/`or` as NumPy's do; float16 is computed in
float32 and rounded once, as NumPy's float16 dot product. `np.polyval` is NumPy's Horner
loop over the coefficients (a static count); `np.trapezoid` is NumPy's formula.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import asarray
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import normalize_axis
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched

# Kernels up to this length are summed as shifted slices; longer ones gather their windows.
SHIFTED_SLICES_UP_TO = 32



@implements(np.convolve)
def convolve(a: object, v: object, mode: str = "full") -> Tensor:
    x, kernel = asarray(a), asarray(v)
    x = dispatched(np.reshape(x, (1,))) if x.ndim == 0 else x
    kernel = dispatched(np.reshape(kernel, (1,))) if kernel.ndim == 0 else kernel
    if x.ndim != 1 or kernel.ndim != 1:
        raise ValueError(at_user_line("object too deep for desired array"))
    n, m = x.shape[0], kernel.shape[0]
    if n is None or m is None:
        raise NotImplementedError(
            at_user_line("np.convolve of arrays of lengths known only at run time is not supported")
        )
    if n == 0:
        raise ValueError(at_user_line("a cannot be empty"))
    if m == 0:
        raise ValueError(at_user_line("v cannot be empty"))
    if m > n:
        x, kernel, n, m = kernel, x, m, n
    if mode not in ("full", "same", "valid"):
        raise ValueError(
            at_user_line(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
        )
    start, length = {
        "full": (0, n + m - 1),
        "same": ((m - 1) // 2, n),
        "valid": (m - 1, n - m + 1),
    }[mode]
    dtype = np.result_type(x.dtype, kernel.dtype)
    work = np.dtype(np.float32) if dtype == np.float16 else dtype  # NumPy's float16 dot
    x, kernel = primitives.cast(x, work), primitives.cast(kernel, work)
    if m > 1:
        zeros = primitives.constant(np.zeros((), work))
        x = primitives.pad(x, zeros, [m - 1], [m - 1])  # x[i] is now at i + m - 1
    if m <= SHIFTED_SLICES_UP_TO:
        result = _shifted_slices(x, kernel, start, length, m)
    else:
        result = _gathered_windows(x, kernel, start, length, m)
    return primitives.cast(result, dtype)


def _shifted_slices(x: Tensor, kernel: Tensor, start: int, length: int, m: int) -> Tensor:
    """out[k] = sum_j kernel[j] * x[start + k - j] (x padded by m - 1 on each side)."""
    result: Any = None
    for j in range(m):
        first = start - j + m - 1
        term = dispatched(np.multiply(x[first : first + length], kernel[j]))
        result = term if result is None else dispatched(np.add(result, term))
    return result


def _gathered_windows(x: Tensor, kernel: Tensor, start: int, length: int, m: int) -> Tensor:
    """The same sum as one gather of the (length, m) windows times the reversed kernel."""
    windows = start + np.arange(length, dtype=np.intp)[:, None] + np.arange(m, dtype=np.intp)
    gathered = x[primitives.constant(windows)]
    products = dispatched(np.multiply(gathered, kernel[::-1]))
    if products.dtype == np.bool_:
        return dispatched(np.any(products, axis=-1))
    return dispatched(np.sum(products, axis=-1, dtype=products.dtype))


@implements(np.polyval)
def polyval(p: object, x: object) -> Tensor:
    """NumPy's Horner loop: y = zeros_like(x); y = y * x + c for each coefficient c."""
    coefficients = asarray(p)
    if coefficients.ndim == 0:
        raise TypeError(at_user_line("iteration over a 0-d array"))
    count = coefficients.shape[0]
    if count is None:
        raise NotImplementedError(
            at_user_line("np.polyval of a number of coefficients known only at run time")
        )
    values = x if isinstance(x, Tensor) else asarray(x)
    result = dispatched(np.zeros_like(values))
    for i in range(count):
        result = dispatched(np.add(np.multiply(result, values), coefficients[i]))
    return result


@implements(np.trapezoid)
def trapezoid(y: object, x: object = None, dx: object = 1.0, axis: Any = -1) -> Tensor:
    """NumPy's formula: sum(d * (y[1:] + y[:-1]) / 2.0) along `axis`, d the spacing `dx`
    or the differences of `x`."""
    values = asarray(y)
    axis = operator.index(axis)
    if x is None:
        spacing: Any = dx
    else:
        points = asarray(x)
        if points.ndim == 1:
            spacing = dispatched(np.diff(points))
            shape = [1] * values.ndim
            shape[axis] = -1  # the differences' count (known only at run time, perhaps)
            spacing = dispatched(np.reshape(spacing, shape))
        else:
            spacing = dispatched(np.diff(points, axis=axis))
    later = [slice(None)] * values.ndim
    earlier = [slice(None)] * values.ndim
    later[axis] = slice(1, None)
    earlier[axis] = slice(None, -1)
    pairs = dispatched(np.add(values[tuple(later)], values[tuple(earlier)]))
    areas = dispatched(np.true_divide(np.multiply(spacing, pairs), 2.0))
    return dispatched(np.sum(areas, axis=normalize_axis(axis, areas.ndim)))
