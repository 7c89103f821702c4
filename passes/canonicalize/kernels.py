"""Canonicalization of `tj.fused` kernels."""

from __future__ import annotations

from xdsl.ir import BlockArgument, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tracejit.ir.control_flow import YieldOp
from tracejit.ir.fused import FusedOp


class KernelForwardsItsInput(RewritePattern):
    """A kernel result that is one of its inputs unchanged (the body yields the block
    argument itself: `np.roll` of a 0-d array, once canonicalize has emptied the chain that
    computed it) is that input; the kernel keeps only the results it computes, or goes.
    bufferize reads a block argument only where a body op does, so such a result had no
    value to store (found by the fuzzer: tests/fuzz/regressions/test_fuzz_e1a122de76.py).

        %r = tj.fused %x : (tensor<f16>) -> tensor<f16> { ^bb0(%a): tj.yield %a }
          ->  uses of %r read %x"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FusedOp, rewriter: PatternRewriter) -> None:
        forwarded: dict[int, SSAValue] = {}
        for position, (value, result) in enumerate(zip(op.terminator.values, op.res, strict=True)):
            if isinstance(value, BlockArgument) and value.block is op.block:
                source = op.inputs[value.index]
                if source.type == result.type:
                    forwarded[position] = source
        if not forwarded:
            return
        kept = [p for p in range(len(op.res)) if p not in forwarded]
        if not kept:
            rewriter.replace(op, [], [forwarded[p] for p in range(len(op.res))])
            return
        body = rewriter.move_region_contents_to_new_regions(op.body)
        terminator = body.block.last_op
        assert isinstance(terminator, YieldOp)
        rewriter.replace(terminator, YieldOp(*[terminator.values[p] for p in kept]))
        new = FusedOp(list(op.inputs), [op.res[p].type for p in kept], body)
        new.location = op.location
        computed = iter(new.res)
        values = [forwarded[p] if p in forwarded else next(computed) for p in range(len(op.res))]
        rewriter.replace(op, new, values)
