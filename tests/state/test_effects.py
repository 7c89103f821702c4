"""tj.print, tj.py_function and tj.debugging asserts: run-time effects in program order,
kept by CSE/DCE, compared with eager behaviour (printed text included)."""

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import run_eagerly


def run_eager(function, *args):
    tj.config.run_functions_eagerly(True)
    try:
        return function(*args)
    finally:
        tj.config.run_functions_eagerly(False)


def printed(capsys, function, *args):
    """(eager output, compiled output) of calling `function(*args)`."""
    run_eager(function, *args)
    eager = capsys.readouterr().out
    function(*args)
    return eager, capsys.readouterr().out


def test_print_formats_like_numpy_every_call(capsys):
    @tj.function
    def f(x, n):
        tj.print("x:", x, "sum", np.sum(x), "n", n, sep=" ", end="!\n")
        return x

    x = np.array([1, 2, 3])
    eager, compiled = printed(capsys, f, x, np.float32(0.5))
    assert compiled == eager == "x: [1 2 3] sum 6 n 0.5!\n"
    f(x, np.float32(0.5))
    assert capsys.readouterr().out == eager  # printed again: it runs on every call


def test_plain_print_runs_only_while_tracing(capsys):
    @tj.function
    def f(x):
        print("tracing")
        return x + 1

    f(np.ones(2))
    f(np.ones(2))
    assert capsys.readouterr().out == "tracing\n"


def test_print_in_staged_branches_and_loops(capsys):
    @tj.function
    def countdown(n):
        def body(i):
            tj.cond(i % 2, lambda: tj.print(i, "odd"), lambda: tj.print(i, "even"))
            return (i - 1,)

        tj.while_loop(lambda i: i, body, (n,))

    eager, compiled = printed(capsys, countdown, np.int64(4))
    assert compiled == eager == "4 even\n3 odd\n2 even\n1 odd\n"


def test_py_function_runs_every_call_in_order(capsys):
    log = []

    @tj.function
    def f(x):
        tj.print("before")
        tj.py_function(lambda i: log.append(float(i)), [x], None)
        doubled = tj.py_function(lambda a: a * 2, [x], tj.TensorSpec([], np.float64))
        tj.print("after", doubled)
        return doubled + 1

    assert f(np.float64(1.0)) == 3.0
    assert f(np.float64(2.0)) == 5.0
    assert log == [1.0, 2.0]
    assert capsys.readouterr().out == "before\nafter 2.0\nbefore\nafter 4.0\n"


def test_py_function_exceptions_propagate_as_themselves():
    class Custom(Exception):
        pass

    def boom(x):
        raise Custom("from python")

    @tj.function
    def f(x):
        return tj.py_function(boom, [x], np.float64)

    with pytest.raises(Custom, match="from python"):
        f(np.float64(1.0))


def test_failed_assert_stops_between_effects(capsys):
    @tj.function
    def f(x):
        tj.print("first")
        tj.debugging.assert_greater(x, 0.0, message="x must be positive")
        tj.print("second")
        return x

    assert f(np.float64(1.0)) == 1.0
    capsys.readouterr()
    with pytest.raises(tj.errors.InvalidArgumentError, match="x must be positive"):
        f(np.float64(-1.0))
    assert capsys.readouterr().out == "first\n"
    with pytest.raises(tj.errors.InvalidArgumentError, match="x must be positive"):
        run_eager(f, np.float64(-1.0))


@pytest.mark.parametrize(
    "check, good, bad",
    [
        (lambda x: tj.debugging.assert_equal(x, 2.0), [2.0, 2.0], [2.0, 3.0]),
        (lambda x: tj.debugging.assert_less(x, 5.0), [1.0, 2.0], [1.0, 6.0]),
        (lambda x: tj.debugging.assert_non_negative(x), [0.0, 1.0], [-1.0, 1.0]),
        (lambda x: tj.debugging.assert_all_finite(x), [0.0, 1.0], [np.nan, 1.0]),
    ],
)
def test_debugging_asserts(check, good, bad):
    f = tj.function(lambda x: (check(x), x)[1])
    np.testing.assert_array_equal(f(np.array(good)), good)
    with pytest.raises(tj.errors.InvalidArgumentError, match="did not hold"):
        f(np.array(bad))


def test_effects_survive_cse_and_dce_and_unused_pure_work_is_removed():
    v = tj.Variable(np.zeros(2))

    @tj.function
    def f(x):
        np.exp(x) * 3  # unused and pure: removed (non-strict execution)
        tj.print(x)
        tj.print(x)  # identical effect: must not be merged
        v.assign(x)
        v.assign(x)
        return x

    concrete = f.get_concrete_function(np.ones(2))
    optimized = concrete.ir(after="cse")
    assert optimized.count("tj.print") == 2
    assert optimized.count("tj.var_write") == 2
    assert "tj.exp" not in optimized


def prints_containers(x):
    tj.print({"k": x}, [x, 1], (x,), [1, "a"], sep=" | ")
    return x


def test_tj_print_of_containers_prints_their_values(capsys):
    """A dict, list or tuple of tensors printed `<tj.Tensor ...>` when compiled (a probe of
    the tf.function contract): now their values, as tf.print, and eagerly alike."""
    x = np.array([1.5, 2.0])
    tj.function(prints_containers)(x)
    compiled = capsys.readouterr().out
    run_eagerly(tj.function(prints_containers), x)
    assert capsys.readouterr().out == compiled
    assert compiled == "{'k': [1.5 2. ]} | [[1.5 2. ], 1] | ([1.5 2. ],) | [1, 'a']\n"
