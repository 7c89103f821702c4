"""Broadcasting `x[:1]` along a dim known only at run time, as NumPy does.

A slice that keeps at most one element of a dim unknown at trace time (`x[:1]`, `x[-1:]`,
`x[2:3]`: `dims.at_most_one`) has a length only the kernel knows, 1 or 0, and tracejit never
broadcasts a run-time length from 1 (frontend/staging/dims.py). NumPy broadcasts this one:
holding its element, against any size; empty, against 0 or 1 only (the result is empty),
and it raises otherwise.

So where such a slice meets another size R in an element-wise operation, it is narrowed
to a static length of 1 (its element, or a 0 where it is empty and nothing reads it), and
the kernel checks, when it runs, that the slice holds its element or that R is 0:

- when the check holds, the result is NumPy's: R copies of the one element, or nothing;
- when it fails, NumPy raises the same error where R > 1. Where R is 1, NumPy's result
  would be empty; tracejit raises instead (a refusal, never a different answer).

`x - x[:1]` (each row less the first, for `TensorSpec([None, 3])`) is the common case: R is
x's own number of rows, which is 0 exactly when the slice is empty.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, cf

from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.dims import at_most_one
from tracejit.frontend.staging.slice_bounds import index_constant
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import emit
from tracejit.ir.shape_ops import DimOp

Narrowed = tuple[Tensor, int, int]  # (the slice before narrowing, its axis, the result axis)

_EMPTY_SLICE_MEETS_A_SIZE = (
    "ValueError: operands could not be broadcast together: a slice like x[:1] of a dim "
    "known only at run time is empty here (the dim is too short), and meets a size other "
    "than 0 (NumPy raises this too, unless that size is 1, where it gives an empty result; "
    "tracejit raises there as well)"
)


def narrowed_operands(tensors: Sequence[Tensor]) -> tuple[list[Tensor], list[Narrowed]]:
    """`tensors` with each at-most-one slice that meets another size (not 1, not such a
    slice) narrowed to a static 1, and what was narrowed, for `check_narrowed`."""
    rank = max((t.ndim for t in tensors), default=0)
    axes: dict[int, list[int]] = {}
    narrowed: list[Narrowed] = []
    for position in range(rank):
        column = [
            (i, t.ndim - rank + position)
            for i, t in enumerate(tensors)
            if t.ndim - rank + position >= 0
        ]
        dims = [tensors[i].dims[axis] for i, axis in column]
        if not any(d != 1 and not at_most_one(d) for d in dims):
            continue  # nothing to broadcast it to: the existing rules apply
        for (i, axis), dim in zip(column, dims, strict=True):
            if at_most_one(dim):
                axes.setdefault(i, []).append(axis)
                narrowed.append((tensors[i], axis, position))
    operands = [_narrowed(t, axes[i]) if i in axes else t for i, t in enumerate(tensors)]
    return operands, narrowed


def check_narrowed(narrowed: list[Narrowed], shape: Sequence, witnesses: dict) -> None:
    """Stage the kernel's check that each narrowed slice holds its element, or that the
    size it meets in the broadcast `shape` is 0."""
    for tensor, axis, position in narrowed:
        length = emit(DimOp(tensor.value, axis)).result
        target = shape[position]
        if isinstance(target, int):
            size = index_constant(target)
        else:
            size = primitives.dim_size(target, witnesses.get(position))
        zero = index_constant(0)
        holds = emit(arith.CmpiOp(length, index_constant(1), "eq")).result
        left = emit(arith.SelectOp(holds, zero, size)).result  # 0 when the check holds
        ok = emit(arith.CmpiOp(left, zero, "eq")).result
        emit(cf.AssertOp(ok, at_user_line(_EMPTY_SLICE_MEETS_A_SIZE)))


def _narrowed(x: Tensor, axes: list[int]) -> Tensor:
    """`x` with static length 1 along `axes`: its first element there, taken from `x`
    followed by a zero, so that the slice (and its adjoint, which writes the gradient back)
    stays inside the array when `x` is empty."""
    for axis in axes:
        one = [1 if a == axis else dim for a, dim in enumerate(x.dims)]
        sizes = {a: (x.value, a) for a, dim in enumerate(x.dims) if not isinstance(dim, int)}
        zero = primitives.broadcast_to(primitives.constant(0, x.dtype), one, sizes)
        padded = primitives.concat([x, zero], axis)
        counts = [
            dim if isinstance(dim, int) else primitives.dim_size(dim, (padded.value, a))
            for a, dim in enumerate(one)
        ]
        x = primitives.strided_slice(padded, [0] * x.ndim, [1] * x.ndim, counts, one)
    return x
