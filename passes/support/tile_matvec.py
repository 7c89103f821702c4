"""Matrix @ vector generics -> dot products of `ROWS` matrix rows at a time (tile-matmul).

`tile-matmul` calls this for the generics it does not tile itself: a matrix-vector product
on buffers whose matrix is read along its rows,

    linalg.generic {indexing_maps = [(i, k) -> (i, k), (i, k) -> (k), (i, k) -> (i)],
                    iterator_types = ["parallel", "reduction"]} ins(%a, %x) outs(%c)
        { acc + a * x }                               (either input order, either operand
                                                       order of the product)

(`m @ v`, and `v @ m.T`, which bufferize reads through `m` itself). The plain nest runs
one dot product per row and loads `x[k]` again for each; here each `x[k]` feeds ROWS rows:

    scf.for %i0 = 0 to M - M % ROWS step ROWS {tj.parallel}
      %acc0..7 = C[i0 .. i0+7]
      scf.for %k = 0 to K iter_args(%acc0..7) {     LLVM vectorises along k: ROWS vector
        %xk = x[k]                                   accumulators, one load of x per ROWS
        %acc_r += A[i0 + r, k] * %xk                 rows, all loads of A contiguous
      }
      C[i0 .. i0+7] = %acc0..7
    }
    scf.for %i = M - M % ROWS to M { one row at a time }

The rows are summed in the same order as the plain nest (each a dot product along k, the
sum `reassoc` as bufferize emits it). A float sum longer than `SUM_BLOCK` (statically) is
left to lower-to-loops, which sums it in blocks for accuracy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, MemRefType, UnitAttr
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from tracejit.ir.parallel_contract import PARALLEL_LOOP_ATTR
from tracejit.ir.shaped import shaped_type
from tracejit.passes.lower_to_loops import SUM_BLOCK
from tracejit.passes.support.indices import dim_size, index_constant

ROWS = 8
"""Rows per dot-product block: 8 streams of A read at once, each x[k] loaded once for all
(4 rows read a 2000x2000 f32 matrix at 77 GB/s on one Zen 5 core, 8 at ~90)."""


@dataclass(frozen=True)
class MatvecGeneric:
    op: GenericOp
    matrix: int
    """The input index of the matrix (the other input is the vector)."""
    product: Operation
    combiner: Operation


BodyMatcher = Callable[[GenericOp], tuple[Operation, Operation] | None]
"""(product, combiner) of a sum-of-products body, or None (tile-matmul's `_match_body`)."""


def match_matvec(op: Operation, match_body: BodyMatcher) -> MatvecGeneric | None:
    """`op` as a row-major matrix @ vector generic, or None."""
    if not isinstance(op, GenericOp) or op.res:
        return None
    if len(op.inputs) != 2 or len(op.outputs) != 1 or op.get_num_loops() != 2:
        return None
    if not all(isinstance(v.type, MemRefType) for v in op.operands):
        return None
    kinds = [it.data for it in op.get_iterator_types()]
    if kinds != [IteratorType.PARALLEL, IteratorType.REDUCTION]:
        return None
    i, k = AffineExpr.dimension(0), AffineExpr.dimension(1)
    maps = [attr.data.results for attr in op.get_indexing_maps()]
    if maps[2] != (i,) or sorted(maps[:2], key=len) != [(k,), (i, k)]:
        return None
    body = match_body(op)
    if body is None:
        return None
    matrix = maps.index((i, k))
    depth = shaped_type(op.operands[matrix]).get_shape()[1]
    if isinstance(body[1], arith.AddfOp) and depth != DYNAMIC_INDEX and depth > SUM_BLOCK:
        return None
    return MatvecGeneric(op, matrix, *body)


def is_small_matvec(match: MatvecGeneric, min_volume: int) -> bool:
    """A static product of fewer than `min_volume` multiply-adds: the plain nest is as fast
    and cheaper to compile (tile-matmul's `min-volume`)."""
    shape = shaped_type(match.op.operands[match.matrix]).get_shape()
    return DYNAMIC_INDEX not in shape and shape[0] * shape[1] < min_volume


def tile_matvec(match: MatvecGeneric) -> None:
    """Emit the blocked nest right before the generic, then erase it."""
    op = match.op
    b = Builder(InsertPoint.before(op))
    a, x, c = op.operands[match.matrix], op.operands[1 - match.matrix], op.operands[2]
    rows, depth = dim_size(b, a, 0), dim_size(b, a, 1)
    zero, one, block = (index_constant(b, n) for n in (0, 1, ROWS))
    remainder = b.insert(arith.RemUIOp(rows, block)).result
    full = b.insert(arith.SubiOp(rows, remainder)).result
    _row_loop(b, match, (a, x, c), (zero, full, block), ROWS, depth)
    _row_loop(b, match, (a, x, c), (full, rows, one), 1, depth)
    Rewriter.erase_op(op)


def _row_loop(
    b: Builder,
    match: MatvecGeneric,
    buffers: tuple[SSAValue, SSAValue, SSAValue],
    bounds: tuple[SSAValue, SSAValue, SSAValue],
    count: int,
    depth: SSAValue,
) -> None:
    """`scf.for` over blocks of `count` rows, each summing its rows' dot products."""
    a, x, c = buffers
    body = Block(arg_types=[IndexType()])
    inner = Builder(InsertPoint.at_end(body))
    first = body.args[0]
    first.name_hint = "i0"
    rows = [first] + [
        inner.insert(arith.AddiOp(first, index_constant(inner, r))).result
        for r in range(1, count)
    ]
    accumulators = [inner.insert(memref.LoadOp.get(c, [row])).res for row in rows]
    sums = _dot_products(inner, match, a, x, rows, accumulators, depth)
    for row, total in zip(rows, sums, strict=True):
        inner.insert(memref.StoreOp.get(total, c, [row]))
    inner.insert(scf.YieldOp())
    loop = b.insert(scf.ForOp(*bounds, [], body))
    if count > 1:
        # each block of rows writes its own outputs (the generic's parallel dim), as
        # lower-to-loops marks such loops: `parallelize` may split it over threads. The
        # remainder loop (fewer than ROWS rows) is not worth a thread.
        loop.attributes[PARALLEL_LOOP_ATTR] = UnitAttr()


def _dot_products(
    b: Builder,
    match: MatvecGeneric,
    a: SSAValue,
    x: SSAValue,
    rows: Sequence[SSAValue],
    accumulators: Sequence[SSAValue],
    depth: SSAValue,
) -> Sequence[SSAValue]:
    """The k loop carrying one accumulator per row; each loads x[k] once."""
    element = accumulators[0].type
    body = Block(arg_types=[IndexType(), *([element] * len(rows))])
    inner = Builder(InsertPoint.at_end(body))
    k = body.args[0]
    k.name_hint = "k"
    vector = inner.insert(memref.LoadOp.get(x, [k])).res
    args = match.op.body.block.args
    results = []
    for row, acc in zip(rows, body.args[1:], strict=True):
        acc.name_hint = "acc"
        entry = inner.insert(memref.LoadOp.get(a, [row, k])).res
        loaded: dict[SSAValue, SSAValue] = {
            args[match.matrix]: entry,
            args[1 - match.matrix]: vector,
            args[2]: acc,
        }
        product = inner.insert(match.product.clone(value_mapper=dict(loaded)))
        loaded[match.product.results[0]] = product.results[0]
        results.append(inner.insert(match.combiner.clone(value_mapper=loaded)).results[0])
    inner.insert(scf.YieldOp(*results))
    zero, one = index_constant(b, 0), index_constant(b, 1)
    return b.insert(scf.ForOp(zero, depth, one, accumulators, body)).results
