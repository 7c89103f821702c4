"""AutoGraph staging: data-dependent if/while/for/break/continue/return compiled into
`tj.if`/`tj.while`, compared with the same function run eagerly, on inputs that take
different branches and different trip counts (including zero iterations)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj


@tj.function
def square_or_halve(x):
    if np.sum(x) > 0:
        return x * x
    else:
        return -x // 2


@pytest.mark.parametrize("x", [[1, 2, 3], [-5, 1, 2], [0, 0, 0], [7, -8, 0]])
def test_if_else_on_sum(check_against_eager, x):
    check_against_eager(square_or_halve, np.array(x, np.int64))


@tj.function
def simple_relu(x):
    if np.greater(x, 0):
        return x
    else:
        return 0


@pytest.mark.parametrize("x", [3.5, -2.0, 0.0])
def test_simple_relu(check_against_eager, x):
    check_against_eager(simple_relu, np.float64(x))


@tj.function
def tanh_until_small(x):
    while np.sum(x) > 1:
        x = np.tanh(x)
    return x


@pytest.mark.parametrize("x", [[0.9, 0.8, 0.7], [0.1, 0.2, 0.3], [3.0, -1.0, 5.0]])
def test_tanh_while_loop(check_against_eager, x):
    check_against_eager(tanh_until_small, np.array(x), rtol=1e-12)


@tj.function
def collatz_steps(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:  # noqa: SIM108
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return n, steps


@pytest.mark.parametrize("n", [1, 2, 6, 27, 0, -4])
def test_next_collatz(check_against_eager, n):
    check_against_eager(collatz_steps, np.int64(n))


@tj.function
def first_index_above(x, threshold):
    for i in tj.range(x.shape[0]):
        if x[i] > threshold:
            return i
    return -1


@pytest.mark.parametrize("threshold", [0.5, 2.5, 10.0, -10.0])
def test_early_return_inside_for_over_tj_range(check_against_eager, threshold):
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    check_against_eager(first_index_above, x, np.float64(threshold))


@tj.function
def break_and_continue(x, n):
    total = np.zeros_like(x[0])
    i = 0
    while i < n:
        i += 1
        if np.sum(x[i - 1]) < 0:
            continue
        if np.sum(total) > 10:
            break
        total = total + x[i - 1]
    count = 0
    for j in tj.range(n):
        if j % 2 == 1:
            continue
        if j >= 6:
            break
        count += j
    return total, i, count


@pytest.mark.parametrize("n", [0, 1, 3, 5, 8])
def test_break_and_continue_in_while_and_for(check_against_eager, n):
    x = np.array([[1.0, 2.0], [-5.0, 1.0], [4.0, 4.0], [3.0, 2.0], [0.5, 0.5]] * 2)
    check_against_eager(break_and_continue, x, np.int64(n))


@tj.function
def nested_loops(n, m):
    total = 0
    for i in tj.range(n):
        j = 0
        while j < m:
            if (i + j) % 3 == 0:
                total += i * j
            j += 1
    return total


@pytest.mark.parametrize(("n", "m"), [(0, 3), (3, 0), (4, 5), (7, 2)])
def test_nested_loops(check_against_eager, n, m):
    check_against_eager(nested_loops, np.int32(n), np.int32(m))


@tj.function
def row_norms_above(matrix, limit):
    count = 0
    biggest = np.zeros_like(matrix[0])
    for row in matrix:
        if np.sum(row * row) > limit:
            count += 1
            biggest = np.maximum(biggest, row)
    return count, biggest


@pytest.mark.parametrize("limit", [-1.0, 5.0, 1000.0])
def test_loop_over_rows_of_a_matrix(check_against_eager, limit):
    matrix = np.array([[1.0, 2.0, 0.5], [3.0, -4.0, 1.0], [0.1, 0.2, 0.3], [5.0, 5.0, -5.0]])
    check_against_eager(row_norms_above, matrix, np.float64(limit))


@tj.function
def loop_else_and_bool_ops(x, n):
    found = -1
    for i in tj.range(n):
        if x[i] > 2 and x[i] < 5:
            found = i
            break
    else:
        found = -2
    flag = not (np.sum(x) > 10) or np.max(x) < 0
    picked = x[0] if x[0] > x[1] else x[1]
    return found, flag, picked, 0 < x[0] <= 3


@pytest.mark.parametrize("n", [0, 2, 4])
@pytest.mark.parametrize("x", [[1, 3, 4, 9], [9, 8, 7, 6], [-1, -2, -3, 3]])
def test_loop_else_and_boolean_operators(check_against_eager, x, n):
    check_against_eager(loop_else_and_bool_ops, np.array(x, np.int64), np.int64(n))


def and_or_values(x, y):
    fallback = x or y  # one of the operands, as Python's (it was staged as a bool)
    both = x and y
    if x > 0 and y:  # a test: only its truth counts, whatever the operands' types
        both = both + 1.0
    while y and fallback > 100.0:
        y = y - 1.0
    return fallback, both, (x > 0) and (y < 1), not (x and y)


def mixed_and(x, y):
    return (x > 0) and y  # a bool or a float: no one type for the staged result


@pytest.mark.parametrize("x, y", [(3.0, 5.0), (0.0, 5.0), (-2.0, 0.0), (0.0, 0.0)])
def test_and_or_give_an_operand_as_python_does(check_against_eager, x, y):
    check_against_eager(tj.function(and_or_values), np.float64(x), np.float64(y))
    with pytest.raises(TypeError, match="in the true branch but dtype bool"):
        tj.function(mixed_and)(np.float64(x), np.float64(y))


@tj.function
def python_control_flow_unrolls(x, mode, repeats):
    if mode == "double":
        x = x * 2
    for _ in range(repeats):
        x = x + 1
    for scale in [1.0, 0.5]:
        if np.sum(x) > 0:
            x = x * scale
    return x


@pytest.mark.parametrize(("mode", "repeats"), [("double", 0), ("same", 3)])
def test_python_values_run_as_python(check_against_eager, mode, repeats):
    for x in ([1.0, 2.0], [-3.0, 1.0]):
        check_against_eager(python_control_flow_unrolls, np.array(x), mode, repeats)


@tj.function
def mixed_python_and_staged_loops(x, matrix, step):
    # A Python counter whose loop test turns symbolic: the loop is staged from there.
    i = 0
    while i < 3 and np.sum(x) < 100:
        x = x * 2
        i += 1
    # A Python list loop with a data-dependent break: later iterations run under a tj.if.
    for k in [1, 2, 3]:
        if np.sum(x) > 40:
            break
        x = x * k + 1
    # Rows of a tensor with an early exit.
    hits = 0
    for row in matrix:
        if np.min(row) < 0:
            break
        hits += 1
    # A counted loop with a symbolic (possibly negative) step.
    total = 0
    for j in tj.range(10, 0, step):
        total += j

    def clipped(v):
        if np.max(v) > 50:
            return np.minimum(v, 50.0)
        return v

    return clipped(x), i, hits, total


@pytest.mark.parametrize(("scale", "step"), [(1.0, -3), (30.0, -1), (200.0, 4), (-1.0, -20)])
def test_python_loops_that_become_staged(check_against_eager, scale, step):
    matrix = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, -6.0], [7.0, 8.0]]) * np.sign(scale)
    x = np.array([1.0, 2.0]) * scale
    check_against_eager(mixed_python_and_staged_loops, x, matrix, np.int64(step))


def test_staged_loops_and_branches_are_in_the_ir():
    concrete = mixed_python_and_staged_loops.get_concrete_function(
        np.ones(2), np.ones((4, 2)), np.int64(1)
    )
    ir = str(concrete.graph)
    assert ir.count("tj.while") == 3 and "tj.if" in ir
    assert "tj.while" not in concrete.ir(after="lower-control-flow")


@settings(max_examples=15, deadline=None)
@given(
    values=st.lists(st.floats(-8, 8, allow_nan=False), min_size=10, max_size=10),
    n=st.integers(-1, 10),
)
def test_jumps_on_random_values_and_trip_counts(check_against_eager, values, n):
    x = np.array(values).reshape(5, 2)
    check_against_eager(break_and_continue, np.concatenate([x, x]), np.int64(n))
    check_against_eager(collatz_steps, np.int64(n * 7))
