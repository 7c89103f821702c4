"""Element-wise NumPy (issue 3, items 1-3): every supported ufunc on every dtype, compiled
vs eager NumPy, with values from hypothesis (negatives, zero, NaN/inf, integer extremes).

One traced function applies every ufunc NumPy accepts for the dtype and returns them all
(one compile checks them all); each shape case is one more trace. Integers and bools
must match exactly, floats within `ULPS` units in the last place (0 = bit-exact, zeros
compared by value, NaN where NumPy has NaN).

NumPy behaviour deliberately not matched:
* float -> int casts of NaN, inf and values beyond the C conversion's range (int32 for
  narrow targets, int64 for uint32/int64, [0, 2**64) for uint64) are unspecified
  (LLVM poison); NumPy gives what x86's cvttsd2si gives. Values in range wrap as NumPy's.
* No floating-point warnings (divide by zero, overflow, invalid) are emitted.
* `np.asarray(t, dtype)` / `np.array(t)` on a symbolic tensor cannot be staged: NumPy
  has no dispatch hook for them (only `like=`); `t.astype(dtype)` / `np.astype` work.
* `np.power` of signed integers with a negative exponent raises NumPy's ValueError at
  trace time for constant exponents, else from a run-time check when the kernel runs.
* The sign of a zero result of maximum/minimum/fmax/fmin/clip with (+0.0, -0.0)
  operands may differ (NumPy's own SIMD and scalar loops disagree there too).
* Transcendentals differ from NumPy's SIMD implementations by at most the ULPS listed
  below, over the whole range (huge |x| takes expand-math's exact libm path).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tracejit.frontend.numpy_api.elementwise import UFUNC_RULES

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
DTYPES = [np.bool_, *INTS, *FLOATS]

# Max ulp distance from NumPy per ufunc (missing: 0, bit-exact). exp/log/sin/cos/tanh/pow
# (f32, f64) come from `expand-math`'s polynomials (bound 4 ulp, see passes/expand_math.py),
# the other transcendentals from glibc through LLVM intrinsics; NumPy 2.4 uses its own
# AVX-512 SIMD loops. Worst seen on znver4 over 800k random values and a grid of small
# integers and halves per float dtype: float32 log 4, exp/log10 2, others <= 1; float64
# tanh 3, expm1/log2/log10/hypot 2, others <= 1; float16 (computed in float32) matched
# everywhere. hypot is a scaled formula in float64 (float32 and float16 go through
# float64 and match NumPy).
TRANSCENDENTAL = ["exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "cbrt", "sin",
                  "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh",
                  "tanh", "arcsinh", "arccosh", "arctanh", "power", "float_power"]  # fmt: skip
# logaddexp/logaddexp2 are NumPy's formula, max + log1p(exp(-|x - y|)): within 4 ulp where
# the result is not much smaller than the operands; where the sum cancels (a result near 0,
# e.g. x = -0.5, y = -1) the log1p's few ulp are many of the small result's, as in NumPy's.
ULPS = {**dict.fromkeys(TRANSCENDENTAL, 4), "hypot": 2, "logaddexp": 64, "logaddexp2": 64}

# Float-only math (its loops are float); for integer and bool inputs two of them check
# the promotion to float, the rest run on float dtypes only (keeps compiles short).
FLOAT_MATH = {
    np.exp, np.expm1, np.exp2, np.log, np.log1p, np.log2, np.log10, np.sqrt, np.cbrt,
    np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh,
    np.arcsinh, np.arccosh, np.arctanh, np.arctan2, np.hypot, np.copysign, np.rint,
    np.true_divide, np.float_power, np.fabs, np.signbit,
}  # fmt: skip
PROMOTION_SAMPLES = {np.exp, np.true_divide, np.hypot, np.rint}


def _accepts(ufunc: np.ufunc, dtype) -> bool:
    try:
        ufunc.resolve_dtypes((np.dtype(dtype),) * ufunc.nin + (None,) * ufunc.nout)
    except TypeError:
        return False
    return True


def ufuncs_for(dtype) -> list[np.ufunc]:
    """Every supported ufunc NumPy accepts on `dtype` operands (see FLOAT_MATH)."""
    chosen = [u for u in UFUNC_RULES if _accepts(u, dtype)]
    if np.dtype(dtype).kind != "f":
        chosen = [u for u in chosen if u not in FLOAT_MATH or u in PROMOTION_SAMPLES]
    return chosen


def _apply(ufunc: np.ufunc, x, y):
    if ufunc.nin == 1:
        return ufunc(x)
    if ufunc is np.power and x.dtype.kind == "i":
        return ufunc(x, y & 7)  # negative exponents raise: tested separately
    return ufunc(x, y)


def all_ufuncs_function(dtype) -> tj.Function:
    ufuncs = ufuncs_for(dtype)

    def all_ufuncs(x, y):
        return {u.__name__: _apply(u, x, y) for u in ufuncs}

    return tj.function(all_ufuncs)


_FUNCTIONS: dict = {}


def function_for(dtype) -> tj.Function:
    """One tj.Function per dtype, so hypothesis examples of one shape share a trace."""
    if dtype not in _FUNCTIONS:
        _FUNCTIONS[dtype] = all_ufuncs_function(dtype)
    return _FUNCTIONS[dtype]


# --- comparing with NumPy ----------------------------------------------------------------


def run_both(function: tj.Function, *args):
    """(eager NumPy result, compiled result)."""
    tj.config.run_functions_eagerly(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            eager = function(*args)
    finally:
        tj.config.run_functions_eagerly(False)
    return eager, function(*args)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Units in the last place between same-dtype floats (0 between -0.0 and +0.0)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]

    def ordered(x):
        raw = np.asarray(x).view(bits).astype(np.int64)
        magnitude = raw & np.int64(np.iinfo(bits).max)
        return np.where(raw < 0, -magnitude, magnitude)

    return np.abs(ordered(a) - ordered(b))


def assert_matches(name: str, compiled, eager, ulps: int = 0) -> None:
    assert isinstance(compiled, np.ndarray | np.generic), (name, type(compiled))
    assert compiled.dtype == eager.dtype, (name, compiled.dtype, eager.dtype)
    assert np.shape(compiled) == np.shape(eager), (name, np.shape(compiled), np.shape(eager))
    compiled, eager = np.asarray(compiled), np.asarray(eager)
    if eager.dtype.kind != "f":
        np.testing.assert_array_equal(compiled, eager, err_msg=name)
        return
    nan = np.isnan(eager)
    np.testing.assert_array_equal(np.isnan(compiled), nan, err_msg=f"{name}: NaN positions")
    distance = ulp_distance(compiled[~nan], eager[~nan])
    worst = int(distance.max()) if distance.size else 0
    assert worst <= ulps, f"{name}: {worst} ulp from NumPy (allowed {ulps})"


def check_all(function: tj.Function, *args) -> None:
    eager, compiled = run_both(function, *args)
    assert compiled.keys() == eager.keys()
    for name in eager:
        assert_matches(name, compiled[name], eager[name], ULPS.get(name, 0))


# --- values ------------------------------------------------------------------------------


def elements(dtype) -> st.SearchStrategy:
    """Any value of `dtype`, weighted towards the edge cases of division and rounding."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "f":
        special = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan]
        return st.one_of(
            st.floats(width=dtype.itemsize * 8),
            st.sampled_from(special),
            st.integers(-8, 8).map(float),
        )
    info = np.iinfo(dtype)
    special = [0, 1, info.max, info.min, info.bits, info.bits - 1]
    if dtype.kind == "i":
        special += [-1, info.min + 1, -info.bits]
    return st.one_of(
        st.integers(int(info.min), int(info.max)),
        st.sampled_from(special),
        st.integers(max(-8, int(info.min)), 8),
    )


def arrays(dtype, shape) -> st.SearchStrategy:
    return hnp.arrays(dtype, shape, elements=elements(dtype))


# --- every ufunc, every dtype ------------------------------------------------------------

VALUES = settings(max_examples=8, deadline=None)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@VALUES
@given(data=st.data())
def test_every_ufunc_broadcast_and_non_contiguous(dtype, data):
    # x is a transposed (non-contiguous) 3x4 view; y (4,) broadcasts along x's rows.
    x = data.draw(arrays(dtype, (4, 3))).T
    y = data.draw(arrays(dtype, (4,)))
    check_all(function_for(dtype), x, y)


SMALL_SHAPES = [((), (2, 1)), ((0, 3), (1, 3)), ((1,), ())]


@tj.function
def some_ufuncs(x, y):
    return {
        "add": x + y, "floor_divide": x // y, "remainder": x % y, "less": x < y,
        "maximum": np.maximum(x, y), "where": np.where(x > y, x, y), "sign": np.sign(x),
        "sqrt": np.sqrt(x),
    }  # fmt: skip


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32], ids=lambda d: d.__name__)
@pytest.mark.parametrize("shapes", SMALL_SHAPES, ids=str)
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_0d_size0_and_size1_operands(dtype, shapes, data):
    x, y = (data.draw(arrays(dtype, shape)) for shape in shapes)
    check_all(some_ufuncs, x, y)


# --- dtypes and promotion ----------------------------------------------------------------


@tj.function
def promotions(i8, u8, i16, i32, i64, u64, f16, f32, b):
    return {
        "int8 + uint8": i8 + u8,  # int16
        "int16 * int8": i16 * i8,
        "int64 + uint64": i64 + u64,  # float64
        "float16 + int8": f16 + i8,  # float16
        "float16 + int16": f16 + i16,  # float32
        "float32 + int32": f32 + i32,  # float64
        "bool + int32": b + i32,
        "bool + bool": b + b,  # logical or
        "bool * bool": b * b,  # logical and
        "int32 + 1": i32 + 1,  # weak Python scalars keep the array's dtype
        "float32 * 2.5": f32 * 2.5,
        "float16 - 1e3": f16 - 1e3,
        "int8 * 2.0": i8 * 2.0,  # float64
        "uint8 + True": u8 + True,
        "1 - uint8": 1 - u8,
        "int8 < 300": i8 < 300,  # NumPy 2 compares with out-of-range Python ints
        "-300 >= int8": -300 >= i8,  # noqa: SIM300  (the reflected operator)
        "uint64 != -1": u64 != -1,
        "int8 == 1000": i8 == 1000,
        "float32 + np.float64": f32 + np.float64(1.5),  # NumPy scalars are strong
        "int8 + np.int64": i8 + np.int64(3),
        "int32 / int32": i32 / i32,  # float64
        "uint8 // bool": u8 // b,
        "bool ** bool": b**b,  # int8
        "square(bool)": np.square(b),  # int8
        "abs(bool)": np.abs(b),
        "floor(int16)": np.floor(i16),
        "round(bool)": np.round(b),  # float16
        "float_power(int8)": np.float_power(i8, 2),
        "logical_and(float, int)": np.logical_and(f32, i8),
        "logical_not(float)": np.logical_not(f32),
        "isnan(int)": np.isnan(i32),
        "isfinite(int)": np.isfinite(u8),
        "invert(bool)": ~b,
        "bool ^ bool": b ^ b,
        "bool < bool": b < ~b,
    }


@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_nep50_promotion_matches_numpy(data):
    dtypes = [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64, np.float16,
              np.float32, np.bool_]  # fmt: skip
    args = [data.draw(arrays(d, (5,))) for d in dtypes]
    check_all(promotions, *args)


def test_python_int_out_of_range_raises_overflow_error():
    @tj.function
    def add_300(x):
        return x + 300

    with pytest.raises(OverflowError, match="300 out of bounds for uint8"):
        add_300(np.zeros(3, np.uint8))


CAST_SOURCES = [np.bool_, np.int8, np.uint16, np.int64, np.uint64, np.float16, np.float64]


# Float -> int casts NumPy defines on x86 (as values of the float): [low, high).
FLOAT_TO_INT_RANGES = {
    "int64": (-(2.0**63), 2.0**63),
    "uint64": (-(2.0**63), 2.0**64),
    "uint32": (-(2.0**31), 2.0**32),
}


def cast_values(source, target) -> st.SearchStrategy:
    """Values whose cast NumPy defines on x86 (see the module docstring for floats)."""
    source, target = np.dtype(source), np.dtype(target)
    if source.kind != "f" or target.kind in "fb":
        return elements(source)
    low, high = FLOAT_TO_INT_RANGES.get(target.name, (-(2.0**31), 2.0**31))
    largest = float(np.finfo(source).max)
    low, high = max(low, -largest), min(high, largest)
    return st.floats(low, high, exclude_min=True, exclude_max=True, width=source.itemsize * 8)


@tj.function
def casts(*xs):
    out = {np.dtype(target).name: x.astype(target) for target, x in zip(DTYPES, xs, strict=True)}
    out["np.astype"] = np.astype(xs[0], np.float32)
    return out


@pytest.mark.parametrize("source", CAST_SOURCES, ids=lambda d: np.dtype(d).name)
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_astype_every_target(source, data):
    xs = [
        data.draw(hnp.arrays(source, (4,), elements=cast_values(source, target)))
        for target in DTYPES
    ]
    check_all(casts, *xs)


# --- broadcasting ------------------------------------------------------------------------

BROADCAST_SHAPES = [
    ((), (3,)),
    ((2, 1), (1, 3)),
    ((0, 3), (1, 3)),
    ((4, 0), (4, 1)),
    ((1,), (5, 1, 1)),
    ((3, 1, 2), (2,)),
]


@tj.function
def broadcasting(x, y, c):
    return {
        "subtract": x - y, "fmod": np.fmod(x, y), "not_equal": x != y,
        "where": np.where(c, x, y), "where_scalar": np.where(c, 1, y),
        "clip": np.clip(x, y, 3),
    }  # fmt: skip


@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=str)
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_binary_and_ternary_ops_broadcast(shapes, data):
    x = data.draw(arrays(np.int16, shapes[0]))
    y = data.draw(arrays(np.int16, shapes[1]))
    c = data.draw(arrays(np.bool_, shapes[1][-1:]))
    check_all(broadcasting, x, y, c)


def test_incompatible_shapes_raise_value_error():
    @tj.function
    def add(x, y):
        return x + y

    with pytest.raises(ValueError, match=r"could not be broadcast.*test_elementwise.py"):
        add(np.ones(3), np.ones(4))


# --- where, clip, round ------------------------------------------------------------------


@tj.function
def where_clip_round(x, y):
    return {
        "where": np.where(x > y, x, y),
        "where ints": np.where(x, 300, 2),  # two weak Python ints: int64
        "where weak": np.where(x < y, x, 7),
        "where float": np.where(x < y, x, 0.5),
        "where strong": np.where(x < y, x, np.int64(7)),
        "clip": np.clip(x, 1, 100),
        "clip arrays": np.clip(x, y, 50),
        "clip min only": np.clip(x, y, None),
        "clip max kw": np.clip(x, max=3),
        "clip huge": np.clip(x, -100000, 100000),
        "method clip": x.clip(2, 9),
        "round": np.round(x),
        "round 2": np.round(x, 2),
        "around -1": np.around(x, -1),
        "method round": x.round(1),
    }


@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.float32], ids=lambda d: d.__name__)
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_where_clip_round(dtype, data):
    x, y = data.draw(arrays(dtype, (6,))), data.draw(arrays(dtype, (6,)))
    check_all(where_clip_round, x, y)


# --- integer powers ------------------------------------------------------------------------


def test_integer_negative_power_raises_value_error_like_numpy():
    @tj.function
    def power(x, y):
        return x**y

    x = np.array([2, -1, 3], np.int32)
    np.testing.assert_array_equal(power(x, np.array([3, 5, 0], np.int32)), [8, -1, 1])
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        power(x, np.array([3, -5, 0], np.int32))

    @tj.function
    def constant_power(x):
        return x**-2

    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        constant_power(x)


@tj.function
def power(x, y):
    return {"power": x**y}


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_unsigned_power_with_huge_exponents(data):
    x = data.draw(arrays(np.uint8, (8,)))
    y = data.draw(arrays(np.uint8, (8,)))
    check_all(power, x, y)


# --- errors --------------------------------------------------------------------------------

ERRORS = [
    (lambda b: b - b, np.bool_, TypeError, "subtract"),
    (lambda b: -b, np.bool_, TypeError, "negative"),
    (lambda b: +b, np.bool_, TypeError, "positive"),
    (lambda f: f & f, np.float32, TypeError, "bitwise_and"),
    (lambda f: f << 1, np.float64, TypeError, "left_shift"),
    (lambda f: np.sin(f, where=f > 0), np.float32, TypeError, "where="),
    (lambda f: np.subtract.reduceat(f, [0]), np.float32, TypeError, "np.subtract.reduceat"),
    (lambda f: np.where(f, f), np.float32, ValueError, "either both or neither"),
    (lambda f: f.astype(np.clongdouble), np.float32, TypeError, "is not supported by tracejit"),
]


@pytest.mark.parametrize("body, dtype, error, message", ERRORS)
def test_unsupported_calls_raise_clear_errors(body, dtype, error, message):
    function = tj.function(body)
    with pytest.raises(error, match=message):
        function(np.ones(3, dtype))
