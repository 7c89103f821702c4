"""np.median / percentile / quantile, np.cov / corrcoef, np.linalg.norm and the diagonals
(np.diagonal, np.diag, np.trace), compiled and eagerly, over shapes, dtypes and NaNs."""

from __future__ import annotations

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


@settings(max_examples=15, deadline=None)
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


def test_a_nan_makes_its_slice_statistic_nan():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])

    def statistics(x):
        return np.median(x, axis=1), np.percentile(x, [25, 75], axis=1), np.median(x)

    check(statistics, x)


@settings(max_examples=15, deadline=None)
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


@settings(max_examples=15, deadline=None)
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


@settings(max_examples=15, deadline=None)
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


@settings(max_examples=15, deadline=None)
@given(x=matrices(dtype=st.sampled_from([np.float64, np.int32])), offset=st.integers(-4, 4))
def test_diagonals(x, offset):
    def diagonals(x):
        return (
            np.diagonal(x, offset),
            np.trace(x, offset),
            np.diagonal(x, offset, axis1=-1, axis2=0),
            np.diag(np.diagonal(x[..., :, :], 0, -2, -1).reshape(-1)[:5], offset),
            x.trace(),
        )

    check(diagonals, x)
