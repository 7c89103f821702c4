"""Solutions to the exercises of chapter 03 (writing a pass). Run: .venv/bin/python <this file>."""

import numpy as np
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

import tracejit as tj
from tracejit.ir.elementwise import CastOp
from tracejit.ir.elementwise_binary import MulOp
from tracejit.ir.folding import constant_value
from tracejit.ir.shape_ops import BroadcastInDimOp
from tracejit.passes.pipeline import Pipeline


# 1. x * 1 -> x, looking through a broadcast of a constant.
def constant_through_broadcast(value: SSAValue) -> np.ndarray | None:
    owner = value.owner
    if isinstance(owner, BroadcastInDimOp):
        value = owner.operand
    return constant_value(value)


class MulByOne(RewritePattern):
    """x * 1 -> x  and  1 * x -> x  (exact for every dtype, NaN and -0.0 included)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter) -> None:
        for const, other in ((op.rhs, op.lhs), (op.lhs, op.rhs)):
            array = constant_through_broadcast(const)
            if array is not None and np.all(array == 1):
                rewriter.replace(op, [], [other])
                return


def rewritten(function, pattern, *args) -> str:
    module = tj.function(function).get_concrete_function(*args).graph.module.clone()
    PatternRewriteWalker(pattern).rewrite_module(module)
    Pipeline.parse("canonicalize").run(module)  # drop what became dead
    return str(module)


def times_one_float(x):
    return x * 1.0


def times_one_int(x):
    return x * 1


for function, dtype in ((times_one_float, np.float32), (times_one_int, np.int8)):
    ir = rewritten(function, MulByOne(), np.ones(3, dtype))
    assert "tj.mul" not in ir and "func.return %0" in ir, ir

# 2. x * 0 is not 0 for floats: NaN * 0 and inf * 0 are NaN, -1.0 * 0 is -0.0 (sign bit set).
with np.errstate(invalid="ignore"):
    products = np.array([np.nan, np.inf, -1.0], np.float32) * np.float32(0)
assert np.isnan(products[0]) and np.isnan(products[1])
assert products[2] == 0 and np.signbit(products[2])
# For integer and bool dtypes (no NaN, no signed zero) the rewrite is exact.
assert (np.array([-128, 127], np.int8) * np.int8(0) == 0).all()


# 3. cast(cast(x, T1), T2) -> cast(x, T2) is exact when T1 holds every value of x's dtype.
class CastOfCast(RewritePattern):
    """cast(cast(x, T1), T2) -> cast(x, T2)  when casting x's dtype to T1 is safe (lossless)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, CastOp):
            return
        source = tj.Tensor(inner.input).dtype
        middle = tj.Tensor(inner.result).dtype
        if not np.can_cast(source, middle, "safe"):
            return
        if inner.input.type == op.result.type:  # back where it started: no cast at all
            rewriter.replace(op, [], [inner.input])
        else:
            rewriter.replace(op, [CastOp(inner.input, op.result.type)])


def through_f64(x):
    return x.astype(np.float64).astype(np.float32)  # f32 -> f64 -> f32: exact


def through_f32(x):
    return x.astype(np.float32).astype(np.float64)  # f64 -> f32 -> f64: rounds


exact = rewritten(through_f64, CastOfCast(), np.ones(3, np.float32))
assert "tj.cast" not in exact and "func.return %0" in exact, exact
lossy = rewritten(through_f32, CastOfCast(), np.ones(3, np.float64))
assert lossy.count("tj.cast") == 2, lossy  # left alone
x = np.float64(0.1)
assert np.float64(np.float32(x)) != x  # why: 0.1 is not a float32
print("ok")
