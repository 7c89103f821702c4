"""A `while` whose test is a Python value at first and a tensor after one trip.

`err = 1.0; while err > tol: ...; err = np.max(...)` is how NumPy code writes a loop to
convergence. The first test is Python's `True`; after one trip it is a tensor. tracejit
stages such a loop from its start when that trip leaves every variable a kind the loop
carries from its value before it (operators.py, `_first_trip_stages`), instead of tracing
the first trip as a copy of the body before the loop (half the code to compile). Otherwise
it keeps the copy. Either way the results are NumPy's: each program runs compiled,
eagerly and as plain Python, and the arguments it writes are compared too.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly


def _check(program, *args):
    """Compiled, eager and plain results agree, and the arrays the program writes too."""
    f = tj.function(program)
    runs = []
    for call in (program, f, lambda *a: run_eagerly(f, *a)):
        copies = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
        runs.append((call(*copies), [c for c in copies if isinstance(c, np.ndarray)]))
    for compiled in runs[1:]:
        assert_same(compiled, runs[0])
    return f


def _ops(f, *args, name: str) -> int:
    return str(f.get_concrete_function(*args).graph).count(f" = {name} ")


def babylonian_sqrt(a, tol):
    x = a.copy()
    err = 1.0
    steps = 0
    while err > tol:
        x = 0.5 * (x + a / x)
        err = np.max(np.abs(x * x - a))
        steps += 1
    return x, steps


def test_a_loop_to_convergence_is_one_staged_loop():
    a = np.array([2.0, 9.0, 0.5])
    f = _check(babylonian_sqrt, a, 1e-12)
    graph = str(f.get_concrete_function(a, 1e-12).graph)
    assert graph.count("tj.while") == 1
    assert graph.count(" = tj.div ") == 1  # the body once: no copy of it before the loop


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(0.01, 1e4), min_size=1, max_size=6),
    st.sampled_from([1e-3, 1e-9]),
)
def test_convergence_on_any_values(values, tol):
    _check(babylonian_sqrt, np.array(values), tol)


def relax_in_place(u, tol):
    """A Jacobi sweep writing the argument in place until the update is small (the
    channel-flow solver's shape): u is an array written, never rebound."""
    change = 1
    while change > tol:
        old = u.copy()
        u[1:-1] = 0.5 * (old[:-2] + old[2:])
        change = np.sum(np.abs(u - old))
    return change


def test_an_argument_written_in_place_until_convergence():
    u = np.zeros(12)
    u[-1] = 1.0
    f = _check(relax_in_place, u, 1e-3)
    assert _ops(f, u, 1e-3, name="tj.sub") == 1


def python_counter(x):
    """A test that stays a Python value: the loop runs as Python (unrolled) as before."""
    i = 0
    while i < 3:
        x = x * 2
        i += 1
    return x


def test_a_python_test_stays_a_python_loop():
    x = np.arange(3.0)
    f = _check(python_counter, x)
    assert "tj.while" not in str(f.get_concrete_function(x).graph)


def accumulate_from_none(x, tol):
    """A variable None before the loop and an array after one trip: a staged loop could
    not carry it from None, so the first trip stays a copy before the loop."""
    total = None
    err = 1.0
    while err > tol:
        total = x if total is None else total + x
        x = x * 0.5
        err = np.max(np.abs(x))
    return total, x


def python_zero_becomes_a_vector(x, tol):
    s = 0
    err = 1.0
    while err > tol:
        s = s + x
        x = x * 0.5
        err = np.max(np.abs(x))
    return s


def zero_d_array_becomes_a_scalar(a, tol):
    y = a  # a 0-d array argument; `y * 0.5` is a NumPy scalar
    err = 1.0
    while err > tol:
        y = y * 0.5
        err = np.abs(y)
    return y


@pytest.mark.parametrize(
    "program, x",
    [
        (accumulate_from_none, np.array([1.0, -2.0])),
        (python_zero_becomes_a_vector, np.array([1.0, -2.0])),
        (zero_d_array_becomes_a_scalar, np.array(3.0)),
    ],
    ids=["None-to-array", "zero-to-vector", "0-d-array-to-scalar"],
)
def test_a_first_trip_that_changes_a_kind_stays_before_the_loop(program, x):
    f = _check(program, x, 0.1)
    assert str(f.get_concrete_function(x, 0.1).graph).count("tj.while") == 1


def break_out(x):
    """`while True` with a break on a tensor condition: the break flag is a tensor after
    one trip."""
    steps = 0
    while True:
        x = x * 1.5
        steps += 1
        if np.sum(x) > 10:
            break
    return x, steps


@pytest.mark.parametrize("start", [[1.0, 2.0], [20.0, 1.0], [0.01, 0.0]])
def test_a_break_on_a_tensor(start):
    _check(break_out, np.array(start))


def written_constant(x, tol):
    """An array the function makes and writes with Python values in the body: the trip
    traced to decide must not leave its write behind (the final count is NumPy's)."""
    counts = np.eye(2)
    err = 1.0
    while err > tol:
        counts[0, 0] += 1.0
        x = x * 0.5
        err = np.max(np.abs(x))
    return counts, x


def test_a_write_of_a_python_value_is_made_once_per_trip():
    _check(written_constant, np.array([1.0, 2.0]), 0.01)


@tj.function
def halve(x):
    return x * 0.5


def calls_a_function(x, tol):
    err = 1.0
    while err > tol:
        x = halve(x)
        err = np.max(np.abs(x))
    return x


def test_a_traced_function_called_in_the_body():
    _check(calls_a_function, np.array([4.0, -3.0]), 0.01)


def items_of_a_list(x, tol):
    """A list the loop carries: the trip traced to decide changes a copy of it."""
    pair = [x, x * 0.0]
    err = 1.0
    while err > tol:
        pair[1] = pair[1] + pair[0]
        pair[0] = pair[0] * 0.5
        err = np.max(np.abs(pair[0]))
    return pair[0], pair[1]


def test_a_list_the_loop_carries():
    _check(items_of_a_list, np.array([1.0, 3.0]), 0.05)


def zero_trips(x, tol):
    err = 0.0
    while err > tol:
        x = x + 1
        err = np.max(x)
    return x


def test_a_python_test_false_at_first_runs_no_trip():
    _check(zero_trips, np.array([1.0]), 0.5)


def test_with_the_defaults_users_get():
    """Tiered compilation on (the suite turns it off): the compiled code answers, and
    agrees."""
    a = np.array([2.0, 9.0, 0.5])
    want = babylonian_sqrt(a, 1e-12)
    tj.config.set_tiered_compilation(True)
    try:
        f = tj.function(babylonian_sqrt)
        assert_same(f(a, 1e-12), want)  # interpreted while it compiles
        tj.config.wait_for_compiles()
        concrete = f.get_concrete_function(a, 1e-12)
        assert concrete.is_compiled and concrete.fast_call is not None
        assert_same(f(a, 1e-12), want)
    finally:
        tj.config.set_tiered_compilation(False)
