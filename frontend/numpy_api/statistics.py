"""Order statistics and covariances, composed from NumPy functions tracejit compiles:
`np.median`, `np.percentile`, `np.quantile` (NumPy's default "linear" method), `np.cov`,
`np.corrcoef`.

Order statistics sort along the axis and read the ranks the quantiles name, interpolating as
NumPy's `_lerp` does (the same operations in the same order, so the results are NumPy's); a
NaN in a slice makes its statistic NaN, as in NumPy. The quantiles must be Python values
(numbers or sequences): the ranks are then known while tracing, or, along a dim only the
kernel knows (an input signature with None, a window of a staged loop), computed by it with
the same steps in the same dtypes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.masks import merge_dims
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import normalize_axes
from tracejit.frontend.staging import primitives, runtime_sizes
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched


# --- quantiles ----------------------------------------------------------------------------
@implements(np.quantile)
def quantile(
    a: object, q: object, axis: Any = None, out: object = None, overwrite_input: bool = False,
    method: str = "linear", keepdims: bool = False, *, weights: object = None,
    interpolation: object = None,
) -> Tensor:  # fmt: skip
    _supported(out, method, weights, interpolation)
    return _quantiles(array_of(a), _static_quantiles(q, None), _is_weak(q), axis, keepdims)


@implements(np.percentile)
def percentile(
    a: object, q: object, axis: Any = None, out: object = None, overwrite_input: bool = False,
    method: str = "linear", keepdims: bool = False, *, weights: object = None,
    interpolation: object = None,
) -> Tensor:  # fmt: skip
    _supported(out, method, weights, interpolation)
    return _quantiles(array_of(a), _static_quantiles(q, 100), _is_weak(q), axis, keepdims)


@implements(np.median)
def median(
    a: object, axis: Any = None, out: object = None, overwrite_input: bool = False,
    keepdims: bool = False,
) -> Tensor:  # fmt: skip
    """NumPy's median: the mean of the middle one or two values (not a quantile: the mean
    of two integers is taken in float64, without the integer difference a quantile takes)."""
    _supported(out, "linear", None, None)
    x = array_of(a)
    axes, ordered, n = _sorted_along_last(x, axis)
    middle = dispatched(ordered[..., (n - 1) // 2 : n // 2 + 1])
    result = dispatched(np.mean(middle, axis=-1))
    if x.dtype.kind == "f":
        result = dispatched(np.where(_has_nan(ordered), np.asarray(np.nan, result.dtype), result))
    return _with_kept_dims(result, x.ndim, axes, 0) if keepdims else result


def _supported(out: object, method: str, weights: object, interpolation: object) -> None:
    if out is not None or weights is not None or interpolation is not None:
        raise NotImplementedError(
            at_user_line("out=, weights= and interpolation= are not supported here")
        )
    if method != "linear":
        raise NotImplementedError(
            at_user_line(f"method={method!r} is not supported; tracejit has 'linear'")
        )


def _is_weak(q: object) -> bool:
    """NumPy 2 (NEP 50): a Python number `q` leaves the result's dtype to the data's."""
    return type(q) in (int, float)


def _static_quantiles(q: object, scale: int | None) -> np.ndarray:
    """`q` as NumPy holds it: an array of its own dtype (a Python float: float64, an int:
    int64, np.float32: float32), percentiles divided by 100 as NumPy divides them."""
    if isinstance(q, Tensor):
        raise NotImplementedError(
            at_user_line("quantiles that are traced values are not supported: pass numbers")
        )
    given: Any = q
    quantiles = np.asanyarray(given if scale is None else np.true_divide(given, scale))
    if np.any((quantiles < 0) | (quantiles > 1)) or np.any(np.isnan(quantiles)):
        what = "Quantiles must be in the range [0, 1]"
        raise ValueError(
            at_user_line(what if scale is None else "Percentiles must be in the range [0, 100]")
        )
    return quantiles


def _sorted_along_last(x: Tensor, axis: Any) -> tuple[tuple[int, ...], Tensor, int | Tensor]:
    """The reduced axes, `x` with them moved last, flattened into one and sorted (NaN
    last), and their length (a 0-d tensor when only the kernel knows it)."""
    if x.dtype.kind not in "iufb":
        raise NotImplementedError(at_user_line(f"quantiles of {x.dtype} are not supported"))
    axes = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim)
    kept = [d for d in range(x.ndim) if d not in axes]
    reduced = [x.shape[d] for d in axes]
    flat = dispatched(np.transpose(x, [*kept, *axes]))
    if None in reduced:  # the reduced axes merged into one, of a length the kernel knows
        flat = merge_dims(flat, len(kept), len(axes)) if axes else flat
        n: int | Tensor = runtime_sizes.dim_size(flat, flat.ndim - 1)
        return axes, dispatched(np.sort(flat, axis=-1)), n
    n = math.prod(d for d in reduced if d is not None)  # (every one is: checked)
    if n == 0:
        raise NotImplementedError(at_user_line("a quantile of an empty array is not supported"))
    if len(axes) != 1:  # the reduced axes as one (a kept dim may be known only at run time)
        flat = dispatched(
            flat.reshape([-1 if x.shape[d] is None else x.shape[d] for d in kept] + [n])
        )
    return axes, dispatched(np.sort(flat, axis=-1)), n


def _has_nan(ordered: Tensor) -> Tensor:
    return dispatched(np.isnan(ordered[..., -1]))  # NaNs sort last


def _quantiles(x: Tensor, q: np.ndarray, weak: bool, axis: Any, keepdims: bool) -> Tensor:
    """NumPy's linear quantiles of `x` along `axis` (None: all), quantile dims first: its
    virtual indices, neighbours and weights, computed at trace time with NumPy in q's dtype,
    and its `_lerp` on the neighbours in the data's dtype (an integer difference wraps as
    NumPy's does)."""
    axes, ordered, n = _sorted_along_last(x, axis)
    if isinstance(n, Tensor):
        result = _run_time_quantiles(x, ordered, q, weak, n)
    else:
        result = _static_quantiles_of(x, ordered, q, weak, n)
    if result.dtype.kind == "f" and x.dtype.kind == "f":
        has_nan = _has_nan(ordered)
        if q.ndim:
            has_nan = dispatched(np.expand_dims(has_nan, tuple(range(-q.ndim, 0))))
        result = dispatched(np.where(has_nan, np.asarray(np.nan, result.dtype), result))
    result = _quantile_axes_first(result, q.ndim)
    if keepdims:
        result = _with_kept_dims(result, x.ndim, axes, q.ndim)
    return result


def _static_quantiles_of(x: Tensor, ordered: Tensor, q: np.ndarray, weak: bool, n: int) -> Tensor:
    """The ranks and weights of a length known at trace time, computed now with NumPy."""
    virtual = np.asanyarray((n - 1) * q)  # NumPy's linear method's virtual index
    if virtual.dtype.kind in "iu":  # integer ranks: taken, not interpolated
        ranks = virtual.astype(np.intp)
        taken = dispatched(ordered[..., int(ranks) if q.ndim == 0 else ranks])
        return dispatched(np.copy(taken))  # NumPy's np.take: an array of its own
    _refuse_boolean_differences(x)
    low_index, high_index, weight = _neighbours(virtual, n - 1)
    gamma: Any = np.asanyarray(weight, dtype=virtual.dtype)
    if weak:
        gamma = float(gamma)
    if q.ndim == 0:  # one quantile: integer ranks, which drop the axis
        low_index, high_index = int(low_index), int(high_index)
    low, high = ordered[..., low_index], ordered[..., high_index]  # (..., *q.shape)
    return _lerp(low, high, gamma)


def _run_time_quantiles(
    x: Tensor, ordered: Tensor, q: np.ndarray, weak: bool, n: Tensor
) -> Tensor:
    """The same ranks and weights as `_static_quantiles_of`, computed by the kernel from
    the length it knows. An empty slice fails its index check with IndexError, as in
    NumPy."""
    quantiles = primitives.constant(q)
    virtual = dispatched(np.multiply(n - 1, quantiles))  # n is weak: q's dtype, as NumPy
    if virtual.dtype.kind in "iu":
        return dispatched(np.copy(dispatched(ordered[..., virtual])))
    _refuse_boolean_differences(x)
    low_index, high_index, gamma = _neighbours(virtual, n - 1)
    if weak:  # a Python number's weight: the data's dtype decides, as for a float
        gamma = Tensor(gamma.value, gamma.dims, weak=True)
    low, high = ordered[..., low_index], ordered[..., high_index]  # (..., *q.shape)
    return _lerp(low, high, gamma)


def _neighbours(virtual: Any, last: Any) -> tuple[Any, Any, Any]:
    """NumPy's `_get_indexes` and `_get_gamma` for the linear method: the ranks below and
    above each virtual index, and the weight of the one above. Written with NumPy
    functions, so that the same steps serve a length known now (NumPy arrays) and one the
    kernel knows (Tensors, which these functions stage)."""
    below = np.floor(virtual)
    at_end = np.greater_equal(virtual, last)
    low = np.where(at_end, last, np.maximum(below, 0)).astype(np.intp)
    high = np.where(at_end, last, np.minimum(below + 1, last)).astype(np.intp)
    below_numpy = np.where(at_end, -1, np.where(virtual < 0, 0, below))
    return low, high, np.subtract(virtual, below_numpy.astype(virtual.dtype))


def _refuse_boolean_differences(x: Tensor) -> None:
    """An interpolated quantile subtracts neighbours (an integer q only takes elements)."""
    if x.dtype.kind == "b":
        raise TypeError(
            at_user_line(
                "quantiles of booleans subtract booleans, which NumPy refuses; "
                "write x.astype(np.int8) (or np.median, which takes a mean)"
            )
        )


def _lerp(a: Tensor, b: Tensor, t: Any) -> Tensor:
    """NumPy's `_lerp`: a + (b - a) * t, or b - (b - a) * (1 - t) where t >= 0.5."""
    difference = dispatched(np.subtract(b, a))
    forward = dispatched(np.add(a, difference * t))
    backward = dispatched(np.subtract(b, difference * (1 - t)))
    if isinstance(t, float):  # one weight known at trace time: one of the two
        return backward if t >= 0.5 else forward
    return dispatched(np.where(t >= 0.5, backward, forward))


def _quantile_axes_first(result: Tensor, q_ndim: int) -> Tensor:
    """NumPy puts the quantiles' dims first: (*q.shape, *kept)."""
    if not q_ndim:
        return result
    ndim = result.ndim
    order = list(range(ndim - q_ndim, ndim)) + list(range(ndim - q_ndim))
    return dispatched(np.transpose(result, order))


def _with_kept_dims(result: Tensor, ndim: int, axes: tuple, q_ndim: int) -> Tensor:
    """keepdims=True: a dim of 1 where each reduced axis was, after the quantiles' dims."""
    return dispatched(np.expand_dims(result, tuple(q_ndim + d for d in sorted(axes))))


# --- covariance ----------------------------------------------------------------------------
@implements(np.cov)
def cov(
    m: object, y: object = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
    fweights: object = None, aweights: object = None, *, dtype: Any = None,
) -> Tensor:  # fmt: skip
    if fweights is not None or aweights is not None:
        raise NotImplementedError(at_user_line("np.cov weights are not supported"))
    x = _observations(array_of(m), rowvar)
    if x.shape[0] == 0:  # no variables: NumPy's empty float64 result, whatever the dtype
        return array_of(np.empty((0, 0)))
    if y is not None:
        x = dispatched(np.concatenate([x, _observations(array_of(y), rowvar, True)], axis=0))
    if dtype is None:
        dtype = np.result_type(x.dtype, np.float64)
    x = dispatched(x.astype(dtype))
    if ddof is None:
        ddof = 0 if bias else 1
    count = x.shape[1]
    if count is None:
        raise NotImplementedError(
            at_user_line("np.cov of observations counted only at run time is not supported")
        )
    centred = dispatched(x - np.mean(x, axis=1, keepdims=True))
    conjugate = dispatched(np.conj(centred)) if x.dtype.kind == "c" else centred
    product = dispatched(centred @ conjugate.T)
    scaled = dispatched(product * np.true_divide(1, max(count - ddof, 0)))
    return dispatched(np.squeeze(scaled))


def _observations(x: Tensor, rowvar: bool, second: bool = False) -> Tensor:
    """NumPy's variables-by-observations matrix: `m` is transposed for rowvar=False unless
    it is 1-d; `y` (`second`) unless it is one row once made 2-d."""
    if x.ndim > 2:
        raise ValueError(at_user_line(f"{'y' if second else 'm'} has more than 2 dimensions"))
    ndim = x.ndim
    x = dispatched(x.reshape(1, -1)) if x.ndim < 2 else x
    transposed = x.shape[0] != 1 if second else ndim != 1
    return dispatched(x.T) if not rowvar and transposed else x


@implements(np.corrcoef)
def corrcoef(
    x: object, y: object = None, rowvar: bool = True, bias: object = None, ddof: object = None,
    *, dtype: Any = None,
) -> Tensor:  # fmt: skip
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return dispatched(c / c)
    stddev = dispatched(np.sqrt(np.diagonal(c).real))
    c = dispatched(c / stddev[:, None] / stddev[None, :])
    return dispatched(np.clip(c, -1, 1))
