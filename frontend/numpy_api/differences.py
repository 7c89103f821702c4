"""`np.gradient` and `np.ediff1d`, composed as NumPy's `lib/_function_base_impl.py` and
`lib/_arraysetops_impl.py` compose them, with their formulas, their order of operations and
their dtypes (integers in float64; each piece computed in NumPy's dtype, then stored in
the result's, as NumPy's assignments into `out` cast).

`np.gradient`: central differences inside, one-sided ones (`edge_order` 1 or 2) at the
ends, along each axis asked for; the pieces are joined along the axis. Spacings: none (1),
one scalar for every axis, or one per axis, each a scalar (a Python or NumPy number, or a
traced 0-d value) or 1-D coordinates known at trace time (NumPy's non-uniform formulas,
their coefficients computed by NumPy; evenly spaced coordinates reduce to their spacing,
as in NumPy). Traced coordinates are refused: NumPy decides from their values which
formulas to use.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.array_manipulation import UNKNOWN, known_value
from tracejit.frontend.numpy_api.indexing import getitem
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import join, normalize_axes, reshape_tensor, tensor_of
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched


def _spacings(f: Tensor, axes: tuple[int, ...], varargs: tuple) -> list[Any]:
    """NumPy's `dx`: one scalar, or one array of differences, per axis."""
    n = len(varargs)
    if n == 0:
        return [1.0] * len(axes)
    if n == 1 and np.ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if n != len(axes):
        raise TypeError(at_user_line("invalid number of arguments"))
    dx = list(varargs)
    for i, given in enumerate(dx):
        distances = known_value(given)
        if distances is UNKNOWN:
            if np.ndim(given) == 0:
                continue
            raise NotImplementedError(
                at_user_line(
                    "np.gradient with traced coordinates is not supported (NumPy picks its "
                    "formulas by whether they are evenly spaced): pass them as a NumPy array "
                    "or pass the spacing as a scalar"
                )
            )
        distances = np.asanyarray(distances)
        if distances.ndim == 0:  # a scalar (a traced one too) as it is
            continue
        if distances.ndim != 1:
            raise ValueError(at_user_line("distances must be either scalars or 1d"))
        if len(distances) != f.shape[axes[i]]:
            raise ValueError(
                at_user_line(
                    "when 1d, distances must match the length of the corresponding dimension"
                )
            )
        if np.issubdtype(distances.dtype, np.integer):
            distances = distances.astype(np.float64)
        differences = np.diff(distances)
        if (differences == differences[0]).all():
            differences = differences[0]
        dx[i] = differences
    return dx


def _along(f: Tensor, axis: int, key: slice) -> Tensor:
    return getitem(f, (slice(None),) * axis + (key,))


def _coefficient(c: np.ndarray, ndim: int, axis: int) -> np.ndarray:
    """A 1-D coefficient array shaped to broadcast along `axis`."""
    return c.reshape([-1 if d == axis else 1 for d in range(ndim)])


@implements(np.gradient)
def gradient(f: object, *varargs: Any, axis: Any = None, edge_order: Any = 1) -> Any:
    x = tensor_of(f)
    ndim = x.ndim
    axes = tuple(range(ndim)) if axis is None else normalize_axes(axis, ndim)
    dx = _spacings(x, axes, varargs)
    if edge_order > 2:
        raise ValueError(at_user_line("'edge_order' greater than 2 not supported"))
    otype = x.dtype
    if not np.issubdtype(otype, np.inexact):
        if np.issubdtype(otype, np.integer):
            x = primitives.cast(x, np.dtype(np.float64))
        otype = np.dtype(np.float64)  # (bools stay bools: their differences raise, as in NumPy)
    outvals = []
    for ax, ax_dx in zip(axes, dx, strict=True):
        n = x.shape[ax]
        if n is None:
            raise NotImplementedError(
                at_user_line("np.gradient along a dim known only at run time is not supported")
            )
        if n < edge_order + 1:
            raise ValueError(
                at_user_line(
                    "Shape of array too small to calculate a numerical gradient, at least "
                    "(edge_order + 1) elements are required."
                )
            )
        outvals.append(_gradient_along(x, ax, ax_dx, edge_order, otype))
    if len(axes) == 1:
        return outvals[0]
    return tuple(outvals)


def _gradient_along(f: Tensor, ax: int, ax_dx: Any, edge_order: Any, otype: np.dtype) -> Tensor:
    """NumPy's loop body for one axis: the interior, then the two edges, joined."""
    uniform = np.ndim(ax_dx) == 0
    ndim = f.ndim

    def s(start: int | None, stop: int | None) -> Tensor:
        return _along(f, ax, slice(start, stop))

    if uniform:
        interior = (s(2, None) - s(None, -2)) / (2.0 * ax_dx)
    else:
        dx1, dx2 = ax_dx[0:-1], ax_dx[1:]
        a = _coefficient(-(dx2) / (dx1 * (dx1 + dx2)), ndim, ax)
        b = _coefficient((dx2 - dx1) / (dx1 * dx2), ndim, ax)
        c = _coefficient(dx1 / (dx2 * (dx1 + dx2)), ndim, ax)
        interior = a * s(None, -2) + b * s(1, -1) + c * s(2, None)
    if edge_order == 1:
        dx_0 = ax_dx if uniform else ax_dx[0]
        first = (s(1, 2) - s(0, 1)) / dx_0
        dx_n = ax_dx if uniform else ax_dx[-1]
        last = (s(-1, None) - s(-2, -1)) / dx_n
    else:
        if uniform:
            a, b, c = -1.5 / ax_dx, 2.0 / ax_dx, -0.5 / ax_dx
        else:
            dx1, dx2 = ax_dx[0], ax_dx[1]
            a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
            b = (dx1 + dx2) / (dx1 * dx2)
            c = -dx1 / (dx2 * (dx1 + dx2))
        first = a * s(0, 1) + b * s(1, 2) + c * s(2, 3)
        if uniform:
            a, b, c = 0.5 / ax_dx, -2.0 / ax_dx, 1.5 / ax_dx
        else:
            dx1, dx2 = ax_dx[-2], ax_dx[-1]
            a = (dx2) / (dx1 * (dx1 + dx2))
            b = -(dx2 + dx1) / (dx1 * dx2)
            c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
        last = a * s(-3, -2) + b * s(-2, -1) + c * s(-1, None)
    parts = [primitives.cast(dispatched(p), otype) for p in (first, interior, last)]
    return join(np.gradient, parts, ax)


@implements(np.ediff1d)
def ediff1d(ary: object, to_end: object = None, to_begin: object = None) -> Tensor:
    x = tensor_of(ary)
    x = x if x.ndim == 1 else reshape_tensor(x, -1)
    dtype = x.dtype
    differences = dispatched(np.subtract(x[1:], x[:-1]))
    if to_begin is None and to_end is None:
        return differences
    parts: list[Tensor | None] = []
    for edge, name in ((to_begin, "to_begin"), (to_end, "to_end")):
        if edge is None:
            parts.append(None)
            continue
        values = tensor_of(edge)
        if not np.can_cast(values.dtype, dtype, casting="same_kind"):
            raise TypeError(
                at_user_line(
                    f"dtype of `{name}` must be compatible with input `ary` under the "
                    "`same_kind` rule."
                )
            )
        values = values if values.ndim == 1 else reshape_tensor(values, -1)
        parts.append(primitives.cast(values, dtype))
    # np.subtract(ary[1:], ary[:-1], out=result[...]): computed into ary's dtype
    middle = primitives.cast(differences, dtype)
    pieces = [p for p in (parts[0], middle, parts[1]) if p is not None]
    return join(np.ediff1d, pieces, 0)
