"""A tj.function called from another one: the callee is traced inside the caller's trace,
and its results take their sizes from the caller's arguments (concrete_function.py,
`call_symbolic`). Three wrong answers lived here, found by realistic programs, not the
fuzzer (which now calls every program this way too, fuzz_oracle.CALLED):

- a result with a dim unknown at trace time took the dims of the first argument of its
  static shape: `b * 2` of an (n, 2) `a` and an (m, 2) `b` came back with n rows, the rows
  past m read from beyond b's buffer;
- a result whose size depends on the data (`x[x > 0]`) came back as its descriptor (the
  address of its buffer and its size), even with static shapes;
- the same for `np.concatenate([a, b])` (n rows instead of n + m), and gradients of it
  crashed on dims unknown at trace time.
Returning a view of an argument (`a[1:]`) was refused with a wrong message.
"""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import answers_with_user_defaults, assert_same, run_eagerly

ROWS = tj.TensorSpec([None, 2], tj.float64)


@tj.function
def second_doubled(a, b):
    return b * 2


@tj.function
def positives(x):
    return x[x > 0]


@tj.function
def joined(a, b):
    return np.concatenate([a, b])


@tj.function
def all_but_first(a):
    return a[1:]


def calls(a, b):
    return (
        second_doubled(a, b) + 1,
        positives(a) * 3,
        joined(a, b).sum(axis=0),
        all_but_first(b),
        np.sum(positives(b)),
    )


CALLS_WITH_UNKNOWN_DIMS = tj.function(calls, input_signature=[ROWS, ROWS])
CALLS_WITH_STATIC_DIMS = tj.function(calls)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(0, 6), m=st.integers(0, 6), seed=st.integers(0, 2**16))
@example(n=3, m=2, seed=0)
@example(n=0, m=4, seed=1)
@example(n=2, m=0, seed=2)
def test_results_take_their_sizes_from_the_callers_arguments(n, m, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((n, 2)), rng.standard_normal((m, 2))
    want = run_eagerly(calls, a, b)
    for function in (CALLS_WITH_UNKNOWN_DIMS, CALLS_WITH_STATIC_DIMS):
        got = function(a, b)
        for g, w in zip(got, want, strict=True):
            assert np.shape(g) == np.shape(w)
            assert_same(g, w, 1e-12, 1e-12)
    assert CALLS_WITH_UNKNOWN_DIMS.experimental_get_tracing_count() == 1


def test_the_callees_dim_constraints_hold_in_the_caller():
    @tj.function
    def summed(a, b):
        return a + b

    caller = tj.function(lambda a, b: summed(a, b) * 2, input_signature=[ROWS, ROWS])
    np.testing.assert_array_equal(caller(np.ones((3, 2)), np.ones((3, 2))), np.full((3, 2), 4.0))
    with pytest.raises(tj.errors.InvalidArgumentError):
        caller(np.ones((3, 2)), np.ones((2, 2)))


def test_gradients_through_a_called_function_with_unknown_dims():
    def loss(a, b):
        return np.sum(np.concatenate([a, b * 2, a[1:]]) ** 2)

    gradient = tj.grad(loss, argnums=(0, 1))
    caller = tj.function(lambda a, b: gradient(a, b), input_signature=[ROWS, ROWS])
    for n, m in ((3, 2), (0, 4), (1, 0)):
        rng = np.random.default_rng(n + 10 * m)
        a, b = rng.standard_normal((n, 2)), rng.standard_normal((m, 2))
        grad_a, grad_b = caller(a, b)
        want_a = 2 * a
        want_a[1:] += 2 * a[1:]
        np.testing.assert_allclose(grad_a, want_a, rtol=1e-12)
        np.testing.assert_allclose(grad_b, 8 * b, rtol=1e-12)


def doubled_second_through_a_call(a, b):
    return second_doubled(a, b) - positives(a).sum()


def test_with_the_defaults_users_get():
    a, b = np.arange(6.0).reshape(3, 2) - 2, np.arange(4.0).reshape(2, 2)
    want = doubled_second_through_a_call(a, b)
    for answer in answers_with_user_defaults(doubled_second_through_a_call, a, b):
        np.testing.assert_array_equal(answer, want)


@tj.function
def countdown_sum(a):
    total = 0
    c = a
    while c > 0:
        c -= 1  # rebinds c for a NumPy scalar; writes a 0-d array (and a) in place
        total += a
    return total


def test_a_numpy_scalar_stays_a_scalar_through_a_call():
    """The caller's NumPy scalar reached the callee as a traced 0-d value, which it took for
    a 0-d array: `c = a; c -= 1` then wrote `a` too (2 * 2 came back as 1 * 1; found by the
    fuzzer calling programs from another Function). A 0-d array is still written in place."""
    for arguments in [(np.int32(2),), (np.float64(3.0),)]:
        caller = tj.function(lambda a: countdown_sum(a))
        assert caller(*arguments) == run_eagerly(countdown_sum.python_function, *arguments)
    array = np.array(2, np.int32)
    caller = tj.function(lambda a: countdown_sum(a))
    assert caller(array.copy()) == run_eagerly(countdown_sum.python_function, array.copy())


@tj.function
def reads_its_flat_view_after_a_write(a):
    flat = a.reshape(-1)  # a view of a C-contiguous array only
    a += 1
    return flat * 2


def test_a_callee_relying_on_a_c_contiguous_input_is_checked_in_the_caller():
    """The callee relies on its input being C-contiguous (for a Fortran-ordered one NumPy's
    reshape is a copy, which does not see the write): a direct call refuses another layout,
    but a caller passed it through unchecked, and the answer was the C-order one (found by
    the fuzzer calling programs from another Function, regressions/test_fuzz_80064de95d)."""
    def through(a):
        return reads_its_flat_view_after_a_write(a)

    def through_a_copy(a):
        return reads_its_flat_view_after_a_write(a * 1.0)

    def through_a_transpose(a):
        return reads_its_flat_view_after_a_write(a.T)

    fortran = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    for program in (through, through_a_copy):
        c_ordered = np.arange(6.0).reshape(2, 3)
        want = run_eagerly(program, c_ordered.copy())
        np.testing.assert_array_equal(tj.function(program)(c_ordered.copy()), want)
        with pytest.raises(tj.errors.InvalidArgumentError, match="not C-contiguous"):
            tj.function(program)(fortran.copy(order="F"))
    with pytest.raises(NotImplementedError, match="relies on that input being C-contiguous"):
        tj.function(through_a_transpose)(np.arange(6.0).reshape(2, 3))
    assert run_eagerly(through, fortran.copy(order="F")).tolist() == [0, 2, 4, 6, 8, 10]  # a copy
