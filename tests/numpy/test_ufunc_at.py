"""`ufunc.at` (tj.scatter_combine): unbuffered in-place updates where repeated indices
combine every update, compiled vs eager vs NumPy, and the run-time index checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

# (ufunc, dtypes it is tested on)
UFUNCS = [
    (np.add, [np.float64, np.float32, np.int32, np.int64, np.uint8, np.bool_]),
    (np.subtract, [np.float64, np.int16, np.uint32]),
    (np.multiply, [np.float32, np.int64, np.bool_]),
    (np.maximum, [np.float64, np.int8, np.uint16, np.bool_]),
    (np.minimum, [np.float32, np.int64]),
    (np.fmax, [np.float64]),
    (np.fmin, [np.float32]),
    (np.true_divide, [np.float64]),
    (np.floor_divide, [np.int32, np.float64]),
    (np.remainder, [np.int64]),
    (np.bitwise_xor, [np.int32, np.bool_]),
    (np.bitwise_or, [np.uint8]),
    (np.logical_and, [np.bool_]),
]
CASES = [(u, d) for u, dtypes in UFUNCS for d in dtypes]


def values(dtype, shape):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        elements = st.floats(-100, 100, width=dtype.itemsize * 8) | st.just(np.nan)
    elif dtype.kind == "b":
        elements = st.booleans()
    else:
        info = np.iinfo(dtype)
        elements = st.integers(max(info.min, -100), min(info.max, 100))
    return hnp.arrays(dtype, shape, elements=elements)


def scatter_at(ufunc):
    def update(a, idx, v):
        a = a.copy()
        ufunc.at(a, idx, v)
        return a

    return update


def three_ways(function, *args):
    """The compiled result, checked against eager tracejit and NumPy itself."""
    compiled = tj.function(function)(*args)
    with np.errstate(all="ignore"):
        eager = run_eagerly(tj.function(function), *args)
        plain = function(*args)
    assert_same(compiled, eager, rtol=1e-6)
    assert_same(compiled, plain, rtol=1e-6)
    return compiled


@pytest.mark.parametrize("ufunc, dtype", CASES, ids=lambda c: getattr(c, "__name__", str(c)))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_repeated_and_negative_indices_combine_every_update(ufunc, dtype, data):
    n = data.draw(st.integers(1, 6))
    a = data.draw(values(dtype, n))
    idx = data.draw(
        hnp.arrays(np.int64, data.draw(st.integers(0, 10)), elements=st.integers(-n, n - 1))
    )
    v = data.draw(values(dtype, idx.shape))
    if ufunc in (np.floor_divide, np.remainder) and np.dtype(dtype).kind in "iu":
        v = np.where(v == 0, 1, v).astype(dtype)  # x // 0 is undefined in C
    three_ways(scatter_at(ufunc), a, idx, v)


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_add_at_a_2d_array_with_index_tuples_slices_and_broadcast_values(data):
    shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=4))
    a = data.draw(values(np.float64, shape))
    rows = data.draw(hnp.arrays(np.intp, 5, elements=st.integers(-shape[0], shape[0] - 1)))
    cols = data.draw(hnp.arrays(np.intp, 5, elements=st.integers(-shape[1], shape[1] - 1)))

    def by_pairs(a, rows, cols):
        a = a.copy()
        np.add.at(a, (rows, cols), 1.5)
        return a

    def by_rows(a, rows):
        a = a.copy()
        np.multiply.at(a, rows, np.arange(a.shape[1]) - 1.0)  # one row of values per index
        return a

    def by_slice(a):
        a = a.copy()
        np.maximum.at(a, (slice(None), 0), 2.0)
        return a

    three_ways(by_pairs, a, rows, cols)
    three_ways(by_rows, a, rows)
    three_ways(by_slice, a)


def test_computes_in_the_loops_dtype_and_truncates_after_every_step():
    # NumPy: int array + 1.5 twice at index 0 -> int(int(0 + 1.5) + 1.5) = 2
    three_ways(scatter_at(np.add), np.zeros(3, np.int64), np.array([0, 0, 1]), 1.5)
    three_ways(scatter_at(np.add), np.zeros(3, np.float32), np.array([0, 0]), np.float64(0.1))
    three_ways(scatter_at(np.add), np.zeros(3, np.int32), np.array([2, 2]), np.int64(2))


def test_updates_the_callers_array_and_returns_none():
    @tj.function
    def accumulate(a, idx, v):
        return np.add.at(a, idx, v)

    a, want = np.zeros(4), np.zeros(4)
    assert accumulate(a, np.array([1, 1, -1]), np.array([1.0, 2.0, 3.0])) is None
    np.add.at(want, np.array([1, 1, -1]), np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(a, want)


def test_a_non_contiguous_argument_and_a_view():
    base = np.arange(12.0)

    def on_view(a, idx):
        a = a.copy()
        np.add.at(a[1::2], idx, 1.0)  # writes through the view into a
        return a

    three_ways(on_view, base, np.array([0, 0, 5, -1]))
    three_ways(scatter_at(np.add), base[::3], np.array([0, 0, 3]), np.ones(3))


def test_run_time_length_indices_into_a_1d_array():
    @tj.function(input_signature=[tj.TensorSpec([5]), tj.TensorSpec([None], np.int64)])
    def counts(a, idx):
        a = a.copy()
        np.add.at(a, idx, 1.0)
        return a

    for idx in (np.array([], np.int64), np.array([0, 4, 4, -5, 2])):
        want = np.zeros(5, np.float32)
        np.add.at(want, idx, 1.0)
        np.testing.assert_array_equal(counts(np.zeros(5, np.float32), idx), want)


@pytest.mark.parametrize("bad", [[5], [-6], [0, 1, 7]])
def test_an_index_out_of_range_raises_index_error_at_the_users_line(bad):
    @tj.function
    def f(a, idx):
        a = a.copy()
        np.add.at(a, idx, 1.0)
        return a

    with pytest.raises(IndexError, match=r"np\.add\.at \(test_ufunc_at\.py:\d+\)"):
        f(np.zeros(5), np.array(bad))


def test_item_assignment_keeps_numpys_last_write_semantics():
    def item(a, idx):
        a = a.copy()
        a[idx] += 1.0  # NumPy: buffered, a repeated index is incremented once
        return a

    result = three_ways(item, np.zeros(3), np.array([0, 0, 2]))
    np.testing.assert_array_equal(result, [1.0, 0.0, 1.0])


# (unary ufunc, dtypes, values' range): where a float loop takes an integer array, values it
# cannot overflow or make NaN of (NumPy's cast of those back to an integer is undefined).
# Functions that are exact in IEEE arithmetic, or contract (tanh): applied again at a
# repeated index, exp or log would amplify their last-ulp differences from NumPy's libm.
UNARY = [
    (np.negative, [np.float64, np.int8, np.uint8, np.complex64], (-100, 100)),
    (np.positive, [np.int16, np.complex128], (-100, 100)),
    (np.absolute, [np.float32, np.int8, np.bool_], (-128, 127)),
    (np.fabs, [np.float16], (-100, 100)),
    (np.sign, [np.float64, np.int32], (-100, 100)),
    (np.conjugate, [np.complex64, np.int64], (-100, 100)),
    (np.square, [np.int8, np.float32, np.complex128, np.bool_], (-100, 100)),
    (np.reciprocal, [np.float64, np.complex64], (-100, 100)),
    (np.invert, [np.uint16, np.bool_], (-100, 100)),
    (np.sqrt, [np.float64, np.float16, np.uint8, np.complex128], (0, 100)),
    (np.tanh, [np.float64], (-100, 100)),
    (np.floor, [np.float32, np.int8], (-100, 100)),
    (np.rint, [np.float64], (-100, 100)),
]
UNARY_CASES = [(u, d, r) for u, dtypes, r in UNARY for d in dtypes]


def unary_at(ufunc):
    def update(a, idx):
        a = a.copy()
        ufunc.at(a, idx)
        return a

    return update


def _complex(real, imag, dtype):
    z = np.empty(real.shape, dtype)
    z.real, z.imag = real, imag  # no 1j * inf: its real part would be NaN
    return z


def unary_values(dtype, shape, bounds):
    dtype = np.dtype(dtype)
    low, high = bounds
    if dtype.kind == "c":
        part = np.dtype(f"f{dtype.itemsize // 2}")
        return unary_values(part, shape, bounds).map(lambda x: _complex(x, x[::-1] / 2, dtype))
    if dtype.kind == "f":
        elements = st.floats(low, high, width=dtype.itemsize * 8) | st.sampled_from(
            [np.nan, np.inf, -np.inf, -0.0]
        )
        return hnp.arrays(dtype, shape, elements=elements)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = max(info.min, low), min(info.max, high)
    return (
        values(dtype, shape)
        if dtype.kind == "b"
        else hnp.arrays(dtype, shape, elements=st.integers(low, high))
    )


@pytest.mark.parametrize(
    "ufunc, dtype, bounds", UNARY_CASES, ids=lambda c: getattr(c, "__name__", "")
)
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_unary_at_applies_the_function_again_for_each_repetition(ufunc, dtype, bounds, data):
    """NumPy's unbuffered loop: a[i] = f(a[i]) once per occurrence of i, in the loop's dtype
    (np.sqrt of uint8 in float16), cast back to a's after every step."""
    a = data.draw(unary_values(dtype, 5, bounds))
    idx = data.draw(hnp.arrays(np.int64, 8, elements=st.integers(-5, 4)))
    three_ways(unary_at(ufunc), a, idx)


def test_unary_at_on_edge_cases():
    negate = unary_at(np.negative)
    three_ways(negate, np.arange(4.0), np.array([], np.int64))  # no index
    three_ways(negate, np.zeros(0), np.array([], np.int64))  # an empty array
    three_ways(negate, np.array([1.0, np.nan, -0.0]), np.array([1, 2, 2, 2]))
    three_ways(negate, np.array(2.5), ())  # 0-d
    three_ways(unary_at(np.square), np.arange(6).reshape(2, 3), (np.array([0, 0, -1]), 1))
    three_ways(unary_at(np.square), np.array([3], np.int8), np.array([0, 0, 0]))  # wraps


@pytest.mark.parametrize("ufunc", [np.exp, np.log, np.arccos, np.sin, np.cbrt, np.expm1])
def test_unary_at_of_transcendental_functions_once_per_index(ufunc):
    a = np.array([0.5, -0.0, np.nan, np.inf, -2.0, 1e-5, 3.0], np.float32)
    three_ways(unary_at(ufunc), a, np.array([0, 1, 2, 3, 4, -1, -2]))
    three_ways(unary_at(ufunc), np.arange(5, dtype=np.int16), np.array([1, 2]))  # in float32


def test_unary_at_out_of_range_raises_index_error_when_the_function_runs():
    f = tj.function(unary_at(np.negative))
    np.testing.assert_array_equal(f(np.ones(3), np.array([2, -3])), [-1.0, 1.0, -1.0])
    for bad in ([3], [-4], [0, 1, 9]):
        with pytest.raises(IndexError, match=r"np\.negative\.at \(test_ufunc_at\.py:\d+\)"):
            f(np.ones(3), np.array(bad))


def test_unary_at_refuses_what_numpy_refuses_and_what_tracejit_does_not_compile():
    with pytest.raises(ValueError, match="second operand provided when ufunc is unary"):
        tj.function(lambda a: np.negative.at(a, [0], 1.0))(np.ones(3))
    with pytest.raises(ValueError, match="second operand needed for ufunc"):
        tj.function(lambda a: np.add.at(a, [0]))(np.ones(3))
    with pytest.raises(TypeError):  # NumPy: no negative of bools either
        np.negative.at(np.ones(3, bool), [0])
    with pytest.raises(TypeError):
        tj.function(unary_at(np.negative))(np.ones(3, bool), np.array([0]))
    # absolute of complex returns reals; NumPy casts them back, tracejit refuses by name
    with pytest.raises(NotImplementedError, match=r"np\.absolute\.at on complex128.*py_function"):
        tj.function(unary_at(np.absolute))(np.ones(3, complex), np.array([0]))
    with pytest.raises(NotImplementedError, match=r"np\.logical_not\.at"):
        tj.function(unary_at(np.logical_not))(np.ones(3), np.array([0]))


def test_unary_at_is_a_scatter_combine_with_a_unary_combiner():
    f = tj.function(unary_at(np.negative))
    concrete = f.get_concrete_function(np.zeros(4), np.zeros(3, np.int64))
    assert 'tj.scatter_combine "tj.neg"' in concrete.ir(after="canonicalize")


def test_the_scatter_is_one_loop_in_the_ir():
    f = tj.function(scatter_at(np.add))
    concrete = f.get_concrete_function(np.zeros(4), np.zeros(3, np.int64), np.ones(3))
    assert 'tj.scatter_combine "tj.add"' in concrete.ir(after="canonicalize")
