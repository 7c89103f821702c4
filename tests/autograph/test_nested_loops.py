"""Staged loops nested two and three deep, compared with plain Python.

The defect these guard (issue 35): a NumPy scalar argument (np.int32(1)) was traced as a
0-d *array*, so `tmp = b; tmp -= 1` wrote `b` in place, and an outer staged loop's next
trip started its inner loop from the old `tmp`. NumPy scalars are immutable: `tmp -= 1`
rebinds the name. A 0-d ndarray argument is written in place, by NumPy and by tracejit
alike. Every program here runs on Python ints, NumPy scalars and 0-d arrays.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj


def depth2_while(a, b):
    p = 0
    while a > 0:
        tmp = b  # first assigned in the outer body, carried by the inner loop
        while tmp > 0:
            p += 1
            tmp -= 1
        a -= 1
    return p


def depth2_inner_writes_outer(a, b):
    p = 0
    while a > 0:
        tmp = b
        while tmp > 0:
            p += 1
            tmp -= 1
            a -= 1  # the inner loop changes the outer loop's variable
        a -= 1
    return p


def depth2_for_range(a, b):
    total = 0
    for i in tj.range(a):
        inner = i * 2  # first assigned in the outer body
        for j in tj.range(b):
            inner += j
            total += inner
    return total


def depth2_python_range_break_continue(a, b):
    total = 0
    for i in range(a):
        if i == 3:
            break
        k = b
        while k > 0:
            k -= 1
            if k == 1:
                continue
            total += i + k
    return total


def depth3_every_level_assigns(a, b):
    out = 0
    x = a
    while x > 0:
        y = b + x  # level 1
        while y > 0:
            z = y % 3  # level 2
            while z > 0:
                out += x * 100 + y * 10 + z
                z -= 1
                y -= 1  # level 3 writes level 2's variable
            y -= 1
        x -= 1
    return out


def depth3_break_continue_return(a, b):
    acc = 0
    i = a
    while i > 0:
        i -= 1
        if i == 1:
            continue
        j = b
        while j > 0:
            j -= 1
            k = i
            while k > 0:
                k -= 1
                if k == 2:
                    break
                acc += 1
            if acc > 40:
                return acc * 1000
    return acc


def loops_in_branches_in_loops(a, b):
    s = 0
    t = a
    while t > 0:
        if t % 2 == 0:
            u = b
            while u > 0:
                s += t * u
                u -= 1
        else:
            for v in tj.range(b):
                s -= v
        t -= 1
    return s


PROGRAMS = [
    depth2_while,
    depth2_inner_writes_outer,
    depth2_for_range,
    depth2_python_range_break_continue,
    depth3_every_level_assigns,
    depth3_break_continue_return,
    loops_in_branches_in_loops,
]

KINDS = ["python", "numpy scalar", "0-d array"]


def _as(kind: str, value: int, dtype: type):
    """`value` as a Python int, a NumPy scalar or a 0-d array (of one dtype per example:
    a staged loop's variable may not change dtype, as in TensorFlow)."""
    if kind == "python":
        return value
    return dtype(value) if kind == "numpy scalar" else np.array(value, dtype)


def _copy(value):
    return value.copy() if isinstance(value, np.ndarray) else value


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
@settings(max_examples=12, deadline=None)
@given(
    a=st.integers(0, 4),
    b=st.integers(0, 4),
    kinds=st.tuples(st.sampled_from(KINDS), st.sampled_from(KINDS)),
    dtype=st.sampled_from([np.int32, np.int64]),
)
def test_nested_loops_match_python(program, a, b, kinds, dtype):
    args = (_as(kinds[0], a, dtype), _as(kinds[1], b, dtype))
    compiled_args = tuple(_copy(v) for v in args)
    expected = program(*(_copy(v) for v in args))
    got = tj.function(program)(*compiled_args)
    assert int(got) == int(expected), (program.__name__, args)


def test_the_reported_cases():
    f = tj.function(depth2_while)
    assert f(2, np.int32(1)) == 2
    assert f(3, np.int64(2)) == 6
    assert f(np.int64(3), np.int64(2)) == 6


def test_nested_loops_are_staged_for_scalar_arguments():
    f = tj.function(depth3_every_level_assigns)
    graph = str(f.get_concrete_function(np.int64(3), np.int64(2)).graph)
    assert graph.count("tj.while") == 3  # one per level, not unrolled


def test_a_zero_d_array_argument_is_written_in_place_as_numpy_does():
    def f(a, b):
        tmp = b
        tmp -= 1  # writes b: a 0-d array is mutable
        return a + b

    b_eager, b_compiled = np.array(5), np.array(5)
    assert f(np.int64(1), b_eager) == tj.function(f)(np.int64(1), b_compiled) == 5
    assert b_eager == b_compiled == 4


def test_a_numpy_scalar_is_not_written():
    @tj.function
    def f(b):
        tmp = b
        tmp -= 1
        return b, tmp

    assert [int(v) for v in f(np.int32(5))] == [5, 4]


def test_scalar_and_zero_d_array_arguments_get_their_own_traces():
    @tj.function
    def f(b):
        tmp = b
        tmp += 1
        return b

    assert f(np.float64(1.0)) == 1.0
    assert f(np.array(1.0)) == 2.0
    assert f(np.float64(1.0)) == 1.0
    assert f.experimental_get_tracing_count() == 2


def test_input_signature_python_numbers_are_scalars():
    @tj.function(input_signature=[tj.TensorSpec([], np.int64), tj.TensorSpec([], np.int64)])
    def f(a, b):
        return depth2_while(a, b)

    assert f(3, 2) == 6
    assert f(np.int64(3), np.int64(2)) == 6
    assert f(2, np.array(1, np.int64)) == 1  # a 0-d array b is written: Python gives 1 too
    assert depth2_while(2, np.array(1, np.int64)) == 1


# --- variables first assigned in an inner staged loop and read after the outer one -------
def assigned_in_inner_python_outer(a, b):
    for i in range(2):  # unrolled: the second inner loop carries the first one's value
        j = b * i + a
        while j > 0:
            t = j
            j -= 1
    return t


def assigned_in_inner_staged_outer(a, b):
    i = a
    while i > 0:
        j = b * (a - i)
        while j > 0:
            t = j
            j -= 1
        i -= 1
    return t


def assigned_in_a_branch_of_an_inner_loop(a, b):
    i = a
    while i > 0:
        j = b
        while j > 0:
            if j == 2:
                t = i * 10 + j
            j -= 1
        i -= 1
    return t


def early_return_from_inner_loop(a, b):
    acc = 0
    for _ in range(2):
        j = b + a
        while j > 0:
            j -= 1
            acc += 1
            if acc > 4:
                return acc * 1000
    return acc


UNBOUND_PROGRAMS = [
    assigned_in_inner_python_outer,
    assigned_in_inner_staged_outer,
    assigned_in_a_branch_of_an_inner_loop,
    early_return_from_inner_loop,
]
UNBOUND_FUNCTIONS = {program: tj.function(program) for program in UNBOUND_PROGRAMS}


@pytest.mark.parametrize("program", UNBOUND_PROGRAMS, ids=lambda p: p.__name__)
@settings(max_examples=15, deadline=None)
@given(a=st.integers(0, 3), b=st.integers(0, 3))
def test_a_variable_no_loop_assigned_raises_as_python_does(program, a, b):
    """Python raises UnboundLocalError exactly when no inner trip assigned the variable;
    tracejit raises InvalidArgumentError then, and only then (flags carried by every loop)."""
    args = (np.int64(a), np.int64(b))
    compiled = UNBOUND_FUNCTIONS[program]  # one trace serves every example's values
    try:
        expected = program(*args)
    except UnboundLocalError:
        with pytest.raises(tj.errors.InvalidArgumentError, match="never assigned"):
            compiled(*args)
        return
    assert int(compiled(*args)) == int(expected)


def returns_only_where_this_trace_does_not_go(a):
    """Both branches of the staged if hold a `return` that this trace never reaches: a
    Python loop of no trips in one, a Python condition that is false in the other (the
    fuzzer's false refusal, regressions/test_fuzz_371ae8ad1d.py): the return value stays
    unset after the if, and the function returns at its end."""
    r = 0
    if a[0] > 0:
        c = r
        while c > 0:
            return r
    else:
        for k in range(2):
            if k > 2:
                for _ in tj.range(3):
                    return r
            r = r + a[0]
    return r + 100


@pytest.mark.parametrize("first", [1.0, -1.0])
def test_returns_this_trace_never_reaches_are_not_refused(first):
    a = np.array([first, 3.0])
    f = tj.function(returns_only_where_this_trace_does_not_go)
    assert f(a) == returns_only_where_this_trace_does_not_go(a)
    tj.config.run_functions_eagerly(True)
    try:
        assert f(a) == returns_only_where_this_trace_does_not_go(a)
    finally:
        tj.config.run_functions_eagerly(False)


def path_dependent_dtype(a0, a1):
    """The fuzzer's program (test_fuzz_7e80dbd4ef, from a generator draw now fixed):
    in NumPy `r1` is float32 after `r1 += a1` and float64 after `r1 += t2`, so the value
    returned early is float32 and the other float64 — a dtype that depends on `a0`."""
    r1 = 0
    t2 = np.copysign(a0, a0)
    r1 += 1
    for _ in tj.range(2):
        while a0 > 0:
            a0 -= 1
            r1 += a1
            if a0 > 1:
                return r1
        r1 += t2
    return r1


def test_a_return_dtype_that_depends_on_the_path_is_refused():
    """One compiled trace has one result dtype: TensorFlow's TypeError at the user's line,
    not one of NumPy's two answers."""
    assert path_dependent_dtype(3.0, np.float32(2.0)).dtype == np.float32
    assert path_dependent_dtype(2.0, np.float32(2.0)).dtype == np.float64
    with pytest.raises(TypeError, match=r"'r1' has dtype .* in the true branch but dtype"):
        tj.function(path_dependent_dtype)(2.0, np.float32(2.0))
