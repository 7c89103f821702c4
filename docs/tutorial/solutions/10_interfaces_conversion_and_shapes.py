"""Solutions to chapter 10's exercises (docs/tutorial/10-interfaces-conversion-and-shapes.md).

Run from the repository root:
.venv/bin/python docs/tutorial/solutions/10_interfaces_conversion_and_shapes.py
"""

from __future__ import annotations

import contextlib
import re
import runpy
import warnings
from dataclasses import dataclass

import numpy as np
from course_checks import check_compiled, run_compiled, run_eagerly
from xdsl.context import Context
from xdsl.dialects import func, pdl
from xdsl.dialects.builtin import ComplexType, ModuleOp, TensorType, f16, f32
from xdsl.interpreters.pdl import PDLRewritePattern
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    TypeConversionPattern,
    attr_type_rewrite_pattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import RecursiveMemoryEffect, get_effects

import tracejit as tj
from tracejit.ir.complex_parts import ConjOp
from tracejit.ir.constant import ConstantOp
from tracejit.ir.control_flow import IfOp, YieldOp
from tracejit.ir.dialect import TJ
from tracejit.ir.dtypes import numpy_dtype
from tracejit.ir.elementwise import CastOp
from tracejit.ir.elementwise_unary import BitwiseNotOp, NegOp
from tracejit.passes.canonicalize.patterns import splat_of
from tracejit.passes.pipeline import DEFAULT_PIPELINE, PASSES, Pipeline


# --- Exercise 1: classify ops by their effect interface, never by their type ---------------
def effect_class(op: Operation) -> str:
    """'recursive', 'unknown' (no effect trait), 'pure', or the effect kinds ('read', 'write')."""
    if op.has_trait(RecursiveMemoryEffect):
        return "recursive"
    effects = get_effects(op)
    if effects is None:
        return "unknown"
    kinds = sorted({effect.kind.name.lower() for effect in effects})
    return "+".join(kinds) or "pure"


def effect_table(module: ModuleOp) -> dict[str, str]:
    return {op.name: effect_class(op) for op in module.walk() if op is not module}


def traced(function, *signature: tj.TensorSpec) -> ModuleOp:
    concrete = tj.function(function, input_signature=list(signature)).get_concrete_function()
    return concrete.graph.module.clone()


# --- Exercise 2: x * 1 -> x as PDL, with a native constraint for "a splat of 1" ------------
MUL_ONE_PDL = """
builtin.module {
  pdl.pattern @mul_one_right : benefit(1) {
    %t = pdl.type
    %x = pdl.operand : %t
    %one = pdl.operand
    %mul = pdl.operation "tj.mul" (%x, %one : !pdl.value, !pdl.value) -> (%t : !pdl.type)
    pdl.apply_native_constraint "is_splat_one"(%one : !pdl.value)
    pdl.apply_native_constraint "is_not_complex"(%x : !pdl.value)
    pdl.rewrite %mul {
      pdl.replace %mul with (%x : !pdl.value)
    }
  }
  pdl.pattern @mul_one_left : benefit(1) {
    %t = pdl.type
    %x = pdl.operand : %t
    %one = pdl.operand
    %mul = pdl.operation "tj.mul" (%one, %x : !pdl.value, !pdl.value) -> (%t : !pdl.type)
    pdl.apply_native_constraint "is_splat_one"(%one : !pdl.value)
    pdl.apply_native_constraint "is_not_complex"(%x : !pdl.value)
    pdl.rewrite %mul {
      pdl.replace %mul with (%x : !pdl.value)
    }
  }
}
"""


def is_splat_one(value: SSAValue) -> bool:
    """The constraint PDL cannot say: a constant 1, maybe behind a broadcast_in_dim (whose
    operand count depends on the dynamic dims), compared by value in the tensor's dtype."""
    splat = splat_of(value)
    return splat is not None and bool(splat == 1)


def is_not_complex(value: SSAValue) -> bool:
    """x * 1 is x for every real dtype, not for complex ones: (a + bj) * (1 + 0j) has the
    real part a * 1 - b * 0, NaN for an infinite b and +0.0 for a = -0.0 and b < 0; NumPy
    gives [nan+infj, 0-1j, nan+nanj] for [1+infj, -0-1j, nan+2j] * 1 (so does canonicalize's
    own MulOne, which skips complex types for this reason)."""
    assert isinstance(value.type, TensorType)
    return not isinstance(value.type.get_element_type(), ComplexType)


def mul_one_patterns(ctx: Context) -> list[PDLRewritePattern]:
    ctx.load_dialect(pdl.PDL)
    patterns = Parser(ctx, MUL_ONE_PDL).parse_module()
    constraints = {"is_splat_one": is_splat_one, "is_not_complex": is_not_complex}
    return [
        PDLRewritePattern(op, ctx, None, native_constraints=constraints)
        for op in patterns.walk()
        if isinstance(op, pdl.RewriteOp)
    ]


@dataclass(frozen=True)
class PDLMulOnePass(ModulePass):
    name = "pdl-mul-one"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        applier = GreedyRewritePatternApplier(list(mul_one_patterns(ctx)))
        PatternRewriteWalker(applier).rewrite_module(op)


WITH_PDL_MUL_ONE = ("pdl-mul-one", *DEFAULT_PIPELINE)


@contextlib.contextmanager
def pdl_mul_one_registered():
    """Make `experimental_pipeline=WITH_PDL_MUL_ONE` work; leave the registry as found."""
    previous = PASSES.get("pdl-mul-one")
    PASSES["pdl-mul-one"] = lambda: PDLMulOnePass
    try:
        yield
    finally:
        if previous is None:
            del PASSES["pdl-mul-one"]
        else:
            PASSES["pdl-mul-one"] = previous


def times_one(x):
    return x * 1


def one_times(x):
    return 1 * x


# --- Exercise 3: shapes unknown at trace time ----------------------------------------------
def centered(x, y):
    return x - np.mean(x, axis=0) + y


def centered_any_rows(dtype) -> tj.Function:
    spec = tj.TensorSpec([None, 3], dtype)
    return tj.function(centered, input_signature=[spec, spec])


# --- Exercise 4: a conversion target, checked after every pass -----------------------------
def dialects_of(module: ModuleOp) -> set[str]:
    return {op.name.split(".")[0] for op in module.walk() if op is not module}


def first_legal_after(module: ModuleOp, legal: set[str]) -> str | None:
    """The first pass of the default pipeline after which every op is in a legal dialect."""
    found: list[str] = []

    def check(name: str, stage: ModuleOp) -> None:
        if not found and dialects_of(stage) <= legal:
            found.append(name)

    Pipeline.parse(list(DEFAULT_PIPELINE)).run(module, after_pass=check)
    return found[0] if found else None


# --- Exercises 5-7: Toy's chapter 4 on tj (docs/tutorial/examples/toy_chapter4.py) ----------
toy = runpy.run_path("docs/tutorial/examples/toy_chapter4.py")


# 5. One interface, three ops: the pass is unchanged. -(-x) wraps back for integers, ~~x
#    flips every bit twice, conj(conj(z)) negates the imaginary part twice (NaN and -0.0
#    included). 1 / (1 / x) rounds twice: 1 / (1 / 7.0) is 7.0000005 in float32, so
#    tj.reciprocal is no involution.
@contextlib.contextmanager
def all_involutions_attached():
    with toy["attached"](toy["Involution"](), NegOp, BitwiseNotOp, ConjOp):
        yield


@contextlib.contextmanager
def cancel_involutions_registered():
    previous = PASSES.get("cancel-involutions")
    PASSES["cancel-involutions"] = lambda: toy["CancelInvolutionsPass"]
    try:
        yield
    finally:
        if previous is None:
            del PASSES["cancel-involutions"]
        else:
            PASSES["cancel-involutions"] = previous


WITH_CANCEL_INVOLUTIONS = ("cancel-involutions", *DEFAULT_PIPELINE)


def not_not(x):
    return ~~x


def conj_conj(z):
    return np.conj(np.conj(z))


def neg_neg(x):
    return -(-x)  # noqa: B002


# 6. Region inlining with the same interfaces: tj.yield is the terminator to handle.
class TjRegionInliner(toy["TjInliner"]):
    def handle_terminator(self, terminator: Operation, mapped: list[SSAValue]) -> list[SSAValue]:
        assert isinstance(terminator, YieldOp)
        return mapped  # the branch's yielded values replace the tj.if's results


REGION_INLINERS = {**toy["INLINERS"], "tj": TjRegionInliner()}


def inline_constant_ifs(module: ModuleOp, interfaces) -> int:
    """Replace each tj.if whose predicate is a constant by the branch it takes, if the
    interfaces allow every op of it; return how many."""
    count = 0
    for op in [op for op in module.walk() if isinstance(op, IfOp)]:
        taken = splat_of(op.pred)
        if taken is None:
            continue
        region = op.then_region if bool(taken) else op.else_region
        ops = list(region.block.ops)
        if not all(toy["legal_to_inline"](inner, interfaces) for inner in ops):
            continue
        results = toy["inline_block"](ops, {}, op, interfaces)
        for result, value in zip(op.res, results, strict=True):
            result.replace_all_uses_with(value)
        op.detach()
        op.erase()
        count += 1
    return count


@dataclass(frozen=True)
class InlineConstantIfsPass(ModulePass):
    name = "inline-constant-ifs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_constant_ifs(op, REGION_INLINERS)


def pick(x):
    if np.sum(np.ones(3)) > 2:  # noqa: SIM108  (a statement on purpose: a staged tj.if)
        y = x * 2.0
    else:
        y = -x
    return y + 1.0


# The pipeline without canonicalize (which would fold the constant if itself): constant-fold
# makes the predicate a tj.constant, then the region is inlined.
WITH_INLINE_CONSTANT_IFS = (
    "constant-fold",
    "inline-constant-ifs",
    *[p for p in DEFAULT_PIPELINE if p != "canonicalize"],
)


# 7. The conversion the other way: float16 computed in float32 behind a float16 signature.
class FloatToFloat(TypeConversionPattern):
    """tensor<...x`source`> -> tensor<...x`target`> on tj ops."""

    ops = tuple(TJ.operations)

    def __init__(self, source: Attribute, target: Attribute) -> None:
        self.source, self.target = source, target

    @attr_type_rewrite_pattern
    def convert_type(self, typ: TensorType) -> TensorType | None:
        if typ.get_element_type() != self.source:
            return None
        return TensorType(self.target, typ.get_shape())


@dataclass
class ConvertConstant(RewritePattern):
    source: Attribute
    target: np.dtype

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConstantOp, rewriter: PatternRewriter) -> None:
        if op.value.get_element_type() != self.source:
            return
        rewriter.replace(op, ConstantOp.from_array(op.to_array().astype(self.target)))


def convert_function(function: func.FuncOp, source: Attribute, target: Attribute) -> None:
    """`function`'s `source` floats computed as `target` floats; its signature unchanged."""
    block = function.body.block
    for arg in block.args:
        if isinstance(arg.type, TensorType) and arg.type.get_element_type() == source:
            cast = CastOp(arg, TensorType(target, arg.type.get_shape()))
            block.insert_op_before(cast, block.first_op)
            for use in [u for u in arg.uses if u.operation is not cast]:
                use.operation.operands[use.index] = cast.result
    patterns = [ConvertConstant(source, numpy_dtype(target)), FloatToFloat(source, target)]
    PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_region(function.body)
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    for index, wanted in enumerate(function.function_type.outputs.data):
        if ret.operands[index].type != wanted:
            cast = CastOp(ret.operands[index], wanted)
            block.insert_op_before(cast, ret)
            ret.operands[index] = cast.result


@dataclass(frozen=True)
class PromoteF16Pass(ModulePass):
    name = "promote-f16"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.ops:
            if isinstance(function, func.FuncOp) and not function.is_declaration:
                convert_function(function, f16, f32)


@contextlib.contextmanager
def toy_passes_registered():
    """cancel-involutions (with every involution attached), inline-constant-ifs and
    promote-f16, for `experimental_pipeline`; the registry left as found."""
    added = {"inline-constant-ifs": InlineConstantIfsPass, "promote-f16": PromoteF16Pass}
    with all_involutions_attached(), cancel_involutions_registered():
        PASSES.update({name: (lambda p=p: p) for name, p in added.items()})
        try:
            yield
        finally:
            for name in added:
                del PASSES[name]


WITH_PROMOTE_F16 = ("promote-f16", *DEFAULT_PIPELINE)


def rational(x, y):
    return (x * y + 1) / (x - y)


def rational_in_f32(x, y):
    """NumPy's reference: float32 arithmetic, one rounding to float16 at the end."""
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    with np.errstate(all="ignore"):
        return ((x32 * y32 + 1) / (x32 - y32)).astype(np.float16)


def check() -> None:
    """Each exercise on its example; run when the file runs (tests/docs too)."""
    examples = runpy.run_path("docs/tutorial/examples/effects.py")
    shapes = runpy.run_path("docs/tutorial/examples/shapes.py")
    f32 = tj.TensorSpec([3], np.float32)

    # 1: the table of docs/tutorial/examples/effects.py:step and of a branch
    table = effect_table(traced(examples["step"], f32))
    assert table["tj.exp"] == "pure" and table["tj.print"] == "write", table
    assert table["tj.var_read"] == "read" and table["tj.var_write"] == "write", table
    assert table["func.func"] == "unknown", table  # no effect trait: never removed
    branchy = effect_table(traced(shapes["branchy"], tj.TensorSpec([4], np.float32)))
    assert branchy["tj.if"] == "recursive" and branchy["tj.yield"] == "pure", branchy

    # 2: the PDL pattern removes every tj.mul of x * 1 and 1 * x, and the results are NumPy's
    with pdl_mul_one_registered():
        for function in (times_one, one_times):
            for dtype in ("int8", "uint64", "float16", "float32", "bool"):
                spec = tj.TensorSpec([None], dtype)
                compiled = tj.function(
                    function, input_signature=[spec], experimental_pipeline=WITH_PDL_MUL_ONE
                )
                ir = compiled.get_concrete_function().ir(after="pdl-mul-one")
                assert "tj.mul" not in ir, ir
                check_compiled(compiled, np.array([0, 1, 3, 127], dtype))
        x = np.array([-0.0, np.nan, np.inf], np.float32)  # x * 1.0 is x bit for bit
        check_compiled(tj.function(times_one, experimental_pipeline=WITH_PDL_MUL_ONE), x)
        # complex: the multiply stays, and the machine code gives NumPy's product
        z = np.array([1 + np.inf * 1j, complex(-0.0, -1.0), complex(np.nan, 2.0)])
        for dtype in (np.complex64, np.complex128):
            compiled = tj.function(times_one, experimental_pipeline=WITH_PDL_MUL_ONE)
            got = check_compiled(compiled, z.astype(dtype))
            assert np.isnan(got[0].real) and got[1].real == 0 and not np.signbit(got[1].real)
            assert "tj.mul" in compiled.get_concrete_function(z.astype(dtype)).ir(
                after="pdl-mul-one"
            )

    # 3: one trace for every number of rows; rows that differ are refused before the call
    compiled = centered_any_rows(np.float32)
    for rows in (1, 5, 0):
        x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # the mean of no rows is NaN, in both
            want = centered(x, x)
        check_compiled(compiled, x, x, expected=want, rtol=1e-6)
    assert compiled.experimental_get_tracing_count() == 1
    try:
        run_compiled(compiled, np.zeros((5, 3), np.float32), np.zeros((4, 3), np.float32))
    except tj.errors.InvalidArgumentError as error:
        assert "dim 0 of input 0 is 5 but dim 0 of input 1 is 4" in str(error), error
    else:
        raise AssertionError("rows 5 and 4 were accepted")

    # 4: partial lowering, stage by stage
    def module():
        return traced(shapes["branchy"], tj.TensorSpec([4], np.float32))

    buffers = {"builtin", "func", "arith", "math", "memref", "linalg", "scf"}
    assert first_legal_after(module(), buffers) == "bufferize"
    assert first_legal_after(module(), buffers - {"linalg"}) == "lower-to-loops"
    assert first_legal_after(module(), buffers - {"linalg", "scf"} | {"cf"}) == "scf-to-cf"
    assert first_legal_after(module(), {"tj"}) is None  # func is never legalised away

    # 5: the three involutions cancelled by the one pass, NumPy's results bit for bit
    assert np.float32(1) / (np.float32(1) / np.float32(7)) != np.float32(7)
    with toy_passes_registered():
        for function, dtype in ((not_not, np.int8), (not_not, np.bool_),
                                (conj_conj, np.complex64), (neg_neg, np.uint16)):  # fmt: skip
            compiled = tj.function(function, experimental_pipeline=WITH_CANCEL_INVOLUTIONS)
            x = np.array([0, 1, 2, 3], dtype)
            check_compiled(compiled, x)
            ir = compiled.get_concrete_function(x).ir(after="cancel-involutions")
            assert not re.search(r"tj\.(neg|bitwise_not|conj) ", ir), ir

        # 6: the constant branch inlined: no tj.if is left, and the result is NumPy's
        compiled = tj.function(pick, experimental_pipeline=WITH_INLINE_CONSTANT_IFS)
        x = np.array([1.5, -0.0, np.inf], np.float32)
        check_compiled(compiled, x)
        assert "tj.if" not in compiled.get_concrete_function(x).ir(after="inline-constant-ifs")

        # 7: one rounding to float16, not one per op
        compiled = tj.function(rational, experimental_pipeline=WITH_PROMOTE_F16)
        x = np.array([0.1, 3.0, 300.0, -7.5], np.float16)
        y = np.array([0.3, 2.999, -1e-3, 60000.0], np.float16)
        got = check_compiled(compiled, x, y, expected=rational_in_f32(x, y))
        assert not np.array_equal(got, run_eagerly(rational, x, y))  # float16 steps differ
    print("ok")


check()
