"""tj.cond and tj.while_loop: staged as tj.if / tj.while on tensors, plain Python on
Python values; compiled results compared with eager NumPy."""

import numpy as np
import pytest

import tracejit as tj


@tj.function
def branchy(x):
    return tj.cond(np.sum(x), lambda: (x * 2.0, 1), lambda: (x - 1.0, 1))


@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([1.0, -1.0]), np.zeros(2)])
def test_cond_takes_the_run_time_branch(check_against_eager, x):
    check_against_eager(branchy, x)
    assert branchy.experimental_get_tracing_count() == 1


def test_python_number_in_one_branch_takes_the_tensor_dtype(check_against_eager):
    @tj.function
    def f(x):
        return tj.cond(np.max(x), lambda: np.sum(x), lambda: 0)

    check_against_eager(f, np.array([1, 2], np.int32))
    check_against_eager(f, np.array([0, 0], np.int32))
    assert isinstance(f(np.array([0, 0], np.int32)), np.int64)


def test_cond_on_a_python_value_traces_one_branch():
    @tj.function
    def f(x, flag):
        return tj.cond(flag, lambda: x + 1, lambda: np.linalg.svd(x))  # else is never traced

    np.testing.assert_array_equal(f(np.ones(2), True), [2.0, 2.0])


def test_branch_mismatches_are_errors_naming_the_output():
    @tj.function
    def dtype_mismatch(x):
        return tj.cond(np.sum(x), lambda: x, lambda: x.astype(np.float32), names=("y",))

    with pytest.raises(TypeError, match=r"'y' has dtype float64 .* dtype float32"):
        dtype_mismatch(np.ones(2))

    @tj.function
    def shape_mismatch(x):
        return tj.cond(np.sum(x), lambda: x, lambda: np.sum(x))

    with pytest.raises(TypeError, match=r"shape \(2,\) in the true branch but .* shape \(\)"):
        shape_mismatch(np.ones(2))

    @tj.function
    def vector_predicate(x):
        return tj.cond(x, lambda: x, lambda: x)

    with pytest.raises(ValueError, match="ambiguous"):
        vector_predicate(np.ones(2))


@tj.function
def countdown(n, x):
    return tj.while_loop(lambda n, x: n, lambda n, x: (n - 1, np.tanh(x) + 0.5), (n, x))


@pytest.mark.parametrize("n", [0, 1, 7])
def test_while_loop_trip_counts(check_against_eager, n):
    check_against_eager(countdown, np.int64(n), np.array([0.5, -2.0, 3.0]), rtol=1e-12)
    assert countdown.experimental_get_tracing_count() == 1


def test_loop_values_that_swap(check_against_eager):
    @tj.function
    def fib(n):
        def body(i, a, b):
            return i - 1, b, a + b  # a and b exchange places: no value may be overwritten early

        return tj.while_loop(lambda i, a, b: i, body, (n, np.int64(0), np.int64(1)))

    for n in (0, 1, 10, 50):
        check_against_eager(fib, np.int64(n))


def test_nested_structures_and_nested_loops(check_against_eager):
    @tj.function
    def f(rows, x):
        def outer_body(i, state):
            total, vec = state
            inner = tj.while_loop(
                lambda j, v: j, lambda j, v: (j - 1, v * 0.5 + 1.0), (np.int64(3), vec)
            )
            return i - 1, (total + np.sum(inner[1]), inner[1])

        return tj.while_loop(lambda i, s: i, outer_body, (rows, (np.float64(0.0), x)))

    check_against_eager(f, np.int64(4), np.array([1.0, 2.0, 3.0]), rtol=1e-12)
    check_against_eager(f, np.int64(0), np.array([1.0, 2.0, 3.0]))


def test_loop_value_changing_dtype_is_an_error():
    @tj.function
    def f(x):
        return tj.while_loop(
            lambda x: np.sum(x), lambda x: (x.astype(np.float32),), (x,), names=("x",)
        )

    with pytest.raises(TypeError, match=r"loop variable 'x' changes from dtype float64"):
        f(np.ones(2))


def test_python_while_loop_runs_as_python():
    @tj.function
    def f(x):
        _, factor = tj.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2), (0, 1))
        return x * factor  # the loop ran in Python while tracing: factor is the int 8

    np.testing.assert_array_equal(f(np.ones(2)), [8.0, 8.0])
    assert "tj.while" not in str(f.get_concrete_function(np.ones(2)).graph)


def test_tj_range_iterates_like_range():
    assert list(tj.range(3)) == [0, 1, 2]
    assert list(tj.range(1, 7, 2)) == [1, 3, 5]


def test_constant_predicate_is_folded_away():
    @tj.function
    def f(x):
        return tj.cond(np.float64(1.0) + 0.0 + np.sum(np.zeros(2)), lambda: x + 1, lambda: x - 1)

    concrete = f.get_concrete_function(np.ones(2))
    assert "tj.if" not in concrete.ir(after="canonicalize")
    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
