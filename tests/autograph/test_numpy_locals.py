"""NumPy arrays made in the function from Python values, changed inside staged control flow
(frontend/staging/numpy_locals.py): what a staged loop or if can do as NumPy does is
compiled and checked against eager NumPy; what it cannot (a change that would happen once,
while tracing, or that another name of the array would not see) is refused with an error
naming the array and the user's line -- never a silent wrong answer."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly


def filled_in_a_run_time_loop(x):
    z = np.eye(2, 3)
    for _ in tj.range(x.shape[0] - 3):  # a run-time trip count: staged
        z.fill(0.0)
    return z + x[0]


def filled_through_a_view_in_a_zero_trip_loop(x):
    z = np.eye(2, 3, dtype=np.uint8)
    flat = z.reshape(-1)
    for _ in tj.range(np.sum(x > 100)):  # (test_fuzz_6ad6e91a2c)
        flat.fill(False)
    return z


def copied_into_in_a_staged_if(x):
    z = np.eye(2, 3)
    if x[0] > 0:
        np.copyto(z, 3.0)
    return z * x[1]


def view_written_in_a_loop(x):
    z = np.eye(2, 3)
    row = z[0]
    for i in tj.range(x.shape[0]):
        row[1] = x[i]
    return z


def written_while_a_view_exists(x):
    z = np.eye(2, 3)
    row = z[0]
    if x[0] > 0:
        z[0, 1] = 5.0
    return row + x[0]


def written_while_another_name_holds_it(x):
    z = np.arange(3.0)  # a NumPy array (np.zeros would be a traced one)
    same = z
    for i in tj.range(x.shape[0]):
        z[i % 3] += x[i]
    return same


def filled_after_a_traced_break(x):
    z = np.arange(3.0)
    for i in range(3):  # unrolled; after the first trip, each runs under a staged if
        if x[i] > 1:
            break
        z.fill(i + 10)
    return z + x[:3]


def written_through_the_other_name_after_a_zero_trip_loop(x):
    z = np.arange(3.0)
    y = z
    for _ in tj.range(np.sum(x > 100)):  # no trips: y is still z, and sees `z += z`
        y = y + x[:3]
    z += z  # (test_fuzz_efc59191e5)
    return y


def written_through_the_other_name_after_an_untaken_if(x):
    z = np.arange(3.0)
    y = z
    if x[0] > 100:
        y = y * x[:3]
    z[1] = 7.0
    return y + 1.0


REFUSED = [
    filled_in_a_run_time_loop, filled_through_a_view_in_a_zero_trip_loop,
    copied_into_in_a_staged_if, view_written_in_a_loop, written_while_a_view_exists,
    written_while_another_name_holds_it, filled_after_a_traced_break,
    written_through_the_other_name_after_a_zero_trip_loop,
    written_through_the_other_name_after_an_untaken_if,
]  # fmt: skip


@pytest.mark.parametrize("kernel", REFUSED, ids=lambda k: k.__name__)
def test_what_a_staged_construct_cannot_do_to_a_numpy_array_is_refused(kernel):
    x = np.arange(1.0, 7.0)
    with pytest.raises(NotImplementedError, match=r"NumPy array .*test_numpy_locals.py:\d+"):
        tj.function(kernel)(x)
    # the trial left the NumPy arrays as they were: the eager run is unaffected
    assert np.isfinite(np.sum(run_eagerly(tj.function(kernel), x)))


def test_a_write_through_the_name_a_zero_trip_loop_may_leave_is_refused():
    def kernel(x):
        z = np.arange(3.0)
        y = z
        for _ in tj.range(np.sum(x > 100)):
            y = y + x[:3]
        y += 1.0  # NumPy's z too, after no trips
        return z

    with pytest.raises(ValueError, match=r"'y' may still be the NumPy array 'z' refers to"):
        tj.function(kernel)(np.arange(1.0, 7.0))


def written_after_a_loop_whose_result_is_unused(x):
    z = np.arange(6.0)
    y = z
    for i in tj.range(x.shape[0] - 6):  # y is not used after the loop: z may change
        y = y + x[i]
    z += 1.0
    return z * x


def rebound_while_another_name_holds_it(x):
    start = np.arange(6.0)
    y = start
    for i in tj.range(x.shape[0]):  # rebinding, not writing: `start` stays zeros
        y = y + x[i] * 0.5
    return y, start


def rebound_in_a_branch(x):
    start = np.linspace(0.0, 1.0, 6)
    y = start
    if x[0] > 2:
        y = y * x
    return y, start


def written_by_item_in_a_loop(x):
    z = np.array([0.0] * 6)
    for i in tj.range(x.shape[0]):
        z[i] = x[i] * 2.0
    return z


def filled_in_a_static_loop(x):
    z = np.arange(6.0)
    total = np.zeros(6)
    for i in range(12):  # unrolled (the fill runs on every copy, as NumPy's does)
        z.fill(i)
        total = total + z * x
    return total


WORKING = [rebound_while_another_name_holds_it, rebound_in_a_branch, written_by_item_in_a_loop,
           filled_in_a_static_loop, written_after_a_loop_whose_result_is_unused]  # fmt: skip


@pytest.mark.parametrize("kernel", WORKING, ids=lambda k: k.__name__)
@settings(max_examples=4, deadline=None)
@given(values=st.lists(st.floats(-10, 10), min_size=6, max_size=6))
def test_what_it_can_do_matches_numpy(kernel, values):
    x = np.array(values)
    function = tj.function(kernel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tj.LoopUnrolledWarning)
        got = function(x)
    assert_same(got, run_eagerly(function, x))


def symmetric_from_eye(x):
    out = np.eye(2)
    out[1, 0] = out[0, 1] = x[0]
    return out


def correlation(data):
    """PolyBench's correlation, as its NumPy version writes the symmetric part."""
    m = data.shape[1]
    corr = np.eye(m)
    for i in range(m - 1):
        products = data[:, i : i + 1] * data[:, i + 1 : m]
        corr[i + 1 : m, i] = corr[i, i + 1 : m] = np.sum(products, axis=0)
    return corr


def aliased_targets(x):
    a = b = x * 2
    k = m = np.zeros(3)
    k[0] = m[1] = x[0]
    return a + b, k, m


@pytest.mark.parametrize("function", [symmetric_from_eye, correlation, aliased_targets])
@settings(max_examples=5, deadline=None)
@given(m=st.integers(1, 5), seed=st.integers(0, 2**16))
def test_chained_item_assignments_write_every_target(function, m, seed):
    """`a[i] = b[j] = v` assigns `v` to each target, left to right (was 'setting an array
    element with a sequence' for a NumPy local written with a traced value)."""
    data = np.random.default_rng(seed).random((4, m)) + 0.5
    args = (data,) if function is correlation else (data[0],)
    assert_same(tj.function(function)(*args), run_eagerly(function, *args), 1e-12, 1e-12)
