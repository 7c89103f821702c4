"""A matrix computed element-wise for one matrix @ vector product is computed in the
product's loop (passes/bufferize/absorbed_operands.py): compiled vs eager NumPy for the
forms it takes (a scalar times the matrix, PolyBench's gesummv; a function of it; two
matrices combined; a row broadcast), with NaN and Inf (`inf * 0` stays NaN, as in NumPy's
temporary matrix), and the forms it leaves alone (the matrix used again, a slice read in
place, float16, integers)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import run_eagerly


@tj.function
def absorbed_forms(alpha, beta, a, b, x, row):
    return {
        "gesummv": alpha * a @ x + beta * b @ x,
        "exp": np.exp(-np.abs(a)) @ x,
        "difference": (a - b) @ x,
        "row broadcast": (a * row) @ x,
        "cast": a.astype(np.float32) @ x.astype(np.float32),
    }


@tj.function
def left_alone(a, x):
    m = a * 2.0
    return {
        "used again": (m @ x, m),
        "slice": (a[1:, ::2] * 3.0) @ x[: a.shape[1] // 2],
        "float16": (a.astype(np.float16) * 2) @ x.astype(np.float16),
        "integers": (a.astype(np.int64) + 1) @ x.astype(np.int64),
    }


def assert_close(got, expected, dtype):
    tolerance = 1e-5 if np.dtype(dtype) == np.float32 else 1e-12
    if isinstance(expected, dict):
        for key in expected:
            assert_close(got[key], expected[key], dtype)
    elif isinstance(expected, tuple):
        for g, e in zip(got, expected, strict=True):
            assert_close(g, e, dtype)
    else:
        np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance)


def values(dtype, shape):
    elements = st.sampled_from([0.0, 1.0, -2.5, 0.75, 3.0, np.inf, np.nan])
    return hnp.arrays(dtype, shape, elements=elements)


@settings(max_examples=12, deadline=None)
@given(
    dtype=st.sampled_from([np.float32, np.float64]),
    rows=st.integers(1, 9),
    columns=st.integers(1, 9),
    data=st.data(),
)
def test_a_matrix_computed_in_the_products_loop_is_numpys(dtype, rows, columns, data):
    a = data.draw(values(dtype, (rows, columns)))
    b = data.draw(values(dtype, (rows, columns)))
    x = data.draw(values(dtype, (columns,)))
    row = data.draw(values(dtype, (columns,)))
    args = (dtype(1.5), dtype(-0.5), a, b, x, row)
    expected = run_eagerly(absorbed_forms, *args)
    with np.errstate(all="ignore"):  # NumPy's own, by hand, for the gesummv form
        by_hand = dtype(1.5) * a @ x + dtype(-0.5) * b @ x
    assert_close(absorbed_forms(*args), expected, dtype)
    assert_close(expected["gesummv"], by_hand, dtype)


def test_an_infinite_scale_times_a_zero_is_nan_as_in_numpys_temporary():
    a = np.array([[0.0, 1.0], [2.0, 3.0]])
    x = np.array([1.0, 1.0])
    got = absorbed_forms(np.inf, 1.0, a, a, x, x)["gesummv"]
    with np.errstate(all="ignore"):
        expected = np.inf * a @ x + 1.0 * a @ x
    np.testing.assert_array_equal(got, expected)
    assert np.isnan(got[0]) and np.isinf(got[1])


def test_forms_left_alone_still_answer_as_numpy():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(7, 6)).round(2)
    x = rng.normal(size=6).round(2)
    assert_close(left_alone(a, x), run_eagerly(left_alone, a, x), np.float32)


def into_its_vector(a, row):
    row[...] = (a * row) @ row


def into_its_matrix(a, x):
    a[0] = (a * 2.0) @ x


def test_a_product_written_into_the_arrays_its_matrix_is_computed_from():
    """The product reads the kernel's inputs where it runs: writing its result into one of
    them (an argument, in place) must not clobber what it still reads."""
    for function in (into_its_vector, into_its_matrix):
        a, row = np.arange(16.0).reshape(4, 4), np.arange(4.0) + 1
        expected = (a.copy(), row.copy())
        function(*expected)
        tj.function(function)(a, row)
        np.testing.assert_array_equal(a, expected[0])
        np.testing.assert_array_equal(row, expected[1])
