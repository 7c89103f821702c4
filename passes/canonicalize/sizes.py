"""Canonicalization patterns about sizes unknown at trace time, and dot products.

`tj.dim` of a value whose op states the size reads that size instead:

    %s = tj.slice %x, start = [0], step = [1] sizes(%n) : tensor<20xf64> to tensor<?xf64>
    %d = tj.dim %s, 0 : tensor<?xf64>                     ->   (uses of %d read %n)

so the size no longer depends on the slice, and `fuse-elementwise` can read the slice in
place inside a kernel instead of materialising it for the `tj.dim` outside (frontend code
like `x[:i].reshape(-1)` or `np.mean(x[:i])` asks for the dims of its slices).

A 1-D @ 1-D `tj.matmul` (np.dot of two vectors) becomes `tj.reduce "sum"` of `tj.mul`,
which fuses with the ops around it (the slices of `np.dot(A[i, :j], A[j, :j])` are read in
place by one loop). It is the same computation tracejit compiles for the matmul: the
products of the operands, added to an accumulator with the reassociable sum combiner (a
statically long sum is added in blocks, `lower-to-loops`, closer to NumPy's pairwise
sum). Not for bool (a dot of bools is `any`, of another type than sum) nor float16 (the
matmul accumulates float16 products in float32).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType, f16
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tracejit.ir.dtypes import is_bool
from tracejit.ir.elementwise import BINARY_OPS, OTHER_ELEMENTWISE_OPS, UNARY_OPS
from tracejit.ir.elementwise_binary import MulOp
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import BroadcastInDimOp, DimOp, ReshapeOp, SliceOp, TransposeOp

_ELEMENTWISE = (*UNARY_OPS, *BINARY_OPS, *OTHER_ELEMENTWISE_OPS)


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


def _run_time_size(sizes: tuple[SSAValue, ...], shape: tuple[int, ...], dim: int) -> SSAValue:
    """The `sizes` operand of result dim `dim`: one per `?` dim of `shape`, in order."""
    return sizes[shape[:dim].count(DYNAMIC_INDEX)]


class DimOfSizedValue(RewritePattern):
    """tj.dim(x, d) -> the size of x's dim d where it is stated:
    * a static dim:                                   its size (an index constant);
    * slice/reshape with `sizes`, a `?` dim:          its `sizes` operand;
    * broadcast_in_dim, a new `?` dim:                its `sizes` operand;
      a `?` dim of the operand's `?` dim k:           tj.dim(operand, k);
    * transpose by p:                                 tj.dim(operand, p[d]);
    * an element-wise op (operands of its shape):     tj.dim(first operand, d)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DimOp, rewriter: PatternRewriter) -> None:
        dim = op.index.value.data
        shape = _shape(op.source)
        if shape[dim] != DYNAMIC_INDEX:
            rewriter.replace(op, arith.ConstantOp(IntegerAttr(shape[dim], IndexType())))
            return
        owner = op.source.owner
        if isinstance(owner, SliceOp | ReshapeOp):
            rewriter.replace(op, [], [_run_time_size(tuple(owner.sizes), shape, dim)])
        elif isinstance(owner, BroadcastInDimOp):
            sized = owner.dynamic_size_dims()
            if dim in sized:
                rewriter.replace(op, [], [owner.sizes[sized.index(dim)]])
            else:  # a `?` operand dim: the result dim has its size
                rewriter.replace(op, DimOp(owner.operand, owner.get_dims().index(dim)))
        elif isinstance(owner, TransposeOp):
            rewriter.replace(op, DimOp(owner.operand, owner.get_permutation()[dim]))
        elif isinstance(owner, _ELEMENTWISE):
            first = owner.operands[0]
            if _shape(first) == shape:  # (select: the condition has the shape too)
                rewriter.replace(op, DimOp(first, dim))


class DotAsSum(RewritePattern):
    """matmul(a, b) of two vectors of one type -> reduce "sum" (mul(a, b)), axes [0]
    (see the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatmulOp, rewriter: PatternRewriter) -> None:
        lhs, rhs, result = op.lhs.type, op.rhs.type, op.result.type
        assert isinstance(lhs, TensorType) and isinstance(result, TensorType)
        if lhs.get_num_dims() != 1 or lhs != rhs:
            return
        element = lhs.get_element_type()
        if is_bool(element) or element == f16:
            return
        product = MulOp(op.lhs, op.rhs)
        rewriter.replace(op, [product, ReduceOp("sum", product.result, [0], result)])
