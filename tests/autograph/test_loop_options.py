"""`tj.autograph.experimental.set_loop_options`, as TensorFlow's: shape invariants let a loop
variable's dims change from one iteration to the next; maximum_iterations stops a loop;
parallel_iterations and swap_memory are accepted (executor hints)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

set_loop_options = tj.autograph.experimental.set_loop_options


def growing(x):
    v = np.zeros(1)
    for i in tj.range(x.shape[0]):
        set_loop_options(shape_invariants=[(v, tj.TensorSpec([None]))], parallel_iterations=4)
        v = np.concatenate([v, x[i : i + 1] * 2])
    return v


def growing_rows(x):
    rows = x[:1]
    for i in tj.range(1, x.shape[0]):
        set_loop_options(shape_invariants=[(rows, tj.TensorSpec([None, 3]))])
        if x[i, 0] > 0:
            rows = np.concatenate([rows, x[i : i + 1]], axis=0)
    return rows.sum(axis=0), rows.shape[0]


@settings(max_examples=10, deadline=None)
@given(n=st.integers(0, 12))
def test_a_growing_vector(n):
    x = np.arange(n, dtype=np.float64)
    f = tj.function(growing)
    assert_same(f(x), run_eagerly(f, x))
    dynamic = tj.function(growing, input_signature=[tj.TensorSpec([None], np.float64)])
    assert_same(dynamic(x), growing(x))


@settings(max_examples=10, deadline=None)
@given(data=st.lists(st.floats(-5, 5), min_size=3, max_size=30).map(np.array))
def test_rows_kept_by_a_condition(data):
    x = data[: len(data) // 3 * 3].reshape(-1, 3)
    f = tj.function(growing_rows)
    total, count = f(x)
    expected_total, expected_count = growing_rows(x)
    np.testing.assert_allclose(total, expected_total, atol=1e-12)
    assert int(count) == expected_count


def test_without_an_invariant_a_shape_change_is_refused_as_tensorflow_does():
    @tj.function
    def grows(x):
        v = np.zeros(1)
        for i in tj.range(x.shape[0]):
            v = np.concatenate([v, x[i : i + 1]])
        return v

    with pytest.raises(ValueError, match="loop variable 'v' changes from"):
        grows(np.ones(3))


def test_an_invariant_must_name_a_loop_variable_and_fit_it():
    @tj.function
    def names_another(x):
        v, w = np.zeros(1), np.ones(2)
        for i in tj.range(3):
            set_loop_options(shape_invariants=[(w * 1, tj.TensorSpec([None]))])
            v = v + x[i]
        return v

    with pytest.raises(ValueError, match="not a variable of this loop"):
        names_another(np.ones(3))

    @tj.function
    def does_not_fit(x):
        v = np.zeros(2)
        for i in tj.range(3):
            set_loop_options(shape_invariants=[(v, tj.TensorSpec([None, None]))])
            v = v + x[i]
        return v

    with pytest.raises(ValueError, match="does not fit its shape invariant"):
        does_not_fit(np.ones(3))


@pytest.mark.parametrize("limit", [0, 1, 4, 100])
def test_maximum_iterations_stops_a_while_loop(limit):
    @tj.function
    def halvings(x, limit):
        count = 0
        while x > 1:
            set_loop_options(maximum_iterations=limit)
            x = x / 2
            count += 1
        return x, count

    x = np.float64(1000.0)
    expected_count = min(limit, 10)
    value, count = halvings(x, np.int64(limit))
    assert int(count) == expected_count
    assert float(value) == 1000.0 / 2**expected_count
    value, count = halvings(x, limit)  # a Python int limit too
    assert int(count) == expected_count


def test_outside_a_staged_loop_it_does_nothing():
    def f(x):
        total = 0.0
        for v in [1.0, 2.0]:
            set_loop_options(maximum_iterations=1)
            total = total + v * x
        return total

    assert_same(tj.function(f)(np.float64(2.0)), np.float64(6.0))
    assert f(2.0) == 6.0  # eagerly: a no-op, as in TensorFlow
