"""`np.unique`: the sorted distinct values of an array, by comparing every pair.

tracejit has no sort op yet, so `np.unique(x)` is built from comparisons of every pair
of the n elements of the flattened x, `v` (NaNs equal to each other and after every
number, as NumPy's `equal_nan=True` and sort order say), each an n x n comparison summed
over one axis:

    first[i]  no earlier element has v[i]'s value        (the first occurrences)
    slot[i]   elements sorting before v[i], earlier      (its place in a stable sort:
              equal ones included                         a permutation of 0..n-1)
    order[p]  the i whose slot is p                      (the stable argsort of v)
    result    v[order][first[order]]                     (the first of each value, sorted)

`return_index` is `order` at those places, `return_inverse` the number of distinct
values before each element's (in x's shape, as NumPy 2), `return_counts` how many
elements share each value. With a static n the comparisons fuse into the reductions
(no n x n array); only the last selection has a size that depends on the data. It costs
O(n^2) time, so large inputs are refused (at trace time, or by the kernel for sizes only
it knows, whose comparisons are arrays) rather than run for minutes; a sort-based
version will lift that.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend import primitives
from tracejit.frontend.numpy_api.nonzero import column
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import tensor_of
from tracejit.frontend.source_location import at_user_line
from tracejit.frontend.tensor import Tensor

# The most elements np.unique takes: of a static size / of a size only the kernel knows
# (its n x n comparisons are arrays then: fusion needs static shapes).
UNIQUE_LIMIT = 1 << 14
UNIQUE_LIMIT_RUN_TIME = 1 << 11


def _too_large(limit: int) -> str:
    return (
        f"np.unique of more than {limit} elements is not supported yet (tracejit compares "
        "every pair of elements until it can sort)"
    )

# NumPy's stubs do not model __array_function__: np.<f> of Tensors below is a Tensor.


@implements(np.unique)
def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: Any = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,  # NumPy allows any order when False: sorted is one
) -> Any:
    if axis is not None or not equal_nan:
        raise NotImplementedError(
            at_user_line("np.unique with axis= or equal_nan=False is not supported")
        )
    x = tensor_of(ar)
    v = _flat(x)
    _check_size(v)
    position = _positions(v)
    same = _same(v[:, None], v[None, :])  # [i, j]: v_j is v_i's value
    before = np.less(position[None, :], position[:, None])  # [i, j]: j comes before i
    first = np.logical_not(np.any(np.logical_and(same, before), axis=1))
    less = _less(v[None, :], v[:, None])  # [i, j]: v_j sorts before v_i
    slot = np.sum(np.logical_or(less, np.logical_and(same, before)), axis=1)
    # order[p]: the one i in slot p (a sum of one term: argmax would refuse n = 0)
    order = np.sum(np.where(np.equal(slot[None, :], position[:, None]), position, 0), axis=1)
    kept = first[order]  # the first of each value, in sorted order
    result = v[order][kept]
    outputs = [result]
    if return_index:
        outputs.append(order[kept])
    if return_inverse:
        inverse = np.sum(np.logical_and(first[None, :], less), axis=1)
        outputs.append(primitives.reshape(inverse, x.dims))
    if return_counts:
        outputs.append(np.sum(same, axis=1)[order][kept])
    return tuple(outputs) if len(outputs) > 1 else result


def _flat(x: Tensor) -> Tensor:
    return x if x.ndim == 1 else np.ravel(x)  # type: ignore[return-value]


def _same(a: Tensor, b: Tensor) -> Tensor:
    """a == b, NaN equal to NaN (broadcasting)."""
    if a.dtype.kind != "f":
        return np.equal(a, b)  # type: ignore[return-value]
    return np.logical_or(np.equal(a, b), np.logical_and(np.isnan(a), np.isnan(b)))  # type: ignore[return-value]


def _less(a: Tensor, b: Tensor) -> Tensor:
    """a < b in NumPy's sort order: NaN after every number (broadcasting)."""
    if a.dtype.kind != "f":
        return np.less(a, b)  # type: ignore[return-value]
    return np.logical_or(np.less(a, b), np.logical_and(np.isnan(b), np.logical_not(np.isnan(a))))  # type: ignore[return-value]


def _positions(v: Tensor) -> Tensor:
    """`np.arange(len(v))`: a constant, or, for a length only the kernel knows, the
    indices of a `True` per element of `v` (which are 0..n-1, so they take `v`'s dim)."""
    if v.shape[0] is not None:
        return primitives.constant(np.arange(v.shape[0], dtype=np.intp))
    every = primitives.broadcast_to(primitives.constant(True), v.dims, {0: (v.value, 0)})
    return Tensor(column(primitives.nonzero(every), 0).value, dims=v.dims)


def _check_size(v: Tensor) -> None:
    if v.shape[0] is not None:
        if v.shape[0] > UNIQUE_LIMIT:
            raise NotImplementedError(at_user_line(_too_large(UNIQUE_LIMIT)))
        return
    ones = primitives.broadcast_to(primitives.constant(np.intp(1)), v.dims, {0: (v.value, 0)})
    small = np.less_equal(np.sum(ones), UNIQUE_LIMIT_RUN_TIME)
    message = f"NotImplementedError: {_too_large(UNIQUE_LIMIT_RUN_TIME)}"
    primitives.assert_true(small, at_user_line(message))
