"""np.deg2rad/np.radians, np.rad2deg/np.degrees, np.modf, np.ldexp, np.frexp, np.nextafter,
np.spacing, np.bitwise_count and NumPy 2's gufuncs np.vecdot, np.matvec, np.vecmat, compiled
vs eager NumPy: values bit for bit (sign of zero included, NaN where NumPy has NaN), dtypes
and shapes, with NumPy's loop dtypes for bool and integer inputs.

The float functions read no bits (tj has no bitcast): they multiply by powers of two and
add units in the last place, which is exact, so every float16 value is checked and the
others on random bit patterns and the edges (zeros, subnormals, the largest number, inf,
NaN). The gufuncs are checked exactly on integer-valued data (sums that do not round) and
to rounding on random floats, where NumPy calls BLAS.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import run_eagerly

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
HAS_MATVEC = hasattr(np, "matvec")  # NumPy >= 2.2


def run_both(function: tj.Function, *args):
    """(eager NumPy result, compiled result), NumPy's RuntimeWarnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        eager = run_eagerly(function, *args)
    return eager, function(*args)


def assert_bits(name: str, compiled, eager) -> None:
    """Same type of result (NumPy scalar for 0-d), dtype, shape, and values: exact, floats
    with the sign of zero and NaN where NumPy has NaN (a NaN's sign is the machine's)."""
    assert isinstance(compiled, np.ndarray | np.generic), (name, type(compiled))
    assert isinstance(compiled, np.generic) == isinstance(eager, np.generic), name
    assert compiled.dtype == eager.dtype, (name, compiled.dtype, eager.dtype)
    assert np.shape(compiled) == np.shape(eager), (name, np.shape(compiled), np.shape(eager))
    compiled, eager = np.asarray(compiled), np.asarray(eager)
    if eager.dtype.kind not in "fc":
        np.testing.assert_array_equal(compiled, eager, err_msg=name)
        return
    nan = np.isnan(eager)
    np.testing.assert_array_equal(np.isnan(compiled), nan, err_msg=f"{name}: NaN positions")
    np.testing.assert_array_equal(compiled[~nan], eager[~nan], err_msg=name)
    if eager.dtype.kind == "f":
        signs = np.signbit(compiled[~nan]), np.signbit(eager[~nan])
        np.testing.assert_array_equal(*signs, err_msg=f"{name}: signs")


def check(function: tj.Function, *args) -> None:
    eager, compiled = run_both(function, *args)
    if isinstance(eager, dict):
        assert compiled.keys() == eager.keys()
        for name in eager:
            check_value(name, compiled[name], eager[name])
    else:
        check_value(function.__name__, compiled, eager)


def check_value(name: str, compiled, eager) -> None:
    if isinstance(eager, tuple | list):
        assert type(compiled) is type(eager) and len(compiled) == len(eager), name
        for k, (c, e) in enumerate(zip(compiled, eager, strict=True)):
            check_value(f"{name}[{k}]", c, e)
    else:
        assert_bits(name, compiled, eager)


# --- values --------------------------------------------------------------------------------


def edges(dtype) -> list:
    info = np.finfo(dtype)
    tiny, normal = info.smallest_subnormal, info.smallest_normal
    positive = [
        0.0, tiny, 2 * tiny, 3 * tiny, normal - tiny, normal, normal + tiny, 2 * normal,
        0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 90.0, 180.0, 1e-3, info.eps, 1 - info.epsneg,
        1 + info.eps, info.max / 2, np.nextafter(info.max, dtype(0)), info.max, np.inf,
    ]  # fmt: skip
    values = np.array(positive, dtype)
    return [*values, *(-values), np.nan]


def floats(dtype) -> st.SearchStrategy:
    """Any float of `dtype` (subnormals included), weighted towards the edges (float16
    from its bits: hypothesis' float16s are filtered float64s)."""
    if dtype == np.float16:
        any_float = st.integers(0, 0xFFFF).map(lambda b: np.uint16(b).view(np.float16))
    else:
        any_float = st.floats(width=np.dtype(dtype).itemsize * 8)
    return st.one_of(
        any_float,
        st.sampled_from(edges(dtype)),
        st.integers(-16, 16).map(float),
    )


def exponents(dtype) -> st.SearchStrategy:
    """ldexp exponents: small ones, ones that make subnormals or overflow, extremes."""
    info = np.iinfo(dtype)
    return st.one_of(
        st.integers(-40, 40),
        st.integers(-1200, 1200),
        st.sampled_from([int(info.min), int(info.max), -1075, -1074, -1022, 1023, 1024]),
        st.integers(int(info.min), int(info.max)),
    )


def every_float16() -> np.ndarray:
    return np.arange(1 << 16, dtype=np.uint16).view(np.float16)


def random_bits(dtype, size: int, seed: int) -> np.ndarray:
    unsigned = np.dtype(f"u{np.dtype(dtype).itemsize}")
    rng = np.random.default_rng(seed)
    return rng.integers(0, np.iinfo(unsigned).max, size, unsigned, endpoint=True).view(dtype)


# --- the float functions: one traced function per dtype ------------------------------------


@tj.function
def float_parts(x, y, i):
    mantissa, exponent = np.frexp(x)
    fraction, whole = np.modf(x)
    return {
        "deg2rad": np.deg2rad(x), "radians": np.radians(x), "rad2deg": np.rad2deg(x),
        "degrees": np.degrees(x), "spacing": np.spacing(x), "frexp mantissa": mantissa,
        "frexp exponent": exponent, "modf fraction": fraction, "modf whole": whole,
        "nextafter": np.nextafter(x, y), "nextafter back": np.nextafter(y, x),
        "ldexp": np.ldexp(x, i), "ldexp of frexp": np.ldexp(mantissa, exponent),
    }  # fmt: skip


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_float_functions_broadcast_non_contiguous(dtype, data):
    # x is every other row of a (6, 4) array, y (4,) and i (3, 1) broadcast against it.
    x = data.draw(hnp.arrays(dtype, (6, 4), elements=floats(dtype)))[::2]
    y = data.draw(hnp.arrays(dtype, (4,), elements=floats(dtype)))
    i = data.draw(hnp.arrays(np.int32, (3, 1), elements=exponents(np.int32)))
    check(float_parts, x, y, i)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_float_functions_on_every_float16_and_random_bits(dtype):
    """Every float16; 20,000 random float32/float64 bit patterns, with the edges against
    each other (nextafter) and exponents around the subnormal and overflow thresholds."""
    grid = np.array(edges(dtype), dtype)
    if dtype == np.float16:
        x = every_float16()
    else:
        x = np.concatenate([random_bits(dtype, 20_000, seed=1), grid])
    x = np.concatenate([x, np.repeat(grid, grid.size)])
    y = np.concatenate([x[: -(grid.size**2)][::-1], np.tile(grid, grid.size)])
    with np.errstate(invalid="ignore"):
        _, e = np.frexp(x)
    info = np.finfo(dtype)
    rng = np.random.default_rng(2)
    shift = rng.integers(-info.nmant - 4, 4, x.size)
    i = np.where(rng.random(x.size) < 0.5, info.minexp - e + shift, info.maxexp - e + shift)
    check(float_parts, x, y, i.astype(np.int32))


def test_spacing_at_the_edges():
    # spacing: x's sign (float16: never negative), +smallest subnormal for both zeros,
    # inf at the largest number, NaN at inf
    f64 = np.finfo(np.float64)
    expected = [f64.smallest_subnormal, f64.smallest_subnormal, -f64.eps, np.inf, np.nan]
    values = np.array([0.0, -0.0, -1.0, f64.max, np.inf])
    spacing = tj.function(lambda x: np.spacing(x))
    np.testing.assert_array_equal(spacing(values), expected)
    assert not np.signbit(spacing(np.float16([-1.0, -0.0, -np.finfo(np.float16).max]))).any()


@tj.function
def ldexp(x, i):
    return np.ldexp(x, i)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_ldexp_with_int64_exponents(dtype, data):
    x = data.draw(hnp.arrays(dtype, (5,), elements=floats(dtype)))
    i = data.draw(hnp.arrays(np.int64, (5,), elements=exponents(np.int64)))
    check(ldexp, x, i)


def test_ldexp_rounds_once_into_subnormals():
    """Odd integers scaled to halfway between subnormals: ties to even, no double rounding."""
    for dtype in FLOATS:
        info = np.finfo(dtype)
        x = np.arange(1, 200, 2).astype(dtype)
        x = np.concatenate([x, -x])
        _, e = np.frexp(x)
        for below in range(info.nmant + 3):
            check(ldexp, x, (info.minexp - info.nmant - e - below).astype(np.int32))


# --- bitwise_count ---------------------------------------------------------------------------


@tj.function
def bit_counts(*xs):
    return {x.dtype.name: np.bitwise_count(x) for x in xs}


def integers(dtype) -> st.SearchStrategy:
    info = np.iinfo(dtype)
    special = [0, 1, -1, int(info.min), int(info.max), int(info.min) + 1, int(info.max) - 1]
    return st.one_of(
        st.integers(int(info.min), int(info.max)),
        st.sampled_from([v for v in special if info.min <= v <= info.max]),
    )


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_bitwise_count_counts_the_bits_of_the_absolute_value(data):
    xs = [data.draw(hnp.arrays(dtype, (7,), elements=integers(dtype))) for dtype in INTS]
    xs.append(data.draw(hnp.arrays(np.bool_, (7,))))  # counted as int8
    check(bit_counts, *xs)


# --- promotion, Python scalars, 0-d and empty arrays ----------------------------------------


@tj.function
def promoted(b, i8, u16, i32, i64, u64, f16, f32, f64):
    return {
        "deg2rad(bool)": np.deg2rad(b),  # float16
        "radians(int8)": np.radians(i8),
        "rad2deg(uint16)": np.rad2deg(u16),  # float32
        "degrees(int64)": np.degrees(i64),  # float64
        "spacing(uint64)": np.spacing(u64),
        "spacing(int8)": np.spacing(i8),
        "modf(int32)": np.modf(i32),
        "modf(bool)": np.modf(b),
        "frexp(uint16)": np.frexp(u16),
        "frexp(int64)": np.frexp(i64),
        "ldexp(int8, int8)": np.ldexp(i8, i8),  # float16, int32 exponents
        "ldexp(uint16, bool)": np.ldexp(u16, b),
        "ldexp(float32, uint16)": np.ldexp(f32, u16),
        "ldexp(float16, int64)": np.ldexp(f16, i64),
        "ldexp(float64, 3)": np.ldexp(f64, 3),  # a Python int: int64 exponents for float64
        "ldexp(float32, -130)": np.ldexp(f32, -130),
        "ldexp(2.0, int32)": np.ldexp(2.0, i32),
        "nextafter(int8, float16)": np.nextafter(i8, f16),
        "nextafter(int32, 1)": np.nextafter(i32, 1),
        "nextafter(float32, 0.0)": np.nextafter(f32, 0.0),
        "nextafter(float16, -inf)": np.nextafter(f16, -np.inf),
        "bitwise_count(bool)": np.bitwise_count(b),
    }


def test_bool_and_integer_inputs_promote_as_numpy_loops():
    rng = np.random.default_rng(3)
    args = [rng.integers(0, 2, 6).astype(np.bool_)]
    for dtype in [np.int8, np.uint16, np.int32, np.int64, np.uint64]:
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, 6, dtype, endpoint=True)
        values[:3] = [info.min, info.max, 0]
        args.append(values)
    args += [np.array([0.0, -0.0, 1.5, -np.inf, np.nan, 6e-8], t) for t in FLOATS]
    check(promoted, *args)


@tj.function
def scalar_results(x, y):
    return np.spacing(x), np.frexp(x), np.modf(y), np.nextafter(x, y), np.ldexp(y, 5)


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (1, 1)], ids=str)
def test_0d_and_empty_arrays(shape):
    x = np.full(shape, -0.0, np.float32)
    y = np.full(shape, 2.75, np.float64)
    check(scalar_results, x, y)


def test_on_elements_and_python_numbers():
    @tj.function
    def mixed(x):
        return np.frexp(x[0]), np.modf(x[1]), np.deg2rad(x[0] * 2), np.nextafter(x[1], 1)

    check(mixed, np.array([-5e-324, -2.5]))


# --- vecdot, matvec, vecmat ------------------------------------------------------------------

GUFUNC_DTYPES = [
    np.bool_, np.int8, np.uint64, np.float16, np.float32, np.float64, np.complex64,
    np.complex128,
]  # fmt: skip


def small_values(dtype) -> st.SearchStrategy:
    """Integer-valued elements (complex: both parts), whose sums of products are exact."""
    kind = np.dtype(dtype).kind
    if kind == "b":
        return st.booleans()
    low = 0 if kind == "u" else -8
    if kind == "c":
        part = st.integers(-8, 8)
        return st.builds(complex, part, part)
    return st.integers(low, 8)


def products(a, b, m, v, w):
    """a (2, 1, 5), b (3, 5), m (2, 4, 3, 5) sliced non-contiguous, v (5,), w (3, 5)."""
    out = {
        "vecdot": np.vecdot(a, b),  # batch dims broadcast to (2, 3)
        "vecdot 1-D": np.vecdot(v, v),  # 0-d: a NumPy scalar
        "vecdot axis=0": np.vecdot(w.T, b.T, axis=0),
        "vecdot axis=-2": np.vecdot(m[:, ::2], m[:, 1::2], axis=-2),
        "vecdot empty": np.vecdot(a[..., :0], b[..., :0]),
    }
    if HAS_MATVEC:
        out["matvec"] = np.matvec(m[:, ::2], v)  # (2, 2, 3)
        out["matvec batch"] = np.matvec(m[0, 0], w)  # (3, 3)
        out["vecmat"] = np.vecmat(v, np.swapaxes(m, -1, -2))  # (2, 4, 3)
        out["vecmat batch"] = np.vecmat(w, m[1, 2:].swapaxes(-1, -2)[:, None])  # (2, 3, 3)
    return out


_PRODUCTS: dict = {}


def products_for(dtype) -> tj.Function:
    """One tj.Function per dtype, so hypothesis examples share a trace."""
    if dtype not in _PRODUCTS:
        _PRODUCTS[dtype] = tj.function(products)
    return _PRODUCTS[dtype]


@pytest.mark.parametrize("dtype", GUFUNC_DTYPES, ids=lambda d: np.dtype(d).name)
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_gufuncs_exact_on_integer_valued_data(dtype, data):
    def draw(shape):
        return data.draw(hnp.arrays(dtype, shape, elements=small_values(dtype)))

    shapes = (2, 1, 5), (3, 5), (2, 4, 3, 5), (5,), (3, 5)
    check(products_for(dtype), *(draw(shape) for shape in shapes))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128], ids=str)
def test_gufuncs_on_random_floats_agree_to_rounding(dtype):
    rng = np.random.default_rng(4)

    def draw(shape):
        x = rng.standard_normal(shape)
        return (x + 1j * rng.standard_normal(shape) if dtype == np.complex128 else x).astype(dtype)

    shapes = (2, 1, 5), (3, 5), (2, 4, 3, 5), (5,), (3, 5)
    eager, compiled = run_both(products_for(dtype), *(draw(shape) for shape in shapes))
    for name in eager:
        assert compiled[name].dtype == eager[name].dtype, name
        assert np.shape(compiled[name]) == np.shape(eager[name]), name
        np.testing.assert_allclose(compiled[name], eager[name], rtol=1e-5, atol=1e-5)


def test_gufuncs_conjugate_the_vector_in_vecdot_and_vecmat_only():
    @tj.function
    def complex_products(x, y, a):
        out = [np.vecdot(x, y), np.vecdot(y, x)]
        if HAS_MATVEC:
            out += [np.vecmat(x, a), np.matvec(a, x)]
        return out

    x = np.array([1 + 2j, -3j])
    y = np.array([2 - 1j, 4 + 1j])
    a = np.array([[1j, 2], [3, -1j]])
    eager, compiled = run_both(complex_products, x, y, a)
    for c, e in zip(compiled, eager, strict=True):
        assert_bits("complex", c, e)


def test_gufunc_mixed_dtypes_python_scalars_lists_and_out():
    @tj.function
    def mixed(i8, f32, u64):
        out = np.zeros(3, np.float32)
        np.vecdot(f32, [1, 2], out=out)
        return {
            "int8 . float32": np.vecdot(i8, f32),  # float32
            "uint64 . int8": np.vecdot(u64, i8),  # float64
            "list": np.vecdot([1, 2], i8),  # int64
            "out": out,
        }

    i8 = np.array([[1, -2], [3, 4], [-128, 127]], np.int8)
    f32 = np.array([[0.5, 2], [1, 1], [3, -1]], np.float32)
    check(mixed, i8, f32, np.array([7, 2**63], np.uint64))


def test_gufuncs_with_sizes_known_only_at_run_time():
    signature = [tj.TensorSpec((None, 3), np.float64), tj.TensorSpec((None, 3), np.float64)]

    @tj.function(input_signature=signature)
    def dynamic(a, b):
        out = [np.vecdot(a, b), np.vecdot(a, b, axis=0)]
        if HAS_MATVEC:
            out += [np.matvec(a[:, None, :], b), np.vecmat(b, a[:, :, None])]
        return out

    for rows in (4, 1, 0):
        a = np.arange(rows * 3.0).reshape(rows, 3)
        eager, compiled = run_both(dynamic, a, a - 1)
        for c, e in zip(compiled, eager, strict=True):
            assert_bits("dynamic", c, e)


# --- errors ------------------------------------------------------------------------------------


def raises_like_numpy(body, *args, error, match):
    with pytest.raises(error, match=match):
        body(*args)
    with pytest.raises(error, match=match):
        tj.function(body)(*args)


@pytest.mark.parametrize(
    "body, error, match",
    [
        (lambda x: np.vecdot(x, x[:, :2]), ValueError, "mismatch in its core dimension 0"),
        (lambda x: np.vecdot(x[0, 0], x), ValueError, "does not have enough dimensions"),
        (lambda x: np.vecdot(x, x, axis=2), np.exceptions.AxisError, "axis 2 is out of bounds"),
        (lambda x: np.vecdot(x, np.ones((5, 3))), ValueError, "could not be broadcast"),
        (lambda x: np.ldexp(x, x), TypeError, "'ldexp' not supported for the input types"),
        (lambda x: np.bitwise_count(x), TypeError, "'bitwise_count' not supported"),
        (lambda x: np.modf(x.astype(np.complex64)), TypeError, "'modf' not supported"),
        (lambda x: np.nextafter(x, 1j), TypeError, "'nextafter' not supported"),
        (lambda x: np.ldexp(x.astype(np.float32), 2**40), OverflowError, "out of bounds for int32"),
    ],
)
def test_errors_as_numpy(body, error, match):
    raises_like_numpy(body, np.ones((4, 3)), error=error, match=match)


@pytest.mark.skipif(not HAS_MATVEC, reason="np.matvec and np.vecmat are NumPy >= 2.2")
def test_matvec_vecmat_shape_errors_as_numpy():
    x = np.ones((4, 3))
    raises_like_numpy(lambda x: np.matvec(x[0], x[0]), x, error=ValueError, match="requires 2")
    raises_like_numpy(lambda x: np.matvec(x, x[0, :2]), x, error=ValueError, match="core dim")
    raises_like_numpy(lambda x: np.vecmat(x[0], x), x, error=ValueError, match="size 4 is diff")


def test_unsupported_keywords_are_refused_by_name():
    with pytest.raises(TypeError, match=r"np.vecdot\(\.\.\., keepdims=\.\.\.\) is not supported"):
        tj.function(lambda x: np.vecdot(x, x, keepdims=True))(np.ones(3))
    with pytest.raises(TypeError, match="modf"):  # two outputs: no `out=` tuple, as np.divmod
        tj.function(lambda x: np.modf(x, out=(x, x)))(np.ones(3))
