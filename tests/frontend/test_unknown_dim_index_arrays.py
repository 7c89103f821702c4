"""Several index arrays (or ints with them) on arrays whose dims are unknown at trace time
(None in an input signature): `p[np.arange(n), labels]`, `x[i, j]`, `x[1, i]`, `x[i, :, i]`,
and writes through them (`g[np.arange(n), labels] -= 1`), compiled and eager against NumPy.
Each index is checked along its dim by the kernel."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import answers_with_user_defaults, assert_same, run_eagerly

MATRIX = tj.TensorSpec([None, None], tj.float64)
CUBE = tj.TensorSpec([None, None, None], tj.float64)
INDEX = tj.TensorSpec([None], tj.int64)


def reads(x, i, j):
    return {
        "pairs": x[i, j],
        "int_and_array": x[1, j],
        "outer": x[i[:, None], j[None, :]],
        "negative_int": x[-1, j],
    }


def reads_of_a_cube(c, i):
    return {"around_a_slice": c[i, :, i], "separated": c[i, :, 0], "last_two": c[:, i, i]}


def cross_entropy_gradient(p, labels):
    n = labels.shape[0]
    picked = p[np.arange(n), labels]
    g = p.copy()
    g[np.arange(n), labels] -= 1
    g[0, labels[:1]] = 5.0
    return -np.log(picked).mean(), g / n


def where_the_mask_holds(x):
    i, j = np.nonzero(x > 0.5)
    y = x.copy()
    y[i, j] = 0.0
    return x[i, j], y


READS = tj.function(reads, input_signature=[MATRIX, INDEX, INDEX])
CUBE_READS = tj.function(reads_of_a_cube, input_signature=[CUBE, INDEX])
GRADIENT = tj.function(cross_entropy_gradient, input_signature=[MATRIX, INDEX])
MASKED = tj.function(where_the_mask_holds, input_signature=[MATRIX])


@settings(max_examples=8, deadline=None)
@given(rows=st.integers(2, 6), columns=st.integers(2, 6), count=st.integers(0, 4),
       seed=st.integers(0, 2**16))  # fmt: skip
def test_reads_match_numpy(rows, columns, count, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, columns))
    i = rng.integers(-rows, rows, count)
    j = rng.integers(-columns, columns, count)
    want = reads(x, i, j)
    assert_same(READS(x, i, j), want)
    assert_same(run_eagerly(READS, x, i, j), want)
    c = rng.standard_normal((rows, rows, rows))
    i = rng.integers(-rows, rows, count)
    assert_same(CUBE_READS(c, i), reads_of_a_cube(c, i))


@settings(max_examples=8, deadline=None)
@given(batch=st.integers(1, 6), classes=st.integers(2, 5), seed=st.integers(0, 2**16))
def test_writes_match_numpy(batch, classes, seed):
    rng = np.random.default_rng(seed)
    p = rng.random((batch, classes)) + 0.1
    labels = rng.integers(0, classes, batch)
    assert_same(GRADIENT(p, labels), cross_entropy_gradient(p, labels), rtol=1e-12)
    assert_same(run_eagerly(GRADIENT, p, labels), cross_entropy_gradient(p, labels))
    x = rng.random((batch, classes))
    assert_same(MASKED(x), where_the_mask_holds(x))
    assert GRADIENT.experimental_get_tracing_count() == 1


def test_an_index_out_of_its_dim_raises_index_error():
    x = np.zeros((3, 4))
    with pytest.raises(IndexError, match="axis 0"):
        READS(x, np.array([0, 3]), np.array([0, 0]))
    with pytest.raises(IndexError, match="axis 1"):
        READS(x, np.array([0, -3]), np.array([0, -5]))
    with pytest.raises(IndexError):
        GRADIENT(np.ones((2, 3)), np.array([0, 3]))


def test_with_the_defaults_users_get_the_compiled_code_answers():
    p, labels = np.random.default_rng(4).random((5, 3)) + 0.1, np.array([0, 2, 1, 1, 0])
    make = lambda f: tj.function(f, input_signature=[MATRIX, INDEX])  # noqa: E731
    for got in answers_with_user_defaults(cross_entropy_gradient, p, labels, make=make):
        assert_same(got, cross_entropy_gradient(p, labels), rtol=1e-12)
