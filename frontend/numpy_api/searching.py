"""Binary searches in sorted arrays: `np.searchsorted`, `np.digitize`, `np.interp`.

Each stages `tj.search_sorted` (ir/search_sorted.py: one binary search per value, in NumPy's
order, NaN last) on both operands cast to their common dtype, as NumPy does, and composes
the rest from element-wise ops and gathers:

    digitize(x, bins)        searchsorted(bins, x, "right")   (increasing bins)
                             len(bins) - searchsorted(bins[::-1], x, "right")   (decreasing)
    interp(x, xp, fp)        j = searchsorted(xp, x, "right") - 1, then NumPy's
                             compiled_base.c arithmetic on xp[j], xp[j + 1], fp[j], fp[j + 1]

Bins whose order is known only at run time are checked by the kernel (ValueError, as NumPy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.promotion import weak_result_type
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import tensor_of
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.frontend.staging.tracing import emit

# NumPy's stubs do not model __array_function__: np.<f> of Tensors below is a Tensor.


def search(sorted: Tensor, values: Tensor, side: str) -> Tensor:
    """`np.searchsorted(sorted, values, side)` for a 1-d `sorted` of `values`' dtype."""
    from tracejit.ir.search_sorted import SearchSortedOp

    op = SearchSortedOp(side, sorted.value, values.value)
    return Tensor(emit(op).result, dims=values.dims)


def _common(a: object, v: object) -> tuple[Tensor, Tensor]:
    """`a` and `v` as Tensors of their common dtype (Python numbers weak, NEP 50)."""
    dtype = weak_result_type(a, v)
    if dtype.kind == "c":
        raise NotImplementedError(at_user_line("searching complex values is not supported"))
    return primitives.cast(tensor_of(a), dtype), primitives.cast(tensor_of(v), dtype)


def _side(side: object) -> str:
    if side not in ("left", "right"):
        raise ValueError(at_user_line(f"side must be 'left' or 'right' (got {side!r})"))
    return str(side)


@implements(np.searchsorted)
def searchsorted(a: object, v: object, side: str = "left", sorter: object = None) -> Tensor:
    side = _side(side)
    if tensor_of(a).ndim != 1:
        raise ValueError(at_user_line("object too deep for desired array (a must be 1-d)"))
    if sorter is not None:
        order = tensor_of(sorter)
        if order.dtype.kind not in "iu":
            raise TypeError(at_user_line("sorter must only contain integers"))
        a = primitives.gather(
            tensor_of(a), order, 0, at_user_line("ValueError: Sorter index out of range.")
        )
    a, v = _common(a, v)
    return search(a, v, side)


@implements(np.digitize)
def digitize(x: object, bins: object, right: bool = False) -> Tensor:
    edges = tensor_of(bins)
    if tensor_of(x).dtype.kind == "c":
        raise TypeError(at_user_line("x may not be complex"))
    if edges.ndim != 1:
        raise ValueError(at_user_line("object too deep for desired array"))
    side = "left" if right else "right"
    edges, values = _common(edges, x)
    increasing = _monotonic(edges)
    if isinstance(increasing, bool):  # bins known at trace time
        if increasing:
            return search(edges, values, side)
        return _count(edges) - search(_reversed(edges), values, side)
    rising = search(edges, values, side)
    falling = _count(edges) - search(_reversed(edges), values, side)
    return dispatched(np.where(increasing, rising, falling))


def _reversed(x: Tensor) -> Tensor:
    return dispatched(x[::-1])


def _count(x: Tensor) -> Any:
    """len(x) as an intp: a number, or a 0-d tensor for a length known at run time."""
    if x.shape[0] is not None:
        return np.intp(x.shape[0])
    return dispatched(np.size(x))


def _monotonic(edges: Tensor) -> bool | Tensor:
    """True for increasing bins, False for decreasing ones, (NumPy's ValueError for
    neither); for bins known only at run time a 0-d bool tensor, checked by the kernel."""
    from tracejit.ir.folding import constant_value

    known = constant_value(edges.value)
    message = "bins must be monotonically increasing or decreasing"
    if known is not None:
        up, down = np.all(known[:-1] <= known[1:]), np.all(known[:-1] >= known[1:])
        if not (up or down):
            raise ValueError(at_user_line(message))
        return bool(up)
    rising = dispatched(np.all(edges[:-1] <= edges[1:]))
    falling = dispatched(np.all(edges[:-1] >= edges[1:]))
    primitives.assert_true(dispatched(rising | falling), f"ValueError: {at_user_line(message)}")
    return rising


@implements(np.interp)
def interp(
    x: object, xp: object, fp: object, left: object = None, right: object = None,
    period: object = None,
) -> Tensor:  # fmt: skip
    if period is not None:
        raise NotImplementedError(
            at_user_line(
                "np.interp(..., period=...) is not supported by tracejit; wrap the call in "
                "tj.py_function, or unwrap the period first: x % period on sorted xp % period"
            )
        )
    points, samples = tensor_of(xp), tensor_of(fp)
    if points.dtype.kind == "c" or samples.dtype.kind == "c" or tensor_of(x).dtype.kind == "c":
        raise NotImplementedError(at_user_line("np.interp of complex values is not supported"))
    if points.ndim != 1 or samples.ndim != 1:
        raise ValueError(at_user_line("object too deep for desired array"))
    if points.shape[0] == 0 or samples.shape[0] == 0:
        raise ValueError(at_user_line("array of sample points is empty"))
    if points.shape[0] != samples.shape[0]:
        raise ValueError(at_user_line("fp and xp are not of the same length."))
    f64 = np.dtype(np.float64)
    xs = primitives.cast(tensor_of(x), f64)
    xp_, fp_ = primitives.cast(points, f64), primitives.cast(samples, f64)
    return _interpolate(xs, xp_, fp_, left, right)


def _interpolate(x: Tensor, xp: Tensor, fp: Tensor, left: object, right: object) -> Tensor:
    """NumPy's arr_interp (compiled_base.c), element by element."""
    below = fp[0] if left is None else _float(left)
    above = fp[-1] if right is None else _float(right)
    if xp.shape[0] == 1:  # NumPy's one-point rule: no NaN test, x == xp[0] gives fp[0]
        return dispatched(np.where(x < xp[0], below, np.where(x > xp[0], above, fp[0])))
    n = _count(xp)
    last = dispatched(n - 1)
    j = dispatched(search(xp, x, "right") - 1)  # xp[j] <= x < xp[j + 1]
    lo = dispatched(np.clip(j, 0, last))
    hi = dispatched(np.minimum(lo + 1, last))
    message = at_user_line("IndexError: np.interp position out of range")
    x_lo, x_hi = (primitives.gather(xp, k, 0, message) for k in (lo, hi))
    f_lo, f_hi = (primitives.gather(fp, k, 0, message) for k in (lo, hi))
    slope = dispatched((f_hi - f_lo) / (x_hi - x_lo))
    forward = dispatched(slope * (x - x_lo) + f_lo)
    backward = dispatched(slope * (x - x_hi) + f_hi)
    flat = dispatched(np.isnan(backward) & (f_lo == f_hi))
    inner = np.where(np.isnan(forward), np.where(flat, f_lo, backward), forward)
    inner = np.where((j == last) | (x_lo == x), f_lo, inner)
    result = np.where(j < 0, below, np.where(x > xp[-1], above, inner))
    return dispatched(np.where(np.isnan(x), x, result))


def _float(value: object) -> Tensor:
    return primitives.cast(tensor_of(value), np.dtype(np.float64))
