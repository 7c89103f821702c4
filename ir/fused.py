"""`tj.fused`: an element-wise kernel, the unit `fuse-elementwise` builds and `bufferize`
turns into ONE `linalg.generic` (one loop nest, no intermediate buffers).

    %r, %s = tj.fused %x, %y, %m : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>)
                                   -> (tensor<8x4xf32>, tensor<8x4xf32>) {
    ^bb0(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>, %c: tensor<4xf32>):
      %two = tj.constant dense<2.0> : tensor<8x4xf32>
      %mb = tj.broadcast_in_dim %c, dims = [1] : tensor<4xf32> to tensor<8x4xf32>
      %d = tj.sub %a, %mb : tensor<8x4xf32>
      %p = tj.mul %d, %two : tensor<8x4xf32>
      %q = tj.add %p, %b : tensor<8x4xf32>
      tj.yield %p, %q : tensor<8x4xf32>, tensor<8x4xf32>
    }

The body holds the fused `tj` ops themselves (so the kernel reads like the code it came
from and every op keeps its verifier); the kernel's external inputs are the block
arguments (the body captures nothing, so the op is self-contained, easy to draw and to
lower), and `tj.yield` returns the kernel's results. What the body may hold is what one
loop nest can compute — the verifier checks it:

* ops: element-wise (unary, binary, `cast`, `compare`, `select`), views of a block
  argument (`broadcast_in_dim`, also of a splat constant; `transpose`; a `reshape` that
  only adds or drops size-1 dims, or of a 1-D array; a `slice` with static starts and
  steps), splat
  `tj.constant`s (scalars in the loop body), and `tj.reduce` sum/prod/max/min/any/all.
  A view is never computed: the loop nest reads the argument where the view says (its
  indexing map, or for a slice a load at start + i * step), so a stencil of shifted
  slices reads its array in place instead of copying every slice first;
* one iteration domain, the shape every element-wise and broadcast result (and every
  reduction's input) has;
* reductions: all over the same axes, their results only yielded; a kernel with a
  reduction yields only reduction results (one generic cannot also write a full-shape
  output: the reduced loops are innermost and carry the accumulators);
* every loop is bounded by some operand: each dimension of the domain is read from some
  input at full extent, or written to some output. `sum(broadcast_to(a, (3, 2)))` of an
  `a` of shape (2,) cannot be one kernel: nothing in it says the outer loop runs 3 times.

    %s = tj.fused %x, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32> {
    ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
      %d = tj.sub %a, %b : tensor<8xf32>
      %q = tj.mul %d, %d : tensor<8xf32>
      %r = tj.reduce "sum" %q, axes = [0] : tensor<8xf32> to tensor<f32>
      tj.yield %r : tensor<f32>
    }
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsolatedFromAbove, Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.constant import ConstantOp
from tracejit.ir.control_flow import YieldOp
from tracejit.ir.elementwise import BINARY_OPS, OTHER_ELEMENTWISE_OPS, UNARY_OPS
from tracejit.ir.folding import fold_with_numpy
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import BroadcastInDimOp, ReshapeOp, SliceOp, TransposeOp

# Ops computed once per element of the iteration domain.
ELEMENTWISE_OPS: tuple[type[Operation], ...] = (*UNARY_OPS, *BINARY_OPS, *OTHER_ELEMENTWISE_OPS)
# Reductions a kernel can accumulate (argmax/argmin need an index pair: not fused).
FUSABLE_REDUCTIONS = frozenset(ReduceOp.KINDS) - ReduceOp.INDEX_KINDS
# Views: ops that only say where each element of their operand is read.
VIEW_OPS: tuple[type[Operation], ...] = (BroadcastInDimOp, TransposeOp, ReshapeOp, SliceOp)
# Every op a `tj.fused` body may hold (besides its `tj.yield`).
BODY_OPS: tuple[type[Operation], ...] = (
    *ELEMENTWISE_OPS,
    *VIEW_OPS,
    ConstantOp,
    ReduceOp,
)


def unit_dim_reads(source: Sequence[int], target: Sequence[int]) -> list[int | None] | None:
    """For a reshape from `source` to `target` that only adds or drops size-1 dims: per
    source dim, the target dim it is read along (None for a dropped size-1 dim, read at 0).
    None for any other reshape."""
    kept = [d for d, size in enumerate(target) if size != 1]
    if [s for s in source if s != 1] != [target[d] for d in kept]:
        return None
    dims = iter(kept)
    return [None if s == 1 else next(dims) for s in source]


def is_view(op: Operation) -> bool:
    """A view a kernel can read through without computing it: static shapes, and for a
    slice static starts and counts, for a reshape only size-1 dims added or dropped or a
    1-D operand (no division to find where an element is)."""
    if not isinstance(op, VIEW_OPS):
        return False
    types = [op.operands[0].type, op.results[0].type]
    if not all(isinstance(t, TensorType) and t.has_static_shape() for t in types):
        return False
    if isinstance(op, SliceOp):
        return not op.is_dynamic()
    if isinstance(op, ReshapeOp):  # a 1-D operand is read at the row-major position
        source = shape_of(op.operand)
        return len(source) == 1 or unit_dim_reads(source, shape_of(op.result)) is not None
    return True


def shape_of(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType), value.type
    return tuple(value.type.get_shape())


def domain_of(op: Operation) -> tuple[int, ...] | None:
    """The iteration domain an op of a kernel body runs over (None for constants)."""
    if isinstance(op, ReduceOp):
        return shape_of(op.input)
    if isinstance(op, ConstantOp):
        return None
    return shape_of(op.results[0])


@irdl_op_definition
class FusedOp(IRDLOperation, HasFolderInterface):
    """An element-wise kernel: the region computes the results from the block arguments,
    which are the operands (see the module docstring)."""

    name = "tj.fused"
    inputs = var_operand_def(TensorType)
    res = var_result_def(TensorType)
    body = region_def("single_block")
    # Pure: the verifier admits only pure ops into the body; isolated: inputs are block args.
    traits = traits_def(Pure(), IsolatedFromAbove())
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $res) $body"

    def __init__(self, inputs: Sequence[SSAValue], result_types: Sequence[Attribute], body: Region):
        super().__init__(operands=[inputs], result_types=[result_types], regions=[body])

    @property
    def block(self) -> Block:
        return self.body.block

    @property
    def terminator(self) -> YieldOp:
        terminator = self.block.last_op
        assert isinstance(terminator, YieldOp)
        return terminator

    def body_ops(self) -> list[Operation]:
        """The kernel's ops without the terminator."""
        return list(self.block.ops)[:-1]

    def domain(self) -> tuple[int, ...]:
        """The shape of the kernel's iteration space (before any reduction)."""
        for op in self.body_ops():
            found = domain_of(op)
            if found is not None:
                return found
        return shape_of(self.terminator.values[0])

    def reductions(self) -> list[ReduceOp]:
        return [op for op in self.body_ops() if isinstance(op, ReduceOp)]

    # --- verification ---------------------------------------------------------------
    def verify_(self) -> None:
        block = self.block
        if [a.type for a in block.args] != list(self.inputs.types):
            raise VerifyException("tj.fused block arguments must have the operand types")
        if not isinstance(block.last_op, YieldOp):
            raise VerifyException("tj.fused body must end with tj.yield")
        if list(self.terminator.values.types) != list(self.res.types):
            raise VerifyException("tj.fused yield types must be the result types")
        if not self.res:
            raise VerifyException("tj.fused must have at least one result")
        domain = self.domain()
        for op in self.body_ops():
            self._verify_body_op(op, domain)
        self._verify_reductions()
        self._verify_loops_bounded(domain)

    def _verify_body_op(self, op: Operation, domain: tuple[int, ...]) -> None:
        if not isinstance(op, BODY_OPS):
            raise VerifyException(f"tj.fused cannot hold {op.name}")
        if isinstance(op, ConstantOp):
            if op.splat() is None:
                raise VerifyException("tj.fused can only hold splat constants")
            return
        if domain_of(op) != domain:
            raise VerifyException(
                f"tj.fused: {op.name} runs over {list(domain_of(op) or ())}, "
                f"not the kernel's domain {list(domain)}"
            )
        if isinstance(op, VIEW_OPS):
            self._verify_view(op)
        if isinstance(op, ReduceOp) and op.kind.data not in FUSABLE_REDUCTIONS:
            raise VerifyException(f"tj.fused cannot hold a tj.reduce '{op.kind.data}'")

    @staticmethod
    def _verify_view(op: Operation) -> None:
        if not is_view(op):
            raise VerifyException(f"tj.fused cannot read through this {op.name}")
        source = op.operands[0]
        if isinstance(op, BroadcastInDimOp) and not _is_input_or_constant(source):
            raise VerifyException(
                "tj.fused: tj.broadcast_in_dim must read a block argument or a constant"
            )
        if not isinstance(op, BroadcastInDimOp) and not isinstance(source, BlockArgument):
            raise VerifyException(f"tj.fused: {op.name} must read a block argument")

    def _verify_reductions(self) -> None:
        reductions = self.reductions()
        if not reductions:
            return
        if len({r.get_axes() for r in reductions}) > 1:
            raise VerifyException("tj.fused reductions must all reduce the same axes")
        yielded = {v for v in self.terminator.values}
        for reduction in reductions:
            if any(use.operation is not self.terminator for use in reduction.result.uses):
                raise VerifyException("tj.fused: a reduction's result can only be yielded")
        if any(not isinstance(v.owner, ReduceOp) for v in yielded):
            raise VerifyException("tj.fused with a reduction can only yield reduction results")

    def _verify_loops_bounded(self, domain: tuple[int, ...]) -> None:
        args = set(self.block.args)
        bounded: set[int] = set()
        for op in self.body_ops():
            if any(v in args for v in op.operands):
                bounded |= loops_read(op)
        for value in self.terminator.values:
            bounded |= loops_written(value)
        if unbounded := sorted(set(range(len(domain))) - bounded):
            raise VerifyException(
                f"tj.fused: no input or output gives the extent of loop(s) {unbounded}"
            )

    # --- meaning --------------------------------------------------------------------
    def evaluate(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        """Run the body op by op with each op's NumPy meaning."""
        env: dict[SSAValue, np.ndarray] = dict(zip(self.block.args, inputs, strict=True))
        for op in self.body_ops():
            if isinstance(op, ConstantOp):
                env[op.result] = op.to_array()
                continue
            env[op.results[0]] = np.asarray(op.evaluate(*(env[v] for v in op.operands)))  # type: ignore[attr-defined]  # kernel body ops define evaluate
        return tuple(env[v] for v in self.terminator.values)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)


def loops_read(op: Operation) -> set[int]:
    """The loops of the domain along which body op `op` reads its operands at full extent
    (all of them, except where a broadcast reads a smaller or missing dimension, a reshape
    a missing size-1 one, and a slice none: a window does not give the loop's length)."""
    domain = domain_of(op)
    if domain is None or isinstance(op, SliceOp):
        return set()
    if isinstance(op, BroadcastInDimOp):
        return {d for d in op.read_dims() if d is not None}
    if isinstance(op, ReshapeOp):  # (another reshape of a 1-D operand is loaded: none)
        reads = unit_dim_reads(shape_of(op.operand), shape_of(op.result)) or []
        return {d for d in reads if d is not None}
    return set(range(len(domain)))


def loops_written(value: SSAValue) -> set[int]:
    """The loops of the domain that index the output `value` (a reduction's kept axes)."""
    owner = value.owner
    if isinstance(owner, ReduceOp):
        return set(range(len(shape_of(owner.input)))) - set(owner.get_axes())
    return set(range(len(shape_of(value))))


def _is_input_or_constant(value: SSAValue) -> bool:
    return isinstance(value, BlockArgument) or isinstance(value.owner, ConstantOp)


FUSED_OPS = (FusedOp,)
