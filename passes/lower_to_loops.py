"""`lower-to-loops`: linalg structured ops on memrefs -> `scf.for` loop nests.

Expects: `func.func`s on memrefs (identity layout, static or dynamic `?` dims) holding
`linalg.generic` / `linalg.fill` (or another structured op) with buffer semantics: memref (or
scalar) operands and no results. Every indexing map is a projected permutation whose results
may also be the constant 0 (a broadcast of a size-1 dim); maps may drop dims (broadcast,
reduction), but output maps use parallel dims only.

Produces: one `scf.for` nest over `index` per structured op, placed where the op was, which is
then erased:

    arith.constant ... : index            bounds, step 1, dim numbers, constant-0 indices
    memref.dim ...                        one per dynamic loop bound
    scf.for %d0 ... {                     parallel dims, outermost, in their original order
      %acc0 = memref.load %out[...]       output loaded once (skipped when unused)
      %r = scf.for %d1 ... iter_args(%a = %acc0) {   reduction dims, innermost
        memref.load %in[...]              one load per used input
        <the op's body, cloned>           block arguments replaced by loaded values
        scf.yield %s
      }
      memref.store %r, %out[...]          stored once
    }

so a reduction's accumulator lives in a register through the reduction loops. Loops whose
upper bound is 0 run zero times (scf.for semantics), so empty dims need no special case.
Nothing else in the module is touched.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, MemRefType, ModuleOp
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import IndexOp, YieldOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

IVs = dict[int, SSAValue]
"""Loop dim -> its induction variable (only the dims of the loops built so far)."""

NestBody = Callable[[Builder, IVs, Sequence[SSAValue]], Sequence[SSAValue]]
"""Fills the innermost loop: (builder, ivs, loop-carried values) -> values to yield."""


@dataclass(frozen=True)
class BoundSource:
    """Where a loop's upper bound comes from: a static size, or `memref.dim` of an operand."""

    static_size: int | None
    operand: SSAValue | None = None
    operand_dim: int = 0


def lower_to_loops(module: ModuleOp) -> None:
    """Replace every linalg structured op in `module` by an equivalent `scf.for` nest."""
    structured = [op for op in module.walk() if isinstance(op, LinalgStructuredOperation)]
    for op in structured:
        lower_structured_op(op)


def lower_structured_op(op: LinalgStructuredOperation) -> None:
    """Build `op`'s loop nest right before it, then erase it."""
    check_supported(op)
    builder = Builder(InsertPoint.before(op))
    nest = StructuredLoopNest.create(op, builder)
    nest.build(builder)
    Rewriter.erase_op(op)


def check_supported(op: LinalgStructuredOperation) -> None:
    """Fail with a named reason on IR this lowering does not handle."""
    if op.res:
        raise PassFailedException(f"{op.name}: tensor results; bufferize before lower-to-loops")
    maps = indexing_maps(op)
    for map_ in maps:
        for expr in map_.results:
            if not isinstance(expr, AffineDimExpr) and expr != AffineConstantExpr(0):
                raise PassFailedException(f"{op.name}: unsupported indexing expression {expr}")
    reductions = set(loop_dims(op, IteratorType.REDUCTION))
    if len(reductions) + len(loop_dims(op, IteratorType.PARALLEL)) != op.get_num_loops():
        raise PassFailedException(f"{op.name}: only parallel and reduction iterators")
    for map_ in maps[len(op.inputs) :]:
        if map_.used_dims() & reductions:
            raise PassFailedException(f"{op.name}: an output map uses a reduction dim")


def indexing_maps(op: LinalgStructuredOperation) -> list[AffineMap]:
    return [attr.data for attr in op.get_indexing_maps()]


def loop_dims(op: LinalgStructuredOperation, kind: IteratorType) -> list[int]:
    """The loop dims of iterator type `kind`, in their original order."""
    return [d for d, it in enumerate(op.get_iterator_types()) if it.data == kind]


def bound_source(op: LinalgStructuredOperation, dim: int) -> BoundSource:
    """Any operand dim that loop `dim` walks gives its trip count; prefer a static one."""
    dynamic: BoundSource | None = None
    for operand, map_ in zip(op.operands, indexing_maps(op), strict=True):
        if not isinstance(operand.type, MemRefType):
            continue
        for position, expr in enumerate(map_.results):
            if expr != AffineDimExpr(dim):
                continue
            size = operand.type.get_shape()[position]
            if size != DYNAMIC_INDEX:
                return BoundSource(size)
            dynamic = dynamic or BoundSource(None, operand, position)
    if dynamic is None:
        raise PassFailedException(f"{op.name}: no operand gives the size of loop d{dim}")
    return dynamic


def needed_constants(sources: Sequence[BoundSource]) -> list[int]:
    """Every index constant the nest uses: 0 (lower bound), 1 (step), bounds, dim numbers."""
    values = {0, 1}
    for source in sources:
        values.add(source.static_size if source.static_size is not None else source.operand_dim)
    return sorted(values)


def emit_index_constants(builder: Builder, values: Sequence[int]) -> dict[int, SSAValue]:
    constants: dict[int, SSAValue] = {}
    for value in values:
        constant = builder.insert(arith.ConstantOp.from_int_and_width(value, IndexType()))
        constant.result.name_hint = f"c{value}"
        constants[value] = constant.result
    return constants


def emit_upper_bound(
    builder: Builder, source: BoundSource, constants: dict[int, SSAValue]
) -> SSAValue:
    if source.static_size is not None:
        return constants[source.static_size]
    assert source.operand is not None
    return builder.insert(memref.DimOp(source.operand, constants[source.operand_dim])).result


@dataclass
class StructuredLoopNest:
    """One structured op and the values shared by every level of its loop nest."""

    op: LinalgStructuredOperation
    maps: list[AffineMap]
    constants: dict[int, SSAValue]
    upper_bounds: list[SSAValue]
    """Indexed by loop dim."""

    @staticmethod
    def create(op: LinalgStructuredOperation, builder: Builder) -> "StructuredLoopNest":
        """Emit the bounds (constants and `memref.dim`s) before the nest."""
        sources = [bound_source(op, dim) for dim in range(op.get_num_loops())]
        constants = emit_index_constants(builder, needed_constants(sources))
        bounds = [emit_upper_bound(builder, source, constants) for source in sources]
        return StructuredLoopNest(op, indexing_maps(op), constants, bounds)

    def build(self, builder: Builder) -> None:
        """Parallel loops outside, reduction loops (carrying the outputs) inside."""
        parallel = loop_dims(self.op, IteratorType.PARALLEL)
        self.for_nest(builder, parallel, (), self.parallel_body)

    def parallel_body(
        self, builder: Builder, ivs: IVs, _: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        """Load the outputs once, reduce into them in registers, store them once."""
        reduction = loop_dims(self.op, IteratorType.REDUCTION)
        first_output = len(self.op.inputs)
        # Without reduction loops an unused output needs no load; with them the loaded value
        # is the accumulator's initial value (and the result if the loops run zero times).
        accumulators = [
            self.load_operand(builder, first_output + i, ivs)
            if reduction or self.body_arg_used(first_output + i)
            else None
            for i in range(len(self.op.outputs))
        ]
        if not reduction:
            results = self.emit_body(builder, ivs, accumulators)
        else:
            results = self.for_nest(
                builder,
                reduction,
                [acc for acc in accumulators if acc is not None],
                self.emit_body,
                ivs,
            )
        for i, (output, result) in enumerate(zip(self.op.outputs, results, strict=True)):
            indices = self.indices(first_output + i, ivs)
            builder.insert(memref.StoreOp.get(result, output, indices))
        return ()

    def for_nest(
        self,
        builder: Builder,
        dims: Sequence[int],
        inits: Sequence[SSAValue],
        body: NestBody,
        outer_ivs: IVs | None = None,
    ) -> Sequence[SSAValue]:
        """One `scf.for` per dim in `dims`, outermost first, carrying `inits` through all."""
        ivs = dict(outer_ivs or {})
        if not dims:
            return body(builder, ivs, inits)
        dim, inner_dims = dims[0], dims[1:]
        block = Block(arg_types=[IndexType(), *(init.type for init in inits)])
        block.args[0].name_hint = f"d{dim}"
        for arg in block.args[1:]:
            arg.name_hint = "acc"
        ivs[dim] = block.args[0]
        inner = Builder(InsertPoint.at_end(block))
        results = self.for_nest(inner, inner_dims, block.args[1:], body, ivs)
        inner.insert(scf.YieldOp(*results))
        step, lower = self.constants[1], self.constants[0]
        loop = scf.ForOp(lower, self.upper_bounds[dim], step, inits, block)
        return builder.insert(loop).results

    def emit_body(
        self, builder: Builder, ivs: IVs, outputs: Sequence[SSAValue | None]
    ) -> Sequence[SSAValue]:
        """Clone the op's body with its block arguments replaced; return the yielded values."""
        block = self.op.body.block
        mapper: dict[SSAValue, SSAValue] = {}
        for i, arg in enumerate(block.args[: len(self.op.inputs)]):
            if arg.uses:
                mapper[arg] = self.load_operand(builder, i, ivs)
        for arg, value in zip(block.args[len(self.op.inputs) :], outputs, strict=True):
            if value is not None:
                mapper[arg] = value
        for body_op in block.ops:
            if isinstance(body_op, YieldOp):
                return [mapper.get(v, v) for v in body_op.operands]
            if isinstance(body_op, IndexOp):
                # linalg.index d = the induction variable of loop d
                mapper[body_op.result] = ivs[body_op.dim.value.data]
                continue
            builder.insert(body_op.clone(value_mapper=mapper))
        raise PassFailedException(f"{self.op.name}: body has no linalg.yield")

    def body_arg_used(self, operand_index: int) -> bool:
        return bool(self.op.body.block.args[operand_index].uses)

    def load_operand(self, builder: Builder, operand_index: int, ivs: IVs) -> SSAValue:
        """The element of operand `operand_index` at `ivs`; a scalar operand is itself."""
        operand = self.op.operands[operand_index]
        if not isinstance(operand.type, MemRefType):
            return operand
        indices = self.indices(operand_index, ivs)
        return builder.insert(memref.LoadOp.get(operand, indices)).res

    def indices(self, operand_index: int, ivs: IVs) -> list[SSAValue]:
        """Apply the operand's map: `d<k>` -> loop k's induction variable, `0` -> index 0."""
        return [
            ivs[expr.position] if isinstance(expr, AffineDimExpr) else self.constants[0]
            for expr in self.maps[operand_index].results
        ]


@dataclass(frozen=True)
class LowerToLoopsPass(ModulePass):
    """Lower linalg structured ops on memrefs to `scf.for` nests; the result verifies."""

    name = "lower-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_to_loops(op)
