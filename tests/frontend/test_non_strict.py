"""Non-strict execution (frontend/staging/non_strict.py): an error NumPy raises from the data while
tracing (an index out of range, ...) is raised only if the failing op's result is used by
a result or a side effect; an unused failing op is dropped, as tf.function drops it."""

# ruff: noqa: F841, SIM108  (results computed and not used, staged ifs: that is the point)

from __future__ import annotations

import inspect
import traceback

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

DTYPES = [np.float64, np.float32, np.int32, np.int64]


def line_of(function, text: str) -> int:
    """The line number of the first line of `function`'s source that contains `text`."""
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)


def graph_of(function, *args) -> str:
    concrete = function.get_concrete_function(*args)
    concrete.graph.module.verify()
    return str(concrete.graph)


def eager_error(function, *args) -> BaseException:
    with pytest.raises(Exception) as info:
        run_eagerly(function, *args)
    return info.value


# --- the guide's example ------------------------------------------------------------------
def unused_take(x):
    # Get index 1 will fail when len(x) == 1
    np.take(x, [1])  # unused
    return x


def unused_getitem(x):
    x[1]  # unused
    return x


def unused_chain(x):
    y = x[1] * 2  # unused, and so is what is computed from it
    return np.sum(y) if False else x + 1


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("python_function", [unused_take, unused_getitem, unused_chain])
def test_guide_example_unused_failing_op_is_not_executed(python_function, dtype):
    f = tj.function(python_function)
    x = np.array([0], dtype)
    expected = x + 1 if python_function is unused_chain else x
    assert_same(f(x), expected)
    assert "tj.poison" not in graph_of(f, x)
    assert "tj.slice" not in graph_of(f, x) and "tj.gather" not in graph_of(f, x)
    # eagerly every line runs: NumPy raises
    assert isinstance(eager_error(f, x), IndexError)
    # where NumPy succeeds, compiled and eager agree
    longer = np.array([3, 4], dtype)
    assert_same(f(longer), run_eagerly(f, longer))


def used_take(x):
    return np.take(x, [1])


def used_getitem(x):
    return x[1]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("python_function", "text"), [(used_take, "np.take"), (used_getitem, "x[1]")]
)
def test_used_failing_op_raises_at_trace_time_at_the_user_line(python_function, text, dtype):
    f = tj.function(python_function)
    x = np.array([0], dtype)
    line = line_of(python_function, text)
    with pytest.raises(IndexError) as info:
        f(x)
    eager = eager_error(f, x)
    assert type(info.value) is type(eager)
    assert str(info.value) == f"{eager} (test_non_strict.py:{line})"
    # the traceback goes through the user's line, as if raised there
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(fr.filename == __file__ and fr.lineno == line for fr in frames)
    assert f.experimental_get_tracing_count() == 0  # nothing was traced successfully
    longer = np.array([3, 4], dtype)
    assert_same(f(longer), run_eagerly(f, longer))


def test_first_used_error_in_program_order_is_raised():
    @tj.function
    def f(x):
        a = x[5]
        unused = x[9]
        b = x[6]
        return b, a

    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        f(np.arange(3.0))


# --- other data errors found while tracing -------------------------------------------------
def test_constant_index_arrays():
    @tj.function
    def unused(x, m):
        x[[0, 3]]
        m[[0, 1], [0, 5]]
        m[:, np.array([-7])]
        return x * 2, m

    @tj.function
    def used(m):
        return m[[0, 1], [0, 5]]

    x, m = np.arange(3, dtype=np.int32), np.arange(12, dtype=np.int64).reshape(3, 4)
    assert_same(unused(x, m), (x * 2, m))
    assert "tj.poison" not in graph_of(unused, x, m)
    assert isinstance(eager_error(unused, x, m), IndexError)
    with pytest.raises(IndexError, match=r"index 5 is out of bounds for axis 1 with size 4 \("):
        used(m)


def test_integer_negative_power():
    @tj.function
    def unused(x):
        x**-1
        return x

    @tj.function
    def used(x):
        return x**-1

    x = np.array([1, 2], np.int32)
    assert_same(unused(x), x)
    assert isinstance(eager_error(unused, x), ValueError)
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        used(x)


def test_tensor_array_reads_and_writes_with_python_indices():
    @tj.function
    def unused(x):
        ta = tj.TensorArray(np.float32, size=2).unstack(x)
        ta.read(2)
        ta.read(-1)
        ta.write(5, x[0])  # the written array is never used
        return ta.stack()

    @tj.function
    def used_read(x):
        return tj.TensorArray(np.float32, size=2).unstack(x).read(2)

    @tj.function
    def used_write(x):
        return tj.TensorArray(np.float32, size=2).write(2, x[0]).stack()

    x = np.ones((2, 3), np.float32)
    assert_same(unused(x), x)
    assert "tj.poison" not in graph_of(unused, x)
    assert isinstance(eager_error(unused, x), tj.errors.InvalidArgumentError)
    with pytest.raises(tj.errors.InvalidArgumentError, match="read from index 2"):
        used_read(x)
    with pytest.raises(tj.errors.InvalidArgumentError, match="size is: 2"):
        used_write(x)


# --- side effects count as uses ------------------------------------------------------------
def test_a_failing_op_used_only_by_a_side_effect_raises():
    variable = tj.Variable(np.zeros(2))

    def printed(x):
        tj.print("value:", x[5])
        return x

    def asserted(x):
        tj.debugging.assert_greater(x[5], 0.0)
        return x

    def assigned(x):
        variable.assign(x[[0, 5]])
        return x

    def called_back(x):
        tj.py_function(lambda v: v, [x[5]], Tout=np.float64)
        return x

    x = np.arange(3.0)
    for python_function in (printed, asserted, assigned, called_back):
        with pytest.raises(IndexError, match=r"index 5 is out of bounds .*test_non_strict.py"):
            tj.function(python_function)(x)
    assert_same(variable.numpy(), np.zeros(2))


# --- staged control flow -------------------------------------------------------------------
def test_unused_failing_op_in_a_staged_if_branch():
    @tj.function
    def f(x):
        if np.sum(x) > 0:
            x[7]  # unused
            y = x[[0, 9]]  # assigned in one branch only, never read
            z = x * 2
            w = x[8]  # assigned in both branches, never read after the if
        else:
            z = x - 1
            w = x[0]
        return z

    for x in (np.arange(3.0), -np.arange(3.0)):
        assert_same(f(x), x * 2 if x.sum() > 0 else x - 1)
    assert "tj.poison" not in graph_of(f, np.arange(3.0))
    negative = -np.arange(3.0)  # eagerly the failing branch is not taken: both succeed
    assert_same(f(negative), run_eagerly(f, negative))
    assert isinstance(eager_error(f, np.arange(3.0)), IndexError)


def test_used_failing_op_in_a_staged_if_branch_raises():
    @tj.function
    def f(x):
        if np.sum(x) > 0:
            z = x[7]
        else:
            z = x[0]
        return z

    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        f(np.arange(3.0))


def test_failing_predicate_and_nested_ifs():
    @tj.function
    def dead_if(x):
        if x[5] > 0:  # the if computes nothing that is used: neither does its predicate
            y = x * 2
        else:
            y = x
        return x

    @tj.function
    def live_if(x):
        if x[5] > 0:
            y = x * 2
        else:
            y = x
        return y

    @tj.function
    def nested(x):
        z, w = x, x[0]
        if np.sum(x) > 0:
            if np.sum(x) > 1:
                w = x[7]  # yielded by both ifs, never read after them
                z = x + 1
            else:
                w = x[1]
            z = z * 2
        return z

    x = np.arange(3.0)
    assert_same(dead_if(x), x)
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        live_if(x)
    for v in (x, x - 0.5, x / 10, -x):
        assert_same(nested(v), run_eagerly(nested, v) if v.sum() <= 1 else (v + 1) * 2)
    assert "tj.poison" not in graph_of(nested, x)


def test_unknown_dims():
    spec = [tj.TensorSpec([None, 3], np.int64)]

    @tj.function(input_signature=spec)
    def unused(x):
        x[:, 5]
        x**-1
        return x

    @tj.function(input_signature=spec)
    def used(x):
        return x[:, 5]

    x = np.ones((2, 3), np.int64)
    assert_same(unused(x), x)
    assert "tj.poison" not in graph_of(unused, x)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 3"):
        used(x)


def test_unused_failing_op_in_a_loop_body():
    @tj.function
    def f(x, n):
        s = np.zeros_like(x)
        y = x[:1]
        for _ in tj.range(n):
            x[4]  # unused
            y = x[[5]]  # carried by the loop, never read after it
            s = s + x
        return s

    x = np.arange(3, dtype=np.int64)
    assert_same(f(x, np.int64(3)), x * 3)
    assert_same(f(x, np.int64(0)), run_eagerly(f, x, np.int64(0)))  # no iteration: NumPy agrees
    assert "tj.poison" not in graph_of(f, x, np.int64(3))
    assert isinstance(eager_error(f, x, np.int64(3)), IndexError)

    @tj.function
    def g(x, n):
        s = x
        i = 0
        while i < n:
            x[4]  # unused
            s = s + 1
            i += 1
        return s

    assert_same(g(x, np.int64(2)), x + 2)
    assert_same(g(x, np.int64(0)), run_eagerly(g, x, np.int64(0)))


def test_used_failing_op_in_a_loop_raises():
    @tj.function
    def body(x, n):
        s = np.zeros(1)
        for _ in tj.range(n):
            s = s + x[[4]]
        return s

    @tj.function
    def condition(x, n):
        i, s = 0, x
        while i < n and x[9] > -1:
            s = s + 1
            i += 1
        return s

    @tj.function
    def initial_value(x, n):  # a running loop takes all its initial values
        s, y = x, x[5]
        for _ in tj.range(n):
            y = y + 1
            s = s + 1
        return s

    x, n = np.arange(3.0), np.int64(2)
    for f, index in ((body, 4), (condition, 9), (initial_value, 5)):
        with pytest.raises(IndexError, match=f"index {index} is out of bounds"):
            f(x, n)


def test_iterating_a_tensor_stops_at_its_length():
    """Python iterates with __getitem__ until IndexError unless __iter__ exists; an index
    out of range raising nothing while tracing must not make iteration endless."""

    @tj.function(autograph=False)
    def f(x):
        a, b = x
        rows = [r * 2 for r in x]
        return a + b, rows

    x = np.array([1.0, 2.0])
    assert_same(f(x), run_eagerly(f, x))
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        tj.function(lambda x: [r for r in x], autograph=False)(np.float64(1.0))


# --- a try statement handling the error ----------------------------------------------------------
def handled_unused(x):
    try:
        w = x[5]  # NumPy raises here: the handler's value is returned
        r = x[1]
    except IndexError:
        r = x[2] * 10
    return r


def handled_used(x):
    try:
        r = x[-9] + 1
    except (KeyError, IndexError) as error:
        r = x[0] + len(str(error)) * 0
    return r


def handled_by_a_bare_except_in_a_staged_branch(x):
    r = x[0]
    if x[0] > 0:
        try:
            r = np.take(x, 7)
        except:  # noqa: E722
            r = x[1] * 3
    return r


def handled_elsewhere(x):
    try:
        r = x[5]  # a KeyError handler does not handle an IndexError: raised, as NumPy's
    except KeyError:
        r = x[0]
    return r


@pytest.mark.parametrize(
    "program", [handled_unused, handled_used, handled_by_a_bare_except_in_a_staged_branch]
)
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_a_try_that_handles_the_error_runs_its_handler(program, dtype):
    """Inside a `try` whose handlers catch it, the error is raised where it is found (the
    handler runs, as with NumPy), not deferred to the trace's end: an unused failing read
    there made tracejit return the try's value where NumPy returns the handler's."""
    f = tj.function(program)
    x = np.array([3, 1, 4], dtype)
    assert_same(f(x), run_eagerly(f, x))
    assert_same(f(x), program(x))


def test_a_try_that_does_not_handle_the_error_lets_it_raise():
    f = tj.function(handled_elsewhere)
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        f(np.arange(3.0))
    assert isinstance(eager_error(f, np.arange(3.0)), IndexError)


def handled_around_a_staged_if(x):
    try:
        if x[0] > 0:
            r = x[9]  # raises only if the branch runs
        else:
            r = x[0]
    except IndexError:
        r = x[1] - 100
    return r


def handled_around_a_staged_loop(x, n):
    r = x[0]
    try:
        for _ in tj.range(n):
            r = r + x[7]  # raises only if the loop runs
    except IndexError:
        r = x[1] - 100
    return r


def test_an_error_in_staged_code_inside_a_try_is_refused():
    """An error of a staged branch or loop body happens only if that code runs, and then
    NumPy runs the handler: tracejit cannot stage that, so it refuses it. Deferred, an
    unused row's error was dropped (the try's value came back when the branch ran); raised
    while tracing, the handler ran also when the branch did not (a first fix): both wrong."""
    for x in (np.array([1.0, 2.0, 3.0]), np.array([-1.0, 2.0, 3.0])):
        for program, args in ((handled_around_a_staged_if, (x,)),
                              (handled_around_a_staged_loop, (x, np.int64(2))),
                              (unused_in_a_staged_if_in_a_try, (x,))):  # fmt: skip
            with pytest.raises(NotImplementedError, match="inside a `try` that handles it"):
                tj.function(program)(*args)


def unused_in_a_staged_if_in_a_try(x):
    try:
        r = x[0]
        if x[0] > 0:
            w = x[9]  # unused: NumPy still raises when the branch runs
            r = x[1]
    except IndexError:
        r = x[2] * 10
    return r


def handled_at_a_traced_index(x, i):
    try:
        r = x[i]
    except IndexError:
        r = x[0] * 0
    return r


def test_an_index_the_kernel_checks_inside_a_try_is_refused():
    """A traced index, or a dim known only when the kernel runs, is checked by the kernel,
    which cannot run the handler (an unused one's check was even dropped): refused."""
    with pytest.raises(NotImplementedError, match="checked when the kernel runs"):
        tj.function(handled_at_a_traced_index)(np.arange(3.0), np.int64(5))
    unknown = tj.function(handled_unused, input_signature=[tj.TensorSpec([None], np.float64)])
    with pytest.raises(NotImplementedError, match="checked when the kernel runs"):
        unknown(np.arange(3.0))
    assert handled_at_a_traced_index(np.arange(3.0), np.int64(5)) == 0.0  # NumPy's handler


def caught_by_a_broad_handler(x, i):
    try:
        r = x[i]
    except Exception:  # would catch the refusal itself: the trace still refuses
        r = x[0] * 0 - 1
    return r


def test_a_refusal_inside_a_try_is_not_caught_by_the_users_handler():
    """`except Exception:` handles IndexError, so a traced index inside it is refused; the
    refusal is an Exception too, but the handler must not run in its place (the trace
    raises it when the function returns): that would return -1 for an index in range."""
    with pytest.raises(NotImplementedError, match="checked when the kernel runs"):
        tj.function(caught_by_a_broad_handler)(np.arange(3.0), np.int64(1))
