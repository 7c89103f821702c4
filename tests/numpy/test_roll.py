"""`np.roll`, compiled vs eager NumPy: Python shifts (ints, tuples broadcast against the
axes, repeated axes, shifts beyond the length) and traced 0-d integer shifts."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

pytestmark = pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # new shapes

DTYPES = [np.bool_, np.int8, np.uint16, np.int64, np.uint64, np.float16, np.float32]
shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)


@tj.function
def rolled(x, shift, axis):
    return np.roll(x, shift, axis)


def check(function, *args):
    compiled = function(*args)
    assert_same(compiled, run_eagerly(function, *args), rtol=0)


@st.composite
def shifts_and_axes(draw, ndim: int):
    """axis None with an int or a tuple shift; else an axis or a tuple of axes (repeats
    allowed) with one shift or one per axis."""
    shift = st.integers(-12, 12)
    if ndim == 0 or draw(st.booleans()):
        return draw(st.one_of(shift, st.tuples(shift, shift))), None
    axis = st.integers(-ndim, ndim - 1)
    axes = draw(st.one_of(axis, st.lists(axis, min_size=1, max_size=3).map(tuple)))
    count = len(axes) if isinstance(axes, tuple) else 1
    shifts = draw(st.one_of(shift, st.lists(shift, min_size=count, max_size=count).map(tuple)))
    return shifts, axes


@settings(max_examples=40, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(DTYPES), shape=shapes)
def test_roll_matches_numpy(data, dtype, shape):
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape).astype(dtype)
    shift, axis = data.draw(shifts_and_axes(len(shape)), label="shift, axis")
    check(rolled, x, shift, axis)


@tj.function
def traced_shifts(x, s, u, n):
    return {
        "flat": np.roll(x, s),
        "axis": np.roll(x, s, axis=1),
        "unsigned": np.roll(x, u, axis=0),
        "negative": np.roll(x, n, axis=-1),
        "mixed": np.roll(x, (s, 2, u), axis=(1, 1, 0)),
        "both_axes": np.roll(x, [n, s], axis=(0, 1)),
        "sum": np.roll(x, s + n),
    }


@pytest.mark.parametrize("s, u, n", [(0, 0, 0), (1, 7, -1), (23, 255, -128), (-5, 3, 127)])
def test_traced_shifts_are_gathers(s, u, n):
    x = np.arange(12.0).reshape(3, 4)
    args = (x, np.int32(s), np.uint8(u), np.int8(n))
    check(traced_shifts, *args)
    assert traced_shifts.experimental_get_tracing_count() == 1  # one kernel for all shifts


def test_huge_unsigned_traced_shift_does_not_wrap():
    f = tj.function(lambda x, s: np.roll(x, s))
    x = np.arange(7)
    for shift in (np.uint64(2**64 - 1), np.uint64(2**63 + 5), np.int64(-(2**63))):
        check(f, x, shift)


def test_python_float_shifts_truncate_like_numpy():
    x = np.arange(5, dtype=np.int16)
    check(rolled, x, 1.7, None)
    check(rolled, x, -2.5, 0)
    check(rolled, np.float32(3), 4, None)  # 0-d: rolled as one element
    check(rolled, np.zeros((0, 3)), 2, 0)


def test_errors():
    x = np.arange(6).reshape(2, 3)
    with pytest.raises(ValueError, match="shape mismatch"):
        rolled(x, (1, 2, 3), (0, 1))
    with pytest.raises(ValueError, match="should be scalars or 1D sequences"):
        rolled(x, ((1, 2),), 0)
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds"):
        rolled(x, 1, 2)
    f = tj.function(lambda x, s: np.roll(x, s))
    with pytest.raises(TypeError, match="a traced shift must be a 0-d integer tensor.*test_roll"):
        f(x, np.float32(1))
    with pytest.raises(TypeError, match="a traced shift must be a 0-d integer tensor"):
        f(x, np.array([1, 2]))


@settings(max_examples=10, deadline=None)
@given(data=st.data(), x=hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3,
                                                                min_side=0, max_side=5)))
def test_dims_unknown_at_trace_time(data, x):
    """An input signature of None dims: the kernel knows the lengths, each roll is a gather
    (also along a known dim, beside an unknown one); `axis=None` rolls the flattened array."""
    shift, axis = data.draw(shifts_and_axes(x.ndim))
    dims = data.draw(st.lists(st.booleans(), min_size=x.ndim, max_size=x.ndim))
    shape = [None if unknown else n for unknown, n in zip(dims, x.shape, strict=True)]
    spec = tj.TensorSpec(shape, np.int64)
    f = tj.function(lambda x: np.roll(x, shift, axis), input_signature=(spec,))
    check(f, x)
    scalar = tj.TensorSpec([], np.int64)
    g = tj.function(lambda x, s: np.roll(x, s, 0), input_signature=(spec, scalar))
    check(g, x, np.int64(data.draw(st.integers(-9, 9))))
