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
`passes/support/scalar_semantics.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from tracejit.frontend.numpy_api.construction import array_of, contains_tensor
from tracejit.frontend.numpy_api.nonzero import where_one_argument
from tracejit.frontend.numpy_api.promotion import (
    as_tensor,
    broadcast_all,
    loop_dtypes,
    weak_result_type,
    weak_type,
)
from tracejit.frontend.numpy_api.registry import implements, unsupported
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.trace_warnings import warn_at_user_line
from tracejit.ir import elementwise as ew
from tracejit.ir.folding import constant_value
from tracejit.ir.shape_ops import BroadcastInDimOp

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


def full_like(value: object, like: Tensor, dtype: np.dtype | None = None) -> Tensor:
    """A tensor of `like`'s shape filled with `value` (a broadcast 0-d constant)."""
    scalar = primitives.constant(value, dtype or like.dtype)
    witnesses = {axis: (like.value, axis) for axis in range(like.ndim)}  # run-time sizes
    return primitives.broadcast_to(scalar, like.dims, witnesses)


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


NEGATIVE_POWER = "Integers to negative integer powers are not allowed."


def _power(x: Tensor, y: Tensor) -> Tensor:
    """x ** y; signed integer exponents are checked as NumPy does (at trace time when
    they are constants, else by a run-time check raising NumPy's ValueError). A negative
    constant exponent makes the result a pending ValueError, raised only if the result
    is used (non-strict execution, frontend/staging/non_strict.py)."""
    if y.dtype.kind == "i" and 0 not in y.shape:  # no exponents, nothing to check
        exponents = _constant_through_broadcast(y)
        if exponents is None:
            lowest = primitives.reduce("min", y, range(y.ndim))
            ok = primitives.compare("ge", lowest, primitives.constant(0, y.dtype))
            primitives.assert_true(ok, f"ValueError: {at_user_line(NEGATIVE_POWER)}")
        elif (exponents < 0).any():
            return primitives.poison(ValueError(at_user_line(NEGATIVE_POWER)), x.dims, x.dtype)
    return primitives.binary(ew.PowOp, x, y)


def _constant_through_broadcast(x: Tensor) -> np.ndarray | None:
    value = x.value
    while isinstance(value.owner, BroadcastInDimOp):
        value = value.owner.operand
    return constant_value(value)


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


UFUNC_RULES: dict[np.ufunc, Rule] = {
    # arithmetic
    np.add: by_kind(op(ew.AddOp), bool=_OR),
    np.subtract: op(ew.SubOp),
    np.multiply: by_kind(op(ew.MulOp), bool=_AND),
    np.true_divide: op(ew.DivOp),
    np.floor_divide: op(ew.FloorDivideOp),
    np.remainder: op(ew.RemainderOp),
    np.fmod: op(ew.FmodOp),
    np.power: _power,
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
    result = UFUNC_RULES[ufunc](*inputs)
    assert result.dtype == dtypes[-1], (ufunc, result.dtype, dtypes)
    weak = _weak_result(ufunc, operands, result.dtype)
    if result.weak != weak:  # a rule may hand back an operand (`np.positive`, `np.floor`)
        result = Tensor(result.value, result.dims, weak=weak)
    return result


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
    a: object, a_min: object = None, a_max: object = None, out: object = None, **kwargs: object,
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
    x: Any, dtype: DTypeLike | None, /, *, copy: bool = True, device: object = None,
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
