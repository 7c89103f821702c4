"""The methods of NumPy's ufuncs on tensors: `np.add.outer`, `np.add.reduce`,
`np.maximum.accumulate`, ... (`ufunc.__call__` is elementwise.py's).

- `outer(a, b)`: the ufunc of `a` with every element of `b`, shape `a.shape + b.shape` (as
  broadcasting `a[..., None, ...]` against `b`), for every binary ufunc tracejit compiles.
- `reduce(x, axis=0, keepdims=False)`: the reductions NumPy's functions are (`np.sum` is
  `np.add.reduce` with axis=None): add, multiply, maximum, minimum, logical_and, logical_or.
- `accumulate(x, axis=0)`: running add, multiply (`np.cumsum`, `np.cumprod`), maximum and
  minimum (`tj.cumulative`, combined in NumPy's order).

Other methods (`at`, `reduceat`) and other ufuncs' reduce/accumulate are refused by name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.shapes import normalize_axis
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.tensor import Tensor, dispatched

# ufunc -> the NumPy function its `reduce` is
_REDUCTIONS: dict[np.ufunc, Any] = {
    np.add: np.sum,
    np.multiply: np.prod,
    np.maximum: np.max,
    np.minimum: np.min,
    np.logical_and: np.all,
    np.logical_or: np.any,
}
# ufunc -> tj.cumulative's kind for its `accumulate`
_SCANS: dict[np.ufunc, str] = {
    np.add: "sum",
    np.multiply: "prod",
    np.maximum: "max",
    np.minimum: "min",
}


def outer(ufunc: np.ufunc, a: object, b: object, **kwargs: Any) -> Any:
    if ufunc.nin != 2:
        raise ValueError(f"outer product only supported for binary functions, not {ufunc}")
    a, b = _tensor(a), _tensor(b)
    widened = a.reshape(a.shape + (1,) * b.ndim) if b.ndim else a
    return dispatched(ufunc(widened, b, **kwargs))


def reduce(
    ufunc: np.ufunc, x: object, axis: Any = 0, dtype: Any = None, keepdims: bool = False
) -> Any | None:
    """None when tracejit has no reduction for `ufunc` (refused by the caller)."""
    function = _REDUCTIONS.get(ufunc)
    if function is None:
        return None
    if function in (np.sum, np.prod):
        return dispatched(function(x, axis=axis, dtype=dtype, keepdims=keepdims))
    if dtype is not None:  # np.max and the logical ones take no dtype: cast first
        x = dispatched(_tensor(x).astype(dtype))
    return dispatched(function(x, axis=axis, keepdims=keepdims))


def accumulate(ufunc: np.ufunc, x: object, axis: int = 0, dtype: Any = None) -> Any | None:
    """None when tracejit has no scan for `ufunc` (refused by the caller)."""
    kind = _SCANS.get(ufunc)
    if kind is None:
        return None
    if kind in ("sum", "prod"):
        scan = np.cumsum if kind == "sum" else np.cumprod
        return dispatched(scan(_tensor(x), axis=axis, dtype=dtype))
    tensor = array_of(x)
    if tensor.ndim == 0:
        raise ValueError("cannot accumulate on a scalar")  # NumPy's error
    tensor = primitives.cast(tensor, np.dtype(dtype or tensor.dtype))
    axis = normalize_axis(axis, tensor.ndim)
    if tensor.dtype == np.bool_:  # the running or (max) / and (min) of 0s and 1s
        scanned = primitives.cumulative(kind, primitives.cast(tensor, np.dtype(np.uint8)), axis)
        return primitives.cast(scanned, np.dtype(np.bool_))
    return primitives.cumulative(kind, tensor, axis)


def _tensor(value: object) -> Tensor:
    return value if isinstance(value, Tensor) else array_of(value)
