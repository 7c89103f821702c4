"""`np.sort` and `np.argsort` as `tj.sort` (radix sorts along the axis; merge sorts if short).

NumPy's order: ascending, NaN after every number; complex numbers by where their NaNs are,
then real part, then imaginary part (three stable sorts); `axis=None` sorts the flattened
array.
`kind=` and `stable=` are accepted and change nothing: tracejit always sorts stably, so
`np.argsort` gives `np.argsort(..., kind="stable")`'s positions. NumPy's default kind
("quicksort") does not promise an order for equal elements; the stable order is one it
may give, and the one to compare with. `ndarray.sort` sorts in place and is refused on a
traced array (write `t = np.sort(t)`); the sorted values never depend on the kind.
"""

from __future__ import annotations

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.registry import implements, unsupported
from tracejit.frontend.numpy_api.selection import take_along_axis
from tracejit.frontend.numpy_api.shapes import normalize_axis, reshape_tensor
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched

_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _sorted(
    what: str, numpy_fn: object, a: object, axis: object, kind: object, order: object,
) -> Tensor:
    if order is not None:
        raise unsupported(numpy_fn, "(..., order=...) (structured arrays)")
    if kind not in _KINDS:
        raise ValueError(
            at_user_line(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")
        )
    x = array_of(a)
    if axis is None:
        x, axis = reshape_tensor(x, -1), 0
    axis = normalize_axis(axis, x.ndim)
    if x.dtype.kind == "c":
        order = _lexicographic_order(x, axis)
        return order if what == "indices" else take_along_axis(x, order, axis)
    return primitives.sort(x, axis, what)


def _lexicographic_order(x: Tensor, axis: int) -> Tensor:
    """The stable order of complex numbers as NumPy sorts them: [R + Rj, R + nanj, nan + Rj,
    nan + nanj] (NumPy's `CDOUBLE_LT`): first by where the NaNs are, then by real part,
    then by imaginary part; three stable sorts, the last key first."""
    real, imag = dispatched(np.real(x)), dispatched(np.imag(x))
    nans = dispatched(2 * np.isnan(real).astype(np.int8) + np.isnan(imag).astype(np.int8))
    order = primitives.sort(imag, axis, "indices")
    for key in (real, nans):
        in_order = take_along_axis(key, order, axis)
        order = take_along_axis(order, primitives.sort(in_order, axis, "indices"), axis)
    return order


@implements(np.sort)
def sort(
    a: object,
    axis: object = -1,
    kind: object = None,
    order: object = None,
    *,
    stable: object = None,
):
    return _sorted("values", np.sort, a, axis, kind, order)


@implements(np.argsort)
def argsort(
    a: object,
    axis: object = -1,
    kind: object = None,
    order: object = None,
    *,
    stable: object = None,
):
    return _sorted("indices", np.argsort, a, axis, kind, order)
