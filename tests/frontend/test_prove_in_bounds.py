"""prove-in-bounds drops the index checks of loop counters it can bound: every index it
cannot prove keeps NumPy's wrap and IndexError, and every proved one gives NumPy's answer.
Each program runs compiled and eagerly (and the error cases raise in both)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly


def _outcome(call):
    try:
        return call()
    except IndexError:
        return IndexError


@settings(max_examples=30, deadline=None)
@given(
    start=st.integers(-10, 10),
    stop=st.integers(-10, 10),
    step=st.sampled_from([-3, -2, -1, 1, 2, 3]),
    offset=st.integers(-9, 9),
)
def test_counter_indices_as_numpy(start, stop, step, offset):
    def gather(x):
        total = x[0] * 0
        for i in range(start, stop, step):
            total += x[i + offset] * (i + 1)
        return total

    f = tj.function(gather)
    x = np.arange(1.0, 9.0)
    compiled, eager = _outcome(lambda: f(x)), _outcome(lambda: run_eagerly(f, x))
    if eager is IndexError:
        assert compiled is IndexError
    else:
        assert_same(compiled, eager)


@pytest.mark.parametrize("bound", [7, 8])
def test_while_counter_to_an_inclusive_bound(bound):
    """`i <= 7` stays in an 8-element array; `i <= 8` reads one past its end and raises."""

    def walk(x):
        i = 0
        total = x[0] * 0
        while i <= bound:
            total += x[i]
            i += 1
        return total

    f = tj.function(walk)
    x = np.arange(8.0)
    if bound < 8:
        assert_same(f(x), run_eagerly(f, x))
    else:
        with pytest.raises(IndexError):
            f(x)


def test_triangular_nest_matches_numpy():
    """A dynamic program's nest (all its inner indices proved) against NumPy."""

    def longest(t):
        n = t.shape[0]
        for i in range(n - 1, -1, -1):
            for j in range(i + 1, n):
                for k in range(i + 1, j):
                    t[i, j] = max(t[i, j], t[i, k] + t[k + 1, j])
        return t

    f = tj.function(longest)
    t = np.random.default_rng(3).integers(0, 5, (9, 9)).astype(np.int64)
    assert_same(f(t.copy()), run_eagerly(f, t.copy()))
    traced = f.get_concrete_function(t).ir(after="prove-in-bounds")
    assert traced.count("in_bounds") >= 4, traced
