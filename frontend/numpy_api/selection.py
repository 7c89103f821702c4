"""Picking elements by conditions and by indices: `np.select` and `np.take_along_axis`,
composed as NumPy composes them (a chain of `np.where`; a fancy index of `arange`s).

`np.select`'s result dtype is NumPy's `result_type` of the choices and the default (Python
numbers weak, NEP 50), and the first true condition wins, as in NumPy.
`np.take_along_axis` indexes with `indices` along `axis` and an `arange` along every other
axis (their lengths must be known at trace time); an index out of range raises IndexError
when the function runs, as NumPy's does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import asarray
from tracejit.frontend.numpy_api.promotion import as_tensor, weak_result_type
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import normalize_axis
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched

_PYTHON_NUMBERS = (int, float, complex)



def _choice(x: object) -> Any:
    """NumPy keeps Python numbers as they are (weak) and makes the rest arrays."""
    return x if type(x) in _PYTHON_NUMBERS else asarray(x)


@implements(np.select)
def select(condlist: Any, choicelist: Any, default: object = 0) -> Tensor:
    if len(condlist) != len(choicelist):
        raise ValueError(at_user_line("list of cases must be same length as list of conditions"))
    if len(condlist) == 0:
        raise ValueError(at_user_line("select with an empty condition list is not possible"))
    choices = [_choice(c) for c in choicelist]
    fallback = _choice(default)
    try:
        dtype = weak_result_type(*choices, fallback)
    except TypeError as error:
        raise TypeError(
            at_user_line(f"Choicelist and default value do not have a common dtype: {error}")
        ) from None
    conditions = [asarray(c) for c in condlist]
    for i, condition in enumerate(conditions):
        if condition.dtype != np.bool_:
            raise TypeError(
                at_user_line(f"invalid entry {i} in condlist: should be boolean ndarray")
            )
    branches = [as_tensor(c, dtype) for c in choices]
    result = as_tensor(fallback, dtype)  # (np.where broadcasts all of them, as NumPy does)
    for condition, branch in zip(reversed(conditions), reversed(branches), strict=True):
        result = dispatched(np.where(condition, branch, result))  # the first true one last
    return result


@implements(np.take_along_axis)
def take_along_axis(arr: object, indices: object, axis: Any = -1) -> Tensor:
    x, index = asarray(arr), asarray(indices)
    if axis is None:
        if index.ndim != 1:
            raise ValueError(
                at_user_line("when axis=None, `indices` must have a single dimension.")
            )
        x, axis = dispatched(np.ravel(x)), 0
    else:
        axis = normalize_axis(axis, x.ndim)
    if index.dtype.kind not in "iu":
        raise IndexError(at_user_line("`indices` must be an integer array"))
    if x.ndim != index.ndim:
        raise ValueError(
            at_user_line("`indices` and `arr` must have the same number of dimensions")
        )
    fancy: list[Any] = []
    for d, n in enumerate(x.shape):
        if d == axis:
            fancy.append(index)
            continue
        if n is None:
            raise NotImplementedError(
                at_user_line(
                    "np.take_along_axis of an array with a dim known only at run time off the "
                    "axis is not supported"
                )
            )
        shape = [1] * x.ndim
        shape[d] = n
        fancy.append(np.arange(n).reshape(shape))
    return x[tuple(fancy)]
