"""Buffer forms of broadcasts, reductions and matmul (used by `bufferize`).

Each becomes one `linalg.generic` whose indexing maps say which input element feeds
which output element; reductions and matmul first fill their output with the
reduction's identity and then accumulate into it. argmax/argmin accumulate a pair
(best value, its index) in one generic with two outputs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    LocationAttr,
    MemRefType,
    TensorType,
    f16,
    f32,
    i64,
)
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint

from tracejit.ir import elementwise as ew
from tracejit.ir.dtypes import element_of, is_bool, is_float, is_unsigned
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import BroadcastInDimOp, DimOp, TransposeOp
from tracejit.ir.shaped import shaped_type
from tracejit.passes.bufferize.blas import Operand, blas_applies, call_blas
from tracejit.passes.bufferize.builder import (
    PARALLEL,
    REDUCTION,
    BodyBuilder,
    FunctionBufferizer,
    Handler,
    broadcast_map,
    identity_map,
    projection_map,
    rank_of,
)
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.indices import dim_size
from tracejit.passes.support.scalar_semantics import signless
from tracejit.passes.use_blas import BLAS_ATTR


def fill(
    bufferizer: FunctionBufferizer, buffer: SSAValue, value, element, location: LocationAttr
) -> None:
    rank = rank_of(buffer)
    bufferizer.generic(
        [],
        buffer,
        [identity_map(rank)],
        [PARALLEL] * rank,
        lambda b, ins, outs: [scalar.constant(b, value, element)],
        location,
    )


def lower_broadcast(bufferizer: FunctionBufferizer, op: BroadcastInDimOp) -> None:
    """A copy through the broadcast's map (`broadcast_map`)."""
    rank = rank_of(op.result)
    source = bufferizer.values[op.operand]
    output = bufferizer.destination(op.result, _broadcast_sizes(bufferizer, op, source))
    bufferizer.generic(
        [source],
        output,
        [broadcast_map(op), identity_map(rank)],
        [PARALLEL] * rank,
        lambda b, ins, outs: [ins[0]],
        op.location,
    )
    bufferizer.values[op.result] = output


def _broadcast_sizes(bufferizer: FunctionBufferizer, op: BroadcastInDimOp, source) -> list:
    """The run-time sizes of the result's dynamic dims: an operand dim's own size, or
    the op's `sizes` operand for a new dim."""
    target_shape = op.result.type.get_shape()
    operand_shape = shaped_type(op.operand).get_shape()
    from_operand = {d: i for i, d in enumerate(op.get_dims()) if operand_shape[i] == DYNAMIC_INDEX}
    given = iter(op.sizes)
    sizes = []
    for d, size in enumerate(target_shape):
        if size != DYNAMIC_INDEX:
            continue
        if d in from_operand:
            sizes.append(bufferizer.dim(source, from_operand[d]))
        else:
            sizes.append(bufferizer.values[next(given)])
    return sizes


def lower_dim(bufferizer: FunctionBufferizer, op: DimOp) -> None:
    buffer = bufferizer.values[op.source]
    bufferizer.values[op.result] = bufferizer.dim(buffer, op.index.value.data)


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
    """argmax/argmin. A long reduction along the innermost axis (a whole array, long rows)
    runs in two passes LLVM vectorises (`_two_passes`): carrying the pair (best value, its
    index) through one loop costs ~5 cycles an element, 9-80x slower than NumPy there.
    Others keep that one pass (`_one_pass`): along short rows the pair's chain overlaps
    across rows, and along an outer axis the loop runs across columns, vectorised."""
    arg = _ArgReduce.of(bufferizer, op)
    innermost = bool(arg.axes) and arg.axes[-1] == arg.rank - 1
    if innermost and _long(shaped_type(op.input).get_shape(), arg.axes):
        _two_passes(bufferizer, op, arg)
    else:
        _one_pass(bufferizer, op, arg)


# Reductions of at least this many elements per result (or of an unknown count) take two
# passes. (1,000 rows of 16: one pass 0.21 ms, two passes 0.61 ms; 1M: 5.2 and 0.15 ms.)
_TWO_PASSES_FROM = 64


def _long(shape: Sequence[int], axes: tuple[int, ...]) -> bool:
    if any(shape[a] == DYNAMIC_INDEX for a in axes):
        return True
    return math.prod(shape[a] for a in axes) >= _TWO_PASSES_FROM


@dataclass
class _ArgReduce:
    """What both lowerings of an argmax/argmin start from: the value temporary, filled
    with max's or min's identity, and the kept positions' sizes and map."""

    kind: str  # "max" or "min"
    axes: tuple[int, ...]
    element: Attribute
    source: SSAValue
    rank: int
    sizes: list[SSAValue]
    values: SSAValue
    kept: AffineMapAttr

    @staticmethod
    def of(bufferizer: FunctionBufferizer, op: ReduceOp) -> _ArgReduce:
        kind, axes = op.kind.data.removeprefix("arg"), op.get_axes()
        element = element_of(op.input)
        source = bufferizer.values[op.input]
        sizes = _kept_sizes(bufferizer, source, axes)
        values = _temporary(bufferizer, op.result, signless(element), sizes)
        identity = scalar.reduction_identity(kind, element)
        fill(bufferizer, values, identity, element, op.location)
        rank = rank_of(op.input)
        return _ArgReduce(kind, axes, element, source, rank, sizes, values, _kept_map(rank, axes))


def _one_pass(bufferizer: FunctionBufferizer, op: ReduceOp, arg: _ArgReduce) -> None:
    """One generic with two outputs: the best value so far and its flat index (the
    result, filled with 0)."""
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
        [arg.values, indices],
        [identity_map(arg.rank), arg.kept, arg.kept],
        _reduce_iterators(arg.rank, arg.axes),
        body,
        op.location,
    )
    bufferizer.values[op.result] = indices


def _takes_new(b: Builder, kind: str, x, best, index, best_index, element) -> SSAValue:
    """Whether element `x` at `index` replaces (`best`, `best_index`): it is strictly
    better, or equal and earlier, or the first NaN. Comparing indices makes the answer
    NumPy's first extreme element whatever order the loops visit the elements in."""
    earlier = b.insert(arith.CmpiOp(index, best_index, "slt")).result
    if not is_float(element):
        better_predicate = {"max": "gt", "min": "lt"}[kind]
        prefix = "u" if is_unsigned(element) else "s"
        better = b.insert(arith.CmpiOp(x, best, prefix + better_predicate)).result
        equal = b.insert(arith.CmpiOp(x, best, "eq")).result
        return _any_of(b, better, _all_of(b, equal, earlier))
    better = b.insert(arith.CmpfOp(x, best, {"max": "ogt", "min": "olt"}[kind])).result
    equal = b.insert(arith.CmpfOp(x, best, "oeq")).result
    x_nan = b.insert(arith.CmpfOp(x, x, "uno")).result
    best_is_number = b.insert(arith.CmpfOp(best, best, "ord")).result
    first_nan = _all_of(b, x_nan, _any_of(b, best_is_number, earlier))
    return _any_of(b, better, _all_of(b, equal, earlier), first_nan)


def _two_passes(bufferizer: FunctionBufferizer, op: ReduceOp, arg: _ArgReduce) -> None:
    """The extreme value of each kept position (max's or min's own reduction), then the
    least flat index holding it (a min reduction of `index if x is that value else
    INT64_MAX`; NaN: the first NaN, as the max of data holding a NaN is NaN). Empty
    reductions never get here (the frontend raises NumPy's ValueError)."""
    iterators = _reduce_iterators(arg.rank, arg.axes)
    bufferizer.generic(
        [arg.source],
        arg.values,
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
        [arg.source, arg.values], indices, [identity_map(arg.rank), arg.kept, arg.kept],
        iterators, first_index, op.location,
    )  # fmt: skip
    bufferizer.values[op.result] = indices


_NO_INDEX = (1 << 63) - 1  # the second pass's identity: larger than any index


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


def multi_output_generic(
    bufferizer: FunctionBufferizer,
    inputs: Sequence[SSAValue],
    outputs: Sequence[SSAValue],
    maps: Sequence[AffineMapAttr],
    iterators: Sequence[Attribute],
    body: BodyBuilder,
    location: LocationAttr,
) -> None:
    """`FunctionBufferizer.generic` with several outputs."""
    element_types = [shaped_type(v).get_element_type() for v in (*inputs, *outputs)]
    block = Block(arg_types=element_types)
    body_builder = Builder(InsertPoint.at_end(block))
    yielded = body(body_builder, block.args[: len(inputs)], block.args[len(inputs) :])
    body_builder.insert(YieldOp(*yielded))
    op = GenericOp(inputs, outputs, Region(block), maps, iterators)
    op.location = location
    bufferizer.builder.insert(op)


def lower_matmul(bufferizer: FunctionBufferizer, op: MatmulOp) -> None:
    """C[b..., i, j] = sum_k A[b..., i, k] * B[b..., k, j] over a zero-filled C.

    Loops: the result's dims (batch dims, then i if A is 2-D+, then j if B is 2-D+),
    then k. A batch dim of size 1 broadcast against a larger one reads index 0; missing
    leading batch dims are not read at all. On bool the product is `and`, the sum `or`.
    A product `use-blas` marked calls BLAS (blas.py), this generic only behind an `scf.if`
    for when that cannot run.
    """
    lhs = Operand(bufferizer.values[op.lhs], _in_place_transpose(op.lhs))
    rhs = Operand(bufferizer.values[op.rhs], _in_place_transpose(op.rhs))
    sizes = _matmul_sizes(bufferizer, op, lhs, rhs)
    output = bufferizer.destination(op.result, sizes, bounds=bufferizer.bounds_of(op.result))
    bufferizer.values[op.result] = output
    if BLAS_ATTR not in op.attributes or not blas_applies(lhs, rhs, output):
        _own_matmul(bufferizer, op, lhs, rhs, output)
        return
    own = call_blas(bufferizer, op, lhs, rhs, output)
    fallback = scf.IfOp(own, [], Region(Block()))
    bufferizer.builder.insert(fallback)
    saved, bufferizer.builder = (
        bufferizer.builder,
        Builder(InsertPoint.at_end(fallback.true_region.block)),
    )
    _own_matmul(bufferizer, op, lhs, rhs, output)
    bufferizer.builder.insert(scf.YieldOp())
    bufferizer.builder = saved


def _in_place_transpose(operand: SSAValue) -> bool:
    """Whether `operand` is a transpose whose operand's buffer the matmul reads in place."""
    owner = operand.owner
    return isinstance(owner, TransposeOp) and read_in_place_by_matmul(owner)


def _own_matmul(
    bufferizer: FunctionBufferizer, op: MatmulOp, lhs: Operand, rhs: Operand, output: SSAValue
) -> None:
    """Our kernel: a zero fill and one generic (tile-matmul makes the fast loops of it)."""
    element = element_of(op.result)
    lhs_shape, rhs_shape = shaped_type(op.lhs).get_shape(), shaped_type(op.rhs).get_shape()
    out_shape = op.result.type.get_shape()
    lhs_map, rhs_map, out_map = _matmul_maps(lhs_shape, rhs_shape, out_shape)
    # a transpose read in place is its operand: read [k, i] for A[i, k], [j, k] for B[k, j]
    if lhs.transposed:
        i, k = lhs_map.data.results
        lhs_map = projection_map(len(out_shape) + 1, [k, i])
    if rhs.transposed:  # its rows are the columns of B: each dot product along a row
        k, j = rhs_map.data.results
        rhs_map = projection_map(len(out_shape) + 1, [j, k])
    inputs, maps = [lhs.buffer, rhs.buffer], [lhs_map, rhs_map, out_map]
    if element == f16:
        _half_matmul(bufferizer, op, inputs, output, maps)
        return
    fill(bufferizer, output, 0, element, op.location)
    loops = len(out_shape) + 1
    combiner = "any" if is_bool(element) else "sum"

    def body(b: Builder, ins, outs):
        product = scalar.emit_scalar(b, ew.MulOp, ins, element)  # i1 multiply is `and`
        return [scalar.emit_combiner(b, combiner, outs[0], product, element)]

    bufferizer.generic(
        inputs, output, maps, [PARALLEL] * (loops - 1) + [REDUCTION], body, op.location
    )


def _half_matmul(
    bufferizer: FunctionBufferizer,
    op: MatmulOp,
    inputs: Sequence[SSAValue],
    output: SSAValue,
    maps: Sequence[AffineMapAttr],
) -> None:
    """A float16 matmul as NumPy computes it (`HALF_matmul_inner_noblas`, and `HALF_dot`
    for np.dot/inner/vdot): each element is a float32 sum from 0 of the products, in k
    order, rounded to float16 once. Summed in float16 instead, an 8x1000 @ 1000x8
    product of values in [0, 1) was off by up to 0.5 (NumPy: 0.12).

    The products of two float16s are exact in float32, and the sum is not `reassoc`, so
    the result is NumPy's bit for bit (tile-matmul leaves such a generic alone). The sum
    accumulates into a float32 scratch C; with a j dim the loops run (batch..., i, k, j),
    so the innermost loop walks rows of B and C and vectorises while every element still
    adds its products in k order (lower-to-loops keeps that order); then one pass rounds
    C to float16 into the output."""
    sizes = bufferizer.sizes_like(op.result, output)
    wide = bufferizer.temporary(MemRefType(f32, op.result.type.get_shape()), sizes)
    fill(bufferizer, wide, 0, f32, op.location)
    loops = len(op.result.type.get_shape()) + 1
    iterators = [PARALLEL] * (loops - 1) + [REDUCTION]
    if rank_of(op.rhs) > 1:  # k before j: swap the last two loop dims
        swap = [AffineExpr.dimension(d) for d in range(loops)]
        swap[-2], swap[-1] = swap[-1], swap[-2]
        maps = [AffineMapAttr(m.data.replace_dims_and_symbols(swap, [], loops, 0)) for m in maps]
        iterators[-2:] = [REDUCTION, PARALLEL]

    def body(b: Builder, ins, outs):
        x, y = (b.insert(arith.ExtFOp(v, f32)).result for v in ins)
        product = b.insert(arith.MulfOp(x, y)).result  # exact: 11 x 11 significant bits
        return [b.insert(arith.AddfOp(outs[0], product)).result]  # in order: no reassoc

    bufferizer.generic(inputs, wide, maps, iterators, body, op.location)
    rank = rank_of(output)
    bufferizer.generic(
        [wide],
        output,
        [identity_map(rank)] * 2,
        [PARALLEL] * rank,
        lambda b, ins, outs: [b.insert(arith.TruncFOp(ins[0], f16)).result],
        op.location,
    )


def read_in_place_by_matmul(op: TransposeOp) -> bool:
    """Whether a transpose needs no buffer of its own: a static 2-D `m.T` read only as the
    B operand of vector @ matrix or matrix @ matrix products (`v @ m.T`, `np.dot(x1,
    x2.T)`), which read `m` itself, row by row: each result element is the dot product of
    a row of A (or `v`) with a contiguous row of `m`, where the copy of `m.T` would have
    cost an allocation and a strided pass over all of `m` on every call, and the product
    a walk down its columns (`tile-matmul` packs such a B from its rows). `m.T @ v` would
    walk down `m`'s columns: it copies, unless BLAS computes it (`use-blas` marked it),
    which reads either operand transposed in place, static or not."""
    if op.get_permutation() != (1, 0) or not isinstance(op.result.type, TensorType):
        return False
    if not op.result.uses:
        return False
    static = op.result.type.has_static_shape()
    return all(
        isinstance(use.operation, MatmulOp)
        and (
            BLAS_ATTR in use.operation.attributes
            or static
            and use.index == 1
            and rank_of(use.operation.lhs) in (1, 2)
            and use.operation.lhs is not op.result
        )
        for use in op.result.uses
    )


def _matmul_maps(
    lhs_shape: Sequence[int], rhs_shape: Sequence[int], out_shape: Sequence[int]
) -> tuple[AffineMapAttr, AffineMapAttr, AffineMapAttr]:
    loops = len(out_shape) + 1
    dims = [AffineExpr.dimension(d) for d in range(loops)]
    k = dims[-1]
    batch = len(out_shape) - (len(lhs_shape) > 1) - (len(rhs_shape) > 1)
    i = dims[batch : batch + 1] if len(lhs_shape) > 1 else []
    j = dims[loops - 2 : loops - 1] if len(rhs_shape) > 1 else []
    lhs = _batch_reads(lhs_shape[:-2], out_shape[:batch]) + i + [k]
    rhs = _batch_reads(rhs_shape[:-2], out_shape[:batch]) + [k] + j
    return (
        projection_map(loops, lhs),
        projection_map(loops, rhs),
        projection_map(loops, dims[:-1]),
    )


def _batch_reads(operand_batch: Sequence[int], out_batch: Sequence[int]) -> list[AffineExpr]:
    """Operand batch dims aligned right against the result's: a broadcast one reads 0."""
    offset = len(out_batch) - len(operand_batch)
    return [
        AffineExpr.dimension(offset + p)
        if size == out_batch[offset + p]
        else AffineExpr.constant(0)
        for p, size in enumerate(operand_batch)
    ]


def _matmul_sizes(
    bufferizer: FunctionBufferizer, op: MatmulOp, lhs: Operand, rhs: Operand
) -> list[SSAValue]:
    """Dynamic m comes from A, dynamic n from B, a dynamic batch dim from an operand that
    has it as a dynamic dim (dims unknown at trace time are never broadcast from 1)."""
    out_shape = op.result.type.get_shape()
    lhs_rank, rhs_rank = rank_of(op.lhs), rank_of(op.rhs)
    batch = len(out_shape) - (lhs_rank > 1) - (rhs_rank > 1)
    operands = (lhs.buffer, rhs.buffer)
    sizes = [_batch_size(bufferizer, d - batch, operands) for d in range(batch)]
    sources = [(lhs, -2)] if lhs_rank > 1 else []
    sources += [(rhs, -1)] if rhs_rank > 1 else []
    batch_sizes: list[SSAValue] = []
    for s, d in zip(sizes, out_shape[:batch], strict=True):
        if d == DYNAMIC_INDEX:
            assert s is not None  # a batch dim unknown at trace time is dynamic in an operand
            batch_sizes.append(s)
    return batch_sizes + [
        operand.dim(bufferizer, d)
        for (operand, d), size in zip(sources, out_shape[batch:], strict=True)
        if size == DYNAMIC_INDEX
    ]


def _batch_size(bufferizer: FunctionBufferizer, from_end: int, operands) -> SSAValue | None:
    """The run-time size of the batch dim `from_end` dims before the matrix dims (None
    when it is static): read from the first operand where that dim is dynamic."""
    for buffer in operands:
        shape = buffer.type.get_shape()
        matrix = min(len(shape), 2)
        position = len(shape) - matrix + from_end
        if position >= 0 and len(shape) > 1 and shape[position] == DYNAMIC_INDEX:
            return bufferizer.dim(buffer, position)
    return None


STRUCTURED_HANDLERS: dict[type[Operation], Handler] = {
    BroadcastInDimOp: lower_broadcast,
    DimOp: lower_dim,
    ReduceOp: lower_reduce,
    MatmulOp: lower_matmul,
}
