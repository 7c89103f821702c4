"""complex64 and complex128 inside tj.function, compiled vs eager NumPy.

Tolerances, per part and relative to |expected| (`assert_complex_close`):
* `+ - * /`, negation, conj, reciprocal, real/imag, where, casts, comparisons, integral
  powers: bit for bit (the kernels use NumPy's own formulas: FMA products for `*` as
  NumPy's SIMD loop on contiguous arrays, Smith's division, npy_cpow's squaring).
* exp, log, sqrt, angle: 4 eps. Measured worst on 200k random values (|parts| in 1e-8..1e8):
  exp 1.4, log 2.8, sqrt 1.3, angle 1.0 eps (complex128); complex64 is computed in float64
  and rounded once, so it is within about an ulp of NumPy's cexpf/clogf/csqrtf.
* Non-integral powers exp(b * log(a)): 16 eps * (1 + |b log a|) (measured up to 23 eps for
  |a| <= 1e2, |b| <= 3): the rounding of b * log(a) is an absolute error that exp turns into
  a relative one, and it grows with |b log a|.
* complex64 results below float32's normal range: an absolute 4 subnormal ulps (NumPy
  rounds twice there, float32 products of float32 exponentials).
* Sums and means: n eps of the sum of |terms| (tracejit reassociates; NumPy sums pairwise).

Deviations from NumPy (documented in docs/guide.md):
* z ** w with a non-integral w where z has one infinite and one NaN part: NaN where glibc's
  cpow (C99's complex multiply recovers infinities) gives inf.
* `z ** 0.5` is exp(0.5 * log z), as np.power computes it; NumPy's `**` operator on arrays
  calls np.sqrt instead: equal within the tolerance above.
"""

from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import axis_for, run_eagerly

COMPLEX = [np.complex64, np.complex128]
REALS = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
         np.uint64, np.float16, np.float32, np.float64]  # fmt: skip
SHAPES = [(), (0,), (1,), (7,), (2, 3)]
SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan, 1e300, -1e300,
            1e-310, 710.0, -800.0, np.pi]  # fmt: skip


def eps(dtype) -> float:
    return float(np.finfo(dtype).eps)


def complex_arrays(dtype, shape, magnitude: float = 1e3):
    """Complex arrays whose parts are finite floats in [-magnitude, magnitude]."""
    part = np.float32 if dtype == np.complex64 else np.float64
    floats = st.floats(-magnitude, magnitude, width=32 if part == np.float32 else 64)
    parts = hnp.arrays(part, shape, elements=floats)
    pair = st.tuples(parts, parts)
    # Arrays also for shape (): NumPy multiplies two complex *scalars* with every product
    # rounded but 0-d arrays (what a traced 0-d argument is) with its FMA loop, so scalars
    # would compare two different NumPy results (documented in complex_semantics.py).
    return pair.map(lambda p: np.asarray(p[0] + 1j * p[1]).astype(dtype))


def specials(dtype) -> np.ndarray:
    """Every pair of special parts: zeros of both signs, infinities, NaN, huge, tiny (the
    huge ones are infinite in complex64)."""
    pairs = [complex(a, b) for a, b in itertools.product(SPECIALS, SPECIALS)]
    with np.errstate(over="ignore"):
        return np.array(pairs).astype(dtype)


def results(function, *args):
    """(compiled, eager) results of `function` on `args`, NumPy's warnings silenced."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        empty = "Mean of empty slice|Degrees of freedom"  # NumPy's mean of an empty axis
        warnings.filterwarnings("ignore", empty, RuntimeWarning)
        return function(*args), run_eagerly(function, *args)


def assert_bitwise(got, want) -> None:
    """Same dtype, shape and values, -0.0 apart from 0.0 and NaN where NumPy has NaN."""
    assert type(got) is type(want) or isinstance(got, np.generic), (type(got), type(want))
    assert got.dtype == want.dtype and np.shape(got) == np.shape(want)
    got, want = np.asarray(got), np.asarray(want)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g[w == 0]), np.signbit(w[w == 0]))


def assert_complex_close(got, want, rtol: float | np.ndarray, atol: float = 0.0) -> None:
    """Per part: NaN where NumPy has NaN, infinities equal, finite parts within
    rtol * scale + atol, the scale being |want| (the complex magnitude, so a tiny part of a
    large number is not held to a relative bound of its own) or the part's own magnitude
    where the other part is not finite."""
    assert got.dtype == want.dtype and np.shape(got) == np.shape(want)
    got, want = np.asarray(got), np.asarray(want)
    with np.errstate(all="ignore"):
        magnitude = np.where(np.isfinite(want), np.abs(want), 0)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        infinite = np.isinf(w)
        np.testing.assert_array_equal(g[infinite], w[infinite])
        finite = np.isfinite(w)
        assert np.isfinite(g[finite]).all()
        error = np.abs(g[finite] - w[finite])
        scale = np.maximum(magnitude[finite], np.abs(w[finite]))
        bound = np.broadcast_to(rtol, w.shape)[finite] * scale + atol
        assert (error <= bound).all(), (g[finite][error > bound], w[finite][error > bound])


# --- arithmetic ----------------------------------------------------------------------------


@tj.function
def arithmetic(a, b):
    return a + b, a - b, a * b, a / b, -a, np.conj(a), np.reciprocal(b), a.real, b.imag


@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # one trace per case
@pytest.mark.parametrize("dtype", COMPLEX)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_arithmetic_is_bitwise_numpy(dtype, data):
    shape = data.draw(st.sampled_from(SHAPES))
    a = data.draw(complex_arrays(dtype, shape))
    b = data.draw(complex_arrays(dtype, shape))
    for got, want in zip(*results(arithmetic, a, b), strict=True):
        assert_bitwise(got, want)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_arithmetic_special_values_are_bitwise_numpy(dtype):
    z = specials(dtype)
    for got, want in zip(*results(arithmetic, z, z[::-1].copy()), strict=True):
        assert_bitwise(got, want)


@tj.function
def integral_powers(z):
    return z**2, z**3, np.power(z, 7), np.power(z, -3), z**1, z**0, np.square(z)


@pytest.mark.parametrize("dtype", COMPLEX)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_integral_powers(dtype, data):
    """npy_cpow's repeated squaring in the element's own type, bit for bit."""
    z = data.draw(complex_arrays(dtype, (6,), magnitude=10.0))
    for got, want in zip(*results(integral_powers, z), strict=True):
        assert_bitwise(got, want)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_integral_powers_of_special_values(dtype):
    z = specials(dtype)
    for got, want in zip(*results(integral_powers, z), strict=True):
        assert_bitwise(got, want)


# --- transcendentals -----------------------------------------------------------------------


@tj.function
def transcendentals(z):
    return np.exp(z), np.log(z), np.sqrt(z), np.abs(z), np.angle(z), np.angle(z, deg=True)


def atol(dtype) -> float:
    return 4 * float(np.finfo(dtype).smallest_subnormal)


@pytest.mark.parametrize("dtype", COMPLEX)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_transcendentals(dtype, data):
    z = data.draw(complex_arrays(dtype, (8,), magnitude=100.0))
    for got, want in zip(*results(transcendentals, z), strict=True):
        assert_complex_close(got, want, 4 * eps(dtype), atol(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_transcendentals_of_special_values(dtype):
    """C99 Annex G's special values as NumPy gives them: signed zeros on the branch cuts,
    infinities, NaN parts; huge and tiny parts without overflow or underflow."""
    for got, want in zip(*results(transcendentals, specials(dtype)), strict=True):
        assert_complex_close(got, want, 4 * eps(dtype), atol(dtype))


def test_log_near_one_is_accurate():
    """log|z| for |z| close to 1 comes from log1p, not log(hypot) (which would give 0)."""
    z = np.array([1 + 1e-10j, 1e-9 - 1j, 0.6 + 0.8j, -1 + 1e-200j])
    got, want = results(tj.function(lambda z: np.log(z)), z)
    assert_complex_close(got, want, 4 * eps(np.float64))
    assert got[0].real > 0


def test_log_and_sqrt_of_a_modulus_beyond_the_largest_float_and_of_subnormals():
    """|z| of 1.3e308 * (1 + 1j) overflows (hypot is inf), log|z| and sqrt(z) do not; a
    subnormal |z| has lost bits its parts still have. Both went through hypot once: log
    gave inf and sqrt inf and 0 for the first, log was 54 ulps off for the second."""
    z = np.array(
        [1.3e308 + 1.3e308j, -1.3e308 + 1.3e308j, 1.7e308 - 1.7e308j, 3e307 + 1.7e308j,
         2.2e-313 + 2.2e-313j, -1e-320 + 1e-320j, 1e-310 + 3e-320j, 5e-324 + 0j],
        np.complex128,
    )  # fmt: skip
    function = tj.function(lambda z: (np.log(z), np.sqrt(z)))
    for got, want in zip(*results(function, z), strict=True):
        assert np.isfinite(want).all()
        assert_complex_close(got, want, 4 * eps(np.float64), atol(np.float64))


@tj.function
def powers(a, b):
    return a**b, np.power(a, 2.5), a**0.5, np.float_power(a, b)


@pytest.mark.parametrize("dtype", COMPLEX)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_complex_powers(dtype, data):
    a = data.draw(complex_arrays(dtype, (6,), magnitude=10.0))
    b = data.draw(complex_arrays(dtype, (6,), magnitude=3.0))
    got, want = results(powers, a, b)
    with np.errstate(all="ignore"):
        log_a = np.abs(np.log(a.astype(np.complex128)))
    for g, w, exponent in zip(got, want, [b, 2.5, 0.5, b], strict=True):
        amplified = 1 + np.abs(exponent) * np.nan_to_num(log_a, posinf=0)  # |b log a|
        assert_complex_close(g, w, 16 * eps(g.dtype) * amplified, atol(g.dtype))


def test_zero_to_a_complex_power():
    """0 ** b: 1 for b == 0, 0 for Re(b) > 0, NaN otherwise (npy_cpow)."""
    zero = np.zeros(5, np.complex128)
    b = np.array([0, 1 + 1j, -1 + 1j, 1j, 2.5])
    got, want = results(tj.function(lambda a, b: a**b), zero, b)
    assert_complex_close(got, want, 0.0)


# --- comparisons, extrema, classification ----------------------------------------------------


@tj.function
def comparisons(a, b):
    return (a == b, a != b, a < b, a <= b, a > b, a >= b, np.maximum(a, b), np.minimum(a, b),
            np.fmax(a, b), np.fmin(a, b), np.isnan(a), np.isinf(a), np.isfinite(a),
            np.logical_and(a, b), np.logical_not(a))  # fmt: skip


@pytest.mark.parametrize("dtype", COMPLEX)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_comparisons_are_lexicographic_like_numpy(dtype, data):
    """Few distinct parts (ties on the real part), NaN and inf parts included."""
    parts = st.sampled_from([0.0, -0.0, 1.0, 2.0, np.nan, np.inf])
    values = st.lists(st.tuples(parts, parts), min_size=9, max_size=9)
    a, b = (np.array([complex(*p) for p in data.draw(values)], dtype) for _ in range(2))
    for got, want in zip(*results(comparisons, a, b), strict=True):
        assert_bitwise(got, want)


# --- promotion and literals --------------------------------------------------------------------


@tj.function
def mixed(z, x):
    return z + x, x * z, x - 1j, x * (2 + 0.5j), np.where(x > 1, z, x), z / np.complex64(2 - 1j)


@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # one trace per case
@pytest.mark.parametrize("real", REALS)
@pytest.mark.parametrize("dtype", COMPLEX)
def test_promotion_with_every_real_dtype(dtype, real):
    """NEP 50: complex64 with float64 (or int32) is complex128, a Python complex is weak
    (float32 - 1j is complex64, int8 - 1j complex128), a NumPy complex scalar is strong."""
    z = np.array([1 + 2j, -3.5 + 0j, 0.25 - 1j], dtype)
    x = np.array([0, 1, 2]).astype(real)
    for got, want in zip(*results(mixed, z, x), strict=True):
        assert got.dtype == want.dtype
        assert_complex_close(got, want, 2 * eps(got.dtype))


def test_complex_literals_and_scalars():
    @tj.function
    def f(x, c):
        return x * 1j + (2 - 3j), np.complex64(1 + 2j) * x, c * x, abs(c), 1j * 1j + x

    x = np.array([1.0, -2.0], np.float32)
    for c in (np.complex128(0.5 - 1j), np.complex64(2j)):
        for got, want in zip(*results(f, x, c), strict=True):
            assert_bitwise(got, want)


# --- casts ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("real", REALS)
@pytest.mark.parametrize("dtype", COMPLEX)
def test_casts_between_complex_and_every_real_dtype(dtype, real):
    """Real -> complex is (x, 0); complex -> bool is z != 0; complex -> another real type
    keeps the real part, with NumPy's ComplexWarning (at trace time here)."""
    z = np.array([1.5 + 2j, -3 + 0j, 0j, 0.25 - 1j, 7j], dtype)
    x = np.array([0, 1, 5, 2, 1]).astype(real)
    f = tj.function(lambda z, x: (z.astype(real), x.astype(dtype), np.astype(x, np.complex64)))
    expect_warning = np.dtype(real).kind != "b"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for got, want in zip(*results(f, z, x), strict=True):
            assert_bitwise(got, want)
    warned = [w for w in caught if issubclass(w.category, np.exceptions.ComplexWarning)]
    assert bool(warned) == expect_warning
    assert all(w.filename == __file__ for w in warned)


def test_complex64_complex128_round_trip():
    z = specials(np.complex128)
    f = tj.function(lambda z: (z.astype(np.complex64), z.astype(np.complex64).astype(complex)))
    for got, want in zip(*results(f, z), strict=True):
        assert_bitwise(got, want)


# --- reductions and matmul ------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # one trace per case
@pytest.mark.parametrize("dtype", COMPLEX)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_reductions(dtype, data):
    shape = data.draw(st.sampled_from([(5,), (3, 4), (2, 0, 3)]))
    z = data.draw(complex_arrays(dtype, shape, magnitude=10.0))
    axis = data.draw(axis_for(len(shape)))
    keepdims = data.draw(st.booleans())

    def f(z):
        return (np.sum(z, axis=axis, keepdims=keepdims), np.mean(z, axis=axis),
                np.var(z, axis=axis), np.std(z, axis=axis, keepdims=keepdims),
                np.prod(z, axis=axis))  # fmt: skip

    got, want = results(tj.function(f), z)
    n = max(1, z.size)
    bound = n * eps(dtype) * max(1.0, float(np.sum(np.abs(z))))
    for g, w in zip(got[:4], want[:4], strict=True):
        assert g.dtype == w.dtype
        assert_complex_close(g, w, 0.0, atol=bound * (1 + float(np.max(np.abs(z), initial=0))))
    assert_complex_close(got[4], want[4], 4 * n * eps(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_matmul(dtype):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((3, 4, 5)) + 1j * rng.standard_normal((3, 4, 5))).astype(dtype)
    b = (rng.standard_normal((5, 2)) + 1j * rng.standard_normal((5, 2))).astype(dtype)
    x = rng.standard_normal((2,)).astype(np.float32)
    f = tj.function(lambda a, b, x: (a @ b, np.matmul(b, x), a[0] @ a[1].T))
    got, want = results(f, a, b, x)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        assert_complex_close(g, w, 0.0, atol=16 * eps(dtype) * 5 * 10)


# --- shapes, layouts, fusion -------------------------------------------------------------------


@tj.function
def everything(z, c):
    w = np.where(np.abs(z) > 1, z * c - 1j, np.exp(z) / (z + 2))
    return w, np.sum(w * np.conj(w)), np.zeros(3, dtype=complex) + c, np.zeros_like(z)


@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # one trace per case
@pytest.mark.parametrize("shape", SHAPES)
def test_zero_d_empty_and_small_shapes(shape):
    z = (np.arange(int(np.prod(shape))).reshape(shape) * (0.5 - 0.25j)).astype(np.complex128)
    got, want = results(everything, z, np.complex128(1 + 1j))
    for g, w in zip(got, want, strict=True):
        assert type(g) is type(w) or isinstance(g, np.generic)
        assert_complex_close(g, w, 8 * eps(np.float64))


def test_non_contiguous_and_byte_swapped_inputs():
    base = (np.arange(24).reshape(4, 6) + 1j * np.arange(24).reshape(4, 6)[::-1]) / 7
    swapped = base.astype(">c16")
    f = tj.function(lambda z, r: (z * z + r, np.abs(z) + r))
    cases = [(base[::2, 1::2], base.real[::2, ::2]), (base.T, base.imag.T), (swapped, base.real)]
    for z, r in cases:
        for got, want in zip(*results(f, z, r), strict=True):
            assert_bitwise(got, want)


def test_mandelbrot_counts_match_numpy():
    """z = z*z + c with |z| <= 2 masks, the brief's example: bit-identical products, so
    the same counts as NumPy at every point, on the set's boundary too."""

    @tj.function
    def mandel(c, n):
        z = np.zeros_like(c)
        count = np.zeros(c.shape, np.int64)
        for _ in range(n):
            z = np.where(np.abs(z) <= 2, z * z + c, z)
            count = count + (np.abs(z) <= 2)
        return count

    x, y = np.linspace(-2.1, 0.7, 41), np.linspace(-1.2, 1.2, 31)
    c = x[None, :] + 1j * y[:, None]
    got, want = results(mandel, c, 40)
    np.testing.assert_array_equal(got, want)
    assert 0 < (want == 40).sum() < want.size


# --- what is refused ----------------------------------------------------------------------------


def uses_sin(z):
    return np.sin(z) + 1


UNSUPPORTED = [
    (uses_sin, r"np.sin of complex numbers is not supported by tracejit"),
    (lambda z: z // 2, r"floor_divide.*not supported for the input types"),
    (lambda z: z % 2, r"remainder.*not supported for the input types"),
    (lambda z: np.max(z), r"np.max of complex numbers is not supported"),
    (lambda z: np.argmin(z, axis=0), r"np.argmin of complex numbers is not supported"),
    (lambda z: np.floor(z), r"floor.*not supported for the input types"),
    (lambda z: np.sign(z), r"np.sign of complex numbers is not supported"),
]


@pytest.mark.parametrize("function, message", UNSUPPORTED)
def test_unsupported_complex_operations_raise_at_the_users_line(function, message):
    with pytest.raises(TypeError, match=message) as info:
        tj.function(function)(np.ones(3, np.complex64))
    assert re.search(r"\(test_complex\.py:\d+\)", str(info.value)), str(info.value)
