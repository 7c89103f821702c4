"""Python literals are weakly typed (NEP 50) in staged loops and ifs too: a loop variable
initialised from a Python int or float takes the dtype NumPy's promotion gives the literal
against the values it meets in the body (`s = 0` summing int32 values is int32, as in TF and
in JAX), and stays int64/float64 (NumPy's default for the literal) when it meets only
literals. Compiled results are compared with the eager run (where the variable is a Python
number until it meets an array) and their dtypes with NumPy's promotion."""

import inspect
import re

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import run_eagerly


def line_of(function, text):
    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def where(function, text):
    return re.escape(f"test_weak_literals.py:{line_of(function, text)})")


def check(check_against_eager, function, *args, dtype):
    """Compiled equals eager, and the compiled result is a NumPy scalar of `dtype`."""
    compiled = check_against_eager(function, *args)
    assert isinstance(compiled, np.generic), type(compiled)
    assert compiled.dtype == dtype, (compiled.dtype, dtype)
    return compiled


def weak(literal, dtype):
    """The dtype NumPy's promotion (NEP 50) gives a Python literal against `dtype`."""
    return np.result_type(literal, np.dtype(dtype))


INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8]
NUMBERS = [np.int32, np.int64, np.float32, np.float64]


# --- a literal takes the dtype of what it meets in the body ----------------------------------
@tj.function
def digits(n):
    s = 0
    for i in tj.range(n):
        s = s * 10 + i
    return s


@pytest.mark.parametrize("n", [4, *(t(4) for t in INTS)], ids=repr)
def test_range_accumulator_takes_the_counter_dtype(check_against_eager, n):
    # tj.range(n) counts in n's dtype (a Python n: int64), and so does `s`.
    compiled = check(check_against_eager, digits, n, dtype=weak(0, np.asarray(n).dtype))
    assert compiled == 123


def test_int32_bound_gives_int32_like_tf():
    assert digits(np.int32(6)).dtype == np.int32  # TF: int32; before: int64
    graph = str(digits.get_concrete_function(np.int32(6)).graph)
    assert graph.count("tj.while") == 1  # the first attempt left nothing behind
    assert "i64" not in graph, graph


@tj.function
def total(x):
    s = 0
    for v in x:
        s = s + v
    return s


@tj.function
def float_total(x):
    s = 0.0
    for v in x:
        s += v
    return s


@pytest.mark.parametrize("dtype", NUMBERS + [np.int8, np.uint16, np.float16])
@pytest.mark.parametrize("size", [0, 1, 5])
def test_sum_over_rows_takes_the_element_dtype(check_against_eager, dtype, size):
    x = (np.arange(size) % 4).astype(dtype)
    compiled = check(check_against_eager, total, x, dtype=weak(0, dtype))
    assert compiled == np.sum(x, dtype=compiled.dtype)
    # a float literal: float32 stays float32, ints make it float64 (np.result_type(0.0, int32))
    check(check_against_eager, float_total, x, dtype=weak(0.0, dtype))


@tj.function
def sum_scalar(x, n):
    s = 0
    i = 0
    while i < n:
        s = s + x
        i += 1
    return s, i


@pytest.mark.parametrize("dtype", NUMBERS)
def test_while_accumulator_takes_the_dtype_it_meets(check_against_eager, dtype):
    s, i = check_against_eager(sum_scalar, dtype(1.5 if dtype(0.5) else 3), np.int32(4))
    assert s.dtype == weak(0, dtype)
    assert i.dtype == np.int64  # `i` only meets literals in the body (the test is not its body)


@tj.function
def halves(x):
    s = 0.0
    while s < x:
        s = s + 0.5
    return s


@pytest.mark.parametrize(
    "x", [2.2, np.float32(2.2), np.float64(2.2), np.int32(3), np.int64(3), np.float16(-1)], ids=repr
)
def test_float_literal_meeting_only_literals_stays_float64(check_against_eager, x):
    compiled = check_against_eager(halves, x)
    if isinstance(x, np.generic):  # staged: NumPy's float64 (compared in x's dtype, as NEP 50)
        assert compiled.dtype == np.float64
    assert compiled == run_eagerly(halves, x)


@tj.function
def count(n):
    c = 0
    while c < n:
        c += 1
    return c


@pytest.mark.parametrize("n", [5, np.int32(5), np.int64(5), np.int8(0), np.float32(2.5)], ids=repr)
def test_int_literal_meeting_only_literals_stays_int64(check_against_eager, n):
    compiled = check_against_eager(count, n)
    if isinstance(n, np.generic):
        assert compiled.dtype == np.int64


@tj.function
def doubled_then_added(x):
    s = 1
    for _ in x:
        s = s * 2
    return s + x[0]  # still weak after the loop: Python int + int32 is int32


@pytest.mark.parametrize("dtype", NUMBERS)
def test_weak_loop_result_stays_weak_after_the_loop(check_against_eager, dtype):
    check(check_against_eager, doubled_then_added, np.arange(1, 4, dtype=dtype), dtype=dtype)


# --- errors that came only from the literal are gone ------------------------------------------
@tj.function
def half_steps(x):
    s = 0
    while np.sum(x) > s:
        s = s + 0.5  # a Python int meeting a Python float: a float, as in Python
    return s


@pytest.mark.parametrize("dtype", NUMBERS)
def test_int_literal_that_meets_a_float_literal_becomes_a_float(check_against_eager, dtype):
    compiled = check_against_eager(half_steps, np.ones(3, dtype))
    assert compiled.dtype == np.float64 and compiled == 3.0


@tj.function
def positive_total(x):
    s = 0
    for v in x:
        if v > 1:  # noqa: SIM108  (the statement form is what is tested)
            s = s + v
        else:
            s = s - 1
    return s


@pytest.mark.parametrize("dtype", NUMBERS + [np.int16])
def test_literal_in_a_staged_if_inside_the_loop(check_against_eager, dtype):
    x = np.array([3, 0, 2, 1, 5], dtype)
    check(check_against_eager, positive_total, x, dtype=weak(0, dtype))


@tj.function
def nested(x):
    grand = 0
    for row in x:
        s = 0
        for v in row:
            s = s + v
        grand = grand + 2 * s
    return grand


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.float32])
def test_nested_loops_both_retraced(check_against_eager, dtype):
    x = np.arange(12, dtype=dtype).reshape(3, 4)
    check(check_against_eager, nested, x, dtype=dtype)
    graph = str(nested.get_concrete_function(x).graph)
    assert graph.count("tj.while") == 2, graph  # no loop of a discarded attempt is left


@tj.function
def two_loops(x, n):
    c = 0
    while c < n:
        c += 1
    for v in x:  # `c` is weak from the first loop: it takes x's dtype here
        c = c + v
    return c


def test_weak_result_of_a_loop_adopts_in_the_next(check_against_eager):
    check(check_against_eager, two_loops, np.arange(4, dtype=np.int8), np.int32(3), dtype=np.int8)


@tj.function
def branch_literals(x):
    if np.sum(x) > 0:  # noqa: SIM108  (the statement form is what is tested)
        y = 1
    else:
        y = 2
    return y + x


@pytest.mark.parametrize("dtype", NUMBERS)
def test_literals_from_a_staged_if_are_weak(check_against_eager, dtype):
    for x in (np.ones(2, dtype), -np.ones(2, dtype)):
        assert check_against_eager(branch_literals, x).dtype == dtype


@tj.function
def printed_total(x):
    s = 0
    for v in x:
        tj.print("s =", s)
        s = s + v
    return s


def test_staged_side_effects_of_the_discarded_attempt_are_not_kept(capfd):
    x = np.array([1, 2], np.int32)
    assert printed_total(x) == 3
    assert capfd.readouterr().out == "s = 0\ns = 1\n"
    graph = str(printed_total.get_concrete_function(x).graph)
    assert graph.count("tj.print") == 1, graph


def test_direct_while_loop_literal_is_weak():
    @tj.function
    def f(n, x):
        return tj.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + x), (0, 0))

    i, s = f(np.int32(3), np.float32(0.5))
    assert i.dtype == np.int64 and s.dtype == np.float32 and s == 1.5


@tj.function
def last_partial_sum(x):
    s = 0
    for v in x:
        s = s + v
        last = s  # first assigned in the loop, read after it: carried from a placeholder
    return last


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_placeholder_of_a_value_computed_from_a_literal(check_against_eager, dtype):
    check(check_against_eager, last_partial_sum, np.arange(1, 4, dtype=dtype), dtype=dtype)


@tj.function
def exclusive_prefix(x):
    out = tj.TensorArray(tj.int32, size=x.shape[0])
    s = 0
    for i in tj.range(x.shape[0]):
        out = out.write(i, s)  # weak `s` (int64 until the body meets x) takes int32
        s = s + x[i]
    return out.stack(), s


@tj.function
def halves_written(n):
    out = tj.TensorArray(tj.float32, size=0, dynamic_size=True)
    c = 0
    while c < n:
        out = out.write(c, c * 0.5)  # a weak float stands for a Python float: takes float32
        c += 1
    return out.stack()


def test_weak_values_written_to_a_tensor_array_take_its_dtype(check_against_eager):
    stacked, total = check_against_eager(exclusive_prefix, np.arange(1, 5, dtype=np.int32))
    assert stacked.dtype == np.int32 and total.dtype == np.int32
    assert check_against_eager(halves_written, np.int32(4)).dtype == np.float32


# --- a real change is still an error ---------------------------------------------------------
def becomes_int(x):
    s = 0.5
    for v in x:
        s = v  # np.result_type(0.5, np.int32) is float64: not a dtype the literal can take
    return s


def becomes_a_vector(x):
    s = 0
    for _ in x:
        s = s + x
    return s


def test_real_dtype_change_is_a_type_error_naming_the_variable_and_line():
    """TypeError for a dtype change, ValueError for a shape change, as TensorFlow's."""
    message = "loop variable 's' changes from dtype float64 and shape () to dtype int32"
    with pytest.raises(TypeError, match=re.escape(message) + ".*" + where(becomes_int, "for v")):
        tj.function(becomes_int)(np.arange(3, dtype=np.int32))


def test_shape_change_is_a_value_error():
    with pytest.raises(ValueError, match=r"loop variable 's' changes .* shape \(3,\)"):
        tj.function(becomes_a_vector)(np.arange(3, dtype=np.int32))


@tj.function
def overflowing(x):
    s = 300
    for v in x:
        s = s + v
    return s


def test_literal_that_does_not_fit_the_dtype_it_meets_overflows_as_in_numpy():
    x = np.arange(3, dtype=np.int8)
    with pytest.raises(OverflowError):
        run_eagerly(overflowing, x)
    with pytest.raises(OverflowError, match="300"):
        overflowing(x)


def literal_or_count(count):
    scale = 2.75
    if count > 0:
        scale = count
    return scale


def literal_or_flag(x):
    ok = 5
    if x > 0:
        ok = x > 10
    return ok


def zero_or_value(x):
    r = 0
    if x > 0:
        r = x
    return r


def test_a_literal_in_one_branch_takes_the_other_dtype_only_as_it_is(check_against_eager):
    """`scale = 2.75` against an int32 branch was staged as 2 (and `ok = 5` against a bool
    as True): a silent wrong answer a probe found. Now refused, naming the variable; a
    literal the dtype holds as it is (`r = 0`) still takes it."""
    with pytest.raises(TypeError, match="'scale' is the Python float 2.75"):
        tj.function(literal_or_count)(np.int32(0))
    with pytest.raises(TypeError, match="'ok' is the Python int 5"):
        tj.function(literal_or_flag)(np.float64(-3.0))
    for x in (np.float64(2.5), np.float64(-1.0), np.int32(3), np.int32(-3)):
        assert tj.function(zero_or_value)(x) == zero_or_value(x)
