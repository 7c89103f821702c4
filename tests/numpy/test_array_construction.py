"""`np.array` / `np.asarray` / `np.asanyarray` / `np.copy` of traced values, and lists or
tuples mixing tensors and numbers where an array is expected; compiled vs eager NumPy.

The dtype is `np.array`'s (every element strong: a Python int is int64, a float float64),
which eager NumPy gives the 0-d arrays standing in for the traced scalars here.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import REAL_DTYPES, assert_same, run_eagerly

pytestmark = pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # new dtypes

DTYPES = REAL_DTYPES
PYTHON_NUMBERS = [True, 0, 7, -3, 300, 2**40, 2**63, 1.5, -0.0, float("inf")]


def check(function, *args, **kwargs):
    compiled = function(*args, **kwargs)
    assert_same(compiled, run_eagerly(function, *args, **kwargs), rtol=0)
    return compiled


@tj.function
def mixes(a, b, number):
    """0-d tensors a, b (any dtypes) with a Python number in lists, tuples, nestings."""
    return {
        "pair": np.array([a, number]),
        "triple": np.asanyarray((number, b, a)),
        "nested": np.asarray([[a, b], [number, a]]),
    }


mixed_operands = {
    "a_dtype": st.sampled_from(DTYPES),
    "b_dtype": st.sampled_from(DTYPES),
    "number": st.sampled_from(PYTHON_NUMBERS),
}


@settings(max_examples=15, deadline=None)
@given(**mixed_operands)
def test_mixed_lists_take_numpys_array_dtype(a_dtype, b_dtype, number):
    check(mixes, np.ones((), a_dtype), np.zeros((), b_dtype), number)


@settings(max_examples=100, deadline=None)
@given(**mixed_operands)
def test_mixed_list_dtypes_many_combinations(a_dtype, b_dtype, number):
    """Tracing alone decides the dtypes: many more combinations than compiling allows."""
    a, b = np.ones((), a_dtype), np.zeros((), b_dtype)
    traced = tj.function(mixes).get_concrete_function(a, b, number).structured_outputs
    for name, eager in run_eagerly(mixes, a, b, number).items():
        assert (traced[name].dtype, traced[name].shape) == (eager.dtype, eager.shape), name


@tj.function
def of_arrays(x, y):
    return {
        "rows": np.array([x, y]),  # two rows of equal shape
        "rows_and_list": np.array([x, [1, 2, 3]]),
        "deeper": np.array([[x, x], [y, y]]),
        "with_array": np.asarray((np.arange(3, dtype=np.int8), x)),
        "dtype": np.array([x, y], dtype=np.int16),
        "dtype_number": np.array([x[0], 2.5, y[1]], dtype=np.uint8),
        "copy": np.copy(x),
        "tensors_ndmin": np.array([x[1], y[2]], ndmin=3),
        "array_of_tensor": np.array(x),
        "asarray_of_tensor": np.asarray(y, dtype=np.float64),
        "ndmin": np.array(x, ndmin=2),
        "no_copy_needed": np.asarray(x, copy=False),
    }


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.float16, np.float64, np.bool_])
def test_n_d_tensors_stack_like_numpy(dtype):
    x = np.array([1, 0, 3], dtype)
    y = np.array([5, 6, 0], np.float32)
    check(of_arrays, x, y)


@tj.function
def sequence_operands(x, c):
    return {
        "add_tuple": np.add((1, 2, 3), x),
        "add_list": x + [1, 2, 3],
        "radd_list": [1.5, 2, 3] - x,
        "maximum": np.maximum(x, [[1], [2]]),
        "compare": x < [1, 2, 3],
        "with_tensor": np.multiply([x[0], 2, 3], x),
        "where": np.where(c, [x[0], 1, 2], 0),
        "concatenate": np.concatenate((x, (1.0, 2.0))),
        "stack": np.stack([x, [7, 8, 9]]),
    }


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.float32, np.bool_])
def test_lists_and_tuples_are_arrays_where_arrays_are_expected(dtype):
    check(sequence_operands, np.array([1, 0, 3], dtype), np.array([True, False, True]))


def test_numpy_constructors_unchanged_on_plain_values():
    @tj.function
    def f(x):
        return x + np.array([1, 2], np.int8) + np.asarray((3, 4)).astype(x.dtype)

    check(f, np.array([10, 20], np.int8))
    assert np.array([1, 2]).dtype == np.int64  # and NumPy itself is untouched


def test_variables_are_read():
    v = tj.Variable(np.float32(2.0))

    @tj.function
    def f(x):
        return np.array([v, x, 1])

    assert_same(f(np.float32(3)), np.array([2.0, 3.0, 1.0]), rtol=0)
    v.assign(np.float32(5.0))
    assert f(np.float32(3))[0] == 5.0


def fails_like_numpy(function, *args, error: type, match: str):
    with pytest.raises(error, match=match):
        run_eagerly(function, *args)
    with pytest.raises(error, match=match) as raised:
        function(*args)
    assert "test_array_construction.py" in str(raised.value)


def test_errors_are_numpys():
    x = np.ones(2, np.float32)
    ragged = tj.function(lambda x: np.array([x, x[0]]))
    fails_like_numpy(ragged, x, error=ValueError, match="inhomogeneous shape after 1 dim")
    deep = tj.function(lambda x: np.array([[x, x], [x, x[:1]]]))
    fails_like_numpy(deep, x, error=ValueError, match="inhomogeneous shape after 2 dim")
    overflow = tj.function(lambda x: np.array([x[0], 300], dtype=np.int8))
    fails_like_numpy(overflow, x, error=OverflowError, match="300 out of bounds for int8")
    no_copy = tj.function(lambda x: np.array([x, x], copy=False))
    fails_like_numpy(no_copy, x, error=ValueError, match="Unable to avoid copy")
    casting_copy = tj.function(lambda x: np.asarray(x, dtype=np.int8, copy=False))
    fails_like_numpy(casting_copy, x, error=ValueError, match="Unable to avoid copy")


def test_without_autograph_np_array_of_a_tensor_is_a_clear_error():
    f = tj.function(lambda x: np.array([x, 1.0]), autograph=False)
    with pytest.raises(TypeError, match="cannot be converted to a NumPy array"):
        f(np.float32(1))
    g = tj.function(lambda x: np.copy(x) + 1, autograph=False)  # np.copy dispatches anyway
    check(g, np.arange(3))


def test_unsupported_element_types_are_refused():
    f = tj.function(lambda x: np.array([x, "a"]))
    with pytest.raises(TypeError, match="np.array: an array of dtype <U32 mixing traced"):
        f(np.float32(1))
    g = tj.function(lambda x: np.array([x, 1], like=x))
    with pytest.raises(TypeError, match=r"np.array\(..., like=...\) is not supported"):
        g(np.float32(1))


def test_copies_are_new_arrays_asarray_is_the_same():
    @tj.function
    def f(x):
        return np.array(x) is x, np.copy(x) is x, np.asarray(x) is x, np.array(x, copy=False) is x

    assert f(np.ones(2)) == run_eagerly(f, np.ones(2)) == (False, False, True, True)
