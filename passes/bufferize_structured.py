"""Buffer forms of broadcasts, reductions and matmul (used by `bufferize`).

Each becomes one `linalg.generic` whose indexing maps say which input element feeds
which output element; reductions and matmul first fill their output with the
reduction's identity and then accumulate into it.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.utils.exceptions import DiagnosticException

from tracejit.ir import elementwise as ew
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import BroadcastInDimOp
from tracejit.passes import scalar_semantics as scalar
from tracejit.passes.buffer_builder import (
    PARALLEL,
    REDUCTION,
    FunctionBufferizer,
    element_of,
    identity_map,
    projection_map,
    rank_of,
)


def fill(bufferizer: FunctionBufferizer, buffer: SSAValue, value, element, location) -> None:
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
    """Result element [i0, ..., in] reads operand element [i_dims[0] or 0, ...]."""
    source_shape = op.operand.type.get_shape()  # type: ignore[attr-defined]
    target_shape = op.result.type.get_shape()  # type: ignore[attr-defined]
    if DYNAMIC_INDEX in target_shape:
        raise DiagnosticException("bufferize: broadcast to a dynamic shape is not supported yet")
    rank = len(target_shape)
    reads = [
        AffineExpr.dimension(d) if size == target_shape[d] else AffineExpr.constant(0)
        for size, d in zip(source_shape, op.get_dims(), strict=True)
    ]
    output = bufferizer.destination(op.result)
    bufferizer.generic(
        [bufferizer.values[op.operand]],
        output,
        [projection_map(rank, reads), identity_map(rank)],
        [PARALLEL] * rank,
        lambda b, ins, outs: [ins[0]],
        op.location,
    )
    bufferizer.values[op.result] = output


def lower_reduce(bufferizer: FunctionBufferizer, op: ReduceOp) -> None:
    kind, axes = op.kind.data, op.get_axes()
    element = element_of(op.result)
    source = bufferizer.values[op.input]
    rank = rank_of(op.input)
    kept_dims = [d for d in range(rank) if d not in axes]
    sizes = [
        bufferizer.dim(source, d)
        for d in kept_dims
        if source.type.get_shape()[d] == DYNAMIC_INDEX  # type: ignore[attr-defined]
    ]
    output = bufferizer.destination(op.result, sizes)
    fill(bufferizer, output, scalar.reduction_identity(kind, element), element, op.location)
    bufferizer.generic(
        [source],
        output,
        [identity_map(rank), projection_map(rank, [AffineExpr.dimension(d) for d in kept_dims])],
        [REDUCTION if d in axes else PARALLEL for d in range(rank)],
        lambda b, ins, outs: [scalar.emit_combiner(b, kind, outs[0], ins[0], element)],
        op.location,
    )
    bufferizer.values[op.result] = output


def lower_matmul(bufferizer: FunctionBufferizer, op: MatmulOp) -> None:
    """C[i, j] = sum_k A[i, k] * B[k, j] over a zero-filled C."""
    element = element_of(op.result)
    lhs, rhs = bufferizer.values[op.lhs], bufferizer.values[op.rhs]
    sizes = [
        bufferizer.dim(buffer, d)
        for buffer, d in ((lhs, 0), (rhs, 1))
        if buffer.type.get_shape()[d] == DYNAMIC_INDEX  # type: ignore[attr-defined]
    ]
    output = bufferizer.destination(op.result, sizes)
    fill(bufferizer, output, 0, element, op.location)
    i, j, k = (AffineExpr.dimension(d) for d in range(3))

    def body(b: Builder, ins, outs):
        product = scalar.emit_scalar(b, ew.MulOp, ins, element)
        return [scalar.emit_combiner(b, "sum", outs[0], product, element)]

    bufferizer.generic(
        [lhs, rhs],
        output,
        [projection_map(3, [i, k]), projection_map(3, [k, j]), projection_map(3, [i, j])],
        [PARALLEL, PARALLEL, REDUCTION],
        body,
        op.location,
    )
    bufferizer.values[op.result] = output


STRUCTURED_HANDLERS = {
    BroadcastInDimOp: lower_broadcast,
    ReduceOp: lower_reduce,
    MatmulOp: lower_matmul,
}
