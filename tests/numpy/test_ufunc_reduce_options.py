"""`ufunc.reduce` with `initial=` and `where=`, and `ufunc.reduceat`, compiled vs eager vs
NumPy over shapes, axes, dtypes and NaN."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

REDUCING = [np.add, np.multiply, np.maximum, np.minimum]
DTYPES = [np.float64, np.float32, np.int32, np.int64, np.uint8]


def values(dtype, shape):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        # no magnitudes below 2**-10: a product of tiny values underflows into subnormals,
        # rounded to a multiple of the smallest one in a way that depends on the order of
        # the products (NumPy's pairwise, the kernel's sequential)
        width = dtype.itemsize * 8
        magnitudes = st.floats(2.0**-10, 10, width=width)
        elements = st.just(0.0) | magnitudes | magnitudes.map(lambda v: -v) | st.just(np.nan)
    else:
        elements = st.integers(0, 9)
    return hnp.arrays(dtype, shape, elements=elements)


def three_ways(function, *args):
    compiled = tj.function(function)(*args)
    with np.errstate(all="ignore"):
        eager = run_eagerly(tj.function(function), *args)
        plain = function(*args)
    assert_same(compiled, eager, rtol=1e-5)
    assert_same(compiled, plain, rtol=1e-5)


@pytest.mark.parametrize("ufunc", REDUCING, ids=lambda u: u.__name__)
@settings(max_examples=12, deadline=None)
@given(dtype=st.sampled_from(DTYPES), data=st.data())
def test_reduce_with_initial_and_where(ufunc, dtype, data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    x = data.draw(values(dtype, shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    keepdims = data.draw(st.booleans())
    mask = data.draw(hnp.arrays(np.bool_, shape[-1:]))  # broadcast over the leading dims

    def with_initial(x):
        return ufunc.reduce(x, axis=axis, keepdims=keepdims, initial=3)

    def with_where(x, mask):
        return ufunc.reduce(x, axis=axis, where=mask, initial=5, keepdims=keepdims)

    three_ways(with_initial, x)
    three_ways(with_where, x, mask)
    if ufunc.identity is not None:
        three_ways(lambda x, mask: ufunc.reduce(x, axis=None, where=mask), x, mask)


def test_an_empty_reduction_is_its_initial_value():
    three_ways(lambda x: np.maximum.reduce(x, initial=-2.5), np.zeros(0))
    three_ways(lambda x: np.minimum.reduce(x, axis=0, initial=3), np.zeros((0, 2), np.int32))


def test_where_without_initial_on_a_ufunc_without_identity_is_numpys_error():
    with pytest.raises(ValueError, match="does not have an identity"):
        tj.function(lambda x: np.maximum.reduce(x, where=x > 0))(np.ones(3))


@pytest.mark.parametrize("ufunc", REDUCING, ids=lambda u: u.__name__)
@settings(max_examples=12, deadline=None)
@given(dtype=st.sampled_from(DTYPES), data=st.data())
def test_reduceat(ufunc, dtype, data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=6))
    x = data.draw(values(dtype, shape))
    axis = data.draw(st.integers(0, len(shape) - 1))
    size = shape[axis]
    indices = data.draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=6))
    three_ways(lambda x: ufunc.reduceat(x, indices, axis=axis), x)
    three_ways(lambda x: ufunc.reduceat(x[..., ::-1], np.array(indices), axis=axis), x)


def test_reduceat_refuses_what_numpy_refuses_and_traced_indices():
    with pytest.raises(IndexError, match="out-of-bounds in add.reduceat"):
        tj.function(lambda x: np.add.reduceat(x, [0, 5]))(np.ones(3))
    with pytest.raises(NotImplementedError, match="traced indices.*tj.py_function"):
        tj.function(lambda x, i: np.add.reduceat(x, i))(np.ones(3), np.array([0, 1]))


def test_max_and_min_with_initial_over_a_dim_known_only_at_run_time():
    """Empty at run time, the reduction is `initial` as in NumPy (no empty-array error)."""
    signature = [tj.TensorSpec([None, 3], np.float64)]
    for axis in (0, 1, None, (0, 1)):

        @tj.function(input_signature=signature)
        def extrema(x, axis=axis):
            high = np.maximum.reduce(x, axis=axis, initial=-5.0)
            return high, np.minimum.reduce(x, axis=axis, initial=7.0, keepdims=True)

        for x in (np.zeros((0, 3)), np.array([[1.0, np.nan, -9.0], [2.0, 3.0, 10.0]])):
            want = (
                np.maximum.reduce(x, axis=axis, initial=-5.0),
                np.minimum.reduce(x, axis=axis, initial=7.0, keepdims=True),
            )
            assert_same(extrema(x), want)
