"""`np.roll`: shift elements along axes, those pushed past the end coming back first.

NumPy's algorithm: `axis=None` rolls the flattened array and restores the shape; else
`shift` and `axis` are broadcast against each other (`np.roll(x, (1, 2), axis=(0, 0))`
rolls axis 0 by 3) and each axis is rolled by its total shift modulo its length. A shift
known at trace time (Python or NumPy ints; floats are truncated by `int()` as in NumPy)
becomes two slices and a concat:

    np.roll(x, 2) of x = [a, b, c, d, e]  ->  concat(x[3:], x[:3]) = [d, e, a, b, c]

A traced 0-d integer shift, or a dim whose size only the kernel knows (an input signature
with None), makes a gather of the positions `(arange(n) - shift) % n` instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.masks import merge_dims
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import normalize_axis, positions_along
from tracejit.frontend.staging import primitives, runtime_sizes
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched

# An axis's total shift: an int in [0, n), or a 0-d int64 tensor holding one.
Offset = int | Tensor


@implements(np.roll)
def roll(a: object, shift: object, axis: object = None) -> Tensor:
    x = array_of(a)
    if axis is None:
        flat = roll(merge_dims(x, 0, x.ndim), shift, 0)
        return primitives.reshape(flat, x.dims)
    axes = (axis,) if not isinstance(axis, Sequence) else tuple(axis)
    axes = tuple(normalize_axis(ax, x.ndim) for ax in axes)  # repeats are allowed
    offsets: dict[int, Offset] = {}
    for sh, ax in _pairs(shift, axes):
        size = runtime_sizes.dim_size(x, ax)  # an int, or a 0-d tensor the kernel computes
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


def _offset(shift: Any, size: int | Tensor) -> Offset:
    """`shift` modulo `size` (NumPy's `int(shift) % (size or 1)`)."""
    if not isinstance(shift, Tensor) and isinstance(size, int):
        return int(shift) % (size or 1)
    if not isinstance(shift, Tensor):
        return dispatched(np.remainder(int(shift), _at_least_one(size)))
    if shift.ndim != 0 or shift.dtype.kind not in "biu":
        raise TypeError(
            at_user_line(
                f"np.roll: a traced shift must be a 0-d integer tensor, not one of shape "
                f"{shift.shape} and dtype {shift.dtype} (use .astype(np.int64) for int())"
            )
        )
    # in the shift's own signedness, so that no value wraps: uint64 stays unsigned
    wide = primitives.cast(shift, np.dtype(np.uint64 if shift.dtype.kind == "u" else np.int64))
    reduced = dispatched(np.remainder(wide, _at_least_one(size)))
    return primitives.cast(reduced, np.dtype(np.int64))


def _at_least_one(size: int | Tensor) -> int | Tensor:
    return (size or 1) if isinstance(size, int) else dispatched(np.maximum(size, 1))


def _add(total: Offset, offset: Offset, size: int | Tensor) -> Offset:
    if isinstance(total, int) and isinstance(offset, int) and isinstance(size, int):
        return (total + offset) % (size or 1)
    return dispatched(np.remainder(np.add(total, offset), _at_least_one(size)))


def _roll_axis(x: Tensor, axis: int, offset: Offset) -> Tensor:
    size = x.shape[axis]
    if isinstance(offset, Tensor) or None in x.shape:  # the slices below need every size
        if size == 0:
            return x
        n = _at_least_one(runtime_sizes.dim_size(x, axis))
        moved = np.subtract(positions_along(x, axis), offset)
        positions = dispatched(np.remainder(moved, n))  # in [0, n): no check needed
        return primitives.gather(x, positions, axis, "IndexError: np.roll position",
                                 in_bounds=True)  # fmt: skip
    if offset == 0:
        return x
    assert size is not None  # every size is known here
    tail = _part(x, axis, size - offset, offset)  # the last `offset` elements come first
    head = _part(x, axis, 0, size - offset)
    return primitives.concat([tail, head], axis)


def _part(x: Tensor, axis: int, start: int, count: int) -> Tensor:
    """`count` elements of `x` from `start` along `axis` (all of the other axes)."""
    starts = [start if d == axis else 0 for d in range(x.ndim)]
    shape = [d for d in x.shape if d is not None]  # all known (`_roll_axis`)
    counts = [count if d == axis else shape[d] for d in range(x.ndim)]
    return primitives.strided_slice(x, starts, [1] * x.ndim, counts)
