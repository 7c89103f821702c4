"""A masked update of element-wise values as one `tj.select` (a canonicalization of `tj.scatter`).

`z[m] = z[m] * z[m] + c[m]`, NumPy's idiom for updating the elements a boolean mask picks,
traces as the positions of the mask's true elements, gathers of z and c at them, the
element-wise expression on the gathered (run-time sized) values and a scatter back:

    %p = tj.nonzero %m                      %full = tj.add (tj.mul %z, %z), %c
    %i = tj.gather %p[0], axis = 1    =>    %r = tj.select %m, %full, %z
    %r = tj.scatter (tj.add (tj.mul (tj.gather %z[%i]) ...) ...) into %z[%i]

The expression is computed for every element instead and the mask picks the result: one
fused element-wise kernel, no counting, compaction or scatter. The same values, bit for
bit, at the picked elements (each element's result depends on that element's operands
alone); the elements not picked keep z's, and whatever the expression gives for them is
never seen: every element-wise op is total (integer division by zero, shifts and powers
out of range have defined results, ir/elementwise_binary.py), so computing it cannot fail
either. Applies when every gathered array has the mask's static shape, and the
expression is made of element-wise ops, casts, compares, selects and broadcast scalars
(a run-time sized tensor from anywhere else, such as `np.arange` of the count, would
need the compaction, and leaves the scatter alone).
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import Pure

from tracejit.ir.compare import CompareOp
from tracejit.ir.elementwise import CastOp
from tracejit.ir.elementwise_base import ElementwiseBinaryOp, ElementwiseUnaryOp
from tracejit.ir.indexing import GatherOp
from tracejit.ir.nonzero import NonzeroOp
from tracejit.ir.select import SelectOp
from tracejit.ir.shape_ops import BroadcastInDimOp, ReshapeOp
from tracejit.ir.shaped import shaped_type
from tracejit.ir.update import ScatterOp
from tracejit.passes.canonicalize.patterns import splat_of

ELEMENTWISE = (ElementwiseUnaryOp, ElementwiseBinaryOp, CastOp, CompareOp, SelectOp)


def mask_of(positions: SSAValue) -> SSAValue | None:
    """The 1-d boolean mask whose true elements' positions `positions` is
    (`tj.gather %nonzero[0], axis = 1` of `tj.nonzero %mask`), else None."""
    gather = positions.owner
    if not isinstance(gather, GatherOp) or gather.get_axis() != 1:
        return None
    nonzero = gather.input.owner
    index = splat_of(gather.indices)
    if not isinstance(nonzero, NonzeroOp) or index is None or int(index) != 0:
        return None
    mask = nonzero.input
    assert isinstance(mask.type, TensorType)
    boolean = mask.type.get_element_type() == i1  # not np.nonzero of numbers: select needs bools
    return mask if boolean and mask.type.get_num_dims() == 1 else None


def same_mask(a: SSAValue | None, b: SSAValue | None) -> bool:
    """Whether `a` and `b` are one mask. Canonicalize runs before CSE, so each `z[m]` of a
    statement still has its own copy of m's ops (`z[z > 0] = z[z > 0] * 2` compares twice)."""
    return a is not None and b is not None and equivalent(a, b, MATCH_DEPTH)


MATCH_DEPTH = 8
"""How many ops deep `equivalent` compares two expressions."""


def equivalent(a: SSAValue, b: SSAValue, depth: int) -> bool:
    """Whether `a` and `b` are the same result of the same pure ops on the same values
    (what CSE would merge), looking at most `depth` ops deep."""
    if a is b:
        return True
    oa, ob = a.owner, b.owner
    if depth == 0 or a.type != b.type or not isinstance(oa, Operation):
        return False
    if not isinstance(ob, Operation) or type(oa) is not type(ob) or oa.regions:
        return False
    assert isinstance(a, OpResult) and isinstance(b, OpResult)
    same_op = a.index == b.index and oa.has_trait(Pure) and len(oa.operands) == len(ob.operands)
    same_op = same_op and oa.properties == ob.properties and oa.attributes == ob.attributes
    return same_op and all(
        equivalent(x, y, depth - 1) for x, y in zip(oa.operands, ob.operands, strict=True)
    )


def _unflattened(value: SSAValue) -> SSAValue | None:
    """The N-d static array `value` flattens (`tj.reshape` of it), else None."""
    owner = value.owner
    if not isinstance(owner, ReshapeOp):
        return None
    source = owner.operands[0]
    assert isinstance(source.type, TensorType)
    return source if all(d >= 0 for d in source.type.get_shape()) else None


class _Widening:
    """Rebuilds the expression behind a scatter's updates on the whole arrays: the 1-d
    ones the gathers read, or, when the mask, the updated array and every gathered one
    flatten arrays of one N-d shape (`z[m]` of a 2-d z flattens z and m), those N-d
    arrays themselves, so that no flattening copy is left (the reshape back folds)."""

    def __init__(self, mask: SSAValue, rewriter: PatternRewriter, before: Operation):
        self.mask, self.rewriter, self.before = mask, rewriter, before
        assert isinstance(mask.type, TensorType)
        self.shape = tuple(mask.type.get_shape())
        self.sources: list[SSAValue] = []
        self.unflatten = False
        self.checked: dict[SSAValue, bool] = {}
        self.done: dict[SSAValue, SSAValue] = {}

    def possible(self, value: SSAValue) -> bool:
        """Whether `value` is an element-wise expression of gathers at the mask's
        positions of arrays of its shape (checked, and the arrays listed, before anything
        is built, so that a failed match changes nothing). Each value is looked at once:
        a chain of `t = t * t` shares every operand."""
        if value not in self.checked:
            self.checked[value] = self._possible(value)
        return self.checked[value]

    def _possible(self, value: SSAValue) -> bool:
        owner = value.owner
        if isinstance(owner, GatherOp):
            source = owner.input.type
            assert isinstance(source, TensorType)
            self.sources.append(owner.input)
            return (owner.get_axis() == 0 and tuple(source.get_shape()) == self.shape
                    and same_mask(mask_of(owner.indices), self.mask))  # fmt: skip
        if isinstance(owner, BroadcastInDimOp):
            scalar = owner.operands[0].type
            return isinstance(scalar, TensorType) and scalar.get_num_dims() == 0
        if isinstance(owner, ELEMENTWISE) and len(owner.results) == 1:
            return all(self.possible(operand) for operand in owner.operands)
        return False

    def choose_shape(self, dest: SSAValue) -> None:
        """Work on the N-d arrays when all of them flatten arrays of one shape."""
        arrays = [_unflattened(v) for v in [self.mask, dest, *self.sources]]
        shapes = {shaped_type(a).get_shape() for a in arrays if a is not None}
        if all(a is not None for a in arrays) and len(shapes) == 1:
            self.unflatten = True
            self.shape = tuple(shapes.pop())

    def array(self, flat: SSAValue) -> SSAValue:
        """The array the expression reads where the gathers read `flat`."""
        if not self.unflatten:
            return flat
        unflattened = _unflattened(flat)
        assert unflattened is not None
        return unflattened

    def whole(self, value: SSAValue) -> SSAValue:
        """`value`'s expression on every element (`possible(value)` must hold)."""
        if value not in self.done:
            self.done[value] = self._build(value)
        return self.done[value]

    def _build(self, value: SSAValue) -> SSAValue:
        owner = value.owner
        if isinstance(owner, GatherOp):
            return self.array(owner.input)
        if isinstance(owner, BroadcastInDimOp):
            return self.insert(BroadcastInDimOp(owner.operands[0], [], self._like(value)))
        assert isinstance(owner, Operation)
        return self.insert(owner.__class__.create(
            operands=[self.whole(operand) for operand in owner.operands],
            result_types=[self._like(value)],
            properties=dict(owner.properties), attributes=dict(owner.attributes),
        ))  # fmt: skip

    def _like(self, value: SSAValue) -> TensorType:
        assert isinstance(value.type, TensorType)
        return TensorType(value.type.get_element_type(), self.shape)

    def insert(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op, InsertPoint.before(self.before))
        return op.results[0]


class MaskedUpdateAsSelect(RewritePattern):
    """`scatter(f(x[m], ...) into x[m])` -> `select(m, f(x, ...), x)` (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ScatterOp, rewriter: PatternRewriter) -> None:
        mask = mask_of(op.indices)
        dest = op.dest.type
        assert isinstance(dest, TensorType)
        if mask is None or not isinstance(mask.type, TensorType):
            return
        shape = tuple(dest.get_shape())
        if tuple(mask.type.get_shape()) != shape or any(d < 0 for d in shape):
            return
        widening = _Widening(mask, rewriter, op)
        if not widening.possible(op.updates):
            return
        widening.choose_shape(op.dest)
        whole = widening.whole(op.updates)
        chosen = widening.insert(SelectOp(widening.array(mask), whole, widening.array(op.dest)))
        if widening.unflatten:
            chosen = widening.insert(ReshapeOp(chosen, dest))
        rewriter.replace(op, [], [chosen])
