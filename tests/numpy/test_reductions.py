"""Reductions (`np.sum` ... `np.std`, `np.amax`, `np.average` and the ndarray methods),
compiled vs eager NumPy.

Ints and bools must match exactly (dtype, shape, value). Float results may differ from
NumPy's in the last bits because NumPy sums pairwise and tracejit's sums are reassociated
(vectorised): the documented tolerance is rtol 1e-5 (float32) / 1e-12 (float64) relative to
the sum of the absolute values reduced (plus the sum of squares, for var/std).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import axis_for, raises_both, run_eagerly

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

# name -> fn(x, axis, keepdims); the one table of staged reductions this suite checks.
REDUCTIONS = {
    "sum": lambda x, axis, keepdims: np.sum(x, axis=axis, keepdims=keepdims),
    "prod": lambda x, axis, keepdims: np.prod(x, axis=axis, keepdims=keepdims),
    "max": lambda x, axis, keepdims: np.max(x, axis=axis, keepdims=keepdims),
    "amin": lambda x, axis, keepdims: np.amin(x, axis=axis, keepdims=keepdims),
    "argmax": lambda x, axis, keepdims: np.argmax(x, axis=axis, keepdims=keepdims),
    "argmin": lambda x, axis, keepdims: x.argmin(axis=axis, keepdims=keepdims),
    "any": lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims),
    "all": lambda x, axis, keepdims: x.all(axis=axis, keepdims=keepdims),
    "mean": lambda x, axis, keepdims: np.mean(x, axis=axis, keepdims=keepdims),
    "var": lambda x, axis, keepdims: np.var(x, axis=axis, keepdims=keepdims),
    "std_ddof1": lambda x, axis, keepdims: x.std(axis=axis, ddof=1, keepdims=keepdims),
    "method_sum": lambda x, axis, keepdims: x.sum(axis=axis, keepdims=keepdims),
    "method_min": lambda x, axis, keepdims: x.min(axis=axis, keepdims=keepdims),
    "method_prod": lambda x, axis, keepdims: x.prod(axis, None, None, keepdims),
}
NO_IDENTITY = {"max", "amin", "argmax", "argmin", "method_min"}  # raise on an empty axis
INT_AXIS_ONLY = {"argmax", "argmin"}


def reduced_axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))


@tj.function
def every_reduction(x, axis, keepdims):
    empty = any(x.shape[a] == 0 for a in reduced_axes(axis, x.ndim))
    results = {}
    for name, reduce in REDUCTIONS.items():
        if (name in NO_IDENTITY and empty) or (name in INT_AXIS_ONLY and isinstance(axis, tuple)):
            continue
        results[name] = reduce(x, axis, keepdims)
    return results


def tolerance(x: np.ndarray) -> dict:
    """rtol and an atol scaled by the magnitudes summed (see the module docstring)."""
    r = 1e-5 if x.dtype == np.float32 else 1e-12
    magnitude = np.abs(x.astype(np.float64))
    return {"rtol": r, "atol": r * float(np.sum(magnitude) + np.sum(magnitude**2))}


def elements(dtype):
    if np.dtype(dtype).kind == "f":
        return st.floats(-3, 3, width=np.dtype(dtype).itemsize * 8)
    return None  # the dtype's full range: sums and products wrap


@st.composite
def reduction_cases(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    x = draw(hnp.arrays(dtype, shape, elements=elements(dtype)))
    return x, draw(axis_for(len(shape))), draw(st.booleans())


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy warns on empty means, ddof >= n
@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # a new shape per example
@settings(max_examples=25, deadline=None)  # each example compiles a ~14-reduction kernel
@given(case=reduction_cases())
def test_every_reduction_matches_numpy(check_against_eager, case):
    x, axis, keepdims = case
    check_against_eager(every_reduction, x, axis, keepdims, **tolerance(x))


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_on_a_3d_tensor(check_against_eager, dtype):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((2, 3, 4)) * 3).astype(dtype)
    check_against_eager(every_reduction, x, (0, -1), True, **tolerance(x))


NAN, INF = np.nan, np.inf
SPECIAL_ROWS = np.array(
    [
        [1.0, NAN, 3.0, NAN],  # NaN wins max/min; argmax/argmin give the first NaN
        [0.0, 0.0, -INF, -INF],  # ties: the first index
        [2.0, 2.0, 2.0, 2.0],
        [-INF, -INF, -INF, -INF],  # argmax of all -inf is 0
        [INF, 5.0, INF, -0.0],
        [-0.0, 0.0, NAN, 1.0],
    ]
)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_inf_and_ties_follow_numpy(check_against_eager, dtype):
    @tj.function
    def special(x):
        return {
            "max_rows": np.max(x, axis=1),
            "min_cols": np.min(x, axis=0),
            "max_all": np.max(x),
            "argmax_rows": np.argmax(x, axis=1),
            "argmin_rows": np.argmin(x, axis=-1),
            "argmax_cols": np.argmax(x, axis=0),
            "argmax_all": np.argmax(x),
            "argmin_all": np.argmin(x, axis=None),
            "sum_rows": np.sum(x, axis=1),
            "any_rows": np.any(x, axis=1),  # NaN is truthy
            "all_rows": np.all(x, axis=1),
            "mean_rows": np.mean(x, axis=1),
        }

    check_against_eager(special, SPECIAL_ROWS.astype(dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.bool_])
def test_integer_extremes_and_ties(check_against_eager, dtype):
    info = np.iinfo(dtype) if dtype != np.bool_ else None
    low, high = (info.min, info.max) if info else (False, True)
    x = np.array([[low, low, high, high], [high, low, high, low], [low] * 4], dtype=dtype)

    @tj.function
    def extremes(x):
        return (
            np.argmax(x, axis=1),
            np.argmin(x, axis=1),
            np.max(x, axis=0),
            np.min(x),
            np.argmax(x),
        )

    check_against_eager(extremes, x)


def long_rows(x, length=100):
    """`x`'s rows, each element repeated up to `length` (the rows of 4 become rows of 100)."""
    return np.repeat(x, -(-length // x.shape[1]), axis=1)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint8, np.int64, np.bool_])
def test_long_arg_reductions_find_the_first_extreme(check_against_eager, dtype):
    """NaN first, ties, -0.0 against 0.0, all -inf, integer extremes: along rows of 100 and
    whole arrays, of static and of unknown sizes, as NumPy finds them."""
    if np.issubdtype(dtype, np.floating):
        x = long_rows(SPECIAL_ROWS.astype(dtype))
    else:
        info = np.iinfo(dtype) if dtype != np.bool_ else None
        low, high = (info.min, info.max) if info else (False, True)
        x = long_rows(np.array([[low, low, high, high], [high, low, high, low], [low] * 4], dtype))

    def firsts(x):
        return np.argmax(x, axis=1), np.argmin(x, axis=-1), np.argmax(x), np.argmin(x[::-1])

    check_against_eager(tj.function(firsts), x)
    unknown = tj.function(firsts, input_signature=[tj.TensorSpec([None, None], dtype)])
    check_against_eager(unknown, x)
    check_against_eager(unknown, x[:1, :3])  # short, on the same trace


# Lengths around the blocked argmax's blocks (passes/bufferize/reductions.py, BLOCK = 1024).
_AROUND_BLOCKS = [1, 2, 17, 1023, 1024, 1025, 2048, 2049, 3000]


def _first_extremes(x):
    return (
        np.argmax(x, axis=-1),
        np.argmin(x, axis=1),
        np.argmax(x),
        np.argmin(x[::-1]),
    )


_ACROSS_BLOCKS = {
    dtype: tj.function(_first_extremes, input_signature=[tj.TensorSpec([None, None], dtype)])
    for dtype in (np.float32, np.float64, np.int16, np.uint8)
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=40, deadline=None)
@given(
    dtype=st.sampled_from(sorted(_ACROSS_BLOCKS, key=str)),
    rows=st.integers(1, 3),
    length=st.sampled_from(_AROUND_BLOCKS),
    seed=st.integers(0, 2**32 - 1),
    special=st.sampled_from(["ties", "nan", "zeros", "inf", "none"]),
)
def test_arg_reductions_across_blocks(dtype, rows, length, seed, special):
    """The first extreme (or NaN) wherever it falls among the blocks: in a later block than
    an equal value, in the last partial block, at a block's edge; ties of -0.0 and 0.0 in
    different blocks; all -inf; of a few small values, so that every block ties."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, (rows, length)).astype(dtype)
    places = rng.choice(length, size=min(length, 3), replace=False)
    if special == "nan" and np.issubdtype(dtype, np.floating):
        x[:, places[1:]] = np.nan
    elif special == "zeros" and np.issubdtype(dtype, np.floating):
        x[:] = -1.0
        x[:, places[0]], x[:, places[-1]] = -0.0, 0.0
    elif special == "inf" and np.issubdtype(dtype, np.floating):
        x[:] = -np.inf
    elif special == "ties":
        x[:, places] = np.iinfo(dtype).max if dtype in (np.int16, np.uint8) else 7.0
    eager = run_eagerly(_ACROSS_BLOCKS[dtype], x)
    for got, want in zip(_ACROSS_BLOCKS[dtype](x), eager, strict=True):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(want, np.asarray(want))  # a NumPy answer, not a trace


def test_sums_widen_and_wrap_like_numpy(check_against_eager):
    x = np.array([100, 100, 100, -128], dtype=np.int8)
    big = np.array([2**62, 2**62, 3], dtype=np.int64)

    @tj.function
    def widening(x, big):
        return {
            "int8_sum": np.sum(x),  # int64: no wrap
            "int8_sum_as_int8": np.sum(x, dtype=np.int8),  # wraps
            "uint8_sum": np.sum(x.astype(np.uint8)),  # uint64
            "bool_sum": np.sum(x > 0),  # int64
            "bool_prod": np.prod(x > 0),
            "int64_sum_wraps": np.sum(big),
            "int64_prod_wraps": np.prod(big),
            "float_sum_of_ints": np.sum(x, dtype=np.float32),
            "max_of_bool": np.max(x > 0),  # bool
            "mean_int": np.mean(x),  # float64
            "mean_as_float32": np.mean(x, dtype=np.float32),
            "mean_as_int32": np.mean(x, dtype=np.int32),  # NumPy truncates into int32
            "var_ddof": np.var(x, ddof=2),
            "std_correction": np.std(x, correction=1),
            "var_float_ddof": np.var(x, ddof=0.5),
            "average": np.average(x.astype(np.float32)),
            "average_returned": np.average(x, axis=0, returned=True),
            "average_keepdims": np.average(big, keepdims=True),
        }

    check_against_eager(widening, x, big, rtol=1e-12)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_empty_reductions(check_against_eager):
    @tj.function
    def empty(x):
        return {
            "sum": np.sum(x, axis=0),
            "prod": np.prod(x),
            "any": np.any(x, axis=1),
            "all": np.all(x),
            "mean": np.mean(x, axis=0),
            "max_nonempty_axis": np.max(x, axis=1),  # shape (0,): fine
            "argmax_nonempty_axis": np.argmax(x, axis=1),
        }

    check_against_eager(empty, np.zeros((0, 3), np.float32))


@pytest.mark.parametrize(
    "reduce, message",
    [
        (lambda x: np.max(x, axis=0), "zero-size array to reduction operation maximum"),
        (lambda x: x.min(), "zero-size array to reduction operation minimum"),
        (lambda x: np.argmax(x), "attempt to get argmax of an empty sequence"),
        (lambda x: np.argmin(x, axis=0), "attempt to get argmin of an empty sequence"),
    ],
)
def test_extrema_of_an_empty_axis_raise_value_error(reduce, message):
    x = np.zeros((0, 3), np.float64)
    with pytest.raises(ValueError, match=message):
        reduce(x)  # NumPy
    with pytest.raises(ValueError, match=message):
        tj.function(reduce)(x)


@pytest.mark.parametrize(
    "reduce, error, message",
    [
        (lambda x: np.argmax(x, axis=(0, 1)), TypeError, "axis must be None or an int"),
        (lambda x: np.sum(x, axis=2), np.exceptions.AxisError, "axis 2 is out of bounds"),
        (lambda x: np.mean(x, axis=(0, -2)), ValueError, "duplicate value in 'axis'"),
        (lambda x: np.sum(x, where=x > 0), TypeError, r"np.sum\(..., where=...\) is not supp"),
        (lambda x: x.max(initial=0.0), TypeError, "initial=..."),
        (lambda x: np.var(x, mean=x), TypeError, "mean=..."),
        (lambda x: np.nanmean(x, where=x > 0), TypeError, "where=..."),
    ],
)
def test_unsupported_arguments_raise_clear_errors(reduce, error, message):
    with pytest.raises(error, match=message) as raised:
        tj.function(reduce)(np.ones((2, 3), np.float32))
    assert "test_reductions.py" in str(raised.value)  # points at the user's line


def test_non_contiguous_inputs(check_against_eager):
    base = np.arange(24, dtype=np.float64).reshape(4, 6) - 7.5
    f = tj.function(lambda x: (np.argmax(x, axis=0), np.sum(x, axis=1), np.var(x, axis=0)))
    check_against_eager(f, base.T, rtol=1e-12)
    check_against_eager(f, base[::2, 1::2], rtol=1e-12)


def test_argmax_is_one_reduce_op_with_int64_result():
    f = tj.function(lambda x: np.argmax(x))
    graph = str(f.get_concrete_function(np.ones((2, 3), np.float32)).graph)
    assert 'tj.reduce "argmax"' in graph and "tensor<2x3xf32> to tensor<i64>" in graph


def test_reductions_of_constants_fold(check_against_eager):
    @tj.function
    def constant_reductions(x):
        c = np.full_like(x, 2.5)
        return np.argmax(c, axis=0), np.any(c), np.all(c, axis=1), np.sum(c), np.var(c)

    x = np.ones((3, 4), np.float32)
    check_against_eager(constant_reductions, x)
    folded = constant_reductions.get_concrete_function(x).ir(after="canonicalize")
    assert "tj.reduce" not in folded and "tj.constant dense<0> : tensor<4xi64>" in folded


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("scalar", [np.float64(3.5), np.array(-2, np.int32)], ids=["scalar", "0-d"])
def test_a_0d_array_takes_axis_0_in_ufunc_reductions(check_against_eager, scalar, axis):
    """NumPy's ufunc reductions let a 0-d array pass axis 0 or -1 (for backwards
    compatibility); np.mean and np.var do not, nor does any reduction take axis 1."""

    @tj.function
    def reduced(x):
        return (np.sum(x, axis=axis), np.max(x, axis=axis), np.argmin(x, axis=axis),
                np.nanmin(x, axis=axis), np.nansum(x, axis=axis, keepdims=True),
                np.all(x, axis=axis), np.prod(x, axis=axis))  # fmt: skip

    check_against_eager(reduced, scalar)
    for refused in (lambda x: np.mean(x, axis=axis), lambda x: np.var(x, axis=axis),
                    lambda x: np.sum(x, axis=1), lambda x: np.nanmax(x, axis=(0,))):  # fmt: skip
        raises_both(np.exceptions.AxisError, refused, scalar)


@pytest.mark.parametrize(
    "shape", [(10000, 100), (1000, 1000), (250000, 4), (100, 100, 100), (5000, 3, 2)]
)
@pytest.mark.parametrize("reduce", [np.sum, np.mean])
def test_whole_float32_arrays_sum_as_accurately_as_numpy(reduce, shape):
    """A whole multi-dim float32 array summed row after row into one register drifted by
    5e-4 relative for (10000, 100) (NumPy, pairwise: 1e-7); rows shorter than a block are now
    grouped into blocks (lower_to_loops.blockable_sums). Compiled against the exact sum."""
    x = np.random.default_rng(len(shape)).random(shape).astype(np.float32) + 1.0
    exact = reduce(x.astype(np.float64))
    got = tj.function(reduce)(x)
    assert got.dtype == np.float32
    assert abs(float(got) - exact) <= 1e-6 * abs(exact)
    constant = np.full(shape, 1.1, np.float32)  # the worst case: every rounding one way
    exact = reduce(constant.astype(np.float64))
    assert abs(float(tj.function(reduce)(constant)) - exact) <= 1e-5 * exact  # was 5e-4
