"""NumPy's ways of writing a traced array: item assignment, in-place operators, `out=`.

* `a[key] = v` stages a value-semantics update (`tj.insert_slice` for basic keys,
  `tj.scatter` for index arrays, ir/update.py) and makes the update `a`'s value from
  then on (frontend/staging/views.py records it, and writes through views).
* `a += v` (and every augmented operator) on an array writes the result into `a`, cast to
  `a`'s dtype with NumPy's `same_kind` rule; on a scalar (a 0-d value that NumPy would hold
  as a Python or NumPy scalar) it rebinds the name, as Python does.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.dims import untracked
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.frontend.staging.views import assign, rebind_unless_alias, updates_in_place
from tracejit.ir.folding import constant_value


def augmented(
    tensor: Tensor, ufunc: np.ufunc, other: object, computed: object = None
) -> Tensor:
    """`tensor <op>= other`: the new object the name is bound to (`tensor` itself when
    updated in place); `computed`: `ufunc(tensor, other)` computed otherwise (a shortcut)."""
    result: Any = ufunc(tensor, other) if computed is None else computed
    if not updates_in_place(tensor):
        return result
    if not isinstance(result, Tensor):
        return result
    if not np.can_cast(result.dtype, tensor.dtype, "same_kind"):
        raise TypeError(
            at_user_line(
                f"Cannot cast ufunc '{ufunc.__name__}' output from {result.dtype!r} to "
                f"{tensor.dtype!r} with casting rule 'same_kind' (NumPy raises here too); "
                f"write `x = x {_SYMBOLS.get(ufunc.__name__, ufunc.__name__)} v` for a new "
                "array of the promoted dtype, or cast v first"
            )
        )
    if result.shape != tensor.shape:
        if not _sizes_checked_equal(tensor.shape, result.shape):
            raise ValueError(
                at_user_line(
                    f"non-broadcastable output operand with shape {tensor.shape} doesn't "
                    f"match the broadcast shape {result.shape}"
                )
            )
        sizes = {axis: (tensor.value, axis) for axis in range(tensor.ndim)}
        result = primitives.broadcast_to(result, tensor.dims, sizes)  # its type, same sizes
    view = tensor._view
    if view is not None and view.scalar_when_separate:  # a scalar once its loop ran
        return rebind_unless_alias(tensor, primitives.cast(result, tensor.dtype))
    assign(tensor, primitives.cast(result, tensor.dtype))
    return tensor


def _sizes_checked_equal(written: tuple, result: tuple) -> bool:
    """Whether the result of `written <op> v` has `written`'s shape where its dims are known
    at trace time, each dim `written` has of a size known only at run time being a static
    one of the result's (broadcasting them asserted the two equal when the kernel runs)."""
    return len(written) == len(result) and all(
        w == r or (w is None and r is not None) for w, r in zip(written, result, strict=True)
    )


_SYMBOLS = {
    "add": "+", "subtract": "-", "multiply": "*", "true_divide": "/", "floor_divide": "//",
    "remainder": "%", "power": "**", "matmul": "@", "bitwise_and": "&", "bitwise_or": "|",
    "bitwise_xor": "^", "left_shift": "<<", "right_shift": ">>",
}  # fmt: skip


# --- item assignment -------------------------------------------------------------------------
def setitem(tensor: Tensor, key: object, value: object) -> None:
    """`tensor[key] = value` with NumPy's semantics (the value broadcast to the selected
    shape and cast to the array's dtype)."""
    from tracejit.frontend.numpy_api import indexing

    if tensor.ndim == 0 and not updates_in_place(tensor):
        raise TypeError(
            at_user_line(
                "this 0-d value is a NumPy scalar (a reduction's or an element's result), "
                "which does not support item assignment; make it an array first, e.g. "
                "`s = np.array(s)`, or compute the new value instead"
            )
        )
    key = indexing.staged_lists(key)
    mask = _boolean_mask(key, tensor)
    if mask is not None:
        assign(tensor, _masked(tensor, mask, value))
        return
    among = _mask_among_basic(key, tensor)
    if among is not None:
        region_key, mask, position = among
        region = tensor[region_key]
        setitem(tensor, region_key, _masked_region(region, mask, position, value))
        return
    strided = _scalar_into_traced_step(tensor, key, value)
    if strided is not None:
        assign(tensor, strided)
        return
    entries = [indexing._as_run_time_int(e) for e in indexing.read_key(key, tensor.ndim)]
    if any(e.kind == indexing.Kind.ARRAY for e in entries):
        assign(tensor, _scattered(tensor, key, value))
        return
    window, error = indexing._window_of(tensor, entries)
    if error is not None:
        raise error
    selected = indexing._select(indexing._take_window(tensor, window), entries)
    update = _broadcast_value(value, selected, tensor.dtype)
    new = primitives.insert_slice(tensor, indexing._unselect(update, window, entries), window)
    assign(tensor, new)


def _scalar_into_traced_step(tensor: Tensor, key: object, value: object) -> Tensor | None:
    """`x[start:stop:step] = v` (one value) with a traced step, along one axis of known
    size, the others taken whole (a sieve's `flags[i * i::i] = False` in a staged loop): a
    staged loop over the positions NumPy's slice picks (PySlice_AdjustIndices' bounds),
    writing `v` at each, as NumPy's strided assignment does. None for any other key."""
    items = key if isinstance(key, tuple) else (key,)
    one_value = not isinstance(value, list | tuple) and getattr(value, "ndim", 0) == 0
    if len(items) > tensor.ndim or not one_value:
        return None
    stepped = [k for k, item in enumerate(items) if isinstance(item, slice)
               and isinstance(item.step, Tensor)]  # fmt: skip
    whole = all(_is_whole(item) for k, item in enumerate(items) if k not in stepped)
    if len(stepped) != 1 or not whole or tensor.shape[stepped[0]] is None:
        return None
    from tracejit.frontend.staging.control_flow import while_loop

    axis, item = stepped[0], items[stepped[0]]
    n = int(tensor.shape[axis])  # type: ignore[arg-type]  # checked above
    step = item.step.astype(np.int64)
    primitives.assert_true(
        dispatched(step != 0), at_user_line("ValueError: slice step cannot be zero")
    )
    forward = step > 0
    start = _bound(item.start, n, np.where(forward, 0, n - 1), forward)
    stop = _bound(item.stop, n, np.where(forward, n, -1), forward)
    fill = _broadcast_value(value, tensor[(slice(None),) * axis + (0,)], tensor.dtype)

    def before_stop(position: Tensor, array: Tensor) -> Tensor:
        return dispatched(np.where(forward, position < stop, position > stop))

    def write(position: Tensor, array: Tensor) -> tuple[Tensor, Tensor]:
        array[(slice(None),) * axis + (position,)] = fill
        return position + step, array

    _, written = while_loop(before_stop, write, (start, tensor.copy()))
    return written


def _is_whole(item: object) -> bool:
    return isinstance(item, slice) and all(v is None for v in (item.start, item.stop, item.step))


def _bound(bound: Any, n: int, default: object, forward: Tensor) -> object:
    """A slice bound as NumPy adjusts it for this step's sign: negative counts from the end,
    then clipped to [0, n] going forward or [-1, n - 1] going backward."""
    if bound is None:
        return default
    if not isinstance(bound, Tensor):
        bound = int(operator.index(bound))
    value = np.where(np.less(bound, 0), np.add(bound, n), bound)
    return np.where(forward, np.clip(value, 0, n), np.clip(value, -1, n - 1))


def _as_value(value: object, dtype: np.dtype) -> Tensor:
    """The assigned value as a tensor; Python numbers follow NumPy's checks (300 into
    int8 raises OverflowError, as NumPy does)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(
                at_user_line(f"Python integer {value} out of bounds for {dtype} (as in NumPy)")
            )
    if isinstance(value, float) and dtype.kind in "iu" and not np.isfinite(value):
        raise ValueError(at_user_line(f"cannot convert float {value} to integer (as in NumPy)"))
    if isinstance(value, int | float | complex) and not isinstance(value, bool):
        return primitives.constant(np.asarray(value).astype(dtype, casting="unsafe"))
    if isinstance(value, list | tuple) and any(_has_tensor(v) for v in value):
        return dispatched(np.asarray(value))
    return primitives.constant(np.asarray(value))


def _has_tensor(value: object) -> bool:
    if isinstance(value, list | tuple):
        return any(_has_tensor(v) for v in value)
    return isinstance(value, Tensor)


def _broadcast_value(
    value: object, selected: Tensor, dtype: np.dtype, advanced: bool = False
) -> Tensor:
    """`value` as the selected part's shape and `dtype`: broadcast, after dropping leading
    1s NumPy drops (`a[0] = [[1, 2, 3]]` for a row of 3). With index arrays (`advanced`),
    NumPy also drops any leading dims of a value when nothing is selected (`a[[0, 1], [2, 2]]
    = v` on an `a` of shape (3, 3, 0) takes a `v` of shape (4, 2, 0)): the write is empty."""
    tensor = _as_value(value, dtype)
    while tensor.ndim > selected.ndim and tensor.shape[0] == 1:
        tensor = primitives.reshape(tensor, tensor.dims[1:])
    if advanced and tensor.ndim > selected.ndim and 0 in selected.shape:
        trailing = tensor.shape[tensor.ndim - selected.ndim :]
        if None not in trailing and _broadcasts(trailing, selected.shape):
            return primitives.broadcast_to(primitives.constant(np.zeros((), dtype)), selected.dims)
    if None in tensor.shape or None in selected.shape:
        return primitives.cast(_broadcast_unknown(tensor, selected), dtype)
    try:
        shape = np.broadcast_shapes(tensor.shape, selected.shape)  # type: ignore[arg-type]  # None dims fail as NumPy's error
        if shape != selected.shape:
            raise ValueError
    except ValueError:
        raise _not_broadcastable(tensor, selected) from None
    return primitives.cast(primitives.broadcast_to(tensor, selected.dims), dtype)


def _broadcasts(shape: tuple, to: tuple) -> bool:
    try:
        return np.broadcast_shapes(shape, to) == to
    except ValueError:
        return False


def _broadcast_unknown(tensor: Tensor, selected: Tensor) -> Tensor:
    """`tensor` broadcast to `selected`'s dims, some unknown at trace time: NumPy's rule,
    with the kernel checking that the unknown sizes that meet are equal."""
    from tracejit.frontend.numpy_api.promotion import broadcast_shape

    if tensor.ndim > selected.ndim:
        raise _not_broadcastable(tensor, selected)
    if any(untracked(d) for d in (*tensor.dims, *selected.dims)):
        _check_equal_at_run_time(tensor, selected)
    else:
        broadcast_shape([tensor, selected])  # raises, or records the run-time checks
    witnesses = {
        a: (selected.value, a) for a, d in enumerate(selected.dims) if not isinstance(d, int)
    }
    return primitives.broadcast_to(tensor, selected.dims, witnesses)


def _check_equal_at_run_time(tensor: Tensor, selected: Tensor) -> None:
    """Stage the kernel's check that each of `tensor`'s dims (but a static 1) equals the
    dim of `selected` it meets, read from both arrays when the kernel runs (`d[i] = c[i]`
    where `d` is carried by an earlier staged loop). Unknown sizes are not broadcast from 1."""
    from xdsl.ir import SSAValue

    from tracejit.frontend.staging.slice_bounds import assert_same_sizes
    from tracejit.frontend.staging.tracing import emit
    from tracejit.ir.shape_ops import DimOp

    offset = selected.ndim - tensor.ndim
    for axis, dim in enumerate(tensor.dims):
        other = selected.dims[offset + axis]
        if dim == 1 or (dim == other and not untracked(dim)):  # UNKNOWN equals UNKNOWN
            continue
        if isinstance(dim, int) and isinstance(other, int):
            raise _not_broadcastable(tensor, selected)
        sizes: list[SSAValue] = [emit(DimOp(tensor.value, axis)).result]
        sizes.append(emit(DimOp(selected.value, offset + axis)).result)
        message = f"ValueError: {_not_broadcastable(tensor, selected)}"
        assert_same_sizes(sizes, message)


def _not_broadcastable(tensor: Tensor, selected: Tensor) -> ValueError:
    return ValueError(
        at_user_line(
            f"could not broadcast input array from shape {tensor.shape} into shape {selected.shape}"
        )
    )


def _boolean_mask(key: object, tensor: Tensor) -> Tensor | None:
    """The mask of `a[mask] = v` (a bool array indexing the leading dims), else None."""
    if isinstance(key, Tensor) and key.dtype == np.bool_ and key.ndim > 0:
        mask = key
    elif isinstance(key, np.ndarray | list) and np.asarray(key).dtype == np.bool_:
        mask = primitives.constant(np.asarray(key))
        if mask.ndim == 0:
            return None
    else:
        return None
    leading = tensor.shape[: mask.ndim]
    if mask.shape != leading and (None in mask.shape or None in leading):
        raise NotImplementedError(
            at_user_line(
                f"`a[mask] = v` with a boolean mask of shape {mask.shape} on leading dims "
                f"{leading}: sizes unknown at trace time (None) must be the same dims on both "
                "sides; use np.where(mask, v, a) with shapes that broadcast"
            )
        )
    if mask.shape != leading:
        raise IndexError(
            at_user_line(
                f"boolean index of shape {mask.shape} does not match the indexed array's "
                f"leading dims {tensor.shape[: mask.ndim]}"
            )
        )
    return mask


def _mask_among_basic(key: object, tensor: Tensor) -> tuple[tuple, Tensor, int] | None:
    """For `a[mask, 2] = v` (one boolean mask among ints and slices): the key with the mask
    replaced by full slices, the mask, and where its dims are in `a[that key]`; else None."""
    if not isinstance(key, tuple):
        return None
    masks = [i for i, k in enumerate(key) if _is_bool_array(k)]
    if len(masks) != 1:
        return None
    rest = [k for i, k in enumerate(key) if i != masks[0]]
    if not all(isinstance(k, slice | int | np.integer) for k in rest):
        return None
    where = masks[0]
    mask = key[where]
    mask = mask if isinstance(mask, Tensor) else primitives.constant(np.asarray(mask))
    region_key = (*key[:where], *([slice(None)] * mask.ndim), *key[where + 1 :])
    position = sum(isinstance(k, slice) for k in key[:where])
    return region_key, mask, position


def _is_bool_array(k: object) -> bool:
    if isinstance(k, Tensor):
        return k.dtype == np.bool_ and k.ndim > 0
    return isinstance(k, np.ndarray | list) and np.asarray(k).dtype == np.bool_ and np.ndim(k) > 0


def _masked_region(region: Tensor, mask: Tensor, position: int, value: object) -> Tensor:
    """`region` with `value` where `mask` (over its dims from `position`) holds."""
    dims = region.shape[position : position + mask.ndim]
    if mask.shape != dims:
        raise IndexError(
            at_user_line(f"boolean index of shape {mask.shape} does not match the dims {dims}")
        )
    update = _as_value(value, region.dtype)
    if update.size != 1:
        raise NotImplementedError(
            at_user_line(
                "`a[mask, i] = v` (a boolean mask among other indices) with more than one "
                "value: assign one value, or write `a[:, i] = np.where(mask, v_full, a[:, i])`"
            )
        )
    before, after = position, region.ndim - position - mask.ndim
    wide = primitives.reshape(mask, [*([1] * before), *mask.dims, *([1] * after)])
    value_0d = primitives.cast(primitives.reshape(update, ()), region.dtype)
    return dispatched(np.where(wide, value_0d, region))


def _masked(tensor: Tensor, mask: Tensor, value: object) -> Tensor:
    """`a[mask] = v`: for a v of one element (or one per trailing row), np.where; for one
    value per selected element (`a[m] = a[m] - L`, a full-shape mask), a scatter to the
    mask's flat positions."""
    update = _as_value(value, tensor.dtype)
    trailing = tensor.shape[mask.ndim :]
    if update.ndim == 1 and not trailing and update.size != 1:
        return _scattered_by_mask(tensor, mask, update)
    if update.size != 1 and update.shape != trailing:
        raise NotImplementedError(
            at_user_line(
                f"`a[mask] = v` with v of shape {update.shape} and a mask of shape "
                f"{mask.shape}: assign one value, one row of shape {trailing}, or (with a "
                "mask of a's whole shape) one value per selected element; or write "
                "`a = np.where(mask, v_full, a)` with v_full of a's shape"
            )
        )
    if update.size == 1:
        update = primitives.reshape(update, ())
    wide = primitives.reshape(mask, [*mask.dims, *([1] * len(trailing))])
    return dispatched(np.where(wide, primitives.cast(update, tensor.dtype), tensor))


def _scattered_by_mask(tensor: Tensor, mask: Tensor, update: Tensor) -> Tensor:
    """`a[mask] = v` with v holding one value per True element, in order (NumPy checks
    their number; here the kernel does, when it is only known at run time)."""
    from tracejit.frontend.numpy_api.nonzero import flat_indices
    from tracejit.frontend.staging.dims import Counted
    from tracejit.frontend.staging.primitives import assert_same_counts

    known = constant_value(mask.value)  # a NumPy mask: its count is known now
    if known is None:
        positions = flat_indices(mask)
    else:
        positions = primitives.constant(np.flatnonzero(known).astype(np.intp))
    wanted, given = positions.shape[0], update.shape[0]
    if isinstance(wanted, int) and isinstance(given, int) and wanted != given:
        raise ValueError(
            at_user_line(
                f"NumPy boolean array indexing assignment cannot assign {given} input values "
                f"to the {wanted} output values where the mask is true"
            )
        )
    if isinstance(update.shape[0], int) != isinstance(positions.shape[0], int) or (
        update.dims[0] != positions.dims[0]
    ):
        counted = [d for d in (positions.dims[0], update.dims[0]) if isinstance(d, Counted)]
        if len(counted) == 2:
            assert_same_counts([d.of for d in counted])
        else:
            raise NotImplementedError(
                at_user_line(
                    f"`a[mask] = v` with v of shape {update.shape}: v must hold one value per "
                    "selected element, e.g. `a[mask] = f(a[mask])`, or be one value"
                )
            )
        update = Tensor(update.value, positions.dims)
    # a new root's flat view: the scatter's result is assigned below (np.ravel of a Tensor
    # is a Tensor; NumPy's stubs say ndarray)
    flat = dispatched(np.ravel(tensor.copy()))
    message = at_user_line("IndexError: index out of bounds in an assignment")
    new = primitives.scatter(flat, positions, primitives.cast(update, tensor.dtype), message)
    return primitives.reshape(new, tensor.dims)


def _scattered(tensor: Tensor, key: object, value: object) -> Tensor:
    """`a[key] = v` with index arrays: the flat positions `key` selects (taken from
    `arange(a.size)` by NumPy's own indexing rules, checked by the kernel) get v's
    elements, in order (a repeated position keeps the last, like NumPy)."""
    from tracejit.frontend.numpy_api.indexing import flat_positions, getitem
    from tracejit.frontend.numpy_api.masks import merge_dims

    if None in tensor.shape:
        picked = getitem(_run_time_positions(tensor), key)
    else:
        shape = tuple(d for d in tensor.shape if d is not None)  # all of them
        found = flat_positions(shape, key)  # one index array per dim: no arange needed
        picked = found if found is not None else getitem(_positions(shape), key)
    update = _broadcast_value(value, picked, tensor.dtype, advanced=True)
    # one list of positions and one of values: a selection of a run-time size keeps its
    # run-time dim (`y[idx[p[i]:p[i + 1]]]`), a block of them (`x[rows]` of rows of a
    # matrix) flattens as np.reshape does (the kernel computes the product)
    if picked.ndim != 1:
        picked = dispatched(np.reshape(picked, -1))
        update = dispatched(np.reshape(update, -1))
    flat = merge_dims(tensor, 0, tensor.ndim)
    message = at_user_line("IndexError: index out of bounds in an assignment")
    new = primitives.scatter(flat, picked, update, message)
    return primitives.reshape(new, tensor.dims)


def _positions(shape: tuple[int, ...]) -> Tensor:
    """`np.arange(a.size).reshape(a.shape)`, a constant."""
    size = int(np.prod(shape, dtype=np.int64))
    return primitives.constant(np.arange(size, dtype=np.intp).reshape(shape))


def _run_time_positions(tensor: Tensor) -> Tensor:
    from tracejit.frontend.numpy_api.masks import merge_dims

    """`np.arange(a.size).reshape(a.shape)` for dims known only at run time (the kernel
    counts them), from which `a[key]` takes the flat positions a write goes to."""
    ones = primitives.full_like(1, tensor, np.dtype(np.intp))
    flat = merge_dims(ones, 0, ones.ndim)
    return primitives.reshape(dispatched(np.cumsum(flat)) - 1, tensor.dims)


# --- ufunc out= ------------------------------------------------------------------------------
def write_out(out: Any, result: Any, ufunc: np.ufunc) -> Any:
    """`ufunc(..., out=out)`: the result written into the traced array `out` (cast with
    NumPy's `same_kind` rule); returns that array, as NumPy does."""
    target = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if not isinstance(target, Tensor):
        raise TypeError(
            at_user_line(
                f"{ufunc.__name__}(..., out=...) needs a traced array as `out` (an argument "
                "or an array made inside the function), got "
                f"{type(target).__name__}; write `y = np.{ufunc.__name__}(...)` instead"
            )
        )
    if not np.can_cast(result.dtype, target.dtype, "same_kind"):
        raise TypeError(
            at_user_line(
                f"Cannot cast ufunc '{ufunc.__name__}' output from {result.dtype!r} to "
                f"{target.dtype!r} with casting rule 'same_kind'"
            )
        )
    selected = primitives.reshape(target, target.dims)
    assign(target, _broadcast_value(result, selected, target.dtype))
    return target
