"""`np.sort` / `np.argsort`, compiled vs eager NumPy.

tracejit sorts stably, so `np.argsort` is compared with `np.argsort(..., kind="stable")`
(the traced functions below ask for kind="stable", which eager NumPy honours and tracejit
accepts); the sorted values are the same whatever the kind. Values are drawn with many
ties, signed zeros, infinities and NaNs, which is where a sort goes wrong.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import REAL_DTYPES, assert_same, run_eagerly
from tracejit.compiler.options import OPTIONS

pytestmark = pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # new shapes

DTYPES = REAL_DTYPES
shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6)
FLOATS = [-np.inf, -2.5, -1.0, -0.0, 0.0, 1.0, 3.0, np.inf, np.nan]


def elements(dtype):
    """Few distinct values (many ties), the extremes of integer dtypes included."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return st.sampled_from(FLOATS)
    if dtype.kind == "b":
        return st.booleans()
    info = np.iinfo(dtype)
    return st.sampled_from([info.min, info.min + 1, 0, 1, 2, info.max - 1, info.max])


@tj.function
def sorts(x, axis):
    return {
        "sort": np.sort(x, axis=axis),
        "argsort": np.argsort(x, axis=axis, kind="stable"),
    }


def check(function, *args):
    compiled = function(*args)
    assert_same(compiled, run_eagerly(function, *args), rtol=0)
    return compiled


@settings(max_examples=36, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(DTYPES), shape=shapes)
def test_sort_and_stable_argsort_match_numpy(data, dtype, shape):
    x = data.draw(hnp.arrays(dtype, shape, elements=elements(dtype)), label="x")
    axes = [None] + list(range(-len(shape), len(shape)))
    check(sorts, x, data.draw(st.sampled_from(axes), label="axis"))


def test_default_kind_gives_the_stable_order():
    @tj.function
    def f(x):
        return np.argsort(x), np.argsort(x, kind="quicksort"), np.sort(x, kind="heapsort")

    x = np.array([3, 1, 3, 1, 2, 3, 1], np.int16)
    by_default, quick, values = f(x)
    stable = np.argsort(x, kind="stable")
    np.testing.assert_array_equal(by_default, stable)
    np.testing.assert_array_equal(quick, stable)
    np.testing.assert_array_equal(values, np.sort(x))


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint16])
def test_large_inputs(dtype):
    """1e5 elements (17 merge passes), a 2-D sort along a strided axis, a strided input."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(100_000) * 1000).astype(dtype)
    check(sorts, x, 0)
    check(sorts, x.reshape(200, 500), 0)
    check(sorts, x.reshape(500, 200)[::2, ::-3], 1)  # a strided view as the input


def test_lengths_around_powers_of_two():
    """One kernel for every length (the length is read at run time)."""

    @tj.function(input_signature=(tj.TensorSpec([2, None], np.int32),))
    def f(x):
        return np.sort(x, axis=-1), np.argsort(x, axis=1, kind="stable")

    rng = np.random.default_rng(1)
    for n in (1, 2, 3, 7, 8, 9, 31, 33, 64, 65, 1000):
        x = rng.integers(-5, 5, (2, n)).astype(np.int32)
        assert_same(f(x), run_eagerly(f, x), rtol=0)


def test_no_access_leaves_its_buffers(monkeypatch):
    """Every load and store range-checked (a merge past the end of a run would fail)."""
    monkeypatch.setattr(OPTIONS, "check_bounds", True)
    f = tj.function(lambda x: (np.sort(x, axis=0), np.argsort(x, axis=1)))
    rng = np.random.default_rng(2)
    for shape in [(0, 3), (1, 1), (5, 3), (17, 9)]:
        x = rng.standard_normal(shape)
        sorted_rows, positions = f(x)
        np.testing.assert_array_equal(sorted_rows, np.sort(x, axis=0))
        np.testing.assert_array_equal(positions, np.argsort(x, axis=1, kind="stable"))


def test_dims_unknown_at_trace_time():
    @tj.function(input_signature=(tj.TensorSpec([None, 4], np.float64),))
    def f(x):
        return np.sort(x, axis=0), np.argsort(x, axis=0, kind="stable"), np.sort(x, axis=None)

    rng = np.random.default_rng(3)
    for n in (0, 1, 6):
        x = rng.integers(0, 3, (n, 4)).astype(np.float64)
        assert_same(f(x), run_eagerly(f, x), rtol=0)
    assert f.experimental_get_tracing_count() == 1


def test_sorted_constants_fold():
    f = tj.function(lambda: np.argsort(np.array([2.0, np.nan, -1.0, 2.0])) + 0)
    assert_same(f(), np.argsort(np.array([2.0, np.nan, -1.0, 2.0]), kind="stable"))
    assert "tj.sort" not in str(f.get_concrete_function().ir(after="canonicalize"))


def test_errors_are_numpys():
    with pytest.raises(np.exceptions.AxisError, match="axis -1 is out of bounds"):
        tj.function(lambda x: np.sort(x))(np.float32(1))
    assert_same(tj.function(lambda x: np.sort(x, axis=None))(np.float32(1)), np.ones(1, np.float32))
    with pytest.raises(ValueError, match="sort kind must be one of"):
        tj.function(lambda x: np.sort(x, kind="bubble"))(np.ones(3))
    with pytest.raises(TypeError, match=r"np.argsort\(..., order=...\)"):
        tj.function(lambda x: np.argsort(x, order="a"))(np.ones(3))


def test_in_place_ndarray_sort_is_refused():
    f = tj.function(lambda x: x.sort())
    with pytest.raises(AttributeError, match=r"ndarray.sort is not supported.*np.sort\(t"):
        f(np.ones(3))


def test_inside_staged_loops_and_branches():
    """The scans, sorts and rolls bufferize inside scf regions (temporaries freed there)."""

    @tj.function
    def f(x, n):
        acc = np.zeros_like(x)
        for i in range(n):
            acc = np.sort(acc + np.roll(x, i)) + np.cumsum(x)
            if np.sum(acc) > 10:
                acc = np.array([acc[0], acc[1], 1.0, acc[2]]).astype(x.dtype)
        return acc, np.argsort(acc)

    x = np.array([3.0, -1.0, 2.0, 0.5])
    for n in (0, 1, 3):
        assert_same(f(x, np.int64(n)), run_eagerly(f, x, np.int64(n)), rtol=0)


# Long lines take the radix sort (passes/bufferize/radix_sort.py): from 8 elements per 8-bit
# digit of the key (8 for int8 and bool, 32 for float32, 64 for int64), and past CHUNK
# (65536) elements in chunks. These lengths are around both edges.
RADIX_LENGTHS = (0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 300, 4097, 65537)


def nan(dtype, negative=False, payload=1):
    """A quiet NaN of `dtype` with the given sign and payload bits (NumPy keeps them)."""
    dtype = np.dtype(dtype)
    bits = dtype.itemsize * 8
    mantissa = {16: 10, 32: 23, 64: 52}[bits]
    exponent = ((1 << (bits - 1 - mantissa)) - 1) << mantissa
    quiet = 1 << (mantissa - 1)
    pattern = (negative << (bits - 1)) | exponent | quiet | payload
    return np.array([pattern], f"u{dtype.itemsize}").view(dtype)[0]


def radix_values(dtype, n, seed=0):
    """`n` values with many ties and a wide spread: negative numbers, -0.0 and +0.0 mixed,
    NaNs of both signs and several payloads, +-inf, the extremes of integer dtypes."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.random(n) < 0.3
    if dtype.kind == "f":
        nans = [nan(dtype), nan(dtype, True), nan(dtype, False, 5), nan(dtype, True, 3)]
        extremes = [np.finfo(dtype).max, -np.finfo(dtype).tiny]
        specials = [-0.0, 0.0, np.inf, -np.inf, -1.5, 1.5, *nans, *extremes]
        spread = (rng.standard_normal(n) * 1000).astype(dtype)
        picked = np.array(specials, dtype)[rng.integers(0, len(specials), n)]
        return np.where(rng.random(n) < 0.4, picked, spread).astype(dtype)
    info = np.iinfo(dtype)
    ties = np.array([info.min, info.min + 1, 0, 1, 2, info.max - 1, info.max], dtype)
    spread = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    return np.where(rng.random(n) < 0.4, ties[rng.integers(0, len(ties), n)], spread)


def assert_stably_sorted(x, values, positions, axis=-1):
    """positions is NumPy's stable argsort and values its sort, bit for bit (the order of
    -0.0 and +0.0, NaN signs and payloads)."""
    expected = np.argsort(x, axis=axis, kind="stable")
    np.testing.assert_array_equal(positions, expected)
    reference = np.sort(x, axis=axis, kind="stable")
    assert values.dtype == reference.dtype and values.shape == reference.shape
    assert values.tobytes() == reference.tobytes()
    assert values.tobytes() == np.take_along_axis(x, expected, axis).tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_radix_lengths_bit_for_bit(dtype):
    """One kernel for every length (dims unknown at trace time): short lines merge sorted,
    long ones radix sorted, the same stable order, NaNs last with their payloads."""

    @tj.function(input_signature=(tj.TensorSpec([None], dtype),))
    def f(x):
        return np.sort(x), np.argsort(x, kind="stable")

    for n in RADIX_LENGTHS:
        x = radix_values(dtype, n, seed=n)
        assert_stably_sorted(x, *f(x))
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_signed_zeros_and_nans_keep_their_order(dtype):
    """-0.0 == +0.0 and every NaN equal to every NaN: a stable sort keeps their input order
    (NaN payloads and signs survive np.sort)."""
    f = tj.function(lambda x: (np.sort(x), np.argsort(x, kind="stable")))
    nans = [nan(dtype, True, 7), nan(dtype), nan(dtype, False, 9), nan(dtype, True)]
    pattern = np.array([0.0, -0.0, nans[0], -0.0, nans[1], 0.0, -np.inf, nans[2], -0.0, np.inf,
                        nans[3]], dtype)  # fmt: skip
    for repeat in (1, 40, 10_000):  # merge sorted, then radix sorted
        x = np.tile(pattern, repeat)
        values, positions = f(x)
        assert_stably_sorted(x, values, positions)
        zeros = values == 0
        np.testing.assert_array_equal(np.signbit(values[zeros]), np.signbit(x[x == 0]))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint64, np.float32])
@pytest.mark.parametrize("n", [100_000, 1_000_000])
def test_radix_large_lines(dtype, n):
    """Many chunks; the same values in a few digits (passes skipped) and all different."""
    f = tj.function(lambda x: (np.sort(x), np.argsort(x, kind="stable")))
    x = radix_values(dtype, n, seed=n)
    assert_stably_sorted(x, *f(x))
    small = (x % 5).astype(dtype) if dtype != np.float32 else np.round(x / 500).astype(dtype)
    assert_stably_sorted(small, *f(small))  # high digits all equal: their passes skipped


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.uint32, np.int64, np.float16, np.float64])
def test_radix_lines_along_each_axis(dtype):
    """2-D arrays (dims unknown at trace time) sorted along each axis, contiguous and as
    strided views, long lines and short ones."""
    spec = tj.TensorSpec([None, None], dtype)

    @tj.function(input_signature=(spec,))
    def rows(x):
        return np.sort(x, axis=1), np.argsort(x, axis=1, kind="stable")

    @tj.function(input_signature=(spec,))
    def columns(x):
        return np.sort(x, axis=0), np.argsort(x, axis=0, kind="stable")

    for shape in [(3, 300), (300, 3), (20, 70), (70, 20), (0, 100), (100, 0)]:
        big = (shape[0] * 2, shape[1] * 2)  # a view of every other row and column, reversed
        x = radix_values(dtype, big[0] * big[1], seed=sum(shape)).reshape(big)
        for view in (x[: shape[0], : shape[1]], x[::2, ::-2][:, : shape[1]]):
            assert_stably_sorted(view, *rows(view), axis=1)
            assert_stably_sorted(view, *columns(view), axis=0)


def test_radix_no_access_leaves_its_buffers(monkeypatch):
    """Every load and store of the radix sort range-checked, its counts and chunks too."""
    monkeypatch.setattr(OPTIONS, "check_bounds", True)
    for dtype in (np.bool_, np.int8, np.float32, np.int64):
        f = tj.function(lambda x: (np.sort(x, axis=0), np.argsort(x, axis=-1, kind="stable")))
        g = tj.function(
            lambda x: (np.sort(x), np.argsort(x, kind="stable")),
            input_signature=(tj.TensorSpec([None], dtype),),
        )
        for shape in [(70, 3), (3, 70), (300, 2)]:
            x = radix_values(dtype, shape[0] * shape[1]).reshape(shape)
            sorted_columns, positions = f(x)
            assert sorted_columns.tobytes() == np.sort(x, axis=0, kind="stable").tobytes()
            np.testing.assert_array_equal(positions, np.argsort(x, axis=-1, kind="stable"))
        for n in (0, 1, 9, 100, 65536 * 2 + 1):
            x = radix_values(dtype, n)
            assert_stably_sorted(x, *g(x))


@settings(max_examples=24, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(DTYPES))
def test_radix_against_numpy(data, dtype):
    """Lines long enough for the radix sort, values with many ties (hypothesis)."""
    values = elements(dtype)
    if np.dtype(dtype).kind == "f":
        values = values | st.sampled_from([nan(dtype, True), nan(dtype, False, 3)])
    x = data.draw(hnp.arrays(dtype, st.integers(0, 400), elements=values), label="x")
    f = _radix_kernels.setdefault(np.dtype(dtype), _one_kernel(dtype))
    assert_stably_sorted(x, *f(x))


_radix_kernels: dict = {}


def _one_kernel(dtype):
    return tj.function(
        lambda x: (np.sort(x), np.argsort(x, kind="stable")),
        input_signature=(tj.TensorSpec([None], dtype),),
    )


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.int64])
def test_radix_chunks_for_any_thread_count(dtype):
    """A line of several chunks (counted by threads): the same result for 1, 2 and 3
    threads, NumPy's stable order."""
    f = tj.function(lambda x: (np.sort(x), np.argsort(x, kind="stable")))
    x = radix_values(dtype, 3 * 65536 + 5, seed=7)
    before = tj.config.num_threads()
    try:
        for threads in (1, 2, 3):
            tj.config.set_num_threads(threads)
            assert_stably_sorted(x, *f(x))
    finally:
        tj.config.set_num_threads(before)


COMPLEX_PARTS = [-1.0, -0.0, 0.0, 2.0, np.inf, np.nan]


@settings(max_examples=8, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from([np.complex64, np.complex128]),
    shape=hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=7),
)
def test_complex_numbers_sort_by_real_then_imaginary_part(data, dtype, shape):
    """NumPy's order [R + Rj, R + nanj, nan + Rj, nan + nanj], stably: few distinct parts,
    so ties and NaN in either part are common."""
    parts = hnp.arrays(np.float64, shape, elements=st.sampled_from(COMPLEX_PARTS))
    real, imag = data.draw(parts, label="real"), data.draw(parts, label="imag")
    x = np.empty(shape, dtype)
    x.real, x.imag = real, imag  # not real + 1j * imag: inf * 1j has a NaN real part
    axis = data.draw(st.sampled_from([None, 0, -1]), label="axis")
    compiled = check(sorts, x, axis)
    expected = {"sort": np.sort(x, axis=axis), "argsort": np.argsort(x, axis, kind="stable")}
    assert_same(compiled, expected, rtol=0)
