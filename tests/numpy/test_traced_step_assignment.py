"""`x[start:stop:step] = v` with a step only the kernel knows (a loop counter): one value
written at the positions NumPy's slice picks, by a staged loop, for every sign of the step
and every kind of bound, compiled and eager against NumPy (frontend/numpy_api/mutation.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly


def strided_fill(x, step, start, stop):
    x[start:stop:step] = -1.5
    return x


def column_fill(x, step):
    x[:, 1::step] = 7
    return x


BOUNDS = [0, 2, -3, 9, -20, 25]


@pytest.mark.parametrize("step", [1, 2, 3, -1, -2, 7])
def test_every_step_and_bound_matches_numpy(step):
    f = tj.function(strided_fill)
    for start in BOUNDS:
        for stop in BOUNDS:
            args = (np.arange(10.0), np.int64(step), np.int64(start), np.int64(stop))
            assert_same(f(*args), strided_fill(np.arange(10.0), step, start, stop))
            assert_same(run_eagerly(f, *args), strided_fill(np.arange(10.0), step, start, stop))
    assert f.experimental_get_tracing_count() == 1


def test_an_axis_of_a_matrix_and_numpys_casting():
    f = tj.function(column_fill)
    for step in (1, 2, -1, 3):
        x = np.arange(24, dtype=np.int8).reshape(4, 6)
        assert_same(f(x.copy(), np.int64(step)), column_fill(x.copy(), step))

    def overflow(x, step):
        x[::step] = 300
        return x

    with pytest.raises(OverflowError):
        tj.function(overflow)(np.zeros(4, np.int8), np.int64(2))


def test_a_zero_step_raises_numpys_error_when_the_kernel_runs():
    f = tj.function(strided_fill)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        f(np.arange(5.0), np.int64(0), np.int64(0), np.int64(5))


def sieve(flags):
    flags[:2] = False
    for i in range(2, int(flags.shape[0] ** 0.5) + 1):
        if flags[i]:
            flags[i * i :: i] = False
    return np.flatnonzero(flags)


def test_a_sieve_stays_a_loop():
    """Its loop was unrolled (a slice step that is a tensor), 140 copies for 20,000."""
    f = tj.function(sieve)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        primes = f(np.ones(20_000, bool))
    np.testing.assert_array_equal(primes, sieve(np.ones(20_000, bool)))
