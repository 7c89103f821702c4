"""An `if` whose result takes the buffer of a value it yields (bufferize/control_flow.py):
`if c: a[i] = v` in a staged loop stores into the loop's array; compiled vs eager NumPy,
including the cases where the buffer must not be taken (the old value is read after the `if`,
results swap, both branches write)."""

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

N = 40  # over the unroll limit: the loops below are staged


def check(function, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)  # the loops must be staged
        compiled = function(*args)
    assert_same(compiled, run_eagerly(function, *args))


@tj.function
def store_where_positive(x):
    out = np.zeros(x.shape, dtype=np.int8)
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[i] = 1
    return out


@tj.function
def both_branches_write(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[i] = x[i]
        else:
            out[i] = -2 * x[i]
    return out


@tj.function
def other_branch_reads(x):
    """The `then` branch writes the array, the `else` branch reads all of it."""
    out = np.zeros_like(x)
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[i] = total
        else:
            total = total + out.sum()
    return out, total


@tj.function
def nested_ifs_two_rows(x):
    out = np.zeros((2, x.shape[0]))
    for i in range(x.shape[0]):
        if x[i] > 0:
            if x[i] > 0.5:
                out[0, i] = x[i]
        else:
            out[1, i] = x[i]
            out[0, i] = -1.0
    return out


@tj.function
def read_old_value_in_branch(x):
    out = np.ones_like(x)
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            old = out[i]
            out[i] = x[i]
            total = total + old
    return out, total


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False, width=32), min_size=N, max_size=N))
def test_conditional_stores_in_a_loop(values):
    x = np.array(values)
    for function in (
        store_where_positive,
        both_branches_write,
        other_branch_reads,
        nested_ifs_two_rows,
        read_old_value_in_branch,
    ):
        check(function, x)


@tj.function
def swap_under_if(x, flag):
    a = x + 1.0
    b = x * 2.0
    if flag > 0:
        a, b = b, a
    return a - 3.0 * b


@tj.function
def old_value_used_after_if(x, flag):
    t = x + 1.0
    b = t
    if flag > 0:
        b = x * 2.0
    return b + 10.0 * t


@tj.function
def written_copy_then_original_read(x, flag):
    t = x + 1.0
    b = t.copy()
    if flag > 0:
        b[0] = 100.0
    return b - t


def test_results_that_must_not_share_a_buffer():
    x = np.arange(5.0)
    for flag in (np.int64(1), np.int64(-1)):
        check(swap_under_if, x, flag)
        check(old_value_used_after_if, x, flag)
        check(written_copy_then_original_read, x, flag)


def test_loop_over_rows_with_conditional_row_write():
    @tj.function
    def clip_rows(x):
        out = x.copy()
        for i in range(x.shape[0]):
            if out[i].sum() > 0:
                out[i] = 0.0
        return out

    check(clip_rows, np.random.default_rng(0).standard_normal((N, 3)))
