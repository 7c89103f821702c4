"""Buffer form of `tj.sort` (used by `bufferize`): a bottom-up merge sort per short line, a
radix sort per long one.

Every line along the sorted axis (one per position of the other dims) is sorted on its
own, in a scratch buffer of twice its length, allocated once for all lines. A line long
enough for its key (n >= 8 per 8-bit digit: 32 for float32, 64 for int64) takes the LSD
radix sort of radix_sort.py, which shares the scratch buffer and stores the sorted line
into the result itself; both sorts are built when n is not known at trace time (an scf.if
picks one per call), only the one that applies when it is. Short lines, the merge sort:

    scratch[0:n] = line                     (and positions[0:n] = 0 .. n-1 for "indices")
    width, from = 1, 0
    while width < n:                        ceil(log2 n) passes: O(n log n)
        to = n - from                       the other half of the scratch buffer
        for lo in range(0, n, 2 * width):   merge the sorted runs [lo, mid) and [mid, hi)
                                            (tj.parallel: the merges are independent)
            merge(scratch[from + lo : from + hi] -> scratch[to + lo : to + hi])
        width, from = 2 * width, to
    line = scratch[from : from + n]         (or positions[from : from + n])

A merge takes from the right run only when its element is strictly smaller, so equal
elements keep their order: the sort is stable, and "indices" is
`np.argsort(kind="stable")`. "Smaller" is NumPy's order: NaN after every number, unsigned
integers compared unsigned. The merge is branch-free (`arith.select` picks the element and
advances one of the two run positions), and its loads clamp the position of an exhausted
run into that run, so no load leaves the scratch buffer. Both sorts are stable with the
same equal elements (-0.0 == +0.0, NaN == NaN), so a line's result does not depend on
which sort took it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, UnitAttr, i64
from xdsl.ir import Attribute, Operation, SSAValue

from tracejit.ir import upstream_memref
from tracejit.ir.dtypes import element_of, is_float
from tracejit.ir.parallel_contract import PARALLEL_LOOP_ATTR
from tracejit.ir.sort import SortOp
from tracejit.passes.bufferize.builder import FunctionBufferizer, Handler
from tracejit.passes.bufferize.cumulative import line_dims
from tracejit.passes.bufferize.radix_sort import RadixSort
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.build import add, load, min_unsigned, store
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import for_loop, loop_nest, while_loop


class _Lines:
    """What the loops of one `tj.sort` share: the scratch buffers (values, and positions
    for "indices"), the line length `n` and the element type that decides the order."""

    def __init__(self, b: Builder, n: SSAValue, element: Attribute, with_positions: bool):
        self.n, self.element = n, element
        twice = b.insert(arith.AddiOp(n, n)).result
        self.keys = _alloc(b, scalar.signless(element), twice)
        self.positions = _alloc(b, i64, twice) if with_positions else None

    def buffers(self) -> list[SSAValue]:
        return [self.keys] + ([self.positions] if self.positions is not None else [])


def _alloc(b: Builder, element: Attribute, size: SSAValue) -> SSAValue:
    return b.insert(
        upstream_memref.AllocOp([size], [], MemRefType(element, [DYNAMIC_INDEX]))
    ).memref


def lower_sort(bufferizer: FunctionBufferizer, op: SortOp) -> None:
    """Sort each line of the input into the result (see the module docstring). The result
    may take the input's buffer when the input is dead: a line is copied into the scratch
    buffer before any of it is written."""
    source = bufferizer.values[op.input]
    dims, sizes = line_dims(bufferizer, source)
    output = bufferizer.destination(op.result, sizes, reusable=[op.input])
    axis = op.get_axis()
    indices = op.kind.data == "indices"
    lines = _Lines(bufferizer.builder, dims[axis], element_of(op.input), indices)
    radix = RadixSort(bufferizer.builder, lines.n, element_of(op.input), indices)

    def sort_line(b: Builder, others: list[SSAValue]) -> None:
        def at(k: SSAValue) -> list[SSAValue]:
            return [*others[:axis], k, *others[axis:]]

        def merge_sort(b: Builder) -> None:
            _load_line(b, lines, source, at)
            start = _merge_passes(b, lines)
            sorted_values = lines.positions if lines.positions is not None else lines.keys
            _store_line(b, lines.n, sorted_values, start, output, at)

        def read(b: Builder, k: SSAValue) -> SSAValue:
            return load(b, source, at(k))

        def write(b: Builder, k: SSAValue, value: SSAValue) -> None:
            store(b, value, output, at(k))

        radix.sort(b, lines.buffers(), read, write, merge_sort)

    loop_nest(bufferizer.builder, dims[:axis] + dims[axis + 1 :], sort_line)
    for buffer in lines.buffers():
        bufferizer.builder.insert(memref.DeallocOp.get(buffer))
    radix.free(bufferizer.builder)
    bufferizer.values[op.result] = output


def _load_line(b: Builder, lines: _Lines, source: SSAValue, at) -> None:
    """scratch[k] = source[at(k)] (and positions[k] = k) for k in [0, n)."""
    zero, one = index_constant(b, 0), index_constant(b, 1)

    def body(b: Builder, k: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
        store(b, load(b, source, at(k)), lines.keys, [k])
        if lines.positions is not None:
            store(b, b.insert(arith.IndexCastOp(k, i64)).result, lines.positions, [k])
        return []

    for_loop(b, zero, lines.n, one, [], body)


def _store_line(b: Builder, n: SSAValue, scratch: SSAValue, start: SSAValue, output, at) -> None:
    """output[at(k)] = scratch[start + k] for k in [0, n)."""
    zero, one = index_constant(b, 0), index_constant(b, 1)

    def body(b: Builder, k: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
        store(b, load(b, scratch, [add(b, start, k)]), output, at(k))
        return []

    for_loop(b, zero, n, one, [], body)


def _merge_passes(b: Builder, lines: _Lines) -> SSAValue:
    """The `while width < n` loop of the module docstring; returns where the sorted line
    starts in the scratch buffer (0 or n)."""
    zero, one = index_constant(b, 0), index_constant(b, 1)

    def test(b: Builder, carried: Sequence[SSAValue]) -> tuple[SSAValue, Sequence[SSAValue]]:
        width = carried[0]
        return b.insert(arith.CmpiOp(width, lines.n, "ult")).result, carried

    def one_pass(b: Builder, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
        width, source = carried
        target = b.insert(arith.SubiOp(lines.n, source)).result
        double = add(b, width, width)

        def merge_pair(b: Builder, lo: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            mid = min_unsigned(b, add(b, lo, width), lines.n)
            hi = min_unsigned(b, add(b, lo, double), lines.n)
            _merge(b, lines, source, target, lo, mid, hi)
            return []

        for_loop(b, index_constant(b, 0), lines.n, double, [], merge_pair)
        # The merges of one pass read and write disjoint ranges: threads may share them
        # (`parallelize` decides at run time, by their count).
        merges = b.insertion_point.block.last_op
        assert isinstance(merges, scf.ForOp)
        merges.attributes[PARALLEL_LOOP_ATTR] = UnitAttr()
        return [double, target]

    return while_loop(b, [one, zero], test, one_pass)[1]


def _merge(
    b: Builder,
    lines: _Lines,
    source: SSAValue,
    target: SSAValue,
    lo: SSAValue,
    mid: SSAValue,
    hi: SSAValue,
) -> None:
    """Merge the sorted runs [lo, mid) and [mid, hi) at offset `source` of the scratch
    buffers into [lo, hi) at offset `target` (lo < mid <= hi)."""
    one = index_constant(b, 1)
    last_left = b.insert(arith.SubiOp(mid, one)).result
    last_right = b.insert(arith.SubiOp(hi, one)).result

    def step(b: Builder, k: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
        i, j = carried
        left = add(b, source, min_unsigned(b, i, last_left))  # clamped: in bounds even when done
        right = add(b, source, min_unsigned(b, j, last_right))
        a, c = load(b, lines.keys, [left]), load(b, lines.keys, [right])
        left_done = b.insert(arith.CmpiOp(i, mid, "uge")).result
        right_open = b.insert(arith.CmpiOp(j, hi, "ult")).result
        right_first = _before(b, c, a, lines.element)
        take_right = b.insert(
            arith.OrIOp(left_done, b.insert(arith.AndIOp(right_open, right_first)).result)
        ).result
        out = [add(b, target, k)]
        store(b, b.insert(arith.SelectOp(take_right, c, a)).result, lines.keys, out)
        if lines.positions is not None:
            p, q = load(b, lines.positions, [left]), load(b, lines.positions, [right])
            store(b, b.insert(arith.SelectOp(take_right, q, p)).result, lines.positions, out)
        next_i = b.insert(arith.SelectOp(take_right, i, add(b, i, one))).result
        next_j = b.insert(arith.SelectOp(take_right, add(b, j, one), j)).result
        return [next_i, next_j]

    for_loop(b, lo, hi, one, [lo, mid], step)


def _before(b: Builder, x: SSAValue, y: SSAValue, element: Attribute) -> SSAValue:
    """`x` sorts strictly before `y` in NumPy's order: `x < y`; for floats, `x` is a
    number and `y` is not `<=` it, i.e. `y > x` or `y` is NaN (`ugt`)."""
    if not is_float(element):
        return scalar.emit_compare(b, "lt", x, y, element)
    x_number = b.insert(arith.CmpfOp(x, x, "ord")).result
    y_above = b.insert(arith.CmpfOp(y, x, "ugt")).result
    return b.insert(arith.AndIOp(x_number, y_above)).result


SORT_HANDLERS: dict[type[Operation], Handler] = {SortOp: lower_sort}
