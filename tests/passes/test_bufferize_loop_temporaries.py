"""Static heap temporaries of a loop's body are allocated once at the function's entry and
freed when it returns (bufferize/builder.py, `_hoist`): compiled vs eager NumPy for loops
whose state, temporaries and `if` results live in such buffers, nested loops, a loop in a
branch, and loops that run zero times. The arrays are over the stack limit (256 bytes)."""

import warnings

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

SIZE = 100  # float64: 800 bytes, a heap buffer


def check(function, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        compiled = function(*args)
    assert_same(compiled, run_eagerly(function, *args), rtol=1e-12)


@tj.function
def damped(x, steps):
    s = x
    for _ in tj.range(steps):
        t = np.tanh(s) * 0.5
        s = t + np.roll(t, 1)  # the roll is not fused: a temporary per iteration
    return s.sum(), s[:3]


@tj.function
def nested(x, steps):
    s = x
    for _ in tj.range(steps):
        inner = s * 0.5
        for _ in tj.range(steps):
            inner = np.sin(inner) + np.roll(inner, 2)
        s = inner - np.roll(s, 1)
    return s * 2.0


@tj.function
def branch_temporaries(x, steps):
    s = x
    for i in tj.range(steps):
        if i % 2 == 0:  # a staged `if` whose branches make different temporaries
            s = np.roll(np.exp(-s), 1)
        else:
            t = np.roll(s, 3)
            s = np.cos(s) + t
    return s


@tj.function
def loop_in_branch(x, steps):
    if x[0] > 0:
        s = x
        for _ in tj.range(steps):
            s = np.roll(np.tanh(s), 1) + 1.0
    else:
        s = -x
    return s


@tj.function
def until_small(x):
    while np.sum(np.abs(x)) > 1.0:
        x = np.roll(np.tanh(x), 1) * 0.5
    return x


@pytest.mark.parametrize("steps", [0, 1, 5])
def test_loops_with_array_temporaries(steps):
    x = np.random.default_rng(steps).standard_normal(SIZE)
    n = np.int64(steps)
    check(damped, x, n)
    check(nested, x, n)
    check(branch_temporaries, x, n)
    check(loop_in_branch, x, n)
    check(loop_in_branch, -np.abs(x), n)


def test_while_loop_until_small():
    check(until_small, np.linspace(-3.0, 3.0, SIZE))


def test_repeated_calls_reuse_nothing_stale():
    """A hoisted buffer starts each call uninitialised: results do not depend on the
    previous call's data."""
    rng = np.random.default_rng(0)
    for _ in range(3):
        check(nested, rng.standard_normal(SIZE), np.int64(3))
