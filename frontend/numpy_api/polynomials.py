"""Sums of products along one axis: `np.convolve`, `np.polyval` and `np.trapezoid`,
composed from slices, element-wise arithmetic and reductions (so they fuse like the rest).

`np.convolve` of lengths n >= m (NumPy swaps the two so) is, for each output, the sum of
m products: for short kernels (m <= 32) the sum of m shifted slices of the zero-padded longer
array, each scaled by one element of the other; for longer ones a gather of the m windows
(a constant index matrix) multiplied by the reversed kernel and summed. Lengths known only
at run time take one gather of the windows too, its indices computed by the kernel (which of
the two is longer, and so the "same"/"valid" bounds, is then a run-time fact). Booleans
combine with `and`/`or` as NumPy's do; float16 is computed in float32 and rounded once, as
NumPy's float16 dot product. `np.polyval` is NumPy's Horner loop over the coefficients (a
staged loop when their count is known only at run time); `np.trapezoid` is NumPy's formula.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import asarray
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import counted_positions, normalize_axis, positions_along
from tracejit.frontend.staging import primitives, runtime_sizes
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
        _check_mode(mode)
        return _run_time_convolve(x, kernel, mode)
    if n == 0:
        raise ValueError(at_user_line("a cannot be empty"))
    if m == 0:
        raise ValueError(at_user_line("v cannot be empty"))
    if m > n:
        x, kernel, n, m = kernel, x, m, n
    _check_mode(mode)
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


def _check_mode(mode: object) -> None:
    if mode not in ("full", "same", "valid"):
        raise ValueError(
            at_user_line(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
        )


def _run_time_convolve(a: Tensor, v: Tensor, mode: str) -> Tensor:
    """np.convolve when the kernel knows a length: NumPy's emptiness checks become run-time
    checks, and the result is `_run_time_windows` of the (unswapped) pair. Convolution is
    symmetric, so the sum runs along `v` unless only `a` has a length known now (a short
    static sum); NumPy's swap only decides the bounds: the shorter length m."""
    n, m = runtime_sizes.dim_size(a, 0), runtime_sizes.dim_size(v, 0)
    if isinstance(n, int) and n == 0:  # NumPy checks `a` first
        raise ValueError(at_user_line("a cannot be empty"))
    for size, name in ((n, "a"), (m, "v")):  # NumPy's order: a static 0 fails after a's check
        if isinstance(size, int) and size > 0:
            continue
        count = primitives.constant(np.int64(size)) if isinstance(size, int) else size
        nonempty = dispatched(np.greater(count, 0))
        primitives.assert_true(nonempty, at_user_line(f"ValueError: {name} cannot be empty"))
    shorter = np.minimum(n, m)
    start, length = {
        "full": (0, n + m - 1),
        "same": ((shorter - 1) // 2, np.maximum(n, m)),
        "valid": (shorter - 1, np.abs(n - m) + 1),
    }[mode]
    dtype = np.result_type(a.dtype, v.dtype)
    work = np.dtype(np.float32) if dtype == np.float16 else dtype  # NumPy's float16 dot
    a, v = primitives.cast(a, work), primitives.cast(v, work)
    if isinstance(n, int):  # sum along the static one
        a, v, n = v, a, m
    result = _run_time_windows(a, v, n, start, runtime_sizes.length_dim(length))
    return primitives.cast(result, dtype)


def _run_time_windows(a: Tensor, v: Tensor, n: Any, start: Any, length: object) -> Tensor:
    """out[k] = sum_j v[j] * a[start + k - j] over the `length` outputs, a's elements out of
    its range read as 0 (a zero appended at index n: every gathered index is in range, for
    any lengths, so the gather needs no check)."""
    outputs = counted_positions(length)[:, None] + start
    taps = positions_along(v, 0)[None, :]
    index = dispatched(np.subtract(outputs, taps))
    inside = dispatched(np.logical_and(np.greater_equal(index, 0), np.less(index, n)))
    padded = dispatched(np.concatenate([a, primitives.constant(np.zeros(1, a.dtype))]))
    picked = dispatched(np.where(inside, index, n))
    gathered = primitives.gather(padded, picked, 0, "IndexError: np.convolve", in_bounds=True)
    products = dispatched(np.multiply(gathered, v))
    if products.dtype == np.bool_:
        return dispatched(np.any(products, axis=-1))
    return dispatched(np.sum(products, axis=-1, dtype=products.dtype))


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
    values = x if isinstance(x, Tensor) else asarray(x)
    if count is None:
        return _run_time_horner(coefficients, values)
    result = dispatched(np.zeros_like(values))
    for i in range(count):
        result = dispatched(np.add(np.multiply(result, values), coefficients[i]))
    return result


def _run_time_horner(coefficients: Tensor, values: Tensor) -> Tensor:
    """NumPy's Horner loop as a staged loop over a count of coefficients the kernel knows.
    A loop variable keeps its dtype, so y starts as zeros of the dtype NumPy's y has after
    its first step (0 * x is 0 in either dtype). With no coefficient NumPy's y is zeros of
    x's dtype: where that differs, the kernel refuses an empty `p` rather than give
    another dtype."""
    from tracejit.frontend.staging.control_flow import while_loop

    if coefficients.ndim != 1:
        raise NotImplementedError(
            at_user_line(
                "np.polyval of a p with more than one dim and a number of coefficients known "
                "only at run time is not supported: loop over the coefficients yourself"
            )
        )
    dtype = np.result_type(values.dtype, coefficients.dtype)
    count = runtime_sizes.dim_size(coefficients, 0)
    if dtype != values.dtype:
        primitives.assert_true(
            dispatched(np.greater(count, 0)),
            at_user_line(
                "NotImplementedError: np.polyval with no coefficients gives zeros of x's dtype "
                f"({values.dtype}) in NumPy, not the {dtype} of x and p that the compiled "
                f"code computes; give p at least one coefficient or pass x as {dtype}"
            ),
        )

    def more(i: Tensor, y: Tensor) -> Tensor:
        return dispatched(np.less(i, count))

    def step(i: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
        return i + 1, dispatched(np.add(np.multiply(y, values), coefficients[i]))

    start = primitives.cast(dispatched(np.zeros_like(values)), dtype)
    _, result = while_loop(more, step, (primitives.constant(np.int64(0)), start))
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
