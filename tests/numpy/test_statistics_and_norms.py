"""np.median / percentile / quantile, np.cov / corrcoef, np.linalg.norm and the diagonals
(np.diagonal, np.diag, np.trace), compiled and eagerly, over shapes, dtypes and NaNs."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

FLOATS = st.sampled_from([np.float64, np.float32])


def matrices(dtype=FLOATS, min_side=1, max_dims=3, min_dims=2):
    return dtype.flatmap(
        lambda d: hnp.arrays(
            d,
            hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=6),
            elements=st.floats(-1e3, 1e3, width=32)
            if np.dtype(d).kind == "f"
            else st.integers(-1000, 1000),
        )
    )


def check(function, *args, rtol=1e-5):
    f = tj.function(function)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's, on degenerate inputs
        assert_same(f(*args), run_eagerly(f, *args), rtol=rtol, atol=1e-6)


@settings(max_examples=10, deadline=None)
@given(x=matrices(min_dims=1), data=st.data())
def test_quantiles(x, data):
    axis = data.draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)))
    q = data.draw(st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=3)))
    keepdims = data.draw(st.booleans())

    def statistics(x):
        return (
            np.median(x, axis=axis, keepdims=keepdims),
            np.quantile(x, q, axis=axis, keepdims=keepdims),
            np.percentile(x, np.multiply(q, 100), axis=axis),
        )

    check(statistics, x)


@pytest.mark.parametrize("q", [0.3, 0.85397, 0.5])
def test_a_python_float_quantile_weights_as_numpy(q):
    """A Python float q is weak (NumPy 2): float32 data stays float32, but the weight and
    1 - weight are not rounded to float32 first (hypothesis found [-1000, 171], where the
    answer is a small difference of large numbers)."""

    def quantiles(x):
        return np.quantile(x, q), np.percentile(x, q * 100)

    x = np.array([-1000.0, 171.0], np.float32)
    f = tj.function(quantiles)
    assert_same(f(x), run_eagerly(f, x), rtol=0)
    assert_same(f(x), quantiles(x), rtol=0)


EXTREMES = [
    np.array([-32768, 32767, 5], np.int16),
    np.array([[0, 200, 7], [250, 10, 3]], np.uint8),
    np.array([-(2**63), 2**63 - 1, 0, 4]),
    np.array([1.5, np.nan, 2.0, 7.0], np.float32),
    np.array([3e38, 3e38], np.float32),
    np.array([1, 2], np.float16),
]
QUANTILES = [0.5, 0.1, 1, [0.1, 0.9], [0, 1], np.float32(0.3), np.float16(0.3)]


@pytest.mark.parametrize("x", EXTREMES, ids=lambda x: f"{x.dtype}{x.shape}")
@pytest.mark.parametrize("q", QUANTILES, ids=repr)
def test_quantiles_compute_as_numpy_in_the_data_and_q_dtypes(x, q):
    """NumPy's own steps, bit for bit: the virtual index in q's dtype (np.float32(0.3): a
    float32 weight), the neighbours' difference in the data's dtype (int16 and int64
    extremes wrap, as NumPy's do: the fuzzer found -1.38e18 where NumPy gives +1.38e18), an
    integer q taken without interpolation (an int result); the median as NumPy's mean of
    the middle values (float32 3e38 twice: inf)."""
    # (not np.multiply(0.5, 100): NumPy returns a 0-d quantile of a slice with a NaN in the
    # data's dtype, float32, and others in float64 for a strong float64 q; docs/guide.md)
    percent = q * 100 if type(q) in (int, float) else np.multiply(q, 100)

    def statistics(x):
        return np.quantile(x, q, axis=-1), np.percentile(x, percent), np.median(x)

    f = tj.function(statistics)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's overflow warnings
        expected = statistics(x)
        assert_same(f(x), expected, rtol=0)
        assert_same(run_eagerly(f, x), expected, rtol=0)


def test_quantiles_of_booleans_are_refused_as_numpy_refuses_them():
    def quantile(x):
        return np.quantile(x, 0.5)

    x = np.array([True, False, True])
    with pytest.raises(TypeError):
        quantile(x)
    with pytest.raises(TypeError, match=r"write x.astype\(np.int8\).*test_statistics"):
        tj.function(quantile)(x)
    check(lambda x: np.median(x), x)  # a mean: NumPy takes it
    # an integer q takes an element, without subtracting: NumPy takes it too (the fuzzer)
    check(lambda x: np.quantile(x, 0, axis=0, keepdims=True), x)
    check(lambda x: np.quantile(x, [0, 1]), x)


def test_quantiles_keep_dims_known_only_at_run_time():
    x = np.arange(24.0).reshape(2, 3, 4)

    def statistics(x):
        return (
            np.median(x, axis=-1, keepdims=True),
            np.quantile(x, [0.2, 0.7], axis=(0, 2)),
            np.percentile(x, 30, axis=2, keepdims=True),
        )

    f = tj.function(statistics, input_signature=[tj.TensorSpec([2, None, 4], np.float64)])
    assert_same(f(x), statistics(x), rtol=0)


# The run-time ranks and weights take the same steps as the static ones, whose test above
# runs every q with every array: here each array meets the three kinds of q (a Python float,
# a list, a float32 scalar), all seven with TRACEJIT_SLOW=1.
RUN_TIME_QUANTILES = QUANTILES if os.environ.get("TRACEJIT_SLOW") == "1" else [
    0.1, [0.1, 0.9], np.float32(0.3)]  # fmt: skip


@pytest.mark.parametrize("x", EXTREMES, ids=lambda x: f"{x.dtype}{x.shape}")
@pytest.mark.parametrize("q", RUN_TIME_QUANTILES, ids=repr)
def test_quantiles_along_dims_known_only_at_run_time(x, q):
    """The kernel computes NumPy's ranks and weights from the length it knows, in q's dtype:
    the same bits as the quantiles of a static length (the extremes above), and the median
    of a sliding window in a staged loop."""
    percent = q * 100 if type(q) in (int, float) else np.multiply(q, 100)

    def statistics(x):
        return (np.quantile(x, q, axis=-1), np.percentile(x, percent), np.median(x),
                np.quantile(x, q, axis=None, keepdims=True))  # fmt: skip

    f = tj.function(statistics, input_signature=[tj.TensorSpec([None] * x.ndim, x.dtype)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's overflow warnings
        expected = statistics(x)
        assert_same(f(x), expected, rtol=0)
        assert_same(run_eagerly(f, x), expected, rtol=0)


def sliding_median(x, width):
    out = np.empty(x.shape[0] - width + 1)
    for i in range(x.shape[0] - width + 1):
        out[i] = np.median(x[i : i + width])
    return out


def test_a_sliding_median_is_one_loop():
    x = np.random.default_rng(3).random(40)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        check(lambda x: sliding_median(x, 5), x)


def test_a_nan_makes_its_slice_statistic_nan():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])

    def statistics(x):
        return np.median(x, axis=1), np.percentile(x, [25, 75], axis=1), np.median(x)

    check(statistics, x)


@settings(max_examples=10, deadline=None)
@given(x=matrices(max_dims=2), rowvar=st.booleans(), bias=st.booleans())
def test_covariance_and_correlation(x, rowvar, bias):
    observations = x.shape[1 if rowvar else 0]
    if observations < 2:
        return  # NumPy divides by zero there (a warning and inf/nan): not compared

    def statistics(x):
        return np.cov(x, rowvar=rowvar, bias=bias), np.corrcoef(x, rowvar=rowvar)

    check(statistics, x, rtol=1e-4)


ORDERS_VECTOR = [None, 1, 2, 3, 0, np.inf, -np.inf, -1, 0.5]
ORDERS_MATRIX = [None, "fro", 1, -1, np.inf, -np.inf]


@settings(max_examples=10, deadline=None)
@given(x=matrices(min_dims=1), data=st.data(), keepdims=st.booleans())
def test_norms(x, data, keepdims):
    def vector_norms(x):
        return tuple(
            np.linalg.norm(x, order, axis=-1, keepdims=keepdims)
            for order in ORDERS_VECTOR
            if not (order is not None and order < 1 and 0 in x.shape)
        )

    check(vector_norms, x, rtol=1e-4)
    if x.ndim >= 2:

        def matrix_norms(x):
            return tuple(
                np.linalg.norm(x, order, axis=(-2, -1), keepdims=keepdims)
                for order in ORDERS_MATRIX
            )

        check(matrix_norms, x, rtol=1e-4)
    check(lambda x: np.linalg.norm(x), x, rtol=1e-4)


@settings(max_examples=10, deadline=None)
@given(x=matrices(min_dims=2), keepdims=st.booleans(), axes=st.sampled_from([(-2, -1), (-1, -2)]))
def test_matrix_norms_from_singular_values(x, keepdims, axes):
    """The matrix 2, -2 and 'nuc' norms are the largest, smallest and summed singular
    values (LAPACK's ?gesdd, from SciPy). float32 is computed in float32 (NumPy computes
    in double): the smallest value of a singular matrix is then float32 rounding noise,
    so the tolerance scales with the largest."""
    pytest.importorskip("scipy", reason="singular values come from SciPy's LAPACK")

    def spectral(x):
        return tuple(np.linalg.norm(x, o, axis=axes, keepdims=keepdims) for o in (2, -2, "nuc"))

    f = tj.function(spectral)
    scale = float(np.max(np.linalg.norm(x.astype(np.float64), 2, axis=(-2, -1)), initial=1.0))
    noise = (1e-5 if x.dtype == np.float32 else 1e-12) * max(x.shape[-2:]) * scale
    assert_same(f(x), run_eagerly(f, x), rtol=1e-4, atol=noise)


@settings(max_examples=10, deadline=None)
@given(x=matrices(dtype=st.sampled_from([np.float64, np.int32])), offset=st.integers(-4, 4))
def test_diagonals(x, offset):
    def diagonals(x):
        return (
            np.diagonal(x, offset),
            np.trace(x, offset),
            np.diagonal(x, offset, axis1=-1, axis2=0),
            np.diag(np.diagonal(x[..., :, :], 0, -2, -1).reshape(-1)[:5], offset),
            x.trace(),
            np.diagflat(x[..., :2, :2], offset),
            np.diagflat([[1, 2], [3, 4]], -offset),
        )

    check(diagonals, x)


@settings(max_examples=6, deadline=None)
@given(x=matrices(dtype=st.sampled_from([np.float64, np.int32]), min_side=0),
       offset=st.integers(-4, 4))  # fmt: skip
def test_diagonals_of_dims_unknown_at_trace_time(x, offset):
    """The diagonal's length, max(min(rows - r0, columns - c0), 0), is a run-time size; a
    vector's square (np.diag, np.diagflat) is (n + |k|) on a side."""

    def diagonals(x, v):
        return (np.diagonal(x, offset), np.trace(x, offset), np.diag(v, offset),
                np.diagflat(v, -offset))  # fmt: skip

    v = x.reshape(-1)[:5]
    unknown = [tj.TensorSpec([None] * x.ndim, x.dtype), tj.TensorSpec([None], x.dtype)]
    f = tj.function(diagonals, input_signature=unknown)
    assert_same(f(x, v), run_eagerly(f, x, v))
    assert_same(f(x, v), diagonals(x, v))


@pytest.mark.parametrize("rowvar", [True, False])
@pytest.mark.parametrize(
    "shapes", [((3,), None), ((1, 3), None), ((2, 3), (3,)), ((2, 3), (1, 3)), ((3,), (2, 3))]
)
def test_cov_reads_variables_as_numpy_does_for_every_rowvar(shapes, rowvar):
    """NumPy transposes `m` for rowvar=False unless it is 1-d, and `y` unless it is one row
    (the fuzzer found a 1-d m with rowvar=False made 2 x 2 where NumPy gives a 0-d)."""
    m_shape, y_shape = shapes
    m = np.arange(np.prod(m_shape), dtype=np.float64).reshape(m_shape) ** 2
    if y_shape is None:
        check(lambda m: np.cov(m, rowvar=rowvar, bias=True), m)
        return
    y = np.cos(np.arange(np.prod(y_shape), dtype=np.float64)).reshape(y_shape)
    try:
        np.cov(m, y, rowvar=rowvar)
    except ValueError:
        with pytest.raises(ValueError):
            tj.function(lambda m, y: np.cov(m, y, rowvar=rowvar))(m, y)
        return
    check(lambda m, y: np.cov(m, y, rowvar=rowvar), m, y)


def test_a_quantile_taken_at_an_integer_rank_is_an_array_of_its_own():
    """np.quantile(x, 0, keepdims=True) takes the element (no interpolation), as NumPy's
    np.take: a new array, which the program may write into (not a view of the sorted data)."""

    def quantile(x):
        v = np.quantile(x, 0, axis=None, keepdims=True)
        v[::-1][...] = 5
        return v, x

    check(quantile, np.array([[3, 1], [2, 7]]))
