"""NumPy operations whose result size depends on the data: np.nonzero and its family,
boolean-mask indexing, np.unique. The kernel counts, allocates and returns these results;
every test compares the compiled call with the eager NumPy one, for every dtype, with
values rich in zeros (and NaN, -0.0, inf for floats), size-0/1 and 0-d inputs.

Compiling costs a fraction of a second per trace, so most tests trace once per dtype and
rank with unknown (None) dims and let hypothesis vary the sizes and values of the calls.
"""

from __future__ import annotations

import functools
import os
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64]  # fmt: skip
# The whole-family trace compiles one large kernel per dtype (~5 s at O3): the quick suite
# takes one dtype of each width and kind, TRACEJIT_SLOW=1 all twelve.
EVERY_DTYPE = DTYPES if os.environ.get("TRACEJIT_SLOW") == "1" else [
    np.bool_, np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float64]  # fmt: skip
FEW = settings(max_examples=8, deadline=None)


def interesting(dtype) -> list:
    """Values of `dtype` worth selecting: zeros (also -0.0), extremes, NaN, infinities."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return [False, True]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [0, 1, 7, int(info.max), int(info.min)]
    return [0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf]


def arrays(dtype, shape) -> st.SearchStrategy:
    """Arrays of `interesting` values, zeros twice as likely: selections of every size."""
    values = interesting(dtype)
    return hnp.arrays(dtype, shape, elements=st.sampled_from([values[0], *values]))


def all_interesting(dtype) -> np.ndarray:
    values = np.array(interesting(dtype), dtype)
    return np.concatenate([values, values[::-1]]).reshape(2, -1)


SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4)


def check(function, *args):
    """Compiled == eager (NumPy's warnings about empty means silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eager = run_eagerly(function, *args)
        compiled = function(*args)
    assert_same(compiled, eager)
    return compiled


@functools.cache
def traced(fn, *specs):
    """One tj.function per function and (shape, dtype) specs: None dims serve every size."""
    return tj.function(fn, input_signature=[tj.TensorSpec(s, d) for s, d in specs])


# ---------------------------------------------------------------------------------------------
# 1. np.nonzero, np.argwhere, np.flatnonzero, np.where(c), t.nonzero(), np.count_nonzero,
#    and masks of the whole array, their selections flowing into further ops


def nonzero_family(x):
    return (
        np.nonzero(x),
        np.argwhere(x),
        np.flatnonzero(x),
        np.where(x),
        x.nonzero(),
        np.count_nonzero(x),
        np.count_nonzero(x, axis=0, keepdims=True),
    )


def selections(x):
    """A mask of x's shape, and its selections flowing into further ops."""
    m = x > 0
    picked = x[m]
    return (
        picked,
        x[x != 0],
        np.sum(picked),
        picked * 2,
        np.mean(picked),
        picked + x[m],  # two selections with one mask
        np.flatnonzero(m) + 1,
        picked[::-1],
        np.argwhere(m)[:, 0] if x.ndim else np.argwhere(m),
    )


def everything(x):
    return (nonzero_family(x) if x.ndim else ()), selections(x)


@pytest.mark.parametrize("dtype", EVERY_DTYPE)
@FEW
@given(data=st.data())
@example(data=None)
def test_every_dtype(dtype, data):
    """One trace per dtype, with two unknown dims: many sizes and values per trace."""
    if data is None:  # every element selected, none, no element at all, every kind of value
        values = [np.ones((2, 3), dtype), np.zeros((3, 2), dtype), np.zeros((0, 4), dtype)]
        values.append(all_interesting(dtype))
    else:
        shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=4))
        values = [data.draw(arrays(dtype, shape))]
    f = traced(everything, ((None, None), dtype))
    for x in values:
        results = check(f, x)
        assert all(i.dtype == np.intp for i in results[0][0])  # NumPy's index type
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("dtype", [np.bool_, np.float32])
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_every_rank_with_static_shapes(dtype, data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    check(tj.function(everything), data.draw(arrays(dtype, shape)))


def zero_d_family(x):
    return np.argwhere(x), np.flatnonzero(x), np.count_nonzero(x), x[x != 0]


def method_nonzero(x):
    return x.nonzero()


@pytest.mark.parametrize("value", [0, 3, np.nan, -0.0, True, False])
def test_zero_d_inputs_follow_numpy_2(value):
    x = np.array(value)
    check(tj.function(zero_d_family), x)
    for call in (np.nonzero, np.where, method_nonzero):
        with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
            call(x)  # NumPy
        with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
            tj.function(call)(x)


def test_results_are_writable_arrays_of_their_own():
    f = tj.function(lambda x: (np.flatnonzero(x), x[x > 1], np.argwhere(x)))
    for x in (np.array([0.0, 2.0, 3.0]), np.zeros(3)):
        for result in f(x):
            assert isinstance(result, np.ndarray) and result.flags.c_contiguous
            result[...] = 0  # writable
    first, second = f(np.array([5.0])), f(np.array([5.0]))
    assert not np.shares_memory(first[1], second[1])  # each call its own buffers
    first[1][0] = 1.0
    assert second[1][0] == 5.0


# ---------------------------------------------------------------------------------------------
# 2. masks among other indices


ROW_KEYS = {
    "rows": lambda x, m, k: x[m],
    "rows_then_column": lambda x, m, k: x[m][:, 1:],
    "columns": lambda x, m, k: x[:, k],
    "columns_ellipsis": lambda x, m, k: x[..., k],
    "rows_and_an_int": lambda x, m, k: x[m, -1],
    "an_int_and_columns": lambda x, m, k: x[0, k],
    "rows_and_a_slice": lambda x, m, k: x[m, ::2],
    "new_axis_first": lambda x, m, k: x[None, m],
    "new_axis_between": lambda x, m, k: x[m, None, 1],
    "rows_sum_axis0": lambda x, m, k: np.sum(x[m], axis=0),
    "rows_max_axis1": lambda x, m, k: np.max(x[m], axis=1),
    "rows_times_a_row": lambda x, m, k: x[m] * x[0],
    "rows_matmul": lambda x, m, k: x[m] @ np.ones((x.shape[1], 2), x.dtype),
    "constant_mask": lambda x, m, k: x[np.array([True, False, True, True])],
    "mask_as_list": lambda x, m, k: x[:, [True, False, True]],
    "zero_d_mask": lambda x, m, k: x[np.sum(m) > 1],
    "zero_d_mask_ellipsis": lambda x, m, k: x[..., np.any(k)],
}


@pytest.mark.parametrize(
    ("name", "dtype"), [(name, DTYPES[i % len(DTYPES)]) for i, name in enumerate(ROW_KEYS)]
)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_masks_among_other_indices(name, dtype, data):
    """x of shape (4, 3); m selects rows, k columns (NumPy's placement of the selected dim
    with ints, `...` and new axes)."""
    x = data.draw(arrays(dtype, (4, 3)))
    m = data.draw(arrays(np.bool_, (4,)))
    k = data.draw(arrays(np.bool_, (3,)))
    check(traced(ROW_KEYS[name], ((4, 3), dtype), ((4,), np.bool_), ((3,), np.bool_)), x, m, k)


def test_ints_and_mask_apart_put_the_selection_first():
    x = np.arange(2 * 3 * 4.0).reshape(2, 3, 4)
    f = tj.function(lambda x, k: (x[0, :, k], x[:, 0, ..., k], x[:, 0, k]))
    k = np.array([True, False, True, True])
    assert [r.shape for r in f(x, k)] == [(3, 3), (3, 2), (2, 3)]
    check(f, x, k)


def select_rows(x, m, full):
    return x[m], x[full], x[m, 1:], np.sum(x[m], axis=0)


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_])
@FEW
@given(rows=st.integers(0, 5), data=st.data())
def test_masks_on_unknown_dims(dtype, rows, data):
    cols = 3
    x = data.draw(arrays(dtype, (rows, cols)))
    m = data.draw(arrays(np.bool_, (rows,)))
    full = data.draw(arrays(np.bool_, (rows, cols)))

    f = traced(select_rows, ((None, cols), dtype), ((None,), np.bool_), ((None, cols), np.bool_))
    check(f, x, m, full)
    assert f.experimental_get_tracing_count() == 1


def positions_as_indices(x):
    i = np.flatnonzero(x > 0)
    return x[i], np.take(x, i, axis=0), x[i + 1]  # the last one may be out of bounds


@FEW
@given(x=arrays(np.int32, st.integers(0, 6)))
@example(x=np.array([0, 5, 0], np.int32))
@example(x=np.array([0, 0, 5], np.int32))
def test_index_arrays_whose_size_depends_on_the_data(x):
    f = traced(positions_as_indices, ((None,), np.int32))
    try:
        run_eagerly(f, x)
    except IndexError:
        with pytest.raises(IndexError, match="out of bounds"):
            f(x)
    else:
        check(f, x)


def coordinates_as_indices(x, threshold):
    """Several index arrays of a counted size into an array of known shape: the coordinates
    np.nonzero gives, read and written (NumPy's `N[np.where(c)]`, `N[i, j] = v`)."""
    i, j = np.nonzero(x > threshold)
    picked = x[i, j]
    scaled = x[np.where(x > threshold)] * 2
    flipped = x[-1 - i, j]  # negative indices
    near = x[i, np.minimum(j + 1, x.shape[1] - 1)]
    y = x.copy()
    y[i, j] = 0  # one value into the counted positions
    y[j % 3, i] = picked * 3  # as many values as positions
    z = x.copy()
    z[np.nonzero(x <= threshold)] += 1
    row = x[1, np.flatnonzero(x[0] > threshold)]  # an int with a counted index array
    return picked, scaled, flipped, near, y, z, row


COORDINATES_AS_INDICES = tj.function(coordinates_as_indices)


@FEW
@given(dtype=st.sampled_from([np.int32, np.float64]), data=st.data())
def test_several_index_arrays_whose_size_depends_on_the_data(dtype, data):
    x = data.draw(arrays(dtype, (3, 4)))
    threshold = np.asarray(data.draw(st.sampled_from(interesting(dtype))), dtype)
    check(COORDINATES_AS_INDICES, x, threshold)  # one trace per dtype serves every value


def test_several_index_arrays_out_of_bounds_raise_like_numpy():
    f = tj.function(lambda x: x[np.flatnonzero(x[0] > 0) + 2, np.flatnonzero(x[0] > 0)])
    x = np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
    with pytest.raises(IndexError):
        x[np.flatnonzero(x[0] > 0) + 2, np.flatnonzero(x[0] > 0)]
    with pytest.raises(IndexError, match="out of bounds"):
        f(x)


def test_a_mask_of_the_wrong_size_raises_like_numpy():
    x = np.zeros((3, 4))
    for key in (np.array([True, False]), (slice(None), np.ones(3, bool))):
        with pytest.raises(IndexError, match="boolean index did not match"):
            x[key]
        with pytest.raises(IndexError, match="boolean index did not match") as info:
            tj.function(lambda x, key=key: x[key])(x)
        assert "test_data_dependent_shapes.py:" in str(info.value)
    f = tj.function(
        lambda x, m: x[m],
        input_signature=[tj.TensorSpec([None], np.float64), tj.TensorSpec([None], np.bool_)],
    )
    with pytest.raises(tj.errors.InvalidArgumentError):
        f(np.zeros(3), np.ones(2, bool))
    np.testing.assert_array_equal(f(np.arange(3.0), np.array([True, False, True])), [0.0, 2.0])


@pytest.mark.parametrize(
    "body",
    [
        lambda x: x[x > 0, np.array([0, 1])],
        lambda x: x[x[:, 0] > 0, x[0] > 0],
        lambda x: x[x[:, 0] > 0, True],
    ],
)
def test_a_mask_with_index_arrays_or_another_mask_is_refused(body):
    with pytest.raises(NotImplementedError, match="index in two steps") as info:
        tj.function(body)(np.ones((3, 3)))
    assert "test_data_dependent_shapes.py:" in str(info.value)


# ---------------------------------------------------------------------------------------------
# 3. where sizes that depend on the data meet


def two_masks(x):
    return x[x > 0] + x[x < 0], np.stack([x[x > 0], x[x < 0]])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf + -inf
@FEW
@given(x=arrays(np.float64, st.integers(0, 6)))
@example(x=np.array([1.0, -1.0, 2.0, -2.0]))
def test_selections_of_different_masks_meet_when_their_sizes_do(x):
    f = traced(two_masks, ((None,), np.float64))
    positive, negative = int(np.sum(x > 0)), int(np.sum(x < 0))
    if positive == negative:
        check(f, x)
    else:
        with pytest.raises(ValueError):  # np.stack's shapes differ
            run_eagerly(f, x)
        with pytest.raises(ValueError, match="different masks have different lengths"):
            f(x)
    assert f.experimental_get_tracing_count() == 1


def sums_of_selections_in_a_loop(x):
    total = np.float64(0)
    for i in tj.range(3):
        total = total + np.sum(x[x > i] * 2)
    return total


def selections_chosen_by_an_if(x):
    m = x > 0
    if np.sum(x) > 0:  # noqa: SIM108  (a staged if is what is tested)
        y = x[m]
    else:
        y = x[m] * 2
    return y + x[m]  # both branches select with m: no check needed


@pytest.mark.parametrize("fn", [sums_of_selections_in_a_loop, selections_chosen_by_an_if])
def test_selections_in_staged_control_flow(fn):
    f = tj.function(fn)
    for x in (np.array([1.0, -2.0, 3.0]), np.array([-1.0, -2.0, 0.5]), np.zeros(3)):
        check(f, x)


def shrinks_in_a_loop(x):
    y = x[x > 0]
    for _ in tj.range(2):
        y = y[y > 1]
    return y


def two_masks_chosen_by_an_if(x):
    y = x[x > 0]
    if np.sum(x) > 3:
        y = x[x > 1]
    return y + x[x > 0]


def test_sizes_tracejit_cannot_follow_are_refused_at_trace_time():
    with pytest.raises(NotImplementedError, match="must keep its size across the iterations"):
        tj.function(shrinks_in_a_loop)(np.ones(3))
    with pytest.raises(NotImplementedError, match="one a staged `if` chose"):
        tj.function(two_masks_chosen_by_an_if)(np.ones(3))


def test_a_selection_never_meets_a_size_known_before_the_call():
    with pytest.raises(NotImplementedError, match="depends on the data"):
        tj.function(lambda x: x[x > 0] + np.ones(3))(np.ones(3))


@pytest.mark.parametrize("reduction", [np.max, np.min, np.argmax, np.argmin])
def test_reductions_without_identity_of_an_empty_selection_raise_like_numpy(reduction):
    f = tj.function(lambda x: reduction(x[x > 0]))
    assert_same(f(np.array([0.0, 2.0, 1.0])), reduction(np.array([2.0, 1.0])))
    with pytest.raises(ValueError) as expected:
        reduction(np.zeros(0))
    with pytest.raises(ValueError, match=str(expected.value)):
        f(np.array([0.0, -1.0]))
    assert f(np.array([3.0])) == reduction(np.array([3.0]))  # the kernel still works


def test_where_needs_both_or_neither_branch():
    with pytest.raises(ValueError, match="either both or neither"):
        tj.function(lambda x: np.where(x > 0, x))(np.ones(2))


def test_non_contiguous_inputs():
    x = np.arange(24.0).reshape(4, 6) - 10
    f = tj.function(lambda x: (x[x > 0], np.nonzero(x), np.flatnonzero(x)))
    for view in (x[:, ::2], x.T, x[::-1], np.asfortranarray(x)):
        check(f, view)


def test_the_traced_ir_has_a_result_sized_by_the_kernel():
    f = tj.function(lambda x: x[x > 0])
    text = str(f.get_concrete_function(np.zeros((2, 3), np.float32)).graph)
    assert "tj.nonzero %5 : tensor<6xi1> -> tensor<?x1xi64>" in text  # the flat mask's
    assert "tj.export" in text  # handed to the caller as a kernel-allocated array


# ---------------------------------------------------------------------------------------------
# 4. np.unique


def unique_all(x):
    return np.unique(x), np.unique(x, return_index=True, return_inverse=True, return_counts=True)


@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=5, deadline=None)
@given(data=st.data())
@example(data=None)
def test_unique_every_dtype(dtype, data):
    x = all_interesting(dtype) if data is None else data.draw(arrays(dtype, (2, 5)))
    if x.shape != (2, 5):  # every interesting value, twice, in a (2, 5) array
        x = np.resize(x, (2, 5))
    check(traced(unique_all, ((2, 5), dtype)), x)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (0, 3), (3, 1)])
def test_unique_of_size_0_1_and_0_d_inputs(shape):
    x = np.resize(np.array([2.0, np.nan, -0.0, 2.0]), shape)
    check(tj.function(unique_all), x)


def unique_of_a_selection(x):
    return np.unique(x[x > 0], return_index=True, return_counts=True)


@FEW
@given(x=arrays(np.float32, st.integers(0, 9)))
def test_unique_of_a_selection(x):
    f = traced(unique_of_a_selection, ((None,), np.float32))
    check(f, x)
    assert f.experimental_get_tracing_count() == 1


def test_unique_of_a_static_size_sorts_so_large_inputs_are_fine():
    x = np.random.default_rng(2).integers(0, 5000, 200_000)
    check(tj.function(unique_all), x)


def test_unique_of_a_run_time_size_refuses_what_would_take_minutes():
    f = traced(unique_of_a_selection, ((None,), np.float32))
    with pytest.raises(NotImplementedError, match="np.unique of more than 2048 elements"):
        f(np.ones(2049, np.float32))
    check(f, np.ones(2048, np.float32))


@pytest.mark.parametrize(
    "kwargs", [{"axis": 0}, {"equal_nan": False}], ids=["axis", "equal_nan"]
)
def test_unique_options_that_are_refused(kwargs):
    with pytest.raises(NotImplementedError, match="axis= or equal_nan=False"):
        tj.function(lambda x: np.unique(x, **kwargs))(np.zeros(3))
