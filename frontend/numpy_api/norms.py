"""`np.linalg.norm`: vector norms (every `ord` NumPy has) and the matrix norms that need no
singular values (None/"fro", 1, -1, inf, -inf), with `axis` and `keepdims`, composed from
NumPy functions tracejit compiles, in NumPy's formulas (so the rounding is NumPy's too).
The 2-norm, -2 and "nuc" of a matrix need singular values: refused, naming the way out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import normalize_axis
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched


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
        raise NotImplementedError(
            at_user_line(
                f"np.linalg.norm(..., ord={ord!r}) of a matrix needs its singular values, "
                "which tracejit does not compute yet; use ord='fro', 1 or inf, or "
                "tj.py_function(np.linalg.norm, ...)"
            )
        )
    if ord is None or ord == "fro":
        squares = dispatched(np.real(np.conj(a) * a)) if a.dtype.kind == "c" else a * a
        result = dispatched(np.sqrt(np.sum(squares, axis=(rows, cols))))
    elif ord in (1, -1, np.inf, -np.inf):
        summed, over = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = dispatched(np.sum(magnitude, axis=summed))
        remaining = over - 1 if over > summed else over
        pick = np.max if ord in (1, np.inf) else np.min
        result = dispatched(pick(sums, axis=remaining))
    else:
        raise ValueError(at_user_line("Invalid norm order for matrices."))
    if keepdims:
        shape = list(a.shape)
        shape[rows] = shape[cols] = 1
        result = dispatched(result.reshape(shape))
    return result
