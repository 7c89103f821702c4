"""NumPy's array manipulation functions composed from the shape ops and indexing:
`np.rot90`, `np.append`, `np.delete`, `np.insert`, `np.split`, `np.array_split`,
`np.hsplit`, `np.vsplit`, `np.dsplit`, `np.column_stack`, `np.dstack`, `np.block` and
`np.trim_zeros`.

Views where NumPy gives views: `np.rot90` is flips and a transpose of its argument, the
pieces of the splits are slices of it, and `np.trim_zeros` slices it (registry.py's
MAY_ALIAS), so writes through them reach the argument as in NumPy. The rest are new arrays.

`np.delete` and `np.insert` take `obj` known at trace time (a Python int, a slice, a list
or a NumPy array): the positions kept or filled are computed by NumPy itself on a stand-in
of the axis's length (so its checks and messages are NumPy's), and the result is one
gather along the axis. A traced `obj` is refused (its length would decide the shape).
`np.insert` along a dim known only at run time (or of values whose count along it is) takes
integer positions: NumPy's wrapping, range checks and stable placement are then computed
by the kernel, which gathers the array joined with the values.
`np.trim_zeros` slices with bounds computed by the kernel: the result's size is the data's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import contains_tensor
from tracejit.frontend.numpy_api.indexing import getitem
from tracejit.frontend.numpy_api.registry import implements, numpy_name
from tracejit.frontend.numpy_api.shapes import (
    flip,
    join,
    moveaxis,
    normalize_axes,
    normalize_axis,
    positions_along,
    require_static,
    reshape_tensor,
    tensor_of,
    transpose,
)
from tracejit.frontend.staging import primitives, runtime_sizes
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.ir.constant import ConstantOp

_NUMPY_ERRORS = (IndexError, ValueError, TypeError, OverflowError)


def _as_numpy(call: Callable[[], Any]) -> Any:
    """`call()` (NumPy on stand-ins), its errors raised at the user's line."""
    try:
        return call()
    except _NUMPY_ERRORS as error:
        raise type(error)(at_user_line(str(error))) from None


UNKNOWN = object()  # known_value's answer for a value only the kernel knows


def known_value(x: object) -> Any:
    """`x` as NumPy has it at trace time: itself when it holds no tensor; the array of a
    tensor that is a `tj.constant` (`np.zeros`/`np.ones`/`np.full` in converted code make
    those, to be writable: an array written since holds another value); UNKNOWN for a
    value only the kernel knows."""
    if isinstance(x, Tensor):
        owner = getattr(x.value, "owner", None)
        return owner.to_array() if isinstance(owner, ConstantOp) else UNKNOWN
    if isinstance(x, list | tuple) and contains_tensor(x):
        items = [known_value(e) for e in x]
        return UNKNOWN if any(e is UNKNOWN for e in items) else type(x)(items)
    return x


def _static_dim(fn: object, x: Tensor, axis: int) -> int:
    n = x.shape[axis]
    if n is None:
        raise NotImplementedError(
            at_user_line(f"{numpy_name(fn)} along a dim known only at run time is not supported")
        )
    return n


# --- rotation ------------------------------------------------------------------------------
@implements(np.rot90)
def rot90(m: object, k: Any = 1, axes: Any = (0, 1)) -> Tensor:
    """NumPy's flips and transpose: a view of `m`, as NumPy's."""
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError(at_user_line("len(axes) must be 2."))
    x = tensor_of(m)
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == x.ndim:
        raise ValueError(at_user_line("Axes must be different."))
    if any(a >= x.ndim or a < -x.ndim for a in axes):
        raise ValueError(at_user_line(f"Axes={axes} out of range for array of ndim={x.ndim}."))
    k %= 4
    if k == 0:
        return getitem(x, slice(None))
    if k == 2:
        return flip(flip(x, axes[0]), axes[1])
    permutation = list(range(x.ndim))
    permutation[axes[0]], permutation[axes[1]] = permutation[axes[1]], permutation[axes[0]]
    if k == 1:
        return transpose(flip(x, axes[1]), permutation)
    return flip(transpose(x, permutation), axes[1])


# --- appending, deleting, inserting ----------------------------------------------------------
def _flat(x: Tensor) -> Tensor:
    return x if x.ndim == 1 else reshape_tensor(x, -1)


@implements(np.append)
def append(arr: object, values: object, axis: Any = None) -> Tensor:
    x, v = tensor_of(arr), tensor_of(values)
    if axis is None:
        x, v, axis = _flat(x), _flat(v), 0
    return join(np.append, [x, v], axis)


def _axis_of(fn: object, arr: object, axis: Any) -> tuple[Tensor, int, int]:
    """`arr` as a tensor (flattened when `axis` is None), the axis and its length."""
    x = tensor_of(arr)
    if axis is None:
        x, axis = _flat(x), 0
    else:
        axis = normalize_axis(axis, x.ndim)
    return x, axis, _static_dim(fn, x, axis)


def _known_obj(fn: object, obj: object) -> Any:
    """`obj` known at trace time (refused otherwise)."""
    known = known_value(obj)
    if known is UNKNOWN:
        raise NotImplementedError(
            at_user_line(
                f"{numpy_name(fn)} with `obj` known only at run time is not supported (the "
                "result's shape would depend on it): pass a Python int, slice or list, or "
                "select with a boolean mask (`arr[keep]`)"
            )
        )
    return known


def _stand_in(n: int, ndim: int, axis: int) -> np.ndarray:
    """`arange(n)` along `axis` of an array with `ndim` dims of length 1 elsewhere."""
    return np.arange(n, dtype=np.intp).reshape([n if d == axis else 1 for d in range(ndim)])


def _take(x: Tensor, positions: np.ndarray, axis: int) -> Tensor:
    """`np.take(x, positions, axis)` for positions known at trace time (and in range)."""
    positions = np.asarray(positions, dtype=np.intp).reshape(-1)
    if positions.shape[0] == x.shape[axis] and (positions == np.arange(positions.size)).all():
        return x
    return primitives.gather(
        x, primitives.constant(positions), axis, "IndexError: index out of range"
    )


@implements(np.delete)
def delete(arr: object, obj: Any, axis: Any = None) -> Tensor:
    obj = _known_obj(np.delete, obj)
    x, axis, n = _axis_of(np.delete, arr, axis)
    stand_in = _stand_in(n, x.ndim, axis)
    kept = _as_numpy(lambda: np.delete(stand_in, obj, axis))
    return _take(x, kept, axis)


def _insert_values(values: object, dtype: np.dtype, ndmin: int) -> Tensor:
    """NumPy's `array(values, ndmin=ndmin, dtype=arr.dtype)` as a tensor."""
    if not contains_tensor(values):
        return primitives.constant(_as_numpy(lambda: np.array(values, dtype=dtype, ndmin=ndmin)))
    v = primitives.cast(tensor_of(values), dtype)
    if v.ndim < ndmin:
        v = primitives.reshape(v, (1,) * (ndmin - v.ndim) + tuple(v.dims))
    return v


def _insert_positions(obj: Any, n: int | None, ndim: int, axis: int) -> np.ndarray:
    """The positions `obj` names (NumPy's checks and messages, run on a stand-in of the
    axis). Along a dim known only at run time only integers: the stand-in is long enough for
    every one, the kernel checks their range."""
    if n is not None:
        stand_in = np.zeros([n if d == axis else 1 for d in range(ndim)], np.int8)
        _as_numpy(lambda: np.insert(stand_in, obj, 0, axis))  # NumPy's checks of obj
        if isinstance(obj, slice):
            return np.arange(*obj.indices(n), dtype=np.intp)
        given = np.array(obj)
        return np.flatnonzero(given) if given.dtype == bool else given
    indices = None if isinstance(obj, slice) else np.array(obj)
    if indices is None or indices.dtype.kind not in "iu" or indices.ndim > 1:
        long = _long_stand_in(indices, ndim, axis)
        _as_numpy(lambda: np.insert(long, obj, 0, axis))
        raise NotImplementedError(
            at_user_line(
                "np.insert along a dim known only at run time takes `obj` as an int or a "
                "list of ints (a slice or a boolean mask names positions that depend on the "
                "size): write np.arange(...) positions, or insert along a static dim"
            )
        )
    _as_numpy(lambda: np.insert(_long_stand_in(indices, ndim, axis), obj, 0, axis))
    return indices


def _long_stand_in(indices: np.ndarray | None, ndim: int, axis: int) -> np.ndarray:
    """A stand-in array long enough along `axis` for every position in `indices`: NumPy's
    checks of obj other than its range (which the kernel makes)."""
    longest = 1
    if indices is not None and indices.dtype.kind in "iuf" and indices.size:
        largest = np.abs(indices.astype(np.float64)).max()
        longest = int(min(largest, 2**20)) + 2 if np.isfinite(largest) else 1
    return np.zeros([longest if d == axis else 1 for d in range(ndim)], np.int8)


@implements(np.insert)
def insert(arr: object, obj: Any, values: object, axis: Any = None) -> Tensor:
    obj = _known_obj(np.insert, obj)
    x = tensor_of(arr)
    if axis is None:
        x, axis = _flat(x), 0
    else:
        axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    indices = _insert_positions(obj, n, x.ndim, axis)
    if indices.size == 1:
        v = _insert_values(values, x.dtype, x.ndim)
        if indices.ndim == 0:  # NumPy's a[:, i:i+1] = values, its first axis at `axis`
            v = moveaxis(v, 0, axis)
        count: Any = v.dims[axis]  # the values' own count (perhaps known only at run time)
    else:
        v = _insert_values(values, x.dtype, 0)
        count = len(indices)
    v = _broadcast_into(v, x, axis, count)
    if count == 0:  # nothing inserted (the values were still checked)
        return x
    joined = join(np.insert, [x, v], axis)
    if n is not None and isinstance(count, int):
        if indices.size == 1:
            index = int(indices.item())
            index += n if index < 0 else 0
            positions = np.concatenate(
                [np.arange(index), n + np.arange(count), np.arange(index, n)]
            )
        else:  # NumPy's stable placement of the new entries (its own computation)
            positions = np.insert(np.arange(n), indices.astype(np.intp), n + np.arange(count))
        return _take(joined, positions, axis)
    if indices.size == 1:
        sources = _block_sources(joined, x, v, axis, obj, int(indices.item()))
    else:
        sources = _scattered_sources(joined, x, axis, indices.astype(np.intp))
    return primitives.gather(joined, sources, axis, "IndexError: np.insert", in_bounds=True)


def _block_sources(joined: Tensor, x: Tensor, v: Tensor, axis: int, obj: Any, index: int) -> Tensor:
    """For each position of the result (x and then v along `axis` in `joined`), the
    position in `joined` it takes: x up to `index` (wrapped by x's run-time length n, as
    NumPy's, and checked to lie in [-n, n]), v's block, then the rest of x."""
    n, count = runtime_sizes.dim_size(x, axis), runtime_sizes.dim_size(v, axis)
    if not isinstance(n, int):
        primitives.assert_true(
            dispatched(np.greater_equal(n, abs(index))),
            at_user_line(
                f"IndexError: index {obj} is out of bounds for axis {axis} (its size, known "
                f"only at run time, is less than {abs(index)})"
            ),
        )
    at = np.clip(index + n if index < 0 else index, 0, n)  # (clipped: in range)
    p = positions_along(joined, axis)
    after = dispatched(np.where(np.less(p, at + count), n + p - at, p - count))
    return dispatched(np.where(np.less(p, at), p, after))


def _scattered_sources(joined: Tensor, x: Tensor, axis: int, indices: np.ndarray) -> Tensor:
    """NumPy's placement of values at several `indices`, computed by the kernel (the
    wrapping of negative ones, so their order, depends on x's length n): each is wrapped
    once by n, moved on by the number of values placed before it (a stable sort's rank),
    and wrapped again by the result's length (NumPy's `new[indices] = values`), which must
    hold it; then each position of the result takes its value (at n + j in `joined`) or the
    next element of x."""
    n = runtime_sizes.dim_size(x, axis)
    count = len(indices)
    total = n + count
    given = primitives.constant(indices)
    wrapped = dispatched(np.where(np.less(given, 0), given + n, given))
    earlier = primitives.constant(np.tri(count, k=-1, dtype=bool))  # [j, k]: k before j
    mine, others = wrapped[:, None], wrapped[None, :]
    before = np.logical_or(np.less(others, mine), np.logical_and(earlier, np.equal(others, mine)))
    placed = dispatched(np.add(wrapped, np.sum(before, axis=1)))
    inside = np.logical_and(np.greater_equal(placed, -total), np.less(placed, total))
    primitives.assert_true(
        dispatched(np.all(inside)),
        at_user_line(
            f"IndexError: an index of {indices.tolist()} is out of bounds for axis {axis} "
            "(with the values inserted before it; its size is known only at run time)"
        ),
    )
    final = dispatched(np.where(np.less(placed, 0), placed + total, placed))
    same = np.equal(final[:, None], final[None, :])
    distinct = np.logical_or(np.logical_not(same), np.eye(count, dtype=bool))
    primitives.assert_true(
        dispatched(np.all(distinct)),
        at_user_line(
            "ValueError: NumPy boolean array indexing assignment cannot assign the array's "
            f"values to the positions left: two of the indices {indices.tolist()} name the "
            "same position once wrapped"
        ),
    )
    p = positions_along(joined, axis)[:, None]
    hit = np.equal(p, final[None, :])
    earlier_values = np.sum(np.less(final[None, :], p), axis=1)
    sources = np.where(np.any(hit, axis=1), np.argmax(hit, axis=1) + n, p[:, 0] - earlier_values)
    return dispatched(np.clip(sources, 0, total - 1))


def _broadcast_into(v: Tensor, x: Tensor, axis: int, count: Any) -> Tensor:
    """`new[...] = v` broadcasting into x's shape with `count` along `axis`: v's leading
    dims of 1 beyond it dropped; a dim of v known only at run time must be the size it
    meets (checked by the caller, as where such dims meet elsewhere)."""
    from tracejit.frontend.staging.dims import require_equal
    from tracejit.frontend.staging.tracing import current_trace

    target = [count if d == axis else x.dims[d] for d in range(x.ndim)]
    while v.ndim > len(target) and v.shape[0] == 1:
        v = primitives.reshape(v, v.dims[1:])
    offset = len(target) - v.ndim
    pairs = list(zip(v.dims, target[offset:], strict=False))
    if v.ndim > len(target) or any(
        isinstance(s, int) and isinstance(t, int) and s not in (1, t) for s, t in pairs
    ):
        shape = ",".join(str(s) for s in v.shape)
        into = ",".join(str(t) if isinstance(t, int) else "?" for t in target)
        raise ValueError(
            at_user_line(
                f"could not broadcast input array from shape ({shape}) into shape ({into})"
            )
        )
    dims = list(target)
    witnesses = {d: (x.value, d) for d in range(x.ndim) if d != axis}
    for k, (s, t) in enumerate(pairs):
        if not isinstance(s, int):  # kept, and equal at run time to what it meets
            require_equal([s, t], current_trace().dim_constraints)
            dims[offset + k] = s
            witnesses[offset + k] = (v.value, k)
    return primitives.broadcast_to(v, dims, witnesses)


# --- splitting ---------------------------------------------------------------------------
def _pieces(x: Tensor, points: list, axis: int) -> list[Tensor]:
    """Slices of `x` between successive `points` along `axis`: views, as NumPy's."""
    before = (slice(None),) * axis
    bounds = zip(points[:-1], points[1:], strict=True)
    return [getitem(x, (*before, slice(start, stop))) for start, stop in bounds]


def _split(fn: object, ary: object, indices_or_sections: Any, axis: Any, equal: bool) -> list:
    x = tensor_of(ary)
    axis = normalize_axis(axis, x.ndim)
    indices_or_sections = known_value(indices_or_sections)
    if indices_or_sections is UNKNOWN:
        raise NotImplementedError(
            at_user_line(
                f"{numpy_name(fn)} with sections known only at run time is not supported: "
                "pass a Python int or a list of indices"
            )
        )
    try:
        points = [0, *list(indices_or_sections), None]
    except TypeError:
        n = _static_dim(fn, x, axis)
        if equal and n % indices_or_sections:  # (ZeroDivisionError for 0, as NumPy's)
            raise ValueError(
                at_user_line("array split does not result in an equal division")
            ) from None
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError(at_user_line("number sections must be larger than 0.")) from None
        each, extras = divmod(n, sections)
        sizes = [0] + extras * [each + 1] + (sections - extras) * [each]
        points = [int(p) for p in np.cumsum(sizes)]
    return _pieces(x, points, axis)


@implements(np.array_split)
def array_split(ary: object, indices_or_sections: Any, axis: Any = 0) -> list:
    return _split(np.array_split, ary, indices_or_sections, axis, equal=False)


@implements(np.split)
def split(ary: object, indices_or_sections: Any, axis: Any = 0) -> list:
    return _split(np.split, ary, indices_or_sections, axis, equal=True)


@implements(np.hsplit)
def hsplit(ary: object, indices_or_sections: Any) -> list:
    x = tensor_of(ary)
    if x.ndim == 0:
        raise ValueError(at_user_line("hsplit only works on arrays of 1 or more dimensions"))
    return _split(np.hsplit, x, indices_or_sections, 1 if x.ndim > 1 else 0, equal=True)


@implements(np.vsplit)
def vsplit(ary: object, indices_or_sections: Any) -> list:
    x = tensor_of(ary)
    if x.ndim < 2:
        raise ValueError(at_user_line("vsplit only works on arrays of 2 or more dimensions"))
    return _split(np.vsplit, x, indices_or_sections, 0, equal=True)


@implements(np.dsplit)
def dsplit(ary: object, indices_or_sections: Any) -> list:
    x = tensor_of(ary)
    if x.ndim < 3:
        raise ValueError(at_user_line("dsplit only works on arrays of 3 or more dimensions"))
    return _split(np.dsplit, x, indices_or_sections, 2, equal=True)


# --- stacking ----------------------------------------------------------------------------
@implements(np.column_stack)
def column_stack(tup: Any) -> Tensor:
    arrays = []
    for v in tup:
        a = tensor_of(v)
        if a.ndim < 2:  # NumPy's array(a, ndmin=2).T: () -> (1, 1), (n,) -> (n, 1)
            a = primitives.reshape(a, (*a.dims, 1) if a.ndim else (1, 1))
        arrays.append(a)
    return join(np.column_stack, arrays, 1)


def _at_least_3d(x: Tensor) -> Tensor:
    """NumPy's atleast_3d: () -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    if x.ndim == 0:
        return primitives.reshape(x, (1, 1, 1))
    if x.ndim == 1:
        return primitives.reshape(x, (1, x.dims[0], 1))
    if x.ndim == 2:
        return primitives.reshape(x, (*x.dims, 1))
    return x


@implements(np.dstack)
def dstack(tup: Any) -> Tensor:
    return join(np.dstack, [_at_least_3d(tensor_of(v)) for v in tup], 2)


def _stand_ins(arrays: object) -> Any:
    """`arrays` with each tensor replaced by a NumPy array of its shape and dtype (a
    broadcast zero, no memory), lists and tuples kept: for NumPy's own checks."""
    if isinstance(arrays, Tensor):
        require_static(np.block, arrays)
        return np.broadcast_to(np.zeros((), arrays.dtype), arrays.shape)  # type: ignore[arg-type]  # a static shape
    if isinstance(arrays, list):
        return [_stand_ins(a) for a in arrays]
    if isinstance(arrays, tuple):
        return tuple(_stand_ins(a) for a in arrays)
    return arrays


def _depth(arrays: object) -> int:
    return 1 + _depth(arrays[0]) if isinstance(arrays, list) else 0


def _blocked(arrays: object, depth: int, max_depth: int, ndim: int) -> Tensor:
    """NumPy's `_block`: the innermost lists joined along the last axis, the next ones
    along the one before, and so on; each array first given `ndim` dims."""
    if depth < max_depth:
        parts = [_blocked(a, depth + 1, max_depth, ndim) for a in arrays]  # type: ignore[attr-defined]  # a list here
        return join(np.block, parts, -(max_depth - depth))
    x = tensor_of(arrays)
    return primitives.reshape(x, (1,) * (ndim - x.ndim) + tuple(x.dims))


@implements(np.block)
def block(arrays: Any) -> Tensor:
    expected = _as_numpy(lambda: np.block(_stand_ins(arrays)))  # NumPy's checks and result type
    result = _blocked(arrays, 0, _depth(arrays), expected.ndim)
    return primitives.cast(result, expected.dtype)


# --- trimming ------------------------------------------------------------------------------
@implements(np.trim_zeros)
def trim_zeros(filt: object, trim: str = "fb", axis: Any = None) -> Tensor:
    """Slices of `filt` from its first to its last non-zero element along each axis (of
    any element across the other axes), bounds the kernel computes: a view of `filt`
    whose size is the data's, empty along every trimmed axis when all are zero."""
    x = tensor_of(filt)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(at_user_line(f"unexpected character(s) in `trim`: {trim!r}"))
    axes = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim)
    if not axes:
        return x
    nonzero = dispatched(np.not_equal(x, 0))
    found = dispatched(np.any(nonzero))
    key: list[object] = [slice(None)] * x.ndim
    for ax in axes:
        others = tuple(d for d in range(x.ndim) if d != ax)
        along = dispatched(np.any(nonzero, axis=others)) if others else nonzero
        start: Any = 0
        stop: Any = runtime_sizes.dim_size(x, ax)
        if "f" in trim:
            start = dispatched(np.where(found, np.argmax(along), 0))
        if "b" in trim:
            last = dispatched(np.subtract(stop, np.argmax(along[::-1])))
            stop = dispatched(np.where(found, last, 0))
        else:
            stop = dispatched(np.where(found, stop, 0))
        key[ax] = slice(start, stop)
    return getitem(x, tuple(key))
