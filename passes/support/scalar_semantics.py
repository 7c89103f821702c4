"""What each element-wise `tj` op computes on one element, in `arith` and `math`.

The lowering passes build loop bodies from these tables: `bufferize` puts the scalar
form of an op (`emit_op`, one table for all element-wise ops and splat constants) into
a `linalg.generic` body, the op's own or that of the `tj.fused` kernel holding it. Ops
are chosen by the NumPy dtype of the tensor (float / signed / unsigned), because `arith`
integers are signless: an unsigned `ui8` tensor becomes `i8` buffers with the unsigned
arith ops. Complex elements (`complex<fN>` scalars) take their forms from
`complex_semantics.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    ComplexType,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    f16,
    f32,
    f64,
    i32,
    i64,
)
from xdsl.dialects.utils import FastMathFlag
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from tracejit.ir import elementwise as ew
from tracejit.ir.constant import ConstantOp
from tracejit.ir.dtypes import (
    component_type,
    element_kind,
    element_of,
    is_complex,
    is_float,
    is_unsigned,
)
from tracejit.passes.support import complex_semantics

Emitter = Callable[[Builder, Sequence[SSAValue], Attribute], SSAValue]

REASSOC = arith.FastMathFlagsAttr([FastMathFlag.REASSOC])
REASSOC_CONTRACT = arith.FastMathFlagsAttr([FastMathFlag.REASSOC, FastMathFlag.ALLOW_CONTRACT])


def signless(element: Attribute) -> Attribute:
    """The arith type of a tensor element type (`ui8` -> `i8`)."""
    if isinstance(element, IntegerType) and element.signedness.data != Signedness.SIGNLESS:
        return IntegerType(element.width.data)
    return element


def _op(builder: Builder, op: Operation) -> SSAValue:
    return builder.insert(op).results[0]


def _by_kind(**ops: type[Operation]) -> Emitter:
    """An emitter that picks the op class by element kind (float/signed/unsigned)."""

    def emit(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
        kind = element_kind(element)
        op_type = ops.get(kind) or ops["int"]
        return _op(builder, op_type(*args))

    return emit


def constant(
    builder: Builder, value: complex | float | int | bool, element: Attribute
) -> SSAValue:
    """An `arith.constant` of `value` in the arith form of `element` (for a complex element
    a `complex.create` of two)."""
    if isinstance(element, ComplexType):
        parts = (complex(value).real, complex(value).imag)
        floats = (constant(builder, part, element.element_type) for part in parts)
        return complex_semantics.pack(builder, tuple(floats), element)  # type: ignore[arg-type]  # a (real, imag) pair
    assert not isinstance(value, complex)
    element = signless(element)
    if is_float(element):
        return _op(builder, arith.ConstantOp(FloatAttr(float(value), element)))
    assert isinstance(element, IntegerType)
    width = element.width.data
    normalized = int(value) & ((1 << width) - 1)
    if normalized >= 1 << (width - 1):  # stored as a signed value of that width
        normalized -= 1 << width
    return _op(builder, arith.ConstantOp(IntegerAttr(normalized, element)))


def _neg(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    if is_float(element):
        return _op(builder, arith.NegfOp(args[0]))
    zero = constant(builder, 0, element)
    return _op(builder, arith.SubiOp(zero, args[0]))  # 0 - x wraps like NumPy


def _abs(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    if is_float(element):
        return _op(builder, math.AbsFOp(args[0]))
    if is_unsigned(element):
        return args[0]
    return _op(builder, math.AbsIOp(args[0]))


def _select(builder: Builder, condition: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    return _op(builder, arith.SelectOp(condition, a, b))


def _cmp(builder: Builder, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
    """cmpf with an LLVM float predicate (oeq, une, ...) or cmpi (eq, slt, ult, ...)."""
    if is_float(a.type):
        return _op(builder, arith.CmpfOp(a, b, predicate))
    return _op(builder, arith.CmpiOp(a, b, predicate))


def _sign(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    # NumPy: x > 0 ? 1 : x < 0 ? -1 : x == 0 ? 0 : x (so NaN stays NaN, -0.0 gives 0.0).
    (x,) = args
    one, zero = constant(builder, 1, element), constant(builder, 0, element)
    if is_unsigned(element):
        return _select(builder, _cmp(builder, "ne", x, zero), one, zero)
    minus_one = constant(builder, -1, element)
    gt, lt, eq = ("ogt", "olt", "oeq") if is_float(element) else ("sgt", "slt", "eq")
    rest = _select(builder, _cmp(builder, eq, x, zero), zero, x)
    rest = _select(builder, _cmp(builder, lt, x, zero), minus_one, rest)
    return _select(builder, _cmp(builder, gt, x, zero), one, rest)


def _bitwise_not(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    return _op(builder, arith.XOrIOp(args[0], constant(builder, -1, element)))


# --- division and remainder ------------------------------------------------------------
# LLVM's sdiv/udiv/srem/urem trap on x86 for a zero divisor and for INT_MIN / -1, so the
# divisor is replaced by 1 in those lanes first; NumPy gives 0 for x // 0 and x % 0, and
# INT_MIN for INT_MIN // -1 (= INT_MIN // 1), and 0 for INT_MIN % -1 (= INT_MIN % 1).


def _safe_divisor(builder: Builder, b: SSAValue, element: Attribute, avoid: Sequence[int]):
    """(b with every value in `avoid` replaced by 1, b == 0)."""
    zero = constant(builder, 0, element)
    is_zero = _cmp(builder, "eq", b, zero)
    unsafe = is_zero
    for value in avoid:
        hit = _cmp(builder, "eq", b, constant(builder, value, element))
        unsafe = _op(builder, arith.OrIOp(unsafe, hit))
    return _select(builder, unsafe, constant(builder, 1, element), b), is_zero


def _int_floor_divide(builder: Builder, args: Sequence[SSAValue], element: Attribute):
    a, b = args
    zero = constant(builder, 0, element)
    if is_unsigned(element):
        safe, is_zero = _safe_divisor(builder, b, element, ())
        return _select(builder, is_zero, zero, _op(builder, arith.DivUIOp(a, safe)))
    safe, is_zero = _safe_divisor(builder, b, element, (-1,))
    quotient = _op(builder, arith.FloorDivSIOp(a, safe))
    # b == -1 was replaced by 1: floor(a / -1) = -a (wraps for INT_MIN, as NumPy).
    negated = _op(builder, arith.SubiOp(zero, a))
    minus_one = _cmp(builder, "eq", b, constant(builder, -1, element))
    return _select(builder, is_zero, zero, _select(builder, minus_one, negated, quotient))


def _int_fmod(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    a, b = args  # x % 1 == 0, so the replaced lanes already give NumPy's 0
    if is_unsigned(element):
        return _op(builder, arith.RemUIOp(a, _safe_divisor(builder, b, element, ())[0]))
    return _op(builder, arith.RemSIOp(a, _safe_divisor(builder, b, element, (-1,))[0]))


def _int_remainder(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    if is_unsigned(element):
        return _int_fmod(builder, args, element)
    # Python's %: the truncated remainder moved by b when its sign differs from b's.
    a, b = args
    zero = constant(builder, 0, element)
    remainder = _int_fmod(builder, args, element)
    inexact = _cmp(builder, "ne", remainder, zero)
    signs_differ = _cmp(builder, "slt", _op(builder, arith.XOrIOp(remainder, b)), zero)
    adjust = _op(builder, arith.AndIOp(inexact, signs_differ))
    return _select(builder, adjust, _op(builder, arith.AddiOp(remainder, b)), remainder)


@irdl_op_definition
class RemFOp(IRDLOperation):
    """`arith.remf` (C's fmod; LLVM's frem), which xDSL 0.74's arith does not define.

    Codegen translates it by name. Its IR prints in generic form and parses back only in
    a context that allows unregistered ops.
    """

    name = "arith.remf"
    T: ClassVar = VarConstraint("T", AnyAttr())
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type])


def _float_divmod(builder: Builder, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(a // b, a % b) exactly as NumPy's `npy_divmod` (npy_math_internal.h.src)."""
    element = a.type
    zero, one, half = (constant(builder, v, element) for v in (0.0, 1.0, 0.5))
    fmod = mod = _op(builder, RemFOp(a, b))
    quotient = _op(builder, arith.DivfOp(a, b))
    div = _op(builder, arith.DivfOp(_op(builder, arith.SubfOp(a, mod)), b))
    # Move fmod's result (sign of a) to Python's convention (sign of b).
    mod_nonzero = _cmp(builder, "une", mod, zero)
    signs_differ = _op(
        builder, arith.XOrIOp(_cmp(builder, "olt", b, zero), _cmp(builder, "olt", mod, zero))
    )
    adjust = _op(builder, arith.AndIOp(mod_nonzero, signs_differ))
    mod = _select(builder, adjust, _op(builder, arith.AddfOp(mod, b)), mod)
    div = _select(builder, adjust, _op(builder, arith.SubfOp(div, one)), div)
    mod = _select(builder, mod_nonzero, mod, _op(builder, math.CopySignOp(zero, b)))
    # Snap the quotient to the nearest integral value; a zero quotient gets a / b's sign.
    floor = _op(builder, math.FloorOp(div))
    snap = _cmp(builder, "ogt", _op(builder, arith.SubfOp(div, floor)), half)
    floor = _select(builder, snap, _op(builder, arith.AddfOp(floor, one)), floor)
    signed_zero = _op(builder, math.CopySignOp(zero, quotient))
    floor_div = _select(builder, _cmp(builder, "une", div, zero), floor, signed_zero)
    # b == 0: a / b and fmod(a, 0) (NaN).
    b_zero = _cmp(builder, "oeq", b, zero)
    return _select(builder, b_zero, quotient, floor_div), _select(builder, b_zero, fmod, mod)


def _floor_divide(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    if is_float(element):
        return _float_divmod(builder, *args)[0]
    return _int_floor_divide(builder, args, element)


def _remainder(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    if is_float(element):
        return _float_divmod(builder, *args)[1]
    return _int_remainder(builder, args, element)


def _fmod(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    if is_float(element):
        return _op(builder, RemFOp(*args))
    return _int_fmod(builder, args, element)


# --- powers and shifts -----------------------------------------------------------------


def _pow(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    if is_float(element):
        return _op(builder, math.PowFOp(args[0], args[1]))
    if not is_unsigned(element):
        return _op(builder, math.IPowIOp(*args))
    # ipowi reads the exponent as signed. For an exponent e with the top bit set,
    # x ** e = x ** (e - 2**(w-1)) * x ** 2**(w-1), and x ** 2**(w-1) mod 2**w is 0 for
    # even x and 1 for odd x.
    base, exponent = args
    width = _width(element)
    zero = constant(builder, 0, element)
    low = _op(builder, arith.AndIOp(exponent, constant(builder, (1 << (width - 1)) - 1, element)))
    power = _op(builder, math.IPowIOp(base, low))
    top_bit = _cmp(builder, "slt", exponent, zero)
    odd = _cmp(builder, "ne", _op(builder, arith.AndIOp(base, constant(builder, 1, element))), zero)
    return _select(builder, top_bit, _select(builder, odd, power, zero), power)


def _width(element: Attribute) -> int:
    assert isinstance(element, IntegerType)
    return element.width.data


def _shift_amount(builder: Builder, b: SSAValue, element: Attribute):
    """(b >= bit width or b < 0, b clamped into range); NumPy treats both as too far."""
    width = constant(builder, _width(element), element)
    too_far = _cmp(builder, "uge", b, width)
    return too_far, _select(builder, too_far, constant(builder, 0, element), b)


def _left_shift(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    a, b = args
    too_far, amount = _shift_amount(builder, b, element)
    shifted = _op(builder, arith.ShLIOp(a, amount))
    return _select(builder, too_far, constant(builder, 0, element), shifted)


def _right_shift(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    a, b = args
    too_far, amount = _shift_amount(builder, b, element)
    if is_unsigned(element):
        shifted = _op(builder, arith.ShRUIOp(a, amount))
        return _select(builder, too_far, constant(builder, 0, element), shifted)
    sign_fill = constant(builder, _width(element) - 1, element)  # 0 or -1 by the sign
    return _op(builder, arith.ShRSIOp(a, _select(builder, too_far, sign_fill, amount)))


def _hypot(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    if element == f32:  # squares of f32 are exact in f64 and cannot overflow there
        wide = [_op(builder, arith.ExtFOp(v, f64)) for v in args]
        return _op(builder, arith.TruncFOp(_hypot(builder, wide, f64), f32))
    # big * sqrt(1 + (small / big)**2): no overflow; inf wins over NaN, as C's hypot.
    ax, ay = (_op(builder, math.AbsFOp(v)) for v in args)
    big = _op(builder, arith.MaximumfOp(ax, ay))
    small = _op(builder, arith.MinimumfOp(ax, ay))
    zero, one = constant(builder, 0.0, element), constant(builder, 1.0, element)
    inf = constant(builder, float("inf"), element)
    ratio = _op(builder, arith.DivfOp(small, big))
    root = _op(builder, math.SqrtOp(_op(builder, math.FmaOp(ratio, ratio, one))))
    scaled = _select(
        builder, _cmp(builder, "oeq", big, zero), zero, _op(builder, arith.MulfOp(big, root))
    )
    any_inf = _op(
        builder, arith.OrIOp(_cmp(builder, "oeq", ax, inf), _cmp(builder, "oeq", ay, inf))
    )
    return _select(builder, any_inf, inf, scaled)


SCALAR_OPS: dict[type[Operation], Emitter] = {
    # unary
    ew.NegOp: _neg,
    ew.AbsOp: _abs,
    ew.SignOp: _sign,
    ew.BitwiseNotOp: _bitwise_not,
    ew.ExpOp: _by_kind(float=math.ExpOp),
    ew.Expm1Op: _by_kind(float=math.ExpM1Op),
    ew.Exp2Op: _by_kind(float=math.Exp2Op),
    ew.LogOp: _by_kind(float=math.LogOp),
    ew.Log1pOp: _by_kind(float=math.Log1pOp),
    ew.Log2Op: _by_kind(float=math.Log2Op),
    ew.Log10Op: _by_kind(float=math.Log10Op),
    ew.SqrtOp: _by_kind(float=math.SqrtOp),
    ew.CbrtOp: _by_kind(float=math.CbrtOp),
    ew.ErfOp: _by_kind(float=math.ErfOp),
    ew.SinOp: _by_kind(float=math.SinOp),
    ew.CosOp: _by_kind(float=math.CosOp),
    ew.TanOp: _by_kind(float=math.TanOp),
    ew.ArcsinOp: _by_kind(float=math.AsinOp),
    ew.ArccosOp: _by_kind(float=math.AcosOp),
    ew.ArctanOp: _by_kind(float=math.AtanOp),
    ew.SinhOp: _by_kind(float=math.SinhOp),
    ew.CoshOp: _by_kind(float=math.CoshOp),
    ew.TanhOp: _by_kind(float=math.TanhOp),
    ew.ArcsinhOp: _by_kind(float=math.AsinhOp),
    ew.ArccoshOp: _by_kind(float=math.AcoshOp),
    ew.ArctanhOp: _by_kind(float=math.AtanhOp),
    ew.FloorOp: _by_kind(float=math.FloorOp),
    ew.CeilOp: _by_kind(float=math.CeilOp),
    ew.TruncOp: _by_kind(float=math.TruncOp),
    ew.RintOp: _by_kind(float=math.RoundEvenOp),
    # binary
    ew.AddOp: _by_kind(float=arith.AddfOp, int=arith.AddiOp),
    ew.SubOp: _by_kind(float=arith.SubfOp, int=arith.SubiOp),
    ew.MulOp: _by_kind(float=arith.MulfOp, int=arith.MuliOp),
    ew.DivOp: _by_kind(float=arith.DivfOp),
    ew.FloorDivideOp: _floor_divide,
    ew.RemainderOp: _remainder,
    ew.FmodOp: _fmod,
    ew.PowOp: _pow,
    ew.MaximumOp: _by_kind(float=arith.MaximumfOp, signed=arith.MaxSIOp, unsigned=arith.MaxUIOp),
    ew.MinimumOp: _by_kind(float=arith.MinimumfOp, signed=arith.MinSIOp, unsigned=arith.MinUIOp),
    ew.FmaxOp: _by_kind(float=arith.MaxnumfOp),
    ew.FminOp: _by_kind(float=arith.MinnumfOp),
    ew.Arctan2Op: _by_kind(float=math.Atan2Op),
    ew.HypotOp: _hypot,
    ew.CopysignOp: _by_kind(float=math.CopySignOp),
    ew.BitwiseAndOp: _by_kind(int=arith.AndIOp),
    ew.BitwiseOrOp: _by_kind(int=arith.OrIOp),
    ew.BitwiseXorOp: _by_kind(int=arith.XOrIOp),
    ew.LeftShiftOp: _left_shift,
    ew.RightShiftOp: _right_shift,
}


def emit_scalar(
    builder: Builder, op_type: type[Operation], args: Sequence[SSAValue], element: Attribute
) -> SSAValue:
    """The scalar form of element-wise `op_type` on `args` of tensor element `element`.

    float16 is computed in float32 and rounded once at the end, as NumPy's half loops do.
    """
    if is_complex(element):
        return complex_semantics.emit_complex(builder, op_type, args, element)
    if element != f16:
        return SCALAR_OPS[op_type](builder, args, element)
    wide = [_op(builder, arith.ExtFOp(a, f32)) for a in args]
    return _op(builder, arith.TruncFOp(SCALAR_OPS[op_type](builder, wide, f32), f16))


# Comparison predicates by element kind; float `ne` is unordered (NaN != x is true).
_COMPARE_PREDICATES = {
    "float": {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"},
    "signed": {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"},
    "unsigned": {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"},
}
_COMPARE_PREDICATES["bool"] = _COMPARE_PREDICATES["unsigned"]  # False < True


def emit_compare(
    builder: Builder, predicate: str, a: SSAValue, b: SSAValue, element: Attribute
) -> SSAValue:
    """`a <predicate> b` (tj.compare's eq/ne/lt/le/gt/ge) as an i1."""
    if is_complex(element):
        return complex_semantics.compare(builder, predicate, a, b)
    return _cmp(builder, _COMPARE_PREDICATES[element_kind(element)][predicate], a, b)


def emit_select(builder: Builder, condition: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    return _select(builder, condition, a, b)


def emit_cast(builder: Builder, x: SSAValue, source: Attribute, target: Attribute) -> SSAValue:
    """NumPy `astype` of one element from tensor element type `source` to `target`."""
    if source == target:
        return x
    if is_complex(source) or is_complex(target):
        return _complex_cast(builder, x, source, target)
    src, dst = element_kind(source), element_kind(target)
    arith_target = signless(target)
    if dst == "bool":  # x != 0
        zero = constant(builder, 0, source)
        if src == "float":
            return _op(builder, arith.CmpfOp(x, zero, "une"))
        return _op(builder, arith.CmpiOp(x, zero, "ne"))
    if src == "float" and dst == "float":
        if (source, target) == (f64, f16):
            return _f64_to_f16(builder, x)
        wider = arith_target.bitwidth > signless(source).bitwidth  # type: ignore[attr-defined]  # integer types
        return _op(builder, (arith.ExtFOp if wider else arith.TruncFOp)(x, arith_target))
    if src == "float":
        return _float_to_int(builder, x, arith_target, dst)
    if dst == "float":
        cast = arith.SIToFPOp if src == "signed" else arith.UIToFPOp
        assert is_float(arith_target)
        return _op(builder, cast(x, arith_target))
    return _int_resize(builder, x, src, signless(source), arith_target)


def _complex_cast(builder: Builder, x: SSAValue, source: Attribute, target: Attribute):
    """Casts from or to complex, part by part: a real value is the real part (imaginary
    part 0); complex -> bool is `re != 0 or im != 0`; complex -> any other real type
    keeps the real part (NumPy also warns, `ComplexWarning`, when tracing does)."""
    if isinstance(target, ComplexType) and not is_complex(source):
        re = emit_cast(builder, x, source, target.element_type)
        zero = constant(builder, 0.0, target.element_type)
        return complex_semantics.pack(builder, (re, zero), target)
    part_type = component_type(source)
    if not isinstance(target, ComplexType) and element_kind(target) != "bool":
        return emit_cast(builder, complex_semantics.real_part(builder, x), part_type, target)
    re, im = complex_semantics.split(builder, x)
    if isinstance(target, ComplexType):
        parts = [emit_cast(builder, p, part_type, target.element_type) for p in (re, im)]
        return complex_semantics.pack(builder, (parts[0], parts[1]), target)
    nonzero = [emit_cast(builder, p, part_type, target) for p in (re, im)]
    return _op(builder, arith.OrIOp(nonzero[0], nonzero[1]))


def _f64_to_f16(builder: Builder, x: SSAValue) -> SSAValue:
    """Correctly rounded f64 -> f16 through f32 (x86 has no direct instruction, and LLVM's
    libcall __truncdfhf2 is not resolvable by MCJIT). The f32 step rounds to odd (toward
    zero, then set the last bit if inexact), so the second rounding cannot double-round."""
    narrow = _op(builder, arith.TruncFOp(x, f32))
    back = _op(builder, arith.ExtFOp(narrow, f64))
    bits = _op(builder, arith.BitcastOp(narrow, i32))
    rounded_up = _cmp(builder, "ogt", _op(builder, math.AbsFOp(back)), _op(builder, math.AbsFOp(x)))
    one = constant(builder, 1, i32)
    bits = _select(builder, rounded_up, _op(builder, arith.SubiOp(bits, one)), bits)
    inexact = _cmp(builder, "one", back, x)
    bits = _select(builder, inexact, _op(builder, arith.OrIOp(bits, one)), bits)
    odd = _op(builder, arith.BitcastOp(bits, f32))
    return _op(builder, arith.TruncFOp(odd, f16))


def _float_to_int(builder: Builder, x: SSAValue, target: Attribute, dst: str) -> SSAValue:
    # As NumPy on x86-64: narrow types convert through a signed i32 (uint32 through i64)
    # and wrap, e.g. -1.0 -> uint8 is 255 and 300.0 -> int8 is 44; negatives wrap into
    # uint64. NaN, inf and values beyond those ranges are unspecified (LLVM poison).
    assert isinstance(target, IntegerType)
    width = _width(target)
    if width == 64 and dst == "unsigned":  # negatives wrap, as NumPy's
        negative = _cmp(builder, "olt", x, constant(builder, 0.0, x.type))
        wrapped = _op(builder, arith.FPToSIOp(x, target))
        return _select(builder, negative, wrapped, _op(builder, arith.FPToUIOp(x, target)))
    if width == 64:
        return _op(builder, arith.FPToSIOp(x, target))
    through = i64 if (dst, width) == ("unsigned", 32) else i32
    wide = _op(builder, arith.FPToSIOp(x, through))
    return wide if through == target else _op(builder, arith.TruncIOp(wide, target))


def _int_resize(
    builder: Builder, x: SSAValue, src: str, source: Attribute, target: Attribute
) -> SSAValue:
    assert isinstance(source, IntegerType) and isinstance(target, IntegerType)
    from_width, to_width = source.width.data, target.width.data
    if from_width == to_width:
        return x
    if from_width > to_width:
        return _op(builder, arith.TruncIOp(x, target))
    extend = arith.ExtSIOp if src == "signed" else arith.ExtUIOp
    return _op(builder, extend(x, target))


# --- the scalar form of a tj op ----------------------------------------------------------
# (builder, op, the scalars of its operands) -> the scalar of its result
OpForm = Callable[[Builder, Operation, Sequence[SSAValue]], SSAValue]


def _elementwise_form(b: Builder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    return emit_scalar(b, type(op), args, element_of(op.operands[0]))


def _pow_form(b: Builder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    """pow(); a pow marked `one_exponent` is NumPy's float loop for one exponent, which
    takes the exponents 0.5, -1 and 2 as sqrt(x), 1 / x and x * x (ir/elementwise_binary.py)."""
    assert isinstance(op, ew.PowOp)
    element = element_of(op.lhs)
    result = emit_scalar(b, ew.PowOp, args, element)
    if op.one_exponent is None:
        return result
    x, y = args
    shortcuts = {
        0.5: lambda: emit_scalar(b, ew.SqrtOp, [x], element),
        -1.0: lambda: emit_scalar(b, ew.DivOp, [constant(b, 1.0, element), x], element),
        2.0: lambda: emit_scalar(b, ew.MulOp, [x, x], element),
    }
    for exponent, shortcut in shortcuts.items():
        at = _cmp(b, "oeq", y, constant(b, exponent, element))
        result = _select(b, at, shortcut(), result)
    return result


def _cast_form(b: Builder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    assert isinstance(op, ew.CastOp)
    return emit_cast(b, args[0], element_of(op.input), element_of(op.result))


def _compare_form(b: Builder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    assert isinstance(op, ew.CompareOp)
    return emit_compare(b, op.predicate.data, args[0], args[1], element_of(op.lhs))


def _real_form(b: Builder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    return complex_semantics.real_part(b, args[0])


def _imag_form(b: Builder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    return complex_semantics.imag_part(b, args[0])


def _select_form(b: Builder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    return emit_select(b, *args)


def _splat_form(b: Builder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    assert isinstance(op, ConstantOp)
    value = op.splat()
    assert value is not None, "only a splat constant has a scalar form"
    return constant(b, value.item(), element_of(op.result))


OP_FORMS: dict[type[Operation], OpForm] = {
    **{op_type: _elementwise_form for op_type in (*ew.UNARY_OPS, *ew.BINARY_OPS)},
    ew.PowOp: _pow_form,
    ew.CastOp: _cast_form,
    ew.CompareOp: _compare_form,
    ew.SelectOp: _select_form,
    ew.RealOp: _real_form,
    ew.ImagOp: _imag_form,
    ew.ConjOp: _elementwise_form,
    ew.ReciprocalOp: _elementwise_form,
    ConstantOp: _splat_form,
}


def emit_op(builder: Builder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    """The scalar form of `op`, an element-wise `tj` op or a splat `tj.constant`, on the
    scalars `args` of its operands. The op's own buffer form and a `tj.fused` body both
    emit it, so a fused and an unfused op compute the same."""
    return OP_FORMS[type(op)](builder, op, args)


# --- reductions ---------------------------------------------------------------------------
REDUCTION_COMBINERS: dict[str, Emitter] = {
    "sum": _by_kind(float=arith.AddfOp, int=arith.AddiOp),
    "prod": _by_kind(float=arith.MulfOp, int=arith.MuliOp),
    "max": SCALAR_OPS[ew.MaximumOp],
    "min": SCALAR_OPS[ew.MinimumOp],
    "any": _by_kind(int=arith.OrIOp),
    "all": _by_kind(int=arith.AndIOp),
}


def reduction_identity(kind: str, element: Attribute) -> float | int:
    """The starting value of a reduction (NumPy's identity, or the extreme value)."""
    if kind == "sum":
        return 0
    if kind in ("prod", "all"):
        return 1
    if kind == "any":
        return 0
    if is_float(element):
        return float("-inf") if kind == "max" else float("inf")
    assert isinstance(element, IntegerType)
    width = element.width.data
    if is_unsigned(element):
        return 0 if kind == "max" else (1 << width) - 1
    return -(1 << (width - 1)) if kind == "max" else (1 << (width - 1)) - 1


def emit_combiner(
    builder: Builder, kind: str, acc: SSAValue, x: SSAValue, element: Attribute
) -> SSAValue:
    """`acc <kind> x`; float sums and products may be reassociated (so they vectorise),
    and so may the part sums of a complex sum (a complex product is left in order)."""
    if is_complex(element):
        if kind == "sum":
            return complex_semantics.sum_combiner(builder, acc, x, REASSOC)
        return emit_scalar(builder, ew.MulOp, [acc, x], element)
    result = REDUCTION_COMBINERS[kind](builder, [acc, x], element)
    owner = result.owner
    if is_float(element) and kind in ("sum", "prod") and isinstance(owner, Operation):
        owner.properties["fastmath"] = REASSOC
    return result
