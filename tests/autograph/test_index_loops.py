"""Index loops: Python `for` loops over long ranges whose body uses tensors are compiled as
loops (frontend/autograph/index_loops.py); short ones, and ones whose body cannot be traced
once, are unrolled. Results always match eager NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

LIMIT = tj.config.DEFAULT_LOOP_UNROLL_LIMIT


def loops_in(function, *args) -> int:
    return str(function.get_concrete_function(*args).graph).count("tj.while")


def check(function, *args):
    eager = run_eagerly(function, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    assert_same(function(*args), eager)


@tj.function
def running_total(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * i
    return total


@pytest.mark.parametrize("n", [0, 1, LIMIT, LIMIT + 1, 500])
def test_long_ranges_are_staged_short_ones_unrolled(n):
    x = np.linspace(-1, 1, n).astype(np.float32)
    check(running_total, x)
    assert loops_in(running_total, x) == (1 if n > LIMIT else 0)


def test_the_counter_is_a_weak_python_int():
    x = np.ones(40, np.float32)
    assert running_total.get_concrete_function(x).structured_outputs.dtype == np.float32


def test_the_limit_is_configurable():
    x = np.ones(40, np.float32)
    try:
        tj.config.set_loop_unroll_limit(None)

        @tj.function
        def total(x):
            s = 0.0
            for i in range(x.shape[0]):
                s += x[i]
            return s

        assert loops_in(total, x) == 0
        tj.config.set_loop_unroll_limit(100)
        assert loops_in(tj.function(total.python_function), x) == 0
        tj.config.set_loop_unroll_limit(10)
        assert loops_in(tj.function(total.python_function), x) == 1
    finally:
        tj.config.set_loop_unroll_limit(tj.config.DEFAULT_LOOP_UNROLL_LIMIT)
    with pytest.raises(ValueError, match=">= 0"):
        tj.config.set_loop_unroll_limit(-1)


def test_a_list_of_indices_always_unrolls():
    @tj.function
    def total(x):
        s = 0.0
        for i in list(range(x.shape[0])):
            s += x[i]
        return s

    x = np.arange(50.0)
    check(total, x)
    assert loops_in(total, x) == 0


def test_a_body_without_tensors_stays_python():
    @tj.function
    def shape_work(x):
        sizes = []
        for i in range(100):
            sizes.append(i % 7)
        return x * sum(sizes)

    check(shape_work, np.ones(3))
    assert loops_in(shape_work, np.ones(3)) == 0


def test_a_body_that_cannot_be_staged_is_unrolled_with_a_warning():
    @tj.function
    def collect(x):
        out = []
        for i in range(40):
            out.append(x[i % 3] * i)
        return np.stack(out)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(collect, np.arange(3.0))
    messages = [str(w.message) for w in caught if w.category is tj.LoopUnrolledWarning]
    assert messages and "40 iterations" in messages[0] and "'out'" in messages[0]


def test_numpy_arange_and_enumerate_are_staged():
    @tj.function
    def weighted(x):
        acc = np.zeros(x.shape[1])
        for i, row in enumerate(x):
            acc += row * i
        for j in np.arange(x.shape[0]):
            acc -= x[j]
        return acc

    x = np.arange(200.0).reshape(50, 4)
    check(weighted, x)
    assert loops_in(weighted, x) == 2


def test_nested_index_loops_match_numpy():
    @tj.function
    def game_of_life_step(board):
        n, m = board.shape
        new = np.zeros_like(board)
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                alive = board[i - 1 : i + 2, j - 1 : j + 2].sum() - board[i, j]
                if board[i, j] == 1 and (alive == 2 or alive == 3):
                    new[i, j] = 1
                elif board[i, j] == 0 and alive == 3:
                    new[i, j] = 2 - board[i, j] - 1
        return new

    board = (np.random.default_rng(1).random((40, 40)) < 0.4).astype(np.int64)
    check(game_of_life_step, board)


def test_python_side_effects_in_a_staged_body_run_once():
    calls = []

    @tj.function
    def noisy(x):
        for i in range(40):
            calls.append(i)
            x = x + 1.0
        return x

    np.testing.assert_array_equal(noisy(np.zeros(2)), np.full(2, 40.0))
    assert len(calls) == 1


def test_print_in_a_staged_index_loop_warns():
    @tj.function
    def chatty(x):
        for _ in range(40):
            print("step")
            x = x + 1.0
        return x

    with pytest.warns(UserWarning, match="runs once, while tracing; use tj.print"):
        np.testing.assert_array_equal(chatty(np.zeros(2)), np.full(2, 40.0))


def test_a_numba_style_mandelbrot_with_complex_and_early_return():
    def mandel(x, y, max_iters):
        c = complex(x, y)
        z = 0.0j
        for i in range(max_iters):
            z = z * z + c
            if (z.real * z.real + z.imag * z.imag) >= 4:
                return i
        return 255

    @tj.function
    def fractal(image, iters):
        height, width = image.shape
        for x in range(width):
            real = -2.0 + x * (3.0 / width)
            for y in range(height):
                image[y, x] = mandel(real, -1.0 + y * (2.0 / height), iters)
        return image

    check(fractal, np.zeros((36, 40), np.uint8), 20)


def test_enumerate_of_a_numpy_array_is_staged_when_the_body_uses_tensors():
    def escape_time(zr, zi, cr, ci, cutoff):
        count = 0
        while (zr * zr + zi * zi) < 4.0 and count < cutoff:
            zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
            count += 1
        return count

    @tj.function
    def julia(c, n):
        out = np.empty((n, n), np.uint32)
        grid = np.linspace(-1.5, 1.5, n)
        for i, x in enumerate(grid):
            for j, y in enumerate(grid):
                out[i, j] = escape_time(x, y, c[0], c[1], 30)
        return out

    check(julia, np.array([-0.4, 0.6]), 24)
    assert loops_in(julia, np.array([-0.4, 0.6]), 24) >= 2


def test_windows_of_a_fixed_width_at_a_run_time_index():
    @tj.function
    def conv2d(image, kernel):
        kh, kw = kernel.shape
        h, w = image.shape
        out = np.zeros((h - kh + 1, w - kw + 1))
        for i in range(h - kh + 1):
            for j in range(w - kw + 1):
                out[i, j] = np.sum(image[i : i + kh, j : j + kw] * kernel)
        return out

    rng = np.random.default_rng(5)
    check(conv2d, rng.random((20, 16)), rng.random((3, 3)))
    assert "tj.while" in str(conv2d.get_concrete_function(np.ones((20, 16)), np.ones((3, 3))).graph)


def test_a_fixed_width_window_that_would_be_cut_short_fails_the_call():
    @tj.function
    def window(x, i):
        return x[i : i + 3].sum()

    assert window(np.arange(5.0), np.int64(2)) == 9.0
    with pytest.raises(IndexError, match="reaches outside axis 0 of size 5"):
        window(np.arange(5.0), np.int64(3))


def pooled(x):
    """LeNet's max pooling, written as NumPy users write it: two short loops nested."""
    out = np.empty((x.shape[0] // 2, x.shape[1] // 2), x.dtype)
    for i in range(x.shape[0] // 2):
        for j in range(x.shape[1] // 2):
            out[i, j] = np.max(x[2 * i : 2 * i + 2, 2 * j : 2 * j + 2])
    return out


@pytest.mark.parametrize("side", [4, 2 * LIMIT, 2 * LIMIT + 2, 40])
def test_nested_short_loops_count_the_copies_they_make(side):
    """The copies unrolled loops make multiply: in an 8-by-8 nest, the first copy of the
    outer loop's body stages the inner loop (not 64 traced bodies, each compiled: LeNet's
    forward took 6 s to compile), so the outer loop is staged, around 8 copies of the
    inner body (one loop to compile, not 8); a nest of at most 8 bodies in all is unrolled
    as before."""
    x = np.arange(side * side, dtype=np.float64).reshape(side, side) % 7
    f = tj.function(pooled)
    check(f, x)
    half = side // 2
    expected = 0 if half * half <= LIMIT else (1 if half <= LIMIT else 2)  # tj.while ops
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        assert loops_in(f, x) == expected


def test_a_short_loop_staged_for_its_copies_unrolls_quietly_when_it_must():
    """A short inner loop whose body indexes a Python list cannot be staged: it unrolls as
    it would on its own, without the warning meant for long loops."""
    weights = [1.0, 2.0, 3.0, 4.0]

    def f(x):
        total = x * 0.0
        for i in range(4):
            for j in range(4):
                total = total + x * weights[j] * i
        return total

    x = np.arange(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        check(tj.function(f), x)


def sweeps(u, steps):
    """Gauss-Seidel sweeps (PolyBench's seidel-2d, 5 points): a short Python loop of
    `steps` around a long loop nest."""
    u = u.copy()
    for _ in range(steps):
        for i in range(1, u.shape[0] - 1):
            for j in range(1, u.shape[1] - 1):
                u[i, j] = (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + u[i, j]) / 5
    return u


@pytest.mark.parametrize("steps", [0, 1, 2, LIMIT])
def test_a_short_loop_around_a_staged_loop_is_staged_too(steps):
    """Unrolled, each of the `steps` copies of the body would hold the sweep's loop nest to
    compile (seidel-2d's first call took 3x numba's); staged, it is compiled once. One trip
    is unrolled as before (nothing to share)."""
    u = np.arange(144.0).reshape(12, 12) % 5
    f = tj.function(sweeps)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        check(f, u, steps)
        assert loops_in(f, u, steps) == {0: 0, 1: 2}.get(steps, 3)


def test_a_short_loop_around_a_loop_stays_unrolled_when_it_must():
    """Staged, the outer body could not index a Python list with its counter: the loop is
    unrolled quietly, as a short loop is; with a `print` in it, it is unrolled (each copy
    prints while tracing, as a short loop's copies did)."""
    scales = [1.0, 2.0, 4.0]

    def scaled_sums(x):
        total = x[0] * 0.0
        for k in range(3):
            for i in range(x.shape[0]):
                total = total + x[i] * scales[k]
        return total

    def printed(x):
        total = x[0] * 0.0
        for k in range(2):
            print("pass", k)
            for i in range(x.shape[0]):
                total = total + x[i] * k
        return total

    x = np.arange(20.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        f = tj.function(scaled_sums)
        check(f, x)
        assert loops_in(f, x) == 3
        g = tj.function(printed)
        check(g, x)
        assert loops_in(g, x) == 2


def vertical_sweep(u):
    """npbench's vadv allocates its scratch arrays with the ndarray constructor."""
    ccol = np.ndarray(u.shape, dtype=u.dtype)
    dcol = np.ndarray((u.shape[0],), dtype=u.dtype)
    for k in range(u.shape[1]):  # staged: more trips than the unroll limit
        ccol[:, k] = u[:, k] * 2.0 + k
    dcol[:] = ccol[:, 1]
    return ccol, dcol


def test_the_ndarray_constructor_makes_an_array_the_function_can_write(check_against_eager):
    u = np.random.default_rng(5).random((3, 12))
    sweep = tj.function(vertical_sweep)
    check_against_eager(sweep, u)
    assert "tj.while" in str(sweep.get_concrete_function(u).graph.module)
    buffer = np.arange(6.0)

    @tj.function
    def view_of_a_buffer(x):
        return x + np.ndarray((2, 3), np.float64, buffer)  # NumPy's own view of it

    check_against_eager(view_of_a_buffer, np.ones((2, 3)))


class _Counter:
    def __init__(self):
        self.n = 0


def counted_increments(x):
    c = _Counter()
    for _ in range(12):
        x = x + 1
        c.n += 1
    return x / c.n


_CALLS = 0


def counted_globally(x):
    global _CALLS
    for _ in range(12):
        x = x * 2
        _CALLS += 1
    return x + _CALLS


def test_a_loop_assigning_python_state_unrolls(check_against_eager):
    """A staged loop changed `c.n` (or a global) once, while tracing, where Python changes
    it on every trip, and the result used it (a probe of the tf.function contract; TF
    unrolls such loops). Now they unroll, with a LoopUnrolledWarning naming the state."""
    global _CALLS
    with pytest.warns(tj.LoopUnrolledWarning, match="assigns c.n"):
        check_against_eager(tj.function(counted_increments), np.float64(0.5))
    _CALLS = 0
    eager = counted_globally(np.float64(1.0))
    _CALLS = 0
    with pytest.warns(tj.LoopUnrolledWarning, match="assigns _CALLS"):
        assert tj.function(counted_globally)(np.float64(1.0)) == eager


def dict_weighted(x):
    weights = {k: float(k) for k in range(10)}
    for i in range(10):
        x = x + weights[i]
    return x


def test_a_dict_indexed_with_the_counter_unrolls(check_against_eager):
    """`weights[i]` on a dict crashed with `KeyError: <tj.Tensor ...>` (a probe of the
    tf.function contract): the loop unrolls, as one indexing a list does."""
    with pytest.warns(tj.LoopUnrolledWarning, match="a dict"):
        check_against_eager(tj.function(dict_weighted), np.float64(0.5))
