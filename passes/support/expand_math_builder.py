"""A tiny arithmetic DSL for the `expand-math` patterns: float and int `arith` ops as methods.

`Arith(rewriter, f64)` inserts every op before the matched op and caches constants per
expansion (or, given a `ConstantPool`, shares them with every expansion in the same block),
so a pattern reads like the formula it implements:

    k = a.roundeven(a.mul(x, a.const(INV_LN2)))
    r = a.fma(a.neg(k), a.const(LN2_HI), x)

The float type is f64 (most patterns; f32 ops are widened first and narrowed at the end) or
f32 (the native f32 patterns); the integer side is the same-width iN, used only through
`bitcast` for exponent manipulation (AVX2 has no packed f64<->i64 conversion, so no
fptosi/sitofp is emitted: `int_to_float`/`float_to_int` use the 1.5 * 2^p shifter).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, UnitAttr, f64, i32, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

V = SSAValue

# Marks a `math` op as the rare exact path of an expansion: expand-math leaves it alone and
# codegen emits it as a plain libm call (`memory(none) nounwind`, not `speculatable`), so
# LLVM's loop vectoriser keeps it under its branch (scalarised per lane, predicated) instead
# of if-converting it into a call for every lane.
SLOW_PATH_ATTR = "tj.slow_path"


class ConstantPool:
    """Constants shared by all expansions in a block.

    A tanh or exp expansion needs ~18 constants, the same ones every time; a function with
    many of them in one loop body would otherwise carry a copy per call site (28% of the ops
    the pass creates, each paid for again by every later pass and by translation). A constant
    is created where the first expansion needing it is (so a block with one expansion reads as
    before) and reused by the later ones: the walker visits a block's ops in order, so the
    first one dominates the rest."""

    def __init__(self) -> None:
        self._values: dict[tuple[Block, Attribute, object], V] = {}

    def get(
        self, rewriter: PatternRewriter, block: Block, value: FloatAttr | IntegerAttr, key: object
    ) -> V:
        """The constant `value` in `block`, the block of the op being rewritten; `key` tells
        values of one type apart (repr for floats: 0.0 == -0.0 in Python)."""
        index = (block, value.type, key)
        found = self._values.get(index)
        if found is None:
            constant = rewriter.insert(arith.ConstantOp(value))
            found = self._values[index] = constant.result
        return found


class Arith:
    """Builds f64/i64 arith ops in front of the op being rewritten."""

    def __init__(
        self,
        rewriter: PatternRewriter,
        float_type: AnyFloat = f64,
        constants: ConstantPool | None = None,
        block: Block | None = None,
    ):
        self._rewriter = rewriter
        self._pool = constants if block is not None else None
        self._block = block  # of the op being expanded (where pooled constants live)
        self.ftype = float_type
        self.is_f64 = float_type == f64
        self.itype = i64 if self.is_f64 else i32
        self.mantissa_bits = 52 if self.is_f64 else 23
        self.bias = 1023 if self.is_f64 else 127
        # 1.5 * 2^p: x + SHIFTER holds round(x) in its low bits
        self.shifter = 1.5 * 2.0**self.mantissa_bits
        self._floats: dict[str, V] = {}
        self._ints: dict[int, V] = {}

    def op(self, operation: Operation) -> V:
        self._rewriter.insert(operation)
        return operation.results[0]

    # --- constants ---------------------------------------------------------------------
    def const(self, value: float) -> V:
        value = float(value) if self.is_f64 else float(np.float32(value))
        key = repr(value)  # repr keeps -0.0 apart from 0.0
        if key not in self._floats:
            self._floats[key] = self._constant(FloatAttr(value, self.ftype), key)
        return self._floats[key]

    def iconst(self, value: int) -> V:
        if value not in self._ints:
            self._ints[value] = self._constant(IntegerAttr(value, self.itype), value)
        return self._ints[value]

    def _constant(self, value: FloatAttr | IntegerAttr, key: object) -> V:
        if self._pool is None:
            return self.op(arith.ConstantOp(value))
        assert self._block is not None
        return self._pool.get(self._rewriter, self._block, value, key)

    # --- float arithmetic --------------------------------------------------------------
    def add(self, a: V, b: V) -> V:
        return self.op(arith.AddfOp(a, b))

    def sub(self, a: V, b: V) -> V:
        return self.op(arith.SubfOp(a, b))

    def mul(self, a: V, b: V) -> V:
        return self.op(arith.MulfOp(a, b))

    def div(self, a: V, b: V) -> V:
        return self.op(arith.DivfOp(a, b))

    def neg(self, a: V) -> V:
        return self.op(arith.NegfOp(a))

    def fma(self, a: V, b: V, c: V) -> V:
        """a * b + c with one rounding (vfmadd; exact products make Cody-Waite work)."""
        return self.op(math.FmaOp(a, b, c))

    def abs(self, a: V) -> V:
        return self.op(math.AbsFOp(a))

    def sqrt(self, a: V) -> V:
        return self.op(math.SqrtOp(a))

    def copysign(self, magnitude: V, sign: V) -> V:
        return self.op(math.CopySignOp(magnitude, sign))

    def roundeven(self, a: V) -> V:
        return self.op(math.RoundEvenOp(a))

    def floor(self, a: V) -> V:
        return self.op(math.FloorOp(a))

    def horner(self, t: V, coeffs: Sequence[float]) -> V:
        """c0 + c1 t + c2 t^2 + ... by Horner's rule with fma."""
        acc = self.const(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            acc = self.fma(acc, t, self.const(c))
        return acc

    # --- comparisons and selection ----------------------------------------------------
    def cmp(self, predicate: str, a: V, b: V) -> V:
        """Float compare; ordered predicates ('olt', ...) are false when either is NaN."""
        return self.op(arith.CmpfOp(a, b, predicate))

    def icmp(self, predicate: str, a: V, b: V) -> V:
        return self.op(arith.CmpiOp(a, b, predicate))

    def select(self, cond: V, a: V, b: V) -> V:
        return self.op(arith.SelectOp(cond, a, b))

    def and_(self, a: V, b: V) -> V:
        return self.op(arith.AndIOp(a, b))

    def or_(self, a: V, b: V) -> V:
        return self.op(arith.OrIOp(a, b))

    def not_(self, a: V) -> V:
        return self.op(arith.XOrIOp(a, self.op(arith.ConstantOp(IntegerAttr(1, 1)))))

    def clamp(self, x: V, lo: float, hi: float) -> V:
        """min(max(x, lo), hi), NaN kept as NaN (ordered compares are false for NaN)."""
        x = self.select(self.cmp("olt", x, self.const(lo)), self.const(lo), x)
        return self.select(self.cmp("ogt", x, self.const(hi)), self.const(hi), x)

    def is_nan(self, x: V) -> V:
        return self.cmp("uno", x, x)

    def slow_path(self, cond: V, fast: V, op_type: type[Operation], *args: V) -> V:
        """`cond ? op_type(*args) : fast` as an `scf.if` (a branch, not a select): the
        marked math op (SLOW_PATH_ATTR) runs only for the lanes that need it."""
        exact = op_type(*args)
        exact.attributes[SLOW_PATH_ATTR] = UnitAttr()
        branch = scf.IfOp(
            cond, [fast.type], [exact, scf.YieldOp(exact)], [scf.YieldOp(fast)]
        )
        return self.op(branch)

    # --- integer view --------------------------------------------------------------------
    def bits(self, x: V) -> V:
        return self.op(arith.BitcastOp(x, self.itype))

    def from_bits(self, n: V) -> V:
        return self.op(arith.BitcastOp(n, self.ftype))

    def iadd(self, a: V, b: V) -> V:
        return self.op(arith.AddiOp(a, b))

    def isub(self, a: V, b: V) -> V:
        return self.op(arith.SubiOp(a, b))

    def shl(self, a: V, n: int) -> V:
        return self.op(arith.ShLIOp(a, self.iconst(n)))

    def ashr(self, a: V, n: int) -> V:
        return self.op(arith.ShRSIOp(a, self.iconst(n)))

    def iand(self, a: V, mask: int) -> V:
        return self.op(arith.AndIOp(a, self.iconst(mask)))

    # --- conversions ---------------------------------------------------------------------
    def widen(self, x: V) -> V:
        return self.op(arith.ExtFOp(x, f64))

    def narrow(self, x: V, to) -> V:
        return self.op(arith.TruncFOp(x, to))

    # --- exact integer <-> float via the 1.5 * 2^p shifter ------------------------------------
    def int_to_float(self, n: V) -> V:
        """float(n) for |n| < 2^(p-1), without sitofp: bits(SHIFTER) + n, minus SHIFTER."""
        shifter = self.const(self.shifter)
        return self.sub(self.from_bits(self.iadd(self.bits(shifter), n)), shifter)

    def float_to_int(self, k: V) -> V:
        """n for an integral float |k| < 2^(p-1) (the inverse of `int_to_float`)."""
        shifter = self.const(self.shifter)
        return self.isub(self.bits(self.add(k, shifter)), self.bits(shifter))

    def pow2(self, n: V) -> V:
        """2^n for integer n in the normal exponent range (bits (n + bias) << p)."""
        return self.from_bits(self.shl(self.iadd(n, self.iconst(self.bias)), self.mantissa_bits))
