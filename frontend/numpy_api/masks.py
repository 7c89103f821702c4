"""Boolean-mask indexing `x[mask]`: a result whose length depends on the data.

NumPy reads a boolean array of k dims in a key as the k index arrays of `mask.nonzero()`:
along the k dims it covers, it keeps the elements where the mask is true, in row-major
order, and those k dims become one dim of length `count_nonzero(mask)`. Here that is one
`tj.gather` along the k dims merged into one, at the flat indices of the true elements
(`np.flatnonzero(mask)`, a `tj.nonzero`, numpy_api/nonzero.py):

    x[mask]     mask of x's shape     gather(ravel(x), flatnonzero(mask), axis=0)
    x[:, m]     m covers axis 1       gather(x, flatnonzero(m), axis=1)
    x[m, 0]     ints apply first      gather(x[:, 0], flatnonzero(m), axis=0)

A mask computed in the function selects a number of elements only the kernel knows (a
`Counted` dim, frontend/staging/dims.py): selections made with the same mask have the same
length, so `x[m] + y[m]` works. A NumPy mask (a constant) is applied at trace time and
keeps the shape static. The mask's shape must match the dims it covers (IndexError, as
in NumPy). Slices, `...`, `None` and integers may share the key with the mask, with
NumPy's placement rule (the selected dim goes first when integers and the mask are not
next to each other in the key); another mask or index array may not (NotImplementedError).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tracejit.frontend.numpy_api.nonzero import flat_indices
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.dims import Dim, DimSource, Product, Sliced, require_equal
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor


def is_mask(item: object) -> bool:
    """A boolean array used as an index: a bool tensor (0-d too), or a NumPy bool array
    or list of at least one dim (a 0-d NumPy bool is a bool scalar, indexing.py's)."""
    if isinstance(item, Tensor):
        return item.dtype == np.bool_
    if not isinstance(item, np.ndarray | list | tuple):
        return False
    try:
        array = np.asarray(item)
    except (TypeError, ValueError):  # holds tensors, or ragged: not a mask
        return False
    return array.dtype == np.bool_ and array.ndim > 0


def has_mask(key: object) -> bool:
    return any(is_mask(item) for item in _items(key))


def _items(key: object) -> list:
    return list(key) if isinstance(key, tuple) else [key]


def _kind(item: object) -> str:
    if item is None:
        return "new"
    if item is Ellipsis:
        return "ellipsis"
    if isinstance(item, slice):
        return "slice"
    if isinstance(item, bool | np.bool_):
        return "bool"
    if isinstance(item, int | np.integer):
        return "int"
    if is_mask(item):
        return "mask"
    if isinstance(item, Tensor | np.ndarray | list | tuple):
        return "array"
    return "invalid"


# dims of x an item consumes, dims of the result it produces (an ellipsis: computed)
_CONSUMES = {"new": 0, "slice": 1, "int": 1}
_PRODUCES = {"new": 1, "slice": 1, "int": 0}


def getitem_with_mask(x: Tensor, key: object) -> Tensor:
    """`x[key]` for a key holding one boolean mask (see the module docstring)."""
    items = _items(key)
    kinds = [_kind(item) for item in items]
    _refuse_other_indices(kinds)
    at = kinds.index("mask")
    mask = items[at] if isinstance(items[at], Tensor) else np.asarray(items[at])
    k = mask.ndim
    # the mask's dims are taken whole first; a 0-d mask covers a new axis of size 1
    whole = [slice(None)] * k if k else [None]
    selected = _basic_getitem(x, tuple(items[:at] + whole + items[at + 1 :]))
    ellipsis = x.ndim - sum(_CONSUMES.get(kind, 0) for kind in kinds) - k
    before = kinds[:at]
    first_axis = sum(ellipsis if c == "ellipsis" else _CONSUMES[c] for c in before)
    position = sum(ellipsis if c == "ellipsis" else _PRODUCES[c] for c in before)
    if k:
        _check_mask_shape(x.dims[first_axis : first_axis + k], _dims(mask), first_axis)
    merged = merge_dims(selected, position, max(k, 1))
    # the positions of the mask's true elements lie in [0, mask.size), the merged dim's size
    # (checked above): read unchecked
    message = at_user_line("IndexError: boolean index")
    gathered = primitives.gather(merged, _true_positions(mask), position, message, True)
    if position == 0 or _adjacent(kinds):
        return gathered
    order = [position, *(d for d in range(gathered.ndim) if d != position)]
    return primitives.transpose(gathered, order)


def _refuse_other_indices(kinds: Sequence[str]) -> None:
    if kinds.count("mask") > 1 or "array" in kinds or "bool" in kinds:
        raise NotImplementedError(
            at_user_line(
                "a boolean mask together with another mask, an index array or a bool in one "
                "subscript is not supported: index in two steps (x[mask][:, idx]), or "
                "combine the masks into one (x[m1[:, None] & m2])"
            )
        )
    if "invalid" in kinds:
        from tracejit.frontend.numpy_api.indexing import _VALID

        raise IndexError(at_user_line(_VALID))


def _basic_getitem(x: Tensor, key: tuple) -> Tensor:
    from tracejit.frontend.numpy_api.indexing import getitem

    return getitem(x, key)


def _dims(mask: Tensor | np.ndarray) -> tuple:
    return mask.dims if isinstance(mask, Tensor) else mask.shape


def _check_mask_shape(covered: Sequence[Dim], mask_dims: Sequence[Dim], first_axis: int) -> None:
    """The mask's dims must be the dims it covers: at trace time where both are known,
    else at run time (frontend/staging/dims.py)."""
    from tracejit.frontend.staging.tracing import current_trace

    for axis, (size, mask_size) in enumerate(zip(covered, mask_dims, strict=True), first_axis):
        if isinstance(size, int) and isinstance(mask_size, int):
            if size != mask_size:
                raise IndexError(
                    at_user_line(
                        f"boolean index did not match indexed array along axis {axis}; size "
                        f"of axis is {size} but size of corresponding boolean axis is "
                        f"{mask_size}"
                    )
                )
        else:
            require_equal([size, mask_size], current_trace().dim_constraints)


def merge_dims(x: Tensor, position: int, count: int) -> Tensor:
    """`x` with dims position .. position + count - 1 merged into one (row-major; the
    kernel computes a product of dims it knows; no dims, count 0: a dim of 1 inserted)."""
    if count == 1:
        return x
    merged = x.dims[position : position + count]
    dims = [*x.dims[:position], product_dim(merged), *x.dims[position + count :]]
    return primitives.reshape(x, dims)


def product_dim(dims: Sequence[Dim]) -> Dim:
    """The dim of `dims` merged (row-major): their product, which the kernel computes from
    the sizes it knows; refused for a dim tracejit cannot follow (see `followable`)."""
    known = math.prod(d for d in dims if isinstance(d, int))
    unknown = tuple(d for d in dims if not isinstance(d, int))
    if not unknown:
        return known
    if not followable(unknown):
        raise NotImplementedError(
            at_user_line(
                "a boolean mask of several dims over dims only the kernel knows is not "
                "supported: flatten first (x.reshape(-1, ...)[mask.reshape(-1)])"
            )
        )
    return Product(unknown, known)  # type: ignore[arg-type]  # known is an int here


def followable(dims: Sequence[Dim]) -> bool:
    """Whether a product of `dims` is a `Product` the kernel computes from their sizes."""
    return all(isinstance(d, int | DimSource | Sliced | Product) for d in dims)


def _true_positions(mask: Tensor | np.ndarray) -> Tensor:
    """The flat indices of the mask's true elements: a constant for a NumPy mask."""
    if isinstance(mask, Tensor):
        return flat_indices(mask)
    return primitives.constant(np.flatnonzero(mask).astype(np.intp))


def _adjacent(kinds: Sequence[str]) -> bool:
    """Are the integers and the mask next to each other in the key (NumPy's rule for
    where the selected dim goes; `...` and `None` separate them too)?"""
    advanced = [i for i, kind in enumerate(kinds) if kind in ("int", "mask")]
    return advanced == list(range(advanced[0], advanced[-1] + 1))
