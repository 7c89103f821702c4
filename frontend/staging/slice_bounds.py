"""Where a NumPy slice of a dim unknown at trace time starts, and how many it keeps.

`x[a:b:c]` on a dim of static size n is resolved at trace time (`slice.indices`). When n
is known only at run time, the same rules are staged as `index` arithmetic on the dim's
`tj.dim`, and the `tj.slice` takes the start and the count as operands:

    bound(v) = v            if v is None: the default (0 or n for c > 0; n-1 or -1 for c < 0)
             = max(n + v, lo)   if v < 0
             = min(v, hi)       otherwise
    with lo, hi = 0, n (c > 0) or -1, n - 1 (c < 0)

    count = ceil(max(stop - start, 0) / c)    (c > 0)
          = ceil(max(start - stop, 0) / -c)   (c < 0)

A start only matters when the count is positive, so `x[1:]` keeps the static start 1
(when n < 1 nothing is read). A bound may also be a run-time `index` (a slice bound that is
a tensor, `x[i - 1 : i + 2]` in an index loop): then both rules are staged, and `select`
picks the one its sign calls for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import SSAValue

from tracejit.frontend.staging.tracing import emit


def index_of(value: Any) -> SSAValue:
    """A 0-d integer tensor (a slice bound) as an `index` value, as it is (not wrapped)."""
    extracted = emit(tensor.ExtractOp(value.value, [], value.value.type.get_element_type()))
    return emit(arith.IndexCastOp(extracted.result, IndexType())).result


def offset_form(tensor: Any) -> tuple[SSAValue, int]:
    """(base, c) with the 0-d tensor `tensor` = base + c, read off the ops that made it
    (`i + 2`, `i - 1`): two bounds or sizes of one base and offset are the same value."""
    from tracejit.ir.elementwise_binary import AddOp, SubOp
    from tracejit.ir.folding import constant_value

    value, offset = tensor.value, 0
    while isinstance(value.owner, AddOp | SubOp):
        op = value.owner
        right = constant_value(op.rhs)
        left = constant_value(op.lhs) if isinstance(op, AddOp) else None
        if right is not None and right.ndim == 0:
            value, offset = op.lhs, offset + int(right) * (1 if isinstance(op, AddOp) else -1)
        elif left is not None and left.ndim == 0:
            value, offset = op.rhs, offset + int(left)
        else:
            break
    return value, offset


def index_constant(value: int) -> SSAValue:
    return emit(arith.ConstantOp(IntegerAttr(value, IndexType()))).result


def assert_same_sizes(sizes: list[SSAValue], message: str) -> None:
    """Stage a run-time check that the `index` values `sizes` are all equal (else the call
    raises per `message`, "ErrorType: text")."""
    from xdsl.dialects import cf

    for other in sizes[1:]:
        equal = emit(arith.CmpiOp(sizes[0], other, "eq")).result
        emit(cf.AssertOp(equal, message))


def assert_window_fits(start: SSAValue, width: int, size: SSAValue, message: str) -> None:
    """Stage a run-time check that `width` elements from `start` lie in `range(size)`."""
    from xdsl.dialects import cf

    emit(cf.AssertOp(emit(arith.CmpiOp(start, index_constant(0), "sge")).result, message))
    emit(cf.AssertOp(emit(arith.CmpiOp(_plus(start, width), size, "sle")).result, message))


def _max(x: SSAValue, y: SSAValue) -> SSAValue:
    return emit(arith.MaxSIOp(x, y)).result


def _min(x: SSAValue, y: SSAValue) -> SSAValue:
    return emit(arith.MinSIOp(x, y)).result


def _plus(x: SSAValue, offset: int) -> SSAValue:
    return x if offset == 0 else emit(arith.AddiOp(x, index_constant(offset))).result


def _bound(
    n: SSAValue, value: int | SSAValue | None, default: Callable[[], SSAValue], step: int
) -> SSAValue:
    if value is None:
        return default()
    if isinstance(value, SSAValue):  # a run-time bound (`x[i - 1 : i + 2]`): both rules
        negative = emit(arith.CmpiOp(value, index_constant(0), "slt")).result
        below = _max(emit(arith.AddiOp(n, value)).result, index_constant(0 if step > 0 else -1))
        above = _min(value, n if step > 0 else _plus(n, -1))
        return emit(arith.SelectOp(negative, below, above)).result
    if value < 0:
        return _max(_plus(n, value), index_constant(0 if step > 0 else -1))
    high = n if step > 0 else _plus(n, -1)
    return _min(index_constant(value), high)


def slice_window(
    n: SSAValue, start: int | SSAValue | None, stop: int | SSAValue | None, step: int
) -> tuple[int | SSAValue, SSAValue]:
    """(start, count) of `range(n)[start:stop:step]`; the start is an int when it does not
    depend on n wherever the count is positive."""
    if step > 0:
        first = _bound(n, start, lambda: index_constant(0), step)
        last = _bound(n, stop, lambda: n, step)
        extent: SSAValue = emit(arith.SubiOp(last, first)).result
    else:
        first = _bound(n, start, lambda: _plus(n, -1), step)
        last = _bound(n, stop, lambda: index_constant(-1), step)
        extent = emit(arith.SubiOp(first, last)).result
    extent = _max(extent, index_constant(0))
    stride = abs(step)
    count = extent
    if stride != 1:
        rounded_up = _plus(extent, stride - 1)
        count = emit(arith.DivUIOp(rounded_up, index_constant(stride))).result
    if step > 0 and (start is None or isinstance(start, int) and start >= 0):
        return (start or 0), count
    return first, count
