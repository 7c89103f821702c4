"""`np.cumsum` and `np.cumprod` (and the ndarray methods) as `tj.cumulative` scans.

NumPy's dtypes are kept: bools and small integers accumulate in int64 (unsigned ones in
uint64), float16 stays float16 (rounded after every step, as NumPy's half loops do);
`dtype=` casts the elements first and accumulates in it, so `np.cumsum(x, dtype=np.int8)`
wraps like NumPy's. `dtype=bool` is NumPy's logical or (sum) / and (prod) accumulation.
`axis=None` scans the flattened array; a 0-d array is scanned as one of shape (1,), as
NumPy does. Results are bit-identical to NumPy's: every element is combined in order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.registry import implements, unsupported
from tracejit.frontend.numpy_api.shapes import normalize_axis, reshape_tensor
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.tensor import Tensor


def _scan(
    kind: str, numpy_fn: Any, a: object, axis: Any, dtype: DTypeLike | None, out: object,
) -> Tensor:
    if out is not None:
        raise unsupported(numpy_fn, "(..., out=...)")
    x = array_of(a)
    if dtype is None:  # what NumPy accumulates this dtype in (int8 -> int64, ...)
        dtype = numpy_fn(np.zeros(1, x.dtype)).dtype
    if axis is None or x.ndim == 0:
        x, axis = reshape_tensor(x, -1), 0 if axis is None else axis
    axis = normalize_axis(axis, x.ndim)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return _logical_scan(kind, primitives.cast(x, dtype), axis)
    return primitives.cumulative(kind, primitives.cast(x, dtype), axis)


def _logical_scan(kind: str, x: Tensor, axis: int) -> Tensor:
    """or (sum) / and (prod) so far: a count of the Trues so far is non-zero, a product of
    0s and 1s stays 0 or 1."""
    accumulator = np.dtype(np.int64 if kind == "sum" else np.uint8)
    scanned = primitives.cumulative(kind, primitives.cast(x, accumulator), axis)
    return primitives.cast(scanned, np.dtype(np.bool_))


@implements(np.cumsum)
def cumsum(
    a: object,
    axis: object = None,
    dtype: DTypeLike | None = None,
    out: object = None,
) -> Tensor:
    return _scan("sum", np.cumsum, a, axis, dtype, out)


@implements(np.cumprod)
def cumprod(
    a: object,
    axis: object = None,
    dtype: DTypeLike | None = None,
    out: object = None,
) -> Tensor:
    return _scan("prod", np.cumprod, a, axis, dtype, out)
