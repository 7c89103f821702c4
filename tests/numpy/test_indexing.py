"""Indexing (issue 3, item 7): `x[key]` and `np.take` compiled equal eager NumPy, and
indices known only at run time are bounds-checked in the kernel."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj

SETTINGS = settings(max_examples=10, deadline=None)
bounds = st.one_of(st.none(), st.integers(-6, 6))


@st.composite
def basic_keys(draw, shape):
    """A tuple of slices / ints / None / ... valid for `shape` (ints in range)."""
    key = []
    for size in shape:
        if size and draw(st.booleans()):
            key.append(draw(st.integers(-size, size - 1)))
        else:
            step = draw(st.one_of(st.none(), st.integers(-3, 3).filter(bool)))
            key.append(slice(draw(bounds), draw(bounds), step))
        if draw(st.integers(0, 4)) == 0:
            key.append(None)
    if key and draw(st.booleans()):  # `...` stands for a random number of trailing dims
        key = key[: draw(st.integers(0, len(key)))] + [Ellipsis]
    return tuple(key)


@SETTINGS
@given(data=st.data(), shape=st.lists(st.integers(0, 4), max_size=3).map(tuple))
def test_basic_indexing(check_against_eager, data, shape):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 3
    keys = [data.draw(basic_keys(shape)) for _ in range(3)]
    # `[..., None]`: NumPy returns 0-d arrays for some keys (x[0, ...]) and compiled
    # code returns NumPy scalars for every 0-d result (DESIGN.md)
    f = tj.function(lambda x: [x[key][..., None] for key in keys])
    check_against_eager(f, x)


def test_basic_indexing_forms(check_against_eager):
    @tj.function
    def f(x):
        return {
            "int": x[1],
            "negative_int": x[-1, -2],
            "scalar": x[0, 1, 2],
            "numpy_int": x[np.int64(1), np.int32(-1)],
            "reverse": x[::-1, :, ::-2],
            "newaxis": x[np.newaxis, :, None, 0],
            "ellipsis": x[..., 1],
            "ellipsis_middle": x[1, ..., 1:],
            "true": x[True],
            "false": x[False],
            "true_inner": x[:, True],
            "empty": x[5:2],
            "chained": x.T[1:, ::2][0],
        }

    x = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    check_against_eager(f, x)
    check_against_eager(f, np.asfortranarray(x))  # a non-contiguous input


@st.composite
def index_arrays(draw, size, shape):
    values = draw(
        st.lists(
            st.integers(-size, size - 1), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))
        )
    )
    return np.array(values, dtype=draw(st.sampled_from([np.int64, np.int32, np.int8]))).reshape(
        shape
    )


def advanced(x, i, j, k):
    return {
        "gather": x[i],
        "inner": x[:, j],
        "with_slice": x[1:, j, ::-1],
        "int_and_array": x[0, j],
        "adjacent": x[:, j, k],
        "split": x[i, :, k],  # advanced indices apart: the index dims go first
        "newaxis_between": x[i, None, j],
        "ellipsis": x[..., k],
        "take_flat": np.take(x, i),
        "take_axis": np.take(x, k, axis=-1),
        "take_method": x.take(j, axis=1),
        "constant": x[np.array([[0, -1]]), 1:],
        "list": x[[1, 0, 1]],
        "zero_d": x[i[0], j[0], k[0]],
    }


@settings(max_examples=4, deadline=None)  # a compile of this kernel takes ~3 s
@given(data=st.data(), n=st.integers(2, 4), m=st.integers(1, 3), p=st.integers(1, 5))
def test_advanced_indexing_with_run_time_indices(check_against_eager, data, n, m, p):
    x = np.random.default_rng(n * 100 + m * 10 + p).standard_normal((n, m, p))
    i = data.draw(index_arrays(n, (3,)))
    j = data.draw(index_arrays(m, (2, 3)))
    k = data.draw(index_arrays(p, (3,)))
    check_against_eager(tj.function(advanced), x, i, j, k)


def test_advanced_indexing_dtypes_and_empty_indices(check_against_eager):
    @tj.function
    def f(x, i, u):
        return x[i], x[u], x[:, u], np.take(x, u, axis=1), x[[]], x[i[:0]]

    x = np.arange(12, dtype=np.uint8).reshape(3, 4)
    check_against_eager(f, x, np.array([-3, 2, -1], np.int16), np.array([[2, 0]], np.uint64))


def test_run_time_index_out_of_range_raises_index_error():
    f = tj.function(lambda x, i: x[i] * 2)
    x = np.arange(5.0)
    assert f(x, np.array([4, -5])).tolist() == [8.0, 0.0]
    for bad in ([5, 0], [-6, 0], [0, 2**40]):
        with pytest.raises(
            IndexError, match=r"out of bounds for axis 0 with size 5 \(test_indexing.py:\d+\)"
        ):
            f(x, np.array(bad))
    g = tj.function(lambda x, j: (np.take(x, j, axis=1), x[:, j, j]))
    y = np.zeros((2, 3, 3))
    with pytest.raises(IndexError, match="axis 1 with size 3"):
        g(y, np.array([3], np.uint8))
    with pytest.raises(IndexError, match="size 0"):
        f(np.zeros(0), np.array([0, 0]))
    assert f(x, np.array([1, 2])).tolist() == [2.0, 4.0]  # the process and the kernel survive


@pytest.mark.parametrize(
    ("key", "error", "match"),
    [
        (5, IndexError, "index 5 is out of bounds for axis 0 with size 3"),
        ((0, -5), IndexError, "index -5 is out of bounds for axis 1 with size 4"),
        ((0, 0, 0), IndexError, "too many indices"),
        ((..., ...), IndexError, "single ellipsis"),
        (1.5, IndexError, "only integers"),
        (np.array([0, 3]), IndexError, "index 3 is out of bounds"),
        ((np.array([0, 1]), np.array([0, 1, 2])), IndexError, "could not be broadcast"),
        (np.array([True, False]), IndexError, "boolean index did not match"),
    ],
)
def test_bad_keys_raise_at_trace_time(key, error, match):
    x = np.zeros((3, 4))
    with pytest.raises(error, match=match) as info:
        tj.function(lambda x: x[key])(x)
    assert "test_indexing.py:" in str(info.value)
    with pytest.raises(error):  # NumPy rejects the same key
        x[key]


def test_float_index_arrays_are_rejected():
    x = np.zeros(3)
    with pytest.raises(IndexError, match="only integers"):
        tj.function(lambda x: x[x])(x)


def pivoted_lu(a):
    a = a.copy()
    perm = np.arange(a.shape[0])  # a NumPy array, promoted when written with traced values
    for i in range(a.shape[0]):
        p = i + np.argmax(np.abs(a[i:, i]))  # a traced pivot row
        a[[i, p]] = a[[p, i]]  # a list of traced ints is an index array, as in NumPy
        perm[[i, p]] = perm[[p, i]]
        a[i + 1 :, i] /= a[i, i]
        a[i + 1 :, i + 1 :] -= np.outer(a[i + 1 :, i], a[i, i + 1 :])
    return a, perm


def lists_of_traced_ints(x, i, j):
    return x[[i, j]], x[[i, 1], [j, 0]], x[(i, j),], x[[[i], [j]], 0]


def test_lists_holding_traced_ints_index_as_numpy_arrays():
    a = np.random.default_rng(0).normal(size=(5, 5))
    f = tj.function(pivoted_lu)
    (lu, perm), (expected_lu, expected_perm) = f(a), pivoted_lu(a)
    np.testing.assert_allclose(lu, expected_lu, rtol=1e-12)
    np.testing.assert_array_equal(perm, expected_perm)
    g = tj.function(lists_of_traced_ints)
    x = np.arange(12.0).reshape(3, 4)
    for i, j in ((2, 0), (-1, 1)):
        expected = lists_of_traced_ints(x, i, j)
        for got, want in zip(g(x, np.int64(i), np.int64(j)), expected, strict=True):
            np.testing.assert_array_equal(got, want)
