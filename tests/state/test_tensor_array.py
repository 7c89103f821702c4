"""tj.TensorArray: every method compiled vs eager, fixed and dynamic sizes, staged and
unrolled loops, dtypes and element shapes, and the errors of misuse."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj


def eager(function, *args):
    tj.config.run_functions_eagerly(True)
    try:
        return function(*args)
    finally:
        tj.config.run_functions_eagerly(False)


def same(compiled, reference):
    if isinstance(reference, tuple):
        assert len(compiled) == len(reference)
        for c, r in zip(compiled, reference, strict=True):
            same(c, r)
        return
    assert np.asarray(compiled).dtype == np.asarray(reference).dtype
    np.testing.assert_array_equal(compiled, reference)


def check(function, *args):
    result = function(*args)
    same(result, eager(function, *args))
    return result


DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_, np.uint8]


@pytest.mark.parametrize("dtype", DTYPES)
def test_fixed_size_staged_loop_all_methods(dtype):
    @tj.function
    def f(x):
        ta = tj.TensorArray(x.dtype, size=4)
        for i in tj.range(3):
            ta = ta.write(i, x[i])
        return ta.stack(), ta.read(1), ta.read(3), ta.size()

    x = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    stacked, row, unwritten, size = check(f, x)
    np.testing.assert_array_equal(stacked[:3], x)
    assert not unwritten.any() and size == 4 and size.dtype == np.int32  # never written: zeros
    np.testing.assert_array_equal(row, x[1])


@pytest.mark.parametrize("element_shape", [(), (3,), (2, 2)])
def test_element_shapes_in_unrolled_and_staged_loops(element_shape):
    @tj.function
    def f(x, n):
        unrolled = tj.TensorArray(np.float32, size=3, element_shape=element_shape)
        for i in range(3):
            unrolled = unrolled.write(i, x * i)
        staged = tj.TensorArray(np.float32, size=0, dynamic_size=True, element_shape=x.shape)
        for i in tj.range(n):
            staged = staged.write(i, x + unrolled.read(i % 3))
        return unrolled.stack(), staged.stack(), staged.size()

    x = np.arange(np.prod(element_shape), dtype=np.float32).reshape(element_shape)
    for n in (0, 1, 5, 17):
        stacked, grown, size = check(f, x, np.int64(n))
        assert grown.shape == (n, *element_shape) and size == n


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(0, 40),
    width=st.integers(1, 5),
    dtype=st.sampled_from([np.float32, np.int32, np.int64]),
)
def test_dynamic_size_grows_with_run_time_trip_count(n, width, dtype):
    compiled = _dynamic_cube(dtype)
    x = np.arange(width).astype(dtype)
    result = check(compiled, x, np.int64(n))
    assert result.shape == (n, width)


_CACHE: dict = {}


def _dynamic_cube(dtype):
    if dtype not in _CACHE:

        @tj.function
        def f(x, n):
            ta = tj.TensorArray(dtype, size=0, dynamic_size=True, element_shape=x.shape)
            for i in tj.range(n):
                ta = ta.write(i, (x * i + 1).astype(x.dtype))
            return ta.stack()

        _CACHE[dtype] = f
    return _CACHE[dtype]


def test_dynamic_stack_owns_its_memory_and_outlives_the_call():
    f = _dynamic_cube(np.float64)
    first = f(np.ones(3), np.int64(4))
    second = f(np.ones(3), np.int64(6))
    assert first.shape == (4, 3) and second.shape == (6, 3)
    assert not np.shares_memory(first, second)
    first[0, 0] = 99.0  # writable, and a new call does not touch it
    f(np.ones(3), np.int64(4))
    assert first[0, 0] == 99.0
    np.testing.assert_array_equal(second[:, 0], np.arange(6) + 1.0)


def test_while_loop_carries_a_tensor_array():
    @tj.function
    def f(x):
        def body(i, ta):
            return i + 1, ta.write(i, x * i)

        ta = tj.TensorArray(np.int64, size=0, dynamic_size=True, element_shape=(2,))
        _, ta = tj.while_loop(lambda i, ta: i < x[0], body, (np.int64(0), ta))
        return ta.stack(), ta.size()

    for first in (0, 3, 9):
        stacked, size = check(f, np.array([first, 2], np.int64))
        assert size == first


def test_unstack_then_read_in_a_staged_loop():
    @tj.function
    def f(x):
        ta = tj.TensorArray(np.float32, size=4).unstack(x)
        total = np.zeros(2, np.float32)
        for i in tj.range(4):
            total = total + ta.read(i)
        return total, ta.stack()

    check(f, np.arange(8, dtype=np.float32).reshape(4, 2))


def test_unstack_dynamic_then_append():
    @tj.function
    def f(x, n):
        ta = tj.TensorArray(np.int32, size=0, dynamic_size=True).unstack(x)
        for i in tj.range(n):
            ta = ta.write(ta.size(), (x[0] + i).astype(np.int32))
        return ta.stack()

    result = check(f, np.arange(6, dtype=np.int32).reshape(3, 2), np.int64(2))
    assert result.shape == (5, 2)


def test_python_index_unrolled_dynamic_is_static():
    @tj.function
    def f(x):
        ta = tj.TensorArray(np.float32, size=0, dynamic_size=True)
        for i in range(x.shape[0]):
            ta = ta.write(i, x[i] * 2)
        return ta.stack()

    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(check(f, x), x * 2)
    assert "tj.grow" not in str(f.get_concrete_function(x).graph)  # size known at trace time


def test_staged_writes_are_in_place_after_bufferize():
    @tj.function
    def f(x):
        ta = tj.TensorArray(np.float32, size=64, element_shape=(4,))
        for i in tj.range(64):
            ta = ta.write(i, (x * i).astype(np.float32))
        return ta.stack()

    x = np.ones(4, np.float32)
    check(f, x)
    buffers = f.get_concrete_function(x).ir(after="bufferize")
    # inside the loop the array is written in place: no 64x4 buffer is allocated or copied
    body = buffers.split("scf.condition")[1]
    touching = [line for line in body.splitlines() if "64x4xf32" in line]
    assert touching and all(line.strip().startswith("memref.store") for line in touching)
    # and the zeros it starts from are filled into it: no buffer of their own (once freed
    # after the loop, write_only.py)
    assert "memref.alloc()" not in buffers.split("scf.while")[0]


# --- errors ----------------------------------------------------------------------------------
def test_out_of_range_write_on_fixed_size_raises_at_run_time():
    @tj.function
    def f(x, n):
        ta = tj.TensorArray(np.float32, size=3)
        for i in tj.range(n):
            ta = ta.write(i, x)
        return ta.stack()

    x = np.ones(2, np.float32)
    check(f, x, np.int64(3))
    for function in (f, lambda *a: eager(f, *a)):
        with pytest.raises(tj.errors.InvalidArgumentError, match="index out of range|size is"):
            function(x, np.int64(4))


def test_out_of_range_python_index_raises_invalid_argument():
    @tj.function
    def f(x):
        return tj.TensorArray(np.float32, size=2).write(2, x).stack()

    for function in (f, lambda a: eager(f, a)):
        with pytest.raises(tj.errors.InvalidArgumentError, match="size is: 2"):
            function(np.ones(2, np.float32))


def test_read_out_of_range_at_run_time():
    @tj.function
    def f(x, i):
        return tj.TensorArray(np.float32, size=2).unstack(x).read(i)

    x = np.ones((2, 3), np.float32)
    check(f, x, np.int64(1))
    with pytest.raises(tj.errors.InvalidArgumentError):
        f(x, np.int64(2))


def test_wrong_dtype_or_shape_is_a_trace_time_error():
    @tj.function
    def wrong_dtype(x):
        return tj.TensorArray(np.int32, size=1).write(0, x).stack()

    @tj.function
    def wrong_shape(x):
        ta = tj.TensorArray(np.float32, size=2).write(0, x)
        return ta.write(1, x[:1]).stack()

    with pytest.raises(TypeError, match="dtype int32 cannot write a value of dtype float32"):
        wrong_dtype(np.ones(2, np.float32))
    with pytest.raises(ValueError, match=r"element shape \(2,\)"):
        wrong_shape(np.ones(2, np.float32))
    with pytest.raises(ValueError, match="element shape is unknown"):
        tj.TensorArray(np.float32, size=2).stack()


STACK_FOLLOW_UPS = {
    "scale": lambda s, x: s * 2 + 1,
    "abs": lambda s, x: np.abs(s),
    "square": lambda s, x: s * s,
    "sum": lambda s, x: np.sum(s),
    "sum_axis0": lambda s, x: np.sum(s, axis=0),
    "row_broadcast": lambda s, x: s - x,
}


@pytest.mark.parametrize("name", sorted(STACK_FOLLOW_UPS))
@pytest.mark.parametrize("n", [0, 1, 5])
def test_numpy_on_a_dynamic_stack(name, n):
    """The stack of a growing array has a row count only the kernel knows; element-wise
    ops, broadcasts against it and reductions of it still compile."""
    follow_up = STACK_FOLLOW_UPS[name]

    @tj.function
    def f(count, x):
        ta = tj.TensorArray(tj.float32, size=0, dynamic_size=True, element_shape=(2,))
        for i in tj.range(count):
            ta = ta.write(i, (x * i).astype(np.float32))
        return follow_up(ta.stack(), x)

    check(f, np.int32(n), np.array([1.5, -2.0], np.float32))


def test_two_different_dynamic_stacks_do_not_broadcast_silently():
    @tj.function
    def f(count):
        a = tj.TensorArray(tj.int32, size=0, dynamic_size=True)
        b = tj.TensorArray(tj.int32, size=0, dynamic_size=True)
        for i in tj.range(count):
            a = a.write(i, i)
            b = b.write(i, i * 2)
        return a.stack() + b.stack()

    with pytest.raises(NotImplementedError, match="cannot follow"):
        f(np.int32(3))
