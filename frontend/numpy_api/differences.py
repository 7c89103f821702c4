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
formulas to use. Along a dim known only at run time, NumPy's size checks run in the kernel
and the same formulas are computed at every position from neighbours gathered at i - 1 and
i + 1 (non-uniform coefficients gathered from their tables too); each position then takes
its piece, so the result keeps `f`'s dims.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.array_manipulation import UNKNOWN, known_value
from tracejit.frontend.numpy_api.indexing import getitem
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import (
    join,
    normalize_axes,
    positions_along,
    reshape_tensor,
    tensor_of,
)
from tracejit.frontend.staging import primitives, runtime_sizes
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
        _check_length(f, axes[i], len(distances))
        if np.issubdtype(distances.dtype, np.integer):
            distances = distances.astype(np.float64)
        differences = np.diff(distances)
        if (differences == differences[0]).all():
            differences = differences[0]
        dx[i] = differences
    return dx


_DISTANCES_MISMATCH = "when 1d, distances must match the length of the corresponding dimension"
_TOO_SMALL = (
    "Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) "
    "elements are required."
)


def _check_length(f: Tensor, axis: int, length: int) -> None:
    """Coordinates of `length` points along `axis` (checked by the kernel for a dim only it
    knows)."""
    n = f.shape[axis]
    if n is None:
        size = runtime_sizes.dim_size(f, axis)
        equal = dispatched(np.equal(size, length))
        primitives.assert_true(equal, at_user_line(f"ValueError: {_DISTANCES_MISMATCH}"))
    elif n != length:
        raise ValueError(at_user_line(_DISTANCES_MISMATCH))


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
            outvals.append(_run_time_gradient_along(x, ax, ax_dx, edge_order, otype))
            continue
        if n < edge_order + 1:
            raise ValueError(at_user_line(_TOO_SMALL))
        outvals.append(_gradient_along(x, ax, ax_dx, edge_order, otype))
    if len(axes) == 1:
        return outvals[0]
    return tuple(outvals)


def _gradient_along(f: Tensor, ax: int, ax_dx: Any, edge_order: Any, otype: np.dtype) -> Tensor:
    """NumPy's loop body for one axis: the interior, then the two edges, joined."""

    def s(start: int | None, stop: int | None) -> Tensor:
        return _along(f, ax, slice(start, stop))

    pieces = _Pieces(
        before=s(None, -2),
        middle=s(1, -1),
        after=s(2, None),
        edge=lambda k: s(k, k + 1 or None),
        coefficient=lambda c: _coefficient(c, f.ndim, ax),
    )
    parts = [primitives.cast(p, otype) for p in _formulas(pieces, ax_dx, edge_order)]
    return join(np.gradient, parts, ax)


def _run_time_gradient_along(
    f: Tensor, ax: int, ax_dx: Any, edge_order: Any, otype: np.dtype
) -> Tensor:
    """`_gradient_along` for a dim only the kernel knows: NumPy's size check made there,
    the interior's formula computed at every position i (f[i - 1], f[i + 1] gathered,
    clipped into range: the ends are replaced), the edges from single elements, and each
    position takes its own piece: the result has `f`'s dims."""
    n = runtime_sizes.dim_size(f, ax)
    enough = dispatched(np.greater_equal(n, edge_order + 1))
    primitives.assert_true(enough, at_user_line(f"ValueError: {_TOO_SMALL}"))
    positions = positions_along(f, ax)
    along = [f.dims[ax] if d == ax else 1 for d in range(f.ndim)]

    def near(offset: int) -> Tensor:
        index = dispatched(np.clip(positions + offset, 0, n - 1))
        return primitives.gather(f, index, ax, at_user_line("IndexError: np.gradient"))

    def edge(k: int) -> Tensor:
        element = getitem(f, (slice(None),) * ax + (k,))
        return primitives.reshape(element, [*element.dims[:ax], 1, *element.dims[ax:]])

    def coefficient(c: np.ndarray) -> Tensor:
        """Interior coefficients (positions 1 .. n - 2) as a table over every position."""
        table = primitives.constant(np.concatenate([[0], c, [0]]).astype(c.dtype))
        index = dispatched(np.clip(positions, 0, len(c) + 1))
        return primitives.reshape(primitives.gather(table, index, 0, "", in_bounds=True), along)

    pieces = _Pieces(near(-1), f, near(1), edge, coefficient)
    formulas = _formulas(pieces, ax_dx, edge_order)
    first, interior, last = (primitives.cast(p, otype) for p in formulas)
    at = primitives.reshape(positions, along)
    inner = dispatched(np.where(np.equal(at, n - 1), last, interior))
    return dispatched(np.where(np.equal(at, 0), first, inner))


@dataclass
class _Pieces:
    """What NumPy's formulas read along the axis: f[:-2], f[1:-1] and f[2:] (or, at every
    position, the element before, itself and the one after), `edge(k)` the element k
    (keeping the axis), and `coefficient(c)` an interior coefficient array shaped to
    multiply them."""

    before: Tensor
    middle: Tensor
    after: Tensor
    edge: Callable[[int], Tensor]
    coefficient: Callable[[np.ndarray], Any]


def _formulas(p: _Pieces, ax_dx: Any, edge_order: Any) -> tuple[Tensor, Tensor, Tensor]:
    """NumPy's first edge, interior and last edge, in its order of operations."""
    uniform = np.ndim(ax_dx) == 0
    if uniform:
        interior = (p.after - p.before) / (2.0 * ax_dx)
    else:
        dx1, dx2 = ax_dx[0:-1], ax_dx[1:]
        a = p.coefficient(-(dx2) / (dx1 * (dx1 + dx2)))
        b = p.coefficient((dx2 - dx1) / (dx1 * dx2))
        c = p.coefficient(dx1 / (dx2 * (dx1 + dx2)))
        interior = a * p.before + b * p.middle + c * p.after
    if edge_order == 1:
        dx_0 = ax_dx if uniform else ax_dx[0]
        first = (p.edge(1) - p.edge(0)) / dx_0
        dx_n = ax_dx if uniform else ax_dx[-1]
        last = (p.edge(-1) - p.edge(-2)) / dx_n
    else:
        if uniform:
            a, b, c = -1.5 / ax_dx, 2.0 / ax_dx, -0.5 / ax_dx
        else:
            dx1, dx2 = ax_dx[0], ax_dx[1]
            a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
            b = (dx1 + dx2) / (dx1 * dx2)
            c = -dx1 / (dx2 * (dx1 + dx2))
        first = a * p.edge(0) + b * p.edge(1) + c * p.edge(2)
        if uniform:
            a, b, c = 0.5 / ax_dx, -2.0 / ax_dx, 1.5 / ax_dx
        else:
            dx1, dx2 = ax_dx[-2], ax_dx[-1]
            a = (dx2) / (dx1 * (dx1 + dx2))
            b = -(dx2 + dx1) / (dx1 * dx2)
            c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
        last = a * p.edge(-3) + b * p.edge(-2) + c * p.edge(-1)
    return dispatched(first), dispatched(interior), dispatched(last)


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
