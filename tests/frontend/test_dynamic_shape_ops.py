"""NumPy shape ops on dims unknown at trace time (None in an input_signature): transposes,
basic slicing, integer indexing, new axes, mean/var/std over an unknown dim, and their
results feeding further ops. Behaviour is NumPy's: every result is compared with the eager
run, and one kernel (one trace) serves every run-time size.

Each tj.function is defined once, at module level (or memoised), so that hypothesis draws
many sizes against one trace; the tests assert that the tracing count stays at 1."""

from __future__ import annotations

import functools
import re
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import answers_with_user_defaults

SIZES = st.integers(0, 9)
FEW = settings(max_examples=15, deadline=None)
SOME = settings(max_examples=20, deadline=None)
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]


def spec(*shape, dtype=np.float64):
    return tj.TensorSpec(list(shape), dtype)


def data(shape, dtype=np.float64, seed=0):
    """Random values of `dtype` (distinct enough that a wrong index or order shows)."""
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-1000, 1000, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def fill(shape, sizes):
    """A spec shape with its None entries replaced, in order, by `sizes`."""
    sizes = iter(sizes)
    return tuple(next(sizes) if d is None else d for d in shape)


def compiled(fn, *shapes, dtype=np.float64):
    """A tj.function with one spec per shape (None = unknown dim), all of `dtype`."""
    return tj.function(fn, input_signature=[spec(*s, dtype=dtype) for s in shapes])


def check_same_or_same_error(check, function, *args, **kwargs):
    """Compiled == eager; where NumPy raises IndexError, the compiled call must too."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.asarray(_run_eagerly(function, *args, **kwargs))
    except IndexError:
        with pytest.raises(IndexError):
            function(*args, **kwargs)
        return None
    return check_quietly(check, function, *args, **kwargs)


def check_quietly(check, function, *args, **kwargs):
    """check_against_eager with NumPy's warnings (mean of empty slice, ...) suppressed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return check(function, *args, **kwargs)


def _run_eagerly(function, *args, **kwargs):
    tj.config.run_functions_eagerly(True)
    try:
        return function(*args, **kwargs)
    finally:
        tj.config.run_functions_eagerly(False)


def expected_trace_shape(fn, shape):
    """The output shape NumPy implies at trace time: run `fn` on two different stand-in sizes
    for each unknown dim; output dims that differ between the two runs are unknown (None)."""
    unknown = [d for d in shape if d is None]
    first = fn(np.zeros(fill(shape, [11 + 6 * i for i in range(len(unknown))])))
    second = fn(np.zeros(fill(shape, [13 + 6 * i for i in range(len(unknown))])))
    return tuple(a if a == b else None for a, b in zip(first.shape, second.shape, strict=True))


# ---------------------------------------------------------------------------------------------
# 1. transposes

TRANSPOSE_CASES = {
    "T_n3": (lambda x: x.T, (None, 3)),
    "transpose_n3": (lambda x: np.transpose(x), (None, 3)),
    "swapaxes_n3": (lambda x: np.swapaxes(x, 0, 1), (None, 3)),
    "moveaxis_n3": (lambda x: np.moveaxis(x, 0, -1), (None, 3)),
    "x_at_xT_n3": (lambda x: x @ x.T, (None, 3)),
    "xT_at_x_n3": (lambda x: x.T @ x, (None, 3)),
    "T_nn": (lambda x: x.T, (None, None)),
    "swapaxes_nn": (lambda x: np.swapaxes(x, 1, 0), (None, None)),
    "x_at_xT_nn": (lambda x: x @ x.T, (None, None)),
    "xT_at_x_nn": (lambda x: x.T @ x, (None, None)),
    "T_2n4": (lambda x: x.T, (2, None, 4)),
    "transpose_120_2n4": (lambda x: np.transpose(x, (1, 2, 0)), (2, None, 4)),
    "transpose_neg_2n4": (lambda x: np.transpose(x, (-1, 0, -2)), (2, None, 4)),
    "swapaxes_01_2n4": (lambda x: np.swapaxes(x, 0, 1), (2, None, 4)),
    "swapaxes_12_2n4": (lambda x: x.swapaxes(1, 2), (2, None, 4)),
    "moveaxis_1_last_2n4": (lambda x: np.moveaxis(x, 1, -1), (2, None, 4)),
    "moveaxis_last_0_2n4": (lambda x: np.moveaxis(x, -1, 0), (2, None, 4)),
    "transpose_method_2n4": (lambda x: x.transpose(1, 0, 2) + 1.0, (2, None, 4)),
}
TRANSPOSE_FUNCTIONS = {name: compiled(fn, shape) for name, (fn, shape) in TRANSPOSE_CASES.items()}


@pytest.mark.parametrize("name", sorted(TRANSPOSE_CASES))
@FEW
@given(sizes=st.lists(SIZES, min_size=2, max_size=2), seed=st.integers(0, 2**16))
@example(sizes=[0, 0], seed=0)
@example(sizes=[1, 1], seed=0)
@example(sizes=[3, 5], seed=0)
def test_transposes_with_an_unknown_dim(check_against_eager, name, sizes, seed):
    f = TRANSPOSE_FUNCTIONS[name]
    shape = fill(TRANSPOSE_CASES[name][1], sizes)
    check_against_eager(f, data(shape, seed=seed), rtol=1e-12, atol=1e-12)
    assert f.experimental_get_tracing_count() == 1


# ---------------------------------------------------------------------------------------------
# 2. basic slicing

SLICE_CASES = {
    "from_1": (lambda x: x[1:], (None, 3)),
    "to_minus_1": (lambda x: x[:-1], (None, 3)),
    "step_2": (lambda x: x[::2], (None, 3)),
    "reversed": (lambda x: x[::-1], (None, 3)),
    "last_3": (lambda x: x[-3:], (None, 3)),
    "empty_2_1": (lambda x: x[2:1], (None, 3)),
    "beyond_the_end": (lambda x: x[7:100], (None, 3)),
    "stop_minus_4_step_minus_2": (lambda x: x[:-4:-2], (None, 3)),
    "static_axis_from_1": (lambda x: x[:, 1:], (None, 3)),
    "static_axis_reversed": (lambda x: x[:, ::-1], (None, 3)),
    "both_axes": (lambda x: x[1:, ::-2], (None, 3)),
    "slice_of_slice": (lambda x: x[1:][::2], (None, 3)),
    "reversed_then_from_1": (lambda x: x[::-1][1:], (None, 3)),
    "step_2_reversed_to_minus_1": (lambda x: x[::2][::-1][:-1], (None, 3)),
    "diff_by_slices": (lambda x: x[1:] - x[:-1], (None, 3)),
    "one_d_step_minus_3": (lambda x: x[::-3], (None,)),
    "middle_axis_of_3d": (lambda x: x[:, 1:, ::2], (2, None, 4)),
    "ellipsis_reversed": (lambda x: x[..., ::-1][:, ::-2], (2, None, 4)),
    "both_unknown": (lambda x: x[1:, :-1], (None, None)),
    "both_unknown_reversed": (lambda x: x[::-1, ::2], (None, None)),
    "slice_of_transpose": (lambda x: x.T[:, 1:], (None, 3)),
    "transpose_of_slice": (lambda x: x[::-2].T, (None, 3)),
    "matmul_of_two_strided_slices": (lambda x: x[::2].T @ x[::-2], (None, 3)),
}
SLICE_FUNCTIONS = {name: compiled(fn, shape) for name, (fn, shape) in SLICE_CASES.items()}


@pytest.mark.parametrize("name", sorted(SLICE_CASES))
@SOME
@given(sizes=st.lists(SIZES, min_size=2, max_size=2), seed=st.integers(0, 2**16))
@example(sizes=[0, 0], seed=0)
@example(sizes=[1, 1], seed=0)
@example(sizes=[2, 2], seed=0)
@example(sizes=[9, 4], seed=0)
def test_basic_slices_on_an_unknown_dim(check_against_eager, name, sizes, seed):
    f = SLICE_FUNCTIONS[name]
    shape = fill(SLICE_CASES[name][1], sizes)
    check_against_eager(f, data(shape, seed=seed), rtol=1e-12, atol=1e-12)
    assert f.experimental_get_tracing_count() == 1


@functools.cache
def slicer(start, stop, step):
    """x[start:stop:step] on a (None, 2) tensor; memoised so hypothesis's repeats share it."""
    return compiled(lambda x: x[start:stop:step], (None, 2))


BOUND = st.one_of(st.none(), st.integers(-12, 12))


@SOME
@given(start=BOUND, stop=BOUND, step=st.sampled_from([None, -3, -2, -1, 1, 2, 3]))
@example(start=None, stop=None, step=-1)
@example(start=-100, stop=100, step=2)
@example(start=5, stop=-5, step=-3)
@example(start=-1, stop=None, step=-1)
def test_any_static_slice_of_an_unknown_dim(check_against_eager, start, stop, step):
    f = slicer(start, stop, step)
    for n in (0, 1, 2, 3, 5, 9):
        check_against_eager(f, data((n, 2), seed=n))
    assert f.experimental_get_tracing_count() == 1


def test_np_diff_over_an_unknown_dim(check_against_eager):
    static = compiled(lambda x: np.diff(x, axis=0), (4, 3))
    try:
        static(data((4, 3)))
    except TypeError as error:
        if "not supported" in str(error):
            pytest.skip(f"np.diff is not supported by tracejit even on static shapes: {error}")
        raise
    f = compiled(lambda x: np.diff(x, axis=0), (None, 3))
    for n in (0, 1, 2, 5):
        check_against_eager(f, data((n, 3), seed=n))
    assert f.experimental_get_tracing_count() == 1


# ---------------------------------------------------------------------------------------------
# 3. integer indexing

INDEX_CASES = {
    "first": (lambda x: x[0], (None, 3)),
    "last": (lambda x: x[-1], (None, 3)),
    "third": (lambda x: x[2], (None, 3)),
    "minus_third": (lambda x: x[-3], (None, 3)),
    "first_row_from_1": (lambda x: x[0, 1:], (None, 3)),
    "last_row_reversed": (lambda x: x[-1, ::-1], (None, 3)),
    "static_column": (lambda x: x[:, 0], (None, 3)),
    "static_last_column": (lambda x: x[:, -1] * 2.0, (None, 3)),
    "scalar_element": (lambda x: x[1, 2], (None, None)),
    "unknown_column": (lambda x: x[:, 1], (None, None)),
    "middle_of_3d": (lambda x: x[1, -2], (2, None, 4)),
    "sliced_then_indexed": (lambda x: x[1:][0] + x[::-1][1], (None, 3)),
    "row_of_transpose": (lambda x: x.T[1], (None, 3)),
    "minus_first_row": (lambda x: x - x[0], (None, 3)),
    # out of range where the result has no elements: NumPy still raises IndexError
    "row_of_empty_rows": (lambda x: x[5], (None, 0)),
    "column_of_sliced_rows": (lambda x: x[1:, 0], (None, None)),
    "last_axis_of_3d": (lambda x: x[:, :, 1], (None, None, None)),
    "ellipsis_then_index": (lambda x: x[..., 1], (None, None)),
    "row_of_transpose_nn": (lambda x: x.T[0], (None, None)),
}
INDEX_FUNCTIONS = {name: compiled(fn, shape) for name, (fn, shape) in INDEX_CASES.items()}


@pytest.mark.parametrize("name", sorted(INDEX_CASES))
@FEW
@given(sizes=st.lists(SIZES, min_size=3, max_size=3), seed=st.integers(0, 2**16))
@example(sizes=[0, 0, 0], seed=0)
@example(sizes=[1, 1, 1], seed=0)
@example(sizes=[2, 2, 2], seed=0)
@example(sizes=[3, 3, 3], seed=0)
@example(sizes=[0, 1, 1], seed=0)
@example(sizes=[2, 0, 1], seed=0)
@example(sizes=[6, 0, 3], seed=0)
def test_integer_index_on_an_unknown_dim(check_against_eager, name, sizes, seed):
    """Out-of-range indices (e.g. x[2] of 2 rows) must raise IndexError at call time."""
    f = INDEX_FUNCTIONS[name]
    shape = fill(INDEX_CASES[name][1], sizes)
    check_same_or_same_error(check_against_eager, f, data(shape, seed=seed))
    assert f.experimental_get_tracing_count() == 1


def test_out_of_range_index_raises_at_call_time_and_the_kernel_still_works(check_against_eager):
    f = compiled(lambda x: x[5] + 1.0, (None, 3))
    check_against_eager(f, data((6, 3)))
    for n in (0, 3, 5):
        with pytest.raises(IndexError):
            f(data((n, 3)))
        with pytest.raises(IndexError):
            _run_eagerly(f, data((n, 3)))
    check_against_eager(f, data((9, 3), seed=1))
    g = compiled(lambda x: x[-4], (None, 3))
    with pytest.raises(IndexError):
        g(data((3, 3)))
    check_against_eager(g, data((4, 3)))
    assert f.experimental_get_tracing_count() == 1
    assert g.experimental_get_tracing_count() == 1


# ---------------------------------------------------------------------------------------------
# 4. new axes

NEWAXIS_CASES = {
    "none_in_middle": (lambda x: x[:, None], (None, 3)),
    "none_first": (lambda x: x[None], (None, 3)),
    "ellipsis_none": (lambda x: x[..., None], (None, 3)),
    "newaxis_and_slice": (lambda x: x[np.newaxis, ::-1, np.newaxis], (None, 3)),
    "expand_dims_0": (lambda x: np.expand_dims(x, 0), (None, 3)),
    "expand_dims_1": (lambda x: np.expand_dims(x, 1), (None, 3)),
    "expand_dims_minus_1": (lambda x: np.expand_dims(x, -1), (None, 3)),
    "squeeze_axis_1": (lambda x: np.squeeze(x, axis=1), (None, 1)),
    "squeeze_static_axes": (lambda x: np.squeeze(x, axis=(0, 2)), (1, None, 1)),
    "pairwise_differences": (lambda x: x[:, None, :] - x[None, :, :], (None, 3)),
    "outer_of_columns": (lambda x: x[:, :, None] * x[:, None, :], (None, 3)),
}
NEWAXIS_FUNCTIONS = {name: compiled(fn, shape) for name, (fn, shape) in NEWAXIS_CASES.items()}


@pytest.mark.parametrize("name", sorted(NEWAXIS_CASES))
@FEW
@given(n=SIZES, seed=st.integers(0, 2**16))
@example(n=0, seed=0)
@example(n=1, seed=0)
def test_new_axes_on_an_unknown_dim(check_against_eager, name, n, seed):
    f = NEWAXIS_FUNCTIONS[name]
    shape = fill(NEWAXIS_CASES[name][1], [n])
    check_against_eager(f, data(shape, seed=seed), rtol=1e-12, atol=1e-12)
    assert f.experimental_get_tracing_count() == 1


SQUEEZE_ALL = tj.function(lambda x: np.squeeze(x), input_signature=[spec(None, 1)])


def test_squeeze_without_axis_is_numpy_or_refused_at_trace_time(check_against_eager):
    """Which dims NumPy drops depends on the run-time size (n == 1 drops the unknown dim too),
    so one kernel may refuse at trace time; what it must not do is return another shape."""
    try:
        SQUEEZE_ALL.get_concrete_function()
    except NotImplementedError as error:
        assert "axis" in str(error)
        return
    for n in (0, 1, 2, 5):
        check_against_eager(SQUEEZE_ALL, data((n, 1), seed=n))
    assert SQUEEZE_ALL.experimental_get_tracing_count() == 1


BROADCAST_NEWAXIS = compiled(lambda x, y: x[..., None] * y, (None, 3), (4,))


@FEW
@given(n=SIZES, seed=st.integers(0, 2**16))
@example(n=0, seed=0)
@example(n=1, seed=0)
def test_new_axis_then_broadcast_against_a_static_tensor(check_against_eager, n, seed):
    check_against_eager(BROADCAST_NEWAXIS, data((n, 3), seed=seed), data((4,), seed=seed + 1))
    assert BROADCAST_NEWAXIS.experimental_get_tracing_count() == 1


# ---------------------------------------------------------------------------------------------
# 5. mean / var / std over the unknown dim

REDUCTIONS = {"mean": np.mean, "var": np.var, "std": np.std}
REDUCTION_AXES = {
    "axis0": {"axis": 0},
    "all": {"axis": None},
    "axis0_keepdims": {"axis": 0, "keepdims": True},
    "all_keepdims": {"axis": None, "keepdims": True},
}


def _reduction(op, kwargs, dtype):
    return compiled(lambda x: op(x, **kwargs), (None, 3), dtype=dtype)


REDUCTION_FUNCTIONS = {
    (op_name, axis_name): _reduction(op, kwargs, np.float64)
    for op_name, op in REDUCTIONS.items()
    for axis_name, kwargs in REDUCTION_AXES.items()
}


@pytest.mark.parametrize(("op_name", "axis_name"), sorted(REDUCTION_FUNCTIONS))
@FEW
@given(n=SIZES, seed=st.integers(0, 2**16))
@example(n=0, seed=0)
@example(n=1, seed=0)
def test_mean_var_std_over_an_unknown_dim(check_against_eager, op_name, axis_name, n, seed):
    """Size 0 gives NaN in NumPy (with a RuntimeWarning): the compiled kernel must agree."""
    f = REDUCTION_FUNCTIONS[op_name, axis_name]
    check_quietly(check_against_eager, f, data((n, 3), seed=seed), rtol=1e-10, atol=1e-12)
    assert f.experimental_get_tracing_count() == 1


OTHER_REDUCTIONS = {
    "var_ddof1": (lambda x: np.var(x, axis=0, ddof=1), np.float64, (None, 3)),
    "std_ddof1_all": (lambda x: np.std(x, ddof=1), np.float64, (None, 3)),
    "mean_method": (lambda x: x.mean(axis=0) + x.mean(), np.float64, (None, 3)),
    "centered": (lambda x: x - x.mean(axis=0, keepdims=True), np.float64, (None, 3)),
    "standardised": (lambda x: (x - np.mean(x, axis=0)) / np.std(x, axis=0), np.float64, (None, 3)),
    "mean_of_slice": (lambda x: np.mean(x[1:], axis=0), np.float64, (None, 3)),
    "mean_of_transpose": (lambda x: np.mean(x.T, axis=1), np.float64, (None, 3)),
    "mean_float32": (lambda x: np.mean(x, axis=0), np.float32, (None, 3)),
    "std_float32_all": (lambda x: np.std(x), np.float32, (None, 3)),
    "mean_int32": (lambda x: np.mean(x, axis=0), np.int32, (None, 3)),
    "var_int64": (lambda x: np.var(x, axis=0), np.int64, (None, 3)),
    "mean_bool": (lambda x: np.mean(x, axis=0), np.bool_, (None, 3)),
    "mean_unknown_axis_1": (lambda x: np.mean(x, axis=1), np.float64, (None, None)),
    "var_both_unknown_axes": (lambda x: np.var(x, axis=(0, 1)), np.float64, (None, None)),
    "std_middle_axis_keepdims": (
        lambda x: np.std(x, axis=1, keepdims=True),
        np.float64,
        (2, None, 4),
    ),
}
OTHER_REDUCTION_FUNCTIONS = {
    name: compiled(fn, shape, dtype=dtype) for name, (fn, dtype, shape) in OTHER_REDUCTIONS.items()
}


@pytest.mark.parametrize("name", sorted(OTHER_REDUCTIONS))
@FEW
@given(n=SIZES, seed=st.integers(0, 2**16))
@example(n=0, seed=0)
@example(n=1, seed=0)
@example(n=2, seed=0)
def test_more_mean_var_std_over_an_unknown_dim(check_against_eager, name, n, seed):
    f = OTHER_REDUCTION_FUNCTIONS[name]
    _, dtype, shape = OTHER_REDUCTIONS[name]
    rtol = 1e-5 if dtype == np.float32 else 1e-10
    x = data(fill(shape, [n, (n + 3) % 10]), dtype, seed)
    check_quietly(check_against_eager, f, x, rtol=rtol, atol=rtol)
    assert f.experimental_get_tracing_count() == 1


# ---------------------------------------------------------------------------------------------
# 6. results feeding further ops

SLICE_PLUS_STATIC = compiled(lambda x, y: x[1:] * y + x[:-1], (None, 3), (3,))
CAPTURED_ROW = data((3,), seed=99)
SLICE_PLUS_CAPTURED = compiled(lambda x: x[::-1] - CAPTURED_ROW, (None, 3))
SLICES_OF_TWO = compiled(lambda x, y: x[1:] + y, (None, 3), (None, 3))
STEPPED_OF_TWO = compiled(lambda x, y: x[::2] * y[::-1], (None, 3), (None, 3))


@FEW
@given(n=SIZES, seed=st.integers(0, 2**16))
@example(n=0, seed=0)
@example(n=1, seed=0)
def test_sliced_dynamic_tensor_broadcasts_with_static_ones(check_against_eager, n, seed):
    x = data((n, 3), seed=seed)
    check_against_eager(SLICE_PLUS_STATIC, x, data((3,), seed=seed + 1))
    check_against_eager(SLICE_PLUS_CAPTURED, x)
    assert SLICE_PLUS_STATIC.experimental_get_tracing_count() == 1
    assert SLICE_PLUS_CAPTURED.experimental_get_tracing_count() == 1


LEADING_ROW = compiled(lambda x: x - x[0][None], (None, 3))


ONE_ROW_FORMS = {
    "x - x[:1]": compiled(lambda x: x - x[:1], (None, 3)),
    "x[-1:] * x": compiled(lambda x: x[-1:] * x, (None, 3)),
    "x[::-1][:1] + x": compiled(lambda x: x[::-1][:1] + x, (None, 3)),
    "x[1:] - x[:1]": compiled(lambda x: x[1:] - x[:1], (None, 3)),
    "np.where": compiled(lambda x, y: np.where(y > 0, x[2:3], y), (None, 3), (None, 3)),
    "columns": compiled(lambda x: x[:, -1:] / (1 + x * x), (3, None)),
}


@pytest.mark.parametrize("form", ONE_ROW_FORMS)
@FEW
@given(n=SIZES, seed=st.integers(0, 2**16))
@example(n=0, seed=0)
@example(n=1, seed=0)
def test_a_slice_of_at_most_one_row_broadcasts_as_in_numpy(check_against_eager, form, n, seed):
    """x[:1] has min(1, n) rows, which NumPy broadcasts where it is 1; where it is empty it
    meets n rows, also 0 (one_element_broadcast.py). One trace serves every n."""
    f = ONE_ROW_FORMS[form]
    shape = (3, n) if form == "columns" else (n, 3)
    args = [data(shape, seed=seed) for _ in f.input_signature]
    if form == "np.where" and n < 3:  # x[2:3] is empty and meets n rows: NumPy raises
        return
    check_against_eager(f, *args)
    assert f.experimental_get_tracing_count() == 1


def test_an_empty_one_element_slice_meeting_a_size_raises_numpys_error(check_against_eager):
    """Where `x[3:4]` is empty and meets more than one row NumPy raises, and so does the
    kernel; where it meets one row NumPy's result is empty, and the kernel raises too (a
    documented refusal: the row count it meets is not 0). With the defaults users get."""
    f = compiled(lambda x: x + x[3:4], (None, 3))
    check_against_eager(f, data((5, 3)))
    for n in (2, 1):
        x = data((n, 3))
        if n == 2:
            with pytest.raises(ValueError, match="could not be broadcast"):
                x + x[3:4]
        else:
            assert (x + x[3:4]).shape == (0, 3)
        with pytest.raises(ValueError, match=re.escape("a slice like x[:1]")):
            f(x)


def rows_less_the_first_over_the_last(x):
    return (x - x[:1]) / x[-1:]


def test_a_slice_of_at_most_one_row_with_tiered_defaults():
    make = functools.partial(tj.function, input_signature=[spec(None, 4)])
    for n in (0, 1, 6):
        x = data((n, 4), seed=n) + 3.0
        for answer in answers_with_user_defaults(rows_less_the_first_over_the_last, x, make=make):
            np.testing.assert_allclose(answer, (x - x[:1]) / x[-1:], rtol=1e-12)


def test_other_uses_of_a_one_element_slice_still_refuse():
    """A matrix product contracting a one-element slice against a dim unknown at trace
    time is not an element-wise broadcast: refused, naming the form that works."""
    f = compiled(lambda x, w: x[:, :1] @ w, (4, None), (None, 2))
    with pytest.raises(NotImplementedError, match=re.escape("x[0][None]")):
        f(data((4, 3)), data((3, 2)))


@FEW
@given(n=st.integers(1, 9), seed=st.integers(0, 2**16))
def test_the_suggested_row_broadcast_matches_numpy(check_against_eager, n, seed):
    check_against_eager(LEADING_ROW, data((n, 3), seed=seed))
    assert LEADING_ROW.experimental_get_tracing_count() == 1


@SOME
@given(n=SIZES, m=SIZES, seed=st.integers(0, 2**16))
@example(n=4, m=3, seed=0)
@example(n=1, m=0, seed=0)
@example(n=0, m=0, seed=0)
@example(n=5, m=5, seed=0)
@example(n=0, m=3, seed=0)
def test_slices_of_two_inputs_must_agree_at_run_time(check_against_eager, n, m, seed):
    """Sizes where NumPy broadcasts a 1 are left out: unknown dims are not broadcast (they
    must be equal where they meet), so only sizes where NumPy also fails are errors here."""
    x, y = data((n, 3), seed=seed), data((m, 3), seed=seed + 1)
    if m == max(n - 1, 0):
        check_against_eager(SLICES_OF_TWO, x, y)
    elif m != 1 and n - 1 != 1:
        with pytest.raises(tj.errors.InvalidArgumentError):
            SLICES_OF_TWO(x, y)
    if (n + 1) // 2 == m:
        check_against_eager(STEPPED_OF_TWO, x, y)
    elif m != 1 and (n + 1) // 2 != 1:
        with pytest.raises(tj.errors.InvalidArgumentError):
            STEPPED_OF_TWO(x, y)
    assert SLICES_OF_TWO.experimental_get_tracing_count() == 1
    assert STEPPED_OF_TWO.experimental_get_tracing_count() == 1


EVEN_PLUS_ODD_ROWS = compiled(lambda x: x[::2] + x[1::2], (None, 3))
GRAM_OF_SHIFTED = compiled(lambda x: x.T @ x[1:], (None, 3))


@FEW
@given(n=SIZES, seed=st.integers(0, 2**16))
@example(n=4, seed=0)
@example(n=5, seed=0)
@example(n=0, seed=0)
@example(n=7, seed=0)
def test_slices_of_one_input_that_disagree_at_run_time(check_against_eager, n, seed):
    """x[::2] and x[1::2] have equal sizes only for even n; x.T @ x[1:] contracts n with n - 1.
    Where NumPy raises (sizes unequal and neither 1), the compiled call raises too."""
    x = data((n, 3), seed=seed)
    if n % 2 == 0:
        check_against_eager(EVEN_PLUS_ODD_ROWS, x)
    elif n >= 5:
        with pytest.raises(tj.errors.InvalidArgumentError):
            EVEN_PLUS_ODD_ROWS(x)
    if n == 0:
        check_against_eager(GRAM_OF_SHIFTED, x)
    else:
        with pytest.raises(ValueError):  # InvalidArgumentError, or refused while tracing
            GRAM_OF_SHIFTED(x)
    assert EVEN_PLUS_ODD_ROWS.experimental_get_tracing_count() == 1


# ---------------------------------------------------------------------------------------------
# 7. dtypes


def _transposes(x):
    return x.T, np.swapaxes(x, 0, 1), np.moveaxis(x, 1, 0)[::-1], x[:, None].transpose(2, 1, 0, 3)


def _slices(x):
    return x[1:], x[::-1], x[:, ::2], x[-2:, 1:][::-1], x[0], x[:, -1], x[None, 1:]


DTYPE_FUNCTIONS = {
    (kind, np.dtype(dtype).name): compiled(fn, shape, dtype=dtype)
    for dtype in DTYPES
    for kind, fn, shape in (
        ("transposes", _transposes, (2, None, 4)),
        ("slices", _slices, (None, 3)),
    )
}


@pytest.mark.parametrize(("kind", "dtype"), sorted(DTYPE_FUNCTIONS))
def test_transposes_and_slices_keep_every_dtype(check_against_eager, kind, dtype):
    f = DTYPE_FUNCTIONS[kind, dtype]
    static_shape = (2, None, 4) if kind == "transposes" else (None, 3)
    for n in (1, 2, 5, 9):
        check_against_eager(f, data(fill(static_shape, [n]), np.dtype(dtype).type, seed=n))
    assert f.experimental_get_tracing_count() == 1


# ---------------------------------------------------------------------------------------------
# 8. non-contiguous and Fortran-ordered inputs

LAYOUT_FUNCTIONS = {
    "T": TRANSPOSE_FUNCTIONS["T_n3"],
    "x_at_xT": TRANSPOSE_FUNCTIONS["x_at_xT_n3"],
    "from_1": SLICE_FUNCTIONS["from_1"],
    "reversed": SLICE_FUNCTIONS["reversed"],
    "static_axis_reversed": SLICE_FUNCTIONS["static_axis_reversed"],
    "diff_by_slices": SLICE_FUNCTIONS["diff_by_slices"],
    "static_column": INDEX_FUNCTIONS["static_column"],
    "none_in_middle": NEWAXIS_FUNCTIONS["none_in_middle"],
    "mean_axis0": REDUCTION_FUNCTIONS["mean", "axis0"],
}
LAYOUTS = {
    "every_other_row": lambda a: a[::2],
    "reversed_rows": lambda a: a[::-1],
    "every_other_column": lambda a: np.repeat(a, 2, axis=1)[:, ::2],
    "fortran": np.asfortranarray,
    "transposed_view": lambda a: np.ascontiguousarray(a.T).T,
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", sorted(LAYOUT_FUNCTIONS))
def test_non_contiguous_and_fortran_inputs(check_against_eager, name, layout):
    f = LAYOUT_FUNCTIONS[name]
    for n in (0, 1, 4, 7):
        base = data((2 * n if layout == "every_other_row" else n, 3), seed=n)
        x = LAYOUTS[layout](base)
        assert x.shape == (n, 3)
        check_against_eager(f, x, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(x, LAYOUTS[layout](base))  # the input is not written
    assert f.experimental_get_tracing_count() == 1


def test_non_contiguous_inputs_do_take_the_strided_path():
    """The layouts above really are not C-contiguous (else the test above proves nothing)."""
    a = data((8, 3))
    for layout, make in LAYOUTS.items():
        if layout != "reversed_rows":  # negative strides; NumPy still calls it non-contiguous
            assert not make(a).flags.c_contiguous, layout
    assert not LAYOUTS["reversed_rows"](a).flags.c_contiguous


# ---------------------------------------------------------------------------------------------
# results are new arrays

VIEWS = compiled(
    lambda x: (x, x.T, x[1:], x[::-1], x[:, None], x[0], np.swapaxes(x, 0, 1)), (None, 3)
)


def test_transposes_and_slices_return_arrays_that_own_their_memory(check_against_eager):
    """NumPy would return views; tracejit returns new arrays (DESIGN §2), never sharing memory
    with the input or with each other, so writing into one result changes nothing else."""
    x = data((4, 3))
    results = check_against_eager(VIEWS, x)
    for i, r in enumerate(results):
        assert r.flags.owndata and r.flags.writeable, i
        assert not np.shares_memory(r, x), i
        for j, other in enumerate(results[i + 1 :], i + 1):
            assert not np.shares_memory(r, other), (i, j)
    before = x.copy()
    for r in results:
        r[...] = 0
    np.testing.assert_array_equal(x, before)
    check_against_eager(VIEWS, x)  # the next call is not affected either


# ---------------------------------------------------------------------------------------------
# trace-time shapes: static dims stay static, unknown ones stay unknown

TRACE_SHAPE_CASES = {
    **{f"transpose:{k}": (v[0], v[1], TRANSPOSE_FUNCTIONS[k]) for k, v in TRANSPOSE_CASES.items()},
    **{f"index:{k}": (v[0], v[1], INDEX_FUNCTIONS[k]) for k, v in INDEX_CASES.items()},
    **{f"newaxis:{k}": (v[0], v[1], NEWAXIS_FUNCTIONS[k]) for k, v in NEWAXIS_CASES.items()},
    **{
        f"slice:{k}": (SLICE_CASES[k][0], SLICE_CASES[k][1], SLICE_FUNCTIONS[k])
        for k in (
            "from_1",
            "to_minus_1",
            "step_2",
            "reversed",
            "static_axis_from_1",
            "static_axis_reversed",
            "both_axes",
            "slice_of_slice",
            "diff_by_slices",
            "middle_axis_of_3d",
            "both_unknown",
        )
    },
    **{
        f"reduce:{op}:{axis}": (
            functools.partial(REDUCTIONS[op], **REDUCTION_AXES[axis]),
            (None, 3),
            REDUCTION_FUNCTIONS[op, axis],
        )
        for op, axis in REDUCTION_FUNCTIONS
    },
}


@pytest.mark.parametrize("name", sorted(TRACE_SHAPE_CASES))
def test_traced_output_shape(name):
    fn, shape, f = TRACE_SHAPE_CASES[name]
    outputs = f.get_concrete_function().structured_outputs
    assert tuple(outputs.shape) == expected_trace_shape(fn, shape)
    assert f.experimental_get_tracing_count() == 1


def test_shapes_seen_while_tracing():
    seen = {}

    @tj.function(input_signature=[spec(None, 3)])
    def f(x):
        seen["x"] = x.shape
        seen["T"] = x.T.shape
        seen["[:, 1:]"] = x[:, 1:].shape
        seen["[0]"] = x[0].shape
        seen["[:, None]"] = x[:, None].shape
        return x.T

    f.get_concrete_function()
    # a dim known only at run time is a run-time size (a 0-d int64 tensor) to the user's code
    # (frontend/staging/runtime_sizes.py); None marks it here
    for shape in seen.values():
        assert all(isinstance(d, int) or (d.shape == () and d.dtype == np.int64) for d in shape)
    static = {k: tuple(None if isinstance(d, tj.Tensor) else d for d in v) for k, v in seen.items()}
    assert static["x"] == (None, 3)
    assert static["T"] == expected_trace_shape(lambda a: a.T, (None, 3))
    assert static["[:, 1:]"] == expected_trace_shape(lambda a: a[:, 1:], (None, 3))
    assert static["[0]"] == expected_trace_shape(lambda a: a[0], (None, 3))
    assert static["[:, None]"] == expected_trace_shape(lambda a: a[:, None], (None, 3))


# --- reshapes with a -1 for the unknown size, index arrays, np.take --------------------
RESHAPE_CASES = {
    "ravel": (lambda x: x.ravel(), (None, 3)),
    "reshape_minus_one": (lambda x: x.reshape(-1) * 2, (None, 3)),
    "flatten_3d": (lambda x: x.reshape(-1), (None, 2, None)),
    "rows_of_two": (lambda x: x.reshape(-1, 2), (None, 2, None)),
    "two_rows": (lambda x: x.reshape(2, -1), (None, 2, None)),
    "flatten_then_slice": (lambda x: x.reshape(-1)[1:][::2], (None, 3)),
    "flatten_transpose": (lambda x: x.T.ravel(), (None, 3)),
    "unit_dims": (lambda x: x.reshape(-1, 1, 3), (None, 3)),
}
RESHAPE_FUNCTIONS = {name: compiled(fn, shape) for name, (fn, shape) in RESHAPE_CASES.items()}


@pytest.mark.parametrize("name", sorted(RESHAPE_CASES))
@FEW
@given(sizes=st.lists(SIZES, min_size=2, max_size=2), seed=st.integers(0, 2**16))
@example(sizes=[0, 3], seed=0)
@example(sizes=[3, 0], seed=0)
def test_reshape_with_minus_one_for_unknown_dims(check_against_eager, name, sizes, seed):
    function = RESHAPE_FUNCTIONS[name]
    check_against_eager(function, data(fill(RESHAPE_CASES[name][1], sizes), seed=seed))
    assert function.experimental_get_tracing_count() == 1


@pytest.mark.parametrize(
    "fn",
    [lambda x: x.reshape(3, 2), lambda x: x.reshape(-1, 2), lambda x: x.reshape(-1, -1)],
)
def test_reshapes_the_kernel_cannot_size_are_refused_at_trace_time(fn):
    """No -1, a -1 whose size would need a run-time divisibility check ((n*3)/2), or two."""
    with pytest.raises(NotImplementedError, match="np.reshape"):
        compiled(fn, (None, 3))(data((2, 3)))


INDEX_ARRAY_CASES = {
    "rows": lambda x: x[[0, -1, 0]],
    "columns": lambda x: x[:, [2, 0]],
    "columns_2d": lambda x: x[:, np.array([[2, 0], [1, 1]])],
    "take_columns": lambda x: np.take(x, [1, 2], axis=1),
    "take_rows": lambda x: np.take(x, [0, 0], axis=0),
    "new_axis_and_rows": lambda x: x[None, [0], :],
    "sliced_rows": lambda x: x[1:, [1]],
}
INDEX_ARRAY_FUNCTIONS = {name: compiled(fn, (None, 3)) for name, fn in INDEX_ARRAY_CASES.items()}


@pytest.mark.parametrize("name", sorted(INDEX_ARRAY_CASES))
@FEW
@given(n=SIZES, seed=st.integers(0, 2**16))
@example(n=0, seed=0)
@example(n=1, seed=0)
def test_one_index_array_on_an_unknown_dim(check_against_eager, name, n, seed):
    """Row indices are checked when the kernel runs (IndexError where NumPy raises)."""
    check_same_or_same_error(
        check_against_eager, INDEX_ARRAY_FUNCTIONS[name], data((n, 3), seed=seed)
    )


# --- staged control flow on unknown dims ------------------------------------------------
def _doubled_if_positive(x):
    if np.sum(x) > 0:
        x = x * 2
    return x + 1


def _either_slice(x):  # an if statement (AutoGraph stages it), not a ternary
    if np.sum(x) > 0:  # noqa: SIM108
        y = x[1:]
    else:
        y = x[::-1]
    return y * 2, y.sum(axis=0)


def _loop_reading_rows(x):
    total = np.zeros(3)
    for i in tj.range(3):
        total = total + x[i % 2]
    return total


CONTROL_FLOW_FUNCTIONS = {
    f.__name__: compiled(f, (None, 3)) for f in (_doubled_if_positive, _either_slice)
}


@pytest.mark.parametrize("name", sorted(CONTROL_FLOW_FUNCTIONS))
@FEW
@given(n=SIZES, seed=st.integers(0, 2**16))
@example(n=0, seed=0)
def test_staged_if_with_results_of_unknown_size(check_against_eager, name, n, seed):
    """Branch results of different run-time sizes (x[1:] or x[::-1]) come out right."""
    check_against_eager(CONTROL_FLOW_FUNCTIONS[name], data((n, 3), seed=seed))


def test_a_loop_reads_rows_with_a_run_time_index(check_against_eager):
    function = compiled(_loop_reading_rows, (None, 3))
    for n in (2, 5):
        check_against_eager(function, data((n, 3), seed=n))
    with pytest.raises(IndexError):
        function(data((1, 3)))


def test_a_loop_may_not_change_the_size_of_an_unknown_dim():
    def shrink(x):
        for _ in tj.range(2):
            x = x[1:]
        return x

    with pytest.raises(NotImplementedError, match="must keep its size"):
        compiled(shrink, (None, 3))(data((4, 3)))


def test_a_slice_of_at_most_one_row_meets_a_static_one_like_numpy(check_against_eager):
    """x[:1] against a static size 1 needs no broadcast of an unknown dim: it is allowed."""
    function = compiled(lambda x: x[:1] + np.ones((1, 3)), (None, 3))
    for n in (0, 1, 3):
        check_against_eager(function, data((n, 3), seed=n))


# --- joining along an unknown dim ---------------------------------------------------------
JOIN_CASES = {
    "concatenate": lambda x, y: np.concatenate([x, y]),
    "three_parts": lambda x, y: np.concatenate([x, y[1:], x * 2]),
    "with_a_static_part": lambda x, y: np.vstack([x, np.ones((2, 3)), y]),
    "then_reduce": lambda x, y: np.concatenate([x, y]).sum(axis=0),
    "ints": lambda x, y: np.concatenate([x.astype(np.int32), y.astype(np.int32)]),
    "bools": lambda x, y: np.concatenate([x > 0, y > 0]),
    "hstack_columns": lambda x, y: np.hstack([x[:, 0], y[:, 1]]),
}
JOIN_FUNCTIONS = {name: compiled(fn, (None, 3), (None, 3)) for name, fn in JOIN_CASES.items()}


@pytest.mark.parametrize("name", sorted(JOIN_CASES))
@FEW
@given(n=SIZES, m=SIZES, seed=st.integers(0, 2**16))
@example(n=0, m=0, seed=0)
@example(n=0, m=2, seed=0)
@example(n=2, m=0, seed=0)
def test_concatenate_along_unknown_dims(check_against_eager, name, n, m, seed):
    """Empty inputs too: an input of run-time size 0 is never read."""
    x, y = data((n, 3), seed=seed), data((m, 3), seed=seed + 1)
    check_against_eager(JOIN_FUNCTIONS[name], x, y)
    assert JOIN_FUNCTIONS[name].experimental_get_tracing_count() == 1


def test_stacking_flattened_inputs_checks_their_sizes_at_run_time(check_against_eager):
    """Joined dims derived from two inputs (products here) must agree when called."""
    function = compiled(lambda x, y: np.stack([x.ravel(), y.ravel()]), (None, 3), (None, 3))
    for n in (0, 2):
        check_against_eager(function, data((n, 3), seed=n), data((n, 3), seed=n + 1))
    with pytest.raises(tj.errors.InvalidArgumentError):
        function(data((2, 3)), data((3, 3)))


def wave_steps(u0, u1, c, steps):
    for _ in range(steps):
        u0, u1 = u1, 2 * u1 - u0 + c * (np.roll(u1, 1) - 2 * u1 + np.roll(u1, -1))
    return u0, u1


def accumulated(a, b, k):
    for i in range(k):
        a = b + a
        a = np.where(b < 2, i, a)
    return a


def test_loop_variables_swapping_inputs_of_dims_checked_equal(check_against_eager):
    """`a = b + a` in a staged loop, `a` and `b` inputs with unknown dims: the result has
    b's dim, which the call checks equal to a's before the kernel runs, so the loop keeps
    its sizes (was refused: 'a shape of other sizes after its body')."""
    rows = spec(None)
    steps = tj.function(wave_steps, input_signature=[rows, rows, spec(), spec(dtype=np.int64)])
    add = tj.function(accumulated, input_signature=[rows, rows, spec(dtype=np.int64)])
    for n in (0, 1, 5):
        u = data((n,), seed=n)
        check_against_eager(steps, u, u * 0.5, np.float64(0.1), np.int64(4))
        check_against_eager(add, u, np.arange(float(n)), np.int64(3))
    assert steps.experimental_get_tracing_count() == 1
    assert add.experimental_get_tracing_count() == 1
    with pytest.raises(tj.errors.InvalidArgumentError):
        add(data((3,)), data((2,)), np.int64(1))


def interior_plus_zeros(x):
    return np.zeros(x.shape[0] - 2) + x[1:-1]


def flat_times_ones(x):
    return np.ones(x.shape[0] * 3) * x.reshape(-1)


def joined_less_zeros(x, y):
    return np.zeros(x.shape[0] + y.shape[0]) - np.concatenate([x, y])


def test_run_time_sizes_meet_slices_products_and_sums_of_unknown_dims(check_against_eager):
    """`np.zeros(n - 2) + x[1:-1]` (a resnet block's `input[:, 2:-2]` meeting a computed
    size): the kernel checks the two sizes equal, computing the slice's, the product's or
    the sum's size from the inputs' (was refused: 'a tensor of a size only the kernel knows
    is broadcast here')."""
    interior = compiled(interior_plus_zeros, (None,))
    flat = compiled(flat_times_ones, (None, 3))
    joined = compiled(joined_less_zeros, (None,), (None,))
    for n in (2, 3, 7):
        x = data((n,), seed=n)
        check_against_eager(interior, x)
        check_against_eager(flat, data((n, 3), seed=n))
        check_against_eager(joined, x, x[:2])
    for f in (interior, flat, joined):
        assert f.experimental_get_tracing_count() == 1


def rows_copied_then_set(c, d):
    for i in range(d.shape[0]):
        d[i] = c[i]
    for i in range(d.shape[0]):
        d[i] = d[i] * 2.0
    return d


def test_rows_written_into_an_array_an_earlier_loop_carried(check_against_eager):
    """`d[i] = c[i]` where a staged loop carries `d` with sizes it measures: the row sizes
    are checked equal when the kernel runs (was refused: 'broadcasting a dim whose size
    tracejit cannot follow')."""
    copied = compiled(rows_copied_then_set, (None, None), (None, None))
    for n, m in ((1, 3), (3, 2), (30, 4)):
        check_against_eager(copied, data((n, m), seed=n), data((n, m), seed=m))
    assert copied.experimental_get_tracing_count() == 1
    with pytest.raises((ValueError, tj.errors.InvalidArgumentError)):  # rows of 3 into 2
        copied(data((3, 3)), data((3, 2)))


def thomas_solve(a, b, c, d):
    """Tridiagonal systems along axis 0 (one per column), by the Thomas algorithm."""
    n = d.shape[0]
    cp, dp, x = np.zeros_like(d), np.zeros_like(d), np.zeros_like(d)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def test_a_loop_traced_once_to_find_its_placeholders_keeps_its_arrays_dims(check_against_eager):
    """A loop with a variable first assigned in its body and read later (`i`, `m`) is traced
    once to give that variable a placeholder; that trial lost the dims of the arrays it
    carried (`cp`), and `a[i] * cp[i - 1]` was refused: 'broadcasting a dim whose size
    tracejit cannot follow' (a Thomas solver with every dim unknown)."""
    solve = compiled(thomas_solve, *[(None, None)] * 4)
    for n, m in ((2, 1), (5, 3), (40, 7)):
        a, c, d = (data((n, m), seed=n + k) for k in range(3))
        check_against_eager(solve, a, 4.0 + np.abs(data((n, m), seed=m)), c, d)
    assert solve.experimental_get_tracing_count() == 1


def recurrent_cell(xs, c, w):
    """An LSTM-style state update: the state's width is one of its own unknown dims."""
    width = c.shape[1]
    for t in range(xs.shape[0]):
        z = xs[t] @ w
        c = np.tanh(z[:, :width]) * c + z[:, width:]
    return c


def narrowing(c, k):
    for _ in range(c.shape[0]):
        c = c[:, :k] + 1.0
    return c


def test_a_loop_variables_size_from_a_slice_of_its_own_width_is_checked_at_run_time(
    check_against_eager,
):
    """`c = f(z[:, :H]) * c + z[:, H:]` with `H = c.shape[1]`: a slice's length tracejit
    cannot prove equal to c's unknown width (was refused at trace time: 'loop variable 'c'
    has shape (None, None) before a staged loop and a shape of other sizes after'); the
    kernel checks it after each trip instead, and raises where it changes."""
    cell = compiled(recurrent_cell, (None, None, None), (None, None), (None, None))
    for steps, batch, inputs, width in ((3, 2, 3, 5), (1, 1, 1, 1), (0, 2, 2, 3), (4, 3, 2, 0)):
        xs, c = data((steps, batch, inputs), seed=steps), data((batch, width), seed=width)
        check_against_eager(cell, xs, c, data((inputs, 2 * width), seed=inputs))
    assert cell.experimental_get_tracing_count() == 1
    narrowed = tj.function(
        narrowing, input_signature=[spec(None, None), tj.TensorSpec([], tj.int64)]
    )
    check_against_eager(narrowed, data((2, 3)), np.int64(3))  # kept: agrees
    with pytest.raises(NotImplementedError, match="'c' changed its size along axis 1"):
        narrowed(data((2, 3)), np.int64(2))  # NumPy narrows it; tracejit refuses, never wrong
