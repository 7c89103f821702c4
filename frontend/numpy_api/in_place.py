"""NumPy functions that change an array in place: `np.copyto`, `np.put`, `np.fill_diagonal`.

Each is an assignment into a traced array (frontend/staging/views.py), so it follows the same
rules as `a[key] = v`: the array and every view of it see the change, and a written
argument changes the caller's array.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import positions_along, tensor_of
from tracejit.frontend.staging import primitives, views
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched


def _target(fn: Any, array: Any) -> Tensor:
    if not isinstance(array, Tensor):
        raise TypeError(
            at_user_line(
                f"np.{fn.__name__} writes into its first argument, which must be a traced array "
                f"(an argument, or an array made inside the function), got {type(array).__name__}"
            )
        )
    return array


@implements(np.copyto)
def copyto(dst: object, src: object, casting: Any = "same_kind", where: Any = True) -> None:
    target = _target(np.copyto, dst)
    source = tensor_of(src)
    if not np.can_cast(source.dtype, target.dtype, casting):
        raise TypeError(
            at_user_line(
                f"Cannot cast array data from {source.dtype!r} to {target.dtype!r} according "
                f"to the rule {casting!r} (NumPy raises here too)"
            )
        )
    if where is not True:
        source = dispatched(np.where(where, source, target))
    target[...] = source


@implements(np.put)
def put(a: object, ind: object, v: object, mode: str = "raise") -> None:
    if mode != "raise":
        raise NotImplementedError(at_user_line("np.put with mode other than 'raise'"))
    target = _target(np.put, a)
    # np.put writes the array in C order whatever its layout (it is not a reshape)
    flat = views.reshaped(target, primitives.reshape(target, [target.size]), any_layout=True)
    indices = tensor_of(ind).reshape(-1)
    values = tensor_of(v).reshape(-1)
    if values.size not in (1, indices.size):
        raise NotImplementedError(
            at_user_line("np.put with fewer values than indices (NumPy repeats them) ")
        )
    flat[indices] = values if values.size == indices.size else values.reshape(())


@implements(np.fill_diagonal)
def fill_diagonal(a: object, val: object, wrap: bool = False) -> None:
    target = _target(np.fill_diagonal, a)
    if target.ndim < 2 or (target.ndim > 2 and len(set(target.shape)) != 1):
        raise ValueError(at_user_line("All dimensions of input must be of equal length"))
    if wrap or target.ndim > 2:
        raise NotImplementedError(at_user_line("np.fill_diagonal with wrap=True or ndim > 2"))
    if None in target.shape:
        value = tensor_of(val)
        if value.size != 1:
            raise NotImplementedError(
                at_user_line(
                    "np.fill_diagonal of several values on an array with dims unknown at trace "
                    "time (None) is not supported: its diagonal's length is only known when "
                    "the kernel runs; give one value, or trace with static shapes"
                )
            )
        # where row == column: the diagonal, min(n, m) long, as NumPy without wrap
        on = np.equal(positions_along(target, 0)[:, None], positions_along(target, 1)[None, :])
        one = primitives.cast(primitives.reshape(value, []), target.dtype)
        target[...] = dispatched(np.where(on, one, target))
        return
    count = min(d for d in target.shape if d is not None)  # all static (checked above)
    rows = np.arange(count)
    target[rows, rows] = val
