"""`np.cross` and `np.vander`, composed as NumPy's `_core/numeric.py` and
`lib/_twodim_base_impl.py` compose them.

`np.cross`: the operands are moved to have their vectors along the last axis, cast to their
common dtype (`np.promote_types`), and each component is NumPy's products and difference
(`a1 * b2 - a2 * b1`, ...; a missing third component is 0, so 2-vectors against 3-vectors
take NumPy's shortened formulas, and two 2-vectors give the z component only). The vector
axes (`axisa`, `axisb`, `axisc`, `axis`) must have a length known at trace time (2 or 3);
the other dims broadcast. 2-vectors warn as NumPy 2 does (a DeprecationWarning, once, while
tracing).

`np.vander(x, N, increasing)`: columns 1, x, x*x, ... as NumPy's `multiply.accumulate`
(each power the previous one times x, in `promote_types(x.dtype, int)`), reversed unless
`increasing`. For x of a length known only at run time, the columns (that length when N
is None) are 1, x, x, ... multiplied up by the same scan.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import asarray
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import (
    counted_positions,
    flip,
    join,
    moveaxis,
    stack,
)
from tracejit.frontend.staging import primitives, runtime_sizes
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.frontend.staging.trace_warnings import warn_at_user_line


def _axis(axis: Any, ndim: int, prefix: str) -> int:
    """NumPy's `normalize_axis_index(axis, ndim, msg_prefix=prefix)`."""
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(
            at_user_line(f"{prefix}: axis {axis} is out of bounds for array of dimension {ndim}")
        )
    return axis % ndim


@implements(np.cross)
def cross(a: object, b: object, axisa: Any = -1, axisb: Any = -1, axisc: Any = -1,
          axis: Any = None) -> Tensor:  # fmt: skip
    if axis is not None:
        axisa, axisb, axisc = (axis,) * 3
    x, y = asarray(a), asarray(b)
    if x.ndim < 1 or y.ndim < 1:
        raise ValueError(at_user_line("At least one array has zero dimension"))
    x = moveaxis(x, _axis(axisa, x.ndim, "axisa"), -1)
    y = moveaxis(y, _axis(axisb, y.ndim, "axisb"), -1)
    if x.shape[-1] not in (2, 3) or y.shape[-1] not in (2, 3):
        if None in (x.shape[-1], y.shape[-1]):
            raise NotImplementedError(
                at_user_line(
                    "np.cross of vectors whose length is known only at run time is not "
                    "supported: their axis must have a static length (2 or 3)"
                )
            )
        raise ValueError(
            at_user_line("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
        )
    if x.shape[-1] == 2 or y.shape[-1] == 2:
        warn_at_user_line(
            "Arrays of 2-dimensional vectors are deprecated. Use arrays of 3-dimensional "
            "vectors instead. (deprecated in NumPy 2.0)",
            DeprecationWarning,
        )
    if None not in x.shape[:-1] + y.shape[:-1]:
        try:
            np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
        except ValueError as error:
            raise ValueError(at_user_line(str(error))) from None
    ndim = max(x.ndim, y.ndim) - 1
    three = x.shape[-1] == 3 or y.shape[-1] == 3
    if three:
        axisc = _axis(axisc, ndim + 1, "axisc")
    dtype = np.promote_types(x.dtype, y.dtype)
    x, y = primitives.cast(x, dtype), primitives.cast(y, dtype)
    a0, a1, b0, b1 = x[..., 0], x[..., 1], y[..., 0], y[..., 1]

    def times(p: Tensor, q: Tensor) -> Tensor:
        return dispatched(np.multiply(p, q))

    def minus(p: Tensor, q: Tensor) -> Tensor:
        return dispatched(np.subtract(p, q))

    def negative(p: Tensor) -> Tensor:
        return dispatched(np.negative(p))

    cp2 = minus(times(a0, b1), times(a1, b0))
    if not three:
        return cp2
    if x.shape[-1] == 2:  # a2 = 0
        b2 = y[..., 2]
        cp0, cp1 = times(a1, b2), negative(times(a0, b2))
    elif y.shape[-1] == 2:  # b2 = 0
        a2 = x[..., 2]
        cp0, cp1 = negative(times(a2, b1)), times(a2, b0)
    else:
        a2, b2 = x[..., 2], y[..., 2]
        cp0 = minus(times(a1, b2), times(a2, b1))
        cp1 = minus(times(a2, b0), times(a0, b2))
    # each component is a product of both operands' parts: of their broadcast shape
    return moveaxis(stack([cp0, cp1, cp2], axis=-1), -1, axisc)


@implements(np.vander)
def vander(x: object, N: Any = None, increasing: bool = False) -> Tensor:
    v = asarray(x)
    if v.ndim != 1:
        raise ValueError(at_user_line("x must be a one-dimensional array or sequence."))
    n = v.shape[0]
    dtype = np.promote_types(v.dtype, np.dtype(int))
    if n is None or isinstance(N, Tensor):
        return _run_time_vander(primitives.cast(v, dtype), N, increasing)
    columns = n if N is None else int(N)
    if columns < 0:
        raise ValueError(at_user_line("negative dimensions are not allowed"))
    v = primitives.cast(v, dtype)
    if columns == 0:
        return primitives.constant(np.zeros((n, 0), dtype))
    ones = primitives.broadcast_to(primitives.constant(np.ones((), dtype)), (n, 1))
    if columns == 1:
        return ones
    # multiply.accumulate along the row: each power the previous one times x (a scan)
    spread = primitives.broadcast_to(primitives.reshape(v, (n, 1)), (n, columns - 1))
    powers = join(np.vander, [ones, dispatched(np.cumprod(spread, axis=1))], 1)
    return powers if increasing else flip(powers, 1)


def _run_time_vander(v: Tensor, N: Any, increasing: bool) -> Tensor:
    """np.vander of x whose length the kernel knows, or of N the kernel knows (`len(x)`
    in converted code): each row 1, x, x, ... multiplied up by one scan along the row, as
    NumPy's multiply.accumulate of columns 1: (1 * x is x, exactly)."""
    rows = v.dims[0]
    if N is None:
        columns = counted_positions(rows, (v.value, 0))
    elif isinstance(N, Tensor):
        columns = _run_time_columns(N)
    else:
        if int(N) < 0:
            raise ValueError(at_user_line("negative dimensions are not allowed"))
        columns = primitives.constant(np.arange(int(N), dtype=np.intp))
    one = primitives.constant(np.ones((), v.dtype))
    spread = dispatched(np.where(np.equal(columns, 0), one, primitives.reshape(v, (rows, 1))))
    powers = dispatched(np.cumprod(spread, axis=1))
    return powers if increasing else flip(powers, 1)


def _run_time_columns(N: Tensor) -> Tensor:
    """0, 1, ..., N - 1 for N a size the kernel knows: a dim the array's N measures (`len(x)`)
    is that dim; another count is checked not negative, as NumPy's `empty((n, N))`."""
    if N.ndim != 0 or N.dtype.kind not in "iu":
        raise TypeError(at_user_line("np.vander: N must be an integer"))
    measured = runtime_sizes.dim_of(N)
    if measured is not None:
        return counted_positions(measured[0], measured[1:])
    return counted_positions(runtime_sizes.length_dim(N))
