"""`Tensor.__getitem__` and `np.take`: NumPy indexing as slices, reshapes and gathers.

A key is read entry by entry (after expanding `...`):

* basic indices: slices (any step), ints, `None`, bool scalars. They become one
  `tj.slice` (an int `i` is the window `i:i+1`) and one `tj.reshape` that drops the
  int dims and inserts the new ones. Python ints are checked at trace time (IndexError,
  as NumPy raises it, if the result is used: see "Errors of unused results" below).
* advanced indices: integer arrays (constants or tensors known only at run time); with
  one present, ints count as 0-d advanced indices too. NumPy's rules give the result
  shape: the index arrays broadcast to one shape B, which replaces the indexed dims
  where they are adjacent in the key, or goes first otherwise. One advanced index is
  one `tj.gather` (which wraps negative indices and checks bounds in the kernel); several
  are merged into one gather over the flattened indexed dims, each index first wrapped
  and checked by gathering from `arange(n)`.

Boolean masks select a number of elements that depends on the data: numpy_api/masks.py.

Errors of unused results: an index out of range is an error of the data, which
TensorFlow raises only when the indexing runs, and never when its result is unused
(non-strict execution). So where a Python int or a constant index array is out of
range, the failing step's result (the slice, or the checked index) is a `tj.poison`
carrying the IndexError (`primitives.poison`): frontend/staging/non_strict.py raises it when the
trace ends if the result is used, and drops it otherwise. Errors of the key itself (its
types, too many indices, shapes that do not broadcast) are raised at once.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from tracejit.frontend.numpy_api.masks import getitem_with_mask, has_mask, merge_dims
from tracejit.frontend.numpy_api.promotion import broadcast_all
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import (
    normalize_axis,
    positions_along,
    require_static,
    tensor_of,
)
from tracejit.frontend.staging import primitives, runtime_sizes
from tracejit.frontend.staging.dims import (
    FULL_SLICES,
    Counted,
    Dim,
    SliceLength,
    Unknown,
    sliced,
)
from tracejit.frontend.staging.slice_bounds import (
    assert_window_fits,
    index_constant,
    index_of,
    offset_form,
    slice_window,
)
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.frontend.staging.tracing import current_trace, is_tracing
from tracejit.frontend.staging.views import follow_order, make_view

_VALID = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer "
    "or boolean arrays are valid indices"
)


class Kind(enum.Enum):
    SLICE = "slice"
    INT = "int"
    ARRAY = "array"
    NEW = "new axis"
    BOOL = "bool scalar"


@dataclass
class Entry:
    kind: Kind
    value: Any = None

    @property
    def consumes_dim(self) -> bool:
        return self.kind in (Kind.SLICE, Kind.INT, Kind.ARRAY)


# --- reading the key ------------------------------------------------------------------
def _mask_error() -> TypeError:
    return TypeError(
        at_user_line(
            "a boolean index array is supported as a subscript's mask (x[mask], x[mask, 2], "
            "x[mask] = v, x[mask, 2] = v), not here; write np.nonzero(mask)[0] for the "
            "positions it selects"
        )
    )


def _array_entry(array: np.ndarray) -> Entry:
    if array.dtype == np.bool_:
        if array.ndim == 0:
            return Entry(Kind.BOOL, bool(array))
        raise _mask_error()
    if array.size == 0 and array.dtype.kind == "f":  # `x[[]]`: NumPy reads [] as intp
        array = array.astype(np.intp)
    if array.dtype.kind not in "iu":
        raise IndexError(at_user_line(_VALID))
    return Entry(Kind.INT, int(array)) if array.ndim == 0 else Entry(Kind.ARRAY, array)


def _entry(item: object) -> Entry | None:
    """One key item classified; None for `...` (expanded by the caller)."""
    if item is Ellipsis:
        return None
    if item is None:
        return Entry(Kind.NEW)
    if isinstance(item, slice):
        return Entry(Kind.SLICE, item)
    if isinstance(item, bool | np.bool_):
        return Entry(Kind.BOOL, bool(item))
    if isinstance(item, int | np.integer):
        return Entry(Kind.INT, int(item))
    if isinstance(item, Tensor):
        if item.dtype == np.bool_:
            raise _mask_error()
        if item.dtype.kind not in "iu":
            raise IndexError(at_user_line(_VALID))
        return Entry(Kind.ARRAY, item)  # of a size only the kernel knows: _one_index_array
    if isinstance(item, np.ndarray | list | tuple):
        return _array_entry(np.asarray(item))
    raise IndexError(at_user_line(_VALID))


def staged_lists(key: object) -> object:
    """`key` with each list holding traced values (`A[[i, p]]`, a row swap with a traced
    pivot) made the index array NumPy would make of it."""
    from tracejit.frontend.numpy_api.construction import staged_array

    def staged(item: object) -> object:  # a tuple inside a tuple key is a sequence too
        holds = isinstance(item, list | tuple) and _holds_tensor(item)
        return staged_array(item) if holds else item

    return tuple(staged(k) for k in key) if isinstance(key, tuple) else staged(key)


def _holds_tensor(items: list | tuple) -> bool:
    return any(
        isinstance(i, Tensor) or (isinstance(i, list | tuple) and _holds_tensor(i)) for i in items
    )


def read_key(key: object, ndim: int) -> list[Entry]:
    """The key's entries with `...` (or the missing tail) expanded into full slices."""
    items = key if isinstance(key, tuple) else (key,)
    entries = [_entry(item) for item in items]
    if entries.count(None) > 1:
        raise IndexError(at_user_line("an index can only have a single ellipsis ('...')"))
    used = sum(1 for e in entries if e is not None and e.consumes_dim)
    if used > ndim:
        raise IndexError(
            at_user_line(
                f"too many indices for array: array is {ndim}-dimensional, but {used} were indexed"
            )
        )
    fill = [Entry(Kind.SLICE, slice(None))] * (ndim - used)
    if None not in entries:
        return [*entries, *fill]  # type: ignore[list-item]  # no None: checked above
    at = entries.index(None)
    return [*entries[:at], *fill, *entries[at + 1 :]]  # type: ignore[list-item]  # the None is left out


def _out_of_bounds(index: int, size: int, axis: int) -> IndexError:
    return IndexError(
        at_user_line(f"index {index} is out of bounds for axis {axis} with size {size}")
    )


# --- basic indexing -------------------------------------------------------------------
def _window(entry: Entry, size: int, axis: int) -> tuple[int, int, int]:
    """(start, step, count) of the elements a dim-consuming entry keeps (an int in range)."""
    if entry.kind == Kind.SLICE:
        start, stop, step = entry.value.indices(size)
        return start, step, len(range(start, stop, step))
    if entry.kind == Kind.INT:
        return entry.value % size, 1, 1
    return 0, 1, size  # an advanced index keeps the whole dim for the gather


@dataclass
class Window:
    """The strided window a basic key selects: per dim of the indexed tensor, the start (an
    int, or a run-time `index`), the step and the count (its dim)."""

    start: list
    step: list[int]
    count: list
    dims: list


def _window_of(x: Tensor, entries: Sequence[Entry]) -> tuple[Window, IndexError | None]:
    """The entries' window; an int out of range gives the error it raises (non-strict
    execution, see the module docstring) and a window of one element instead."""
    consuming = [e for e in entries if e.consumes_dim]
    window = Window([], [], [], [])
    error: IndexError | None = None
    for axis, (entry, dim) in enumerate(zip(consuming, x.dims, strict=True)):
        if isinstance(dim, int) and not _picked_at_run_time(entry, dim):
            if entry.kind == Kind.INT and not -dim <= entry.value < dim:
                error = error or _out_of_bounds(entry.value, dim, axis)
                first, stride, n = 0, 1, 1
            else:
                first, stride, n = _window(entry, dim, axis)
            window.start.append(first if n else 0)  # an empty window may start anywhere
            window.count.append(n)
            window.dims.append(n)
        else:
            first, stride, n, kept = _run_time_window(x, entry, axis)
            window.start.append(first)
            window.count.append(n)
            window.dims.append(kept)
        window.step.append(stride)
    return window, error


def _take_window(x: Tensor, window: Window) -> Tensor:
    return primitives.strided_slice(x, window.start, window.step, window.count, window.dims)


def _apply_windows(x: Tensor, entries: Sequence[Entry]) -> Tensor:
    """One slice for the entries' windows; with an int out of range, its result is a
    pending IndexError (non-strict execution, see the module docstring)."""
    window, error = _window_of(x, entries)
    if error is not None:
        return primitives.poison(error, window.dims, x.dtype)
    return _take_window(x, window)


def _run_time_window(x: Tensor, entry: Entry, axis: int) -> tuple:
    """(start, step, count, result dim) of a window on a dim unknown at trace time, or of
    an integer the kernel applies (`x[i]` with `i` a 0-d tensor): the kernel wraps a
    negative one and checks the bounds where the indexing runs (`tj.to_index`)."""
    dim = x.dims[axis]
    size = dim if isinstance(dim, int) else primitives.dim_size(dim, (x.value, axis))
    if entry.kind == Kind.INT:
        index = entry.value
        if isinstance(index, Tensor):
            shown = "the index"
        else:
            index, shown = primitives.constant(np.intp(index)), f"index {index}"
        if isinstance(size, int):
            message = _runtime_message(axis, size)
        else:
            message = _checked_at_run_time(f"{shown} is out of bounds for axis {axis}")
        return primitives.to_index(index, size, message), 1, 1, 1
    first, stop, stride = (
        _slice_item(v) for v in (entry.value.start, entry.value.stop, entry.value.step)
    )
    if isinstance(stride, Tensor):
        raise NotImplementedError(
            at_user_line("a slice step that is a tensor is not supported; use a Python int")
        )
    stride = 1 if stride is None else stride
    if stride == 0:
        raise ValueError(at_user_line("slice step cannot be zero"))
    if isinstance(first, Tensor) or isinstance(stop, Tensor):  # bounds known at run time
        width = _fixed_width(first, stop, stride)
        if width is not None and isinstance(first, Tensor) and (isinstance(dim, int) or width == 1):
            return _fixed_window(first, width, size, axis)
        if isinstance(size, int):
            size = index_constant(size)
        bounds = [index_of(v) if isinstance(v, Tensor) else v for v in (first, stop)]
        start, count = slice_window(size, bounds[0], bounds[1], stride)
        return start, stride, count, SliceLength(count, _length_key(dim, first, stop, stride))
    if (first, stop, stride) in FULL_SLICES:
        return 0, 1, size, dim
    kept = sliced(dim, first, stop, stride)
    assert not isinstance(size, int)  # an int dim gets here only for an INT entry (above)
    start, count = slice_window(size, first, stop, stride)
    if isinstance(kept, Unknown):  # a slice of a length only the kernel knows: its count
        kept = SliceLength(count, _length_key(dim, first, stop, stride))
    return start, stride, count, kept


def _length_key(dim: Dim, first: object, stop: object, stride: int) -> tuple | None:
    """What a slice's length is a function of: the sliced dim, the bounds and the step
    (traced bounds by value identity and constant offset); None when the dim has no
    identity to compare (a size tracejit cannot follow)."""
    if isinstance(dim, Unknown) and not isinstance(dim, SliceLength | Counted):
        return None
    bounds = tuple(offset_form(v) if isinstance(v, Tensor) else v for v in (first, stop))
    return (dim, *bounds, stride)


def _fixed_width(first: object, stop: object, stride: int) -> int | None:
    """The element count of `x[i + a : i + b]` (b - a, whatever `i` is), or None."""
    if stride != 1 or not (isinstance(first, Tensor) and isinstance(stop, Tensor)):
        return None
    (start_base, a), (stop_base, b) = offset_form(first), offset_form(stop)
    return max(b - a, 0) if start_base is stop_base else None


def _fixed_window(first: Tensor, width: int, size: int | SSAValue, axis: int) -> tuple:
    """(start, step, count, dim) of `x[i + a : i + b]` on a dim of static `size`, or of
    `x[i : i + 1]` on a dim known at run time: `b - a` elements from `i + a`, which the
    kernel checks lie inside the dim. (NumPy would give fewer elements, or wrap a negative
    start: a different shape, refused at run time.) A window of one element is then a dim
    of size 1 that broadcasts as NumPy's does (`D[:, k:k+1] + D[k:k+1, :]`)."""
    start = index_of(first)
    shown = f" of size {size}" if isinstance(size, int) else ""
    assert_window_fits(
        start,
        width,
        index_constant(size) if isinstance(size, int) else size,
        at_user_line(
            f"IndexError: a slice of {width} elements starting at a run-time index reaches "
            f"outside axis {axis}{shown} (NumPy would make it shorter, or wrap a "
            "negative start; tracejit keeps its static length and checks it fits)"
        ),
    )
    return start, 1, width, width


def _slice_item(value: Any) -> int | Tensor | None:
    if value is None:
        return None
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype.kind in "iu":
        return value  # a bound known at run time
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            at_user_line("slice indices must be integers or None or have an __index__ method")
        ) from None


def _as_run_time_int(entry: Entry) -> Entry:
    """A 0-d index tensor picks one element, like an int (NumPy's rule too)."""
    if entry.kind == Kind.ARRAY and isinstance(entry.value, Tensor) and entry.value.ndim == 0:
        return Entry(Kind.INT, entry.value)
    return entry


def _picked_at_run_time(entry: Entry, dim: Any) -> bool:
    """An integer index the kernel applies: a 0-d index tensor, or any int on a dim
    unknown at trace time."""
    if entry.kind == Kind.SLICE:  # a slice bound that is a tensor
        bounds = (entry.value.start, entry.value.stop, entry.value.step)
        return any(isinstance(b, Tensor) for b in bounds)
    return entry.kind == Kind.INT and (isinstance(entry.value, Tensor) or not isinstance(dim, int))


def _basic(x: Tensor, entries: Sequence[Entry], ellipsis: bool = False) -> Tensor:
    """A basic key: a window, then a reshape dropping the int dims and adding new axes.
    The result is a view of `x` (frontend/staging/views.py) unless it is one element picked by
    ints only, which NumPy returns as a scalar (a copy); with an `ellipsis` in the key
    (`x[0, 0, ...]`, `x[...]` of a 0-d x) it is a 0-d array, a view, as in NumPy."""
    window, error = _window_of(x, entries)
    if error is not None:
        return _select(primitives.poison(error, window.dims, x.dtype), entries)
    result = _select(_take_window(x, window), entries)
    if all(e.kind == Kind.INT for e in entries) and not ellipsis:
        # an element (a scalar): a new value, even `x[()]` of a 0-d x (not x itself)
        return Tensor(result.value, result.dims) if result is x else result

    def forward(parent: Tensor) -> Tensor:
        return _select(_take_window(parent, window), entries)

    def backward(parent: Tensor, new: Tensor) -> Tensor:
        return primitives.insert_slice(parent, _unselect(new, window, entries), window)

    return make_view(x, result, forward, backward)


def _select(windowed: Tensor, entries: Sequence[Entry]) -> Tensor:
    """The window with its int dims dropped and the new axes (`None`, bool scalars) added."""
    sizes = iter(windowed.dims)
    shape: list[Dim] = []
    empty_axes: list[int] = []
    for entry in entries:
        if entry.kind == Kind.INT:
            next(sizes)
        elif entry.kind in (Kind.NEW, Kind.BOOL):
            if entry.kind == Kind.BOOL and not entry.value:  # x[False]: a new empty dim
                empty_axes.append(len(shape))
            shape.append(1)
        else:
            shape.append(next(sizes))
    result = primitives.reshape(windowed, shape)
    if not empty_axes:
        return result
    dims = [0 if d in empty_axes else n for d, n in enumerate(shape)]
    counts = [n for n in dims if isinstance(n, int)]
    if len(counts) != len(dims):
        raise NotImplementedError(
            at_user_line("x[False] on a tensor with dims unknown at trace time is not supported")
        )
    return primitives.strided_slice(result, [0] * len(shape), [1] * len(shape), counts)


def _unselect(new: Tensor, window: Window, entries: Sequence[Entry]) -> Tensor:
    """A new value of `_select`'s result as a value of the window (the inverse reshape)."""
    if any(e.kind == Kind.BOOL and not e.value for e in entries):
        return primitives.constant(np.zeros(0, new.dtype)).reshape(window.dims)  # nothing
    return primitives.reshape(new, window.dims)


# --- advanced indexing ----------------------------------------------------------------
def _index_tensor(entry: Entry, size: int, axis: int) -> Tensor:
    """An advanced index as a tensor; trace-time values are checked now, like NumPy: one
    out of range makes the checked index a pending IndexError (non-strict execution)."""
    if isinstance(entry.value, Tensor):
        return entry.value
    values = np.asarray(entry.value)
    low = -size if values.dtype.kind == "i" else 0
    bad = values[(values < low) | (values >= size)]
    if bad.size:
        error = _out_of_bounds(int(bad.reshape(-1)[0]), size, axis)
        return primitives.poison(error, values.shape, np.dtype(np.intp))
    values = values.astype(np.intp)
    return primitives.constant(np.where(values < 0, values + size, values))


def _runtime_message(axis: int, size: int) -> str:
    return _checked_at_run_time(f"index out of bounds for axis {axis} with size {size}")


def _checked_at_run_time(text: str) -> str:
    """The message of an index check the kernel makes, refused inside a `try` that handles
    IndexError: the kernel cannot run the handler (and an unused index's check is dropped
    with it, non-strict execution), where NumPy runs it."""
    if is_tracing() and current_trace().handling(IndexError()) is not None:
        raise current_trace().refuse(
            NotImplementedError(
                at_user_line(
                    "an index checked when the kernel runs (a traced index, or a dim known "
                    "only then) inside a `try` that handles IndexError: the kernel cannot run "
                    "the handler; check the index first (`if i < len(x)`), or index with a "
                    "Python int"
                )
            )
        )
    return at_user_line(f"IndexError: {text}")


def _broadcast_indices(indices: Sequence[Tensor]) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*(t.shape for t in indices))  # type: ignore[arg-type]  # None dims fail as NumPy's error
    except ValueError:
        shapes = " ".join(str(t.shape) for t in indices)
        raise IndexError(
            at_user_line(
                f"shape mismatch: indexing arrays could not be broadcast together with shapes "
                f"{shapes}"
            )
        ) from None


def _linear_index(
    sizes: Sequence[int], indices: Sequence[Tensor], axes: Sequence[int], shape
) -> Tensor:
    """Row-major position in the flattened indexed dims; each index wrapped and checked
    by gathering it from arange(n)."""
    linear: Tensor | None = None
    for size, index, axis in zip(sizes, indices, axes, strict=True):
        positions = primitives.constant(np.arange(size, dtype=np.intp))
        wrapped = primitives.gather(positions, index, 0, _runtime_message(axis, size))
        wrapped = primitives.broadcast_to(wrapped, shape)
        # __array_function__: on Tensors np.add is a Tensor (NumPy's stubs say ndarray)
        if linear is None:
            linear = wrapped
        else:
            linear = dispatched(np.add(np.multiply(linear, size), wrapped))
    assert linear is not None
    return linear


def flat_positions(shape: tuple[int, ...], key: object) -> Tensor | None:
    """The row-major positions `key` picks in an array of `shape` when it is one index
    array (or int, with at least one array) per dim -- NumPy's
    `np.arange(size).reshape(shape)[key]` without the arange: each index wrapped and
    checked along its dim (`_linear_index`). None for other keys (slices, masks, new
    axes), which index that arange instead."""
    key = staged_lists(key)
    if has_mask(key) or not isinstance(key, tuple) or len(key) != len(shape):
        return None
    entries = [_as_run_time_int(e) for e in read_key(key, len(shape))]
    kinds = [e.kind for e in entries]
    if Kind.ARRAY not in kinds or any(k not in (Kind.ARRAY, Kind.INT) for k in kinds):
        return None
    indices = [
        _index_tensor(Entry(Kind.ARRAY, _index_array(e.value)), size, axis)
        for axis, (e, size) in enumerate(zip(entries, shape, strict=True))
    ]
    if any(_unknown_size(t) for t in indices):  # `a[rows[m], cols[m]]`: counted sizes
        indices = broadcast_all(indices)
        broadcast = indices[0].dims
    else:
        broadcast = _broadcast_indices(indices)
    return _linear_index(shape, indices, range(len(shape)), broadcast)


def _separated_in_key(key: object) -> bool:
    """NumPy's adjacency rule reads the key as written: a `...` between two index arrays
    separates them even where it stands for no dim (`x[:, 0, ..., idx]` of a 3-d x)."""
    items = key if isinstance(key, tuple) else (key,)
    advanced = [
        i
        for i, item in enumerate(items)
        if not (item is None or item is Ellipsis or isinstance(item, slice | bool | np.bool_))
    ]
    return bool(advanced) and any(
        items[i] is Ellipsis for i in range(advanced[0], advanced[-1] + 1)
    )


def _advanced(x: Tensor, entries: Sequence[Entry], separated: bool = False) -> Tensor:
    if any(e.kind == Kind.BOOL for e in entries):
        raise NotImplementedError(
            at_user_line("bool scalar indices combined with index arrays are not supported")
        )
    # with an index array present, ints are 0-d index arrays (NumPy's rule)
    entries = [
        Entry(Kind.ARRAY, _index_array(e.value)) if e.kind == Kind.INT else e for e in entries
    ]
    windowed = _apply_windows(x, entries)
    consuming = [e for e in entries if e.consumes_dim]
    axes = [d for d, e in enumerate(consuming) if e.kind in (Kind.INT, Kind.ARRAY)]
    sizes = [windowed.shape[d] for d in axes]
    indices = [
        _index_tensor(consuming[d], windowed.shape[d], d)  # type: ignore[arg-type]  # a static dim here
        for d in axes
    ]
    if any(_unknown_size(t) for t in indices):  # `x[np.nonzero(m)]`: counted sizes
        indices = broadcast_all(indices)
        shape = indices[0].dims
    else:
        shape = _broadcast_indices(indices)
    positions = [i for i, e in enumerate(entries) if e.kind in (Kind.INT, Kind.ARRAY)]
    adjacent = positions == list(range(positions[0], positions[-1] + 1)) and not separated
    # move the indexed dims together (they already are when adjacent in the key)
    first = axes[0] if adjacent else 0
    rest = [d for d in range(windowed.ndim) if d not in axes]
    order = rest[:first] + axes + rest[first:]
    moved = primitives.transpose(windowed, order)
    if len(axes) == 1:
        index = primitives.broadcast_to(indices[0], shape)
        message = _runtime_message(axes[0], sizes[0])  # type: ignore[arg-type]  # static sizes here
    else:
        index = _linear_index(sizes, indices, axes, shape)  # type: ignore[arg-type]  # static sizes here
        message = "IndexError: index out of bounds (checked per axis)"
    merged = (
        list(moved.shape[:first])
        + [int(np.prod(sizes))]  # type: ignore[arg-type]  # static sizes here
        + list(moved.shape[first + len(axes) :])
    )
    gathered = primitives.gather(primitives.reshape(moved, merged), index, first, message)
    return primitives.reshape(gathered, _advanced_shape(entries, windowed, shape, adjacent))


def _several_index_arrays(x: Tensor, entries: Sequence[Entry], separated: bool) -> Tensor:
    """`x[i, j]` (index arrays, or ints with them) on a tensor with dims unknown at trace
    time: `_advanced` with run-time sizes. Each index is wrapped and checked along its dim
    by gathering it from the positions 0..n-1 of that dim, whose size the kernel knows;
    the row-major position in the merged indexed dims is one gather."""
    indexed = (Kind.INT, Kind.ARRAY)
    whole = [Entry(Kind.SLICE, slice(None)) if e.kind in indexed else e for e in entries]
    windowed = _apply_windows(x, whole)
    consuming = [e for e in entries if e.consumes_dim]
    axes = [d for d, e in enumerate(consuming) if e.kind in indexed]
    wrapped = broadcast_all([_wrapped_along(windowed, d, consuming[d].value) for d in axes])
    shape = wrapped[0].dims
    linear = wrapped[0]
    for d, index in zip(axes[1:], wrapped[1:], strict=True):
        size = runtime_sizes.dim_size(windowed, d)  # an int, or a 0-d tensor
        linear = dispatched(np.add(np.multiply(linear, size), index))
    positions = [i for i, e in enumerate(entries) if e.kind in indexed]
    adjacent = positions == list(range(positions[0], positions[-1] + 1)) and not separated
    first = axes[0] if adjacent else 0
    rest = [d for d in range(windowed.ndim) if d not in axes]
    moved = primitives.transpose(windowed, rest[:first] + axes + rest[first:])
    merged = merge_dims(moved, first, len(axes))
    message = "IndexError: index out of bounds (checked per axis)"
    gathered = primitives.gather(merged, linear, first, message, in_bounds=True)
    return primitives.reshape(gathered, _advanced_shape(entries, windowed, shape, adjacent))


def _wrapped_along(x: Tensor, axis: int, index: object) -> Tensor:
    """`index` (an int or index array) wrapped into [0, n) along `axis`, checked by the
    kernel: gathered from the dim's positions."""
    if not isinstance(index, Tensor):
        index = primitives.constant(np.asarray(index).astype(np.intp))
    positions = positions_along(x, axis)
    size = x.shape[axis]
    text = f"index out of bounds for axis {axis}" + (f" with size {size}" if size else "")
    return primitives.gather(positions, index, 0, _checked_at_run_time(text))


def _index_array(value: int | Tensor) -> np.ndarray | Tensor:
    return value if isinstance(value, Tensor) else np.asarray(value)


def _advanced_shape(entries, windowed: Tensor, index_shape, adjacent: bool) -> list[int]:
    """NumPy's result shape: the broadcast index shape at the first indexed entry's place
    (adjacent indices) or in front, between the sizes of the other entries."""
    out: list = []
    placed = not adjacent
    sizes = iter(windowed.dims)
    for entry in entries:
        if entry.kind in (Kind.INT, Kind.ARRAY):
            next(sizes)
            if not placed:
                out.extend(index_shape)
                placed = True
        else:
            out.append(1 if entry.kind == Kind.NEW else next(sizes))
    return out if adjacent else [*index_shape, *out]


def getitem(x: Tensor, key: object) -> Tensor:
    """`x[key]` with NumPy's semantics (see the module docstring)."""
    key = staged_lists(key)
    if has_mask(key):
        return getitem_with_mask(x, key)
    entries = [_as_run_time_int(e) for e in read_key(key, x.ndim)]
    if any(e.kind == Kind.ARRAY for e in entries):
        if None in x.shape or (
            any(_unknown_size(e.value) for e in entries) and _one_array(entries)
        ):
            result = _one_index_array(x, entries, _separated_in_key(key))
        else:
            result = _advanced(x, entries, _separated_in_key(key))
        if x.ndim == 1 and len(entries) == 1:  # NumPy's take: laid out as its index array
            follow_order(result, [entries[0].value])
        return result
    if any(e.kind == Kind.BOOL for e in entries) and any(e.kind == Kind.INT for e in entries):
        raise NotImplementedError(
            at_user_line("bool scalar indices combined with integer indices are not supported")
        )
    items = key if isinstance(key, tuple) else (key,)
    return _basic(x, entries, ellipsis=any(item is Ellipsis for item in items))


@implements(np.take)
def take(
    a: object,
    indices: object,
    axis: object = None,
    out: object = None,
    mode: str = "raise",
) -> Tensor:
    if out is not None or mode != "raise":
        raise NotImplementedError(
            at_user_line("np.take with out= or mode other than 'raise' is not supported")
        )
    x = tensor_of(a)
    if axis is None:
        x, axis = primitives.reshape(require_static(np.take, x), [x.size]), 0
    axis = normalize_axis(axis, x.ndim)
    entry = _entry(indices)
    if entry is None or entry.kind not in (Kind.INT, Kind.ARRAY):
        raise IndexError(at_user_line(_VALID))
    if entry.kind == Kind.INT:
        entry = Entry(Kind.ARRAY, np.asarray(entry.value))
    return _gather_entry(x, entry, axis)


def _gather_entry(x: Tensor, entry: Entry, axis: int) -> Tensor:
    """`np.take(x, entry's index array, axis)`: constant indices into a dim known at trace
    time are checked now; the others when the kernel runs."""
    size = x.shape[axis]
    if size is None:
        index = entry.value
        if not isinstance(index, Tensor):
            index = primitives.constant(np.asarray(index).astype(np.intp))
        message = _checked_at_run_time(f"index out of bounds for axis {axis}")
        return primitives.gather(x, index, axis, message)
    index = _index_tensor(entry, size, axis)
    return primitives.gather(x, index, axis, _runtime_message(axis, size))


def _unknown_size(index: object) -> bool:
    """An index array whose size only the kernel knows (`x[np.flatnonzero(m)]`)."""
    return isinstance(index, Tensor) and None in index.shape


def _one_array(entries: Sequence[Entry]) -> bool:
    """One index array among slices and new axes (no ints, which count as index arrays)."""
    kinds = [e.kind for e in entries]
    return kinds.count(Kind.ARRAY) == 1 and Kind.INT not in kinds and Kind.BOOL not in kinds


def _one_index_array(x: Tensor, entries: Sequence[Entry], separated: bool) -> Tensor:
    """`x[..., idx, ...]` of a tensor with dims unknown at trace time: one index array
    among slices and new axes is one gather; its shape replaces the indexed dim."""
    arrays = [e for e in entries if e.kind == Kind.ARRAY]
    if any(e.kind == Kind.BOOL for e in entries):
        raise NotImplementedError(
            at_user_line(
                "a bool scalar among index arrays on a tensor with dims unknown at trace "
                "time (None) is not supported; trace with static shapes"
            )
        )
    if len(arrays) > 1 or any(e.kind == Kind.INT for e in entries):
        return _several_index_arrays(x, entries, separated)
    consuming = [e for e in entries if e.consumes_dim]
    axis = next(i for i, e in enumerate(consuming) if e is arrays[0])
    windowed = _apply_windows(
        x, [Entry(Kind.SLICE, slice(None)) if e is arrays[0] else e for e in entries]
    )
    gathered = _gather_entry(windowed, arrays[0], axis)
    index_rank = gathered.ndim - windowed.ndim + 1
    dims = iter(gathered.dims)
    shape: list = []
    for entry in entries:
        if entry.kind == Kind.NEW:
            shape.append(1)
        else:
            shape.extend(next(dims) for _ in range(index_rank if entry is arrays[0] else 1))
    return primitives.reshape(gathered, shape)
