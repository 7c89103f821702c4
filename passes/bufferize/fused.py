"""Buffer form of `tj.fused` (used by `bufferize`): ONE `linalg.generic` per kernel.

    %r = tj.fused %x, %m : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32> {
    ^bb0(%a, %c):  %mb = broadcast_in_dim %c, dims = [1];  %d = sub %a, %mb;  yield %d
    }
->
    linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0, d1)],
                    iterator_types = ["parallel", "parallel"]}
        ins(%x, %m : memref<8x4xf32>, memref<4xf32>) outs(%r : memref<8x4xf32>) {
    ^bb0(%a: f32, %c: f32, %out: f32):
      %d = arith.subf %a, %c : f32
      linalg.yield %d : f32
    }

The loops run over the kernel's domain. Each (block argument, map) pair is one input: the
identity map where the body uses the argument directly, the view's map where it is read
through a `tj.broadcast_in_dim`, `tj.transpose` or unit-dim `tj.reshape`. A `tj.slice` of
an argument is no input of the generic: the body loads the argument's buffer at
start + i * step (`linalg.index` arithmetic; a `tj.reshape` of a 1-D argument likewise at
the row-major position), so a stencil reads its array in place:

    %s = tj.slice %x, start = [2], step = [1]   ->   %i = linalg.index 0 : index
                                                     %p = arith.addi %i, %c2 : index
                                                     %v = memref.load %x[%p] : memref<10xf32>

The kernel's loop bounds come from its outputs and full-extent inputs (`tj.fused` verifies
that some do), never from a slice. Each op of the body becomes its scalar form
(`scalar_semantics.emit_op`, the table the op's own buffer form uses too), splat constants
become `arith.constant`s. Parallel results are written with the identity map; a kernel with
reductions writes each reduction into its output (kept dims only, filled with the
reduction's identity first) with the reduction's combiner, the reduced loops innermost.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.utils.exceptions import DiagnosticException

from tracejit.ir.dtypes import element_of
from tracejit.ir.fused import VIEW_OPS, FusedOp, shape_of, unit_dim_reads
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import BroadcastInDimOp, ReshapeOp, SliceOp, TransposeOp
from tracejit.ir.shaped import shaped_type
from tracejit.passes.bufferize.builder import (
    PARALLEL,
    REDUCTION,
    FunctionBufferizer,
    Handler,
    broadcast_map,
    identity_map,
    projection_map,
)
from tracejit.passes.bufferize.shapes import row_major_position, slice_indices
from tracejit.passes.bufferize.structured import fill, multi_output_generic
from tracejit.passes.support import scalar_semantics as scalar

Scalars = dict[SSAValue, SSAValue]  # tensor value of the kernel body -> its scalar


def read_map(op: Operation, rank: int) -> AffineMapAttr | None:
    """The map through which body op `op` reads its block argument operands: a view's own
    (broadcast, transpose, unit-dim reshape), the identity for any other op, None for a
    slice (loaded in the body at start + i * step, `slice_indices`)."""
    if isinstance(op, SliceOp):
        return None
    if isinstance(op, BroadcastInDimOp):
        return broadcast_map(op)
    if isinstance(op, TransposeOp):
        perm = op.get_permutation()
        return projection_map(rank, [AffineExpr.dimension(perm.index(i)) for i in range(rank)])
    if isinstance(op, ReshapeOp):
        reads = unit_dim_reads(shape_of(op.operand), shape_of(op.result))
        if reads is None:  # of a 1-D operand: loaded at the row-major position
            return None
        exprs = [AffineExpr.constant(0) if d is None else AffineExpr.dimension(d) for d in reads]
        return projection_map(rank, exprs)
    return identity_map(rank)


def input_maps(kernel: FusedOp) -> list[tuple[SSAValue, AffineMapAttr]]:
    """The generic's inputs: (block argument, map), one per distinct way it is read, in
    block argument order (arguments read only through slices are not among them)."""
    rank = len(kernel.domain())
    reads: dict[tuple[SSAValue, AffineMapAttr], None] = {}
    for op in kernel.block.ops:
        read = read_map(op, rank)
        for value in op.operands:
            if value in kernel.block.args and read is not None:
                reads.setdefault((value, read))
    order: dict[SSAValue, int] = {arg: i for i, arg in enumerate(kernel.block.args)}
    return sorted(reads, key=lambda read: order[read[0]])  # stable: first use next


def _emit_body(
    kernel: FusedOp,
    reads: Sequence[tuple[SSAValue, AffineMapAttr]],
    buffers: dict[SSAValue, SSAValue],
    b: Builder,
    ins: Sequence[SSAValue],
    outs: Sequence[SSAValue],
) -> list[SSAValue]:
    """`buffers`: block argument -> the buffer of the kernel input (read by slices)."""
    scalars: Scalars = {}
    rank = len(kernel.domain())
    for (arg, read), loaded in zip(reads, ins, strict=True):
        if read == identity_map(rank):
            scalars[arg] = loaded
    for op in kernel.body_ops():
        if isinstance(op, ReduceOp):
            continue  # combined into its output below
        source = op.operands[0] if isinstance(op, VIEW_OPS) else None
        if isinstance(op, SliceOp):
            indices = slice_indices(b, op.get_start(), op.get_step())
            scalars[op.result] = b.insert(memref.LoadOp.get(buffers[op.operand], indices)).res
        elif isinstance(op, ReshapeOp) and read_map(op, rank) is None:
            indices = [row_major_position(b, shape_of(op.result))]
            scalars[op.result] = b.insert(memref.LoadOp.get(buffers[op.operand], indices)).res
        elif source is not None and source in kernel.block.args:
            scalars[op.results[0]] = ins[reads.index((source, read_map(op, rank)))]
        elif source is not None:  # a broadcast of a splat constant: the same scalar
            scalars[op.results[0]] = scalars[source]
        else:
            args = [scalars[v] for v in op.operands]
            scalars[op.results[0]] = scalar.emit_op(b, op, args)
    results = []
    for value, acc in zip(kernel.terminator.values, outs, strict=True):
        owner = value.owner
        if isinstance(owner, ReduceOp):
            element = element_of(owner.result)
            results.append(
                scalar.emit_combiner(b, owner.kind.data, acc, scalars[owner.input], element)
            )
        else:
            results.append(scalars[value])
    return results


# --- the generic -----------------------------------------------------------------------
def lower_fused(bufferizer: FunctionBufferizer, kernel: FusedOp) -> None:
    domain = kernel.domain()
    if any(not shaped_type(r).has_static_shape() for r in (*kernel.inputs, *kernel.res)):
        raise DiagnosticException("bufferize: tj.fused on dynamic shapes is not supported yet")
    rank = len(domain)
    reductions = kernel.reductions()
    axes = reductions[0].get_axes() if reductions else ()
    kept = projection_map(rank, [AffineExpr.dimension(d) for d in range(rank) if d not in axes])
    reads = input_maps(kernel)
    arg_index: dict[SSAValue, int] = {arg: i for i, arg in enumerate(kernel.block.args)}
    inputs = [bufferizer.values[kernel.inputs[arg_index[arg]]] for arg, _ in reads]
    buffers: dict[SSAValue, SSAValue] = {
        arg: bufferizer.values[operand]
        for arg, operand in zip(kernel.block.args, kernel.inputs, strict=True)
    }
    outputs = [_output(bufferizer, kernel, i) for i in range(len(kernel.res))]
    maps = [read for _, read in reads] + [kept if reductions else identity_map(rank)] * len(
        outputs
    )
    iterators = [REDUCTION if d in axes else PARALLEL for d in range(rank)]
    multi_output_generic(
        bufferizer,
        inputs,
        outputs,
        maps,
        iterators,
        lambda b, ins, outs: _emit_body(kernel, reads, buffers, b, ins, outs),
        kernel.location,
    )
    for result, buffer in zip(kernel.res, outputs, strict=True):
        bufferizer.values[result] = buffer


def _output(bufferizer: FunctionBufferizer, kernel: FusedOp, index: int) -> SSAValue:
    """The buffer of result `index`; a reduction's is filled with its identity first."""
    result = kernel.res[index]
    owner = kernel.terminator.values[index].owner
    if not isinstance(owner, ReduceOp):
        return bufferizer.destination(result, reusable=_identity_inputs(kernel))
    buffer = bufferizer.destination(result)
    element = element_of(result)
    identity = scalar.reduction_identity(owner.kind.data, element)
    fill(bufferizer, buffer, identity, element, kernel.location)
    return buffer


def _identity_inputs(kernel: FusedOp) -> list[SSAValue]:
    """Operands read only with the identity map: their buffers may be overwritten in place
    (each element is read before the same element of the result is written). One read
    through a slice too is read elsewhere: never overwritten."""
    rank = len(kernel.domain())
    maps_of: dict[SSAValue, set] = {}
    for op in kernel.body_ops():
        for value in op.operands:
            maps_of.setdefault(value, set()).add(read_map(op, rank))
    return [
        operand
        for arg, operand in zip(kernel.block.args, kernel.inputs, strict=True)
        if maps_of.get(arg) == {identity_map(rank)}
    ]


FUSED_HANDLERS: dict[type[Operation], Handler] = {FusedOp: lower_fused}
