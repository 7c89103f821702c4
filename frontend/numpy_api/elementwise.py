"""Element-wise NumPy: ufuncs (operators included), `np.where`, `np.clip`, `np.round`
and `np.astype`, staged as `tj` element-wise ops.

A ufunc call is staged in three steps:
1. NumPy resolves the loop dtypes (`promotion.loop_dtypes`: NEP 50, weak Python scalars);
2. the operands are converted to the loop's input dtypes and broadcast to one shape;
3. the ufunc's rule in `UFUNC_RULES` emits the op(s) for that loop.

A rule is one op, or a composition of ops where NumPy's function is one (`square` is
`x * x`, `logical_and` is `&` on bools, `isnan` is `x != x`), or picks an op by the
loop's element kind where NumPy does (`+` on bools is `|`, `floor` of an int is the int).
Adding a ufunc is one entry in `UFUNC_RULES` (plus, for a new op, its scalar lowering in
`passes/support/scalar_semantics.py`). The ufuncs with two results (`divmod`, `modf`,
`frexp`) are registered beside the table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from tracejit.frontend.numpy_api.construction import array_of, contains_tensor
from tracejit.frontend.numpy_api.nonzero import where_one_argument
from tracejit.frontend.numpy_api.power import power
from tracejit.frontend.numpy_api.promotion import (
    as_tensor,
    broadcast_all,
    loop_dtypes,
    weak_result_type,
    weak_type,
)
from tracejit.frontend.numpy_api.registry import SCIPY_SPECIAL_UFUNCS, implements, unsupported
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.primitives import full_like
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.trace_warnings import warn_at_user_line
from tracejit.frontend.staging.views import follow_order
from tracejit.ir import elementwise as ew

# A rule stages a ufunc on operands already converted to its loop dtypes and broadcast.
Rule = Callable[..., Tensor]


def op(op_type: type[ew.ElementwiseUnaryOp] | type[ew.ElementwiseBinaryOp]) -> Rule:
    """The rule emitting `op_type` itself."""
    if issubclass(op_type, ew.ElementwiseUnaryOp):
        return lambda x: primitives.unary(op_type, x)
    return lambda x, y: primitives.binary(op_type, x, y)


def by_kind(
    default: Rule,
    *,
    bool: Rule | None = None,
    int: Rule | None = None,
    complex: Rule | None = None,
) -> Rule:
    """A rule choosing by the loop's element kind: bool, int (signed or unsigned), complex,
    or default."""

    def rule(*operands: Tensor) -> Tensor:
        kind = operands[0].dtype.kind
        if kind == "b" and bool is not None:
            return bool(*operands)
        if kind in "iu" and int is not None:
            return int(*operands)
        if kind == "c" and complex is not None:
            return complex(*operands)
        return default(*operands)

    return rule


def identity(x: Tensor) -> Tensor:
    return x


def compare(predicate: str) -> Rule:
    return lambda x, y: primitives.compare(predicate, x, y)


def truth(x: Tensor) -> Tensor:
    """`x != 0` (NaN is true), the operand NumPy's logical functions see."""
    return primitives.cast(x, np.dtype(np.bool_))


def logical(op_type: type[ew.ElementwiseBinaryOp]) -> Rule:
    return lambda x, y: primitives.binary(op_type, truth(x), truth(y))


def constant_fill(value: bool) -> Rule:
    return lambda x: full_like(value, x, np.dtype(np.bool_))


def _abs_compare(predicate: str) -> Rule:
    """|x| <predicate> inf: isinf is `==`, isfinite is `<` (false for NaN)."""
    return lambda x: primitives.compare(
        predicate, primitives.unary(ew.AbsOp, x), full_like(np.inf, x)
    )


def _int_reciprocal(x: Tensor) -> Tensor:
    # C's 1 / x: 1 and -1 are their own reciprocals, other non-zero x give 0; for x == 0
    # NumPy gives what the platform gives (0, or INT_MIN for int32/int64 on x86): ask it.
    with np.errstate(all="ignore"):
        at_zero = np.reciprocal(np.zeros((), x.dtype))
    zero = full_like(0, x)
    result = primitives.select(primitives.compare("eq", x, zero), full_like(at_zero, x), zero)
    units = (1, -1) if x.dtype.kind == "i" else (1,)
    for unit in units:
        result = primitives.select(primitives.compare("eq", x, full_like(unit, x)), x, result)
    return result


_OR, _AND = op(ew.BitwiseOrOp), op(ew.BitwiseAndOp)


# --- complex loops: composed from the parts (ir/complex_parts.py) -----------------------
def _complex_abs(z: Tensor) -> Tensor:
    """|z| = hypot(re, im), as NumPy's npy_cabs: no overflow for huge parts."""
    return primitives.binary(ew.HypotOp, primitives.real(z), primitives.imag(z))


def _on_parts(rule: Rule, combine: type[ew.ElementwiseBinaryOp]) -> Rule:
    """A classification of complex numbers from that of the parts (`isnan(z)` is
    `isnan(re) | isnan(im)`)."""
    return lambda z: primitives.binary(combine, rule(primitives.real(z)), rule(primitives.imag(z)))


def _is_nan(x: Tensor) -> Tensor:
    return primitives.compare("ne", x, x)


def _complex_extremum(predicate: str, nan_wins: int) -> Rule:
    """NumPy's complex maximum/minimum (predicate ge/le) and fmax/fmin: the first operand
    where it compares `predicate` (lexicographically, tj.compare) to the second or where
    operand `nan_wins` (0: the first, propagating NaN; 1: the second, ignoring it) has a
    NaN part, else the second."""

    def rule(x: Tensor, y: Tensor) -> Tensor:
        nan = _on_parts(_is_nan, ew.BitwiseOrOp)((x, y)[nan_wins])
        keep = primitives.binary(ew.BitwiseOrOp, nan, primitives.compare(predicate, x, y))
        return primitives.select(keep, x, y)

    return rule


# --- logaddexp, logaddexp2, heaviside: NumPy's npy_math formulas -------------------------
def _in_float32(rule: Rule) -> Rule:
    """float16 loops computed in float32 and rounded once, as NumPy's (`astype={'e': 'f'}`)."""

    def wrapped(*operands: Tensor) -> Tensor:
        dtype = operands[0].dtype
        if dtype != np.float16:
            return rule(*operands)
        wide = [primitives.cast(x, np.dtype(np.float32)) for x in operands]
        return primitives.cast(rule(*wide), dtype)

    return wrapped


def _log_add_exp(exp: type[ew.ElementwiseUnaryOp], log2: bool) -> Rule:
    """NumPy's npy_logaddexp (npy_logaddexp2 for `log2`): x + log1p(exp(-(x - y))) for the
    larger x (log2 scales log1p by 1/ln 2), x + log(2) (x + 1) where x == y (equal infinities
    too), NaN where either is NaN."""

    def rule(x: Tensor, y: Tensor) -> Tensor:
        difference = primitives.binary(ew.SubOp, x, y)
        larger = primitives.select(primitives.compare("gt", difference, full_like(0, x)), x, y)
        negative = primitives.unary(ew.NegOp, primitives.unary(ew.AbsOp, difference))
        correction = primitives.unary(ew.Log1pOp, primitives.unary(exp, negative))
        if log2:
            correction = primitives.binary(ew.MulOp, full_like(np.log2(np.e), x), correction)
        result = primitives.binary(ew.AddOp, larger, correction)  # NaN difference: NaN
        step = full_like(1.0 if log2 else np.log(2.0), x)
        equal = primitives.compare("eq", x, y)
        return primitives.select(equal, primitives.binary(ew.AddOp, x, step), result)

    return _in_float32(rule)


def _heaviside(x: Tensor, h0: Tensor) -> Tensor:
    """0 below zero, 1 above, `h0` at zero, NaN for NaN `x` (npy_heaviside)."""
    zero = full_like(0, x)
    result = primitives.select(primitives.compare("eq", x, zero), h0, x)  # NaN stays NaN
    result = primitives.select(primitives.compare("gt", x, zero), full_like(1, x), result)
    return primitives.select(primitives.compare("lt", x, zero), zero, result)


def _signbit(x: Tensor) -> Tensor:
    """The sign bit (NumPy's loops are float only: integers come in as float64): set for
    -0.0 and for a negative NaN, which `x < 0` would miss; read as copysign(1, x) < 0."""
    one = primitives.binary(ew.CopysignOp, full_like(1, x), x)
    return primitives.compare("lt", one, full_like(0, x))


# --- gcd, lcm: Euclid's algorithm in a staged loop ---------------------------------------
def _unsigned_magnitude(x: Tensor) -> Tensor:
    """|x| in the unsigned dtype of x's width (NumPy's npy_gcd: |INT_MIN| is 2**(bits-1))."""
    if x.dtype.kind == "u":
        return x
    magnitude = primitives.unary(ew.AbsOp, x)  # wraps for the most negative value
    return primitives.cast(magnitude, np.dtype(f"u{x.dtype.itemsize}"))


def _gcd_unsigned(a: Tensor, b: Tensor) -> Tensor:
    """NumPy's npy_gcdu: `while a != 0: a, b = b % a, a`, element by element, as one staged
    loop that runs until every element is done (at most ~1.44 * bits steps)."""
    from tracejit.frontend.staging.control_flow import while_loop

    def not_done(a: Tensor, b: Tensor) -> Tensor:
        return primitives.reduce("any", primitives.compare("ne", a, full_like(0, a)), range(a.ndim))

    def step(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        zero = full_like(0, a)
        active = primitives.compare("ne", a, zero)
        divisor = primitives.select(active, a, full_like(1, a))
        remainder = primitives.binary(ew.RemainderOp, b, divisor)
        return primitives.select(active, remainder, zero), primitives.select(active, a, b)

    _, result = while_loop(not_done, step, (a, b))
    return result


def _gcd(x: Tensor, y: Tensor) -> Tensor:
    a, b = _unsigned_magnitude(x), _unsigned_magnitude(y)
    return primitives.cast(_gcd_unsigned(a, b), x.dtype)


def _lcm(x: Tensor, y: Tensor) -> Tensor:
    """NumPy's npy_lcmu: 0 where the gcd is 0, else |x| / gcd * |y| (wrapping as NumPy's)."""
    a, b = _unsigned_magnitude(x), _unsigned_magnitude(y)
    divisor = _gcd_unsigned(a, b)
    zero = full_like(0, divisor)
    is_zero = primitives.compare("eq", divisor, zero)
    safe = primitives.select(is_zero, full_like(1, divisor), divisor)
    quotient = primitives.binary(ew.FloorDivideOp, a, safe)
    product = primitives.binary(ew.MulOp, quotient, b)
    return primitives.cast(primitives.select(is_zero, zero, product), x.dtype)


# --- deg2rad, rad2deg: NumPy's npy_deg2rad / npy_rad2deg --------------------------------
def _times_ratio(numerator: float, denominator: float) -> Rule:
    """x * (numerator / denominator), the ratio rounded in the loop dtype as NumPy's
    `x * (NPY_PI / 180.0)` (`NPY_PIf / 180.0f` for float32); float16 loops in float32."""

    def rule(x: Tensor) -> Tensor:
        scalar = x.dtype.type
        ratio = scalar(numerator) / scalar(denominator)
        return primitives.binary(ew.MulOp, x, full_like(ratio, x))

    return _in_float32(rule)


# --- the parts of floats: frexp, ldexp, nextafter, spacing -------------------------------
# Without reading bits (tj has no bitcast): multiplications by powers of two and sums of a
# float and a unit in its last place, which are exact, and one final rounding where C's
# function rounds (ldexp to a subnormal).
def _mul(x: Tensor, y: Tensor) -> Tensor:
    return primitives.binary(ew.MulOp, x, y)


def _both(x: Tensor, y: Tensor) -> Tensor:
    return primitives.binary(ew.BitwiseAndOp, x, y)


def _wide(dtype: np.dtype) -> np.dtype:
    """The dtype a float loop computes in: float32 for float16 (every float16 is a normal
    float32; the results are float16 values, exact in float32), else the loop's."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _ordinary(a: Tensor) -> Tensor:
    """0 < a < inf for a = |x| (false for 0, inf and NaN)."""
    finite = primitives.compare("lt", a, full_like(np.inf, a))
    return _both(finite, primitives.compare("gt", a, full_like(0, a)))


def _binade(a: Tensor, exponent: bool = False) -> tuple[Tensor, Tensor | None]:
    """(P, E) with P = 2**E <= a < 2 * P for positive finite `a`, exactly (E, an int32, only
    if `exponent`). Veltkamp's split rounds `a` to one significant bit: with
    c = a * (2**p + 1), c - (c - a) is P or 2 * P (halved if above `a`); `a` is first scaled
    by 2**-(p + 2) near overflow and by 2**(p + 2) below the normal range (and P back).
    E is rint(log2(P)) of the scaled P, exact for any log2 within 1/2 of the truth."""
    info = np.finfo(a.dtype)
    p, k = info.nmant, info.nmant + 2
    big = primitives.compare("ge", a, full_like(2.0 ** (info.maxexp - k), a))
    small = primitives.compare("lt", a, full_like(2.0 ** (info.minexp + k), a))
    one = full_like(1, a)
    factor = primitives.select(
        big, full_like(2.0**-k, a), primitives.select(small, full_like(2.0**k, a), one)
    )
    scaled = _mul(a, factor)
    c = _mul(scaled, full_like(2.0**p + 1, a))
    rounded = primitives.binary(ew.SubOp, c, primitives.binary(ew.SubOp, c, scaled))
    above = primitives.compare("gt", rounded, scaled)
    power = primitives.select(above, _mul(rounded, full_like(0.5, a)), rounded)
    result = primitives.binary(ew.DivOp, power, factor)
    if not exponent:
        return result, None
    zero = full_like(0, a)
    shift = primitives.select(
        big, full_like(k, a), primitives.select(small, full_like(-k, a), zero)
    )
    log2 = primitives.binary(ew.AddOp, primitives.unary(ew.Log2Op, power), shift)
    return result, primitives.cast(primitives.unary(ew.RintOp, log2), np.dtype(np.int32))


def _units_in_last_place(a: Tensor, target: np.dtype) -> tuple[Tensor, Tensor]:
    """The distances from positive finite `a` (in `_wide(target)`) to its neighbours in
    `target`: (away from zero, toward zero), which is half the first at a power of two
    above the smallest normal number."""
    info = np.finfo(target)
    power, _ = _binade(a)
    unit = _mul(power, full_like(2.0**-info.nmant, a))  # rounds to 0 for subnormal `a`
    away = primitives.binary(ew.MaximumOp, unit, full_like(info.smallest_subnormal, a))
    binade_bottom = _both(
        primitives.compare("eq", a, power),
        primitives.compare("gt", a, full_like(info.smallest_normal, a)),
    )
    toward = primitives.select(binade_bottom, _mul(away, full_like(0.5, a)), away)
    return away, toward


def _frexp(x: Tensor) -> tuple[Tensor, Tensor]:
    """(m, e) with x = m * 2**e, 0.5 <= |m| < 1 and m of x's sign; (x, 0) for 0, inf, NaN."""
    wide = primitives.cast(x, _wide(x.dtype))
    a = primitives.unary(ew.AbsOp, wide)
    ordinary = _ordinary(a)
    safe = primitives.select(ordinary, a, full_like(1, a))
    power, exponent = _binade(safe, exponent=True)
    assert exponent is not None
    fraction = _mul(primitives.binary(ew.DivOp, safe, power), full_like(0.5, a))  # exact
    mantissa = primitives.binary(ew.CopysignOp, fraction, wide)
    mantissa = primitives.cast(primitives.select(ordinary, mantissa, wide), x.dtype)
    exponent = primitives.binary(ew.AddOp, exponent, full_like(1, exponent))
    return mantissa, primitives.select(ordinary, exponent, full_like(0, exponent))


def _clamped(n: Tensor, low: int, high: int) -> Tensor:
    """An integer tensor clamped to [low, high], as int32."""
    n = primitives.binary(ew.MinimumOp, n, full_like(high, n))
    n = primitives.binary(ew.MaximumOp, n, full_like(low, n))
    return primitives.cast(n, np.dtype(np.int32))


def _power_of_two(n: Tensor, dtype: np.dtype, limit: int) -> Tensor:
    """2**n in `dtype`, exactly, for int32 |n| <= limit with 2**n representable: with
    n = 2**s * q + r (q = n >> s, |q| <= 62, 0 <= r < 2**s), 2**|q| is the integer 1 << |q|
    (exact as a float), inverted for q < 0, squared s times, times 1 << r."""
    squarings = next(s for s in range(16) if -(-limit >> s) <= 62)
    n = primitives.cast(n, np.dtype(np.int64))
    one = full_like(1, n)

    def integer_power(exponent: Tensor) -> Tensor:
        return primitives.cast(primitives.binary(ew.LeftShiftOp, one, exponent), dtype)

    q = primitives.binary(ew.RightShiftOp, n, full_like(squarings, n))  # floor(n / 2**s)
    scale = integer_power(primitives.unary(ew.AbsOp, q))
    inverse = primitives.binary(ew.DivOp, full_like(1, scale), scale)
    scale = primitives.select(primitives.compare("lt", q, full_like(0, q)), inverse, scale)
    for _ in range(squarings):
        scale = _mul(scale, scale)
    if squarings:
        r = _both(n, full_like((1 << squarings) - 1, n))
        scale = _mul(scale, integer_power(r))
    return scale


def _ldexp(x: Tensor, i: Tensor) -> Tensor:
    """x * 2**i, rounded once as C's ldexp (subnormal results, overflow to inf, any i).
    float16 and float32 compute in float32 and float64, where the product is exact, then
    round once to the loop dtype (NumPy's float16 loop computes in float32 too); |i| is
    clamped where every nonzero x gives 0 or inf. float64 splits x into m * 2**e
    (1 <= m < 2) and multiplies m by 2**(e + i), or, for a subnormal result, by
    2**(e + i + 64) (exact, normal) and then by 2**-64 (the one rounding)."""
    if x.dtype != np.float64:
        wide, limit = (np.float32, 48) if x.dtype == np.float16 else (np.float64, 400)
        power = _power_of_two(_clamped(i, -limit, limit), np.dtype(wide), limit)
        return primitives.cast(_mul(primitives.cast(x, np.dtype(wide)), power), x.dtype)
    info = np.finfo(x.dtype)
    lowest = info.minexp - info.nmant - 6  # m * 2**lowest rounds to 0
    a = primitives.unary(ew.AbsOp, x)
    ordinary = _ordinary(a)
    safe = primitives.select(ordinary, a, full_like(1, a))
    binade, e = _binade(safe, exponent=True)
    assert e is not None
    m = primitives.binary(ew.DivOp, safe, binade)  # exact
    k = _clamped(i, lowest - info.maxexp, info.maxexp - lowest)  # e + k spans [lowest, maxexp]
    n = _clamped(primitives.binary(ew.AddOp, e, k), lowest, info.maxexp)
    subnormal = primitives.compare("lt", n, full_like(info.minexp, n))
    lifted = primitives.select(subnormal, full_like(63, n), full_like(-1, n))
    power = _power_of_two(primitives.binary(ew.AddOp, n, lifted), x.dtype, info.maxexp - 1)
    exact = _mul(_mul(m, full_like(2, m)), power)  # m * 2**n (* 2**64): exact, or inf
    lift = primitives.select(subnormal, full_like(2.0**-64, m), full_like(1, m))
    result = primitives.binary(ew.CopysignOp, _mul(exact, lift), x)
    return primitives.select(ordinary, result, x)


def _nextafter(x: Tensor, y: Tensor) -> Tensor:
    """The neighbour of x toward y (C's nextafter): x +- a unit in the last place (exact;
    the largest number steps to inf), +-the smallest subnormal from 0 (y's sign), the
    largest number from inf, y where x == y (x in NumPy's float16 loop), NaN for NaN."""
    target = x.dtype
    info = np.finfo(target)
    x, y = primitives.cast(x, _wide(target)), primitives.cast(y, _wide(target))
    a = primitives.unary(ew.AbsOp, x)
    ordinary = _ordinary(a)
    away, toward = _units_in_last_place(primitives.select(ordinary, a, full_like(1, a)), target)
    up = primitives.compare("gt", y, x)
    outward = primitives.binary(ew.BitwiseXorOp, up, primitives.compare("lt", x, full_like(0, x)))
    step = primitives.select(outward, away, toward)
    step = primitives.select(up, step, primitives.unary(ew.NegOp, step))
    # one step never crosses zero: -smallest_subnormal steps to -0.0
    moved = primitives.binary(ew.CopysignOp, primitives.binary(ew.AddOp, x, step), x)
    largest = primitives.binary(ew.CopysignOp, full_like(info.max, x), x)
    result = primitives.select(ordinary, moved, largest)  # inf: the largest number
    tiniest = primitives.binary(ew.CopysignOp, full_like(info.smallest_subnormal, x), y)
    result = primitives.select(primitives.compare("eq", x, full_like(0, x)), tiniest, result)
    same = x if target == np.float16 else y
    result = primitives.select(primitives.compare("eq", x, y), same, result)
    nan = primitives.binary(ew.BitwiseOrOp, _is_nan(x), _is_nan(y))
    result = primitives.select(nan, primitives.binary(ew.AddOp, x, y), result)
    return primitives.cast(result, target)


def _spacing(x: Tensor) -> Tensor:
    """NumPy's npy_spacing: nextafter(x, copysign(inf, x)) - x (x's sign; the smallest
    subnormal for both zeros, inf for the largest number, NaN for inf and NaN); for
    float16, npy_half_spacing: nextafter(x, inf) - x, never negative."""
    target = x.dtype
    info = np.finfo(target)
    x = primitives.cast(x, _wide(target))
    a = primitives.unary(ew.AbsOp, x)
    ordinary = _ordinary(a)
    away, toward = _units_in_last_place(primitives.select(ordinary, a, full_like(1, a)), target)
    inf = full_like(np.inf, x)
    if target == np.float16:
        negative = primitives.compare("lt", x, full_like(0, x))
        result = primitives.select(negative, toward, away)
        result = primitives.select(primitives.compare("eq", x, full_like(info.max, x)), inf, result)
    else:
        result = primitives.binary(ew.CopysignOp, away, x)
        at_max = primitives.compare("eq", a, full_like(info.max, x))
        result = primitives.select(at_max, primitives.binary(ew.CopysignOp, inf, x), result)
    zero = primitives.compare("eq", a, full_like(0, a))
    result = primitives.select(zero, full_like(info.smallest_subnormal, x), result)
    finite = primitives.compare("lt", a, inf)  # false for inf and NaN
    result = primitives.select(finite, result, full_like(np.nan, x))
    return primitives.cast(result, target)


# --- bitwise_count: the bits of |x| (NumPy's npy_popcount of the absolute value) --------
def _bitwise_count(x: Tensor) -> Tensor:
    """The SWAR population count on |x| in the unsigned dtype of x's width: bits counted in
    pairs, nibbles and bytes, then the bytes summed by a multiplication (bools are int8)."""
    v = _unsigned_magnitude(x)
    width = v.dtype.itemsize

    def bytes_of(byte: int) -> Tensor:
        return full_like(int.from_bytes(bytes([byte]) * width, "little"), v)

    def shifted(t: Tensor, bits: int) -> Tensor:
        return primitives.binary(ew.RightShiftOp, t, full_like(bits, t))

    v = primitives.binary(ew.SubOp, v, _both(shifted(v, 1), bytes_of(0x55)))
    pairs = bytes_of(0x33)
    v = primitives.binary(ew.AddOp, _both(v, pairs), _both(shifted(v, 2), pairs))
    v = _both(primitives.binary(ew.AddOp, v, shifted(v, 4)), bytes_of(0x0F))
    if width > 1:
        v = shifted(_mul(v, bytes_of(0x01)), 8 * (width - 1))
    return primitives.cast(v, np.dtype(np.uint8))


UFUNC_RULES: dict[np.ufunc, Rule] = {
    # arithmetic
    np.add: by_kind(op(ew.AddOp), bool=_OR),
    np.subtract: op(ew.SubOp),
    np.multiply: by_kind(op(ew.MulOp), bool=_AND),
    np.true_divide: op(ew.DivOp),
    np.floor_divide: op(ew.FloorDivideOp),
    np.remainder: op(ew.RemainderOp),
    np.fmod: op(ew.FmodOp),
    np.power: power,
    np.float_power: op(ew.PowOp),  # its loops are float64 only
    np.negative: op(ew.NegOp),
    np.positive: identity,
    np.absolute: by_kind(op(ew.AbsOp), bool=identity, complex=_complex_abs),
    np.fabs: op(ew.AbsOp),
    np.sign: op(ew.SignOp),
    np.conjugate: by_kind(identity, complex=op(ew.ConjOp)),
    np.square: lambda x: primitives.binary(ew.MulOp, x, x),
    np.reciprocal: by_kind(
        lambda x: primitives.binary(ew.DivOp, full_like(1, x), x),
        int=_int_reciprocal,
        complex=op(ew.ReciprocalOp),
    ),
    # exponents, logarithms and roots (float loops only)
    np.exp: op(ew.ExpOp),
    np.expm1: op(ew.Expm1Op),
    np.exp2: op(ew.Exp2Op),
    np.log: op(ew.LogOp),
    np.log1p: op(ew.Log1pOp),
    np.log2: op(ew.Log2Op),
    np.log10: op(ew.Log10Op),
    np.sqrt: op(ew.SqrtOp),
    np.cbrt: op(ew.CbrtOp),
    # trigonometric and hyperbolic
    np.sin: op(ew.SinOp),
    np.cos: op(ew.CosOp),
    np.tan: op(ew.TanOp),
    np.arcsin: op(ew.ArcsinOp),
    np.arccos: op(ew.ArccosOp),
    np.arctan: op(ew.ArctanOp),
    np.arctan2: op(ew.Arctan2Op),
    np.hypot: op(ew.HypotOp),
    np.sinh: op(ew.SinhOp),
    np.cosh: op(ew.CoshOp),
    np.tanh: op(ew.TanhOp),
    np.arcsinh: op(ew.ArcsinhOp),
    np.arccosh: op(ew.ArccoshOp),
    np.arctanh: op(ew.ArctanhOp),
    # rounding (integers and bools are already integral)
    np.floor: by_kind(op(ew.FloorOp), bool=identity, int=identity),
    np.ceil: by_kind(op(ew.CeilOp), bool=identity, int=identity),
    np.trunc: by_kind(op(ew.TruncOp), bool=identity, int=identity),
    np.rint: op(ew.RintOp),
    np.copysign: op(ew.CopysignOp),
    np.signbit: _signbit,
    # logarithms of sums of exponentials, and the step function
    np.logaddexp: _log_add_exp(ew.ExpOp, log2=False),
    np.logaddexp2: _log_add_exp(ew.Exp2Op, log2=True),
    np.heaviside: _heaviside,
    # degrees and radians (np.radians and np.degrees are other ufunc objects, same loops)
    np.deg2rad: _times_ratio(np.pi, 180),
    np.radians: _times_ratio(np.pi, 180),
    np.rad2deg: _times_ratio(180, np.pi),
    np.degrees: _times_ratio(180, np.pi),
    # the parts of floats (np.frexp and np.modf, two results each, are registered below)
    np.ldexp: _ldexp,
    np.nextafter: _nextafter,
    np.spacing: _spacing,
    # integers only (NumPy's loops): Euclid's algorithm
    np.gcd: _gcd,
    np.lcm: _lcm,
    # extrema: on bools max is `or`, min is `and`; fmax/fmin only differ on NaN
    np.maximum: by_kind(op(ew.MaximumOp), bool=_OR, complex=_complex_extremum("ge", 0)),
    np.minimum: by_kind(op(ew.MinimumOp), bool=_AND, complex=_complex_extremum("le", 0)),
    np.fmax: by_kind(
        op(ew.FmaxOp), bool=_OR, int=op(ew.MaximumOp), complex=_complex_extremum("ge", 1)
    ),
    np.fmin: by_kind(
        op(ew.FminOp), bool=_AND, int=op(ew.MinimumOp), complex=_complex_extremum("le", 1)
    ),
    # bits
    np.bitwise_and: _AND,
    np.bitwise_or: _OR,
    np.bitwise_xor: op(ew.BitwiseXorOp),
    np.invert: op(ew.BitwiseNotOp),
    np.left_shift: op(ew.LeftShiftOp),
    np.right_shift: op(ew.RightShiftOp),
    np.bitwise_count: _bitwise_count,
    # logic: on the operands' truth values
    np.logical_and: logical(ew.BitwiseAndOp),
    np.logical_or: logical(ew.BitwiseOrOp),
    np.logical_xor: logical(ew.BitwiseXorOp),
    np.logical_not: lambda x: primitives.unary(ew.BitwiseNotOp, truth(x)),
    # classification (integers are always finite)
    np.isnan: by_kind(
        _is_nan,
        bool=constant_fill(False),
        int=constant_fill(False),
        complex=_on_parts(_is_nan, ew.BitwiseOrOp),
    ),
    np.isinf: by_kind(
        _abs_compare("eq"),
        bool=constant_fill(False),
        int=constant_fill(False),
        complex=_on_parts(_abs_compare("eq"), ew.BitwiseOrOp),
    ),
    np.isfinite: by_kind(
        _abs_compare("lt"),
        bool=constant_fill(True),
        int=constant_fill(True),
        complex=_on_parts(_abs_compare("lt"), ew.BitwiseAndOp),
    ),
    # comparisons
    np.equal: compare("eq"),
    np.not_equal: compare("ne"),
    np.less: compare("lt"),
    np.less_equal: compare("le"),
    np.greater: compare("gt"),
    np.greater_equal: compare("ge"),
}

COMPARISONS = {np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal}


def erf(x: object) -> Tensor:
    """`scipy.special.erf(x)`: libm's erf in the loop's dtype (float32 for float16 and
    small ints, float64 for the others, as SciPy's loops; `math.erf` is autograph's)."""
    import scipy.special

    dtypes = loop_dtypes(scipy.special.erf, (x,))
    if dtypes[0].kind == "c":
        raise TypeError(at_user_line("scipy.special.erf of complex numbers is not supported"))
    return primitives.unary(ew.ErfOp, as_tensor(x, dtypes[0]))


SCIPY_SPECIAL_UFUNCS["erf"] = erf

# The ufuncs staged on complex loops; NumPy has complex loops for more (np.sin, np.log10,
# np.sign, ...), which raise a TypeError naming them instead.
COMPLEX_UFUNCS = {
    np.add, np.subtract, np.multiply, np.true_divide, np.power, np.float_power,
    np.negative, np.positive, np.absolute, np.square, np.reciprocal, np.conjugate,
    np.exp, np.log, np.sqrt, np.maximum, np.minimum, np.fmax, np.fmin,
    np.isnan, np.isinf, np.isfinite, np.logical_and, np.logical_or, np.logical_xor,
    np.logical_not, *COMPARISONS,
}  # fmt: skip
_COMPLEX_NAMES = {f"np.{ufunc.__name__}" for ufunc in COMPLEX_UFUNCS}


def stage_ufunc(ufunc: np.ufunc, *operands: object) -> Tensor:
    """`ufunc(*operands)` as NumPy computes it, staged (see the module docstring)."""
    if ufunc in COMPARISONS:
        folded = _compare_with_huge_int(ufunc, operands)
        if folded is not None:
            return folded
    dtypes = loop_dtypes(ufunc, operands)
    if ufunc not in COMPLEX_UFUNCS and any(d.kind == "c" for d in dtypes):
        raise TypeError(
            at_user_line(
                f"np.{ufunc.__name__} of complex numbers is not supported by tracejit (NumPy "
                "has it); supported on complex: " + ", ".join(sorted(_COMPLEX_NAMES))
            )
        )
    inputs = broadcast_all([as_tensor(x, d) for x, d in zip(operands, dtypes, strict=False)])
    if ufunc in COMPARISONS and dtypes[0] != dtypes[1]:
        return _compare_mixed_sign(ufunc, *inputs)
    weak = _weak_result(ufunc, operands, dtypes[-1])
    if ufunc is np.power:  # NumPy's float loops take shortcuts for a scalar exponent
        base, exponent = inputs
        result = power(base, exponent, one_exponent=not weak and _one_element(operands[1]))
    else:
        result = UFUNC_RULES[ufunc](*inputs)
    assert result.dtype == dtypes[-1], (ufunc, result.dtype, dtypes)
    if result.weak != weak:  # a rule may hand back an operand (`np.positive`, `np.floor`)
        result = Tensor(result.value, result.dims, weak=weak)
    return follow_order(result, operands)


# The ufuncs of Python's arithmetic operators: on weak operands (Python ints and floats, and
# weak tensors standing for them) their result is a Python number in eager code, so it stays
# weak; NumPy functions called on them (np.sqrt(s), np.maximum(s, 1)) return NumPy scalars.
_PYTHON_OPERATORS = {
    np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide, np.remainder,
    np.power, np.negative, np.positive, np.absolute, np.invert, np.bitwise_and,
    np.bitwise_or, np.bitwise_xor, np.left_shift, np.right_shift,
}  # fmt: skip


def _weak_result(ufunc: np.ufunc, operands: tuple, dtype: np.dtype) -> bool:
    """Whether `ufunc(*operands)` is weak (NEP 50, like JAX's weak types): an operator on
    weak tensors and Python ints/floats only, at least one of them a weak tensor."""
    if ufunc not in _PYTHON_OPERATORS or dtype.kind not in "iufc":
        return False
    weak = all(weak_type(x) for x in operands)
    return weak and any(isinstance(x, Tensor) for x in operands)


# A Python int beyond the other operand's integer dtype: NumPy 2 answers comparisons with
# it from its sign alone (`int8_array < 300` is all True) instead of raising OverflowError.
_ANSWER_ABOVE: dict[np.ufunc, bool] = {
    np.equal: False,
    np.not_equal: True,
    np.less: True,
    np.less_equal: True,
    np.greater: False,
    np.greater_equal: False,
}
_ANSWER_BELOW: dict[np.ufunc, bool] = {
    np.equal: False,
    np.not_equal: True,
    np.less: False,
    np.less_equal: False,
    np.greater: True,
    np.greater_equal: True,
}
_MIRRORED: dict[np.ufunc, np.ufunc] = {
    np.less: np.greater,
    np.greater: np.less,
    np.less_equal: np.greater_equal,
    np.greater_equal: np.less_equal,
    np.equal: np.equal,
    np.not_equal: np.not_equal,
}


def _compare_with_huge_int(ufunc: np.ufunc, operands: tuple) -> Tensor | None:
    x, y = operands
    if _is_python_int(x):  # `300 > t` is `t < 300`
        x, y, ufunc = y, x, _MIRRORED[ufunc]
    if not (isinstance(x, Tensor) and x.dtype.kind in "iu" and _is_python_int(y)):
        return None
    info = np.iinfo(x.dtype)
    if y > info.max:
        return full_like(_ANSWER_ABOVE[ufunc], x, np.dtype(np.bool_))
    if y < info.min:
        return full_like(_ANSWER_BELOW[ufunc], x, np.dtype(np.bool_))
    return None


def _compare_mixed_sign(ufunc: np.ufunc, x: Tensor, y: Tensor) -> Tensor:
    """NumPy 2's exact uint64-vs-int64 comparison loops: compare the bits as uint64,
    except that a negative int64 is below every uint64."""
    if x.dtype.kind == "i":  # `i < u` is `u > i`
        x, y, ufunc = y, x, _MIRRORED[ufunc]
    as_unsigned = primitives.cast(y, x.dtype)
    unsigned = UFUNC_RULES[ufunc](x, as_unsigned)
    negative = primitives.compare("lt", y, full_like(0, y))
    # x (>= 0) vs a negative y: as `x` vs -inf, i.e. the answer for a y below x's range.
    return primitives.select(negative, full_like(_ANSWER_BELOW[ufunc], unsigned), unsigned)


def _one_element(x: object) -> bool:
    """Whether the operand has one element (its dims known to be 1), as NumPy's loop sees
    it: a scalar, a 0-d array, an array of shape (1,) or (1, 1)..."""
    if isinstance(x, Tensor | np.ndarray):
        return all(d == 1 for d in x.shape)
    return all(d == 1 for d in np.shape(x))  # type: ignore[call-overload]  # any array-like


def _is_python_int(x: object) -> bool:
    return type(x) is int


def _register(ufunc: np.ufunc) -> None:
    implements(ufunc)(lambda *operands: stage_ufunc(ufunc, *operands))


for _ufunc in UFUNC_RULES:
    _register(_ufunc)


@implements(np.divmod)
def divmod_(x: object, y: object) -> tuple[Tensor, Tensor]:
    """`np.divmod`: (x // y, x % y), NumPy's floor_divide and remainder in divmod's loop
    dtype (bools as int8), which NumPy computes together with the same results."""
    first, second, _, _ = loop_dtypes(np.divmod, (x, y))
    if first.kind == "c":
        raise TypeError(at_user_line("np.divmod of complex numbers is not supported"))
    operands = (_loop_operand(x, first), _loop_operand(y, second))
    return stage_ufunc(np.floor_divide, *operands), stage_ufunc(np.remainder, *operands)


@implements(np.modf)
def modf(x: object) -> tuple[Tensor, Tensor]:
    """`np.modf`: (fractional part, integral part) as C's modf: both of x's sign (-2.0 gives
    -0.0 and -2.0), the fraction of +-inf is +-0, NaN gives NaN twice."""
    dtype, _, _ = loop_dtypes(np.modf, (x,))
    t = as_tensor(x, dtype)
    whole = primitives.unary(ew.TruncOp, t)
    infinite = primitives.compare("eq", primitives.unary(ew.AbsOp, t), full_like(np.inf, t))
    fraction = primitives.binary(ew.SubOp, t, whole)  # exact
    fraction = primitives.select(infinite, full_like(0, t), fraction)
    return primitives.binary(ew.CopysignOp, fraction, t), whole


@implements(np.frexp)
def frexp(x: object) -> tuple[Tensor, Tensor]:
    """`np.frexp`: (mantissa, int32 exponent), see `_frexp`."""
    dtype, _, _ = loop_dtypes(np.frexp, (x,))
    return _frexp(as_tensor(x, dtype))


def _loop_operand(x: object, dtype: np.dtype) -> object:
    """An operand converted to a loop dtype, a weak Python number left as it is."""
    return x if weak_type(x) and not isinstance(x, Tensor) else as_tensor(x, dtype)


# --- element-wise NumPy functions that are not ufuncs ----------------------------------


@implements(np.where)
def where(condition: object, x: object = None, y: object = None) -> Tensor:
    """`np.where(c, x, y)`: x and y promoted as `np.result_type` (Python scalars weak)."""
    if x is None and y is None:  # the indices of the true elements (numpy_api/nonzero.py)
        return where_one_argument(condition)  # type: ignore[return-value]  # a tuple of Tensors
    if x is None or y is None:
        raise ValueError(at_user_line("either both or neither of x and y should be given"))
    dtype = weak_result_type(x, y)
    branches = [_where_branch(v, dtype) for v in (x, y)]
    condition = as_tensor(condition, np.dtype(np.bool_))
    condition, on_true, on_false = broadcast_all([condition, *branches])
    return primitives.select(condition, on_true, on_false)


def _where_branch(value: object, dtype: np.dtype) -> Tensor:
    if isinstance(value, Tensor):
        return primitives.cast(value, dtype)
    if contains_tensor(value):  # a list holding tensors: np.asarray of it, then cast
        return primitives.cast(array_of(value), dtype)
    # NumPy converts a Python scalar branch with a C cast (so 300 in an int8 where is 44).
    return primitives.constant(np.asarray(value).astype(dtype))


@implements(np.real)
def real(val: object) -> Tensor:
    """The real parts; a real array is its own real part (NumPy returns it as is)."""
    x = _as_traced(val)
    return primitives.real(x) if x.dtype.kind == "c" else x


@implements(np.imag)
def imag(val: object) -> Tensor:
    """The imaginary parts; zeros of the same dtype for a real array."""
    x = _as_traced(val)
    return primitives.imag(x) if x.dtype.kind == "c" else full_like(0, x)


@implements(np.angle)
def angle(z: object, deg: bool = False) -> Tensor:
    """NumPy's `angle`: arctan2(imag, real) (arctan2(0, x) for a real x), in degrees with
    `deg=True` (multiplied by 180 / pi in place, keeping the dtype)."""
    x = _as_traced(z)
    parts = (imag(x), real(x)) if x.dtype.kind == "c" else (0, x)
    result = stage_ufunc(np.arctan2, *parts)
    return stage_ufunc(np.multiply, result, 180 / np.pi) if deg else result


def _as_traced(x: object) -> Tensor:
    return x if isinstance(x, Tensor) else as_tensor(x, np.asarray(x).dtype)


@implements(np.clip)
def clip(
    a: object,
    a_min: object = None,
    a_max: object = None,
    out: object = None,
    **kwargs: object,
) -> Tensor:
    """NumPy's `_clip`: Python int bounds beyond an integer dtype are dropped, a missing
    bound leaves `maximum` or `minimum`, else `minimum(maximum(a, a_min), a_max)` in the
    clip loop's dtype (NaN propagates from any operand)."""
    lo = _given(kwargs.pop("min", None), a_min)
    hi = _given(kwargs.pop("max", None), a_max)
    if out is not None or kwargs:
        names = ["out"] if out is not None else list(kwargs)
        raise unsupported(np.clip, f"(..., {names[0]}=...)")
    kind = a.dtype.kind if isinstance(a, Tensor) else np.asarray(a).dtype.kind
    if kind in "iu":
        info = np.iinfo(a.dtype if isinstance(a, Tensor) else np.asarray(a).dtype)
        lo = None if _is_python_int(lo) and lo <= info.min else lo
        hi = None if _is_python_int(hi) and hi >= info.max else hi
    if lo is None and hi is None:
        return stage_ufunc(np.positive, a)
    if lo is None:
        return stage_ufunc(np.minimum, a, hi)
    if hi is None:
        return stage_ufunc(np.maximum, a, lo)
    # np.clip's ufunc is not public; NumPy's stubs do not declare np._core
    clip = np._core.umath.clip  # type: ignore[attr-defined]  # np._core is not in the stubs
    x_dtype, lo_dtype, hi_dtype, _ = loop_dtypes(clip, [a, lo, hi])
    x, lo, hi = (as_tensor(v, d) for v, d in ((a, x_dtype), (lo, lo_dtype), (hi, hi_dtype)))
    return stage_ufunc(np.minimum, stage_ufunc(np.maximum, x, lo), hi)


def _given(*values: object) -> Any:
    """The first value that is neither None nor NumPy's "no value" default."""
    for value in values:
        if value is not None and value is not np._NoValue:
            return value
    return None


@implements(np.round, np.around)
def round_(a: object, decimals: int = 0, out: object = None) -> Tensor:
    """NumPy's algorithm: rint(a * 10**d) / 10**d (for d < 0: rint(a / 10**-d) * 10**-d);
    integers are returned as they are for d >= 0 and computed in float64 for d < 0."""
    if out is not None:
        raise unsupported(np.round, "(..., out=...)")
    x = a if isinstance(a, Tensor) else as_tensor(a, np.asarray(a).dtype)
    source_dtype = x.dtype
    integral = x.dtype.kind in "iu"
    if integral and decimals >= 0:
        return x
    if decimals == 0:
        return stage_ufunc(np.rint, x)
    scale = 10.0 ** abs(decimals)
    if integral:
        x = primitives.cast(x, np.dtype(np.float64))
    first, last = (np.multiply, np.true_divide) if decimals > 0 else (np.true_divide, np.multiply)
    rounded = stage_ufunc(last, stage_ufunc(np.rint, stage_ufunc(first, x, scale)), scale)
    return primitives.cast(rounded, source_dtype) if integral else rounded


@implements(np.astype)
def astype(
    x: Any,
    dtype: DTypeLike | None,
    /,
    *,
    copy: bool = True,
    device: object = None,
) -> Tensor:
    if device not in (None, "cpu"):
        raise unsupported(np.astype, f"(..., device={device!r})")
    return stage_astype(x, dtype)


def stage_astype(x: Tensor, dtype: DTypeLike | None) -> Tensor:
    """`x.astype(dtype)` (C casts: float -> int truncates toward 0, to bool is `!= 0`)."""
    try:
        target = np.dtype(dtype)
    except TypeError as error:
        raise TypeError(at_user_line(f"astype: {error}")) from None
    from tracejit.ir.dtypes import SUPPORTED_DTYPES

    if target not in SUPPORTED_DTYPES:
        raise TypeError(at_user_line(f"astype: dtype {target} is not supported by tracejit"))
    if x.dtype.kind == "c" and target.kind not in "cb":  # as NumPy (once per trace here)
        warn_at_user_line(
            "Casting complex values to real discards the imaginary part",
            np.exceptions.ComplexWarning,
        )
    result = primitives.cast(x, target)
    return Tensor(result.value, result.dims) if result.weak else result  # a chosen dtype
