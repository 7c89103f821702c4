"""A name that may still be an array after staged control flow (`x = a`, then an `if` or a
loop that may rebind x): when the branch that rebinds is not taken, or the loop runs zero
times, NumPy's x still is a, and a write through either name is seen through both. The
fuzzer found a nested form of this as a wrong value in an argument after the call
(regressions/test_fuzz_db4eb4779f.py); frontend/staging/views.py `alias_unless` follows it
when the kernel runs. Every program runs compiled and eagerly, for each trip count and
branch, and the arguments are compared after the call too."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly


def loop_then_write_the_array(a, n):
    x = a
    i = 0
    while i < n:
        x = x * 2
        i += 1
    a += 10
    return x


def loop_then_write_the_name(a, n):
    x = a
    for _ in tj.range(n):
        x = x + 1
    x += 1
    return x


def branch_then_write_the_array(a, n):
    x = a
    if n > 0:
        x = x * 2
    a[1:] = -1
    return x


def branch_then_write_the_name(a, n):
    x = a
    if n > 0:
        x = x * 2
    else:
        a = a + 0  # both names rebound in one branch: a is no longer the argument there
    x += 1
    return x, a


def loop_in_a_branch(a, n):
    """The fuzzer's shape, reduced: the loop in the branch may leave x naming a."""
    r = a
    x = a
    if n > 1:
        r -= r
        while x[0] > 0:
            x = x - 1
        r += 3
    r += x
    return r, x


def a_view_before_the_loop(a, n):
    x = a[1:]
    for _ in tj.range(n):
        x = x[::-1] * 1
    a[2] = 100
    x[0] = -5
    return x


def twice(a, n):
    """Two loops in a row: the second starts from what the first left."""
    x = a
    for _ in tj.range(n):
        x = x + 1
    for _ in tj.range(n - 1):
        x = x * 3
    a *= 2
    return x


REBIND = False  # a Python condition: the assignment under it is never traced


def assigned_only_in_dead_python_code(a, n):
    """AutoGraph carries `a` through the loop (the body assigns it), but this trace never
    rebinds it, while `c -= 1` writes the array `a` names: after the loop, `a` is still the
    argument, and `a * 10` sees every write (it read a copy from before the loop)."""
    c = a
    for _ in tj.range(n):
        if REBIND:
            a = a + 1
        c -= 1
    return a * 10 + c


def rebound_in_a_later_unrolled_copy(a, n):
    """The fuzzer's wrong count in nested loops, reduced (regressions/test_fuzz_895f18d770.py):
    the Python loop's first copy of the staged loop carries `a` without rebinding it, so the
    second copy's `c = a` read the stale copy and counted the trips again."""
    r = 0
    for k in range(2):
        c = a
        while c[0] > n:
            r = r + 1
            if k > 0:
                a = a + 1
            c -= 1
    return r, a


PROGRAMS = [
    assigned_only_in_dead_python_code,
    rebound_in_a_later_unrolled_copy,
    loop_then_write_the_array,
    loop_then_write_the_name,
    branch_then_write_the_array,
    branch_then_write_the_name,
    loop_in_a_branch,
    a_view_before_the_loop,
    twice,
]


def _call(fn, a, n):
    argument = a.copy()
    return fn(argument, n), argument


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_writes_after_staged_control_flow_are_seen_as_numpy_sees_them(program, n, dtype):
    a = np.array([2, 5, 7, 1], dtype)
    _check_compiled_and_eager(program, a, n)


@functools.cache
def _function_of(program):
    """One tj.Function per program: a trace per dtype serves every count."""
    return tj.function(program)


def _check_compiled_and_eager(program, a, n):
    """Results and the argument after the call: compiled, eagerly, and plain NumPy."""
    f = _function_of(program)
    expected = _call(program, a, np.int64(n))
    assert_same(_call(f, a, np.int64(n)), expected)
    assert_same(_call(lambda *args: run_eagerly(f, *args), a, np.int64(n)), expected)


@pytest.mark.parametrize("program", [loop_then_write_the_array, branch_then_write_the_name])
def test_dims_known_only_at_run_time(program):
    signature = [tj.TensorSpec([None], np.float64), tj.TensorSpec([], np.int64)]
    f = tj.function(program, input_signature=signature)
    for n in (0, 2):
        a = np.arange(1.0, 6.0)
        assert_same(_call(f, a, np.int64(n)), _call(program, a, np.int64(n)))


def test_a_zero_d_argument_rebound_in_a_loop():
    def f(a, n):
        r = a
        while a > 0:
            a = a - 1
        r += n
        return r + a

    for value in (0.0, 2.0):
        a = np.array(value)
        assert_same(_call(tj.function(f), a, np.int64(3)), _call(f, a, np.int64(3)))


def test_a_reshape_of_such_a_name_is_a_view_as_in_numpy():
    """Whichever array the name is, it is contiguous when the array before the loop is, so
    NumPy's ravel is a view and a write through it reaches the name (and, after zero
    trips, the array): no refusal (the fuzzer's second run found one)."""

    def f(a, n):
        x = a
        for _ in tj.range(n):
            x = x + 1
        flat = np.ravel(x)
        flat[0] = 9
        return x

    for n in (0, 2):
        a = np.arange(6.0).reshape(2, 3)
        assert_same(_call(tj.function(f), a, np.int64(n)), _call(f, a, np.int64(n)))


def test_a_reshape_of_such_a_name_for_a_strided_array_is_refused():
    """x = a[:, ::2]: after zero trips NumPy's ravel copies, after one it is a view -- which
    one the write reaches depends on the trip count, so tracejit refuses the write."""

    def f(a, n):
        x = a[:, ::2]
        for _ in tj.range(n):
            x = x + 1
        flat = np.ravel(x)
        flat[0] = 9
        return x

    with pytest.raises(ValueError, match="writing into a reshape of a view"):
        tj.function(f)(np.arange(6.0).reshape(2, 3), np.int64(1))


def scalar_after_the_loop(a, n):
    """`x = a` (a 0-d array), then `x = x + 1` in a loop: after one trip or more x is a
    NumPy scalar, immutable (`y = x; y -= 1` rebinds y, x keeps its value); after zero it
    is still the array, and `y -= 1` writes it, x and the argument with it. The fuzzer's
    wrong count (regressions/test_fuzz_706fe93735.py): y's write reached x after trips."""
    x = a
    for _ in tj.range(n):
        x = x + 1
    y = x
    y -= 1
    x += 10
    return x, y


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_a_zero_d_array_that_a_loop_makes_a_scalar(n, dtype):
    a = np.array(2, dtype)
    _check_compiled_and_eager(scalar_after_the_loop, a, n)


def two_loops_then_write_the_other_name(a, n, m):
    """`x = a` (a 0-d array) and two loops that may make x a scalar: after zero trips of
    both, x is still the array and `a += 0.5` reaches it (regressions/
    test_fuzz_af2cec4ec7.py: the second loop carried the first one's maybe-array as a
    copy, and x missed the write)."""
    x = a
    for _ in tj.range(n):
        x = x + x
    for _ in tj.range(m):
        x = x + a
    a += 0.5
    return x, a


@pytest.mark.parametrize(("n", "m"), [(0, 0), (0, 2), (1, 0), (2, 3)])
def test_a_zero_d_array_that_two_loops_may_make_a_scalar(n, m):
    a = np.array(-1.0, np.float32)
    compiled = tj.function(two_loops_then_write_the_other_name)(a.copy(), n, m)
    assert_same(compiled, run_eagerly(two_loops_then_write_the_other_name, a.copy(), n, m))
    expected = (np.float32(-0.5), -0.5) if n == m == 0 else None  # x is still a
    if expected is not None:
        assert compiled[0] == expected[0] and compiled[1] == expected[1]


def test_an_item_write_to_it_is_refused():
    """`x[()] = v` raises TypeError on a NumPy scalar and writes an array: it depends on
    the trip count, and is refused with a clear error instead."""

    def f(a, n):
        x = a
        for _ in tj.range(n):
            x = x + 1
        x[()] = 5
        return x

    with pytest.raises(ValueError, match="a 0-d array before a staged loop and a NumPy scalar"):
        tj.function(f)(np.array(2.0), np.int64(1))


def copied_in_both_branches(a, n):
    """A 0-d array out of both branches is an array after the if: `x[...] = 1` writes it
    (the fuzzer's false refusal, regressions/test_fuzz_21ce91a8e3.py: it was taken for a
    NumPy scalar)."""
    x = a
    if n > 0:  # noqa: SIM108  (a staged if statement is what this tests)
        x = x.copy()
    else:
        x = np.full_like(x, 5.0)
    x[...] = 1
    return x + 0, a


@pytest.mark.parametrize("n", [0, 1])
def test_a_zero_d_array_out_of_both_branches_is_an_array(n):
    a = np.array(3.0)
    _check_compiled_and_eager(copied_in_both_branches, a, n)


def scalar_after_a_branch(a, n):
    """The if's form of `scalar_after_the_loop`: after the branch that rebinds x to a
    NumPy scalar, `y -= 1` rebinds y and leaves x (it changed x too); after the other, x
    still is the array, and the write reaches it and the argument."""
    x = a
    if n > 0:
        x = x + 1
    y = x
    y -= 1
    x += 10
    return x, y


@pytest.mark.parametrize("n", [0, 1])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_a_zero_d_array_that_a_branch_makes_a_scalar(n, dtype):
    a = np.array(2, dtype)
    _check_compiled_and_eager(scalar_after_a_branch, a, n)


def new_array_or_scalar_read(a, n):
    """A new 0-d array out of one branch and a NumPy scalar out of the other, only read
    after the if: the same values whichever kind it is."""
    x = a
    if n > 0:  # noqa: SIM108  (a staged if statement is what this tests)
        x = x + x
    else:
        x = x.copy()
    y = x
    return x + 0, y * 2


@pytest.mark.parametrize("n", [0, 1])
def test_a_new_array_or_a_scalar_out_of_the_branches_can_be_read(n):
    _check_compiled_and_eager(new_array_or_scalar_read, np.array(3, np.int8), n)


def test_a_write_through_a_new_array_or_a_scalar_is_refused():
    """The fuzzer's wrong answer (regressions/test_fuzz_7875a81f97.py): after the branch
    that copies, `y += y` writes the copy that x names too (NumPy gives 4); after the
    other, it rebinds y (3). tracejit took x for a scalar on both paths (3 where NumPy
    gives 4); which one it is depends on the branch, so the write is refused."""

    def f(a, n):
        x = a
        if n > 0:  # noqa: SIM108
            x = x + x
        else:
            x = x.copy()
        y = x
        y += y
        return x + 0 + y

    with pytest.raises(ValueError, match="a 0-d array after one branch of a staged if"):
        tj.function(f)(np.array(1, np.int8), np.int64(0))
