"""A loop variable written in place and then rebound in a staged loop
(frontend/staging/control_flow.py, `_WrittenArrays._rebind_seen_by`; array_holders.py).

NumPy's `np.multiply(z, z, out=z)` then `z = z[keep]` writes the array `z` named before
the loop in the first trip only, and arrays the body made after that. The staged loop
carries `z` by value, which is exact when nothing else can see that first array: it is
then one compiled loop (NPBench's mandelbrot2 was unrolled into one copy of the body per
trip, 20-75 s to compile). When something else holds the array (another name, a view, a
list, an attribute, another loop variable, the caller's argument), a Python `range` loop
is unrolled, as before, and a `tj.range` loop is refused naming the holder. Compiled vs
eager NumPy throughout.
"""

import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.autograph.test_index_loops_relaxed_shapes import _staged_once
from tests.conftest import answers_with_user_defaults, assert_same, run_eagerly


def mandelbrot_in_place(x, y):
    """NPBench's mandelbrot2, with the grid passed in: the points still inside shrink
    every trip, and their iterates are squared in place first."""
    c = (x[:, None] + 1j * y[None, :]).reshape(-1)
    index = np.arange(c.size)
    counts = np.zeros(c.size, dtype=np.int64)
    last = np.zeros(c.size, dtype=np.complex128)
    z = np.zeros(c.shape, np.complex128)
    for i in range(20):
        np.multiply(z, z, z)
        np.add(z, c, z)
        out = np.abs(z) > 2.0
        counts[index[out]] = i + 1
        last[index[out]] = z[out]
        np.logical_not(out, out)
        z = z[out]
        index = index[out]
        c = c[out]
    return counts, last, z


def traced_start(c0):
    """The same on a traced array made in the function (not a NumPy constant)."""
    z = c0 * 0
    c = c0
    for _ in range(16):
        z *= z
        z += c
        keep = np.abs(z) < 2
        z = z[keep]
        c = c[keep]
    return z, c


@settings(max_examples=5, deadline=None)
@given(nx=st.integers(0, 12), ny=st.integers(1, 12), seed=st.integers(0, 2**16))
def test_mandelbrot_written_in_place_is_one_loop_and_matches_numpy(nx, ny, seed):
    rng = np.random.default_rng(seed)
    x, y = np.sort(rng.uniform(-2.2, 0.8, nx)), np.sort(rng.uniform(-1.3, 1.3, ny))
    compiled = _staged_once(mandelbrot_in_place, x, y)
    assert_same(compiled(x, y), mandelbrot_in_place(x, y))


def test_a_traced_array_written_in_place_then_rebound_is_one_loop():
    c0 = np.linspace(-2.0, 0.5, 50) + 0.25j
    compiled = _staged_once(traced_start, c0)
    assert_same(compiled(c0), run_eagerly(compiled, c0))


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_tj_range_carries_a_private_array_by_value(trips):
    @tj.function
    def doubled(x, n):
        y = x.copy()
        for _ in tj.range(n):
            y[0] = 1.0
            y = y * 2.0
        return y

    x, n = np.arange(4.0), np.int64(trips)
    assert_same(doubled(x, n), run_eagerly(doubled, x, n))


def test_a_while_loop_carries_a_private_array_by_value():
    @tj.function
    def escape(c):
        z = np.zeros_like(c)
        k = 0
        while np.any(np.abs(z) < 2) and k < 30:
            np.multiply(z, z, out=z)
            z += c
            z = np.where(np.abs(z) < 2, z, 3.0)
            k += 1
        return z, k

    c = np.linspace(-2.5, 0.6, 40) + 0.1j
    assert_same(escape(c), run_eagerly(escape, c))


# --- something else sees the array from before the loop: unrolled (or refused), as NumPy ---
def held_by_another_name(c):
    z = np.zeros_like(c) + 0.5
    kept = z
    for _ in range(9):
        np.multiply(z, z, out=z)
        z = z[np.abs(z) < 2] + c[:1]
    return kept, z


def held_by_a_view(c):
    z = np.zeros_like(c) + 0.5
    head = z[:2]
    for _ in range(9):
        np.multiply(z, z, out=z)
        z = z[np.abs(z) < 2] + c[:1]
    return head, z


def held_by_a_list(c):
    z = np.zeros_like(c) + 0.5
    saved = [c, z]
    for _ in range(9):
        np.multiply(z, z, out=z)
        z = z[np.abs(z) < 2] + c[:1]
    return saved[1], z


def held_in_a_nested_container(c):
    z = np.zeros_like(c) + 0.5
    state = {"history": [c, (z, 1)]}
    for _ in range(9):
        np.multiply(z, z, out=z)
        z = z[np.abs(z) < 2] + c[:1]
    return state["history"][1][0], z


def held_by_an_attribute(c):
    z = np.zeros_like(c) + 0.5
    box = types.SimpleNamespace(z=z)
    for _ in range(9):
        np.multiply(z, z, out=z)
        z = z[np.abs(z) < 2] + c[:1]
    return box.z, z


def held_by_another_loop_variable(c):
    z = np.zeros_like(c) + 0.5
    b = z
    total = 0.0
    for _ in range(9):
        np.multiply(z, z, out=z)
        total = total + b.sum()  # the first trip's b is the array just squared
        z = z[np.abs(z) < 2] + c[:1]
        b = z.copy()
    return total, z


def _step(z, c):
    for _ in range(9):
        np.multiply(z, z, out=z)
        z = z[np.abs(z) < 2] + c[:1]
    return z


def held_by_the_caller(c):
    w = np.zeros_like(c) + 0.5
    z = _step(w, c)
    return w, z


HELD = [
    held_by_another_name,
    held_by_a_view,
    held_by_a_list,
    held_in_a_nested_container,
    held_by_an_attribute,
    held_by_another_loop_variable,
    held_by_the_caller,
]


@pytest.mark.parametrize("function", HELD, ids=lambda f: f.__name__)
def test_an_array_seen_elsewhere_is_unrolled_and_matches_numpy(function):
    c = np.linspace(-1.0, 0.3, 9)
    compiled = tj.function(function)
    with pytest.warns(tj.LoopUnrolledWarning, match="changed in place and then assigned"):
        got = compiled(c)
    assert_same(got, function(c))


def test_an_argument_written_then_rebound_is_written_once_as_numpy_does():
    def squares_then_shrinks(z):
        for _ in range(9):
            np.multiply(z, z, out=z)
            z = z[np.abs(z) < 2] * 1.5
        return z

    ours, theirs = np.linspace(-1.5, 1.5, 7), np.linspace(-1.5, 1.5, 7)
    with pytest.warns(tj.LoopUnrolledWarning, match="the caller"):
        got = tj.function(squares_then_shrinks)(ours)
    assert_same(got, squares_then_shrinks(theirs))
    np.testing.assert_array_equal(ours, theirs)  # the caller's array: squared once


def test_tj_range_refuses_naming_what_else_sees_the_array():
    @tj.function
    def shared(x, n):
        y = x.copy()
        alias = y
        for _ in tj.range(n):
            y[0] = 1.0
            y = y * 2.0
        return y, alias

    with pytest.raises(NotImplementedError, match="and 'alias' also refers to the array"):
        shared(np.arange(4.0), np.int64(3))


def test_a_swap_is_still_staged_two_trips_at_a_time():
    def jacobi(u):
        new = u.copy()
        old = u.copy()
        for _ in range(40):
            new[1:-1] = 0.5 * (old[:-2] + old[2:])
            old, new = new, old
        return old

    u = np.linspace(0.0, 1.0, 12) ** 2
    compiled = _staged_once(jacobi, u)
    assert_same(compiled(u), jacobi(u), rtol=1e-12)


def test_with_the_defaults_users_get():
    """Tiered compilation on (the suite turns it off): the staged loop answers while it
    compiles, then compiled, and both agree with NumPy."""
    x, y = np.linspace(-2.0, 0.5, 17), np.linspace(-1.1, 1.1, 13)
    want = mandelbrot_in_place(x, y)
    for got in answers_with_user_defaults(mandelbrot_in_place, x, y):
        assert_same(got, want)
