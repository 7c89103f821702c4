"""Order statistics and covariances, composed from NumPy functions tracejit compiles:
`np.median`, `np.percentile`, `np.quantile` (NumPy's default "linear" method), `np.cov`,
`np.corrcoef`.

Order statistics sort along the axis and read the ranks the quantiles name, interpolating as
NumPy's `_lerp` does (the same operations in the same order, so the results are NumPy's); a
NaN in a slice makes its statistic NaN, as in NumPy. The quantiles must be Python values
(numbers or sequences): the ranks are then known while tracing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import normalize_axes
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
    return _quantiles(array_of(a), _static_quantiles(q, 1.0), axis, keepdims, _strength(q))


@implements(np.percentile)
def percentile(
    a: object, q: object, axis: Any = None, out: object = None, overwrite_input: bool = False,
    method: str = "linear", keepdims: bool = False, *, weights: object = None,
    interpolation: object = None,
) -> Tensor:  # fmt: skip
    _supported(out, method, weights, interpolation)
    return _quantiles(array_of(a), _static_quantiles(q, 100.0), axis, keepdims, _strength(q))


@implements(np.median)
def median(
    a: object, axis: Any = None, out: object = None, overwrite_input: bool = False,
    keepdims: bool = False,
) -> Tensor:  # fmt: skip
    _supported(out, "linear", None, None)
    return _quantiles(array_of(a), np.asarray(0.5), axis, keepdims)


def _supported(out: object, method: str, weights: object, interpolation: object) -> None:
    if out is not None or weights is not None or interpolation is not None:
        raise NotImplementedError(
            at_user_line("out=, weights= and interpolation= are not supported here")
        )
    if method != "linear":
        raise NotImplementedError(
            at_user_line(f"method={method!r} is not supported; tracejit has 'linear'")
        )


def _strength(q: object) -> np.dtype | None:
    """The dtype `q` brings to the result's (NEP 50): none for a Python number."""
    if isinstance(q, int | float) and not isinstance(q, np.generic):
        return None
    return np.asarray(q).dtype


def _static_quantiles(q: object, scale: float) -> np.ndarray:
    if isinstance(q, Tensor):
        raise NotImplementedError(
            at_user_line("quantiles that are traced values are not supported: pass numbers")
        )
    fractions = np.true_divide(np.asarray(q, dtype=np.float64), scale)
    if np.any((fractions < 0) | (fractions > 1)) or np.any(np.isnan(fractions)):
        raise ValueError(at_user_line("Quantiles must be in the range [0, 1]"))
    return fractions


def _quantiles(
    x: Tensor, q: np.ndarray, axis: Any, keepdims: bool, q_dtype: np.dtype | None = None
) -> Tensor:
    """NumPy's linear quantiles of `x` along `axis` (None: all), quantile dims first."""
    if x.dtype.kind not in "iufb":
        raise NotImplementedError(at_user_line(f"quantiles of {x.dtype} are not supported"))
    axes = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim)
    kept = [d for d in range(x.ndim) if d not in axes]
    flat = dispatched(np.transpose(x, [*kept, *axes]))
    flat = dispatched(flat.reshape([x.shape[d] for d in kept] + [-1]))
    n = flat.shape[-1]
    if n is None:
        raise NotImplementedError(
            at_user_line("a quantile along a dim known only at run time is not supported")
        )
    if n == 0:
        raise NotImplementedError(at_user_line("a quantile of an empty array is not supported"))
    dtype = np.result_type(x.dtype, np.float64) if x.dtype.kind in "iub" else x.dtype
    if q_dtype is not None:
        dtype = np.result_type(dtype, q_dtype)
    ordered = dispatched(np.sort(flat, axis=-1).astype(dtype))
    virtual = (n - 1) * q
    below = np.floor(virtual).astype(np.intp)
    above = np.minimum(below + 1, n - 1)
    gamma = (virtual - below).astype(dtype)
    if q.ndim == 0:  # one quantile: integer ranks, which drop the axis
        # and a Python float weight, as NumPy's (weak: float32 data stays float32, but the
        # weight and 1 - weight are not first rounded to float32)
        below, above, gamma = int(below), int(above), float(virtual - below)
    low, high = ordered[..., below], ordered[..., above]  # (..., *q.shape)
    result = _lerp(low, high, gamma)
    has_nan = dispatched(np.isnan(ordered[..., -1]))  # NaNs sort last
    if q.ndim:
        has_nan = dispatched(has_nan.reshape(has_nan.shape + (1,) * q.ndim))
    result = dispatched(np.where(has_nan, np.asarray(np.nan, dtype), result))
    result = _quantile_axes_first(result, q.ndim)
    if keepdims:
        result = _with_kept_dims(result, x.ndim, axes, q.ndim)
    return result


def _lerp(a: Tensor, b: Tensor, t: np.ndarray) -> Tensor:
    """NumPy's `_lerp`: a + (b - a) * t, or b - (b - a) * (1 - t) where t >= 0.5."""
    difference = dispatched(np.subtract(b, a))
    forward = dispatched(np.add(a, difference * t))
    backward = dispatched(np.subtract(b, difference * (1 - t)))
    return dispatched(np.where(t >= 0.5, backward, forward))


def _quantile_axes_first(result: Tensor, q_ndim: int) -> Tensor:
    """NumPy puts the quantiles' dims first: (*q.shape, *kept)."""
    if not q_ndim:
        return result
    ndim = result.ndim
    order = list(range(ndim - q_ndim, ndim)) + list(range(ndim - q_ndim))
    return dispatched(np.transpose(result, order))


def _with_kept_dims(result: Tensor, ndim: int, axes: tuple, q_ndim: int) -> Tensor:
    shape = list(result.shape[:q_ndim])
    rest = iter(result.shape[q_ndim:])
    shape += [1 if d in axes else next(rest) for d in range(ndim)]
    return dispatched(result.reshape(shape))


# --- covariance ----------------------------------------------------------------------------
@implements(np.cov)
def cov(
    m: object, y: object = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
    fweights: object = None, aweights: object = None, *, dtype: Any = None,
) -> Tensor:  # fmt: skip
    if fweights is not None or aweights is not None:
        raise NotImplementedError(at_user_line("np.cov weights are not supported"))
    x = _observations(array_of(m), rowvar)
    if y is not None:
        x = dispatched(np.concatenate([x, _observations(array_of(y), rowvar)], axis=0))
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


def _observations(x: Tensor, rowvar: bool) -> Tensor:
    if x.ndim > 2:
        raise ValueError(at_user_line("m has more than 2 dimensions"))
    x = dispatched(x.reshape(1, -1)) if x.ndim < 2 else x
    return x if rowvar or x.shape[0] == 1 and x.ndim == 1 else dispatched(x.T)


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
