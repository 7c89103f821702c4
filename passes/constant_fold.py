"""constant-fold: evaluate pure `tj` ops whose operands are all constants.

Expects tensor-level `tj` IR; produces the same IR with each such op replaced by a
`tj.constant` holding its value. The value is computed by the op's `evaluate` — its
NumPy meaning, the same NumPy calls the eager reference makes — so folding is bit-identical
to running the function eagerly. Chains fold in one run (the walker revisits users), and
constants captured from closures or passed into inlined calls fold through like any other.

`max-bytes` (default 1 MiB) caps every operand and result of a folded op: a larger tensor
is neither built in memory nor stored in the IR, so `np.ones((4096, 4096)) * 2` stays a
multiply of a broadcast instead of becoming a 128 MiB literal. Dynamic shapes never fold.

`canonicalize` folds with the same evaluation and the same default cap (both go through
`tracejit.ir.folding.fold_with_numpy`), so the default pipeline does not run this pass
too; it is the named entry point with a configurable cap
(`tracejit-opt -p 'constant-fold{max-bytes=4096}'`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.traits import ConstantLike, Pure

from tracejit.ir.constant import ConstantOp
from tracejit.ir.folding import MAX_FOLDED_BYTES, fold_with_numpy


@dataclass
class FoldConstantOperands(RewritePattern):
    """op(constants...) -> constant, for a pure op with a NumPy `evaluate`."""

    max_bytes: int

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        evaluate = getattr(op, "evaluate", None)
        if evaluate is None or not op.has_trait(Pure) or op.has_trait(ConstantLike):
            return
        try:
            folded = fold_with_numpy(op, evaluate, self.max_bytes)
        except (IndexError, ValueError):  # e.g. a constant out-of-range index: the op
            return  # stays, and its run-time check reports it as the frontend arranged
        if folded is None:
            return
        operands = [value.owner for value in op.operands]
        constants = [ConstantOp(_dense(attr)) for attr in folded]
        rewriter.replace(op, constants, [c.result for c in constants])
        for owner in operands:  # drop the operand constants nothing else uses
            if isinstance(owner, ConstantOp) and owner.parent and not owner.result.uses:
                rewriter.erase(owner)


def _dense(attr: object) -> DenseIntOrFPElementsAttr:
    assert isinstance(attr, DenseIntOrFPElementsAttr)
    return attr


@dataclass(frozen=True)
class ConstantFoldPass(ModulePass):
    """Evaluate pure tj ops whose operands are all constants (NumPy semantics, size cap)."""

    name = "constant-fold"

    max_bytes: int = MAX_FOLDED_BYTES

    def __post_init__(self) -> None:
        if self.max_bytes < 0:
            raise ValueError(f"constant-fold: max-bytes must be >= 0, got {self.max_bytes}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = GreedyRewritePatternApplier(
            [FoldConstantOperands(self.max_bytes)], dce_enabled=False
        )
        PatternRewriteWalker(pattern).rewrite_module(op)
