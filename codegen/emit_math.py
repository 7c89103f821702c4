"""Emitters for the `math` dialect.

LLVM intrinsics where LLVM 22 has them (the backend turns most into libm calls); otherwise a
direct libm call (`expm1f`, `log1p`, `cbrtf`, `erff`, `asinhf`, ...), which MCJIT resolves from
the process. f16 libm calls are computed in f32. `math.ipowi` calls an internal
exponentiation-by-squaring helper, one per integer type.

A math op marked `tj.slow_path` (expand-math's branch to libm for, e.g., sin of a huge
argument) must stay behind its branch in vectorised loops: `llvm.sin` is `speculatable` and
a `readnone` call to `sin` is recognised as it, so LLVM would if-convert either into a libm
call for every lane, and a call to an unknown function stops vectorisation altogether. It is
emitted as a call to an internal wrapper with masked vector variants (VFABI
`vector-function-abi-variant`): the vectoriser calls the variant with the branch condition
as mask, and after O3 (`jit._optimize`) the variant is inlined, so the vector loop tests the
mask once per iteration and calls libm only for the lanes set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir
from xdsl.dialects import math
from xdsl.ir import Operation

from tracejit.codegen.context import Emitter, FunctionEmitter
from tracejit.codegen.emit_arith import binary_intrinsic
from tracejit.codegen.errors import CodegenError
from tracejit.codegen.fastmath import flags_of
from tracejit.codegen.llvm_types import I1

_F32 = ir.FloatType()
_F16 = ir.HalfType()


# Set by expand-math on the rare exact path of an expansion (see the module docstring).
SLOW_PATH_ATTR = "tj.slow_path"

_SLOW_PATH_LIBM = frozenset({"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh"})


# Vector widths the loop vectoriser may pick (interleaved parts each make their own call).
# The variants have external linkage: an internal function referenced only from an
# attribute would be deleted before the vectoriser looks for it. Once inlined they are
# dead code, deleted before machine-code generation (`jit._drop_vector_variants`).
_SLOW_VFS = (2, 4, 8, 16)
SLOW_PREFIX = "__tj_slow_"


def is_vector_variant(name: str) -> bool:
    """Whether `name` is one of the masked vector variants `_vector_variant` makes."""
    if not name.startswith(SLOW_PREFIX):
        return False
    base, _, width = name.rpartition("_m")
    return bool(base) and width.isdigit() and int(width) in _SLOW_VFS


def _slow_call(fx: FunctionEmitter, name: str, args: Sequence[ir.Value]) -> ir.Value:
    """`name`(args) through `__tj_slow_<name>`, a `noinline` wrapper around libm with masked
    vector variants (so the loop vectoriser may widen the call, and only as a masked one)."""
    llvm_type = args[0].type
    symbol = name + "f" if llvm_type == _F32 else name
    arity = len(args)
    scalar_name = f"{SLOW_PREFIX}{symbol}"

    def build(fn: ir.Function) -> None:
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        libm = fx.state.declare(symbol, llvm_type, [llvm_type] * arity, ("nounwind", "readnone"))
        b.ret(b.call(libm, list(fn.args)))
        variants = [_vector_variant(fx, libm, scalar_name, vf) for vf in _SLOW_VFS]
        fn.attributes.add("noinline")
        fn.attributes.add("readnone")
        mappings = ",".join(
            f"_ZGV_LLVM_M{vf}{'v' * arity}_{scalar_name}({v.name})"
            for vf, v in zip(_SLOW_VFS, variants, strict=True)
        )
        set.add(fn.attributes, f'"vector-function-abi-variant"="{mappings}"')

    helper = fx.state.helper(scalar_name, build, llvm_type, [llvm_type] * arity)
    return fx.b.call(helper, list(args))


def _vector_variant(fx: FunctionEmitter, libm: ir.Function, scalar_name: str,
                    vf: int) -> ir.Function:
    """<vf x T> f(<vf x T>..., <vf x i1> mask): libm on the lanes whose mask bit is set."""
    llvm_type = libm.function_type.return_type
    vector = ir.VectorType(llvm_type, vf)
    arity = len(libm.args)
    mask_type = ir.VectorType(I1, vf)
    fn = ir.Function(fx.state.module, ir.FunctionType(vector, [vector] * arity + [mask_type]),
                     f"{scalar_name}_m{vf}")
    # Inlined after vectorisation (codegen/jit.py runs the always-inliner after O3): the
    # vector loop then tests the mask once per iteration and branches to the calls.
    fn.attributes.add("alwaysinline")
    fn.attributes.add("nounwind")
    entry = fn.append_basic_block("entry")
    work = fn.append_basic_block("any")
    b = ir.IRBuilder(entry)
    *inputs, mask = fn.args
    none = b.icmp_unsigned("==", b.bitcast(mask, ir.IntType(vf)), ir.Constant(ir.IntType(vf), 0))
    with b.if_then(none, likely=True):
        b.ret(ir.Constant(vector, None))
    b.branch(work)
    b.position_at_end(work)
    result: ir.Value = ir.Constant(vector, None)
    for lane in range(vf):
        index = ir.Constant(ir.IntType(32), lane)
        before = b.block
        with b.if_then(b.extract_element(mask, index)):
            value = b.call(libm, [b.extract_element(v, index) for v in inputs])
            updated = b.insert_element(result, value, index)
            then_block = b.block
        phi = b.phi(vector)
        phi.add_incoming(updated, then_block)
        phi.add_incoming(result, before)
        result = phi
    b.ret(result)
    return fn


def _unary_intrinsic(base: str) -> Callable[[FunctionEmitter, Operation], ir.Value]:
    def emit(fx: FunctionEmitter, op: Operation) -> ir.Value:
        if SLOW_PATH_ATTR in op.attributes and base in _SLOW_PATH_LIBM:
            return _slow_call(fx, base, [fx.get(v) for v in op.operands])
        x = fx.get(op.operands[0])
        fn = fx.state.intrinsic(base, x.type, [x.type], [x.type])
        return fx.b.call(fn, [x], fastmath=flags_of(op))

    return emit


def call_libm(fx: FunctionEmitter, name: str, args: Sequence[ir.Value],
              flags: tuple[str, ...] = ()) -> ir.Value:
    """Call the C math function `name` (double) / `name`f (float) on `args`."""
    llvm_type = args[0].type
    if llvm_type == _F16:
        wide = [fx.b.fpext(a, _F32) for a in args]
        return fx.b.fptrunc(call_libm(fx, name, wide, flags), _F16)
    symbol = name + "f" if llvm_type == _F32 else name
    fn = fx.state.declare(symbol, llvm_type, [llvm_type] * len(args), ("nounwind", "readnone"))
    return fx.b.call(fn, list(args), fastmath=flags)


def _libm(name: str) -> Emitter:
    def emit(fx: FunctionEmitter, op: Operation) -> ir.Value:
        return call_libm(fx, name, [fx.get(v) for v in op.operands], flags_of(op))

    return emit


def _rsqrt(fx: FunctionEmitter, op: Operation) -> ir.Value:
    root = _unary_intrinsic("sqrt")(fx, op)
    return fx.b.fdiv(ir.Constant(root.type, 1.0), root, flags=flags_of(op))


def _fma(fx: FunctionEmitter, op: Operation) -> ir.Value:
    a, b, c = (fx.get(v) for v in op.operands)
    fn = fx.state.intrinsic("fma", a.type, [a.type] * 3, [a.type])
    return fx.b.call(fn, [a, b, c], fastmath=flags_of(op))


def _fpowi(fx: FunctionEmitter, op: Operation) -> ir.Value:
    # x ** n as pow(x, double(n)): exact for integral n (sign by parity), and unlike
    # llvm.powi it needs no compiler-rt helper (__powisf2), which MCJIT cannot resolve.
    x, n = (fx.get(v) for v in op.operands)
    exponent = fx.b.sitofp(n, x.type)
    fn = fx.state.intrinsic("pow", x.type, [x.type, x.type], [x.type])
    return fx.b.call(fn, [x, exponent], fastmath=flags_of(op))


def _int_intrinsic_with_flag(base: str) -> Emitter:
    """abs/ctlz/cttz: `llvm.<base>.iN(x, i1 false)` (false: defined on INT_MIN / zero)."""

    def emit(fx: FunctionEmitter, op: Operation) -> ir.Value:
        x = fx.get(op.operands[0])
        fn = fx.state.intrinsic(base, x.type, [x.type, I1], [x.type])
        return fx.b.call(fn, [x, ir.Constant(I1, 0)])

    return emit


def _ctpop(fx: FunctionEmitter, op: Operation) -> ir.Value:
    x = fx.get(op.operands[0])
    return fx.b.call(fx.state.intrinsic("ctpop", x.type, [x.type], [x.type]), [x])


def _build_ipowi(fn: ir.Function) -> None:
    base, exponent = fn.args
    ty = base.type
    zero, one, minus_one = ir.Constant(ty, 0), ir.Constant(ty, 1), ir.Constant(ty, -1)
    entry, negative, loop, done = (fn.append_basic_block(n)
                                   for n in ("entry", "negative", "loop", "done"))
    b = ir.IRBuilder(entry)
    b.cbranch(b.icmp_signed("<", exponent, zero), negative, loop)

    # b ** -k: 1 for b == 1, +-1 by parity for b == -1, else 0 (the truncated |result| < 1).
    b.position_at_end(negative)
    odd = b.trunc(exponent, I1)
    unit = b.select(b.icmp_signed("==", base, minus_one), b.select(odd, minus_one, one), zero)
    b.ret(b.select(b.icmp_signed("==", base, one), one, unit))

    # Square-and-multiply over the exponent's bits, lowest first.
    b.position_at_end(loop)
    result, power, rest = b.phi(ty), b.phi(ty), b.phi(ty)
    next_result = b.select(b.trunc(rest, I1), b.mul(result, power), result)
    next_power = b.mul(power, power)
    next_rest = b.lshr(rest, one)
    for phi, initial, updated in ((result, one, next_result), (power, base, next_power),
                                  (rest, exponent, next_rest)):
        phi.add_incoming(initial, entry)
        phi.add_incoming(updated, loop)
    b.cbranch(b.icmp_signed("!=", next_rest, zero), loop, done)

    b.position_at_end(done)
    b.ret(next_result)


def _ipowi(fx: FunctionEmitter, op: Operation) -> ir.Value:
    x, n = (fx.get(v) for v in op.operands)
    if x.type.width < 2:
        raise CodegenError("math.ipowi on i1 is not supported")
    helper = fx.state.helper(f"__tj_ipowi_{x.type.intrinsic_name}", _build_ipowi,
                             x.type, [x.type, x.type])
    return fx.b.call(helper, [x, n])


_INTRINSIC_UNARY = {
    math.ExpOp: "exp",
    math.Exp2Op: "exp2",
    math.LogOp: "log",
    math.Log2Op: "log2",
    math.Log10Op: "log10",
    math.SqrtOp: "sqrt",
    math.AbsFOp: "fabs",
    math.FloorOp: "floor",
    math.CeilOp: "ceil",
    math.TruncOp: "trunc",
    math.RoundOp: "round",
    math.RoundEvenOp: "roundeven",
    math.SinOp: "sin",
    math.CosOp: "cos",
    math.TanOp: "tan",
    math.AsinOp: "asin",
    math.AcosOp: "acos",
    math.AtanOp: "atan",
    math.SinhOp: "sinh",
    math.CoshOp: "cosh",
    math.TanhOp: "tanh",
}

_LIBM_UNARY = {
    math.ExpM1Op: "expm1",
    math.Log1pOp: "log1p",
    math.CbrtOp: "cbrt",
    math.ErfOp: "erf",
    math.AsinhOp: "asinh",
    math.AcoshOp: "acosh",
    math.AtanhOp: "atanh",
}

_INTRINSIC_BINARY = {
    math.PowFOp: "pow",
    math.CopySignOp: "copysign",
    math.Atan2Op: "atan2",
}

MATH_EMITTERS: dict[type[Operation], Emitter] = {
    **{op: _unary_intrinsic(base) for op, base in _INTRINSIC_UNARY.items()},
    **{op: _libm(name) for op, name in _LIBM_UNARY.items()},
    **{op: binary_intrinsic(base) for op, base in _INTRINSIC_BINARY.items()},
    math.RsqrtOp: _rsqrt,
    math.FmaOp: _fma,
    math.FPowIOp: _fpowi,
    math.IPowIOp: _ipowi,
    math.AbsIOp: _int_intrinsic_with_flag("abs"),
    math.CountLeadingZerosOp: _int_intrinsic_with_flag("ctlz"),
    math.CountTrailingZerosOp: _int_intrinsic_with_flag("cttz"),
    math.CtPopOp: _ctpop,
}
