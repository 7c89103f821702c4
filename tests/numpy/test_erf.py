"""The error function: `scipy.special.erf` on traced arrays and `math.erf` on traced
scalars (AutoGraph), staged as `tj.erf` (expand-math's polynomial, a few ulp from libm's and
SciPy's), compiled and eager against SciPy / Python, with its gradient."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import run_eagerly

special = pytest.importorskip(
    "scipy.special", reason="scipy.special.erf needs SciPy (linalg extra)"
)

EDGES = [0.0, -0.0, 1e-300, -1e-8, 0.5, -0.9, 2.0, 5.9, 6.1, -27.0, np.inf, -np.inf, np.nan]


def close_in_ulps(compiled: np.ndarray, expected: np.ndarray, ulps: int = 4) -> None:
    assert compiled.dtype == expected.dtype and compiled.shape == expected.shape
    np.testing.assert_array_equal(np.isnan(compiled), np.isnan(expected))
    finite = ~np.isnan(expected)
    spacing = np.spacing(np.abs(expected[finite]).astype(expected.dtype))
    assert np.all(np.abs(compiled[finite] - expected[finite]) <= ulps * spacing), (
        compiled,
        expected,
    )
    np.testing.assert_array_equal(
        np.signbit(compiled[expected == 0]), np.signbit(expected[expected == 0])
    )


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int64, np.bool_])
def test_scipy_erf_matches_scipy_in_its_loop_dtype(dtype):
    values = np.array(EDGES if np.dtype(dtype).kind == "f" else [0, 1, -1, 3], dtype=np.float64)
    x = values.astype(dtype)
    f = tj.function(lambda x: special.erf(x))
    expected = special.erf(x)
    close_in_ulps(f(x), expected)
    close_in_ulps(run_eagerly(f, x), expected, ulps=0)


@settings(max_examples=10, deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(0, 40), elements=st.floats(-8, 8)))
def test_erf_of_any_value_is_within_a_few_ulp(x):
    close_in_ulps(_ERF(x), special.erf(x))


_ERF = tj.function(lambda x: special.erf(x), reduce_retracing=True)


def normal_cdf_sum(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += 0.5 * (1.0 + math.erf(x[i] / math.sqrt(2.0)))
    return total


def test_math_erf_on_traced_scalars_in_a_staged_loop():
    x = np.linspace(-4.0, 4.0, 33)
    f = tj.function(normal_cdf_sum)
    assert math.isclose(float(f(x)), normal_cdf_sum(x), rel_tol=1e-13)
    assert math.isclose(float(run_eagerly(f, x)), normal_cdf_sum(x), rel_tol=1e-15)


def test_erf_gradient_is_two_over_sqrt_pi_exp_minus_x_squared():
    x = np.array([-2.0, -0.3, 0.0, 0.7, 3.0])
    variable = tj.Variable(x.copy())

    @tj.function
    def loss():
        return special.erf(variable.value() * 1.0).sum()

    with tj.GradientTape() as tape:
        value = loss()
    np.testing.assert_allclose(value, special.erf(x).sum(), rtol=1e-14)
    np.testing.assert_allclose(
        tape.gradient(value, variable), 2 / np.sqrt(np.pi) * np.exp(-x * x), rtol=1e-14
    )


def test_complex_erf_is_refused_naming_the_line():
    with pytest.raises(TypeError, match=r"scipy.special.erf of complex numbers.*test_erf.py:"):
        tj.function(lambda z: special.erf(z))(np.array([1 + 1j]))
