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

so a reduction's accumulator lives in a register through the reduction loops (and a float
sum flagged `reassoc` vectorises along the innermost, contiguous reduction dim). A float sum
over more than `SUM_BLOCK` elements (or, in a whole-array sum, of a length known only at run
time) runs its innermost reduction loop in blocks (or, where the loops inside sum fewer
elements, the loop at which they reach SUM_BLOCK), each summed from -0.0 and then added to
the accumulator (`blocked_sums`), so its rounding error grows like NumPy's pairwise sum
rather than with the length.

Except when the innermost loop dim is a parallel dim (not of static size 1) that an input
walks contiguously, as in `np.sum(x, axis=0)`: then the reduction loop would stride through
memory one element at a time, so instead every dim keeps its original order and each output
element is loaded, combined and stored in the innermost loop:

    scf.for %d0 ... {                     reduction dim
      scf.for %d1 ... {                   parallel dim, innermost: unit stride, vectorises
        %acc = memref.load %out[%d1]
        %in = memref.load %x[%d0, %d1]
        <the op's body, cloned>
        memref.store %s, %out[%d1]
      }
    }

Each output element is still combined in loop order (no reassociation), and a body that
reads `linalg.index` (argmax) sees the same indices in either order.
Loops of parallel dims that carry no values are marked `tj.parallel` (their iterations write
disjoint outputs) for `parallelize`, which may split them over threads.
Loops whose upper bound is 0 run zero times (scf.for semantics), so empty dims need no
special case. Nothing else in the module is touched.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.arith import FastMathFlag
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IndexType,
    MemRefType,
    ModuleOp,
    UnitAttr,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import IndexOp, YieldOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from tracejit.ir.dtypes import is_float
from tracejit.ir.parallel_contract import PARALLEL_LOOP_ATTR
from tracejit.passes.support.indices import index_constant

SUM_BLOCK = 4096
"""A float sum along an innermost reduction loop longer than this adds up blocks this long."""

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
        constant = index_constant(builder, value)
        constant.name_hint = f"c{value}"
        constants[value] = constant
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
        """The outer loops, then the inner ones carrying the outputs (see `loop_order`)."""
        outer, inner = self.loop_order()
        self.for_nest(builder, outer, (), partial(self.outer_body, inner=inner))

    def loop_order(self) -> tuple[list[int], list[int]]:
        """(outer dims, inner dims whose loops carry the outputs in registers).

        Normally the parallel dims are outer and the reduction dims inner. When the innermost
        loop dim is a parallel dim that an input walks contiguously (a sum over a leading
        axis), every dim stays in its original order and the outputs are accumulated in
        memory, so the innermost loop is unit-stride over input and output and vectorises
        (register accumulation would walk the input with a stride, one element at a time).
        """
        parallel = loop_dims(self.op, IteratorType.PARALLEL)
        reduction = loop_dims(self.op, IteratorType.REDUCTION)
        if reduction and self.innermost_is_contiguous_parallel():
            return list(range(self.op.get_num_loops())), []
        return parallel, reduction

    def innermost_is_contiguous_parallel(self) -> bool:
        """Whether the last loop dim is parallel, more than one element long (or dynamic) and
        the innermost dim of some input (a map whose last result is that dim)."""
        last = self.op.get_num_loops() - 1
        if self.op.get_iterator_types().data[last].data != IteratorType.PARALLEL:
            return False
        if self.upper_bounds[last] is self.constants.get(1):
            return False  # a length-1 row: nothing to vectorise across
        innermost = AffineDimExpr(last)
        return any(
            map_.results and map_.results[-1] == innermost
            for map_ in self.maps[: len(self.op.inputs)]
        )

    def outer_body(
        self, builder: Builder, ivs: IVs, _: Sequence[SSAValue], inner: Sequence[int]
    ) -> Sequence[SSAValue]:
        """Load the outputs once, reduce into them in registers through the `inner` loops,
        store them once (with no inner loops: load, compute and store each element)."""
        first_output = len(self.op.inputs)
        # Without inner loops an unused output needs no load; with them the loaded value
        # is the accumulator's initial value (and the result if the loops run zero times).
        accumulators = [
            self.load_operand(builder, first_output + i, ivs)
            if inner or self.body_arg_used(first_output + i)
            else None
            for i in range(len(self.op.outputs))
        ]
        carried = [acc for acc in accumulators if acc is not None]
        blocking = self.blockable_sums(inner)
        if not inner:
            results = self.emit_body(builder, ivs, accumulators)
        elif blocking is not None:
            totals, split, rows = blocking
            blocked = partial(self.blocked_sums, dims=inner[split:], rows=rows, totals=totals)
            results = self.for_nest(builder, inner[:split], carried, blocked, ivs)
        else:
            results = self.for_nest(builder, inner, carried, self.emit_body, ivs)
        for i, (output, result) in enumerate(zip(self.op.outputs, results, strict=True)):
            indices = self.indices(first_output + i, ivs)
            builder.insert(memref.StoreOp.get(result, output, indices))
        return ()

    def blockable_sums(
        self, inner: Sequence[int]
    ) -> tuple[list[arith.AddfOp], int, int] | None:
        """(the body's `acc + x` per output, where in `inner` the blocked loop is, the static
        count of elements one of its iterations sums) if every output is a reassociable float
        sum over more than `SUM_BLOCK` elements, or over a length known only at run time in a
        whole-array sum (a 16M-element float32 sum was off by 3e-3 relative as one loop),
        else None. The blocked loop is the innermost reduction loop, or, where the loops
        inside it sum fewer than SUM_BLOCK elements, the one where they reach it: a whole
        (10000, 100) float32 array, summed as 10000 rows of 100 into one register, was off
        by 5e-4 relative. Sums of rows or dot products of unknown length stay one loop each:
        they are often short, where the blocks would cost."""
        if not inner:
            return None
        block = self.op.body.block
        if not isinstance(block.last_op, YieldOp):
            return None
        split, rows = len(inner) - 1, 1
        while (size := self.static_bound(inner[split])) is not None and rows * size <= SUM_BLOCK:
            rows, split = rows * size, split - 1
            if split < 0:
                return None  # SUM_BLOCK elements or fewer in all: one loop nest
        if size is None and len(inner) != self.op.get_num_loops():
            return None  # of unknown length, only a whole-array sum (not a row's, a dot's)
        accumulators = block.args[len(self.op.inputs) :]
        totals = [value.owner for value in block.last_op.operands]
        for acc, total in zip(accumulators, totals, strict=True):
            if not isinstance(total, arith.AddfOp) or acc not in total.operands:
                return None
            if FastMathFlag.REASSOC not in total.fastmath.data or len(list(acc.uses)) != 1:
                return None
        return totals, split, rows  # type: ignore[return-value]  # AddfOps (checked above)

    def static_bound(self, dim: int) -> int | None:
        """The upper bound of loop `dim` when it is a constant, else None."""
        bound = self.upper_bounds[dim]
        return next((v for v, c in self.constants.items() if c is bound), None)

    def blocked_sums(
        self,
        builder: Builder,
        ivs: IVs,
        accumulators: Sequence[SSAValue],
        dims: Sequence[int],
        rows: int,
        totals: Sequence[arith.AddfOp],
    ) -> Sequence[SSAValue]:
        """The loop of `dims[0]` in blocks of `SUM_BLOCK // rows` iterations (`rows`: the
        elements the loops of `dims[1:]`, inside it, sum per iteration), each block summed
        from -0.0 (the exact identity of addf) and then added to the accumulators:

            scf.for %blk = 0 to N step B iter_args(%acc = ...) {
              %part = scf.for %d = %blk to min(%blk + B, N) iter_args(%p = -0.0) {..}
              scf.yield (%acc + %part)
            }

        The rounding error then grows with N / B + SUM_BLOCK instead of with the element
        count (a 10M-element float32 sum is off by ~1e-4 relative without it), at no speed
        cost."""
        dim = dims[0]
        size = index_constant(builder, SUM_BLOCK // rows)
        outer = Block(arg_types=[IndexType(), *(acc.type for acc in accumulators)])
        outer.args[0].name_hint = "blk"
        b = Builder(InsertPoint.at_end(outer))
        start = outer.args[0]
        stop = b.insert(arith.MinUIOp(b.insert(arith.AddiOp(start, size)).result,
                                      self.upper_bounds[dim])).result  # fmt: skip
        zeros: list[SSAValue] = []
        for a in accumulators:
            assert is_float(a.type)  # a sum's accumulators are floats
            zeros.append(b.insert(arith.ConstantOp(FloatAttr(-0.0, a.type))).result)
        part = Block(arg_types=[IndexType(), *(acc.type for acc in accumulators)])
        part.args[0].name_hint = f"d{dim}"
        for arg, block_arg in zip(outer.args[1:], part.args[1:], strict=True):
            arg.name_hint, block_arg.name_hint = "acc", "part"
        body = Builder(InsertPoint.at_end(part))
        part_ivs = {**ivs, dim: part.args[0]}
        body.insert(scf.YieldOp(*self.for_nest(body, dims[1:], part.args[1:], self.emit_body,
                                               part_ivs)))  # fmt: skip
        partials = b.insert(scf.ForOp(start, stop, self.constants[1], zeros, part)).results
        added = []
        for total, acc, partial_sum in zip(totals, outer.args[1:], partials, strict=True):
            combined = total.clone()
            combined.operands = (acc, partial_sum)
            added.append(b.insert(combined).results[0])
        b.insert(scf.YieldOp(*added))
        loop = scf.ForOp(self.constants[0], self.upper_bounds[dim], size, accumulators, outer)
        return builder.insert(loop).results

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
        if not inits and dim in loop_dims(self.op, IteratorType.PARALLEL):
            # each iteration writes its own outputs: `parallelize` may split the loop
            loop.attributes[PARALLEL_LOOP_ATTR] = UnitAttr()
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
