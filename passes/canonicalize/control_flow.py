"""Canonicalization patterns of the `tj` control-flow ops (ir/control_flow.py)."""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tracejit.ir.control_flow import IfOp, YieldOp
from tracejit.ir.folding import constant_value


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
