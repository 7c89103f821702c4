"""Views read in place by fused kernels (fuse-elementwise + bufferize): slices (shifted,
strided, reversed), transposes, unit-dim reshapes and broadcasts feeding element-wise
kernels give the same values as eager NumPy, on 0-size and size-1 dims, non-contiguous
inputs, NaN and Inf, and where the viewed array is updated after the view was taken.
The IR side (the view moves into the kernel, the copy is gone) is in
tests/filecheck/fuse-elementwise/views.mlir and tests/filecheck/bufferize/fused_views.mlir.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=32)
SMALL = st.floats(-1e3, 1e3)  # where overflow would only add NumPy warnings
SETTINGS = settings(max_examples=25, deadline=None)


def check(function, *args, rtol: float = 1e-6) -> None:
    assert_same(function(*args), run_eagerly(function, *args), rtol=rtol)


@st.composite
def window(draw, size: int) -> slice:
    """A slice of a dim of `size`: any start/stop, step of either sign, maybe empty."""
    step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
    start = draw(st.none() | st.integers(-size - 1, size + 1))
    stop = draw(st.none() | st.integers(-size - 1, size + 1))
    return slice(start, stop, step)


# --- stencils --------------------------------------------------------------------------
@SETTINGS
@given(hnp.arrays(np.float32, st.integers(2, 40), elements=FLOATS))
def test_1d_stencil(a):
    @tj.function
    def stencil(a):
        return a[1:-1] + a[:-2] * 0.5 + a[2:]

    check(stencil, a)


@SETTINGS
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=9)))
def test_laplacian(u):
    @tj.function
    def laplacian(u):
        return u[1:-1, 1:-1] * -4 + u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]

    check(laplacian, u)


@SETTINGS
@given(st.data(), hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=7))
def test_two_windows_of_one_array(data, shape):
    """Any two same-shaped windows of one array (steps of both signs, empty ones)."""
    a = data.draw(hnp.arrays(np.float32, shape, elements=FLOATS))
    first = tuple(data.draw(window(n)) for n in shape)
    shape_of_first = a[first].shape
    second = []
    for n, count in zip(shape, shape_of_first, strict=True):
        step = data.draw(st.sampled_from([1, -1, 2]))
        reach = (count - 1) * abs(step) + 1 if count else 0
        if reach > n or count == 0:
            step, reach = 1, count
        begin = data.draw(st.integers(0, n - reach))
        second.append(
            slice(begin + reach - 1, (begin - 1 if begin else None), step)
            if step < 0
            else slice(begin, begin + reach, step)
        )
    second = tuple(second)

    @tj.function
    def windows(a):
        return a[first] - a[second] * 2, np.maximum(a[first], a[second])

    check(windows, a)


def test_reversed_and_strided():
    @tj.function
    def flips(a, b):
        return a[::-1] * b, a[::2] + a[1::2], a[::-1][::3] - 1

    a = np.arange(12, dtype=np.float32)
    check(flips, a, np.linspace(0, 1, 12, dtype=np.float32))


def test_slice_sum_and_chain():
    """A reduction of a stencil, and views of computed values (materialised first)."""

    @tj.function
    def f(a):
        d = a[1:] - a[:-1]
        e = np.exp(a)
        return np.sum(d * d), e[2:] - e[:-2], (a * 2)[::-1] + a

    check(f, np.linspace(-1, 1, 17), rtol=1e-12)


# --- transposes, reshapes, broadcasts ---------------------------------------------------
@SETTINGS
@given(
    hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=2, max_dims=3, min_side=0, max_side=5), elements=SMALL
    )
)
def test_transpose_feeds_elementwise(x):
    @tj.function
    def f(x):
        t = x.T
        return t * 2 + np.transpose(x, tuple(range(x.ndim))[::-1]) ** 2, np.abs(t) - 1

    check(f, x)


@SETTINGS
@given(hnp.arrays(np.float32, st.integers(0, 8), elements=SMALL))
def test_unit_reshapes_and_broadcasts(v):
    @tj.function
    def f(v):
        column = v.reshape(-1, 1)
        row = v[None, :]
        return column - row, v.reshape(1, -1, 1) * 3, (v[:, None] + 1.0) * v[::-1][None, :]

    check(f, v)


def test_size_one_and_empty_dims():
    @tj.function
    def f(a, b):
        return a[:, ::-1] + b.T, a[1:, :] * 0

    check(f, np.ones((1, 3)), np.arange(3.0).reshape(3, 1))
    check(f, np.ones((0, 3)), np.ones((3, 0)))


def test_non_contiguous_inputs():
    @tj.function
    def f(a):
        return a[1:-1] + a[:-2] + a[2:], a.T[::-1] * 2

    base = np.arange(60.0).reshape(6, 10)
    check(f, base[:, ::3])
    check(f, base.T[2:, 1:])


def test_int_and_bool_views():
    @tj.function
    def f(a, m):
        return a[1:] - a[:-1], m[::-1] & m, a.T[0] * 3

    check(f, np.arange(8, dtype=np.int16).reshape(2, 4), np.array([True, False, True, True]))


# --- updates: a view reads the value of its program point --------------------------------
def test_view_taken_before_an_update_sees_the_old_values():
    @tj.function
    def f(a):
        a = a.copy()
        before = a[1:] + a[:-1]
        a[0] = 100.0
        a[2:4] = a[::-1][:2]
        after = a[1:] + a[:-1]
        return before, after, a

    check(f, np.arange(6.0))


def test_stencil_in_a_loop_updates_in_place():
    @tj.function
    def jacobi(u, steps: int):
        u = u.copy()
        for _ in range(steps):
            u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        return u

    grid = np.zeros((9, 7))
    grid[0] = 1.0
    check(jacobi, grid, 5)
    inputs = grid.copy()
    jacobi(grid, 3)
    np.testing.assert_array_equal(grid, inputs)  # the caller's array is untouched


# --- matrix-vector products through a transpose (read in place, no copy) -----------------
@SETTINGS
@given(
    st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
    st.integers(0, 9),
    st.integers(0, 9),
    st.data(),
)
def test_vector_times_transposed_matrix(dtype, n, k, data):
    elements = st.integers(-50, 50) if np.dtype(dtype).kind == "i" else SMALL
    v = data.draw(hnp.arrays(dtype, k, elements=elements))
    m = data.draw(hnp.arrays(dtype, (n, k), elements=elements))

    @tj.function
    def products(v, m):
        return v @ m.T, np.dot(v, m.T), m @ v, np.matmul(v, np.transpose(m))

    check(products, v, m, rtol=1e-4)


def test_transpose_read_by_a_product_and_something_else():
    @tj.function
    def f(v, m):
        t = m.T
        return v @ t, t + 1, (v * 2) @ t

    check(f, np.arange(3.0), np.arange(6.0).reshape(2, 3))


def test_transposed_product_after_an_update_sees_the_old_matrix():
    @tj.function
    def f(v, m):
        m = m * 1.0
        t = m.T
        m[0, :] = 100.0  # after the transpose: the product must see the old row
        return v @ t, v @ m.T

    check(f, np.ones(3), np.arange(6.0).reshape(2, 3))


def test_bool_transposed_product():
    @tj.function
    def f(v, m):
        return v @ m.T

    check(f, np.array([True, False, True]), np.array([[False, False, True], [False, True, False]]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("rows", [40, 41, 43])  # blocks of 4 rows, then the rest one by one
def test_row_blocked_matrix_vector_products(dtype, rows):
    """Large enough for tile-matmul to block the dot products by rows (support/tile_matvec.py)."""
    rng = np.random.default_rng(rows)
    m = (rng.random((rows, 130)) * 10).astype(dtype)
    v = (rng.random(130) * 10).astype(dtype)

    @tj.function
    def products(m, v):
        return m @ v, v @ m.T, np.dot(m[::2], v)

    check(products, m, v, rtol=1e-5)


def test_loop_state_read_through_views():
    """The loop's state read reversed and shifted by the kernel that computes its next
    value: the kernel must not write into the buffer it is still reading."""

    @tj.function
    def f(u, steps: int):
        for _ in range(steps):
            u = u[::-1] * 0.5 + u
            u = np.concatenate([u[:1], u[1:] - u[:-1]])
        return u

    check(f, np.arange(7.0), 4)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2), (1, 12), (12, 1), (0, 5), (4, 0, 2)])
def test_reshape_of_a_1d_array_feeds_elementwise(shape):
    @tj.function
    def f(a, b):
        return a.reshape(shape) * 2 + b, np.maximum(a[::-1].reshape(shape), b)

    size = int(np.prod(shape))
    a = np.arange(2 * size, dtype=np.float32)[::2]  # non-contiguous
    check(f, a, np.ones(shape, np.float32))
