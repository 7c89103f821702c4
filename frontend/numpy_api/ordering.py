"""`np.partition`, `np.argpartition` and `np.lexsort`, from tracejit's stable sort
(sorting.py).

`np.partition(a, kth)` returns the array sorted along the axis, and `np.argpartition(a,
kth)` its stable sorting order: a sorted array is a valid partition for every `kth` (each
k-th element in its sorted place, none greater before it, none smaller after it), which is
all NumPy promises; NumPy's order of the other elements is unspecified (its introselect
leaves them in an order of its own), so compare the results as partitions, or sort them.
`kth` is checked as NumPy checks it (`kind` too); the sort costs O(n log n) per slice
where NumPy's selection is O(n).

`np.lexsort(keys, axis=-1)` is one stable argsort per key, the last key first (primary)
and each earlier key sorting the order found so far: NumPy's order exactly, ties kept in
the original order. Keys in a list work in converted code (AutoGraph, the default); with
`autograph=False` pass them as a tuple (or a 2-D array): NumPy converts a list itself.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.array_manipulation import UNKNOWN, known_value
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.selection import take_along_axis
from tracejit.frontend.numpy_api.shapes import normalize_axis, tensor_of
from tracejit.frontend.numpy_api.sorting import argsort, sort
from tracejit.frontend.staging import primitives, runtime_sizes
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched

_NUMPY_ERRORS = (IndexError, ValueError, TypeError)


def _check_kth(fn: Any, x: Tensor, kth: Any, axis: Any, kind: Any, order: Any) -> None:
    """NumPy's checks of `kth`, `axis`, `kind` and `order`, run by NumPy on a stand-in of
    the partitioned axis's length (dims of 1 elsewhere, no memory). For an axis whose
    length only the kernel knows, the kernel checks that each kth is in range."""
    kth = known_value(kth)
    if kth is UNKNOWN:
        raise NotImplementedError(
            at_user_line(
                f"np.{fn.__name__} with kth known only at run time is not supported: pass a "
                "Python int or a list of ints (or sort: np.sort(a) is a valid partition)"
            )
        )
    flat = axis is None
    shape = [x.size if None not in x.shape else None] if flat else list(x.shape)
    along = -1 if flat else axis
    unknown = _in_range(along, len(shape)) and shape[along] is None
    if unknown:  # long enough for every kth: the kernel checks the real length
        try:
            shape[along] = int(np.max(np.abs(np.asarray(kth, dtype=np.int64)))) + 1
        except (TypeError, ValueError, OverflowError):
            shape[along] = 1
    stand_in = np.broadcast_to(np.zeros((), np.int8), [1 if s is None else s for s in shape])
    try:
        fn(stand_in, kth, axis=along, kind=kind, order=order)
    except _NUMPY_ERRORS as error:
        raise type(error)(at_user_line(str(error))) from None
    if unknown:
        n = runtime_sizes.size(x) if flat else runtime_sizes.dim_size(x, int(along))
        for k in np.asarray(kth).reshape(-1).tolist():
            inside = np.logical_and(np.less_equal(-n, k), np.less(k, n))
            message = f"ValueError: kth(={k}) out of bounds (the length of the axis)"
            primitives.assert_true(dispatched(inside), at_user_line(message))


def _in_range(axis: Any, ndim: int) -> bool:
    try:
        return -ndim <= operator.index(axis) < ndim
    except TypeError:
        return False


@implements(np.partition)
def partition(a: object, kth: Any, axis: Any = -1, kind: Any = "introselect", order: Any = None):
    x = tensor_of(a)
    _check_kth(np.partition, x, kth, axis, kind, order)
    return sort(x, axis=axis)


@implements(np.argpartition)
def argpartition(a: object, kth: Any, axis: Any = -1, kind: Any = "introselect", order: Any = None):
    x = tensor_of(a)
    _check_kth(np.argpartition, x, kth, axis, kind, order)
    return argsort(x, axis=axis)


def _keys(keys: Any) -> list[Tensor]:
    if isinstance(keys, tuple | list):
        return [tensor_of(k) for k in keys]
    x = tensor_of(keys)
    if x.ndim == 0:
        raise TypeError(at_user_line("need sequence of keys with len > 0 in lexsort"))
    if x.shape[0] is None:
        raise NotImplementedError(
            at_user_line("np.lexsort of a key array whose number of keys is known only at run time")
        )
    return [x[i] for i in range(x.shape[0])]


@implements(np.lexsort)
def lexsort(keys: Any, axis: Any = -1) -> Tensor:
    tensors = _keys(keys)
    if not tensors:
        raise TypeError(at_user_line("need sequence of keys with len > 0 in lexsort"))
    if len({t.shape for t in tensors}) != 1:
        raise ValueError(at_user_line("all keys need to be the same shape"))
    first = tensors[0]  # the least significant key: sorted by first, stably by each later one
    if first.ndim == 0:  # NumPy: one element, at 0
        if axis not in (-1, 0):
            raise np.exceptions.AxisError(
                at_user_line(f"axis {axis} is out of bounds for array of dimension 0")
            )
        return primitives.constant(np.intp(0))
    axis = normalize_axis(axis, first.ndim)
    order = argsort(first, axis=axis)
    for key in tensors[1:]:
        in_order = take_along_axis(key, order, axis)
        order = take_along_axis(order, argsort(in_order, axis=axis), axis)
    return order
