"""canonicalize's patterns (passes/canonicalize/) change no result: each function runs
compiled with the default pipeline, compiled without the tensor-level `canonicalize`, and
eagerly in NumPy, on values that include -0.0, NaN, +-Inf and integer extremes.

The rewrites are exact, so the default pipeline's results are bit-identical to NumPy
(NaN payloads aside). Without canonicalize, `x ** 2` and `x ** 0.5` go through pow(),
which is a few ulp away from NumPy's scalar-exponent loop (x * x, sqrt) and differs at
-0.0 and -inf (pow(-inf, 0.5) is +inf, NumPy's `x ** 0.5` is NaN): the rewrite is what
makes those bit-identical.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tracejit.passes.pipeline import LOWERING_PIPELINE, TENSOR_OPT_PIPELINE

NO_CANONICALIZE = tuple(p for p in TENSOR_OPT_PIPELINE if p != "canonicalize") + LOWERING_PIPELINE
N = 9
FLOATS = (np.float32, np.float64)
INTS = (np.int8, np.uint16, np.int32, np.int64)


def int_arrays(dtype):
    info = np.iinfo(dtype)
    extremes = st.sampled_from([info.min, info.max, 0, 1, -1 if info.min else 2])
    values = st.one_of(extremes, st.integers(info.min, info.max))
    return hnp.arrays(dtype, N, elements=values)


def float_arrays(dtype):
    specials = st.sampled_from([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0])
    values = st.one_of(specials, st.floats(width=np.dtype(dtype).itemsize * 8))
    return hnp.arrays(dtype, N, elements=values)


def same_bits(compiled, eager, name):
    """Equal dtype and values; NaN where NumPy has NaN (payloads may differ); -0.0 != 0.0."""
    compiled, eager = np.asarray(compiled), np.asarray(eager)
    assert compiled.dtype == eager.dtype and compiled.shape == eager.shape, name
    if eager.dtype.kind == "f":
        nan = np.isnan(eager)
        np.testing.assert_array_equal(np.isnan(compiled), nan, err_msg=f"{name}: NaN")
        compiled, eager = compiled[~nan], eager[~nan]
        np.testing.assert_array_equal(np.signbit(compiled), np.signbit(eager), err_msg=name)
    np.testing.assert_array_equal(compiled, eager, err_msg=name)


def eager(function, *args):
    tj.config.run_functions_eagerly(True)
    try:
        return function(*args)
    finally:
        tj.config.run_functions_eagerly(False)


def both(python_function):
    """The function compiled with and without the tensor-level canonicalize."""
    return (
        tj.function(python_function),
        tj.function(python_function, experimental_pipeline=NO_CANONICALIZE),
    )


def check_exact(pair, *args):
    """Default pipeline, no-canonicalize pipeline and eager NumPy: all bit-identical."""
    reference = eager(pair[0], *args)
    for compiled in pair:
        results = compiled(*args)
        for name in reference:
            same_bits(results[name], reference[name], name)


# --- integers: every rewrite, including x * 0 ----------------------------------------------


def integer_identities(x, y):
    m = x.reshape(N, 1)
    return {
        "x + 0": x + 0,
        "0 + x": 0 + x,
        "x - 0": x - 0,
        "x * 1": x * 1,
        "x * 0": x * 0,
        "x ** 1": x**1,
        "x ** 2": x**2,
        "x.astype(same)": x.astype(x.dtype),
        "sum over size-1 axis": np.sum(m, axis=1, dtype=x.dtype),
        "max over size-1 axis": np.max(m, axis=1),
        "prod over size-1 axis": np.prod(m, axis=1, dtype=x.dtype),
        "where(True)": np.where(True, x, y),
        "where(False)": np.where(np.zeros(N, bool), x, y),
        "x + [0, 0, ..., 1] (not rewritten)": x + np.eye(1, N, N - 1, dtype=x.dtype)[0],
    }


def signed_identities(x):
    return {"--x": np.negative(-x), "-(x * 1)": -(x * 1)}


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_integer_rewrites_are_exact(dtype):
    pair = both(integer_identities)

    @settings(max_examples=25, deadline=None)
    @given(int_arrays(dtype), int_arrays(dtype))
    def run(x, y):
        check_exact(pair, x, y)

    run()


@given(int_arrays(np.int8))
@settings(max_examples=25, deadline=None)
def test_double_negation_wraps_like_numpy(x):
    check_exact(both(signed_identities), x)


# --- floats: only the exact rewrites apply ---------------------------------------------------


def float_identities(x, y):
    m = x.reshape(3, N // 3)
    return {
        "x + (-0.0)": x + (-0.0),
        "(-0.0) + x": (-0.0) + x,
        "x - 0.0": x - x.dtype.type(0.0),
        "x + 0.0 (not rewritten)": x + x.dtype.type(0.0),
        "x - (-0.0) (not rewritten)": x - x.dtype.type(-0.0),
        "x * 1.0": x * x.dtype.type(1.0),
        "1.0 * x": x.dtype.type(1.0) * x,
        "x * 0.0 (not rewritten)": x * x.dtype.type(0.0),
        "--x": np.negative(-x),
        "x ** 1": x ** x.dtype.type(1),
        "transpose of transpose": np.transpose(np.transpose(m) * 1, (1, 0)),
        "transpose twice to a new order": np.transpose(
            np.transpose(x.reshape(1, 3, 3), (1, 2, 0)), (1, 0, 2)
        ),
        "reshape of reshape": x.reshape(3, 3).reshape(N),
        "broadcast to own shape": np.broadcast_to(m, m.shape),
        "astype(same)": x.astype(x.dtype),
        "max over size-1 axes": np.max(m.reshape(1, 3, 3), axis=0),
        "min over size-1 axis": np.min(x.reshape(N, 1), axis=1),
        "prod over size-1 axis": np.prod(x.reshape(N, 1), axis=1),
        "sum over size-1 axis (not rewritten)": np.sum(x.reshape(N, 1), axis=1),
        "where(True)": np.where(True, x, y),
    }


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_float_rewrites_are_exact(dtype):
    pair = both(float_identities)

    @settings(max_examples=25, deadline=None)
    @given(float_arrays(dtype), float_arrays(dtype))
    def run(x, y):
        with np.errstate(all="ignore"):
            check_exact(pair, x, y)

    run()


# --- powers: bit-identical with the rewrite, only close without it ---------------------------


def powers(x):
    return {"x ** 2": x**2, "x ** 0.5": x**0.5, "np.power(x, 2)": np.power(x, 2)}


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_square_and_square_root_match_numpy_bit_for_bit(dtype):
    with_canonicalize, without = both(powers)
    edge = np.array([-np.inf, -0.0, 0.0, np.inf, np.nan, -4.0, 2.0, 1e-40, 3e38], dtype)

    @settings(max_examples=25, deadline=None)
    @given(float_arrays(dtype))
    def run(x):
        with np.errstate(all="ignore"):
            reference = eager(with_canonicalize, x)
            results = with_canonicalize(x)
            for name in reference:
                same_bits(results[name], reference[name], name)

    run()
    with np.errstate(all="ignore"):
        reference, plain = eager(with_canonicalize, edge), without(edge)
        canonical = with_canonicalize(edge)
    # NumPy's `x ** 0.5` is sqrt (NaN at -inf, -0.0 at -0.0), where pow() gives inf and
    # +0.0: tracing emits the square root itself, so no rewrite is needed for it
    for results in (plain, canonical):
        assert np.isnan(results["x ** 0.5"][0]) and np.signbit(results["x ** 0.5"][1])
        same_bits(results["x ** 0.5"], reference["x ** 0.5"], "x ** 0.5")


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_an_array_of_halves_stays_pow(dtype):
    """np.power(x, np.full(n, 0.5)) is pow() in NumPy (an exponent of several elements):
    canonicalize must not turn the splat it traces to into a square root."""
    pair = both(lambda x: np.power(x, np.full(x.shape, 0.5, x.dtype)))
    x = np.array([-np.inf, -0.0, 4.0], dtype)
    with np.errstate(all="ignore"):
        reference = np.power(x, np.full(x.shape, 0.5, dtype))
        for compiled in pair:
            result = compiled(x)
            assert result[0] == np.inf and not np.signbit(result[1])
            np.testing.assert_array_equal(result, reference)


def test_integer_square_wraps_like_numpy():
    pair = both(lambda x: {"x ** 2": x**2, "np.power(x, 2)": np.power(x, 2)})
    x = np.array([0, 1, -1, 11, 12, -128, 127, 100, -100], np.int8)
    check_exact(pair, x)


def test_rewrites_show_in_the_ir():
    """The default pipeline's tensor IR has none of the rewritten ops left."""
    concrete = tj.function(
        lambda x: {"a": np.negative(-x) * 1 + (-0.0), "b": x**2, "c": x**0.5}
    ).get_concrete_function(np.zeros(4, np.float32))
    ir = concrete.ir(after="canonicalize")
    assert "tj.neg" not in ir and "tj.pow" not in ir and "tj.add" not in ir
    assert "tj.sqrt" in ir and "tj.mul" in ir
