"""Buffer forms of reductions (used by `bufferize`): `tj.reduce` of every kind.

A plain reduction (sum, max, any, ...) is one `linalg.generic` that fills its output with the
identity and combines every input element into it. argmax/argmin return NumPy's flat index
(row-major over the reduced axes) of the first extreme element, or of the first NaN, in one
of three forms:

* **blocked**, when the reduced axes are the trailing ones (`np.argmax(x)`, `axis=-1`): `scf`
  loops over the kept positions (marked `tj.parallel`), and in each the data in blocks of
  `BLOCK` elements along the last axis. A block's extreme is a plain max/min reduction LLVM
  vectorises; the first block that beats the best so far is remembered, and at the end that
  one block is searched for the first element equal to the best. The data are read once,
  plus one block:

      scf.for %i ... {                                    kept dims, tj.parallel
        %best, %o..., %lo, %hi = scf.for %b = 0 to %n step BLOCK iter_args(...) {
          %m = scf.for %j = %b to min(%b + BLOCK, %n) iter_args(%a = -inf) { maximumf }
          %take = m > best, or m is NaN and best is not      (the first such block)
          scf.yield select(%take, %m, %best), ..., select(%take, %b, %lo), ...
        }                                                 (%o: outer reduced dims' loops)
        %j = scf.for %j = %lo to %hi iter_args(%f = INT64_MAX) {
          minsi(%f, select(x[%i, %o, %j] == %best or is NaN, %j, INT64_MAX))
        }
        memref.store <flat index of (%o, %j)>, %out[%i]
      }

* **one pass** (reduced axes that end before the last, as `axis=0`): one generic carrying
  the pair (best value, its index); its loop runs across the contiguous kept dim, vectorised.
* **two passes** (the innermost axis and an outer one, not contiguous, e.g. `axis=(0, 2)`,
  with 64 elements or more per result): the extreme value of each kept position, then the
  least flat index holding it.

Carrying the pair (value, index) through a loop along the data, element by element, is a
dependence chain of ~5 cycles an element that LLVM cannot vectorise: 9-80x slower than
NumPy along long rows, and 1.2x slower along rows of 16.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    MemRefType,
    i64,
)
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tracejit.ir.dtypes import element_of, is_float, is_unsigned
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shaped import shaped_type
from tracejit.passes.bufferize.builder import (
    PARALLEL,
    REDUCTION,
    FunctionBufferizer,
    Handler,
    identity_map,
    projection_map,
    rank_of,
)
from tracejit.passes.bufferize.structured import fill, multi_output_generic
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.indices import dim_size, index_constant, static_index
from tracejit.passes.support.loops import for_loop, loop_nest
from tracejit.passes.support.scalar_semantics import signless


def lower_reduce(bufferizer: FunctionBufferizer, op: ReduceOp) -> None:
    """Fill the output with the identity, then combine every input element into it."""
    kind, axes = op.kind.data, op.get_axes()
    if kind in ReduceOp.INDEX_KINDS:
        lower_arg_reduce(bufferizer, op)
        return
    element = element_of(op.result)
    source = bufferizer.values[op.input]
    rank = rank_of(op.input)
    output = bufferizer.destination(op.result, _kept_sizes(bufferizer, source, axes))
    fill(bufferizer, output, scalar.reduction_identity(kind, element), element, op.location)
    bufferizer.generic(
        [source],
        output,
        [identity_map(rank), _kept_map(rank, axes)],
        _reduce_iterators(rank, axes),
        lambda b, ins, outs: [scalar.emit_combiner(b, kind, outs[0], ins[0], element)],
        op.location,
    )
    bufferizer.values[op.result] = output


def lower_arg_reduce(bufferizer: FunctionBufferizer, op: ReduceOp) -> None:
    """argmax/argmin, in the form the module docstring gives for its axes."""
    arg = _ArgReduce.of(bufferizer, op)
    if arg.axes and arg.axes == tuple(range(arg.rank - len(arg.axes), arg.rank)):
        _blocked(bufferizer, op, arg)
    elif arg.axes and arg.axes[-1] == arg.rank - 1 and _long(arg):
        _two_passes(bufferizer, op, arg)
    else:
        _one_pass(bufferizer, op, arg)


# Non-contiguous reductions of at least this many elements per result (or of an unknown
# count) take two passes, shorter ones one.
_TWO_PASSES_FROM = 64


def _long(arg: _ArgReduce) -> bool:
    shape = shaped_type(arg.source).get_shape()
    if any(shape[a] == DYNAMIC_INDEX for a in arg.axes):
        return True
    return math.prod(shape[a] for a in arg.axes) >= _TWO_PASSES_FROM


@dataclass
class _ArgReduce:
    """What every form of an argmax/argmin starts from."""

    kind: str  # "max" or "min"
    axes: tuple[int, ...]
    element: Attribute
    source: SSAValue
    rank: int
    sizes: list[SSAValue]  # the result's dynamic sizes
    kept: AffineMapAttr

    @staticmethod
    def of(bufferizer: FunctionBufferizer, op: ReduceOp) -> _ArgReduce:
        kind, axes = op.kind.data.removeprefix("arg"), op.get_axes()
        source = bufferizer.values[op.input]
        sizes = _kept_sizes(bufferizer, source, axes)
        rank = rank_of(op.input)
        element = element_of(op.input)
        return _ArgReduce(kind, axes, element, source, rank, sizes, _kept_map(rank, axes))

    def best_values(self, bufferizer: FunctionBufferizer, op: ReduceOp) -> SSAValue:
        """A temporary of the extreme value of each kept position, filled with max's or
        min's identity."""
        values = _temporary(bufferizer, op.result, signless(self.element), self.sizes)
        identity = scalar.reduction_identity(self.kind, self.element)
        fill(bufferizer, values, identity, self.element, op.location)
        return values


def _one_pass(bufferizer: FunctionBufferizer, op: ReduceOp, arg: _ArgReduce) -> None:
    """One generic with two outputs: the best value so far and its flat index (the
    result, filled with 0)."""
    values = arg.best_values(bufferizer, op)
    indices = bufferizer.destination(op.result, arg.sizes)
    fill(bufferizer, indices, 0, i64, op.location)

    def body(b: Builder, ins, outs):
        index = _flat_index(b, arg.source, arg.axes)
        take = _takes_new(b, arg.kind, ins[0], outs[0], index, outs[1], arg.element)
        select_value = b.insert(arith.SelectOp(take, ins[0], outs[0])).result
        select_index = b.insert(arith.SelectOp(take, index, outs[1])).result
        return [select_value, select_index]

    multi_output_generic(
        bufferizer,
        [arg.source],
        [values, indices],
        [identity_map(arg.rank), arg.kept, arg.kept],
        _reduce_iterators(arg.rank, arg.axes),
        body,
        op.location,
    )
    bufferizer.values[op.result] = indices


def _takes_new(b: Builder, kind: str, x, best, index, best_index, element) -> SSAValue:
    """Whether element `x` at `index` replaces (`best`, `best_index`): it beats it, or is
    as good (or another NaN) and earlier. Comparing indices makes the answer NumPy's first
    extreme element whatever order the loops visit the elements in."""
    earlier = b.insert(arith.CmpiOp(index, best_index, "slt")).result
    as_good = _is_extreme(b, x, best, element)
    return _any_of(b, _beats(b, kind, x, best, element), _all_of(b, earlier, as_good))


def _beats(b: Builder, kind: str, x: SSAValue, best: SSAValue, element: Attribute) -> SSAValue:
    """Whether `x` is strictly better than `best`, or the first NaN (`best` is a number)."""
    if not is_float(element):
        prefix = "u" if is_unsigned(element) else "s"
        return b.insert(arith.CmpiOp(x, best, prefix + {"max": "gt", "min": "lt"}[kind])).result
    better = b.insert(arith.CmpfOp(x, best, {"max": "ogt", "min": "olt"}[kind])).result
    x_nan = b.insert(arith.CmpfOp(x, x, "uno")).result
    best_is_number = b.insert(arith.CmpfOp(best, best, "ord")).result
    return _any_of(b, better, _all_of(b, x_nan, best_is_number))


def _two_passes(bufferizer: FunctionBufferizer, op: ReduceOp, arg: _ArgReduce) -> None:
    """The extreme value of each kept position (max's or min's own reduction), then the
    least flat index holding it (a min reduction of `index if x is that value else
    INT64_MAX`; NaN: the first NaN, as the max of data holding a NaN is NaN). Empty
    reductions never get here (the frontend raises NumPy's ValueError)."""
    iterators = _reduce_iterators(arg.rank, arg.axes)
    values = arg.best_values(bufferizer, op)
    bufferizer.generic(
        [arg.source],
        values,
        [identity_map(arg.rank), arg.kept],
        iterators,
        lambda b, ins, outs: [scalar.emit_combiner(b, arg.kind, outs[0], ins[0], arg.element)],
        op.location,
    )
    indices = bufferizer.destination(op.result, arg.sizes)
    fill(bufferizer, indices, _NO_INDEX, i64, op.location)

    def first_index(b: Builder, ins, outs):
        index = _flat_index(b, arg.source, arg.axes)
        none = scalar.constant(b, _NO_INDEX, i64)
        extreme = _is_extreme(b, ins[0], ins[1], arg.element)
        candidate = b.insert(arith.SelectOp(extreme, index, none))
        return [b.insert(arith.MinSIOp(outs[0], candidate.result)).result]

    bufferizer.generic(
        [arg.source, values], indices, [identity_map(arg.rank), arg.kept, arg.kept],
        iterators, first_index, op.location,
    )  # fmt: skip
    bufferizer.values[op.result] = indices


_NO_INDEX = (1 << 63) - 1  # the second pass's identity: larger than any index


# --- the blocked form --------------------------------------------------------------------
BLOCK = 1024
"""Elements of the last axis whose extreme one loop finds before it is compared with the
best so far: long enough that the comparison and the vector's horizontal reduction are a
few percent of a block's time, short enough that the final search of one block (8 KiB of
float64) is a few percent of a pass over 1M elements."""


def _blocked(bufferizer: FunctionBufferizer, op: ReduceOp, arg: _ArgReduce) -> None:
    """The blocked form of the module docstring (the reduced axes are the trailing ones)."""
    result = bufferizer.destination(op.result, arg.sizes)
    kept = [bufferizer.dim(arg.source, d) for d in range(arg.rank - len(arg.axes))]

    def position(b: Builder, kept_indices: list[SSAValue]) -> None:
        flat = _first_extreme(b, arg, kept_indices)
        b.insert(memref.StoreOp.get(flat, result, kept_indices))

    loop_nest(bufferizer.builder, kept, position, parallel=True)  # a result element each
    bufferizer.values[op.result] = result


def _first_extreme(b: Builder, arg: _ArgReduce, kept: list[SSAValue]) -> SSAValue:
    """The flat index (i64) of the first extreme element of the kept position `kept`."""
    n, zero, one = dim_size(b, arg.source, arg.axes[-1]), index_constant(b, 0), index_constant(b, 1)
    length = static_index(n)
    if len(arg.axes) == 1 and length is not None and length <= BLOCK:
        # the only block: its extreme is the best
        best, outer, lo, hi = _extreme(b, arg, [*kept], zero, n, one), [], zero, n
    else:
        scan = _Scan(arg, kept, n, one, index_constant(b, BLOCK))
        identity = scalar.reduction_identity(arg.kind, arg.element)
        # carried: the best value, its block's outer indices, and the block's bounds
        start = [scalar.constant(b, identity, arg.element), *[zero] * (len(arg.axes) - 1)]
        best, *outer, lo, hi = scan.blocks(b, [*start, zero, scan.block_end(b, zero)], [])

    def search(b: Builder, j: SSAValue, first: Sequence[SSAValue]) -> list[SSAValue]:
        x = _load(b, arg.source, [*kept, *outer, j])
        position = b.insert(arith.IndexCastOp(j, i64)).result
        hit = _is_extreme(b, x, best, arg.element)
        candidate = b.insert(arith.SelectOp(hit, position, none)).result
        return [b.insert(arith.MinSIOp(first[0], candidate)).result]

    none = scalar.constant(b, _NO_INDEX, i64)
    (j,) = for_loop(b, lo, hi, one, [none], search)
    if not outer:
        return j
    flat = outer[0]  # row-major over the reduced axes: ((o0 * d1 + o1) * ...) * n + j
    for axis, index in zip(arg.axes[1:], (*outer[1:], zero), strict=True):
        scaled = b.insert(arith.MuliOp(flat, dim_size(b, arg.source, axis))).result
        flat = b.insert(arith.AddiOp(scaled, index)).result
    base = b.insert(arith.IndexCastOp(flat, i64)).result
    return b.insert(arith.AddiOp(base, j)).result


@dataclass
class _Scan:
    """The loops finding the best block of one kept position."""

    arg: _ArgReduce
    kept: list[SSAValue]
    n: SSAValue  # the last axis's length
    one: SSAValue
    block_size: SSAValue  # BLOCK, as an index

    def blocks(self, b: Builder, carried: Sequence[SSAValue], outer: list[SSAValue]):
        """Loops over the outer reduced axes (row-major), then over the blocks of the last
        one, carrying (best, its block's outer indices, its block's bounds) through them
        all. (A loop of one block is unrolled by `simplify-loops`.)"""
        outer_axes = self.arg.axes[:-1]
        zero = index_constant(b, 0)
        if len(outer) < len(outer_axes):
            size = dim_size(b, self.arg.source, outer_axes[len(outer)])

            def along(b: Builder, i: SSAValue, state: Sequence[SSAValue]) -> list[SSAValue]:
                return self.blocks(b, state, [*outer, i])

            return list(for_loop(b, zero, size, self.one, carried, along))

        def block(b: Builder, lo: SSAValue, state: Sequence[SSAValue]) -> list[SSAValue]:
            """The block [lo, block_end) replaces the best if its extreme beats it."""
            hi = self.block_end(b, lo)
            extreme = _extreme(b, self.arg, [*self.kept, *outer], lo, hi, self.one)
            take = _beats(b, self.arg.kind, extreme, state[0], self.arg.element)
            new = [extreme, *outer, lo, hi]
            chosen = [arith.SelectOp(take, v, old) for v, old in zip(new, state, strict=True)]
            return [b.insert(select).result for select in chosen]

        return list(for_loop(b, zero, self.n, self.block_size, carried, block))

    def block_end(self, b: Builder, lo: SSAValue) -> SSAValue:
        """min(lo + BLOCK, n)."""
        end = b.insert(arith.AddiOp(lo, self.block_size)).result
        return b.insert(arith.MinUIOp(end, self.n)).result


def _extreme(
    b: Builder, arg: _ArgReduce, leading: list[SSAValue], lo: SSAValue, hi: SSAValue, one
) -> SSAValue:
    """The max or min of `source[*leading, lo:hi]` (a loop LLVM vectorises)."""

    def combine(b: Builder, j: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        x = _load(b, arg.source, [*leading, j])
        return [scalar.emit_combiner(b, arg.kind, acc[0], x, arg.element)]

    start = scalar.constant(b, scalar.reduction_identity(arg.kind, arg.element), arg.element)
    return for_loop(b, lo, hi, one, [start], combine)[0]


def _load(b: Builder, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    return b.insert(memref.LoadOp.get(buffer, indices)).res


def _is_extreme(b: Builder, x: SSAValue, extreme: SSAValue, element: Attribute) -> SSAValue:
    """Whether element `x` is the reduction's extreme value (for floats: equal to it, -0.0
    and 0.0 alike as NumPy compares them, or a NaN: then the extreme is NaN too)."""
    if not is_float(element):
        return b.insert(arith.CmpiOp(x, extreme, "eq")).result
    equal = b.insert(arith.CmpfOp(x, extreme, "oeq")).result
    nan = b.insert(arith.CmpfOp(x, x, "uno")).result
    return _any_of(b, equal, nan)


def _any_of(b: Builder, *conditions: SSAValue) -> SSAValue:
    result = conditions[0]
    for condition in conditions[1:]:
        result = b.insert(arith.OrIOp(result, condition)).result
    return result


def _all_of(b: Builder, first: SSAValue, second: SSAValue) -> SSAValue:
    return b.insert(arith.AndIOp(first, second)).result


def _flat_index(b: Builder, source: SSAValue, axes: tuple[int, ...]) -> SSAValue:
    """The row-major position among the reduced axes, as i64 (NumPy's flattened index)."""
    flat: SSAValue | None = None
    for axis in axes:
        position = b.insert(IndexOp(axis)).result
        if flat is None:
            flat = position
            continue
        size = dim_size(b, source, axis)
        scaled = b.insert(arith.MuliOp(flat, size)).result
        flat = b.insert(arith.AddiOp(scaled, position)).result
    if flat is None:  # no reduced axes: every element is its own first
        return scalar.constant(b, 0, i64)
    return b.insert(arith.IndexCastOp(flat, i64)).result


def _kept_sizes(
    bufferizer: FunctionBufferizer, source: SSAValue, axes: tuple[int, ...]
) -> list[SSAValue]:
    """The dynamic sizes of a reduction's result: the source's kept dynamic dims."""
    shape = shaped_type(source).get_shape()
    return [
        bufferizer.dim(source, d)
        for d in range(len(shape))
        if d not in axes and shape[d] == DYNAMIC_INDEX
    ]


def _kept_map(rank: int, axes: tuple[int, ...]) -> AffineMapAttr:
    return projection_map(rank, [AffineExpr.dimension(d) for d in range(rank) if d not in axes])


def _reduce_iterators(rank: int, axes: tuple[int, ...]) -> list[Attribute]:
    return [REDUCTION if d in axes else PARALLEL for d in range(rank)]


def _temporary(
    bufferizer: FunctionBufferizer, like: SSAValue, element: Attribute, sizes: list[SSAValue]
) -> SSAValue:
    """A scratch buffer shaped like tensor `like` (FunctionBufferizer.temporary)."""
    buffer_type = MemRefType(element, shaped_type(like).get_shape())
    return bufferizer.temporary(buffer_type, sizes)


REDUCTION_HANDLERS: dict[type[Operation], Handler] = {ReduceOp: lower_reduce}
