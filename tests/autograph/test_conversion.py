"""AutoGraph conversion on Python values: the converted function must behave exactly
like the original (it runs as plain Python), for every construct it rewrites."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tracejit.frontend.autograph import convert, to_code

SCALE = 3


def branches(x):
    if x > 10:
        y = "big"
    elif x > 0:
        y = "small"
    elif x == 0:
        return "zero"
    else:
        y = "negative"
    return y + "!"


def loops_with_jumps(n):
    out = []
    i = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if i > 7:
            break
        out.append(i)
    else:
        out.append("while-else")
    for j in range(n):
        if j == 2:
            continue
        for k in range(j):
            if k == 1:
                break
            out.append((j, k))
        else:
            out.append(("inner-else", j))
        if j == 4:
            break
    else:
        out.append("for-else")
    return out


def early_returns(xs):
    for i, x in enumerate(xs):
        while x > 100:
            x -= 100
            if x == 50:
                return ("fifty", i)
        if x < 0:
            return ("negative", i)
    if not xs:
        return None
    total = 0
    for x in xs:
        total += x
    return total


def boolean_ops(a, b, c):
    calls = []

    def note(v):
        calls.append(v)
        return v

    r1 = note(a) and note(b) or note(c)
    r2 = not a or (b and not c)
    r3 = note(a) if note(b) else note(c)
    r4 = 0 < a <= b < 10
    r5 = a in (1, 2) and b not in (3,) and c is not None
    r6 = (w := b) and w * 2
    return r1, r2, r3, r4, r5, r6, calls


def asserts(x):
    assert x >= 0, f"negative: {x}"
    assert x != 5
    return x


def nested_and_closures(n):
    acc = 0

    def add(k):
        nonlocal acc
        if k % 2:
            acc += SCALE * k
        return acc

    square = lambda v: v * v if v > 2 else -v  # noqa: E731
    for i in range(n):
        add(i)
    return acc, [square(i) for i in range(n) if i != 1], functools.reduce(max, [0, n], 0)


def defaults_and_kwargs(a, b=2, *rest, scale=10, **extra):
    total = a + b + sum(rest)
    for key in sorted(extra):
        if extra[key] is None:
            continue
        total += extra[key]
    return total * scale


CALLS = 0


def other_statements(x):
    global CALLS
    CALLS += 1
    for attempt in range(3):
        try:
            if x == attempt:
                raise KeyError(attempt)
            if x < 0:
                return "negative"
        except KeyError:
            continue
        finally:
            CALLS += 1
        match x:
            case 10:
                return "ten"
            case _ if x > 100:
                break
        while (y := x - attempt) > 5:
            return ("walrus", y)
    else:
        return "loop finished"
    del attempt
    return "broke"


PYTHON_CASES = [
    (branches, [(x,) for x in (-3, 0, 4, 11)]),
    (loops_with_jumps, [(n,) for n in (0, 1, 3, 5, 9, 12)]),
    (early_returns, [([],), ([1, 2],), ([1, -2, 3],), ([250, 3],), ([180],), ([99, 101],)]),
    (boolean_ops, [(a, b, c) for a in (0, 1, 4) for b in (0, 2, 12) for c in (None, 0, 3)]),
    (asserts, [(0,), (3,)]),
    (nested_and_closures, [(0,), (1,), (6,)]),
    (defaults_and_kwargs, [(1,), (1, 5, 6, 7), (1, 2, 3)]),
    (other_statements, [(x,) for x in (-1, 0, 1, 2, 3, 4, 6, 10, 200)]),
]


@pytest.mark.parametrize(
    ("function", "inputs"), PYTHON_CASES, ids=lambda c: getattr(c, "__name__", "")
)
def test_converted_function_matches_python(function, inputs):
    converted = convert(function)
    assert converted is not function
    for args in inputs:
        assert converted(*args) == function(*args), args


def test_globals_are_shared_with_the_original():
    before = CALLS
    convert(other_statements)(7)
    assert before + 2 == CALLS


def test_keyword_arguments_and_defaults():
    converted = convert(defaults_and_kwargs)
    assert converted(1, scale=2, u=3, v=None) == defaults_and_kwargs(1, scale=2, u=3, v=None)


@pytest.mark.parametrize("x", [-1, 5])
def test_failing_python_assert_raises_assertion_error(x):
    with pytest.raises(AssertionError) as expected:
        asserts(x)
    with pytest.raises(AssertionError) as converted:
        convert(asserts)(x)
    # pytest's assertion rewriting appends an explanation to the original's message
    assert str(expected.value).startswith(str(converted.value))


def test_unbound_local_is_still_an_error():
    def f(flag):
        if flag:
            y = 1
        return y

    assert convert(f)(True) == 1
    with pytest.raises(UnboundLocalError, match="'y'"):
        convert(f)(False)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(-3, 15), xs=st.lists(st.integers(-300, 300), max_size=6))
def test_jumps_match_python_on_random_inputs(n, xs):
    assert convert(loops_with_jumps)(n) == loops_with_jumps(n)
    assert convert(early_returns)(xs) == early_returns(xs)


class Counter:
    def __init__(self, start):
        self.value = start

    def bump(self, times):
        for _ in range(times):
            if self.value > 100:
                break
            self.value = self.value * 2 + 1
        return self.value


class LoudCounter(Counter):
    def bump(self, times):
        return super().bump(times) * -1


def test_methods_and_super():
    assert convert(Counter(3).bump)(4) == Counter(3).bump(4)
    assert convert(LoudCounter(60).bump)(3) == LoudCounter(60).bump(3)


def twice(function):
    @functools.wraps(function)
    def wrapper(*args):
        return function(function(*args))

    return wrapper


@twice
def decorated_step(x):
    return x + 1 if x % 2 else x * 3


def test_decorators_and_recursive_conversion_of_callees():
    assert convert(decorated_step)(4) == decorated_step(4)
    assert convert(decorated_step)(5) == decorated_step(5)


def test_closure_cells_are_shared_with_the_original():
    counter = 0

    def bump():
        nonlocal counter
        if counter < 2:
            counter += 1
        return counter

    converted = convert(bump)
    assert [converted(), bump(), converted()] == [1, 2, 2]
    counter = -5
    assert converted() == -4


def test_lambda_conversion():
    clip = lambda v: 0 if v < 0 else v  # noqa: E731
    assert [convert(clip)(v) for v in (-2, 3)] == [0, 3]
    assert "ag__.if_exp" in to_code(clip)


def test_generators_and_library_functions_are_not_converted():
    def gen(n):
        yield from range(n)

    assert convert(gen) is gen
    assert convert(np.sum) is np.sum
    assert convert(functools.reduce) is functools.reduce


def test_to_code_shows_the_dispatchers():
    code = to_code(loops_with_jumps)
    for piece in (
        "def loops_with_jumps(n):",
        "ag__.while_stmt(",
        "ag__.for_stmt(",
        "ag__.if_stmt(",
        "break_",
        "continue_",
        "nonlocal",
    ):
        assert piece in code, piece
    code = to_code(tj.function(early_returns))  # a tj.Function shows its python function
    assert "do_return = False" in code and "return ag__.ret(retval_)" in code
    assert "@" not in to_code(decorated_step.__wrapped__)


def test_errors_point_at_the_user_line():
    def f(x):
        y = x + 1
        if y > 0:
            z = y
        return z

    try:
        convert(f)(-5)
    except UnboundLocalError as error:
        frames = _frames(error)
        assert any(
            name == "f" and line == f.__code__.co_firstlineno + 4 for name, line in frames
        ), frames
    else:
        pytest.fail("no error")


def _frames(error):
    tb, out = error.__traceback__, []
    while tb is not None:
        out.append((tb.tb_frame.f_code.co_name, tb.tb_lineno))
        tb = tb.tb_next
    return out


def scalar_type_calls(x):
    total = np.float32(x.sum())
    level = np.uint8(x[0] * 100)
    doubled = np.float64(x) * 2
    return total, level, doubled, np.bool_(x[1] > 0.5), np.int64(x[1] * 10)


def test_numpy_scalar_types_cast_traced_values(check_against_eager):
    """`np.float32(x.sum())` was refused with "cannot be converted to a NumPy array" (a
    probe found it): NumPy's scalar types called on an array cast it."""
    for x in (np.array([0.5, 0.75, 0.25]), np.array([2.0, -1.0, 0.0])):
        total, *_ = check_against_eager(tj.function(scalar_type_calls), x)
        assert type(total) is np.float32
