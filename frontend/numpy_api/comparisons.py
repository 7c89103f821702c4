"""`np.isclose` and `np.allclose`, as NumPy 2 composes them:
`|x - y| <= atol + rtol * |y|` where `y` is finite, or `x == y` (equal infinities), and with
`equal_nan=True` also where both are NaN. `y` is taken in an inexact dtype first
(`np.result_type(y, 1.0)`), Python numbers stay weak (NEP 50), so float32 arrays compare in
float32 as NumPy's do.

`np.allclose` returns a Python bool in NumPy; in a trace it is a 0-d bool tensor (its value
is known when the function runs), which works as the condition of a staged `if`/`while`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api import reductions
from tracejit.frontend.numpy_api.construction import array_of, contains_tensor
from tracejit.frontend.numpy_api.promotion import weak_result_type
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.frontend.staging.trace_warnings import warn_at_user_line

_PYTHON_NUMBERS = (int, float, complex)


def _operand(value: object) -> Any:
    """NumPy's "all but Python scalars into arrays": a Tensor, a NumPy array, or the number."""
    if (
        isinstance(value, Tensor)
        or isinstance(value, _PYTHON_NUMBERS)
        and not isinstance(value, np.generic)
    ):
        return value
    if contains_tensor(value):
        return array_of(value)
    return np.asanyarray(value)


def _check_tolerance(value: Any) -> None:
    """NumPy warns about a NaN or infinite tolerance (here once, while tracing); a traced
    tolerance is taken as given."""
    if isinstance(value, Tensor):
        return
    if not np.all(np.isfinite(value)):
        warn_at_user_line(f"One of rtol or atol is not valid: {value!r}", RuntimeWarning)


@implements(np.isclose)
def isclose(
    a: object, b: object, rtol: object = 1.0e-5, atol: object = 1.0e-8, equal_nan: bool = False
) -> Tensor:
    x, y, absolute, relative = (_operand(v) for v in (a, b, atol, rtol))
    _check_tolerance(absolute)
    _check_tolerance(relative)
    dtype = getattr(y, "dtype", None)
    if dtype is not None:
        if dtype.kind == "m":
            raise TypeError(at_user_line("np.isclose of timedeltas is not supported"))
        inexact = weak_result_type(y, 1.0)
        y = primitives.cast(y, inexact) if isinstance(y, Tensor) else y.astype(inexact)
    elif isinstance(y, int):
        y = float(y)
    close = np.less_equal(
        np.abs(np.subtract(x, y)), np.add(absolute, np.multiply(relative, np.abs(y)))
    )
    result = dispatched(np.logical_or(np.logical_and(close, np.isfinite(y)), np.equal(x, y)))
    if equal_nan:
        both = np.logical_and(np.isnan(x), np.isnan(y))
        result = dispatched(np.logical_or(result, both))
    if not isinstance(result, Tensor):  # no traced operand reached it (a traced tolerance)
        result = primitives.constant(np.asarray(result))
    return result


@implements(np.allclose)
def allclose(
    a: object, b: object, rtol: object = 1.0e-5, atol: object = 1.0e-8, equal_nan: bool = False
) -> Tensor:
    """A 0-d bool tensor (NumPy: a Python bool)."""
    return reductions.all_(isclose(a, b, rtol, atol, equal_nan))
