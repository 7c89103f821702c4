"""`np.cumsum` / `np.cumprod` and the ndarray methods, compiled vs eager NumPy.

A scan combines elements in NumPy's order, so every result must be bit-identical to
NumPy's (floats included: rtol 0), with NumPy's dtype (int8 -> int64, uint8 -> uint64,
bool -> int64, float16 stays float16).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import REAL_DTYPES, assert_same, run_eagerly

pytestmark = pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # new shapes

DTYPES = REAL_DTYPES
shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


@tj.function
def scans(x, axis):
    return {
        "cumsum": np.cumsum(x, axis=axis),
        "cumprod": np.cumprod(x, axis=axis),
        "method_sum": x.cumsum(axis),
        "method_prod": x.cumprod(axis=axis),
    }


def check_exactly(function, *args):
    assert_same(function(*args), run_eagerly(function, *args), rtol=0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf * 0 in eager NumPy
@settings(max_examples=60, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(DTYPES), shape=shapes)
def test_scans_match_numpy_exactly(data, dtype, shape):
    x = data.draw(hnp.arrays(dtype, shape), label="x")  # full range: NaN, inf, wrapping ints
    ndim = max(len(shape), 1)  # a 0-d array is scanned as shape (1,)
    axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)), label="axis")
    check_exactly(scans, x, axis)


@tj.function
def with_dtypes(x):
    return {
        "int8": np.cumsum(x, dtype=np.int8),  # cast first, then wrap in int8
        "bool_sum": np.cumsum(x, axis=0, dtype=bool),  # logical or so far
        "bool_prod": np.cumprod(x, axis=-1, dtype=np.bool_),  # logical and so far
        "float16": np.cumsum(x, dtype=np.float16),
        "uint64": x.cumprod(0, np.uint64),
        "float64": np.cumsum(x, 0, np.float64),
    }


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.uint8, np.float32, np.float64])
def test_dtype_argument_casts_first_then_accumulates(dtype):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 5)) * 100).astype(dtype)
    x.flat[3] = 0
    check_exactly(with_dtypes, x)


def test_float16_rounds_after_every_step():
    # 2048 + 1 rounds to 2048 in float16: NumPy's cumsum stops growing there
    ones = np.ones((3000, 2), np.float16)
    result = tj.function(lambda x: np.cumsum(x, axis=0))(ones)
    assert result[-1, 0] == 2048 and result.dtype == np.float16
    check_exactly(scans, ones, 0)


def test_zero_d_scans_as_one_element_and_other_axes_fail():
    check_exactly(scans, np.float32(2.5), None)
    check_exactly(scans, np.array(-3, np.int8), 0)
    check_exactly(scans, np.array(7, np.uint16), -1)
    with pytest.raises(np.exceptions.AxisError, match="axis 1 is out of bounds"):
        scans(np.float32(2.5), 1)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        scans(np.ones(3), 1.0)


def test_lists_and_non_contiguous_inputs():
    @tj.function
    def f(x):  # a list holding tensors goes through np.array first (NumPy's functions
        # see only top-level arguments, so np.cumsum([t, 2]) itself cannot dispatch)
        return np.cumsum(np.array([x[0, 0], 2, x[1, 2]])), np.cumprod(x.T, axis=1)

    x = np.arange(12.0).reshape(4, 3)[::2]
    assert_same(f(x), run_eagerly(f, x), rtol=0)


def test_dims_unknown_at_trace_time():
    @tj.function(input_signature=(tj.TensorSpec([None, 3], np.int32),))
    def f(x):
        return np.cumsum(x, axis=0), np.cumprod(x, axis=1), np.cumsum(x)

    for n in (0, 1, 5):
        x = np.arange(3 * n, dtype=np.int32).reshape(n, 3) - 4
        assert_same(f(x), run_eagerly(f, x), rtol=0)
    assert f.experimental_get_tracing_count() == 1


def test_out_is_refused_naming_the_line():
    f = tj.function(lambda x: np.cumsum(x, out=x))
    with pytest.raises(TypeError, match=r"np.cumsum\(..., out=...\) is not supported.*test_cumu"):
        f(np.ones(3))


def test_a_scan_of_a_constant_folds_to_numpy_values():
    f = tj.function(lambda: np.cumprod(np.arange(1, 6, dtype=np.int8), dtype=np.int8) + 0)
    assert_same(f(), run_eagerly(f), rtol=0)
    assert "tj.cumulative" not in str(f.get_concrete_function().ir(after="canonicalize"))
