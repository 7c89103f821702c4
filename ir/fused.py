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
lower), and `tj.yield` returns the kernel's results. An input is a tensor, or an `index`
that a view of the body takes as a run-time start or size (below). What the body may hold
is what one loop nest can compute -- the verifier checks it:

* ops: element-wise (unary, binary, `cast`, `compare`, `select`), views (`broadcast_in_dim`,
  `transpose`, a `reshape` that only adds or drops size-1 dims or of a static 1-D array,
  `slice`) of a block argument or of another view of the body (a chain: `A[i, :j]` read
  as a vector is a slice seen through a reshape), a broadcast also of a splat constant;
  splat `tj.constant`s (scalars in the loop body), and `tj.reduce`
  sum/prod/max/min/any/all. A view is never computed: the loop nest reads the argument
  where the view says (its indexing map, or a load at the position the chain of views
  gives, for a slice start + i * step), so a stencil of shifted slices, or the dot product
  of two rows `np.dot(A[i, :j], A[j, :j])`, reads its arrays in place instead of copying
  every slice first. A view's run-time starts and sizes are `index` block arguments;
* one iteration domain, the shape of the kernel's results before any reduction: every
  element-wise result and every reduction's input has it (a view read only by views has
  its own shape). Dims unknown at trace time (`?`) are part of the shape; the frontend
  makes sure the operands of an element-wise op have one size at run time, so each `?`
  dim of the domain is one size;
* reductions: all over the same axes, their results only yielded; a kernel with a
  reduction yields only reduction results (one generic cannot also write a full-shape
  output: the reduced loops are innermost and carry the accumulators);
* every `?` dim of the domain has a run-time size the kernel can read (`domain_sizes`):
  the dim of an input read at full extent along it, or a slice's count, a broadcast's or
  reshape's size (their `index` operands). Static dims need nothing: `bufferize` bounds
  a loop no operand walks with a buffer that is only a shape (passes/bufferize/fused.py).

    %s = tj.fused %x, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32> {
    ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
      %d = tj.sub %a, %b : tensor<8xf32>
      %q = tj.mul %d, %d : tensor<8xf32>
      %r = tj.reduce "sum" %q, axes = [0] : tensor<8xf32> to tensor<f32>
      tj.yield %r : tensor<f32>
    }

    %dot = tj.fused %x, %y, %n : (tensor<20xf64>, tensor<20xf64>, index) -> tensor<f64> {
    ^bb0(%a: tensor<20xf64>, %b: tensor<20xf64>, %i: index):
      %xs = tj.slice %a, start = [0], step = [1] sizes(%i) : tensor<20xf64> to tensor<?xf64>
      %ys = tj.slice %b, start = [0], step = [1] sizes(%i) : tensor<20xf64> to tensor<?xf64>
      %p = tj.mul %xs, %ys : tensor<?xf64>
      %r = tj.reduce "sum" %p, axes = [0] : tensor<?xf64> to tensor<f64>
      tj.yield %r : tensor<f64>
    }
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    base,
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
from tracejit.ir.indexing import GatherOp
from tracejit.ir.matmul import MatmulOp
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
    None for any other reshape, and when more than one kept dim is unknown (`?`): then
    `?x?` to `?x?` may be 2x6 to 3x4."""
    kept = [d for d, size in enumerate(target) if size != 1]
    if [s for s in source if s != 1] != [target[d] for d in kept]:
        return None
    if list(source).count(DYNAMIC_INDEX) > 1:
        return None
    dims = iter(kept)
    return [None if s == 1 else next(dims) for s in source]


def is_view(op: Operation) -> bool:
    """A view a kernel can read through without computing it: any broadcast, transpose or
    slice (static or run-time starts and counts), a reshape that only adds or drops size-1
    dims or of a static 1-D operand to a static shape (no division to find where an element
    is)."""
    if not isinstance(op, VIEW_OPS):
        return False
    if isinstance(op, ReshapeOp):  # a static 1-D operand is read at the row-major position
        source, target = shape_of(op.operand), shape_of(op.result)
        if unit_dim_reads(source, target) is not None:
            return True
        return len(source) == 1 and DYNAMIC_INDEX not in (*source, *target)
    return True


def shape_of(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType), value.type
    return tuple(value.type.get_shape())


def domain_of(op: Operation) -> tuple[int, ...] | None:
    """The iteration domain an op of a kernel body runs over (None for constants; a
    view's own result shape)."""
    if isinstance(op, ReduceOp):
        return shape_of(op.input)
    if isinstance(op, ConstantOp):
        return None
    return shape_of(op.results[0])


def is_domain_read(view: Operation) -> bool:
    """Whether some user of a view's result is not a view (an element-wise op, a
    reduction, the terminator): the loop nest reads it per element of the domain. A view
    read only by views is a link of a chain of views."""
    return any(not isinstance(use.operation, VIEW_OPS) for use in view.results[0].uses)


# --- run-time sizes ------------------------------------------------------------------
Size = SSAValue | tuple[SSAValue, int]
"""Where a run-time size can be read: an `index` value, or (tensor, axis): the size of a
dim of a tensor the kernel reads at full extent."""


def dim_sizes(
    value: SSAValue,
    inside: Callable[[SSAValue], bool],
    memo: dict[SSAValue, list[list[Size]]] | None = None,
) -> list[list[Size]]:
    """Per dim of `value`, where its run-time size can be read, for `?` dims (empty for
    static ones). `inside(v)`: whether `v` is computed by the kernel's ops (else it is
    read from outside, and its own dims are its sizes). An element-wise result has the
    sizes of all its operands (they are one size at run time), a slice the counts it is
    given, a broadcast or reshape the sizes it is given and those of the operand dims it
    keeps, a transpose its operand's, permuted."""
    memo = {} if memo is None else memo
    if value in memo:
        return memo[value]
    shape = shape_of(value)
    if DYNAMIC_INDEX not in shape:
        return [[] for _ in shape]
    found: list[dict[Size, None]] = [{} for _ in shape]

    def take(operand: SSAValue, reads: Iterable[int | None]) -> None:
        """Result dim `d` has operand dim k's size where reads[k] = d."""
        operand_sizes = dim_sizes(operand, inside, memo)
        for k, d in enumerate(reads):
            if d is not None:
                found[d].update(dict.fromkeys(operand_sizes[k]))

    def given(sizes: Sequence[SSAValue], dims: Sequence[int]) -> None:
        for size, d in zip(sizes, dims, strict=True):
            found[d][size] = None

    owner = value.owner
    dynamic = [d for d, n in enumerate(shape) if n == DYNAMIC_INDEX]
    if not inside(value):
        for d in dynamic:
            found[d][(value, d)] = None
    elif isinstance(owner, SliceOp):
        given(owner.sizes, dynamic)
    elif isinstance(owner, ReshapeOp):
        given(owner.sizes, dynamic)
        take(owner.operand, unit_dim_reads(shape_of(owner.operand), shape) or [])
    elif isinstance(owner, BroadcastInDimOp):
        given(owner.sizes, owner.dynamic_size_dims())
        take(owner.operand, owner.read_dims())
    elif isinstance(owner, TransposeOp):
        perm = owner.get_permutation()
        take(owner.operand, [perm.index(k) for k in range(len(perm))])
    elif isinstance(owner, ELEMENTWISE_OPS):
        for operand in owner.operands:
            take(operand, range(len(shape)))
    result = [list(f) if n == DYNAMIC_INDEX else [] for f, n in zip(found, shape, strict=True)]
    memo[value] = result
    return result


def domain_sizes(
    values: Iterable[SSAValue], rank: int, inside: Callable[[SSAValue], bool]
) -> list[list[Size]]:
    """Per dim of a domain, where its run-time size can be read (`dim_sizes` of every
    value of `values`, which run over the domain, together)."""
    memo: dict[SSAValue, list[list[Size]]] = {}
    found: list[dict[Size, None]] = [{} for _ in range(rank)]
    for value in values:
        for d, sizes in enumerate(dim_sizes(value, inside, memo)):
            found[d].update(dict.fromkeys(sizes))
    return [list(f) for f in found]


def dim_bounds(
    value: SSAValue,
    inside: Callable[[SSAValue], bool] | None = None,
    memo: dict[SSAValue, list[int | None]] | None = None,
) -> list[int | None]:
    """Per dim of `value`, a static upper bound of its size (None: none known). A static
    dim is its own bound; a slice's count is at most its operand's dim (its positions
    along a dim are distinct and in range); a broadcast, reshape or transpose keeps the
    bounds of the operand dims it reads along; an element-wise result has the smallest
    of its operands' (they are one size at run time), a kernel's result its domain's.
    `inside(v)`: whether to look at the op that makes `v` (else only `v`'s type; None:
    look at every op)."""
    memo = {} if memo is None else memo
    if value in memo:
        return memo[value]
    shape = shape_of(value)
    bounds: list[int | None] = [None if n == DYNAMIC_INDEX else n for n in shape]
    if DYNAMIC_INDEX not in shape:
        return bounds

    def take(operand: SSAValue, reads: Iterable[int | None]) -> None:
        """Result dim `d` reads operand dim k where reads[k] = d."""
        operand_bounds = dim_bounds(operand, inside, memo)
        for k, d in enumerate(reads):
            if d is not None:
                bounds[d] = _smaller(bounds[d], operand_bounds[k])

    owner = value.owner
    if inside is not None and not inside(value):
        pass
    elif isinstance(owner, SliceOp):
        take(owner.operand, range(len(shape)))
    elif isinstance(owner, ReshapeOp):
        take(owner.operand, unit_dim_reads(shape_of(owner.operand), shape) or [])
    elif isinstance(owner, BroadcastInDimOp):
        take(owner.operand, owner.read_dims())
    elif isinstance(owner, TransposeOp):
        perm = owner.get_permutation()
        take(owner.operand, [perm.index(k) for k in range(len(perm))])
    elif isinstance(owner, ELEMENTWISE_OPS):
        for operand in owner.operands:
            take(operand, range(len(shape)))
    elif isinstance(owner, MatmulOp):  # m is A's row dim, n B's column dim (batch: none)
        lhs_rank, rhs_rank = len(shape_of(owner.lhs)), len(shape_of(owner.rhs))
        n_dim = len(shape) - 1 if rhs_rank > 1 else None
        m_dim = len(shape) - 1 - (rhs_rank > 1)
        if lhs_rank > 1:
            take(owner.lhs, [None] * (lhs_rank - 2) + [m_dim, None])
        if rhs_rank > 1:
            take(owner.rhs, [None] * (rhs_rank - 1) + [n_dim])
    elif isinstance(owner, GatherOp):  # the input's dims around the axis, the indices' in it
        axis, count = owner.axis.value.data, len(shape_of(owner.indices))
        reads = [
            k if k < axis else None if k == axis else k - 1 + count
            for k in range(len(shape_of(owner.input)))
        ]
        take(owner.input, reads)
        take(owner.indices, range(axis, axis + count))
    elif isinstance(owner, FusedOp):
        yielded = owner.terminator.values[owner.results.index(value)]
        axes = yielded.owner.get_axes() if isinstance(yielded.owner, ReduceOp) else ()
        kept = [b for d, b in enumerate(owner.domain_bounds()) if d not in axes]
        bounds = [_smaller(b, k) for b, k in zip(bounds, kept, strict=True)]
    memo[value] = bounds
    return bounds


def _smaller(a: int | None, b: int | None) -> int | None:
    """The smaller of two bounds (None: no bound)."""
    return b if a is None else a if b is None else min(a, b)


def domain_values(ops: Iterable[Operation]) -> list[SSAValue]:
    """The values of kernel ops that run over the domain: element-wise results and the
    reductions' inputs."""
    values: list[SSAValue] = []
    for op in ops:
        if isinstance(op, ReduceOp):
            values.append(op.input)
        elif isinstance(op, ELEMENTWISE_OPS):
            values.append(op.results[0])
    return values


@irdl_op_definition
class FusedOp(IRDLOperation, HasFolderInterface):
    """An element-wise kernel: the region computes the results from the block arguments,
    which are the operands (see the module docstring)."""

    name = "tj.fused"
    inputs = var_operand_def(base(TensorType) | base(IndexType))
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
        """The shape of the kernel's iteration space (before any reduction): that of its
        first result, or of the first reduction's input."""
        value = self.terminator.values[0]
        if isinstance(value.owner, ReduceOp):
            return shape_of(value.owner.input)
        return shape_of(value)

    def reductions(self) -> list[ReduceOp]:
        return [op for op in self.body_ops() if isinstance(op, ReduceOp)]

    def domain_sizes(self) -> list[list[Size]]:
        """Per dim of the domain, where its run-time size can be read (block arguments:
        an `index` one, or (tensor argument, axis)); empty for static dims."""
        values = domain_values(self.body_ops())
        values += [v for v in self.terminator.values if not isinstance(v.owner, ReduceOp)]
        return domain_sizes(values, len(self.domain()), _computed_in_body)

    def domain_bounds(self) -> list[int | None]:
        """Per dim of the domain, a static upper bound of its size (`dim_bounds`)."""
        values = domain_values(self.body_ops())
        values += [v for v in self.terminator.values if not isinstance(v.owner, ReduceOp)]
        memo: dict[SSAValue, list[int | None]] = {}
        bounds: list[int | None] = [None if n == DYNAMIC_INDEX else n for n in self.domain()]
        for value in values:
            for d, bound in enumerate(dim_bounds(value, _computed_in_body, memo)):
                bounds[d] = _smaller(bounds[d], bound)
        return bounds

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
        for value in self.terminator.values:
            if not isinstance(value.owner, ReduceOp) and shape_of(value) != domain:
                raise VerifyException(
                    f"tj.fused: a result of shape {list(shape_of(value))} is not of the "
                    f"kernel's domain {list(domain)}"
                )
        self._verify_reductions()
        self._verify_sizes_known(domain)

    def _verify_body_op(self, op: Operation, domain: tuple[int, ...]) -> None:
        if not isinstance(op, BODY_OPS):
            raise VerifyException(f"tj.fused cannot hold {op.name}")
        if isinstance(op, ConstantOp):
            if op.splat() is None:
                raise VerifyException("tj.fused can only hold splat constants")
            return
        if isinstance(op, VIEW_OPS):
            self._verify_view(op)
            return  # (its users check its shape)
        if domain_of(op) != domain:
            raise VerifyException(
                f"tj.fused: {op.name} runs over {list(domain_of(op) or ())}, "
                f"not the kernel's domain {list(domain)}"
            )
        if isinstance(op, ReduceOp) and op.kind.data not in FUSABLE_REDUCTIONS:
            raise VerifyException(f"tj.fused cannot hold a tj.reduce '{op.kind.data}'")

    @staticmethod
    def _verify_view(op: Operation) -> None:
        if not is_view(op):
            raise VerifyException(f"tj.fused cannot read through this {op.name}")
        if _reads_argument(op):
            return
        if not isinstance(op, BroadcastInDimOp):
            raise VerifyException(
                f"tj.fused: {op.name} must read a block argument or a view of one"
            )
        if not isinstance(op.operand.owner, ConstantOp):
            raise VerifyException(
                "tj.fused: tj.broadcast_in_dim must read a block argument, a view of one or a "
                "constant"
            )

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

    def _verify_sizes_known(self, domain: tuple[int, ...]) -> None:
        sizes = self.domain_sizes()
        unknown = [d for d, n in enumerate(domain) if n == DYNAMIC_INDEX and not sizes[d]]
        if unknown:
            raise VerifyException(
                f"tj.fused: nothing in the kernel gives the run-time size of loop(s) {unknown}"
            )

    # --- meaning --------------------------------------------------------------------
    def evaluate(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        """Run the body op by op with each op's NumPy meaning (tensor inputs only: a
        kernel with run-time sizes is never folded, its `index` inputs are no constants)."""
        env: dict[SSAValue, np.ndarray] = dict(zip(self.block.args, inputs, strict=True))
        for op in self.body_ops():
            if isinstance(op, ConstantOp):
                env[op.result] = op.to_array()
                continue
            env[op.results[0]] = np.asarray(op.evaluate(*(env[v] for v in op.operands)))  # type: ignore[attr-defined]  # kernel body ops define evaluate
        return tuple(env[v] for v in self.terminator.values)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)


def _computed_in_body(value: SSAValue) -> bool:
    return not isinstance(value, BlockArgument)


def _reads_argument(view: Operation) -> bool:
    """Whether a view reads a block argument, directly or through other views."""
    source = view.operands[0]
    if isinstance(source, BlockArgument):
        return True
    owner = source.owner
    return isinstance(owner, VIEW_OPS) and is_view(owner) and _reads_argument(owner)


FUSED_OPS = (FusedOp,)
