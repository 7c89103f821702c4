"""Canonicalization patterns of the `tj` ops: small algebraic rewrites, each exact.

`canonicalize` applies these through its table (`PATTERNS` in `__init__.py`, by op type),
next to the ops' folders (`fold()`: constant evaluation and the identities that need no
new op, e.g. `broadcast_in_dim` or `reshape` to the operand's own type, `transpose` by
the identity, `select(c, x, x)`).

A rewrite is applied only when the result is the same NumPy result, bit for bit, for
every input. That rules out most float identities: `x + 0.0` turns -0.0 into +0.0 (but
`x + (-0.0)` is exact), `x * 0.0` is NaN for Inf and NaN and -0.0 for negative x, and
`np.sum` over a size-1 axis adds +0.0 (so it too flushes -0.0). NaN payloads and
signalling NaNs are not preserved by NumPy either and are ignored.

Operands of element-wise ops already have one type (tracing made broadcasts and dtype
promotion explicit), so "the result type equals x's type" holds by construction; the
patterns check it anyway before replacing a result by an operand.

Powers: `tj.pow` is pow() element by element, NumPy's loop for an exponent of several
elements, even all equal (`np.power(x, np.full(x.shape, 0.5))` is inf where x is -inf).
NumPy's shortcuts for a scalar exponent (`x ** 0.5` is `np.sqrt(x)`: NaN at -inf, -0.0 at
-0.0) are chosen by tracing (frontend/numpy_api/power.py), which emits `tj.sqrt` for them.
`x ** 2 -> x * x` and `x ** 1 -> x` below agree with pow() to the rounding (x * x is the
correctly rounded square) and at every special value.
"""

from __future__ import annotations

from typing import TypeGuard

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tracejit.ir.constant import ConstantOp
from tracejit.ir.dtypes import is_complex, is_inexact
from tracejit.ir.elementwise import CastOp
from tracejit.ir.elementwise_binary import AddOp, MulOp, PowOp, SubOp
from tracejit.ir.elementwise_unary import NegOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.select import SelectOp
from tracejit.ir.shape_ops import BroadcastInDimOp, ReshapeOp, TransposeOp

# --- recognising constants -------------------------------------------------------------


def splat_of(value: SSAValue) -> np.generic | None:
    """`ConstantOp.splat()` of the constant behind `value`, looking through
    `broadcast_in_dim` (it only repeats elements); None when there is no constant.

    Bits, not `==`: -0.0 and +0.0 are different splats here, and a NaN splat is one. An
    empty constant is a splat of zero; a rewrite it enables has an empty result too."""
    while isinstance(value.owner, BroadcastInDimOp):
        value = value.owner.operand
    owner = value.owner
    return owner.splat() if isinstance(owner, ConstantOp) else None


def _is_inexact(value: SSAValue) -> bool:
    """Float or complex: signed zeros, NaN and Inf make most identities inexact."""
    assert isinstance(value.type, TensorType)
    return is_inexact(value.type.get_element_type())


def _is_complex(value: SSAValue) -> bool:
    assert isinstance(value.type, TensorType)
    return is_complex(value.type.get_element_type())


def _is(splat: np.generic | None, number: float) -> TypeGuard[np.generic]:
    return splat is not None and bool(splat == number)


def _sign_bits(splat: np.generic) -> list[bool]:
    """The sign bit of a float, of each part of a complex number (real first)."""
    parts = (splat.real, splat.imag) if np.iscomplexobj(splat) else (splat,)
    return [bool(np.signbit(part)) for part in parts]


def _is_negative_zero(splat: np.generic | None) -> bool:
    return _is(splat, 0) and all(_sign_bits(splat))


def _is_positive_zero(splat: np.generic | None) -> bool:
    return _is(splat, 0) and not any(_sign_bits(splat))


def _is_additive_identity(value: SSAValue) -> bool:
    """0 for integers; only -0.0 for floats (x + (-0.0) == x for every x, -0.0 included)
    and -0.0 - 0.0j for complex numbers (added part by part)."""
    splat = splat_of(value)
    return _is_negative_zero(splat) if _is_inexact(value) else _is(splat, 0)


def _forward(rewriter: PatternRewriter, op, value: SSAValue) -> bool:
    """Replace `op`'s one result by `value` if the types agree (they must, to be exact)."""
    if value.type != op.results[0].type:
        return False
    rewriter.replace(op, [], [value])
    return True


# --- element-wise arithmetic ------------------------------------------------------------


class AddZero(RewritePattern):
    """x + 0 -> x and 0 + x -> x (ints); for floats only with -0.0: x + (-0.0) -> x."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddOp, rewriter: PatternRewriter) -> None:
        for x, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if _is_additive_identity(other) and _forward(rewriter, op, x):
                return


class SubZero(RewritePattern):
    """x - 0 -> x (ints); for floats only with +0.0: x - (+0.0) = x + (-0.0) = x (complex:
    +0.0 + 0.0j, part by part)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SubOp, rewriter: PatternRewriter) -> None:
        splat = splat_of(op.rhs)
        exact = _is_positive_zero(splat) if _is_inexact(op.rhs) else _is(splat, 0)
        if exact:
            _forward(rewriter, op, op.lhs)


class MulOne(RewritePattern):
    """x * 1 -> x and 1 * x -> x (ints and floats: x * 1.0 is exactly x, -0.0 and NaN too).
    Not for complex numbers: (a + bj) * (1 + 0j) has the real part a - b * 0.0, which is
    NaN for an infinite b and +0.0 for a = -0.0, b < 0."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter) -> None:
        if _is_complex(op.result):
            return
        for x, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if _is(splat_of(other), 1) and _forward(rewriter, op, x):
                return


class MulZero(RewritePattern):
    """x * 0 -> 0 and 0 * x -> 0, integers only (the zero operand is the result).
    Not for floats or complex numbers: Inf * 0 and NaN * 0 are NaN, and -1.0 * 0.0 is -0.0."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter) -> None:
        if _is_inexact(op.result):
            return
        for zero in (op.rhs, op.lhs):
            if _is(splat_of(zero), 0) and _forward(rewriter, op, zero):
                return


class NegNeg(RewritePattern):
    """-(-x) -> x (a sign flip twice; for ints -(-INT_MIN) wraps back to INT_MIN)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: NegOp, rewriter: PatternRewriter) -> None:
        inner = op.operand.owner
        if isinstance(inner, NegOp):
            _forward(rewriter, op, inner.operand)


class PowSquare(RewritePattern):
    """x ** 2 -> x * x (ints wrap the same way; floats: NumPy's loop for a scalar
    exponent 2 is x * x, see the module docstring; complex: `npy_cpow` computes an
    exponent of exactly 2 as z * z)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PowOp, rewriter: PatternRewriter) -> None:
        if _is(splat_of(op.rhs), 2):
            rewriter.replace(op, MulOp(op.lhs, op.lhs))


class PowOne(RewritePattern):
    """x ** 1 -> x (pow(x, 1) is x for every x, and NumPy's scalar loop copies x). Not for
    complex numbers: npy_cpow turns a zero base (-0.0 parts included) into +0.0 + 0.0j."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PowOp, rewriter: PatternRewriter) -> None:
        if _is(splat_of(op.rhs), 1) and not _is_complex(op.lhs):
            _forward(rewriter, op, op.lhs)


class CastToSameType(RewritePattern):
    """cast(x : T to T) -> x."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter) -> None:
        _forward(rewriter, op, op.input)


class SelectConstantCondition(RewritePattern):
    """select(true, a, b) -> a and select(false, a, b) -> b (a splat condition)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SelectOp, rewriter: PatternRewriter) -> None:
        condition = splat_of(op.condition)
        if condition is not None:
            _forward(rewriter, op, op.on_true if bool(condition) else op.on_false)


# --- shapes and reductions ---------------------------------------------------------------


class TransposeOfTranspose(RewritePattern):
    """transpose(transpose(x, p), q) -> transpose(x, [p[q[0]], p[q[1]], ...]):
    result dim j is the inner result's dim q[j], which is x's dim p[q[j]].
    (An identity composition is then removed by the transpose folder.)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        inner = op.operand.owner
        if not isinstance(inner, TransposeOp):
            return
        p, q = inner.get_permutation(), op.get_permutation()
        composed = [p[j] for j in q]
        assert isinstance(op.result.type, TensorType)
        rewriter.replace(op, TransposeOp(inner.operand, composed, op.result.type))


class ReshapeOfReshape(RewritePattern):
    """reshape(reshape(x)) -> reshape(x): row-major order is kept by both, so only the
    last shape matters. (A reshape to x's own type is then removed by the folder.)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter) -> None:
        inner = op.operand.owner
        if not isinstance(inner, ReshapeOp):
            return
        assert isinstance(op.result.type, TensorType)
        rewriter.replace(op, ReshapeOp(inner.operand, op.result.type, op.sizes))


class ReduceOverUnitAxes(RewritePattern):
    """reduce(x) over axes of size 1 -> reshape(x): each result element is the one
    element reduced. Exact for prod/max/min/any/all and integer sum (all keep the element
    type, checked below); not for a float or complex sum, which NumPy starts from +0.0 (so
    np.sum([[-0.0]], axis=1) is +0.0); not for argmax/argmin (i64 zeros, another type)."""

    KINDS = frozenset({"sum", "prod", "max", "min", "any", "all"})

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceOp, rewriter: PatternRewriter) -> None:
        source, target = op.input.type, op.result.type
        assert isinstance(source, TensorType) and isinstance(target, TensorType)
        if op.kind.data not in self.KINDS or not source.has_static_shape():
            return
        if source.get_element_type() != target.get_element_type():
            return
        if op.kind.data == "sum" and is_inexact(source.get_element_type()):
            return
        if any(source.get_shape()[axis] != 1 for axis in op.get_axes()):
            return
        parent = op.parent_op()
        if parent is not None and parent.name == "tj.fused":  # a kernel body holds no reshape
            return
        rewriter.replace(op, ReshapeOp(op.input, target))
