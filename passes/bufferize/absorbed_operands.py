"""A matrix computed element-wise for one matrix @ vector product, computed in its loop.

`(alpha * A) @ x` (PolyBench's gesummv), `np.exp(-d) @ w`, `(a - b) @ v`: the matrix is a
`tj.fused` kernel whose one use is the product. Written into a buffer of its own, it costs
a pass over the matrix writing it and a second reading it back; read in the product's loop
instead, each element is computed where it is multiplied, with the same operations in the
same order (the same values as NumPy's temporary matrix):

    %m = tj.fused %a, %s { mul %a, broadcast(%s) }            (tensor<NxKxf64>)
    %y = tj.matmul %m, %x
  ->
    linalg.generic {indexing_maps = [(i, k) -> (i, k), (i, k) -> (), (i, k) -> (k),
                                     (i, k) -> (i)],
                    iterator_types = ["parallel", "reduction"]}
        ins(%a, %s, %x) outs(%y) {
    ^bb0(%ae, %se, %xe, %acc):  %me = mulf %ae, %se;  %p = mulf %me, %xe;
                                %sum = addf %acc, %p fastmath<reassoc>;  yield %sum
    }

Only for a row-major product our own kernel computes (not one `use-blas` gave to BLAS,
which reads a buffer), of static shapes, in float32 or float64, whose kernel reads every
argument through a map (no slices loaded in place: those index the kernel's own loops),
reduces nothing, and comes right before the product: the product reads the kernel's inputs
where it runs, and an op between them could have written an input's buffer in place (its
last use, as bufferize sees it, being the kernel). The kernel is then not bufferized at all.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, Float32Type, Float64Type, IndexType
from xdsl.ir import Operation
from xdsl.ir.affine import AffineExpr

from tracejit.ir import elementwise as ew
from tracejit.ir.dtypes import element_of
from tracejit.ir.fused import FusedOp
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.shaped import shaped_type
from tracejit.passes.bufferize.builder import (
    PARALLEL,
    REDUCTION,
    FunctionBufferizer,
    Handler,
    projection_map,
)
from tracejit.passes.bufferize.fused import (
    emit_body,
    input_maps,
    lower_fused,
    outer_values,
    read_map,
)
from tracejit.passes.bufferize.structured import fill, lower_matmul
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.use_blas import BLAS_ATTR


def absorbed_matrix(product: MatmulOp) -> FusedOp | None:
    """The kernel computing `product`'s matrix, when the product computes it instead."""
    lhs, rhs = shaped_type(product.lhs).get_shape(), shaped_type(product.rhs).get_shape()
    if len(lhs) != 2 or len(rhs) != 1 or DYNAMIC_INDEX in (*lhs, *rhs):
        return None
    if BLAS_ATTR in product.attributes:
        return None
    if not isinstance(element_of(product.result), Float32Type | Float64Type):
        return None
    kernel = product.lhs.owner
    if not isinstance(kernel, FusedOp) or len(kernel.res) != 1 or not product.lhs.has_one_use():
        return None
    if kernel.next_op is not product:  # an op between could write the inputs' buffers in
        return None  # place (their last use looks like the kernel's), read after it here
    return kernel if _reads_only_through_maps(kernel) else None


def _reads_only_through_maps(kernel: FusedOp) -> bool:
    if kernel.reductions() or any(isinstance(a.type, IndexType) for a in kernel.block.args):
        return False
    rank = len(kernel.domain())
    return all(read_map(op, rank) is not None for op in kernel.body_ops())


def lower_fused_unless_absorbed(bufferizer: FunctionBufferizer, kernel: FusedOp) -> None:
    product = kernel.next_op  # the only place an absorbing product can be
    if not isinstance(product, MatmulOp) or absorbed_matrix(product) is not kernel:
        lower_fused(bufferizer, kernel)


def lower_matmul_absorbing(bufferizer: FunctionBufferizer, op: MatmulOp) -> None:
    kernel = absorbed_matrix(op)
    if kernel is None:
        lower_matmul(bufferizer, op)
        return
    element = element_of(op.result)
    output = bufferizer.destination(op.result, [], bounds=bufferizer.bounds_of(op.result))
    bufferizer.values[op.result] = output
    outer = outer_values(bufferizer, kernel)
    reads = input_maps(kernel)
    row, column = (projection_map(2, [AffineExpr.dimension(d)]) for d in (0, 1))
    inputs = [outer[arg] for arg, _ in reads] + [bufferizer.values[op.rhs]]
    maps = [read for _, read in reads] + [column, row]  # x[k], y[i]
    fill(bufferizer, output, 0, element, op.location)

    def body(b, ins, outs):
        (entry,) = emit_body(kernel, reads, outer, b, ins[:-1], outs)
        product = scalar.emit_scalar(b, ew.MulOp, [entry, ins[-1]], element)
        return [scalar.emit_combiner(b, "sum", outs[0], product, element)]

    bufferizer.generic(inputs, output, maps, [PARALLEL, REDUCTION], body, op.location)


ABSORBING_HANDLERS: dict[type[Operation], Handler] = {
    FusedOp: lower_fused_unless_absorbed,
    MatmulOp: lower_matmul_absorbing,
}
