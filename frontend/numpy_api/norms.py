"""`np.linalg.norm` (and NumPy 2's `matrix_norm` and `vector_norm`, which NumPy writes with
it): every vector `ord` NumPy has and every matrix one (None/"fro", "nuc",
1, -1, 2, -2, inf, -inf), with `axis` and `keepdims`, composed from NumPy functions
tracejit compiles, in NumPy's formulas (so the rounding is NumPy's too). The matrix 2, -2
and "nuc" norms are the largest, smallest and summed singular values (LAPACK's ?gesdd,
decompositions.py), so they need SciPy (tracejit[linalg]) as the other LAPACK functions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.decompositions import values_of
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import normalize_axis
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched, staged


@implements(np.linalg.norm)
def norm(x: object, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Tensor:
    a = array_of(x)
    if a.dtype.kind in "iub":
        a = dispatched(a.astype(np.float64))
    if axis is None and ord is None:  # the 2-norm of everything, as NumPy computes it
        flat = dispatched(a.reshape(-1))
        squares = dispatched(np.dot(flat, flat)) if a.dtype.kind != "c" else _abs_squares(flat)
        result = dispatched(np.sqrt(squares))
        return dispatched(result.reshape((1,) * a.ndim)) if keepdims else result
    if axis is None:
        axis = tuple(range(a.ndim))
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    if len(axes) == 1:
        return _vector_norm(a, ord, normalize_axis(axes[0], a.ndim), keepdims)
    if len(axes) == 2:
        rows, cols = (normalize_axis(d, a.ndim) for d in axes)
        if rows == cols:
            raise ValueError(at_user_line("Duplicate axes given."))
        return _matrix_norm(a, ord, rows, cols, keepdims)
    raise ValueError(at_user_line("Improper number of dimensions to norm."))


@implements(np.linalg.matrix_norm)
def matrix_norm(x: object, /, *, keepdims: bool = False, ord: Any = "fro") -> Tensor:
    return norm(x, ord, axis=(-2, -1), keepdims=keepdims)


@implements(np.linalg.vector_norm)
def vector_norm(x: object, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Tensor:
    """NumPy's: the norm over `axis` (every axis when None, several when a tuple) of the
    axes moved to the front and flattened into one."""
    a = array_of(x)
    shape = list(a.shape)
    if axis is None:
        a, along = dispatched(a.reshape(-1)), 0
    elif isinstance(axis, tuple):
        axes = [normalize_axis(d, a.ndim) for d in axis]
        rest = [d for d in range(a.ndim) if d not in axes]
        moved = dispatched(np.transpose(a, (*axis, *rest)))
        if None in shape:
            raise TypeError(at_user_line("vector_norm over several axes needs the shape"))
        flat = math.prod(size for d in axes if (size := shape[d]) is not None)
        a, along = dispatched(moved.reshape(flat, *(shape[d] for d in rest))), 0
    else:
        along = axis
    result = norm(a, ord, axis=along)
    if not keepdims:
        return result
    for d in range(len(shape)) if axis is None else (axis if isinstance(axis, tuple) else (axis,)):
        shape[normalize_axis(d, len(shape))] = 1
    return dispatched(result.reshape(shape))


def _abs_squares(flat: Tensor) -> Tensor:
    return dispatched(np.sum(flat.real * flat.real + flat.imag * flat.imag))


def _vector_norm(a: Tensor, ord: Any, axis: int, keepdims: bool) -> Tensor:
    magnitude = dispatched(np.abs(a))
    if ord == np.inf:
        return dispatched(np.max(magnitude, axis=axis, keepdims=keepdims))
    if ord == -np.inf:
        return dispatched(np.min(magnitude, axis=axis, keepdims=keepdims))
    if ord == 0:
        nonzero = dispatched((a != 0).astype(a.real.dtype))
        return dispatched(np.sum(nonzero, axis=axis, keepdims=keepdims))
    if ord == 1:
        return dispatched(np.sum(magnitude, axis=axis, keepdims=keepdims))
    if ord is None or ord == 2:
        squares = dispatched(np.real(np.conj(a) * a)) if a.dtype.kind == "c" else a * a
        return dispatched(np.sqrt(np.sum(squares, axis=axis, keepdims=keepdims)))
    if isinstance(ord, str):
        raise ValueError(at_user_line(f"Invalid norm order '{ord}' for vectors"))
    power = float(ord)
    powered = dispatched(np.sum(magnitude**power, axis=axis, keepdims=keepdims))
    return dispatched(powered ** (1.0 / power))


def _matrix_norm(a: Tensor, ord: Any, rows: int, cols: int, keepdims: bool) -> Tensor:
    magnitude = dispatched(np.abs(a))
    if ord in (2, -2, "nuc"):
        moved = staged(np.moveaxis, a, (rows, cols), (-2, -1))
        values = values_of(np.linalg.norm, moved)
        if ord == 2:  # NumPy's amax with initial=0: 0 for an empty matrix (NumPy 2)
            result = dispatched(np.maximum.reduce(values, axis=-1, initial=0.0))
        else:
            pick: Any = {-2: np.min, "nuc": np.sum}[ord]
            result = dispatched(pick(values, axis=-1))
    elif ord is None or ord == "fro":
        squares = dispatched(np.real(np.conj(a) * a)) if a.dtype.kind == "c" else a * a
        result = dispatched(np.sqrt(np.sum(squares, axis=(rows, cols))))
    elif ord in (1, -1, np.inf, -np.inf):
        summed, over = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = dispatched(np.sum(magnitude, axis=summed))
        remaining = over - 1 if over > summed else over
        if ord in (1, np.inf):  # NumPy's max with initial=0: 0 for an empty matrix
            result = dispatched(np.maximum.reduce(sums, axis=remaining, initial=0.0))
        else:
            result = dispatched(np.min(sums, axis=remaining))
    else:
        raise ValueError(at_user_line("Invalid norm order for matrices."))
    if keepdims:
        shape = list(a.shape)
        shape[rows] = shape[cols] = 1
        result = dispatched(result.reshape(shape))
    return result
