"""math ops through the JIT, compared with NumPy (NaN compared as equal)."""

import math

import numpy as np
import pytest

_erf = np.vectorize(math.erf)


def _round_half_away(x):
    wide = x.astype(np.float64)
    return (np.sign(wide) * np.floor(np.abs(wide) + 0.5)).astype(x.dtype)


# op -> (NumPy reference, input range)
UNARY = {
    "exp": (np.exp, (-10, 10)),
    "exp2": (np.exp2, (-10, 10)),
    "expm1": (np.expm1, (-2, 2)),
    "log": (np.log, (0.01, 100)),
    "log2": (np.log2, (0.01, 100)),
    "log10": (np.log10, (0.01, 100)),
    "log1p": (np.log1p, (-0.9, 10)),
    "sqrt": (np.sqrt, (0, 100)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.01, 100)),
    "cbrt": (np.cbrt, (-100, 100)),
    "absf": (np.abs, (-10, 10)),
    "tanh": (np.tanh, (-5, 5)),
    "sin": (np.sin, (-6, 6)),
    "cos": (np.cos, (-6, 6)),
    "tan": (np.tan, (-1.5, 1.5)),
    "asin": (np.arcsin, (-1, 1)),
    "acos": (np.arccos, (-1, 1)),
    "atan": (np.arctan, (-10, 10)),
    "sinh": (np.sinh, (-5, 5)),
    "cosh": (np.cosh, (-5, 5)),
    "asinh": (np.arcsinh, (-10, 10)),
    "acosh": (np.arccosh, (1, 10)),
    "atanh": (np.arctanh, (-0.99, 0.99)),
    "erf": (_erf, (-3, 3)),
    "floor": (np.floor, (-10, 10)),
    "ceil": (np.ceil, (-10, 10)),
    "trunc": (np.trunc, (-10, 10)),
    "round": (_round_half_away, (-10, 10)),
    "roundeven": (np.rint, (-10, 10)),
}
BINARY = {
    "powf": (np.power, (0.1, 5), (-3, 3)),
    "copysign": (np.copysign, (-5, 5), (-5, 5)),
    "atan2": (np.arctan2, (-5, 5), (-5, 5)),
}
FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
TOLERANCE = {"f16": (2e-3, 1e-3), "f32": (2e-6, 1e-6), "f64": (1e-13, 1e-14)}
F16_OPS = ["exp", "expm1", "sin", "floor", "cbrt"]


def _math_module(kernel_text):
    funcs = []
    for t in FLOATS:
        for name in UNARY if t != "f16" else F16_OPS:
            funcs.append(kernel_text(f"{name}_{t}", t, t, f"%r = math.{name} %a : {t}"))
        for name in BINARY if t != "f16" else ():
            funcs.append(kernel_text(f"{name}_{t}", t, t, f"%r = math.{name} %a, %b : {t}",
                                     arity=2))
    for t in ("f32", "f64"):
        funcs.append(kernel_text(f"fma_{t}", t, t, f"%r = math.fma %a, %b, %c : {t}", arity=3))
        funcs.append(kernel_text(f"fpowi_{t}", t, t, f"""
    %k = arith.fptosi %b : {t} to i32
    %r = math.fpowi %a, %k : {t}, i32""", arity=2))
    for t in ("i8", "i32", "i64"):
        funcs.append(kernel_text(f"ipowi_{t}", t, t, f"%r = math.ipowi %a, %b : {t}", arity=2))
        for name in ("absi", "ctpop", "ctlz", "cttz"):
            funcs.append(kernel_text(f"{name}_{t}", t, t, f"%r = math.{name} %a : {t}"))
    return "\n".join(funcs)


@pytest.fixture(scope="module")
def mathmod(build, kernel_text):
    return build(_math_module(kernel_text))


def _uniform(dtype, bounds, n=257, seed=0):
    values = np.random.default_rng(seed).uniform(*bounds, n)
    values[:3] = [bounds[0], bounds[1], (bounds[0] + bounds[1]) / 2]
    return values.astype(dtype)


def _check(out, expected, t):
    rtol, atol = TOLERANCE[t]
    np.testing.assert_allclose(out.astype(np.float64), expected.astype(np.float64),
                               rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary(mathmod, name, t):
    reference, bounds = UNARY[name]
    x = _uniform(FLOATS[t], bounds)
    x[3] = np.nan
    out = np.zeros_like(x)
    mathmod.kernel(f"{name}_{t}")(x, out)
    with np.errstate(all="ignore"):
        _check(out, reference(x).astype(x.dtype), t)


@pytest.mark.parametrize("name", F16_OPS)
def test_unary_f16(mathmod, name):
    reference, bounds = UNARY[name]
    x = _uniform(np.float16, bounds)
    out = np.zeros_like(x)
    mathmod.kernel(f"{name}_f16")(x, out)
    _check(out, reference(x.astype(np.float32)).astype(np.float16), "f16")


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary(mathmod, name, t):
    reference, bounds_x, bounds_y = BINARY[name]
    x, y = _uniform(FLOATS[t], bounds_x, seed=1), _uniform(FLOATS[t], bounds_y, seed=2)
    out = np.zeros_like(x)
    mathmod.kernel(f"{name}_{t}")(x, y, out)
    _check(out, reference(x, y), t)


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_fma(mathmod, t):
    x, y, z = (_uniform(FLOATS[t], (-3, 3), seed=s) for s in range(3))
    out = np.zeros_like(x)
    mathmod.kernel(f"fma_{t}")(x, y, z, out)
    _check(out, x * y + z, t)


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_fpowi(mathmod, t):
    x = _uniform(FLOATS[t], (-3, 3))
    n = np.random.default_rng(5).integers(-4, 9, x.size).astype(x.dtype)
    out = np.zeros_like(x)
    mathmod.kernel(f"fpowi_{t}")(x, n, out)
    rtol, atol = TOLERANCE[t]
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(out, np.power(x, n), rtol=rtol * 10, atol=atol)


def _ipowi_reference(base, exponent):
    with np.errstate(over="ignore"):
        positive = np.power(base, np.maximum(exponent, 0))
    negative = np.where(base == 1, 1, np.where(base == -1, np.where(exponent % 2, -1, 1), 0))
    return np.where(exponent < 0, negative, positive).astype(base.dtype)


@pytest.mark.parametrize("t", ["i8", "i32", "i64"])
def test_ipowi(mathmod, t):
    dtype = {"i8": np.int8, "i32": np.int32, "i64": np.int64}[t]
    rng = np.random.default_rng(6)
    base = rng.integers(-6, 7, 400).astype(dtype)
    exponent = rng.integers(-3, 40, 400).astype(dtype)
    out = np.zeros_like(base)
    mathmod.kernel(f"ipowi_{t}")(base, exponent, out)
    np.testing.assert_array_equal(out, _ipowi_reference(base, exponent))


@pytest.mark.parametrize("t", ["i8", "i32", "i64"])
def test_integer_bit_ops(mathmod, t):
    dtype = {"i8": np.int8, "i32": np.int32, "i64": np.int64}[t]
    info = np.iinfo(dtype)
    x = np.random.default_rng(7).integers(info.min, info.max, 300, dtype=dtype)
    x[:3] = [info.min, 0, -1]
    unsigned = x.view(f"u{x.itemsize}")
    bit_length = np.array([int(v).bit_length() for v in unsigned])
    trailing = np.array([(int(v) & -int(v)).bit_length() - 1 if v else info.bits
                         for v in unsigned])
    expected = {
        "absi": np.abs(x),
        "ctpop": np.bitwise_count(unsigned),
        "ctlz": info.bits - bit_length,
        "cttz": trailing,
    }
    for name, reference in expected.items():
        out = np.zeros_like(x)
        mathmod.kernel(f"{name}_{t}")(x, out)
        np.testing.assert_array_equal(out, reference.astype(dtype), err_msg=name)
