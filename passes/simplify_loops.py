"""simplify-loops: drop `scf.for` loops that run at most once, then fold their index math.

Expects loop-level IR (func/scf/arith/math/memref, after `lower-to-loops`/`expand-math`).
Produces the same IR where every `scf.for` with constant bounds and 0 iterations is gone
(its results are its initial values) and every one with 1 iteration is replaced by its body
(the induction variable becomes the lower bound); integer `index` arithmetic whose operands
became constants is folded (`i * 1 + 0 -> i`, `0 * 4 + 3 -> 3`).

    scf.for %i = %c0 to %c1 step %c1 {          %a = arith.muli %c0, %c5 : index
      %a = arith.muli %i, %c5 : index     =>    memref.store %v, %m[%c0] ...
      memref.store %v, %m[%a] ...
    }

Why not `canonicalize` here: at this level it found little else to do (it hoisted constants out of
loops, which LLVM does not need, and deleted dead ops, which `scf-to-cf` and LLVM also do),
yet it tried every folder and pattern on every op: after `expand-math` it was the most
expensive pass of the pipeline. Unit-extent dims (`tensor<2x1x1xf32>`) do produce trip-1
loops, and LLVM, left alone with them, keeps the linearised offsets but loses `inbounds` on
the split address computations; this pass keeps the IR LLVM sees as good as canonicalize
left it. Float arithmetic is never touched (its folding is the tensor passes' job, with
NumPy semantics).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.folder import Folder
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.canonicalization_patterns.scf import SimplifyTrivialLoops

# The integer ops whose `index` results feed memref subscripts and loop bounds.
_INDEX_ARITH = (arith.AddiOp, arith.SubiOp, arith.MuliOp)


@dataclass
class FoldIndexArith(RewritePattern):
    """`index` add/sub/mul with a constant operand -> its folded value (xDSL's folders:
    constant operands, `x + 0`, `x * 1`)."""

    folder: Folder

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, _INDEX_ARITH) or not isinstance(op.result.type, IndexType):
            return
        if not any(isinstance(v.owner, arith.ConstantOp) for v in op.operands):
            return
        folded = self.folder.try_fold(op)
        if folded is not None:
            values, new_ops = folded
            rewriter.replace(op, new_ops, values)


def simplify_loops(module: ModuleOp, ctx: Context) -> None:
    patterns = [SimplifyTrivialLoops(), FoldIndexArith(Folder(ctx))]
    # No DCE while walking (asking every op for its effects costs more than the rest):
    # scf-to-cf's walk erases what became dead, and LLVM would too.
    applier = GreedyRewritePatternApplier(patterns, dce_enabled=False)
    PatternRewriteWalker(applier).rewrite_module(module)


@dataclass(frozen=True)
class SimplifyLoopsPass(ModulePass):
    """Inline 1-iteration and drop 0-iteration scf.for loops; fold constant index math."""

    name = "simplify-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        simplify_loops(op, ctx)
