"""NumPy's shape functions staged as `tj` shape ops.

Every function here is a composition of five primitives: `reshape`, `transpose`,
`strided_slice`, `concat` and `pad` (plus `broadcast_to` and, for `np.repeat` with
per-element counts and np.pad's copying modes, `gather`; np.pad's odd reflections, ramps
and statistics also stage NumPy's arithmetic and reductions). Argument checking follows
NumPy's own messages, so a bad call fails at trace time the way it fails in NumPy.
Results are new arrays, never views: writing through a view is not expressible in a
traced function anyway.
"""

from __future__ import annotations

import math
import operator
import warnings
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


def positions_along(x: Tensor, axis: int) -> Tensor:
    """`np.arange(x.shape[axis])` as intp, also for a dim only the kernel knows."""
    size = x.shape[axis]
    if size is not None:
        return primitives.constant(np.arange(size, dtype=np.intp))
    return counted_positions(x.dims[axis], (x.value, axis))


def counted_positions(dim: object, witness: tuple | None = None) -> Tensor:
    """0, 1, ..., n - 1 (intp) for a dim of n elements only the kernel knows (`witness`: a
    (tensor value, axis) of that size, as `primitives.broadcast_to` takes): a count of
    ones, which fusion makes one loop."""
    one = primitives.constant(np.asarray(1, np.intp))
    ones = primitives.broadcast_to(one, (dim,), None if witness is None else {0: witness})
    return dispatched(np.cumsum(ones)) - 1


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
    elif any(isinstance(d, Unknown) for d in unknown) and (
        len(unknown) > 1 or known_source != known_target
    ):  # one such dim kept as it is, with unit dims added or removed, needs no size
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
    """NumPy's `_as_pairs`: a scalar, a pair, one pair per axis, or (as NumPy 2.4) a dict of
    axis -> width or (before, after)."""
    if isinstance(pad_width, dict):
        per_axis: list[object] = [(0, 0)] * ndim
        for axis, width in pad_width.items():
            match width:
                case int(both):
                    per_axis[axis] = both, both
                case tuple((int(before), int(after))):
                    per_axis[axis] = before, after
                case _:  # NumPy's typing.assert_never
                    message = f"Expected code to be unreachable, but got: {width!r}"
                    raise AssertionError(at_user_line(message))
        pad_width = per_axis
    widths = np.asarray(pad_width)
    if widths.dtype.kind != "i":
        raise TypeError(at_user_line("`pad_width` must be of integral type."))
    return _as_pairs(widths, "pad_width", ndim)


def _as_pairs(values: np.ndarray, name: str, ndim: int) -> list[tuple[int, int]]:
    """Non-negative integers broadcast to one (before, after) pair per axis, as NumPy."""
    if values.size == 2 and values.shape != (2, 1):
        values = values.reshape(-1)
    try:
        pairs = np.broadcast_to(values, (ndim, 2))
    except ValueError:
        message = f"could not broadcast {name} of shape {values.shape} to ({ndim}, 2)"
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


# np.pad's modes and the keywords each takes (NumPy's `allowed_kwargs`)
_PAD_KEYWORDS: dict[str, tuple[str, ...]] = {
    "constant": ("constant_values",),
    "empty": (),
    "edge": (),
    "wrap": (),
    "linear_ramp": ("end_values",),
    "maximum": ("stat_length",),
    "mean": ("stat_length",),
    "median": ("stat_length",),
    "minimum": ("stat_length",),
    "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",),
}
_PAD_STATISTICS: dict[str, Any] = {
    "maximum": np.amax,
    "minimum": np.amin,
    "mean": np.mean,
    "median": np.median,
}


@implements(np.pad)
def pad(array: object, pad_width: object, mode: object = "constant", **kwargs: object) -> Tensor:
    """`np.pad` in every mode but a function: axis after axis, as NumPy pads, so the corners
    come from the axes padded before. 'edge', 'wrap' and even 'reflect'/'symmetric' copy
    elements: one gather per axis from the source positions NumPy's own padding of
    `np.arange(n)` gives. Odd reflections, ramps and statistics are computed as NumPy
    computes them (the same operations in the same dtypes); 'empty' pads with zeros."""
    x = static_tensor(np.pad, array)
    pairs = _pad_pairs(pad_width, x.ndim)
    if callable(mode):
        raise NotImplementedError(
            at_user_line("np.pad with a function as `mode` is not supported by tracejit")
        )
    if not isinstance(mode, str) or mode not in _PAD_KEYWORDS:
        raise ValueError(at_user_line(f"mode '{mode}' is not supported"))
    unknown = set(kwargs) - set(_PAD_KEYWORDS[mode])
    if unknown:
        raise ValueError(
            at_user_line(f"unsupported keyword arguments for mode '{mode}': {unknown}")
        )
    if mode in ("constant", "empty"):
        if all(p == (0, 0) for p in pairs):
            return x
        if mode == "constant":
            value = _pad_value(x, kwargs.get("constant_values", 0))
        else:  # NumPy leaves the pad area undefined
            value = primitives.constant(np.zeros((), x.dtype))
        return primitives.pad(x, value, [lo for lo, _ in pairs], [hi for _, hi in pairs])
    if 0 in x.shape:
        return _pad_empty(x, pairs)
    if mode == "linear_ramp":
        ends = _end_value_pairs(kwargs.get("end_values", 0), x.ndim)
        for axis, (lo, hi) in enumerate(pairs):
            x = _pad_ramps(x, axis, lo, hi, ends[axis])
        return x
    if mode in _PAD_STATISTICS:
        if x.dtype.kind == "c" and mode != "mean":
            raise NotImplementedError(
                at_user_line(
                    f"np.pad(mode='{mode}') of complex numbers is not supported by tracejit "
                    "(NumPy orders them lexicographically)"
                )
            )
        lengths = _stat_length_pairs(kwargs.get("stat_length"), x.ndim)
        for axis, (lo, hi) in enumerate(pairs):
            x = _pad_statistic(x, axis, lo, hi, lengths[axis], mode)
        return x
    odd = mode in ("reflect", "symmetric") and _is_odd(kwargs.get("reflect_type", "even"))
    for axis, (lo, hi) in enumerate(pairs):
        if lo == hi == 0:
            continue
        if odd and _static_dims(x)[axis] > 1:  # NumPy extends a single element as 'edge'
            x = _pad_odd_reflection(x, axis, lo, hi, include_edge=mode == "symmetric")
        else:
            x = _pad_by_gather(x, axis, lo, hi, mode)
    return x


def _is_odd(reflect_type: object) -> bool:
    """NumPy reflects 'odd' for reflect_type='odd' and 'even' for anything else."""
    if isinstance(reflect_type, Tensor):
        raise NotImplementedError(at_user_line("np.pad with a traced reflect_type"))
    return bool(reflect_type == "odd")


def _pad_empty(x: Tensor, pairs: list[tuple[int, int]]) -> Tensor:
    """NumPy's padding of an array without elements (modes but 'constant' and 'empty')."""
    for axis, (n, pair) in enumerate(zip(x.shape, pairs, strict=True)):
        if n == 0 and any(pair):
            raise ValueError(
                at_user_line(
                    f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'"
                )
            )
    if all(p == (0, 0) for p in pairs):
        return x
    shape = [lo + n + hi for (lo, hi), n in zip(pairs, _static_dims(x), strict=True)]
    return primitives.constant(np.zeros(shape, x.dtype))


def _static_dims(x: Tensor) -> list[int]:
    """The dims of `x`, which `static_tensor` made sure are known at trace time."""
    dims = [d for d in x.shape if d is not None]
    assert len(dims) == x.ndim, x.shape
    return dims


def _along(x: Tensor, axis: int, start: int, count: int, step: int = 1) -> Tensor:
    """`count` elements of `axis` from `start` by `step` (all of the other axes)."""
    starts, steps, counts = [0] * x.ndim, [1] * x.ndim, _static_dims(x)
    starts[axis], steps[axis], counts[axis] = start, step, count
    return primitives.strided_slice(x, starts, steps, counts)


def _pad_by_gather(x: Tensor, axis: int, lo: int, hi: int, mode: str) -> Tensor:
    """'edge', 'wrap' and even 'reflect'/'symmetric' (and a single element reflected):
    NumPy's padding of `np.arange(n)` is the source position of every element."""
    positions = np.pad(np.arange(_static_dims(x)[axis]), (lo, hi), mode=mode)  # type: ignore[call-overload]  # one of NumPy's modes
    return primitives.gather(x, primitives.constant(positions), axis, "IndexError: np.pad")


def _pad_odd_reflection(x: Tensor, axis: int, lo: int, hi: int, include_edge: bool) -> Tensor:
    """NumPy's `_set_reflect_both` loop with reflect_type='odd': each round reflects a chunk of
    the values so far (at most the original period) as `2 * edge - chunk`, so widths beyond
    the axis reflect values reflected before, with NumPy's roundings."""
    n = _static_dims(x)[axis]
    left, right = lo, hi
    while left > 0 or right > 0:
        length = _static_dims(x)[axis]
        # whole periods only (for 'reflect', of the n - 1 elements between the edges)
        period = length // n * n if include_edge else (length - 1) // (n - 1) * (n - 1)
        before = after = None
        if left > 0:
            count = min(period, left)
            chunk = _along(x, axis, count - 1 if include_edge else count, count, -1)
            before = _odd_reflection(_along(x, axis, 0, 1), chunk, x.dtype)
            left -= count
        if right > 0:
            count = min(period, right)
            chunk = _along(x, axis, length - 1 if include_edge else length - 2, count, -1)
            after = _odd_reflection(_along(x, axis, length - 1, 1), chunk, x.dtype)
            right -= count
        x = primitives.concat([p for p in (before, x, after) if p is not None], axis)
    return x


def _odd_reflection(edge: Tensor, chunk: Tensor, dtype: np.dtype) -> Tensor:
    """NumPy's `2 * edge - chunk`, stored into the array's dtype (bools compute in int64)."""
    # __array_ufunc__: ufuncs of Tensors are Tensors (NumPy's stubs say ndarray)
    return primitives.cast(dispatched(np.subtract(np.multiply(2, edge), chunk)), dtype)


def _end_value_pairs(end_values: object, ndim: int) -> list[tuple[Any, Any]]:
    """NumPy's `_as_pairs` of `end_values`: one value or a pair give NumPy scalars, one pair
    per axis Python numbers (which NumPy 2 promotes as weak scalars)."""
    if _contains_tensor(end_values):
        raise NotImplementedError(
            at_user_line("np.pad(mode='linear_ramp') with traced end_values is not supported")
        )
    values = np.array(end_values)
    if values.ndim < 3 and values.size == 1:
        value = values.ravel()[0]
        return [(value, value)] * ndim
    if values.ndim < 3 and values.size == 2 and values.shape != (2, 1):
        first, second = values.ravel()
        return [(first, second)] * ndim
    try:
        return [tuple(pair) for pair in np.broadcast_to(values, (ndim, 2)).tolist()]
    except ValueError:
        message = f"could not broadcast end_values of shape {values.shape} to ({ndim}, 2)"
        raise ValueError(at_user_line(message)) from None


def _pad_ramps(x: Tensor, axis: int, lo: int, hi: int, ends: tuple[Any, Any]) -> Tensor:
    n = _static_dims(x)[axis]
    parts = [x]
    if lo > 0:
        parts.insert(0, _ramp(x, axis, lo, ends[0], _along(x, axis, 0, 1), reverse=False))
    if hi > 0:
        parts.append(_ramp(x, axis, hi, ends[1], _along(x, axis, n - 1, 1), reverse=True))
    return primitives.concat(parts, axis)


def _ramp(x: Tensor, axis: int, width: int, start: Any, edge: Tensor, reverse: bool) -> Tensor:
    """`np.linspace(start, edge, width, endpoint=False, dtype=x.dtype, axis=axis)` with
    NumPy's operations: in the dtype linspace computes in, `k * step` unless some step of
    the edge is 0 (then `k / width * delta`), plus `start`, floored for integer dtypes;
    reversed along `axis` for the ramp after the array."""
    shape = [width if d == axis else 1 for d in range(x.ndim)]
    dtype = np.linspace(start, np.zeros(1, x.dtype), 1, endpoint=False).dtype
    begin = primitives.constant(np.asarray(start).astype(dtype))
    count = np.arange(0, width, dtype=dtype)
    fraction = count.copy()
    fraction /= width
    if reverse:
        count, fraction = count[::-1], fraction[::-1]
    # __array_ufunc__: ufuncs of Tensors are Tensors (NumPy's stubs say ndarray)
    delta = dispatched(np.subtract(primitives.cast(edge, dtype), begin))
    step = dispatched(np.divide(delta, primitives.constant(np.asarray(width, dtype))))
    any_zero = dispatched(np.any(np.equal(step, 0)))
    by_step = np.multiply(primitives.constant(count.reshape(shape)), step)
    by_delta = np.multiply(primitives.constant(fraction.reshape(shape)), delta)
    ramp = dispatched(np.add(np.where(any_zero, by_delta, by_step), begin))
    if np.issubdtype(x.dtype, np.integer):
        ramp = dispatched(np.floor(ramp))
    return primitives.cast(ramp, x.dtype)


def _stat_length_pairs(stat_length: object, ndim: int) -> list[tuple[int | None, int | None]]:
    """NumPy's `_as_pairs(stat_length, as_index=True)`: None (the whole axis) or lengths
    rounded to integers."""
    if stat_length is None:
        return [(None, None)] * ndim
    if _contains_tensor(stat_length):
        raise NotImplementedError(
            at_user_line("np.pad with a traced stat_length is not supported (it sets shapes)")
        )
    lengths = np.round(np.array(stat_length)).astype(np.intp, copy=False)
    return list(_as_pairs(lengths, "stat_length", ndim))


def _pad_statistic(
    x: Tensor, axis: int, lo: int, hi: int, lengths: tuple[int | None, int | None], mode: str
) -> Tensor:
    """NumPy's `_get_stats`: the statistic of the first and the last `stat_length` elements
    (at most the axis), rounded for integer dtypes, repeated over the pad widths."""
    n = _static_dims(x)[axis]
    first, last = (n if length is None or length > n else length for length in lengths)
    function = _PAD_STATISTICS[mode]
    if (first == 0 or last == 0) and function in (np.amax, np.amin):
        raise ValueError(at_user_line("stat_length of 0 yields no value for padding"))
    parts = [x]
    if lo > 0:
        before = _statistic(x, axis, 0, first, function)
        parts.insert(0, _spread(before, x, axis, lo))
    if hi > 0:
        if first == last == n and lo > 0:
            after = before
        else:
            after = _statistic(x, axis, n - last, last, function)
        parts.append(_spread(after, x, axis, hi))
    return primitives.concat(parts, axis)


def _spread(value: Tensor, x: Tensor, axis: int, width: int) -> Tensor:
    """`value` (one element along `axis`) broadcast to `x`'s shape but `width` along `axis`."""
    shape = _static_dims(x)
    shape[axis] = width
    return primitives.broadcast_to(value, shape)


def _statistic(x: Tensor, axis: int, start: int, count: int, function: Any) -> Tensor:
    """`function` of `count` elements of `axis` from `start`, kept as a dim of 1, in `x`'s dtype."""
    if count == 0:  # the statistic of nothing: NumPy's (a NaN) cast as NumPy casts it
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            value = function(np.zeros(0, x.dtype))
            if np.issubdtype(x.dtype, np.integer):
                value = np.round(value)
            held = np.asarray(value).astype(x.dtype)
        return primitives.constant(held.reshape([1] * x.ndim))
    # __array_function__: NumPy functions of Tensors are Tensors (NumPy's stubs say ndarray)
    value = dispatched(function(_along(x, axis, start, count), axis=axis, keepdims=True))
    if np.issubdtype(x.dtype, np.integer) and value.dtype != x.dtype:
        value = dispatched(np.rint(value))
    return primitives.cast(value, x.dtype)


def _triangle(fn: object, m: object, k: Any, lower: bool) -> Tensor:
    x = tensor_of(m)
    if x.ndim == 0:
        raise ValueError(at_user_line(f"{numpy_name(fn)} needs an array of at least one dim"))
    # as NumPy: the mask has the last two dims' shape (a 1-D input of n gives n x n)
    rows = positions_along(x, max(x.ndim - 2, 0))
    columns = positions_along(x, x.ndim - 1)
    # __array_function__: NumPy functions of Tensors are Tensors (NumPy's stubs say ndarray)
    offset = dispatched(np.subtract(columns[None, :], rows[:, None]))
    keep = offset <= operator.index(k) if lower else offset >= operator.index(k)
    return dispatched(np.where(keep, x, primitives.constant(np.zeros(1, x.dtype))))


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
