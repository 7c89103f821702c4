"""`np.fft` on traced arrays, compiled (tj.fft's generated loops) vs eager NumPy (pocketfft).

The two compute in different orders, so results are compared with a bound, not exactly:
the largest difference over the whole result, relative to its largest magnitude, must be
at most ERROR_BOUND machine epsilons of the dtype (float32 for complex64 results). The
bound is what benchmarks/fft_accuracy.py measured (over 611 lengths up to 4,096: every one
to 512, the powers of two, 48 primes and 48 others, at most 4.6 eps from NumPy in
complex128 and 2.6 eps in complex64), with room to spare.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import run_eagerly

pytestmark = pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # new shapes

ERROR_BOUND = 16  # epsilons: max |compiled - NumPy| / max |NumPy|
DTYPES = [np.float32, np.float64, np.complex64, np.complex128, np.int32, np.int64, np.bool_]
NORMS = [None, "backward", "ortho", "forward"]
# lengths that take each route: 1, radix 2/4 (powers of two), odd radices (3, 5, 7, 11,
# 13 and products), Bluestein (a prime factor above 13: 17, 34, 97)
LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17, 30, 32, 34, 64, 97]


def real_epsilon(dtype: np.dtype) -> float:
    return float(np.finfo(np.float32 if dtype in (np.complex64, np.float32) else np.float64).eps)


def assert_fft_close(compiled, eager):
    if isinstance(eager, dict):
        assert compiled.keys() == eager.keys()
        for key in eager:
            assert_fft_close(compiled[key], eager[key])
        return
    if isinstance(eager, tuple | list):
        for c, e in zip(compiled, eager, strict=True):
            assert_fft_close(c, e)
        return
    assert isinstance(compiled, np.ndarray)
    assert compiled.dtype == eager.dtype, (compiled.dtype, eager.dtype)
    assert compiled.shape == eager.shape, (compiled.shape, eager.shape)
    if eager.size == 0:
        return
    scale = float(np.abs(eager).max())
    error = float(np.abs(compiled.astype(np.complex128) - eager).max())
    assert error <= ERROR_BOUND * real_epsilon(eager.dtype) * max(scale, 1e-30), (error, scale)


def check(function, *args):
    """Compiled vs eager (and the trace holds a tj.fft: no call back into NumPy)."""
    eager = run_eagerly(function, *args)
    assert_fft_close(function(*args), eager)


def random_array(data, dtype, shape):
    """Values in [-1, 1) (finite: an inf spreads NaN over a whole transform either way)."""
    if dtype == np.bool_:
        return data.draw(hnp.arrays(dtype, shape))
    if np.dtype(dtype).kind == "i":
        return data.draw(hnp.arrays(dtype, shape, elements=st.integers(-100, 100)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    x = rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dtype)


@tj.function
def forward_and_inverse(x, n, axis, norm):
    return np.fft.fft(x, n=n, axis=axis, norm=norm), np.fft.ifft(x, n=n, axis=axis, norm=norm)


@settings(max_examples=24, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(DTYPES),
    length=st.sampled_from(LENGTHS),
    batch=st.sampled_from([(), (3,), (2, 1)]),
    norm=st.sampled_from(NORMS),
)
def test_fft_and_ifft_match_numpy(data, dtype, length, batch, norm):
    ndim = len(batch) + 1
    axis = data.draw(st.integers(-ndim, ndim - 1), label="axis")
    shape = list(batch)
    shape.insert(axis % ndim, length)
    x = random_array(data, dtype, tuple(shape))
    n = data.draw(st.one_of(st.none(), st.sampled_from([1, 5, 8, 17, length + 3])), label="n")
    check(forward_and_inverse, x, n, axis, norm)


@tj.function
def real_transforms(x, n, axis, norm):
    spectrum = np.fft.rfft(x, n=n, axis=axis, norm=norm)
    return spectrum, np.fft.irfft(spectrum, n=n, axis=axis, norm=norm)


@settings(max_examples=15, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from([np.float32, np.float64, np.int16]),
    length=st.sampled_from([1, 2, 3, 8, 10, 17, 24, 26, 34]),  # 26, 34: packed odd, Bluestein
    norm=st.sampled_from(NORMS),
)
def test_rfft_and_irfft_match_numpy(data, dtype, length, norm):
    x = random_array(data, dtype, (2, length))
    axis = data.draw(st.sampled_from([-1, 1]), label="axis")
    n = data.draw(st.one_of(st.none(), st.sampled_from([2, 7, 16, 34])), label="n")
    if n is None and length == 1:  # irfft's default length 2 * (1 - 1) = 0: NumPy raises
        n = 2
    check(real_transforms, x, n, axis, norm)


@tj.function
def irfft_of(z, n):
    return np.fft.irfft(z, n)


@pytest.mark.parametrize("n", [None, 1, 2, 5, 6, 9])
def test_irfft_ignores_the_imaginary_parts_of_the_zero_and_nyquist_terms(n):
    z = np.array([1 + 2j, 3 - 1j, -2 + 0.5j, 4 + 4j], np.complex128)  # not Hermitian
    check(irfft_of, z, n)


@tj.function
def several_axes(x):
    return {
        "fft2": np.fft.fft2(x),
        "ifft2": np.fft.ifft2(x, s=(3, 5)),
        "fftn": np.fft.fftn(x),
        "fftn_axes": np.fft.fftn(x, s=(4, 2), axes=(0, 2), norm="ortho"),
        "ifftn": np.fft.ifftn(x, axes=(1,)),
        "repeated": np.fft.fftn(x, axes=(1, 1)),
        "rfftn": np.fft.rfftn(x.real),
        "rfft2": np.fft.rfft2(x.real, s=(6, 4), norm="forward"),
        "irfftn": np.fft.irfftn(x),
        "irfft2": np.fft.irfft2(x, s=(2, 7)),
    }


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_multi_axis_transforms_match_numpy(dtype):
    rng = np.random.default_rng(0)
    x = (rng.uniform(-1, 1, (4, 6, 5)) + 1j * rng.uniform(-1, 1, (4, 6, 5))).astype(dtype)
    check(several_axes, x)


@tj.function
def strided(x):
    return np.fft.fft(x[::2, 1::3]), np.fft.fft(x.T, axis=0), np.fft.fft2(np.flip(x, 1))


def test_non_contiguous_inputs():
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (12, 20)) + 1j * rng.uniform(-1, 1, (12, 20))
    check(strided, x)
    check(strided, np.asfortranarray(x))
    check(strided, x[::-1, ::2])  # a negatively strided argument


@tj.function
def shifts_and_frequencies(x):
    return {
        "fftshift": np.fft.fftshift(x),
        "ifftshift": np.fft.ifftshift(x),
        "shift_axis": np.fft.fftshift(x, axes=1),
        "shift_axes": np.fft.ifftshift(x, axes=(0,)),
        "round_trip": np.fft.ifftshift(np.fft.fftshift(x)),
        "fftfreq": np.fft.fftfreq(x.shape[1], d=0.5) * x,
        "rfftfreq": np.fft.rfftfreq(9) + x[0, 0],
    }


@pytest.mark.parametrize("shape", [(5, 9), (4, 8), (1, 1)])
def test_shifts_and_frequencies_are_numpy_s(shape):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    eager = run_eagerly(shifts_and_frequencies, x)
    compiled = shifts_and_frequencies(x)
    for key in eager:
        np.testing.assert_array_equal(compiled[key], eager[key], err_msg=key)
        assert compiled[key].dtype == eager[key].dtype


@tj.function
def transform_of(x):
    return np.fft.fft(x)


@pytest.mark.parametrize("n", [1024, 4096, 1009, 4093, 2 * 3 * 5 * 7 * 11 * 13])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_long_transforms_within_the_bound(n, dtype):
    """Power-of-two, prime (Bluestein, including a run-time chirp above 2,048) and
    mixed-radix lengths; the twiddle table is made per call above 4,096 entries."""
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    check(transform_of, x)


def test_accuracy_against_a_long_double_reference():
    """The relative RMS error against np.clongdouble's FFT is within a small multiple of
    NumPy's own (and a few epsilons) for each route."""
    rng = np.random.default_rng(7)
    for n in (64, 243, 1000, 1009, 8192):
        x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
        reference = np.fft.fft(x.astype(np.clongdouble))
        norm = np.linalg.norm((reference).astype(np.complex128))

        def rms(y, reference=reference, norm=norm):
            return float(
                np.linalg.norm((y.astype(np.clongdouble) - reference).astype(complex)) / norm
            )

        ours, numpy_s = rms(transform_of(x)), rms(np.fft.fft(x))
        eps = np.finfo(np.float64).eps
        assert ours <= max(4 * numpy_s, 6 * eps), (n, ours, numpy_s)


@tj.function
def fused_neighbours(x):
    return np.abs(np.fft.fft(x * 2.0 + 1.0)) ** 2


def test_the_trace_holds_a_tj_fft_that_fusion_leaves_alone():
    x = np.linspace(0, 1, 16)
    concrete = fused_neighbours.get_concrete_function(x)
    assert 'tj.fft "forward"' in str(concrete.graph)
    fused = concrete.ir(after="fuse-elementwise")
    fft_line = next(line for line in fused.splitlines() if "tj.fft" in line)
    assert "tj.fused" not in fft_line  # its operand and user are fused kernels around it
    assert fused.count("tj.fused") >= 2
    check(fused_neighbours, x)


def test_dynamic_batch_dims():
    spec = tj.TensorSpec([None, 12], np.complex128)
    function = tj.function(lambda x: np.fft.fft(x), input_signature=[spec])
    for rows in (0, 1, 5):
        x = np.arange(rows * 12).reshape(rows, 12) * (1 + 0.5j)
        assert_fft_close(function(x), np.fft.fft(x))


def test_a_transform_along_an_unknown_dim_needs_n():
    spec = tj.TensorSpec([None], np.float64)
    function = tj.function(lambda x: np.fft.fft(x), input_signature=[spec])
    with pytest.raises(NotImplementedError, match=r"needs n=.*test_fft\.py:\d+"):
        function(np.ones(4))


@tj.function
def bad_length(x, n):
    return np.fft.fft(x, n)


@tj.function
def bad_norm(x):
    return np.fft.ifft(x, norm="none")


@tj.function
def complex_rfft(x):
    return np.fft.rfft(x)


@tj.function
def with_out(x):
    return np.fft.fft(x, out=np.empty(4, complex))


@tj.function
def s_without_axes(x):
    return np.fft.fftn(x, s=(2, 2))


@pytest.mark.parametrize(
    ("function", "args", "error", "message"),
    [
        (bad_length, (np.ones(4), 0), ValueError, r"Invalid number of FFT data points \(0\)"),
        (bad_length, (np.ones(4), -3), ValueError, r"Invalid number of FFT data points \(-3\)"),
        (bad_length, (np.ones(0), None), ValueError, r"Invalid number of FFT data points \(0\)"),
        (bad_norm, (np.ones(4),), ValueError, "Invalid norm value none"),
        (complex_rfft, (np.ones(4) + 1j,), TypeError, "rfft"),
    ],
)
def test_numpy_errors_are_numpy_s_and_name_the_user_line(function, args, error, message):
    with pytest.raises(error):
        run_eagerly(function, *args)
    with pytest.raises(error, match=message + r".*test_fft\.py:\d+"):
        function(*args)


@pytest.mark.parametrize(
    ("function", "message"),
    [
        (with_out, r"np\.fft\.fft\(\.\.\., out=\.\.\.\) is not supported"),
        (s_without_axes, r"without axes="),
    ],
)
def test_unsupported_arguments_are_refused_at_the_user_line(function, message):
    with pytest.raises(TypeError, match=message + r".*test_fft\.py:\d+"):
        function(np.ones((4, 4)))


@pytest.mark.parametrize("norm", ["ortho", "forward"])
@pytest.mark.parametrize("transform", ["fft", "ifft", "rfft", "irfft"])
def test_a_float16_input_is_scaled_as_numpy_scales_it_in_float16(transform, norm):
    """NumPy computes the norm's factor in the input's real dtype: for float16, 1/sqrt(3)
    rounded to float16, applied to the complex64 transform (the fuzzer found tracejit's
    float32 factor 1e-4 away from NumPy's result)."""
    x = np.array([[-5.0, 3.0, 1.251], [0.5, -1.439, 2.0]], np.float16)

    def f(x):
        return getattr(np.fft, transform)(x, n=3, norm=norm)

    compiled, expected = tj.function(f)(x), f(x)
    assert compiled.dtype == expected.dtype
    # one ulp of the result's real dtype: the transform itself runs in float32
    ulp = np.finfo(expected.real.dtype).eps * np.max(np.abs(expected))
    np.testing.assert_allclose(compiled, expected, rtol=0, atol=float(ulp))
    assert_fft_close(run_eagerly(tj.function(f), x), expected)
