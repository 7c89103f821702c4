"""Staged control flow and Python state: containers changed in place inside a staged
if/loop are branch/loop state; a variable a loop may not have assigned raises when read
(never a made-up value); variables first assigned in a loop are usable after it; and a
traced value kept where AutoGraph cannot carry it is refused, not miscompiled.

Each function runs with a Python input (plain Python semantics, unrolled) and with tensor
inputs (staged), compiled and eagerly, and the results are compared."""

import re

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

DTYPES = [np.int32, np.int64, np.float32, np.float64]


def dict_item_in_if(t):
    x = {"a": t}
    if t > 0:
        x["b"] = t * 2
    else:
        x["b"] = t * 3
    return x["a"] + x["b"]


def dict_item_changed_in_one_branch(t):
    x = {"a": t, "b": t}
    if t > 2:
        x["b"] = x["b"] + 10
    return x["b"] - x["a"]


def list_item_in_while(t):
    y = [t, t]
    while y[0] < 10:
        y[0] += 1
        y[1] = y[1] * 2
    return y[0] + y[1]


def aliased_dict_sees_the_change(t):
    x = {"v": t}
    alias = x
    if t > 1:
        x["v"] = t * 5
    return alias["v"]


def nested_container_in_for(t):
    acc = {"sums": [t, t]}
    for _ in tj.range(4):
        acc["sums"][0] = acc["sums"][0] + 1
        acc["sums"][1] = acc["sums"][1] * 2
    return acc["sums"][0] - acc["sums"][1]


def list_items_via_setitem_in_for_over_python_range(t):
    y = [t, t + 1]
    for i in range(3):
        if t > i:
            y[i % 2] = y[i % 2] + i
    return y[0] * 3 + y[1]


def dict_pop_in_if(t):
    x = {"a": t, "b": t + 1}
    if t > 0:
        x["a"] = x.pop("b") * 2
    else:
        x["a"] = x.pop("b") * 3
    return x["a"]


CONTAINER_PROGRAMS = [
    dict_item_in_if,
    dict_item_changed_in_one_branch,
    list_item_in_while,
    aliased_dict_sees_the_change,
    nested_container_in_for,
    list_items_via_setitem_in_for_over_python_range,
    dict_pop_in_if,
]
CONTAINER_FUNCTIONS = {program: tj.function(program) for program in CONTAINER_PROGRAMS}


@pytest.mark.parametrize("program", CONTAINER_PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("value", [-3, 0, 2, 7])
def test_containers_changed_in_staged_control_flow(program, dtype, value):
    f = CONTAINER_FUNCTIONS[program]  # one trace per dtype serves every value
    t = dtype(value)
    assert_same(f(t), run_eagerly(f, t))


@pytest.mark.parametrize("program", CONTAINER_PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("value", [-3, 2, 7])
def test_containers_with_python_inputs_run_as_python(program, value):
    f = tj.function(program)
    assert f(value) == program(value)


def appends_in_staged_loop(n):
    items = []
    for i in tj.range(n):
        items.append(i)
    return items


def gains_a_key_in_one_branch(t):
    x = {"a": t}
    if t > 0:
        x["b"] = t
    return x["a"]


def line_of(function, text):
    import inspect

    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_list_growing_in_a_staged_loop_is_refused_with_the_way_out():
    with pytest.raises(TypeError, match="'items' changes its structure") as info:
        tj.function(appends_in_staged_loop)(np.int32(3))
    assert "tj.TensorArray" in str(info.value)
    assert f"test_container_state.py:{line_of(appends_in_staged_loop, 'for i')}" in str(info.value)


def test_dict_key_added_in_one_branch_is_refused():
    with pytest.raises(ValueError, match="'x' has a different structure in the two branches"):
        tj.function(gains_a_key_in_one_branch)(np.int64(1))


def grows_under_a_test_of_constants(t):
    flags = np.identity(3, np.int32)[:2].copy()
    flags.fill(-7)  # made from Python values: known while tracing, even changed in place
    items = [t]
    if np.any(flags):
        items.append(t + 1)
    else:
        items[0] = t + 1
    return items[-1]


def test_an_if_on_values_known_while_tracing_runs_in_python():
    """The branch is chosen while tracing, so a list may grow in it (test_fuzz_8eb22e5fff:
    the fuzzer expected the staged if's refusal here)."""
    t = np.arange(4.0)
    assert_same(
        tj.function(grows_under_a_test_of_constants)(t),
        run_eagerly(grows_under_a_test_of_constants, t),
    )


def test_python_list_append_in_python_loop_still_works():
    def collect(x):
        items = []
        for i in range(3):
            items.append(x * i)
        return np.stack(items)

    f = tj.function(collect)
    assert_same(f(np.arange(3.0)), run_eagerly(f, np.arange(3.0)))


# --- variables a staged loop may not assign ----------------------------------------------------
def assigned_only_in_loop(n):
    for i in tj.range(n):
        v = i * 2
    return v


def target_used_after_loop(n):
    for i in tj.range(n):  # noqa: B007  (the target is read after the loop)
        pass
    return i


def while_local_used_after(n):
    k = n - n
    while k < n:
        last = k * 10
        k += 1
    return last


def read_only_on_a_path_where_it_is_set(n):
    for i in tj.range(n):
        v = i * 3
    if n > 0:
        return v
    return n


def early_return_from_loop(x, n):
    for i in tj.range(n):
        if x > i:
            return i * 2
    return n - 100


def dict_built_in_loop(n):
    for i in tj.range(n):
        d = {"a": i * 2, "b": [i + 1]}
    return d["a"] + d["b"][0]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("program", [assigned_only_in_loop, target_used_after_loop,
                                     while_local_used_after, dict_built_in_loop],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_read_after_a_zero_trip_loop_raises_at_run_time(program, dtype):
    f = tj.function(program)
    for n in (1, 4):
        assert int(f(dtype(n))) == int(run_eagerly(f, dtype(n)))
    with pytest.raises(UnboundLocalError):
        run_eagerly(f, dtype(0))
    with pytest.raises(tj.errors.InvalidArgumentError, match="ran zero times") as info:
        f(dtype(0))
    assert "test_container_state.py" in str(info.value)


def container_of_a_loop_variable_changed_in_one_branch(a, n):
    for i in tj.range(n):
        row = a[i]
    d = {"a": row.copy(), "l": [row.copy(), a.copy()]}
    if np.any(a > 2):
        d["l"][0] = d["l"][0] * 2
    else:
        d["a"] = d["a"] + d["l"][0]
    return d["a"], d["l"][0], d["l"][1]


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("high", [0, 5])
def test_a_container_leaf_the_if_leaves_alone_keeps_its_guard(n, high):
    """test_fuzz_b5a2d0b233: the if's guard of `d["a"]` went to every leaf of `d`, also
    `a` itself, so reads of `a` before the if checked a flag defined after it (a compile
    error in bufferize)."""
    f = tj.function(container_of_a_loop_variable_changed_in_one_branch)
    a = np.arange(6).reshape(3, 2) % 3 + high
    if n == 0:
        with pytest.raises(UnboundLocalError):
            run_eagerly(f, a, np.int64(0))
        with pytest.raises(tj.errors.InvalidArgumentError, match="ran zero times"):
            f(a, np.int64(0))
        return
    assert_same(f(a, np.int64(n)), run_eagerly(f, a, np.int64(n)))


def set_to_a_number_in_one_branch(a, n):
    for i in tj.range(n):
        v = a[i]
    if np.any(a > 2):
        v = 0.5
    return v


@pytest.mark.parametrize("n", [0, 2])
@pytest.mark.parametrize("high", [0, 5])
def test_a_number_in_one_branch_keeps_the_other_branchs_guard(n, high):
    f = tj.function(set_to_a_number_in_one_branch)
    a = np.arange(4.0) % 2 + high
    if n == 0 and high == 0:
        with pytest.raises(tj.errors.InvalidArgumentError, match="ran zero times"):
            f(a, np.int64(n))
        return
    assert_same(f(a, np.int64(n)), run_eagerly(f, a, np.int64(n)))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("n", [0, 1, 5])
def test_reads_guarded_by_the_path_do_not_raise(dtype, n):
    f = tj.function(read_only_on_a_path_where_it_is_set)
    assert_same(f(dtype(n)), run_eagerly(f, dtype(n)))
    g = tj.function(early_return_from_loop)
    for x in (0, 3, 9):
        assert_same(g(dtype(x), dtype(n)), run_eagerly(g, dtype(x), dtype(n)))


# --- values that escape a staged region ---------------------------------------------------------
class Holder:
    pass


HOLDER = Holder()


def keeps_value_in_an_attribute(x):
    if np.sum(x) > 0:
        HOLDER.value = x * 2
    else:
        HOLDER.value = x * 3
    return HOLDER.value


def test_value_kept_outside_autographs_reach_is_refused_not_miscompiled():
    with pytest.raises(ValueError, match=re.escape("used outside it")):
        tj.function(keeps_value_in_an_attribute)(np.ones(3))


# --- return inside try/finally/except ------------------------------------------------------------
def raises_value_error():
    raise ValueError("no")


def return_in_try_finally_under_a_tensor_if(x):
    try:
        if x > 0:
            return x
        else:
            return -x
    finally:
        pass


def return_of_a_helper_that_raises_is_caught(x):
    try:
        return raises_value_error()
    except ValueError:
        pass
    return x * 5


def return_in_try_with_handler_and_finally(x):
    try:
        if x > 0:
            return x
        return -x
    except ValueError:
        return x * 0
    finally:
        x = x + 1


@pytest.mark.parametrize(
    "program",
    [
        return_in_try_finally_under_a_tensor_if,
        return_of_a_helper_that_raises_is_caught,
        return_in_try_with_handler_and_finally,
    ],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("value", [-3, 4])
def test_returns_inside_try(program, dtype, value):
    f = tj.function(program)
    assert_same(f(dtype(value)), run_eagerly(f, dtype(value)))
    assert f(value) == program(value)  # Python input: plain Python
