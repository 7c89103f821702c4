"""Diagonals: `np.diagonal`, `np.diag`, `np.diagflat`, `np.trace` (and the ndarray methods).

A diagonal is a gather: `x[..., i, i + offset]` with constant index arrays after the two
axes are moved last (NumPy puts the diagonal's axis last). `np.diag` of a vector writes it
into a constant square of zeros (a scatter at those positions).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import counted_positions, normalize_axis
from tracejit.frontend.staging import primitives, runtime_sizes
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched


@implements(np.diagonal)
def diagonal(a: object, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    x = array_of(a)
    if x.ndim < 2:
        raise ValueError(at_user_line("diag requires an array of at least two dimensions"))
    first, second = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    if first == second:
        raise ValueError(at_user_line("axis1 and axis2 cannot be the same"))
    rows, cols = x.shape[first], x.shape[second]
    moved = dispatched(np.moveaxis(x, (first, second), (-2, -1)))  # type: ignore[type-var]  # a Tensor dispatches
    start_row, start_col = max(-offset, 0), max(offset, 0)
    if rows is None or cols is None:
        return _run_time_diagonal(moved, start_row, start_col)
    length = max(min(rows - start_row, cols - start_col), 0)
    row_index = primitives.constant(np.arange(start_row, start_row + length, dtype=np.intp))
    col_index = primitives.constant(np.arange(start_col, start_col + length, dtype=np.intp))
    return moved[..., row_index, col_index]


def _run_time_diagonal(moved: Tensor, start_row: int, start_col: int) -> Tensor:
    """The diagonal of the last two dims when the kernel knows their sizes: its length is
    max(min(rows - start_row, columns - start_col), 0), a size of its own."""
    rows = runtime_sizes.dim_size(moved, moved.ndim - 2)
    columns = runtime_sizes.dim_size(moved, moved.ndim - 1)
    length = np.maximum(np.minimum(rows - start_row, columns - start_col), 0)
    positions = counted_positions(runtime_sizes.length_dim(length))
    return moved[..., positions + start_row, positions + start_col]


@implements(np.diag)
def diag(v: object, k: int = 0) -> Tensor:
    x = array_of(v)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise ValueError(at_user_line("Input must be 1- or 2-d."))
    n = x.shape[0]
    if n is None:
        return _run_time_square(x, k)
    size = n + abs(k)
    square = primitives.constant(np.zeros((size, size), x.dtype))
    rows = np.arange(n, dtype=np.intp) + max(-k, 0)
    square[rows, rows + k] = x
    return square


def _run_time_square(x: Tensor, k: int) -> Tensor:
    """np.diag of a vector whose length n the kernel knows: (n + |k|) squared, x[i] where
    column - row == k (x's index is the row for k >= 0, the column below the diagonal)."""
    n = runtime_sizes.dim_size(x, 0)
    dim = x.dims[0] if k == 0 else runtime_sizes.length_dim(n + abs(k))
    positions = counted_positions(dim, (x.value, 0))
    rows, columns = positions[:, None], positions[None, :]
    # x with a 0 after it, so that every position off the diagonal reads in range, also n = 0
    padded = dispatched(np.concatenate([x, primitives.constant(np.zeros(1, x.dtype))]))
    picked = dispatched(np.minimum(rows if k >= 0 else columns, n))
    values = primitives.gather(padded, picked, 0, "IndexError: np.diag", in_bounds=True)
    on = np.equal(np.subtract(columns, rows), k)
    return dispatched(np.where(on, values, primitives.constant(np.zeros(1, x.dtype))))


@implements(np.diagflat)
def diagflat(v: object, k: int = 0) -> Tensor:
    """The flattened input as the k-th diagonal of a square of zeros (NumPy's own
    definition: `diag(ravel(v), k)`)."""
    return diag(dispatched(np.ravel(array_of(v))), k)


@implements(np.trace)
def trace(
    a: object,
    offset: int = 0,
    axis1: int = 0,
    axis2: int = 1,
    dtype: Any = None,
    out: object = None,
) -> Tensor:
    if out is not None:
        raise NotImplementedError(at_user_line("np.trace(..., out=...) is not supported"))
    return dispatched(np.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype))
