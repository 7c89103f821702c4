"""canonicalize: fold constants, apply the small exact rewrites, remove dead code.

Expects any IR. Produces the same IR with every foldable op folded (the ops' `fold()`,
materialised as constants by the dialects), every rewrite of `PATTERNS` and of the
upstream ops' canonicalization traits applied until none applies, and dead ops and
unreachable blocks removed.

The rewrites of the `tj` ops live in this package, not in the dialect: `PATTERNS` maps
each op type to its patterns (`patterns.py`, `control_flow.py`, `masked_update.py`,
`sizes.py`), so
that `ir/` holds the ops alone and imports no pass code. Upstream ops (arith, scf, ...)
keep theirs behind xDSL's `HasCanonicalizationPatternsTrait`, which this pass reads too;
apart from where the `tj` patterns are found, it is xDSL's `canonicalize`
(`xdsl.transforms.canonicalize`): the same greedy driver, folding on, `region_dce` after
each walk.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.transforms.dead_code_elimination import region_dce

from tracejit.ir import elementwise as ew
from tracejit.ir.control_flow import IfOp, WhileOp
from tracejit.ir.fused import FusedOp
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import DimOp, ReshapeOp, TransposeOp
from tracejit.ir.update import ScatterOp
from tracejit.passes.canonicalize.control_flow import (
    IfConstantPredicate,
    IfYieldsReshaped,
    WhileCarriesReshaped,
    WhileDropsUnusedValue,
)
from tracejit.passes.canonicalize.kernels import KernelForwardsItsInput
from tracejit.passes.canonicalize.masked_update import MaskedUpdateAsSelect
from tracejit.passes.canonicalize.patterns import (
    AddZero,
    CastToSameType,
    MulOne,
    MulZero,
    NegNeg,
    PowOne,
    PowSquare,
    ReduceOverUnitAxes,
    ReshapeOfReshape,
    SelectConstantCondition,
    SubZero,
    TransposeOfTranspose,
)
from tracejit.passes.canonicalize.sizes import DimOfSizedValue, DotAsSum

PATTERNS: dict[type[Operation], tuple[RewritePattern, ...]] = {
    ew.AddOp: (AddZero(),),
    ew.SubOp: (SubZero(),),
    ew.MulOp: (MulOne(), MulZero()),
    ew.PowOp: (PowSquare(), PowOne()),
    ew.NegOp: (NegNeg(),),
    ew.CastOp: (CastToSameType(),),
    ew.SelectOp: (SelectConstantCondition(),),
    TransposeOp: (TransposeOfTranspose(),),
    ReshapeOp: (ReshapeOfReshape(),),
    ReduceOp: (ReduceOverUnitAxes(),),
    ScatterOp: (MaskedUpdateAsSelect(),),
    DimOp: (DimOfSizedValue(),),
    MatmulOp: (DotAsSum(),),
    IfOp: (IfConstantPredicate(), IfYieldsReshaped()),
    WhileOp: (WhileDropsUnusedValue(), WhileCarriesReshaped()),
    FusedOp: (KernelForwardsItsInput(),),
}
"""The canonicalization patterns of the `tj` ops, tried in this order on an op of the type."""


def patterns_of(
    op: Operation, table: Mapping[type[Operation], tuple[RewritePattern, ...]]
) -> tuple[RewritePattern, ...]:
    """`op`'s patterns: its entry in `table`, then those of its canonicalization traits
    (`op.get_traits_of_type(HasCanonicalizationPatternsTrait)`, as xDSL's pass asks)."""
    traits = [t for t in op.traits if isinstance(t, HasCanonicalizationPatternsTrait)]
    upstream = tuple(pattern for trait in traits for pattern in trait.get_patterns(type(op)))
    return table.get(type(op), ()) + upstream


class TableCanonicalizationPattern(RewritePattern):
    """Applies an op's canonicalization patterns (`patterns_of`), as xDSL's
    `CanonicalizationRewritePattern` applies those of its traits."""

    def __init__(self, table: Mapping[type[Operation], tuple[RewritePattern, ...]]):
        self.table = table

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        patterns = patterns_of(op, self.table)
        if not patterns:
            return
        if len(patterns) == 1:
            patterns[0].match_and_rewrite(op, rewriter)
            return
        GreedyRewritePatternApplier(list(patterns)).match_and_rewrite(op, rewriter)


@dataclass(frozen=True)
class CanonicalizePass(ModulePass):
    """Fold constants, apply the tj and upstream canonicalization patterns, remove dead code."""

    name = "canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = GreedyRewritePatternApplier(
            [TableCanonicalizationPattern(PATTERNS)], ctx=ctx, folding_enabled=True
        )
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_module(op)
