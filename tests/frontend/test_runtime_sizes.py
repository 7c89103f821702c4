"""Sizes known only at run time used as numbers (issue 35 points 2 and 6).

A dim unknown at trace time (a `TensorSpec([None])` input, the result of np.flatnonzero,
np.nonzero, a boolean mask) reads, in the user's code, as a run-time int64 tensor:
`idx.size`, `len(idx)`, `idx.shape[0]`, `np.size(idx)`, `np.shape(idx)[0]` work in
arithmetic, comparisons (a staged `if`), `range`/`tj.range` bounds, slice bounds, as array
sizes (`np.zeros(x.shape)`, `x.reshape(x.shape[0], -1)`) and as results
(frontend/staging/runtime_sizes.py). Every test compares the compiled call with the eager one and
with NumPy itself. `tj.range(1, None)` is Python's TypeError, at the user's line.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

FEW = settings(max_examples=15, deadline=None)
THIS_FILE = os.path.basename(__file__)


def vectors(dtype=np.float64, min_size=0, max_size=9):
    """1-d arrays of every small size, 0 and 1 included, with values on both sides of 0.2."""
    sizes = st.integers(min_size, max_size)
    elements = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, -1.0])
    return sizes.flatmap(lambda n: hnp.arrays(dtype, (n,), elements=elements))


def check(function, *args, numpy_result=None, atol=1e-12):
    """Compiled == eager, and == `numpy_result` when given (NumPy run by hand)."""
    compiled = function(*args)
    eager = run_eagerly(function, *args)
    # sums may be added in another order than NumPy's pairwise one: a cancellation to 0
    # (0.9 + 0.1 - 1.0) leaves a few ulps of the inputs, hence an absolute tolerance too
    assert_same(compiled, eager, atol=atol)
    if numpy_result is not None:
        assert_same(compiled, numpy_result, atol=atol)
    return compiled


# --- data-dependent sizes: flatnonzero, nonzero, masks -------------------------------------
# (one trace each, for every size of input: the input dim is unknown too)
VECTOR = [tj.TensorSpec([None], tj.float64)]


def _mean_over_selected(x):
    idx = np.flatnonzero(x < 0.2)
    return x.sum() / (idx.size + 1), x.sum() / (len(idx) + 1), x.sum() / (idx.shape[0] + 1)


mean_over_selected = tj.function(_mean_over_selected, input_signature=VECTOR)
mean_over_selected_f32 = tj.function(
    _mean_over_selected, input_signature=[tj.TensorSpec([None], tj.float32)]
)


@tj.function(input_signature=VECTOR)
def sizes_as_results(x):
    idx = np.flatnonzero(x < 0.2)
    rows = np.nonzero(x > 0.3)[0]
    picked = x[x > 0.3]
    return idx.size, len(rows), picked.shape[0], np.size(picked), np.shape(idx)[0]


@tj.function(input_signature=VECTOR)
def staged_if_on_size(x):
    idx = np.flatnonzero(x < 0.2)
    if idx.size > 0:  # noqa: SIM108 - an if statement, staged
        y = x[idx].sum() / idx.size
    else:
        y = x.sum() * 0.0 - 1.0
    return y


@tj.function(input_signature=VECTOR)
def loop_over_size(x):
    idx = np.flatnonzero(x < 0.2)
    total = 0.0
    for i in range(idx.size):
        total += x[idx[i]] * (i + 1)
    count = 0
    for _ in tj.range(len(idx)):
        count += 1
    return total, count


@tj.function(input_signature=VECTOR)
def slice_to_size(x):
    idx = np.flatnonzero(x < 0.2)
    return x[: idx.size], x[idx.size :]


@given(vectors())
@FEW
def test_data_dependent_size_in_arithmetic(x):
    n = np.flatnonzero(x < 0.2).size
    check(mean_over_selected, x, numpy_result=(x.sum() / (n + 1),) * 3)


@given(vectors(np.float32))
@FEW
def test_size_keeps_float32_like_a_python_int(x):
    # idx.size stands for a Python int (weakly typed): float32 / size stays float32
    result = check(mean_over_selected_f32, x, atol=1e-6)  # a few float32 ulps of 1
    assert all(r.dtype == np.float32 for r in result)


@given(vectors())
@FEW
def test_data_dependent_sizes_returned(x):
    expected = (
        np.flatnonzero(x < 0.2).size,
        len(np.nonzero(x > 0.3)[0]),
        x[x > 0.3].shape[0],
        np.size(x[x > 0.3]),
        np.shape(np.flatnonzero(x < 0.2))[0],
    )
    result = check(sizes_as_results, x, numpy_result=expected)
    assert all(isinstance(r, np.int64) for r in result)  # an int64 scalar, like tf.shape


@given(vectors())
@FEW
def test_staged_if_on_size(x):
    idx = np.flatnonzero(x < 0.2)
    expected = x[idx].sum() / idx.size if idx.size > 0 else -1.0
    check(staged_if_on_size, x, numpy_result=np.float64(expected))


@given(vectors())
@FEW
def test_range_over_size(x):
    idx = np.flatnonzero(x < 0.2)
    total = sum(x[j] * (i + 1) for i, j in enumerate(idx))
    compiled = check(loop_over_size, x)
    np.testing.assert_allclose(compiled[0], total)
    assert compiled[1] == idx.size


@given(vectors())
@FEW
def test_size_as_slice_bound(x):
    n = np.flatnonzero(x < 0.2).size
    check(slice_to_size, x, numpy_result=(x[:n], x[n:]))


def test_size_of_2d_mask_selection():
    @tj.function
    def f(x):
        rows, cols = np.nonzero(x > 0.5)
        return rows.size * 10 + cols.shape[0], np.argwhere(x > 0.5).shape[0] - len(rows)

    for x in (np.zeros((0, 3)), np.full((1, 1), 0.9), np.random.default_rng(0).random((4, 5))):
        n = np.count_nonzero(x > 0.5)
        check(f, x, numpy_result=(n * 11, 0))


# --- dims unknown because of the input_signature -----------------------------------------
@tj.function(input_signature=[tj.TensorSpec([None], tj.float64)])
def tj_range_from_one(x):
    s = np.zeros_like(x)
    for i in tj.range(1, x.shape[0]):
        s[i] = x[i] + x[i - 1]
    return s


@tj.function(input_signature=[tj.TensorSpec([None], tj.float64)])
def range_from_one(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += x[i] * i
    return total


@tj.function(input_signature=[tj.TensorSpec([None, 3], tj.float64)])
def signature_sizes(x):
    n = x.shape[0]
    return n, x.size, len(x), np.size(x, 0), x.sum() / (n + 1), n > 2


@tj.function(input_signature=[tj.TensorSpec([None, 3], tj.float64)])
def sizes_as_shapes(x):
    z = np.zeros(x.shape)
    o = np.ones((x.shape[0], 2), np.int32)
    return z + x, o, x.reshape(-1, x.shape[1]), np.reshape(x, x.shape)


@tj.function(input_signature=[tj.TensorSpec([None, 3], tj.float64)])
def reshape_rows_and_rest(x):
    return x.reshape(x.shape[0], -1), x.reshape(x.shape[0], 1, -1)


def arange_rows(n, cols=3):
    return np.arange(n * cols, dtype=np.float64).reshape(n, cols)


@given(st.integers(0, 9))
@FEW
def test_tj_range_from_one_over_unknown_dim(n):
    x = np.arange(1.0, n + 1)
    expected = np.zeros_like(x)
    expected[1:] = x[1:] + x[:-1]
    check(tj_range_from_one, x, numpy_result=expected)


def test_tj_range_from_one_issue_example():
    # issue 35 point 2: this gave [1, 0, 0, 0, 0, 0]
    assert_same(tj_range_from_one(np.arange(1.0, 7)), np.array([0, 3, 5, 7, 9, 11.0]))


@given(st.integers(0, 9))
@FEW
def test_range_from_one_over_unknown_dim(n):
    x = np.arange(1.0, n + 1)
    expected = sum(x[i] * i for i in range(1, n))
    check(range_from_one, x, numpy_result=np.float64(expected))


@given(st.integers(0, 7))
@FEW
def test_signature_dims_as_numbers(n):
    x = arange_rows(n)
    expected = (n, 3 * n, n, n, x.sum() / (n + 1), n > 2)
    result = check(signature_sizes, x, numpy_result=expected)
    assert isinstance(result[0], np.int64) and isinstance(result[-1], np.bool_)
    assert signature_sizes.experimental_get_tracing_count() == 1


@given(st.integers(0, 7))
@FEW
def test_signature_dims_as_sizes(n):
    x = arange_rows(n)
    expected = (x, np.ones((n, 2), np.int32), x, x)
    check(sizes_as_shapes, x, numpy_result=expected)


@given(st.integers(0, 5))
@FEW
def test_reshape_to_run_time_size_and_minus_one(n):
    x = arange_rows(n)
    if n == 0:  # NumPy cannot tell the -1 when another size is 0
        with pytest.raises(ValueError, match="cannot reshape array of size 0"):
            run_eagerly(reshape_rows_and_rest, x)
        with pytest.raises(ValueError, match="cannot reshape array of size 0"):
            reshape_rows_and_rest(x)
        return
    check(reshape_rows_and_rest, x, numpy_result=(x, x.reshape(n, 1, 3)))


@tj.function(input_signature=VECTOR)
def loops_over_unknown_rows(x):
    total = 0.0
    for v in x:  # a staged loop to the run-time x.shape[0]
        total += v
    weighted = 0.0
    for i, w in enumerate(x[x > 0.3]):
        weighted += w * i
    steps = 0
    for j in np.arange(x.shape[0]):
        steps += j
    inside = 0
    for _ in tj.range(2):
        inside += x.size
    return total, weighted, steps, inside


@given(vectors())
@FEW
def test_loops_over_rows_of_unknown_dims(x):
    picked = x[x > 0.3]
    expected = (
        float(sum(x.tolist())),  # the loop's order (NumPy's sum is pairwise: x may cancel out)
        sum(v * i for i, v in enumerate(picked)) if picked.size else 0.0,
        sum(range(x.size)),
        2 * x.size,
    )
    compiled = check(loops_over_unknown_rows, x)
    np.testing.assert_allclose(compiled[:2], expected[:2])
    assert compiled[2:] == expected[2:]


@tj.function(input_signature=VECTOR)
def made_from_sizes(x):
    idx = np.flatnonzero(x < 0.2)
    return (
        np.full(x.shape, 2.5),
        np.empty((x.shape[0], 1)).size,
        np.ones(idx.size, np.int8),
        np.broadcast_to(3.0, idx.shape),
        np.broadcast_to(x.sum(), (x.shape[0], 2)),
        np.zeros_like(x, shape=(2, x.shape[0])),
        np.arange(idx.size) * 2,
        np.arange(x.shape[0], dtype=np.float32),
    )


@given(vectors())
@FEW
def test_arrays_made_from_run_time_sizes(x):
    n, k = x.size, np.flatnonzero(x < 0.2).size
    expected = (
        np.full(n, 2.5),
        n,
        np.ones(k, np.int8),
        np.full(k, 3.0),
        np.full((n, 2), x.sum()),
        np.zeros((2, n)),
        np.arange(k) * 2,
        np.arange(n, dtype=np.float32),
    )
    check(made_from_sizes, x, numpy_result=expected)


@tj.function(input_signature=VECTOR)
def index_with_sizes(x):
    idx = np.flatnonzero(x < 0.2)
    return x[x.size - 1], x[len(x) // 2], x[: idx.size][::-1], int(idx.size) + 1, min(x.size, 3)


@given(vectors(min_size=1))
@FEW
def test_sizes_as_indices_and_in_builtins(x):
    k = np.flatnonzero(x < 0.2).size
    expected = (x[-1], x[len(x) // 2], x[:k][::-1], k + 1, min(x.size, 3))
    check(index_with_sizes, x, numpy_result=expected)


def test_sizes_without_autograph_are_run_time_values():
    @tj.function(input_signature=VECTOR, autograph=False)
    def f(x):
        idx = np.flatnonzero(x < 0.2)
        return x.shape[0] * 10 + idx.size

    for x in (np.zeros(0), np.array([0.5]), np.array([0.1, 0.5, 0.0])):
        check(f, x, numpy_result=x.size * 10 + np.flatnonzero(x < 0.2).size)


def test_sizes_seen_while_tracing_are_int64_tensors():
    seen = {}

    @tj.function(input_signature=[tj.TensorSpec([None, 3, None])])
    def f(x):
        seen["shape"], seen["size"], seen["np.shape"] = x.shape, x.size, np.shape(x)
        return x

    f.get_concrete_function()
    for shape in (seen["shape"], seen["np.shape"]):
        assert shape[1] == 3
        for d in (shape[0], shape[2]):
            assert isinstance(d, tj.Tensor) and d.shape == () and d.dtype == np.int64
    assert isinstance(seen["size"], tj.Tensor)


def test_concrete_function_outputs_keep_none():
    # outside a trace the shapes are the traced ones (None for the unknown dims)
    f = tj.function(lambda x: x * 2, input_signature=[tj.TensorSpec([None, 3])])
    assert f.get_concrete_function().structured_outputs.shape == (None, 3)


# --- errors -------------------------------------------------------------------------------
def _line_of(function, text):
    import inspect

    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_tj_range_of_none_is_a_type_error_at_the_users_line():
    def body(x):
        total = 0.0
        for i in tj.range(1, None):  # the limit
            total += x[i]
        return total

    f = tj.function(body)
    where = f"{THIS_FILE}:{_line_of(body, 'the limit')}"
    with pytest.raises(TypeError, match=re.escape(where)) as info:
        f(np.arange(3.0))
    assert "None" in str(info.value) and "x.shape" in str(info.value)
    with pytest.raises(TypeError, match=re.escape(where)):
        run_eagerly(f, np.arange(3.0))  # range(1, None) in Python too... at the user's line


def test_python_range_of_none_in_converted_code_is_at_the_users_line():
    def body(x):
        total = 0.0
        for i in range(1, None):  # the range
            total += x[i]
        return total

    where = f"{THIS_FILE}:{_line_of(body, 'the range')}"
    with pytest.raises(TypeError, match=re.escape(where)):
        tj.function(body)(np.arange(3.0))


def test_python_range_of_run_time_size_without_autograph_is_clear():
    @tj.function(input_signature=VECTOR, autograph=False)
    def f(x):
        total = 0.0
        for i in range(1, x.shape[0]):  # not staged without AutoGraph
            total += x[i]
        return total

    with pytest.raises(TypeError, match=r"Python int.*" + re.escape(THIS_FILE)):
        f(np.arange(3.0))


@pytest.mark.parametrize("bounds", [(None,), (0, "3"), (0, 3, None), (None, 3)])
def test_tj_range_bounds_must_be_numbers(bounds):
    with pytest.raises(TypeError, match=re.escape(THIS_FILE)):
        tj.range(*bounds)


def test_len_of_unknown_dim_without_autograph_says_what_to_write():
    @tj.function(input_signature=[tj.TensorSpec([None])], autograph=False)
    def f(x):
        return x * len(x)  # len here

    with pytest.raises(TypeError, match=r"x\.shape\[0\].*" + re.escape(THIS_FILE)):
        f(np.arange(3.0, dtype=np.float32))


def test_iterating_unknown_rows_without_autograph_says_what_to_write():
    @tj.function(input_signature=VECTOR, autograph=False)
    def f(x):
        return sum(x)

    with pytest.raises(TypeError, match=r"staged loop.*" + re.escape(THIS_FILE)):
        f(np.arange(3.0))


def test_len_without_autograph_of_known_dims_is_an_int():
    @tj.function(autograph=False)
    def f(x):
        return x * len(x)

    assert_same(f(np.arange(3.0)), np.arange(3.0) * 3)


@tj.function(input_signature=VECTOR)
def aranges_of_run_time_bounds(x):
    n = len(x)
    return (
        np.cumsum(x) / np.arange(1, n + 1),  # the length is x's dim: broadcasts with x
        np.arange(n - 1),  # a new run-time length, empty for n = 0
        np.arange(2, n, 3),
        np.arange(n, 0, -2),
        np.arange(x.shape[0] - 4, dtype=np.float32),
        np.arange(start=1, stop=n + 1) * x,
    )


@given(st.integers(0, 9))
@FEW
def test_arange_of_run_time_bounds(n):
    """`np.arange(1, n + 1)` with n known only at run time was refused ("cannot be converted
    to a NumPy array"): NumPy's arange does not dispatch, so AutoGraph hands it to tracejit,
    which counts to the run-time length; a length equal to x's dim is that dim."""
    x = np.linspace(-1.0, 2.0, n)
    expected = (
        np.cumsum(x) / np.arange(1, n + 1),
        np.arange(n - 1),
        np.arange(2, n, 3),
        np.arange(n, 0, -2),
        np.arange(n - 4, dtype=np.float32),
        np.arange(1, n + 1) * x,
    )
    check(aranges_of_run_time_bounds, x, numpy_result=expected)
    assert aranges_of_run_time_bounds.experimental_get_tracing_count() == 1


def test_arange_of_a_run_time_float_bound_is_refused_with_a_rewrite():
    half = tj.function(lambda x: np.arange(0.5, len(x)), input_signature=VECTOR)
    with pytest.raises(NotImplementedError, match=r"integer bounds.*np.arange\(n\) \* step"):
        half(np.ones(3))


MATRIX = [tj.TensorSpec([None, None], np.float64)]


@tj.function(input_signature=MATRIX)
def triangles_of_run_time_sizes(a):
    n, m = a.shape
    i, j = np.triu_indices(n, 1, m)
    rows, cols = np.tril_indices(n, -1)
    return (
        a.ravel()[i * m + j],  # two index arrays on unknown dims: the flat form
        rows * 10 + cols,
        np.eye(n) @ a,
        a * np.eye(n, m, k=1, dtype=np.float32),
        np.identity(len(a), dtype=np.int32),
        np.tri(n, m, -1) * a,
    )


@given(st.integers(0, 5), st.integers(0, 5))
@FEW
def test_eye_tri_and_triangle_indices_of_run_time_sizes(n, m):
    """np.eye/identity/tri/triu_indices/tril_indices of sizes known only at run time were
    refused (np.triu_indices with "cannot be used as a Python bool"): they are built from
    comparisons of aranges, the indices by np.nonzero, as NumPy builds them."""
    a = np.arange(n * m, dtype=np.float64).reshape(n, m) + 1
    rows, cols = np.tril_indices(n, -1)
    expected = (
        a[np.triu_indices(n, 1, m)],
        rows * 10 + cols,
        np.eye(n) @ a,
        a * np.eye(n, m, k=1, dtype=np.float32),
        np.identity(n, dtype=np.int32),
        np.tri(n, m, -1) * a,
    )
    check(triangles_of_run_time_sizes, a, numpy_result=expected)


@tj.function(input_signature=VECTOR)
def grids_of_run_time_sizes(x):
    n = len(x)
    r = np.arange(n - 1)
    columns, rows = np.meshgrid(r, np.arange(3) * 10)
    i, j = np.meshgrid(x, r, indexing="ij")
    return (
        np.add.outer(x, x),  # NPBench's floyd_warshall with reduce_retracing
        np.multiply.outer(r, x[::-1]),
        np.reshape(r, (-1, 1)) * 2,  # unit dims around a run-time length
        r.reshape(1, -1, 1) + 1,
        columns + rows,
        i * j,
    )


@given(st.integers(0, 6))
@FEW
def test_outer_products_grids_and_unit_reshapes_of_run_time_sizes(n):
    """np.add.outer of unknown dims raised "'NoneType' object cannot be interpreted as an
    integer"; a reshape adding unit dims to a run-time length, and np.meshgrid of run-time
    sizes (not sparse), were refused."""
    x = np.linspace(-1.0, 2.0, n)
    r = np.arange(n - 1)
    columns, rows = np.meshgrid(r, np.arange(3) * 10)
    i, j = np.meshgrid(x, r, indexing="ij")
    expected = (
        np.add.outer(x, x),
        np.multiply.outer(r, x[::-1]),
        np.reshape(r, (-1, 1)) * 2,
        r.reshape(1, -1, 1) + 1,
        columns + rows,
        i * j,
    )
    check(grids_of_run_time_sizes, x, numpy_result=expected)


@tj.function(input_signature=[tj.TensorSpec([], np.int64), tj.TensorSpec([3, 3], np.float64)])
def updated_in_place_from_a_static_operand(n, b):
    t = np.zeros((n, n))
    t += b  # NPBench's contour_integral with its sizes passed as NumPy scalars
    t[0] -= b[1]
    u = np.ones((n, 3))
    u *= b[0]
    return t, u


@pytest.mark.parametrize("n", [3, 2, 1, 0])
def test_an_array_of_run_time_size_updated_in_place_from_a_static_operand(n):
    """`t += b` into `np.zeros((n, n))` was refused ("non-broadcastable output operand with
    shape (None, None)") where `t + b` worked: broadcasting asserts n == 3 when the kernel
    runs, and the update keeps t's type. Another n raises NumPy's ValueError then."""
    b = np.arange(9.0).reshape(3, 3)
    if n != 3:
        with pytest.raises(ValueError):
            run_eagerly(updated_in_place_from_a_static_operand, np.int64(n), b)
        with pytest.raises(ValueError, match="could not be broadcast"):
            updated_in_place_from_a_static_operand(np.int64(n), b)
        return
    check(updated_in_place_from_a_static_operand, np.int64(n), b)
