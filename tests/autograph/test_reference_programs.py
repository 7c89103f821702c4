"""Small AutoGraph programs in the style of TensorFlow's AutoGraph reference tests (if/elif,
while/for with break/continue/else, early returns, boolean operators, tuples, namedtuples,
closures, lambdas, nested functions, classes, recursion, containers, exceptions), each run
with Python and NumPy-scalar inputs of four dtypes, compiled and as plain Python, comparing
values, dtypes and exception types."""

import collections
import warnings

import numpy as np
import pytest

import tracejit as tj

# ruff: noqa: E731, E741, B007, B905, F841, SIM108


def if_no_else(x):
    if x > 0:
        x = -x
    return x


def if_else_both(x):
    if x > 0:
        y = x * 2
    else:
        y = x * 3
    return y


def if_elif(x):
    if x > 5:
        r = 1
    elif x > 0:
        r = 2
    else:
        r = 3
    return r


def nested_if(x):
    if x > 0:
        if x > 3:
            x = x - 3
        else:
            x = x + 10
    return x


def while_basic(n):
    i = 0
    s = 0
    while i < n:
        s = s + i
        i = i + 1
    return s


def while_break(n):
    i = 0
    while i < n:
        if i > 3:
            break
        i = i + 1
    return i


def while_continue(n):
    i = 0
    s = 0
    while i < n:
        i = i + 1
        if i % 2 == 0:
            continue
        s = s + i
    return s


def for_range_break(n):
    s = 0
    for i in range(n):
        if s > 10:
            break
        s = s + i
    return s


def for_range_continue(n):
    s = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        s = s + i
    return s


def for_else(n):
    s = 0
    for i in range(n):
        if i > 100:
            break
        s += i
    else:
        s = s * 2
    return s


def while_else(n):
    i = 0
    while i < n:
        i += 1
    else:
        i = i + 100
    return i


def early_return_in_loop(n):
    for i in range(n):
        if i * i > 10:
            return i
    return -1


def nested_loops(n):
    s = 0
    for i in range(n):
        for j in range(i):
            s = s + j
    return s


def nested_break(n):
    s = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            s = s + 1
    return s


def ifexp(x):
    return x * 2 if x > 0 else -x


def bool_ops(x):
    return (x > 0 and x < 10) or x == -1


def not_op(x):
    if not x > 0:
        return x + 1
    return x - 1


def chained_cmp(x):
    return 0 < x < 10


def tuple_state(x):
    a, b = x, x + 1
    if x > 0:
        a, b = b, a
    return a - b


def namedtuple_state(x):
    P = collections.namedtuple("P", "a b")
    p = P(x, x)
    if x > 0:
        p = P(p.a + 1, p.b - 1)
    return p.a * 10 + p.b


def closure_read(x):
    k = 3

    def inner(v):
        return v * k

    if x > 0:
        x = inner(x)
    return x


def lambda_in_if(x):
    f = lambda v: v + 1
    if x > 0:
        x = f(x)
    return x


def loop_with_list_index(n):
    l = [0, 0]
    for i in range(n):
        l[i % 2] = l[i % 2] + i
    return l[0] - l[1]


def dict_accumulate(n):
    d = {"s": 0, "p": 1}
    i = 1
    while i < n:
        d["s"] = d["s"] + i
        d["p"] = d["p"] * 2
        i += 1
    return d["s"] + d["p"]


def raise_in_branch(x):
    if x > 100:
        raise ValueError("too big")
    return x


def raise_in_both_branches(x):
    if x > 2:
        raise ValueError("too big")
    else:
        raise KeyError("too small")
    return x


def raise_builtin_in_one_branch(x):
    if x < 0:
        raise ZeroDivisionError("negative")
    return x * 2


def assert_stmt(x):
    assert x > -100, "neg"
    return x + 1


def return_none_path(x):
    if x > 0:
        return x
    return x * 0


def multiple_returns(x):
    if x > 5:
        return 5
    if x > 0:
        return 1
    return 0


def loop_var_reassigned_type(n):
    x = 0
    for i in range(n):
        x = x + 1.5
    return x


def while_true_break(n):
    i = 0
    while True:
        i += 1
        if i >= n:
            break
    return i


def for_over_list(x):
    s = x * 0
    for v in [1, 2, 3]:
        if x > v:
            s = s + v
    return s


def enumerate_loop(x):
    s = x * 0
    for i, v in enumerate([4, 5, 6]):
        s = s + i * v
    return s


def zip_loop(x):
    s = x * 0
    for a, b in zip([1, 2], [3, 4]):
        s = s + a * b * x
    return s


def augassign_ops(x):
    y = x
    if x > 0:
        y += 2
        y *= 3
        y -= 1
    return y


def while_cond_fn_call(n):
    def more(i):
        return i < n

    i = 0
    while more(i):
        i += 2
    return i


def try_except_in_loop(n):
    s = 0
    for i in range(n):
        try:
            s = s + i
        except ValueError:
            s = -1
    return s


def global_read(x):
    if x > 0:
        return x * GLOBAL_K
    return x


GLOBAL_K = 7


def floordiv_mod(x):
    q = 0
    while x >= 3:
        x = x - 3
        q = q + 1
    return q * 100 + x


def collatz(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def break_and_continue(n):
    s = 0
    i = 0
    while i < n:
        i += 1
        if i == 2:
            continue
        if i == 7:
            break
        s += i
    return s


def list_of_tensors_reduce(x):
    l = [x, x * 2, x * 3]
    s = 0
    for v in l:
        if v > 3:
            s = s + v
    return s


def nested_function_with_control(x):
    def helper(v):
        if v > 0:
            return v * 2
        return -v

    return helper(x) + helper(-x)


def recursion_python(x):
    def fact(k):
        return 1 if k <= 1 else k * fact(k - 1)

    return x * fact(4)


def class_method_call(x):
    class C:
        def __init__(self, k):
            self.k = k

        def apply(self, v):
            if v > 0:
                return v * self.k
            return v

    return C(3).apply(x)


def str_in_state(x):
    msg = "a"
    if x > 0:
        y = x + 1
    else:
        y = x - 1
    return y


def if_returns_tuple(x):
    if x > 0:
        return x, x + 1
    return x - 1, x


def loop_returns_tuple(n):
    a = 0
    b = 1
    for i in range(n):
        a, b = b, a
    return a, b


# --- closures, nonlocal, while True, nested loops, containers in loops ---


def nonlocal_in_branch(x):
    total = 0

    def add(v):
        nonlocal total
        total = total + v

    if x > 0:
        add(x)
    return total


def early_return_while(n):
    i = 0
    while i < n:
        if i == 4:
            return i * 100
        i += 1
    return i


def for_rows_break(x):
    s = 0.0
    for v in np.array([1.0, 2.0, 3.0, 4.0]) * x:
        if v > 5:
            break
        s = s + v
    return s


def mixed_py_tensor_cond(x):
    flag = True
    if flag and x > 0:
        return x
    return -x


def while_tuple_state(n):
    a, b = 0, 1
    i = 0
    while i < n:
        a, b = b, a + b
        i += 1
    return a


def nested_while(n):
    i = 0
    s = 0
    while i < n:
        j = 0
        while j < i:
            s += j
            j += 1
        i += 1
    return s


def return_in_nested_loop(n):
    for i in range(n):
        for j in range(n):
            if i * j > 6:
                return i + j
    return 0


def continue_in_for_tensor(n):
    s = 0
    for i in tj.range(n):
        if i % 2 == 1:
            continue
        s += i
    return s


def if_in_for_python(x):
    s = x * 0
    for k in range(4):
        if x > k:
            s = s + k
        else:
            s = s - 1
    return s


def dict_in_while(n):
    d = {"i": 0, "acc": 1}
    while d["i"] < n:
        d["acc"] = d["acc"] * 2
        d["i"] += 1
    return d["acc"]


def list_swap_in_if(x):
    l = [x, x * 2]
    if x > 1:
        l[0], l[1] = l[1], l[0]
    return l[0] - l[1]


def ternary_in_loop(n):
    s = 0
    for i in range(n):
        s += 1 if i % 2 == 0 else -1
    return s


def while_with_and(n):
    i = 0
    while i < n and i < 5:
        i += 1
    return i


def while_with_or(n):
    i = 0
    while i < 3 or i < n:
        i += 1
    return i


def for_enumerate_tensor_rows(x):
    s = 0.0
    for i, v in enumerate(np.array([1.0, 2.0, 3.0]) * x):
        s = s + i * v
    return s


def assign_in_else_only_used_in_else(x):
    if x > 0:
        r = x
    else:
        t = x * 2
        r = t + 1
    return r


def return_inside_while_true(n):
    i = 0
    while True:
        i += 1
        if i > n:
            return i


def abs_and_minmax(x):
    return abs(x) + max(x, 1) - min(x, 2)


def nested_if_return(x):
    if x > 0:
        if x > 5:
            return 2
        return 1
    return 0


def loop_with_if_no_else_accum(n):
    c = 0
    for i in range(n):
        if i > 2:
            c += i
    return c


def pow_loop(x):
    r = 1
    for _ in range(3):
        r = r * x
    return r


def string_const_branch(x):
    if x > 0:
        s = x + 1
    else:
        s = x - 1
    name = "pos"
    return s


def bool_result(x):
    return x > 2


def not_in_loop(n):
    done = False
    i = 0
    while not done:
        i += 1
        done = i >= n
    return i


def global_counter_read(x):
    if x > 0:
        return x + OFFSET
    return x - OFFSET


OFFSET = 10


def sum_of_list_comp(x):
    return sum([x * k for k in range(4)])


def divmod_loop(n):
    q, r = 0, n
    while r >= 4:
        q += 1
        r -= 4
    return q, r


def break_in_while_tensor_cond(x):
    i = 0
    while x > i:
        i += 1
        if i >= 6:
            break
    return i


def else_on_while_with_break(n):
    i = 0
    while i < n:
        if i == 3:
            break
        i += 1
    else:
        return -1
    return i


PROGRAMS = [
    value
    for name, value in list(globals().items())
    if callable(value)
    and getattr(value, "__module__", None) == __name__
    and name[0].islower()
    and name not in {"run_both", "same_value"}
]

# Refused by contract (TypeError at the user's line), where plain Python runs:
# a Python list indexed with a staged loop counter (TF refuses it too).
REFUSED_WITH_TENSORS = {"loop_with_list_index"}


def run_both(program, function, arg):
    try:
        eager, eager_error = program(arg), None
    except Exception as error:  # noqa: BLE001  (the reference's outcome, whatever it is)
        eager, eager_error = None, error
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled, compiled_error = function(arg), None
    except Exception as error:  # noqa: BLE001
        compiled, compiled_error = None, error
    return eager, eager_error, compiled, compiled_error


def same_value(compiled, eager):
    if isinstance(eager, tuple):
        return len(compiled) == len(eager) and all(map(same_value, compiled, eager))
    if isinstance(eager, np.generic | np.ndarray):
        assert np.asarray(compiled).dtype == np.asarray(eager).dtype, (compiled, eager)
    return np.allclose(np.asarray(compiled, float), np.asarray(eager, float), equal_nan=True)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [None, np.int32, np.int64, np.float32, np.float64])
def test_program_matches_python(program, dtype):
    # One Function for the four values: a NumPy scalar's trace serves every value of its
    # dtype (so the staged branches are tested with values the trace did not see); Python
    # ints are constants of their trace, one trace each.
    function = tj.function(program)
    for value in (-2, 0, 3, 8):
        arg = value if dtype is None else dtype(value)
        eager, eager_error, compiled, compiled_error = run_both(program, function, arg)
        if eager_error is not None:
            assert compiled_error is not None, (value, compiled)
            assert isinstance(compiled_error, type(eager_error)), (compiled_error, eager_error)
            continue
        refused = program.__name__ in REFUSED_WITH_TENSORS and dtype is not None
        if refused and isinstance(compiled_error, TypeError):
            assert "test_reference_programs.py:" in str(compiled_error)
            continue
        assert compiled_error is None, (value, compiled_error)
        assert same_value(compiled, eager), (value, compiled, eager)
