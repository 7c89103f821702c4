"""Reductions of the small dtypes (float16, int8, uint8, int16, uint16, bool), compiled vs
eager NumPy: values, dtypes and shapes.

NumPy's rules, found by experiment (NumPy 2.x) and followed by tracejit:

- `np.sum`/`np.prod` of int8/int16/bool give int64, of uint8/uint16 uint64; `np.mean`,
  `np.var` and `np.std` of them are float64; max/min keep the dtype, argmax is int64.
- float16 `np.sum`/`np.prod` accumulate in float32 and round to float16 once, *within one
  call of NumPy's inner loop*: `np.sum(np.ones(3000, np.float16))` is 3000. Between inner
  loop calls NumPy rounds to float16, so where the reduced axis is not the innermost one
  in memory (`axis=0` of a C-ordered matrix) NumPy's result is a float16 running sum
  (`np.sum(np.ones((3000, 2), np.float16), axis=0)` is 2048). tracejit always accumulates
  in float32, which is NumPy's result on the reduced axes laid out innermost.
- float16 `np.mean` sums in float32 (`dtype=float32`), divides in float64, and casts the
  mean back to float16 (via float32 when the mean is an array). `np.var`/`np.std` of
  float16 stay float16: the mean, the deviations, their squares and the sum of squares
  are all float16 (sums accumulated as above), so `np.var(np.arange(1000,
  dtype=np.float16))` overflows to inf in NumPy as in tracejit.

So exact agreement with NumPy on float16 is impossible in general; the tolerance is:

- max/min/argmax/argmin and every integer or bool result: exact.
- float results are compared with `reference`, eager NumPy on a copy with the reduced
  axes moved last (C order: NumPy accumulates them in float32 in one inner loop; this is
  eager NumPy on the very same array when they already are the trailing axes), within
  `rtol = 2 * eps` of the result dtype (float16: 2**-9, two ulps: the float32 sums may
  round to float16 on either side of a rounding boundary) and `atol = smallest
  subnormal + n * u * S / count`: the accumulation error in any order of n terms of
  absolute sum S, u = 2**-24 for float16 and float32 results (float32 accumulators),
  2**-53 for float64, divided by the count for means and variances. Products add
  `n * u` to rtol instead. A float16 variance adds `2 * (2**-10 * max|x|)**2`: its
  float16 mean may be one ulp apart, which moves the sum of squares by about
  `2 * n * ulp**2`. Standard deviations take the square root of the variance's atol.
- compiled float results are never inf or NaN where eager NumPy's are finite.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import axis_for

SMALL_DTYPES = [np.float16, np.int8, np.uint8, np.int16, np.uint16, np.bool_]


def _near_one(x):
    """float16 products of values in [-1, 3] over ~1000 elements are inf or 0; products of
    these (in [0.97, 1.03]) stay in range, and no partial product over/underflows float32
    in any order, so NumPy's order and tracejit's give the same float16 rounding."""
    return 1 + (x - 1) / 64 if x.dtype == np.float16 else x


# name -> fn(x, axis, keepdims): every reduction of the API this suite checks.
REDUCTIONS = {
    "sum": lambda x, axis, keepdims: np.sum(x, axis=axis, keepdims=keepdims),
    "method_sum": lambda x, axis, keepdims: x.sum(axis=axis, keepdims=keepdims),
    "sum_f32": lambda x, axis, keepdims: np.sum(x, axis, np.float32, keepdims=keepdims),
    "sum_f16": lambda x, axis, keepdims: np.sum(x, axis, dtype=np.float16, keepdims=keepdims),
    "sum_i8": lambda x, axis, keepdims: np.sum(x, axis, dtype=np.int8, keepdims=keepdims),
    "prod": lambda x, axis, keepdims: np.prod(_near_one(x), axis=axis, keepdims=keepdims),
    "method_prod": lambda x, axis, keepdims: _near_one(x).prod(axis, keepdims=keepdims),
    "prod_i16": lambda x, axis, keepdims: np.prod(x, axis, np.int16, keepdims=keepdims),
    "mean": lambda x, axis, keepdims: np.mean(x, axis=axis, keepdims=keepdims),
    "method_mean": lambda x, axis, keepdims: x.mean(axis=axis, keepdims=keepdims),
    "mean_f32": lambda x, axis, keepdims: np.mean(x, axis, np.float32, keepdims=keepdims),
    "mean_f16": lambda x, axis, keepdims: np.mean(x, axis, np.float16, keepdims=keepdims),
    "average": lambda x, axis, keepdims: np.average(x, axis=axis, keepdims=keepdims),
    "var": lambda x, axis, keepdims: np.var(x, axis=axis, keepdims=keepdims),
    "var_f32": lambda x, axis, keepdims: np.var(x, axis, np.float32, keepdims=keepdims),
    "std_ddof1": lambda x, axis, keepdims: x.std(axis=axis, ddof=1, keepdims=keepdims),
    "max": lambda x, axis, keepdims: np.max(x, axis=axis, keepdims=keepdims),
    "method_min": lambda x, axis, keepdims: x.min(axis=axis, keepdims=keepdims),
    "amin": lambda x, axis, keepdims: np.amin(x, axis=axis, keepdims=keepdims),
    "argmax": lambda x, axis, keepdims: np.argmax(x, axis=axis, keepdims=keepdims),
    "argmin": lambda x, axis, keepdims: x.argmin(axis=axis, keepdims=keepdims),
    "any": lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims),
    "all": lambda x, axis, keepdims: x.all(axis=axis, keepdims=keepdims),
}
EXACT = {"max", "method_min", "amin", "argmax", "argmin", "any", "all"}
NO_IDENTITY = {"max", "method_min", "amin", "argmax", "argmin"}  # raise on an empty axis
INT_AXIS_ONLY = {"argmax", "argmin"}
# float results that divide a sum by the count of elements reduced
PER_ELEMENT = {"mean", "method_mean", "mean_f32", "mean_f16", "average"}
VARIANCES = {"var", "var_f32", "std_ddof1"}


def reduced_axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(a % ndim for a in ((axis,) if isinstance(axis, int) else axis)))


@tj.function
def every_reduction(x, axis, keepdims):
    axes = reduced_axes(axis, x.ndim)
    empty = any(x.shape[a] == 0 for a in axes)
    no_result = any(x.shape[a] == 0 for a in range(x.ndim) if a not in axes)
    results = {}
    for name, reduce in REDUCTIONS.items():
        if (name in NO_IDENTITY and empty) or (name in INT_AXIS_ONLY and isinstance(axis, tuple)):
            continue
        if name == "average" and no_result:  # NumPy divides by the result's size 0
            continue
        results[name] = reduce(x, axis, keepdims)
    return results


def run_eagerly(function, *args):
    tj.config.run_functions_eagerly(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # empty means, overflows, ddof
            return function(*args)
    finally:
        tj.config.run_functions_eagerly(False)


def reduced_innermost(x: np.ndarray, axis, keepdims: bool):
    """The reference: eager NumPy on a C-ordered copy of `x` with the reduced axes moved
    last, where NumPy accumulates float16 in float32 (module docstring), reshaped back."""
    axes = reduced_axes(axis, x.ndim)
    if axis is None or not axes:  # all axes or none: no move
        return run_eagerly(every_reduction, np.array(x, order="C"), axis, keepdims)
    last = tuple(range(x.ndim - len(axes), x.ndim))
    moved = np.array(np.moveaxis(x, axes, last), order="C")
    moved_axis = last[0] if isinstance(axis, int) else last
    results = run_eagerly(every_reduction, moved, moved_axis, keepdims)
    shape = tuple(1 if i in axes else s for i, s in enumerate(x.shape))
    kept = [s for i, s in enumerate(x.shape) if i not in axes]
    return {k: np.reshape(v, shape if keepdims else kept) for k, v in results.items()}


def magnitudes(name: str, x: np.ndarray, axis) -> tuple[float, int]:
    """(S, n): the largest absolute sum of the terms one result sums, and their number."""
    axes = reduced_axes(axis, x.ndim)
    n = int(np.prod([x.shape[a] for a in axes]))
    if n == 0:
        return 0.0, 0
    values = x.astype(np.float64)
    if name in VARIANCES:
        values = (values - values.mean(axis=axes, keepdims=True)) ** 2
    return float(np.max(np.sum(np.abs(values), axis=axes), initial=0.0)), n


def tolerance(name: str, result_dtype: np.dtype, x: np.ndarray, axis) -> dict:
    """rtol and atol of one float result against the reference (module docstring)."""
    info = np.finfo(result_dtype)
    rtol = 2 * float(info.eps)  # float16: 2**-9, two ulps
    accumulator = 2.0**-24 if info.bits <= 32 else 2.0**-53  # float16 sums in float32
    total, n = magnitudes(name, x, axis)
    if name.startswith("prod") or name.endswith("prod"):  # n roundings of a product
        return {"rtol": rtol + n * accumulator, "atol": float(info.smallest_subnormal)}
    count = max(n, 1) if name in PER_ELEMENT | VARIANCES else 1
    atol = float(info.smallest_subnormal) + n * accumulator * total / count
    if name in VARIANCES and result_dtype == np.float16:
        # a float16 mean one ulp (<= 2**-10 |x|) apart moves the variance by 2 ulp**2
        atol += 2 * (2.0**-10 * float(np.max(np.abs(x.astype(np.float64)), initial=0))) ** 2
    if name.startswith("std"):
        atol = float(np.sqrt(atol))
    return {"rtol": rtol, "atol": atol}


def assert_close_to_reference(name, compiled, eager, reference, x, axis):
    __tracebackhide__ = True
    zero_d = isinstance(eager, np.ndarray) and eager.ndim == 0
    assert isinstance(compiled, type(eager)) or (
        isinstance(compiled, np.generic) and (isinstance(eager, np.generic) or zero_d)
    ), (name, type(compiled), type(eager))
    assert compiled.dtype == eager.dtype, (name, compiled.dtype, eager.dtype)
    assert np.shape(compiled) == np.shape(eager) == np.shape(reference), name
    if name in EXACT or eager.dtype.kind in "biu":
        np.testing.assert_array_equal(compiled, eager, err_msg=name)
        return
    finite = np.isfinite(np.asarray(eager))
    assert np.all(np.isfinite(np.asarray(compiled))[finite]), (name, compiled, eager)
    np.testing.assert_allclose(
        compiled, reference, equal_nan=True, err_msg=name, **tolerance(name, eager.dtype, x, axis)
    )


def check(x: np.ndarray, axis, keepdims: bool):
    eager = run_eagerly(every_reduction, x, axis, keepdims)
    compiled = every_reduction(x, axis, keepdims)
    reference = reduced_innermost(x, axis, keepdims)
    assert compiled.keys() == eager.keys() == reference.keys()
    for name in eager:
        assert_close_to_reference(name, compiled[name], eager[name], reference[name], x, axis)


SHAPES = [(), (0,), (1,), (7,), (1000,), (0, 3), (3, 0), (1, 1), (40, 25), (2, 500), (500, 2)]


def random_array(seed: int, dtype, shape) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":  # [-1, 3]: float16 sums of ~1000 reach 1000s
        return rng.uniform(-1, 3, shape).astype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.7
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


@st.composite
def small_dtype_cases(draw):
    dtype = draw(st.sampled_from(SMALL_DTYPES))
    if draw(st.booleans()):  # the listed shapes, random values
        shape = draw(st.sampled_from(SHAPES))
        x = random_array(draw(st.integers(0, 2**32 - 1)), dtype, shape)
    else:  # small shapes, values hypothesis picks (extremes of the dtype included)
        shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
        floats = st.floats(-1, 3, width=16) if dtype == np.float16 else None
        x = draw(hnp.arrays(dtype, shape, elements=floats))
    return x, draw(axis_for(x.ndim)), draw(st.booleans())


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # a new shape per example
@settings(max_examples=18, deadline=None)  # each example compiles a ~23-reduction kernel
@given(case=small_dtype_cases())
def test_small_dtype_reductions_match_numpy(case):
    check(*case)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")
@pytest.mark.parametrize("dtype", SMALL_DTYPES)
@pytest.mark.parametrize(
    "shape, axis, keepdims",
    [((1000,), None, False), ((40, 25), 0, True), ((25, 40), -1, False), ((2, 500), 1, False)],
)
def test_every_small_dtype_on_large_shapes(dtype, shape, axis, keepdims):
    check(random_array(7, dtype, shape), axis, keepdims)


def test_reported_float16_mean():
    x = np.arange(1000, dtype=np.float16)
    mean = tj.function(lambda x: np.mean(x))
    assert mean(x) == run_eagerly(mean, x) == np.float16(499.5)
    assert mean(x).dtype == np.float16


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy overflows where tracejit must too
def test_float16_accumulates_in_float32_and_overflows_only_where_numpy_does():
    @tj.function
    def float16_sums(x, big, back):
        return {
            "sum_ones": np.sum(np.ones_like(x)),  # 3000: a float16 running sum stops at 2048
            "sum_arange": np.sum(x),  # 4498500: inf in float16, in NumPy too
            "mean_arange": np.mean(x),  # 1499.5 (the float32 sum 4498500 fits)
            "mean_rows": np.mean(x.reshape(30, 100), axis=1),
            "var_arange": np.var(x),  # inf in NumPy: its mean is a float16 sum
            "sum_big": np.sum(big),  # 60000: the partial sum 120000 is past float16's max
            "prod_big": np.prod(big / 1000),  # -216000: -inf in float16
            "prod_back": np.prod(back),  # about 1: the partial products pass float16's max
            "max": np.max(x),
            "argmax": np.argmax(x),
        }

    x = np.arange(3000, dtype=np.float16)
    big = np.array([60000, 60000, -60000], np.float16)
    back = np.array([300, -300, 300, 1 / 300, 1 / 300, -1 / 300], np.float16)
    eager = run_eagerly(float16_sums, x, big, back)
    compiled = float16_sums(x, big, back)
    for name in eager:
        assert compiled[name].dtype == eager[name].dtype, name
        np.testing.assert_array_equal(compiled[name], eager[name], err_msg=name)
    assert compiled["sum_ones"] == 3000 and np.isinf(compiled["sum_arange"])
    assert compiled["sum_big"] == 60000 and abs(compiled["prod_back"] - 1) < 0.01


def test_float16_mean_rounds_like_numpy_scalar_and_array_paths():
    """NumPy's float16 mean of an array result rounds float64 -> float32 -> float16, of a
    0-d result float64 -> float16 directly. Here the float32 sum is exactly
    16395.001953125 and the float64 mean 1.00048831..., a hair above the float16 midpoint
    1 + 2**-11, which it rounds to in float32: then to 1.0 (ties to even), not 1 + 2**-10."""
    x = np.array([1.0] * 16384 + [3.001953125, 4, 4], np.float16)

    @tj.function
    def means(x):
        return np.mean(x), np.mean(x, keepdims=True), np.mean(np.stack([x, x]), axis=1)

    eager, compiled = run_eagerly(means, x), means(x)
    assert eager[0] == np.float16(1 + 2**-10) and np.all(eager[1] == 1) and np.all(eager[2] == 1)
    for c, e in zip(compiled, eager, strict=True):
        assert type(c) is type(e) and c.dtype == e.dtype == np.float16
        np.testing.assert_array_equal(c, e)


def test_float16_sum_is_a_float32_accumulation_in_the_ir():
    f = tj.function(lambda x: np.sum(x, axis=0))
    graph = str(f.get_concrete_function(np.ones((4, 3), np.float16)).graph)
    assert "tensor<4x3xf16> to tensor<4x3xf32>" in graph
    assert 'tj.reduce "sum"' in graph and "tensor<4x3xf32> to tensor<3xf32>" in graph


@pytest.mark.parametrize(
    "dtype, sum_dtype, mean_dtype",
    [
        (np.int8, np.int64, np.float64),
        (np.uint8, np.uint64, np.float64),
        (np.int16, np.int64, np.float64),
        (np.uint16, np.uint64, np.float64),
        (np.bool_, np.int64, np.float64),
        (np.float16, np.float16, np.float16),
    ],
)
def test_result_dtypes_follow_numpy(dtype, sum_dtype, mean_dtype):
    x = np.ones((2, 3), dtype)
    f = tj.function(lambda x: (np.sum(x), np.prod(x, axis=0), np.mean(x), np.var(x, axis=1)))
    eager = run_eagerly(f, x)
    assert [r.dtype for r in f(x)] == [r.dtype for r in eager]
    assert [r.dtype for r in eager] == [sum_dtype, sum_dtype, mean_dtype, mean_dtype]
