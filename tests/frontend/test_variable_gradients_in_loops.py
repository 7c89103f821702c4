"""Gradients of `tj.Variable`s read inside staged loops and ifs (autodiff/variable_reads.py).

The tape found a Variable's reads among the function body's ops only: a read inside a
staged loop's body (`y = y * w` in `for i in range(n)`) got a gradient of zeros under an
outer tape, and None from a tape inside the function, beside the right value. Found by a
sweep of realistic kernels, then by the fuzzer once it read Variables in staged loops
(fuzz_programs._variable_read_in_a_loop). Values are compared with the code run by
`run_functions_eagerly(True)`, gradients with closed forms and central differences (an
outer tape records tj.function calls, not the eager NumPy they become).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import run_eagerly
from tracejit.frontend.autodiff import NotDifferentiableError


def taped_gradient(function, variable, *args):
    """The value of `function(*args)` and its gradient in `variable`, by an outer tape."""
    with tj.GradientTape() as tape:
        value = function(*args)
    return value, tape.gradient(value, variable)


def central_differences(function, variable, *args, step=1e-6):
    """d function(*args) / d variable, element by element, run eagerly."""
    start = variable.numpy()
    grad = np.zeros_like(start)
    for k in range(start.size):
        values = []
        for delta in (step, -step):
            moved = start.copy()
            moved.flat[k] += delta
            variable.assign(moved)
            values.append(run_eagerly(function, *args))
        grad.flat[k] = (values[0] - values[1]) / (2 * step)
    variable.assign(start)
    return grad


def powers(w):
    """sum(w ** n), by a staged loop multiplying by the Variable `w` n times."""

    def program(n):
        y = np.ones(w.shape)
        for _ in range(n):
            y = y * w
        return np.sum(y)

    return program


@settings(max_examples=8, deadline=None)
@given(trips=st.integers(0, 5), seed=st.integers(0, 2**16))
def test_an_outer_tape_differentiates_a_variable_read_in_a_staged_loop(trips, seed):
    w = tj.Variable(np.random.default_rng(seed).uniform(-1.5, 1.5, 3))
    f = tj.function(powers(w))
    value, grad = taped_gradient(f, w, np.int64(trips))
    np.testing.assert_allclose(value, run_eagerly(f, np.int64(trips)), rtol=1e-12)
    want = trips * w.numpy() ** (trips - 1) if trips else np.zeros(3)  # zero trips: zeros
    np.testing.assert_allclose(grad, want, rtol=1e-12)
    np.testing.assert_allclose(grad, central_differences(f, w, np.int64(trips)), rtol=1e-6)


def test_a_tape_inside_the_function_sees_reads_in_loops_and_branches():
    w = tj.Variable(np.array([0.5, -0.3]))

    @tj.function
    def gradient(n, flag):
        with tj.GradientTape() as tape:
            y = np.ones(2)
            i = 0
            while i < n:  # a staged while
                for _ in range(n):  # nested in a staged for
                    y = y * w
                i += 1
            if flag:  # and in a staged if
                y = y + np.sin(w)
            loss = np.sum(y)
        return tape.gradient(loss, w)

    n, base = np.int64(2), w.numpy()
    for flag in (True, False):
        got = gradient(n, np.bool_(flag))
        want = 4 * base**3 + (np.cos(base) if flag else 0)
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_variable_written_before_the_loop_is_differentiated_through_the_write():
    w = tj.Variable(np.array([0.5, 2.0]))

    @tj.function
    def program(n):
        w.assign(w * 3.0)  # the loop reads the written value, a function of w's first one
        y = np.zeros(2)
        for _ in range(n):
            y = y + w
        return np.sum(y * y)

    first = w.numpy()
    value, grad = taped_gradient(program, w, np.int64(3))
    w.assign(first)
    np.testing.assert_allclose(value, run_eagerly(program, np.int64(3)), rtol=1e-12)
    w.assign(first)
    np.testing.assert_allclose(grad, 2 * 81 * first, rtol=1e-12)  # sum((3 * 3w) ** 2)


def test_a_variable_both_written_and_read_in_a_loop_is_refused_by_name():
    w = tj.Variable(np.array([0.5, 2.0]), name="weights")

    @tj.function
    def program(n):
        y = np.zeros(2)
        for _ in range(n):
            w.assign_add(np.ones(2))
            y = y + w
        return np.sum(y)

    with pytest.raises(NotDifferentiableError, match="'weights'.*writes it"):
        taped_gradient(program, w, np.int64(2))


def test_a_variable_passed_as_a_loops_first_value():
    """`y = x` with `x` a Variable argument, then `y = y * 2` in a staged loop: the loop
    starts from the Variable's value, as TensorFlow's does (was a TypeError)."""
    w = tj.Variable(np.array([0.5, -0.3]))

    def doubled(x, n):
        y = x
        for _ in range(n):
            y = y * 2.0
        return np.sum(y * y)

    f = tj.function(doubled)
    np.testing.assert_allclose(f(w, np.int64(3)), run_eagerly(f, w, np.int64(3)), rtol=1e-12)
    _, grad = taped_gradient(f, w, w, np.int64(3))
    np.testing.assert_allclose(grad, 2 * 64 * w.numpy(), rtol=1e-12)


def test_with_the_defaults_users_get():
    """Tiered compilation on: the interpreted first call and the compiled one agree."""
    w = tj.Variable(np.array([0.25, 1.5]))
    tj.config.set_tiered_compilation(True)
    try:
        f = tj.function(powers(w))
        grads = [taped_gradient(f, w, np.int64(3))[1]]
        tj.config.wait_for_compiles()
        grads.append(taped_gradient(f, w, np.int64(3))[1])
    finally:
        tj.config.set_tiered_compilation(False)
    for grad in grads:
        np.testing.assert_allclose(grad, 3 * w.numpy() ** 2, rtol=1e-12)


def test_a_read_after_a_staged_if_or_loop_that_writes_the_variable_is_refused():
    """`if c: v.assign(x)`, then `v * 3`: the sweep took the read for one of v's first
    value, and d/dv came back 3 where it is 0 (found while fixing the reads above; the
    fuzzer then found it on the old code, regressions/test_fuzz_1fb2114191)."""
    w = tj.Variable(np.array([0.5, -0.3]), name="state")

    @tj.function
    def branch(x, flag):
        if flag:
            w.assign(x)
        return np.sum(w.value() * 3.0)

    @tj.function
    def loop(x, n):
        for _ in range(n):
            w.assign(x)
        return np.sum(w.value() * 3.0)

    x = np.array([1.0, 2.0])
    for function, control in ((branch, np.bool_(True)), (loop, np.int64(2))):
        with pytest.raises(NotDifferentiableError, match="'state'"):
            taped_gradient(function, w, x, control)
        w.assign(np.array([0.5, -0.3]))
        np.testing.assert_allclose(function(x, control), 9.0)
