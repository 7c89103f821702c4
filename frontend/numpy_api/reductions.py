"""NumPy reductions (`np.sum`, `np.max`, `np.argmax`, `np.var`, ..., and the ndarray
methods) as `tj.reduce`, or composed from it like NumPy's own `_methods.py`.

NumPy's result dtypes are kept: `np.sum`/`np.prod` widen small integers and bools to
the platform integer (int64 here, uint64 for unsigned), `np.max` of bool is `any`,
`np.mean`/`np.var`/`np.std` of integers are float64, and argmax/argmin give int64.
`mean`, `var` and `std` follow NumPy's algorithm step by step (sum, divide by the
count as NumPy does, subtract the mean, square, sum again), so their dtypes and
rounding follow NumPy's.

float16 sums and products accumulate in float32 and round to float16 once, as NumPy's
float16 add/multiply reduce loops do: `np.sum(np.ones(3000, np.float16))` is 3000, where
a float16 running sum stops at 2048 (2048 + 1 rounds to 2048). NumPy rounds to float16
between inner-loop calls, so where the reduced axis is not the innermost one in memory
(`axis=0` of a C-ordered matrix) its result is such a running sum, and tracejit's the
more accurate one. `np.mean` of float16 sums and divides in float32 and casts the mean
back (NumPy's `_mean`); `np.var`/`np.std` of float16 stay float16 throughout, their sums
accumulated as above, like NumPy's `_var`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.promotion import as_tensor, dtype_descriptor
from tracejit.frontend.numpy_api.registry import implements, unsupported
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched

# Reductions NumPy cannot start on an empty axis, with the name its error message uses.
_NO_IDENTITY = {"max": "maximum", "min": "minimum", "argmax": "argmax", "argmin": "argmin"}
# max/min of bool tensors are any/all (tj.reduce max/min are not defined on i1).
_BOOL_KINDS = {"max": "any", "min": "all"}


def normalize_axes(axis: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Axes as sorted non-negative ints; `None` means all; AxisError when out of range."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    normalized = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(
                at_user_line(f"axis {a} is out of bounds for array of dimension {ndim}")
            )
        normalized.append(int(a) % ndim)
    if len(set(normalized)) != len(normalized):
        raise ValueError(at_user_line("duplicate value in 'axis'"))
    return tuple(sorted(normalized))


def ufunc_axes(axis: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Axes as a ufunc's reduce reads them: `normalize_axes`, except that a 0-d array also
    takes the int axis 0 or -1 (NumPy keeps that for backwards compatibility:
    `np.sum(np.float64(3), axis=0)` is 3.0, `np.argmax` 0, while `np.mean` raises)."""
    if ndim == 0 and isinstance(axis, int | np.integer) and axis in (0, -1):
        return ()
    return normalize_axes(axis, ndim)


def _keep_dims(result: Tensor, source: Tensor, axes: tuple[int, ...]) -> Tensor:
    """Re-insert the reduced axes as size-1 dims (`keepdims=True`)."""
    from tracejit.frontend.staging.tracing import emit
    from tracejit.ir.dtypes import tensor_type
    from tracejit.ir.shape_ops import BroadcastInDimOp

    shape = [1 if i in axes else s for i, s in enumerate(source.shape)]
    kept = [i for i in range(source.ndim) if i not in axes]
    op = BroadcastInDimOp(result.value, kept, tensor_type(shape, result.dtype))
    return Tensor(emit(op).result)


def _source_dtype(x: object) -> np.dtype:
    return x.dtype if isinstance(x, Tensor) else np.dtype(dtype_descriptor(x))


def _reduce(kind: str, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    """`tj.reduce kind` of an already-cast tensor, with NumPy's empty-axis error."""
    axes = ufunc_axes(axis, x.ndim)
    if kind in _NO_IDENTITY and any(x.shape[a] == 0 for a in axes):
        raise ValueError(at_user_line(_empty_message(kind)))
    unknown = tuple(a for a in axes if x.shape[a] is None)
    if kind in _NO_IDENTITY and unknown:  # empty only at run time (x[mask], None dims)
        nonempty = np.greater(_count(x, unknown), 0)
        primitives.assert_true(nonempty, at_user_line(f"ValueError: {_empty_message(kind)}"))  # type: ignore[arg-type]  # np.greater of a Tensor: a Tensor
    if x.dtype == np.bool_:
        kind = _BOOL_KINDS.get(kind, kind)
    if x.dtype.kind == "c" and kind not in ("sum", "prod"):
        raise TypeError(
            at_user_line(
                f"np.{kind} of complex numbers is not supported by tracejit (NumPy orders "
                "them lexicographically); reduce np.real(z) and np.imag(z), or np.abs(z)"
            )
        )
    result = primitives.reduce(kind, x, axes)
    return _keep_dims(result, x, axes) if keepdims else result


def _empty_message(kind: str) -> str:
    name = _NO_IDENTITY[kind]
    if kind.startswith("arg"):
        return f"attempt to get {name} of an empty sequence"
    return f"zero-size array to reduction operation {name} which has no identity"


# Result dtypes whose sums and products NumPy's reduce loops accumulate in a wider type.
_WIDER_ACCUMULATOR = {np.dtype(np.float16): np.dtype(np.float32)}


def _accumulating(kind: str, numpy_fn, a, axis, dtype, keepdims) -> Tensor:
    """sum/prod: accumulate in `dtype`, or the dtype NumPy picks (int32 -> int64); a
    float16 result is accumulated in float32 and rounded once (module docstring)."""
    if dtype is None:
        dtype = numpy_fn(np.zeros(1, _source_dtype(a))).dtype
    x = as_tensor(a, np.dtype(dtype))  # NumPy casts the elements to `dtype` first
    wider = _WIDER_ACCUMULATOR.get(x.dtype)
    if wider is None:
        return _reduce(kind, x, axis, keepdims)
    return primitives.cast(_reduce(kind, primitives.cast(x, wider), axis, keepdims), x.dtype)


@implements(np.sum)
def sum_(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    _no_out(np.sum, out, kwargs)
    return _accumulating("sum", np.sum, a, axis, dtype, keepdims)


@implements(np.prod)
def prod(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    _no_out(np.prod, out, kwargs)
    return _accumulating("prod", np.prod, a, axis, dtype, keepdims)


@implements(np.max, np.amax)
def max_(a, axis=None, out=None, keepdims=False, **kwargs):
    _no_out(np.max, out, kwargs)
    return _reduce("max", as_tensor(a, _source_dtype(a)), axis, keepdims)


@implements(np.min, np.amin)
def min_(a, axis=None, out=None, keepdims=False, **kwargs):
    _no_out(np.min, out, kwargs)
    return _reduce("min", as_tensor(a, _source_dtype(a)), axis, keepdims)


@implements(np.any)
def any_(a, axis=None, out=None, keepdims=False, **kwargs):
    _no_out(np.any, out, kwargs)
    return _reduce("any", as_tensor(a, np.dtype(np.bool_)), axis, keepdims)


@implements(np.all)
def all_(a, axis=None, out=None, keepdims=False, **kwargs):
    _no_out(np.all, out, kwargs)
    return _reduce("all", as_tensor(a, np.dtype(np.bool_)), axis, keepdims)


def _arg_reduce(kind: str, numpy_fn, a, axis, out, keepdims) -> Tensor:
    _no_out(numpy_fn, out, {})
    if axis is not None and not isinstance(axis, int | np.integer):
        raise TypeError(
            at_user_line(f"np.{kind}: axis must be None or an int, not {type(axis).__name__}")
        )
    x = as_tensor(a, _source_dtype(a))
    if x.dtype == np.bool_:  # compare bools as 0/1
        x = primitives.cast(x, np.dtype(np.uint8))
    return _reduce(kind, x, axis, bool(keepdims))


@implements(np.argmax)
def argmax(a, axis=None, out=None, *, keepdims=False):
    return _arg_reduce("argmax", np.argmax, a, axis, out, keepdims)


@implements(np.argmin)
def argmin(a, axis=None, out=None, *, keepdims=False):
    return _arg_reduce("argmin", np.argmin, a, axis, out, keepdims)


# --- mean, var, std: NumPy's _methods._mean / _var, step by step ----------------------
def _count(x: Tensor, axis) -> np.intp | Tensor:
    """How many elements each result averages (NumPy's `_count_reduce_items`). Over dims
    unknown at trace time it is a 0-d intp tensor: the sum of ones over those dims."""
    axes = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim)
    known_dims = [d for d in (x.shape[a] for a in axes) if d is not None]
    known = np.intp(np.prod(known_dims, dtype=np.intp))
    unknown = [a for a in axes if x.shape[a] is None]
    if not unknown:
        return known
    ones = primitives.broadcast_to(
        primitives.constant(np.intp(1)),
        [x.dims[a] for a in unknown],
        {i: (x.value, a) for i, a in enumerate(unknown)},
    )
    count = primitives.reduce("sum", ones, range(len(unknown)))
    # __array_function__: np.multiply of a Tensor is a Tensor (NumPy's stubs say ndarray)
    return count if known == 1 else dispatched(np.multiply(count, known))


def _divide_keeping_dtype(total: Tensor, divisor: np.intp | Tensor) -> Tensor:
    """NumPy's `true_divide(total, divisor, out=total, casting='unsafe')`: divide with the
    promoted dtype (float32 / intp is computed in float64) and cast back."""
    # __array_function__: np.true_divide of a Tensor is a Tensor (NumPy's stubs say ndarray)
    return primitives.cast(dispatched(np.true_divide(total, divisor)), total.dtype)


def _float_accumulator(source: np.dtype, dtype) -> np.dtype | None:
    """mean/var of ints and bools accumulate in float64 unless `dtype` says otherwise."""
    if dtype is None and source.kind in "biu":
        return np.dtype(np.float64)
    return None if dtype is None else np.dtype(dtype)


def _mean(a, axis, dtype, keepdims: bool) -> Tensor:
    x = as_tensor(a, _source_dtype(a))
    # NumPy's _mean sums float16 with dtype=float32 and casts the mean back to float16
    float16_result = dtype is None and x.dtype == np.float16
    accumulator = np.dtype(np.float32) if float16_result else _float_accumulator(x.dtype, dtype)
    total = _accumulating("sum", np.sum, x, axis, accumulator, keepdims)
    count = _count(x, axis)
    if not float16_result:
        return _divide_keeping_dtype(total, count)
    if total.ndim == 0:  # a NumPy scalar there: float16(total / count), one rounding
        return primitives.cast(dispatched(np.true_divide(total, count)), x.dtype)
    return primitives.cast(_divide_keeping_dtype(total, count), x.dtype)  # via float32


def _var(a, axis, dtype, ddof, keepdims: bool) -> Tensor:
    x = as_tensor(a, _source_dtype(a))
    dtype = _float_accumulator(x.dtype, dtype)
    count = _count(x, axis)
    mean = _divide_keeping_dtype(_accumulating("sum", np.sum, x, axis, dtype, True), count)
    deviation = dispatched(np.subtract(x, mean))
    squares = _squared_magnitude(deviation)
    total = _accumulating("sum", np.sum, squares, axis, dtype, keepdims)
    return _divide_keeping_dtype(total, np.maximum(count - ddof, 0))


def _squared_magnitude(x: Tensor) -> Tensor:
    """x * x, and for complex x re**2 + im**2 (a float: NumPy's _var on complex)."""
    if x.dtype.kind != "c":
        return dispatched(np.multiply(x, x))
    re, im = primitives.real(x), primitives.imag(x)
    return dispatched(np.add(np.multiply(re, re), np.multiply(im, im)))


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    _no_out(np.mean, out, kwargs)
    return _mean(a, axis, dtype, keepdims)


@implements(np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=np._NoValue):
    keep = False if keepdims is np._NoValue else bool(keepdims)
    if weights is not None:
        return _weighted_average(a, axis, weights, returned, keep)
    result = _mean(a, axis, None, keep)
    if not returned:
        return result
    x = as_tensor(a, _source_dtype(a))
    sizes = result.dtype.type(x.size / result.size)  # type: ignore[operator]  # None (unknown) fails as before
    if result.ndim == 0:
        return result, sizes
    return result, dispatched(np.full_like(result, sizes))  # NumPy broadcasts it to an array


def _weighted_average(a, axis, weights, returned: bool, keepdims: bool):
    """NumPy's weighted `np.average`: sum(a * w) / sum(w) in the dtype of a, w (and float64
    for integer and bool `a`); weights of another shape than `a` are one per element along
    `axis`. Weights summing to zero raise ZeroDivisionError when the function runs."""
    x = as_tensor(a, _source_dtype(a))
    w = as_tensor(weights, _source_dtype(weights))
    axes = None if axis is None else _axes_in_order(axis, x.ndim)
    kinds = (w.dtype, np.float64) if x.dtype.kind in "biu" else (w.dtype,)
    dtype = np.result_type(x.dtype, *kinds)
    if x.shape != w.shape:
        if axes is None:
            raise TypeError(
                at_user_line("Axis must be specified when shapes of a and weights differ.")
            )
        if w.shape != tuple(x.shape[d] for d in axes):
            raise ValueError(
                at_user_line(
                    "Shape of weights must be consistent with shape of a along specified axis."
                )
            )
        w = dispatched(np.transpose(w, [int(d) for d in np.argsort(axes)]))
        spread: Any = tuple(s if d in axes else 1 for d, s in enumerate(x.shape))
        w = dispatched(np.reshape(w, spread))
    scale = _accumulating("sum", np.sum, w, axes, dtype, keepdims)
    nonzero = dispatched(np.logical_not(any_(np.equal(scale, 0.0))))
    primitives.assert_true(
        nonzero, at_user_line("ZeroDivisionError: Weights sum to zero, can't be normalized")
    )
    products = dispatched(np.multiply(primitives.cast(x, dtype), primitives.cast(w, dtype)))
    result = dispatched(
        np.true_divide(_accumulating("sum", np.sum, products, axes, None, keepdims), scale)
    )
    if not returned:
        return result
    if scale.shape != result.shape:
        scale = dispatched(np.copy(np.broadcast_to(scale, result.shape)))  # type: ignore[arg-type]  # dims of a static result
    return result, scale


def _axes_in_order(axis, ndim: int) -> tuple[int, ...]:
    """NumPy's `normalize_axis_tuple`: non-negative axes in the order given."""
    from numpy.lib.array_utils import normalize_axis_tuple

    try:
        return normalize_axis_tuple(axis, ndim, argname="axis")
    except (np.exceptions.AxisError, ValueError) as error:
        raise type(error)(at_user_line(str(error))) from None


@implements(np.ptp)
def ptp(a, axis=None, out=None, keepdims=np._NoValue):
    """max - min along `axis` (NumPy's `_ptp`: a subtraction in the array's dtype, which
    wraps for integers and which NumPy refuses for bools)."""
    _no_out(np.ptp, out, {})
    keep = False if keepdims is np._NoValue else bool(keepdims)
    x = as_tensor(a, _source_dtype(a))
    return dispatched(np.subtract(_reduce("max", x, axis, keep), _reduce("min", x, axis, keep)))


@implements(np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    ddof = _ddof(np.var, ddof, kwargs)
    _no_out(np.var, out, kwargs)
    return _var(a, axis, dtype, ddof, keepdims)


@implements(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    ddof = _ddof(np.std, ddof, kwargs)
    _no_out(np.std, out, kwargs)
    return np.sqrt(_var(a, axis, dtype, ddof, keepdims))


def _ddof(numpy_fn, ddof, kwargs: dict) -> object:
    """NumPy 2's `correction=` is another name for `ddof=` (pops it from `kwargs`)."""
    correction = kwargs.pop("correction", np._NoValue)
    if correction is np._NoValue:
        return ddof
    if ddof != 0:
        raise ValueError(at_user_line("ddof and correction can't be provided simultaneously."))
    return correction


def _no_out(numpy_fn, out, kwargs) -> None:
    if out is not None:
        raise unsupported(numpy_fn, "(..., out=...)")
    unsupported_args = [k for k, v in kwargs.items() if v is not np._NoValue]
    if unsupported_args:
        raise unsupported(numpy_fn, f"(..., {'=..., '.join(unsupported_args)}=...)")
