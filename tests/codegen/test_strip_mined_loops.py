"""Staged loops run in chunks of 1,024 trips between Ctrl-C polls (strip-mine-polls): every
trip count, around the chunk's edges too, gives NumPy's answer (compiled and eagerly), and
a loop carrying a growing TensorArray (a value of changing size, which keeps its poll on
every trip) counts its trips too."""

from __future__ import annotations

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

TRIPS = [0, 1, 1023, 1024, 1025, 2047, 2048, 2049, 5000]


@pytest.mark.parametrize("n", TRIPS)
def test_while_loop_trip_counts(n):
    @tj.function
    def count(n):
        i = np.int64(0)
        s = np.int64(0)
        while i < n:
            s += i % 7
            i += 1
        return s, i

    assert_same(count(np.int64(n)), run_eagerly(count, np.int64(n)))


@pytest.mark.parametrize("n", [1023, 1024, 1025])
def test_nested_counted_loops_with_an_update(n):
    """An inner loop of n trips inside an outer one, updating an array each trip."""

    @tj.function
    def fill(x):
        for r in range(x.shape[0]):
            for c in range(x.shape[1]):
                x[r, c] = x[r, c - 1] + 1.0 if c > 0 else float(r)
        return x

    x = np.zeros((3, n))
    assert_same(fill(x.copy()), run_eagerly(fill, x.copy()))


def test_loop_carrying_a_growing_tensor_array():
    """Each test of the condition appends to a TensorArray: its length counts them."""

    @tj.function
    def evaluations(n):
        seen = tj.TensorArray(tj.int64, size=0, dynamic_size=True)
        i = np.int64(0)

        def more(i, seen):
            return i < n, seen.write(seen.size(), i)

        go, seen = more(i, seen)
        while go:
            i += 1
            go, seen = more(i, seen)
        return seen.size()

    for n in (5, 1024, 2500):
        assert int(evaluations(np.int64(n))) == n + 1
