"""np.polyval, np.convolve, np.vander, np.kron, np.gradient and np.insert along dims known
only at run time (`TensorSpec([None])`): each function is compiled once for its signature,
called at several sizes (0, 1, 2 and larger where NumPy takes them), and compared with the
same function run eagerly (plain NumPy); NumPy's errors, which then depend on the run-time
sizes, are raised by the kernel with NumPy's exception types."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

SIZES = (0, 1, 2, 3, 7)


def unknown(*shapes_and_dtypes):
    """An input signature of the given (shape, dtype) pairs (None: a run-time size)."""
    return [tj.TensorSpec(shape, dtype) for shape, dtype in shapes_and_dtypes]


def agrees(f, *args, rtol=1e-6, match=None):
    """`f` compiled gives the eager (NumPy) answer, or raises NumPy's exception type (whose
    message, compiled, matches `match` when given: a pattern, or one per exception type)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = run_eagerly(f, *args)
    except Exception as error:  # NumPy's error, whichever it is
        if isinstance(match, dict):
            match = match.get(type(error))
        with pytest.raises(type(error), match=match):
            f(*args)
        return error
    assert_same(f(*args), expected, rtol=rtol, atol=1e-9)
    return None


# --- np.polyval ---------------------------------------------------------------------------------
@functools.cache
def polyval_of(p_dtype, x_dtype, x_dims):
    def polyval(p, x):
        return np.polyval(p, x)

    return tj.function(
        polyval, input_signature=unknown(([None], p_dtype), ([None] * x_dims, x_dtype))
    )


@settings(max_examples=4, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    dtypes=st.sampled_from(
        [
            (np.float64, np.float64),
            (np.float64, np.int64),
            (np.int32, np.int64),
            (np.float32, np.float32),
        ]
    ),
    x_dims=st.integers(0, 2),
)
def test_polyval_of_a_run_time_number_of_coefficients(seed, dtypes, x_dims):
    """NumPy's Horner loop as a staged loop: one trace for every count of coefficients
    (and x's sizes), NumPy's dtype from the first step on."""
    p_dtype, x_dtype = dtypes
    f = polyval_of(p_dtype, x_dtype, x_dims)
    rng = np.random.default_rng(seed)
    for count in SIZES:
        p = (rng.normal(size=count) * 3).astype(p_dtype)
        x = (rng.normal(size=(count % 3 + 1,) * x_dims) * 2).astype(x_dtype)
        if count == 0 and np.result_type(p, x) != x.dtype:
            continue  # tested below: NumPy's dtype then depends on the count
        agrees(f, p, x, rtol=1e-5)
    assert f.experimental_get_tracing_count() == 1


def test_polyval_refuses_no_coefficients_where_numpy_dtype_would_depend_on_it():
    """No coefficients: NumPy gives zeros of x's dtype (int64 here), not the float64 of x
    and p that a count known only at run time computes: the kernel refuses, naming it."""
    f = polyval_of(np.float64, np.int64, 1)
    assert np.polyval(np.zeros(0), np.arange(3)).dtype == np.int64
    with pytest.raises(NotImplementedError, match="np.polyval with no coefficients"):
        f(np.zeros(0), np.arange(3))
    assert_same(f(np.array([2.0, 1.0]), np.arange(3)), np.polyval([2.0, 1.0], np.arange(3)))


# --- np.convolve --------------------------------------------------------------------------------
@functools.cache
def convolve_of(mode, a_shape, v_shape, a_dtype, v_dtype):
    def convolve(a, v):
        return np.convolve(a, v, mode)

    return tj.function(convolve, input_signature=unknown((a_shape, a_dtype), (v_shape, v_dtype)))


@settings(max_examples=4, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    mode=st.sampled_from(["full", "same", "valid"]),
    dtypes=st.sampled_from([(np.float64, np.int32), (np.int16, np.int8), (np.float32, np.float64)]),
)
def test_convolve_of_run_time_lengths_in_every_mode(seed, mode, dtypes):
    """Either may be the longer one (NumPy swaps them: the "same" and "valid" bounds follow
    the shorter); an empty one fails as in NumPy, checked by the kernel."""
    f = convolve_of(mode, (None,), (None,), *dtypes)
    rng = np.random.default_rng(seed)
    for n in SIZES:
        for m in (0, 1, 2, 4, 9):
            a = (rng.normal(size=n) * 10).astype(dtypes[0])
            v = (rng.normal(size=m) * 10).astype(dtypes[1])
            match = "a cannot be empty" if n == 0 else "v cannot be empty" if m == 0 else None
            error = agrees(f, a, v, rtol=1e-5, match=match)
            assert (error is not None) == (match is not None)
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_with_one_length_known_at_trace_time(mode):
    """A static kernel against a signal of run-time length (and the other way round):
    which one is longer is still a run-time fact."""
    kernel = np.array([2, -1, 5], np.int64)
    f = convolve_of(mode, (None,), (3,), np.int64, np.int64)
    g = convolve_of(mode, (3,), (None,), np.int64, np.int64)
    for n in SIZES:
        a = np.arange(n, dtype=np.int64) * 3 - 4
        agrees(f, a, kernel, match="a cannot be empty")
        agrees(g, kernel, a, match="v cannot be empty")
    assert f.experimental_get_tracing_count() == g.experimental_get_tracing_count() == 1


def test_convolve_of_run_time_lengths_of_booleans_and_float16():
    """Booleans combine with and/or, float16 is summed in float32, as NumPy's."""
    bools = convolve_of("full", (None,), (None,), np.bool_, np.bool_)
    agrees(bools, np.array([True, False, False, True]), np.array([False, True]))
    agrees(bools, np.array([False]), np.array([False, True, True]))
    half = convolve_of("same", (None,), (None,), np.float16, np.float16)
    agrees(
        half, np.array([0.1, 0.2, 0.3], np.float16), np.array([1.5, -2.0], np.float16), rtol=1e-3
    )


def test_convolve_with_a_static_empty_operand_fails_in_numpys_order():
    """NumPy checks `a` before `v`: with `v` empty at trace time, an `a` empty at run time
    still names `a`."""
    f = convolve_of("full", (None,), (0,), np.float64, np.float64)
    agrees(f, np.zeros(0), np.zeros(0), match="a cannot be empty")
    agrees(f, np.ones(2), np.zeros(0), match="v cannot be empty")


# --- np.vander ----------------------------------------------------------------------------------
@functools.cache
def vander_of(columns, increasing, dtype):
    def vander(x):
        return np.vander(x, columns, increasing)

    return tj.function(vander, input_signature=unknown(([None], dtype)))


@settings(max_examples=4, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    columns=st.sampled_from([None, 0, 1, 4]),
    increasing=st.booleans(),
    dtype=st.sampled_from([np.int32, np.float32, np.float64]),
)
def test_vander_of_a_run_time_length(seed, columns, increasing, dtype):
    """N columns (x's length when N is None) of the powers 1, x, x*x, ... in NumPy's
    dtype (ints as int64)."""
    f = vander_of(columns, increasing, dtype)
    rng = np.random.default_rng(seed)
    for n in SIZES:
        x = (rng.normal(size=n) * 3).astype(dtype)
        agrees(f, x, rtol=1e-5)
    assert f.experimental_get_tracing_count() == 1


def test_vander_of_run_time_sizes_named_in_user_code():
    """N as `len(x)` (a run-time size: the square's second dim is x's own) or a size the
    kernel computes, checked not negative as NumPy's."""

    def square(x):
        return np.vander(x, len(x)) - np.vander(x)

    def shorter(x):
        return np.vander(x, len(x) - 1)

    square = tj.function(square, input_signature=unknown(([None], np.float64)))
    shorter = tj.function(shorter, input_signature=unknown(([None], np.int64)))
    for n in (1, 2, 5):
        agrees(square, np.arange(n) * 0.5)
        agrees(shorter, np.arange(n))
    agrees(square, np.zeros(0))
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        shorter(np.zeros(0, np.int64))
    assert shorter.experimental_get_tracing_count() == 1


# --- np.kron --------------------------------------------------------------------------------------
@functools.cache
def kron_of(a_shape, b_shape):
    def kron(a, b):
        return np.kron(a, b)

    return tj.function(kron, input_signature=unknown((a_shape, np.int32), (b_shape, np.float32)))


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((None,), (None,)), ((None, 2), (3,)), ((None,), (None, None)), ((2, None), (None, 1)),
     ((), (None,)), ((None, None), ())],
)  # fmt: skip
def test_kron_of_dims_known_only_at_run_time(a_shape, b_shape):
    """Each pair of dims merges into their product, which the caller computes."""
    f = kron_of(a_shape, b_shape)
    for n in (0, 1, 2, 3):
        shape_a = [n if d is None else d for d in a_shape]
        shape_b = [n + 1 if d is None else d for d in b_shape]
        a = np.arange(1, 1 + np.prod(shape_a, dtype=int), dtype=np.int32).reshape(shape_a)
        b = (np.arange(np.prod(shape_b, dtype=int)) * 0.5).astype(np.float32).reshape(shape_b)
        agrees(f, a, b)
    assert f.experimental_get_tracing_count() == 1


def test_kron_of_a_selection_and_with_its_own_outer_product():
    """A data-dependent length (x[mask]) merges into a size the kernel computes; kron of
    a vector with itself is the flattened outer product, of the same run-time size."""

    def selected(x):
        return np.kron(x[x > 0], x) + 1

    def outer(x):
        return np.kron(x, x) - np.outer(x, x).ravel()

    selected = tj.function(selected, input_signature=unknown(([None], np.float64)))
    outer = tj.function(outer, input_signature=unknown(([None], np.float64)))
    for x in (np.array([1.0, -2.0, 3.0]), np.array([-1.0]), np.zeros(0)):
        agrees(selected, x)
        agrees(outer, x)


# --- np.gradient ----------------------------------------------------------------------------------
@functools.cache
def gradient_of(shape, dtype, edge_order, spacing):
    spacings = () if spacing is None else (spacing,)

    def gradient(f):
        return np.gradient(f, *spacings, edge_order=edge_order)

    return tj.function(gradient, input_signature=unknown((shape, dtype)))


@settings(max_examples=4, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    edge_order=st.sampled_from([1, 2]),
    dtype=st.sampled_from([np.float64, np.float32, np.int32]),
    spacing=st.sampled_from([None, 0.5, 3]),
)
def test_gradient_along_a_run_time_length(seed, edge_order, dtype, spacing):
    """NumPy's central differences and one-sided edges at every length; fewer than
    edge_order + 1 elements fail as in NumPy, checked by the kernel."""
    f = gradient_of((None,), dtype, edge_order, spacing)
    rng = np.random.default_rng(seed)
    for n in SIZES:
        x = (rng.normal(size=n) * 10).astype(dtype)
        error = agrees(f, x, rtol=1e-5, match="at least \\(edge_order \\+ 1\\) elements")
        assert (error is not None) == (n < edge_order + 1)
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_of_several_axes_known_only_at_run_time(edge_order):
    """Every axis (a tuple of gradients), one run-time axis among static ones, and
    coordinates known at trace time along a run-time axis (their length checked then)."""
    both = gradient_of((None, None), np.float64, edge_order, 2.0)
    coordinates = np.array([0.0, 1.0, 1.5, 3.5, 4.0])

    def rows(f):
        return np.gradient(f, 0.25, axis=1, edge_order=edge_order)

    def spaced(f):
        return np.gradient(f, coordinates, edge_order=edge_order)

    rows = tj.function(rows, input_signature=unknown(([3, None], np.int64)))
    spaced = tj.function(spaced, input_signature=unknown(([None], np.float64)))
    for n in (3, 4, 6):
        agrees(both, np.arange(3.0 * n).reshape(n, 3) ** 2)
        agrees(rows, np.arange(3 * n).reshape(3, n) ** 2)
    agrees(spaced, np.sin(coordinates))
    with pytest.raises(ValueError, match="distances must match the length"):
        spaced(np.zeros(4))
    with pytest.raises(ValueError, match="at least \\(edge_order \\+ 1\\) elements"):
        both(np.zeros((edge_order, 3)))
    assert both.experimental_get_tracing_count() == rows.experimental_get_tracing_count() == 1


# --- np.insert ------------------------------------------------------------------------------------
def insert_of(obj, shape, axis, values):
    """np.insert(x, obj, values, axis) compiled for x of `shape`, once per arguments."""
    return _insert_of(_hashable(obj), shape, axis, _hashable(values))


def _hashable(value):
    if isinstance(value, slice):
        return ("slice", value.start, value.stop, value.step)
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


@functools.cache
def _insert_of(obj, shape, axis, values):
    if isinstance(obj, tuple) and obj[:1] == ("slice",):
        obj = slice(*obj[1:])

    def insert(x):
        return np.insert(x, obj, values, axis=axis)

    return tj.function(insert, input_signature=unknown((shape, np.int32)))


INSERT_ERRORS = {IndexError: "out of bounds for axis 0", ValueError: "cannot assign"}
OBJECTS = [0, 2, -1, -3, 3, [1], [2, 0], [-1, 1], [0, 0], [-5, 1]]


@settings(max_examples=4, deadline=None)
@given(obj=st.sampled_from(OBJECTS), values=st.sampled_from([9.7, [7, 8]]))
def test_insert_along_a_run_time_length(obj, values):
    """NumPy's wrapping of negative positions by the run-time length, its stable placement
    of several, and its IndexError for a position out of range (a run-time check)."""
    if np.ndim(obj) == 1 and np.ndim(values) == 1 and len(obj) != len(values):
        values = 9.7
    f = insert_of(obj, (None,), None, values)
    for n in SIZES:
        agrees(f, np.arange(n, dtype=np.int32), match=INSERT_ERRORS)
    assert f.experimental_get_tracing_count() == 1


def test_insert_into_arrays_with_run_time_dims():
    """Rows into a run-time count of rows, columns into rows of run-time count (a column
    of the array itself, too), the flattened array, and values of a run-time length."""
    rows = [np.arange(3 * n, dtype=np.int32).reshape(n, 3) for n in (0, 1, 2, 4)]
    for obj, axis, values in [(1, 0, [7, 8, 9]), (-1, 0, 5), ([0, -1], 0, [[1, 2, 3]]),
                              (1, 1, 5), ([0, 3], 1, [1, 2]), (-2, None, 6)]:  # fmt: skip
        f = insert_of(obj, (None, 3), axis, values)
        for x in rows:
            agrees(f, x, match=INSERT_ERRORS)
        assert f.experimental_get_tracing_count() == 1

    def own(x):
        return np.insert(x, 2, x[:, 0], axis=1)

    def joined(x, y):
        return np.insert(x, 1, y)

    own = tj.function(own, input_signature=unknown(([None, 3], np.int32)))
    joined = tj.function(joined, input_signature=unknown(([None], np.int32), ([None], np.int32)))
    for x in rows:
        agrees(own, x)
    for k in (0, 1, 3):
        agrees(joined, np.arange(3, dtype=np.int32), np.arange(k, dtype=np.int32) + 10)
    assert own.experimental_get_tracing_count() == joined.experimental_get_tracing_count() == 1


def test_insert_refuses_positions_that_depend_on_the_run_time_length():
    """A slice or a boolean mask names positions by the length: refused, naming the call;
    NumPy's own errors about obj are still NumPy's."""
    sliced = insert_of(slice(0, 2), (None,), None, 1)
    with pytest.raises(NotImplementedError, match="takes `obj` as an int or a list of ints"):
        sliced(np.arange(3, dtype=np.int32))
    deep = insert_of([[1]], (None,), None, 1)
    with pytest.raises(ValueError, match="must be one dimensional or scalar"):
        deep(np.arange(3, dtype=np.int32))
