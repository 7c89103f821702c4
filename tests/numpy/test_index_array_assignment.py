"""`a[i, j] = v` with one index array (or int) per dim (frontend/numpy_api/mutation.py,
`_scattered`; indexing.py, `flat_positions`): the flat positions are computed from the
indices, each wrapped and checked along its dim, without indexing an `arange` of the
array's size (a constant as large as the array, and a gather from it on every call).
Compiled vs eager NumPy: negative indices, broadcasting, repeats (the last write wins),
ints among the arrays, positions selected by a mask, and out-of-range indices.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, raises_both, run_eagerly


def assign_pairs(a, i, j, v):
    a[i, j] = v
    return a


def assign_with_int(a, i, v):
    a[i, 1] = v
    a[-1, i] += 1
    return a


def assign_selected(a, rows, cols, x):
    keep = x > 0
    a[rows[keep], cols[keep]] = x[keep]
    return a


def check(function, *args):
    f = tj.function(function)
    copies = [np.copy(x) if isinstance(x, np.ndarray) else x for x in args]
    assert_same(f(*args), run_eagerly(f, *copies))


@settings(max_examples=25, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 6), st.integers(1, 6)),
    count=st.integers(0, 12),
    data=st.data(),
)
def test_index_array_pairs_match_numpy(shape, count, data):
    rows = data.draw(hnp.arrays(np.int64, count, elements=st.integers(-shape[0], shape[0] - 1)))
    cols = data.draw(hnp.arrays(np.int64, count, elements=st.integers(-shape[1], shape[1] - 1)))
    values = data.draw(hnp.arrays(np.float64, count, elements=st.floats(-9, 9)))
    check(assign_pairs, np.zeros(shape), rows, cols, values)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex128])
def test_broadcast_indices_and_a_scalar_value(dtype):
    a = np.zeros((4, 5), dtype)
    rows, cols = np.array([[0], [3], [-1]]), np.array([1, -2, 4])
    check(assign_pairs, a, rows, cols, dtype(7))


def test_ints_among_the_index_arrays():
    check(assign_with_int, np.arange(20).reshape(4, 5), np.array([0, 2, 2, -1]), np.int64(9))


def test_positions_selected_by_a_mask():
    rng = np.random.default_rng(3)
    rows, cols = rng.integers(0, 6, 30), rng.integers(0, 7, 30)
    check(assign_selected, np.zeros((6, 7)), rows, cols, rng.standard_normal(30))


@pytest.mark.parametrize(("i", "j"), [([0, 4], [0, 0]), ([0, 0], [0, -6]), ([-5, 0], [1, 1])])
def test_an_index_out_of_range_raises_index_error(i, j):
    raises_both(IndexError, assign_pairs, np.zeros((4, 5)), np.array(i), np.array(j), 1.0)


def test_no_constant_of_the_array_size_is_made():
    f = tj.function(assign_pairs)
    ir = f.get_concrete_function(np.zeros((300, 300)), np.zeros(3, np.int64),
                                 np.zeros(3, np.int64), np.zeros(3)).ir()  # fmt: skip
    assert "tensor<300x300xi64>" not in ir and "tensor<90000xi64>" not in ir
