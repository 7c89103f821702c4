"""AutoGraph's rules: what staged control flow allows, and the errors (naming the variable
and the user's line) for what it does not; plus trace-time side effects and recursion into
user functions, methods and closures."""

import re

import numpy as np
import pytest

import tracejit as tj


def line_of(function, text):
    """The file line of the first source line of `function` containing `text`."""
    import inspect

    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def where(function, text):
    return re.escape(f"test_rules_and_errors.py:{line_of(function, text)}")


def assigned_in_one_branch(x):
    if np.sum(x) > 0:
        y = x
    return y + 1


def branches_differ_in_dtype(x):
    if np.sum(x) > 0:  # noqa: SIM108  (the statement form is what is tested)
        y = x
    else:
        y = x.astype(np.float32)
    return y


def branches_differ_in_shape(x):
    if np.sum(x) > 0:  # noqa: SIM108  (the statement form is what is tested)
        y = x
    else:
        y = np.sum(x)
    return y


def loop_changes_dtype(x):
    s = 0.5  # a float literal cannot become int32 (NEP 50 gives float64): a real change
    while np.sum(x) > s:
        s = np.sum(x).astype(np.int32)
    return s


def returns_in_one_branch(x):
    if np.sum(x) > 0:
        return x


def ambiguous_truth(x):
    if x > 0:
        return x
    return -x


def test_variable_assigned_in_one_staged_branch_and_used_after():
    f = tj.function(assigned_in_one_branch)
    message = "'y' is assigned in only one branch of the staged if at " + where(
        assigned_in_one_branch, "if np.sum"
    )
    with pytest.raises(ValueError, match=message) as error:  # TensorFlow's type
        f(np.ones(3))
    assert str(error.value).endswith(f":{line_of(assigned_in_one_branch, 'return y')})")


@pytest.mark.parametrize(
    ("function", "error", "message", "line"),
    [
        (branches_differ_in_dtype, TypeError, "'y' has dtype float64 .* but dtype float32 .*{}",
         "if np"),
        (branches_differ_in_shape, TypeError, r"'y' has .* shape \(3,\) .* shape \(\) .*{}",
         "if np"),
        (loop_changes_dtype, TypeError, "loop variable 's' changes from dtype float64 .*{}",
         "while"),
        (
            returns_in_one_branch,
            ValueError,
            "the staged if at {} returns a value in one branch and nothing",
            "if np",
        ),
        (ambiguous_truth, ValueError, r"truth value of a tensor with shape \(3,\) is ambiguous.*{}",
         "if x"),
    ],
)  # fmt: skip
def test_errors_name_the_variable_and_the_user_line(function, error, message, line):
    """The exception types are TensorFlow's (AutoGraph's staging errors); the messages ours."""
    with pytest.raises(error, match=message.format(where(function, line))) as info:
        tj.function(function)(np.ones(3))
    assert type(info.value) is error


def test_without_autograph_a_tensor_condition_is_a_type_error():
    with pytest.raises(TypeError, match="enable AutoGraph.*" + where(ambiguous_truth, "if x")):
        tj.function(ambiguous_truth, autograph=False)(np.float64(2.0))


def unsupported_in_branch(x):
    if np.sum(x) > 0:  # noqa: SIM108  (the statement form is what is tested)
        y = np.linalg.eig(x)
    else:
        y = x
    return y


def test_errors_inside_a_staged_branch_point_at_the_user_line():
    with pytest.raises(TypeError, match=where(unsupported_in_branch, "np.linalg.eig")):
        tj.function(unsupported_in_branch)(np.ones((2, 2)))


@tj.function
def checked_log(x):
    assert np.all(x > 0), "x must be positive"
    return np.log(x)


def test_assert_on_a_tensor_is_a_run_time_check(check_against_eager):
    check_against_eager(checked_log, np.array([1.0, 2.0]))
    with pytest.raises(
        AssertionError, match="x must be positive .*" + where(checked_log, "assert")
    ):
        checked_log(np.array([1.0, -2.0]))
    assert "tj.assert" in str(checked_log.get_concrete_function(np.ones(2)).graph)


@tj.function
def fizzbuzz(n):
    counts = np.zeros(4, np.int64)
    plain_total = 0
    for i in tj.range(1, n + 1):
        if i % 15 == 0:
            counts = counts + np.array([1, 0, 0, 0])
        elif i % 3 == 0:
            counts = counts + np.array([0, 1, 0, 0])
        elif i % 5 == 0:
            counts = counts + np.array([0, 0, 1, 0])
        else:
            counts = counts + np.array([0, 0, 0, 1])
            plain_total += i
    return counts, plain_total


@pytest.mark.parametrize("n", [0, 5, 20, 31])
def test_fizzbuzz(check_against_eager, n):
    check_against_eager(fizzbuzz, np.int64(n))


def test_staged_ops_appear_in_the_traced_ir():
    ir = str(fizzbuzz.get_concrete_function(np.int64(3)).graph)
    assert ir.count("tj.while") == 1 and ir.count("tj.if") >= 3


def test_python_side_effects_run_once_at_trace_time(capsys):
    seen = []

    @tj.function
    def f(x, n):
        for i in tj.range(n):
            print("tracing the loop body")
            seen.append(i)
            if np.sum(x) > 3:
                print("tracing the true branch")
                x = x - 1
            else:
                x = x + 2
        return x

    assert np.array_equal(f(np.ones(2), np.int64(5)), [2.0, 2.0])  # 1 3 2 1 3 2
    assert np.array_equal(f(np.ones(2), np.int64(0)), [1.0, 1.0])
    assert len(seen) == 1
    assert capsys.readouterr().out == "tracing the loop body\ntracing the true branch\n"


def helper_with_control_flow(x, scale):
    if np.max(x) > scale:
        return x / scale
    return x * scale


class Model:
    def __init__(self, scale):
        self.scale = scale

    def step(self, x):
        return helper_with_control_flow(x, self.scale)

    @tj.function
    def __call__(self, x):
        y = self.step(x)
        clipped = (lambda v: np.minimum(v, 5.0) if np.sum(v) > 8 else v)(y)
        return clipped


@pytest.mark.parametrize("x", [[1.0, 2.0], [4.0, 9.0], [-3.0, 0.5]])
def test_user_functions_methods_and_lambdas_are_converted_when_called(check_against_eager, x):
    check_against_eager(Model(3.0), np.array(x))


@tj.function
def explicit_api(x, n):
    y = tj.cond(np.sum(x) > 0, lambda: x * 2, lambda: x - 1)
    i, acc = tj.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc + y), (0, x))
    return y, i, acc


@pytest.mark.parametrize(("x", "n"), [([1.0, 2.0], 3), ([-1.0, -2.0], 0)])
def test_explicit_cond_and_while_loop(check_against_eager, x, n):
    check_against_eager(explicit_api, np.array(x), np.int64(n))
