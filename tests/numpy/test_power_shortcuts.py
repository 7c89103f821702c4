"""Powers NumPy computes without pow() (frontend/numpy_api/power.py), compiled, interpreted
(tiered execution's first call) and eager, bit for bit on values where pow() is exact.

`x ** 0.5` is np.sqrt(x) for NumPy's operator, and np.power(x, e) is a square root on
float32/float64 for an exponent of one element, while an exponent of several elements (even
all 0.5) is pow(): they differ at -inf (NaN against inf) and -0.0 (-0.0 against +0.0).
"""

from __future__ import annotations

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import run_eagerly
from tracejit.runtime import graph_interpreter

EDGES = [-np.inf, -0.0, 0.0, np.inf, np.nan, -4.0, 4.0, 0.25]
DTYPES = [np.float16, np.float32, np.float64, np.complex128]


def powers(x, e):
    """Every way of writing x ** 0.5 (and 2, -1) that NumPy tells apart; `e` is 0.5 in x's
    dtype as a 0-d array (traced)."""
    half = np.full(x.shape, 0.5, x.dtype)
    return {
        "x ** 0.5": x**0.5,
        "x ** 2": x**2,
        "x ** -1": x**-1,
        "np.power(x, 0.5)": np.power(x, 0.5),
        "x ** np.float32(0.5)": x ** np.float32(0.5),
        "np.power(x, e)": np.power(x, e),
        "x ** e": x**e,
        "np.power(x, e[None])": np.power(x, e[None]),
        "np.power(x, full)": np.power(x, half),
        "x ** full": x**half,
        "np.power(x, full[:1])": np.power(x, half[:1]),
    }


def in_place(x):
    y = x.copy()
    y **= 0.5
    return y


def same_bits(actual, expected, name):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, name
    for a, b in ((actual.real, expected.real), (actual.imag, expected.imag)):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=name)
        same = (a == b) & (np.signbit(a) == np.signbit(b))
        assert (same | np.isnan(b)).all(), f"{name}: {actual} for NumPy's {expected}"


def interpreted(function, *args):
    concrete = function.get_concrete_function(*args)
    plan = graph_interpreter.plan(concrete.graph.module, concrete.graph.function_name)
    return concrete._results(list(args), plan.run([np.asarray(a) for a in args]))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_powers_are_numpys_bit_for_bit(dtype):
    x = np.array(EDGES, dtype)
    e = np.array(0.5, dtype)
    function = tj.function(powers)
    with np.errstate(all="ignore"):
        expected = powers(x, e)
        eager = run_eagerly(function, x, e)
        compiled = function(x, e)
        runs = [eager, compiled]
        if dtype != np.complex128:  # complex exp/log are not interpreted
            runs.append(interpreted(function, x, e))
    for results in runs:
        for name in expected:
            same_bits(results[name], expected[name], name)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_power_in_place_is_a_square_root(dtype):
    x = np.array(EDGES, dtype)
    with np.errstate(all="ignore"):
        same_bits(tj.function(in_place)(x), in_place(x), "y **= 0.5")


def test_a_traced_exponent_takes_pow_where_it_is_not_a_shortcut():
    """The run-time check picks sqrt only for 0.5: 0.25 and 3.0 stay pow()."""
    x = np.array([-np.inf, -0.0, 16.0], np.float64)
    f = tj.function(lambda x, e: np.power(x, e))
    with np.errstate(all="ignore"):
        for e in (0.5, 0.25, 3.0, -1.0, 2.0):
            exponent = np.array(e)
            same_bits(f(x, exponent), np.power(x, exponent), f"np.power(x, {e})")


def test_python_numbers_keep_pythons_pow():
    """A Python float raised to a Python float is Python's pow(): (-inf) ** 0.5 is inf. In a
    staged loop the float is a weak tensor, which must not take ndarray's shortcut."""

    @tj.function
    def f(x):
        s = -np.inf
        for _ in tj.range(x.shape[0]):
            s = s * 1.0
        return x + s**0.5

    assert f(np.zeros(2)).tolist() == [np.inf, np.inf] == run_eagerly(f, np.zeros(2)).tolist()


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int64])
def test_an_integer_array_squared_by_the_operator_is_np_square(dtype):
    """`b ** 2` of a bool array is np.square's int8, where np.power(b, 2) is int64."""
    x = np.array([1, 0, 1, 1], dtype)
    function = tj.function(lambda x: (x**2, np.power(x, 2)))
    expected = (x**2, np.power(x, 2))
    for results in (function(x), run_eagerly(function, x)):
        for got, want in zip(results, expected, strict=True):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
