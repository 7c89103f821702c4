"""Canonicalization patterns of the `tj` control-flow ops (ir/control_flow.py)."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

from tracejit.ir.control_flow import IfOp, WhileOp, YieldOp
from tracejit.ir.folding import constant_value
from tracejit.ir.shape_ops import ReshapeOp


class IfConstantPredicate(RewritePattern):
    """tj.if on a constant keeps only the taken branch:  if true {A} else {B}  ->  A"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        predicate = constant_value(op.pred)
        if predicate is None:
            return
        region = op.then_region if bool(predicate) else op.else_region
        block = region.block
        terminator = block.last_op
        assert isinstance(terminator, YieldOp)
        results = list(terminator.values)
        rewriter.erase(terminator)
        rewriter.inline_block(block, InsertPoint.before(op))
        rewriter.replace(op, [], results)


class WhileDropsUnusedValue(RewritePattern):
    """A loop value nothing reads -- not the condition, not the body except to compute its
    own next value, not the code after the loop -- is not carried: its operand, block
    arguments, yield operand and result go, and the body's ops that only computed it (a
    staged loop's "ran" flag, views.alias_unless, when no write after the loop needed it;
    a counter the body advances that nothing reads).

        %r, %unused = tj.while %a, %b ... tj.yield %next, %t   ->   %r = tj.while %a ..."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WhileOp, rewriter: PatternRewriter) -> None:
        before, after = op.before_region.block, op.after_region.block
        terminator = after.last_op
        assert isinstance(terminator, YieldOp)
        chains = {}
        for j in range(len(op.res)):
            if op.res[j].uses or before.args[j].uses:
                continue
            chain = _only_feeds(after.args[j], terminator, j)
            if chain is not None:
                chains[j] = chain
        if not chains:
            return
        kept = [j for j in range(len(op.res)) if j not in chains]
        rewriter.replace(terminator, YieldOp(*(terminator.values[j] for j in kept)))
        for chain in chains.values():
            for dead in reversed(chain):
                if dead.parent is not None:
                    rewriter.erase_op(dead)
        for j in sorted(chains, reverse=True):
            before.erase_arg(before.args[j])
            after.erase_arg(after.args[j])
        new = WhileOp(
            [op.inits[j] for j in kept],
            rewriter.move_region_contents_to_new_regions(op.before_region),
            rewriter.move_region_contents_to_new_regions(op.after_region),
        )
        new.location = op.location
        results = iter(new.res)
        replacements = [None if j in chains else next(results) for j in range(len(op.res))]
        rewriter.replace(op, new, replacements)


def _only_feeds(arg: SSAValue, terminator: YieldOp, position: int) -> list[Operation] | None:
    """The body's side-effect-free ops, in order, through which the block argument `arg`
    reaches nothing but the yield at `position`; None if it reaches anything else."""
    chain: list[Operation] = []
    pending = [arg]
    while pending:
        value = pending.pop()
        for use in value.uses:
            user = use.operation
            if user is terminator:
                if use.index != position:
                    return None
                continue
            if user.parent is not terminator.parent or not is_side_effect_free(user):
                return None
            if user not in chain:
                chain.append(user)
                pending.extend(user.results)
    return sorted(chain, key=lambda o: o.parent.get_operation_index(o))  # type: ignore[union-attr]


class WhileCarriesReshaped(RewritePattern):
    """A loop value the loop reads only reshaped to one shape, and whose next value is a
    reshape from that shape (or itself), is carried in that shape: reshaped once before
    the loop and once after it, not twice per trip. `N[rows, cols] = v` in a loop scatters
    into the raveled `N` (bufferized, a copy of `N` each way); carried raveled, the
    scatter writes the loop's own buffer in place.

        %r = tj.while %n ... ^bb0(%a): %f = tj.reshape %a to T; ...; tj.yield (tj.reshape %g)
    ->  %r0 = tj.while (tj.reshape %n to T) ... ^bb0(%f): ...; tj.yield %g
        %r = tj.reshape %r0"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WhileOp, rewriter: PatternRewriter) -> None:
        before, after = op.before_region.block, op.after_region.block
        terminator = after.last_op
        assert isinstance(terminator, YieldOp)
        shapes = {}
        for j, result in enumerate(op.res):
            shape = _reshaped_to(before.args[j], after.args[j], terminator, j)
            if shape is not None and shape != result.type:
                shapes[j] = shape
        if not shapes:
            return
        inits = list(op.inits)
        for j, shape in shapes.items():
            inits[j] = rewriter.insert(ReshapeOp(inits[j], shape), InsertPoint.before(op)).result
            for block in (before, after):
                _retype_arg(rewriter, block.args[j], shape)
        yielded = [
            v.owner.operand if j in shapes and isinstance(v.owner, ReshapeOp) else v
            for j, v in enumerate(terminator.values)
        ]
        rewriter.replace(terminator, YieldOp(*yielded))
        new = WhileOp(
            inits,
            rewriter.move_region_contents_to_new_regions(op.before_region),
            rewriter.move_region_contents_to_new_regions(op.after_region),
        )
        _replace_reshaped_back(rewriter, op, new, shapes)


def _replace_reshaped_back(
    rewriter: PatternRewriter, op: WhileOp | IfOp, new: WhileOp | IfOp, shapes: dict
) -> None:
    """Replace `op` by `new`, whose results at the positions in `shapes` have those types,
    reshaped back to `op`'s types after it."""
    new.location = op.location
    back = {j: ReshapeOp(new.res[j], op.res[j].type) for j in shapes}
    values = [back[j].result if j in back else new.res[j] for j in range(len(op.res))]
    rewriter.replace(op, [new, *back.values()], values)


def _reshaped_to(
    before: SSAValue, after: SSAValue, terminator: YieldOp, position: int
) -> TensorType | None:
    """The one static type the loop value at `position` is read as, when its block
    arguments are read only by reshapes to it (the body's also by the yield, unchanged)
    and its next value is a reshape from it (or itself); else None."""
    target = None
    for arg in (before, after):
        for use in arg.uses:
            user = use.operation
            if user is terminator and use.index == position:
                continue
            if not isinstance(user, ReshapeOp) or user.sizes:
                return None
            if target is not None and user.result.type != target:
                return None
            target = user.result.type
    if not isinstance(target, TensorType) or not target.has_static_shape():
        return None
    if not isinstance(before.type, TensorType) or not before.type.has_static_shape():
        return None
    following = terminator.values[position]
    if following is after:
        return target
    owner = following.owner
    if isinstance(owner, ReshapeOp) and not owner.sizes and owner.operand.type == target:
        return target
    return None


def _retype_arg(rewriter: PatternRewriter, arg: SSAValue, shape: TensorType) -> None:
    """Give the block argument `arg` the type `shape`: its reshapes to that type go, their
    readers read the argument itself."""
    new = rewriter.replace_value_with_new_type(arg, shape)
    for use in list(new.uses):
        user = use.operation
        if isinstance(user, ReshapeOp) and user.result.type == shape:
            rewriter.replace(user, [], [new])


class IfYieldsReshaped(RewritePattern):
    """A `tj.if` inside a loop body, whose result is the loop's next value, and whose
    branches yield it reshaped from one static shape T (or, one of them, the loop value
    unchanged) yields it in T, reshaped after the if. A loop with a `break` stages its body
    under such an if (`if not done: ... N[rows, cols] = v ... else: N`); in this form
    `WhileCarriesReshaped` applies to the loop.

        %r = tj.if %go { ...; tj.yield (tj.reshape %f) } else { tj.yield %n }; tj.yield %r
    ->  %r0 = tj.if %go { ...; tj.yield %f } else { tj.yield (tj.reshape %n) }
        %r = tj.reshape %r0; tj.yield %r"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        ends = [op.then_region.block.last_op, op.else_region.block.last_op]
        terminators = [t for t in ends if isinstance(t, YieldOp)]
        assert len(terminators) == 2
        shapes = {}
        for j, result in enumerate(op.res):
            state = _loop_state_yielded(result)
            yielded = [t.values[j] for t in terminators]
            shape = _reshaped_from(yielded, state)
            if shape is not None and shape != result.type:
                shapes[j] = shape
        if not shapes:
            return
        for terminator in terminators:
            values = list(terminator.values)
            for j, shape in shapes.items():
                owner = values[j].owner
                if isinstance(owner, ReshapeOp) and owner.operand.type == shape:
                    values[j] = owner.operand
                else:
                    reshaped = ReshapeOp(values[j], shape)
                    values[j] = rewriter.insert(reshaped, InsertPoint.before(terminator)).result
            rewriter.replace(terminator, YieldOp(*values))
        types = [shapes.get(j, r.type) for j, r in enumerate(op.res)]
        new = IfOp(
            op.pred,
            types,
            rewriter.move_region_contents_to_new_regions(op.then_region),
            rewriter.move_region_contents_to_new_regions(op.else_region),
        )
        _replace_reshaped_back(rewriter, op, new, shapes)


def _loop_state_yielded(result: SSAValue) -> SSAValue | None:
    """The loop body's block argument whose next value `result` is, when `result`'s one
    use is the yield ending that `tj.while` body; else None."""
    uses = list(result.uses)
    if len(uses) != 1:
        return None
    user = uses[0].operation
    block = user.parent
    loop = block.parent_op() if block is not None else None
    if not isinstance(user, YieldOp) or not isinstance(loop, WhileOp):
        return None
    if block is not loop.after_region.block:
        return None
    return block.args[uses[0].index]


def _reshaped_from(yielded: list[SSAValue], state: SSAValue | None) -> TensorType | None:
    """The static type T when every value in `yielded` is a reshape from T or `state`
    (at least one a reshape); else None."""
    if state is None:
        return None
    shapes = set()
    for value in yielded:
        owner = value.owner
        if isinstance(owner, ReshapeOp) and not owner.sizes:
            shapes.add(owner.operand.type)
        elif value is not state:
            return None
    if len(shapes) != 1:
        return None
    shape = shapes.pop()
    if not isinstance(shape, TensorType) or not shape.has_static_shape():
        return None
    if not isinstance(state.type, TensorType) or not state.type.has_static_shape():
        return None
    return shape
