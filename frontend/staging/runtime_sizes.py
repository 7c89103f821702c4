"""Sizes known only at run time, as users see them: 0-d int64 tensors.

Inside tracejit a dim unknown at trace time is `None` in `Tensor.shape` (and a source in
`Tensor.dims`, frontend/staging/dims.py); much of the frontend tests for that `None`. The user's
code sees a number instead, as NumPy code expects: `x.shape[k]`, `x.size`, `np.shape(x)`,
`np.size(x)` and (in code AutoGraph converted) `len(x)` give, for a dim unknown at trace
time, a 0-d int64 tensor holding its size at run time, like TF's `tf.shape(x)[k]`. It is
weakly typed (it stands for the Python int NumPy gives: `x.sum() / idx.size` keeps
`x`'s float32), works in arithmetic and comparisons, as a `range`/`tj.range` bound (a
staged loop), as an index or slice bound, and is returned as an int64 scalar.

Which one a `.shape` access gets depends on who reads it (`Tensor.shape`): tracejit's own
code (and NumPy's) the static tuple with `None`, any other code the run-time sizes. A
run-time size remembers which dim it measures (`dim_of`), so passing it back as a size
(`x.reshape(x.shape[0], -1)`, `np.zeros(x.shape)`, `np.broadcast_to(v, x.shape)`) means
that dim, not a value to read; arithmetic on it gives a plain tensor.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

from tracejit.frontend.staging.source_location import _SKIPPED_DIRS, _SKIPPED_FILES

_INTERNAL: dict[str, bool] = {}


def read_by_user(depth: int) -> bool:
    """Whether the code `depth` frames up (1: the caller's caller) is not tracejit's own
    or NumPy's: it gets run-time sizes for unknown dims."""
    filename = sys._getframe(depth + 1).f_code.co_filename
    internal = _INTERNAL.get(filename)
    if internal is None:
        path = os.path.abspath(filename)
        internal = path.startswith(_SKIPPED_DIRS) or path in _SKIPPED_FILES
        _INTERNAL[filename] = internal
    return not internal


def dim_size(x: Any, axis: int) -> Any:
    """The size of dim `axis` of the tensor `x`: an int when known at trace time, else a
    weakly typed 0-d int64 tensor holding it at run time."""
    size = x._shape[axis]
    if size is not None:
        return size
    from tracejit.frontend.staging import primitives
    from tracejit.frontend.staging.tensor import Tensor

    dim = x.dims[axis]
    one = primitives.constant(np.asarray(1, np.int64))
    # The count of a broadcast 1: the only way to make an index a tensor in the tj dialect
    # today (fusion makes it one loop of additions; a reshape or creation from this size
    # reads `dim_of` instead, and the sum is then dead and removed).
    ones = primitives.broadcast_to(one, (dim,), witnesses={0: (x.value, axis)})
    count = primitives.reduce("sum", ones, [0])
    size_tensor = Tensor(count.value, dims=(), weak=True)
    size_tensor.dim_of = (dim, x.value, axis)
    from tracejit.frontend.staging.tracing import current_trace

    current_trace().measured_sizes[count.value] = size_tensor.dim_of
    return size_tensor


def shape(x: Any) -> tuple:
    """`x.shape` as users see it (run-time sizes for dims unknown at trace time)."""
    return tuple(dim_size(x, axis) for axis in range(x.ndim))


def size(x: Any) -> Any:
    """`x.size` as users see it: an int, or a run-time int64 tensor."""
    known = int(np.prod([d for d in x._shape if d is not None], dtype=np.int64))
    if None not in x._shape or known == 0:
        return known
    total: Any = None if known == 1 else known
    for axis, entry in enumerate(x._shape):
        if entry is None:
            measured = dim_size(x, axis)
            total = measured if total is None else total * measured
    return total


def dim_of(value: Any) -> tuple | None:
    """(dim, tensor value, axis) of a run-time size `x.shape[k]` as given to the user, or
    of arithmetic that gives it back (`(n + 1) - 1`, `len(x) + 2 - 2`)."""
    from tracejit.frontend.staging.slice_bounds import offset_form
    from tracejit.frontend.staging.tensor import Tensor
    from tracejit.frontend.staging.tracing import current_trace, is_tracing

    if not isinstance(value, Tensor):
        return None
    if value.dim_of is not None or not is_tracing() or value.ndim:
        return value.dim_of
    base, offset = offset_form(value)
    return current_trace().measured_sizes.get(base) if offset == 0 else None


def sizes_to_dims(shape: object) -> tuple[list, dict] | None:
    """A shape argument holding run-time sizes (`np.zeros(x.shape)`) as (dims, witnesses)
    for `primitives.broadcast_to`; None if it holds none."""
    entries = list(shape) if isinstance(shape, tuple | list) else [shape]
    if not any(dim_of(e) is not None or _computed_size(e) for e in entries):
        return None
    dims: list = []
    witnesses: dict = {}
    for position, entry in enumerate(entries):
        measured = dim_of(entry)
        if measured is not None:
            dims.append(measured[0])
            witnesses[position] = measured[1:]
        elif _computed_size(entry):
            dims.append(length_dim(entry))
        else:
            dims.append(entry)
    return dims, witnesses


def _computed_size(entry: object) -> bool:
    """A size computed at run time (`n - 1`, `indptr[-1]`): a 0-d integer tensor."""
    from tracejit.frontend.staging.tensor import Tensor

    return isinstance(entry, Tensor) and entry.ndim == 0 and entry.dtype.kind in "iu"


def length_dim(size: Any) -> Any:
    """The dim a run-time size gives (`SliceLength`: the same for the same value and offset,
    `n - 1` twice); the kernel checks it is not negative, as NumPy does."""
    from tracejit.frontend.staging import primitives
    from tracejit.frontend.staging.dims import SliceLength
    from tracejit.frontend.staging.slice_bounds import index_of, offset_form
    from tracejit.frontend.staging.source_location import at_user_line
    from tracejit.frontend.staging.tensor import dispatched

    primitives.assert_true(
        dispatched(np.greater_equal(size, 0)),
        at_user_line("ValueError: negative dimensions are not allowed"),
    )
    return SliceLength(index_of(size), ("size", *offset_form(size)))
