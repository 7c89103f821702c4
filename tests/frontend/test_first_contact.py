"""What a new user meets first: recursion, refusals that name the user's line and the way
out, generators, warnings at the user's line, and trace-time np.random."""

import math
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly  # noqa: F401  (see conftest)


def line_of(function, text):
    import inspect

    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def at(function, text):
    """The `(file:line)` suffix a message must end with for the line containing `text`."""
    return re.escape(f"test_first_contact.py:{line_of(function, text)})")


def compare(function, *args):
    compiled = tj.function(function)
    eager = run_eagerly(compiled, *args)
    result = compiled(*args)
    assert_same(result, eager)
    return result


# --- recursion ----------------------------------------------------------------------------------
def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def halve_times(x, n):
    if n == 0:
        return x
    return halve_times(x / 2, n - 1)


def until_large(x):
    if np.sum(x) > 100:
        return x
    return until_large(x * 2)


def uses_factorial(x):
    return x * factorial(5)


def uses_halving(x):
    return halve_times(x, 4)


def uses_tensor_recursion(x):
    return until_large(x)


@tj.function
def decorated_power(x, n):
    if n == 0:
        return np.ones_like(x)
    return x * decorated_power(x, n - 1)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_recursion_over_python_values_is_unrolled(dtype):
    x = np.arange(1, 5, dtype=dtype)
    compare(uses_factorial, x)
    compare(uses_halving, x)


def test_recursive_tj_function_over_python_values():
    x = np.arange(1.0, 4.0)
    np.testing.assert_allclose(decorated_power(x, 3), x**3)


def test_recursion_that_needs_a_staged_call_is_refused_at_the_users_line():
    f = tj.function(uses_tensor_recursion)
    with pytest.raises(NotImplementedError, match="recursion of until_large") as info:
        f(np.ones(3))
    assert re.search(at(uses_tensor_recursion, "until_large(x)"), str(info.value))
    assert "while_loop" in str(info.value)


# --- refusals naming the line and the way out --------------------------------------------------
def tolist(x):
    return x.tolist()


TABLE = np.zeros(3)


def store_into_global(x):
    TABLE[1] = x[0]
    return x


def unknown_ndarray_method(x):
    return x.searchsorted(1.0)


def contains_without_autograph(x):
    return 2.0 in x


def float_without_autograph(x):
    return float(x[0]) + 1.0


def bool_in_builtin(x):
    return sorted([x[0], x[1]])


@pytest.mark.parametrize(
    "function, text, line, advice",
    [
        (tolist, "run time", "x.tolist", "keep it an array"),
        (store_into_global, "constant of the trace", "TABLE[1] = x[0]", "np.zeros(shape)"),
        (unknown_ndarray_method, "ndarray.searchsorted", "x.searchsorted", "np.searchsorted"),
        (bool_in_builtin, "does not convert this use", "sorted(", "np.where"),
    ],
)
def test_refusals_name_the_line_and_what_to_write(function, text, line, advice):
    with pytest.raises((TypeError, AttributeError)) as info:
        tj.function(function)(np.arange(3.0))
    message = str(info.value)
    assert text in message and advice in message, message
    assert re.search(at(function, line), message), message
    assert "enable AutoGraph" not in message  # it is on


@pytest.mark.parametrize(
    "function, line, advice",
    [
        (contains_without_autograph, "2.0 in x", "np.any(t == item)"),
        (float_without_autograph, "float(x[0])", "t.astype(np.float64)"),
    ],
)
def test_without_autograph_the_message_says_to_enable_it(function, line, advice):
    with pytest.raises(TypeError) as info:
        tj.function(function, autograph=False)(np.arange(3.0))
    message = str(info.value)
    assert advice in message and "enable AutoGraph" in message, message
    assert re.search(at(function, line), message), message


def test_function_without_source_says_the_source_could_not_be_read():
    script = (
        "import numpy as np, tracejit as tj, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "def f(x):\n"
        "    if np.sum(x) > 0:\n"
        "        return x\n"
        "    return -x\n"
        "try:\n"
        "    tj.function(f)(np.ones(2))\n"
        "except TypeError as e:\n"
        "    print(e)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert "could not read the source of f()" in result.stdout, result.stdout + result.stderr
    assert "tj.cond" in result.stdout
    assert "enable AutoGraph" not in result.stdout


# --- builtins and math on traced values (converted by AutoGraph) -------------------------------
def builtins_and_math(x):
    a = float(x[0]) + math.sqrt(abs(x[1]))
    b = max(1.5, x[2], x[1]) + min(x[0], 0.25)
    c = int(x[2] * 3) + round(x[1])
    d = math.exp(x[0] / 10) + math.log(abs(x[1]) + 1, 2) + math.atan2(x[0], 2.0)
    e = math.floor(x[1]) - math.ceil(x[2]) + math.trunc(float(x[0]))
    return a, b, c, d, e, 2.0 in x, 7.0 not in x, x.item(1), x.copy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("values", [[1.0, -2.5, 3.0], [0.0, 7.0, -1.25], [2.5, 3.5, -0.5]])
def test_builtins_and_math_on_tensors_match_python(dtype, values):
    x = np.array(values).astype(dtype)
    compiled = tj.function(builtins_and_math)(x)
    eager = run_eagerly(tj.function(builtins_and_math), x)
    for c, e in zip(compiled, eager, strict=True):
        np.testing.assert_allclose(np.asarray(c, np.float64), np.asarray(e, np.float64), rtol=1e-6)


def int_of_nan(x):
    return int(x[0])


def test_int_of_nan_raises_at_run_time():
    f = tj.function(int_of_nan)
    assert f(np.array([2.7])) == 2
    assert f(np.array([-2.7])) == -2
    with pytest.raises(tj.errors.InvalidArgumentError, match="int\\(\\) of NaN"):
        f(np.array([np.nan]))


# --- generators, warnings -----------------------------------------------------------------------
def generator(x):
    yield x


def test_generators_raise_not_implemented_at_the_call():
    f = tj.function(generator)
    with pytest.raises(NotImplementedError, match="generator") as info:
        f(np.ones(2))  # the call line
    assert "test_first_contact.py" in str(info.value)


def test_autograph_warning_points_at_the_users_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f, _g = tj.function(lambda x: x + 1), tj.function(lambda x: x * 2)
        f(np.ones(2))
    converts = [w for w in caught if "could not convert" in str(w.message)]
    assert converts and converts[0].filename == __file__, [w.filename for w in converts]


def test_autograph_warning_gives_the_same_reason_for_every_function_of_that_code():
    def make_pair():
        return tj.function(lambda x: x + 1), tj.function(lambda x: x * 2)

    reasons = []
    for _ in range(2):  # the second pair has the same code objects as the first
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f, _g = make_pair()
            np.testing.assert_array_equal(f(np.ones(2)), np.full(2, 2.0))
        reasons += [str(w.message) for w in caught if "could not convert" in str(w.message)]
    assert len(reasons) == 2 and "2 definitions" in reasons[0], reasons
    assert reasons[0] == reasons[1]


def random_noise(x):
    return x + np.random.rand(*x.shape)


def random_generator(x):
    rng = np.random.default_rng(0)
    return x + rng.normal(size=x.shape)


@pytest.mark.parametrize("function", [random_noise, random_generator])
def test_trace_time_random_warns_once_at_the_users_line(function):
    f = tj.function(function)
    with pytest.warns(tj.FrozenRandomWarning) as caught:
        first = f(np.zeros(3))
    assert caught[0].filename == __file__
    assert caught[0].lineno in range(line_of(function, "def"), line_of(function, "return") + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.FrozenRandomWarning)
        np.testing.assert_array_equal(f(np.zeros(3)), first)  # frozen, and no second warning
        tj.function(function)(np.zeros(3))  # a new Function of the same code: once per function


# --- dtypes ------------------------------------------------------------------------------------
def adds_a_long_double_array(x):
    c = np.array([1.5, 3.0], np.longdouble)
    return x + c


def test_unsupported_dtype_names_the_value_and_line():
    with pytest.raises(TypeError) as info:
        tj.function(adds_a_long_double_array)(np.ones(2))
    message = str(info.value)
    long_double = np.dtype(np.longdouble).name
    assert long_double in message and "argument 2" in message and "NumPy array" in message
    assert re.search(at(adds_a_long_double_array, "x + c"), message), message


def test_unsupported_input_dtype_names_the_argument():
    with pytest.raises(TypeError, match=f"argument 'x': dtype {np.dtype(np.clongdouble)}"):
        tj.function(lambda x: x * 2)(np.ones(2, np.clongdouble))


def test_staged_range_without_source_says_the_source_could_not_be_read():
    namespace: dict = {"tj": tj}
    source = (
        "def f(x, n):\n    s = x * 0\n    for i in tj.range(n):\n        s = s + i\n"
        "    return s\n"
    )
    exec(compile(source, "<string>", "exec"), namespace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match="could not read the source of f") as info:
            tj.function(namespace["f"])(np.arange(3), np.int64(2))
    assert "enable AutoGraph" not in str(info.value)


# --- a NumPy function wrapped directly --------------------------------------------------------
@pytest.mark.parametrize("ufunc, arity", [(np.sin, 1), (np.tanh, 1), (np.add, 2), (np.hypot, 2)])
def test_a_ufunc_wrapped_directly(ufunc, arity):
    """tj.function(np.sin) works as tf.function(tf.sin) does: the ufunc's keyword defaults
    (dtype=None and signature=None, which it refuses together) are not passed explicitly."""
    x = np.array([1e30, 3.0e38, 0.5, -2.0, 0.0], np.float32)
    f = tj.function(ufunc)
    args = (x,) * arity
    with np.errstate(over="ignore"):
        assert_same(f(*args), run_eagerly(f, *args), rtol=1e-6)


def scaled(x, factor=3, offset=None):
    return x * factor if offset is None else x * factor + offset


def test_defaults_still_reach_the_function_and_the_cache_key():
    f = tj.function(scaled)
    x = np.arange(4.0)
    assert_same(f(x), run_eagerly(f, x))
    assert_same(f(x, 3), f(x))  # the same call as the default: one trace
    assert f.experimental_get_tracing_count() == 1
    assert_same(f(x, 2, 1.0), run_eagerly(f, x, 2, 1.0))
