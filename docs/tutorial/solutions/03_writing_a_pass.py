"""Solutions to the exercises of chapter 03 (writing a pass). Run: .venv/bin/python <this file>."""

import contextlib
from dataclasses import dataclass

import numpy as np
from course_checks import check_compiled
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

import tracejit as tj
from tracejit.ir.dtypes import numpy_dtype
from tracejit.ir.elementwise import CastOp
from tracejit.ir.elementwise_binary import MulOp
from tracejit.ir.folding import constant_value
from tracejit.ir.shape_ops import BroadcastInDimOp
from tracejit.passes.pipeline import DEFAULT_PIPELINE, PASSES, Pipeline


# 1. x * 1 -> x, looking through a broadcast of a constant. Not for complex numbers: NumPy
#    multiplies (a + bj) * (1 + 0j) in full, and the real part a * 1 - b * 0 is NaN for an
#    infinite b and +0.0 for a = -0.0, b < 0: [1+infj, -0-1j] * 1 is [nan+infj, 0-1j].
def constant_through_broadcast(value: SSAValue) -> np.ndarray | None:
    owner = value.owner
    if isinstance(owner, BroadcastInDimOp):
        value = owner.operand
    return constant_value(value)


def element_dtype(value: SSAValue) -> np.dtype:
    assert isinstance(value.type, TensorType)
    return numpy_dtype(value.type.get_element_type())


class MulByOne(RewritePattern):
    """x * 1 -> x  and  1 * x -> x  (exact for bool, integer and float dtypes, NaN and -0.0
    included; not for complex ones)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter) -> None:
        if element_dtype(op.result).kind == "c":
            return
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


# ... and compiled, in a pass registered under a name (as the chapter's pass is) that runs
# first. The machine code must give NumPy's product bit for bit: NaN, inf, -0.0 and the
# integer extremes are where a wrong "x * 1" rule would show.
@dataclass(frozen=True)
class MulByOnePass(ModulePass):
    name = "mul-by-one"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(MulByOne()).rewrite_module(op)


PASSES["mul-by-one"] = lambda: MulByOnePass
try:
    for function, values in (
        (times_one_float, np.array([-0.0, np.nan, np.inf, -3.4e38, 1e-45], np.float32)),
        (times_one_int, np.array([-128, 127, 0, -1], np.int8)),
        (times_one_int, np.array([1 + np.inf * 1j, complex(-0.0, -1.0), complex(np.nan, 2)])),
    ):
        compiled = tj.function(function, experimental_pipeline=("mul-by-one", *DEFAULT_PIPELINE))
        check_compiled(compiled, values)
        ir = compiled.get_concrete_function(values).ir(after="mul-by-one")
        assert ("tj.mul" in ir) == (values.dtype.kind == "c"), ir  # complex: left alone
finally:
    del PASSES["mul-by-one"]

# 2. x * 0 is not 0 for floats: NaN * 0 and inf * 0 are NaN, -1.0 * 0 is -0.0 (sign bit set).
with np.errstate(invalid="ignore"):
    products = np.array([np.nan, np.inf, -1.0], np.float32) * np.float32(0)
assert np.isnan(products[0]) and np.isnan(products[1])
assert products[2] == 0 and np.signbit(products[2])
# For integer and bool dtypes (no NaN, no signed zero) the rewrite is exact.
assert (np.array([-128, 127], np.int8) * np.int8(0) == 0).all()


# 3. cast(cast(x, T1), T2) -> cast(x, T2). The first cast must lose nothing: T1 must hold
#    every value of x's dtype S *exactly*. np.can_cast(S, T1, "safe") is not that test: NumPy
#    calls int64 -> float64 (and uint64 -> float64) safe, yet float64 has 53 significant bits.
assert np.can_cast(np.int64, np.float64, "safe")
assert int(np.array([2**53 + 1]).astype(np.float64)[0]) == 2**53  # 2**53 + 1 is lost


def holds_every_value(source: np.dtype, target: np.dtype) -> bool:
    """Every value of `source` is exactly a value of `target`."""
    if source == target or source.kind == "b":
        return True  # False and True are 0 and 1 in every dtype
    if target.kind == "b":
        return False
    if source.kind in "iu" and target.kind in "iu":  # integer widening
        wide, narrow = np.iinfo(target), np.iinfo(source)
        return wide.min <= narrow.min and narrow.max <= wide.max
    if source.kind in "iu" and target.kind == "f":
        value_bits = source.itemsize * 8 - (source.kind == "i")  # less a signed type's sign bit
        return value_bits <= np.finfo(target).nmant + 1  # f16: 11, f32: 24, f64: 53 bits
    if source.kind == "f" and target.kind == "f":  # float widening keeps NaN, inf and -0.0
        return target.itemsize >= source.itemsize
    return False  # float -> int loses fractions, NaN and inf


def cast_of_cast_is_exact(source: np.dtype, middle: np.dtype, target: np.dtype) -> bool:
    """cast(cast(x: S, T1), T2) == cast(x, T2) for every x of dtype S."""
    if not holds_every_value(source, middle):
        return False
    # The outer cast now sees x's own values and rounds (to a float), wraps (to an integer)
    # or tests != 0 (to bool) exactly as the direct cast would, with one exception: a float
    # -> int cast of a value out of the target's range is undefined (in C, and so in NumPy,
    # which warns "invalid value encountered in cast"), where int -> int wraps. NumPy gives
    # uint32 -> float64 -> int32 of 2**32 - 1 as -2147483648, the direct cast as -1. So an
    # int -> float -> int chain also needs the target to hold every value of the source.
    if source.kind in "iu" and middle.kind == "f" and target.kind in "iu":
        return holds_every_value(source, target)
    return True


class CastOfCast(RewritePattern):
    """cast(cast(x, T1), T2) -> cast(x, T2)  when `cast_of_cast_is_exact(S, T1, T2)`"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, CastOp):
            return
        dtypes = (element_dtype(inner.input), element_dtype(inner.result), element_dtype(op.result))
        if not cast_of_cast_is_exact(*dtypes):
            return
        if inner.input.type == op.result.type:  # back where it started: no cast at all
            rewriter.replace(op, [], [inner.input])
        else:
            rewriter.replace(op, [CastOp(inner.input, op.result.type)])


def through_f64(x):
    return x.astype(np.float64).astype(np.float32)  # f32 -> f64 -> f32: exact


def through_f32(x):
    return x.astype(np.float32).astype(np.float64)  # f64 -> f32 -> f64: rounds


def int64_through_f64(x):
    return x.astype(np.float64).astype(np.int64)  # rounds above 2**53


exact = rewritten(through_f64, CastOfCast(), np.ones(3, np.float32))
assert "tj.cast" not in exact and "func.return %0" in exact, exact
for function, dtype in ((through_f32, np.float64), (int64_through_f64, np.int64)):
    kept = rewritten(function, CastOfCast(), np.ones(3, dtype))
    assert kept.count("tj.cast") == 2, kept  # left alone
x = np.float64(0.1)
assert np.float64(np.float32(x)) != x  # why: 0.1 is not a float32
assert not cast_of_cast_is_exact(*map(np.dtype, ("uint32", "float64", "int32")))
assert cast_of_cast_is_exact(*map(np.dtype, ("uint32", "float64", "int64")))


# The pattern in the compiler: a pass, registered under a name (as in the chapter) while a
# function that runs it first is compiled.
@dataclass(frozen=True)
class CastOfCastPass(ModulePass):
    """Merge exact pairs of casts."""

    name = "cast-of-cast"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(CastOfCast()).rewrite_module(op)


WITH_CAST_OF_CAST = ("cast-of-cast", *DEFAULT_PIPELINE)


@contextlib.contextmanager
def cast_of_cast_registered():
    """Make `experimental_pipeline=WITH_CAST_OF_CAST` work; leave the registry as found."""
    PASSES["cast-of-cast"] = lambda: CastOfCastPass
    try:
        yield
    finally:
        del PASSES["cast-of-cast"]


big = np.array([2**53 + 1, -(2**53) - 1, 3], np.int64)
with cast_of_cast_registered():
    compiled = tj.function(int64_through_f64, experimental_pipeline=WITH_CAST_OF_CAST)
    check_compiled(compiled, big)  # [2**53, -2**53, 3], as NumPy rounds them
    assert compiled.get_concrete_function(big).ir(after="cast-of-cast").count("tj.cast") == 2
print("ok")
