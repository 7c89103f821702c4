"""`np.nan_to_num` and `np.sinc`, composed as NumPy's `lib/_type_check_impl.py` and
`lib/_function_base_impl.py` compose them.

`np.nan_to_num` replaces NaN, +inf and -inf in each part of a float or complex array (by
`nan=`, `posinf=`, `neginf=`, defaulting to 0 and the dtype's largest and smallest finite
values), each replacement converted to the part's dtype as NumPy's `np.copyto` converts
it (its `same_kind` errors included); bool and integer arrays come back unchanged. A
complex result is put together from its two fixed parts exactly (signed zeros kept):
`conj(re) - im * (-0 - 1j)` is `(re - +0, -0 + im)` with the multiplication NumPy's
(complex_semantics.py), and a non-finite imaginary part (a replacement given as inf or NaN)
takes the constant `(0, -im)` instead. With `copy=False` the traced array itself is
written, as NumPy writes it.

`np.sinc(x)` is `sin(y) / y` of `y = pi * x`, where `y`'s zeros become the dtype's epsilon
(`1e-20` for complex) so that sinc(0) is 1, as in NumPy. `sin` of complex numbers is not
staged, so complex `x` is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import asarray
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched


def _replacement(value: Any, default: object, dtype: np.dtype) -> tuple[Tensor, bool]:
    """`value` (or `default` when None) in `dtype` as NumPy's `copyto(casting="same_kind")`
    converts it, and whether it is finite for sure (a traced value may not be)."""
    if value is None:
        value = default
    if isinstance(value, Tensor):
        if not np.can_cast(value.dtype, dtype, casting="same_kind"):
            raise TypeError(
                at_user_line(
                    f"Cannot cast scalar from {value.dtype!r} to {dtype!r} according to the "
                    "rule 'same_kind'"
                )
            )
        if value.ndim != 0:
            raise NotImplementedError(
                at_user_line(
                    "np.nan_to_num with a traced array as nan=/posinf=/neginf= is not "
                    "supported: pass a scalar"
                )
            )
        return primitives.cast(value, dtype), False
    holder = np.zeros((), dtype)
    try:
        np.copyto(holder, value, casting="same_kind")
    except (TypeError, ValueError, OverflowError) as error:
        raise type(error)(at_user_line(str(error))) from None
    return primitives.constant(holder), bool(np.isfinite(holder))


def _fixed(part: Tensor, nan: object, posinf: object, neginf: object) -> tuple[Tensor, bool]:
    """One real part with NaN and infinities replaced, and whether the result is finite."""
    info = np.finfo(part.dtype)
    nan_value, finite_nan = _replacement(nan, 0.0, part.dtype)
    high, finite_high = _replacement(posinf, info.max, part.dtype)
    low, finite_low = _replacement(neginf, info.min, part.dtype)
    result = dispatched(np.where(np.isnan(part), nan_value, part))
    result = dispatched(np.where(np.equal(part, np.inf), high, result))
    result = dispatched(np.where(np.equal(part, -np.inf), low, result))
    return primitives.cast(result, part.dtype), finite_nan and finite_high and finite_low


def _from_parts(re: Tensor, im: Tensor, dtype: np.dtype, im_finite: bool) -> Tensor:
    """The complex array of `dtype` with parts exactly `re` and `im` (see the module
    docstring): conj(re + 0j) - w, with w = (+0, -im)."""
    w = dispatched(np.multiply(primitives.cast(im, dtype), complex(-0.0, -1.0)))
    if not im_finite:  # fma(inf, -0, 0) is NaN: take (0, -im) from constants there
        special = primitives.constant(np.array(complex(0.0, np.nan), dtype))
        for value in (np.inf, -np.inf):
            here = dispatched(np.equal(im, value))
            special = dispatched(
                np.where(here, primitives.constant(np.array(complex(0.0, -value), dtype)), special)
            )
        w = dispatched(np.where(np.isfinite(im), w, special))
    return dispatched(np.subtract(np.conjugate(primitives.cast(re, dtype)), w))


@implements(np.nan_to_num)
def nan_to_num(
    x: object, copy: bool = True, nan: object = 0.0, posinf: object = None, neginf: object = None
) -> Tensor:
    array = asarray(x)
    kind = array.dtype.kind
    if kind not in "fc":
        return _new_array(array) if copy and array is x else array  # x itself if not copy
    if kind == "c":
        re, re_finite = _fixed(dispatched(np.real(array)), nan, posinf, neginf)
        im, im_finite = _fixed(dispatched(np.imag(array)), nan, posinf, neginf)
        result = _from_parts(re, im, array.dtype, im_finite)
    else:
        result, _ = _fixed(array, nan, posinf, neginf)
    if copy or not isinstance(x, Tensor):
        return result
    x[...] = result  # NumPy replaces the values in place and returns the array itself
    return x


def _new_array(x: Tensor) -> Tensor:
    return Tensor(x.value, x.dims)


@implements(np.sinc)
def sinc(x: object) -> Tensor:
    array = asarray(x)
    if array.dtype.kind == "c":
        raise TypeError(
            at_user_line(
                "np.sinc of complex numbers is not supported by tracejit (np.sin of complex "
                "numbers is not staged)"
            )
        )
    y = dispatched(np.multiply(np.pi, array))
    eps: Any = np.finfo(y.dtype).eps if y.dtype.kind == "f" else 1e-20
    y = dispatched(np.where(np.not_equal(y, 0), y, eps))
    return dispatched(np.divide(np.sin(y), y))
