"""`ufunc.outer`, `ufunc.reduce` and `ufunc.accumulate` on tensors, compiled and eagerly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

DTYPES = st.sampled_from([np.float64, np.float32, np.int32, np.int64])


def arrays(min_dims=1):
    return DTYPES.flatmap(
        lambda dtype: hnp.arrays(
            dtype,
            hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=0, max_side=5),
            elements=hnp.from_dtype(np.dtype(dtype), allow_nan=True, allow_infinity=False)
            if np.dtype(dtype).kind == "f"
            else st.integers(-50, 50),
        )
    )


def check(function, *args):
    f = tj.function(function)
    assert_same(f(*args), run_eagerly(f, *args), rtol=1e-5)


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.maximum, np.less])
@settings(max_examples=10, deadline=None)
@given(a=arrays(min_dims=0), b=arrays(min_dims=0))
def test_outer(ufunc, a, b):
    def outer(a, b):
        return ufunc.outer(a, b)

    check(outer, a, b)


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum])
@settings(max_examples=10, deadline=None)
@given(x=arrays(), data=st.data())
def test_reduce_and_accumulate(ufunc, x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    if ufunc in (np.maximum, np.minimum) and x.shape[axis] == 0:
        return  # NumPy: a zero-size reduction without identity raises (tested below)

    def reduced(x):
        return ufunc.reduce(x, axis=axis), ufunc.reduce(x, axis=axis, keepdims=True)

    def accumulated(x):
        return ufunc.accumulate(x, axis=axis)

    check(reduced, x)
    check(accumulated, x)


_MORE_SCANS = [np.fmax, np.fmin, np.hypot, np.bitwise_and, np.bitwise_or, np.bitwise_xor]
_SCAN_DTYPES = [np.float64, np.float32, np.float16, np.int8, np.uint16, np.int64, np.bool_]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("ufunc", _MORE_SCANS, ids=lambda u: u.__name__)
@settings(max_examples=10, deadline=None)
@given(
    dtype=st.sampled_from(_SCAN_DTYPES),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5),
    data=st.data(),
)
def test_more_accumulates(ufunc, dtype, shape, data):
    """fmax/fmin (NaN-ignoring), hypot and the bitwise scans, in NumPy's dtypes (hypot of
    int8 is float16) or with NumPy's TypeError (bitwise of floats); fmax/fmin reduce as
    np.nanmax/np.nanmin. Values hold NaN and inf but no -0.0: NumPy's own fmax.accumulate
    answers a tie of -0.0 and 0.0 differently by the array's length."""
    values = st.sampled_from([0.0, 1.0, -2.0, 3.5, np.inf, -np.inf, np.nan])
    x = np.array(data.draw(st.lists(values, min_size=int(np.prod(shape)),
                                    max_size=int(np.prod(shape)))), np.float64)  # fmt: skip
    with np.errstate(invalid="ignore"):
        x = x.reshape(shape).astype(dtype) if dtype != np.bool_ else x.reshape(shape) > 0
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    try:
        expected = ufunc.accumulate(x, axis=axis)
    except TypeError:
        with pytest.raises(TypeError, match="not supported for the input types"):
            tj.function(lambda x: ufunc.accumulate(x, axis=axis))(x)
        return
    scan = tj.function(lambda x: ufunc.accumulate(x, axis=axis))
    compiled = scan(x)
    assert_same(compiled, run_eagerly(scan, x))
    assert_same(compiled, expected)
    if ufunc in (np.fmax, np.fmin) and x.shape[axis]:
        check(lambda x: ufunc.reduce(x, axis=axis), x)


@settings(max_examples=10, deadline=None)
@given(x=arrays())
def test_logical_reductions_and_bool_scans(x):
    def logical(x):
        return (
            np.logical_or.reduce(x > 0, axis=None),
            np.logical_and.reduce(x > 0, axis=0),
            np.maximum.accumulate(x > 0, axis=-1),
            np.minimum.accumulate(x < 3),
        )

    check(logical, x)


def test_a_running_maximum_propagates_nan_as_numpy():
    x = np.array([1.0, 3.0, np.nan, 2.0, 5.0])

    @tj.function
    def drawdown(prices):
        peak = np.maximum.accumulate(prices)
        return (prices - peak) / peak

    assert_same(drawdown(x), run_eagerly(drawdown, x))


def test_methods_tracejit_does_not_compile_are_refused_by_name():
    @tj.function
    def unary_at(x):
        np.logical_not.at(x, [0])  # .at of a unary ufunc that is no single operation here
        return x

    with pytest.raises(NotImplementedError, match=r"np\.logical_not\.at on bool is not supported"):
        unary_at(np.ones(3, bool))

    @tj.function
    def subtract_reduce(x):
        return np.subtract.reduce(x)

    with pytest.raises(TypeError, match=r"np\.subtract\.reduce is not supported"):
        subtract_reduce(np.ones(3))
