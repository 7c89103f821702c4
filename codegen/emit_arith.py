"""Emitters for the `arith` dialect.

Integer ops wrap (no `nsw`/`nuw`: NumPy integer overflow wraps); float ops carry exactly the
op's fast-math flags. `maximumf`/`minimumf` propagate NaN (`llvm.maximum`), `maxnumf`/`minnumf`
ignore it (`llvm.maxnum`).
"""

from __future__ import annotations

from llvmlite import ir
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Operation

from tracejit.codegen.context import Emitter, FunctionEmitter
from tracejit.codegen.errors import CodegenError
from tracejit.codegen.fastmath import flags_of
from tracejit.codegen.llvm_types import I1, scalar_type


def _int_binop(method: str) -> Emitter:
    def emit(fx: FunctionEmitter, op: Operation) -> ir.Value:
        lhs, rhs = (fx.get(v) for v in op.operands)
        return getattr(fx.b, method)(lhs, rhs)

    return emit


def _float_binop(method: str) -> Emitter:
    def emit(fx: FunctionEmitter, op: Operation) -> ir.Value:
        lhs, rhs = (fx.get(v) for v in op.operands)
        return getattr(fx.b, method)(lhs, rhs, flags=flags_of(op))

    return emit


def binary_intrinsic(base: str) -> Emitter:
    """`llvm.<base>.<T>(a, b)` with the op's fast-math flags: smax/smin/umax/umin,
    maximum/minimum/maxnum/minnum here, pow/copysign/atan2 in emit_math.py."""

    def emit(fx: FunctionEmitter, op: Operation) -> ir.Value:
        lhs, rhs = (fx.get(v) for v in op.operands)
        fn = fx.state.intrinsic(base, lhs.type, [lhs.type, lhs.type], [lhs.type])
        return fx.b.call(fn, [lhs, rhs], fastmath=flags_of(op))

    return emit


def _cast(method: str) -> Emitter:
    def emit(fx: FunctionEmitter, op: Operation) -> ir.Value:
        return getattr(fx.b, method)(fx.get(op.operands[0]), scalar_type(op.results[0].type))

    return emit


def _int_resize(widen: str) -> Emitter:
    """index_cast (widen = sext) / index_castui (widen = zext): resize or no-op."""

    def emit(fx: FunctionEmitter, op: Operation) -> ir.Value:
        value = fx.get(op.operands[0])
        target = scalar_type(op.results[0].type)
        if value.type.width == target.width:
            return value
        if value.type.width > target.width:
            return fx.b.trunc(value, target)
        return getattr(fx.b, widen)(value, target)

    return emit


def _wrap(value: int, width: int) -> int:
    """`value` as a signed `width`-bit integer (LLVM's textual form for iN constants)."""
    if width == 1:
        return value & 1
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def _constant(fx: FunctionEmitter, op: arith.ConstantOp) -> ir.Value:
    value = op.value
    if isinstance(value, IntegerAttr):
        llvm_type = scalar_type(value.type)
        return ir.Constant(llvm_type, _wrap(value.value.data, llvm_type.width))
    if isinstance(value, FloatAttr):
        return ir.Constant(scalar_type(value.type), value.value.data)
    raise CodegenError(f"arith.constant: unsupported value {value} (scalars only)")


def _floordivsi(fx: FunctionEmitter, op: Operation) -> ir.Value:
    # floor(a / b) = trunc(a / b) - 1 when the remainder is non-zero and its sign differs from b's.
    b = fx.b
    lhs, rhs = (fx.get(v) for v in op.operands)
    quotient, remainder = b.sdiv(lhs, rhs), b.srem(lhs, rhs)
    zero = ir.Constant(lhs.type, 0)
    inexact = b.icmp_signed("!=", remainder, zero)
    signs_differ = b.icmp_signed("<", b.xor(remainder, rhs), zero)
    return b.sub(quotient, b.zext(b.and_(inexact, signs_differ), lhs.type))


def _ceildivsi(fx: FunctionEmitter, op: Operation) -> ir.Value:
    # ceil(a / b) = trunc(a / b) + 1 when the remainder is non-zero and has the sign of b.
    b = fx.b
    lhs, rhs = (fx.get(v) for v in op.operands)
    quotient, remainder = b.sdiv(lhs, rhs), b.srem(lhs, rhs)
    zero = ir.Constant(lhs.type, 0)
    inexact = b.icmp_signed("!=", remainder, zero)
    same_sign = b.icmp_signed(">=", b.xor(remainder, rhs), zero)
    return b.add(quotient, b.zext(b.and_(inexact, same_sign), lhs.type))


def _ceildivui(fx: FunctionEmitter, op: Operation) -> ir.Value:
    b = fx.b
    lhs, rhs = (fx.get(v) for v in op.operands)
    inexact = b.icmp_unsigned("!=", b.urem(lhs, rhs), ir.Constant(lhs.type, 0))
    return b.add(b.udiv(lhs, rhs), b.zext(inexact, lhs.type))


# arith.cmpi predicate -> (builder method, llvmlite operator)
_CMPI = {
    "eq": ("icmp_signed", "=="),
    "ne": ("icmp_signed", "!="),
    "slt": ("icmp_signed", "<"),
    "sle": ("icmp_signed", "<="),
    "sgt": ("icmp_signed", ">"),
    "sge": ("icmp_signed", ">="),
    "ult": ("icmp_unsigned", "<"),
    "ule": ("icmp_unsigned", "<="),
    "ugt": ("icmp_unsigned", ">"),
    "uge": ("icmp_unsigned", ">="),
}


def _cmpi(fx: FunctionEmitter, op: arith.CmpiOp) -> ir.Value:
    method, operator = _CMPI[arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]]
    return getattr(fx.b, method)(operator, fx.get(op.lhs), fx.get(op.rhs))


_CMPF_CONSTANT = {"false": 0, "true": 1}


def _cmpf(fx: FunctionEmitter, op: arith.CmpfOp) -> ir.Value:
    predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    if predicate in _CMPF_CONSTANT:
        return ir.Constant(I1, _CMPF_CONSTANT[predicate])
    # fcmp_ordered passes LLVM predicate names (oeq, ult, ord, uno, ...) through unchanged.
    return fx.b.fcmp_ordered(predicate, fx.get(op.lhs), fx.get(op.rhs), flags=flags_of(op))


def _select(fx: FunctionEmitter, op: arith.SelectOp) -> ir.Value:
    return fx.b.select(fx.get(op.cond), fx.get(op.lhs), fx.get(op.rhs))


def _negf(fx: FunctionEmitter, op: Operation) -> ir.Value:
    return fx.b.fneg(fx.get(op.operands[0]), flags=flags_of(op))


ARITH_EMITTERS: dict[type[Operation], Emitter] = {
    arith.ConstantOp: _constant,
    arith.AddiOp: _int_binop("add"),
    arith.SubiOp: _int_binop("sub"),
    arith.MuliOp: _int_binop("mul"),
    arith.DivSIOp: _int_binop("sdiv"),
    arith.DivUIOp: _int_binop("udiv"),
    arith.RemSIOp: _int_binop("srem"),
    arith.RemUIOp: _int_binop("urem"),
    arith.FloorDivSIOp: _floordivsi,
    arith.CeilDivSIOp: _ceildivsi,
    arith.CeilDivUIOp: _ceildivui,
    arith.AndIOp: _int_binop("and_"),
    arith.OrIOp: _int_binop("or_"),
    arith.XOrIOp: _int_binop("xor"),
    arith.ShLIOp: _int_binop("shl"),
    arith.ShRSIOp: _int_binop("ashr"),
    arith.ShRUIOp: _int_binop("lshr"),
    arith.MaxSIOp: binary_intrinsic("smax"),
    arith.MinSIOp: binary_intrinsic("smin"),
    arith.MaxUIOp: binary_intrinsic("umax"),
    arith.MinUIOp: binary_intrinsic("umin"),
    arith.AddfOp: _float_binop("fadd"),
    arith.SubfOp: _float_binop("fsub"),
    arith.MulfOp: _float_binop("fmul"),
    arith.DivfOp: _float_binop("fdiv"),
    arith.NegfOp: _negf,
    arith.MaximumfOp: binary_intrinsic("maximum"),
    arith.MinimumfOp: binary_intrinsic("minimum"),
    arith.MaxnumfOp: binary_intrinsic("maxnum"),
    arith.MinnumfOp: binary_intrinsic("minnum"),
    arith.CmpiOp: _cmpi,
    arith.CmpfOp: _cmpf,
    arith.SelectOp: _select,
    arith.ExtSIOp: _cast("sext"),
    arith.ExtUIOp: _cast("zext"),
    arith.TruncIOp: _cast("trunc"),
    arith.SIToFPOp: _cast("sitofp"),
    arith.UIToFPOp: _cast("uitofp"),
    arith.FPToSIOp: _cast("fptosi"),
    arith.FPToUIOp: _cast("fptoui"),
    arith.ExtFOp: _cast("fpext"),
    arith.TruncFOp: _cast("fptrunc"),
    arith.BitcastOp: _cast("bitcast"),
    arith.IndexCastOp: _int_resize("sext"),
}

# Ops that xDSL 0.74 does not define (parsed as unregistered ops or defined elsewhere),
# keyed by op name; operands are taken positionally.
ARITH_NAMED_EMITTERS: dict[str, Emitter] = {
    "arith.remf": _float_binop("frem"),
    "arith.index_castui": _int_resize("zext"),
}
