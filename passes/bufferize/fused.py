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
the row-major position, and a view of a view at the position the chain of views gives),
so a stencil, or a dot product of two rows, reads its arrays in place:

    %s = tj.slice %x, start = [2], step = [1]   ->   %i = linalg.index 0 : index
                                                     %p = arith.addi %i, %c2 : index
                                                     %v = memref.load %x[%p] : memref<10xf32>

A run-time start or size (an `index` argument) is the `index` value the kernel was given.
A dim unknown at trace time (`?`) has the run-time size `tj.fused.domain_sizes` finds (an
`index` argument, or the `memref.dim` of an input); the outputs are allocated with those
sizes. `lower-to-loops` bounds each loop by an operand the loop walks; when no input or
output walks some dim -- `sum(x[:i] * y[:i])` reads both slices through loads and writes a
scalar -- the generic gets one more input with the identity map: a buffer of the domain's
shape with no data, of zero-bit `i0` elements viewed into an empty stack buffer
(`FunctionBufferizer.shape_only`), whose body argument is never used. It allocates
nothing, every stage stays upstream MLIR, and a load of it could not compile:

    %none = memref.alloca() : memref<0xi8>
    %shape = memref.view %none[%c0][%i] : memref<0xi8> to memref<?xi0>
    linalg.generic {indexing_maps = [(d0) -> (d0), (d0) -> ()], iterator_types = ["reduction"]}
        ins(%shape : memref<?xi0>) outs(%dot : memref<f64>) { ... memref.load %x[%d0] ... }

Each op of the body becomes its scalar form (`scalar_semantics.emit_op`, the table the op's
own buffer form uses too), splat constants become `arith.constant`s. Parallel results are
written with the identity map; a kernel with reductions writes each reduction into its
output (kept dims only, filled with the reduction's identity first) with the reduction's
combiner, the reduced loops innermost.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, AffineMapAttr, IndexType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr
from xdsl.utils.exceptions import DiagnosticException

from tracejit.ir.constant import ConstantOp
from tracejit.ir.dtypes import element_of
from tracejit.ir.fused import VIEW_OPS, FusedOp, is_domain_read, shape_of, unit_dim_reads
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import BroadcastInDimOp, ReshapeOp, SliceOp, TransposeOp
from tracejit.passes.bufferize.builder import (
    PARALLEL,
    REDUCTION,
    FunctionBufferizer,
    broadcast_map,
    identity_map,
    projection_map,
)
from tracejit.passes.bufferize.shapes import row_major_position, slice_indices
from tracejit.passes.bufferize.structured import fill, multi_output_generic
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.indices import index_constant

Scalars = dict[SSAValue, SSAValue]  # tensor value of the kernel body -> its scalar
Outer = dict[SSAValue, SSAValue]  # block argument -> the buffer or index value it stands for


def read_map(op: Operation, rank: int) -> AffineMapAttr | None:
    """The map through which body op `op` reads its block argument operands: a view's own
    (broadcast, transpose, unit-dim reshape), the identity for any other op, None for a
    slice (loaded in the body at start + i * step, `slice_indices`), a reshape of a 1-D
    operand and a view read only by views (a link of a chain: the views on it load)."""
    if isinstance(op, VIEW_OPS) and not is_domain_read(op):
        return None
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
    block argument order (arguments read only through loads are not among them)."""
    rank = len(kernel.domain())
    reads: dict[tuple[SSAValue, AffineMapAttr], None] = {}
    for op in kernel.body_ops():
        read = read_map(op, rank)
        if read is None:
            continue
        for value in op.operands:
            if value in kernel.block.args and not isinstance(value.type, IndexType):
                reads.setdefault((value, read))
    order: dict[SSAValue, int] = {arg: i for i, arg in enumerate(kernel.block.args)}
    return sorted(reads, key=lambda read: order[read[0]])  # stable: first use next


# --- loads through views -------------------------------------------------------------
def view_source_position(
    b: Builder, view: Operation, at: Sequence[SSAValue] | None, outer: Outer
) -> tuple[BlockArgument, list[SSAValue]]:
    """Where the element at position `at` of a view's result (None: at the loop indices)
    lives: (the block argument at the end of its chain of views, the position in it)."""
    source = view.operands[0]
    if isinstance(view, SliceOp):
        run_time = iter(outer[v] for v in view.starts)
        start = [next(run_time) if s == DYNAMIC_INDEX else s for s in view.get_start()]
        position = slice_indices(b, start, view.get_step(), at)
    elif isinstance(view, TransposeOp):
        perm = view.get_permutation()
        position = [_index(b, at, perm.index(k)) for k in range(len(perm))]
    elif isinstance(view, BroadcastInDimOp):
        position = [_at_or_zero(b, at, d) for d in view.read_dims()]
    else:
        assert isinstance(view, ReshapeOp)
        reads = unit_dim_reads(shape_of(view.operand), shape_of(view.result))
        if reads is None:  # a static 1-D operand
            position = [row_major_position(b, shape_of(view.result), at)]
        else:
            position = [_at_or_zero(b, at, d) for d in reads]
    if isinstance(source, BlockArgument):
        return source, position
    assert isinstance(source.owner, Operation)  # a view, as the verifier checks
    return view_source_position(b, source.owner, position, outer)


def _index(b: Builder, at: Sequence[SSAValue] | None, dim: int) -> SSAValue:
    """Index `dim` of position `at`, or loop index `dim` (`linalg.index`)."""
    return b.insert(IndexOp(dim)).result if at is None else at[dim]


def _at_or_zero(b: Builder, at: Sequence[SSAValue] | None, dim: int | None) -> SSAValue:
    return index_constant(b, 0) if dim is None else _index(b, at, dim)


def _load_through(b: Builder, view: Operation, outer: Outer) -> SSAValue:
    """The element of a view (and chain of views) at the loop position, loaded in place."""
    argument, position = view_source_position(b, view, None, outer)
    return b.insert(memref.LoadOp.get(outer[argument], position)).res


def emit_body(
    kernel: FusedOp,
    reads: Sequence[tuple[SSAValue, AffineMapAttr]],
    outer: Outer,
    b: Builder,
    ins: Sequence[SSAValue],
    outs: Sequence[SSAValue],
) -> list[SSAValue]:
    """The kernel's results at one point of its domain, in the body of a generic whose
    `ins` are the `reads` (`outer`: block argument -> its buffer, read by loads, or
    `index` value)."""
    scalars: Scalars = {}
    rank = len(kernel.domain())
    for (arg, read), loaded in zip(reads, ins, strict=False):  # (then maybe a shape)
        if read == identity_map(rank):
            scalars[arg] = loaded
    for op in kernel.body_ops():
        if isinstance(op, ReduceOp):
            continue  # combined into its output below
        if isinstance(op, VIEW_OPS):
            if is_domain_read(op):  # (a link of a chain is read through by the views on it)
                scalars[op.results[0]] = _view_scalar(op, rank, reads, outer, scalars, b, ins)
            continue
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


def _view_scalar(
    view: Operation,
    rank: int,
    reads: Sequence[tuple[SSAValue, AffineMapAttr]],
    outer: Outer,
    scalars: Scalars,
    b: Builder,
    ins: Sequence[SSAValue],
) -> SSAValue:
    """A view's element at the loop position: an input of the generic read through the
    view's map, the scalar of a splat constant, or a load."""
    source = view.operands[0]
    read = read_map(view, rank)
    if read is not None and isinstance(source, BlockArgument):
        return ins[reads.index((source, read))]
    if isinstance(source.owner, ConstantOp):  # a broadcast of a splat constant
        return scalars[source]
    return _load_through(b, view, outer)


# --- the generic -----------------------------------------------------------------------
def outer_values(bufferizer: FunctionBufferizer, kernel: FusedOp) -> Outer:
    """Each block argument of the kernel -> the buffer or `index` value it stands for."""
    return {
        arg: bufferizer.values[operand]
        for arg, operand in zip(kernel.block.args, kernel.inputs, strict=True)
    }


def lower_fused(bufferizer: FunctionBufferizer, kernel: FusedOp) -> None:
    domain = kernel.domain()
    rank = len(domain)
    reductions = kernel.reductions()
    axes = reductions[0].get_axes() if reductions else ()
    kept = projection_map(rank, [AffineExpr.dimension(d) for d in range(rank) if d not in axes])
    outer = outer_values(bufferizer, kernel)
    reads = input_maps(kernel)
    inputs = [outer[arg] for arg, _ in reads]
    maps = [read for _, read in reads] + [kept if reductions else identity_map(rank)] * len(
        kernel.res
    )
    bounded = not _unwalked_dims(maps, rank)  # else no operand gives some loop's trip count
    written = set(range(rank)) - (set(axes) if reductions else set())
    sizes = _run_time_sizes(bufferizer, kernel, outer, written if bounded else range(rank))
    # (computed once: each is a walk of the body, and a kernel may have dozens of results)
    in_place, bounds = _identity_inputs(kernel), kernel.domain_bounds()
    outputs = [
        _output(bufferizer, kernel, i, sizes, in_place, bounds) for i in range(len(kernel.res))
    ]
    if not bounded:
        inputs.append(bufferizer.shape_only(domain, [sizes[d] for d in sorted(sizes)]))
        maps.insert(len(reads), identity_map(rank))
    iterators = [REDUCTION if d in axes else PARALLEL for d in range(rank)]
    multi_output_generic(
        bufferizer,
        inputs,
        outputs,
        maps,
        iterators,
        lambda b, ins, outs: emit_body(kernel, reads, outer, b, ins, outs),
        kernel.location,
    )
    for result, buffer in zip(kernel.res, outputs, strict=True):
        bufferizer.values[result] = buffer


def _run_time_sizes(
    bufferizer: FunctionBufferizer, kernel: FusedOp, outer: Outer, dims: Iterable[int]
) -> dict[int, SSAValue]:
    """{domain dim: its run-time size} for the `?` dims among `dims`: an `index`
    argument's value if one gives it, else the `memref.dim` of an input buffer."""
    sizes: dict[int, SSAValue] = {}
    domain, found = kernel.domain(), kernel.domain_sizes()
    for d in dims:
        if domain[d] != DYNAMIC_INDEX:
            continue
        if not found[d]:
            raise DiagnosticException("bufferize: a tj.fused loop has no run-time size")
        given = [s for s in found[d] if isinstance(s, SSAValue)]
        if given:
            sizes[d] = outer[given[0]]
            continue
        argument, axis = found[d][0]  # type: ignore[misc]  # (tensor, axis): not an SSAValue
        sizes[d] = bufferizer.dim(outer[argument], axis)
    return sizes


def _unwalked_dims(maps: Sequence[AffineMapAttr], rank: int) -> set[int]:
    walked = {
        expr.position
        for map_ in maps
        for expr in map_.data.results
        if isinstance(expr, AffineDimExpr)
    }
    return set(range(rank)) - walked


def _output(
    bufferizer: FunctionBufferizer,
    kernel: FusedOp,
    index: int,
    sizes: dict[int, SSAValue],
    in_place: list[SSAValue],
    bounds: list[int | None],
) -> SSAValue:
    """The buffer of result `index`; a reduction's is filled with its identity first.
    `sizes`: the run-time sizes of the domain's `?` dims; `in_place`: the inputs an
    element-wise result may overwrite (`_identity_inputs`); `bounds`: the domain's
    (`FusedOp.domain_bounds`: a loop's `?` result lives in a scratch buffer)."""
    result = kernel.res[index]
    owner = kernel.terminator.values[index].owner
    if not isinstance(owner, ReduceOp):
        dims = [sizes[d] for d in sorted(sizes)]
        return bufferizer.destination(result, dims, in_place, bounds)
    axes = owner.get_axes()
    kept = [sizes[d] for d in sorted(sizes) if d not in axes]
    buffer = bufferizer.destination(
        result, kept, bounds=[bounds[d] for d in range(len(bounds)) if d not in axes]
    )
    element = element_of(result)
    identity = scalar.reduction_identity(owner.kind.data, element)
    fill(bufferizer, buffer, identity, element, kernel.location)
    return buffer


def _identity_inputs(kernel: FusedOp) -> list[SSAValue]:
    """Operands read only with the identity map: their buffers may be overwritten in place
    (each element is read before the same element of the result is written). One read
    through a slice or a chain of views too is read elsewhere: never overwritten."""
    rank = len(kernel.domain())
    arguments = set(kernel.block.args)
    maps_of: dict[SSAValue, set] = {}
    for op in kernel.body_ops():
        read = [value for value in op.operands if value in arguments]
        if read:
            map_ = read_map(op, rank)
            for value in read:
                maps_of.setdefault(value, set()).add(map_)
    identity = {identity_map(rank)}
    return [
        operand
        for arg, operand in zip(kernel.block.args, kernel.inputs, strict=True)
        if not isinstance(arg.type, IndexType) and maps_of.get(arg) == identity
    ]
