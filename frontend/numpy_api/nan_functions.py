"""NumPy's NaN-ignoring reductions (`np.nansum`, `np.nanprod`, `np.nanmean`, `np.nanmax`,
`np.nanmin`, `np.nanargmax`, `np.nanargmin`, `np.nanvar`, `np.nanstd`), composed step by step
as NumPy's `lib/_nanfunctions_impl.py` composes them, from the reductions tracejit stages.

NaN is replaced by a neutral value (0 for sums, 1 for products, -inf/+inf for extrema) where
the dtype has NaN (floats, complex); integer and bool arrays go to the plain reduction, as in
NumPy. Counts are int64 sums of the not-NaN mask, divisions keep the sum's dtype (NumPy's
`_divide_by_count`), so dtypes and rounding follow NumPy's.

Value-dependent outcomes: an all-NaN slice gives NaN for `nanmax`/`nanmin`/`nanmean`/`nanvar`
/`nanstd` as in NumPy, without NumPy's RuntimeWarning (a compiled function cannot warn from the
data); `nanargmax`/`nanargmin` of an all-NaN slice raise NumPy's ValueError when the function
runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api import reductions
from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.registry import implements, unsupported
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched

_ALL_NAN = "All-NaN slice encountered"


def _refuse(fn: object, out: object = None, **options: object) -> None:
    """`out=` and NumPy's `where=`/`initial=`/`mean=` options are not supported."""
    if out is not None:
        raise unsupported(fn, "(..., out=...)")
    for name, value in options.items():
        if value is not np._NoValue:
            raise unsupported(fn, f"(..., {name}=...)")


def _keepdims(keepdims: object) -> bool:
    return False if keepdims is np._NoValue else bool(keepdims)


def _has_nan(x: Tensor) -> bool:
    return x.dtype.kind in "fc"


def _replace_nan(x: Tensor, value: Any) -> tuple[Tensor, Tensor | None]:
    """NumPy's `_replace_nan`: `x` with NaN replaced by `value`, and the NaN mask (None for
    dtypes without NaN, whose arrays are returned as they are)."""
    if not _has_nan(x):
        return x, None
    mask = dispatched(np.isnan(x))
    filled = primitives.cast(dispatched(np.where(mask, value, x)), x.dtype)
    return filled, mask


@implements(np.nansum)
def nansum(
    a: object, axis: Any = None, dtype: Any = None, out: object = None,
    keepdims: object = np._NoValue, initial: object = np._NoValue, where: object = np._NoValue,
) -> Tensor:  # fmt: skip
    _refuse(np.nansum, out, initial=initial, where=where)
    x, _ = _replace_nan(array_of(a), 0)
    return reductions.sum_(x, axis=axis, dtype=dtype, keepdims=_keepdims(keepdims))


@implements(np.nanprod)
def nanprod(
    a: object, axis: Any = None, dtype: Any = None, out: object = None,
    keepdims: object = np._NoValue, initial: object = np._NoValue, where: object = np._NoValue,
) -> Tensor:  # fmt: skip
    _refuse(np.nanprod, out, initial=initial, where=where)
    x, _ = _replace_nan(array_of(a), 1)
    return reductions.prod(x, axis=axis, dtype=dtype, keepdims=_keepdims(keepdims))


def _extremum(fn: object, kind: str, a: object, axis: Any, keepdims: bool) -> Tensor:
    """NumPy's `np.fmax.reduce` / `np.fmin.reduce`: NaN ignored, NaN for an all-NaN slice."""
    x = array_of(a)
    if x.dtype.kind == "c":
        raise TypeError(
            at_user_line(f"{fn.__name__} of complex numbers is not supported by tracejit")  # type: ignore[attr-defined]  # a NumPy function
        )
    axes = reductions.ufunc_axes(axis, x.ndim)
    if any(x.shape[d] == 0 for d in axes):
        name = "fmax" if kind == "max" else "fmin"
        raise ValueError(
            at_user_line(f"zero-size array to reduction operation {name} which has no identity")
        )
    if not _has_nan(x):
        return reductions._reduce(kind, x, axis, keepdims)
    filled, mask = _replace_nan(x, -np.inf if kind == "max" else np.inf)
    result = reductions._reduce(kind, filled, axis, keepdims)
    all_nan = reductions.all_(mask, axis=axis, keepdims=keepdims)
    return primitives.cast(dispatched(np.where(all_nan, np.nan, result)), x.dtype)


@implements(np.nanmax)
def nanmax(
    a: object, axis: Any = None, out: object = None, keepdims: object = np._NoValue,
    initial: object = np._NoValue, where: object = np._NoValue,
) -> Tensor:  # fmt: skip
    _refuse(np.nanmax, out, initial=initial, where=where)
    return _extremum(np.nanmax, "max", a, axis, _keepdims(keepdims))


@implements(np.nanmin)
def nanmin(
    a: object, axis: Any = None, out: object = None, keepdims: object = np._NoValue,
    initial: object = np._NoValue, where: object = np._NoValue,
) -> Tensor:  # fmt: skip
    _refuse(np.nanmin, out, initial=initial, where=where)
    return _extremum(np.nanmin, "min", a, axis, _keepdims(keepdims))


def _arg_extremum(fn: Any, kind: str, a: object, axis: Any, out: object, keepdims: Any) -> Tensor:
    """NumPy's nanargmax/nanargmin: NaN replaced by -inf/+inf, and ValueError (when the
    function runs) for a slice of NaN only."""
    _refuse(fn, out)
    x = array_of(a)
    if x.dtype.kind == "c":
        raise TypeError(
            at_user_line(f"np.{fn.__name__} of complex numbers is not supported by tracejit")
        )
    filled, mask = _replace_nan(x, -np.inf if kind == "argmax" else np.inf)
    if mask is not None and mask.size != 0:
        all_nan = reductions.all_(mask, axis=axis)
        none = dispatched(np.logical_not(reductions.any_(all_nan)))
        primitives.assert_true(none, at_user_line(f"ValueError: {_ALL_NAN}"))
    keep = _keepdims(keepdims)
    if kind == "argmax":
        return reductions.argmax(filled, axis=axis, keepdims=keep)
    return reductions.argmin(filled, axis=axis, keepdims=keep)


@implements(np.nanargmax)
def nanargmax(a: object, axis: Any = None, out: object = None, *, keepdims: Any = np._NoValue):
    return _arg_extremum(np.nanargmax, "argmax", a, axis, out, keepdims)


@implements(np.nanargmin)
def nanargmin(a: object, axis: Any = None, out: object = None, *, keepdims: Any = np._NoValue):
    return _arg_extremum(np.nanargmin, "argmin", a, axis, out, keepdims)


def _inexact_dtype(dtype: Any) -> np.dtype | None:
    """NumPy's check of `dtype=` for an array with NaN."""
    if dtype is None:
        return None
    dtype = np.dtype(dtype)
    if not issubclass(dtype.type, np.inexact):
        raise TypeError(at_user_line("If a is inexact, then dtype must be inexact"))
    return dtype


def _count(mask: Tensor, axis: Any, keepdims: bool) -> Tensor:
    """How many values are not NaN (int64, as NumPy's `np.sum(~mask, dtype=np.intp)`)."""
    valid = dispatched(np.logical_not(mask))
    return reductions.sum_(valid, axis=axis, dtype=np.intp, keepdims=keepdims)


@implements(np.nanmean)
def nanmean(
    a: object, axis: Any = None, dtype: Any = None, out: object = None,
    keepdims: object = np._NoValue, *, where: object = np._NoValue,
) -> Tensor:  # fmt: skip
    _refuse(np.nanmean, out, where=where)
    keep = _keepdims(keepdims)
    x, mask = _replace_nan(array_of(a), 0)
    if mask is None:
        return reductions.mean(x, axis=axis, dtype=dtype, keepdims=keep)
    dtype = _inexact_dtype(dtype)
    count = _count(mask, axis, keep)
    total = reductions.sum_(x, axis=axis, dtype=dtype, keepdims=keep)
    return reductions._divide_keeping_dtype(total, count)  # 0 / 0: NaN for all-NaN slices


@implements(np.nanvar)
def nanvar(
    a: object, axis: Any = None, dtype: Any = None, out: object = None, ddof: Any = 0,
    keepdims: object = np._NoValue, *, where: object = np._NoValue,
    mean: object = np._NoValue, correction: object = np._NoValue,
) -> Tensor:  # fmt: skip
    _refuse(np.nanvar, out, where=where, mean=mean)
    return _nanvar(np.nanvar, a, axis, dtype, ddof, keepdims, correction)


@implements(np.nanstd)
def nanstd(
    a: object, axis: Any = None, dtype: Any = None, out: object = None, ddof: Any = 0,
    keepdims: object = np._NoValue, *, where: object = np._NoValue,
    mean: object = np._NoValue, correction: object = np._NoValue,
) -> Tensor:  # fmt: skip
    _refuse(np.nanstd, out, where=where, mean=mean)
    variance = _nanvar(np.nanstd, a, axis, dtype, ddof, keepdims, correction)
    return dispatched(np.sqrt(variance))


def _nanvar(
    fn: object, a: object, axis: Any, dtype: Any, ddof: Any, keepdims: object, correction: object
) -> Tensor:
    """NumPy's `nanvar`, step by step: the mean of the values that are not NaN, their
    deviations (NaN's set to 0) squared and summed, divided by count - ddof (NaN where that
    is <= 0)."""
    ddof = reductions._ddof(fn, ddof, {"correction": correction})
    keep = _keepdims(keepdims)
    x, mask = _replace_nan(array_of(a), 0)
    if mask is None:
        return reductions._var(x, axis, dtype, ddof, keep)
    dtype = _inexact_dtype(dtype)
    count = _count(mask, axis, True)
    total = reductions.sum_(x, axis=axis, dtype=dtype, keepdims=True)
    average = reductions._divide_keeping_dtype(total, count)
    # np.subtract(arr, avg, out=arr, casting='unsafe'): in the array's own dtype
    deviation = primitives.cast(dispatched(np.subtract(x, average)), x.dtype)
    deviation = primitives.cast(dispatched(np.where(mask, 0, deviation)), x.dtype)
    if deviation.dtype.kind == "c":
        squares = dispatched(np.real(np.multiply(deviation, np.conj(deviation))))
    else:
        squares = dispatched(np.multiply(deviation, deviation))
    variance = reductions.sum_(squares, axis=axis, dtype=dtype, keepdims=keep)
    if variance.ndim < count.ndim:
        count = dispatched(np.squeeze(count, axis=axis))
    freedom = dispatched(np.subtract(count, ddof))
    variance = reductions._divide_keeping_dtype(variance, freedom)
    bad = dispatched(np.less_equal(freedom, 0))
    return primitives.cast(dispatched(np.where(bad, np.nan, variance)), variance.dtype)
