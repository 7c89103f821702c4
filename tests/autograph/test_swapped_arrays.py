"""Index loops whose trip writes an array in place and swaps it with another (`old, new =
new, old`, the textbook Jacobi sweep): one staged trip cannot carry the names (each ends on
the other array), so a static range is staged two trips per staged trip, an odd last trip
traced after the loop (frontend/autograph/operators.py, `_staged_in_groups`; three trips
for a rotation of three arrays). Compiled
against eager NumPy; staged means one `tj.while` per loop and no LoopUnrolledWarning."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from benchmarks.kernels import jacobi_loops_swap
from tests.conftest import assert_same, run_eagerly


def _loops(function, *args) -> int:
    return str(function.get_concrete_function(*args).graph).count("tj.while")


def _compiled_without_unrolling(function, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        return function(*args)


jacobi = tj.function(jacobi_loops_swap)  # the textbook form, benchmark K4


@settings(max_examples=8, deadline=None)
@given(iterations=st.integers(9, 16), rows=st.integers(11, 14), seed=st.integers(0, 99))
def test_a_jacobi_sweep_with_a_swap_is_staged_for_even_and_odd_counts(iterations, rows, seed):
    u = np.random.default_rng(seed).standard_normal((rows, 11))
    got = _compiled_without_unrolling(jacobi, u, iterations)
    assert_same(got, run_eagerly(jacobi, u, iterations))
    # the pairs' loop and its two sweeps (two nests of two), and the odd trip's nest
    assert _loops(jacobi, u, iterations) == 1 + 2 * 2 + 2 * (iterations % 2)


@tj.function
def counter_in_both_trips(x):
    a, b = x.copy(), np.zeros_like(x)
    for i in range(1, 30, 3):  # 10 trips, the counter read in each
        b[:] = a * 0.5 + i
        a, b = b, a
    return a, b


@tj.function
def alias_outside(x):
    a, b = x.copy(), x.copy()
    kept = b  # another name of the array written in the odd trips
    for i in range(9):
        b[i % x.shape[0]] += a.sum()
        a, b = b, a
    return a, b, kept


@tj.function
def swapped_three_ways(x):
    a, b, c = x.copy(), x + 1.0, x + 2.0
    for _ in range(13):
        c[:] = a + b  # a rotation of three arrays: back in place every three trips
        a, b, c = b, c, a
    return a


def test_the_counter_steps_through_both_trips():
    x = np.arange(5.0)
    assert_same(
        _compiled_without_unrolling(counter_in_both_trips, x), run_eagerly(counter_in_both_trips, x)
    )


def test_another_name_of_a_swapped_array_sees_its_writes():
    x = np.arange(4.0)
    assert_same(_compiled_without_unrolling(alias_outside, x), run_eagerly(alias_outside, x))


def test_a_rotation_of_three_arrays_is_staged_three_trips_at_a_time():
    x = np.arange(3.0)
    got = _compiled_without_unrolling(swapped_three_ways, x)
    assert_same(got, run_eagerly(swapped_three_ways, x))
    assert _loops(swapped_three_ways, x) == 1


def test_a_swap_in_a_loop_of_run_time_length_is_still_refused():
    @tj.function
    def run_time_trips(x, n):
        a, b = x.copy(), x.copy()
        for _ in tj.range(n):
            b[:] = a + 1.0
            a, b = b, a
        return a

    with pytest.raises(NotImplementedError, match="changed in place and then assigned"):
        run_time_trips(np.zeros(3), np.int64(10))
