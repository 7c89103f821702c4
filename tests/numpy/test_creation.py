"""Array creation inside traced functions, compiled vs eager NumPy: Python-argument
creators become constants, `*_like` on tensors, `np.full` with a symbolic fill value,
and the clear error for `np.arange` of a symbolic bound."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

DTYPES = [
    np.bool_,
    np.int8,
    np.int32,
    np.int64,
    np.uint8,
    np.uint32,
    np.float32,
    np.float64,
]


def test_python_argument_creators_become_constants(check_against_eager):
    @tj.function
    def creators(x):
        return {
            "zeros": np.zeros((2, 3)) + x,
            "ones_int": np.ones(3, np.int32) * x.astype(np.int32),
            "full": np.full((3,), 7, dtype=np.uint8) + x.astype(np.uint8),
            "empty_shape": np.zeros_like(np.empty((2, 2), np.int8)) + 1,
            "arange": np.arange(3) * x,
            "arange_float": np.arange(0.5, 2.0, 0.5, dtype=np.float32) + x,
            "linspace": np.linspace(-1, 1, 3) * x,
            "eye": np.eye(3, 4, k=1) * x[0],
            "identity": np.identity(3, dtype=np.int64),  # returned as is
            "tri": np.tri(3, 3, -1, dtype=bool),
            "python_zeros": np.zeros(2),
        }

    check_against_eager(creators, np.array([1.5, -2.0, 3.0]))


@st.composite
def like_cases(draw):
    """0-d results are left out: tracejit returns them as NumPy scalars (DESIGN.md), while
    `np.zeros_like` of a 0-d array is a 0-d array."""
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3))
    target = draw(st.sampled_from(DTYPES))
    new_shape = draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=3))
    return draw(hnp.arrays(dtype, shape)), target, new_shape


@tj.function
def likes(x, target, new_shape):
    return {
        "zeros": np.zeros_like(x),
        "ones": np.ones_like(x),
        "full": np.full_like(x, 2.75),  # cast unsafely, as NumPy
        "zeros_dtype": np.zeros_like(x, dtype=target),
        "ones_shape": np.ones_like(x, shape=new_shape),
        "full_both": np.full_like(x, -1, dtype=target, shape=new_shape)
        if np.dtype(target).kind != "u"
        else np.full_like(x, 3, dtype=target, shape=new_shape),
        "empty_meta": np.zeros_like(np.empty_like(x, dtype=target, shape=new_shape)),
    }


@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")
@settings(max_examples=15, deadline=None)
@given(case=like_cases())
def test_like_functions_match_numpy(check_against_eager, case):
    x, target, new_shape = case
    check_against_eager(likes, x, target, new_shape)


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_])
def test_empty_like_has_numpy_shape_and_dtype(dtype):
    x = np.ones((2, 3), dtype)
    for kwargs in ({}, {"dtype": np.int64}, {"shape": (4,)}):
        compiled = tj.function(lambda x, kwargs=kwargs: np.empty_like(x, **kwargs))(x)
        expected = np.empty_like(x, **kwargs)
        assert compiled.shape == expected.shape and compiled.dtype == expected.dtype


def test_symbolic_fill_values(check_against_eager):
    @tj.function
    def fills(x, row):
        peak = np.max(x)
        return {
            "full_like": np.full_like(x, peak + 0.5),
            "full_like_dtype": np.full_like(x, row[0], dtype=np.float32, shape=(1, 2)),
            "broadcast_row": np.broadcast_to(row, (2, 3)),  # instead of np.full((2, 3), row)
        }

    check_against_eager(fills, np.array([[1.25, -3.0], [9.75, 0.5]]), np.array([1, 2, 3], np.int32))


def test_full_and_arange_with_symbolic_arguments():
    """tracejit does not patch numpy.full / numpy.arange (they never dispatch to tensors):
    a traced fill value is a clear TypeError. AutoGraph hands `np.arange` of a run-time
    integer to tracejit, which counts to it; a run-time float bound is refused, naming the
    user's line."""
    with pytest.raises(TypeError, match="cannot be converted to a NumPy array"):
        tj.function(lambda row: np.full((2, 3), row))(np.ones(3))
    count = tj.function(lambda x: np.arange(np.sum(x)))
    for n in (3, 0):
        x = np.ones(n, np.int64)
        np.testing.assert_array_equal(count(x), np.arange(np.sum(x)))
    with pytest.raises(NotImplementedError, match="integer bounds") as raised:
        count(np.ones(3))
    assert "test_creation.py" in str(raised.value)


def test_numpy_full_and_arange_are_unchanged_outside_traces():
    assert np.full((2,), 3).dtype == np.int64 and np.full((2,), 3).tolist() == [3, 3]
    assert np.full(3, np.array([1.5]), dtype=np.int8).tolist() == [1, 1, 1]
    assert np.arange(1, 7, 2, dtype=np.float32).tolist() == [1.0, 3.0, 5.0]
    assert np.arange(stop=3).tolist() == [0, 1, 2]
    assert np.full.__name__ == "full" and "fill_value" in np.full.__doc__


def test_large_splat_constants_stay_compact(check_against_eager):
    @tj.function
    def big(x):
        return np.zeros((1000, 1000)) + x, np.ones((1000, 1000), np.float32)

    x = np.float64(2.5)
    check_against_eager(big, x)
    concrete = big.get_concrete_function(x)
    # a splat is stored as one element, so neither the tj IR nor the LLVM IR grows with its
    # million elements (materialised, either would be megabytes of text)
    assert len(str(concrete.graph)) < 20_000
    assert len(concrete.llvm_ir) < 500_000


@settings(max_examples=25, deadline=None)
@given(
    start=st.sampled_from([-2.5, 0.0, 1.0, 3.0]),
    stop=st.sampled_from([-1.0, 0.0, 1.0, 1e-300, 7.0]),
    num=st.sampled_from([0, 1, 2, 5, 9]),
    endpoint=st.booleans(),
    dtype=st.sampled_from([None, np.float32, np.int32]),
    ends=st.sampled_from([np.float64, np.float32]),
)
def test_linspace_between_traced_scalars(start, stop, num, endpoint, dtype, ends):
    """NumPy scalar arguments are traced 0-d arrays: np.linspace is staged on them."""

    @tj.function
    def spaced(lo, hi):
        return np.linspace(lo, hi, num, endpoint=endpoint, retstep=True, dtype=dtype)

    lo, hi = ends(start), ends(stop)
    with np.errstate(all="ignore"):
        compiled = spaced(lo, hi)
        for expected in (
            np.linspace(lo, hi, num, endpoint=endpoint, retstep=True, dtype=dtype),
            run_eagerly(spaced, lo, hi),
        ):
            assert_same(compiled[0], expected[0], rtol=0)
            assert np.asarray(compiled[1]).dtype == np.asarray(expected[1]).dtype
            np.testing.assert_array_equal(compiled[1], expected[1])  # the step: NaN for 0, 1


def test_linspace_of_a_traced_num_is_refused():
    @tj.function
    def spaced(n):
        return np.linspace(0.0, 1.0, n)

    with pytest.raises(TypeError, match="`num` must be a Python int"):
        spaced(np.int64(4))
