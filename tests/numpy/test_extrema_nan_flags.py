"""Max/min reductions after extrema-nan-flags (passes/extrema_nan_flags.py), compiled vs
eager NumPy: the loop carries `maxnum`/`minnum` (nnan nsz) and a NaN flag, and must still
give NumPy's answer for every placement of NaN, +-inf and +-0 -- a NaN first, last, alone,
everywhere; whole arrays, rows, columns; argmax/argmin's first extreme or first NaN; the
blocks of a long array -- and the rewritten IR must be what runs.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import run_eagerly

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5, 3.0]


@tj.function
def extrema(x):
    return {
        "max": np.max(x),
        "min": np.min(x),
        "argmax": np.argmax(x),
        "argmin": np.argmin(x),
        "nanmax": np.nanmax(np.where(np.isnan(x), 0.0, x)),  # fmax: no NaN flag
    }


@tj.function
def row_and_column_extrema(a):
    return {
        "rows max": a.max(axis=1),
        "rows min": a.min(axis=1),
        "columns max": a.max(axis=0),
        "rows argmax": np.argmax(a, axis=1),
        "keepdims": a.max(axis=-1, keepdims=True),
    }


def _assert_same(got: dict, want: dict) -> None:
    for key, expected in want.items():
        assert np.asarray(got[key]).dtype == np.asarray(expected).dtype, key
        np.testing.assert_array_equal(got[key], expected, err_msg=key)


@pytest.mark.filterwarnings("ignore:All-NaN slice encountered:RuntimeWarning")
@settings(max_examples=60, deadline=None)
@given(
    x=hnp.arrays(
        st.sampled_from([np.float32, np.float64]),
        st.integers(1, 3000),
        elements=st.sampled_from(SPECIALS),
    )
)
def test_whole_array_extrema_match_numpy(x):
    _assert_same(extrema(x), run_eagerly(extrema, x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("where", [0, 1, 4095, 4096, 99_999, -1])
def test_one_nan_anywhere_in_a_long_array(dtype, where):
    """One NaN among 100,000 values (argmax's blocks, the vector loop's lanes and its
    remainder): max and min are NaN, argmax and argmin point at it."""
    x = np.random.default_rng(abs(where)).standard_normal(100_000).astype(dtype)
    x[where] = np.nan
    got = extrema(x)
    assert np.isnan(got["max"]) and np.isnan(got["min"])
    assert got["argmax"] == got["argmin"] == np.arange(x.size)[where]
    _assert_same(got, run_eagerly(extrema, x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_no_nan_gives_the_extreme_value_and_its_first_index(dtype):
    x = np.random.default_rng(1).standard_normal(50_001).astype(dtype)
    x[[10, 40_000]] = 9.0  # the max twice: the first index
    x[[7, 30_000]] = -np.inf
    _assert_same(extrema(x), run_eagerly(extrema, x))
    assert extrema(x)["argmax"] == 10 and extrema(x)["argmin"] == 7


def test_an_empty_array_raises_as_numpy_does():
    with pytest.raises(ValueError):
        extrema(np.zeros(0))
    with pytest.raises(ValueError):
        run_eagerly(extrema, np.zeros(0))


@pytest.mark.filterwarnings("ignore:All-NaN slice encountered:RuntimeWarning")
@settings(max_examples=40, deadline=None)
@given(
    a=hnp.arrays(
        st.sampled_from([np.float32, np.float64]),
        st.tuples(st.integers(1, 40), st.integers(1, 300)),
        elements=st.sampled_from(SPECIALS),
    )
)
def test_row_and_column_extrema_match_numpy(a):
    _assert_same(row_and_column_extrema(a), run_eagerly(row_and_column_extrema, a))


def test_the_compiled_loop_is_the_number_form():
    """np.max compiles to `maxnum` with `nnan nsz` beside a NaN flag, not `llvm.maximum`;
    the pass warns nothing (no deprecated xDSL call reaches a user's compile)."""
    ir = tj.function(lambda x: np.max(x)).get_concrete_function(np.zeros(4096, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        lowered = ir.ir(after="extrema-nan-flags")
    assert "arith.maxnumf" in lowered and "fastmath<nnan,nsz>" in lowered
    assert "arith.maximumf" not in lowered


def test_with_the_defaults_users_get():
    """Tiered compilation and threads as a user has them: the answer before and after the
    compiled code takes over is NumPy's."""
    x = np.random.default_rng(2).standard_normal(200_000)
    x[123_456] = np.nan
    want = run_eagerly(extrema, x)
    tj.config.set_tiered_compilation(True)
    try:
        function = tj.function(extrema.python_function)
        _assert_same(function(x), want)
        tj.config.wait_for_compiles()
        assert function.get_concrete_function(x).is_compiled
        _assert_same(function(x), want)
    finally:
        tj.config.set_tiered_compilation(False)
