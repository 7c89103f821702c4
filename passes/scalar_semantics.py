"""What each element-wise `tj` op computes on one element, in `arith` and `math`.

The lowering passes build loop bodies from this table: `bufferize` puts the scalar
form of an op into a `linalg.generic` body. Ops are chosen by the NumPy dtype of the
tensor (float / signed / unsigned), because `arith` integers are signless: an
unsigned `ui8` tensor becomes `i8` buffers with the unsigned arith ops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
)
from xdsl.dialects.utils import FastMathFlag
from xdsl.ir import Attribute, Operation, SSAValue

from tracejit.ir import elementwise as ew
from tracejit.ir.dtypes import is_bool, is_float, is_unsigned

Emitter = Callable[[Builder, Sequence[SSAValue], Attribute], SSAValue]

REASSOC = arith.FastMathFlagsAttr([FastMathFlag.REASSOC])
REASSOC_CONTRACT = arith.FastMathFlagsAttr([FastMathFlag.REASSOC, FastMathFlag.ALLOW_CONTRACT])


def signless(element: Attribute) -> Attribute:
    """The arith type of a tensor element type (`ui8` -> `i8`)."""
    if isinstance(element, IntegerType) and element.signedness.data != Signedness.SIGNLESS:
        return IntegerType(element.width.data)
    return element


def _kind(element: Attribute) -> str:
    if is_float(element):
        return "float"
    if is_bool(element):
        return "bool"
    return "unsigned" if is_unsigned(element) else "signed"


def _op(builder: Builder, op: Operation) -> SSAValue:
    return builder.insert(op).results[0]


def _by_kind(**ops: type[Operation]) -> Emitter:
    """An emitter that picks the op class by element kind (float/signed/unsigned)."""

    def emit(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
        kind = _kind(element)
        op_type = ops.get(kind) or ops["int"]
        return _op(builder, op_type(*args))

    return emit


def constant(builder: Builder, value: float | int | bool, element: Attribute) -> SSAValue:
    """An `arith.constant` of `value` in the arith form of `element`."""
    element = signless(element)
    if isinstance(element, AnyFloat):
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


def _pow(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
    if is_float(element):
        return _op(builder, math.PowFOp(*args))
    return _op(builder, math.IPowIOp(*args))


SCALAR_OPS: dict[type[Operation], Emitter] = {
    ew.NegOp: _neg,
    ew.AbsOp: _abs,
    ew.ExpOp: _by_kind(float=math.ExpOp),
    ew.LogOp: _by_kind(float=math.LogOp),
    ew.TanhOp: _by_kind(float=math.TanhOp),
    ew.SqrtOp: _by_kind(float=math.SqrtOp),
    ew.AddOp: _by_kind(float=arith.AddfOp, int=arith.AddiOp),
    ew.SubOp: _by_kind(float=arith.SubfOp, int=arith.SubiOp),
    ew.MulOp: _by_kind(float=arith.MulfOp, int=arith.MuliOp),
    ew.DivOp: _by_kind(float=arith.DivfOp),
    ew.PowOp: _pow,
    ew.MaximumOp: _by_kind(float=arith.MaximumfOp, signed=arith.MaxSIOp, unsigned=arith.MaxUIOp),
    ew.MinimumOp: _by_kind(float=arith.MinimumfOp, signed=arith.MinSIOp, unsigned=arith.MinUIOp),
}


def emit_scalar(
    builder: Builder, op_type: type[Operation], args: Sequence[SSAValue], element: Attribute
) -> SSAValue:
    """The scalar form of element-wise `op_type` on `args` of tensor element `element`."""
    return SCALAR_OPS[op_type](builder, args, element)


def emit_cast(builder: Builder, x: SSAValue, source: Attribute, target: Attribute) -> SSAValue:
    """NumPy `astype` of one element from tensor element type `source` to `target`."""
    src, dst = _kind(source), _kind(target)
    arith_target = signless(target)
    if source == target:
        return x
    if dst == "bool":  # x != 0
        zero = constant(builder, 0, source)
        if src == "float":
            return _op(builder, arith.CmpfOp(x, zero, "une"))
        return _op(builder, arith.CmpiOp(x, zero, "ne"))
    if src == "float" and dst == "float":
        wider = arith_target.bitwidth > signless(source).bitwidth  # type: ignore[attr-defined]
        return _op(builder, (arith.ExtFOp if wider else arith.TruncFOp)(x, arith_target))
    if src == "float":
        cast = arith.FPToUIOp if dst == "unsigned" else arith.FPToSIOp
        return _op(builder, cast(x, arith_target))
    if dst == "float":
        cast = arith.SIToFPOp if src == "signed" else arith.UIToFPOp
        return _op(builder, cast(x, arith_target))
    return _int_resize(builder, x, src, signless(source), arith_target)


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


REDUCTION_COMBINERS: dict[str, Emitter] = {
    "sum": _by_kind(float=arith.AddfOp, int=arith.AddiOp),
    "prod": _by_kind(float=arith.MulfOp, int=arith.MuliOp),
    "max": SCALAR_OPS[ew.MaximumOp],
    "min": SCALAR_OPS[ew.MinimumOp],
}


def reduction_identity(kind: str, element: Attribute) -> float | int:
    """The starting value of a reduction (NumPy's identity, or the extreme value)."""
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
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
    """`acc <kind> x`; float sums and products may be reassociated (so they vectorise)."""
    result = REDUCTION_COMBINERS[kind](builder, [acc, x], element)
    owner = result.owner
    if is_float(element) and kind in ("sum", "prod") and isinstance(owner, Operation):
        owner.properties["fastmath"] = REASSOC
    return result
