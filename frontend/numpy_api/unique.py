"""`np.unique`: the sorted distinct values of an array.

Of a size known at trace time, from a stable sort (O(n log n)). With `v` the flattened
array, `order = argsort(v)` (stable, NaN last) and `s = v[order]`:

    first[k]   k = 0, or s[k] differs from s[k - 1] (NaNs equal, as `equal_nan=True`)
    last[k]    k = n - 1, or s[k] differs from s[k + 1]
    result     s[first]                       (a size only the kernel knows)
    index      order[first]                   (where each value occurs first)
    inverse    (cumsum(first) - 1)[argsort(order)]   (each element's value's place,
               in x's shape as NumPy 2; argsort of a permutation is its inverse)
    counts     flatnonzero(last) - flatnonzero(first) + 1

Of a size only the kernel knows (`np.unique(x[x > 0])`), from comparisons of every pair
of the n elements, each an n x n comparison summed over one axis:

    first[i]  no earlier element has v[i]'s value        (the first occurrences)
    slot[i]   elements sorting before v[i], earlier      (its place in a stable sort:
              equal ones included                         a permutation of 0..n-1)
    order[p]  the i whose slot is p                      (the stable argsort of v)
    result    v[order][first[order]]                     (the first of each value, sorted)

That costs O(n^2), so it is refused beyond UNIQUE_LIMIT_RUN_TIME elements (by the kernel)
rather than run for minutes.
"""

from __future__ import annotations

import numpy as np

from tracejit.frontend.numpy_api.nonzero import column
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import tensor_of
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched

# The most elements np.unique takes of a size only the kernel knows (its n x n
# comparisons are arrays then).
UNIQUE_LIMIT_RUN_TIME = 1 << 11


def _too_large(limit: int) -> str:
    return (
        f"np.unique of more than {limit} elements of a size known only at run time is not "
        "supported yet (tracejit compares every pair of them); give the array a static size"
    )


# NumPy's stubs do not model __array_function__: np.<f> of Tensors below is a Tensor.


@implements(np.unique)
def unique(
    ar: object,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: object = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,  # NumPy allows any order when False: sorted is one
) -> object:
    if axis is not None or not equal_nan:
        raise NotImplementedError(
            at_user_line("np.unique with axis= or equal_nan=False is not supported")
        )
    x = tensor_of(ar)
    v = _flat(x)
    if v.shape[0] is not None:
        outputs = _by_sorting(x, v, return_index, return_inverse, return_counts)
    else:
        outputs = _by_pairs(x, v, return_index, return_inverse, return_counts)
    return tuple(outputs) if len(outputs) > 1 else outputs[0]


def _by_sorting(x: Tensor, v: Tensor, return_index, return_inverse, return_counts) -> list:
    if v.shape[0] == 0:
        empty = primitives.constant(np.zeros(0, np.intp))
        wanted = [return_index, return_inverse, return_counts]
        return [v] + [
            primitives.reshape(empty, x.dims) if i == 1 else empty
            for i, w in enumerate(wanted)
            if w
        ]
    order = np.argsort(v, kind="stable")
    s = v[order]
    one = primitives.constant(np.ones(1, np.bool_))
    changes = np.logical_not(_same(s[1:], s[:-1]))  # s[k + 1] differs from s[k]
    first = np.concatenate([one, changes])
    result = s[first]
    outputs = [result]
    if return_index:
        outputs.append(order[first])
    if return_inverse:
        group = dispatched(np.cumsum(first.astype(np.intp))) - 1
        outputs.append(primitives.reshape(group[np.argsort(order)], x.dims))
    if return_counts:
        last = np.concatenate([changes, one])  # the last of each run of equal values
        outputs.append(dispatched(np.flatnonzero(last)) - np.flatnonzero(first) + 1)
    return outputs


def _by_pairs(x: Tensor, v: Tensor, return_index, return_inverse, return_counts) -> list:
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
    return outputs


def _flat(x: Tensor) -> Tensor:
    return x if x.ndim == 1 else dispatched(np.ravel(x))


def _same(a: Tensor, b: Tensor) -> Tensor:
    """a == b, NaN equal to NaN (broadcasting)."""
    if a.dtype.kind != "f":
        return dispatched(np.equal(a, b))
    return dispatched(np.logical_or(np.equal(a, b), np.logical_and(np.isnan(a), np.isnan(b))))


def _less(a: Tensor, b: Tensor) -> Tensor:
    """a < b in NumPy's sort order: NaN after every number (broadcasting)."""
    if a.dtype.kind != "f":
        return dispatched(np.less(a, b))
    less = np.less(a, b)
    return dispatched(np.logical_or(less, np.logical_and(np.isnan(b), np.logical_not(np.isnan(a)))))


def _positions(v: Tensor) -> Tensor:
    """`np.arange(len(v))`: a constant, or, for a length only the kernel knows, the
    indices of a `True` per element of `v` (which are 0..n-1, so they take `v`'s dim)."""
    if v.shape[0] is not None:
        return primitives.constant(np.arange(v.shape[0], dtype=np.intp))
    every = primitives.broadcast_to(primitives.constant(True), v.dims, {0: (v.value, 0)})
    return Tensor(column(primitives.nonzero(every), 0).value, dims=v.dims)


def _check_size(v: Tensor) -> None:
    ones = primitives.broadcast_to(primitives.constant(np.intp(1)), v.dims, {0: (v.value, 0)})
    small = np.less_equal(np.sum(ones), UNIQUE_LIMIT_RUN_TIME)
    message = f"NotImplementedError: {_too_large(UNIQUE_LIMIT_RUN_TIME)}"
    primitives.assert_true(small, at_user_line(message))
