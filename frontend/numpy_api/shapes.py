"""NumPy's shape functions staged as `tj` shape ops.

Every function here is a composition of five primitives: `reshape`, `transpose`,
`strided_slice`, `concat` and `pad` (plus `broadcast_to` and, for `np.repeat` with
per-element counts, `gather`). Argument checking follows NumPy's own messages, so a
bad call fails at trace time the way it fails in NumPy. Results are new arrays, never
views: writing through a view is not expressible in a traced function anyway.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from tracejit.frontend.numpy_api.registry import implements, numpy_name
from tracejit.frontend.staging import primitives, runtime_sizes
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.frontend.staging.views import make_view, permuted, refuse_writes, reshaped


# --- helpers shared by the shape, indexing and einsum modules ---------------------------
def _contains_tensor(x: object) -> bool:
    if isinstance(x, Tensor):
        return True
    return isinstance(x, list | tuple) and any(_contains_tensor(e) for e in x)


def tensor_of(x: object) -> Tensor:
    """`np.asarray(x)` as a Tensor (a nested list holding Tensors is stacked)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, list | tuple) and _contains_tensor(x):
        return stack([tensor_of(e) for e in x])
    return primitives.constant(np.asarray(x))


def require_static(fn: object, x: Tensor) -> Tensor:
    if any(d is None for d in x.shape):
        raise NotImplementedError(
            at_user_line(f"{numpy_name(fn)} on a tensor with unknown (None) dims is not supported")
        )
    return x


def static_tensor(fn: object, x: object) -> Tensor:
    return require_static(fn, tensor_of(x))


def normalize_axis(axis: Any, ndim: int) -> int:
    """A non-negative axis; AxisError (as NumPy raises it) when out of range."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(
            at_user_line(f"axis {axis} is out of bounds for array of dimension {ndim}")
        )
    return axis % ndim


def normalize_axes(axes: object, ndim: int) -> tuple[int, ...]:
    """An int or a sequence of ints as distinct non-negative axes, in the given order."""
    axes = (axes,) if not isinstance(axes, Sequence) else axes
    normalized = tuple(normalize_axis(a, ndim) for a in axes)
    if len(set(normalized)) != len(normalized):
        raise ValueError(at_user_line("repeated axis"))
    return normalized


def as_shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, Sequence) and not isinstance(shape, str):
        return tuple(operator.index(s) for s in shape)
    return (operator.index(shape),)


def _only_c_order(fn: object, order: str) -> None:
    if order not in ("C", "A", "K"):
        raise NotImplementedError(
            at_user_line(f"{numpy_name(fn)}(order={order!r}) is not supported")
        )


# --- reshape family -------------------------------------------------------------------
def resolve_shape(size: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """`shape` with its one `-1` entry filled in, checked against `size` like NumPy."""
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise ValueError(at_user_line("can only specify one unknown dimension"))
    if any(s < -1 for s in shape):
        raise ValueError(at_user_line("negative dimensions not allowed"))
    known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
    if unknown and known and size % known == 0:
        shape = tuple(size // known if s == -1 else s for s in shape)
    if -1 in shape or known != size and not unknown:
        raise ValueError(at_user_line(f"cannot reshape array of size {size} into shape {shape}"))
    return shape


def reshape_tensor(x: Tensor, shape: object) -> Tensor:
    measured = runtime_sizes.sizes_to_dims(shape)
    if measured is not None:
        return primitives.reshape(x, _reshape_to_sizes(x, shape))
    if None in x.shape:
        return primitives.reshape(x, _dynamic_reshape(x, as_shape(shape)))
    return primitives.reshape(x, resolve_shape(x.size or 0, as_shape(shape)))


def _dynamic_reshape(x: Tensor, shape: tuple[int, ...]) -> list:
    """The dims of a reshape of a tensor with dims unknown at trace time: the target's
    one -1 stands for the element count over its other (static) entries (a `Product`)."""
    from tracejit.frontend.staging.dims import Product, Unknown

    if shape.count(-1) == 1 and len(shape) == x.ndim:
        # the -1 stands for the one unknown dim: no reshape at all (`x[m].ravel()`)
        pairs = zip(shape, x.dims, strict=True)
        if all(s == d or (s == -1 and not isinstance(d, int)) for s, d in pairs):
            return list(x.dims)
    unknown = tuple(d for d in x.dims if not isinstance(d, int))
    known_source = math.prod(d for d in x.dims if isinstance(d, int))
    known_target = math.prod(s for s in shape if s != -1)
    problem = None
    if shape.count(-1) != 1 or any(s < -1 for s in shape):
        problem = "needs exactly one -1 (for the unknown size) and no other negative entry"
    elif any(isinstance(d, Unknown) for d in unknown):
        problem = "reshapes a dim only the kernel knows"
    elif known_target == 0:
        raise ValueError(at_user_line(f"cannot reshape array of shape {x.shape} into {shape}"))
    elif known_source % known_target:
        problem = f"needs the static sizes {known_source} to be a multiple of {known_target}"
    if problem is not None:
        raise NotImplementedError(
            at_user_line(f"np.reshape of shape {x.shape} to {shape} with unknown dims: {problem}")
        )
    times = known_source // known_target
    merged = unknown[0] if len(unknown) == 1 and times == 1 else Product(unknown, times)
    return [merged if s == -1 else s for s in shape]


def _reshape_to_sizes(x: Tensor, shape: Any) -> list:
    """The dims of a reshape to a shape naming run-time sizes (`x.reshape(x.shape[0], -1)`,
    frontend/staging/runtime_sizes.py): each is the dim it measures, which must be one of `x`'s
    dims unknown at trace time; a -1 stands for what is left of `x`'s size."""
    from tracejit.frontend.staging.dims import Product, Unknown

    entries = shape if isinstance(shape, tuple | list) else [shape]
    shape_text = "(" + ", ".join("?" if isinstance(t, Tensor) else str(t) for t in entries) + ")"

    def refuse(problem: str) -> NotImplementedError:
        return NotImplementedError(
            at_user_line(
                f"np.reshape of shape {x.shape} to {shape_text} (? a run-time size): {problem}"
            )
        )

    target = runtime_sizes.sizes_to_dims(shape)[0]  # type: ignore[index]  # one dims tuple per shape
    if any(isinstance(t, Tensor) for t in target):
        raise refuse("a size computed at run time (not x.shape[k] itself) is not supported")
    target = [t if not isinstance(t, int | np.integer) else operator.index(t) for t in target]
    remaining = [d for d in x.dims if not isinstance(d, int)]
    for dim in (t for t in target if not isinstance(t, int)):
        if dim not in remaining:
            raise refuse("a run-time size that is not one of the array's unknown dims")
        remaining.remove(dim)
    known_source = math.prod(d for d in x.dims if isinstance(d, int))
    known_target = math.prod(t for t in target if isinstance(t, int) and t != -1)
    holes = sum(1 for t in target if isinstance(t, int) and t == -1)
    if holes > 1 or any(isinstance(t, int) and t < -1 for t in target):
        raise ValueError(at_user_line("can only specify one unknown dimension"))
    if holes == 0:
        if remaining or known_source != known_target:
            raise ValueError(
                at_user_line(f"cannot reshape array of shape {x.shape} into the shape given")
            )
        return target
    if known_target == 0 or known_source % known_target:
        raise refuse(f"the static sizes {known_source} are not a multiple of {known_target}")
    # NumPy finds the -1 by dividing by the other sizes: one of 0 fails, even for no elements
    for entry in shape:
        if runtime_sizes.dim_of(entry) is not None:
            primitives.assert_true(
                entry != 0,
                at_user_line(
                    f"ValueError: cannot reshape array of size 0 into shape {shape_text} "
                    "(a run-time size in it is 0, and NumPy cannot tell the -1 then)"
                ),
            )
    times = known_source // known_target
    if not remaining:
        fill: object = times
    elif len(remaining) == 1 and times == 1:
        fill = remaining[0]
    elif any(isinstance(d, Unknown) for d in remaining):
        raise refuse("it reshapes a dim only the kernel knows")
    else:
        fill = Product(tuple(remaining), times)
    return [fill if isinstance(t, int) and t == -1 else t for t in target]


@implements(np.reshape)
def reshape(a: object, /, shape: object = None, order: str = "C", *, copy: object = None) -> Tensor:
    _only_c_order(np.reshape, order)
    x = tensor_of(a)
    return reshaped(x, reshape_tensor(x, shape))


@implements(np.ravel)
def ravel(a: object, order: str = "C") -> Tensor:
    _only_c_order(np.ravel, order)
    x = tensor_of(a)
    return reshaped(x, reshape_tensor(x, -1))


@implements(np.expand_dims)
def expand_dims(a: object, axis: object) -> Tensor:
    x = tensor_of(a)
    axes = normalize_axes(axis, x.ndim + (len(axis) if isinstance(axis, Sequence) else 1))
    sizes = iter(x.dims)
    shape = [1 if d in axes else next(sizes) for d in range(x.ndim + len(axes))]
    return reshaped(x, primitives.reshape(x, shape))


@implements(np.squeeze)
def squeeze(a: object, axis: object = None) -> Tensor:
    x = tensor_of(a)
    if axis is None:
        if None in x.shape:  # which dims NumPy drops would depend on the run-time sizes
            raise NotImplementedError(
                at_user_line(
                    "np.squeeze without axis= on a tensor with unknown (None) dims is not "
                    "supported: name the axes to drop"
                )
            )
        axes = tuple(d for d, s in enumerate(x.shape) if s == 1)
    else:
        axes = normalize_axes(axis, x.ndim)
    if any(x.shape[d] != 1 for d in axes):
        raise ValueError(
            at_user_line("cannot select an axis to squeeze out which has size not equal to one")
        )
    return reshaped(x, primitives.reshape(x, [s for d, s in enumerate(x.dims) if d not in axes]))


# --- axis permutations ------------------------------------------------------------------
@implements(np.transpose)
def transpose(a: object, axes: object = None) -> Tensor:
    x = tensor_of(a)
    if axes is None:
        return _permuted(x, list(range(x.ndim - 1, -1, -1)))
    axes = as_shape(axes)
    if len(axes) != x.ndim:
        raise ValueError(at_user_line("axes don't match array"))
    return _permuted(x, list(normalize_axes(axes, x.ndim)))


def _permuted(x: Tensor, permutation: list[int]) -> Tensor:
    """`x` with its axes permuted: a view, as in NumPy."""
    return permuted(x, primitives.transpose(x, permutation), permutation)


@implements(np.swapaxes)
def swapaxes(a: object, axis1: object, axis2: object) -> Tensor:
    x = tensor_of(a)
    i, j = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    permutation = list(range(x.ndim))
    permutation[i], permutation[j] = j, i
    return _permuted(x, permutation)


@implements(np.moveaxis)
def moveaxis(a: object, source: object, destination: object) -> Tensor:
    x = tensor_of(a)
    sources, destinations = normalize_axes(source, x.ndim), normalize_axes(destination, x.ndim)
    if len(sources) != len(destinations):
        raise ValueError(
            at_user_line(
                "`source` and `destination` arguments must have the same number of elements"
            )
        )
    order = [d for d in range(x.ndim) if d not in sources]
    for dest, src in sorted(zip(destinations, sources, strict=True)):
        order.insert(dest, src)
    return _permuted(x, order)


# --- joining ----------------------------------------------------------------------------
def _joined_dtype(
    fn: object, tensors: Sequence[Tensor], dtype: DTypeLike | None, casting: str,
) -> np.dtype:
    common = np.result_type(*(t.dtype for t in tensors))
    if dtype is None:
        return common
    dtype = np.dtype(dtype)
    for t in tensors:
        if not np.can_cast(t.dtype, dtype, casting=casting):  # type: ignore[arg-type]  # casting is one of NumPy's names
            raise TypeError(
                at_user_line(
                    f"Cannot cast array data from dtype('{t.dtype}') to dtype('{dtype}') "
                    f"according to the rule '{casting}'"
                )
            )
    return dtype


def _check_joinable(tensors: Sequence[Tensor], axis: int) -> None:
    first = tensors[0]
    for index, t in enumerate(tensors[1:], start=1):
        if t.ndim != first.ndim:
            raise ValueError(
                at_user_line(
                    "all the input array dimensions except for the concatenation axis must "
                    f"match exactly, but the array at index 0 has {first.ndim} dimension(s) "
                    f"and the array at index {index} has {t.ndim} dimension(s)"
                )
            )
        for d in range(first.ndim):
            if None in (t.shape[d], first.shape[d]):
                continue  # checked at run time (`_run_time_equal`)
            if d != axis and t.shape[d] != first.shape[d]:
                raise ValueError(
                    at_user_line(
                        "all the input array dimensions except for the concatenation axis "
                        f"must match exactly, but along dimension {d}, the array at index 0 "
                        f"has size {first.shape[d]} and the array at index {index} has size "
                        f"{t.shape[d]}"
                    )
                )


def _run_time_equal(tensors: Sequence[Tensor], axis: int) -> None:
    """Dims unknown at trace time off the joined axis must match: the caller checks."""
    from tracejit.frontend.staging.dims import require_equal
    from tracejit.frontend.staging.tracing import current_trace

    for d in range(tensors[0].ndim):
        if d != axis:
            require_equal([t.dims[d] for t in tensors], current_trace().dim_constraints)


def join(
    fn: object,
    arrays: Any,
    axis: object,
    dtype: DTypeLike | None = None,
    casting: str = "same_kind",
):
    """`np.concatenate(arrays, axis, dtype=dtype, casting=casting)`."""
    tensors = [tensor_of(a) for a in arrays]
    if not tensors:
        raise ValueError(at_user_line("need at least one array to concatenate"))
    if axis is None:
        tensors = [require_static(fn, t) for t in tensors]
        tensors, axis = [primitives.reshape(t, [t.size]) for t in tensors], 0
    if tensors[0].ndim == 0:
        raise ValueError(at_user_line("zero-dimensional arrays cannot be concatenated"))
    axis = normalize_axis(axis, tensors[0].ndim)
    _check_joinable(tensors, axis)
    _run_time_equal(tensors, axis)
    result_dtype = _joined_dtype(fn, tensors, dtype, casting)
    return primitives.concat([primitives.cast(t, result_dtype) for t in tensors], axis)


def _no_out(fn: object, out: object) -> None:
    if out is not None:
        raise NotImplementedError(at_user_line(f"{numpy_name(fn)}(..., out=...) is not supported"))


@implements(np.concatenate)
def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind") -> Tensor:
    _no_out(np.concatenate, out)
    return join(np.concatenate, arrays, axis, dtype, casting)


@implements(np.stack)
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind") -> Tensor:
    _no_out(np.stack, out)
    tensors = [tensor_of(a) for a in arrays]
    if not tensors:
        raise ValueError(at_user_line("need at least one array to stack"))
    if len({t.shape for t in tensors}) != 1:
        raise ValueError(at_user_line("all input arrays must have the same shape"))
    axis = normalize_axis(axis, tensors[0].ndim + 1)
    expanded = [expand_dims(t, axis) for t in tensors]
    return join(np.stack, expanded, axis, dtype, casting)


def _at_least(x: Tensor, ndim: int) -> Tensor:
    """NumPy's atleast_1d / atleast_2d shapes: () -> (1,) or (1, 1); (n,) -> (1, n). A view
    of `x` (leading new axes, `x[None, ...]`), as NumPy's is: writes to either are seen
    through the other."""
    if x.ndim >= ndim:
        return x
    return x[(None,) * (ndim - x.ndim) + (Ellipsis,)]


@implements(np.atleast_1d)
def atleast_1d(*arys: object):
    results = [_at_least(tensor_of(a), 1) for a in arys]
    return results[0] if len(results) == 1 else tuple(results)


@implements(np.atleast_2d)
def atleast_2d(*arys: object):
    results = [_at_least(tensor_of(a), 2) for a in arys]
    return results[0] if len(results) == 1 else tuple(results)


@implements(np.hstack)
def hstack(tup, *, dtype=None, casting="same_kind") -> Tensor:
    tensors = [_at_least(tensor_of(a), 1) for a in tup]
    axis = 0 if tensors and tensors[0].ndim == 1 else 1
    return join(np.hstack, tensors, axis, dtype, casting)


@implements(np.vstack)
def vstack(tup, *, dtype=None, casting="same_kind") -> Tensor:
    tensors = [_at_least(tensor_of(a), 2) for a in tup]
    return join(np.vstack, tensors, 0, dtype, casting)


# --- repetition ---------------------------------------------------------------------------
@implements(np.broadcast_to)
def broadcast_to(array: object, shape: object, subok: bool = False) -> Tensor:
    measured = runtime_sizes.sizes_to_dims(shape)
    if measured is not None:
        return _broadcast_to_sizes(tensor_of(array), *measured)
    x = static_tensor(np.broadcast_to, array)
    shape = as_shape(shape)
    if any(s < 0 for s in shape):
        raise ValueError(at_user_line("all elements of broadcast shape must be non-negative"))
    compatible = len(shape) >= x.ndim and all(
        s in (1, t) for s, t in zip(reversed(x.shape), reversed(shape), strict=False)
    )
    if not compatible:
        raise ValueError(
            at_user_line(f"operands could not be broadcast together: {x.shape} to {shape}")
        )
    # NumPy's result is a read-only view: later writes to `x` show through it
    result = make_view(
        x,
        primitives.broadcast_to(x, shape),
        lambda parent: primitives.broadcast_to(parent, shape),
        _never_written,
    )
    return refuse_writes(
        result,
        "assignment destination is read-only: np.broadcast_to returns a read-only view "
        "(as in NumPy); write into a copy (`np.broadcast_to(x, shape).copy()`)",
    )


def _never_written(parent: Tensor, new: Tensor) -> Tensor:
    raise AssertionError("a read-only view is never written")  # refuse_writes guards it


@implements(np.tile)
def tile(A: object, reps: Any) -> Tensor:
    x = static_tensor(np.tile, A)
    reps = as_shape(reps)
    if any(r < 0 for r in reps):
        raise ValueError(at_user_line("negative dimensions are not allowed"))
    ndim = max(x.ndim, len(reps))
    shape = (1,) * (ndim - x.ndim) + x.shape
    reps = (1,) * (ndim - len(reps)) + reps
    # (s0, s1) -> (1, s0, 1, s1) -> broadcast (r0, s0, r1, s1) -> (r0 * s0, r1 * s1)
    interleaved = [v for s in shape for v in (1, s)]
    repeated = [v for r, s in zip(reps, shape, strict=True) for v in (r, s)]
    spread = primitives.broadcast_to(primitives.reshape(x, interleaved), repeated)
    return primitives.reshape(spread, [r * s for r, s in zip(reps, shape, strict=True)])


@implements(np.repeat)
def repeat(a: object, repeats: object, axis: Any = None) -> Tensor:
    x = static_tensor(np.repeat, a)
    if isinstance(repeats, Tensor):
        raise TypeError(
            at_user_line(
                "np.repeat with repeats known only at run time is not supported by tracejit "
                "(the result shape would depend on the data)"
            )
        )
    if axis is None or x.ndim == 0:  # NumPy repeats a 0-d array as 1-d along axis 0 or -1
        x, axis = primitives.reshape(x, [x.size]), 0 if axis is None else axis
    axis = normalize_axis(axis, x.ndim)
    counts = np.asarray(repeats)
    if counts.size == 1:
        return _repeat_each(x, int(counts.reshape(-1)[0]), axis)
    # per-element counts known at trace time: gather the repeated positions
    positions = np.repeat(np.arange(x.shape[axis]), counts)  # NumPy checks the counts
    return primitives.gather(
        x, primitives.constant(positions), axis, "IndexError: np.repeat position"
    )


def _repeat_each(x: Tensor, count: int, axis: int) -> Tensor:
    """(.., n, ..) -> (.., n, count, ..) by broadcasting -> (.., n * count, ..)."""
    if count < 0:
        raise ValueError(at_user_line("repeats may not contain negative values."))
    shape = list(x.shape)
    with_unit = shape[: axis + 1] + [1] + shape[axis + 1 :]
    spread = shape[: axis + 1] + [count] + shape[axis + 1 :]
    expanded = primitives.broadcast_to(primitives.reshape(x, with_unit), spread)
    shape[axis] = shape[axis] * count  # type: ignore[operator]  # a static dim here
    return primitives.reshape(expanded, shape)


# --- differences ------------------------------------------------------------------------
@implements(np.diff)
def diff(
    a: object,
    n: Any = 1,
    axis: object = -1,
    prepend: object = np._NoValue,
    append: object = np._NoValue,
):
    """`np.diff`: `n` times `x[1:] - x[:-1]` along `axis` (`!=` for bools, as NumPy), after
    joining `prepend` and `append` (a scalar is broadcast to one slice along `axis`)."""
    from tracejit.frontend.numpy_api.indexing import getitem

    n = operator.index(n)
    if n == 0:  # `a` itself, as NumPy returns it
        return a if isinstance(a, Tensor) else tensor_of(a)
    if n < 0:
        raise ValueError(at_user_line(f"order must be non-negative but got {n}"))
    x = tensor_of(a)
    if x.ndim == 0:
        raise ValueError(at_user_line("diff requires input that is at least one dimensional"))
    axis = normalize_axis(axis, x.ndim)
    combined = [_diff_edge(prepend, x, axis), x, _diff_edge(append, x, axis)]
    parts = [part for part in combined if part is not None]
    if len(parts) > 1:
        x = join(np.concatenate, parts, axis)
    before = tuple(slice(None) for _ in range(axis))
    for _ in range(n):
        later, earlier = (
            getitem(x, (*before, slice(1, None))),
            getitem(x, (*before, slice(None, -1))),
        )
        # __array_function__: on Tensors these return a Tensor (NumPy's stubs say ndarray)
        x = dispatched(
            np.not_equal(later, earlier) if x.dtype == np.bool_ else np.subtract(later, earlier)
        )
    return x


def _diff_edge(edge: object, x: Tensor, axis: int) -> Tensor | None:
    """np.diff's `prepend`/`append`: None when not given; a scalar as one slice along `axis`."""
    if edge is np._NoValue:
        return None
    values = tensor_of(edge)
    if values.ndim != 0:
        return values
    if None in x.shape:
        raise NotImplementedError(
            at_user_line(
                "np.diff with a scalar prepend=/append= on an array with dims known only at "
                "run time is not supported: pass an array of the slice's shape"
            )
        )
    shape = [1 if d == axis else s for d, s in enumerate(x.shape)]
    return primitives.broadcast_to(values, shape)


# --- reversal, padding, triangles ----------------------------------------------------------
def reverse(x: Tensor, axes: Sequence[int]) -> Tensor:
    from tracejit.frontend.numpy_api.indexing import getitem

    return getitem(x, tuple(slice(None, None, -1 if d in axes else 1) for d in range(x.ndim)))


@implements(np.flip)
def flip(m: object, axis: object = None) -> Tensor:
    x = tensor_of(m)
    axes = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim)
    return reverse(x, axes)


@implements(np.fliplr)
def fliplr(m: object) -> Tensor:
    x = tensor_of(m)
    if x.ndim < 2:
        raise ValueError(at_user_line("Input must be >= 2-d."))
    return reverse(x, (1,))


@implements(np.flipud)
def flipud(m: object) -> Tensor:
    x = tensor_of(m)
    if x.ndim < 1:
        raise ValueError(at_user_line("Input must be >= 1-d."))
    return reverse(x, (0,))


def _pad_pairs(pad_width: object, ndim: int) -> list[tuple[int, int]]:
    """NumPy's `_as_pairs`: a scalar, a pair, or one pair per axis."""
    widths = np.asarray(pad_width)
    if widths.dtype.kind not in "iub":
        raise TypeError(at_user_line("`pad_width` must be of integral type."))
    if widths.size == 2 and widths.shape != (2, 1):
        widths = widths.reshape(-1)
    try:
        pairs = np.broadcast_to(widths, (ndim, 2))
    except ValueError:
        message = f"could not broadcast pad_width {pad_width!r} to ({ndim}, 2)"
        raise ValueError(at_user_line(message)) from None
    if (pairs < 0).any():
        raise ValueError(at_user_line("index can't contain negative values"))
    return [(int(lo), int(hi)) for lo, hi in pairs]


def _pad_value(x: Tensor, value: object) -> Tensor:
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise NotImplementedError(
                at_user_line("np.pad with a non-scalar tensor constant_values")
            )
        return primitives.cast(value, x.dtype)
    values = np.asarray(value)
    if values.size == 0 or (values != values.reshape(-1)[0]).any():
        raise NotImplementedError(
            at_user_line("np.pad with different constant_values per side is not supported")
        )
    holder = np.zeros((), x.dtype)
    holder[()] = values.reshape(-1)[0]  # NumPy's own assignment casting (and its errors)
    return primitives.constant(holder)


@implements(np.pad)
def pad(array: object, pad_width: object, mode: object = "constant", **kwargs: object) -> Tensor:
    x = static_tensor(np.pad, array)
    if mode != "constant":
        raise NotImplementedError(at_user_line(f"np.pad(mode={mode!r}) is not supported"))
    unknown = set(kwargs) - {"constant_values"}
    if unknown:
        raise ValueError(
            at_user_line(f"unsupported keyword arguments for mode 'constant': {unknown}")
        )
    pairs = _pad_pairs(pad_width, x.ndim)
    if all(p == (0, 0) for p in pairs):
        return x
    value = _pad_value(x, kwargs.get("constant_values", 0))
    return primitives.pad(x, value, [lo for lo, _ in pairs], [hi for _, hi in pairs])


def _triangle(fn: object, m: object, k: Any, lower: bool) -> Tensor:
    x = static_tensor(fn, m)
    if x.ndim == 0:
        raise ValueError(at_user_line(f"{numpy_name(fn)} needs an array of at least one dim"))
    # as NumPy: the mask has the last two dims' shape (a 1-D input of n gives n x n)
    # NumPy's stubs do not take *args for N, M (a static tensor's dims are ints)
    below = np.tri(*x.shape[-2:], k=operator.index(k) - (0 if lower else 1), dtype=bool)  # type: ignore[call-overload]  # static dims
    keep = below if lower else ~below
    # __array_function__: np.where of Tensors is a Tensor (NumPy's stubs say ndarray)
    mask = primitives.constant(keep)
    return dispatched(np.where(mask, x, primitives.constant(np.zeros(1, x.dtype))))


@implements(np.tril)
def tril(m: object, k: object = 0) -> Tensor:
    return _triangle(np.tril, m, k, lower=True)


@implements(np.triu)
def triu(m: object, k: object = 0) -> Tensor:
    return _triangle(np.triu, m, k, lower=False)


def _broadcast_to_sizes(x: Tensor, dims: list, witnesses: dict) -> Tensor:
    """`np.broadcast_to(x, shape)` for a shape naming run-time sizes (`x.shape[k]` of
    traced arrays, frontend/staging/runtime_sizes.py): each of `x`'s dims must be 1 or the dim the
    size measures (a read-only copy: `x` is not an array with unknown dims here)."""
    if any(isinstance(d, Tensor) for d in dims):
        raise NotImplementedError(
            at_user_line(
                "np.broadcast_to: a size computed at run time (not x.shape[k] itself) is not "
                "supported as a shape"
            )
        )
    dims = [d if not isinstance(d, int | np.integer) else operator.index(d) for d in dims]
    if any(isinstance(d, int) and d < 0 for d in dims):
        raise ValueError(at_user_line("all elements of broadcast shape must be non-negative"))
    pairs = zip(reversed(x.dims), reversed(dims), strict=False)
    if len(dims) < x.ndim or not all(s == 1 or s == t for s, t in pairs):
        raise NotImplementedError(
            at_user_line(
                f"np.broadcast_to of shape {x.shape} to a shape with run-time sizes: each dim "
                "must be 1 or the very dim the size measures"
            )
        )
    result = primitives.broadcast_to(x, dims, witnesses)
    return refuse_writes(
        result,
        "assignment destination is read-only: np.broadcast_to returns a read-only view "
        "(as in NumPy); write into a copy (`np.broadcast_to(x, shape).copy()`)",
    )
