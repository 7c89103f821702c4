"""A NumPy or SciPy call tracejit does not compile is refused at trace time with a
TypeError that names the function and the user's line and says to wrap the call in
tj.py_function -- and the suggested wrapping works."""

from __future__ import annotations

import numpy as np
import pytest

import tracejit as tj

HINT = r"wrap the call in tj\.py_function"
HERE = r"\(test_refusals\.py:\d+\)"


def uses_unwrap(x):
    return np.unwrap(x)


def uses_isnat(x):  # the one NumPy ufunc not staged (datetimes are no tracejit dtype)
    return np.isnat(x)


def uses_ufunc_method(x):
    return np.subtract.reduceat(x, [0, 1])


@pytest.mark.parametrize(
    "function, name",
    [
        (uses_unwrap, r"np\.unwrap"),
        (uses_isnat, r"np\.isnat"),
        (uses_ufunc_method, r"np\.subtract\.reduceat"),
    ],
)
def test_an_unsupported_numpy_call_names_itself_the_line_and_py_function(function, name):
    with pytest.raises(TypeError, match=rf"{name}.* is not supported by tracejit; {HINT}.*{HERE}"):
        tj.function(function)(np.ones((2, 3)))


def test_a_scipy_ufunc_is_named_as_scipys():
    special = pytest.importorskip("scipy.special", reason="SciPy is an optional extra")

    @tj.function
    def uses_erfc(x):
        return special.erfc(x) + 1

    with pytest.raises(TypeError, match=rf"scipy\.special\.erfc is not supported.*{HINT}.*{HERE}"):
        uses_erfc(np.ones(3))


def test_a_scipy_function_that_asks_for_the_values_is_named_at_the_users_line():
    linalg = pytest.importorskip("scipy.linalg", reason="SciPy is an optional extra")

    @tj.function
    def uses_expm(x):
        return linalg.expm(x) * 2  # AutoGraph converts this call: the line is still this one

    with pytest.raises(TypeError, match=rf"scipy\.linalg\.expm is not supported.*{HINT}.*{HERE}"):
        uses_expm(np.eye(2))


def test_the_suggested_py_function_wrapping_computes_numpys_result():
    linalg = pytest.importorskip("scipy.linalg", reason="SciPy is an optional extra")

    @tj.function
    def wrapped(x):
        spec = tj.TensorSpec((2, 2), np.float64)
        return tj.py_function(linalg.expm, [x], Tout=spec) * 2

    x = np.array([[0.0, 1.0], [-1.0, 0.0]])
    np.testing.assert_allclose(wrapped(x), 2 * linalg.expm(x))


def test_asking_a_traced_array_for_its_values_in_user_code_says_what_to_do():
    @tj.function
    def converts(x):
        return np.asarray(list(x.tolist()))

    with pytest.raises(TypeError, match="run time"):
        converts(np.ones(2))


def sets_the_shape(x):
    x.shape = (6,)  # NumPy's in-place reshape of the caller's array (test_in_place_reshape.py)
    return x


def test_setting_shape_is_refused_with_the_rebinding_to_write():
    assert sets_the_shape(np.ones((2, 3))).shape == (6,)  # NumPy runs it
    with pytest.raises(AttributeError, match=rf"x = x\.reshape\(\.\.\.\).*{HERE}"):
        tj.function(sets_the_shape)(np.ones((2, 3)))
