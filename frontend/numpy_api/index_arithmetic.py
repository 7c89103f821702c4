"""Index arithmetic and coordinate grids: `np.unravel_index`, `np.ravel_multi_index` and
`np.meshgrid`.

`np.unravel_index(indices, shape, order)` divides each flat index by the dims' sizes (the
last dim first for C order) in int64; `np.ravel_multi_index(multi_index, dims, mode,
order)` sums each coordinate times its stride. The shape / dims must be known at trace
time; the indices may be traced. An index out of range raises NumPy's ValueError when the
function runs (`unravel_index` always; `ravel_multi_index` with `mode="raise"`, the
default); `mode="wrap"` takes coordinates modulo the dim, `mode="clip"` clips them, and a
tuple of modes gives one per dim, as in NumPy.

`np.meshgrid(*xi, copy=True, sparse=False, indexing="xy")`: each input flattened and
reshaped to lie along its own axis (the first two swapped for "xy"), then broadcast to the
full grid unless `sparse`. With `copy=False` the results are views of the inputs, as
NumPy's (the broadcast ones read-only).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import asarray
from tracejit.frontend.numpy_api.promotion import broadcast_all
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import broadcast_to, reshape, tensor_of
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched


def _as_indices(x: Tensor) -> Tensor:
    """NumPy's cast of indices to intp (`same_kind`: bools and integers only)."""
    if not np.can_cast(x.dtype, np.intp, casting="same_kind"):
        raise TypeError(at_user_line("only int indices permitted"))
    return primitives.cast(x, np.dtype(np.intp))


def _dims(shape: Any, what: str) -> tuple[int, ...]:
    if isinstance(shape, Tensor) or (
        isinstance(shape, list | tuple) and any(isinstance(s, Tensor) for s in shape)
    ):
        raise NotImplementedError(
            at_user_line(
                f"{what} with a shape known only at run time is not supported: pass Python "
                "ints (x.shape of a traced array with a static shape is fine)"
            )
        )
    if isinstance(shape, list | tuple):
        return tuple(operator.index(s) for s in shape)
    return (operator.index(shape),)


def _check_order(order: object) -> None:
    if order not in ("C", "F"):
        raise ValueError(at_user_line("only 'C' or 'F' order is permitted"))


@implements(np.unravel_index)
def unravel_index(indices: object, shape: Any, order: str = "C") -> tuple:
    dims = _dims(shape, "np.unravel_index")
    _check_order(order)
    flat = _as_indices(asarray(indices))
    size = int(np.prod(dims, dtype=np.int64))
    if flat.size != 0:
        inside = np.logical_and(np.greater_equal(flat, 0), np.less(flat, size))
        primitives.assert_true(
            dispatched(np.all(inside)),
            at_user_line(
                f"ValueError: index out of bounds for array with size {size} (np.unravel_index)"
            ),
        )
    coordinates: list[Tensor] = [flat] * len(dims)
    rest = flat
    for d in reversed(range(len(dims))) if order == "C" else range(len(dims)):
        if dims[d] == 0:  # no index is in range: the check above fails first
            coordinates[d] = rest
            continue
        coordinates[d] = dispatched(np.remainder(rest, dims[d]))
        rest = dispatched(np.floor_divide(rest, dims[d]))
    return tuple(coordinates)


_MODES = ("raise", "wrap", "clip")


@implements(np.ravel_multi_index)
def ravel_multi_index(multi_index: Any, dims: Any, mode: Any = "raise", order: str = "C") -> Tensor:
    sizes = _dims(dims, "np.ravel_multi_index")
    _check_order(order)
    modes = (mode,) * len(sizes) if isinstance(mode, str) else tuple(mode)
    for m in modes:
        if m not in _MODES:
            raise ValueError(
                at_user_line(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {m!r})")
            )
    if len(modes) != len(sizes):
        raise ValueError(at_user_line("mode must be a string or a sequence of modes"))
    coordinates = list(multi_index)
    if len(coordinates) != len(sizes):
        raise ValueError(
            at_user_line(f"parameter multi_index must be a sequence of length {len(sizes)}")
        )
    if any(s == 0 for s in sizes):
        raise ValueError(at_user_line("cannot unravel if shape has zero entries (is empty)."))
    if any(s < 0 for s in sizes) or _too_large(sizes):
        raise ValueError(
            at_user_line(
                "invalid dims: array size defined by dims is larger than the maximum possible size."
            )
        )
    tensors = [_as_indices(asarray(c)) for c in coordinates]
    if tensors:
        tensors = broadcast_all(tensors)
    strides = _strides(sizes, order)
    total: Tensor | None = None
    for coordinate, size, stride, m in zip(tensors, sizes, strides, modes, strict=True):
        if m == "wrap":
            coordinate = dispatched(np.remainder(coordinate, size))
        elif m == "clip":
            coordinate = dispatched(np.clip(coordinate, 0, size - 1))
        elif coordinate.size != 0:
            inside = np.logical_and(np.greater_equal(coordinate, 0), np.less(coordinate, size))
            primitives.assert_true(
                dispatched(np.all(inside)),
                at_user_line("ValueError: invalid entry in coordinates array"),
            )
        term = dispatched(np.multiply(coordinate, np.intp(stride)))
        total = term if total is None else dispatched(np.add(total, term))
    if total is None:
        return primitives.constant(np.intp(0))
    return total


def _strides(sizes: tuple[int, ...], order: str) -> list[int]:
    strides, step = [0] * len(sizes), 1
    for d in reversed(range(len(sizes))) if order == "C" else range(len(sizes)):
        strides[d] = step
        step *= sizes[d]
    return strides


def _too_large(sizes: tuple[int, ...]) -> bool:
    total = 1
    for s in sizes:
        total *= s
    return total > np.iinfo(np.intp).max


@implements(np.meshgrid)
def meshgrid(*xi: object, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> Any:
    if indexing not in ("xy", "ij"):
        raise ValueError(at_user_line("Valid values for `indexing` are 'xy' and 'ij'."))
    ndim = len(xi)
    ones = (1,) * ndim
    output = [reshape(tensor_of(x), ones[:i] + (-1,) + ones[i + 1 :]) for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:  # the first two axes swapped
        output[0] = reshape(output[0], (1, -1) + ones[2:])
        output[1] = reshape(output[1], (-1, 1) + ones[2:])
    if not sparse and any(None in o.shape for o in output):
        output = _grids_of_run_time_sizes(output)
    elif not sparse:
        shape = np.broadcast_shapes(*(o.shape for o in output))
        output = [broadcast_to(o, shape) for o in output]
    if copy:  # new arrays (registry.py returns what this gives: np.meshgrid may alias)
        return tuple(Tensor(o.value, o.dims) for o in output)
    return output if sparse else tuple(output)


def _grids_of_run_time_sizes(output: list[Tensor]) -> list[Tensor]:
    """The sparse grids broadcast to the full grid: axis k is as long as the one input
    lying along it, whose value gives that size at run time."""
    ndim = len(output)
    along = [next((o for o in output if o.dims[k] != 1), output[0]) for k in range(ndim)]
    dims = [o.dims[k] for k, o in enumerate(along)]
    sizes = {k: (o.value, k) for k, o in enumerate(along)}
    return [primitives.broadcast_to(o, dims, sizes) for o in output]
