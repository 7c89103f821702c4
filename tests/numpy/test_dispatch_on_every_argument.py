"""NumPy hands a call to `Tensor.__array_function__` only for the arguments its dispatcher
names: `np.take(table, t)` with an ndarray table dispatches on the table alone, and NumPy
then tries to convert the traced index `t` to an array (a false refusal the fuzzer found,
regressions/test_fuzz_a776ee5328.py). Converted code routes such calls to tracejit's
implementation (frontend/autograph/conversion.py). Each runs compiled and eagerly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

TABLE = np.arange(12.0).reshape(3, 4)


def take_a_column(i):
    return np.take(TABLE, i, axis=1)


def take_flat(i):
    return np.take(TABLE, i)


def roll_by(i):
    return np.roll(TABLE, i, axis=1)


def pad_with(i):
    return np.pad(TABLE, 1, constant_values=i)


def take_a_method(i):
    return TABLE.take(i % 4, axis=1)


PROGRAMS = [take_a_column, take_flat, roll_by, pad_with, take_a_method]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
@settings(max_examples=8, deadline=None)
@given(i=st.integers(-4, 3))
def test_a_traced_argument_numpy_does_not_dispatch_on(program, i):
    index = np.array(i)
    f = tj.function(program)
    assert_same(f(index), program(index))
    assert_same(run_eagerly(f, index), program(index))


def test_an_index_array():
    indices = np.array([[0, -1], [2, 1]])
    f = tj.function(take_a_column)
    assert_same(f(indices), take_a_column(indices))


def test_an_index_out_of_range_raises_as_numpy_does():
    f = tj.function(take_a_column)
    with pytest.raises(IndexError):
        take_a_column(np.array(7))
    with pytest.raises(IndexError):
        f(np.array(7))


def rows_of_the_table(i):
    return TABLE[i % 3] + TABLE[i % 3, 1:].sum()


def a_gathered_table(i):
    return np.linalg.inv(TABLE[:, :3] + np.eye(3))[np.abs(i) % 3]  # a constant of the trace


@pytest.mark.parametrize("program", [rows_of_the_table, a_gathered_table], ids=lambda f: f.__name__)
@settings(max_examples=6, deadline=None)
@given(i=st.integers(-4, 3))
def test_a_numpy_array_indexed_with_a_traced_value(program, i):
    """`C[x % 2]` with C a NumPy array (a global, or computed from globals while tracing):
    NumPy's indexing would convert the traced index (the fuzzer's false refusal,
    regressions/test_fuzz_86a170d262.py); converted code indexes a traced copy of C."""
    index = np.array(i)
    f = tj.function(program)
    assert_same(f(index), program(index))
    assert_same(run_eagerly(f, index), program(index))


def test_a_write_through_such_an_item_is_refused():
    def write(i):
        row = TABLE[i]
        row[0] = -1.0  # NumPy changes TABLE itself
        return row

    with pytest.raises(ValueError, match="NumPy array indexed with a traced value"):
        tj.function(write)(np.array(1))
