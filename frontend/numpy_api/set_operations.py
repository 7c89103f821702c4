"""Set operations on arrays: `np.isin`, `np.setdiff1d`, `np.intersect1d`, `np.union1d`,
built on `np.unique` (whose result has a size the kernel computes) as NumPy's
`lib/_arraysetops_impl.py` builds them.

`np.isin(element, test_elements)` compares in NumPy's way (`==` in the operands' common
dtype: NaN is in nothing, -0.0 equals 0.0). Against a small test array (or complex numbers,
or integers of mixed signedness, which NumPy compares exactly) it is one broadcast
comparison, `any(element[..., None] == test)`; against a larger one the test elements are
sorted once and each element looked up by a binary search (`tj.search_sorted`). `kind=` is
checked as NumPy checks it and changes nothing else; `assume_unique=True` only lets NumPy
skip work, the answer is the same (tracejit's is the right one even for arrays that are not
unique, where NumPy's is unspecified).

`np.setdiff1d(a, b)` is `unique(a)[~isin(unique(a), unique(b))]`, `np.intersect1d(a, b)` the
values of `unique(a)` in `unique(b)` (in the operands' common dtype; `return_indices=`
gives where each first occurs in `a` and `b`), `np.union1d(a, b)` is `unique` of both
joined (for a joined size the kernel computes, sorted and the first of each run of equal
values kept, as `np.unique` does). Their sizes are the data's, so the results have sizes
the kernel computes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.indexing import getitem
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.searching import search
from tracejit.frontend.numpy_api.shapes import join, reshape_tensor, tensor_of
from tracejit.frontend.staging import primitives, runtime_sizes
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched

# At most this many comparisons per element (or in all) are made as one broadcast
# comparison; beyond, the test elements are sorted and searched.
BROADCAST_TESTS = 16
BROADCAST_PAIRS = 4096


def _flat(x: Tensor) -> Tensor:
    return x if x.ndim == 1 else reshape_tensor(x, -1)


def _check_kind(kind: object, e: Tensor, t: Tensor) -> None:
    if kind not in (None, "sort", "table"):
        raise ValueError(
            at_user_line(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
        )
    if kind == "table" and not all(x.dtype.kind in "uib" for x in (e, t)):
        raise ValueError(
            at_user_line(
                "The 'table' method is only supported for boolean or integer arrays. "
                "Please select 'sort' or None for kind."
            )
        )


def _searchable(e: Tensor, t: Tensor) -> bool:
    """Whether `==` in the common dtype is what sorting and searching in it decide: not
    for complex numbers (not searched) nor for signed against unsigned integers (NumPy
    compares those exactly; their common dtype may be float64)."""
    common = np.result_type(e.dtype, t.dtype)
    if common.kind == "c":
        return False
    return not (common.kind == "f" and e.dtype.kind in "iu" and t.dtype.kind in "iu")


def contained(e: Tensor, t: Tensor, *, sorted_tests: bool = False) -> Tensor:
    """Whether each element of `e` (any shape) equals one of the 1-D `t`, of `e`'s shape."""
    m = t.shape[0]
    n = e.size
    small = m is not None and (m <= BROADCAST_TESTS or (n is not None and n * m <= BROADCAST_PAIRS))
    if small or not _searchable(e, t):
        pairs = np.equal(getitem(e, (Ellipsis, None)), t)
        return dispatched(np.any(pairs, axis=-1))
    common = np.result_type(e.dtype, t.dtype)
    tests = primitives.cast(t, common)
    if not sorted_tests:
        tests = dispatched(np.sort(tests))
    values = primitives.cast(_flat(e), common)
    position = search(tests, values, "left")  # the first test element >= each value
    padded = join(np.isin, [tests, primitives.constant(np.zeros(1, common))], 0)
    below = np.less(position, runtime_sizes.dim_size(tests, 0))
    found = dispatched(np.logical_and(below, np.equal(getitem(padded, position), values)))
    return primitives.reshape(found, e.dims)


@implements(np.isin)
def isin(
    element: object, test_elements: object, assume_unique: bool = False, invert: bool = False,
    *, kind: Any = None,
) -> Tensor:  # fmt: skip
    e, t = tensor_of(element), _flat(tensor_of(test_elements))
    _check_kind(kind, e, t)
    found = contained(e, t)
    return dispatched(np.logical_not(found)) if invert else found


def _unique(x: object, **options: bool) -> Any:
    return np.unique(tensor_of(x), **options)  # type: ignore[call-overload]  # Tensor dispatch


@implements(np.setdiff1d)
def setdiff1d(ar1: object, ar2: object, assume_unique: bool = False) -> Tensor:
    if assume_unique:
        a, b = _flat(tensor_of(ar1)), _flat(tensor_of(ar2))
    else:
        a, b = _unique(ar1), _unique(ar2)
    keep = dispatched(np.logical_not(contained(a, b, sorted_tests=not assume_unique)))
    return getitem(a, keep)


@implements(np.union1d)
def union1d(ar1: object, ar2: object) -> Tensor:
    joined = join(np.union1d, [_flat(tensor_of(ar1)), _flat(tensor_of(ar2))], 0)
    if joined.shape[0] is not None:
        return dispatched(np.unique(joined))
    return _distinct(dispatched(np.sort(joined)))


def _distinct(s: Tensor) -> Tensor:
    """np.unique of the sorted `s` of a size only the kernel knows (np.unique compares all
    pairs then, which a joined size does not allow): the first of each run of equal
    values, NaNs equal (a mask of `s`'s length, empty too)."""
    head, later, earlier = s[:1], s[1:], s[:-1]
    first = np.equal(head, head)
    change = np.not_equal(later, earlier)
    if s.dtype.kind in "fc":
        first = np.logical_or(first, np.isnan(head))
        both_nan = np.logical_and(np.isnan(later), np.isnan(earlier))
        change = np.logical_and(change, np.logical_not(both_nan))
    return getitem(s, join(np.union1d, [dispatched(first), dispatched(change)], 0))


@implements(np.intersect1d)
def intersect1d(
    ar1: object, ar2: object, assume_unique: bool = False, return_indices: bool = False
) -> Any:
    x, y = tensor_of(ar1), tensor_of(ar2)
    common = np.result_type(x.dtype, y.dtype)
    if assume_unique:  # NumPy sorts the values (with where they are when return_indices)
        a, b = _flat(x), _flat(y)
        order_a = dispatched(np.argsort(a, kind="stable"))
        a = getitem(a, order_a)
        order_b = dispatched(np.argsort(b, kind="stable"))
        b = getitem(b, order_b)
    else:
        a, order_a = _unique(x, return_index=True)
        b, order_b = _unique(y, return_index=True)
    mask = contained(a, b, sorted_tests=True)
    values = primitives.cast(getitem(a, mask), common)
    if not return_indices:
        return values
    first = getitem(order_a, mask)
    # where each common value is in the sorted `b` (it is there), then in `y`
    in_b = search(primitives.cast(b, common), values, "left")
    return values, first, getitem(order_b, in_b)
