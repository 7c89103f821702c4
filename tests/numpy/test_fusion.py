"""Fused kernels vs unfused code vs eager NumPy.

Each traced function below returns many results (one compile checks many fusion
patterns: chains, broadcasts, splat constants, reductions with element-wise prologues,
multi-output kernels, recomputed and materialised multi-use values, selects and casts).
It is compiled twice, with the default pipeline (which fuses) and without
`fuse-elementwise`, and both must equal eager NumPy: same dtype, shape and values (exact
for ints and bools). Float sums are reassociated, so floats get the reductions' tolerance.
The caller's arrays must be left untouched (bufferize writes in place only into dead
temporaries).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tracejit.passes.pipeline import DEFAULT_PIPELINE

NO_FUSION = tuple(p for p in DEFAULT_PIPELINE if p != "fuse-elementwise")


def float_chains(x, y):
    """x and y broadcast against each other; one dtype (float32 or float64)."""
    a = x * y + 1.0
    b = np.exp(-a * a)  # expensive, used by several consumers: materialised
    c = np.tanh(b - x)
    d = np.where(c > 0, c, a)
    e = (x - y) ** 2
    out = {
        "w2": x**2 + 3 * y - np.tanh(x) * 0.5,
        "twice": (b + 1.0, b * 2.0),
        "select": d,
        "cast": (a > 0).astype(x.dtype) + np.abs(c),
        "sum_e": np.sum(e),
        "mean_e": np.mean(e),
        "any": np.any(c > 0.5),
        "all": np.all(np.isfinite(b)),
        "clip": np.minimum(np.maximum(a, -1.0), 1.0),
        "centered": x - np.mean(x) + 0.5,
        "a_and_its_sum": (a, np.sum(a * a)),
    }
    if d.size:
        out["max_c"] = np.max(c) * np.min(d)
    if d.ndim:
        out["sum_axis0"] = np.sum(d * 2.0, axis=0)
        out["prod_last"] = np.prod(1.0 + 0.01 * c, axis=-1)
    return out


def int_chains(x, y):
    """x and y broadcast against each other; one integer dtype."""
    a = x * y + 3
    b = np.abs(a) // 3  # floor_divide: expensive, materialised when shared
    m = np.maximum(a, x) - np.minimum(b, y)
    out = {
        "a": a,
        "b_pair": (b + 1, b ^ x),
        "m": m,
        "select": np.where(a > b, a, x & 7),
        "cast": (a != 0).astype(np.int8) + 1,
        "sum": np.sum(m),
        "sum_shared": (np.sum(a), np.max(a) if a.size else a.sum()),
        "any": np.any(a < 0),
        "all": np.all(m >= m),
    }
    if a.ndim:
        out["max_axis0"] = np.max(a, axis=0) if a.shape[0] else np.sum(a, axis=0)
        out["wrap"] = np.sum(a * a * a, axis=-1)
    return out


def bool_chains(x, y):
    p = x & ~y
    return {"xor": p ^ x, "any": np.any(p), "all": np.all(x | y), "count": np.sum(p)}


def compiled_pair(function):
    return tj.function(function), tj.function(function, experimental_pipeline=NO_FUSION)


FLOAT_FUNCTIONS = compiled_pair(float_chains)
INT_FUNCTIONS = compiled_pair(int_chains)
BOOL_FUNCTIONS = compiled_pair(bool_chains)


def check_pair(check_against_eager, functions, x, y, rtol: float, atol: float):
    x_before, y_before = x.copy(), y.copy()
    for function in functions:
        check_against_eager(function, x, y, rtol=rtol, atol=atol)
        np.testing.assert_array_equal(x, x_before)  # inputs are never written
        np.testing.assert_array_equal(y, y_before)


# Broadcastable shape pairs, 0-d, size-0 and size-1 dims included.
SHAPE_PAIRS = st.sampled_from(
    [
        ((), ()),
        ((7,), ()),
        ((0,), (1,)),
        ((1,), (5,)),
        ((4, 3), (3,)),
        ((4, 1), (1, 6)),
        ((2, 0, 3), (3,)),
        ((3, 1, 2), (3, 4, 1)),
        ((33,), (33,)),
    ]
)


def arrays(dtype, shape, elements):
    return hnp.arrays(dtype, shape, elements=elements)


@settings(max_examples=5, deadline=None)
@given(st.data(), SHAPE_PAIRS, st.sampled_from([np.float32, np.float64]))
def test_float_chains(check_against_eager, data, shapes, dtype):
    elements = st.floats(-3, 3, width=np.dtype(dtype).itemsize * 8)
    x = data.draw(arrays(dtype, shapes[0], elements))
    y = data.draw(arrays(dtype, shapes[1], elements))
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    check_pair(check_against_eager, FLOAT_FUNCTIONS, x, y, rtol, atol=rtol)


@settings(max_examples=6, deadline=None)
@given(st.data(), SHAPE_PAIRS, st.sampled_from([np.int8, np.int32, np.int64, np.uint8]))
def test_int_chains(check_against_eager, data, shapes, dtype):
    elements = st.integers(-100 if np.dtype(dtype).kind == "i" else 0, 100)
    x = data.draw(arrays(dtype, shapes[0], elements))
    y = data.draw(arrays(dtype, shapes[1], elements))
    check_pair(check_against_eager, INT_FUNCTIONS, x, y, 0, 0)


def test_bool_chains(check_against_eager):
    rng = np.random.default_rng(1)
    x, y = rng.random((5, 4)) < 0.5, rng.random(4) < 0.5
    check_pair(check_against_eager, BOOL_FUNCTIONS, x, y, 0, 0)


def test_special_values_and_strided_inputs(check_against_eager):
    """NaN, infinities, -0.0 and non-contiguous inputs through the fused kernels."""
    base = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e30, -1e-30, 2.5] * 4, np.float32)
    x = base.reshape(4, 8)[:, ::2]  # strided
    y = base[::-4][:4].copy()
    check_pair(check_against_eager, FLOAT_FUNCTIONS, x, y, 1e-4, 1e-4)


def test_float16(check_against_eager):
    def f(x, y):
        return {"w2": x**2 + 3 * y - np.tanh(x) * 0.5, "sum": np.sum(x * y, axis=0)}

    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((6, 5)).astype(np.float16), rng.standard_normal(5).astype(np.float16)
    check_pair(check_against_eager, compiled_pair(f), x, y, 2e-2, 2e-2)


def test_the_default_pipeline_fuses():
    x = np.ones(100, np.float32)
    fused, unfused = FLOAT_FUNCTIONS
    after = fused.get_concrete_function(x, x).ir(after="fuse-elementwise")
    assert after.count("tj.fused") >= 5
    with pytest.raises(ValueError, match="not in the pipeline"):
        unfused.get_concrete_function(x, x).ir(after="fuse-elementwise")


def test_recomputed_op_reads_a_value_of_another_kernel(check_against_eager):
    """Regression (hypothesis, shapes (0,) and (1,)): a cheap op recomputed in a second
    kernel read a materialised value that the first kernel computed but did not yield, so
    fuse-elementwise left a use of an erased value."""
    x, y = np.array([], np.int8), np.array([0], np.int8)
    check_pair(check_against_eager, INT_FUNCTIONS, x, y, 0, 0)
    a, b = np.array([-7, 5, 3], np.int8), np.array([2], np.int8)
    check_pair(check_against_eager, INT_FUNCTIONS, a, b, 0, 0)
