"""`np.roll`: shift elements along axes, those pushed past the end coming back first.

NumPy's algorithm: `axis=None` rolls the flattened array and restores the shape; else
`shift` and `axis` are broadcast against each other (`np.roll(x, (1, 2), axis=(0, 0))`
rolls axis 0 by 3) and each axis is rolled by its total shift modulo its length. A shift
known at trace time (Python or NumPy ints; floats are truncated by `int()` as in NumPy)
becomes two slices and a concat:

    np.roll(x, 2) of x = [a, b, c, d, e]  ->  concat(x[3:], x[:3]) = [d, e, a, b, c]

A traced 0-d integer shift becomes a gather of the positions `(arange(n) - shift) % n`.
The array's shape must be known at trace time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import normalize_axis, require_static
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched

# An axis's total shift: an int in [0, n), or a 0-d int64 tensor holding one.
Offset = int | Tensor


@implements(np.roll)
def roll(a: object, shift: object, axis: object = None) -> Tensor:
    x = require_static(np.roll, array_of(a))
    if axis is None:
        flat = roll(primitives.reshape(x, [x.size]), shift, 0)
        return primitives.reshape(flat, x.shape)
    axes = (axis,) if not isinstance(axis, Sequence) else tuple(axis)
    axes = tuple(normalize_axis(ax, x.ndim) for ax in axes)  # repeats are allowed
    offsets: dict[int, Offset] = {}
    for sh, ax in _pairs(shift, axes):
        size = x.shape[ax]
        assert size is not None  # require_static
        offsets[ax] = _add(offsets.get(ax, 0), _offset(sh, size), size)
    for ax, offset in offsets.items():
        x = _roll_axis(x, ax, offset)
    return x


def _pairs(shift: Any, axes: tuple[int, ...]) -> list[tuple[Any, int]]:
    """(shift, axis) pairs of `shift` broadcast against `axes`, as NumPy's `np.broadcast`."""
    if not _has_tensor(shift):
        try:
            broadcast = np.broadcast(shift, axes)
        except ValueError as error:
            raise ValueError(at_user_line(str(error))) from None
        if broadcast.ndim > 1:
            raise ValueError(at_user_line("'shift' and 'axis' should be scalars or 1D sequences"))
        return [(sh, int(ax)) for sh, ax in broadcast]
    shifts = list(shift) if isinstance(shift, list | tuple) else [shift]
    if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        raise ValueError(
            at_user_line(
                "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                f"between arg 0 with shape ({len(shifts)},) and arg 1 with shape ({len(axes)},)."
            )
        )
    count = max(len(shifts), len(axes))
    return [(shifts[i % len(shifts)], axes[i % len(axes)]) for i in range(count)]


def _has_tensor(x: object) -> bool:
    return isinstance(x, Tensor) or (
        isinstance(x, list | tuple) and any(isinstance(e, Tensor) for e in x)
    )


def _offset(shift: Any, size: int) -> Offset:
    """`shift` modulo `size` (NumPy's `int(shift) % (size or 1)`)."""
    if not isinstance(shift, Tensor):
        return int(shift) % (size or 1)
    if shift.ndim != 0 or shift.dtype.kind not in "biu":
        raise TypeError(
            at_user_line(
                f"np.roll: a traced shift must be a 0-d integer tensor, not one of shape "
                f"{shift.shape} and dtype {shift.dtype} (use .astype(np.int64) for int())"
            )
        )
    # in the shift's own signedness, so that no value wraps: uint64 stays unsigned
    wide = primitives.cast(shift, np.dtype(np.uint64 if shift.dtype.kind == "u" else np.int64))
    reduced = dispatched(np.remainder(wide, size or 1))
    return primitives.cast(reduced, np.dtype(np.int64))


def _add(total: Offset, offset: Offset, size: int) -> Offset:
    if isinstance(total, int) and isinstance(offset, int):
        return (total + offset) % (size or 1)
    return dispatched(np.remainder(np.add(total, offset), size or 1))


def _roll_axis(x: Tensor, axis: int, offset: Offset) -> Tensor:
    size = x.shape[axis]
    assert size is not None  # require_static
    if isinstance(offset, Tensor):
        if size == 0:
            return x
        positions = dispatched(np.remainder(np.subtract(np.arange(size), offset), size))
        return primitives.gather(x, positions, axis, "IndexError: np.roll position")
    if offset == 0:
        return x
    tail = _part(x, axis, size - offset, offset)  # the last `offset` elements come first
    head = _part(x, axis, 0, size - offset)
    return primitives.concat([tail, head], axis)


def _part(x: Tensor, axis: int, start: int, count: int) -> Tensor:
    """`count` elements of `x` from `start` along `axis` (all of the other axes)."""
    starts = [start if d == axis else 0 for d in range(x.ndim)]
    shape = [d for d in x.shape if d is not None]  # all known (require_static)
    counts = [count if d == axis else shape[d] for d in range(x.ndim)]
    return primitives.strided_slice(x, starts, [1] * x.ndim, counts)
