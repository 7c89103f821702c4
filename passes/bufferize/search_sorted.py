"""Buffer form of `tj.search_sorted` (ir/search_sorted.py), used by `bufferize`: a loop
nest over the values, each doing a branch-free binary search of the sorted buffer in a
counted `scf.for`:

    lo, n = 0, len(a)                            // the answer lies in [lo, lo + n]
    for _ in range(bit_length(len(a))):          // each turn at least halves n
        half = n / 2;  probe = lo + half
        go = n > 0 and before(a[min(probe, len(a) - 1)], x)
        lo, n = (probe + 1, n - half - 1) if go else (lo, half)     // arith.select
    out[i] = lo

with `before(y, x)` NumPy's order: `y < x` for side "left", `not x < y` for "right", NaN
after every number. A fixed trip count and selects instead of branches: a search costs
bit_length(len(a)) turns whatever the data (no mispredicted exits; for a static `a` LLVM
unrolls the turns), and `a` is read only inside its bounds whatever its values.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, i64
from xdsl.ir import Attribute, Operation, SSAValue

from tracejit.ir.dtypes import element_of, is_float
from tracejit.ir.search_sorted import SearchSortedOp
from tracejit.ir.shaped import shaped_type
from tracejit.passes.bufferize.builder import FunctionBufferizer, Handler
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import for_loop, loop_nest, while_loop


def sort_less(b: Builder, x: SSAValue, y: SSAValue, element: Attribute) -> SSAValue:
    """`x < y` in NumPy's sort order (for floats: or y is NaN and x is not)."""
    less = scalar.emit_compare(b, "lt", x, y, element)
    if not is_float(element):
        return less
    y_nan = b.insert(arith.CmpfOp(y, y, "uno")).result
    x_number = b.insert(arith.CmpfOp(x, x, "ord")).result
    nan_after = b.insert(arith.AndIOp(y_nan, x_number)).result
    return b.insert(arith.OrIOp(less, nan_after)).result


def bit_length(b: Builder, length: SSAValue, static: int) -> SSAValue:
    """The number of binary digits of `length` (an index): a constant for a static length
    (`static`, else DYNAMIC_INDEX), else a small loop run once, before the searches."""
    if static != DYNAMIC_INDEX:
        return index_constant(b, static.bit_length())
    zero, one = index_constant(b, 0), index_constant(b, 1)

    def test(b: Builder, carried: Sequence[SSAValue]) -> tuple[SSAValue, Sequence[SSAValue]]:
        return b.insert(arith.CmpiOp(carried[0], zero, "ugt")).result, carried

    def turn(b: Builder, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
        rest, bits = carried
        shifted = b.insert(arith.ShRUIOp(rest, one)).result
        return [shifted, b.insert(arith.AddiOp(bits, one)).result]

    return while_loop(b, [length, zero], test, turn)[1]


def _search(
    b: Builder,
    sorted: SSAValue,
    length: SSAValue,
    turns: SSAValue,
    x: SSAValue,
    side: str,
    element: Attribute,
) -> SSAValue:
    """The position of `x` in `sorted[:length]` (the module docstring's loop), an index."""
    zero, one = index_constant(b, 0), index_constant(b, 1)

    def turn(b: Builder, _: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
        lo, n = carried
        half = b.insert(arith.ShRUIOp(n, one)).result
        probe = b.insert(arith.AddiOp(lo, half)).result
        last = b.insert(arith.SubiOp(length, one)).result
        inside = b.insert(arith.MinUIOp(probe, last)).result
        y = b.insert(memref.LoadOp.get(sorted, [inside])).res
        if side == "left":
            before = sort_less(b, y, x, element)
        else:
            after = sort_less(b, x, y, element)
            true = b.insert(arith.ConstantOp.from_int_and_width(1, 1)).result
            before = b.insert(arith.XOrIOp(after, true)).result
        searching = b.insert(arith.CmpiOp(n, zero, "ugt")).result
        go_on = b.insert(arith.AndIOp(before, searching)).result
        past = b.insert(arith.AddiOp(probe, one)).result
        rest = b.insert(arith.SubiOp(b.insert(arith.SubiOp(n, half)).result, one)).result
        new_lo = b.insert(arith.SelectOp(go_on, past, lo)).result
        new_n = b.insert(arith.SelectOp(go_on, rest, half)).result
        return [new_lo, new_n]

    return for_loop(b, zero, turns, one, [zero, length], turn)[0]


def lower_search_sorted(bufferizer: FunctionBufferizer, op: SearchSortedOp) -> None:
    sorted, values = bufferizer.values[op.sorted], bufferizer.values[op.values]
    shape = shaped_type(values).get_shape()
    dims = [bufferizer.dim(values, d) for d in range(len(shape))]
    sizes = [dims[d] for d, size in enumerate(shape) if size == DYNAMIC_INDEX]
    output = bufferizer.destination(op.result, sizes)
    length = bufferizer.dim(sorted, 0)
    turns = bit_length(bufferizer.builder, length, shaped_type(sorted).get_shape()[0])
    element, side = element_of(op.values), op.side.data

    def body(b: Builder, at: list[SSAValue]) -> None:
        x = b.insert(memref.LoadOp.get(values, at)).res
        position = _search(b, sorted, length, turns, x, side, element)
        wide = b.insert(arith.IndexCastOp(position, i64)).result
        b.insert(memref.StoreOp.get(wide, output, at))

    loop_nest(bufferizer.builder, dims, body)
    bufferizer.values[op.result] = output


SEARCH_HANDLERS: dict[type[Operation], Handler] = {SearchSortedOp: lower_search_sorted}
