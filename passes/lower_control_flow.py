"""lower-control-flow: `tj.if` / `tj.while` -> `scf.if` / `scf.while` on tensors.

Expects tensor-level functions that may contain `tj.if` and `tj.while` (nested too).
Produces the same computation with `scf` regions; the 0-d bool predicates become i1
scalars with `tensor.extract`, which `bufferize` turns into loads:

    %r = tj.if %p : tensor<i1> -> tensor<4xf32> {..} else {..}
      ->  %c = tensor.extract %p[] : tensor<i1>
          %r = scf.if %c -> (tensor<4xf32>) {.. scf.yield ..} else {.. scf.yield ..}

    tj.while %x0 : ... { ^bb0(%x): .. tj.condition %p } do { ^bb0(%x): .. tj.yield %x2 }
      ->  scf.while (%x = %x0) : ... { tj.check_interrupt
                                       .. %c = tensor.extract %p[]; scf.condition(%c) %x }
          do { ^bb0(%x): .. scf.yield %x2 }

Every trip of a staged loop first polls the interrupt flag, so Ctrl-C stops a long loop
(staged loops are the user's loops, not the element loops of lower-to-loops; bufferize
makes the check a call and an assert, and strip-mine-polls then polls once per 1,024
trips); a function with such loops forgets, on entry, a Ctrl-C pressed before it was
called (`tj.clear_interrupt`). codegen/interrupts.py sets the flag.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf, tensor
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from tracejit.ir.control_flow import ConditionOp, IfOp, WhileOp, YieldOp
from tracejit.ir.effects import CheckInterruptOp, ClearInterruptOp


def _extract(predicate, rewriter: PatternRewriter, point: InsertPoint):
    extract = tensor.ExtractOp(predicate, [], result_type=predicate.type.get_element_type())
    rewriter.insert(extract, point)
    return extract.result


class IfToScf(RewritePattern):
    """tj.if %p {A} else {B}  ->  scf.if (extract %p) {A} else {B}"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        condition = _extract(op.pred, rewriter, InsertPoint.before(op))
        regions = [rewriter.move_region_contents_to_new_regions(r) for r in op.regions]
        for region in regions:
            terminator = region.block.last_op
            assert isinstance(terminator, YieldOp)
            rewriter.replace(terminator, scf.YieldOp(*terminator.values))
        new = scf.IfOp(condition, list(op.res.types), regions[0], regions[1])
        new.location = op.location
        rewriter.replace(op, new)


class WhileToScf(RewritePattern):
    """tj.while {cond} do {body}  ->  scf.while {cond; scf.condition(c) args} do {body}"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WhileOp, rewriter: PatternRewriter) -> None:
        before = rewriter.move_region_contents_to_new_regions(op.before_region)
        after = rewriter.move_region_contents_to_new_regions(op.after_region)
        condition_op = before.block.last_op
        assert isinstance(condition_op, ConditionOp)
        check = CheckInterruptOp()
        check.location = op.location
        rewriter.insert(check, InsertPoint.at_start(before.block))
        condition = _extract(condition_op.predicate, rewriter, InsertPoint.before(condition_op))
        rewriter.replace(condition_op, scf.ConditionOp(condition, *before.block.args))
        body_end = after.block.last_op
        assert isinstance(body_end, YieldOp)
        rewriter.replace(body_end, scf.YieldOp(*body_end.values))
        new = scf.WhileOp(list(op.inits), list(op.res.types), before, after)
        new.location = op.location
        rewriter.replace(op, new)


def lower_control_flow(module: ModuleOp) -> None:
    PatternRewriteWalker(IfToScf(), apply_recursively=True).rewrite_module(module)
    polling = {
        f for f in module.walk() if isinstance(f, func.FuncOp) and _has_while(f)
    }  # fmt: skip
    PatternRewriteWalker(WhileToScf(), apply_recursively=True).rewrite_module(module)
    for function in polling:
        entry = function.body.block
        if entry.first_op is not None:  # a function with a loop has ops
            entry.insert_op_before(ClearInterruptOp(), entry.first_op)


def _has_while(function: func.FuncOp) -> bool:
    return any(isinstance(op, WhileOp) for op in function.walk())


@dataclass(frozen=True)
class LowerControlFlowPass(ModulePass):
    """tj.if / tj.while -> scf.if / scf.while on tensors (predicates via tensor.extract)."""

    name = "lower-control-flow"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_control_flow(op)


__all__ = ["LowerControlFlowPass", "lower_control_flow"]
