"""Buffer forms of broadcasts, `tj.dim` and matmul (used by `bufferize`; reductions are
in `reductions.py`).

Each becomes one `linalg.generic` whose indexing maps say which input element feeds
which output element; matmul first fills its output with zeros and then accumulates into
it (or calls BLAS). `fill` and `multi_output_generic` are shared with the other families.
"""

from __future__ import annotations

from collections.abc import Sequence

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
)
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint

from tracejit.ir import elementwise as ew
from tracejit.ir.dtypes import element_of, is_bool
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.shape_ops import BroadcastInDimOp, DimOp, TransposeOp
from tracejit.ir.shaped import shaped_type
from tracejit.passes.bufferize.blas import Operand, blas_applies, call_blas
from tracejit.passes.bufferize.blas_windows import own_product, window_of
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
    lhs = _operand(bufferizer, op.lhs)
    rhs = _operand(bufferizer, op.rhs)
    sizes = _matmul_sizes(bufferizer, op, lhs, rhs)
    output = bufferizer.destination(op.result, sizes, bounds=bufferizer.bounds_of(op.result))
    bufferizer.values[op.result] = output
    if BLAS_ATTR not in op.attributes or not blas_applies(lhs, rhs, output):
        _own_kernel(bufferizer, op, lhs, rhs, output)
        return
    own = call_blas(bufferizer, op, lhs, rhs, output)
    fallback = scf.IfOp(own, [], Region(Block()))
    bufferizer.builder.insert(fallback)
    saved, bufferizer.builder = (
        bufferizer.builder,
        Builder(InsertPoint.at_end(fallback.true_region.block)),
    )
    _own_kernel(bufferizer, op, lhs, rhs, output)
    bufferizer.builder.insert(scf.YieldOp())
    bufferizer.builder = saved


def _own_kernel(
    bufferizer: FunctionBufferizer, op: MatmulOp, lhs: Operand, rhs: Operand, output: SSAValue
) -> None:
    """Our kernel; a window operand (a slice BLAS would read in place) is read where it lies."""
    if lhs.window is None and rhs.window is None:
        _own_matmul(bufferizer, op, lhs, rhs, output)
    else:
        own_product(bufferizer, op, lhs, rhs, output)


def _operand(bufferizer: FunctionBufferizer, value: SSAValue) -> Operand:
    return Operand(
        bufferizer.values[value], _in_place_transpose(value), window_of(bufferizer, value)
    )


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
}
